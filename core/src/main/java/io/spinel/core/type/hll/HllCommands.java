package io.spinel.core.type.hll;

import io.spinel.core.Client;
import io.spinel.core.Engine;
import io.spinel.core.Notify;
import io.spinel.core.command.CommandError;
import io.spinel.core.command.CommandHandler;
import io.spinel.core.keyspace.Db;
import io.spinel.core.keyspace.StringEntry;
import io.spinel.core.protocol.Args;
import io.spinel.core.protocol.Reply;
import io.spinel.core.util.Bytes;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * HyperLogLog commands (Redis's hyperloglog.c). An HLL is an ordinary string value in Redis's own
 * layout ({@link Hll}), edited in place inside its {@link StringEntry}: PFADD on a dense HLL
 * allocates nothing.
 */
public final class HllCommands {
    private HllCommands() {
    }

    static final CommandError INVALID = new CommandError("INVALIDOBJ Corrupted HLL object detected");
    static final CommandError NOT_HLL = new CommandError("WRONGTYPE Key is not a valid HyperLogLog string value.");

    /** Per-thread scratch: one byte per register for unions, and the register histogram. */
    private static final class Scratch {
        final byte[] max = new byte[Hll.REGISTERS];
        final int[] histo = new int[64];
    }

    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    /** The handler of each command CommandFamilies registers for this family, made when it first runs. */
    public static CommandHandler handler(String name) {
        return switch (name) {
            case "pfadd" -> HllCommands::pfadd;
            case "pfcount" -> HllCommands::pfcount;
            case "pfmerge" -> HllCommands::pfmerge;
            case "pfdebug" -> HllCommands::pfdebug;
            case "pfselftest" -> HllCommands::pfselftest;
            default -> null;
        };
    }

    // ---- helpers ------------------------------------------------------------------------------------

    /** The entry if it holds a valid HLL; WRONGTYPE errors otherwise (isHLLObjectOrReply). */
    private static byte[] checkHll(Object o) {
        if (!(o instanceof byte[])) throw CommandError.WRONGTYPE;
        byte[] e = (byte[]) o;
        if (StringEntry.isInt(e)) throw NOT_HLL;
        if (!Hll.isValid(e, StringEntry.valueOffset(e), StringEntry.valueLength(e))) throw NOT_HLL;
        return e;
    }

    /** The HLL's entry made RAW so it can be edited in place (dbUnshareStringValue), stored if replaced. */
    private static byte[] unshare(Client c, int keyArg, byte[] e) {
        byte[] r = StringEntry.toRaw(e);
        if (r != e) put(c, keyArg, r);
        return r;
    }

    private static void put(Client c, int keyArg, byte[] e) {
        Args a = c.args();
        c.db().put(a.buf(keyArg), a.off(keyArg), a.len(keyArg), e);
    }

    private static byte[] newHll(Client c, int keyArg) {
        Args a = c.args();
        byte[] e = StringEntry.createRaw(a.buf(keyArg), a.off(keyArg), a.len(keyArg), Bytes.EMPTY, 0, 0,
                Hll.EMPTY_SPARSE_SIZE, -1, c.engine().keyspace().newLru());
        e = StringEntry.resizeRaw(e, Hll.EMPTY_SPARSE_SIZE, 0);
        Hll.writeEmptySparse(e, StringEntry.valueOffset(e));
        put(c, keyArg, e);
        return e;
    }

    // ---- commands -----------------------------------------------------------------------------------

    static void pfadd(Client c) {
        Args a = c.args();
        Object o = c.db().lookupWrite(a.buf(1), a.off(1), a.len(1));
        int updated = 0;
        byte[] e;
        if (o == null) {
            e = newHll(c, 1);
            updated++;
        } else {
            e = unshare(c, 1, checkHll(o));
        }
        int n = a.count();
        int v = StringEntry.valueOffset(e);
        if (Hll.encoding(e, v) == Hll.DENSE) {
            int r = v + Hll.HDR;
            for (int j = 2; j < n; j++) {
                long h = Hll.hash(a.buf(j), a.off(j), a.len(j));
                updated += Hll.denseUpdate(e, r, Hll.registerOf(h), Hll.runOf(h));
            }
        } else {
            HllValue hv = new HllValue(e);
            int maxBytes = c.engine().encodings().hllSparseMaxBytes;
            try {
                for (int j = 2; j < n; j++) {
                    int ret = hv.add(Hll.hash(a.buf(j), a.off(j), a.len(j)), maxBytes);
                    if (ret < 0) throw INVALID;
                    updated += ret;
                }
            } finally {
                // the registers changed so far stay changed, as in Redis
                if (hv.entry() != e) put(c, 1, hv.entry());
            }
            e = hv.entry();
            v = hv.valueOffset();
        }
        if (updated > 0) {
            Engine engine = c.engine();
            engine.keyModified(c.db(), a.buf(1), a.off(1), a.len(1));
            engine.notify(Notify.STRING, "pfadd", c.db(), a.buf(1), a.off(1), a.len(1));
            engine.dirty += updated;
            Hll.invalidateCache(e, v);
        }
        c.reply().integer(updated > 0 ? 1 : 0);
    }

    static void pfcount(Client c) {
        Args a = c.args();
        Db db = c.db();
        boolean touch = !c.noTouch();
        Scratch s = SCRATCH.get();
        int[] histo = s.histo;
        Arrays.fill(histo, 0);
        if (a.count() > 2) {
            // the cardinality of the union, computed on one byte per register
            byte[] max = s.max;
            Arrays.fill(max, (byte) 0);
            for (int j = 1; j < a.count(); j++) {
                Object o = db.lookupRead(a.buf(j), a.off(j), a.len(j), touch);
                if (o == null) continue;
                byte[] e = checkHll(o);
                if (!Hll.mergeInto(max, e, StringEntry.valueOffset(e), StringEntry.valueLength(e))) throw INVALID;
            }
            Hll.rawHistogram(max, histo);
            c.reply().integer(Hll.estimate(histo));
            return;
        }
        Object o = db.lookupRead(a.buf(1), a.off(1), a.len(1), touch);
        if (o == null) {
            c.reply().integer(0);
            return;
        }
        byte[] e = unshare(c, 1, checkHll(o));
        int v = StringEntry.valueOffset(e);
        long card;
        if (Hll.cacheValid(e, v)) {
            card = Hll.cachedCardinality(e, v);
        } else {
            if (!Hll.histogram(e, v, StringEntry.valueLength(e), histo)) throw INVALID;
            card = Hll.estimate(histo);
            // Refreshing the cache modifies the string: a read command that writes, as in Redis.
            db.willModify(a.buf(1), a.off(1), a.len(1), e);
            Hll.setCachedCardinality(e, v, card);
            c.engine().keyModified(db, a.buf(1), a.off(1), a.len(1));
            c.engine().dirty++;
        }
        c.reply().integer(card);
    }

    static void pfmerge(Client c) {
        Args a = c.args();
        Db db = c.db();
        boolean touch = !c.noTouch();
        byte[] max = SCRATCH.get().max;
        Arrays.fill(max, (byte) 0);
        boolean useDense = false;
        for (int j = 1; j < a.count(); j++) {
            Object o = db.lookupRead(a.buf(j), a.off(j), a.len(j), touch);
            if (o == null) continue;
            byte[] e = checkHll(o);
            int v = StringEntry.valueOffset(e);
            if (Hll.encoding(e, v) == Hll.DENSE) useDense = true;
            if (!Hll.mergeInto(max, e, v, StringEntry.valueLength(e))) throw INVALID;
        }
        Object o = db.lookupWrite(a.buf(1), a.off(1), a.len(1));
        byte[] e = o == null ? newHll(c, 1) : unshare(c, 1, (byte[]) o);
        HllValue hv = new HllValue(e);
        try {
            if (useDense && !hv.toDense()) throw INVALID;
            int maxBytes = c.engine().encodings().hllSparseMaxBytes;
            if (hv.encoding() == Hll.DENSE) {
                // the destination was one of the merged keys (or empty), so no register of it
                // exceeds max: writing max over it is what raising each register would do
                Hll.denseWriteAll(hv.entry(), hv.valueOffset() + Hll.HDR, max);
            } else {
                for (int j = 0; j < Hll.REGISTERS; j++) {
                    if (max[j] == 0) continue;
                    if (hv.encoding() == Hll.DENSE) Hll.denseUpdate(hv.entry(), hv.valueOffset() + Hll.HDR, j, max[j]);
                    else hv.sparseSet(j, max[j], maxBytes);
                }
            }
        } finally {
            if (hv.entry() != e) put(c, 1, hv.entry());
        }
        Hll.invalidateCache(hv.entry(), hv.valueOffset());
        Engine engine = c.engine();
        engine.keyModified(db, a.buf(1), a.off(1), a.len(1));
        engine.notify(Notify.STRING, "pfadd", db, a.buf(1), a.off(1), a.len(1));
        engine.dirty++;
        c.reply().ok();
    }

    static void pfdebug(Client c) {
        Args a = c.args();
        Object o = c.db().lookupWrite(a.buf(2), a.off(2), a.len(2));
        if (o == null) throw CommandError.err("The specified key does not exist");
        byte[] e = unshare(c, 2, checkHll(o));
        int v = StringEntry.valueOffset(e);
        Reply r = c.reply();
        if (a.is(1, "getreg")) {
            if (Hll.encoding(e, v) == Hll.SPARSE) {
                e = toDense(c, e);
                v = StringEntry.valueOffset(e);
                c.engine().dirty++;
            }
            r.arrayHeader(Hll.REGISTERS);
            for (int j = 0; j < Hll.REGISTERS; j++) r.integer(Hll.denseGet(e, v + Hll.HDR, j));
        } else if (a.is(1, "decode")) {
            if (Hll.encoding(e, v) != Hll.SPARSE) throw CommandError.err("HLL encoding is not sparse");
            r.bulk(Bytes.ascii(Hll.decode(e, v, StringEntry.valueLength(e))));
        } else if (a.is(1, "encoding")) {
            r.status(Hll.encoding(e, v) == Hll.DENSE ? "dense" : "sparse");
        } else if (a.is(1, "todense")) {
            boolean converted = false;
            if (Hll.encoding(e, v) == Hll.SPARSE) {
                toDense(c, e);
                converted = true;
                c.engine().dirty++;
            }
            r.integer(converted ? 1 : 0);
        } else {
            throw CommandError.err("Unknown PFDEBUG subcommand '" + a.cString(1) + "'");
        }
    }

    private static byte[] toDense(Client c, byte[] e) {
        HllValue hv = new HllValue(e);
        if (!hv.toDense()) throw INVALID;
        if (hv.entry() != e) put(c, 2, hv.entry());
        return hv.entry();
    }

    private static final int SELFTEST_CYCLES = 1000;

    /**
     * PFSELFTEST: checks the dense register packing against plain bytes, then that dense and sparse
     * HLLs fed the same 10 million elements agree and stay within the expected error.
     */
    static void pfselftest(Client c) {
        SplittableRandom rnd = new SplittableRandom();
        byte[] dense = new byte[Hll.DENSE_SIZE];
        byte[] plain = new byte[Hll.REGISTERS];
        for (int cycle = 0; cycle < SELFTEST_CYCLES; cycle++) {
            for (int i = 0; i < Hll.REGISTERS; i++) {
                int val = rnd.nextInt(Hll.REGISTER_MAX + 1);
                plain[i] = (byte) val;
                Hll.denseSet(dense, Hll.HDR, i, val);
            }
            for (int i = 0; i < Hll.REGISTERS; i++) {
                int val = Hll.denseGet(dense, Hll.HDR, i);
                if (val != plain[i]) {
                    throw CommandError.err("TESTFAILED Register " + i + " should be " + plain[i] + " but is " + val);
                }
            }
        }

        Arrays.fill(dense, (byte) 0);
        dense[4] = Hll.DENSE;
        byte[] key = Bytes.EMPTY;
        byte[] e = StringEntry.createRaw(key, 0, 0, Bytes.EMPTY, 0, 0, Hll.EMPTY_SPARSE_SIZE, -1, 0);
        e = StringEntry.resizeRaw(e, Hll.EMPTY_SPARSE_SIZE, 0);
        Hll.writeEmptySparse(e, StringEntry.valueOffset(e));
        HllValue sparse = new HllValue(e);
        int maxBytes = c.engine().encodings().hllSparseMaxBytes;
        double relerr = 1.04 / Math.sqrt(Hll.REGISTERS);
        long checkpoint = 1;
        long seed = rnd.nextLong();
        byte[] ele = new byte[8];
        int[] histo = new int[64];
        for (long j = 1; j <= 10_000_000; j++) {
            Bytes.putLongLE(ele, 0, j ^ seed);
            long h = Hll.hash(ele, 0, 8);
            Hll.denseUpdate(dense, Hll.HDR, Hll.registerOf(h), Hll.runOf(h));
            sparse.add(h, maxBytes);
            if (j != checkpoint) continue;
            if (j < maxBytes / 2 && sparse.encoding() != Hll.SPARSE) {
                throw CommandError.err("TESTFAILED sparse encoding not used");
            }
            Arrays.fill(histo, 0);
            Hll.histogram(dense, 0, dense.length, histo);
            long denseCount = Hll.estimate(histo);
            Arrays.fill(histo, 0);
            byte[] se = sparse.entry();
            Hll.histogram(se, StringEntry.valueOffset(se), StringEntry.valueLength(se), histo);
            if (denseCount != Hll.estimate(histo)) throw CommandError.err("TESTFAILED dense/sparse disagree");
            long abserr = Math.abs(checkpoint - denseCount);
            long maxerr = (long) Math.ceil(relerr * 6 * checkpoint);
            // at 10 elements a collision is likely enough to allow an error of one
            if (j == 10) maxerr = 1;
            if (abserr > maxerr) {
                throw CommandError.err("TESTFAILED Too big error. card:" + checkpoint + " abserr:" + abserr);
            }
            checkpoint *= 10;
        }
        c.reply().ok();
    }
}
