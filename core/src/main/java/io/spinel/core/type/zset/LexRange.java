package io.spinel.core.type.zset;

import java.util.Arrays;

/**
 * A member interval of ZRANGEBYLEX, ZLEXCOUNT, ZREMRANGEBYLEX: "[m" inclusive, "(m" exclusive,
 * "-" and "+" the smallest and largest possible strings. Bounds are slices of the arguments (not
 * copied): a range lives only while its command runs.
 */
public final class LexRange {
    /** Bound kinds: a real string, or one of the infinite strings. */
    static final int STRING = 0, MINUS_INF = -1, PLUS_INF = 1;

    int minKind, maxKind;
    byte[] minB, maxB;
    int minOff, minLen, maxOff, maxLen;
    boolean minex, maxex;

    /** Parses both bounds; returns false (Redis's "min or max not valid string range item"). */
    public boolean parse(byte[] minBuf, int minO, int minL, byte[] maxBuf, int maxO, int maxL) {
        if (minL == 0 || maxL == 0) return false;
        // A "+" or "-" item must be exactly one character; Redis's check stops at a NUL byte.
        byte c = minBuf[minO];
        if (c == '+' || c == '-') {
            if (minL > 1 && minBuf[minO + 1] != 0) return false;
            minKind = c == '+' ? PLUS_INF : MINUS_INF;
            minex = true;
        } else if (c == '(' || c == '[') {
            minKind = STRING;
            minex = c == '(';
            minB = minBuf;
            minOff = minO + 1;
            minLen = minL - 1;
        } else {
            return false;
        }
        c = maxBuf[maxO];
        if (c == '+' || c == '-') {
            if (maxL > 1 && maxBuf[maxO + 1] != 0) return false;
            maxKind = c == '+' ? PLUS_INF : MINUS_INF;
            maxex = true;
        } else if (c == '(' || c == '[') {
            maxKind = STRING;
            maxex = c == '(';
            maxB = maxBuf;
            maxOff = maxO + 1;
            maxLen = maxL - 1;
        } else {
            return false;
        }
        return true;
    }

    /** Drops the references to the arguments, for a range that is kept and reused. */
    void release() {
        minB = null;
        maxB = null;
    }

    /** Compares a member with a bound (Redis's sdscmplex with the value on the left). */
    private static int cmp(byte[] v, int off, int len, int kind, byte[] b, int bOff, int bLen) {
        if (kind == MINUS_INF) return 1;
        if (kind == PLUS_INF) return -1;
        return Arrays.compareUnsigned(v, off, off + len, b, bOff, bOff + bLen);
    }

    public boolean gteMin(byte[] v, int off, int len) {
        int c = cmp(v, off, len, minKind, minB, minOff, minLen);
        return minex ? c > 0 : c >= 0;
    }

    public boolean lteMax(byte[] v, int off, int len) {
        int c = cmp(v, off, len, maxKind, maxB, maxOff, maxLen);
        return maxex ? c < 0 : c <= 0;
    }

    /** Whether no member can be in the range (min above max, or equal with an open end). */
    public boolean isEmpty() {
        int c;
        if (minKind == maxKind && minKind != STRING) {
            c = 0;
        } else if (minKind == MINUS_INF || maxKind == PLUS_INF) {
            c = -1;
        } else if (minKind == PLUS_INF || maxKind == MINUS_INF) {
            c = 1;
        } else {
            c = Arrays.compareUnsigned(minB, minOff, minOff + minLen, maxB, maxOff, maxOff + maxLen);
        }
        return c > 0 || (c == 0 && (minex || maxex));
    }
}
