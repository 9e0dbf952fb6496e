package io.spinel.core.type.geo;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/** The geohash arithmetic against values redis-server 7.0 gives for the same coordinates. */
class GeoHashTest {
    @Test
    void scoresAreRedisScores() {
        // GEOADD then ZSCORE on redis-server 7.0.15
        assertThat(GeoHash.score(13.361389, 38.115556)).isEqualTo(3479099956230698L);
        assertThat(GeoHash.score(15.087269, 37.502669)).isEqualTo(3479447370796909L);
        assertThat(GeoHash.score(-74.0131604, 40.7126674)).isEqualTo(1791873972053020L);
        assertThat(GeoHash.score(-73.7858139, 40.6428986)).isEqualTo(1791895905559723L);
        assertThat(GeoHash.score(-73.9564142, 40.7480973)).isEqualTo(1791875796750882L);
        assertThat(GeoHash.score(0, 0)).isEqualTo(3377699720527872L);
        assertThat(GeoHash.score(-180, -85.05112878)).isEqualTo(0L);
        // the upper limits overflow the 26 bits of their axis, as in Redis
        assertThat(GeoHash.score(180, 85.05112878)).isEqualTo(13510798882111488L);
    }

    @Test
    void decodedPositionsAndGeohashStrings() {
        double[] xy = new double[2];
        GeoHash.decodeScore(3479099956230698L, xy);
        assertThat(GeoSearch.human(xy[0])).isEqualTo("13.36138933897018433");
        assertThat(GeoSearch.human(xy[1])).isEqualTo("38.11555639549629859");
        GeoHash.decodeScore(GeoHash.score(180, 85.05112878), xy);
        assertThat(xy).containsExactly(180, 85.05112878);
        // Wikipedia's example: GEOHASH gives ezs42e44yx0 for (-5.6, 42.6)
        GeoHash.decodeScore(GeoHash.score(-5.6, 42.6), xy);
        long bits = GeoHash.encode(-180, 180, -90, 90, xy[0], xy[1], 26);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 10; i++) sb.append("0123456789bcdefghjkmnpqrstuvwxyz".charAt((int) ((bits >>> (52 - (i + 1) * 5)) & 0x1f)));
        assertThat(sb.append('0').toString()).isEqualTo("ezs42e44yx0");
    }

    @Test
    void encodeRefusesWhatRedisRefuses() {
        assertThat(GeoHash.encode(180.0000001, 0, 26)).isEqualTo(-1);
        assertThat(GeoHash.encode(0, 85.05112879, 26)).isEqualTo(-1);
        assertThat(GeoHash.encode(0, 0, 0)).isEqualTo(-1);
        assertThat(GeoHash.encode(0, 0, 33)).isEqualTo(-1);
        assertThat(GeoHash.encode(Double.NaN, 0, 26)).isNotEqualTo(-1); // NaN passes C's comparisons too
    }

    @Test
    void interleaveRoundTrips() {
        SplittableRandom rnd = new SplittableRandom(1);
        for (int i = 0; i < 10000; i++) {
            long lat = rnd.nextLong() & 0xFFFFFFFFL, lon = rnd.nextLong() & 0xFFFFFFFFL;
            long bits = GeoHash.interleave(lat, lon);
            assertThat(GeoHash.deinterleave(bits)).isEqualTo(lat | (lon << 32));
            // latitude on the even bits
            assertThat(bits & 1).isEqualTo(lat & 1);
            assertThat((bits >>> 1) & 1).isEqualTo(lon & 1);
        }
    }

    @Test
    void decodingThenEncodingGivesTheScoreBack() {
        SplittableRandom rnd = new SplittableRandom(2);
        double[] xy = new double[2];
        for (int i = 0; i < 10000; i++) {
            long score = rnd.nextLong(1L << 52);
            GeoHash.decodeScore(score, xy);
            assertThat(GeoHash.score(xy[0], xy[1])).isEqualTo(score);
        }
    }

    @Test
    void neighboursWrapAroundTheGrid() {
        int step = 3;
        long[] cells = new long[9];
        // the cell at the grid's north-east corner (all longitude and latitude bits set)
        long corner = GeoHash.interleave(7, 7);
        GeoHash.neighbours(corner, step, cells);
        assertThat(GeoHash.deinterleave(cells[GeoHash.EAST])).isEqualTo(7L | (0L << 32));
        assertThat(GeoHash.deinterleave(cells[GeoHash.NORTH])).isEqualTo(0L | (7L << 32));
        assertThat(GeoHash.deinterleave(cells[GeoHash.WEST])).isEqualTo(7L | (6L << 32));
        assertThat(GeoHash.deinterleave(cells[GeoHash.SOUTH])).isEqualTo(6L | (7L << 32));
        assertThat(GeoHash.deinterleave(cells[GeoHash.NORTH_EAST])).isEqualTo(0L);
        assertThat(GeoHash.deinterleave(cells[GeoHash.SOUTH_WEST])).isEqualTo(6L | (6L << 32));
        SplittableRandom rnd = new SplittableRandom(3);
        for (int i = 0; i < 1000; i++) {
            int s = 1 + rnd.nextInt(26);
            long h = rnd.nextLong(1L << (2 * s));
            assertThat(GeoHash.moveX(GeoHash.moveX(h, s, 1), s, -1)).isEqualTo(h);
            assertThat(GeoHash.moveY(GeoHash.moveY(h, s, -1), s, 1)).isEqualTo(h);
            assertThat(GeoHash.moveX(h, s, 1) >>> (2 * s)).isZero();
        }
    }

    @Test
    void stepEstimates() {
        assertThat(GeoHash.estimateSteps(0, 0)).isEqualTo(26);
        assertThat(GeoHash.estimateSteps(100000, 0)).isEqualTo(7);
        assertThat(GeoHash.estimateSteps(100000, 70)).isEqualTo(6);
        assertThat(GeoHash.estimateSteps(100000, -85)).isEqualTo(5);
        assertThat(GeoHash.estimateSteps(1, 0)).isEqualTo(24);
        assertThat(GeoHash.estimateSteps(1e-9, 0)).isEqualTo(26);
        assertThat(GeoHash.estimateSteps(5e7, 0)).isEqualTo(1);
        assertThat(GeoHash.estimateSteps(Double.POSITIVE_INFINITY, 0)).isEqualTo(1);
    }

    @Test
    void doubleToUnsignedConversionAsCompiledForX86() {
        assertThat(GeoHash.toUnsigned64(-5)).isEqualTo(-5L);
        assertThat(GeoHash.toUnsigned64(-5.9)).isEqualTo(-5L);
        assertThat(Long.toUnsignedString(GeoHash.toUnsigned64(1e19))).isEqualTo("10000000000000000000");
        assertThat(GeoHash.toUnsigned64(2e19)).isZero();
        assertThat(GeoHash.toUnsigned64(Double.POSITIVE_INFINITY)).isZero();
        assertThat(GeoHash.toUnsigned64(Double.NEGATIVE_INFINITY)).isEqualTo(Long.MIN_VALUE);
        assertThat(GeoHash.toUnsigned64(-1e19)).isEqualTo(Long.MIN_VALUE);
        assertThat(GeoHash.toUnsigned64(Double.NaN)).isEqualTo(Long.MIN_VALUE);
    }
}
