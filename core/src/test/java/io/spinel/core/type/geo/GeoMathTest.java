package io.spinel.core.type.geo;

import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The trigonometry must be correctly rounded: checked against 60-digit BigDecimal series, over the
 * argument ranges the distance formula uses and at the awkward spots (near pi/2 multiples, near 1
 * for the arcsine, tiny arguments).
 */
class GeoMathTest {
    private static final MathContext MC = new MathContext(60);

    private static final BigDecimal TWO_PI = new BigDecimal(
            "6.28318530717958647692528676655900576839433879875021164194988918461563281257241799725606965068423413596");

    /** x minus the nearest multiple of 2 pi, so the series converge. */
    private static BigDecimal reduce(BigDecimal x) {
        BigDecimal k = x.divide(TWO_PI, MC).setScale(0, java.math.RoundingMode.HALF_EVEN);
        return x.subtract(k.multiply(TWO_PI, MC), MC);
    }

    private static BigDecimal sin(BigDecimal x) {
        x = reduce(x);
        BigDecimal term = x, sum = x, x2 = x.multiply(x, MC);
        for (int n = 1; n < 200; n++) {
            term = term.multiply(x2, MC).divide(BigDecimal.valueOf((2L * n) * (2L * n + 1)), MC).negate();
            sum = sum.add(term, MC);
            if (term.abs().compareTo(new BigDecimal("1e-58")) < 0) break;
        }
        return sum;
    }

    private static BigDecimal cos(BigDecimal x) {
        x = reduce(x);
        BigDecimal term = BigDecimal.ONE, sum = BigDecimal.ONE, x2 = x.multiply(x, MC);
        for (int n = 1; n < 200; n++) {
            term = term.multiply(x2, MC).divide(BigDecimal.valueOf((2L * n - 1) * (2L * n)), MC).negate();
            sum = sum.add(term, MC);
            if (term.abs().compareTo(new BigDecimal("1e-58")) < 0) break;
        }
        return sum;
    }

    /** asin by Newton's method on the series sine. */
    private static BigDecimal asin(double z) {
        BigDecimal target = new BigDecimal(z);
        BigDecimal y = new BigDecimal(StrictMath.asin(z));
        for (int i = 0; i < 5; i++) y = y.subtract(sin(y).subtract(target, MC).divide(cos(y), MC), MC);
        return y;
    }

    @Test
    void sineAndCosineAreCorrectlyRounded() {
        SplittableRandom rnd = new SplittableRandom(1);
        for (int i = 0; i < 3000; i++) {
            double x = (rnd.nextDouble() * 2 - 1) * 3.2;
            assertThat(GeoMath.sin(x)).as("sin %s", x).isEqualTo(sin(new BigDecimal(x)).doubleValue());
            double y = (rnd.nextDouble() * 2 - 1) * 1.6;
            assertThat(GeoMath.cos(y)).as("cos %s", y).isEqualTo(cos(new BigDecimal(y)).doubleValue());
        }
        // close to multiples of pi/2, where the reduction cancels most bits
        for (double x : new double[] {Math.PI / 2, Math.PI, -Math.PI, Math.nextUp(Math.PI), Math.PI / 4,
            Math.nextDown(Math.PI / 4), 1e-10, -3e-300, Double.MIN_VALUE, 7.0, 100.0, -1000.5}) {
            assertThat(GeoMath.sin(x)).as("sin %s", x).isEqualTo(sin(new BigDecimal(x)).doubleValue());
            assertThat(GeoMath.cos(x)).as("cos %s", x).isEqualTo(cos(new BigDecimal(x)).doubleValue());
        }
    }

    @Test
    void arcsineIsCorrectlyRounded() {
        SplittableRandom rnd = new SplittableRandom(2);
        for (int i = 0; i < 1500; i++) {
            double z = rnd.nextDouble();
            if (i % 3 == 0) z = 1 - z * 1e-6; // the steep end
            if (i % 3 == 1) z = z * 0.05; // short distances
            assertThat(GeoMath.asin(z)).as("asin %s", z).isEqualTo(asin(z).doubleValue());
        }
        assertThat(GeoMath.asin(Math.nextDown(1.0))).isEqualTo(asin(Math.nextDown(1.0)).doubleValue());
    }

    @Test
    void specialValues() {
        assertThat(GeoMath.sin(0.0)).isEqualTo(0.0);
        assertThat(Double.doubleToRawLongBits(GeoMath.sin(-0.0))).isEqualTo(Double.doubleToRawLongBits(-0.0));
        assertThat(GeoMath.cos(0.0)).isEqualTo(1.0);
        assertThat(GeoMath.sin(Double.POSITIVE_INFINITY)).isNaN();
        assertThat(GeoMath.cos(Double.NaN)).isNaN();
        assertThat(GeoMath.asin(1.0)).isEqualTo(Math.PI / 2);
        assertThat(GeoMath.asin(-1.0)).isEqualTo(-Math.PI / 2);
        assertThat(GeoMath.asin(Math.nextUp(1.0))).isNaN();
        assertThat(GeoMath.asin(0.0)).isEqualTo(0.0);
        assertThat(GeoMath.asin(-0.5)).isEqualTo(-GeoMath.asin(0.5));
        // beyond the reduction's range the JDK's function takes over
        assertThat(GeoMath.cos(1e10)).isEqualTo(StrictMath.cos(1e10));
    }

    @Test
    void fastDistanceStaysWithinItsMargin() {
        SplittableRandom rnd = new SplittableRandom(3);
        for (int i = 0; i < 200000; i++) {
            double lon1 = rnd.nextDouble() * 360 - 180, lat1 = rnd.nextDouble() * 170 - 85;
            double lon2, lat2;
            if (i % 4 == 0) {
                // nearly antipodal: the formula's ill-conditioned end
                lon2 = lon1 > 0 ? lon1 - 180 + rnd.nextDouble() * 1e-3 : lon1 + 180 - rnd.nextDouble() * 1e-3;
                lat2 = -lat1 + rnd.nextDouble() * 1e-3;
            } else if (i % 4 == 1) {
                lon2 = lon1 + rnd.nextDouble() * 1e-4;
                lat2 = lat1 + rnd.nextDouble() * 1e-4;
            } else {
                lon2 = rnd.nextDouble() * 360 - 180;
                lat2 = rnd.nextDouble() * 170 - 85;
            }
            double fast = GeoDistance.fast(lon1, lat1, lon2, lat2);
            double exact = GeoDistance.exact(lon1, lat1, lon2, lat2);
            assertThat(Math.abs(fast - exact)).as("%s %s %s %s", lon1, lat1, lon2, lat2)
                    .isLessThanOrEqualTo(GeoDistance.margin(fast));
        }
    }
}
