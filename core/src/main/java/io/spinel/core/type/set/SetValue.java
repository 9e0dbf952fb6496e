package io.spinel.core.type.set;

import io.spinel.core.keyspace.Value;
import io.spinel.core.keyspace.ValueType;
import io.spinel.core.protocol.Reply;
import io.spinel.core.util.Bytes;

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
 *   <li><b>hashtable</b>: a {@link MemberTable} otherwise. A set never converts back, except that
 *       commands building a new set (SPOP's rebuild, the *STORE commands) start from an intset as
 *       Redis does.</li>
 * </ul>
 */
public final class SetValue implements Value, io.spinel.core.type.zset.SetInput {
    /** The intset blob while intset-encoded, null after conversion. */
    private byte[] ints;
    /** The table once hashtable-encoded, null before. */
    private MemberTable table;

    /** Redis caps intsets at 2^30 entries whatever set-max-intset-entries says. */
    private static final int INTSET_HARD_LIMIT = 1 << 30;

    private SetValue(byte[] ints, MemberTable table) {
        this.ints = ints;
        this.table = table;
    }

    /** An empty intset-encoded set (what Redis's createIntsetObject makes). */
    public static SetValue newIntset() {
        return new SetValue(IntSet.create(), null);
    }

    /** An empty hashtable-encoded set. */
    public static SetValue newTable() {
        return new SetValue(null, new MemberTable());
    }

    /** An empty set in the encoding that can hold the given first member (Redis's setTypeCreate). */
    public static SetValue forFirstMember(byte[] b, int off, int len) {
        return Bytes.isLong(b, off, len) ? newIntset() : newTable();
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
    public Value copy() {
        if (table == null) return new SetValue(IntSet.copy(ints), null);
        MemberTable t = new MemberTable();
        table.forEach(m -> t.add((byte[]) m));
        return new SetValue(null, t);
    }

    @Override
    public long memoryUsage() {
        long self = 24;
        return table == null ? self + MemberTable.arrayHeap(ints.length) : self + table.heapSize();
    }

    @Override
    public long size() {
        return length();
    }

    public int length() {
        return table == null ? IntSet.length(ints) : table.size();
    }

    public boolean isIntset() {
        return table == null;
    }

    // ---- membership ---------------------------------------------------------------------------

    public boolean contains(byte[] b, int off, int len) {
        if (table != null) return table.contains(b, off, len);
        long v;
        try {
            v = Bytes.parseLong(b, off, len);
        } catch (NumberFormatException e) {
            return false;
        }
        return IntSet.contains(ints, v);
    }

    public boolean containsInt(long v) {
        if (table == null) return IntSet.contains(ints, v);
        byte[] s = Bytes.longToBytes(v);
        return table.contains(s, 0, s.length);
    }

    // ---- changes ------------------------------------------------------------------------------

    /** Adds a copy of b[off, off+len) (Redis's setTypeAdd); returns true if it was new. */
    public boolean add(byte[] b, int off, int len, int maxIntsetEntries) {
        if (table == null) {
            if (Bytes.isLong(b, off, len)) return addInt(Bytes.parseLong(b, off, len), maxIntsetEntries);
            convert();
            table.add(Arrays.copyOfRange(b, off, off + len));
            return true;
        }
        if (table.contains(b, off, len)) return false;
        return table.add(Arrays.copyOfRange(b, off, off + len));
    }

    /** Adds the member array itself (shared, never modified); returns true if it was new. */
    public boolean addShared(byte[] m, int maxIntsetEntries) {
        if (table == null) {
            if (Bytes.isLong(m, 0, m.length)) return addInt(Bytes.parseLong(m, 0, m.length), maxIntsetEntries);
            convert();
        }
        return table.add(m);
    }

    /** Adds an integer member; returns true if it was new. */
    public boolean addInt(long v, int maxIntsetEntries) {
        if (table != null) return table.add(Bytes.longToBytes(v));
        int before = IntSet.length(ints);
        ints = IntSet.add(ints, v);
        if (IntSet.length(ints) == before) return false;
        if (before + 1 > Math.min(maxIntsetEntries, INTSET_HARD_LIMIT)) convert();
        return true;
    }

    public boolean remove(byte[] b, int off, int len) {
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
            return table.delete(s, 0, s.length);
        }
        if (!IntSet.remove(ints, v)) return false;
        ints = IntSet.trim(ints);
        return true;
    }

    /** Converts to the hashtable encoding (Redis's setTypeConvert). */
    void convert() {
        if (table != null) return;
        MemberTable t = new MemberTable();
        int n = IntSet.length(ints);
        for (int i = 0; i < n; i++) t.add(Bytes.longToBytes(IntSet.get(ints, i)));
        table = t;
        ints = null;
    }

    // ---- access by encoding -------------------------------------------------------------------

    /** Intset only: the i-th smallest member. */
    public long intAt(int i) {
        return IntSet.get(ints, i);
    }

    /** Hashtable only: a snapshot of the member arrays (shared: do not modify them). */
    public Object[] members() {
        return table.toArray();
    }

    /** Hashtable only: a uniformly random member array (shared). */
    byte[] randomMember(SplittableRandom rnd) {
        return (byte[]) table.random(rnd);
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
        int n = IntSet.length(ints);
        for (int i = 0; i < n; i++) r.bulkLong(IntSet.get(ints, i));
    }

    /** Calls the visitor with every member's bytes (integers formatted), in iteration order. */
    /** The sorted-set commands' view of a set input (ZUNION, ZINTER, ZDIFF accept plain sets). */
    @Override
    public void forEachMember(MemberVisitor visitor) {
        forEachMember((java.util.function.Consumer<byte[]>) m -> visitor.member(m, 0, m.length));
    }

    public void forEachMember(Consumer<byte[]> visitor) {
        if (table != null) {
            table.forEach(m -> visitor.accept((byte[]) m));
            return;
        }
        int n = IntSet.length(ints);
        for (int i = 0; i < n; i++) visitor.accept(Bytes.longToBytes(IntSet.get(ints, i)));
    }
}
