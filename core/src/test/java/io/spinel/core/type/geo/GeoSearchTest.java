package io.spinel.core.type.geo;

import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/** Reply formatting (Redis's fixed-point and human long double texts) and the sorts. */
class GeoSearchTest {
    @Test
    void humanCoordinatesAreExactSeventeenDecimalsTrimmed() {
        SplittableRandom rnd = new SplittableRandom(1);
        for (int i = 0; i < 20000; i++) {
            double v = (rnd.nextDouble() * 2 - 1) * (i % 2 == 0 ? 200 : 1e-12);
            String want = new BigDecimal(v).setScale(17, RoundingMode.HALF_EVEN).toPlainString();
            want = want.replaceAll("0+$", "").replaceAll("\\.$", "");
            if (want.equals("-0")) want = "0";
            assertThat(GeoSearch.human(v)).as("%s", v).isEqualTo(want);
        }
        assertThat(GeoSearch.human(0.0)).isEqualTo("0");
        assertThat(GeoSearch.human(-0.0)).isEqualTo("0");
        assertThat(GeoSearch.human(-1e-20)).isEqualTo("0");
        assertThat(GeoSearch.human(180)).isEqualTo("180");
        assertThat(GeoSearch.human(-180)).isEqualTo("-180");
        assertThat(GeoSearch.human(85.05112878)).isEqualTo("85.0511287799999991");
        assertThat(GeoSearch.human(1000.5)).isEqualTo("1000.5");
        assertThat(GeoSearch.human(Double.NEGATIVE_INFINITY)).isEqualTo("-inf");
    }

    @Test
    void shiftRoundingIsHalfEven() {
        assertThat(GeoSearch.shiftRoundHalfEven(0, 0b1011, 1)).isEqualTo(0b110); // 5.5 -> 6
        assertThat(GeoSearch.shiftRoundHalfEven(0, 0b1001, 1)).isEqualTo(0b100); // 4.5 -> 4
        assertThat(GeoSearch.shiftRoundHalfEven(1, 0, 64)).isEqualTo(1);
        assertThat(GeoSearch.shiftRoundHalfEven(1, Long.MIN_VALUE, 64)).isEqualTo(2); // 1.5 -> 2
        assertThat(GeoSearch.shiftRoundHalfEven(2, Long.MIN_VALUE, 64)).isEqualTo(2); // 2.5 -> 2
        assertThat(GeoSearch.shiftRoundHalfEven(0b101, 1, 66)).isEqualTo(1); // just above 1.25
        assertThat(GeoSearch.shiftRoundHalfEven(0b110, 0, 66)).isEqualTo(2); // 1.5 -> 2
    }

    @Test
    void fixedPointDistances() {
        assertThat(new String(GeoSearch.fixed4(0))).isEqualTo("0.0000");
        assertThat(new String(GeoSearch.fixed4(5))).isEqualTo("0.0005");
        assertThat(new String(GeoSearch.fixed4(7750))).isEqualTo("0.7750");
        assertThat(new String(GeoSearch.fixed4(12345))).isEqualTo("1.2345");
        assertThat(new String(GeoSearch.fixed4(1662742))).isEqualTo("166.2742");
        assertThat(new String(GeoSearch.fixed4(-5))).isEqualTo("-0.0005");
        assertThat(new String(GeoSearch.fixed4(Long.MIN_VALUE))).isEqualTo("-922337203685477.5808");
        assertThat(GeoSearch.llrint(2.5)).isEqualTo(2);
        assertThat(GeoSearch.llrint(3.5)).isEqualTo(4);
        assertThat(GeoSearch.llrint(-2.5)).isEqualTo(-2);
        assertThat(GeoSearch.llrint(Double.NaN)).isEqualTo(Long.MIN_VALUE);
        assertThat(GeoSearch.llrint(1e19)).isEqualTo(Long.MIN_VALUE);
    }

    @Test
    void invalidPairMessagesFormatLikePrintf() {
        assertThat(GeoCommands.printfF(200)).isEqualTo("200.000000");
        assertThat(GeoCommands.printfF(-0.0)).isEqualTo("-0.000000");
        assertThat(GeoCommands.printfF(-1e-9)).isEqualTo("-0.000000");
        assertThat(GeoCommands.printfF(0.0000005)).isEqualTo("0.000000");
        assertThat(GeoCommands.printfF(0.0000015)).isEqualTo("0.000002");
        assertThat(GeoCommands.printfF(85.05112879)).isEqualTo("85.051129");
        assertThat(GeoCommands.printfF(Double.POSITIVE_INFINITY)).isEqualTo("inf");
        assertThat(GeoCommands.printfF(1e20)).isEqualTo("100000000000000000000.000000");
    }

    /** A search holding the given distances as exact values. */
    private static GeoSearch withDistances(double[] d) {
        GeoSearch s = new GeoSearch();
        s.used = d.length;
        s.dists = d.clone();
        s.margins = new double[d.length];
        s.states = new byte[d.length];
        java.util.Arrays.fill(s.states, GeoSearch.EXACT);
        s.scores = new double[d.length];
        for (int i = 0; i < d.length; i++) s.scores[i] = i; // distinct positions
        return s;
    }

    @Test
    void partialSortPutsTheClosestFirstInOrder() {
        SplittableRandom rnd = new SplittableRandom(4);
        for (int round = 0; round < 500; round++) {
            int n = 1 + rnd.nextInt(120);
            double[] d = new double[n];
            for (int i = 0; i < n; i++) d[i] = rnd.nextInt(round % 2 == 0 ? 10 : 100000);
            int k = 1 + rnd.nextInt(n);
            boolean desc = rnd.nextBoolean();
            GeoSearch s = withDistances(d);
            s.sort(desc, k);
            List<Double> sorted = new ArrayList<>();
            for (double v : d) sorted.add(v);
            sorted.sort(desc ? java.util.Comparator.reverseOrder() : null);
            List<Double> got = new ArrayList<>();
            for (int i = 0; i < n; i++) got.add(d[s.order[i]]);
            assertThat(got.subList(0, k)).isEqualTo(sorted.subList(0, k));
            // a permutation of all matches
            assertThat(java.util.Arrays.stream(s.order).sorted().toArray()).isEqualTo(java.util.stream.IntStream.range(0, n).toArray());
        }
    }

    @Test
    void fullSortIsStable() {
        double[] d = {3, 1, 2, 1, 3, 1, 2};
        GeoSearch s = withDistances(d);
        s.sort(false, d.length);
        assertThat(s.order).containsExactly(1, 3, 5, 2, 6, 0, 4);
        s = withDistances(d);
        s.sort(true, d.length);
        assertThat(s.order).containsExactly(0, 4, 2, 6, 1, 3, 5);
    }

    @Test
    void estimatesAreRefinedWhereTheyCannotDecide() {
        GeoSearch s = new GeoSearch();
        s.lon = 15;
        s.lat = 37;
        s.used = 2;
        s.lons = new double[] {15.1, 14.9};
        s.lats = new double[] {37, 37};
        s.scores = new double[] {1, 2};
        s.havs = new double[] {Double.NaN, Double.NaN};
        s.dists = new double[2];
        s.margins = new double[2];
        s.states = new byte[2];
        // mirror images: equal within the estimates' margins, so exact values decide
        s.sort(false, 2);
        assertThat(s.states).containsExactly(GeoSearch.EXACT, GeoSearch.EXACT);
        assertThat(s.dists[0]).isEqualTo(GeoDistance.exact(15, 37, 15.1, 37));
    }
}
