package io.spinel.core.type.zset;

import io.spinel.core.Client;
import io.spinel.core.Engine;
import io.spinel.core.Notify;
import io.spinel.core.command.CommandError;
import io.spinel.core.command.CommandHandler;
import io.spinel.core.keyspace.Db;
import io.spinel.core.keyspace.DbObject;
import io.spinel.core.keyspace.EncodingConfig;
import io.spinel.core.keyspace.Entries;
import io.spinel.core.keyspace.KeyCommands;
import io.spinel.core.keyspace.Value;
import io.spinel.core.keyspace.ValueType;
import io.spinel.core.protocol.Args;
import io.spinel.core.protocol.Reply;
import io.spinel.core.util.Bytes;
import io.spinel.core.util.Doubles;

import java.util.Arrays;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.SplittableRandom;

/**
 * Sorted set commands (Redis's t_zset.c), over {@link ZSet}. Argument checks happen in Redis's
 * order, so the same bad command gets the same error; replies are written straight from the set's
 * storage.
 *
 * <p>The blocking pops (BZPOPMIN, BZPOPMAX, BZMPOP) belong to the blocking layer; what they share
 * with ZPOPMIN/ZPOPMAX/ZMPOP is {@link #popAndReply}, {@link #propagatePop} and
 * {@link #parseMpopArgs}.
 */
public final class ZSetCommands {
    private ZSetCommands() {
    }

    private static final SplittableRandom RANDOM = new SplittableRandom();

    /**
     * What the range commands fill in instead of allocating: each engine runs its commands on one
     * thread, and none of these commands runs another while it uses them (a script's ZRANGE ends
     * before the script goes on).
     */
    private static final class Scratch {
        final ScoreRange score = new ScoreRange();
        final LexRange lex = new LexRange();
        final ClientSink sink = new ClientSink();
    }

    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);
    private static final byte[] ZPOPMIN = Bytes.ascii("ZPOPMIN");
    private static final byte[] ZPOPMAX = Bytes.ascii("ZPOPMAX");

    /** The handler of each command CommandFamilies registers for this family, made when it first runs. */
    public static CommandHandler handler(String name) {
        return switch (name) {
            case "zadd" -> c -> zadd(c, 0);
            case "zincrby" -> c -> zadd(c, ZSet.IN_INCR);
            case "zcard" -> ZSetCommands::zcard;
            case "zscore" -> ZSetCommands::zscore;
            case "zmscore" -> ZSetCommands::zmscore;
            case "zrank" -> c -> zrank(c, false);
            case "zrevrank" -> c -> zrank(c, true);
            case "zrem" -> ZSetCommands::zrem;
            case "zremrangebyrank" -> c -> zremrange(c, RANK);
            case "zremrangebyscore" -> c -> zremrange(c, SCORE);
            case "zremrangebylex" -> c -> zremrange(c, LEX);
            case "zcount" -> ZSetCommands::zcount;
            case "zlexcount" -> ZSetCommands::zlexcount;
            case "zrange" -> c -> zrange(c, 1, false, AUTO, AUTO);
            case "zrangestore" -> c -> zrange(c, 2, true, AUTO, AUTO);
            case "zrevrange" -> c -> zrange(c, 1, false, RANK, REVERSE);
            case "zrangebyscore" -> c -> zrange(c, 1, false, SCORE, FORWARD);
            case "zrevrangebyscore" -> c -> zrange(c, 1, false, SCORE, REVERSE);
            case "zrangebylex" -> c -> zrange(c, 1, false, LEX, FORWARD);
            case "zrevrangebylex" -> c -> zrange(c, 1, false, LEX, REVERSE);
            case "zunionstore" -> c -> setOperation(c, 1, 2, UNION, false);
            case "zinterstore" -> c -> setOperation(c, 1, 2, INTER, false);
            case "zdiffstore" -> c -> setOperation(c, 1, 2, DIFF, false);
            case "zunion" -> c -> setOperation(c, -1, 1, UNION, false);
            case "zinter" -> c -> setOperation(c, -1, 1, INTER, false);
            case "zdiff" -> c -> setOperation(c, -1, 1, DIFF, false);
            case "zintercard" -> c -> setOperation(c, -1, 1, INTER, true);
            case "zpopmin" -> c -> zpop(c, false);
            case "zpopmax" -> c -> zpop(c, true);
            case "zmpop" -> ZSetCommands::zmpop;
            case "zrandmember" -> ZSetCommands::zrandmember;
            case "zscan" -> ZSetCommands::zscan;
            default -> null;
        };
    }

    // ---- helpers ------------------------------------------------------------------------------------

    /** The sorted set at key argument i for reading; null if missing; WRONGTYPE otherwise. */
    private static ZSet read(Client c, int i) {
        Args a = c.args();
        Object e = c.db().lookupRead(a.buf(i), a.off(i), a.len(i), !c.noTouch());
        return (ZSet) Entries.valueOf(e, ValueType.ZSET);
    }

    static ZSet write(Client c, int i) {
        Args a = c.args();
        Object e = c.db().lookupWrite(a.buf(i), a.off(i), a.len(i));
        return (ZSet) Entries.valueOf(e, ValueType.ZSET);
    }

    private static void store(Client c, int keyArg, DbObject v) {
        Args a = c.args();
        c.db().put(a.buf(keyArg), a.off(keyArg), a.len(keyArg),
                v.asEntry(a.copy(keyArg), -1, c.engine().keyspace().newLru()));
    }

    private static void changed(Client c, int keyArg, String event) {
        Args a = c.args();
        Engine e = c.engine();
        e.keyModified(c.db(), a.buf(keyArg), a.off(keyArg), a.len(keyArg));
        e.notify(Notify.ZSET, event, c.db(), a.buf(keyArg), a.off(keyArg), a.len(keyArg));
    }

    private static final CommandError NOT_POSITIVE = CommandError.err("value is out of range, must be positive");
    private static final CommandError BAD_NUMKEYS = CommandError.err("numkeys should be greater than 0");
    private static final CommandError BAD_COUNT = CommandError.err("count should be greater than 0");
    private static final CommandError NEGATIVE_LIMIT = CommandError.err("LIMIT can't be negative");

    /** Redis's getRangeLongFromObjectOrReply with a custom message for every failure. */
    private static long argLongInRange(Client c, int i, long min, long max, CommandError err) {
        long v = c.argLong(i, err);
        if (v < min || v > max) throw err;
        return v;
    }

    /** A member and its score, in the reply shapes the range commands use. */
    private static void replyElement(Reply r, byte[] b, int off, int len, double score, boolean withScores) {
        if (withScores && r.resp3()) r.arrayHeader(2);
        r.bulk(b, off, len);
        if (withScores) r.dbl(score);
    }

    // ---- ZADD / ZINCRBY -------------------------------------------------------------------------------

    /** Where ZSet.add leaves the element's score (one per executor thread, reused). */
    private static final ThreadLocal<double[]> NEW_SCORE = ThreadLocal.withInitial(() -> new double[1]);

    static void zadd(Client c, int baseFlags) {
        Args a = c.args();
        int argc = a.count();
        int flags = baseFlags;
        boolean ch = false;
        int si = 2;
        while (si < argc) {
            if (a.is(si, "nx")) flags |= ZSet.IN_NX;
            else if (a.is(si, "xx")) flags |= ZSet.IN_XX;
            else if (a.is(si, "ch")) ch = true;
            else if (a.is(si, "incr")) flags |= ZSet.IN_INCR;
            else if (a.is(si, "gt")) flags |= ZSet.IN_GT;
            else if (a.is(si, "lt")) flags |= ZSet.IN_LT;
            else break;
            si++;
        }
        boolean incr = (flags & ZSet.IN_INCR) != 0;
        boolean nx = (flags & ZSet.IN_NX) != 0;
        boolean xx = (flags & ZSet.IN_XX) != 0;
        boolean gt = (flags & ZSet.IN_GT) != 0;
        boolean lt = (flags & ZSet.IN_LT) != 0;
        int elements = argc - si;
        if (elements % 2 != 0 || elements == 0) throw CommandError.SYNTAX;
        elements /= 2;
        if (nx && xx) throw CommandError.err("XX and NX options at the same time are not compatible");
        if ((gt && nx) || (lt && nx) || (gt && lt)) {
            throw CommandError.err("GT, LT, and/or NX options at the same time are not compatible");
        }
        if (incr && elements > 1) throw CommandError.err("INCR option supports a single increment-element pair");
        // all scores first: the command either runs entirely or not at all
        // (one pair, what nearly every ZADD sends, needs no array)
        double firstScore = c.argDouble(si);
        double[] scores = null;
        if (elements > 1) {
            scores = new double[elements];
            scores[0] = firstScore;
            for (int j = 1; j < elements; j++) scores[j] = c.argDouble(si + 2 * j);
        }

        Reply r = c.reply();
        ZSet z = write(c, 1);
        if (z == null) {
            if (xx) {
                if (incr) r.nullBulk();
                else r.integer(0);
                return;
            }
            z = ZSet.newFor(c.engine().encodings(), a.len(si + 1));
            store(c, 1, z);
        }
        EncodingConfig cfg = c.engine().encodings();
        double[] newScore = NEW_SCORE.get();
        double score = 0;
        int added = 0, updated = 0, processed = 0;
        for (int j = 0; j < elements; j++) {
            int m = si + 1 + 2 * j;
            int out = z.add(scores == null ? firstScore : scores[j], a.buf(m), a.off(m), a.len(m), flags, cfg, newScore);
            if ((out & ZSet.OUT_NAN) != 0) {
                if (added + updated > 0) changed(c, 1, incr ? "zincr" : "zadd");
                throw CommandError.err("resulting score is not a number (NaN)");
            }
            if ((out & ZSet.OUT_ADDED) != 0) added++;
            if ((out & ZSet.OUT_UPDATED) != 0) updated++;
            if ((out & ZSet.OUT_NOP) == 0) processed++;
            score = newScore[0];
        }
        c.engine().dirty += added + updated;
        if (incr) {
            if (processed > 0) r.dbl(score);
            else r.nullBulk();
        } else {
            r.integer(ch ? added + updated : added);
        }
        if (added + updated > 0) changed(c, 1, incr ? "zincr" : "zadd");
    }

    // ---- simple reads ---------------------------------------------------------------------------------

    static void zcard(Client c) {
        ZSet z = read(c, 1);
        c.reply().integer(z == null ? 0 : z.size());
    }

    static void zscore(Client c) {
        ZSet z = read(c, 1);
        Args a = c.args();
        double s = z == null ? Double.NaN : z.score(a.buf(2), a.off(2), a.len(2));
        if (Double.isNaN(s)) c.reply().nullBulk();
        else c.reply().dbl(s);
    }

    static void zmscore(Client c) {
        ZSet z = read(c, 1);
        Args a = c.args();
        Reply r = c.reply();
        r.arrayHeader(a.count() - 2);
        for (int j = 2; j < a.count(); j++) {
            double s = z == null ? Double.NaN : z.score(a.buf(j), a.off(j), a.len(j));
            if (Double.isNaN(s)) r.nullBulk();
            else r.dbl(s);
        }
    }

    static void zrank(Client c, boolean reverse) {
        ZSet z = read(c, 1);
        Args a = c.args();
        long rank = z == null ? -1 : z.rank(a.buf(2), a.off(2), a.len(2), reverse);
        if (rank < 0) c.reply().nullBulk();
        else c.reply().integer(rank);
    }

    // ---- ZREM / ZREMRANGEBY* ------------------------------------------------------------------------

    static void zrem(Client c) {
        ZSet z = write(c, 1);
        Reply r = c.reply();
        if (z == null) {
            r.integer(0);
            return;
        }
        Args a = c.args();
        long deleted = 0;
        boolean keyRemoved = false;
        for (int j = 2; j < a.count(); j++) {
            if (z.remove(a.buf(j), a.off(j), a.len(j))) deleted++;
            if (z.size() == 0) {
                c.db().remove(a.buf(1), a.off(1), a.len(1));
                keyRemoved = true;
                break;
            }
        }
        if (deleted > 0) {
            Engine e = c.engine();
            e.notify(Notify.ZSET, "zrem", c.db(), a.buf(1), a.off(1), a.len(1));
            if (keyRemoved) e.notify(Notify.GENERIC, "del", c.db(), a.buf(1), a.off(1), a.len(1));
            e.keyModified(c.db(), a.buf(1), a.off(1), a.len(1));
            e.dirty += deleted;
        }
        r.integer(deleted);
    }

    private static final int AUTO = 0, RANK = 1, SCORE = 2, LEX = 3;
    private static final int FORWARD = 1, REVERSE = 2;

    private static CommandError notFloatRange() {
        return CommandError.err("min or max is not a float");
    }

    private static CommandError notLexRange() {
        return CommandError.err("min or max not valid string range item");
    }

    static void zremrange(Client c, int type) {
        Args a = c.args();
        long start = 0, end = 0;
        ScoreRange range = null;
        LexRange lex = null;
        String event;
        if (type == RANK) {
            event = "zremrangebyrank";
            start = c.argLong(2);
            end = c.argLong(3);
        } else if (type == SCORE) {
            event = "zremrangebyscore";
            range = SCRATCH.get().score;
            if (!range.parse(a.buf(2), a.off(2), a.len(2), a.buf(3), a.off(3), a.len(3))) throw notFloatRange();
        } else {
            event = "zremrangebylex";
            lex = SCRATCH.get().lex;
            if (!lex.parse(a.buf(2), a.off(2), a.len(2), a.buf(3), a.off(3), a.len(3))) throw notLexRange();
        }
        Reply r = c.reply();
        ZSet z = write(c, 1);
        if (z == null) {
            r.integer(0);
            return;
        }
        long deleted;
        if (type == RANK) {
            long llen = z.size();
            if (start < 0) start += llen;
            if (end < 0) end += llen;
            if (start < 0) start = 0;
            if (start > end || start >= llen) {
                r.integer(0);
                return;
            }
            if (end >= llen) end = llen - 1;
            deleted = z.removeRangeByRank(start, end);
        } else if (type == SCORE) {
            deleted = z.removeRangeByScore(range);
        } else {
            deleted = z.removeRangeByLex(lex);
            lex.release();
        }
        boolean keyRemoved = z.size() == 0;
        if (keyRemoved) c.db().remove(a.buf(1), a.off(1), a.len(1));
        if (deleted > 0) {
            changed(c, 1, event);
            if (keyRemoved) c.engine().notify(Notify.GENERIC, "del", c.db(), a.buf(1), a.off(1), a.len(1));
        }
        c.engine().dirty += deleted;
        r.integer(deleted);
    }

    // ---- ZCOUNT / ZLEXCOUNT --------------------------------------------------------------------------

    static void zcount(Client c) {
        Args a = c.args();
        ScoreRange range = SCRATCH.get().score;
        if (!range.parse(a.buf(2), a.off(2), a.len(2), a.buf(3), a.off(3), a.len(3))) throw notFloatRange();
        ZSet z = read(c, 1);
        c.reply().integer(z == null ? 0 : z.count(range));
    }

    static void zlexcount(Client c) {
        Args a = c.args();
        LexRange range = SCRATCH.get().lex;
        if (!range.parse(a.buf(2), a.off(2), a.len(2), a.buf(3), a.off(3), a.len(3))) throw notLexRange();
        ZSet z = read(c, 1);
        c.reply().integer(z == null ? 0 : z.lexCount(range));
        range.release();
    }

    // ---- ZRANGE family ----------------------------------------------------------------------------------

    /** Where range results go: the client (ZRANGE...) or a new sorted set (ZRANGESTORE). */
    private interface RangeSink {
        /** The number of results when known in advance, else -1. */
        void begin(long length);

        void emit(byte[] b, int off, int len, double score);

        void finish(long count);
    }

    /** Reused ({@link Scratch}): {@link #to} points it at a reply, {@link #finish} lets go of it. */
    private static final class ClientSink implements RangeSink {
        private Reply r;
        private boolean withScores;
        private int deferred;

        ClientSink to(Reply r, boolean withScores) {
            this.r = r;
            this.withScores = withScores;
            this.deferred = -1;
            return this;
        }

        @Override
        public void begin(long length) {
            if (length > 0) r.arrayHeader(withScores && !r.resp3() ? length * 2 : length);
            else deferred = r.deferLength();
        }

        @Override
        public void emit(byte[] b, int off, int len, double score) {
            replyElement(r, b, off, len, score, withScores);
        }

        @Override
        public void finish(long count) {
            if (deferred >= 0) r.setDeferredLength(deferred, '*', withScores && !r.resp3() ? count * 2 : count);
            r = null;
        }
    }

    private static final class StoreSink implements RangeSink {
        private final Client c;
        private final int dstArg;
        private ZSet result;

        StoreSink(Client c, int dstArg) {
            this.c = c;
            this.dstArg = dstArg;
        }

        @Override
        public void begin(long length) {
            result = length > c.engine().encodings().zsetMaxListpackEntries ? ZSet.newSkiplist() : ZSet.newPacked();
        }

        @Override
        public void emit(byte[] b, int off, int len, double score) {
            result.insertNew(score, b, off, len, c.engine().encodings());
        }

        @Override
        public void finish(long count) {
            storeResult(c, dstArg, result, "zrangestore");
        }
    }

    /**
     * Stores a *STORE command's result at the destination, or deletes the destination when the
     * result is empty; replies with the result's size.
     */
    private static void storeResult(Client c, int dstArg, ZSet result, String event) {
        Args a = c.args();
        Engine e = c.engine();
        if (result.size() > 0) {
            store(c, dstArg, result);
            c.reply().integer(result.size());
            changed(c, dstArg, event);
            e.dirty++;
        } else {
            c.reply().integer(0);
            if (c.db().remove(a.buf(dstArg), a.off(dstArg), a.len(dstArg)) != null) {
                e.keyModified(c.db(), a.buf(dstArg), a.off(dstArg), a.len(dstArg));
                e.notify(Notify.GENERIC, "del", c.db(), a.buf(dstArg), a.off(dstArg), a.len(dstArg));
                e.dirty++;
            }
        }
    }

    /**
     * ZRANGE, ZRANGESTORE and the older Z[REV]RANGE[BYSCORE|BYLEX] (Redis's zrangeGenericCommand):
     * {@code src} is the source key's argument, followed by min, max and the options.
     */
    static void zrange(Client c, int src, boolean store, int rangeType, int direction) {
        Args a = c.args();
        int argc = a.count();
        int minIdx = src + 1, maxIdx = src + 2;
        boolean withScores = false;
        long offset = 0, limit = -1;
        for (int j = src + 3; j < argc; j++) {
            int left = argc - j - 1;
            if (!store && a.is(j, "withscores")) {
                withScores = true;
            } else if (a.is(j, "limit") && left >= 2) {
                offset = c.argLong(j + 1);
                limit = c.argLong(j + 2);
                j += 2;
            } else if (direction == AUTO && a.is(j, "rev")) {
                direction = REVERSE;
            } else if (rangeType == AUTO && a.is(j, "bylex")) {
                rangeType = LEX;
            } else if (rangeType == AUTO && a.is(j, "byscore")) {
                rangeType = SCORE;
            } else {
                throw CommandError.SYNTAX;
            }
        }
        if (direction == AUTO) direction = FORWARD;
        if (rangeType == AUTO) rangeType = RANK;
        if (limit != -1 && rangeType == RANK) {
            throw CommandError.err("syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX");
        }
        if (withScores && rangeType == LEX) {
            throw CommandError.err("syntax error, WITHSCORES not supported in combination with BYLEX");
        }
        boolean reverse = direction == REVERSE;
        if (reverse && rangeType != RANK) {
            // the range is given as max, min
            minIdx = src + 2;
            maxIdx = src + 1;
        }
        long start = 0, end = 0;
        ScoreRange range = null;
        LexRange lex = null;
        if (rangeType == RANK) {
            start = c.argLong(minIdx);
            end = c.argLong(maxIdx);
        } else if (rangeType == SCORE) {
            range = SCRATCH.get().score;
            if (!range.parse(a.buf(minIdx), a.off(minIdx), a.len(minIdx), a.buf(maxIdx), a.off(maxIdx),
                    a.len(maxIdx))) {
                throw notFloatRange();
            }
        } else {
            lex = SCRATCH.get().lex;
            if (!lex.parse(a.buf(minIdx), a.off(minIdx), a.len(minIdx), a.buf(maxIdx), a.off(maxIdx),
                    a.len(maxIdx))) {
                throw notLexRange();
            }
        }
        ZSet z = read(c, src);
        if (z == null && !store) {
            c.reply().emptyArray();
            if (lex != null) lex.release();
            return;
        }
        RangeSink sink = store ? new StoreSink(c, 1) : SCRATCH.get().sink.to(c.reply(), withScores);
        if (z == null) {
            sink.begin(-1);
            sink.finish(0);
        } else if (rangeType == RANK) {
            rangeByRank(sink, z, start, end, reverse);
        } else if (rangeType == SCORE) {
            rangeByScore(sink, z, range, offset, limit, reverse);
        } else {
            rangeByLex(sink, z, lex, offset, limit, reverse);
        }
        if (lex != null) lex.release();
    }

    private static void rangeByRank(RangeSink sink, ZSet z, long start, long end, boolean reverse) {
        long llen = z.size();
        if (start < 0) start += llen;
        if (end < 0) end += llen;
        if (start < 0) start = 0;
        if (start > end || start >= llen) {
            sink.begin(0);
            sink.finish(0);
            return;
        }
        if (end >= llen) end = llen - 1;
        long n = end - start + 1;
        sink.begin(n);
        ZIter it = z.atRank(reverse ? llen - 1 - start : start);
        for (long i = 0; i < n; i++) {
            sink.emit(it.buf(), it.off(), it.len(), it.score());
            if (reverse) it.prev();
            else it.next();
        }
        sink.finish(n);
    }

    private static void rangeByScore(RangeSink sink, ZSet z, ScoreRange range, long offset, long limit,
            boolean reverse) {
        sink.begin(-1);
        if (offset > 0 && offset >= z.size()) {
            sink.finish(0);
            return;
        }
        ZIter it = reverse ? z.lastInRange(range) : z.firstInRange(range);
        // a negative offset skips everything, as Redis's countdown loop does
        while (it.valid() && offset != 0) {
            offset--;
            if (reverse) it.prev();
            else it.next();
        }
        long n = 0;
        while (it.valid() && limit-- != 0) {
            double s = it.score();
            if (reverse ? !range.gteMin(s) : !range.lteMax(s)) break;
            sink.emit(it.buf(), it.off(), it.len(), s);
            n++;
            if (reverse) it.prev();
            else it.next();
        }
        sink.finish(n);
    }

    private static void rangeByLex(RangeSink sink, ZSet z, LexRange range, long offset, long limit, boolean reverse) {
        sink.begin(-1);
        ZIter it = reverse ? z.lastInLexRange(range) : z.firstInLexRange(range);
        while (it.valid() && offset != 0) {
            offset--;
            if (reverse) it.prev();
            else it.next();
        }
        long n = 0;
        while (it.valid() && limit-- != 0) {
            if (reverse ? !range.gteMin(it.buf(), it.off(), it.len()) : !range.lteMax(it.buf(), it.off(), it.len())) {
                break;
            }
            sink.emit(it.buf(), it.off(), it.len(), it.score());
            n++;
            if (reverse) it.prev();
            else it.next();
        }
        sink.finish(n);
    }

    // ---- ZUNION / ZINTER / ZDIFF [STORE], ZINTERCARD ------------------------------------------------------

    private static final int UNION = 0, INTER = 1, DIFF = 2;
    private static final int SUM = 0, MIN = 1, MAX = 2;

    /** An input of a set operation: a sorted set, a plain set (scores 1) or a missing key. */
    private static final class Source {
        final ZSet z;
        final SetInput set;
        final long size;
        double weight = 1.0;

        Source(Value v) {
            if (v == null) {
                z = null;
                set = null;
                size = 0;
            } else if (v instanceof ZSet) {
                z = (ZSet) v;
                set = null;
                size = z.size();
            } else if (v instanceof SetInput) {
                z = null;
                set = (SetInput) v;
                size = set.size();
            } else {
                throw new IllegalStateException("set value " + v.getClass().getName() + " does not implement "
                        + SetInput.class.getName());
            }
        }

        /** The member's score in this input, NaN when absent. */
        double find(byte[] b, int off, int len) {
            if (z != null) return z.score(b, off, len);
            if (set != null) return set.contains(b, off, len) ? 1.0 : Double.NaN;
            return Double.NaN;
        }
    }

    /** Receives the elements of a source: member slice and score. */
    private interface ElementVisitor {
        void element(byte[] b, int off, int len, double score);
    }

    /**
     * Visits every element of a source; sorted sets from the highest score down, as Redis iterates
     * them (only the order of floating point aggregation can depend on it).
     */
    private static void forEach(Source s, ElementVisitor v) {
        if (s.z != null) {
            for (ZIter it = s.z.last(); it.valid(); it.prev()) v.element(it.buf(), it.off(), it.len(), it.score());
        } else if (s.set != null) {
            s.set.forEachMember((b, off, len) -> v.element(b, off, len, 1.0));
        }
    }

    private static double aggregate(double target, double val, int how) {
        if (how == SUM) {
            double r = target + val;
            return Double.isNaN(r) ? 0.0 : r; // inf + -inf: Redis's convention is 0
        }
        if (how == MIN) return val < target ? val : target;
        return val > target ? val : target;
    }

    static void setOperation(Client c, int dstArg, int numkeysIdx, int op, boolean cardOnly) {
        Args a = c.args();
        int argc = a.count();
        long setnum = c.argLong(numkeysIdx);
        if (setnum < 1) {
            throw CommandError.err("at least 1 input key is needed for '"
                    + Bytes.toLowerAscii(a.buf(0), a.off(0), a.len(0)) + "' command");
        }
        if (setnum > argc - (numkeysIdx + 1)) throw CommandError.SYNTAX;
        int n = (int) setnum;
        Source[] src = new Source[n];
        Db db = c.db();
        int j = numkeysIdx + 1;
        for (int i = 0; i < n; i++, j++) {
            Object e = db.lookupRead(a.buf(j), a.off(j), a.len(j), !c.noTouch());
            Value v = null;
            if (e != null) {
                int t = Entries.type(e);
                if (t != ValueType.ZSET && t != ValueType.SET) throw CommandError.WRONGTYPE;
                v = (DbObject) e;
            }
            src[i] = new Source(v);
        }
        int how = SUM;
        boolean withScores = false;
        long limit = 0;
        while (j < argc) {
            int remaining = argc - j;
            if (op != DIFF && !cardOnly && remaining >= setnum + 1 && a.is(j, "weights")) {
                j++;
                for (int i = 0; i < n; i++, j++) {
                    try {
                        src[i].weight = Doubles.parse(a.buf(j), a.off(j), a.len(j));
                    } catch (NumberFormatException ex) {
                        throw CommandError.err("weight value is not a float");
                    }
                }
            } else if (op != DIFF && !cardOnly && remaining >= 2 && a.is(j, "aggregate")) {
                j++;
                if (a.is(j, "sum")) how = SUM;
                else if (a.is(j, "min")) how = MIN;
                else if (a.is(j, "max")) how = MAX;
                else throw CommandError.SYNTAX;
                j++;
            } else if (remaining >= 1 && dstArg < 0 && !cardOnly && a.is(j, "withscores")) {
                j++;
                withScores = true;
            } else if (cardOnly && remaining >= 2 && a.is(j, "limit")) {
                j++;
                limit = argLongInRange(c, j, 0, Long.MAX_VALUE, NEGATIVE_LIMIT);
                j++;
            } else {
                throw CommandError.SYNTAX;
            }
        }
        if (op != DIFF) Arrays.sort(src, Comparator.comparingLong(s -> s.size)); // stable, like glibc's qsort

        if (cardOnly) {
            c.reply().integer(interCard(src, limit));
            return;
        }
        ZSet result = ZSet.newSkiplist();
        long[] lens = new long[2]; // longest member, total member bytes
        if (op == INTER) inter(src, how, result, lens);
        else if (op == UNION) union(src, how, result, lens);
        else diff(src, result, lens);

        if (dstArg >= 0) {
            if (result.size() > 0) result.convertToPackedIfNeeded(c.engine().encodings(), lens[0], lens[1]);
            storeResult(c, dstArg, result, op == UNION ? "zunionstore" : op == INTER ? "zinterstore" : "zdiffstore");
            return;
        }
        Reply r = c.reply();
        long size = result.size();
        r.arrayHeader(withScores && !r.resp3() ? size * 2 : size);
        for (ZIter it = result.first(); it.valid(); it.next()) {
            replyElement(r, it.buf(), it.off(), it.len(), it.score(), withScores);
        }
    }

    private static void track(long[] lens, int len) {
        if (len > lens[0]) lens[0] = len;
        lens[1] += len;
    }

    private static void inter(Source[] src, int how, ZSet result, long[] lens) {
        if (src[0].size == 0) return;
        forEach(src[0], (b, off, len, sc) -> {
            double score = src[0].weight * sc;
            if (Double.isNaN(score)) score = 0;
            for (int k = 1; k < src.length; k++) {
                double v = src[k].find(b, off, len);
                if (Double.isNaN(v)) return;
                score = aggregate(score, v * src[k].weight, how);
            }
            result.tree.insert(score, b, off, len);
            track(lens, len);
        });
    }

    private static long interCard(Source[] src, long limit) {
        if (src[0].size == 0) return 0;
        long[] card = {0};
        forEach(src[0], (b, off, len, sc) -> {
            if (limit > 0 && card[0] >= limit) return;
            for (int k = 1; k < src.length; k++) {
                if (Double.isNaN(src[k].find(b, off, len))) return;
            }
            card[0]++;
        });
        return card[0];
    }

    private static void union(Source[] src, int how, ZSet result, long[] lens) {
        ScoreMap acc = new ScoreMap(src.length == 0 ? 16 : src[src.length - 1].size);
        for (Source s : src) {
            if (s.size == 0) continue;
            forEach(s, (b, off, len, sc) -> {
                double score = s.weight * sc;
                if (Double.isNaN(score)) score = 0;
                int idx = acc.find(b, off, len);
                if (idx < 0) {
                    acc.add(b, off, len, score);
                    track(lens, len);
                } else {
                    acc.scores[idx] = aggregate(acc.scores[idx], score, how);
                }
            });
        }
        for (int i = 0; i < acc.size; i++) {
            ScoreTree.setScore(acc.items[i], acc.scores[i]);
            result.tree.insertItem(acc.items[i]);
        }
    }

    private static void diff(Source[] src, ZSet result, long[] lens) {
        if (src[0].size == 0) return;
        forEach(src[0], (b, off, len, sc) -> {
            for (int k = 1; k < src.length; k++) {
                if (!Double.isNaN(src[k].find(b, off, len))) return;
            }
            result.tree.insert(sc, b, off, len);
            track(lens, len);
        });
    }

    /**
     * The accumulator of ZUNION: member -> aggregated score, open addressing over insertion arrays.
     * Members are kept as the tree's items (score filled in at the end), so the result adopts them.
     */
    private static final class ScoreMap {
        byte[][] items;
        double[] scores;
        long[] hashes;
        int size;
        private int[] table; // entry index + 1, 0 = empty
        private int mask;

        ScoreMap(long expected) {
            int cap = 16;
            while (cap < expected * 2 && cap < (1 << 30)) cap <<= 1;
            table = new int[cap];
            mask = cap - 1;
            int n = (int) Math.min(Math.max(expected, 8), 1 << 20);
            items = new byte[n][];
            scores = new double[n];
            hashes = new long[n];
        }

        int find(byte[] b, int off, int len) {
            long h = Bytes.hash(0x5bd1e995L, b, off, len);
            for (int i = (int) h & mask; ; i = (i + 1) & mask) {
                int e = table[i];
                if (e == 0) return -1;
                byte[] m = items[e - 1];
                if (hashes[e - 1] == h && ScoreTree.memberLength(m) == len && Arrays.equals(m, 0, len, b, off, off + len)) {
                    return e - 1;
                }
            }
        }

        void add(byte[] b, int off, int len, double score) {
            if (size == items.length) {
                int cap = size * 2;
                items = Arrays.copyOf(items, cap);
                scores = Arrays.copyOf(scores, cap);
                hashes = Arrays.copyOf(hashes, cap);
            }
            long h = Bytes.hash(0x5bd1e995L, b, off, len);
            items[size] = ScoreTree.item(b, off, len, 0);
            scores[size] = score;
            hashes[size] = h;
            size++;
            if (size * 2 > table.length) rehash();
            else place(size - 1);
        }

        private void place(int idx) {
            int i = (int) hashes[idx] & mask;
            while (table[i] != 0) i = (i + 1) & mask;
            table[i] = idx + 1;
        }

        private void rehash() {
            table = new int[table.length * 2];
            mask = table.length - 1;
            for (int k = 0; k < size; k++) place(k);
        }
    }

    // ---- pops ---------------------------------------------------------------------------------------

    /** Reply shapes of a pop (Redis's genericZpopCommand emitkey/use_nested_array combinations). */
    public static final int POP_FLAT = 0;       // ZPOPMIN/ZPOPMAX: [m, s, ...]
    public static final int POP_NESTED = 1;     // ZPOPMIN/ZPOPMAX with COUNT in RESP3: [[m, s], ...]
    public static final int POP_KEY_FLAT = 2;   // BZPOPMIN/BZPOPMAX: [key, m, s]
    public static final int POP_KEY_NESTED = 3; // ZMPOP/BZMPOP: [key, [[m, s], ...]]

    /**
     * Pops up to {@code count} elements from the lowest (or, with {@code max}, the highest) end
     * of the non-empty sorted set z stored at key k, replying in the given shape; deletes the key
     * when it empties, with Redis's events. Returns how many were popped. Shared with the
     * blocking pops, which call it once a key has elements.
     */
    public static long popAndReply(Client c, byte[] k, int off, int len, ZSet z, boolean max, long count, int shape) {
        Reply r = c.reply();
        Engine e = c.engine();
        Db db = c.db();
        long n = Math.min(count, z.size());
        switch (shape) {
            case POP_FLAT:
                r.arrayHeader(n * 2);
                break;
            case POP_NESTED:
                r.arrayHeader(n);
                break;
            case POP_KEY_FLAT:
                r.arrayHeader(n * 2 + 1);
                r.bulk(k, off, len);
                break;
            default:
                r.arrayHeader(2);
                r.bulk(k, off, len);
                r.arrayHeader(n);
                break;
        }
        boolean nested = shape == POP_NESTED || shape == POP_KEY_NESTED;
        for (long i = 0; i < n; i++) {
            ZIter it = max ? z.last() : z.first();
            if (nested) r.arrayHeader(2);
            r.bulk(it.buf(), it.off(), it.len());
            r.dbl(it.score());
            z.remove(it);
            e.dirty++;
            if (i == 0) {
                e.notify(Notify.ZSET, max ? "zpopmax" : "zpopmin", db, k, off, len);
                e.keyModified(db, k, off, len);
            }
        }
        if (z.size() == 0) {
            db.remove(k, off, len);
            e.notify(Notify.GENERIC, "del", db, k, off, len);
        }
        return n;
    }

    /** Records a pop for replication as ZPOPMIN/ZPOPMAX key [count], as Redis rewrites BZPOP* and ZMPOP. */
    public static void propagatePop(Client c, byte[] key, boolean max, long count) {
        if (count < 0) c.propagateAs(max ? ZPOPMAX : ZPOPMIN, key);
        else c.propagateAs(max ? ZPOPMAX : ZPOPMIN, key, Bytes.longToBytes(count));
    }

    /**
     * Pops from the first of the keys (arguments first..first+n-1) that holds a sorted set
     * (Redis's genericZpopCommand); replies an empty array (or null with nilWhenEmpty) when none.
     * With {@code rewrite} the command propagates as ZPOPMIN/ZPOPMAX key count (ZMPOP).
     */
    private static void popFirstKey(Client c, int first, int n, boolean max, long count, int shape,
            boolean nilWhenEmpty, boolean rewrite) {
        Args a = c.args();
        ZSet z = null;
        int keyArg = -1;
        for (int i = first; i < first + n; i++) {
            z = write(c, i);
            if (z != null) {
                keyArg = i;
                break;
            }
        }
        Reply r = c.reply();
        if (z == null) {
            if (nilWhenEmpty) r.nullArray();
            else r.emptyArray();
            return;
        }
        if (count == 0) {
            r.emptyArray();
            return;
        }
        long popped = popAndReply(c, a.buf(keyArg), a.off(keyArg), a.len(keyArg), z, max, count < 0 ? 1 : count,
                shape);
        if (rewrite) propagatePop(c, a.copy(keyArg), max, popped);
    }

    static void zpop(Client c, boolean max) {
        Args a = c.args();
        if (a.count() > 3) throw CommandError.SYNTAX;
        long count = -1;
        if (a.count() == 3) count = argLongInRange(c, 2, 0, Long.MAX_VALUE, NOT_POSITIVE);
        int shape = c.reply().resp3() && count != -1 ? POP_NESTED : POP_FLAT;
        popFirstKey(c, 1, 1, max, count, shape, false, false);
    }

    /** The arguments of ZMPOP/BZMPOP: keys at firstKey..firstKey+numKeys-1, the end, the count. */
    public record MpopArgs(int firstKey, int numKeys, boolean max, long count) {
    }

    /**
     * Parses "numkeys key [key ...] MIN|MAX [COUNT count]" starting at argument numkeysIdx, with
     * Redis's checks and errors (ZMPOP: 1, BZMPOP: 2 after the timeout).
     */
    public static MpopArgs parseMpopArgs(Client c, int numkeysIdx) {
        Args a = c.args();
        int argc = a.count();
        long numkeys = argLongInRange(c, numkeysIdx, 1, Long.MAX_VALUE, BAD_NUMKEYS);
        if (numkeys >= argc - numkeysIdx - 1) throw CommandError.SYNTAX; // no room for MIN|MAX after the keys
        int whereIdx = (int) (numkeysIdx + 1 + numkeys);
        boolean max;
        if (a.is(whereIdx, "min")) max = false;
        else if (a.is(whereIdx, "max")) max = true;
        else throw CommandError.SYNTAX;
        long count = -1;
        for (int j = whereIdx + 1; j < argc; j++) {
            boolean more = argc - 1 - j > 0;
            if (count == -1 && a.is(j, "count") && more) {
                j++;
                count = argLongInRange(c, j, 1, Long.MAX_VALUE, BAD_COUNT);
            } else {
                throw CommandError.SYNTAX;
            }
        }
        return new MpopArgs(numkeysIdx + 1, (int) numkeys, max, count == -1 ? 1 : count);
    }

    static void zmpop(Client c) {
        MpopArgs m = parseMpopArgs(c, 1);
        popFirstKey(c, m.firstKey(), m.numKeys(), m.max(), m.count(), POP_KEY_NESTED, true, true);
    }

    // ---- ZRANDMEMBER --------------------------------------------------------------------------------

    static void zrandmember(Client c) {
        Args a = c.args();
        int argc = a.count();
        if (argc >= 3) {
            long l = c.argLong(2);
            if (l == Long.MIN_VALUE) {
                throw CommandError.err("value is out of range, value must between -9223372036854775807 and "
                        + "9223372036854775807");
            }
            boolean withScores = false;
            if (argc > 4 || (argc == 4 && !a.is(3, "withscores"))) {
                throw CommandError.SYNTAX;
            } else if (argc == 4) {
                withScores = true;
                if (l < -Long.MAX_VALUE / 2 || l > Long.MAX_VALUE / 2) throw CommandError.err("value is out of range");
            }
            randWithCount(c, l, withScores);
            return;
        }
        ZSet z = read(c, 1);
        if (z == null) {
            c.reply().nullBulk();
            return;
        }
        ZIter it = z.random(RANDOM);
        c.reply().bulk(it.buf(), it.off(), it.len());
    }

    private static void randWithCount(Client c, long l, boolean withScores) {
        Reply r = c.reply();
        ZSet z = read(c, 1);
        if (z == null) {
            r.emptyArray();
            return;
        }
        long size = z.size();
        boolean uniq = l >= 0;
        long count = uniq ? l : -l;
        if (count == 0) {
            r.emptyArray();
            return;
        }
        boolean pairs = withScores && !r.resp3();
        // case 1: repetitions allowed (or a single element): independent draws
        if (!uniq || count == 1) {
            r.arrayHeader(pairs ? count * 2 : count);
            for (long i = 0; i < count && !c.closingAsap(); i++) {
                ZIter it = z.random(RANDOM);
                replyElement(r, it.buf(), it.off(), it.len(), it.score(), withScores);
            }
            return;
        }
        long replySize = Math.min(count, size);
        r.arrayHeader(pairs ? replySize * 2 : replySize);
        // case 2: everything, in Redis's iteration order (highest score first)
        if (count >= size) {
            for (ZIter it = z.last(); it.valid(); it.prev()) {
                replyElement(r, it.buf(), it.off(), it.len(), it.score(), withScores);
            }
            return;
        }
        // case 3: most of the set: drop random elements from a full copy
        if (count * 3 > size) {
            int n = (int) size;
            byte[][] members = new byte[n][];
            double[] scores = new double[n];
            int i = 0;
            for (ZIter it = z.first(); it.valid(); it.next(), i++) {
                members[i] = it.member();
                scores[i] = it.score();
            }
            while (n > count) {
                int victim = RANDOM.nextInt(n);
                n--;
                members[victim] = members[n];
                scores[victim] = scores[n];
            }
            for (i = 0; i < n; i++) replyElement(r, members[i], 0, members[i].length, scores[i], withScores);
            return;
        }
        // case 4: few of many
        if (z.isPacked()) {
            // one pass, each element taken with probability (still needed / still unseen): listpack order
            long remaining = count;
            long index = 0;
            for (ZIter it = z.first(); it.valid() && remaining > 0; it.next(), index++) {
                if (RANDOM.nextLong(size - index) < remaining) {
                    replyElement(r, it.buf(), it.off(), it.len(), it.score(), withScores);
                    remaining--;
                }
            }
            return;
        }
        IdentityHashMap<byte[], Boolean> picked = new IdentityHashMap<>((int) count * 2);
        while (picked.size() < count) {
            ZIter it = z.random(RANDOM);
            if (picked.put(it.item(), Boolean.TRUE) != null) continue;
            replyElement(r, it.buf(), it.off(), it.len(), it.score(), withScores);
        }
    }

    // ---- ZSCAN ----------------------------------------------------------------------------------------

    static void zscan(Client c) {
        long cursor = KeyCommands.parseCursor(c, 2);
        ZSet z = read(c, 1);
        Reply r = c.reply();
        if (z == null) {
            KeyCommands.replyEmptyScan(r);
            return;
        }
        KeyCommands.ScanOptions o = KeyCommands.parseScanOptions(c, 3, false);
        if (z.isPacked()) {
            // small encodings are returned whole, with cursor 0, as Redis does: counted, then written
            long matched = 0;
            for (ZIter it = z.first(); it.valid(); it.next()) {
                if (o.matches(it.buf(), it.off(), it.len())) matched++;
            }
            KeyCommands.replyCursor(r, 0);
            r.arrayHeader(matched * 2);
            for (ZIter it = z.first(); it.valid(); it.next()) {
                if (!o.matches(it.buf(), it.off(), it.len())) continue;
                r.bulk(it.buf(), it.off(), it.len());
                r.bulkDouble(it.score()); // a bulk string in RESP3 too, as in Redis 7.0
            }
            return;
        }
        long want = o.count * 2;
        long maxIterations = want * 10;
        KeyCommands.ScanBuffer found = KeyCommands.scanBuffer();
        do {
            cursor = z.scanItems(cursor, found);
        } while (cursor != 0 && maxIterations-- > 0 && found.size() * 2L < want);
        int matched = 0;
        for (int i = 0; i < found.size(); i++) {
            ZIter it = new ZIter(z).atItem((byte[]) found.get(i));
            if (o.matches(it.buf(), it.off(), it.len())) found.set(matched++, found.get(i));
        }
        KeyCommands.replyCursor(r, cursor);
        r.arrayHeader(matched * 2L);
        for (int i = 0; i < matched; i++) {
            ZIter it = new ZIter(z).atItem((byte[]) found.get(i));
            r.bulk(it.buf(), it.off(), it.len());
            r.bulkDouble(it.score());
        }
        found.clear();
    }
}
