package io.spinel.core.util;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Byte-slice helpers. Redis is binary safe, so keys and values are bytes everywhere; these are the
 * allocation-free comparisons, number parsing and formatting that the command code needs.
 */
public final class Bytes {
    private Bytes() {
    }

    public static final byte[] EMPTY = new byte[0];

    /** Longest decimal form of a long, with sign ("-9223372036854775808"). */
    public static final int MAX_LONG_CHARS = 20;

    private static final VarHandle LONG_LE =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INT_LE =
            MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    public static long getLongLE(byte[] b, int off) {
        return (long) LONG_LE.get(b, off);
    }

    public static void putLongLE(byte[] b, int off, long v) {
        LONG_LE.set(b, off, v);
    }

    public static int getIntLE(byte[] b, int off) {
        return (int) INT_LE.get(b, off);
    }

    public static void putIntLE(byte[] b, int off, int v) {
        INT_LE.set(b, off, v);
    }

    public static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    public static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Decodes bytes one char per byte, so any byte sequence survives a round trip through a String. */
    public static String latin1(byte[] b, int off, int len) {
        return new String(b, off, len, StandardCharsets.ISO_8859_1);
    }

    public static String latin1(byte[] b) {
        return latin1(b, 0, b.length);
    }

    public static byte[] copy(byte[] b, int off, int len) {
        return Arrays.copyOfRange(b, off, off + len);
    }

    public static boolean equals(byte[] a, int aOff, int aLen, byte[] b, int bOff, int bLen) {
        return aLen == bLen && Arrays.equals(a, aOff, aOff + aLen, b, bOff, bOff + bLen);
    }

    /** Case-insensitive ASCII comparison of a slice with a lower-case token. */
    public static boolean equalsIgnoreCase(byte[] b, int off, int len, byte[] lowerToken) {
        if (len != lowerToken.length) return false;
        for (int i = 0; i < len; i++) {
            int c = b[off + i];
            if (c >= 'A' && c <= 'Z') c += 32;
            if (c != lowerToken[i]) return false;
        }
        return true;
    }

    public static boolean equalsIgnoreCase(byte[] b, int off, int len, String lowerToken) {
        if (len != lowerToken.length()) return false;
        for (int i = 0; i < len; i++) {
            int c = b[off + i];
            if (c >= 'A' && c <= 'Z') c += 32;
            if (c != lowerToken.charAt(i)) return false;
        }
        return true;
    }

    /** Unsigned lexicographic comparison, as memcmp then length (Redis's sdscmp). */
    public static int compare(byte[] a, int aOff, int aLen, byte[] b, int bOff, int bLen) {
        return Arrays.compareUnsigned(a, aOff, aOff + aLen, b, bOff, bOff + bLen);
    }

    public static int compare(byte[] a, byte[] b) {
        return Arrays.compareUnsigned(a, b);
    }

    public static String toLowerAscii(byte[] b, int off, int len) {
        char[] c = new char[len];
        for (int i = 0; i < len; i++) {
            int ch = b[off + i] & 0xff;
            if (ch >= 'A' && ch <= 'Z') ch += 32;
            c[i] = (char) ch;
        }
        return new String(c);
    }

    // ---- integers ------------------------------------------------------------------------------

    /** Sentinel result of {@link #parseLong(byte[], int, int)} meaning "not a canonical integer". */
    private static final long NOT_A_NUMBER = Long.MIN_VALUE;

    /**
     * Parses a strict decimal integer exactly as Redis's string2ll does: an optional '-', no '+', no
     * leading zeros, no spaces, fewer than 21 characters, within the range of a long.
     *
     * @throws NumberFormatException (a shared, stackless instance) when the slice is not one
     */
    public static long parseLong(byte[] b, int off, int len) {
        long v = parseLongOrSentinel(b, off, len);
        if (v == NOT_A_NUMBER && !isLongMin(b, off, len)) throw NotANumber.INSTANCE;
        return v;
    }

    /** Whether the slice is a canonical integer (what Redis stores with the "int" encoding). */
    public static boolean isLong(byte[] b, int off, int len) {
        return parseLongOrSentinel(b, off, len) != NOT_A_NUMBER || isLongMin(b, off, len);
    }

    private static final byte[] LONG_MIN = ascii(Long.toString(Long.MIN_VALUE));

    private static boolean isLongMin(byte[] b, int off, int len) {
        return len == LONG_MIN.length && Arrays.equals(b, off, off + len, LONG_MIN, 0, len);
    }

    private static long parseLongOrSentinel(byte[] b, int off, int len) {
        if (len == 0 || len >= 21) return NOT_A_NUMBER;
        if (len == 1 && b[off] == '0') return 0;
        int i = off, end = off + len;
        boolean negative = false;
        if (b[i] == '-') {
            negative = true;
            if (++i == end) return NOT_A_NUMBER;
        }
        int d = b[i] - '0';
        if (d < 1 || d > 9) return NOT_A_NUMBER;
        long v = -d; // accumulate negatively so that Long.MIN_VALUE fits
        i++;
        for (; i < end; i++) {
            d = b[i] - '0';
            if (d < 0 || d > 9) return NOT_A_NUMBER;
            if (v < Long.MIN_VALUE / 10) return NOT_A_NUMBER;
            v *= 10;
            if (v < Long.MIN_VALUE + d) return NOT_A_NUMBER;
            v -= d;
        }
        if (negative) return v; // Long.MIN_VALUE itself is reported through isLongMin
        if (v == Long.MIN_VALUE) return NOT_A_NUMBER;
        return -v;
    }

    public static long parseLong(byte[] b) {
        return parseLong(b, 0, b.length);
    }

    /** Number of characters of the decimal form of v. */
    public static int decimalLength(long v) {
        if (v < 0) return v == Long.MIN_VALUE ? 20 : 1 + positiveLength(-v);
        return positiveLength(v);
    }

    /** 10, 100, ... 10^18: digit counts by comparison, no division (every reply header needs one). */
    private static final long[] POWERS_OF_TEN = new long[18];

    static {
        long p = 1;
        for (int i = 0; i < POWERS_OF_TEN.length; i++) POWERS_OF_TEN[i] = p *= 10;
    }

    private static int positiveLength(long v) {
        int n = 1;
        while (n <= POWERS_OF_TEN.length && v >= POWERS_OF_TEN[n - 1]) n++;
        return n;
    }

    /** "00".."99": two digits per division when writing numbers. */
    private static final byte[] DIGIT_PAIRS = new byte[200];

    static {
        for (int i = 0; i < 100; i++) {
            DIGIT_PAIRS[2 * i] = (byte) ('0' + i / 10);
            DIGIT_PAIRS[2 * i + 1] = (byte) ('0' + i % 10);
        }
    }

    /** Writes the decimal form of v at off, returns the offset after it. */
    public static int writeLong(byte[] dst, int off, long v) {
        if (v == Long.MIN_VALUE) {
            System.arraycopy(LONG_MIN, 0, dst, off, LONG_MIN.length);
            return off + LONG_MIN.length;
        }
        int len = decimalLength(v);
        int end = off + len;
        if (v < 0) {
            dst[off] = '-';
            v = -v;
        }
        int p = end;
        while (v >= 100) {
            int pair = (int) (v % 100) * 2;
            v /= 100;
            dst[--p] = DIGIT_PAIRS[pair + 1];
            dst[--p] = DIGIT_PAIRS[pair];
        }
        if (v >= 10) {
            int pair = (int) v * 2;
            dst[--p] = DIGIT_PAIRS[pair + 1];
            dst[--p] = DIGIT_PAIRS[pair];
        } else {
            dst[--p] = (byte) ('0' + v);
        }
        return end;
    }

    public static byte[] longToBytes(long v) {
        byte[] b = new byte[decimalLength(v)];
        writeLong(b, 0, v);
        return b;
    }

    /** Stackless shared exception for number parse failures: they are user errors, not bugs. */
    public static final class NotANumber extends NumberFormatException {
        public static final NotANumber INSTANCE = new NotANumber();

        private NotANumber() {
            super("not a number");
        }

        @Override
        public synchronized Throwable fillInStackTrace() {
            return this;
        }
    }

    // ---- hashing -------------------------------------------------------------------------------

    private static final long K1 = 0x9E3779B97F4A7C15L;
    private static final long K2 = 0xC2B2AE3D27D4EB4FL;

    /**
     * A fast seeded 64-bit hash of a byte slice (word-at-a-time multiply-xorshift with a murmur
     * finaliser). The seed is random per process, so a client cannot pick colliding keys in advance.
     */
    public static long hash(long seed, byte[] b, int off, int len) {
        long h = seed ^ (len * K1);
        int i = off, end = off + len;
        while (end - i >= 8) {
            long w = getLongLE(b, i);
            h = Long.rotateLeft(h ^ (w * K2), 29) * K1;
            i += 8;
        }
        if (end - i >= 4) {
            h = Long.rotateLeft(h ^ ((getIntLE(b, i) & 0xffffffffL) * K2), 29) * K1;
            i += 4;
        }
        while (i < end) {
            h = Long.rotateLeft(h ^ ((b[i] & 0xffL) * K2), 29) * K1;
            i++;
        }
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return h;
    }

    /** Redis's sdscatrepr: a quoted string, with C escapes and \xHH for unprintable bytes. */
    public static void appendRepr(StringBuilder sb, byte[] b, int off, int len) {
        sb.append('"');
        for (int i = off, end = off + len; i < end; i++) {
            int ch = b[i] & 0xff;
            switch (ch) {
                case '\\':
                case '"':
                    sb.append('\\').append((char) ch);
                    break;
                case '\n':
                    sb.append("\\n");
                    break;
                case '\r':
                    sb.append("\\r");
                    break;
                case '\t':
                    sb.append("\\t");
                    break;
                case 7:
                    sb.append("\\a");
                    break;
                case '\b':
                    sb.append("\\b");
                    break;
                default:
                    if (ch >= 0x20 && ch <= 0x7e) {
                        sb.append((char) ch);
                    } else {
                        sb.append("\\x").append(Character.forDigit(ch >> 4, 16)).append(Character.forDigit(ch & 15, 16));
                    }
            }
        }
        sb.append('"');
    }

    /** C's atoi: an optional sign and the digits that follow, 0 without any. */
    public static long atoi(String s) {
        int i = 0;
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) i++;
        boolean negative = i < s.length() && s.charAt(i) == '-';
        if (i < s.length() && (s.charAt(i) == '-' || s.charAt(i) == '+')) i++;
        long v = 0;
        for (; i < s.length() && s.charAt(i) >= '0' && s.charAt(i) <= '9' && v < Integer.MAX_VALUE; i++) {
            v = v * 10 + (s.charAt(i) - '0');
        }
        return negative ? -v : v;
    }
}
