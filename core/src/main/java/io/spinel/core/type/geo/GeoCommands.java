package io.spinel.core.type.geo;

import io.spinel.core.Client;
import io.spinel.core.Engine;
import io.spinel.core.Notify;
import io.spinel.core.command.CommandError;
import io.spinel.core.command.CommandHandler;
import io.spinel.core.keyspace.Db;
import io.spinel.core.keyspace.EncodingConfig;
import io.spinel.core.keyspace.Entries;
import io.spinel.core.keyspace.ValueType;
import io.spinel.core.protocol.Args;
import io.spinel.core.protocol.Reply;
import io.spinel.core.type.zset.ZSet;
import io.spinel.core.util.Bytes;

import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * The GEO commands (Redis's geo.c). A geo set is a sorted set whose scores are 52-bit geohashes
 * ({@link GeoHash}); GEOADD is ZADD with computed scores (and is propagated as that ZADD), the
 * searches walk the score ranges of nine grid cells ({@link GeoSearch}).
 *
 * <p>Arguments are checked in Redis's order so the same bad command gets the same error, and
 * options are matched as Redis's strcasecmp matches them (up to a NUL byte).
 */
public final class GeoCommands {
    private GeoCommands() {
    }

    /** The handler of each command CommandFamilies registers for this family, made when it first runs. */
    public static CommandHandler handler(String name) {
        return switch (name) {
            case "geoadd" -> GeoCommands::geoadd;
            case "geodist" -> GeoCommands::geodist;
            case "geohash" -> GeoCommands::geohash;
            case "geopos" -> GeoCommands::geopos;
            case "georadius" -> c -> search(c, 1, RADIUS_COORDS);
            case "georadiusbymember" -> c -> search(c, 1, RADIUS_MEMBER);
            case "georadius_ro" -> c -> search(c, 1, RADIUS_COORDS | NO_STORE);
            case "georadiusbymember_ro" -> c -> search(c, 1, RADIUS_MEMBER | NO_STORE);
            case "geosearch" -> c -> search(c, 1, GEOSEARCH);
            case "geosearchstore" -> c -> search(c, 2, GEOSEARCH | GEOSEARCHSTORE);
            default -> null;
        };
    }

    private static final byte[] ZADD = Bytes.ascii("zadd");
    private static final CommandError BAD_UNIT = CommandError.err("unsupported unit provided. please use M, KM, FT, MI");
    private static final CommandError BAD_MEMBER = CommandError.err("could not decode requested zset member");

    // ---- argument helpers -------------------------------------------------------------------------

    /** strcasecmp(arg, token) == 0: the argument as a C string (cut at a NUL) equals the token. */
    static boolean opt(Args a, int i, String lowerToken) {
        byte[] b = a.buf(i);
        int off = a.off(i), len = a.len(i);
        for (int k = 0; k < len; k++) {
            if (b[off + k] == 0) {
                len = k;
                break;
            }
        }
        return Bytes.equalsIgnoreCase(b, off, len, lowerToken);
    }

    private static ZSet readGeoSet(Client c, int i) {
        Args a = c.args();
        Object e = c.db().lookupRead(a.buf(i), a.off(i), a.len(i), !c.noTouch());
        return (ZSet) Entries.valueOf(e, ValueType.ZSET);
    }

    private static double argDouble(Client c, int i, CommandError error) {
        try {
            Args a = c.args();
            return io.spinel.core.util.Doubles.parse(a.buf(i), a.off(i), a.len(i));
        } catch (NumberFormatException e) {
            throw error;
        }
    }

    /** Longitude at i, latitude at i + 1, within Redis's limits (extractLongLatOrReply). */
    private static void lonLat(Client c, int i, double[] xy) {
        xy[0] = c.argDouble(i);
        xy[1] = c.argDouble(i + 1);
        if (xy[0] < GeoHash.LON_MIN || xy[0] > GeoHash.LON_MAX || xy[1] < GeoHash.LAT_MIN || xy[1] > GeoHash.LAT_MAX) {
            throw CommandError.err("invalid longitude,latitude pair " + printfF(xy[0]) + "," + printfF(xy[1]));
        }
    }

    /** printf's %f: six decimals of the exact value, rounded half to even, sign kept for -0. */
    static String printfF(double v) {
        if (Double.isInfinite(v)) return v > 0 ? "inf" : "-inf";
        if (Double.isNaN(v)) return "nan";
        boolean neg = v < 0 || (v == 0 && 1 / v < 0);
        String s = new BigDecimal(Math.abs(v)).setScale(6, RoundingMode.HALF_EVEN).toPlainString();
        return neg ? "-" + s : s;
    }

    /** Meters per unit (extractUnitOrReply). */
    private static double unit(Client c, int i) {
        Args a = c.args();
        if (opt(a, i, "m")) return 1;
        if (opt(a, i, "km")) return 1000;
        if (opt(a, i, "ft")) return 0.3048;
        if (opt(a, i, "mi")) return 1609.34;
        throw BAD_UNIT;
    }

    /** radius unit at i (extractDistanceOrReply). */
    private static void radius(Client c, int i, GeoSearch s) {
        double d = argDouble(c, i, CommandError.err("need numeric radius"));
        if (d < 0) throw CommandError.err("radius cannot be negative");
        s.radius = d;
        s.conversion = unit(c, i + 1);
    }

    /** width height unit at i (extractBoxOrReply). */
    private static void box(Client c, int i, GeoSearch s) {
        double w = argDouble(c, i, CommandError.err("need numeric width"));
        double h = argDouble(c, i + 1, CommandError.err("need numeric height"));
        if (h < 0 || w < 0) throw CommandError.err("height or width cannot be negative");
        s.height = h;
        s.width = w;
        s.conversion = unit(c, i + 2);
    }

    /** The position of a member (longLatFromMember); false when it is not in the set. */
    private static boolean memberPosition(ZSet z, Args a, int i, double[] xy) {
        double score = z.score(a.buf(i), a.off(i), a.len(i));
        if (Double.isNaN(score)) return false;
        GeoHash.decodeScore(score, xy);
        return true;
    }

    // ---- GEOADD ---------------------------------------------------------------------------------------

    /** GEOADD key [NX|XX] [CH] lon lat member ...: ZADD of the members' geohash scores. */
    /** Scratch for a parsed longitude and latitude (one per executor thread, reused). */
    private static final ThreadLocal<double[]> XY = ThreadLocal.withInitial(() -> new double[2]);

    static void geoadd(Client c) {
        Args a = c.args();
        int argc = a.count();
        boolean xx = false, nx = false, ch = false;
        int lonIdx = 2;
        while (lonIdx < argc) {
            if (opt(a, lonIdx, "nx")) nx = true;
            else if (opt(a, lonIdx, "xx")) xx = true;
            else if (opt(a, lonIdx, "ch")) ch = true;
            else break;
            lonIdx++;
        }
        if ((argc - lonIdx) % 3 != 0 || (xx && nx)) throw CommandError.SYNTAX;
        int elements = (argc - lonIdx) / 3;
        if (elements == 0) throw CommandError.SYNTAX;
        double[] xy = XY.get();
        // (one member, what nearly every GEOADD sends, needs no array)
        lonLat(c, lonIdx, xy);
        long firstScore = GeoHash.score(xy[0], xy[1]);
        long[] scores = null;
        if (elements > 1) {
            scores = new long[elements];
            scores[0] = firstScore;
            for (int j = 1; j < elements; j++) {
                lonLat(c, lonIdx + 3 * j, xy);
                scores[j] = GeoHash.score(xy[0], xy[1]);
            }
        }
        // from here on, Redis runs ZADD key [options] score member ... and propagates that
        if (c.propagates()) {
            byte[][] zadd = new byte[lonIdx + 2 * elements][];
            zadd[0] = ZADD;
            for (int j = 1; j < lonIdx; j++) zadd[j] = a.copy(j);
            for (int j = 0; j < elements; j++) {
                zadd[lonIdx + 2 * j] = Bytes.ascii(Long.toString(scores == null ? firstScore : scores[j]));
                zadd[lonIdx + 2 * j + 1] = a.copy(lonIdx + 3 * j + 2);
            }
            c.propagateAs(zadd);
        }

        Db db = c.db();
        Engine e = c.engine();
        Reply r = c.reply();
        ZSet z = (ZSet) Entries.valueOf(db.lookupWrite(a.buf(1), a.off(1), a.len(1)), ValueType.ZSET);
        if (z == null) {
            if (xx) {
                r.integer(0);
                return;
            }
            z = ZSet.newFor(e.encodings(), a.len(lonIdx + 2));
            db.put(a.buf(1), a.off(1), a.len(1), z.asEntry(a.copy(1), -1, e.keyspace().newLru()));
        }
        EncodingConfig cfg = e.encodings();
        int flags = (nx ? ZSet.IN_NX : 0) | (xx ? ZSet.IN_XX : 0);
        double[] newScore = xy; // where add leaves the score, which GEOADD does not use
        int added = 0, updated = 0;
        for (int j = 0; j < elements; j++) {
            int m = lonIdx + 3 * j + 2;
            int out = z.add((double) (scores == null ? firstScore : scores[j]), a.buf(m), a.off(m), a.len(m), flags, cfg,
                    newScore);
            if ((out & ZSet.OUT_ADDED) != 0) added++;
            if ((out & ZSet.OUT_UPDATED) != 0) updated++;
        }
        e.dirty += added + updated;
        r.integer(ch ? added + updated : added);
        if (added + updated > 0) {
            e.keyModified(db, a.buf(1), a.off(1), a.len(1));
            e.notify(Notify.ZSET, "zadd", db, a.buf(1), a.off(1), a.len(1));
        }
    }

    // ---- GEODIST / GEOHASH / GEOPOS ----------------------------------------------------------------

    static void geodist(Client c) {
        Args a = c.args();
        double toMeter = 1;
        if (a.count() == 5) toMeter = unit(c, 4);
        else if (a.count() > 5) throw CommandError.SYNTAX;
        Reply r = c.reply();
        ZSet z = readGeoSet(c, 1);
        if (z == null) {
            r.nullBulk();
            return;
        }
        double s1 = z.score(a.buf(2), a.off(2), a.len(2));
        double s2 = Double.isNaN(s1) ? Double.NaN : z.score(a.buf(3), a.off(3), a.len(3));
        if (Double.isNaN(s2)) {
            r.nullBulk();
            return;
        }
        double[] p1 = new double[2], p2 = new double[2];
        GeoHash.decodeScore(s1, p1);
        GeoHash.decodeScore(s2, p2);
        double fast = GeoDistance.fast(p1[0], p1[1], p2[0], p2[1]);
        r.bulk(GeoSearch.distanceText(fast, GeoDistance.margin(fast), toMeter, p1[0], p1[1], p2[0], p2[1]));
    }

    private static final byte[] GEO_ALPHABET = Bytes.ascii("0123456789bcdefghjkmnpqrstuvwxyz");

    /** GEOHASH: the standard 11-character geohash of each member (re-encoded over +-90 latitude). */
    static void geohash(Client c) {
        Args a = c.args();
        ZSet z = readGeoSet(c, 1);
        Reply r = c.reply();
        r.arrayHeader(a.count() - 2);
        double[] xy = new double[2];
        byte[] text = new byte[11];
        for (int j = 2; j < a.count(); j++) {
            double score = z == null ? Double.NaN : z.score(a.buf(j), a.off(j), a.len(j));
            if (Double.isNaN(score)) {
                r.nullBulk();
                continue;
            }
            GeoHash.decodeScore(score, xy);
            long bits = GeoHash.encode(-180, 180, -90, 90, xy[0], xy[1], 26);
            for (int i = 0; i < 10; i++) text[i] = GEO_ALPHABET[(int) ((bits >>> (52 - (i + 1) * 5)) & 0x1f)];
            // 52 bits make ten characters; the eleventh, for the customary length, is always '0'
            text[10] = GEO_ALPHABET[0];
            r.bulk(text, 0, 11);
        }
    }

    static void geopos(Client c) {
        Args a = c.args();
        ZSet z = readGeoSet(c, 1);
        Reply r = c.reply();
        r.arrayHeader(a.count() - 2);
        double[] xy = new double[2];
        for (int j = 2; j < a.count(); j++) {
            double score = z == null ? Double.NaN : z.score(a.buf(j), a.off(j), a.len(j));
            if (Double.isNaN(score)) {
                r.nullArray();
                continue;
            }
            GeoHash.decodeScore(score, xy);
            r.arrayHeader(2);
            r.dblText(GeoSearch.human(xy[0]));
            r.dblText(GeoSearch.human(xy[1]));
        }
    }

    // ---- GEORADIUS / GEORADIUSBYMEMBER / GEOSEARCH / GEOSEARCHSTORE ---------------------------------

    private static final int RADIUS_COORDS = 1, RADIUS_MEMBER = 2, NO_STORE = 4, GEOSEARCH = 8, GEOSEARCHSTORE = 16;
    private static final int SORT_NONE = 0, SORT_ASC = 1, SORT_DESC = 2;

    /** Redis's georadiusGeneric: srcKey is the source key's argument. */
    static void search(Client c, int srcKey, int flags) {
        Args a = c.args();
        int argc = a.count();
        ZSet z = readGeoSet(c, srcKey);
        GeoSearch s = new GeoSearch();
        double[] xy = new double[2];
        int storeKey = -1;
        boolean storeDist = false;
        int base;
        if ((flags & RADIUS_COORDS) != 0) {
            base = 6;
            lonLat(c, 2, xy);
            radius(c, base - 2, s);
        } else if ((flags & RADIUS_MEMBER) != 0) {
            base = 5;
            // without a source the member cannot be looked up: parsing goes on for the right reply
            if (z != null) {
                if (!memberPosition(z, a, 2, xy)) throw BAD_MEMBER;
                radius(c, base - 2, s);
            }
        } else {
            base = 2;
            if ((flags & GEOSEARCHSTORE) != 0) {
                base = 3;
                storeKey = 1;
            }
        }

        boolean withDist = false, withHash = false, withCoords = false;
        boolean fromMember = false, fromLoc = false, byRadius = false, byBox = false;
        int sort = SORT_NONE;
        boolean any = false;
        long count = 0;
        boolean search = (flags & GEOSEARCH) != 0;
        boolean storeAllowed = (flags & NO_STORE) == 0 && !search;
        int remaining = argc - base;
        for (int i = 0; i < remaining; i++) {
            int at = base + i;
            if (opt(a, at, "withdist")) {
                withDist = true;
            } else if (opt(a, at, "withhash")) {
                withHash = true;
            } else if (opt(a, at, "withcoord")) {
                withCoords = true;
            } else if (opt(a, at, "any")) {
                any = true;
            } else if (opt(a, at, "asc")) {
                sort = SORT_ASC;
            } else if (opt(a, at, "desc")) {
                sort = SORT_DESC;
            } else if (opt(a, at, "count") && i + 1 < remaining) {
                count = c.argLong(at + 1);
                if (count <= 0) throw CommandError.err("COUNT must be > 0");
                i++;
            } else if (opt(a, at, "store") && i + 1 < remaining && storeAllowed) {
                storeKey = at + 1;
                storeDist = false;
                i++;
            } else if (opt(a, at, "storedist") && i + 1 < remaining && storeAllowed) {
                storeKey = at + 1;
                storeDist = true;
                i++;
            } else if (opt(a, at, "storedist") && search && (flags & GEOSEARCHSTORE) != 0) {
                storeDist = true;
            } else if (opt(a, at, "frommember") && i + 1 < remaining && search && !fromLoc) {
                if (z != null && !memberPosition(z, a, at + 1, xy)) throw BAD_MEMBER;
                fromMember = true;
                i++;
            } else if (opt(a, at, "fromlonlat") && i + 2 < remaining && search && !fromMember) {
                lonLat(c, at + 1, xy);
                fromLoc = true;
                i += 2;
            } else if (opt(a, at, "byradius") && i + 2 < remaining && search && !byBox) {
                radius(c, at + 1, s);
                s.box = false;
                byRadius = true;
                i += 2;
            } else if (opt(a, at, "bybox") && i + 3 < remaining && search && !byRadius) {
                box(c, at + 1, s);
                s.box = true;
                byBox = true;
                i += 3;
            } else {
                throw CommandError.SYNTAX;
            }
        }

        if (storeKey >= 0 && (withDist || withHash || withCoords)) {
            throw CommandError.err(((flags & GEOSEARCHSTORE) != 0 ? "GEOSEARCHSTORE" : "STORE option in GEORADIUS")
                    + " is not compatible with WITHDIST, WITHHASH and WITHCOORD options");
        }
        if (search && !(fromMember || fromLoc)) {
            throw CommandError.err("exactly one of FROMMEMBER or FROMLONLAT can be specified for " + a.string(0));
        }
        if (search && !(byRadius || byBox)) {
            throw CommandError.err("exactly one of BYRADIUS and BYBOX can be specified for " + a.string(0));
        }
        if (any && count == 0) throw CommandError.err("the ANY argument requires COUNT argument");

        Reply r = c.reply();
        if (z == null) {
            if (storeKey >= 0) {
                deleteStoreKey(c, storeKey);
                r.integer(0);
            } else {
                r.emptyArray();
            }
            return;
        }
        // COUNT alone means the closest ones
        if (count != 0 && sort == SORT_NONE && !any) sort = SORT_ASC;

        s.lon = xy[0];
        s.lat = xy[1];
        s.computeCells();
        s.collect(z, any ? count : 0);

        if (s.used == 0 && storeKey < 0) {
            r.emptyArray();
            return;
        }
        int returned = count == 0 || s.used < count ? s.used : (int) count;
        if (sort != SORT_NONE) s.sort(sort == SORT_DESC, returned);
        else s.keepOrder();

        if (storeKey < 0) {
            int options = (withDist ? 1 : 0) + (withCoords ? 1 : 0) + (withHash ? 1 : 0);
            r.arrayHeader(returned);
            for (int k = 0; k < returned; k++) {
                int i = s.order[k];
                if (options > 0) r.arrayHeader(options + 1);
                r.bulk(s.bufs[i], s.offs[i], s.lens[i]);
                if (withDist) r.bulk(s.distanceText(i, s.conversion));
                if (withHash) r.integer((long) s.scores[i]);
                if (withCoords) {
                    r.arrayHeader(2);
                    r.dblText(GeoSearch.human(s.lons[i]));
                    r.dblText(GeoSearch.human(s.lats[i]));
                }
            }
        } else {
            store(c, s, storeKey, storeDist, returned, search);
        }
    }

    /** The results as a new sorted set at the store key (scores: geohashes, or distances). */
    private static void store(Client c, GeoSearch s, int storeKey, boolean storeDist, int returned, boolean search) {
        Args a = c.args();
        Engine e = c.engine();
        Db db = c.db();
        if (returned > 0) {
            EncodingConfig cfg = e.encodings();
            ZSet result = ZSet.newSkiplist();
            long maxLen = 0, totalLen = 0;
            for (int k = 0; k < returned; k++) {
                int i = s.order[k];
                double score = storeDist ? s.exactDistance(i) / s.conversion : s.scores[i];
                maxLen = Math.max(maxLen, s.lens[i]);
                totalLen += s.lens[i];
                result.insertNew(score, s.bufs[i], s.offs[i], s.lens[i], cfg);
            }
            result.convertToPackedIfNeeded(cfg, maxLen, totalLen);
            // setKey: an expired key at the destination goes first, as its lookup does in Redis
            db.lookupWrite(a.buf(storeKey), a.off(storeKey), a.len(storeKey));
            db.put(a.buf(storeKey), a.off(storeKey), a.len(storeKey),
                    result.asEntry(a.copy(storeKey), -1, e.keyspace().newLru()));
            e.keyModified(db, a.buf(storeKey), a.off(storeKey), a.len(storeKey));
            e.notify(Notify.ZSET, search ? "geosearchstore" : "georadiusstore", db, a.buf(storeKey), a.off(storeKey),
                    a.len(storeKey));
            e.dirty += returned;
        } else {
            deleteStoreKey(c, storeKey);
        }
        c.reply().integer(returned);
    }

    private static void deleteStoreKey(Client c, int storeKey) {
        Args a = c.args();
        Engine e = c.engine();
        if (c.db().remove(a.buf(storeKey), a.off(storeKey), a.len(storeKey)) != null) {
            e.keyModified(c.db(), a.buf(storeKey), a.off(storeKey), a.len(storeKey));
            e.notify(Notify.GENERIC, "del", c.db(), a.buf(storeKey), a.off(storeKey), a.len(storeKey));
            e.dirty++;
        }
    }
}
