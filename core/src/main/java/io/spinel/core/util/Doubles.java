package io.spinel.core.util;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;

/**
 * Parsing and printing of floating point numbers the way Redis does it with the C library: strtod's
 * syntax (decimal, hex, inf, infinity) and printf's {@code %.17g}, so that scores and float replies
 * are byte-identical to Redis's.
 */
public final class Doubles {
    private Doubles() {
    }

    private static final MathContext SEVENTEEN_DIGITS = new MathContext(17, RoundingMode.HALF_EVEN);

    /**
     * Parses a double as Redis's string2d does (strtod, whole slice, no leading space, no NaN, no
     * overflow to infinity or underflow to zero).
     *
     * @throws NumberFormatException (stackless) when the slice is not such a number
     */
    public static double parse(byte[] b, int off, int len) {
        double v = parseStrtod(b, off, len, true);
        if (Double.isNaN(v)) throw Bytes.NotANumber.INSTANCE;
        return v;
    }

    /** Like {@link #parse} but returns NaN instead of throwing. */
    public static double parseOrNaN(byte[] b, int off, int len) {
        return parseStrtod(b, off, len, true);
    }

    /**
     * Validates strtod syntax without the double's range limits (a long double reaches 1e4932):
     * NaN when invalid, ±infinity for the inf literals, the value for hex, 1.0 for valid decimals.
     */
    static double parseStrtodSyntaxOnly(byte[] b, int off, int len) {
        return parseStrtod(b, off, len, false);
    }

    /**
     * C's {@code strtod(s, NULL)} where Redis ignores where the number ends (DEBUG SLEEP): leading
     * white space skipped, then the longest prefix that reads as a number (decimal, hex, infinity
     * or NaN); 0 when none does ("abc", "", "0.5x" reads 0.5).
     */
    public static double strtodPrefix(byte[] b, int off, int len) {
        int i = off, end = off + len;
        while (i < end && (b[i] == ' ' || (b[i] >= '\t' && b[i] <= '\r'))) i++;
        int start = i;
        boolean neg = false;
        if (i < end && (b[i] == '+' || b[i] == '-')) {
            neg = b[i] == '-';
            i++;
        }
        int rest = end - i;
        if (rest >= 3 && Bytes.equalsIgnoreCase(b, i, 3, "inf")) {
            return neg ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
        }
        if (rest >= 3 && Bytes.equalsIgnoreCase(b, i, 3, "nan")) return Double.NaN;
        if (rest > 2 && b[i] == '0' && (b[i + 1] == 'x' || b[i + 1] == 'X')) {
            int j = hexEnd(b, i + 2, end);
            if (j > i + 2) {
                double v = parseHex(b, i + 2, j, neg);
                return Double.isNaN(v) ? (neg ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY) : v; // too big
            }
            // "0x" with nothing hex after it: strtod reads the 0
        }
        int j = decimalEnd(b, i, end);
        if (j == i) return 0;
        return Double.parseDouble(new String(b, start, j - start, StandardCharsets.ISO_8859_1));
    }

    /** strtod-compatible parser; returns NaN for anything Redis would reject. */
    private static double parseStrtod(byte[] b, int off, int len, boolean doubleRange) {
        if (len == 0 || len > 5000) return Double.NaN;
        int i = off, end = off + len;
        boolean neg = false;
        if (b[i] == '+' || b[i] == '-') {
            neg = b[i] == '-';
            i++;
        }
        if (i == end) return Double.NaN;
        int rest = end - i;
        if (rest == 3 && Bytes.equalsIgnoreCase(b, i, 3, "inf")
                || rest == 8 && Bytes.equalsIgnoreCase(b, i, 8, "infinity")) {
            return neg ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
        }
        if (rest > 2 && b[i] == '0' && (b[i + 1] == 'x' || b[i + 1] == 'X')) {
            return parseHex(b, i + 2, end, neg);
        }
        int j = decimalEnd(b, i, end);
        if (j == i || j != end) return Double.NaN;
        if (!doubleRange) return 1.0;
        double fast = fastDecimal(b, i, end, neg);
        if (!Double.isNaN(fast)) return fast;
        double v = Double.parseDouble(new String(b, off, len, StandardCharsets.ISO_8859_1));
        if (Double.isInfinite(v)) return Double.NaN; // overflow: ERANGE with HUGE_VAL
        if (v == 0 && nonZeroMantissa(b, i, end)) return Double.NaN; // underflow to zero: ERANGE
        return v;
    }

    /**
     * Where the decimal number that starts at i ends, in strtod's syntax: digits, an optional '.'
     * and digits (one digit at least), then an exponent (e, an optional sign, digits) if a whole
     * one follows. i when no number starts there.
     */
    private static int decimalEnd(byte[] b, int i, int end) {
        int j = i;
        boolean anyDigit = false;
        while (j < end && isDigit(b[j])) {
            anyDigit = true;
            j++;
        }
        if (j < end && b[j] == '.') {
            int k = j + 1;
            while (k < end && isDigit(b[k])) {
                anyDigit = true;
                k++;
            }
            if (anyDigit) j = k;
        }
        return anyDigit ? exponentEnd(b, j, end, 'e', 'E') : i;
    }

    /** As {@link #decimalEnd} for a hex float's body after its 0x: hex digits, '.', a binary exponent (p). */
    private static int hexEnd(byte[] b, int i, int end) {
        int j = i;
        boolean anyDigit = false;
        while (j < end && Character.digit(b[j], 16) >= 0) {
            anyDigit = true;
            j++;
        }
        if (j < end && b[j] == '.') {
            int k = j + 1;
            while (k < end && Character.digit(b[k], 16) >= 0) {
                anyDigit = true;
                k++;
            }
            if (anyDigit) j = k;
        }
        return anyDigit ? exponentEnd(b, j, end, 'p', 'P') : i;
    }

    /** Past the exponent at j (the letter, an optional sign, digits) when a whole one is there, else j. */
    private static int exponentEnd(byte[] b, int j, int end, char lower, char upper) {
        if (j < end && (b[j] == lower || b[j] == upper)) {
            int k = j + 1;
            if (k < end && (b[k] == '+' || b[k] == '-')) k++;
            if (k < end && isDigit(b[k])) {
                while (k < end && isDigit(b[k])) k++;
                return k;
            }
        }
        return j;
    }

    /** Whether a digit 1-9 comes before the exponent: a zero result is then an underflow. */
    private static boolean nonZeroMantissa(byte[] b, int i, int end) {
        for (int k = i; k < end && b[k] != 'e' && b[k] != 'E'; k++) {
            if (b[k] >= '1' && b[k] <= '9') return true;
        }
        return false;
    }

    private static final double[] POW10 = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12,
        1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

    /**
     * Clinger's fast path, allocation-free: a decimal of at most 15 significant digits with a
     * power of ten up to 22 is exactly a double times or divided by an exact power of ten, so one
     * correctly rounded operation gives the correctly rounded result. NaN when the input needs
     * the general algorithm. (Scores and floats in commands are almost always this simple.)
     * Only for a slice already checked to be a decimal: digits, an optional '.' and digits, an
     * optional exponent, no sign ({@code neg} carries it).
     */
    public static double fastDecimal(byte[] b, int i, int end, boolean neg) {
        long mantissa = 0;
        int digits = 0;
        int scale = 0;
        boolean dot = false;
        for (; i < end; i++) {
            byte c = b[i];
            if (c == '.') {
                dot = true;
                continue;
            }
            if (c == 'e' || c == 'E') break;
            if (mantissa == 0 && c == '0') {
                if (dot) scale--;
                continue;
            }
            if (++digits > 15) return Double.NaN;
            mantissa = mantissa * 10 + (c - '0');
            if (dot) scale--;
        }
        if (i < end) {
            i++;
            boolean eneg = false;
            if (b[i] == '+' || b[i] == '-') {
                eneg = b[i] == '-';
                i++;
            }
            int e = 0;
            for (; i < end; i++) {
                e = e * 10 + (b[i] - '0');
                if (e > 400) return Double.NaN;
            }
            scale += eneg ? -e : e;
        }
        double v;
        if (mantissa == 0) {
            v = 0.0;
        } else if (scale == 0) {
            v = mantissa;
        } else if (scale > 0 && scale <= 22) {
            v = mantissa * POW10[scale];
        } else if (scale < 0 && scale >= -22) {
            v = mantissa / POW10[-scale];
        } else {
            return Double.NaN;
        }
        return neg ? -v : v;
    }

    /** A hex float's body after its 0x, exactly i..end ({@link #hexEnd}'s syntax); NaN if it is not one or too big. */
    private static double parseHex(byte[] b, int i, int end, boolean neg) {
        int j = hexEnd(b, i, end);
        if (j == i || j != end) return Double.NaN;
        int p = i;
        while (p < end && b[p] != 'p' && b[p] != 'P') p++;
        String mantissa = new String(b, i, p - i, StandardCharsets.ISO_8859_1);
        String exponent = p < end ? new String(b, p + 1, end - p - 1, StandardCharsets.ISO_8859_1) : "0";
        double v = Double.parseDouble((neg ? "-0x" : "0x") + mantissa + "p" + exponent);
        if (Double.isInfinite(v)) return Double.NaN;
        return v;
    }

    static boolean isDigit(byte c) {
        return c >= '0' && c <= '9';
    }

    // ---- printing ------------------------------------------------------------------------------

    /** printf("%.17g", d), as Redis replies doubles (RESP2 bulk or RESP3 double). */
    public static String format17g(double d) {
        if (Double.isNaN(d)) return "nan";
        if (Double.isInfinite(d)) return d > 0 ? "inf" : "-inf";
        if (d == 0) return (1 / d < 0) ? "-0" : "0";
        if (d == Math.rint(d) && Math.abs(d) < 1e17) return Long.toString((long) d);
        BigDecimal bd = new BigDecimal(d).round(SEVENTEEN_DIGITS);
        int exp = bd.precision() - bd.scale() - 1;
        if (exp >= -4 && exp < 17) {
            return stripZeros(bd).toPlainString();
        }
        // exponent form: only the significant digits matter (setScale(0) would expand them with zeros)
        String digits = bd.stripTrailingZeros().unscaledValue().abs().toString();
        StringBuilder sb = new StringBuilder(24);
        if (bd.signum() < 0) sb.append('-');
        sb.append(digits.charAt(0));
        if (digits.length() > 1) sb.append('.').append(digits, 1, digits.length());
        sb.append('e').append(exp < 0 ? '-' : '+');
        int ae = Math.abs(exp);
        if (ae < 10) sb.append('0');
        sb.append(ae);
        return sb.toString();
    }

    private static final double[] POWERS_OF_TEN = {1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};

    /**
     * printf("%.Nf", d) for 0 <= N <= 9, as Redis prints INFO's ratios and times: the exact binary
     * value rounded to N decimals, a tie to even (Java's Formatter rounds the shortest decimal
     * form half up instead: 0.125 gives 0.13 there, 0.12 in C). No Formatter and no BigDecimal
     * for the usual magnitudes: d * 10^N is split into its rounded product and that product's
     * exact error (fma), which decides the rounding where the product sits on a half.
     */
    public static String fixed(double d, int decimals) {
        StringBuilder sb = new StringBuilder(24);
        appendFixed(sb, d, decimals);
        return sb.toString();
    }

    /** {@link #fixed(double, int)} into a builder. */
    public static void appendFixed(StringBuilder sb, double d, int decimals) {
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            sb.append(Double.isNaN(d) ? (Double.doubleToRawLongBits(d) < 0 ? "-nan" : "nan") : d > 0 ? "inf" : "-inf");
            return;
        }
        double scale = POWERS_OF_TEN[decimals];
        double a = Math.abs(d);
        double p = a * scale;
        if (p >= 0x1p52) { // past the exact integers: the slow exact way
            sb.append(new BigDecimal(d).setScale(decimals, RoundingMode.HALF_EVEN).toPlainString());
            return;
        }
        double err = Math.fma(a, scale, -p); // a * scale == p + err exactly
        double r = Math.rint(p);
        double frac = p - r; // exact: p and r are within 0.5 and below 2^52
        if (frac == 0.5 && err > 0) r += 1;
        else if (frac == -0.5 && err < 0) r -= 1;
        long units = (long) r;
        if (Double.doubleToRawLongBits(d) < 0) sb.append('-'); // printf keeps the sign of -0.001 as -0.00
        long whole = units;
        long part = 0;
        if (decimals > 0) {
            long s = (long) scale;
            whole = units / s;
            part = units % s;
        }
        sb.append(whole);
        if (decimals == 0) return;
        sb.append('.');
        for (long t = (long) scale / 10; t > 1 && part < t; t /= 10) sb.append('0');
        sb.append(part);
    }

    private static BigDecimal stripZeros(BigDecimal bd) {
        BigDecimal s = bd.stripTrailingZeros();
        return s.scale() < 0 ? s.setScale(0) : s;
    }

    /**
     * Redis's d2string: integers within the exact range print as integers, everything else as %.17g.
     * Used where Redis turns a double into a stored string (e.g. HINCRBYFLOAT's float part is
     * separate; this one is for scores stored as strings).
     */
    public static String d2string(double d) {
        return format17g(d);
    }

    public static byte[] format17gBytes(double d) {
        return format17g(d).getBytes(StandardCharsets.ISO_8859_1);
    }
}
