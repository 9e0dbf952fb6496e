package io.spinel.core.keyspace;

import java.util.Arrays;

/** A set of keys (plain byte arrays), e.g. the keys of a database that have an expire. */
public final class KeySet extends KeyTable {
    @Override
    protected boolean matches(Object e, byte[] k, int off, int len) {
        byte[] key = (byte[]) e;
        return key.length == len && Arrays.equals(key, 0, len, k, off, off + len);
    }

    @Override
    protected long hashOf(Object e) {
        byte[] k = (byte[]) e;
        return KeyHash.of(k, 0, k.length);
    }

    public boolean add(byte[] key) {
        return put(KeyHash.of(key), key, key, 0, key.length) == null;
    }

    public boolean contains(byte[] k, int off, int len) {
        return get(KeyHash.of(k, off, len), k, off, len) != null;
    }

    public boolean remove(byte[] k, int off, int len) {
        return remove(KeyHash.of(k, off, len), k, off, len) != null;
    }
}
