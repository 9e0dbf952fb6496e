package io.spinel.core.type.zset;

import io.spinel.core.util.Doubles;

import java.nio.charset.StandardCharsets;

/**
 * A score interval of ZRANGEBYSCORE, ZCOUNT, ZREMRANGEBYSCORE... A bound prefixed with "(" is
 * exclusive.
 *
 * <p>Redis parses the bounds with plain {@code strtod} rather than its strict string2d, and this
 * class reproduces that: leading white space is skipped, the text ends at the first NUL byte, an
 * empty text is 0, out-of-range values become ±inf or 0 instead of errors. Only NaN and trailing
 * garbage are rejected.
 */
public final class ScoreRange {
    public double min;
    public double max;
    public boolean minex;
    public boolean maxex;

    /** Parses both bounds; returns false (Redis's "min or max is not a float") on bad input. */
    public boolean parse(byte[] minB, int minOff, int minLen, byte[] maxB, int maxOff, int maxLen) {
        minex = minLen > 0 && minB[minOff] == '(';
        min = strtodWhole(minB, minex ? minOff + 1 : minOff, minex ? minLen - 1 : minLen);
        if (Double.isNaN(min)) return false;
        maxex = maxLen > 0 && maxB[maxOff] == '(';
        max = strtodWhole(maxB, maxex ? maxOff + 1 : maxOff, maxex ? maxLen - 1 : maxLen);
        return !Double.isNaN(max);
    }

    public boolean gteMin(double v) {
        return minex ? v > min : v >= min;
    }

    public boolean lteMax(double v) {
        return maxex ? v < max : v <= max;
    }

    /** Whether no score can be in the range. */
    public boolean isEmpty() {
        return min > max || (min == max && (minex || maxex));
    }

    // ---- strtod ---------------------------------------------------------------------------------

    private static boolean isSpace(byte c) {
        return c == ' ' || c == '\t' || c == '\n' || c == 0x0b || c == '\f' || c == '\r';
    }

    private static boolean isDigit(byte c) {
        return c >= '0' && c <= '9';
    }

    private static boolean isHexDigit(byte c) {
        return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }

    /**
     * strtod over the C string in b[off, off+len) (cut at the first NUL), requiring that the whole
     * string be consumed. Returns NaN for anything Redis rejects (including a parsed NaN).
     */
    static double strtodWhole(byte[] b, int off, int len) {
        int end = off;
        int limit = off + len;
        while (end < limit && b[end] != 0) end++;
        if (end == off) return 0.0; // nothing converted and nothing left: strtod("") is 0
        int i = off;
        while (i < end && isSpace(b[i])) i++;
        if (i == end) return Double.NaN;
        int start = i;
        boolean neg = false;
        if (b[i] == '+' || b[i] == '-') {
            neg = b[i] == '-';
            i++;
        }
        int rest = end - i;
        if (rest == 3 && matches(b, i, "inf") || rest == 8 && matches(b, i, "infinity")) {
            return neg ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
        }
        if (rest >= 3 && b[i] == '0' && (b[i + 1] == 'x' || b[i + 1] == 'X')) {
            return hex(b, i + 2, end, neg);
        }
        int j = i;
        boolean digits = false;
        while (j < end && isDigit(b[j])) {
            j++;
            digits = true;
        }
        if (j < end && b[j] == '.') {
            j++;
            while (j < end && isDigit(b[j])) {
                j++;
                digits = true;
            }
        }
        if (!digits) return Double.NaN;
        if (j < end && (b[j] == 'e' || b[j] == 'E')) {
            j++;
            if (j < end && (b[j] == '+' || b[j] == '-')) j++;
            if (j == end || !isDigit(b[j])) return Double.NaN;
            while (j < end && isDigit(b[j])) j++;
        }
        if (j != end) return Double.NaN;
        double fast = Doubles.fastDecimal(b, i, end, neg); // the usual bounds, without a String
        if (!Double.isNaN(fast)) return fast;
        // Java's parser rounds correctly like glibc's, overflowing to infinity and underflowing to 0
        return Double.parseDouble(new String(b, start, end - start, StandardCharsets.ISO_8859_1));
    }

    private static boolean matches(byte[] b, int i, String lower) {
        for (int k = 0; k < lower.length(); k++) {
            if ((b[i + k] | 0x20) != lower.charAt(k)) return false;
        }
        return true;
    }

    private static double hex(byte[] b, int i, int end, boolean neg) {
        int j = i;
        boolean digits = false;
        while (j < end && isHexDigit(b[j])) {
            j++;
            digits = true;
        }
        if (j < end && b[j] == '.') {
            j++;
            while (j < end && isHexDigit(b[j])) {
                j++;
                digits = true;
            }
        }
        if (!digits) return Double.NaN;
        String mantissa = new String(b, i, j - i, StandardCharsets.ISO_8859_1);
        String exp = "0";
        if (j < end && (b[j] == 'p' || b[j] == 'P')) {
            int k = j + 1;
            if (k < end && (b[k] == '+' || b[k] == '-')) k++;
            if (k == end || !isDigit(b[k])) return Double.NaN;
            while (k < end && isDigit(b[k])) k++;
            if (k != end) return Double.NaN;
            exp = new String(b, j + 1, end - j - 1, StandardCharsets.ISO_8859_1);
        } else if (j != end) {
            return Double.NaN;
        }
        if (mantissa.equals(".")) return Double.NaN;
        return Double.parseDouble((neg ? "-0x" : "0x") + mantissa + "p" + exp);
    }
}
