package io.spinel.core.type.geo;

import java.math.BigDecimal;
import java.math.MathContext;

/**
 * Correctly rounded sine, cosine and arcsine for the distance formula.
 *
 * <p>Redis computes distances with the C library's {@code sin}, {@code cos} and {@code asin}; glibc
 * returns the correctly rounded result for all but about one input in a thousand, whereas Java's
 * {@code Math.asin} (fdlibm) differs from it in about one input in twenty. Distances reach users
 * as full doubles (the scores GEORADIUS STOREDIST writes), so the functions here evaluate in
 * double-double arithmetic (about 100 significant bits) and round once at the end, which makes
 * them agree with glibc wherever glibc is itself correctly rounded.
 *
 * <p>Arguments are reduced by a four-part pi/2 (Cody and Waite) up to 2^19 in magnitude, which
 * covers every angle the geo code produces from valid coordinates; larger ones (the bounding box
 * of an absurd radius) use {@link StrictMath}, where only the sign of the result matters.
 */
final class GeoMath {
    private GeoMath() {
    }

    private static final int TERMS = 15;
    /** Terms from this one down are summed in double-double. */
    private static final int DD_FROM = 8;
    /** (-1)^n / (2n+1)! as double-double: the sine's Taylor coefficients. */
    private static final double[] SIN_HI = new double[TERMS], SIN_LO = new double[TERMS];
    /** (-1)^n / (2n)!: the cosine's. */
    private static final double[] COS_HI = new double[TERMS], COS_LO = new double[TERMS];
    private static final double PIO2_1, PIO2_2, PIO2_3, PIO2_4;
    private static final double TWO_OVER_PI;
    private static final double REDUCTION_LIMIT = 0x1p19;

    static {
        MathContext mc = new MathContext(60);
        BigDecimal fact = BigDecimal.ONE;
        for (int i = 1; i <= 2 * TERMS; i++) {
            BigDecimal c = BigDecimal.ONE.divide(fact, mc);
            if (((i - 1) / 2) % 2 == 1) c = c.negate();
            int n = (i - 1) / 2;
            if ((i - 1) % 2 == 0) split(c, COS_HI, COS_LO, n);
            else split(c, SIN_HI, SIN_LO, n);
            fact = fact.multiply(BigDecimal.valueOf(i));
        }
        BigDecimal halfPi = new BigDecimal("1.5707963267948966192313216916397514420985846996875529104874722961539082031431"
                + "044993140174126710585339159");
        PIO2_1 = keep33Bits(halfPi.doubleValue());
        BigDecimal rest = halfPi.subtract(new BigDecimal(PIO2_1));
        PIO2_2 = keep33Bits(rest.doubleValue());
        rest = rest.subtract(new BigDecimal(PIO2_2));
        PIO2_3 = rest.doubleValue();
        rest = rest.subtract(new BigDecimal(PIO2_3));
        PIO2_4 = rest.doubleValue();
        TWO_OVER_PI = BigDecimal.ONE.divide(halfPi, mc).doubleValue();
    }

    private static void split(BigDecimal v, double[] hi, double[] lo, int n) {
        hi[n] = v.doubleValue();
        lo[n] = v.subtract(new BigDecimal(hi[n])).doubleValue();
    }

    /** The value with its significand cut to 33 bits, so products with integers below 2^20 are exact. */
    private static double keep33Bits(double d) {
        return Double.longBitsToDouble(Double.doubleToRawLongBits(d) & ~((1L << 20) - 1));
    }

    static double sin(double x) {
        if (Double.isNaN(x) || Double.isInfinite(x)) return Double.NaN;
        if (x == 0) return x;
        if (Math.abs(x) >= REDUCTION_LIMIT) return StrictMath.sin(x);
        return -reduceAndEvaluate(x, false, 0);
    }

    static double cos(double x) {
        if (Double.isNaN(x) || Double.isInfinite(x)) return Double.NaN;
        if (Math.abs(x) >= REDUCTION_LIMIT) return StrictMath.cos(x);
        return -reduceAndEvaluate(x, true, 0);
    }

    static double asin(double x) {
        if (!(Math.abs(x) <= 1)) return Double.NaN;
        if (x == 0) return x;
        double ax = Math.abs(x);
        if (ax == 1) return Math.copySign(Math.PI / 2, x);
        // a start within a few ulps (Math.asin is several times slower than Math.atan)
        double y0 = Math.atan(ax / Math.sqrt((1 - ax) * (1 + ax)));
        // one Newton step on sin(y) = ax from a result already within an ulp or two: the
        // residual is computed in double-double, so the step lands within a tiny fraction of an
        // ulp of the true arcsine before the final rounding
        double residual = reduceAndEvaluate(y0, false, ax);
        double y = y0 + residual / Math.cos(y0);
        return Math.copySign(y, x);
    }

    /**
     * {@code target - f(x)} with f = sin or cos, evaluated in double-double and rounded once
     * (callers wanting f(x) pass 0 and negate, which is exact).
     */
    private static double reduceAndEvaluate(double x, boolean cosine, double target) {
        double rh, rl;
        int quadrant;
        if (Math.abs(x) <= Math.PI / 4) {
            rh = x;
            rl = 0;
            quadrant = 0;
        } else {
            double k = Math.rint(x * TWO_OVER_PI);
            double t = x - k * PIO2_1; // exact
            double p2 = k * PIO2_2; // exact
            double s = t - p2;
            double err = twoSumErr(t, -p2, s);
            double p3 = k * PIO2_3;
            double p3e = Math.fma(k, PIO2_3, -p3);
            double s2 = s - p3;
            err += twoSumErr(s, -p3, s2) - p3e - k * PIO2_4;
            rh = s2 + err;
            rl = err - (rh - s2);
            quadrant = (int) k & 3;
        }
        // sin(x) and cos(x) as +-sin(r) or +-cos(r)
        boolean useCos = cosine ^ (quadrant & 1) == 1;
        boolean negative = cosine ? (quadrant == 1 || quadrant == 2) : quadrant >= 2;
        double z = rh * rh;
        double zl = Math.fma(rh, rh, -z);
        double[] ch = useCos ? COS_HI : SIN_HI;
        double[] cl = useCos ? COS_LO : SIN_LO;
        // the highest terms are below 2^-100 of the result after scaling by z^n: plain doubles
        double q = ch[TERMS - 1];
        for (int n = TERMS - 2; n > DD_FROM; n--) q = q * z + ch[n];
        double ph = q, pl = 0;
        for (int n = DD_FROM; n >= 0; n--) {
            // p = p * z + c[n], in double-double
            double m = ph * z;
            double me = Math.fma(ph, z, -m) + (ph * zl + pl * z);
            double s = m + ch[n];
            double e = twoSumErr(m, ch[n], s) + me + cl[n];
            ph = s + e;
            pl = e - (ph - s);
        }
        double vh, vl;
        // the reduction's low part enters to first order, which needs the other function only to
        // double precision: short series are accurate enough for |r| <= pi/4
        if (useCos) {
            // cos(rh + rl) = cos(rh) - rl sin(rh)
            vh = ph;
            vl = pl - rl * (rh * (1 - z * (1.0 / 6 - z * (1.0 / 120 - z * (1.0 / 5040 - z / 362880)))));
        } else {
            // sin(rh + rl) = rh * poly + rl cos(rh)
            vh = ph * rh;
            vl = Math.fma(ph, rh, -vh) + pl * rh
                    + rl * (1 - z * (0.5 - z * (1.0 / 24 - z * (1.0 / 720 - z / 40320))));
        }
        if (negative) {
            vh = -vh;
            vl = -vl;
        }
        double d = target - vh;
        double de = twoSumErr(target, -vh, d) - vl;
        return d + de;
    }

    /** The rounding error of s = a + b (Knuth's TwoSum). */
    private static double twoSumErr(double a, double b, double s) {
        double bb = s - a;
        return (a - (s - bb)) + (b - bb);
    }
}
