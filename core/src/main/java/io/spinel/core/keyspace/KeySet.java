package io.spinel.core.keyspace;

import java.util.Arrays;

/** A set of keys (plain byte arrays), e.g. the keys of a database that have an expire. */
public final class KeySet extends KeyTable {
    public KeySet() {
    }

    /** A set hashing as the table whose seed it is given does (the same hash serves both). */
    KeySet(long seed) {
        super(seed);
    }

    @Override
    protected boolean matches(Object e, byte[] k, int off, int len) {
        byte[] key = (byte[]) e;
        return key.length == len && Arrays.equals(key, 0, len, k, off, off + len);
    }

    @Override
    protected long hashOf(Object e) {
        byte[] k = (byte[]) e;
        return hash(k, 0, k.length);
    }

    public boolean add(byte[] key) {
        return put(hash(key, 0, key.length), key, key, 0, key.length) == null;
    }

    public boolean contains(byte[] k, int off, int len) {
        return get(hash(k, off, len), k, off, len) != null;
    }

    public boolean remove(byte[] k, int off, int len) {
        return remove(hash(k, off, len), k, off, len) != null;
    }
}
