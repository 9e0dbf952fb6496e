package io.spinel.core.type.zset;

/**
 * The byte layout of the small ("listpack") sorted set encoding: one array of entries in
 * (score, member) order. Each entry is
 *
 * <pre>
 *   [member length: LEB128 varint][member bytes][score][back length]
 * </pre>
 *
 * The score takes 1 byte for integers in -120..127, 3 or 5 bytes for other 16/32-bit integers
 * and 9 bytes otherwise (raw IEEE bits), so the common integer scores cost about what Redis's
 * listpack spends on them. Like listpack, which stores integral scores as integers, a score of -0
 * reads back as 0. The back length is the entry's length without itself, written so that
 * it can be read from its last byte backwards: that is what lets ZREVRANGE and ZPOPMAX walk the
 * array from the end, as listpack's backlen does.
 *
 * <p>Every method here is a pure function of the array; positions are byte offsets.
 */
final class Packed {
    private Packed() {
    }

    /** Tags 0..247 hold a small integer score, biased by this much. */
    private static final int SMALL_BIAS = 120;
    private static final int SMALL_MAX_TAG = 247;
    private static final int TAG_I16 = 248;
    private static final int TAG_I32 = 249;
    private static final int TAG_DOUBLE = 250;

    // ---- varints -------------------------------------------------------------------------------

    static int varintSize(int v) {
        if (v < (1 << 7)) return 1;
        if (v < (1 << 14)) return 2;
        if (v < (1 << 21)) return 3;
        if (v < (1 << 28)) return 4;
        return 5;
    }

    static int putVarint(byte[] b, int p, int v) {
        while (v >= 0x80) {
            b[p++] = (byte) (v | 0x80);
            v >>>= 7;
        }
        b[p++] = (byte) v;
        return p;
    }

    static int getVarint(byte[] b, int p) {
        int x = b[p];
        if (x >= 0) return x;
        int v = x & 0x7f;
        int shift = 7;
        do {
            x = b[++p];
            v |= (x & 0x7f) << shift;
            shift += 7;
        } while (x < 0);
        return v;
    }

    /** Writes v so that it can be decoded from its last byte backwards; returns the end. */
    static int putBacklen(byte[] b, int p, int v) {
        int n = varintSize(v);
        for (int k = 0; k < n; k++) {
            int group = (v >>> (7 * k)) & 0x7f;
            b[p + n - 1 - k] = (byte) (k < n - 1 ? group | 0x80 : group);
        }
        return p + n;
    }

    /** The start of the entry that ends (back length included) just before {@code end}. */
    static int entryStartBefore(byte[] b, int end) {
        int i = end - 1;
        int x = b[i];
        int v = x & 0x7f;
        int shift = 7;
        while ((x & 0x80) != 0) {
            x = b[--i];
            v |= (x & 0x7f) << shift;
            shift += 7;
        }
        return i - v;
    }

    // ---- scores --------------------------------------------------------------------------------

    static int scoreSize(double d) {
        long l = (long) d;
        if (l != d) return 9; // fractional or huge; -0 is stored as the integer 0, as Redis's listpack does
        if (l >= -SMALL_BIAS && l <= SMALL_MAX_TAG - SMALL_BIAS) return 1;
        if (l >= Short.MIN_VALUE && l <= Short.MAX_VALUE) return 3;
        if (l >= Integer.MIN_VALUE && l <= Integer.MAX_VALUE) return 5;
        return 9;
    }

    static int putScore(byte[] b, int p, double d) {
        int n = scoreSize(d);
        switch (n) {
            case 1:
                b[p] = (byte) ((int) d + SMALL_BIAS);
                return p + 1;
            case 3: {
                int v = (int) d;
                b[p] = (byte) TAG_I16;
                b[p + 1] = (byte) (v >> 8);
                b[p + 2] = (byte) v;
                return p + 3;
            }
            case 5: {
                int v = (int) d;
                b[p] = (byte) TAG_I32;
                b[p + 1] = (byte) (v >> 24);
                b[p + 2] = (byte) (v >> 16);
                b[p + 3] = (byte) (v >> 8);
                b[p + 4] = (byte) v;
                return p + 5;
            }
            default: {
                long bits = Double.doubleToRawLongBits(d);
                b[p] = (byte) TAG_DOUBLE;
                for (int k = 0; k < 8; k++) b[p + 1 + k] = (byte) (bits >>> (56 - 8 * k));
                return p + 9;
            }
        }
    }

    static double getScore(byte[] b, int p) {
        int tag = b[p] & 0xff;
        if (tag <= SMALL_MAX_TAG) return tag - SMALL_BIAS;
        switch (tag) {
            case TAG_I16:
                return (short) (((b[p + 1] & 0xff) << 8) | (b[p + 2] & 0xff));
            case TAG_I32:
                return ((b[p + 1] & 0xff) << 24) | ((b[p + 2] & 0xff) << 16) | ((b[p + 3] & 0xff) << 8)
                        | (b[p + 4] & 0xff);
            default: {
                long bits = 0;
                for (int k = 1; k <= 8; k++) bits = (bits << 8) | (b[p + k] & 0xff);
                return Double.longBitsToDouble(bits);
            }
        }
    }

    static int scoreFieldSize(byte[] b, int p) {
        int tag = b[p] & 0xff;
        if (tag <= SMALL_MAX_TAG) return 1;
        return tag == TAG_I16 ? 3 : tag == TAG_I32 ? 5 : 9;
    }

    // ---- entries -------------------------------------------------------------------------------

    /** Bytes an entry for a member of length mlen with this score takes. */
    static int entrySize(int mlen, double score) {
        int body = varintSize(mlen) + mlen + scoreSize(score);
        return body + varintSize(body);
    }

    /** Writes an entry at p; returns its end. */
    static int putEntry(byte[] b, int p, byte[] m, int off, int len, double score) {
        int q = putVarint(b, p, len);
        System.arraycopy(m, off, b, q, len);
        q = putScore(b, q + len, score);
        return putBacklen(b, q, q - p);
    }

    static int memberLen(byte[] b, int p) {
        return getVarint(b, p);
    }

    static int memberOff(byte[] b, int p, int mlen) {
        return p + varintSize(mlen);
    }

    /** The position of the score field of the entry at p. */
    static int scorePos(byte[] b, int p) {
        int mlen = getVarint(b, p);
        return p + varintSize(mlen) + mlen;
    }

    static double scoreAt(byte[] b, int p) {
        return getScore(b, scorePos(b, p));
    }

    /** The position just after the entry at p. */
    static int next(byte[] b, int p) {
        int s = scorePos(b, p);
        int body = s + scoreFieldSize(b, s) - p;
        return p + body + varintSize(body);
    }
}
