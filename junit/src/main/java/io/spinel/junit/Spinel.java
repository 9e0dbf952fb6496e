package io.spinel.junit;

import org.junit.jupiter.api.extension.ExtendWith;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs a Spinel server on a free port of 127.0.0.1 for the annotated test class, and tells the
 * tests where it is through fields or parameters annotated with {@link SpinelPort},
 * {@link SpinelHost}, {@link SpinelUri} or {@link SpinelInstance}:
 *
 * <pre>
 * &#64;Spinel
 * class CartTest {
 *     &#64;SpinelPort int port;
 *
 *     &#64;Test
 *     void addsItems() {
 *         try (Jedis jedis = new Jedis("127.0.0.1", port)) { ... }
 *     }
 * }
 * </pre>
 *
 * Each annotated class (or each test method, see {@link #lifecycle()}) gets a server of its own,
 * so classes and methods may run in parallel. {@code @Nested} classes share the server of the
 * class that encloses them unless they are annotated themselves.
 */
@Target({ElementType.TYPE, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(SpinelExtension.class)
public @interface Spinel {
    /** When servers start and stop. */
    enum Lifecycle {
        /** One server for the whole class: started before its first test, stopped after its last. */
        PER_CLASS,
        /** A fresh server for every test method, stopped when the method ends. */
        PER_METHOD
    }

    Lifecycle lifecycle() default Lifecycle.PER_CLASS;

    /**
     * With {@link Lifecycle#PER_CLASS}, empty every database (FLUSHALL) after each test so the
     * next one starts clean. Turn it off when tests build on each other's data, or run
     * concurrently inside one class.
     */
    boolean flushAfterEach() default true;

    /**
     * Server options as redis.conf lines, "name value": {@code {"requirepass secret",
     * "databases 4", "maxmemory-policy allkeys-lru"}}. Checked as CONFIG SET would; a bad one
     * fails the class with the reason.
     */
    String[] config() default {};

    /**
     * Run the server on a {@link io.spinel.core.embedded.ManualClock} that tests move forward
     * themselves: inject it (a {@code ManualClock} field annotated {@link SpinelInstance}, or a
     * parameter of that type), set a TTL, {@code advance} past it, and the key is gone on its next
     * access (and from DBSIZE within the next active expiry cycle, about 100 ms). The clock starts
     * at the wall-clock time and keeps what tests did to it for the server's lifetime.
     */
    boolean manualClock() default false;
}
