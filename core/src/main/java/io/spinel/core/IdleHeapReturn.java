package io.spinel.core;

/**
 * Gives the JVM heap back to the OS after the data set shrank, the way jemalloc purges the pages
 * Redis freed. G1 frees a deleted value's memory only when a collection reaches its region, and
 * gives regions back to the OS only after a full collection: after FLUSHALL of 2M strings a
 * standalone server stayed at 201 MB resident indefinitely, and fell to 98 MB after one full GC.
 *
 * <p>The policy, asked once per cron tick: when the data (used_memory) has fallen by at least half
 * of its peak since the last return, and by at least {@link #MIN_DROP} bytes, and no command has
 * run for {@link #IDLE_MILLIS}, run the action (a full collection). A full collection pauses the
 * server for a time that grows with the live data, so it is not run while more than
 * {@link #MAX_LIVE} bytes of data remain; and it runs at most once per drop, when nobody is
 * waiting. Only the standalone server installs it: an embedded server never collects its host
 * application's heap.
 */
final class IdleHeapReturn {
    /** Below this drop the returned memory is not worth a collection. */
    static final long MIN_DROP = 32L << 20;
    /** With more data than this left, a full collection pauses too long (2M strings, 133 MB: 0.15-0.21 s on 2 cores). */
    static final long MAX_LIVE = 256L << 20;
    /** How long no command must have run. */
    static final long IDLE_MILLIS = 1000;

    private final Runnable collect;
    private long peak;
    private long lastCommands = -1;
    private long idleSince;

    IdleHeapReturn(Runnable collect) {
        this.collect = collect;
    }

    /** MEMORY PURGE: collect now, whatever the data did. */
    void collectNow(long usedMemory) {
        collect.run();
        peak = usedMemory;
    }

    /** Called from serverCron; returns whether it collected. */
    boolean tick(long usedMemory, long commandsProcessed, long nowMillis) {
        if (usedMemory > peak) peak = usedMemory;
        if (commandsProcessed != lastCommands) {
            lastCommands = commandsProcessed;
            idleSince = nowMillis;
            return false;
        }
        long drop = peak - usedMemory;
        if (nowMillis - idleSince < IDLE_MILLIS || drop < MIN_DROP || drop * 2 < peak || usedMemory > MAX_LIVE) {
            return false;
        }
        collectNow(usedMemory);
        return true;
    }
}
