package io.spinel.core;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The number and text formats of the diagnostics: the latency histogram's layout (values checked
 * against what redis-server 7.0.15 prints for the same durations) and MONITOR's quoting.
 */
class DiagnosticsFormatTest {

    private static long[] histogramOf(long... micros) {
        io.spinel.core.command.Command cmd = new io.spinel.core.command.CommandTable().spec("get");
        cmd.latencyHistogram = null;
        LatencyMonitor m = new LatencyMonitor(null);
        for (long us : micros) m.record(cmd, us);
        return cmd.latencyHistogram;
    }

    /** hdr_value_at_percentile of one percentile (ns), through INFO's one-scan path. */
    private static long valueAtPercentile(long[] h, double percentile) {
        long total = 0;
        for (long n : h) total += n;
        long[] out = new long[1];
        LatencyMonitor.valuesAtPercentiles(h, total, new double[] {percentile}, new int[] {0}, out);
        return out[0];
    }

    @Test
    void percentilesAreTheTopOfTheHdrCounterAsRedisPrintsThem() {
        // INFO latencystats of redis-server for one call of 7, 12, 31 and 2 microseconds
        assertThat(valueAtPercentile(histogramOf(7), 50)).isEqualTo(7007);
        assertThat(valueAtPercentile(histogramOf(12), 99.9)).isEqualTo(12031);
        assertThat(valueAtPercentile(histogramOf(31), 99)).isEqualTo(31103);
        assertThat(valueAtPercentile(histogramOf(2), 50)).isEqualTo(2007);
        // DEBUG SLEEP 0.6 and 1.1 on redis-server: p50=603979.775, p99=1002438.655, LATENCY HISTOGRAM {1073741: 2}
        long[] sleeps = histogramOf(600_000, 1_100_000);
        assertThat(valueAtPercentile(sleeps, 50)).isEqualTo(603_979_775L);
        assertThat(valueAtPercentile(sleeps, 99)).isEqualTo(1_002_438_655L);
        assertThat(LatencyMonitor.cumulativeBuckets(sleeps)).containsExactly(new long[] {1073741, 2});
        // 0 us is recorded as 1 ns, the histogram's lowest value; anything past 1 s as 1 s
        assertThat(valueAtPercentile(histogramOf(0), 50)).isEqualTo(1);
        assertThat(valueAtPercentile(histogramOf(5_000_000), 50))
                .isEqualTo(LatencyMonitor.highestEquivalent(1_000_000_000L));
        // p50 of 1..100 is the 50th value's counter, p0 the lowest value's bottom
        long[] spread = new long[100];
        for (int i = 0; i < 100; i++) spread[i] = i + 1;
        long[] h = histogramOf(spread);
        assertThat(valueAtPercentile(h, 50)).isEqualTo(LatencyMonitor.highestEquivalent(50_000));
        assertThat(valueAtPercentile(h, 0)).isEqualTo(LatencyMonitor.lowestEquivalent(1000));
        assertThat(valueAtPercentile(h, 100)).isEqualTo(LatencyMonitor.highestEquivalent(100_000));
    }

    @Test
    void oneScanGivesEachPercentileAsItsOwnScanDoes() {
        java.util.Random rnd = new java.util.Random(7);
        double[] ps = {99.9, 0, 50, 100, 99, 50, 12.5};
        int[] ascending = {1, 6, 2, 5, 4, 0, 3};
        for (int round = 0; round < 200; round++) {
            int calls = 1 + rnd.nextInt(round < 20 ? 3 : 2000);
            long[] micros = new long[calls];
            for (int i = 0; i < calls; i++) micros[i] = rnd.nextInt(4) == 0 ? rnd.nextInt(2_000_000) : rnd.nextInt(40);
            long[] h = histogramOf(micros);
            long[] out = new long[ps.length];
            LatencyMonitor.valuesAtPercentiles(h, calls, ps, ascending, out);
            for (int k = 0; k < ps.length; k++) {
                assertThat(out[k]).as("p%s of %d calls", ps[k], calls).isEqualTo(valueAtPercentile(h, ps[k]));
            }
        }
    }

    @Test
    void numbersArePrintedAsRedisPrintfPrintsThem() {
        // "%.3f" of ns / 1000.0
        StringBuilder sb = new StringBuilder();
        for (long ns : new long[] {0, 1, 7, 10, 99, 100, 999, 1000, 7007, 12_031, 603_979_775L, 1_002_438_655L}) {
            LatencyMonitor.appendMicros(sb, ns);
            sb.append(' ');
        }
        assertThat(sb.toString()).isEqualTo(
                "0.000 0.001 0.007 0.010 0.099 0.100 0.999 1.000 7.007 12.031 603979.775 1002438.655 ");
        // usec_per_call: "%.2f" of the float usec / calls; printf rounds the exact binary value,
        // which BigDecimal(double) holds, a tie to even (0.125 -> 0.12, 0.375 -> 0.38)
        assertThat(perCall(1, 8)).isEqualTo("0.12");
        assertThat(perCall(3, 8)).isEqualTo("0.38");
        assertThat(perCall(0, 0)).isEqualTo("0.00");
        assertThat(perCall(123, 7)).isEqualTo("17.57");
        java.util.Random rnd = new java.util.Random(11);
        for (int i = 0; i < 100_000; i++) {
            long usec = rnd.nextInt(4) == 0 ? rnd.nextLong(1L << 40) : rnd.nextInt(100_000);
            long calls = 1 + (rnd.nextBoolean() ? rnd.nextInt(1000) : rnd.nextLong(1L << 30));
            String expected = new java.math.BigDecimal((double) ((float) usec / calls))
                    .setScale(2, java.math.RoundingMode.HALF_EVEN).toPlainString();
            assertThat(perCall(usec, calls)).as("%d / %d", usec, calls).isEqualTo(expected);
        }
    }

    private static String perCall(long usec, long calls) {
        StringBuilder sb = new StringBuilder();
        InfoCommand.appendPerCall(sb, usec, calls);
        return sb.toString();
    }

    @Test
    void indexAndValueAreInverse() {
        for (long v : new long[] {0, 1, 255, 256, 257, 1000, 1024, 1031, 1032, 65_535, 999_999_999, 1_000_000_000}) {
            int i = LatencyMonitor.index(v);
            assertThat(i).isBetween(0, 3071);
            assertThat(LatencyMonitor.valueAt(i)).isEqualTo(LatencyMonitor.lowestEquivalent(v));
            assertThat(LatencyMonitor.highestEquivalent(v)).isGreaterThanOrEqualTo(v);
        }
        // exact below 256, then 128 steps per power of two
        assertThat(LatencyMonitor.highestEquivalent(200)).isEqualTo(200);
        assertThat(LatencyMonitor.highestEquivalent(1024)).isEqualTo(1031);
        assertThat(LatencyMonitor.highestEquivalent(8192)).isEqualTo(8255);
    }

    @Test
    void histogramBucketsAreCumulativeAtPowersOfTwoAsLatencyHistogramShowsThem() {
        // LATENCY HISTOGRAM of redis-server: a 7 us call shows {8: 1}; 1043 us shows {1056: 1}
        assertThat(LatencyMonitor.cumulativeBuckets(histogramOf(7))).containsExactly(new long[] {8, 1});
        assertThat(LatencyMonitor.cumulativeBuckets(histogramOf(1043))).containsExactly(new long[] {1056, 1});
        // a 2 s call is recorded as 1 s: past the last power of two below it hdr reports the top of its
        // last counter (2^30 - 1 ns)
        List<long[]> b = LatencyMonitor.cumulativeBuckets(histogramOf(0, 1, 1, 3, 40, 40, 2_000_000));
        assertThat(b).containsExactly(new long[] {1, 3}, new long[] {4, 4}, new long[] {66, 6},
                new long[] {1073741, 7});
    }

    private static String repr(byte... b) {
        StringBuilder sb = new StringBuilder();
        io.spinel.core.util.Bytes.appendRepr(sb, b, 0, b.length);
        return sb.toString();
    }

    @Test
    void monitorQuotesArgumentsLikeSdscatrepr() {
        assertThat(repr("plain text".getBytes())).isEqualTo("\"plain text\"");
        assertThat(repr((byte) '"', (byte) '\\', (byte) '\n', (byte) '\r', (byte) '\t', (byte) 7, (byte) '\b'))
                .isEqualTo("\"\\\"\\\\\\n\\r\\t\\a\\b\"");
        assertThat(repr((byte) 0, (byte) 0x1f, (byte) 0x7f, (byte) 0x80, (byte) 0xff, (byte) '~', (byte) ' '))
                .isEqualTo("\"\\x00\\x1f\\x7f\\x80\\xff~ \"");
        assertThat(repr()).isEqualTo("\"\"");
    }
}
