package io.spinel.core.type.set;

import io.spinel.core.keyspace.DbObject;
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
 *
 * <p>The object has two fields whatever the encoding (16 bytes with compact object headers): the
 * packed form keeps its size and count in a header of its array, as the intset blob does.
 */
public final class SetValue extends DbObject implements io.spinel.core.type.zset.SetInput {
    /** The intset blob while intset-encoded, the packed members while packed, null for a table. */
    private byte[] small;
    /** Null while intset-encoded, {@link #PACKED} while packed, otherwise the members' table. */
    private MemberTable table;

    /** Marks the packed form in {@link #table}; never holds members. */
    private static final MemberTable PACKED = new MemberTable();
    /** Packed array header: bytes used including the header (2 bytes, little endian), member count. */
    private static final int PACKED_HEADER = 3;
    /** Where a packed set's first member lies in {@link #packedArray()}. */
    static final int PACKED_START = PACKED_HEADER;

    /** Redis caps intsets at 2^30 entries whatever set-max-intset-entries says. */
    private static final int INTSET_HARD_LIMIT = 1 << 30;
    /** At most this many members are kept packed (fits the header's count byte). */
    static final int PACKED_MAX_ENTRIES = 128;
    /** A member longer than this moves the set to a table (128 such fit the header's size field). */
    static final int PACKED_MAX_MEMBER = 64;

    private SetValue(byte[] small, MemberTable table) {
        this.small = small;
        this.table = table;
    }

    /**
     * Replaces this set's members, encoding included, with those of {@code other}, which must not
     * be used afterwards (SPOP with a count keeps its survivors this way: the stored set stays
     * the same object, so its key, expire and LRU stay as they were).
     */
    public void takeMembersOf(SetValue other) {
        small = other.small;
        table = other.table;
        other.small = null;
        other.table = null;
    }

    /** An empty intset-encoded set (what Redis's createIntsetObject makes). */
    public static SetValue newIntset() {
        return new SetValue(IntSet.create(), null);
    }

    /** An empty hashtable-encoded set with room for n members (packed while they are few). */
    public static SetValue newTable(long n) {
        if (n > PACKED_MAX_ENTRIES) return new SetValue(null, new MemberTable());
        return new SetValue(emptyPacked((int) n * 8), PACKED);
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
        return table == null ? "intset" : "hashtable";
    }

    @Override
    public SetValue copy() {
        if (table == null) return new SetValue(IntSet.copy(small), null);
        if (table == PACKED) return new SetValue(Arrays.copyOf(small, packedUsed()), PACKED);
        MemberTable t = new MemberTable();
        table.forEach(m -> t.add((byte[]) m));
        return new SetValue(null, t);
    }

    @Override
    public long memoryUsage() {
        long self = 40; // this object with its entry fields (compact headers)
        return table == null || table == PACKED ? self + MemberTable.arrayHeap(small.length) : self + table.heapSize();
    }

    @Override
    public long size() {
        return length();
    }

    public int length() {
        if (table == null) return IntSet.length(small);
        return table == PACKED ? packedCount() : table.size();
    }

    public boolean isIntset() {
        return table == null;
    }

    /** A small hashtable-encoded set, its members packed in one array. */
    public boolean isPacked() {
        return table == PACKED;
    }

    // ---- membership ---------------------------------------------------------------------------

    public boolean contains(byte[] b, int off, int len) {
        if (table == PACKED) return packedFind(b, off, len) >= 0;
        if (table != null) return table.contains(b, off, len);
        long v;
        try {
            v = Bytes.parseLong(b, off, len);
        } catch (NumberFormatException e) {
            return false;
        }
        return IntSet.contains(small, v);
    }

    public boolean containsInt(long v) {
        if (table == null) return IntSet.contains(small, v);
        byte[] s = Bytes.longToBytes(v);
        return contains(s, 0, s.length);
    }

    // ---- changes ------------------------------------------------------------------------------

    /** Adds a copy of b[off, off+len) (Redis's setTypeAdd); returns true if it was new. */
    public boolean add(byte[] b, int off, int len, int maxIntsetEntries) {
        if (table == null) {
            if (Bytes.isLong(b, off, len)) return addInt(Bytes.parseLong(b, off, len), maxIntsetEntries);
            convert();
        }
        if (table == PACKED) {
            if (packedFind(b, off, len) >= 0) return false;
            if (packedAppend(b, off, len)) return true;
        }
        if (table.contains(b, off, len)) return false;
        return table.add(Arrays.copyOfRange(b, off, off + len));
    }

    /**
     * Adds the member array itself (shared, never modified) where a table keeps it, its bytes
     * where a packed set does; returns true if it was new.
     */
    public boolean addShared(byte[] m, int maxIntsetEntries) {
        if (table == null) {
            if (Bytes.isLong(m, 0, m.length)) return addInt(Bytes.parseLong(m, 0, m.length), maxIntsetEntries);
            convert();
        }
        if (table == PACKED) {
            if (packedFind(m, 0, m.length) >= 0) return false;
            if (packedAppend(m, 0, m.length)) return true;
        }
        return table.add(m);
    }

    /** Adds an integer member; returns true if it was new. */
    public boolean addInt(long v, int maxIntsetEntries) {
        if (table != null) return addShared(Bytes.longToBytes(v), maxIntsetEntries);
        int before = IntSet.length(small);
        small = IntSet.add(small, v);
        if (IntSet.length(small) == before) return false;
        if (before + 1 > Math.min(maxIntsetEntries, INTSET_HARD_LIMIT)) convert();
        return true;
    }

    public boolean remove(byte[] b, int off, int len) {
        if (table == PACKED) return packedRemove(b, off, len);
        if (table != null) return table.delete(b, off, len);
        long v;
        try {
            v = Bytes.parseLong(b, off, len);
        } catch (NumberFormatException e) {
            return false;
        }
        return removeInt(v);
    }

    public boolean removeInt(long v) {
        if (table != null) {
            byte[] s = Bytes.longToBytes(v);
            return remove(s, 0, s.length);
        }
        if (!IntSet.remove(small, v)) return false;
        small = IntSet.trim(small);
        return true;
    }

    /**
     * Converts an intset to the hashtable encoding (Redis's setTypeConvert): packed while it has
     * room for one more member, a table otherwise.
     */
    void convert() {
        if (table != null) return;
        byte[] ints = small;
        int n = IntSet.length(ints);
        if (n < PACKED_MAX_ENTRIES) {
            small = emptyPacked((n + 1) * 8);
            table = PACKED;
            for (int i = 0; i < n; i++) {
                byte[] m = Bytes.longToBytes(IntSet.get(ints, i));
                packedAppend(m, 0, m.length);
            }
            return;
        }
        MemberTable t = new MemberTable();
        for (int i = 0; i < n; i++) t.add(Bytes.longToBytes(IntSet.get(ints, i)));
        table = t;
        small = null;
    }

    // ---- the packed form ----------------------------------------------------------------------

    private static byte[] emptyPacked(int room) {
        byte[] p = new byte[aligned(PACKED_HEADER + Math.max(8, room))];
        p[0] = PACKED_HEADER;
        return p;
    }

    /** An array length that uses the padding the heap adds anyway (arrays take multiples of 8). */
    private static int aligned(int n) {
        return (n + 7) & ~7;
    }

    private int packedUsed() {
        return (small[0] & 0xFF) | (small[1] & 0xFF) << 8;
    }

    private int packedCount() {
        return small[2] & 0xFF;
    }

    private void setPacked(int used, int count) {
        small[0] = (byte) used;
        small[1] = (byte) (used >>> 8);
        small[2] = (byte) count;
    }

    /** The offset of the member equal to b[off, off+len) in the packed array, or -1. */
    private int packedFind(byte[] b, int off, int len) {
        byte[] p = small;
        int used = packedUsed();
        int pos = PACKED_HEADER;
        byte last = len > 0 ? b[off + len - 1] : 0; // compared first, as in HashValue.lpFind
        while (pos < used) {
            int l = PackedStrings.readLength(p, pos);
            int start = pos + PackedStrings.prefixSize(l);
            if (l == len && (len == 0 || p[start + l - 1] == last)
                    && Arrays.equals(p, start, start + l, b, off, off + len)) return pos;
            pos = start + l;
        }
        return -1;
    }

    /**
     * Appends a member known to be absent; false (and the set moved to a table, the member not
     * added) when it would exceed the packed limits.
     */
    private boolean packedAppend(byte[] b, int off, int len) {
        int count = packedCount();
        if (count >= PACKED_MAX_ENTRIES || len > PACKED_MAX_MEMBER) {
            packedToTable();
            return false;
        }
        int used = packedUsed();
        int need = used + PackedStrings.storedSize(len);
        // a quarter of slack: amortised growth without holding much unused memory
        if (need > small.length) small = Arrays.copyOf(small, aligned(need + (need >> 2)));
        setPacked(PackedStrings.writeString(small, used, b, off, len), count + 1);
        return true;
    }

    private boolean packedRemove(byte[] b, int off, int len) {
        int pos = packedFind(b, off, len);
        if (pos < 0) return false;
        int used = packedUsed();
        int end = pos + PackedStrings.storedSize(len);
        System.arraycopy(small, end, small, pos, used - end);
        used -= end - pos;
        // give back most of an array that emptied (SPOP, SREM), keeping some room
        if (small.length > 64 && used < small.length / 4) small = Arrays.copyOf(small, aligned(used * 2));
        setPacked(used, packedCount() - 1);
        return true;
    }

    /** Calls the visitor with every packed member where it lies in the array. */
    private void packedForEach(MemberVisitor visitor) {
        byte[] p = small;
        int used = packedUsed();
        for (int pos = PACKED_HEADER; pos < used; ) {
            int l = PackedStrings.readLength(p, pos);
            int start = pos + PackedStrings.prefixSize(l);
            visitor.member(p, start, l);
            pos = start + l;
        }
    }

    /** What {@link #packedWhile} calls with each member; false stops the walk. */
    interface PackedVisitor {
        boolean member(byte[] b, int off, int len);
    }

    /**
     * Packed only: calls the visitor with every member where it lies in the array, in order, until
     * it returns false; returns whether the walk reached the end.
     */
    boolean packedWhile(PackedVisitor visitor) {
        byte[] p = small;
        int used = packedUsed();
        for (int pos = PACKED_HEADER; pos < used; ) {
            int l = PackedStrings.readLength(p, pos);
            int start = pos + PackedStrings.prefixSize(l);
            if (!visitor.member(p, start, l)) return false;
            pos = start + l;
        }
        return true;
    }

    /** Packed only: the array the members lie in, from {@link #PACKED_START} to {@link #packedEnd()}. */
    byte[] packedArray() {
        return small;
    }

    /** Packed only: the end of the last member in {@link #packedArray()}. */
    int packedEnd() {
        return packedUsed();
    }

    /**
     * Packed only: adds a copy of b[off, off+len), known to be absent (a {@link PackedIndex} said
     * so). Returns its position in the array, or -1 when the set moved to a table for it.
     */
    int addAbsent(byte[] b, int off, int len) {
        int used = packedUsed();
        if (packedAppend(b, off, len)) return used;
        table.add(Arrays.copyOfRange(b, off, off + len));
        return -1;
    }

    /**
     * Packed only: removes the members at the given positions (ascending, distinct) in one pass;
     * returns how many were removed.
     */
    int removePackedAt(int[] positions, int n) {
        if (n == 0) return 0;
        byte[] p = small;
        int used = packedUsed();
        int write = positions[0];
        for (int i = 0; i < n; i++) {
            int from = PackedStrings.next(p, positions[i]); // the member after the removed one
            int to = i + 1 < n ? positions[i + 1] : used;
            System.arraycopy(p, from, p, write, to - from);
            write += to - from;
        }
        used = write;
        if (small.length > 64 && used < small.length / 4) small = Arrays.copyOf(small, aligned(used * 2));
        setPacked(used, packedCount() - n);
        return n;
    }

    private void packedToTable() {
        MemberTable t = new MemberTable();
        packedForEach((b, off, len) -> t.add(Arrays.copyOfRange(b, off, off + len)));
        table = t;
        small = null;
    }

    // ---- access by encoding -------------------------------------------------------------------

    /** Intset only: the i-th smallest member. */
    public long intAt(int i) {
        return IntSet.get(small, i);
    }

    /**
     * Hashtable only: a snapshot of the member arrays (a table's own, shared: do not modify them;
     * copies for a packed set).
     */
    public Object[] members() {
        if (table != PACKED) return table.toArray();
        Object[] out = new Object[packedCount()];
        int[] i = {0};
        packedForEach((b, off, len) -> out[i[0]++] = Arrays.copyOfRange(b, off, off + len));
        return out;
    }

    /** Hashtable only: a uniformly random member array (a table's own, shared; a copy when packed). */
    byte[] randomMember(SplittableRandom rnd) {
        if (table != PACKED) return (byte[]) table.random(rnd);
        int pos = packedRandomPos(rnd);
        int l = PackedStrings.readLength(small, pos);
        int start = pos + PackedStrings.prefixSize(l);
        return Arrays.copyOfRange(small, start, start + l);
    }

    /** Hashtable only: replies with a uniformly random member (from the array, when packed: no copy). */
    void replyRandomMember(Reply r, SplittableRandom rnd) {
        if (table != PACKED) {
            r.bulk((byte[]) table.random(rnd));
            return;
        }
        int pos = packedRandomPos(rnd);
        int l = PackedStrings.readLength(small, pos);
        r.bulk(small, pos + PackedStrings.prefixSize(l), l);
    }

    private int packedRandomPos(SplittableRandom rnd) {
        int pos = PACKED_HEADER;
        for (int skip = rnd.nextInt(packedCount()); skip > 0; skip--) pos = PackedStrings.next(small, pos);
        return pos;
    }

    /** The members' table of a large hashtable-encoded set; null for an intset or a packed set. */
    MemberTable table() {
        return table == PACKED ? null : table;
    }

    @Override
    public io.spinel.core.keyspace.KeyTable hashTable() {
        return table();
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
        return table == null ? small : null;
    }

    /** Converts to the hashtable encoding (loading applies Redis's conversion rules itself). */
    public void toHashtable() {
        convert();
    }

    /** Writes every member as a bulk string, in iteration order. */
    public void replyAll(Reply r) {
        if (table == PACKED) {
            packedForEach(r::bulk);
        } else if (table != null) {
            table.forEach(m -> r.bulk((byte[]) m));
        } else {
            int n = IntSet.length(small);
            for (int i = 0; i < n; i++) r.bulkLong(IntSet.get(small, i));
        }
    }

    /** The sorted-set commands' view of a set input (ZUNION, ZINTER, ZDIFF accept plain sets). */
    @Override
    public void forEachMember(MemberVisitor visitor) {
        if (table == PACKED) {
            packedForEach(visitor);
            return;
        }
        if (table != null) {
            forEachMember((Consumer<byte[]>) m -> visitor.member(m, 0, m.length));
            return;
        }
        // integers: formatted one after another into one array
        byte[] digits = new byte[20];
        int n = IntSet.length(small);
        for (int i = 0; i < n; i++) visitor.member(digits, 0, Bytes.writeLong(digits, 0, IntSet.get(small, i)));
    }

    /** Calls the visitor with every member's bytes (integers formatted), in iteration order. */
    public void forEachMember(Consumer<byte[]> visitor) {
        if (table == PACKED) {
            packedForEach((b, off, len) -> visitor.accept(Arrays.copyOfRange(b, off, off + len)));
        } else if (table != null) {
            table.forEach(m -> visitor.accept((byte[]) m));
        } else {
            int n = IntSet.length(small);
            for (int i = 0; i < n; i++) visitor.accept(Bytes.longToBytes(IntSet.get(small, i)));
        }
    }
}
