package io.spinel.core.persist;

import io.spinel.core.Client;
import io.spinel.core.Engine;
import io.spinel.core.Notify;
import io.spinel.core.command.Command;
import io.spinel.core.command.CommandError;
import io.spinel.core.command.CommandHandler;
import io.spinel.core.keyspace.Db;
import io.spinel.core.keyspace.Keyspace;
import io.spinel.core.keyspace.StringEntry;
import io.spinel.core.protocol.Args;
import io.spinel.core.util.Bytes;

/**
 * SAVE, BGSAVE, BGREWRITEAOF (Redis's rdb.c and aof.c commands) and DUMP/RESTORE (cluster.c),
 * whose payload is the RDB form of the value followed by the RDB version (2 bytes) and the
 * CRC-64 of everything before (8 bytes), both little endian: interchangeable with Redis's.
 */
public final class PersistCommands {
    private PersistCommands() {
    }

    /** MIGRATE's KEYS form, for CommandFamilies. */
    public static Command.KeysFinder keysFinder(String name) {
        return name.equals("migrate") ? Migrate::keys : null;
    }

    /** MIGRATE deletes what it moves, for CommandFamilies. */
    public static Command.KeyFlags keyFlags(String name) {
        return name.equals("migrate") ? (a, pos) -> Migrate.KEY_FLAGS : null;
    }

    /** The handler of each command CommandFamilies registers for this family, made when it first runs. */
    public static CommandHandler handler(String name) {
        return switch (name) {
            case "save" -> PersistCommands::save;
            case "bgsave" -> PersistCommands::bgsave;
            case "bgrewriteaof" -> PersistCommands::bgrewriteaof;
            case "dump" -> PersistCommands::dump;
            case "restore" -> PersistCommands::restore;
            // what a cluster's MIGRATE sends; outside a cluster it is RESTORE, as in Redis
            case "restore-asking" -> PersistCommands::restore;
            case "migrate" -> c -> Migrate.migrate(c, p(c).migrateCache);
            default -> null;
        };
    }

    private static Persistence p(Client c) {
        return c.engine().persistence();
    }

    static void save(Client c) {
        Persistence p = p(c);
        if (p.rdbJobRunning()) throw CommandError.err("Background save already in progress");
        p.countRdbSave();
        if (p.saveNow()) c.reply().ok();
        else throw new CommandError("ERR");
    }

    static void bgsave(Client c) {
        Args a = c.args();
        boolean schedule = false;
        if (a.count() > 1) {
            if (a.count() == 2 && a.is(1, "schedule")) schedule = true;
            else throw CommandError.SYNTAX;
        }
        Persistence p = p(c);
        if (p.rdbJobRunning()) {
            throw CommandError.err("Background save already in progress");
        } else if (p.backgroundJobRunning() || c.inExec()) {
            if (schedule || c.inExec()) {
                p.scheduleBgsave();
                c.reply().status("Background saving scheduled");
            } else {
                throw CommandError.err("Another child process is active (AOF?): can't BGSAVE right now. "
                        + "Use BGSAVE SCHEDULE in order to schedule a BGSAVE whenever possible.");
            }
        } else if (p.startBgsave()) {
            c.reply().status("Background saving started");
        } else {
            throw new CommandError("ERR");
        }
    }

    static void bgrewriteaof(Client c) {
        Persistence p = p(c);
        if (p.aofJobRunning()) {
            throw CommandError.err("Background append only file rewriting already in progress");
        } else if (p.backgroundJobRunning() || c.inExec()) {
            p.aof.rewriteScheduled = true;
            p.aof.consecutiveFailures = 0;
            c.reply().status("Background append only file rewriting scheduled");
        } else if (p.startAofRewrite()) {
            c.reply().status("Background append only file rewriting started");
        } else {
            throw CommandError.err("Can't execute an AOF background rewriting. "
                    + "Please check the server logs for more information.");
        }
    }

    // ---- DUMP / RESTORE -------------------------------------------------------------------------

    /** The DUMP payload of a keyspace entry. */
    static byte[] payload(Object e, boolean compress) {
        RdbOut out = new RdbOut(64, compress);
        writePayload(out, e);
        return out.toByteArray();
    }

    /** Appends the payload of e to out: type, value, RDB version, CRC-64 of what came before. */
    private static void writePayload(RdbOut out, Object e) {
        int start = out.size();
        out.writeByte(ValueCodec.typeOf(e));
        ValueCodec.writeValue(out, e);
        out.writeByte(Rdb.VERSION & 0xff);
        out.writeByte((Rdb.VERSION >>> 8) & 0xff);
        out.writeLongLE(Crc64.of(out.array(), start, out.size() - start));
    }

    /**
     * DUMP's buffers, one per rdbcompression setting, reused call after call on the thread that
     * runs commands: a payload goes into the reply at once, and a fresh buffer (with its listpack
     * builder and LZF output) grew and was copied about as long as the value took to encode.
     */
    private static final ThreadLocal<RdbOut[]> DUMP_BUFFERS = ThreadLocal.withInitial(() -> new RdbOut[2]);
    /** A buffer that grew past this for one big value is dropped after it. */
    private static final int DUMP_BUFFER_KEPT = 1 << 20;

    static void dump(Client c) {
        Args a = c.args();
        // the payload copies a BIG value out where it lies: no move to the heap for a read
        Object e = c.db().lookupReadBig(a.buf(1), a.off(1), a.len(1), true);
        if (e == null) {
            c.reply().nullBulk();
            return;
        }
        boolean compress = c.engine().config().getBool("rdbcompression");
        RdbOut[] buffers = DUMP_BUFFERS.get();
        int slot = compress ? 1 : 0;
        RdbOut out = buffers[slot];
        if (out == null) out = buffers[slot] = new RdbOut(4096, compress);
        out.clear();
        writePayload(out, e);
        c.reply().bulk(out.array(), 0, out.size());
        if (out.array().length > DUMP_BUFFER_KEPT) buffers[slot] = null;
    }

    /** Redis's verifyDumpPayload: a known RDB version and a matching checksum. */
    static boolean verifyPayload(Client c, byte[] b, int off, int len) {
        if (len < 10) return false;
        int footer = off + len - 10;
        int version = (b[footer] & 0xff) | (b[footer + 1] & 0xff) << 8;
        if (version > Rdb.VERSION) return false;
        if (c.engine().skipsChecksumValidation()) return true;
        return Crc64.of(b, off, len - 8) == Bytes.getLongLE(b, footer + 2);
    }

    private static final byte[] DEL = Bytes.ascii("DEL");
    private static final byte[] ABSTTL = Bytes.ascii("ABSTTL");

    static void restore(Client c) {
        Args a = c.args();
        boolean replace = false, absttl = false;
        long idle = -1, freq = -1;
        for (int j = 4; j < a.count(); j++) {
            int more = a.count() - j - 1;
            if (a.is(j, "replace")) {
                replace = true;
            } else if (a.is(j, "absttl")) {
                absttl = true;
            } else if (a.is(j, "idletime") && more >= 1 && freq == -1) {
                idle = c.argLong(j + 1);
                if (idle < 0) throw CommandError.err("Invalid IDLETIME value, must be >= 0");
                j++;
            } else if (a.is(j, "freq") && more >= 1 && idle == -1) {
                freq = c.argLong(j + 1);
                if (freq < 0 || freq > 255) throw CommandError.err("Invalid FREQ value, must be >= 0 and <= 255");
                j++;
            } else {
                throw CommandError.SYNTAX;
            }
        }
        Db db = c.db();
        Engine engine = c.engine();
        Keyspace ks = engine.keyspace();
        if (!replace && db.lookupWrite(a.buf(1), a.off(1), a.len(1)) != null) {
            throw new CommandError("BUSYKEY Target key name already exists.");
        }
        long ttl = c.argLong(2);
        if (ttl < 0) throw CommandError.err("Invalid TTL value, must be >= 0");
        if (!verifyPayload(c, a.buf(3), a.off(3), a.len(3))) throw CommandError.err("DUMP payload version or checksum are wrong");
        byte[] key = a.copy(1);
        Object entry;
        try {
            // the whole payload, footer included: a value whose last length runs into the
            // footer's bytes is read from them, as Redis's RESTORE reads it
            RdbIn in = new RdbIn(a.buf(3), a.off(3), a.len(3));
            int type = in.readByte();
            if (!Rdb.isObjectType(type)) throw CommandError.err("Bad data format");
            // the expire is set below, once it is known to be in the future
            entry = ValueCodec.read(type, in, key, -1, ks.loadedLru(idle, (int) freq), engine.encodings());
        } catch (RdbException e) {
            // what was wrong, in the log (Redis's rdbReportError, at verbose level for RESTORE)
            engine.log().verbose("Internal error in RDB reading offset 0, function at rdb.c:0 -> " + e.getMessage());
            throw CommandError.err("Bad data format");
        } catch (ValueCodec.EmptyKey | IllegalArgumentException | IndexOutOfBoundsException e) {
            throw CommandError.err("Bad data format");
        }
        // a big string value was read into native memory: the keyspace owns it from here
        boolean big = entry instanceof byte[] && StringEntry.isBig((byte[]) entry);
        if (big) ks.bigValues().adopted((byte[]) entry);
        boolean deleted = false;
        if (replace) deleted = db.remove(a.buf(1), a.off(1), a.len(1)) != null;
        if (ttl != 0 && !absttl) ttl += ks.now();
        if (ttl != 0 && ks.alreadyExpired(ttl)) {
            if (big) ks.bigValues().dropped((byte[]) entry);
            if (deleted) {
                c.propagateAs(DEL, key);
                engine.keyModified(db, key);
                engine.notify(Notify.GENERIC, "del", db, key);
                engine.dirty++;
            }
            c.reply().ok();
            return;
        }
        db.put(key, entry);
        if (ttl != 0) {
            db.setExpire(key, 0, key.length, entry, ttl);
            if (!absttl) {
                byte[][] argv = new byte[a.count() + 1][];
                for (int i = 0; i < a.count(); i++) argv[i] = a.copy(i);
                argv[2] = Bytes.longToBytes(ttl);
                argv[a.count()] = ABSTTL;
                c.propagateAs(argv);
            }
        }
        engine.keyModified(db, key);
        engine.notify(Notify.GENERIC, "restore", db, key);
        c.reply().ok();
        engine.dirty++;
    }
}
