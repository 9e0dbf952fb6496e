package io.spinel.core.type.geo;

/**
 * Great circle distances as Redis computes them: the haversine formula on a sphere of Redis's
 * radius (6372797.560856 m), with a shortcut when both points share a longitude.
 *
 * <p>{@link #exact} evaluates the formula with correctly rounded trigonometry ({@link GeoMath}),
 * reproducing Redis's doubles. It costs several times what {@link #fast} (the JDK's intrinsics)
 * does, so searches decide with the fast value and its error bound {@link #margin} and fall back
 * to the exact value only where the bound leaves the answer open or the value is shown.
 */
final class GeoDistance {
    private GeoDistance() {
    }

    static final double EARTH_RADIUS = 6372797.560856;
    private static final double D_R = Math.PI / 180.0;

    static double degRad(double deg) {
        return deg * D_R;
    }

    static double radDeg(double rad) {
        return rad / D_R;
    }

    /** Distance along a meridian (no trigonometry, so exact and fast alike). */
    static double latDistance(double lat1, double lat2) {
        return EARTH_RADIUS * Math.abs(degRad(lat2) - degRad(lat1));
    }

    static double exact(double lon1, double lat1, double lon2, double lat2) {
        double lon1r = degRad(lon1);
        double lon2r = degRad(lon2);
        double v = GeoMath.sin((lon2r - lon1r) / 2);
        if (v == 0.0) return latDistance(lat1, lat2);
        double lat1r = degRad(lat1);
        double lat2r = degRad(lat2);
        double u = GeoMath.sin((lat2r - lat1r) / 2);
        double a = u * u + GeoMath.cos(lat1r) * GeoMath.cos(lat2r) * v * v;
        return 2.0 * EARTH_RADIUS * GeoMath.asin(Math.sqrt(a));
    }

    /** The same formula with the JDK's functions: within {@link #margin} of {@link #exact}. */
    static double fast(double lon1, double lat1, double lon2, double lat2) {
        double lon1r = degRad(lon1);
        double lon2r = degRad(lon2);
        double v = Math.sin((lon2r - lon1r) / 2);
        if (v == 0.0) return latDistance(lat1, lat2);
        double lat1r = degRad(lat1);
        double lat2r = degRad(lat2);
        double u = Math.sin((lat2r - lat1r) / 2);
        double a = u * u + Math.cos(lat1r) * Math.cos(lat2r) * v * v;
        return fromHaversine(a);
    }

    /** The fast distance for a haversine term computed as {@link #fast} computes it. */
    static double fromHaversine(double a) {
        double s = Math.sqrt(a);
        return 2.0 * EARTH_RADIUS * Math.atan(s / Math.sqrt((1 - s) * (1 + s)));
    }

    /**
     * A bound on |fast - exact| for a fast distance d (infinite where no useful bound exists).
     * Each trigonometric value of the two evaluations is within about an ulp of the true one, so
     * the haversine term differs by a few ulps relative; the arcsine turns a relative error e of
     * its argument s into e * tan(asin s) = e * tan(d / 2R), which grows without bound toward
     * antipodal points. The bound below is that estimate times a wide safety factor.
     */
    static double margin(double d) {
        double x = d / (2 * EARTH_RADIUS);
        if (!(x < 1.5)) return Double.POSITIVE_INFINITY;
        double tan = x < 1 ? 1.6 * x : Math.tan(x);
        return 0x1p-45 * (d + 2 * EARTH_RADIUS * tan);
    }
}
