package io.spinel.core.util;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;

/**
 * Emulation of the x87 80-bit {@code long double} that Redis uses for INCRBYFLOAT and HINCRBYFLOAT:
 * values carry a 64-bit mantissa, each parse and each addition rounds to nearest-even at 64 bits,
 * and results print as {@code %.17Lf} with trailing zeros removed. Doing the same arithmetic with a
 * Java double would print "10.59999999999999964" where Redis prints "10.6".
 *
 * <p>Values are held as exact BigDecimals that are always representable in 64 mantissa bits. This
 * is slow next to a double: {@link Float80} computes the same with integer arithmetic for the
 * commands, and comes back here for what it does not cover; this class is its reference.
 */
public final class LongDouble {
    private LongDouble() {
    }

    /** Largest finite 80-bit value, about 1.19e4932; beyond it the sum is infinite. */
    private static final BigDecimal MAX = new BigDecimal(
            BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE).shiftLeft(16383 - 63));

    /** Half the smallest subnormal 80-bit value (2^-16446): anything this small rounds to zero. */
    private static final BigDecimal HALF_MIN_SUBNORMAL =
            BigDecimal.ONE.divide(new BigDecimal(BigInteger.ONE.shiftLeft(16446)));

    /**
     * Parses as Redis's string2ld (strtold over the whole slice, no leading space, no NaN, at most
     * 5119 characters). Infinity parses (to null here) because Redis then reports the increment as
     * producing NaN or Infinity rather than as not-a-float.
     *
     * @return the rounded value, or null for ±infinity
     * @throws NumberFormatException (stackless) when the slice is not a float, or its value is out
     *     of the 80-bit range (too large, or so small it rounds to zero)
     */
    public static BigDecimal parse(byte[] b, int off, int len) {
        if (len == 0 || len >= 5120) throw Bytes.NotANumber.INSTANCE;
        double syntax = Doubles.parseStrtodSyntaxOnly(b, off, len);
        if (Double.isNaN(syntax)) throw Bytes.NotANumber.INSTANCE;
        if (Double.isInfinite(syntax)) return null;
        String s = new String(b, off, len, StandardCharsets.ISO_8859_1);
        BigDecimal exact;
        int i = (s.charAt(0) == '+' || s.charAt(0) == '-') ? 1 : 0;
        if (s.length() > i + 1 && s.charAt(i) == '0' && (s.charAt(i + 1) == 'x' || s.charAt(i + 1) == 'X')) {
            exact = new BigDecimal(syntax);
        } else {
            exact = new BigDecimal(s.charAt(0) == '+' ? s.substring(1) : s);
        }
        // strtold sets ERANGE when the value overflows to ±HUGE_VALL or underflows to zero, and
        // string2ld rejects both as not a float (a literal "inf" is accepted above)
        if (exact.signum() != 0 && exact.precision() - exact.scale() < -4900
                && exact.abs().compareTo(HALF_MIN_SUBNORMAL) <= 0) {
            throw Bytes.NotANumber.INSTANCE;
        }
        BigDecimal r = round64(exact);
        if (r.abs().compareTo(MAX) > 0) throw Bytes.NotANumber.INSTANCE;
        return r;
    }

    public static BigDecimal fromLong(long v) {
        return BigDecimal.valueOf(v); // every long fits in 64 mantissa bits
    }

    /** a + b rounded to the 80-bit format; null when the sum overflows. */
    public static BigDecimal add(BigDecimal a, BigDecimal b) {
        BigDecimal r = round64(a.add(b));
        return r.abs().compareTo(MAX) > 0 ? null : r;
    }

    /** %.17Lf with trailing zeros (and a trailing dot) removed: Redis's LD_STR_HUMAN. */
    public static String formatHuman(BigDecimal v) {
        String s = v.setScale(17, RoundingMode.HALF_EVEN).toPlainString();
        int end = s.length();
        while (s.charAt(end - 1) == '0') end--;
        if (s.charAt(end - 1) == '.') end--;
        s = s.substring(0, end);
        return s.equals("-0") ? "-0" : s;
    }

    /** Rounds an exact value to the nearest number with a 64-bit mantissa, ties to even. */
    static BigDecimal round64(BigDecimal x) {
        if (x.signum() == 0) return BigDecimal.ZERO;
        return roundBits(x).toBigDecimal().stripTrailingZeros();
    }

    /** The same rounding, as a {@link Float80}. */
    static Float80 roundBits(BigDecimal x) {
        if (x.signum() == 0) return Float80.ZERO;
        BigInteger num = x.unscaledValue().abs();
        BigInteger den = BigInteger.ONE;
        if (x.scale() > 0) den = BigInteger.TEN.pow(x.scale());
        else if (x.scale() < 0) num = num.multiply(BigInteger.TEN.pow(-x.scale()));
        // choose e so that num / den / 2^e has 64 integer bits
        int e = num.bitLength() - den.bitLength() - 64;
        BigInteger q;
        BigInteger rem;
        BigInteger d;
        while (true) {
            BigInteger n = e < 0 ? num.shiftLeft(-e) : num;
            d = e > 0 ? den.shiftLeft(e) : den;
            BigInteger[] qr = n.divideAndRemainder(d);
            q = qr[0];
            rem = qr[1];
            int bits = q.bitLength();
            if (bits > 64) {
                e++;
            } else if (bits < 64) {
                e--;
            } else {
                break;
            }
        }
        int cmp = rem.shiftLeft(1).compareTo(d);
        if (cmp > 0 || (cmp == 0 && q.testBit(0))) {
            q = q.add(BigInteger.ONE);
            if (q.bitLength() > 64) {
                q = q.shiftRight(1);
                e++;
            }
        }
        return new Float80(x.signum() < 0, q.longValue(), e);
    }
}
