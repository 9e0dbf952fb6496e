package io.spinel.core.type.hash;

import io.spinel.core.Client;
import io.spinel.core.Engine;
import io.spinel.core.Notify;
import io.spinel.core.command.CommandError;
import io.spinel.core.command.CommandHandler;
import io.spinel.core.keyspace.EncodingConfig;
import io.spinel.core.keyspace.Entries;
import io.spinel.core.keyspace.KeyCommands;
import io.spinel.core.keyspace.ValueType;
import io.spinel.core.protocol.Args;
import io.spinel.core.protocol.Reply;
import io.spinel.core.util.Bytes;
import io.spinel.core.util.Float80;
import io.spinel.core.util.PackedStrings;

import java.util.IdentityHashMap;
import java.util.SplittableRandom;

/** Hash commands (Redis's t_hash.c) over {@link HashValue}. */
public final class HashCommands {
    private HashCommands() {
    }

    private static final SplittableRandom RANDOM = new SplittableRandom();
    private static final byte[] HSET = Bytes.ascii("HSET");
    private static final CommandError NOT_INTEGER = CommandError.err("hash value is not an integer");
    private static final CommandError NOT_FLOAT = CommandError.err("hash value is not a float");
    private static final CommandError COUNT_RANGE = CommandError.err(
            "value is out of range, value must between -9223372036854775807 and 9223372036854775807");

    /** The handler of each command CommandFamilies registers for this family, made when it first runs. */
    public static CommandHandler handler(String name) {
        return switch (name) {
            case "hset" -> c -> hset(c, true);
            case "hmset" -> c -> hset(c, false);
            case "hsetnx" -> HashCommands::hsetnx;
            case "hget" -> HashCommands::hget;
            case "hmget" -> HashCommands::hmget;
            case "hdel" -> HashCommands::hdel;
            case "hlen" -> HashCommands::hlen;
            case "hstrlen" -> HashCommands::hstrlen;
            case "hexists" -> HashCommands::hexists;
            case "hkeys" -> c -> hgetall(c, true, false);
            case "hvals" -> c -> hgetall(c, false, true);
            case "hgetall" -> c -> hgetall(c, true, true);
            case "hincrby" -> HashCommands::hincrby;
            case "hincrbyfloat" -> HashCommands::hincrbyfloat;
            case "hrandfield" -> HashCommands::hrandfield;
            case "hscan" -> HashCommands::hscan;
            default -> null;
        };
    }

    // ---- helpers ------------------------------------------------------------------------------

    private static HashValue readHash(Client c, int i) {
        Args a = c.args();
        Object e = c.db().lookupRead(a.buf(i), a.off(i), a.len(i), !c.noTouch());
        return (HashValue) Entries.valueOf(e, ValueType.HASH);
    }

    private static HashValue writeHash(Client c, int i) {
        Args a = c.args();
        return (HashValue) Entries.valueOf(c.db().lookupWrite(a.buf(i), a.off(i), a.len(i)), ValueType.HASH);
    }

    /** Redis's hashTypeLookupWriteOrCreate: the hash at key argument i, created empty if missing. */
    private static HashValue writeOrCreate(Client c, int i) {
        HashValue h = writeHash(c, i);
        if (h == null) {
            Args a = c.args();
            h = new HashValue();
            c.db().put(a.buf(i), a.off(i), a.len(i),
                    h.asEntry(a.copy(i), -1, c.engine().keyspace().newLru()));
        }
        return h;
    }

    private static void modified(Client c, String event, long dirty) {
        Args a = c.args();
        Engine engine = c.engine();
        engine.dirty += dirty;
        engine.keyModified(c.db(), a.buf(1), a.off(1), a.len(1));
        engine.notify(Notify.HASH, event, c.db(), a.buf(1), a.off(1), a.len(1));
    }

    private static boolean set(HashValue h, Args a, int f, int v, EncodingConfig enc) {
        return h.set(a.buf(f), a.off(f), a.len(f), a.buf(v), a.off(v), a.len(v),
                enc.hashMaxListpackEntries, enc.hashMaxListpackValue);
    }

    // ---- writes -------------------------------------------------------------------------------

    static void hset(Client c, boolean isHset) {
        Args a = c.args();
        if (a.count() % 2 == 1) {
            throw CommandError.err("wrong number of arguments for '" + (isHset ? "hset" : "hmset") + "' command");
        }
        HashValue h = writeOrCreate(c, 1);
        EncodingConfig enc = c.engine().encodings();
        if (h.isListpack() && (a.count() - 2) / 2 + h.length() <= enc.hashMaxListpackEntries) {
            long bytes = 0;
            for (int i = 2; i < a.count(); i++) bytes += PackedStrings.storedSize(a.len(i));
            h.reserve(bytes); // one allocation for all the new pairs instead of one per pair
        }
        long created = 0;
        for (int i = 2; i < a.count(); i += 2) {
            if (set(h, a, i, i + 1, enc)) created++;
        }
        if (isHset) c.reply().integer(created);
        else c.reply().ok();
        modified(c, "hset", (a.count() - 2) / 2);
    }

    static void hsetnx(Client c) {
        Args a = c.args();
        HashValue h = writeOrCreate(c, 1);
        if (h.exists(a.buf(2), a.off(2), a.len(2))) {
            c.reply().integer(0);
            return;
        }
        set(h, a, 2, 3, c.engine().encodings());
        c.reply().integer(1);
        modified(c, "hset", 1);
    }

    static void hdel(Client c) {
        Args a = c.args();
        HashValue h = writeHash(c, 1);
        if (h == null) {
            c.reply().integer(0);
            return;
        }
        int deleted = 0;
        boolean keyRemoved = false;
        for (int i = 2; i < a.count(); i++) {
            if (h.delete(a.buf(i), a.off(i), a.len(i))) {
                deleted++;
                if (h.length() == 0) {
                    c.db().remove(a.buf(1), a.off(1), a.len(1));
                    keyRemoved = true;
                    break;
                }
            }
        }
        if (deleted > 0) {
            modified(c, "hdel", deleted);
            if (keyRemoved) c.engine().notify(Notify.GENERIC, "del", c.db(), a.buf(1), a.off(1), a.len(1));
        }
        c.reply().integer(deleted);
    }

    static void hincrby(Client c) {
        Args a = c.args();
        long incr = c.argLong(3);
        HashValue h = writeOrCreate(c, 1);
        long value;
        try {
            value = h.getLong(a.buf(2), a.off(2), a.len(2), 0);
        } catch (NumberFormatException e) {
            throw NOT_INTEGER;
        }
        if ((incr < 0 && value < 0 && incr < Long.MIN_VALUE - value)
                || (incr > 0 && value > 0 && incr > Long.MAX_VALUE - value)) {
            throw CommandError.OVERFLOW;
        }
        value += incr;
        byte[] digits = c.engine().digitScratch(); // the hash copies them
        int n = Bytes.writeLong(digits, 0, value);
        EncodingConfig enc = c.engine().encodings();
        h.set(a.buf(2), a.off(2), a.len(2), digits, 0, n, enc.hashMaxListpackEntries,
                enc.hashMaxListpackValue);
        c.reply().integer(value);
        modified(c, "hincrby", 1);
    }

    static void hincrbyfloat(Client c) {
        Args a = c.args();
        Float80 incr;
        try {
            incr = Float80.parse(a.buf(3), a.off(3), a.len(3));
        } catch (NumberFormatException e) {
            throw CommandError.NOT_FLOAT;
        }
        if (incr == null) throw CommandError.err("value is NaN or Infinity");
        HashValue h = writeOrCreate(c, 1);
        byte[] old = h.get(a.buf(2), a.off(2), a.len(2));
        Float80 value = Float80.of(0);
        if (old != null) {
            try {
                value = Float80.parse(old, 0, old.length);
            } catch (NumberFormatException e) {
                throw NOT_FLOAT;
            }
        }
        Float80 sum = value == null ? null : value.plus(incr);
        if (sum == null) throw CommandError.err("increment would produce NaN or Infinity");
        byte[] text = Bytes.ascii(sum.toHumanString());
        EncodingConfig enc = c.engine().encodings();
        h.set(a.buf(2), a.off(2), a.len(2), text, 0, text.length, enc.hashMaxListpackEntries,
                enc.hashMaxListpackValue);
        c.reply().bulk(text);
        modified(c, "hincrbyfloat", 1);
        // replicas and the AOF get the result, so float formatting can never make them diverge
        if (c.propagates()) c.propagateAs(HSET, a.copy(1), a.copy(2), text);
    }

    // ---- reads --------------------------------------------------------------------------------

    static void hget(Client c) {
        Args a = c.args();
        HashValue h = readHash(c, 1);
        if (h == null || !h.replyValue(a.buf(2), a.off(2), a.len(2), c.reply())) c.reply().nullBulk();
    }

    static void hmget(Client c) {
        Args a = c.args();
        HashValue h = readHash(c, 1);
        Reply r = c.reply();
        r.arrayHeader(a.count() - 2);
        for (int i = 2; i < a.count(); i++) {
            if (h == null || !h.replyValue(a.buf(i), a.off(i), a.len(i), r)) r.nullBulk();
        }
    }

    static void hlen(Client c) {
        HashValue h = readHash(c, 1);
        c.reply().integer(h == null ? 0 : h.length());
    }

    static void hstrlen(Client c) {
        Args a = c.args();
        HashValue h = readHash(c, 1);
        c.reply().integer(h == null ? 0 : h.valueLength(a.buf(2), a.off(2), a.len(2)));
    }

    static void hexists(Client c) {
        Args a = c.args();
        HashValue h = readHash(c, 1);
        c.reply().integer(h != null && h.exists(a.buf(2), a.off(2), a.len(2)) ? 1 : 0);
    }

    static void hgetall(Client c, boolean fields, boolean values) {
        HashValue h = readHash(c, 1);
        Reply r = c.reply();
        boolean map = fields && values;
        int n = h == null ? 0 : h.length();
        if (map) r.mapHeader(n);
        else r.arrayHeader(n);
        if (h != null) h.replyAll(r, fields, values);
    }

    // ---- HRANDFIELD ---------------------------------------------------------------------------

    static void hrandfield(Client c) {
        Args a = c.args();
        if (a.count() >= 3) {
            long l = c.argLong(2);
            if (l == Long.MIN_VALUE) throw COUNT_RANGE;
            boolean withValues = false;
            if (a.count() > 4 || (a.count() == 4 && !a.is(3, "withvalues"))) {
                throw CommandError.SYNTAX;
            } else if (a.count() == 4) {
                withValues = true;
                if (l < -Long.MAX_VALUE / 2 || l > Long.MAX_VALUE / 2) throw CommandError.err("value is out of range");
            }
            hrandfieldWithCount(c, l, withValues);
            return;
        }
        HashValue h = readHash(c, 1);
        Reply r = c.reply();
        if (h == null) {
            r.nullBulk();
            return;
        }
        if (h.isListpack()) {
            int[] pos = h.pairPositions();
            h.replyPair(pos[RANDOM.nextInt(pos.length)], r, false);
        } else {
            replyEntry((byte[]) h.table().random(RANDOM), r, false, false);
        }
    }

    private static void replyEntry(byte[] e, Reply r, boolean value, boolean pairHeader) {
        if (pairHeader) r.arrayHeader(2);
        r.bulk(e, FieldTable.fieldOffset(e), FieldTable.fieldLength(e));
        if (value) {
            int vo = FieldTable.valueOffset(e);
            r.bulk(e, vo, e.length - vo);
        }
    }

    private static void replyListpackPair(HashValue h, int p, Reply r, boolean value, boolean pairHeader) {
        if (pairHeader) r.arrayHeader(2);
        h.replyPair(p, r, value);
    }

    /**
     * HRANDFIELD with a count, following Redis's cases: a negative count samples with repetition;
     * a count at least the size returns the whole hash in its order; otherwise a random subset of
     * distinct fields.
     */
    private static void hrandfieldWithCount(Client c, long l, boolean withValues) {
        HashValue h = readHash(c, 1);
        Reply r = c.reply();
        if (h == null) {
            r.arrayHeader(0);
            return;
        }
        long size = h.length();
        boolean unique = l >= 0;
        long count = unique ? l : -l;
        if (count == 0) {
            r.arrayHeader(0);
            return;
        }
        boolean resp3 = r.resp3();
        boolean pairHeaders = withValues && resp3;
        if (!unique || count == 1) {
            r.arrayHeader(withValues && !resp3 ? count * 2 : count);
            if (h.isListpack()) {
                int[] pos = h.pairPositions();
                for (long i = 0; i < count && !c.closingAsap(); i++) {
                    replyListpackPair(h, pos[RANDOM.nextInt(pos.length)], r, withValues, pairHeaders);
                }
            } else {
                FieldTable t = h.table();
                for (long i = 0; i < count && !c.closingAsap(); i++) {
                    replyEntry((byte[]) t.random(RANDOM), r, withValues, pairHeaders);
                }
            }
            return;
        }
        long replySize = Math.min(count, size);
        r.arrayHeader(withValues && !resp3 ? replySize * 2 : replySize);
        if (count >= size) {
            if (h.isListpack()) {
                for (int p : h.pairPositions()) replyListpackPair(h, p, r, withValues, pairHeaders);
            } else {
                h.table().forEach(e -> replyEntry((byte[]) e, r, withValues, pairHeaders));
            }
            return;
        }
        int n = (int) count;
        if (h.isListpack()) {
            int[] pos = h.pairPositions();
            partialShuffle(pos, n);
            for (int i = 0; i < n; i++) replyListpackPair(h, pos[i], r, withValues, pairHeaders);
        } else if (count * 3 > size) {
            // close to the whole hash: shuffle a snapshot rather than retry duplicate picks
            Object[] all = h.table().toArray();
            partialShuffle(all, n);
            for (int i = 0; i < n; i++) replyEntry((byte[]) all[i], r, withValues, pairHeaders);
        } else {
            IdentityHashMap<Object, Boolean> seen = new IdentityHashMap<>(n * 2);
            FieldTable t = h.table();
            while (seen.size() < n) {
                Object e = t.random(RANDOM);
                if (seen.put(e, Boolean.TRUE) == null) replyEntry((byte[]) e, r, withValues, pairHeaders);
            }
        }
    }

    /** Moves a uniformly random choice of n elements, in random order, to the front. */
    static void partialShuffle(int[] a, int n) {
        for (int i = 0; i < n; i++) {
            int j = i + RANDOM.nextInt(a.length - i);
            int x = a[i];
            a[i] = a[j];
            a[j] = x;
        }
    }

    static void partialShuffle(Object[] a, int n) {
        for (int i = 0; i < n; i++) {
            int j = i + RANDOM.nextInt(a.length - i);
            Object x = a[i];
            a[i] = a[j];
            a[j] = x;
        }
    }

    // ---- HSCAN --------------------------------------------------------------------------------

    static void hscan(Client c) {
        long cursor = KeyCommands.parseCursor(c, 2);
        HashValue h = readHash(c, 1);
        Reply r = c.reply();
        if (h == null) {
            KeyCommands.replyEmptyScan(r);
            return;
        }
        KeyCommands.ScanOptions o = KeyCommands.parseScanOptions(c, 3, false);
        if (h.isListpack()) {
            // small encodings are returned whole, with cursor 0, as Redis does: counted, then written
            byte[] lp = h.listpack();
            int matched = 0;
            for (int p = 0; p < h.listpackUsed(); p = h.nextPair(p)) {
                if (fieldMatches(lp, p, o)) matched++;
            }
            KeyCommands.replyCursor(r, 0);
            r.arrayHeader(matched * 2L);
            for (int p = 0; p < h.listpackUsed(); p = h.nextPair(p)) {
                if (fieldMatches(lp, p, o)) h.replyPair(p, r, true);
            }
            return;
        }
        // two reply elements per field, as Redis counts them
        long count = o.count > Long.MAX_VALUE / 2 ? Long.MAX_VALUE : o.count * 2;
        long maxIterations = count > Long.MAX_VALUE / 10 ? Long.MAX_VALUE : count * 10;
        KeyCommands.ScanBuffer found = KeyCommands.scanBuffer();
        FieldTable t = h.table();
        do {
            cursor = t.scan(cursor, found);
        } while (cursor != 0 && maxIterations-- > 0 && found.size() * 2L < count);
        int matched = 0;
        for (int i = 0; i < found.size(); i++) {
            byte[] e = (byte[]) found.get(i);
            if (o.matches(e, FieldTable.fieldOffset(e), FieldTable.fieldLength(e))) found.set(matched++, e);
        }
        KeyCommands.replyCursor(r, cursor);
        r.arrayHeader(matched * 2L);
        for (int i = 0; i < matched; i++) replyEntry((byte[]) found.get(i), r, true, false);
        found.clear();
    }

    private static boolean fieldMatches(byte[] lp, int p, KeyCommands.ScanOptions o) {
        int fl = PackedStrings.readLength(lp, p);
        return o.matches(lp, p + PackedStrings.prefixSize(fl), fl);
    }
}
