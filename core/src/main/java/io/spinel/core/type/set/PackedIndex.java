package io.spinel.core.type.set;

import io.spinel.core.keyspace.KeyHash;
import io.spinel.core.util.PackedStrings;

import java.util.Arrays;

/**
 * A hash index over the members of a packed set, made for one command that looks up many members
 * in it. A packed set answers a lookup by scanning its array, which is cheap for one SISMEMBER but
 * makes SINTER, SDIFF and the building of a SUNION result quadratic (two sets of 100 members: 5,000
 * comparisons, 8x Redis 7.0's time, whose sets of that size are hash tables). The index is an
 * open-addressing table of member positions, built in one pass; it is never stored, so packed
 * sets keep their size.
 *
 * <p>It stays valid while the set only appends ({@link #added}); a removal, or the set leaving the
 * packed form, ends its use.
 */
final class PackedIndex {
    /** Below this many members a scan is as fast as hashing the member looked up. */
    static final int MIN_MEMBERS = 12;
    /** A command that looks up at least this many members (SADD, SREM, SMISMEMBER) builds an index first. */
    static final int MANY_LOOKUPS = 8;

    private final SetValue set;
    /** Position + 1 of a member's length prefix in the set's array; 0 for an empty slot. */
    private final int[] slots;
    private final int mask;

    /** Indexes every member of {@code set}, which must be packed, for lookups only. */
    PackedIndex(SetValue set) {
        this(set, set.length());
    }

    /**
     * Indexes every member of {@code set}, which must be packed, with room for {@code members}
     * in all (a set being filled: at most SetValue.PACKED_MAX_ENTRIES, past which it is a table).
     */
    PackedIndex(SetValue set, int members) {
        this.set = set;
        // a load factor of at most a half
        int capacity = Math.max(32, Integer.highestOneBit(Math.max(1, members) - 1) << 2);
        slots = new int[capacity];
        mask = capacity - 1;
        byte[] p = set.packedArray();
        int end = set.packedEnd();
        for (int pos = SetValue.PACKED_START; pos < end; pos = PackedStrings.next(p, pos)) insert(p, pos);
    }

    /** Whether the set holds a member equal to b[off, off+len). */
    boolean contains(byte[] b, int off, int len) {
        return find(b, off, len) >= 0;
    }

    /** The position of the member equal to b[off, off+len) in the set's array, or -1. */
    int find(byte[] b, int off, int len) {
        byte[] p = set.packedArray();
        for (int i = (int) KeyHash.of(b, off, len) & mask; ; i = (i + 1) & mask) {
            int at = slots[i];
            if (at == 0) return -1;
            int pos = at - 1;
            int l = PackedStrings.readLength(p, pos);
            int start = pos + PackedStrings.prefixSize(l);
            if (l == len && Arrays.equals(p, start, start + l, b, off, off + len)) return pos;
        }
    }

    /** Records the member the set just appended at {@code pos}. */
    void added(int pos) {
        insert(set.packedArray(), pos);
    }

    private void insert(byte[] p, int pos) {
        int l = PackedStrings.readLength(p, pos);
        int start = pos + PackedStrings.prefixSize(l);
        int i = (int) KeyHash.of(p, start, l) & mask;
        while (slots[i] != 0) i = (i + 1) & mask;
        slots[i] = pos + 1;
    }

    /**
     * Membership tests against several sets for one command: the packed ones big enough to gain
     * get an index (built on first use); null entries (missing keys) hold nothing.
     */
    static final class Probes {
        private final SetValue[] sets;
        private final PackedIndex[] indexes;

        Probes(SetValue[] sets) {
            this.sets = sets;
            this.indexes = new PackedIndex[sets.length];
        }

        boolean contains(int j, byte[] b, int off, int len) {
            SetValue s = sets[j];
            if (s == null) return false;
            if (s.isPacked() && s.length() >= MIN_MEMBERS) {
                PackedIndex index = indexes[j];
                if (index == null) indexes[j] = index = new PackedIndex(s);
                return index.contains(b, off, len);
            }
            return s.contains(b, off, len);
        }
    }
}
