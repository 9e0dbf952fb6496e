package io.spinel.core.type.hash;

import io.spinel.core.keyspace.KeyTable;
import io.spinel.core.util.PackedStrings;

import java.util.Arrays;

/**
 * The "hashtable" encoding of a hash: the keyspace's open-addressing table (incremental rehash,
 * stateless SCAN) holding one byte array per field, laid out as the length-prefixed field followed
 * by the value bytes. One object per field and no node, key or value objects; a changed value
 * of the same length is written into the field's array, one of another length replaces it.
 */
final class FieldTable extends KeyTable {
    /** Heap bytes of all entry arrays, kept current so MEMORY USAGE does not walk the table. */
    private long entryHeap;

    static int fieldOffset(byte[] e) {
        return PackedStrings.prefixSize(PackedStrings.readLength(e, 0));
    }

    static int fieldLength(byte[] e) {
        return PackedStrings.readLength(e, 0);
    }

    static int valueOffset(byte[] e) {
        int fl = PackedStrings.readLength(e, 0);
        return PackedStrings.prefixSize(fl) + fl;
    }

    static int valueLength(byte[] e) {
        return e.length - valueOffset(e);
    }

    static byte[] entry(byte[] f, int fo, int fl, byte[] v, int vo, int vl) {
        byte[] e = new byte[PackedStrings.storedSize(fl) + vl];
        int p = PackedStrings.writeString(e, 0, f, fo, fl);
        System.arraycopy(v, vo, e, p, vl);
        return e;
    }

    @Override
    protected boolean matches(Object o, byte[] k, int off, int len) {
        byte[] e = (byte[]) o;
        int fl = PackedStrings.readLength(e, 0);
        if (fl != len) return false;
        int p = PackedStrings.prefixSize(fl);
        return Arrays.equals(e, p, p + fl, k, off, off + len);
    }

    @Override
    protected long hashOf(Object o) {
        byte[] e = (byte[]) o;
        int fl = PackedStrings.readLength(e, 0);
        return hash(e, PackedStrings.prefixSize(fl), fl);
    }

    byte[] find(byte[] f, int off, int len) {
        return (byte[]) get(hash(f, off, len), f, off, len);
    }

    /**
     * Stores the pair; returns true if the field is new. A value as long as the one it replaces is
     * written over it in its array: nothing allocated, and nothing for the collector to copy out of
     * the young generation (a busy hash's fields are mostly rewritten with values of one size).
     */
    boolean set(byte[] f, int fo, int fl, byte[] v, int vo, int vl) {
        byte[] old = (byte[]) get(hash(f, fo, fl), f, fo, fl);
        if (old != null && old.length - valueOffset(old) == vl) {
            System.arraycopy(v, vo, old, old.length - vl, vl);
            return false;
        }
        return add(entry(f, fo, fl, v, vo, vl));
    }

    /** Stores a whole entry array (not copied); returns true if its field is new. */
    boolean add(byte[] e) {
        int fl = PackedStrings.readLength(e, 0);
        int fo = PackedStrings.prefixSize(fl);
        byte[] old = (byte[]) put(hash(e, fo, fl), e, e, fo, fl);
        entryHeap += PackedStrings.arrayHeap(e.length);
        if (old == null) return true;
        entryHeap -= PackedStrings.arrayHeap(old.length);
        return false;
    }

    boolean delete(byte[] f, int off, int len) {
        byte[] old = (byte[]) remove(hash(f, off, len), f, off, len);
        if (old == null) return false;
        entryHeap -= PackedStrings.arrayHeap(old.length);
        return true;
    }

    long heapSize() {
        // object (header, nine fields and the hash seed) + slot and tag arrays of one or two tables + entries
        int tables = isRehashing() ? 2 : 1;
        return 64 + tables * 32L + 5L * capacity() + entryHeap;
    }
}
