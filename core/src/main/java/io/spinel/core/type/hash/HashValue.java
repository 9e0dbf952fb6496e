package io.spinel.core.type.hash;

import io.spinel.core.keyspace.DbObject;
import io.spinel.core.keyspace.ValueType;
import io.spinel.core.protocol.Reply;
import io.spinel.core.util.Bytes;
import io.spinel.core.util.PackedStrings;

import java.util.Arrays;
import java.util.function.Consumer;

/**
 * A hash value in one of Redis's two encodings:
 *
 * <ul>
 *   <li><b>listpack</b>: every field and value, length-prefixed (see {@link PackedStrings}), alternating
 *       in one byte array in insertion order, as Redis's listpack keeps them. Lookups scan it,
 *       which is what Redis does too and is fast at the sizes the thresholds allow.</li>
 *   <li><b>hashtable</b>: a {@link FieldTable}, used once the hash has more fields than
 *       hash-max-listpack-entries or a field or value longer than hash-max-listpack-value. A hash
 *       never converts back, as in Redis.</li>
 * </ul>
 *
 * <p>The listpack lives in this object's own fields rather than in a separate object, which saves
 * an object header per small hash.
 */
public final class HashValue extends DbObject {
    /** Packed pairs while listpack-encoded, null once converted. */
    private byte[] lp;
    private int lpUsed;
    private int lpPairs;
    /** The table once hashtable-encoded, null before. */
    private FieldTable table;

    /** Redis refuses to grow a listpack past 1 GB and converts instead (lpSafeToAdd). */
    private static final int LISTPACK_SAFETY_LIMIT = 1 << 30;
    private static final byte[] EMPTY = new byte[0];

    public HashValue() {
        lp = EMPTY;
    }

    // ---- Value --------------------------------------------------------------------------------

    @Override
    public int type() {
        return ValueType.HASH;
    }

    @Override
    public String encoding() {
        return table == null ? "listpack" : "hashtable";
    }

    @Override
    public HashValue copy() {
        HashValue h = new HashValue();
        if (table == null) {
            h.lp = Arrays.copyOf(lp, lpUsed);
            h.lpUsed = lpUsed;
            h.lpPairs = lpPairs;
        } else {
            FieldTable t = new FieldTable();
            // (each entry array copied: FieldTable.set writes a same-length value over the old one)
            table.forEach(e -> t.add(((byte[]) e).clone()));
            h.lp = null;
            h.table = t;
        }
        return h;
    }

    @Override
    public long memoryUsage() {
        long self = 48; // this object with its entry fields (compact headers)
        return table == null ? self + PackedStrings.arrayHeap(lp.length) : self + table.heapSize();
    }

    @Override
    public long size() {
        return length();
    }

    public int length() {
        return table == null ? lpPairs : table.size();
    }

    public boolean isListpack() {
        return table == null;
    }

    // ---- reads --------------------------------------------------------------------------------

    /** Position of the field's entry in the listpack, or -1. */
    private int lpFind(byte[] f, int off, int len) {
        byte[] b = lp;
        int p = 0, end = lpUsed;
        // the last bytes are compared first: a hash's fields often share a prefix and a length
        // (f:1 ... f:99), rarely their last byte, and the full comparison is a call
        byte last = len > 0 ? f[off + len - 1] : 0;
        while (p < end) {
            int fl = PackedStrings.readLength(b, p);
            int fd = p + PackedStrings.prefixSize(fl);
            int vp = fd + fl;
            if (fl == len && (len == 0 || b[vp - 1] == last) && Arrays.equals(b, fd, vp, f, off, off + len)) return p;
            p = PackedStrings.next(b, vp);
        }
        return -1;
    }

    /** Position of the value entry that follows the field entry at p. */
    private int lpValueAt(int p) {
        return PackedStrings.next(lp, p);
    }

    public boolean exists(byte[] f, int off, int len) {
        return table == null ? lpFind(f, off, len) >= 0 : table.find(f, off, len) != null;
    }

    /** Writes the field's value as a bulk string; returns false (writing nothing) if absent. */
    public boolean replyValue(byte[] f, int off, int len, Reply r) {
        if (table == null) {
            int p = lpFind(f, off, len);
            if (p < 0) return false;
            int vp = lpValueAt(p);
            int vl = PackedStrings.readLength(lp, vp);
            r.bulk(lp, vp + PackedStrings.prefixSize(vl), vl);
            return true;
        }
        byte[] e = table.find(f, off, len);
        if (e == null) return false;
        int vo = FieldTable.valueOffset(e);
        r.bulk(e, vo, e.length - vo);
        return true;
    }

    /** A copy of the field's value, or null. */
    public byte[] get(byte[] f, int off, int len) {
        if (table == null) {
            int p = lpFind(f, off, len);
            if (p < 0) return null;
            int vp = lpValueAt(p);
            int vl = PackedStrings.readLength(lp, vp);
            int vo = vp + PackedStrings.prefixSize(vl);
            return Arrays.copyOfRange(lp, vo, vo + vl);
        }
        byte[] e = table.find(f, off, len);
        return e == null ? null : Arrays.copyOfRange(e, FieldTable.valueOffset(e), e.length);
    }

    /**
     * The field's value read as an integer (HINCRBY), without copying it out: {@code ifAbsent}
     * when the field is not there.
     *
     * @throws NumberFormatException when the value is not a canonical integer
     */
    public long getLong(byte[] f, int off, int len, long ifAbsent) {
        if (table == null) {
            int p = lpFind(f, off, len);
            if (p < 0) return ifAbsent;
            int vp = lpValueAt(p);
            int vl = PackedStrings.readLength(lp, vp);
            return Bytes.parseLong(lp, vp + PackedStrings.prefixSize(vl), vl);
        }
        byte[] e = table.find(f, off, len);
        if (e == null) return ifAbsent;
        int vo = FieldTable.valueOffset(e);
        return Bytes.parseLong(e, vo, e.length - vo);
    }

    /** Length of the field's value, 0 if absent (HSTRLEN). */
    public int valueLength(byte[] f, int off, int len) {
        if (table == null) {
            int p = lpFind(f, off, len);
            return p < 0 ? 0 : PackedStrings.readLength(lp, lpValueAt(p));
        }
        byte[] e = table.find(f, off, len);
        return e == null ? 0 : FieldTable.valueLength(e);
    }

    // ---- writes -------------------------------------------------------------------------------

    /**
     * Sets field to value, converting to a hashtable first when either is longer than maxValue
     * and after the insert when the hash has more than maxEntries fields (Redis's hashTypeSet).
     *
     * @return true if the field is new
     */
    public boolean set(byte[] f, int fo, int fl, byte[] v, int vo, int vl, int maxEntries, int maxValue) {
        if (table == null && (fl > maxValue || vl > maxValue
                || (long) lpUsed + PackedStrings.storedSize(fl) + PackedStrings.storedSize(vl) > LISTPACK_SAFETY_LIMIT)) {
            convert();
        }
        if (table != null) return table.set(f, fo, fl, v, vo, vl);
        int p = lpFind(f, fo, fl);
        if (p >= 0) {
            int vp = lpValueAt(p);
            int oldSize = PackedStrings.storedSize(PackedStrings.readLength(lp, vp));
            int newSize = PackedStrings.storedSize(vl);
            splice(vp, oldSize, newSize);
            PackedStrings.writeString(lp, vp, v, vo, vl);
            return false;
        }
        int need = PackedStrings.storedSize(fl) + PackedStrings.storedSize(vl);
        ensureCapacity(lpUsed + need);
        int q = PackedStrings.writeString(lp, lpUsed, f, fo, fl);
        lpUsed = PackedStrings.writeString(lp, q, v, vo, vl);
        lpPairs++;
        if (lpPairs > maxEntries) convert();
        return true;
    }

    /** Removes the field; returns whether it was there. */
    public boolean delete(byte[] f, int off, int len) {
        if (table != null) return table.delete(f, off, len);
        int p = lpFind(f, off, len);
        if (p < 0) return false;
        int vp = lpValueAt(p);
        int vl = PackedStrings.readLength(lp, vp);
        int end = vp + PackedStrings.storedSize(vl);
        splice(p, end - p, 0);
        lpPairs--;
        return true;
    }

    /** Replaces lp[at, at+oldSize) by a gap of newSize bytes, moving the tail. */
    private void splice(int at, int oldSize, int newSize) {
        int diff = newSize - oldSize;
        if (diff > 0) ensureCapacity(lpUsed + diff);
        System.arraycopy(lp, at + oldSize, lp, at + newSize, lpUsed - at - oldSize);
        lpUsed += diff;
        if (diff < 0 && lp.length > 64 && lpUsed < lp.length / 2) lp = Arrays.copyOf(lp, lpUsed + lpUsed / 4);
    }

    /** Makes room for {@code bytes} more in the listpack at once (multi-field HSET). */
    public void reserve(long bytes) {
        if (table != null || lpUsed + bytes > LISTPACK_SAFETY_LIMIT) return;
        int need = (int) (lpUsed + bytes);
        if (need > lp.length) lp = Arrays.copyOf(lp, need);
    }

    private void ensureCapacity(int need) {
        if (need <= lp.length) return;
        // a quarter of slack: amortised appends without holding much unused memory
        lp = Arrays.copyOf(lp, Math.max(need + (need >> 2), 16));
    }

    /** Converts to the hashtable encoding (Redis's hashTypeConvert). */
    void convert() {
        if (table != null) return;
        FieldTable t = new FieldTable();
        int p = 0;
        while (p < lpUsed) {
            int fl = PackedStrings.readLength(lp, p);
            int fo = p + PackedStrings.prefixSize(fl);
            int vp = fo + fl;
            int vl = PackedStrings.readLength(lp, vp);
            int vo = vp + PackedStrings.prefixSize(vl);
            t.set(lp, fo, fl, lp, vo, vl);
            p = vo + vl;
        }
        table = t;
        lp = null;
        lpUsed = 0;
        lpPairs = 0;
    }

    // ---- iteration ----------------------------------------------------------------------------

    /** Writes every field and/or value as bulk strings, in listpack order or table order. */
    public void replyAll(Reply r, boolean fields, boolean values) {
        if (table != null) {
            table.forEach(o -> {
                byte[] e = (byte[]) o;
                int vo = FieldTable.valueOffset(e);
                if (fields) r.bulk(e, FieldTable.fieldOffset(e), FieldTable.fieldLength(e));
                if (values) r.bulk(e, vo, e.length - vo);
            });
            return;
        }
        byte[] b = lp;
        int p = 0;
        while (p < lpUsed) {
            int fl = PackedStrings.readLength(b, p);
            int fo = p + PackedStrings.prefixSize(fl);
            int vp = fo + fl;
            int vl = PackedStrings.readLength(b, vp);
            int vo = vp + PackedStrings.prefixSize(vl);
            if (fields) r.bulk(b, fo, fl);
            if (values) r.bulk(b, vo, vl);
            p = vo + vl;
        }
    }

    /** Listpack only: the start of every pair, in order (HRANDFIELD's random picks). */
    int[] pairPositions() {
        int[] pos = new int[lpPairs];
        int i = 0;
        for (int p = 0; p < lpUsed; p = nextPair(p)) pos[i++] = p;
        return pos;
    }

    /** Listpack only: the bytes of the listpack in use; pairs start at 0, then at {@link #nextPair}. */
    int listpackUsed() {
        return lpUsed;
    }

    /** Listpack only: the start of the pair after the one at p. */
    int nextPair(int p) {
        int vp = lpValueAt(p);
        return vp + PackedStrings.storedSize(PackedStrings.readLength(lp, vp));
    }

    /** Listpack only: writes the field and optionally the value of the pair at p. */
    void replyPair(int p, Reply r, boolean value) {
        int fl = PackedStrings.readLength(lp, p);
        int fo = p + PackedStrings.prefixSize(fl);
        r.bulk(lp, fo, fl);
        if (value) {
            int vp = fo + fl;
            int vl = PackedStrings.readLength(lp, vp);
            r.bulk(lp, vp + PackedStrings.prefixSize(vl), vl);
        }
    }

    /** The packed pairs while listpack-encoded (read with {@link PackedStrings}), null after conversion. */
    byte[] listpack() {
        return lp;
    }

    FieldTable table() {
        return table;
    }

    @Override
    public io.spinel.core.keyspace.KeyTable hashTable() {
        return table;
    }

    /** Receives a field and its value in place (valid only during the call). */
    @FunctionalInterface
    public interface PairVisitor {
        void accept(byte[] fb, int fo, int fl, byte[] vb, int vo, int vl);
    }

    /** Calls the visitor for every pair in iteration order, without copying (persistence). */
    public void forEachPairInPlace(PairVisitor visitor) {
        if (table != null) {
            table.forEach(o -> {
                byte[] e = (byte[]) o;
                int vo = FieldTable.valueOffset(e);
                visitor.accept(e, FieldTable.fieldOffset(e), FieldTable.fieldLength(e), e, vo, e.length - vo);
            });
            return;
        }
        byte[] b = lp;
        int p = 0;
        while (p < lpUsed) {
            int fl = PackedStrings.readLength(b, p);
            int fo = p + PackedStrings.prefixSize(fl);
            int vp = fo + fl;
            int vl = PackedStrings.readLength(b, vp);
            int vo = vp + PackedStrings.prefixSize(vl);
            visitor.accept(b, fo, fl, b, vo, vl);
            p = vo + vl;
        }
    }

    /**
     * Loading (RDB, RESTORE): appends a pair to the listpack encoding without looking for the
     * field or applying the size thresholds, because Redis keeps a loaded listpack as it is as
     * long as it has few enough entries. The caller guarantees the field is new.
     */
    public void appendLoaded(byte[] f, int fo, int fl, byte[] v, int vo, int vl) {
        if (table != null) {
            table.set(f, fo, fl, v, vo, vl);
            return;
        }
        ensureCapacity(lpUsed + PackedStrings.storedSize(fl) + PackedStrings.storedSize(vl));
        int q = PackedStrings.writeString(lp, lpUsed, f, fo, fl);
        lpUsed = PackedStrings.writeString(lp, q, v, vo, vl);
        lpPairs++;
    }

    /** Converts to the hashtable encoding (loading applies Redis's conversion rules itself). */
    public void toHashtable() {
        convert();
    }

    /** Calls the visitor with a copy of every pair as {field, value}, in iteration order (tests, persistence). */
    public void forEachPair(Consumer<byte[][]> visitor) {
        if (table != null) {
            table.forEach(o -> {
                byte[] e = (byte[]) o;
                int fo = FieldTable.fieldOffset(e), vo = FieldTable.valueOffset(e);
                visitor.accept(new byte[][] {Arrays.copyOfRange(e, fo, fo + FieldTable.fieldLength(e)),
                        Arrays.copyOfRange(e, vo, e.length)});
            });
            return;
        }
        int p = 0;
        while (p < lpUsed) {
            int fl = PackedStrings.readLength(lp, p);
            int fo = p + PackedStrings.prefixSize(fl);
            int vp = fo + fl;
            int vl = PackedStrings.readLength(lp, vp);
            int vo = vp + PackedStrings.prefixSize(vl);
            visitor.accept(new byte[][] {Arrays.copyOfRange(lp, fo, fo + fl), Arrays.copyOfRange(lp, vo, vo + vl)});
            p = vo + vl;
        }
    }
}
