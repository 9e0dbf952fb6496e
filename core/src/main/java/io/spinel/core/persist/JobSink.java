package io.spinel.core.persist;

import java.util.function.Consumer;

/**
 * Where a background job's snapshot goes: a file ({@link FileSink}), or replicas' sockets
 * ({@link SocketSink}). The executor serializes into it; the sink reports completion.
 */
interface JobSink extends Snapshot.Sink {
    /** Begins taking chunks; {@code done} gets null once everything is written, or the failure. */
    void startBackground(String threadName, Consumer<Throwable> done);

    /** Everything has been handed over: complete (and report to done). */
    void finishBackground();

    /** The job was killed: drop what was written. */
    void abortBackground();

    /** The job could not begin: release what the sink holds. */
    void discard();

    /** Waits until the sink's own work is over (shutdown). */
    default void join(long millis) {
    }

    /** Serialized bytes the sink may lag behind before slices pause. */
    default long maxBacklog() {
        return 64L << 20;
    }

    /** After each slice of serialization. */
    default void sliceDone() {
    }
}
