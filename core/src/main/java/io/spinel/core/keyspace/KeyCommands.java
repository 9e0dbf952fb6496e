package io.spinel.core.keyspace;

import io.spinel.core.Client;
import io.spinel.core.Engine;
import io.spinel.core.Notify;
import io.spinel.core.command.CommandError;
import io.spinel.core.command.CommandHandler;
import io.spinel.core.protocol.Args;
import io.spinel.core.protocol.Reply;
import io.spinel.core.util.Bytes;
import io.spinel.core.util.Glob;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * Commands on keys regardless of their type (Redis's db.c, expire.c and OBJECT from object.c):
 * DEL, EXISTS, TYPE, RENAME, MOVE, COPY, SCAN, KEYS, the EXPIRE family, TTL, OBJECT, FLUSHDB...
 */
public final class KeyCommands {
    private KeyCommands() {
    }

    private static final byte[] DEL = Bytes.ascii("DEL");
    private static final byte[] PEXPIREAT = Bytes.ascii("PEXPIREAT");
    private static final CommandError SAME_OBJECT = new CommandError("ERR source and destination objects are the same");
    private static final SplittableRandom RANDOM = new SplittableRandom();

    /** The handler of each command CommandFamilies registers for this family, made when it first runs. */
    public static CommandHandler handler(String name) {
        return switch (name) {
            case "del" -> c -> del(c, c.engine().lazyUserDel());
            case "unlink" -> c -> del(c, true);
            case "exists" -> KeyCommands::exists;
            case "touch" -> KeyCommands::touch;
            case "type" -> KeyCommands::type;
            case "rename" -> c -> rename(c, false);
            case "renamenx" -> c -> rename(c, true);
            case "move" -> KeyCommands::move;
            case "copy" -> KeyCommands::copy;
            case "keys" -> KeyCommands::keys;
            case "scan" -> KeyCommands::scan;
            case "randomkey" -> KeyCommands::randomkey;
            case "dbsize" -> c -> c.reply().integer(c.db().size());
            case "flushdb" -> KeyCommands::flushdb;
            case "flushall" -> KeyCommands::flushall;
            case "swapdb" -> KeyCommands::swapdb;
            case "expire" -> c -> expire(c, c.engine().keyspace().now(), false);
            case "pexpire" -> c -> expire(c, c.engine().keyspace().now(), true);
            case "expireat" -> c -> expire(c, 0, false);
            case "pexpireat" -> c -> expire(c, 0, true);
            case "ttl" -> c -> ttl(c, false, false);
            case "pttl" -> c -> ttl(c, true, false);
            case "expiretime" -> c -> ttl(c, false, true);
            case "pexpiretime" -> c -> ttl(c, true, true);
            case "persist" -> KeyCommands::persist;
            case "object|encoding" -> c -> object(c, "encoding");
            case "object|refcount" -> c -> object(c, "refcount");
            case "object|idletime" -> c -> object(c, "idletime");
            case "object|freq" -> c -> object(c, "freq");
            case "object|help" -> KeyCommands::objectHelp;
            case "memory|usage" -> KeyCommands::memoryUsage;
            default -> null;
        };
    }

    private static void deleted(Client c, Db db, byte[] k, int off, int len) {
        Engine e = c.engine();
        e.dirty++;
        e.keyModified(db, k, off, len);
        e.notify(Notify.GENERIC, "del", db, k, off, len);
    }

    /** DEL, and UNLINK ({@code lazy}: only INFO's lazyfreed_objects tells them apart here). */
    static void del(Client c, boolean lazy) {
        Args a = c.args();
        Db db = c.db();
        long n = 0;
        for (int j = 1; j < a.count(); j++) {
            // an expired key counts as already gone: lazy expiry first, then delete
            if (!db.exists(a.buf(j), a.off(j), a.len(j))) continue;
            Object old = db.remove(a.buf(j), a.off(j), a.len(j));
            if (lazy) c.engine().deletedLazily(old);
            deleted(c, db, a.buf(j), a.off(j), a.len(j));
            n++;
        }
        c.reply().integer(n);
    }

    static void exists(Client c) {
        Args a = c.args();
        Db db = c.db();
        long n = 0;
        for (int j = 1; j < a.count(); j++) {
            if (db.lookupRead(a.buf(j), a.off(j), a.len(j), false) != null) n++;
        }
        c.reply().integer(n);
    }

    static void touch(Client c) {
        Args a = c.args();
        Db db = c.db();
        long n = 0;
        for (int j = 1; j < a.count(); j++) {
            if (db.lookupRead(a.buf(j), a.off(j), a.len(j), !c.noTouch()) != null) n++;
        }
        c.reply().integer(n);
    }

    static void type(Client c) {
        Args a = c.args();
        Object e = c.db().lookupRead(a.buf(1), a.off(1), a.len(1), false);
        c.reply().status(e == null ? "none" : ValueType.name(Entries.type(e)));
    }

    /** The entry moved under a new key (the same value object, already out of its table). */
    static Object rekey(Object e, byte[] newKey, long expire) {
        if (e instanceof byte[]) {
            byte[] n = StringEntry.withKey((byte[]) e, newKey, 0, newKey.length);
            return StringEntry.withExpire(n, expire);
        }
        DbObject o = (DbObject) e;
        return o.asEntry(newKey, expire, o.lru());
    }

    static void rename(Client c, boolean nx) {
        Args a = c.args();
        Db db = c.db();
        boolean same = a.equals(1, 2);
        Object e = db.lookupWrite(a.buf(1), a.off(1), a.len(1));
        if (e == null) throw CommandError.NO_SUCH_KEY;
        if (same) {
            if (nx) c.reply().integer(0);
            else c.reply().ok();
            return;
        }
        long expire = Entries.expire(e);
        if (db.lookupWrite(a.buf(2), a.off(2), a.len(2)) != null) {
            if (nx) {
                c.reply().integer(0);
                return;
            }
            db.remove(a.buf(2), a.off(2), a.len(2));
        }
        byte[] newKey = a.copy(2);
        db.remove(a.buf(1), a.off(1), a.len(1));
        db.put(newKey, rekey(e, newKey, expire));
        Engine engine = c.engine();
        engine.keyModified(db, a.buf(1), a.off(1), a.len(1));
        engine.keyModified(db, newKey);
        engine.notify(Notify.GENERIC, "rename_from", db, a.buf(1), a.off(1), a.len(1));
        engine.notify(Notify.GENERIC, "rename_to", db, newKey);
        engine.dirty++;
        if (nx) c.reply().integer(1);
        else c.reply().ok();
    }

    private static int dbIndex(Client c, int arg) {
        long id = c.argLong(arg);
        // Redis's getIntFromObjectOrReply
        if (id < Integer.MIN_VALUE || id > Integer.MAX_VALUE) {
            throw CommandError.err("value is out of range, value must between -2147483648 and 2147483647");
        }
        if (id < 0 || id >= c.engine().keyspace().count()) throw CommandError.DB_INDEX;
        return (int) id;
    }

    static void move(Client c) {
        if (c.engine().cluster() != null) throw CommandError.err("MOVE is not allowed in cluster mode");
        Args a = c.args();
        Db src = c.db();
        Db dst = c.engine().keyspace().db(dbIndex(c, 2));
        if (src == dst) throw SAME_OBJECT;
        Object e = src.lookupWrite(a.buf(1), a.off(1), a.len(1));
        if (e == null) {
            c.reply().integer(0);
            return;
        }
        if (dst.lookupWrite(a.buf(1), a.off(1), a.len(1)) != null) {
            c.reply().integer(0);
            return;
        }
        src.remove(a.buf(1), a.off(1), a.len(1));
        dst.put(a.buf(1), a.off(1), a.len(1), e);
        Engine engine = c.engine();
        engine.keyModified(src, a.buf(1), a.off(1), a.len(1));
        engine.keyModified(dst, a.buf(1), a.off(1), a.len(1));
        engine.notify(Notify.GENERIC, "move_from", src, a.buf(1), a.off(1), a.len(1));
        engine.notify(Notify.GENERIC, "move_to", dst, a.buf(1), a.off(1), a.len(1));
        engine.dirty++;
        c.reply().integer(1);
    }

    static void copy(Client c) {
        Args a = c.args();
        Db src = c.db();
        Db dst = src;
        boolean replace = false;
        for (int j = 3; j < a.count(); j++) {
            if (a.is(j, "replace")) {
                replace = true;
            } else if (a.is(j, "db") && j + 1 < a.count()) {
                dst = c.engine().keyspace().db(dbIndex(c, j + 1));
                j++;
            } else {
                throw CommandError.SYNTAX;
            }
        }
        if (c.engine().cluster() != null && (src.id() != 0 || dst.id() != 0)) {
            throw CommandError.err("Copying to another database is not allowed in cluster mode");
        }
        if (src == dst && a.equals(1, 2)) throw SAME_OBJECT;
        Object e = src.lookupRead(a.buf(1), a.off(1), a.len(1), !c.noTouch());
        if (e == null) {
            c.reply().integer(0);
            return;
        }
        long expire = Entries.expire(e);
        if (dst.lookupWrite(a.buf(2), a.off(2), a.len(2)) != null) {
            if (!replace) {
                c.reply().integer(0);
                return;
            }
            dst.remove(a.buf(2), a.off(2), a.len(2));
        }
        byte[] newKey = a.copy(2);
        Object copy;
        int lru = c.engine().keyspace().newLru();
        if (e instanceof byte[]) {
            // Redis's dupStringObject: a copy of a shared small integer is not shared (OBJECT REFCOUNT 1)
            copy = StringEntry.withExpire(StringEntry.unshared(StringEntry.withKey((byte[]) e, newKey, 0, newKey.length)), expire);
            StringEntry.setLru((byte[]) copy, lru);
        } else {
            copy = ((DbObject) e).copy().asEntry(newKey, expire, lru);
        }
        dst.put(newKey, copy);
        Engine engine = c.engine();
        engine.keyModified(dst, newKey);
        engine.notify(Notify.GENERIC, "copy_to", dst, newKey);
        engine.dirty++;
        c.reply().integer(1);
    }

    static void keys(Client c) {
        Args a = c.args();
        Db db = c.db();
        byte[] pat = a.copy(1);
        boolean all = pat.length == 1 && pat[0] == '*';
        Reply r = c.reply();
        int handle = r.deferLength();
        long n = 0;
        for (Object e : db.entries()) {
            byte[] k = Entries.key(e);
            if (!all && !Glob.match(pat, 0, pat.length, k, 0, k.length, false)) continue;
            if (db.isExpired(e)) continue;
            r.bulk(k);
            n++;
        }
        r.setDeferredLength(handle, '*', n);
    }

    /** SCAN's cursor: strtoul semantics (optional sign, digits, no leading space, no overflow). */
    public static long parseCursor(Client c, int arg) {
        Args a = c.args();
        byte[] b = a.buf(arg);
        int i = a.off(arg), end = i + a.len(arg);
        if (i == end) return 0; // strtoul of "": no digits, nothing left over: cursor 0
        boolean neg = false;
        if (i < end && (b[i] == '+' || b[i] == '-')) {
            neg = b[i] == '-';
            i++;
        }
        if (i >= end) throw CommandError.err("invalid cursor");
        long v = 0;
        for (; i < end; i++) {
            int d = b[i] - '0';
            if (d < 0 || d > 9) throw CommandError.err("invalid cursor");
            if (Long.compareUnsigned(v, Long.divideUnsigned(-1L, 10)) > 0) throw CommandError.err("invalid cursor");
            long nv = v * 10 + d;
            if (Long.compareUnsigned(nv, v * 10) < 0) throw CommandError.err("invalid cursor");
            v = nv;
        }
        return neg ? -v : v;
    }

    /**
     * The options shared by SCAN, SSCAN, HSCAN and ZSCAN: one per engine thread, filled afresh by
     * {@link #parseScanOptions} for each call (the pattern is a slice of the call's arguments).
     */
    public static final class ScanOptions {
        public long count;
        /** MATCH's pattern, null when absent or "*". */
        private byte[] patBuf;
        private int patOff;
        private int patLen;
        public String type;

        public boolean matches(byte[] k, int off, int len) {
            return patBuf == null || Glob.match(patBuf, patOff, patLen, k, off, len, false);
        }
    }

    private static final ThreadLocal<ScanOptions> SCAN_OPTIONS = ThreadLocal.withInitial(ScanOptions::new);

    /**
     * What one SCAN-family call collects before it replies (table entries, members...): one per
     * engine thread, a {@link Consumer} for the tables' scan, emptied by {@link #clear}.
     */
    public static final class ScanBuffer implements Consumer<Object> {
        private Object[] items = new Object[32];
        private int size;

        @Override
        public void accept(Object o) {
            if (size == items.length) items = Arrays.copyOf(items, size * 2);
            items[size++] = o;
        }

        public int size() {
            return size;
        }

        public Object get(int i) {
            return items[i];
        }

        public void set(int i, Object o) {
            items[i] = o;
        }

        /** Lets go of what it holds; a buffer a huge COUNT grew goes back to its first size. */
        public void clear() {
            if (items.length > 1024) items = new Object[32];
            else Arrays.fill(items, 0, size, null);
            size = 0;
        }
    }

    private static final ThreadLocal<ScanBuffer> SCAN_BUFFER = ThreadLocal.withInitial(ScanBuffer::new);

    /** This thread's scan buffer, empty (also after a call that failed before clearing it). */
    public static ScanBuffer scanBuffer() {
        ScanBuffer b = SCAN_BUFFER.get();
        if (b.size != 0) b.clear();
        return b;
    }

    public static ScanOptions parseScanOptions(Client c, int from, boolean allowType) {
        Args a = c.args();
        ScanOptions o = SCAN_OPTIONS.get();
        o.count = 10;
        o.patBuf = null;
        o.type = null;
        int i = from;
        while (i < a.count()) {
            int left = a.count() - i;
            if (a.is(i, "count") && left >= 2) {
                o.count = c.argLong(i + 1);
                if (o.count < 1) throw CommandError.SYNTAX;
                i += 2;
            } else if (a.is(i, "match") && left >= 2) {
                byte[] p = a.buf(i + 1);
                int off = a.off(i + 1), len = a.len(i + 1);
                boolean all = len == 1 && p[off] == '*';
                o.patBuf = all ? null : p;
                o.patOff = off;
                o.patLen = len;
                i += 2;
            } else if (allowType && a.is(i, "type") && left >= 2) {
                o.type = a.string(i + 1);
                i += 2;
            } else {
                throw CommandError.SYNTAX;
            }
        }
        return o;
    }

    /** The start of a SCAN-style reply, [cursor, [elements...]]: the outer array and the cursor. */
    public static void replyCursor(Reply r, long cursor) {
        r.arrayHeader(2);
        if (cursor >= 0) r.bulkLong(cursor);
        else r.bulk(Long.toUnsignedString(cursor));
    }

    /** A SCAN-style reply with nothing found and cursor 0 (a missing key). */
    public static void replyEmptyScan(Reply r) {
        replyCursor(r, 0);
        r.arrayHeader(0);
    }

    static void scan(Client c) {
        long cursor = parseCursor(c, 1);
        ScanOptions o = parseScanOptions(c, 2, true);
        Db db = c.db();
        ScanBuffer found = scanBuffer();
        long maxIterations = o.count * 10;
        do {
            cursor = db.scan(cursor, found);
        } while (cursor != 0 && maxIterations-- > 0 && found.size() < o.count);
        int kept = 0;
        for (int i = 0; i < found.size(); i++) {
            Object e = found.get(i);
            byte[] k = Entries.keyArray(e);
            int off = Entries.keyOffset(e), len = Entries.keyLength(e);
            if (!o.matches(k, off, len)) continue;
            if (o.type != null) {
                Object cur = db.find(k, off, len);
                String t = cur == null || db.isExpired(cur) ? "none" : ValueType.name(Entries.type(cur));
                if (!t.equalsIgnoreCase(o.type)) continue;
            }
            if (!db.exists(k, off, len)) continue; // expired: deleted now, as Redis's scan does
            found.set(kept++, e);
        }
        Reply r = c.reply();
        replyCursor(r, cursor);
        r.arrayHeader(kept);
        for (int i = 0; i < kept; i++) {
            Object e = found.get(i);
            r.bulk(Entries.keyArray(e), Entries.keyOffset(e), Entries.keyLength(e));
        }
        found.clear();
    }

    static void randomkey(Client c) {
        Db db = c.db();
        while (true) {
            Object e = db.randomEntry(RANDOM);
            if (e == null) {
                c.reply().nullBulk();
                return;
            }
            byte[] k = Entries.key(e);
            if (!db.exists(k, 0, k.length)) continue; // expired: deleted, try another
            c.reply().bulk(k);
            return;
        }
    }

    private static void checkFlushArgs(Client c) {
        Args a = c.args();
        if (a.count() == 1) return;
        if (a.count() == 2 && (a.is(1, "sync") || a.is(1, "async"))) return;
        throw CommandError.SYNTAX;
    }

    /** FLUSHALL/FLUSHDB ASYNC, or neither flag with lazyfree-lazy-user-flush on. */
    private static boolean lazyFlush(Client c) {
        Args a = c.args();
        return a.count() == 2 ? a.is(1, "async") : c.engine().lazyUserFlush();
    }

    /**
     * After a flush cleared its tables: the keys freed in the background (ASYNC), or at once with
     * the freed big-value blocks and, for a large flush, the heap given back (Redis purges then).
     */
    private static void afterClear(Client c, long keys, long usedBefore) {
        if (lazyFlush(c)) {
            c.engine().flushedLazily(keys);
        } else {
            c.engine().keyspace().bigValues().purgeAfterRelease();
            c.engine().flushedSynchronously(usedBefore);
        }
    }

    static void flushdb(Client c) {
        checkFlushArgs(c);
        long usedBefore = c.engine().usedMemory();
        c.engine().beforeFlush(c.db().id());
        long n = c.db().clear();
        afterClear(c, n, usedBefore);
        c.engine().dirty += n;
        // an empty database is flushed in the AOF and on replicas too
        c.forcePropagation();
        c.reply().ok();
    }

    static void flushall(Client c) {
        checkFlushArgs(c);
        Keyspace ks = c.engine().keyspace();
        long usedBefore = c.engine().usedMemory();
        c.engine().beforeFlush(-1);
        long n = 0;
        for (int i = 0; i < ks.count(); i++) n += ks.db(i).clear();
        afterClear(c, n, usedBefore);
        c.engine().dirty += n;
        // a running BGSAVE is dropped and, with save points, the empty data set saved at once
        // (not for a forked debugging session's FLUSHALL, which is undone: see UndoLog)
        if (!c.engine().discardingEffects()) c.engine().persistence().afterFlushAll();
        c.forcePropagation();
        c.reply().ok();
    }

    static void swapdb(Client c) {
        if (c.engine().cluster() != null) throw CommandError.err("SWAPDB is not allowed in cluster mode");
        long a1 = c.argLong(1, CommandError.err("invalid first DB index"));
        long a2 = c.argLong(2, CommandError.err("invalid second DB index"));
        Keyspace ks = c.engine().keyspace();
        if (a1 < Integer.MIN_VALUE || a1 > Integer.MAX_VALUE) throw CommandError.err("invalid first DB index");
        if (a2 < Integer.MIN_VALUE || a2 > Integer.MAX_VALUE) throw CommandError.err("invalid second DB index");
        if (a1 < 0 || a1 >= ks.count() || a2 < 0 || a2 >= ks.count()) throw CommandError.DB_INDEX;
        c.engine().beforeSwap((int) a1, (int) a2);
        ks.swap((int) a1, (int) a2);
        c.engine().afterSwap((int) a1, (int) a2);
        c.engine().dirty++;
        c.reply().ok();
    }

    // ---- expire -------------------------------------------------------------------------------

    private static final int EXP_NX = 1, EXP_XX = 2, EXP_GT = 4, EXP_LT = 8;

    static void expire(Client c, long basetime, boolean millis) {
        Args a = c.args();
        int flags = 0;
        for (int j = 3; j < a.count(); j++) {
            if (a.is(j, "nx")) flags |= EXP_NX;
            else if (a.is(j, "xx")) flags |= EXP_XX;
            else if (a.is(j, "gt")) flags |= EXP_GT;
            else if (a.is(j, "lt")) flags |= EXP_LT;
            else throw CommandError.err("Unsupported option " + a.cString(j));
        }
        if ((flags & EXP_NX) != 0 && (flags & (EXP_XX | EXP_GT | EXP_LT)) != 0) {
            throw CommandError.err("NX and XX, GT or LT options at the same time are not compatible");
        }
        if ((flags & EXP_GT) != 0 && (flags & EXP_LT) != 0) {
            throw CommandError.err("GT and LT options at the same time are not compatible");
        }
        long when = c.argLong(2);
        if (!millis) {
            if (when > Long.MAX_VALUE / 1000 || when < Long.MIN_VALUE / 1000) throw invalidExpireTime(a);
            when *= 1000;
        }
        if (when > Long.MAX_VALUE - basetime) throw invalidExpireTime(a);
        when += basetime;
        Db db = c.db();
        Object e = db.lookupWrite(a.buf(1), a.off(1), a.len(1));
        if (e == null) {
            c.reply().integer(0);
            return;
        }
        if (flags != 0) {
            long current = Entries.expire(e);
            if ((flags & EXP_NX) != 0 && current != -1
                    || (flags & EXP_XX) != 0 && current == -1
                    || (flags & EXP_GT) != 0 && (when <= current || current == -1)
                    || (flags & EXP_LT) != 0 && current != -1 && when >= current) {
                c.reply().integer(0);
                return;
            }
        }
        Engine engine = c.engine();
        if (engine.keyspace().alreadyExpired(when)) {
            db.remove(a.buf(1), a.off(1), a.len(1));
            deleted(c, db, a.buf(1), a.off(1), a.len(1));
            if (c.propagates()) c.propagateAs(DEL, a.copy(1));
        } else {
            db.setExpire(a.buf(1), a.off(1), a.len(1), e, when);
            if (c.propagates()) {
                byte[][] p = a.toArrays();
                p[0] = PEXPIREAT;
                p[2] = Bytes.longToBytes(when);
                c.propagateAs(p);
            }
            engine.keyModified(db, a.buf(1), a.off(1), a.len(1));
            engine.notify(Notify.GENERIC, "expire", db, a.buf(1), a.off(1), a.len(1));
            engine.dirty++;
        }
        c.reply().integer(1);
    }

    private static CommandError invalidExpireTime(Args a) {
        return new CommandError("ERR invalid expire time in '" + a.string(0).toLowerCase() + "' command");
    }

    static void ttl(Client c, boolean millis, boolean absolute) {
        Args a = c.args();
        Object e = c.db().lookupRead(a.buf(1), a.off(1), a.len(1), false);
        if (e == null) {
            c.reply().integer(-2);
            return;
        }
        long expire = Entries.expire(e);
        if (expire == -1) {
            c.reply().integer(-1);
            return;
        }
        long ttl = absolute ? expire : expire - c.engine().keyspace().now();
        if (ttl < 0) ttl = 0;
        // rounded to the nearest second without overflowing near Long.MAX_VALUE (PEXPIREAT of the
        // largest time): Redis's build answers 9223372036854776 there, the exact rounding
        c.reply().integer(millis ? ttl : ttl / 1000 + (ttl % 1000 + 500) / 1000);
    }

    static void persist(Client c) {
        Args a = c.args();
        Db db = c.db();
        Object e = db.lookupWrite(a.buf(1), a.off(1), a.len(1));
        if (e == null || Entries.expire(e) == -1) {
            c.reply().integer(0);
            return;
        }
        db.setExpire(a.buf(1), a.off(1), a.len(1), e, -1);
        Engine engine = c.engine();
        engine.keyModified(db, a.buf(1), a.off(1), a.len(1));
        engine.notify(Notify.GENERIC, "persist", db, a.buf(1), a.off(1), a.len(1));
        engine.dirty++;
        c.reply().integer(1);
    }

    // ---- OBJECT -------------------------------------------------------------------------------

    private static final String LFU_NOTE = " Please note that when switching between policies at runtime LRU and LFU "
            + "data will take some time to adjust.";

    static void object(Client c, String sub) {
        Args a = c.args();
        Db db = c.db();
        Object e = db.lookupRead(a.buf(2), a.off(2), a.len(2), false);
        Reply r = c.reply();
        if (e == null) {
            r.nullBulk();
            return;
        }
        Keyspace ks = c.engine().keyspace();
        switch (sub) {
            case "encoding":
                r.bulk(Entries.encoding(e));
                break;
            case "refcount":
                r.integer(isSharedInteger(e, ks) ? Integer.MAX_VALUE : 1);
                break;
            case "idletime":
                if (ks.lfu()) throw CommandError.err("An LFU maxmemory policy is selected, idle time not tracked." + LFU_NOTE);
                r.integer(ks.idleSeconds(e));
                break;
            default:
                if (!ks.lfu()) {
                    throw CommandError.err("An LFU maxmemory policy is not selected, access frequency not tracked."
                            + LFU_NOTE);
                }
                r.integer(ks.lfuDecrAndReturn(Entries.lru(e)));
                break;
        }
    }

    /**
     * Redis shares the objects of the integers 0..9999 (OBJECT REFCOUNT reports INT_MAX) unless
     * LRU/LFU eviction needs per-key data, or COPY made the object (see StringEntry.unshared).
     */
    private static boolean isSharedInteger(Object e, Keyspace ks) {
        return e instanceof byte[] && StringEntry.isSharedInt((byte[]) e) && ks.sharedIntegers();
    }

    /**
     * MEMORY USAGE key [SAMPLES count]: the entry's estimated heap bytes. The estimate is exact
     * for every value, so SAMPLES is validated and otherwise has nothing to limit. Like Redis it
     * looks the key up without expiring it or touching it.
     */
    static void memoryUsage(Client c) {
        Args a = c.args();
        for (int j = 3; j < a.count(); j++) {
            if (a.is(j, "samples") && j + 1 < a.count()) {
                if (c.argLong(j + 1) < 0) throw CommandError.SYNTAX;
                j++;
            } else {
                throw CommandError.SYNTAX;
            }
        }
        Object e = c.db().find(a.buf(2), a.off(2), a.len(2));
        if (e == null) c.reply().nullBulk();
        else c.reply().integer(Entries.memoryUsage(e));
    }

    static void objectHelp(Client c) {
        helpReply(c, "OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
                "ENCODING <key>",
                "    The internal representation of the value stored at <key>.",
                "FREQ <key>",
                "    The logarithmic access frequency counter of <key> (LFU eviction policies only).",
                "IDLETIME <key>",
                "    Seconds since <key> was last accessed (LRU eviction policies only).",
                "REFCOUNT <key>",
                "    The number of references to the value stored at <key>.");
    }

    /** A HELP reply in Redis's shape: a header, the lines, and HELP's own entry last. */
    public static void helpReply(Client c, String header, String... lines) {
        Reply r = c.reply();
        r.arrayHeader(lines.length + 3);
        r.status(header);
        for (String l : lines) r.status(l);
        r.status("HELP");
        r.status("    Prints this help.");
    }

    /**
     * A HELP reply whose header names the command as the client typed it in upper case
     * ("SCRIPT <subcommand> ..."), as Redis's addReplyHelp does. The lines are reply text: clients
     * and the differential harness compare it with redis-server byte for byte.
     */
    public static void helpReply(Client c, String[] lines) {
        helpReply(c, c.argString(0).toUpperCase(java.util.Locale.ROOT)
                + " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:", lines);
    }
}
