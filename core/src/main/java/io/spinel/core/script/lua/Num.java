package io.spinel.core.script.lua;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * Numbers as C and glibc treat them, which is what Redis's Lua shows: strtod parsing (hex,
 * "inf", "nan", leading spaces), %.14g printing, printf conversions for string.format, and the
 * x86 results of C casts from double to integers.
 */
public final class Num {
    private Num() {
    }

    /** The NaN x86 arithmetic produces (0/0, inf-inf): sign bit set, printed "-nan". */
    public static final double DEFAULT_NAN = Double.longBitsToDouble(0xfff8000000000000L);

    // ---- casts ----------------------------------------------------------------------------------

    /** (int) d as x86 code does it: out of range and NaN give INT_MIN. */
    public static int cInt(double d) {
        if (d != d || d >= 2147483648.0 || d <= -2147483649.0) return Integer.MIN_VALUE;
        return (int) d;
    }

    /** (long) d as x86 code does it: out of range and NaN give LONG_MIN. */
    public static long cLong(double d) {
        if (d != d || d >= 9.223372036854775807E18 || d < -9.223372036854775808E18) return Long.MIN_VALUE;
        return (long) d;
    }

    /** (unsigned long) d as gcc compiles it on x86-64. */
    public static long cULong(double d) {
        // the compiled comparison sends NaN (unordered) down the signed conversion too
        if (d != d || d < 9.223372036854775807E18) return cLong(d);
        return cLong(d - 9.223372036854775807E18) ^ Long.MIN_VALUE;
    }

    /** (unsigned int) d: through a 64-bit conversion, as gcc does it. */
    public static int cUInt(double d) {
        return (int) cLong(d);
    }

    // ---- parsing --------------------------------------------------------------------------------

    static boolean isSpace(int c) {
        return c == ' ' || (c >= '\t' && c <= '\r');
    }

    /**
     * glibc strtod over b[from..to): returns the value and sets end[0] to the index after the
     * parsed part (end[0] == from when nothing was parsed).
     */
    static double strtod(byte[] b, int from, int to, int[] end) {
        int p = from;
        while (p < to && isSpace(b[p])) p++;
        boolean neg = false;
        int start = p;
        if (p < to && (b[p] == '+' || b[p] == '-')) {
            neg = b[p] == '-';
            p++;
        }
        // inf / infinity / nan
        if (p < to && (b[p] == 'i' || b[p] == 'I' || b[p] == 'n' || b[p] == 'N')) {
            if (matchWord(b, p, to, "infinity")) {
                end[0] = p + 8;
                return neg ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
            }
            if (matchWord(b, p, to, "inf")) {
                end[0] = p + 3;
                return neg ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
            }
            if (matchWord(b, p, to, "nan")) {
                int q = p + 3;
                if (q < to && b[q] == '(') {
                    int r = q + 1;
                    while (r < to && (Character.isLetterOrDigit(b[r]) || b[r] == '_')) r++;
                    if (r < to && b[r] == ')') q = r + 1;
                }
                end[0] = q;
                return neg ? DEFAULT_NAN : -DEFAULT_NAN;
            }
            end[0] = from;
            return 0;
        }
        if (p + 1 < to && b[p] == '0' && (b[p + 1] == 'x' || b[p + 1] == 'X')) {
            int q = p + 2;
            StringBuilder mant = new StringBuilder();
            boolean digits = false;
            while (q < to && hexDigit(b[q]) >= 0) {
                mant.append((char) b[q++]);
                digits = true;
            }
            if (q < to && b[q] == '.') {
                int q2 = q + 1;
                StringBuilder frac = new StringBuilder();
                while (q2 < to && hexDigit(b[q2]) >= 0) frac.append((char) b[q2++]);
                if (digits || frac.length() > 0) {
                    mant.append('.').append(frac);
                    digits = true;
                    q = q2;
                }
            }
            if (!digits) {
                // "0x" alone: strtod parses the 0 and stops at the x
                end[0] = p + 1;
                return neg ? -0.0 : 0.0;
            }
            int exp = 0;
            if (q < to && (b[q] == 'p' || b[q] == 'P')) {
                int q2 = q + 1;
                boolean eneg = false;
                if (q2 < to && (b[q2] == '+' || b[q2] == '-')) {
                    eneg = b[q2] == '-';
                    q2++;
                }
                if (q2 < to && b[q2] >= '0' && b[q2] <= '9') {
                    long e = 0;
                    while (q2 < to && b[q2] >= '0' && b[q2] <= '9') {
                        if (e < 100000) e = e * 10 + (b[q2] - '0');
                        q2++;
                    }
                    exp = (int) (eneg ? -e : e);
                    q = q2;
                }
            }
            end[0] = q;
            double v = Double.parseDouble("0x" + mant + "p" + exp);
            return neg ? -v : v;
        }
        int q = p;
        int digitsStart = q;
        while (q < to && b[q] >= '0' && b[q] <= '9') q++;
        int intDigits = q - digitsStart;
        int fracDigits = 0;
        if (q < to && b[q] == '.') {
            int q2 = q + 1;
            while (q2 < to && b[q2] >= '0' && b[q2] <= '9') q2++;
            fracDigits = q2 - q - 1;
            if (intDigits > 0 || fracDigits > 0) q = q2;
        }
        if (intDigits == 0 && fracDigits == 0) {
            end[0] = from;
            return 0;
        }
        if (q < to && (b[q] == 'e' || b[q] == 'E')) {
            int q2 = q + 1;
            if (q2 < to && (b[q2] == '+' || b[q2] == '-')) q2++;
            if (q2 < to && b[q2] >= '0' && b[q2] <= '9') {
                while (q2 < to && b[q2] >= '0' && b[q2] <= '9') q2++;
                q = q2;
            }
        }
        end[0] = q;
        String s = new String(b, start, q - start, java.nio.charset.StandardCharsets.ISO_8859_1);
        try {
            return Double.parseDouble(s);
        } catch (NumberFormatException e) {
            return parseLongExponent(s);
        }
    }

    /** Exponents too long for Java's parser: huge means overflow or underflow. */
    private static double parseLongExponent(String s) {
        BigDecimal bd;
        try {
            bd = new BigDecimal(s);
        } catch (NumberFormatException | ArithmeticException e) {
            boolean neg = s.startsWith("-");
            int ei = Math.max(s.indexOf('e'), s.indexOf('E'));
            boolean negExp = ei >= 0 && ei + 1 < s.length() && s.charAt(ei + 1) == '-';
            boolean zeroMant = s.substring(0, ei < 0 ? s.length() : ei).replaceAll("[^1-9]", "").isEmpty();
            double r = negExp || zeroMant ? 0.0 : Double.POSITIVE_INFINITY;
            return neg ? -r : r;
        }
        return bd.doubleValue();
    }

    private static boolean matchWord(byte[] b, int p, int to, String w) {
        if (to - p < w.length()) return false;
        for (int i = 0; i < w.length(); i++) {
            if (Character.toLowerCase((char) b[p + i]) != w.charAt(i)) return false;
        }
        return true;
    }

    static int hexDigit(int c) {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    }

    /**
     * Lua's luaO_str2d: the whole string (up to an embedded NUL, as C sees it) must be a number,
     * surrounded by optional white space. Returns null when it is not one.
     */
    public static Double str2d(LuaString s) {
        byte[] b = s.bytes;
        int to = b.length;
        for (int i = 0; i < to; i++) {
            if (b[i] == 0) {
                to = i;
                break;
            }
        }
        int[] end = new int[1];
        double v = strtod(b, 0, to, end);
        int e = end[0];
        if (e == 0) return null;
        if (e < to && (b[e] == 'x' || b[e] == 'X')) {
            // strtoul(s, 16) over the same text
            long[] r = new long[1];
            e = strtoul16(b, 0, to, r);
            v = unsignedToDouble(r[0]);
        }
        while (e < to && isSpace(b[e])) e++;
        if (e != to) return null;
        return v;
    }

    /** strtoul(s, &end, 16): returns end; ULONG_MAX on overflow; negation as unsigned. */
    private static int strtoul16(byte[] b, int from, int to, long[] out) {
        int p = from;
        while (p < to && isSpace(b[p])) p++;
        boolean neg = false;
        if (p < to && (b[p] == '+' || b[p] == '-')) {
            neg = b[p] == '-';
            p++;
        }
        if (p + 1 < to && b[p] == '0' && (b[p + 1] == 'x' || b[p + 1] == 'X') && p + 2 < to && hexDigit(b[p + 2]) >= 0) {
            p += 2;
        }
        int start = p;
        long v = 0;
        boolean overflow = false;
        while (p < to && hexDigit(b[p]) >= 0) {
            if ((v >>> 60) != 0) overflow = true;
            v = (v << 4) | hexDigit(b[p]);
            p++;
        }
        if (p == start) {
            out[0] = 0;
            return from;
        }
        out[0] = overflow ? -1L : (neg ? -v : v);
        return p;
    }

    static double unsignedToDouble(long v) {
        if (v >= 0) return v;
        return new BigDecimal(new BigInteger(Long.toUnsignedString(v))).doubleValue();
    }

    // ---- printing -------------------------------------------------------------------------------

    /** Lua's tostring for numbers: "%.14g". */
    public static String fmt14g(double v) {
        if (v == (long) v && Math.abs(v) < 1e14) {
            if (v == 0 && Double.doubleToRawLongBits(v) != 0) return "-0";
            return Long.toString((long) v);
        }
        return fmtG(v, 14, false, false);
    }

    /** "%.17g" (redis.call arguments from numbers). */
    public static String fmt17g(double v) {
        if (v == (long) v && Math.abs(v) < 1e15) {
            if (v == 0 && Double.doubleToRawLongBits(v) != 0) return "-0";
            return Long.toString((long) v);
        }
        return fmtG(v, 17, false, false);
    }

    static String special(double v, boolean upper) {
        String s;
        if (Double.isNaN(v)) s = (Double.doubleToRawLongBits(v) < 0 ? "-nan" : "nan");
        else s = v < 0 ? "-inf" : "inf";
        return upper ? s.toUpperCase() : s;
    }

    /** C's %.{prec}g without flags (no sign padding). */
    public static String fmtG(double v, int prec, boolean upper, boolean alt) {
        if (Double.isNaN(v) || Double.isInfinite(v)) return special(v, upper);
        if (prec == 0) prec = 1;
        boolean neg = v < 0 || (v == 0 && Double.doubleToRawLongBits(v) != 0);
        double a = Math.abs(v);
        String body;
        if (a == 0) {
            body = alt ? "0." + "0".repeat(prec - 1) : "0";
        } else {
            BigDecimal bd = new BigDecimal(a).round(new MathContext(prec, RoundingMode.HALF_EVEN));
            int x = bd.precision() - bd.scale() - 1; // exponent of the rounded value
            if (x < -4 || x >= prec) {
                body = expForm(bd, prec - 1, x, upper);
                if (!alt) body = stripExpZeros(body);
            } else {
                body = bd.setScale(Math.max(0, prec - 1 - x), RoundingMode.HALF_EVEN).toPlainString();
                if (alt) {
                    if (body.indexOf('.') < 0) body = body + ".";
                } else {
                    body = stripZeros(body);
                }
            }
        }
        return neg ? "-" + body : body;
    }

    private static String stripZeros(String s) {
        if (s.indexOf('.') < 0) return s;
        int e = s.length();
        while (e > 0 && s.charAt(e - 1) == '0') e--;
        if (e > 0 && s.charAt(e - 1) == '.') e--;
        return s.substring(0, e);
    }

    private static String stripExpZeros(String s) {
        int ei = s.indexOf('e');
        if (ei < 0) ei = s.indexOf('E');
        return stripZeros(s.substring(0, ei)) + s.substring(ei);
    }

    /** d.ddd e±XX of a value already rounded to digits+1 significant digits. */
    private static String expForm(BigDecimal rounded, int digits, int x, boolean upper) {
        String u = rounded.unscaledValue().toString();
        // exactly digits+1 significant digits
        if (u.length() < digits + 1) u = u + "0".repeat(digits + 1 - u.length());
        else if (u.length() > digits + 1) u = u.substring(0, digits + 1);
        StringBuilder sb = new StringBuilder();
        sb.append(u.charAt(0));
        if (digits > 0) sb.append('.').append(u, 1, digits + 1);
        sb.append(upper ? 'E' : 'e').append(x < 0 ? '-' : '+');
        int ax = Math.abs(x);
        if (ax < 10) sb.append('0');
        sb.append(ax);
        return sb.toString();
    }

    /** C's %.{prec}e body (no sign). */
    static String fmtE(double a, int prec, boolean upper, boolean alt) {
        if (a == 0) {
            String s = "0" + (prec > 0 ? "." + "0".repeat(prec) : (alt ? "." : "")) + (upper ? "E+00" : "e+00");
            return s;
        }
        BigDecimal bd = new BigDecimal(a).round(new MathContext(prec + 1, RoundingMode.HALF_EVEN));
        int x = bd.precision() - bd.scale() - 1;
        String s = expForm(bd, prec, x, upper);
        if (alt && prec == 0) s = s.charAt(0) + "." + s.substring(1);
        return s;
    }

    /** C's %.{prec}f body (no sign). */
    static String fmtF(double a, int prec, boolean alt) {
        String s = new BigDecimal(a).setScale(prec, RoundingMode.HALF_EVEN).toPlainString();
        if (alt && prec == 0) s = s + ".";
        return s;
    }

    /**
     * One printf conversion as glibc performs it: flags from "-+ #0", width, precision (-1 when
     * absent), conversion one of d i o u x X e E f g G c s.
     */
    public static String printf(String flags, int width, int prec, char conv, Object arg) {
        boolean left = flags.indexOf('-') >= 0;
        boolean plus = flags.indexOf('+') >= 0;
        boolean space = flags.indexOf(' ') >= 0;
        boolean alt = flags.indexOf('#') >= 0;
        boolean zero = flags.indexOf('0') >= 0 && !left;
        String sign = "";
        String body;
        boolean numeric = true;
        switch (conv) {
            case 'd':
            case 'i': {
                long v = (Long) arg;
                String digits = v < 0 ? (v == Long.MIN_VALUE ? "9223372036854775808" : Long.toString(-v)) : Long.toString(v);
                if (prec >= 0) {
                    zero = false;
                    if (prec == 0 && v == 0) digits = "";
                    if (digits.length() < prec) digits = "0".repeat(prec - digits.length()) + digits;
                }
                sign = v < 0 ? "-" : plus ? "+" : space ? " " : "";
                body = digits;
                break;
            }
            case 'o':
            case 'u':
            case 'x':
            case 'X': {
                long v = (Long) arg;
                String digits;
                if (conv == 'o') digits = Long.toOctalString(v);
                else if (conv == 'u') digits = Long.toUnsignedString(v);
                else digits = Long.toHexString(v);
                if (conv == 'X') digits = digits.toUpperCase();
                if (prec >= 0) {
                    zero = false;
                    if (prec == 0 && v == 0) digits = "";
                    if (digits.length() < prec) digits = "0".repeat(prec - digits.length()) + digits;
                }
                if (alt && conv == 'o' && !digits.startsWith("0")) digits = "0" + digits;
                if (alt && (conv == 'x' || conv == 'X') && v != 0) sign = conv == 'x' ? "0x" : "0X";
                body = digits;
                break;
            }
            case 'e':
            case 'E':
            case 'f':
            case 'g':
            case 'G': {
                double v = (Double) arg;
                boolean neg = v < 0 || (v == 0 && Double.doubleToRawLongBits(v) != 0)
                        || (Double.isNaN(v) && Double.doubleToRawLongBits(v) < 0);
                double a = Math.abs(v);
                boolean upper = conv == 'E' || conv == 'G';
                if (Double.isNaN(v) || Double.isInfinite(v)) {
                    body = special(a, upper);
                    zero = false;
                } else if (conv == 'e' || conv == 'E') {
                    body = fmtE(a, prec < 0 ? 6 : prec, upper, alt);
                } else if (conv == 'f') {
                    body = fmtF(a, prec < 0 ? 6 : prec, alt);
                } else {
                    body = fmtG(a, prec < 0 ? 6 : prec, upper, alt);
                }
                sign = neg ? "-" : plus ? "+" : space ? " " : "";
                break;
            }
            case 'c': {
                numeric = false;
                body = String.valueOf((char) (((Long) arg).intValue() & 0xFF));
                break;
            }
            case 's': {
                numeric = false;
                String s = (String) arg;
                if (prec >= 0 && s.length() > prec) s = s.substring(0, prec);
                body = s;
                break;
            }
            default:
                throw new IllegalArgumentException("conversion " + conv);
        }
        int len = sign.length() + body.length();
        if (len >= width) return sign + body;
        int pad = width - len;
        if (left) return sign + body + " ".repeat(pad);
        if (zero && numeric) return sign + "0".repeat(pad) + body;
        return " ".repeat(pad) + sign + body;
    }
}
