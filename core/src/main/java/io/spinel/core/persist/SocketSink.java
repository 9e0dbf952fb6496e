package io.spinel.core.persist;

import io.spinel.core.util.Bytes;

import java.util.function.Consumer;

/**
 * A snapshot streamed to replicas' sockets (repl-diskless-sync), as Redis's rdbSaveToSlavesSockets
 * does through its child's pipe: each chunk is handed to the replication's target on the
 * executor (no file, no thread), the RDB's checksum trailer at the end. The target frames the
 * transfer ($EOF:mark ... mark) and paces the serialization with its slowest replica's backlog.
 */
final class SocketSink implements JobSink {
    private final Persistence.SocketTarget target;
    private final boolean checksum;
    private long crc;
    private byte[] spare;
    private Consumer<Throwable> done;

    SocketSink(Persistence.SocketTarget target, boolean checksum) {
        this.target = target;
        this.checksum = checksum;
    }

    @Override
    public void write(byte[] b, int len) {
        if (checksum) crc = Crc64.update(crc, b, 0, len);
        target.write(b, len);
        spare = b; // the target copied it
    }

    @Override
    public byte[] spareChunk() {
        byte[] b = spare;
        spare = null;
        return b;
    }

    @Override
    public long backlog() {
        return target.backlog();
    }

    /** A replica's socket takes a few MB ahead: more would only wait in memory. */
    @Override
    public long maxBacklog() {
        return 4L << 20;
    }

    @Override
    public void sliceDone() {
        target.flush();
    }

    @Override
    public void startBackground(String threadName, Consumer<Throwable> done) {
        this.done = done;
    }

    @Override
    public void finishBackground() {
        byte[] trailer = new byte[8];
        Bytes.putLongLE(trailer, 0, checksum ? crc : 0);
        target.write(trailer, 8);
        target.flush();
        done.accept(null);
    }

    @Override
    public void abortBackground() {
        // what reached the replicas is theirs to drop: the replication closes them
    }

    @Override
    public void discard() {
        // nothing held
    }
}
