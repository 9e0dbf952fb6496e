package io.spinel.core.keyspace;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/**
 * All databases, the clock the keyspace reads, LRU/LFU bookkeeping, the keyspace statistics and
 * the active expiry cycle. Only the executor thread touches it.
 */
public final class Keyspace {
    /** Told about keys removed because their TTL passed (stats, notifications, propagation). */
    public interface Listener {
        /** Nobody listening: a keyspace on its own, without an engine (tests, benchmarks). */
        Listener NONE = new Listener() {
            @Override
            public void expired(Db db, byte[] key, Object entry) {
            }

            @Override
            public void keyMiss(Db db, byte[] k, int off, int len) {
            }

            @Override
            public void keyAdded(Db db, byte[] k, int off, int len) {
            }
        };

        void expired(Db db, byte[] key, Object entry);

        /** A read found no key (only called when key-miss events are enabled). */
        void keyMiss(Db db, byte[] k, int off, int len);

        /** A new key appeared (only called when new-key events are enabled). */
        void keyAdded(Db db, byte[] k, int off, int len);
    }

    boolean notifyKeyMiss;
    boolean notifyNewKeys;

    /** Which optional per-access events the listener wants (notify-keyspace-events m and n). */
    public void setEventFlags(boolean keyMiss, boolean newKeys) {
        notifyKeyMiss = keyMiss;
        notifyNewKeys = newKeys;
    }

    void keyMiss(Db db, byte[] k, int off, int len) {
        if (notifyKeyMiss) listener.keyMiss(db, k, off, len);
    }

    void keyAdded(Db db, byte[] k, int off, int len) {
        if (notifyNewKeys) listener.keyAdded(db, k, off, len);
    }

    /** Supplies the wall clock in ms; replaceable so tests can move time. */
    public interface Clock {
        long millis();
    }

    private static final int LFU_INIT_VAL = 5;
    private static final int EXPIRE_KEYS_PER_LOOP = 20;
    private static final int EXPIRE_ACCEPTABLE_STALE = 10; // percent

    private Db[] dbs;
    /** The databases a swapdb load fills, or the data set they replaced, until discarded. */
    private Db[] detached;
    /** While a forked debugging session runs: what its changes replaced (see {@link #recordChanges}). */
    UndoLog undoLog;
    /** Databases with collections to measure again after the current command. */
    final java.util.ArrayList<Db> dirtyDbs = new java.util.ArrayList<>();
    /** The native memory of BIG string values. */
    final BigValues bigValues = new BigValues(this);
    private final Listener listener;
    /** The operating system's wall clock, the default; {@link #updateTime(long)} derives it from System.nanoTime(). */
    public static final Clock SYSTEM_CLOCK = System::currentTimeMillis;
    private Clock clock = SYSTEM_CLOCK;
    /** The time commands see: fixed for the duration of one command, MULTI/EXEC or script. */
    private long now;
    /**
     * The wall clock in ns and System.nanoTime() read together (by {@link #resyncClock}, every
     * cron tick): a command's wall-clock time is derived from the nanoTime its timing read anyway,
     * one clock read less per command (a vDSO call, ~24 ns here, 5% of the loop at -P 16).
     */
    private long wallBaseNanos;
    private long monoBaseNanos;
    private boolean timeFrozen;
    private final SplittableRandom random = new SplittableRandom();

    // policy knobs (maxmemory-policy decides LRU vs LFU; lfu-log-factor, lfu-decay-time)
    private boolean lfu;
    private int lfuLogFactor = 10;
    private int lfuDecayTime = 1;

    // statistics (INFO stats)
    long hits;
    long misses;
    long expiredKeys;
    long expiredStalePercTimes100;
    long expiredTimeCapReached;
    private int expireDbCursor;

    public Keyspace(int databases, Listener listener) {
        this.listener = listener;
        this.dbs = new Db[databases];
        for (int i = 0; i < databases; i++) dbs[i] = new Db(i, this);
        resyncClock();
        this.now = clock.millis();
    }

    public Db db(int i) {
        return dbs[i];
    }

    public int count() {
        return dbs.length;
    }

    // ---- time ---------------------------------------------------------------------------------

    public void setClock(Clock clock) {
        this.clock = clock;
        this.now = clock.millis();
    }

    public Clock clock() {
        return clock;
    }

    /** Cached command time in ms. */
    public long now() {
        return now;
    }

    /** Refreshes the cached time from the clock (unless frozen by MULTI/EXEC or a script). */
    public void updateTime() {
        if (!timeFrozen) now = clock.millis();
    }

    /**
     * Refreshes the cached time at the start of a command whose timing read System.nanoTime() as
     * {@code nanos}: the system clock is derived from that reading, another clock is read.
     */
    public void updateTime(long nanos) {
        if (!timeFrozen) now = clock == SYSTEM_CLOCK ? systemMillis(nanos) : clock.millis();
    }

    /** The system wall clock in ms at the moment System.nanoTime() read {@code nanos}. */
    public long systemMillis(long nanos) {
        return Math.floorDiv(wallBaseNanos + (nanos - monoBaseNanos), 1_000_000L);
    }

    /**
     * Reads the wall clock and System.nanoTime() together again, so derived times follow a wall
     * clock that was set or slewed (the two drift apart by microseconds per second at most).
     */
    public void resyncClock() {
        java.time.Instant wall = java.time.Instant.now();
        monoBaseNanos = System.nanoTime();
        wallBaseNanos = wall.getEpochSecond() * 1_000_000_000L + wall.getNano();
    }

    public boolean isTimeFrozen() {
        return timeFrozen;
    }

    /** Freezes the clock for a transaction or script, so keys cannot expire halfway through. */
    public void freezeTime(boolean frozen) {
        if (frozen && !timeFrozen) now = clock.millis();
        timeFrozen = frozen;
    }

    // ---- LRU / LFU ----------------------------------------------------------------------------

    public void setLfu(boolean lfu) {
        this.lfu = lfu;
    }

    public boolean lfu() {
        return lfu;
    }

    private boolean sharedIntegers = true;

    /**
     * Whether Redis would share the objects of small integers (OBJECT REFCOUNT shows INT_MAX):
     * not when maxmemory is set with an LRU/LFU policy, which needs per-key access data.
     */
    public boolean sharedIntegers() {
        return sharedIntegers;
    }

    public void setSharedIntegers(boolean shared) {
        sharedIntegers = shared;
    }

    public void setLfuLogFactor(int f) {
        lfuLogFactor = f;
    }

    public void setLfuDecayTime(int t) {
        lfuDecayTime = t;
    }

    /** Redis's LRU clock: seconds, 24 bits. */
    /** Redis's LRU clock (seconds, 24 bits), from the command time so no clock call is made per access. */
    public int lruClock() {
        return (int) ((now / 1000) & 0xFFFFFF);
    }

    private int lfuMinutes() {
        return (int) ((now / 60000) & 0xFFFF);
    }

    /** The LRU/LFU field of a new object. */
    public int newLru() {
        return lfu ? (lfuMinutes() << 8) | LFU_INIT_VAL : lruClock();
    }

    /** Records an access to e. */
    void touch(Object e) {
        if (lfu) {
            int lru = Entries.lru(e);
            int counter = lfuDecrAndReturn(lru);
            counter = lfuLogIncr(counter);
            Entries.setLru(e, (lfuMinutes() << 8) | counter);
        } else {
            Entries.setLru(e, lruClock());
        }
    }

    /** The LFU counter after decay (OBJECT FREQ). */
    public int lfuDecrAndReturn(int lru) {
        int ldt = lru >>> 8;
        int counter = lru & 255;
        int nowMin = lfuMinutes();
        int elapsed = nowMin >= ldt ? nowMin - ldt : 65535 - ldt + nowMin;
        int periods = lfuDecayTime > 0 ? elapsed / lfuDecayTime : 0;
        if (periods > 0) counter = periods > counter ? 0 : counter - periods;
        return counter;
    }

    private int lfuLogIncr(int counter) {
        if (counter == 255) return 255;
        double r = random.nextDouble();
        double base = Math.max(0, counter - LFU_INIT_VAL);
        double p = 1.0 / (base * lfuLogFactor + 1);
        return r < p ? counter + 1 : counter;
    }

    /** Seconds since the entry was last touched (OBJECT IDLETIME), from the 24-bit LRU clock. */
    public long idleSeconds(Object e) {
        int lru = Entries.lru(e);
        int clockNow = lruClock();
        return clockNow >= lru ? clockNow - lru : (0xFFFFFF - lru) + clockNow;
    }

    /**
     * The LRU/LFU field of an object being loaded (RDB, RESTORE): from the saved idle time or
     * LFU counter when given (-1 when not) and meaningful for the policy, as Redis's
     * objectSetLRUOrLFU does.
     */
    public int loadedLru(long idleSeconds, int freq) {
        if (lfu) return freq >= 0 ? (lfuMinutes() << 8) | freq : newLru();
        if (idleSeconds < 0) return newLru();
        long clockNow = lruClock();
        long abs = clockNow - idleSeconds;
        if (abs < 0) abs = (clockNow + (0xFFFFFF / 2)) % 0xFFFFFF;
        return (int) abs;
    }

    // ---- loading ------------------------------------------------------------------------------

    /** True while a data set is being loaded: nothing expires then (Redis's server.loading). */
    boolean loading;

    public void setLoading(boolean loading) {
        this.loading = loading;
    }

    public boolean isLoading() {
        return loading;
    }

    /**
     * True during CLIENT PAUSE: the data set stays still, so an expired key reads as missing but
     * is not deleted (Redis's expireIfNeeded under a pause); active expiry skips its cycles.
     */
    boolean expiryPaused;

    public void setExpiryPaused(boolean paused) {
        this.expiryPaused = paused;
    }

    public boolean isExpiryPaused() {
        return expiryPaused;
    }

    /**
     * True on a replica: keys expire when the master says so (its DEL in the stream); until then
     * an expired key reads as missing but stays (Redis's expireIfNeeded with a master host).
     */
    boolean replica;

    public void setReplica(boolean replica) {
        this.replica = replica;
        if (!replica) replicaKeysWithExpire.clear(); // active expiry takes over
    }

    /** A key of one database, by value. */
    private record DbKey(int db, String key) {
    }

    /**
     * Keys this server's own clients gave a TTL while it is a (writable) replica: no master will
     * delete them, so {@link #expireReplicaKeys} does (Redis's slaveKeysWithExpire).
     */
    private final java.util.LinkedHashSet<DbKey> replicaKeysWithExpire = new java.util.LinkedHashSet<>();

    /** Db's hook when a key gets a TTL: remembered on a replica when not from its master. */
    void expireSetByClient(Db db, byte[] k, int off, int len) {
        if (!replica || applyingMaster || loading) return;
        replicaKeysWithExpire.add(new DbKey(db.id(), new String(k, off, len, StandardCharsets.ISO_8859_1)));
    }

    /**
     * A replica's cron (Redis's expireSlaveKeys): the keys its own clients gave a TTL are deleted
     * once it passes, as expiry does on a master; those gone or without a TTL are forgotten.
     */
    /**
     * Keys a writable replica's own clients gave a TTL, which it expires itself (INFO
     * slave_expires_tracked_keys): one per name, as Redis counts a name set in several databases.
     */
    public int replicaKeysWithExpire() {
        if (replicaKeysWithExpire.isEmpty()) return 0;
        java.util.HashSet<String> names = new java.util.HashSet<>();
        for (DbKey k : replicaKeysWithExpire) names.add(k.key());
        return names.size();
    }

    public void expireReplicaKeys(long budgetNanos) {
        if (replicaKeysWithExpire.isEmpty()) return;
        long deadline = System.nanoTime() + budgetNanos;
        updateTime();
        int n = 0;
        // those checked and kept go to the end: the next tick starts with the others
        java.util.ArrayList<DbKey> kept = new java.util.ArrayList<>();
        for (java.util.Iterator<DbKey> it = replicaKeysWithExpire.iterator(); it.hasNext(); ) {
            DbKey t = it.next();
            if (t.db >= dbs.length) {
                it.remove();
                continue;
            }
            Db db = dbs[t.db];
            byte[] key = t.key.getBytes(StandardCharsets.ISO_8859_1);
            Object e = db.find(key);
            long when = e == null ? -1 : Entries.expire(e);
            if (when < 0) {
                it.remove();
            } else if (when <= now) {
                db.remove(key, 0, key.length);
                expired(db, key, e);
                it.remove();
            } else {
                it.remove();
                kept.add(t);
            }
            if ((++n & 63) == 0 && System.nanoTime() > deadline) break;
        }
        replicaKeysWithExpire.addAll(kept);
    }

    /** True while a replica runs its master's commands: for them no key has expired yet. */
    boolean applyingMaster;

    public void setApplyingMaster(boolean applying) {
        this.applyingMaster = applying;
    }

    /**
     * Whether an absolute expire time is already past for a command that sets it (Redis's
     * checkAlreadyExpired): such keys are deleted at once, except while loading, when the log
     * replays onto the data as it was.
     */
    public boolean alreadyExpired(long when) {
        return when <= now && !loading;
    }

    // ---- statistics ---------------------------------------------------------------------------

    public long hits() {
        return hits;
    }

    public long misses() {
        return misses;
    }

    public long expiredKeys() {
        return expiredKeys;
    }

    public double expiredStalePerc() {
        return expiredStalePercTimes100 / 100.0;
    }

    public long expiredTimeCapReached() {
        return expiredTimeCapReached;
    }

    public void resetStats() {
        hits = misses = expiredKeys = expiredTimeCapReached = 0;
    }

    void expired(Db db, byte[] key, Object entry) {
        expiredKeys++;
        listener.expired(db, key, entry);
    }

    // ---- whole-keyspace operations ------------------------------------------------------------

    /** After each command: re-measure the collections it wrote (memory accounting). */
    public void settle() {
        if (dirtyDbs.isEmpty()) return;
        for (int i = 0; i < dirtyDbs.size(); i++) dirtyDbs.get(i).settle();
        dirtyDbs.clear();
    }

    public BigValues bigValues() {
        return bigValues;
    }

    /**
     * When the server stops: the native memory of big values is not the collector's to reclaim,
     * and an embedded server's JVM goes on, so the databases holding any are emptied and it is
     * freed (after the running snapshots end, as always).
     */
    public void dropBigValues() {
        for (Db db : dbs) {
            if (db.bigEntries() > 0) db.clear();
        }
        bigValues.release();
    }

    /** Estimated heap bytes of all data (used_memory_dataset). */
    public long memoryUsage() {
        settle();
        long n = 0;
        for (Db d : dbs) n += d.memoryUsage();
        // a swapdb load's databases take memory too, as Redis's temporary ones count in used_memory
        if (detached != null) for (Db d : detached) n += d.memoryUsage();
        return n;
    }

    public long totalKeys() {
        long n = 0;
        for (Db d : dbs) n += d.size();
        return n;
    }

    public void swap(int a, int b) {
        settle();
        if (a == b) return;
        if (undoLog != null) undoLog.swapped(dbs[a], dbs[b]);
        dbs[a].swapWith(dbs[b]);
    }

    /** Whether every database keeps its keys by cluster hash slot (see {@link #enableSlotIndex}). */
    private boolean slotIndexed;

    /**
     * Cluster mode: every database, and every one made later (a swapdb load's), keeps its keys by
     * hash slot from now on, for CLUSTER COUNTKEYSINSLOT and GETKEYSINSLOT and for deleting the
     * keys of a slot this node loses. Meant for start-up, before any data loads (keys present are
     * indexed, which takes a pass over them). There is no way back: cluster-enabled is immutable.
     */
    public void enableSlotIndex() {
        slotIndexed = true;
        for (Db d : dbs) d.indexSlots();
        if (detached != null) for (Db d : detached) d.indexSlots();
    }

    public boolean slotIndexed() {
        return slotIndexed;
    }

    /**
     * Records, from now on, what every change replaces, to be undone by {@link #undoChanges}: a
     * forked Lua debugging session (SCRIPT DEBUG YES), whose writes Redis's fork throws away.
     */
    public void recordChanges() {
        if (undoLog != null) throw new IllegalStateException("changes are recorded already");
        undoLog = new UndoLog();
    }

    /** Undoes every change since {@link #recordChanges} and stops recording. */
    public void undoChanges() {
        UndoLog log = undoLog;
        if (log == null) return;
        undoLog = null;
        log.undo(this);
    }

    /**
     * Empty databases outside this keyspace, one per database (Redis's initTempDb): a replica's
     * diskless load with swapdb fills them while the clients still read the old data set.
     */
    public Db[] detachedDbs() {
        Db[] d = new Db[dbs.length];
        for (int i = 0; i < d.length; i++) d[i] = new Db(i, this);
        detached = d;
        return d;
    }

    /**
     * Empties databases that {@link #detachedDbs} made (what a load filled, or, once swapped in,
     * the old data set) and stops counting them in {@link #memoryUsage}.
     */
    public void discardDetached(Db[] d) {
        for (Db db : d) db.clear();
        if (detached == d) detached = null;
    }

    /**
     * Exchanges every database's contents with the detached one's (Redis's swapMainDbWithTempDb):
     * the loaded data set becomes the keyspace's, the old one is left in {@code detached}. A
     * writable replica's own keys with a TTL are forgotten with the data set they belonged to.
     */
    public void swapWithDetached(Db[] detached) {
        settle();
        for (int i = 0; i < dbs.length; i++) dbs[i].swapWith(detached[i]);
        replicaKeysWithExpire.clear();
    }

    /** Cron: a bounded amount of incremental rehash on each database. */
    public void rehashStep() {
        for (Db d : dbs) d.rehashSome(100);
    }

    // ---- active expiry ------------------------------------------------------------------------

    /**
     * Redis's slow active expiry cycle: samples keys with an expire, database by database, deleting
     * the expired ones, and keeps going on a database while more than 10% of a sample was expired
     * and the time budget allows.
     */
    public void activeExpireCycle(long budgetNanos) {
        long start = System.nanoTime();
        long deadline = start + budgetNanos;
        updateTime();
        int dbsPerCall = dbs.length;
        long totalSampled = 0, totalExpired = 0;
        boolean timedOut = false;
        final long[] counters = new long[3]; // sampled, expired, ttlSum
        final int[] ttlSamples = new int[1];
        for (int j = 0; j < dbsPerCall && !timedOut; j++) {
            Db db = dbs[expireDbCursor % dbs.length];
            expireDbCursor++;
            int iteration = 0;
            do {
                if (db.volatileCount() == 0) break;
                counters[0] = counters[1] = counters[2] = 0;
                ttlSamples[0] = 0;
                int maxBuckets = EXPIRE_KEYS_PER_LOOP * 20;
                int buckets = 0;
                long cursor = db.expireCursor;
                do {
                    cursor = db.scanVolatile(cursor, k -> {
                        byte[] key = (byte[]) k;
                        counters[0]++;
                        Object e = db.find(key);
                        if (e == null) return;
                        long when = Entries.expire(e);
                        if (when >= 0 && when <= now) {
                            db.remove(key, 0, key.length);
                            expired(db, key, e);
                            counters[1]++;
                        } else if (when >= 0) {
                            counters[2] += when - now;
                            ttlSamples[0]++;
                        }
                    });
                    buckets++;
                } while (cursor != 0 && counters[0] < EXPIRE_KEYS_PER_LOOP && buckets < maxBuckets);
                db.expireCursor = cursor;
                totalSampled += counters[0];
                totalExpired += counters[1];
                if (ttlSamples[0] > 0) {
                    long avg = counters[2] / ttlSamples[0];
                    db.avgTtl = db.avgTtl == 0 ? avg : (db.avgTtl / 50) * 49 + (avg / 50);
                }
                if ((++iteration & 0xf) == 0 && System.nanoTime() > deadline) {
                    timedOut = true;
                    expiredTimeCapReached++;
                    break;
                }
            } while (counters[0] == 0 || counters[1] * 100 > counters[0] * EXPIRE_ACCEPTABLE_STALE);
        }
        double stale = totalSampled > 0 ? (double) totalExpired * 100 / totalSampled : 0;
        expiredStalePercTimes100 = (long) ((stale * 0.05 + expiredStalePercTimes100 / 100.0 * 0.95) * 100);
    }
}
