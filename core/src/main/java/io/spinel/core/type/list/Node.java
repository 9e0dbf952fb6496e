package io.spinel.core.type.list;

import io.spinel.core.persist.Listpack;

import java.util.Arrays;

/**
 * One node of a {@link ListValue}: a packed run of elements in one {@code byte[]} (the listpack
 * idea), linked to its neighbours.
 *
 * <p>Entry layout: {@code header(len) bytes[len] trailer(len)}. The header is readable left to
 * right and the trailer right to left, so the node can be walked in both directions:
 * <ul>
 *   <li>len &lt; 0x80: one byte {@code len} (both ends)</li>
 *   <li>len &lt; 0x4000: header {@code 10hhhhhh llllllll}, trailer {@code llllllll 10hhhhhh}</li>
 *   <li>otherwise: header {@code 0xC0} + 4-byte big-endian len, trailer len + {@code 0xC0}</li>
 * </ul>
 * The encoding of a length is unique, so an entry's size follows from its length alone.
 *
 * <p>Entries occupy {@code buf[start, end)}; free room may lie on both sides, so pushes at either
 * end are amortized O(1) and pops at either end only move an index.
 *
 * <p>{@link #lp} is what the node's elements would take in a listpack (Redis's quicklist node
 * size, less the listpack's 7 bytes of header and terminator): the list splits and merges nodes
 * where Redis does by it, so that DUMP and RDB hold Redis's nodes.
 */
final class Node {
    Node prev;
    Node next;
    byte[] buf;
    int start;
    int end;
    int count;
    /** Listpack bytes of the entries (each as lpAppend would encode it, backlen included). */
    int lp;

    /** Arrays shrink when emptied below a quarter, but small ones are left alone. */
    private static final int SHRINK_MIN = 64;
    private static final int MAX_ARRAY = Integer.MAX_VALUE - 16;

    Node(byte[] buf, int start, int end, int count, int lp) {
        this.buf = buf;
        this.start = start;
        this.end = end;
        this.count = count;
        this.lp = lp;
    }

    /** A node holding one element, sized exactly. */
    static Node of(byte[] b, int off, int len) {
        return of(b, off, len, 0);
    }

    /** A node holding one element, with room for capacity bytes of entries if that is more. */
    static Node of(byte[] b, int off, int len, int capacity) {
        byte[] buf = new byte[Math.max(entrySize(len), capacity)];
        int end = write(buf, 0, b, off, len);
        return new Node(buf, 0, end, 1, Listpack.elementSize(b, off, len));
    }

    int bytes() {
        return end - start;
    }

    /** Listpack bytes of the entries in [p, q). */
    int lpOf(int p, int q) {
        int total = 0;
        while (p < q) {
            int len = lengthAt(buf, p);
            int h = headerSize(len);
            total += Listpack.elementSize(buf, p + h, len);
            p += len + 2 * h;
        }
        return total;
    }

    /** Listpack bytes of the entry whose header starts at p. */
    int lpAt(int p) {
        int len = lengthAt(buf, p);
        return Listpack.elementSize(buf, p + headerSize(len), len);
    }

    // ---- entry encoding -------------------------------------------------------------------------

    static int headerSize(int len) {
        return len < 0x80 ? 1 : len < 0x4000 ? 2 : 5;
    }

    static int entrySize(int len) {
        return len + 2 * headerSize(len);
    }

    /** The element length of the entry starting at p. */
    static int lengthAt(byte[] buf, int p) {
        int b = buf[p] & 0xFF;
        if (b < 0x80) return b;
        if (b < 0xC0) return ((b & 0x3F) << 8) | (buf[p + 1] & 0xFF);
        return getInt(buf, p + 1);
    }

    /** The element length of the entry ending just before q. */
    static int lengthBefore(byte[] buf, int q) {
        int b = buf[q - 1] & 0xFF;
        if (b < 0x80) return b;
        if (b < 0xC0) return ((b & 0x3F) << 8) | (buf[q - 2] & 0xFF);
        return getInt(buf, q - 5);
    }

    /** Writes an entry at p; returns the offset just past it. */
    static int write(byte[] dst, int p, byte[] src, int off, int len) {
        int h = headerSize(len);
        if (h == 1) {
            dst[p] = (byte) len;
        } else if (h == 2) {
            dst[p] = (byte) (0x80 | (len >>> 8));
            dst[p + 1] = (byte) len;
        } else {
            dst[p] = (byte) 0xC0;
            putInt(dst, p + 1, len);
        }
        System.arraycopy(src, off, dst, p + h, len);
        int q = p + h + len;
        if (h == 1) {
            dst[q] = (byte) len;
        } else if (h == 2) {
            dst[q] = (byte) len;
            dst[q + 1] = (byte) (0x80 | (len >>> 8));
        } else {
            putInt(dst, q, len);
            dst[q + 4] = (byte) 0xC0;
        }
        return q + h;
    }

    private static int getInt(byte[] b, int p) {
        return ((b[p] & 0xFF) << 24) | ((b[p + 1] & 0xFF) << 16) | ((b[p + 2] & 0xFF) << 8) | (b[p + 3] & 0xFF);
    }

    private static void putInt(byte[] b, int p, int v) {
        b[p] = (byte) (v >>> 24);
        b[p + 1] = (byte) (v >>> 16);
        b[p + 2] = (byte) (v >>> 8);
        b[p + 3] = (byte) v;
    }

    // ---- navigation -----------------------------------------------------------------------------

    /** Byte offset of the i-th entry (0 &lt;= i &lt; count), walking from the nearer end. */
    int offsetOf(int i) {
        if (i <= (count - 1) / 2) {
            int p = start;
            for (int k = 0; k < i; k++) p += entrySize(lengthAt(buf, p));
            return p;
        }
        int q = end;
        for (int k = count; k > i; k--) q -= entrySize(lengthBefore(buf, q));
        return q;
    }

    /** Offset just past {@code n} entries starting at p. */
    int skip(int p, int n) {
        for (int k = 0; k < n; k++) p += entrySize(lengthAt(buf, p));
        return p;
    }

    // ---- room ---------------------------------------------------------------------------------

    /**
     * Makes at least {@code need} free bytes before start (front) or after end. Free room on the
     * other side is reused by centring the entries when there is plenty of it; otherwise the array
     * doubles, with the new room on the side that asked.
     */
    private void makeRoom(ListValue owner, int need, boolean front) {
        int cap = buf.length;
        if (front ? start >= need : cap - end >= need) return;
        int used = end - start;
        int free = cap - used;
        if (free >= 2 * need && free >= (cap >>> 2)) {
            int ns = free >>> 1;
            System.arraycopy(buf, start, buf, ns, used);
            start = ns;
            end = ns + used;
            return;
        }
        long want = Math.max((long) used + need, (long) cap * 2);
        int newCap = (int) Math.min(want, Math.max(MAX_ARRAY, (long) used + need));
        byte[] nb = new byte[newCap];
        int ns = front ? newCap - used : 0;
        System.arraycopy(buf, start, nb, ns, used);
        setBuf(owner, nb);
        start = ns;
        end = ns + used;
    }

    /** Gives back the array's spare room: done when a node stops growing, or emptied a lot. */
    void trim(ListValue owner) {
        int used = end - start;
        if (buf.length == used) return;
        setBuf(owner, Arrays.copyOfRange(buf, start, end));
        start = 0;
        end = used;
    }

    // ---- updates ------------------------------------------------------------------------------

    void pushHead(ListValue owner, byte[] b, int off, int len) {
        int es = entrySize(len);
        makeRoom(owner, es, true);
        start -= es;
        write(buf, start, b, off, len);
        count++;
        lp += Listpack.elementSize(b, off, len);
    }

    void pushTail(ListValue owner, byte[] b, int off, int len) {
        makeRoom(owner, entrySize(len), false);
        end = write(buf, end, b, off, len);
        count++;
        lp += Listpack.elementSize(b, off, len);
    }

    /** Inserts an entry at byte offset p (an entry boundary within [start, end]). */
    void insertAt(ListValue owner, int p, byte[] b, int off, int len) {
        int es = entrySize(len);
        int left = p - start;
        int right = end - p;
        if (start >= es && (left <= right || buf.length - end < es)) {
            System.arraycopy(buf, start, buf, start - es, left);
            start -= es;
            write(buf, p - es, b, off, len);
        } else if (buf.length - end >= es) {
            System.arraycopy(buf, p, buf, p + es, right);
            end += es;
            write(buf, p, b, off, len);
        } else {
            int used = end - start;
            long want = Math.max((long) used + es, (long) buf.length * 2);
            int newCap = (int) Math.min(want, Math.max(MAX_ARRAY, (long) used + es));
            byte[] nb = new byte[newCap];
            System.arraycopy(buf, start, nb, 0, left);
            int q = write(nb, left, b, off, len);
            System.arraycopy(buf, p, nb, q, right);
            setBuf(owner, nb);
            start = 0;
            end = q + right;
        }
        count++;
        lp += Listpack.elementSize(b, off, len);
    }

    /**
     * Removes the bytes [p, q) holding {@code n} entries, moving the smaller side. Returns the offset
     * at which the entry that followed q now starts. The array is not shrunk here, so offsets the
     * caller holds stay meaningful; call {@link #shrinkIfSparse(ListValue)} when done.
     */
    int removeBytes(int p, int q, int n) {
        int gap = q - p;
        count -= n;
        lp -= lpOf(p, q);
        if (p == start) {
            start = q;
            return q;
        }
        if (q == end) {
            end = p;
            return p;
        }
        if (p - start < end - q) {
            System.arraycopy(buf, start, buf, start + gap, p - start);
            start += gap;
            return q;
        }
        System.arraycopy(buf, q, buf, p, end - q);
        end -= gap;
        return p;
    }

    /** Shrinks the array if it is mostly empty. */
    void shrinkIfSparse(ListValue owner) {
        if (buf.length >= SHRINK_MIN && (end - start) < (buf.length >>> 2)) trim(owner);
    }

    /** Deletes n entries starting at entry index i. */
    void deleteRange(ListValue owner, int i, int n) {
        int p = offsetOf(i);
        int q = skip(p, n);
        removeBytes(p, q, n);
        shrinkIfSparse(owner);
    }

    /** A node with entries [i, count) moved out of this one (which keeps [0, i)). */
    Node splitAt(ListValue owner, int i) {
        int p = offsetOf(i);
        byte[] nb = Arrays.copyOfRange(buf, p, end);
        Node right = new Node(nb, 0, nb.length, count - i, 0);
        right.lp = right.lpOf(0, nb.length);
        lp -= right.lp;
        end = p;
        count = i;
        trim(owner);
        return right;
    }

    Node copy() {
        byte[] nb = Arrays.copyOfRange(buf, start, end);
        return new Node(nb, 0, nb.length, count, lp);
    }

    /**
     * Replaces the array, keeping the memory figure of {@code owner} current: the list this node
     * is linked into, null while it is in none. (Passed by the caller rather than kept in a field:
     * 8 bytes less in every node.)
     */
    void setBuf(ListValue owner, byte[] nb) {
        if (owner != null) owner.arrayResized(buf.length, nb.length);
        buf = nb;
    }

    static long arrayHeap(int length) {
        return (16L + length + 7) & ~7L;
    }

    /** Heap bytes: object header and fields (40 with compact headers), plus the array. */
    long memoryUsage() {
        return 40 + arrayHeap(buf.length);
    }
}
