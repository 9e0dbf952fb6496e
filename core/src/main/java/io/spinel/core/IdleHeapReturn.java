package io.spinel.core;

/**
 * Gives the JVM heap back to the OS after the data set shrank, the way jemalloc purges the pages
 * Redis freed. G1 frees a deleted value's memory only when a collection reaches its region, and
 * gives regions back to the OS only after a full collection: after FLUSHALL of 2M strings a
 * standalone server stayed at 201 MB resident indefinitely, and fell to 98 MB after one full GC.
 *
 * <p>It also gives back what loading data left behind: the young generation that a load filled
 * (up to its 32 MB cap) and the free space G1 grew the heap by stay committed and resident after
 * the load, which for a small data set is as much again as the data (10k sorted sets of 100, 20 MB
 * of data: RSS grew 27-32 MB, Redis's 20.6 MB; 15.6 MB after one full collection).
 *
 * <p>The policy, asked once per cron tick, when no command has run for {@link #IDLE_MILLIS} and no
 * more than {@link #MAX_LIVE} bytes of data are left (a full collection pauses the server for a
 * time that grows with the live data): run the action (a full collection) when the data
 * (used_memory) has fallen by at least half of its peak since the last return, and by at least
 * {@link #MIN_DROP} bytes; or when it has grown by {@link #MIN_GROWTH} bytes since the last
 * return and the committed heap exceeds it by {@link #MIN_SLACK}. Each runs once per drop or
 * growth, when nobody is waiting; a workload that only reads never triggers it. Only the
 * standalone server installs it: an embedded server never collects its host application's heap.
 */
final class IdleHeapReturn {
    /** Below this drop the returned memory is not worth a collection. */
    static final long MIN_DROP = 32L << 20;
    /** With more data than this left, a full collection pauses too long (2M strings, 133 MB: 0.15-0.21 s on 2 cores). */
    static final long MAX_LIVE = 256L << 20;
    /** How long no command must have run. */
    static final long IDLE_MILLIS = 1000;
    /** Data added since the last return that makes a load worth a collection. */
    static final long MIN_GROWTH = 16L << 20;
    /** Committed heap beyond the data below which a collection would give back too little. */
    static final long MIN_SLACK = 16L << 20;
    /** The least a synchronous flush must drop to be followed by a collection at once. */
    static final long FLUSH_MIN_DROP = 8L << 20;

    private final Runnable collect;
    private final java.util.function.LongSupplier heapCommitted;
    private long peak;
    /** used_memory when the heap was last returned (or 0 at start). */
    private long usedAtReturn;
    private long lastCommands = -1;
    private long idleSince;

    /** @param heapCommitted the heap the JVM holds now (Runtime.totalMemory()) */
    IdleHeapReturn(Runnable collect, java.util.function.LongSupplier heapCommitted) {
        this.collect = collect;
        this.heapCommitted = heapCommitted;
    }

    /** MEMORY PURGE: collect now, whatever the data did. */
    void collectNow(long usedMemory) {
        collect.run();
        peak = usedMemory;
        usedAtReturn = usedMemory;
    }

    /**
     * After a synchronous FLUSHALL or FLUSHDB, as Redis then has jemalloc purge at once: collect
     * now when the flush dropped at least {@link #FLUSH_MIN_DROP} and left no more than it dropped
     * (nor {@link #MAX_LIVE}), so that the pause, which grows with what is left, stays within what
     * Redis's flush spends freeing what it drops. Without it the dropped data stays in G1's old
     * regions until a marking cycle, which a heap that can still grow does not start: the next
     * writes are promoted into regions never touched before, and each young pause then takes the
     * page faults of the memory it fills (FLUSHALL and 200k requests of SET, INCR, LPUSH, HSET and
     * ZADD, five times: heap 8 -> 112 MB, young pauses of 20-50 ms).
     */
    boolean afterFlush(long usedBefore, long usedAfter) {
        long drop = usedBefore - usedAfter;
        if (drop < FLUSH_MIN_DROP || usedAfter > drop || usedAfter > MAX_LIVE) return false;
        collectNow(usedAfter);
        return true;
    }

    /** Called from serverCron; returns whether it collected. */
    boolean tick(long usedMemory, long commandsProcessed, long nowMillis) {
        if (usedMemory > peak) peak = usedMemory;
        if (commandsProcessed != lastCommands) {
            lastCommands = commandsProcessed;
            idleSince = nowMillis;
            return false;
        }
        if (nowMillis - idleSince < IDLE_MILLIS || usedMemory > MAX_LIVE) return false;
        long drop = peak - usedMemory;
        boolean shrank = drop >= MIN_DROP && drop * 2 >= peak;
        boolean grewWithSlack = usedMemory - usedAtReturn >= MIN_GROWTH
                && heapCommitted.getAsLong() - usedMemory >= MIN_SLACK;
        if (!shrank && !grewWithSlack) return false;
        collectNow(usedMemory);
        return true;
    }
}
