package io.spinel.core.type.set;

import io.spinel.core.util.Bytes;

/**
 * A set that a command adds many members to (SUNION, SDIFF, SINTERSTORE build a new one, as Redis
 * builds it: an intset that converts as members come in; SADD of many members fills an existing
 * one). While the set is packed its duplicate checks go through a {@link PackedIndex}, so filling
 * it is linear instead of quadratic in its size.
 */
final class SetBuilder {
    private final SetValue set;
    private final int maxIntsetEntries;
    private PackedIndex index;

    /** A new, empty set. */
    SetBuilder(int maxIntsetEntries) {
        this(SetValue.newIntset(), maxIntsetEntries);
    }

    /** Adds to an existing set, in place. */
    SetBuilder(SetValue set, int maxIntsetEntries) {
        this.set = set;
        this.maxIntsetEntries = maxIntsetEntries;
    }

    /** Adds a copy of b[off, off+len); true if it was new. */
    boolean add(byte[] b, int off, int len) {
        if (set.isPacked()) {
            if (index == null && set.length() >= PackedIndex.MIN_MEMBERS) index = new PackedIndex(set, SetValue.PACKED_MAX_ENTRIES);
            if (index != null) {
                if (index.contains(b, off, len)) return false;
                int pos = set.addAbsent(b, off, len);
                if (pos >= 0) index.added(pos);
                else index = null; // now a table
                return true;
            }
        }
        return set.add(b, off, len, maxIntsetEntries);
    }

    /** Adds the member array itself where a table keeps it (shared, never modified). */
    boolean addShared(byte[] m) {
        if (set.isPacked()) return add(m, 0, m.length);
        return set.addShared(m, maxIntsetEntries);
    }

    boolean addInt(long v) {
        if (set.isIntset()) return set.addInt(v, maxIntsetEntries);
        byte[] digits = Bytes.longToBytes(v);
        return addShared(digits);
    }

    /** Adds every member of s. */
    void addAll(SetValue s) {
        if (s.isIntset()) {
            int n = s.length();
            for (int i = 0; i < n; i++) addInt(s.intAt(i));
        } else if (s.isPacked()) {
            s.packedWhile((b, off, len) -> {
                add(b, off, len);
                return true;
            });
        } else {
            for (Object m : s.members()) addShared((byte[]) m);
        }
    }

    boolean remove(byte[] b, int off, int len) {
        index = null; // positions move
        return set.remove(b, off, len);
    }

    boolean removeInt(long v) {
        index = null;
        return set.removeInt(v);
    }

    int length() {
        return set.length();
    }

    /** The set built; the builder is not used afterwards. */
    SetValue result() {
        return set;
    }
}
