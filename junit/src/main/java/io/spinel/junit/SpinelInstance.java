package io.spinel.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Injects a handle on the test's Spinel server into a field of type
 * {@link io.spinel.server.SpinelServer} (the running server) or
 * {@link io.spinel.core.embedded.SpinelClient} (an in-process connection to it, already
 * authenticated, for checking what the code under test stored without a network client), or
 * {@link io.spinel.core.embedded.ManualClock} (the clock its keys expire by, with
 * {@code @Spinel(manualClock = true)}). Parameters of those types are resolved without the annotation.
 */
@Target({ElementType.FIELD, ElementType.PARAMETER})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface SpinelInstance {
}
