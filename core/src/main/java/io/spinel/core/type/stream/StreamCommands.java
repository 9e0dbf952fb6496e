package io.spinel.core.type.stream;

import io.spinel.core.Client;
import io.spinel.core.Notify;
import io.spinel.core.command.CommandError;
import io.spinel.core.command.CommandHandler;
import io.spinel.core.keyspace.Db;
import io.spinel.core.keyspace.Entries;
import io.spinel.core.keyspace.KeyCommands;
import io.spinel.core.keyspace.ValueType;
import io.spinel.core.protocol.Args;
import io.spinel.core.protocol.Reply;
import io.spinel.core.util.Bytes;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The stream commands (Redis's t_stream.c): XADD, XRANGE, XREAD and the consumer group commands.
 * Replies, errors and what goes to the AOF follow Redis 7.0: XADD with an automatic ID and
 * approximate trims propagate their concrete outcome, XREADGROUP and XCLAIM propagate XCLAIM
 * commands (and XGROUP SETID / CREATECONSUMER) that recreate the pending entries exactly.
 */
public final class StreamCommands {
    private StreamCommands() {
    }

    static final CommandError INVALID_ID = CommandError.err("Invalid stream ID specified as stream command argument");
    private static final byte[] XCLAIM = Bytes.ascii("XCLAIM");
    private static final byte[] XGROUP = Bytes.ascii("XGROUP");
    private static final byte[] ZERO = Bytes.ascii("0");
    private static final byte[] TIME = Bytes.ascii("TIME");
    private static final byte[] RETRYCOUNT = Bytes.ascii("RETRYCOUNT");
    private static final byte[] FORCE = Bytes.ascii("FORCE");
    private static final byte[] JUSTID = Bytes.ascii("JUSTID");
    private static final byte[] LASTID = Bytes.ascii("LASTID");
    private static final byte[] SETID = Bytes.ascii("SETID");
    private static final byte[] ENTRIESREAD = Bytes.ascii("ENTRIESREAD");
    private static final byte[] CREATECONSUMER = Bytes.ascii("CREATECONSUMER");
    private static final byte[] EQUALS = Bytes.ascii("=");
    private static final byte[] COUNT = Bytes.ascii("COUNT");

    /** The handler of each command CommandFamilies registers for this family, made when it first runs. */
    public static CommandHandler handler(String name) {
        if (name.startsWith("xgroup|")) return StreamCommands::xgroup;
        if (name.startsWith("xinfo|")) return StreamCommands::xinfo;
        return switch (name) {
            case "xadd" -> StreamCommands::xadd;
            case "xlen" -> StreamCommands::xlen;
            case "xrange" -> c -> xrange(c, false);
            case "xrevrange" -> c -> xrange(c, true);
            case "xdel" -> StreamCommands::xdel;
            case "xtrim" -> StreamCommands::xtrim;
            case "xsetid" -> StreamCommands::xsetid;
            case "xread" -> c -> xread(c, false);
            case "xreadgroup" -> c -> xread(c, true);
            case "xack" -> StreamCommands::xack;
            case "xpending" -> StreamCommands::xpending;
            case "xclaim" -> StreamCommands::xclaim;
            case "xautoclaim" -> StreamCommands::xautoclaim;
            default -> null;
        };
    }

    // ---- helpers ----------------------------------------------------------------------------------

    private static StreamValue readStream(Client c, int i) {
        Args a = c.args();
        Object e = c.db().lookupRead(a.buf(i), a.off(i), a.len(i), !c.noTouch());
        return (StreamValue) Entries.valueOf(e, ValueType.STREAM);
    }

    /** A stream a command of read flags changes anyway (XREADGROUP, XACK, XCLAIM): announced to snapshots. */
    private static StreamValue readStreamForUpdate(Client c, int i) {
        Args a = c.args();
        Object e = c.db().lookupRead(a.buf(i), a.off(i), a.len(i), !c.noTouch());
        StreamValue s = (StreamValue) Entries.valueOf(e, ValueType.STREAM);
        // the write lookup shows the change to a running snapshot and re-measures the value after
        if (s != null) c.db().lookupWrite(a.buf(i), a.off(i), a.len(i));
        return s;
    }

    private static StreamValue writeStream(Client c, int i) {
        Args a = c.args();
        return (StreamValue) Entries.valueOf(c.db().lookupWrite(a.buf(i), a.off(i), a.len(i)), ValueType.STREAM);
    }

    private static void modified(Client c, int keyArg) {
        Args a = c.args();
        c.engine().keyModified(c.db(), a.buf(keyArg), a.off(keyArg), a.len(keyArg));
    }

    /**
     * Wakes clients blocked on the key without counting as a modification (signalKeyAsReady
     * alone): Redis signals WATCH and client-side caching only for XADD, XDEL, XTRIM and the
     * stream XGROUP CREATE MKSTREAM makes, not for group and pending-list changes.
     */
    private static void ready(Client c, int keyArg) {
        Args a = c.args();
        c.engine().keyReady(c.db(), a.buf(keyArg), a.off(keyArg), a.len(keyArg));
    }

    private static void event(Client c, int keyArg, String event) {
        Args a = c.args();
        c.engine().notify(Notify.STREAM, event, c.db(), a.buf(keyArg), a.off(keyArg), a.len(keyArg));
    }

    private static long now(Client c) {
        return c.engine().keyspace().clock().millis();
    }

    /** An argument as an error text quotes it: up to a NUL, as Redis's %s. */
    private static String arg(Client c, int i) {
        return c.args().cString(i);
    }

    private static CommandError subcommandSyntax(Client c) {
        return CommandError.subcommandSyntax(c.args());
    }

    /**
     * Parses an ID argument (streamGenericParseIDOrReply). missingSeq fills a missing sequence;
     * strict refuses '-' and '+'; seqGiven non-null accepts 'ms-*' and reports whether the
     * sequence was given.
     */
    static StreamId parseId(byte[] b, int off, int len, long missingSeq, boolean strict, boolean[] seqGiven) {
        if (len > 127) throw INVALID_ID;
        if (strict && len == 1 && (b[off] == '-' || b[off] == '+')) throw INVALID_ID;
        if (seqGiven != null) seqGiven[0] = true;
        if (len == 1 && b[off] == '-') return StreamId.ZERO;
        if (len == 1 && b[off] == '+') return StreamId.MAX;
        // C string semantics: the argument ends at its first NUL
        for (int i = 0; i < len; i++) {
            if (b[off + i] == 0) {
                len = i;
                break;
            }
        }
        int dash = -1;
        for (int i = 0; i < len; i++) {
            if (b[off + i] == '-') {
                dash = i;
                break;
            }
        }
        long ms;
        long seq;
        if (dash >= 0) {
            ms = parseUll(b, off, dash);
            int so = off + dash + 1;
            int sl = len - dash - 1;
            if (seqGiven != null && sl == 1 && b[so] == '*') {
                seq = 0;
                seqGiven[0] = false;
            } else {
                seq = parseUll(b, so, sl);
            }
        } else {
            ms = parseUll(b, off, len);
            seq = missingSeq;
        }
        return new StreamId(ms, seq);
    }

    static StreamId parseId(Client c, int i, long missingSeq, boolean strict, boolean[] seqGiven) {
        Args a = c.args();
        return parseId(a.buf(i), a.off(i), a.len(i), missingSeq, strict, seqGiven);
    }

    /** Redis's string2ull: a canonical non-negative long, or what strtoull accepts in full. */
    private static long parseUll(byte[] b, int off, int len) {
        if (len > 0 && Bytes.isLong(b, off, len)) {
            long v = Bytes.parseLong(b, off, len);
            if (v < 0) throw INVALID_ID;
            return v;
        }
        int i = off;
        int end = off + len;
        while (i < end && (b[i] == ' ' || (b[i] >= 9 && b[i] <= 13))) i++;
        boolean neg = false;
        if (i < end && (b[i] == '+' || b[i] == '-')) {
            neg = b[i] == '-';
            i++;
        }
        if (i >= end) throw INVALID_ID;
        long v = 0;
        for (; i < end; i++) {
            int d = b[i] - '0';
            if (d < 0 || d > 9) throw INVALID_ID;
            // overflow past 2^64-1
            if (Long.compareUnsigned(v, Long.divideUnsigned(-1L, 10)) > 0) throw INVALID_ID;
            long nv = v * 10 + d;
            if (Long.compareUnsigned(nv, v * 10) < 0) throw INVALID_ID;
            v = nv;
        }
        return neg ? -v : v;
    }

    /** An interval bound: '(' makes it exclusive (streamParseIntervalIDOrReply); returns {id, exclusive?}. */
    private static StreamId parseInterval(Client c, int i, long missingSeq, boolean[] exclusive) {
        Args a = c.args();
        byte[] b = a.buf(i);
        int off = a.off(i);
        int len = a.len(i);
        exclusive[0] = len > 1 && b[off] == '(';
        if (exclusive[0]) return parseId(b, off + 1, len - 1, missingSeq, true, null);
        return parseId(b, off, len, missingSeq, false, null);
    }

    private static void replyId(Reply r, StreamId id) {
        r.bulkDashed(id.ms(), id.seq());
    }

    private static void replyElement(Reply r, Lp e) {
        if (e.isInt) r.bulkLong(e.intValue);
        else r.bulk(e.buf, e.off, e.len);
    }

    private static void replyEntry(Reply r, StreamValue.Iter it) {
        r.arrayHeader(2);
        r.bulkDashed(it.ms, it.seq);
        r.arrayHeader(it.numFields * 2L);
        it.rewindFields();
        for (int i = 0; i < it.numFields; i++) {
            it.nextField();
            replyElement(r, it.field());
            replyElement(r, it.value());
        }
    }

    /** Key and group names of a reading command, for the XCLAIMs it propagates. */
    private record Prop(byte[] key, byte[] group) {
    }

    /**
     * streamReplyWithRange: replies with entries in [start, end] (at most count, 0: all), and when
     * a group is given advances its last ID and read counter and creates pending entries.
     * raw: no array header. Returns the number of entries.
     */
    private static long replyRange(Client c, StreamValue s, StreamId start, StreamId end, long count, boolean rev,
                                   StreamValue.Group group, StreamValue.Consumer consumer, boolean noack, boolean raw,
                                   Prop prop) {
        return replyRange(c, s, s.iter(start, end, rev), count, group, consumer, noack, raw, prop);
    }

    /** {@link #replyRange} over an iterator set to the range (one reused for many ranges). */
    private static long replyRange(Client c, StreamValue s, StreamValue.Iter it, long count, StreamValue.Group group,
                                   StreamValue.Consumer consumer, boolean noack, boolean raw, Prop prop) {
        Reply r = c.reply();
        int handle = raw ? -1 : r.deferLength();
        long n = 0;
        boolean propagateLastId = false;
        while (it.next()) {
            if (group != null && StreamId.compare(it.ms, it.seq, group.lastId.ms(), group.lastId.seq()) > 0) {
                StreamId id = it.id();
                if (group.entriesRead != -1 && !s.rangeHasTombstones(id, null)) {
                    group.entriesRead++;
                } else if (s.entriesAdded() != 0) {
                    group.entriesRead = s.estimateDistanceFromFirstEverEntry(id);
                }
                group.lastId = id;
                if (noack) propagateLastId = true;
            }
            replyEntry(r, it);
            if (group != null && !noack) {
                StreamId id = it.id();
                long now = now(c);
                StreamValue.Nack nack = group.pel.get(id);
                if (nack == null) {
                    nack = new StreamValue.Nack(now, 1, consumer);
                    group.pel.put(id, nack);
                    consumer.pel.put(id, nack);
                } else {
                    // (already the consumer's: its own entry stays where it is)
                    if (nack.consumer != consumer) {
                        nack.consumer.pel.remove(id);
                        nack.consumer = consumer;
                        consumer.pel.put(id, nack);
                    }
                    nack.deliveryTime = now;
                    nack.deliveryCount = 1;
                }
                if (prop != null) propagateXclaim(c, prop.key, group, prop.group, id, nack);
            }
            n++;
            if (count != 0 && count == n) break;
        }
        if (prop != null && propagateLastId) propagateGroupId(c, prop.key, group, prop.group);
        if (!raw) r.setDeferredLength(handle, '*', n);
        return n;
    }

    /** streamReplyWithRangeFromConsumerPEL: a consumer's own pending entries from start on. */
    private static long replyFromConsumerPel(Client c, StreamValue s, StreamId start, long count,
                                             StreamValue.Consumer consumer) {
        Reply r = c.reply();
        int handle = r.deferLength();
        long n = 0;
        long now = now(c);
        StreamValue.Iter it = null;
        for (Map.Entry<StreamId, StreamValue.Nack> e : consumer.pel.tailMap(start, true).entrySet()) {
            if (count != 0 && n >= count) break;
            StreamId id = e.getKey();
            if (it == null) it = s.iter(id, id, false);
            else it.reset(id, id, false);
            if (replyRange(c, s, it, 1, null, null, false, true, null) == 0) {
                r.arrayHeader(2);
                replyId(r, id);
                r.nullArray();
            } else {
                e.getValue().deliveryTime = now;
                e.getValue().deliveryCount++;
            }
            n++;
        }
        r.setDeferredLength(handle, '*', n);
        return n;
    }

    /** As below, the ID's bytes made only when something listens. */
    private static void propagateXclaim(Client c, byte[] key, StreamValue.Group g, byte[] group, StreamId id,
                                        StreamValue.Nack nack) {
        if (c.propagates()) propagateXclaim(c, key, g, group, id.toBytes(), nack);
    }

    private static void propagateXclaim(Client c, byte[] key, StreamValue.Group g, byte[] group, byte[] id,
                                        StreamValue.Nack nack) {
        if (!c.propagates()) return;
        c.engine().propagate(c.db().id(), new byte[][] {XCLAIM, key, group, nack.consumer.name, ZERO, id, TIME,
            Bytes.longToBytes(nack.deliveryTime), RETRYCOUNT, Bytes.longToBytes(nack.deliveryCount), FORCE, JUSTID,
            LASTID, g.lastId.toBytes()});
    }

    private static void propagateGroupId(Client c, byte[] key, StreamValue.Group g, byte[] group) {
        if (!c.propagates()) return;
        c.engine().propagate(c.db().id(), new byte[][] {XGROUP, SETID, key, group, g.lastId.toBytes(), ENTRIESREAD,
            Bytes.longToBytes(g.entriesRead)});
    }

    private static void propagateConsumerCreation(Client c, byte[] key, byte[] group, byte[] consumer) {
        if (!c.propagates()) return;
        c.engine().propagate(c.db().id(), new byte[][] {XGROUP, CREATECONSUMER, key, group, consumer});
    }

    /** streamCreateConsumer with notification and dirty counting (SCC_DEFAULT). */
    private static StreamValue.Consumer createConsumer(Client c, StreamValue.Group g, byte[] name, int keyArg) {
        StreamValue.Consumer consumer = g.createConsumer(name, now(c));
        if (consumer == null) return null;
        c.engine().dirty++;
        event(c, keyArg, "xgroup-createconsumer");
        return consumer;
    }

    private static StreamValue.Consumer lookupConsumer(Client c, StreamValue.Group g, byte[] name, boolean refresh) {
        StreamValue.Consumer consumer = g.consumer(name);
        if (consumer != null && refresh) consumer.seenTime = now(c);
        return consumer;
    }

    // ---- XADD / XTRIM -----------------------------------------------------------------------------

    /**
     * XADD's and XTRIM's parsed arguments, with the field view and out-parameters XADD passes
     * down: one per thread ({@link #TRIM_ARGS}), reset for each command, so that an XADD allocates
     * nothing of its own but its entry and new ID. (Neither command runs another inside itself.)
     */
    static final class TrimArgs {
        StreamId id;
        boolean idGiven;
        boolean seqGiven;
        boolean noMkstream;
        int strategy;
        int strategyArgIdx;
        boolean approx;
        long limit;
        long maxlen;
        StreamId minId;
        final ArgFields fields = new ArgFields();
        final boolean[] seqGivenOut = new boolean[1];
        final int[] appendError = new int[1];

        TrimArgs reset() {
            id = null;
            idGiven = false;
            seqGiven = true;
            noMkstream = false;
            strategy = StreamValue.TRIM_NONE;
            strategyArgIdx = 0;
            approx = false;
            limit = 0;
            maxlen = 0;
            minId = null;
            appendError[0] = 0;
            return this;
        }
    }

    private static final ThreadLocal<TrimArgs> TRIM_ARGS = ThreadLocal.withInitial(TrimArgs::new);

    /** streamParseAddOrTrimArgsOrReply: returns the position of the ID (XADD) or the end. */
    private static int parseAddOrTrim(Client c, TrimArgs t, boolean xadd) {
        Args a = c.args();
        int argc = a.count();
        int i = 2;
        boolean limitGiven = false;
        for (; i < argc; i++) {
            int moreargs = argc - 1 - i;
            if (xadd && a.len(i) == 1 && a.buf(i)[a.off(i)] == '*') {
                break;
            } else if ((a.is(i, "maxlen") || a.is(i, "minid")) && moreargs > 0) {
                boolean maxlen = a.is(i, "maxlen");
                if (t.strategy != StreamValue.TRIM_NONE) {
                    throw CommandError.err("syntax error, MAXLEN and MINID options at the same time are not compatible");
                }
                // an optional '~' (approximate) or '=' (exact) before the threshold
                t.approx = false;
                if (moreargs >= 2 && a.len(i + 1) == 1 && a.buf(i + 1)[a.off(i + 1)] == '~') {
                    t.approx = true;
                    i++;
                } else if (moreargs >= 2 && a.len(i + 1) == 1 && a.buf(i + 1)[a.off(i + 1)] == '=') {
                    i++;
                }
                if (maxlen) {
                    t.maxlen = c.argLong(i + 1);
                    if (t.maxlen < 0) throw CommandError.err("The MAXLEN argument must be >= 0.");
                } else {
                    t.minId = parseId(c, i + 1, 0, true, null);
                }
                i++;
                t.strategy = maxlen ? StreamValue.TRIM_MAXLEN : StreamValue.TRIM_MINID;
                t.strategyArgIdx = i;
            } else if (a.is(i, "limit") && moreargs > 0) {
                t.limit = c.argLong(i + 1);
                if (t.limit < 0) throw CommandError.err("The LIMIT argument must be >= 0.");
                limitGiven = true;
                i++;
            } else if (xadd && a.is(i, "nomkstream")) {
                t.noMkstream = true;
            } else if (xadd) {
                t.id = parseId(c, i, 0, true, t.seqGivenOut);
                t.seqGiven = t.seqGivenOut[0];
                t.idGiven = true;
                break;
            } else {
                throw CommandError.SYNTAX;
            }
        }
        if (t.limit != 0 && t.strategy == StreamValue.TRIM_NONE) {
            throw CommandError.err("syntax error, LIMIT cannot be used without specifying a trimming strategy");
        }
        if (!xadd && t.strategy == StreamValue.TRIM_NONE) {
            throw CommandError.err("syntax error, XTRIM must be called with a trimming strategy");
        }
        if (c.mustObey()) {
            t.limit = 0;
        } else if (limitGiven) {
            if (!t.approx) throw CommandError.err("syntax error, LIMIT cannot be used without the special ~ option");
        } else if (t.approx) {
            long entries = c.engine().encodings().streamNodeMaxEntries;
            t.limit = 100 * entries;
            if (t.limit <= 0) t.limit = 10000;
            if (t.limit > 1000000) t.limit = 1000000;
        } else {
            t.limit = 0;
        }
        return i;
    }

    private static long trim(StreamValue s, TrimArgs t) {
        return s.trim(t.strategy, t.maxlen, t.minId, t.approx, t.limit);
    }

    /** The trim argument as Redis rewrites an approximate trim for propagation. */
    private static byte[] trimArgument(StreamValue s, TrimArgs t) {
        if (t.strategy == StreamValue.TRIM_MAXLEN) return Bytes.longToBytes(s.length());
        return s.edgeIdWithTombstones(true).toBytes();
    }

    /** Arguments [from, from + n) as the fields and values of an entry (reused: see TrimArgs). */
    private static final class ArgFields implements StreamValue.Fields {
        Args a;
        int from;
        int n;

        ArgFields of(Args a, int from, int n) {
            this.a = a;
            this.from = from;
            this.n = n;
            return this;
        }

        @Override
        public int count() {
            return n;
        }

        @Override
        public byte[] buf(int i) {
            return a.buf(from + i);
        }

        @Override
        public int off(int i) {
            return a.off(from + i);
        }

        @Override
        public int len(int i) {
            return a.len(from + i);
        }
    }

    static void xadd(Client c) {
        Args a = c.args();
        TrimArgs t = TRIM_ARGS.get().reset();
        int idpos = parseAddOrTrim(c, t, true);
        int fieldPos = idpos + 1;
        int argc = a.count();
        if (argc - fieldPos < 2 || ((argc - fieldPos) % 2) == 1) {
            throw CommandError.err("wrong number of arguments for 'xadd' command");
        }
        if (t.idGiven && t.seqGiven && t.id.isZero()) {
            throw CommandError.err("The ID specified in XADD must be greater than 0-0");
        }
        Db db = c.db();
        StreamValue s = writeStream(c, 1);
        boolean created = false;
        if (s == null) {
            if (t.noMkstream) {
                c.reply().nullBulk();
                return;
            }
            s = new StreamValue();
            created = true;
        }
        if (s.lastId().ms() == -1L && s.lastId().seq() == -1L) {
            throw CommandError.err("The stream has exhausted the last possible ID, unable to add more items");
        }
        var enc = c.engine().encodings();
        StreamId id = s.append(t.fields.of(a, fieldPos, argc - fieldPos), t.idGiven ? t.id : null, t.seqGiven,
                now(c), enc.streamNodeMaxBytes, enc.streamNodeMaxEntries, t.appendError);
        t.fields.a = null; // (holds no client's arguments past the command)
        if (id == null) {
            if (t.appendError[0] == StreamValue.APPEND_NOT_GREATER) {
                throw CommandError.err("The ID specified in XADD is equal or smaller than the target stream top item");
            }
            throw CommandError.err("Elements are too large to be stored");
        }
        if (created) db.put(a.buf(1), a.off(1), a.len(1), s.asEntry(a.copy(1), -1, c.engine().keyspace().newLru()));
        c.reply().bulkDashed(id.ms(), id.seq());
        modified(c, 1);
        event(c, 1, "xadd");
        c.engine().dirty++;
        byte[] trimArg = null;
        if (t.strategy != StreamValue.TRIM_NONE) {
            if (trim(s, t) != 0) event(c, 1, "xtrim");
            if (t.approx) trimArg = trimArgument(s, t);
        }
        boolean rewriteId = !t.idGiven || !t.seqGiven;
        if (c.propagates() && (rewriteId || trimArg != null)) {
            byte[][] argv = a.toArrays();
            if (trimArg != null) {
                argv[t.strategyArgIdx - 1] = EQUALS;
                argv[t.strategyArgIdx] = trimArg;
            }
            if (rewriteId) argv[idpos] = id.toBytes();
            c.propagateAs(argv);
        }
    }

    static void xtrim(Client c) {
        Args a = c.args();
        TrimArgs t = TRIM_ARGS.get().reset();
        parseAddOrTrim(c, t, false);
        StreamValue s = writeStream(c, 1);
        if (s == null) {
            c.reply().integer(0);
            return;
        }
        long deleted = trim(s, t);
        if (deleted != 0) {
            event(c, 1, "xtrim");
            if (t.approx && c.propagates()) {
                byte[][] argv = a.toArrays();
                argv[t.strategyArgIdx - 1] = EQUALS;
                argv[t.strategyArgIdx] = trimArgument(s, t);
                c.propagateAs(argv);
            }
            modified(c, 1);
            c.engine().dirty += deleted;
        }
        c.reply().integer(deleted);
    }

    // ---- reading ----------------------------------------------------------------------------------

    static void xlen(Client c) {
        StreamValue s = readStream(c, 1);
        c.reply().integer(s == null ? 0 : s.length());
    }

    static void xrange(Client c, boolean rev) {
        Args a = c.args();
        boolean[] ex = new boolean[1];
        int startArg = rev ? 3 : 2;
        int endArg = rev ? 2 : 3;
        StreamId start = parseInterval(c, startArg, 0, ex);
        if (ex[0]) {
            start = start.incr();
            if (start == null) throw CommandError.err("invalid start ID for the interval");
        }
        StreamId end = parseInterval(c, endArg, -1L, ex);
        if (ex[0]) {
            end = end.decr();
            if (end == null) throw CommandError.err("invalid end ID for the interval");
        }
        long count = -1;
        for (int j = 4; j < a.count(); j++) {
            int additional = a.count() - j - 1;
            if (a.is(j, "count") && additional >= 1) {
                count = c.argLong(j + 1);
                if (count < 0) count = 0;
                j++;
            } else {
                throw CommandError.SYNTAX;
            }
        }
        StreamValue s = readStream(c, 1);
        if (s == null) {
            c.reply().arrayHeader(0);
            return;
        }
        if (count == 0) {
            c.reply().nullArray();
            return;
        }
        if (count == -1) count = 0;
        replyRange(c, s, start, end, count, rev, null, null, false, false, null);
    }

    static void xdel(Client c) {
        Args a = c.args();
        StreamValue s = writeStream(c, 1);
        if (s == null) {
            c.reply().integer(0);
            return;
        }
        StreamId[] ids = new StreamId[a.count() - 2];
        for (int j = 2; j < a.count(); j++) ids[j - 2] = parseId(c, j, 0, true, null);
        int deleted = 0;
        boolean firstEntry = false;
        for (StreamId id : ids) {
            if (s.delete(id)) {
                if (id.equals(s.firstId())) firstEntry = true;
                if (id.compareTo(s.maxDeletedId()) > 0) s.setMaxDeletedId(id);
                deleted++;
            }
        }
        if (deleted != 0) {
            if (s.length() == 0) s.setFirstId(StreamId.ZERO);
            else if (firstEntry) s.setFirstId(s.edgeId(true));
            modified(c, 1);
            event(c, 1, "xdel");
            c.engine().dirty += deleted;
        }
        c.reply().integer(deleted);
    }

    static void xsetid(Client c) {
        Args a = c.args();
        StreamId id = parseId(c, 2, 0, true, null);
        StreamId maxXdel = StreamId.ZERO;
        long entriesAdded = -1;
        int i = 3;
        while (i < a.count()) {
            int moreargs = a.count() - 1 - i;
            if (a.is(i, "entriesadded") && moreargs > 0) {
                entriesAdded = c.argLong(i + 1);
                if (entriesAdded < 0) throw CommandError.err("entries_added must be positive");
                i += 2;
            } else if (a.is(i, "maxdeletedid") && moreargs > 0) {
                maxXdel = parseId(c, i + 1, 0, true, null);
                if (id.compareTo(maxXdel) < 0) {
                    throw CommandError.err("The ID specified in XSETID is smaller than the provided max_deleted_entry_id");
                }
                i += 2;
            } else {
                throw CommandError.SYNTAX;
            }
        }
        StreamValue s = writeStream(c, 1);
        if (s == null) throw CommandError.NO_SUCH_KEY;
        if (s.length() > 0) {
            StreamId maxId = s.lastValidId();
            if (id.compareTo(maxId) < 0) {
                throw CommandError.err("The ID specified in XSETID is smaller than the target stream top item");
            }
            if (entriesAdded != -1 && s.length() > entriesAdded) {
                throw CommandError.err("The entries_added specified in XSETID is smaller than the target stream length");
            }
        }
        s.setLastId(id);
        if (entriesAdded != -1) s.setEntriesAdded(entriesAdded);
        if (!maxXdel.isZero()) s.setMaxDeletedId(maxXdel);
        c.reply().ok();
        c.engine().dirty++;
        event(c, 1, "xsetid");
    }

    /** XREAD [COUNT n] [BLOCK ms] STREAMS key... id... and XREADGROUP GROUP g c [COUNT n] [BLOCK ms] [NOACK] STREAMS ... */
    static void xread(Client c, boolean xreadgroup) {
        Args a = c.args();
        int argc = a.count();
        long timeout = -1;
        long count = 0;
        int streamsArg = 0;
        int streamsCount = 0;
        boolean noack = false;
        byte[] groupName = null;
        byte[] consumerName = null;
        int countArg = -1;
        for (int i = 1; i < argc; i++) {
            int moreargs = argc - i - 1;
            if (a.is(i, "block") && moreargs > 0) {
                if (c.fromScript()) {
                    throw CommandError.err(arg(c, 0) + " command is not allowed with BLOCK option from scripts");
                }
                i++;
                long t = c.argLong(i, CommandError.err("timeout is not an integer or out of range"));
                if (t < 0) throw CommandError.err("timeout is negative");
                if (t > 0) {
                    long now = c.engine().keyspace().clock().millis();
                    t = t > Long.MAX_VALUE - now ? Long.MAX_VALUE : t + now;
                }
                timeout = t;
            } else if (a.is(i, "count") && moreargs > 0) {
                i++;
                countArg = i;
                count = c.argLong(i);
                if (count < 0) count = 0;
            } else if (a.is(i, "streams") && moreargs > 0) {
                streamsArg = i + 1;
                streamsCount = argc - streamsArg;
                if (streamsCount % 2 != 0) {
                    throw CommandError.err("Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified.");
                }
                streamsCount /= 2;
                break;
            } else if (a.is(i, "group") && moreargs >= 2) {
                if (!xreadgroup) {
                    throw CommandError.err("The GROUP option is only supported by XREADGROUP. You called XREAD instead.");
                }
                groupName = a.copy(i + 1);
                consumerName = a.copy(i + 2);
                i += 2;
            } else if (a.is(i, "noack")) {
                if (!xreadgroup) {
                    throw CommandError.err("The NOACK option is only supported by XREADGROUP. You called XREAD instead.");
                }
                noack = true;
            } else {
                throw CommandError.SYNTAX;
            }
        }
        if (streamsArg == 0) throw CommandError.SYNTAX;
        if (xreadgroup && groupName == null) throw CommandError.err("Missing GROUP option for XREADGROUP");

        StreamId[] ids = new StreamId[streamsCount];
        StreamValue.Group[] groups = groupName != null ? new StreamValue.Group[streamsCount] : null;
        boolean dollar = false;
        for (int i = streamsArg + streamsCount; i < argc; i++) {
            int idx = i - streamsArg - streamsCount;
            int keyArg = i - streamsCount;
            StreamValue s = groupName != null ? readStreamForUpdate(c, keyArg) : readStream(c, keyArg);
            if (groupName != null) {
                StreamValue.Group g = s == null ? null : s.group(groupName);
                if (g == null) {
                    if (c.retryingBlocked() && s != null) {
                        throw new CommandError("NOGROUP the consumer group this client was blocked on no longer exists");
                    }
                    throw new CommandError("NOGROUP No such key '" + arg(c, keyArg) + "' or consumer group '"
                            + Bytes.latin1(groupName) + "' in XREADGROUP with GROUP option");
                }
                groups[idx] = g;
            }
            if (a.len(i) == 1 && a.buf(i)[a.off(i)] == '$') {
                if (xreadgroup) {
                    throw CommandError.err("The $ ID is meaningless in the context of XREADGROUP: you want to read the "
                            + "history of this consumer by specifying a proper ID, or use the > ID to get new messages. "
                            + "The $ ID would just return an empty result set.");
                }
                ids[idx] = s != null ? s.lastId() : StreamId.ZERO;
                dollar = true;
                continue;
            } else if (a.len(i) == 1 && a.buf(i)[a.off(i)] == '>') {
                if (!xreadgroup) {
                    throw CommandError.err("The > ID can be specified only when calling XREADGROUP using the GROUP "
                            + "<group> <consumer> option.");
                }
                ids[idx] = StreamId.MAX;
                continue;
            }
            ids[idx] = parseId(c, i, 0, true, null);
        }

        Reply r = c.reply();
        long arraylen = 0;
        int handle = -1;
        // served after a write: only the stream that was written answers (the first ready one)
        byte[] readyKey = c.retryingKey();
        for (int i = 0; i < streamsCount; i++) {
            int keyArg = streamsArg + i;
            if (readyKey != null && Bytes.compare(readyKey, 0, readyKey.length, a.buf(keyArg), a.off(keyArg), a.len(keyArg)) != 0) {
                continue;
            }
            Object e = c.db().find(a.buf(keyArg), a.off(keyArg), a.len(keyArg));
            if (e == null || c.db().isExpired(e)) continue;
            StreamValue s = (StreamValue) Entries.valueOf(e, ValueType.STREAM);
            StreamId gt = ids[i];
            boolean serve = false;
            boolean history = false;
            if (groups != null) {
                if (!gt.equals(StreamId.MAX)) {
                    serve = true;
                    history = true;
                } else if (s.length() != 0) {
                    StreamId maxId = s.lastValidId();
                    StreamId last = groups[i].lastId;
                    if (maxId.compareTo(last) > 0) {
                        serve = true;
                        gt = last;
                    }
                }
            } else if (s.length() != 0) {
                StreamId maxId = s.lastValidId();
                if (maxId.compareTo(gt) > 0) serve = true;
            }
            if (!serve) continue;
            arraylen++;
            if (arraylen == 1) handle = r.deferLength();
            StreamId start = gt.incr();
            if (start == null) start = StreamId.ZERO;
            if (!r.resp3()) r.arrayHeader(2);
            r.bulk(a.buf(keyArg), a.off(keyArg), a.len(keyArg));
            StreamValue.Consumer consumer = null;
            Prop prop = null;
            if (groups != null) {
                byte[] key = a.copy(keyArg);
                prop = new Prop(key, groupName);
                consumer = lookupConsumer(c, groups[i], consumerName, true);
                if (consumer == null) {
                    consumer = createConsumer(c, groups[i], consumerName, keyArg);
                    if (noack) propagateConsumerCreation(c, key, groupName, consumerName);
                }
            }
            if (history) {
                replyFromConsumerPel(c, s, start, count, consumer);
            } else {
                replyRange(c, s, start, null, count, false, groups != null ? groups[i] : null, consumer, noack, false,
                        prop);
            }
            if (groups != null) {
                c.engine().dirty++;
            }
        }
        c.preventPropagation();
        if (arraylen != 0) {
            r.setDeferredLength(handle, r.resp3() ? '%' : '*', arraylen);
            return;
        }
        if (timeout != -1) {
            if (!c.mayBlock()) {
                r.nullArray();
                return;
            }
            List<byte[]> keys = new ArrayList<>(streamsCount);
            for (int i = 0; i < streamsCount; i++) keys.add(a.copy(streamsArg + i));
            // served again later with '$' resolved to the ID it stood for now, and a bounded COUNT
            byte[][] argv = a.toArrays();
            if (dollar) {
                for (int i = 0; i < streamsCount; i++) {
                    int idArg = streamsArg + streamsCount + i;
                    if (a.len(idArg) == 1 && a.buf(idArg)[a.off(idArg)] == '$') argv[idArg] = ids[i].toBytes();
                }
            }
            if (count == 0) {
                if (countArg >= 0) {
                    argv[countArg] = Bytes.longToBytes(1000);
                } else {
                    byte[][] withCount = new byte[argv.length + 2][];
                    withCount[0] = argv[0];
                    withCount[1] = COUNT;
                    withCount[2] = Bytes.longToBytes(1000);
                    System.arraycopy(argv, 1, withCount, 3, argv.length - 1);
                    argv = withCount;
                }
            }
            c.block(ValueType.STREAM, keys, timeout, Reply::nullArray, argv,
                    groupName != null ? rep -> c.error("UNBLOCKED the stream key no longer exists") : null);
            return;
        }
        r.nullArray();
    }

    // ---- consumer groups --------------------------------------------------------------------------

    static void xgroup(Client c) {
        Args a = c.args();
        int argc = a.count();
        StreamValue s = null;
        StreamValue.Group cg = null;
        boolean mkstream = false;
        long entriesRead = -1;
        byte[] grpname = null;
        boolean create = a.is(1, "create");
        boolean setid = a.is(1, "setid");
        if (argc >= 4) {
            int i = 5;
            while (i < argc) {
                if (create && a.is(i, "mkstream")) {
                    mkstream = true;
                    i++;
                } else if ((create || setid) && a.is(i, "entriesread") && i + 1 < argc) {
                    entriesRead = c.argLong(i + 1);
                    if (entriesRead < 0 && entriesRead != -1) {
                        throw CommandError.err("value for ENTRIESREAD must be positive or -1");
                    }
                    i += 2;
                } else {
                    throw subcommandSyntax(c);
                }
            }
            s = writeStream(c, 2);
            grpname = a.copy(3);
        }
        if (argc >= 4 && !mkstream) {
            if (s == null) {
                throw CommandError.err("The XGROUP subcommand requires the key to exist. Note that for CREATE you may "
                        + "want to use the MKSTREAM option to create an empty stream automatically.");
            }
            cg = s.group(grpname);
            if (cg == null && (setid || a.is(1, "createconsumer") || a.is(1, "delconsumer"))) {
                throw new CommandError("NOGROUP No such consumer group '" + arg(c, 3) + "' for key name '"
                        + arg(c, 2) + "'");
            }
        }
        if (argc == 2 && a.is(1, "help")) {
            KeyCommands.helpReply(c, new String[] {
                "CREATE <key> <groupname> <id|$> [option]",
                "    Create a consumer group that starts reading after <id> ($: the last entry). Options are:",
                "    * MKSTREAM",
                "      Create an empty stream if <key> does not exist.",
                "    * ENTRIESREAD entries_read",
                "      Set the group's entries_read counter (internal use).",
                "CREATECONSUMER <key> <groupname> <consumer>",
                "    Create a consumer in the group.",
                "DELCONSUMER <key> <groupname> <consumer>",
                "    Delete a consumer from the group, with its pending entries.",
                "DESTROY <key> <groupname>",
                "    Delete the group.",
                "SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
                "    Set the group's last delivered ID and entries_read counter."});
        } else if (create && argc >= 5 && argc <= 8) {
            StreamId id;
            if (a.len(4) == 1 && a.buf(4)[a.off(4)] == '$') {
                id = s != null ? s.lastId() : StreamId.ZERO;
            } else {
                id = parseId(c, 4, 0, true, null);
            }
            if (s == null) {
                s = new StreamValue();
                c.db().put(a.buf(2), a.off(2), a.len(2), s.asEntry(a.copy(2), -1, c.engine().keyspace().newLru()));
                modified(c, 2);
            }
            if (s.createGroup(grpname, id, entriesRead) != null) {
                c.reply().ok();
                c.engine().dirty++;
                event(c, 2, "xgroup-create");
            } else {
                throw new CommandError("BUSYGROUP Consumer Group name already exists");
            }
        } else if (setid && (argc == 5 || argc == 7)) {
            StreamId id;
            if (a.len(4) == 1 && a.buf(4)[a.off(4)] == '$') id = s.lastId();
            else id = parseId(c, 4, 0, false, null);
            cg.lastId = id;
            cg.entriesRead = entriesRead;
            c.reply().ok();
            c.engine().dirty++;
            event(c, 2, "xgroup-setid");
        } else if (a.is(1, "destroy") && argc == 4) {
            if (cg != null) {
                s.destroyGroup(grpname);
                c.reply().integer(1);
                c.engine().dirty++;
                ready(c, 2); // blocked XREADGROUP clients of the group get -NOGROUP
                event(c, 2, "xgroup-destroy");
            } else {
                c.reply().integer(0);
            }
        } else if (a.is(1, "createconsumer") && argc == 5) {
            StreamValue.Consumer created = createConsumer(c, cg, a.copy(4), 2);
            c.reply().integer(created != null ? 1 : 0);
        } else if (a.is(1, "delconsumer") && argc == 5) {
            long pending = 0;
            StreamValue.Consumer consumer = lookupConsumer(c, cg, a.copy(4), false);
            if (consumer != null) {
                pending = consumer.pel.size();
                cg.deleteConsumer(consumer);
                c.engine().dirty++;
                event(c, 2, "xgroup-delconsumer");
            }
            c.reply().integer(pending);
        } else {
            throw subcommandSyntax(c);
        }
    }

    static void xack(Client c) {
        Args a = c.args();
        StreamValue s = readStreamForUpdate(c, 1);
        StreamValue.Group group = s == null ? null : s.group(a.copy(2));
        if (group == null) {
            c.reply().integer(0);
            return;
        }
        StreamId[] ids = new StreamId[a.count() - 3];
        for (int j = 3; j < a.count(); j++) ids[j - 3] = parseId(c, j, 0, true, null);
        int acknowledged = 0;
        for (StreamId id : ids) {
            StreamValue.Nack nack = group.pel.remove(id);
            if (nack != null) {
                nack.consumer.pel.remove(id);
                acknowledged++;
                c.engine().dirty++;
            }
        }
        c.reply().integer(acknowledged);
    }

    static void xpending(Client c) {
        Args a = c.args();
        int argc = a.count();
        boolean justinfo = argc == 3;
        byte[] consumerName = null;
        StreamId start = null;
        StreamId end = null;
        long count = 0;
        long minidle = 0;
        if (argc != 3 && (argc < 6 || argc > 9)) throw CommandError.SYNTAX;
        if (argc >= 6) {
            int startidx = 3;
            if (a.is(3, "idle")) {
                minidle = c.argLong(4);
                if (argc < 8) throw CommandError.SYNTAX;
                startidx += 2;
            }
            count = c.argLong(startidx + 2);
            if (count < 0) count = 0;
            boolean[] ex = new boolean[1];
            start = parseInterval(c, startidx, 0, ex);
            if (ex[0]) {
                start = start.incr();
                if (start == null) throw CommandError.err("invalid start ID for the interval");
            }
            end = parseInterval(c, startidx + 1, -1L, ex);
            if (ex[0]) {
                end = end.decr();
                if (end == null) throw CommandError.err("invalid end ID for the interval");
            }
            if (startidx + 3 < argc) consumerName = a.copy(startidx + 3);
        }
        StreamValue s = readStream(c, 1);
        StreamValue.Group group = s == null ? null : s.group(a.copy(2));
        if (group == null) {
            throw new CommandError("NOGROUP No such key '" + arg(c, 1) + "' or consumer group '" + arg(c, 2) + "'");
        }
        Reply r = c.reply();
        if (justinfo) {
            r.arrayHeader(4);
            r.integer(group.pel.size());
            if (group.pel.isEmpty()) {
                r.nullBulk();
                r.nullBulk();
                r.nullArray();
            } else {
                replyId(r, group.pel.firstKey());
                replyId(r, group.pel.lastKey());
                int handle = r.deferLength();
                long n = 0;
                for (StreamValue.Consumer consumer : group.consumers.values()) {
                    if (consumer.pel.isEmpty()) continue;
                    r.arrayHeader(2);
                    r.bulk(consumer.name);
                    r.bulkLong(consumer.pel.size());
                    n++;
                }
                r.setDeferredLength(handle, '*', n);
            }
            return;
        }
        StreamValue.Consumer consumer = null;
        if (consumerName != null) {
            consumer = lookupConsumer(c, group, consumerName, false);
            if (consumer == null) {
                r.arrayHeader(0);
                return;
            }
        }
        var pel = consumer != null ? consumer.pel : group.pel;
        long now = now(c);
        int handle = r.deferLength();
        long n = 0;
        for (Map.Entry<StreamId, StreamValue.Nack> e : pel.tailMap(start, true).entrySet()) {
            if (count == 0) break;
            if (e.getKey().compareTo(end) > 0) break;
            StreamValue.Nack nack = e.getValue();
            if (minidle != 0 && now - nack.deliveryTime < minidle) continue;
            n++;
            count--;
            r.arrayHeader(4);
            replyId(r, e.getKey());
            r.bulk(nack.consumer.name);
            long elapsed = now - nack.deliveryTime;
            r.integer(elapsed < 0 ? 0 : elapsed);
            r.integer(nack.deliveryCount);
        }
        r.setDeferredLength(handle, '*', n);
    }

    static void xclaim(Client c) {
        Args a = c.args();
        int argc = a.count();
        StreamValue s = readStreamForUpdate(c, 1);
        StreamValue.Group group = s == null ? null : s.group(a.copy(2));
        if (group == null) {
            throw new CommandError("NOGROUP No such key '" + arg(c, 1) + "' or consumer group '" + arg(c, 2) + "'");
        }
        long minidle = c.argLong(4, CommandError.err("Invalid min-idle-time argument for XCLAIM"));
        if (minidle < 0) minidle = 0;
        List<StreamId> ids = new ArrayList<>();
        int j;
        for (j = 5; j < argc; j++) {
            StreamId id;
            try {
                id = parseId(c, j, 0, true, null);
            } catch (CommandError e) {
                break;
            }
            ids.add(id);
        }
        int lastIdArg = j - 1;
        long now = now(c);
        long retrycount = -1;
        long deliverytime = -1;
        boolean force = false;
        boolean justid = false;
        StreamId lastId = StreamId.ZERO;
        boolean propagateLastId = false;
        for (; j < argc; j++) {
            int moreargs = argc - 1 - j;
            if (a.is(j, "force")) {
                force = true;
            } else if (a.is(j, "justid")) {
                justid = true;
            } else if (a.is(j, "idle") && moreargs > 0) {
                j++;
                deliverytime = c.argLong(j, CommandError.err("Invalid IDLE option argument for XCLAIM"));
                deliverytime = now - deliverytime;
            } else if (a.is(j, "time") && moreargs > 0) {
                j++;
                deliverytime = c.argLong(j, CommandError.err("Invalid TIME option argument for XCLAIM"));
            } else if (a.is(j, "retrycount") && moreargs > 0) {
                j++;
                retrycount = c.argLong(j, CommandError.err("Invalid RETRYCOUNT option argument for XCLAIM"));
            } else if (a.is(j, "lastid") && moreargs > 0) {
                j++;
                lastId = parseId(c, j, 0, true, null);
            } else {
                throw CommandError.err("Unrecognized XCLAIM option '" + arg(c, j) + "'");
            }
        }
        if (lastId.compareTo(group.lastId) > 0) {
            group.lastId = lastId;
            propagateLastId = true;
        }
        if (deliverytime != -1) {
            if (deliverytime < 0 || deliverytime > now) deliverytime = now;
        } else {
            deliverytime = now;
        }
        byte[] key = c.propagates() ? a.copy(1) : null; // (for what it propagates only)
        byte[] groupName = c.propagates() ? a.copy(2) : null;
        byte[] name = a.copy(3);
        StreamValue.Consumer consumer = null;
        Reply r = c.reply();
        int handle = r.deferLength();
        long n = 0;
        StreamValue.Iter it = null; // (one, reset for each ID, for the existence checks and the replies)
        for (int k = 5; k <= lastIdArg; k++) {
            StreamId id = ids.get(k - 5);
            StreamValue.Nack nack = group.pel.get(id);
            if (it == null) it = s.iter(id, id, false);
            else it.reset(id, id, false);
            if (!it.next()) {
                if (nack != null) {
                    if (c.propagates()) propagateXclaim(c, key, group, groupName, a.copy(k), nack);
                    propagateLastId = false;
                    c.engine().dirty++;
                    group.pel.remove(id);
                    nack.consumer.pel.remove(id);
                }
                continue;
            }
            if (force && nack == null) {
                nack = new StreamValue.Nack(now, 1, null);
                group.pel.put(id, nack);
            }
            if (nack != null) {
                if (nack.consumer != null && minidle != 0) {
                    if (now - nack.deliveryTime < minidle) continue;
                }
                if (consumer == null && (consumer = lookupConsumer(c, group, name, true)) == null) {
                    consumer = createConsumer(c, group, name, 1);
                }
                if (nack.consumer != consumer && nack.consumer != null) nack.consumer.pel.remove(id);
                nack.deliveryTime = deliverytime;
                if (retrycount >= 0) nack.deliveryCount = retrycount;
                else if (!justid) nack.deliveryCount++;
                if (nack.consumer != consumer) {
                    consumer.pel.put(id, nack);
                    nack.consumer = consumer;
                }
                if (justid) {
                    replyId(r, id);
                } else {
                    replyEntry(r, it); // (the iterator stands on it since the existence check)
                }
                n++;
                // (the ID as the client wrote it, as Redis propagates it)
                if (c.propagates()) propagateXclaim(c, key, group, groupName, a.copy(k), nack);
                propagateLastId = false;
                c.engine().dirty++;
            }
        }
        if (propagateLastId) {
            propagateGroupId(c, key, group, groupName);
            c.engine().dirty++;
        }
        r.setDeferredLength(handle, '*', n);
        c.preventPropagation();
    }

    static void xautoclaim(Client c) {
        Args a = c.args();
        int argc = a.count();
        long minidle = c.argLong(4, CommandError.err("Invalid min-idle-time argument for XAUTOCLAIM"));
        if (minidle < 0) minidle = 0;
        boolean[] ex = new boolean[1];
        StreamId start = parseInterval(c, 5, 0, ex);
        if (ex[0]) {
            start = start.incr();
            if (start == null) throw CommandError.err("invalid start ID for the interval");
        }
        long count = 100;
        boolean justid = false;
        int j = 6;
        while (j < argc) {
            int moreargs = argc - 1 - j;
            if (a.is(j, "count") && moreargs > 0) {
                long maxCount = Long.MAX_VALUE / 16;
                long v;
                try {
                    v = Bytes.parseLong(a.buf(j + 1), a.off(j + 1), a.len(j + 1));
                } catch (NumberFormatException e) {
                    throw CommandError.err("COUNT must be > 0");
                }
                if (v < 1 || v > maxCount) throw CommandError.err("COUNT must be > 0");
                count = v;
                j++;
            } else if (a.is(j, "justid")) {
                justid = true;
            } else {
                throw CommandError.SYNTAX;
            }
            j++;
        }
        StreamValue s = readStreamForUpdate(c, 1);
        StreamValue.Group group = s == null ? null : s.group(a.copy(2));
        if (group == null) {
            throw new CommandError("NOGROUP No such key '" + arg(c, 1) + "' or consumer group '" + arg(c, 2) + "'");
        }
        byte[] key = a.copy(1);
        byte[] groupName = a.copy(2);
        byte[] name = a.copy(3);
        StreamValue.Consumer consumer = null;
        long attempts = count * 10;
        Reply r = c.reply();
        r.arrayHeader(3);
        // the cursor comes first but is known last: reply the entries into a side buffer
        long now = now(c);
        List<StreamId> deletedIds = new ArrayList<>();
        List<StreamId> claimed = new ArrayList<>();
        StreamId cursor = start;
        StreamId next = null;
        StreamValue.Iter it = null;
        while (true) {
            Map.Entry<StreamId, StreamValue.Nack> e = group.pel.ceilingEntry(cursor);
            if (e == null) {
                next = null;
                break;
            }
            if (attempts-- == 0 || count == 0) {
                next = e.getKey();
                break;
            }
            StreamId id = e.getKey();
            StreamValue.Nack nack = e.getValue();
            StreamId after = id.incr();
            // (one iterator, reset for each ID, for the existence checks and the replies below)
            if (it == null) it = s.iter(id, id, false);
            else it.reset(id, id, false);
            if (!it.next()) {
                propagateXclaim(c, key, group, groupName, id, nack);
                c.engine().dirty++;
                group.pel.remove(id);
                nack.consumer.pel.remove(id);
                deletedIds.add(id);
                count--;
            } else if (minidle == 0 || now - nack.deliveryTime >= minidle) {
                if (consumer == null && (consumer = lookupConsumer(c, group, name, true)) == null) {
                    consumer = createConsumer(c, group, name, 1);
                }
                if (nack.consumer != consumer && nack.consumer != null) nack.consumer.pel.remove(id);
                nack.deliveryTime = now;
                if (!justid) nack.deliveryCount++;
                if (nack.consumer != consumer) {
                    consumer.pel.put(id, nack);
                    nack.consumer = consumer;
                }
                claimed.add(id);
                count--;
                propagateXclaim(c, key, group, groupName, id, nack);
                c.engine().dirty++;
            }
            if (after == null) {
                next = null;
                break;
            }
            cursor = after;
        }
        replyId(r, next == null ? StreamId.ZERO : next);
        r.arrayHeader(claimed.size());
        for (StreamId id : claimed) {
            if (justid) {
                replyId(r, id);
            } else {
                it.reset(id, id, false); // (set: an entry was claimed)
                replyRange(c, s, it, 1, null, null, false, true, null);
            }
        }
        r.arrayHeader(deletedIds.size());
        for (StreamId id : deletedIds) replyId(r, id);
        c.preventPropagation();
    }

    // ---- XINFO ------------------------------------------------------------------------------------

    static void xinfo(Client c) {
        Args a = c.args();
        int argc = a.count();
        if (a.is(1, "help")) {
            if (argc != 2) throw subcommandSyntax(c);
            KeyCommands.helpReply(c, new String[] {
                "CONSUMERS <key> <groupname>",
                "    The consumers of the group <groupname>.",
                "GROUPS <key>",
                "    The consumer groups of the stream.",
                "STREAM <key> [FULL [COUNT <count>]",
                "    Facts about the stream (FULL: with entries, groups and pending lists)."});
            return;
        } else if (argc < 3) {
            throw subcommandSyntax(c);
        }
        StreamValue s = readStream(c, 2);
        if (s == null) throw CommandError.NO_SUCH_KEY;
        Reply r = c.reply();
        if (a.is(1, "consumers") && argc == 4) {
            StreamValue.Group cg = s.group(a.copy(3));
            if (cg == null) {
                throw new CommandError("NOGROUP No such consumer group '" + arg(c, 3) + "' for key name '" + arg(c, 2)
                        + "'");
            }
            r.arrayHeader(cg.consumers.size());
            long now = now(c);
            for (StreamValue.Consumer consumer : cg.consumers.values()) {
                long idle = now - consumer.seenTime;
                if (idle < 0) idle = 0;
                r.mapHeader(3);
                r.bulk("name");
                r.bulk(consumer.name);
                r.bulk("pending");
                r.integer(consumer.pel.size());
                r.bulk("idle");
                r.integer(idle);
            }
        } else if (a.is(1, "groups") && argc == 3) {
            r.arrayHeader(s.groupCount());
            for (Map.Entry<byte[], StreamValue.Group> e : s.groups().entrySet()) {
                StreamValue.Group cg = e.getValue();
                r.mapHeader(6);
                r.bulk("name");
                r.bulk(e.getKey());
                r.bulk("consumers");
                r.integer(cg.consumers.size());
                r.bulk("pending");
                r.integer(cg.pel.size());
                r.bulk("last-delivered-id");
                replyId(r, cg.lastId);
                r.bulk("entries-read");
                if (cg.entriesRead != -1) r.integer(cg.entriesRead);
                else r.nullBulk();
                r.bulk("lag");
                replyLag(r, s, cg);
            }
        } else if (a.is(1, "stream")) {
            xinfoStream(c, s);
        } else {
            throw subcommandSyntax(c);
        }
    }

    private static void replyLag(Reply r, StreamValue s, StreamValue.Group cg) {
        Long lag = s.lag(cg);
        if (lag != null) r.integer(lag);
        else r.nullBulk();
    }

    private static void xinfoStream(Client c, StreamValue s) {
        Args a = c.args();
        int optc = a.count() - 3;
        boolean full = true;
        long count = 10;
        if (optc == 0) {
            full = false;
        } else {
            if (optc != 1 && optc != 3) throw subcommandSyntax(c);
            if (!a.is(3, "full")) throw subcommandSyntax(c);
            if (optc == 3) {
                if (!a.is(4, "count")) throw subcommandSyntax(c);
                count = c.argLong(5);
                if (count < 0) count = 10;
            }
        }
        Reply r = c.reply();
        r.mapHeader(full ? 9 : 10);
        r.bulk("length");
        r.integer(s.length());
        r.bulk("radix-tree-keys");
        r.integer(s.nodeCount());
        r.bulk("radix-tree-nodes");
        r.integer(s.raxNodes());
        r.bulk("last-generated-id");
        replyId(r, s.lastId());
        r.bulk("max-deleted-entry-id");
        replyId(r, s.maxDeletedId());
        r.bulk("entries-added");
        r.integer(s.entriesAdded());
        r.bulk("recorded-first-entry-id");
        replyId(r, s.firstId());
        if (!full) {
            r.bulk("groups");
            r.integer(s.groupCount());
            r.bulk("first-entry");
            if (replyRange(c, s, StreamId.ZERO, StreamId.MAX, 1, false, null, null, false, true, null) == 0) r.nullBulk();
            r.bulk("last-entry");
            if (replyRange(c, s, StreamId.ZERO, StreamId.MAX, 1, true, null, null, false, true, null) == 0) r.nullBulk();
            return;
        }
        r.bulk("entries");
        replyRange(c, s, null, null, count, false, null, null, false, false, null);
        r.bulk("groups");
        r.arrayHeader(s.groupCount());
        for (Map.Entry<byte[], StreamValue.Group> ge : s.groups().entrySet()) {
            StreamValue.Group cg = ge.getValue();
            r.mapHeader(7);
            r.bulk("name");
            r.bulk(ge.getKey());
            r.bulk("last-delivered-id");
            replyId(r, cg.lastId);
            r.bulk("entries-read");
            if (cg.entriesRead != -1) r.integer(cg.entriesRead);
            else r.nullBulk();
            r.bulk("lag");
            replyLag(r, s, cg);
            r.bulk("pel-count");
            r.integer(cg.pel.size());
            r.bulk("pending");
            int handle = r.deferLength();
            long n = 0;
            for (Map.Entry<StreamId, StreamValue.Nack> pe : cg.pel.entrySet()) {
                if (count != 0 && n >= count) break;
                StreamValue.Nack nack = pe.getValue();
                r.arrayHeader(4);
                replyId(r, pe.getKey());
                r.bulk(nack.consumer.name);
                r.integer(nack.deliveryTime);
                r.integer(nack.deliveryCount);
                n++;
            }
            r.setDeferredLength(handle, '*', n);
            r.bulk("consumers");
            r.arrayHeader(cg.consumers.size());
            for (StreamValue.Consumer consumer : cg.consumers.values()) {
                r.mapHeader(4);
                r.bulk("name");
                r.bulk(consumer.name);
                r.bulk("seen-time");
                r.integer(consumer.seenTime);
                r.bulk("pel-count");
                r.integer(consumer.pel.size());
                r.bulk("pending");
                int h2 = r.deferLength();
                long m = 0;
                for (Map.Entry<StreamId, StreamValue.Nack> pe : consumer.pel.entrySet()) {
                    if (count != 0 && m >= count) break;
                    r.arrayHeader(3);
                    replyId(r, pe.getKey());
                    r.integer(pe.getValue().deliveryTime);
                    r.integer(pe.getValue().deliveryCount);
                    m++;
                }
                r.setDeferredLength(h2, '*', m);
            }
        }
    }
}
