package io.spinel.core.type.geo;

import io.spinel.core.type.zset.ScoreRange;
import io.spinel.core.type.zset.ZIter;
import io.spinel.core.type.zset.ZSet;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Arrays;

/**
 * One radius or box search over a geo sorted set (Redis's georadiusGeneric core): the shape, the
 * nine grid cells that cover it, and the matching points in the order Redis finds them (cell by
 * cell in Redis's visiting order, by score within a cell), then Redis's sorts.
 *
 * <p>Redis decides with doubles from the C library's trigonometry; Spinel reaches the same
 * decisions at a fraction of the cost of reproducing every one of those doubles: a candidate is
 * tested on the haversine term computed with the JDK's fast functions against thresholds with a
 * wide error margin, and only a candidate inside the margin gets the exact, correctly rounded
 * distance ({@link GeoDistance#exact}). A match's distance is computed only if the reply needs
 * it (sorting, WITHDIST, STOREDIST), again as an estimate with an error bound first, made exact
 * where the bound leaves a comparison or a printed digit open, and always for STOREDIST.
 *
 * <p>Matches are kept in parallel arrays; members are slices of the set's own storage, valid
 * until the set changes.
 */
final class GeoSearch {
    // ---- the shape (Redis's GeoShape) ----
    boolean box;
    /** Centre: longitude, latitude. */
    double lon, lat;
    /** Meters per unit of the radius, width and height. */
    double conversion;
    double radius, width, height;
    /** Bounding box: min lon, min lat, max lon, max lat. */
    final double[] bounds = new double[4];

    // ---- the cells to visit ----
    final long[] cells = new long[9];
    /** Step of each cell, 0 for a cell taken out of the search. */
    final int[] cellSteps = new int[9];

    // ---- matches ----
    int used;
    double[] scores = new double[8];
    double[] lons = new double[8];
    double[] lats = new double[8];
    /** Fast haversine term of a circle match (NaN when not computed), the source of its distance. */
    double[] havs = new double[8];
    /** Distance in meters from the centre, as {@link #states} says. */
    double[] dists = new double[8];
    /** Error bound of a fast distance. */
    double[] margins = new double[8];
    /** Per match: distance not computed yet, a fast estimate, or exact. */
    byte[] states = new byte[8];
    static final byte UNKNOWN = 0, FAST = 1, EXACT = 2;
    byte[][] bufs = new byte[8][];
    int[] offs = new int[8];
    int[] lens = new int[8];
    /** Reply order: indexes into the arrays above. */
    int[] order;

    // ---- search area (Redis's geohashBoundingBox and geohashCalculateAreasByShapeWGS84) ----

    void computeBoundingBox() {
        double h = conversion * (box ? height / 2 : radius);
        double w = conversion * (box ? width / 2 : radius);
        double latDelta = GeoDistance.radDeg(h / GeoDistance.EARTH_RADIUS);
        double lonDeltaTop = GeoDistance.radDeg(w / GeoDistance.EARTH_RADIUS / GeoMath.cos(GeoDistance.degRad(lat + latDelta)));
        double lonDeltaBottom = GeoDistance.radDeg(w / GeoDistance.EARTH_RADIUS
                / GeoMath.cos(GeoDistance.degRad(lat - latDelta)));
        // in the southern hemisphere the box is widest at its top edge's mirror, the bottom
        boolean south = lat < 0;
        bounds[0] = south ? lon - lonDeltaBottom : lon - lonDeltaTop;
        bounds[2] = south ? lon + lonDeltaBottom : lon + lonDeltaTop;
        bounds[1] = lat - latDelta;
        bounds[3] = lat + latDelta;
    }

    /**
     * The centre's cell at a step where cells are about the search's size, and its eight
     * neighbours, minus the neighbours the bounding box cannot reach.
     */
    void computeCells() {
        computeBoundingBox();
        double minLon = bounds[0], minLat = bounds[1], maxLon = bounds[2], maxLat = bounds[3];
        double radiusMeters = box ? Math.sqrt((width / 2) * (width / 2) + (height / 2) * (height / 2)) : radius;
        radiusMeters *= conversion;
        int steps = GeoHash.estimateSteps(radiusMeters, lat);
        long hash = GeoHash.encode(lon, lat, steps);
        GeoHash.neighbours(hash, steps, cells);
        double[] n = new double[4], s = new double[4], e = new double[4], w = new double[4];
        GeoHash.decode(cells[GeoHash.NORTH], steps, n);
        GeoHash.decode(cells[GeoHash.SOUTH], steps, s);
        GeoHash.decode(cells[GeoHash.EAST], steps, e);
        GeoHash.decode(cells[GeoHash.WEST], steps, w);
        // near a cell edge the estimated step can leave part of the area outside the nine cells
        boolean decrease = n[3] < maxLat || s[2] > minLat || e[1] < maxLon || w[0] > minLon;
        if (steps > 1 && decrease) {
            steps--;
            hash = GeoHash.encode(lon, lat, steps);
            GeoHash.neighbours(hash, steps, cells);
        }
        Arrays.fill(cellSteps, steps);
        if (steps >= 2) {
            double[] area = new double[4];
            GeoHash.decode(hash, steps, area);
            if (area[2] < minLat) drop(GeoHash.SOUTH, GeoHash.SOUTH_WEST, GeoHash.SOUTH_EAST);
            if (area[3] > maxLat) drop(GeoHash.NORTH, GeoHash.NORTH_EAST, GeoHash.NORTH_WEST);
            if (area[0] < minLon) drop(GeoHash.WEST, GeoHash.SOUTH_WEST, GeoHash.NORTH_WEST);
            if (area[1] > maxLon) drop(GeoHash.EAST, GeoHash.SOUTH_EAST, GeoHash.NORTH_EAST);
        }
    }

    private void drop(int a, int b, int c) {
        for (int i : new int[] {a, b, c}) {
            cells[i] = 0;
            cellSteps[i] = 0;
        }
    }

    // ---- matching ----

    /**
     * Thresholds on the haversine term a for the radius (and box width) tests: d &lt;= r exactly
     * when a &lt;= sin^2(r / 2R), so a candidate whose fast a is clearly on one side needs no
     * arcsine at all; -1 where the shortcut is off (radiuses near half the earth and beyond, or
     * vanishing ones).
     */
    private double havLo = -1, havHi, latReject;
    private double centerCos;

    /** Sets up the per-search constants of {@link #within}. */
    private void prepareTests() {
        double r = box ? width * conversion / 2 : radius * conversion;
        double theta = r / (2 * GeoDistance.EARTH_RADIUS);
        if (theta < 1.5 && theta > 1e-100) {
            double sin = Math.sin(theta);
            double a = sin * sin;
            havLo = a * (1 - 0x1p-40);
            havHi = a * (1 + 0x1p-40);
        }
        // the great circle distance is never shorter than the distance along the meridian
        latReject = r * (1 + 0x1p-30);
        centerCos = Math.cos(GeoDistance.degRad(lat));
    }

    /**
     * Whether the point at this score is inside the shape (Redis's geoWithinShape); when it is,
     * its position is appended as a match (the caller adds the member). The distance is left to
     * be computed when something needs it.
     */
    private boolean within(double score, double[] xy) {
        GeoHash.decodeScore(score, xy);
        double x = xy[0], y = xy[1];
        double hav = Double.NaN;
        byte state = UNKNOWN;
        double d = 0;
        if (!box) {
            double r = radius * conversion;
            if (havLo >= 0) {
                // (not near the antipode, where rounding can push the haversine term past 1 and
                // Redis's distance becomes NaN, which no radius test rejects)
                if (GeoDistance.latDistance(lat, y) > latReject && Math.abs(y + lat) > 4) return false;
                double v = Math.sin((GeoDistance.degRad(x) - GeoDistance.degRad(lon)) / 2);
                if (v == 0) {
                    // the formula's own shortcut: no trigonometry, exact either way
                    d = GeoDistance.latDistance(lat, y);
                    if (d > r) return false;
                    state = EXACT;
                } else {
                    double yr = GeoDistance.degRad(y);
                    double u = Math.sin((yr - GeoDistance.degRad(lat)) / 2);
                    double a = u * u + centerCos * Math.cos(yr) * v * v;
                    if (a < havLo) {
                        hav = a;
                    } else if (a > havHi && a < 0.999) {
                        return false;
                    } else {
                        d = GeoDistance.exact(lon, lat, x, y);
                        if (d > r) return false;
                        state = EXACT;
                    }
                }
            } else {
                double f = GeoDistance.fast(lon, lat, x, y);
                double m = GeoDistance.margin(f);
                if (!(f + m <= r)) {
                    if (f - m > r) return false;
                    d = GeoDistance.exact(lon, lat, x, y);
                    if (d > r) return false;
                    state = EXACT;
                }
            }
        } else {
            double halfWidth = width * conversion / 2;
            if (GeoDistance.latDistance(y, lat) > height * conversion / 2) return false;
            // the east-west extent, measured along the point's own parallel
            if (havLo >= 0) {
                double v = Math.sin((GeoDistance.degRad(lon) - GeoDistance.degRad(x)) / 2);
                if (v != 0) {
                    double cy = Math.cos(GeoDistance.degRad(y));
                    double a = cy * cy * v * v;
                    if (!(a < havLo)) {
                        if (a > havHi && a < 0.999) return false;
                        if (GeoDistance.exact(x, y, lon, y) > halfWidth) return false;
                    }
                }
            } else {
                double f = GeoDistance.fast(x, y, lon, y);
                double m = GeoDistance.margin(f);
                if (!(f + m <= halfWidth)) {
                    if (f - m > halfWidth) return false;
                    if (GeoDistance.exact(x, y, lon, y) > halfWidth) return false;
                }
            }
        }
        if (used == scores.length) grow();
        scores[used] = score;
        lons[used] = x;
        lats[used] = y;
        havs[used] = hav;
        dists[used] = d;
        margins[used] = 0;
        states[used] = state;
        return true;
    }

    private void grow() {
        int n = scores.length * 2;
        scores = Arrays.copyOf(scores, n);
        lons = Arrays.copyOf(lons, n);
        lats = Arrays.copyOf(lats, n);
        havs = Arrays.copyOf(havs, n);
        dists = Arrays.copyOf(dists, n);
        margins = Arrays.copyOf(margins, n);
        states = Arrays.copyOf(states, n);
        bufs = Arrays.copyOf(bufs, n);
        offs = Arrays.copyOf(offs, n);
        lens = Arrays.copyOf(lens, n);
    }

    /**
     * Collects the matches of every live cell (Redis's membersOfAllNeighbors): a cell equal to the
     * one searched just before is skipped (huge radiuses make neighbours coincide), and with a
     * limit (COUNT ... ANY) the search stops once it has that many.
     */
    void collect(ZSet z, long limit) {
        prepareTests();
        double[] xy = new double[2];
        ScoreRange range = new ScoreRange();
        range.minex = false;
        range.maxex = true;
        int lastProcessed = 0;
        for (int i = 0; i < 9; i++) {
            if (cells[i] == 0 && cellSteps[i] == 0) continue;
            if (lastProcessed != 0 && cells[i] == cells[lastProcessed] && cellSteps[i] == cellSteps[lastProcessed]) {
                continue;
            }
            if (used > 0 && limit != 0 && used >= limit) break;
            // the cell's scores: its hash as the 52-bit prefix, up to the next hash (excluded)
            int step = cellSteps[i];
            range.min = (double) GeoHash.align52(cells[i], step);
            range.max = (double) GeoHash.align52(cells[i] + 1, step);
            for (ZIter it = z.firstInRange(range); it.valid(); it.next()) {
                double score = it.score();
                if (!range.lteMax(score)) break;
                if (within(score, xy)) {
                    bufs[used] = it.buf();
                    offs[used] = it.off();
                    lens[used] = it.len();
                    used++;
                }
                if (used > 0 && limit != 0 && used >= limit) break;
            }
            lastProcessed = i;
        }
    }

    // ---- distances ----

    /** Makes match i's distance at least a fast estimate with its error bound. */
    private void estimate(int i) {
        if (states[i] != UNKNOWN) return;
        double d = Double.isNaN(havs[i]) ? GeoDistance.fast(lon, lat, lons[i], lats[i])
                : GeoDistance.fromHaversine(havs[i]);
        dists[i] = d;
        margins[i] = GeoDistance.margin(d);
        states[i] = FAST;
    }

    /** The exact distance of match i in meters. */
    double exactDistance(int i) {
        if (states[i] != EXACT) {
            dists[i] = GeoDistance.exact(lon, lat, lons[i], lats[i]);
            margins[i] = 0;
            states[i] = EXACT;
        }
        return dists[i];
    }

    /** Redis's comparison of two matches by distance (1, 0, -1), exact values where needed. */
    private int compareAsc(int i, int j) {
        // equal scores are the same position, hence the same distance
        if (scores[i] == scores[j]) return 0;
        estimate(i);
        estimate(j);
        double a = dists[i], b = dists[j];
        if (!(Math.abs(a - b) > margins[i] + margins[j])) {
            a = exactDistance(i);
            b = exactDistance(j);
        }
        if (a > b) return 1;
        return a == b ? 0 : -1;
    }

    private int compare(int i, int j, boolean desc) {
        return desc ? -compareAsc(i, j) : compareAsc(i, j);
    }

    /** No sort: the order of discovery. */
    void keepOrder() {
        order = new int[used];
        for (int i = 0; i < used; i++) order[i] = i;
    }

    /**
     * Sorts by distance as Redis does: a stable merge sort (glibc's qsort) when every match is
     * returned, else Redis's partial quicksort of the first {@code returned} positions, whose
     * arrangement of the rest and of ties is part of the result.
     */
    void sort(boolean desc, int returned) {
        keepOrder();
        if (returned == used) mergeSort(order, new int[used], 0, used, desc);
        else partialQuickSort(order, 0, used, returned - 1, desc);
    }

    private void mergeSort(int[] a, int[] tmp, int from, int to, boolean desc) {
        int n = to - from;
        if (n <= 1) return;
        int mid = from + n / 2;
        mergeSort(a, tmp, from, mid, desc);
        mergeSort(a, tmp, mid, to, desc);
        int i = from, j = mid, k = from;
        while (i < mid && j < to) {
            if (compare(a[i], a[j], desc) <= 0) tmp[k++] = a[i++];
            else tmp[k++] = a[j++];
        }
        while (i < mid) tmp[k++] = a[i++];
        while (j < to) tmp[k++] = a[j++];
        System.arraycopy(tmp, from, a, from, n);
    }

    /**
     * Bentley and McIlroy's three-way quicksort as Redis's pqsort runs it: it only descends into
     * partitions that overlap positions 0..last, so those end up sorted and the rest partitioned.
     */
    private void partialQuickSort(int[] a, int base, int n, int last, boolean desc) {
        while (true) {
            if (n < 7) {
                for (int pm = base + 1; pm < base + n; pm++) {
                    for (int pl = pm; pl > base && compare(a[pl - 1], a[pl], desc) > 0; pl--) swap(a, pl, pl - 1);
                }
                return;
            }
            int pm = base + n / 2;
            if (n > 7) {
                int pl = base;
                int pn = base + n - 1;
                if (n > 40) {
                    int d = n / 8;
                    pl = median3(a, pl, pl + d, pl + 2 * d, desc);
                    pm = median3(a, pm - d, pm, pm + d, desc);
                    pn = median3(a, pn - 2 * d, pn - d, pn, desc);
                }
                pm = median3(a, pl, pm, pn, desc);
            }
            swap(a, base, pm);
            int pa = base + 1, pb = pa;
            int pc = base + n - 1, pd = pc;
            while (true) {
                int r;
                while (pb <= pc && (r = compare(a[pb], a[base], desc)) <= 0) {
                    if (r == 0) swap(a, pa++, pb);
                    pb++;
                }
                while (pb <= pc && (r = compare(a[pc], a[base], desc)) >= 0) {
                    if (r == 0) swap(a, pc, pd--);
                    pc--;
                }
                if (pb > pc) break;
                swap(a, pb++, pc--);
            }
            int pn = base + n;
            int r = Math.min(pa - base, pb - pa);
            swapRanges(a, base, pb - r, r);
            r = Math.min(pd - pc, pn - pd - 1);
            swapRanges(a, pb, pn - r, r);
            r = pb - pa;
            if (r > 1 && last >= base) partialQuickSort(a, base, r, last, desc);
            r = pd - pc;
            if (r > 1) {
                base = pn - r;
                n = r;
                if (last >= base) continue;
            }
            return;
        }
    }

    private int median3(int[] a, int i, int j, int k, boolean desc) {
        if (compare(a[i], a[j], desc) < 0) {
            if (compare(a[j], a[k], desc) < 0) return j;
            return compare(a[i], a[k], desc) < 0 ? k : i;
        }
        if (compare(a[j], a[k], desc) > 0) return j;
        return compare(a[i], a[k], desc) < 0 ? i : k;
    }

    private static void swap(int[] a, int i, int j) {
        int t = a[i];
        a[i] = a[j];
        a[j] = t;
    }

    private static void swapRanges(int[] a, int i, int j, int n) {
        for (int k = 0; k < n; k++) swap(a, i + k, j + k);
    }

    // ---- reply text ----

    /**
     * Match i's distance in the search unit with four decimals, as Redis's fixed-point formatting
     * of dist / conversion prints it; the estimate is enough unless its error bound straddles a
     * rounding boundary.
     */
    byte[] distanceText(int i, double unit) {
        return fixed4(distance(i, unit));
    }

    /** llrint(dist / unit * 10000), from the estimate where its bound decides it. */
    private long distance(int i, double unit) {
        estimate(i);
        if (states[i] == FAST) {
            long lo = llrint((dists[i] - margins[i]) / unit * 10000);
            long hi = llrint((dists[i] + margins[i]) / unit * 10000);
            if (lo == hi && lo != Long.MIN_VALUE) return lo;
            exactDistance(i);
        }
        return llrint(dists[i] / unit * 10000);
    }

    /** C's llrint on x86-64: round half to even, 2^63 as the answer for NaN and out of range. */
    static long llrint(double v) {
        double r = Math.rint(v);
        if (Double.isNaN(r) || r >= 0x1p63 || r < -0x1p63) return Long.MIN_VALUE;
        return (long) r;
    }

    /** Redis's fixedpoint_d2string(..., 4) given the already scaled and rounded value. */
    static byte[] fixed4(long svalue) {
        boolean negative = svalue < 0;
        String digits = Long.toUnsignedString(negative ? -svalue : svalue);
        StringBuilder sb = new StringBuilder(digits.length() + 3);
        if (negative) sb.append('-');
        for (int k = digits.length(); k < 5; k++) sb.append('0');
        sb.append(digits);
        sb.insert(sb.length() - 4, '.');
        return io.spinel.core.util.Bytes.ascii(sb.toString());
    }

    /** The fixed-point text of a distance in the given unit (GEODIST), estimate first. */
    static byte[] distanceText(double fast, double margin, double unit, double lon1, double lat1, double lon2,
                               double lat2) {
        if (margin != 0) {
            long lo = llrint((fast - margin) / unit * 10000);
            long hi = llrint((fast + margin) / unit * 10000);
            if (lo == hi && lo != Long.MIN_VALUE) return fixed4(lo);
            fast = GeoDistance.exact(lon1, lat1, lon2, lat2);
        }
        return fixed4(llrint(fast / unit * 10000));
    }

    private static final long FIVE_POW_17 = 762939453125L;
    private static final long TEN_POW_17 = 100000000000000000L;

    /**
     * A coordinate as Redis's addReplyHumanLongDouble prints it: {@code %.17Lf} of the exact
     * binary value, trailing zeros (and a trailing dot) removed, "-0" as "0".
     */
    static String human(double v) {
        if (Double.isInfinite(v)) return v > 0 ? "inf" : "-inf";
        String s;
        if (Math.abs(v) <= 180) {
            s = fixed17(v);
        } else {
            s = new BigDecimal(v).setScale(17, RoundingMode.HALF_EVEN).toPlainString();
        }
        if (s.indexOf('.') >= 0) {
            int end = s.length();
            while (s.charAt(end - 1) == '0') end--;
            if (s.charAt(end - 1) == '.') end--;
            s = s.substring(0, end);
        }
        return s.equals("-0") ? "0" : s;
    }

    /**
     * %.17f of |v| &lt;= 180 (every decoded coordinate) with integer arithmetic: v = m * 2^e, so
     * v * 10^17 = m * 5^17 * 2^(e+17), a product below 2^93 shifted right and rounded half to even
     * (the exact value's rounding); the result stays below 2^64 up to |v| = 184.
     */
    private static String fixed17(double v) {
        long bits = Double.doubleToRawLongBits(v);
        boolean neg = bits < 0;
        int exp = (int) ((bits >>> 52) & 0x7FF);
        long m = bits & ((1L << 52) - 1);
        int e;
        if (exp == 0) {
            e = -1074;
        } else {
            m |= 1L << 52;
            e = exp - 1075;
        }
        long q;
        int shift = -(e + 17);
        if (m == 0 || shift > 93) {
            q = 0;
        } else {
            long hi = Math.multiplyHigh(m, FIVE_POW_17);
            long lo = m * FIVE_POW_17;
            q = shiftRoundHalfEven(hi, lo, shift);
        }
        String frac = Long.toString(Long.remainderUnsigned(q, TEN_POW_17));
        StringBuilder sb = new StringBuilder(24);
        if (neg) sb.append('-');
        sb.append(Long.toUnsignedString(Long.divideUnsigned(q, TEN_POW_17))).append('.');
        for (int k = frac.length(); k < 17; k++) sb.append('0');
        return sb.append(frac).toString();
    }

    /** The unsigned 128-bit (hi, lo) shifted right by 1..127 bits, rounded half to even. */
    static long shiftRoundHalfEven(long hi, long lo, int s) {
        long q, remHi, remLo, halfHi, halfLo;
        if (s < 64) {
            q = (lo >>> s) | (hi << (64 - s));
            remHi = 0;
            remLo = lo & ((1L << s) - 1);
            halfHi = 0;
            halfLo = 1L << (s - 1);
        } else if (s == 64) {
            q = hi;
            remHi = 0;
            remLo = lo;
            halfHi = 0;
            halfLo = Long.MIN_VALUE;
        } else {
            q = hi >>> (s - 64);
            remHi = hi & ((1L << (s - 64)) - 1);
            remLo = lo;
            halfHi = 1L << (s - 65);
            halfLo = 0;
        }
        int c = remHi != halfHi ? Long.compareUnsigned(remHi, halfHi) : Long.compareUnsigned(remLo, halfLo);
        if (c > 0 || (c == 0 && (q & 1) != 0)) q++;
        return q;
    }
}
