package io.spinel.core.persist;

/**
 * A client sent SHUTDOWN while the data set was loading at start: the load stops where it is and
 * the server exits without saving, as Redis does (a partial data set must never overwrite the
 * files it came from).
 */
public final class ShutdownWhileLoading extends RuntimeException {
    public ShutdownWhileLoading() {
        super("Shutdown requested while loading the data set: exiting without saving", null, false, false);
    }
}
