package io.spinel.core.type.hll;

import io.spinel.core.keyspace.StringEntry;
import io.spinel.core.util.Bytes;

/**
 * An HLL held in a RAW string entry, edited in place. The sparse encoding grows by a few bytes per
 * update and may be promoted to dense; when the entry has no room left it is replaced by a larger
 * one, and {@link #entry()} then differs from the array the keyspace holds (the caller stores it).
 *
 * <p>The edits reproduce Redis's byte layout exactly (where an opcode is split, which neighbours
 * merge, when to promote), so that a sparse HLL built by the same adds has the same bytes.
 */
final class HllValue {
    private byte[] e;
    private int v;
    private int len;
    private final byte[] seq = new byte[5];

    /** Registers covered by each one-byte sparse opcode (ZERO, VAL); 0 for XZERO, which takes two bytes. */
    private static final byte[] SPAN = new byte[256];

    static {
        for (int op = 0; op < 256; op++) {
            if (Hll.isZero(op)) SPAN[op] = (byte) Hll.zeroLen(op);
            else if (Hll.isVal(op)) SPAN[op] = (byte) Hll.valLen(op);
        }
    }

    HllValue(byte[] rawEntry) {
        reset(rawEntry);
    }

    private void reset(byte[] rawEntry) {
        e = rawEntry;
        v = StringEntry.valueOffset(rawEntry);
        len = StringEntry.valueLength(rawEntry);
    }

    byte[] entry() {
        return e;
    }

    int valueOffset() {
        return v;
    }

    int encoding() {
        return Hll.encoding(e, v);
    }

    /**
     * Records an element's hash; returns 1 if a register changed, 0 if not, -1 if the sparse
     * representation is corrupted.
     */
    int add(long hash, int sparseMaxBytes) {
        int index = Hll.registerOf(hash);
        int count = Hll.runOf(hash);
        if (encoding() == Hll.DENSE) return Hll.denseUpdate(e, v + Hll.HDR, index, count);
        return sparseSet(index, count, sparseMaxBytes);
    }

    /** Raises register index to count (Redis's hllSparseSet); 1 changed, 0 unchanged, -1 corrupted. */
    int sparseSet(int index, int count, int sparseMaxBytes) {
        if (count > Hll.SPARSE_VAL_MAX_VALUE) return promote(index, count);
        // A split adds at most 3 bytes; a truncated trailing XZERO may be written one byte further.
        reserve(4);
        byte[] a = e;
        int sparse = v + Hll.HDR;
        int end = v + len;

        // Find the opcode covering the register: the walk PFADD spends its time in once the HLL
        // holds its elements (about a thousand opcodes near the sparse limit), so one table load
        // gives a one-byte opcode's span instead of two tests of the opcode's kind.
        int p = sparse, prev = -1, first = 0, span = 0;
        while (p < end) {
            if (p + 8 <= end) {
                // eight one-byte opcodes (no XZERO among them) that end before the register are
                // passed at once
                long w = Bytes.getLongLE(a, p);
                long kinds = (w & 0xc0c0c0c0c0c0c0c0L) ^ 0x4040404040404040L; // a zero byte: XZERO
                if (((kinds - 0x0101010101010101L) & ~kinds & 0x8080808080808080L) == 0) {
                    int sum = SPAN[(int) w & 0xff] + SPAN[(int) (w >>> 8) & 0xff]
                            + SPAN[(int) (w >>> 16) & 0xff] + SPAN[(int) (w >>> 24) & 0xff]
                            + SPAN[(int) (w >>> 32) & 0xff] + SPAN[(int) (w >>> 40) & 0xff]
                            + SPAN[(int) (w >>> 48) & 0xff] + SPAN[(int) (w >>> 56) & 0xff];
                    if (first + sum <= index) {
                        prev = p + 7;
                        p += 8;
                        first += sum;
                        continue;
                    }
                }
            }
            int oplen = 1;
            span = SPAN[a[p] & 0xff];
            if (span == 0) {
                span = Hll.xzeroLen(a, p, end);
                oplen = 2;
            }
            if (index < first + span) break;
            prev = p;
            p += oplen;
            first += span;
        }
        if (span == 0 || p >= end) return -1;

        int op = a[p] & 0xff;
        boolean zero = Hll.isZero(op), xzero = Hll.isXZero(op), val = Hll.isVal(op);
        int next = xzero ? p + 2 : p + 1;
        if (next >= end) next = -1;
        int runlen = zero ? Hll.zeroLen(op) : xzero ? Hll.xzeroLen(a, p, end) : Hll.valLen(op);

        boolean inPlace = false;
        if (val) {
            if (Hll.valValue(op) >= count) return 0;
            if (runlen == 1) inPlace = true;
        }
        if (zero && runlen == 1) inPlace = true;

        if (inPlace) {
            a[p] = Hll.valOp(count, 1);
        } else {
            // Split the opcode into up to three: before, the register, after.
            int n = 0;
            int last = first + span - 1;
            if (zero || xzero) {
                if (index != first) n = putZeros(n, index - first);
                seq[n++] = Hll.valOp(count, 1);
                if (index != last) n = putZeros(n, last - index);
            } else {
                int cur = Hll.valValue(op);
                if (index != first) seq[n++] = Hll.valOp(cur, index - first);
                seq[n++] = Hll.valOp(count, 1);
                if (index != last) seq[n++] = Hll.valOp(cur, last - index);
            }
            int delta = n - (xzero ? 2 : 1);
            if (delta > 0 && len + delta > sparseMaxBytes) return promote(index, count);
            if (delta != 0 && next >= 0) System.arraycopy(a, next, a, next + delta, end - next);
            len += delta;
            end += delta;
            System.arraycopy(seq, 0, a, p, n);
        }

        // Merge runs of equal VAL opcodes around the change (up to five steps from prev).
        p = prev >= 0 ? prev : sparse;
        int steps = 5;
        while (p < end && steps-- > 0) {
            int o = a[p] & 0xff;
            if (Hll.isXZero(o)) {
                p += 2;
                continue;
            }
            if (Hll.isZero(o)) {
                p++;
                continue;
            }
            if (p + 1 < end && Hll.isVal(a[p + 1] & 0xff)) {
                int o2 = a[p + 1] & 0xff;
                int v1 = Hll.valValue(o);
                if (v1 == Hll.valValue(o2)) {
                    int merged = Hll.valLen(o) + Hll.valLen(o2);
                    if (merged <= Hll.SPARSE_VAL_MAX_LEN) {
                        a[p + 1] = Hll.valOp(v1, merged);
                        System.arraycopy(a, p + 1, a, p, end - p - 1);
                        len--;
                        end--;
                        continue;
                    }
                }
            }
            p++;
        }
        commitLength();
        Hll.invalidateCache(a, v);
        return 1;
    }

    private int putZeros(int n, int run) {
        if (run > Hll.SPARSE_ZERO_MAX_LEN) {
            int l = run - 1;
            seq[n++] = (byte) (0x40 | (l >>> 8));
            seq[n++] = (byte) l;
        } else {
            seq[n++] = (byte) (run - 1);
        }
        return n;
    }

    private int promote(int index, int count) {
        if (!toDense()) return -1;
        return Hll.denseUpdate(e, v + Hll.HDR, index, count);
    }

    /**
     * Converts a sparse HLL to dense, keeping the header (cached cardinality included). Returns
     * false, changing nothing, if the sparse form is corrupted.
     */
    boolean toDense() {
        if (encoding() == Hll.DENSE) return true;
        byte[] dense = new byte[Hll.DENSE_SIZE];
        if (!Hll.sparseToDense(e, v, len, dense, Hll.HDR)) return false;
        System.arraycopy(e, v, dense, 0, Hll.HDR);
        dense[4] = Hll.DENSE;
        if (StringEntry.spare(e) + len >= Hll.DENSE_SIZE) {
            byte[] n = StringEntry.resizeRaw(e, Hll.DENSE_SIZE, 0);
            System.arraycopy(dense, 0, n, StringEntry.valueOffset(n), Hll.DENSE_SIZE);
            reset(n);
        } else {
            // exactly the dense size: a dense HLL never grows again
            reset(StringEntry.createRaw(e, StringEntry.keyOffset(e), StringEntry.keyLength(e), dense, 0,
                    Hll.DENSE_SIZE, Hll.DENSE_SIZE, StringEntry.expire(e), StringEntry.lru(e)));
        }
        return true;
    }

    /** Makes room for {@code extra} bytes after the value without changing its length. */
    private void reserve(int extra) {
        if (StringEntry.spare(e) >= extra) return;
        byte[] n = StringEntry.resizeRaw(e, len + extra, len);
        n = StringEntry.resizeRaw(n, len, len);
        reset(n);
    }

    private void commitLength() {
        byte[] n = StringEntry.resizeRaw(e, len, len);
        assert n == e : "room was reserved";
    }
}
