package io.spinel.core.keyspace;

import io.spinel.core.util.Bytes;
import io.spinel.core.util.Entropy;

/** The keyspace hash: seeded per process so that colliding keys cannot be chosen in advance. */
public final class KeyHash {
    private KeyHash() {
    }

    static final long SEED = Entropy.nextLong();
    private static final java.util.concurrent.atomic.AtomicLong TABLES = new java.util.concurrent.atomic.AtomicLong();

    /** A hash seed for one more table (see KeyTable#hash): the process's seed, mixed with a counter. */
    static long tableSeed() {
        long z = TABLES.addAndGet(0x9E3779B97F4A7C15L);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return SEED ^ z ^ (z >>> 31);
    }

    public static long of(byte[] k, int off, int len) {
        return Bytes.hash(SEED, k, off, len);
    }

    public static long of(byte[] k) {
        return Bytes.hash(SEED, k, 0, k.length);
    }
}
