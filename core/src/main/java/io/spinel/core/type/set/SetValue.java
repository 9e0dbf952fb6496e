package io.spinel.core.type.set;

import io.spinel.core.keyspace.Value;
import io.spinel.core.keyspace.ValueType;
import io.spinel.core.protocol.Reply;
import io.spinel.core.util.Bytes;
import io.spinel.core.util.PackedStrings;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * A set value in one of Redis 7.0's two encodings:
 *
 * <ul>
 *   <li><b>intset</b>: while every member is an integer in canonical form (what Redis's string2ll
 *       accepts) and there are at most set-max-intset-entries of them; see {@link IntSet}.
 *       Iteration is in ascending numeric order.</li>
 *   <li><b>hashtable</b> otherwise. A set never converts back, except that commands building a
 *       new set (SPOP's rebuild, the *STORE commands) start from an intset as Redis does.</li>
 * </ul>
 *
 * <p>A small hashtable-encoded set (at most {@link #PACKED_MAX_ENTRIES} members of at most
 * {@link #PACKED_MAX_MEMBER} bytes, Redis 7.2's listpack limits for sets) keeps its members
 * packed one after another in one array ({@link PackedStrings}) and becomes a {@link MemberTable}
 * past those limits. Redis 7.0 has no listpack sets, so OBJECT ENCODING says hashtable for both;
 * what differs is the memory (a 5-member set of short strings: one array of ~48 bytes instead of
 * a table, its slot and tag arrays and an array per member, ~330 bytes) and SSCAN, which returns
 * a packed set whole with cursor 0, as Redis does for its small encodings.
 */
public final class SetValue implements Value, io.spinel.core.type.zset.SetInput {
    /** The intset blob while intset-encoded, null after conversion. */
    private byte[] ints;
    /** The members, length-prefixed, while a small hashtable-encoded set; null otherwise. */
    private byte[] packed;
    private int packedUsed;
    private int packedCount;
    /** The table once a large hashtable-encoded set, null before. */
    private MemberTable table;

    /** Redis caps intsets at 2^30 entries whatever set-max-intset-entries says. */
    private static final int INTSET_HARD_LIMIT = 1 << 30;
    /** At most this many members are kept packed. */
    static final int PACKED_MAX_ENTRIES = 128;
    /** A member longer than this moves the set to a table. */
    static final int PACKED_MAX_MEMBER = 64;

    private SetValue(byte[] ints, MemberTable table) {
        this.ints = ints;
        this.table = table;
    }

    /** An empty intset-encoded set (what Redis's createIntsetObject makes). */
    public static SetValue newIntset() {
        return new SetValue(IntSet.create(), null);
    }

    /** An empty hashtable-encoded set with room for n members (packed while they are few). */
    public static SetValue newTable(long n) {
        if (n > PACKED_MAX_ENTRIES) return new SetValue(null, new MemberTable());
        SetValue s = new SetValue(null, null);
        s.packed = new byte[(int) Math.max(8, n * 8)];
        return s;
    }

    /** An empty set in the encoding that can hold the given first member (Redis's setTypeCreate). */
    public static SetValue forFirstMember(byte[] b, int off, int len) {
        return Bytes.isLong(b, off, len) ? newIntset() : newTable(1);
    }

    // ---- Value --------------------------------------------------------------------------------

    @Override
    public int type() {
        return ValueType.SET;
    }

    @Override
    public String encoding() {
        return ints != null ? "intset" : "hashtable";
    }

    @Override
    public Value copy() {
        if (ints != null) return new SetValue(IntSet.copy(ints), null);
        if (packed != null) {
            SetValue s = new SetValue(null, null);
            s.packed = Arrays.copyOf(packed, packedUsed);
            s.packedUsed = packedUsed;
            s.packedCount = packedCount;
            return s;
        }
        MemberTable t = new MemberTable();
        table.forEach(m -> t.add((byte[]) m));
        return new SetValue(null, t);
    }

    @Override
    public long memoryUsage() {
        long self = 32;
        if (ints != null) return self + MemberTable.arrayHeap(ints.length);
        if (packed != null) return self + MemberTable.arrayHeap(packed.length);
        return self + table.heapSize();
    }

    @Override
    public long size() {
        return length();
    }

    public int length() {
        if (ints != null) return IntSet.length(ints);
        return packed != null ? packedCount : table.size();
    }

    public boolean isIntset() {
        return ints != null;
    }

    /** A small hashtable-encoded set, its members packed in one array. */
    public boolean isPacked() {
        return packed != null;
    }

    // ---- membership ---------------------------------------------------------------------------

    public boolean contains(byte[] b, int off, int len) {
        if (table != null) return table.contains(b, off, len);
        if (packed != null) return packedFind(b, off, len) >= 0;
        long v;
        try {
            v = Bytes.parseLong(b, off, len);
        } catch (NumberFormatException e) {
            return false;
        }
        return IntSet.contains(ints, v);
    }

    public boolean containsInt(long v) {
        if (ints != null) return IntSet.contains(ints, v);
        byte[] s = Bytes.longToBytes(v);
        return contains(s, 0, s.length);
    }

    // ---- changes ------------------------------------------------------------------------------

    /** Adds a copy of b[off, off+len) (Redis's setTypeAdd); returns true if it was new. */
    public boolean add(byte[] b, int off, int len, int maxIntsetEntries) {
        if (ints != null) {
            if (Bytes.isLong(b, off, len)) return addInt(Bytes.parseLong(b, off, len), maxIntsetEntries);
            convert();
        }
        if (packed != null) {
            if (packedFind(b, off, len) >= 0) return false;
            if (packedAppend(b, off, len)) return true;
        }
        if (table.contains(b, off, len)) return false;
        return table.add(Arrays.copyOfRange(b, off, off + len));
    }

    /** Adds the member array itself (shared, never modified, where a table keeps it); returns true if it was new. */
    public boolean addShared(byte[] m, int maxIntsetEntries) {
        if (ints != null) {
            if (Bytes.isLong(m, 0, m.length)) return addInt(Bytes.parseLong(m, 0, m.length), maxIntsetEntries);
            convert();
        }
        if (packed != null) {
            if (packedFind(m, 0, m.length) >= 0) return false;
            if (packedAppend(m, 0, m.length)) return true;
        }
        return table.add(m);
    }

    /** Adds an integer member; returns true if it was new. */
    public boolean addInt(long v, int maxIntsetEntries) {
        if (ints == null) {
            byte[] s = Bytes.longToBytes(v);
            return addShared(s, maxIntsetEntries);
        }
        int before = IntSet.length(ints);
        ints = IntSet.add(ints, v);
        if (IntSet.length(ints) == before) return false;
        if (before + 1 > Math.min(maxIntsetEntries, INTSET_HARD_LIMIT)) convert();
        return true;
    }

    public boolean remove(byte[] b, int off, int len) {
        if (table != null) return table.delete(b, off, len);
        if (packed != null) return packedRemove(b, off, len);
        long v;
        try {
            v = Bytes.parseLong(b, off, len);
        } catch (NumberFormatException e) {
            return false;
        }
        return removeInt(v);
    }

    public boolean removeInt(long v) {
        if (ints == null) {
            byte[] s = Bytes.longToBytes(v);
            return remove(s, 0, s.length);
        }
        if (!IntSet.remove(ints, v)) return false;
        ints = IntSet.trim(ints);
        return true;
    }

    /**
     * Converts an intset to the hashtable encoding (Redis's setTypeConvert): packed while it has
     * room for one more member, a table otherwise.
     */
    void convert() {
        if (ints == null) return;
        byte[] from = ints;
        int n = IntSet.length(from);
        ints = null;
        if (n < PACKED_MAX_ENTRIES) {
            packed = new byte[Math.max(8, (n + 1) * 8)];
            for (int i = 0; i < n; i++) {
                byte[] m = Bytes.longToBytes(IntSet.get(from, i));
                packedAppend(m, 0, m.length);
            }
            return;
        }
        MemberTable t = new MemberTable();
        for (int i = 0; i < n; i++) t.add(Bytes.longToBytes(IntSet.get(from, i)));
        table = t;
    }

    // ---- the packed form ----------------------------------------------------------------------

    /** The offset of the member equal to b[off, off+len) in the packed array, or -1. */
    private int packedFind(byte[] b, int off, int len) {
        byte[] p = packed;
        int pos = 0;
        while (pos < packedUsed) {
            int l = PackedStrings.readLength(p, pos);
            int start = pos + PackedStrings.prefixSize(l);
            if (l == len && Arrays.equals(p, start, start + l, b, off, off + len)) return pos;
            pos = start + l;
        }
        return -1;
    }

    /**
     * Appends a member known to be absent; false (and the set moved to a table, the member not
     * added) when it would exceed the packed limits.
     */
    private boolean packedAppend(byte[] b, int off, int len) {
        if (packedCount >= PACKED_MAX_ENTRIES || len > PACKED_MAX_MEMBER) {
            packedToTable();
            return false;
        }
        int need = packedUsed + PackedStrings.storedSize(len);
        if (need > packed.length) packed = Arrays.copyOf(packed, Math.max(need, packed.length * 2));
        packedUsed = PackedStrings.writeString(packed, packedUsed, b, off, len);
        packedCount++;
        return true;
    }

    private boolean packedRemove(byte[] b, int off, int len) {
        int pos = packedFind(b, off, len);
        if (pos < 0) return false;
        int end = pos + PackedStrings.storedSize(len);
        System.arraycopy(packed, end, packed, pos, packedUsed - end);
        packedUsed -= end - pos;
        packedCount--;
        // give back most of an array that emptied (SPOP, SREM), keeping some room
        if (packed.length > 64 && packedUsed < packed.length / 4) packed = Arrays.copyOf(packed, packedUsed * 2);
        return true;
    }

    /** Calls the visitor with every packed member where it lies in the array. */
    private void packedForEach(MemberVisitor visitor) {
        for (int pos = 0; pos < packedUsed; ) {
            int l = PackedStrings.readLength(packed, pos);
            int start = pos + PackedStrings.prefixSize(l);
            visitor.member(packed, start, l);
            pos = start + l;
        }
    }

    /** The member starting at pos in the packed array, as a new array. */
    private byte[] packedMemberAt(int pos) {
        int l = PackedStrings.readLength(packed, pos);
        int start = pos + PackedStrings.prefixSize(l);
        return Arrays.copyOfRange(packed, start, start + l);
    }

    private void packedToTable() {
        MemberTable t = new MemberTable();
        forEachMember(m -> t.add(m));
        table = t;
        packed = null;
        packedUsed = 0;
        packedCount = 0;
    }

    // ---- access by encoding -------------------------------------------------------------------

    /** Intset only: the i-th smallest member. */
    public long intAt(int i) {
        return IntSet.get(ints, i);
    }

    /**
     * Hashtable only: a snapshot of the member arrays (a table's own, shared: do not modify them;
     * copies for a packed set).
     */
    public Object[] members() {
        if (table != null) return table.toArray();
        Object[] out = new Object[packedCount];
        int[] i = {0};
        forEachMember(m -> out[i[0]++] = m);
        return out;
    }

    /** Hashtable only: a uniformly random member array (a table's own, shared; a copy when packed). */
    byte[] randomMember(SplittableRandom rnd) {
        if (table != null) return (byte[]) table.random(rnd);
        int skip = rnd.nextInt(packedCount);
        int pos = 0;
        for (; skip > 0; skip--) {
            int l = PackedStrings.readLength(packed, pos);
            pos += PackedStrings.prefixSize(l) + l;
        }
        return packedMemberAt(pos);
    }

    MemberTable table() {
        return table;
    }

    byte[] intset() {
        return ints;
    }

    /**
     * Loading (RDB, RESTORE): a set holding the given intset blob (Redis's exact layout), or null
     * if the blob is malformed: wrong width, length not matching the count, or elements not
     * strictly ascending.
     */
    public static SetValue fromIntsetBlob(byte[] blob) {
        if (blob.length < IntSet.HEADER) return null;
        int w = IntSet.width(blob);
        if (w != 2 && w != 4 && w != 8) return null;
        long n = IntSet.length(blob) & 0xFFFFFFFFL;
        if (IntSet.HEADER + n * w != blob.length || n == 0) return null;
        for (int i = 1; i < n; i++) {
            if (IntSet.get(blob, i - 1) >= IntSet.get(blob, i)) return null;
        }
        return new SetValue(blob, null);
    }

    /** The intset blob (header and elements, {@link IntSet#blobLength} bytes used) while intset-encoded. */
    public byte[] intsetBlob() {
        return ints;
    }

    /** Converts to the hashtable encoding (loading applies Redis's conversion rules itself). */
    public void toHashtable() {
        convert();
    }

    /** Writes every member as a bulk string, in iteration order. */
    public void replyAll(Reply r) {
        if (table != null) {
            table.forEach(m -> r.bulk((byte[]) m));
            return;
        }
        if (packed != null) {
            packedForEach(r::bulk);
            return;
        }
        int n = IntSet.length(ints);
        for (int i = 0; i < n; i++) r.bulkLong(IntSet.get(ints, i));
    }

    /** Calls the visitor with every member's bytes (integers formatted), in iteration order. */
    /** The sorted-set commands' view of a set input (ZUNION, ZINTER, ZDIFF accept plain sets). */
    @Override
    public void forEachMember(MemberVisitor visitor) {
        if (packed != null) {
            packedForEach(visitor);
            return;
        }
        forEachMember((java.util.function.Consumer<byte[]>) m -> visitor.member(m, 0, m.length));
    }

    public void forEachMember(Consumer<byte[]> visitor) {
        if (table != null) {
            table.forEach(m -> visitor.accept((byte[]) m));
            return;
        }
        if (packed != null) {
            packedForEach((b, off, len) -> visitor.accept(Arrays.copyOfRange(b, off, off + len)));
            return;
        }
        int n = IntSet.length(ints);
        for (int i = 0; i < n; i++) visitor.accept(Bytes.longToBytes(IntSet.get(ints, i)));
    }
}
