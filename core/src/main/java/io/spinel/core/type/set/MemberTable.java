package io.spinel.core.type.set;

import io.spinel.core.keyspace.KeyTable;

import java.util.Arrays;

/**
 * The "hashtable" encoding of a set: the keyspace's open-addressing table (incremental rehash,
 * stateless SCAN) holding each member as its own byte array. Member arrays are never modified,
 * so sets may share them (SUNIONSTORE, SMOVE, COPY).
 */
final class MemberTable extends KeyTable {
    /** Heap bytes of all member arrays, kept current so MEMORY USAGE does not walk the table. */
    private long memberHeap;

    @Override
    protected boolean matches(Object e, byte[] k, int off, int len) {
        byte[] m = (byte[]) e;
        return m.length == len && Arrays.equals(m, 0, len, k, off, off + len);
    }

    @Override
    protected long hashOf(Object e) {
        byte[] m = (byte[]) e;
        return hash(m, 0, m.length);
    }

    boolean contains(byte[] k, int off, int len) {
        return get(hash(k, off, len), k, off, len) != null;
    }

    /** Adds the member array itself (not a copy); returns false if an equal member was there. */
    boolean add(byte[] m) {
        // one probe: an equal member already there is replaced by an equal array, which is harmless
        if (put(hash(m, 0, m.length), m, m, 0, m.length) != null) return false;
        memberHeap += arrayHeap(m.length);
        return true;
    }

    boolean delete(byte[] k, int off, int len) {
        byte[] old = (byte[]) remove(hash(k, off, len), k, off, len);
        if (old == null) return false;
        memberHeap -= arrayHeap(old.length);
        return true;
    }

    static long arrayHeap(int n) {
        return (16L + n + 7) & ~7L;
    }

    long heapSize() {
        // object (header, nine fields and the hash seed) + slot and tag arrays of one or two tables + members
        int tables = isRehashing() ? 2 : 1;
        return 64 + tables * 32L + 5L * capacity() + memberHeap;
    }
}
