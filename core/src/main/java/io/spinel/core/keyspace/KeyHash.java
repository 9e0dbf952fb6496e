package io.spinel.core.keyspace;

import io.spinel.core.util.Bytes;
import io.spinel.core.util.Entropy;

/** The keyspace hash: seeded per process so that colliding keys cannot be chosen in advance. */
public final class KeyHash {
    private KeyHash() {
    }

    static final long SEED = Entropy.nextLong();

    public static long of(byte[] k, int off, int len) {
        return Bytes.hash(SEED, k, off, len);
    }

    public static long of(byte[] k) {
        return Bytes.hash(SEED, k, 0, k.length);
    }
}
