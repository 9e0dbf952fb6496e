package io.spinel.core.type.set;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The "intset" encoding: a sorted array of distinct integers packed in one byte array, laid out as
 * Redis lays out its intset blob (so RDB and DUMP can copy it): a little-endian 32-bit element
 * width in bytes (2, 4 or 8), a little-endian 32-bit count, then the elements, little-endian, in
 * ascending order. Every element uses the width the widest one needs; adding a value that does
 * not fit widens them all, and nothing ever narrows them back.
 *
 * <p>The array may be longer than the blob (room to grow without copying on every add); the
 * header's count says where the elements end. Methods are static over the array, as the set
 * value holds it directly.
 */
public final class IntSet {
    private IntSet() {
    }

    static final int HEADER = 8;
    private static final VarHandle I16 = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle I32 = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle I64 = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    /** An empty intset of 16-bit elements. */
    public static byte[] create() {
        byte[] is = new byte[HEADER];
        I32.set(is, 0, 2);
        return is;
    }

    public static int width(byte[] is) {
        return (int) I32.get(is, 0);
    }

    public static int length(byte[] is) {
        return (int) I32.get(is, 4);
    }

    /** Bytes of the blob proper (header and elements), as Redis's intsetBlobLen. */
    public static int blobLength(byte[] is) {
        return HEADER + length(is) * width(is);
    }

    /** The smallest element width that holds v. */
    static int widthFor(long v) {
        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) return 8;
        if (v < Short.MIN_VALUE || v > Short.MAX_VALUE) return 4;
        return 2;
    }

    private static long read(byte[] is, int width, int i) {
        int at = HEADER + i * width;
        switch (width) {
            case 2:
                return (short) I16.get(is, at);
            case 4:
                return (int) I32.get(is, at);
            default:
                return (long) I64.get(is, at);
        }
    }

    private static void write(byte[] is, int width, int i, long v) {
        int at = HEADER + i * width;
        switch (width) {
            case 2:
                I16.set(is, at, (short) v);
                break;
            case 4:
                I32.set(is, at, (int) v);
                break;
            default:
                I64.set(is, at, v);
        }
    }

    /** The element at index i (0 is the smallest). */
    public static long get(byte[] is, int i) {
        return read(is, width(is), i);
    }

    /** Index of v, or -(insertion point) - 1 when absent, as Arrays.binarySearch. */
    static int search(byte[] is, long v) {
        int w = width(is);
        int lo = 0, hi = length(is) - 1;
        if (hi < 0) return -1;
        // values outside the current width's range are never present; the insertion point is an end
        if (widthFor(v) > w) return v < 0 ? -1 : -(hi + 1) - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            long x = read(is, w, mid);
            if (x < v) lo = mid + 1;
            else if (x > v) hi = mid - 1;
            else return mid;
        }
        return -lo - 1;
    }

    public static boolean contains(byte[] is, long v) {
        return search(is, v) >= 0;
    }

    /**
     * Adds v. Returns the set to keep: the same array, or a larger one when it had to grow or
     * widen. Whether v was new shows in {@link #length} having grown.
     */
    public static byte[] add(byte[] is, long v) {
        int w = width(is);
        int n = length(is);
        int vw = widthFor(v);
        if (vw > w) return widen(is, w, n, vw, v);
        int at = search(is, v);
        if (at >= 0) return is;
        at = -at - 1;
        int need = HEADER + (n + 1) * w;
        if (need > is.length) is = Arrays.copyOf(is, grownCapacity(need));
        int from = HEADER + at * w;
        System.arraycopy(is, from, is, from + w, (n - at) * w);
        write(is, w, at, v);
        I32.set(is, 4, n + 1);
        return is;
    }

    private static int grownCapacity(int need) {
        return need + (need >> 2) + 8;
    }

    /**
     * Re-encodes every element at width nw and adds v, which needs it and so lies beyond every
     * current element: first if negative, last if positive.
     */
    private static byte[] widen(byte[] is, int w, int n, int nw, long v) {
        byte[] out = new byte[grownCapacity(HEADER + (n + 1) * nw)];
        I32.set(out, 0, nw);
        I32.set(out, 4, n + 1);
        int shift = v < 0 ? 1 : 0;
        for (int i = 0; i < n; i++) write(out, nw, i + shift, read(is, w, i));
        write(out, nw, v < 0 ? 0 : n, v);
        return out;
    }

    /**
     * Removes v in place; returns whether it was there. The caller may then call {@link #trim}
     * to give back memory.
     */
    public static boolean remove(byte[] is, long v) {
        int at = search(is, v);
        if (at < 0) return false;
        int w = width(is);
        int n = length(is);
        int from = HEADER + (at + 1) * w;
        System.arraycopy(is, from, is, from - w, (n - at - 1) * w);
        I32.set(is, 4, n - 1);
        return true;
    }

    /** The set, copied into a tighter array when at least half of this one is unused. */
    public static byte[] trim(byte[] is) {
        int used = blobLength(is);
        return is.length > 64 && used < is.length / 2 ? Arrays.copyOf(is, grownCapacity(used)) : is;
    }

    /** An exact-size copy. */
    public static byte[] copy(byte[] is) {
        return Arrays.copyOf(is, blobLength(is));
    }
}
