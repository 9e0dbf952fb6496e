package io.spinel.core;

import java.util.HashMap;
import java.util.Map;

/** Server-wide counters for INFO stats, and the instantaneous rates Redis samples every 100 ms. */
public final class ServerStats {
    private static final int SAMPLES = 16;

    public long commandsProcessed;
    public long connectionsReceived;
    public long rejectedConnections;
    public long netInputBytes;
    public long netOutputBytes;
    /** Bytes written to replicas, snapshots included (Redis counts them apart from netOutputBytes). */
    public long netReplOutputBytes;
    /** Bytes a replica read from its master, counted on the link's thread. */
    public final java.util.concurrent.atomic.AtomicLong netReplInputBytes = new java.util.concurrent.atomic.AtomicLong();
    public long errorReplies;
    /** Errors this replica answered to its master's stream (INFO unexpected_error_replies). */
    public long unexpectedErrorReplies;
    public long readsProcessed;
    public long writesProcessed;
    /** Reads and flushes done by I/O threads (io-threads above 1) for the engine. */
    public long ioThreadedReads;
    public long ioThreadedWrites;
    /** Reply buffers the clients' cron shrank to their recent peak (INFO reply_buffer_shrinks). */
    public long replyBufferShrinks;
    public long replyBufferExpands;
    final Map<String, Long> errorCodes = new HashMap<>();

    private static final int METRICS = 5;
    private final long[][] samples = new long[METRICS][SAMPLES];
    private final long[] lastValue = new long[METRICS];
    private long lastSampleNanos;
    private int sampleIdx;
    private long nowMillis = System.currentTimeMillis();

    public long nowMillis() {
        return nowMillis;
    }

    /** Takes a sample for the instantaneous metrics if 100 ms passed since the last one. */
    void sample(long nanos, Engine engine) {
        nowMillis = System.currentTimeMillis();
        if (lastSampleNanos != 0 && nanos - lastSampleNanos < 100_000_000L) return;
        long elapsed = lastSampleNanos == 0 ? 0 : nanos - lastSampleNanos;
        long[] current = {commandsProcessed, netInputBytes, netOutputBytes, netReplInputBytes.get(), netReplOutputBytes};
        if (elapsed > 0) {
            for (int m = 0; m < METRICS; m++) {
                samples[m][sampleIdx] = (current[m] - lastValue[m]) * 1_000_000_000L / elapsed;
            }
            sampleIdx = (sampleIdx + 1) % SAMPLES;
        }
        System.arraycopy(current, 0, lastValue, 0, METRICS);
        lastSampleNanos = nanos;
    }

    private long average(int metric) {
        long sum = 0;
        for (long v : samples[metric]) sum += v;
        return sum / SAMPLES;
    }

    public long instantaneousOps() {
        return average(0);
    }

    public double instantaneousInputKbps() {
        return average(1) / 1024.0;
    }

    public double instantaneousOutputKbps() {
        return average(2) / 1024.0;
    }

    public double instantaneousReplInputKbps() {
        return average(3) / 1024.0;
    }

    public double instantaneousReplOutputKbps() {
        return average(4) / 1024.0;
    }

    public void reset() {
        commandsProcessed = connectionsReceived = rejectedConnections = 0;
        netInputBytes = netOutputBytes = netReplOutputBytes = errorReplies = unexpectedErrorReplies = 0;
        netReplInputBytes.set(0);
        readsProcessed = writesProcessed = ioThreadedReads = ioThreadedWrites = replyBufferShrinks = replyBufferExpands = 0;
        errorCodes.clear();
    }
}
