package io.spinel.core.util;

/**
 * Strings packed one after another in a byte array, as the hash encodings and small sets keep
 * them: a string is stored as its length (7 bits per byte, low group first, high bit set on every
 * byte but the last) followed by its bytes. Short strings, the common case in small collections,
 * pay one byte of overhead.
 */
public final class PackedStrings {
    private PackedStrings() {
    }

    /** Bytes the length prefix of a string of {@code len} bytes takes. */
    public static int prefixSize(int len) {
        if (len < 1 << 7) return 1;
        if (len < 1 << 14) return 2;
        if (len < 1 << 21) return 3;
        if (len < 1 << 28) return 4;
        return 5;
    }

    /** The length stored at p. */
    public static int readLength(byte[] b, int p) {
        int x = b[p];
        if (x >= 0) return x;
        int v = x & 0x7f;
        int shift = 7;
        while (true) {
            x = b[++p];
            v |= (x & 0x7f) << shift;
            if (x >= 0) return v;
            shift += 7;
        }
    }

    /** Writes len at p and returns the position after it. */
    public static int writeLength(byte[] b, int p, int len) {
        while (len >= 0x80) {
            b[p++] = (byte) (len | 0x80);
            len >>>= 7;
        }
        b[p++] = (byte) len;
        return p;
    }

    /** Writes a length-prefixed copy of src[off, off+len) at p; returns the position after it. */
    public static int writeString(byte[] b, int p, byte[] src, int off, int len) {
        p = writeLength(b, p, len);
        System.arraycopy(src, off, b, p, len);
        return p + len;
    }

    /** The position after the string stored at p. */
    public static int next(byte[] b, int p) {
        int len = readLength(b, p);
        return p + prefixSize(len) + len;
    }

    /** Size of a stored string: prefix plus bytes. */
    public static int storedSize(int len) {
        return prefixSize(len) + len;
    }

    /** Heap bytes of a byte array of length n (16-byte header, 8-byte alignment). */
    public static long arrayHeap(int n) {
        return (16L + n + 7) & ~7L;
    }
}
