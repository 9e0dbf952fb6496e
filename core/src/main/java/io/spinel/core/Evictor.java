package io.spinel.core;

import io.spinel.core.keyspace.Db;
import io.spinel.core.keyspace.Entries;
import io.spinel.core.keyspace.Keyspace;

import java.util.SplittableRandom;

/**
 * maxmemory eviction (Redis's evict.c): when used memory is over the limit, keys are deleted
 * according to maxmemory-policy until it is under again. LRU, LFU and volatile-ttl use Redis's
 * approximation: sample maxmemory-samples keys per database into a small pool kept sorted by
 * "idleness" and evict the best candidate; the random policies pick random keys. The time spent
 * per call is bounded by maxmemory-eviction-tenacity.
 */
final class Evictor {
    static final int OK = 0;
    static final int FAIL = 1;

    private static final int POOL_SIZE = 16;

    /** One candidate of the eviction pool. */
    private static final class Candidate {
        byte[] key;
        int db;
        long idle;
    }

    private final Engine engine;
    private final Candidate[] pool = new Candidate[POOL_SIZE];
    private final SplittableRandom random = new SplittableRandom();
    private int nextDb;

    String policy = "noeviction";
    int samples = 5;
    int tenacity = 10;
    long evictedKeys;

    Evictor(Engine engine) {
        this.engine = engine;
        for (int i = 0; i < POOL_SIZE; i++) pool[i] = new Candidate();
        engine.config.listen("maxmemory-policy", o -> policy = o.value());
        engine.config.listen("maxmemory-samples", o -> samples = Integer.parseInt(o.value()));
        engine.config.listen("maxmemory-eviction-tenacity", o -> tenacity = Integer.parseInt(o.value()));
        engine.config.support("maxmemory-samples", "maxmemory-eviction-tenacity", "maxmemory-policy");
    }

    private long timeLimitMicros() {
        if (tenacity <= 10) return 50L * tenacity;
        if (tenacity < 100) return (long) (500.0 * Math.pow(1.15, tenacity - 10.0));
        return Long.MAX_VALUE;
    }

    /**
     * Since when used memory has stayed over maxmemory (nanoTime; 0 while under), and the time it
     * spent over before (INFO current_ and total_eviction_exceeded_time): it starts when eviction
     * cannot get under the limit (noeviction, nothing left to evict, or its time is up) and ends
     * when an eviction pass finds memory under it, as Redis's performEvictions counts.
     */
    private long exceededSince;
    long exceededNanos;

    /** Milliseconds over maxmemory now (0 when under) and in all: INFO's eviction_exceeded_time fields. */
    long currentExceededMillis() {
        long since = exceededSince;
        return since == 0 ? 0 : (System.nanoTime() - since) / 1_000_000;
    }

    long totalExceededMillis() {
        return exceededNanos / 1_000_000 + currentExceededMillis();
    }

    /** CONFIG RESETSTAT. */
    void resetExceeded() {
        exceededNanos = 0;
        exceededSince = 0;
    }

    /** Frees memory until under maxmemory; FAIL if that is not possible (noeviction, nothing left). */
    int perform(long maxmemory) {
        int r = evict(maxmemory);
        if (!over) {
            if (exceededSince != 0) {
                exceededNanos += System.nanoTime() - exceededSince;
                exceededSince = 0;
            }
        } else if (exceededSince == 0) {
            exceededSince = System.nanoTime();
        }
        return r;
    }

    /** Whether the last pass left memory over maxmemory. */
    private boolean over;

    private int evict(long maxmemory) {
        over = false;
        long used = engine.usedMemory();
        if (used <= maxmemory) return OK;
        long notCounted = engine.memoryNotCountedForEvict();
        if (used - notCounted <= maxmemory) return OK;
        over = true;
        if (policy.equals("noeviction")) return FAIL;
        boolean allKeys = policy.startsWith("allkeys");
        boolean random = policy.endsWith("random");
        long deadline = System.nanoTime() + Math.min(timeLimitMicros(), Long.MAX_VALUE / 1000) * 1000;
        int freed = 0;
        Keyspace ks = engine.keyspace;
        while (engine.usedMemory() - notCounted > maxmemory) {
            byte[] best = null;
            int bestDb = -1;
            if (random) {
                for (int i = 0; i < ks.count(); i++) {
                    int j = (++nextDb) % ks.count();
                    Db db = ks.db(j);
                    byte[] k = allKeys ? keyOf(db.randomEntry(random())) : db.randomVolatileKey(random());
                    if (k != null) {
                        best = k;
                        bestDb = j;
                        break;
                    }
                }
            } else {
                long total = 0;
                for (int i = 0; i < ks.count(); i++) {
                    Db db = ks.db(i);
                    long keys = allKeys ? db.size() : db.volatileCount();
                    if (keys == 0) continue;
                    populate(i, db, allKeys);
                    total += keys;
                }
                if (total == 0) return FAIL;
                for (int k = POOL_SIZE - 1; k >= 0; k--) {
                    Candidate cand = pool[k];
                    if (cand.key == null) continue;
                    byte[] key = cand.key;
                    int dbid = cand.db;
                    cand.key = null;
                    cand.idle = 0;
                    Object e = ks.db(dbid).find(key);
                    if (e != null && (allKeys || Entries.expire(e) >= 0)) {
                        best = key;
                        bestDb = dbid;
                        break;
                    }
                }
                if (best == null) continue; // the pool went stale: sample again
            }
            if (best == null) return FAIL;
            engine.evict(ks.db(bestDb), best);
            evictedKeys++;
            freed++;
            if ((freed & 15) == 0 && System.nanoTime() > deadline) break;
        }
        over = engine.usedMemory() - notCounted > maxmemory;
        return !over ? OK : (freed > 0 ? OK : FAIL);
    }

    private SplittableRandom random() {
        return random;
    }

    private static byte[] keyOf(Object e) {
        return e == null ? null : Entries.key(e);
    }

    /** Samples keys of one database into the pool, which stays sorted by idleness (best last). */
    private void populate(int dbid, Db db, boolean allKeys) {
        Keyspace ks = engine.keyspace;
        for (int s = 0; s < samples; s++) {
            byte[] key;
            Object e;
            if (allKeys) {
                e = db.randomEntry(random);
                if (e == null) return;
                key = Entries.key(e);
            } else {
                key = db.randomVolatileKey(random);
                if (key == null) return;
                e = db.find(key);
                if (e == null) continue;
            }
            long idle;
            if (policy.endsWith("lru")) {
                idle = ks.idleSeconds(e) * 1000;
            } else if (policy.endsWith("lfu")) {
                idle = 255 - ks.lfuDecrAndReturn(Entries.lru(e));
            } else {
                // volatile-ttl: the sooner it expires, the better a candidate
                idle = Long.MAX_VALUE - Entries.expire(e);
            }
            insert(key, dbid, idle);
        }
    }

    private void insert(byte[] key, int dbid, long idle) {
        for (Candidate c : pool) {
            if (c.key != null && c.db == dbid && java.util.Arrays.equals(c.key, key)) return;
        }
        int k = 0;
        while (k < POOL_SIZE && pool[k].key != null && pool[k].idle < idle) k++;
        if (k == 0 && pool[POOL_SIZE - 1].key != null) return; // worse than everything in a full pool
        if (k < POOL_SIZE && pool[k].key == null) {
            // free slot at k
        } else if (pool[POOL_SIZE - 1].key == null) {
            Candidate spare = pool[POOL_SIZE - 1];
            System.arraycopy(pool, k, pool, k + 1, POOL_SIZE - k - 1);
            pool[k] = spare;
        } else {
            k--;
            Candidate spare = pool[0];
            System.arraycopy(pool, 1, pool, 0, k);
            pool[k] = spare;
        }
        pool[k].key = key;
        pool[k].db = dbid;
        pool[k].idle = idle;
    }
}
