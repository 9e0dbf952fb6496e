package io.spinel.core.type.bitmap;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Bit-level operations on a byte slice, numbering bits as Redis does: bit 0 is the most significant
 * bit of the first byte. Whole words are processed eight bytes at a time.
 */
public final class Bits {
    private Bits() {
    }

    private static final VarHandle LONG_BE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    /** For counting, where the order of the bytes in a word does not matter: no byte swap. */
    private static final VarHandle LONG_NATIVE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.nativeOrder());

    static long getLongBE(byte[] a, int off) {
        return (long) LONG_BE.get(a, off);
    }

    static void setLongBE(byte[] a, int off, long v) {
        LONG_BE.set(a, off, v);
    }

    /** Number of bits set in a[off, off+len). */
    public static long popcount(byte[] a, int off, int len) {
        long bits = 0;
        int i = off, end = off + len;
        // four independent sums so that the popcnt instructions do not wait on one another
        long b1 = 0, b2 = 0, b3 = 0;
        for (; i + 32 <= end; i += 32) {
            bits += Long.bitCount((long) LONG_NATIVE.get(a, i));
            b1 += Long.bitCount((long) LONG_NATIVE.get(a, i + 8));
            b2 += Long.bitCount((long) LONG_NATIVE.get(a, i + 16));
            b3 += Long.bitCount((long) LONG_NATIVE.get(a, i + 24));
        }
        bits += b1 + b2 + b3;
        for (; i + 8 <= end; i += 8) bits += Long.bitCount((long) LONG_NATIVE.get(a, i));
        for (; i < end; i++) bits += Integer.bitCount(a[i] & 0xff);
        return bits;
    }

    /**
     * The first bit equal to {@code bit} between bit positions {@code from} and {@code to}
     * (inclusive, relative to {@code off}), or -1 if there is none.
     */
    public static long find(byte[] a, int off, long from, long to, int bit) {
        if (from > to) return -1;
        int firstByte = (int) (from >>> 3);
        int lastByte = (int) (to >>> 3);
        int flip = bit == 1 ? 0 : 0xff;
        // first byte, bits before 'from' masked off
        int x = ((a[off + firstByte] & 0xff) ^ flip) & (0xff >>> (from & 7));
        if (firstByte == lastByte) {
            x &= 0xff << (7 - (to & 7));
            return x == 0 ? -1 : firstByte * 8L + Integer.numberOfLeadingZeros(x) - 24;
        }
        if (x != 0) return firstByte * 8L + Integer.numberOfLeadingZeros(x) - 24;
        // whole bytes in between
        long skip = bit == 1 ? 0 : -1L;
        int i = firstByte + 1;
        for (; i + 8 <= lastByte; i += 8) {
            long w = getLongBE(a, off + i);
            if (w != skip) return i * 8L + Long.numberOfLeadingZeros(w ^ skip);
        }
        for (; i < lastByte; i++) {
            int b = (a[off + i] & 0xff) ^ flip;
            if (b != 0) return i * 8L + Integer.numberOfLeadingZeros(b) - 24;
        }
        // last byte, bits after 'to' masked off
        x = ((a[off + lastByte] & 0xff) ^ flip) & (0xff << (7 - (to & 7)));
        x &= 0xff;
        return x == 0 ? -1 : lastByte * 8L + Integer.numberOfLeadingZeros(x) - 24;
    }

    /**
     * The unsigned integer of {@code bits} bits (1..64) at bit {@code offset} of a[off, off+len),
     * reading bits past the end as zeros.
     */
    public static long getUnsigned(byte[] a, int off, int len, long offset, int bits) {
        long value = 0;
        long pos = offset;
        int remaining = bits;
        while (remaining > 0) {
            long byteIndex = pos >>> 3;
            int used = (int) (pos & 7);
            int avail = 8 - used;
            int take = Math.min(avail, remaining);
            int b = byteIndex < len ? a[off + (int) byteIndex] & 0xff : 0;
            int chunk = (b >>> (avail - take)) & ((1 << take) - 1);
            value = (value << take) | chunk;
            pos += take;
            remaining -= take;
        }
        return value;
    }

    /** As {@link #getUnsigned}, sign-extending the top bit of the field. */
    public static long getSigned(byte[] a, int off, int len, long offset, int bits) {
        long value = getUnsigned(a, off, len, offset, bits);
        if (bits < 64 && (value & (1L << (bits - 1))) != 0) value |= -1L << bits;
        return value;
    }

    /** Stores the low {@code bits} bits of value at bit {@code offset}; the bytes must exist. */
    public static void set(byte[] a, int off, long offset, int bits, long value) {
        long pos = offset;
        int remaining = bits;
        while (remaining > 0) {
            int p = off + (int) (pos >>> 3);
            int used = (int) (pos & 7);
            int avail = 8 - used;
            int take = Math.min(avail, remaining);
            int shift = avail - take;
            int mask = ((1 << take) - 1) << shift;
            int chunk = (int) (value >>> (remaining - take)) & ((1 << take) - 1);
            a[p] = (byte) ((a[p] & ~mask) | (chunk << shift));
            pos += take;
            remaining -= take;
        }
    }

    // ---- overflow of BITFIELD SET/INCRBY --------------------------------------------------------

    public static final int WRAP = 0;
    public static final int SAT = 1;
    public static final int FAIL = 2;

    /**
     * Checks value+incr against an unsigned field of {@code bits} bits (value is an unsigned 64-bit
     * quantity). Returns 0 when it fits, else 1 (overflow) or -1 (underflow) and stores in
     * {@code limit[0]} what to write instead: the wrapped value (WRAP, which reports 1 either way)
     * or the bound (SAT). Reproduces Redis's arithmetic, wrapping included.
     */
    public static int checkUnsigned(long value, long incr, int bits, int owtype, long[] limit) {
        long max = bits == 64 ? -1L : (1L << bits) - 1;
        long maxincr = max - value;
        long minincr = -value;
        if (Long.compareUnsigned(value, max) > 0 || (incr > 0 && incr > maxincr)) {
            if (owtype == WRAP) return wrapUnsigned(value, incr, bits, limit);
            if (owtype == SAT) limit[0] = max;
            return 1;
        } else if (incr < 0 && incr < minincr) {
            if (owtype == WRAP) return wrapUnsigned(value, incr, bits, limit);
            if (owtype == SAT) limit[0] = 0;
            return -1;
        }
        return 0;
    }

    private static int wrapUnsigned(long value, long incr, int bits, long[] limit) {
        long res = value + incr;
        if (bits < 64) res &= ~(-1L << bits);
        limit[0] = res;
        return 1;
    }

    /** The signed counterpart of {@link #checkUnsigned}. */
    public static int checkSigned(long value, long incr, int bits, int owtype, long[] limit) {
        long max = bits == 64 ? Long.MAX_VALUE : (1L << (bits - 1)) - 1;
        long min = -max - 1;
        // may wrap when value is out of range; Redis relies on the same two's complement result
        long maxincr = max - value;
        long minincr = min - value;
        if (value > max || (bits != 64 && incr > maxincr) || (value >= 0 && incr > 0 && incr > maxincr)) {
            if (owtype == WRAP) return wrapSigned(value, incr, bits, limit);
            if (owtype == SAT) limit[0] = max;
            return 1;
        } else if (value < min || (bits != 64 && incr < minincr) || (value < 0 && incr < 0 && incr < minincr)) {
            if (owtype == WRAP) return wrapSigned(value, incr, bits, limit);
            if (owtype == SAT) limit[0] = min;
            return -1;
        }
        return 0;
    }

    private static int wrapSigned(long value, long incr, int bits, long[] limit) {
        long c = value + incr;
        if (bits < 64) {
            long mask = -1L << bits;
            if ((c & (1L << (bits - 1))) != 0) c |= mask;
            else c &= ~mask;
        }
        limit[0] = c;
        return 1;
    }
}
