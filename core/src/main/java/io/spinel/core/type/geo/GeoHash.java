package io.spinel.core.type.geo;

/**
 * The geohash arithmetic behind Redis's GEO scores: a point is two 26-bit grid positions
 * (latitude over [-85.05112878, 85.05112878], longitude over [-180, 180]) interleaved into one 52
 * bit integer, latitude on the even bits and longitude on the odd ones, stored as the sorted set
 * score. A hash of fewer bits ("step" bits per axis) names a grid cell; the cell's members are
 * the scores sharing its prefix.
 *
 * <p>Every operation is done with the same floating point operations in the same order as Redis,
 * so scores, decoded positions and search cells come out bit for bit the same. Hashes are plain
 * {@code long}s read as unsigned 64-bit integers; a step of 0 marks an absent cell.
 */
public final class GeoHash {
    private GeoHash() {
    }

    public static final double LAT_MIN = -85.05112878;
    public static final double LAT_MAX = 85.05112878;
    public static final double LON_MIN = -180;
    public static final double LON_MAX = 180;
    /** Bits per axis of a stored score. */
    public static final int STEP_MAX = 26;

    /** Spreads the low 32 bits of v onto the even bit positions. */
    private static long spread(long v) {
        v &= 0xFFFFFFFFL;
        v = (v | (v << 16)) & 0x0000FFFF0000FFFFL;
        v = (v | (v << 8)) & 0x00FF00FF00FF00FFL;
        v = (v | (v << 4)) & 0x0F0F0F0F0F0F0F0FL;
        v = (v | (v << 2)) & 0x3333333333333333L;
        v = (v | (v << 1)) & 0x5555555555555555L;
        return v;
    }

    /** Gathers the even bit positions of v into its low 32 bits. */
    private static long squeeze(long v) {
        v &= 0x5555555555555555L;
        v = (v | (v >>> 1)) & 0x3333333333333333L;
        v = (v | (v >>> 2)) & 0x0F0F0F0F0F0F0F0FL;
        v = (v | (v >>> 4)) & 0x00FF00FF00FF00FFL;
        v = (v | (v >>> 8)) & 0x0000FFFF0000FFFFL;
        v = (v | (v >>> 16)) & 0x00000000FFFFFFFFL;
        return v;
    }

    static long interleave(long lat, long lon) {
        return spread(lat) | (spread(lon) << 1);
    }

    /** Latitude bits in the low half of the result, longitude bits in the high half. */
    static long deinterleave(long bits) {
        return squeeze(bits) | (squeeze(bits >>> 1) << 32);
    }

    /**
     * The step-bit hash of a point within the given ranges, or -1 where Redis's encoder refuses
     * (a point outside the ranges or outside the Web Mercator limits).
     */
    static long encode(double lonMin, double lonMax, double latMin, double latMax, double lon, double lat, int step) {
        if (step > 32 || step == 0 || (latMin == 0 && latMax == 0) || (lonMin == 0 && lonMax == 0)) return -1;
        if (lon > LON_MAX || lon < LON_MIN || lat > LAT_MAX || lat < LAT_MIN) return -1;
        if (lat < latMin || lat > latMax || lon < lonMin || lon > lonMax) return -1;
        double latOffset = (lat - latMin) / (latMax - latMin);
        double lonOffset = (lon - lonMin) / (lonMax - lonMin);
        double scale = (double) (1L << step);
        latOffset *= scale;
        lonOffset *= scale;
        // the C conversion to a 32-bit unsigned integer truncates toward zero
        return interleave((long) latOffset, (long) lonOffset);
    }

    /** The hash of a point in Redis's coordinate ranges (-1 outside them). */
    static long encode(double lon, double lat, int step) {
        return encode(LON_MIN, LON_MAX, LAT_MIN, LAT_MAX, lon, lat, step);
    }

    /** The sorted set score of a valid point: its full-precision hash. */
    public static long score(double lon, double lat) {
        return align52(encode(lon, lat, STEP_MAX), STEP_MAX);
    }

    /**
     * The cell of a hash in the given ranges, as {lonMin, lonMax, latMin, latMax} written into
     * {@code area}.
     */
    static void decode(double lonMin, double lonMax, double latMin, double latMax, long bits, int step, double[] area) {
        long sep = deinterleave(bits);
        double latScale = latMax - latMin;
        double lonScale = lonMax - lonMin;
        long ilat = sep & 0xFFFFFFFFL;
        long ilon = sep >>> 32;
        double div = (double) (1L << step);
        area[0] = lonMin + (ilon * 1.0 / div) * lonScale;
        area[1] = lonMin + (((ilon + 1) & 0xFFFFFFFFL) * 1.0 / div) * lonScale;
        area[2] = latMin + (ilat * 1.0 / div) * latScale;
        area[3] = latMin + (((ilat + 1) & 0xFFFFFFFFL) * 1.0 / div) * latScale;
    }

    static void decode(long bits, int step, double[] area) {
        decode(LON_MIN, LON_MAX, LAT_MIN, LAT_MAX, bits, step, area);
    }

    /**
     * The position a score stands for (the centre of its cell, clamped to the valid ranges), as
     * {lon, lat} written into {@code xy}. Any score decodes: Redis converts it to a 64-bit hash
     * the way the x86-64 instruction sequence for a double to unsigned conversion does.
     */
    public static void decodeScore(double score, double[] xy) {
        long sep = deinterleave(toUnsigned64(score));
        double div = (double) (1L << STEP_MAX);
        long ilat = sep & 0xFFFFFFFFL;
        long ilon = sep >>> 32;
        double lonMin = LON_MIN + (ilon * 1.0 / div) * (LON_MAX - LON_MIN);
        double lonMax = LON_MIN + (((ilon + 1) & 0xFFFFFFFFL) * 1.0 / div) * (LON_MAX - LON_MIN);
        double latMin = LAT_MIN + (ilat * 1.0 / div) * (LAT_MAX - LAT_MIN);
        double latMax = LAT_MIN + (((ilat + 1) & 0xFFFFFFFFL) * 1.0 / div) * (LAT_MAX - LAT_MIN);
        xy[0] = clamp((lonMin + lonMax) / 2, LON_MIN, LON_MAX);
        xy[1] = clamp((latMin + latMax) / 2, LAT_MIN, LAT_MAX);
    }

    private static double clamp(double v, double min, double max) {
        if (v > max) v = max;
        if (v < min) v = min;
        return v;
    }

    /**
     * C's (uint64_t) conversion of a double as compiled for x86-64: values below 2^63 go through
     * the signed conversion (which gives 2^63 for NaN and out-of-range values), larger ones are
     * offset by 2^63 first.
     */
    static long toUnsigned64(double d) {
        if (!(d >= 0x1p63)) {
            if (Double.isNaN(d) || d < -0x1p63) return Long.MIN_VALUE;
            return (long) d;
        }
        double e = d - 0x1p63;
        long v = e >= 0x1p63 ? Long.MIN_VALUE : (long) e;
        return v ^ Long.MIN_VALUE;
    }

    /** The hash moved to the top of 52 bits, the score range's lower bound for its cell. */
    static long align52(long bits, int step) {
        return bits << (52 - step * 2);
    }

    /** The hash one cell to the east (d &gt; 0) or west (d &lt; 0), wrapping around. */
    static long moveX(long bits, int step, int d) {
        if (d == 0) return bits;
        long x = bits & 0xAAAAAAAAAAAAAAAAL;
        long y = bits & 0x5555555555555555L;
        long zz = 0x5555555555555555L >>> (64 - step * 2);
        if (d > 0) {
            x = x + (zz + 1);
        } else {
            x = x | zz;
            x = x - (zz + 1);
        }
        x &= 0xAAAAAAAAAAAAAAAAL >>> (64 - step * 2);
        return x | y;
    }

    /** The hash one cell to the north (d &gt; 0) or south (d &lt; 0), wrapping around. */
    static long moveY(long bits, int step, int d) {
        if (d == 0) return bits;
        long x = bits & 0xAAAAAAAAAAAAAAAAL;
        long y = bits & 0x5555555555555555L;
        long zz = 0xAAAAAAAAAAAAAAAAL >>> (64 - step * 2);
        if (d > 0) {
            y = y + (zz + 1);
        } else {
            y = y | zz;
            y = y - (zz + 1);
        }
        y &= 0x5555555555555555L >>> (64 - step * 2);
        return x | y;
    }

    /** Indexes of the nine search cells, in the order Redis visits them. */
    static final int CENTER = 0, NORTH = 1, SOUTH = 2, EAST = 3, WEST = 4, NORTH_EAST = 5, NORTH_WEST = 6,
            SOUTH_EAST = 7, SOUTH_WEST = 8;

    /** The hash's eight neighbours, written into cells[1..8] in visiting order. */
    static void neighbours(long bits, int step, long[] cells) {
        cells[CENTER] = bits;
        cells[NORTH] = moveY(bits, step, 1);
        cells[SOUTH] = moveY(bits, step, -1);
        cells[EAST] = moveX(bits, step, 1);
        cells[WEST] = moveX(bits, step, -1);
        cells[NORTH_EAST] = moveY(moveX(bits, step, 1), step, 1);
        cells[NORTH_WEST] = moveY(moveX(bits, step, -1), step, 1);
        cells[SOUTH_EAST] = moveY(moveX(bits, step, 1), step, -1);
        cells[SOUTH_WEST] = moveY(moveX(bits, step, -1), step, -1);
    }

    /** Mercator's half-width in meters: the grid's top level spans it. */
    private static final double MERCATOR_MAX = 20037726.37;

    /**
     * The step whose cells are about as large as the search radius (narrower toward the poles,
     * where meridians converge).
     */
    static int estimateSteps(double rangeMeters, double lat) {
        if (rangeMeters == 0) return 26;
        int step = 1;
        while (rangeMeters < MERCATOR_MAX) {
            rangeMeters *= 2;
            step++;
        }
        step -= 2;
        if (lat > 66 || lat < -66) {
            step--;
            if (lat > 80 || lat < -80) step--;
        }
        if (step < 1) step = 1;
        if (step > 26) step = 26;
        return step;
    }
}
