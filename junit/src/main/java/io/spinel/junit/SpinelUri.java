package io.spinel.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Injects the test's Spinel server as a Redis URI, {@code redis://127.0.0.1:PORT} (with
 * {@code :password@} when requirepass is configured), into a {@code String} or
 * {@code java.net.URI}. Jedis, Lettuce and Spring's {@code spring.data.redis.url} take it as is.
 */
@Target({ElementType.FIELD, ElementType.PARAMETER})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface SpinelUri {
}
