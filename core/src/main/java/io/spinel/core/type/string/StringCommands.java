package io.spinel.core.type.string;

import io.spinel.core.Client;
import io.spinel.core.Engine;
import io.spinel.core.Notify;
import io.spinel.core.command.Command;
import io.spinel.core.command.CommandError;
import io.spinel.core.command.CommandHandler;
import io.spinel.core.keyspace.Db;
import io.spinel.core.keyspace.Entries;
import io.spinel.core.keyspace.Keyspace;
import io.spinel.core.keyspace.StringEntry;
import io.spinel.core.protocol.Args;
import io.spinel.core.protocol.Reply;
import io.spinel.core.util.Bytes;
import io.spinel.core.util.Float80;

import java.util.Arrays;
import java.util.List;

/**
 * String commands (Redis's t_string.c). Values live packed with their key in a
 * {@link StringEntry}; GET writes straight from that array to the reply, SET of a same-sized
 * value and INCR of a counter rewrite it in place.
 */
public final class StringCommands {
    private StringCommands() {
    }

    private static final byte[] SET = Bytes.ascii("SET");
    private static final byte[] PXAT = Bytes.ascii("PXAT");
    private static final byte[] KEEPTTL = Bytes.ascii("KEEPTTL");
    private static final byte[] DEL = Bytes.ascii("DEL");
    private static final byte[] PEXPIREAT = Bytes.ascii("PEXPIREAT");
    private static final byte[] PERSIST = Bytes.ascii("PERSIST");

    /** The handler of each command CommandFamilies registers for this family, made when it first runs. */
    public static CommandHandler handler(String name) {
        return switch (name) {
            case "get" -> StringCommands::get;
            case "set" -> StringCommands::set;
            case "setnx" -> StringCommands::setnx;
            case "setex" -> c -> setex(c, false);
            case "psetex" -> c -> setex(c, true);
            case "getset" -> StringCommands::getset;
            case "getdel" -> StringCommands::getdel;
            case "getex" -> StringCommands::getex;
            case "mget" -> StringCommands::mget;
            case "mset" -> c -> mset(c, false);
            case "msetnx" -> c -> mset(c, true);
            case "strlen" -> StringCommands::strlen;
            case "append" -> StringCommands::append;
            case "incr" -> c -> incrDecr(c, 1);
            case "decr" -> c -> incrDecr(c, -1);
            case "incrby" -> c -> incrDecr(c, c.argLong(2));
            case "decrby" -> StringCommands::decrby;
            case "incrbyfloat" -> StringCommands::incrbyfloat;
            case "getrange" -> StringCommands::getrange;
            case "substr" -> StringCommands::getrange;
            case "setrange" -> StringCommands::setrange;
            case "lcs" -> StringCommands::lcs;
            default -> null;
        };
    }

    // ---- helpers ------------------------------------------------------------------------------

    /** The string entry of key argument i for reading, null if missing; WRONGTYPE if not a string. */
    static byte[] readString(Client c, int i) {
        Args a = c.args();
        Object e = c.db().lookupRead(a.buf(i), a.off(i), a.len(i), !c.noTouch());
        if (e == null) return null;
        if (!(e instanceof byte[])) throw CommandError.WRONGTYPE;
        return (byte[]) e;
    }

    /**
     * {@link #readString} for the commands that read the value through StringEntry's accessors
     * only (GET, STRLEN): a BIG entry is read in native memory instead of being moved to the heap.
     */
    private static byte[] readStringAnyEncoding(Client c, int i) {
        Args a = c.args();
        return asString(c.db().lookupReadBig(a.buf(i), a.off(i), a.len(i), !c.noTouch()));
    }

    /** The entry of key argument i for writing (any type), null if missing. */
    static Object writeEntry(Client c, int i) {
        Args a = c.args();
        return c.db().lookupWrite(a.buf(i), a.off(i), a.len(i));
    }

    private static byte[] asString(Object e) {
        if (e != null && !(e instanceof byte[])) throw CommandError.WRONGTYPE;
        return (byte[]) e;
    }

    private static void put(Client c, int keyArg, Object entry) {
        Args a = c.args();
        c.db().put(a.buf(keyArg), a.off(keyArg), a.len(keyArg), entry);
    }

    private static void modified(Client c, int keyArg, String event) {
        Args a = c.args();
        Engine engine = c.engine();
        engine.dirty++;
        engine.keyModified(c.db(), a.buf(keyArg), a.off(keyArg), a.len(keyArg));
        engine.notify(Notify.STRING, event, c.db(), a.buf(keyArg), a.off(keyArg), a.len(keyArg));
    }

    private static CommandError invalidExpire(Client c) {
        return new CommandError("ERR invalid expire time in '" + c.args().string(0).toLowerCase() + "' command");
    }

    /**
     * Converts an EX/PX/EXAT/PXAT argument to an absolute time in ms, with Redis's checks (positive,
     * no overflow).
     */
    static long expireAt(Client c, int arg, boolean millis, boolean relative) {
        long v = c.argLong(arg);
        if (v <= 0 || (!millis && v > Long.MAX_VALUE / 1000)) throw invalidExpire(c);
        if (!millis) v *= 1000;
        if (relative) v += c.engine().keyspace().now();
        if (v <= 0) throw invalidExpire(c);
        return v;
    }

    private static final int NX = 1, XX = 2, GET = 4, KEEP_TTL = 8, PERSIST_FLAG = 16;
    private static final int EX = 32, PX = 64, EXAT = 128, PX_AT = 256;
    private static final int ANY_EXPIRE = EX | PX | EXAT | PX_AT;

    /**
     * Redis's parseExtendedStringArgumentsOrReply: the option parser shared by SET and GETEX.
     * Returns the flags in the low 32 bits and the index of the expire argument in the high 32
     * ({@link #flagsOf}, {@link #expireArgOf}): one long instead of an out-parameter array, so that
     * every SET does not allocate.
     */
    private static long parseOptions(Client c, int from, boolean isSet) {
        Args a = c.args();
        int flags = 0;
        int expireArg = 0;
        int argc = a.count();
        for (int j = from; j < argc; j++) {
            boolean next = j < argc - 1;
            if (isSet && a.is(j, "nx") && (flags & XX) == 0) {
                flags |= NX;
            } else if (isSet && a.is(j, "xx") && (flags & NX) == 0) {
                flags |= XX;
            } else if (isSet && a.is(j, "get")) {
                flags |= GET;
            } else if (isSet && a.is(j, "keepttl") && (flags & (PERSIST_FLAG | ANY_EXPIRE)) == 0) {
                flags |= KEEP_TTL;
            } else if (!isSet && a.is(j, "persist") && (flags & (ANY_EXPIRE | KEEP_TTL)) == 0) {
                flags |= PERSIST_FLAG;
            } else if (a.is(j, "ex") && (flags & (KEEP_TTL | PERSIST_FLAG | EXAT | PX | PX_AT)) == 0 && next) {
                flags |= EX;
                expireArg = ++j;
            } else if (a.is(j, "px") && (flags & (KEEP_TTL | PERSIST_FLAG | EX | EXAT | PX_AT)) == 0 && next) {
                flags |= PX;
                expireArg = ++j;
            } else if (a.is(j, "exat") && (flags & (KEEP_TTL | PERSIST_FLAG | EX | PX | PX_AT)) == 0 && next) {
                flags |= EXAT;
                expireArg = ++j;
            } else if (a.is(j, "pxat") && (flags & (KEEP_TTL | PERSIST_FLAG | EX | EXAT | PX)) == 0 && next) {
                flags |= PX_AT;
                expireArg = ++j;
            } else {
                throw CommandError.SYNTAX;
            }
        }
        return ((long) expireArg << 32) | flags;
    }

    private static int flagsOf(long options) {
        return (int) options;
    }

    private static int expireArgOf(long options) {
        return (int) (options >>> 32);
    }

    private static long expireFromFlags(Client c, int flags, int arg) {
        if ((flags & ANY_EXPIRE) == 0) return -1;
        boolean millis = (flags & (PX | PX_AT)) != 0;
        boolean relative = (flags & (EX | PX)) != 0;
        return expireAt(c, arg, millis, relative);
    }

    // ---- GET / SET family ---------------------------------------------------------------------

    static void get(Client c) {
        byte[] e = readStringAnyEncoding(c, 1);
        if (e == null) c.reply().nullBulk();
        else StringEntry.replyValue(e, c.reply());
    }

    private static final List<String> OVERWRITE = List.of("OW", "update");
    private static final List<String> READ_WRITE = List.of("RW", "access", "update");

    /** SET only overwrites its key, unless GET makes it read the old value first (Redis's setGetKeys). */
    /** SET's key flags (an overwrite unless it has GET), for CommandFamilies; null for the others. */
    public static Command.KeyFlags keyFlags(String name) {
        return name.equals("set") ? StringCommands::setKeyFlags : null;
    }

    static List<String> setKeyFlags(Args a, int pos) {
        for (int i = 3; i < a.count(); i++) if (a.is(i, "get")) return READ_WRITE;
        return OVERWRITE;
    }

    static void set(Client c) {
        long options = parseOptions(c, 3, true);
        setGeneric(c, flagsOf(options), 1, 2, expireArgOf(options), false);
    }

    static void setnx(Client c) {
        setGeneric(c, NX, 1, 2, 0, true);
    }

    static void setex(Client c, boolean millis) {
        setGeneric(c, millis ? PX : EX, 1, 3, 2, false);
    }

    /**
     * Redis's setGenericCommand. {@code intReply}: SETNX's :1/:0 instead of +OK/nil.
     */
    private static void setGeneric(Client c, int flags, int keyArg, int valArg, int expireArg, boolean intReply) {
        long when = expireFromFlags(c, flags, expireArg);
        Args a = c.args();
        Reply r = c.reply();
        // the old value is only replied (GET) or replaced: a BIG one can stay where it is
        Object old = c.db().lookupWriteBig(a.buf(keyArg), a.off(keyArg), a.len(keyArg));
        if ((flags & GET) != 0) {
            byte[] s = asString(old);
            if (s == null) r.nullBulk();
            else StringEntry.replyValue(s, r);
        }
        boolean found = old != null;
        if (((flags & NX) != 0 && found) || ((flags & XX) != 0 && !found)) {
            if ((flags & GET) == 0) {
                if (intReply) r.integer(0);
                else r.nullBulk();
            }
            return;
        }
        long newExpire = when;
        if ((flags & KEEP_TTL) != 0 && found) newExpire = Entries.expire(old);
        store(c, keyArg, old, valArg, newExpire);
        modified(c, keyArg, "set");
        if (when >= 0) {
            c.engine().notify(Notify.GENERIC, "expire", c.db(), a.buf(keyArg), a.off(keyArg), a.len(keyArg));
            if (c.propagates()) c.propagateAs(SET, a.copy(keyArg), a.copy(valArg), PXAT, Bytes.longToBytes(when));
        } else if ((flags & GET) != 0 && c.propagates()) {
            c.propagateAs(withoutGet(a));
        }
        if ((flags & GET) == 0) {
            if (intReply) r.integer(1);
            else r.ok();
        }
    }

    private static byte[][] withoutGet(Args a) {
        java.util.ArrayList<byte[]> out = new java.util.ArrayList<>();
        for (int j = 0; j < a.count(); j++) {
            if (j >= 3 && a.is(j, "get")) continue;
            out.add(a.copy(j));
        }
        return out.toArray(new byte[0][]);
    }

    static void getset(Client c) {
        Args a = c.args();
        Object old = c.db().lookupWriteBig(a.buf(1), a.off(1), a.len(1));
        byte[] s = asString(old);
        // GETSET reads like GET first (counting a hit or miss), then writes
        if (s == null) c.reply().nullBulk();
        else StringEntry.replyValue(s, c.reply());
        store(c, 1, old, 2, -1);
        modified(c, 1, "set");
        if (c.propagates()) {
            byte[][] p = a.toArrays();
            p[0] = SET;
            c.propagateAs(p);
        }
    }

    static void getdel(Client c) {
        byte[] e = readString(c, 1);
        if (e == null) {
            c.reply().nullBulk();
            return;
        }
        StringEntry.replyValue(e, c.reply());
        Args a = c.args();
        c.db().remove(a.buf(1), a.off(1), a.len(1));
        Engine engine = c.engine();
        engine.dirty++;
        engine.keyModified(c.db(), a.buf(1), a.off(1), a.len(1));
        engine.notify(Notify.GENERIC, "del", c.db(), a.buf(1), a.off(1), a.len(1));
        if (c.propagates()) c.propagateAs(DEL, a.copy(1));
    }

    static void getex(Client c) {
        long options = parseOptions(c, 2, false);
        int flags = flagsOf(options);
        byte[] e = readString(c, 1);
        if (e == null) {
            c.reply().nullBulk();
            return;
        }
        long when = expireFromFlags(c, flags, expireArgOf(options));
        StringEntry.replyValue(e, c.reply());
        Args a = c.args();
        Db db = c.db();
        Engine engine = c.engine();
        if ((flags & (EXAT | PX_AT)) != 0 && engine.keyspace().alreadyExpired(when)) {
            db.remove(a.buf(1), a.off(1), a.len(1));
            engine.dirty++;
            engine.keyModified(db, a.buf(1), a.off(1), a.len(1));
            engine.notify(Notify.GENERIC, "del", db, a.buf(1), a.off(1), a.len(1));
            if (c.propagates()) c.propagateAs(DEL, a.copy(1));
        } else if (when >= 0) {
            db.setExpire(a.buf(1), a.off(1), a.len(1), e, when);
            engine.dirty++;
            engine.keyModified(db, a.buf(1), a.off(1), a.len(1));
            engine.notify(Notify.GENERIC, "expire", db, a.buf(1), a.off(1), a.len(1));
            if (c.propagates()) c.propagateAs(PEXPIREAT, a.copy(1), Bytes.longToBytes(when));
        } else if ((flags & PERSIST_FLAG) != 0 && StringEntry.hasExpire(e)) {
            db.setExpire(a.buf(1), a.off(1), a.len(1), e, -1);
            engine.dirty++;
            engine.keyModified(db, a.buf(1), a.off(1), a.len(1));
            engine.notify(Notify.GENERIC, "persist", db, a.buf(1), a.off(1), a.len(1));
            if (c.propagates()) c.propagateAs(PERSIST, a.copy(1));
        }
    }

    static void mget(Client c) {
        Args a = c.args();
        Reply r = c.reply();
        int n = a.count();
        r.arrayHeader(n - 1);
        Db db = c.db();
        boolean touch = !c.noTouch();
        for (int j = 1; j < n; j++) {
            Object e = db.lookupReadBig(a.buf(j), a.off(j), a.len(j), touch);
            if (e instanceof byte[]) StringEntry.replyValue((byte[]) e, r);
            else r.nullBulk();
        }
    }

    /**
     * Stores argument valArg at argument keyArg whose current entry is old (looked up for
     * writing): in place when old is a string of the same layout, so overwriting a key with a
     * value of the same size allocates nothing.
     */
    private static void store(Client c, int keyArg, Object old, int valArg, long newExpire) {
        Args a = c.args();
        Keyspace ks = c.engine().keyspace();
        if (a.isNative(valArg)) {
            // received into native memory (RespReader): the entry takes it as it is
            byte[] e = StringEntry.adoptBig(a.buf(keyArg), a.off(keyArg), a.len(keyArg), a.adoptNative(valArg),
                    a.len(valArg), newExpire, ks.newLru());
            ks.bigValues().adopted(e);
            put(c, keyArg, e);
            return;
        }
        byte[] vb = a.buf(valArg);
        int vo = a.off(valArg), vl = a.len(valArg);
        if (old instanceof byte[] && StringEntry.canOverwrite((byte[]) old, vb, vo, vl, newExpire)) {
            byte[] e = (byte[]) old;
            StringEntry.overwrite(e, vb, vo, vl, newExpire);
            // a new value, as far as LRU goes; under LFU it keeps the key's counter (Redis's dbOverwrite)
            if (!ks.lfu()) StringEntry.setLru(e, ks.newLru());
        } else if (StringEntry.loadsAsBig(vl) && ks.isLoading()) {
            // replaying the AOF: stored as the RDB loader stores it (BIG)
            byte[] e = StringEntry.copyToBig(a.buf(keyArg), a.off(keyArg), a.len(keyArg), vb, vo, vl, newExpire,
                    ks.newLru());
            ks.bigValues().adopted(e);
            put(c, keyArg, e);
        } else if (a.owned(valArg) && StringEntry.canAdopt(vb, vo, vl, a.len(keyArg), newExpire)) {
            // a big value read into its own array with room for the header (CommandFamilies.BIG_ARG_LAYOUT)
            a.disown(valArg);
            put(c, keyArg, StringEntry.adoptRaw(vb, a.buf(keyArg), a.off(keyArg), a.len(keyArg), vl, newExpire,
                    ks.newLru()));
        } else {
            put(c, keyArg, StringEntry.create(a.buf(keyArg), a.off(keyArg), a.len(keyArg), vb, vo, vl, newExpire,
                    ks.newLru()));
        }
    }

    static void mset(Client c, boolean nx) {
        Args a = c.args();
        int n = a.count();
        if (n % 2 == 0) throw new CommandError("ERR wrong number of arguments for '" + (nx ? "msetnx" : "mset") + "' command");
        // the old values are replaced unread: BIG ones can stay where they are until then
        if (nx) {
            for (int j = 1; j < n; j += 2) {
                if (c.db().lookupWriteBig(a.buf(j), a.off(j), a.len(j)) != null) {
                    c.reply().integer(0);
                    return;
                }
            }
        }
        Engine engine = c.engine();
        for (int j = 1; j < n; j += 2) {
            store(c, j, c.db().lookupWriteBig(a.buf(j), a.off(j), a.len(j)), j + 1, -1);
            engine.keyModified(c.db(), a.buf(j), a.off(j), a.len(j));
            engine.notify(Notify.STRING, "set", c.db(), a.buf(j), a.off(j), a.len(j));
        }
        engine.dirty += (n - 1) / 2;
        if (nx) c.reply().integer(1);
        else c.reply().ok();
    }

    static void strlen(Client c) {
        byte[] e = readStringAnyEncoding(c, 1);
        c.reply().integer(e == null ? 0 : StringEntry.valueLength(e));
    }

    private static void checkLength(Client c, long size, long append) {
        long total = size + append;
        long max = Math.min(c.engine().config().getLong("proto-max-bulk-len"), Integer.MAX_VALUE - 64);
        if (total > max || total < size || total < append) {
            throw CommandError.err("string exceeds maximum allowed size (proto-max-bulk-len)");
        }
    }

    static void append(Client c) {
        Args a = c.args();
        Object old = writeEntry(c, 1);
        Keyspace ks = c.engine().keyspace();
        long total;
        if (old == null) {
            put(c, 1, StringEntry.create(a.buf(1), a.off(1), a.len(1), a.buf(2), a.off(2), a.len(2), -1, ks.newLru()));
            total = a.len(2);
        } else {
            byte[] e = asString(old);
            int oldLen = StringEntry.valueLength(e);
            checkLength(c, oldLen, a.len(2));
            int newLen = oldLen + a.len(2);
            byte[] n = StringEntry.resizeRaw(e, newLen, oldLen);
            System.arraycopy(a.buf(2), a.off(2), n, StringEntry.valueOffset(n) + oldLen, a.len(2));
            if (n != e) put(c, 1, n);
            total = newLen;
        }
        modified(c, 1, "append");
        c.reply().integer(total);
    }

    // ---- counters -----------------------------------------------------------------------------

    static void decrby(Client c) {
        long v = c.argLong(2);
        if (v == Long.MIN_VALUE) throw CommandError.err("decrement would overflow");
        incrDecr(c, -v);
    }

    static void incrDecr(Client c, long incr) {
        Args a = c.args();
        Object old = writeEntry(c, 1);
        byte[] e = asString(old);
        long value;
        if (e == null) {
            value = 0;
        } else if (StringEntry.isInt(e)) {
            value = StringEntry.intValue(e);
        } else {
            try {
                value = Bytes.parseLong(e, StringEntry.valueOffset(e), StringEntry.valueLength(e));
            } catch (NumberFormatException ex) {
                throw CommandError.NOT_INTEGER;
            }
        }
        if ((incr < 0 && value < 0 && incr < Long.MIN_VALUE - value)
                || (incr > 0 && value > 0 && incr > Long.MAX_VALUE - value)) {
            throw CommandError.OVERFLOW;
        }
        value += incr;
        if (e != null && StringEntry.isInt(e)) {
            byte[] n = StringEntry.setIntValue(e, value);
            if (n != e) put(c, 1, n); // the value outgrew its bytes
        } else {
            long expire = e == null ? -1 : StringEntry.expire(e);
            int lru = e == null ? c.engine().keyspace().newLru() : StringEntry.lru(e);
            put(c, 1, StringEntry.createInt(a.buf(1), a.off(1), a.len(1), value, expire, lru));
        }
        modified(c, 1, "incrby");
        c.reply().integer(value);
    }

    static void incrbyfloat(Client c) {
        Args a = c.args();
        Object old = writeEntry(c, 1);
        byte[] e = asString(old);
        Float80 value;
        boolean infinite = false;
        try {
            if (e == null) {
                value = Float80.of(0);
            } else if (StringEntry.isInt(e)) {
                value = Float80.of(StringEntry.intValue(e));
            } else {
                value = Float80.parse(e, StringEntry.valueOffset(e), StringEntry.valueLength(e));
                infinite = value == null;
            }
            Float80 incr = Float80.parse(a.buf(2), a.off(2), a.len(2));
            if (incr == null) infinite = true;
            if (!infinite) {
                value = value.plus(incr);
                infinite = value == null;
            }
        } catch (NumberFormatException ex) {
            throw CommandError.NOT_FLOAT;
        }
        if (infinite) throw CommandError.err("increment would produce NaN or Infinity");
        byte[] text = Bytes.ascii(value.toHumanString());
        long expire = e == null ? -1 : StringEntry.expire(e);
        int lru = e == null ? c.engine().keyspace().newLru() : StringEntry.lru(e);
        put(c, 1, StringEntry.createString(a.buf(1), a.off(1), a.len(1), text, 0, text.length, expire, lru));
        modified(c, 1, "incrbyfloat");
        c.reply().bulk(text);
        if (c.propagates()) c.propagateAs(SET, a.copy(1), text, KEEPTTL);
    }

    // ---- ranges -------------------------------------------------------------------------------

    static void getrange(Client c) {
        long start = c.argLong(2);
        long end = c.argLong(3);
        byte[] e = readString(c, 1);
        Reply r = c.reply();
        if (e == null) {
            r.bulk(Bytes.EMPTY);
            return;
        }
        byte[] buf;
        int off, len;
        if (StringEntry.isInt(e)) {
            buf = Bytes.longToBytes(StringEntry.intValue(e));
            off = 0;
            len = buf.length;
        } else {
            buf = e;
            off = StringEntry.valueOffset(e);
            len = StringEntry.valueLength(e);
        }
        if (start < 0 && end < 0 && start > end) {
            r.bulk(Bytes.EMPTY);
            return;
        }
        if (start < 0) start = len + start;
        if (end < 0) end = len + end;
        if (start < 0) start = 0;
        if (end < 0) end = 0;
        if (end >= len) end = len - 1;
        if (start > end || len == 0) {
            r.bulk(Bytes.EMPTY);
        } else {
            r.bulk(buf, off + (int) start, (int) (end - start + 1));
        }
    }

    static void setrange(Client c) {
        Args a = c.args();
        long offset = c.argLong(2);
        if (offset < 0) throw CommandError.err("offset is out of range");
        int vlen = a.len(3);
        Object old = writeEntry(c, 1);
        Keyspace ks = c.engine().keyspace();
        byte[] e;
        if (old == null) {
            if (vlen == 0) {
                c.reply().integer(0);
                return;
            }
            checkLength(c, offset, vlen);
            int newLen = (int) offset + vlen;
            e = StringEntry.createRaw(a.buf(1), a.off(1), a.len(1), Bytes.EMPTY, 0, 0, newLen, -1, ks.newLru());
            e = StringEntry.resizeRaw(e, newLen, 0);
        } else {
            byte[] s = asString(old);
            int oldLen = StringEntry.valueLength(s);
            if (vlen == 0) {
                c.reply().integer(oldLen);
                return;
            }
            checkLength(c, offset, vlen);
            int newLen = (int) Math.max(oldLen, offset + vlen);
            e = StringEntry.resizeRaw(s, newLen, oldLen);
            if (newLen > oldLen && e == s) {
                // reused spare room may hold stale bytes: zero the gap
                int vo = StringEntry.valueOffset(e);
                java.util.Arrays.fill(e, vo + oldLen, vo + newLen, (byte) 0);
            }
        }
        System.arraycopy(a.buf(3), a.off(3), e, StringEntry.valueOffset(e) + (int) offset, vlen);
        if (e != old) put(c, 1, e);
        modified(c, 1, "setrange");
        c.reply().integer(StringEntry.valueLength(e));
    }

    // ---- LCS ----------------------------------------------------------------------------------

    /**
     * LCS's table of (alen+1) x w cells with its first row and column zero; the rest is written
     * before it is read. Tables up to {@link #LCS_TABLE_KEPT} cells reuse one array on the thread
     * that runs commands: a fresh one cost as much zeroing as the 100 x 100 comparison itself.
     */
    private static int[] lcsTable(int cells, int alen, int w) {
        if (cells > LCS_TABLE_KEPT) return new int[cells];
        int[] t = LCS_TABLE.get();
        if (t.length < cells) LCS_TABLE.set(t = new int[Math.max(cells, Math.min(2 * t.length, LCS_TABLE_KEPT))]);
        Arrays.fill(t, 0, w, 0);
        for (int i = 1; i <= alen; i++) t[i * w] = 0;
        return t;
    }

    private static final int LCS_TABLE_KEPT = 1 << 18;
    private static final ThreadLocal<int[]> LCS_TABLE = ThreadLocal.withInitial(() -> new int[1024]);

    static void lcs(Client c) {
        Args a = c.args();
        Db db = c.db();
        Object ea = db.lookupRead(a.buf(1), a.off(1), a.len(1), !c.noTouch());
        Object eb = db.lookupRead(a.buf(2), a.off(2), a.len(2), !c.noTouch());
        if ((ea != null && !(ea instanceof byte[])) || (eb != null && !(eb instanceof byte[]))) {
            throw CommandError.err("The specified keys must contain string values");
        }
        byte[] sa = ea == null ? Bytes.EMPTY : StringEntry.value((byte[]) ea);
        byte[] sb = eb == null ? Bytes.EMPTY : StringEntry.value((byte[]) eb);
        boolean getLen = false, getIdx = false, withMatchLen = false;
        long minMatchLen = 0;
        for (int j = 3; j < a.count(); j++) {
            boolean more = j < a.count() - 1;
            if (a.is(j, "idx")) {
                getIdx = true;
            } else if (a.is(j, "len")) {
                getLen = true;
            } else if (a.is(j, "withmatchlen")) {
                withMatchLen = true;
            } else if (a.is(j, "minmatchlen") && more) {
                minMatchLen = c.argLong(j + 1);
                if (minMatchLen < 0) minMatchLen = 0;
                j++;
            } else {
                throw CommandError.SYNTAX;
            }
        }
        if (getLen && getIdx) throw CommandError.err("If you want both the length and indexes, please just use IDX.");
        int alen = sa.length, blen = sb.length;
        long cells = (long) (alen + 1) * (blen + 1);
        if (cells * 4 > c.engine().config().getLong("proto-max-bulk-len")) {
            throw CommandError.err("Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len");
        }
        if (cells > Integer.MAX_VALUE - 8) {
            throw CommandError.err("Insufficient memory, failed allocating transient memory for LCS");
        }
        int w = blen + 1;
        int[] t = lcsTable((int) cells, alen, w);
        for (int i = 1; i <= alen; i++) {
            // the cell to the left and the one up-left kept in locals: one read of the table per cell
            int prev = (i - 1) * w, cur = i * w;
            byte ai = sa[i - 1];
            int left = 0, diag = 0;
            for (int j = 1; j <= blen; j++) {
                int up = t[prev + j];
                int v = ai == sb[j - 1] ? diag + 1 : Math.max(up, left);
                t[cur + j] = v;
                left = v;
                diag = up;
            }
        }
        int idx = t[alen * w + blen];
        Reply r = c.reply();
        boolean computeLcs = getIdx || !getLen;
        byte[] result = computeLcs ? new byte[idx] : null;
        int rangesHandle = -1;
        int ranges = 0;
        if (getIdx) {
            r.mapHeader(2);
            r.bulk("matches");
            rangesHandle = r.deferLength();
        }
        int i = alen, j = blen;
        int aStart = alen, aEnd = 0, bStart = 0, bEnd = 0;
        while (computeLcs && i > 0 && j > 0) {
            boolean emit = false;
            if (sa[i - 1] == sb[j - 1]) {
                result[idx - 1] = sa[i - 1];
                if (aStart == alen) {
                    aStart = i - 1;
                    aEnd = i - 1;
                    bStart = j - 1;
                    bEnd = j - 1;
                } else if (aStart == i && bStart == j) {
                    aStart--;
                    bStart--;
                } else {
                    emit = true;
                }
                if (aStart == 0 || bStart == 0) emit = true;
                idx--;
                i--;
                j--;
            } else {
                int l1 = t[(i - 1) * w + j];
                int l2 = t[i * w + j - 1];
                if (l1 > l2) i--;
                else j--;
                if (aStart != alen) emit = true;
            }
            int matchLen = aEnd - aStart + 1;
            if (emit) {
                if ((minMatchLen == 0 || matchLen >= minMatchLen) && rangesHandle >= 0) {
                    r.arrayHeader(withMatchLen ? 3 : 2);
                    r.arrayHeader(2);
                    r.integer(aStart);
                    r.integer(aEnd);
                    r.arrayHeader(2);
                    r.integer(bStart);
                    r.integer(bEnd);
                    if (withMatchLen) r.integer(matchLen);
                    ranges++;
                }
                aStart = alen;
            }
        }
        if (rangesHandle >= 0) {
            r.setDeferredLength(rangesHandle, '*', ranges);
            r.bulk("len");
            r.integer(t[alen * w + blen]);
        } else if (getLen) {
            r.integer(t[alen * w + blen]);
        } else {
            r.bulk(result);
        }
    }
}
