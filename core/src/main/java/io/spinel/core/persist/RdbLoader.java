package io.spinel.core.persist;

import io.spinel.core.Engine;
import io.spinel.core.Log;
import io.spinel.core.keyspace.Db;
import io.spinel.core.keyspace.EncodingConfig;
import io.spinel.core.keyspace.Keyspace;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Loads an RDB stream into the keyspace (Redis's rdbLoadRioWithLoadingCtx): header, aux fields,
 * functions, databases with expires and LRU/LFU hints, values of every type Redis 7.0 reads, and
 * the checksum. Any inconsistency is an {@link RdbException}: a server never starts with a
 * partly loaded data set.
 */
final class RdbLoader {
    private final Engine engine;
    private final Log log;
    private final FunctionStore functions;
    /** Loading an AOF base: keys are kept even if expired, since the AOF tail replays onto them. */
    private final boolean aofBase;
    long keysLoaded;
    long keysExpired;

    RdbLoader(Engine engine, FunctionStore functions, boolean aofBase) {
        this.engine = engine;
        this.log = engine.log();
        this.functions = functions;
        this.aofBase = aofBase;
    }

    /**
     * Loads the stream. {@code totalBytes} (0 if unknown) is for the progress log.
     */
    void load(RdbIn in, long totalBytes, String what) {
        byte[] magic = new byte[9];
        in.readFully(magic, 0, 9);
        if (!new String(magic, 0, 5, StandardCharsets.ISO_8859_1).equals("REDIS")) {
            throw new RdbException("Wrong signature trying to load DB from file");
        }
        int version;
        try {
            version = Integer.parseInt(new String(magic, 5, 4, StandardCharsets.ISO_8859_1));
        } catch (NumberFormatException e) {
            version = -1;
        }
        if (version < 1 || version > Rdb.VERSION) throw new RdbException("Can't handle RDB format version " + version);

        Keyspace ks = engine.keyspace();
        EncodingConfig cfg = engine.encodings();
        Db db = ks.db(0);
        long expire = -1;
        long idle = -1;
        int freq = -1;
        long now = System.currentTimeMillis();
        long start = System.nanoTime();
        long lastReport = start;
        long emptySkipped = 0;
        while (true) {
            int type = in.readByte();
            switch (type) {
                case Rdb.OPCODE_EXPIRETIME:
                    expire = (in.readIntLE() & 0xFFFFFFFFL) * 1000;
                    continue;
                case Rdb.OPCODE_EXPIRETIME_MS:
                    expire = in.readLongLE();
                    continue;
                case Rdb.OPCODE_FREQ:
                    freq = in.readByte();
                    continue;
                case Rdb.OPCODE_IDLE:
                    idle = in.readLen();
                    continue;
                case Rdb.OPCODE_SELECTDB: {
                    long id = in.readLen();
                    if (id >= ks.count()) {
                        throw new RdbException("FATAL: Data file was created with a Redis server configured to handle "
                                + "more than " + ks.count() + " databases. Exiting");
                    }
                    db = ks.db((int) id);
                    continue;
                }
                case Rdb.OPCODE_RESIZEDB: {
                    long keys = in.readLen();
                    long withExpire = in.readLen();
                    // trusted only as far as the file could hold that many keys (3 bytes each at
                    // least), so a corrupt header cannot make the server allocate gigabytes
                    long most = totalBytes > 0 ? totalBytes / 3 : 0;
                    db.reserve(Math.min(keys, most), Math.min(withExpire, most));
                    continue;
                }
                case Rdb.OPCODE_AUX:
                    aux(in.readString(), in.readString());
                    continue;
                case Rdb.OPCODE_MODULE_AUX: {
                    long moduleId = in.readLen();
                    throw new RdbException("The RDB file contains AUX module data I can't load: no matching module '"
                            + moduleName(moduleId) + "'");
                }
                case Rdb.OPCODE_FUNCTION:
                    throw new RdbException("The RDB file contains functions in the format of Redis 7.0 release "
                            + "candidates, which Spinel cannot load");
                case Rdb.OPCODE_FUNCTION2: {
                    byte[] code = in.readString();
                    loadFunction(code);
                    continue;
                }
                case Rdb.OPCODE_EOF:
                    break;
                default:
                    if (!Rdb.isObjectType(type)) throw new RdbException("Unknown RDB opcode or type " + type);
                    byte[] key = in.readString();
                    int lru = ks.loadedLru(idle, freq);
                    Object entry;
                    try {
                        entry = ValueCodec.read(type, in, key, expire, lru, cfg);
                    } catch (ValueCodec.EmptyKey e) {
                        if (emptySkipped++ < 10) {
                            log.warning("rdbLoadObject skipping empty key: " + new String(key, StandardCharsets.ISO_8859_1));
                        }
                        entry = null;
                    }
                    if (entry != null) {
                        if (!aofBase && expire != -1 && expire < now) {
                            keysExpired++;
                        } else {
                            if (db.putComplete(key, entry) != null) { // the load fails as a whole: no need to undo
                                throw new RdbException("RDB has duplicated key '" + new String(key, StandardCharsets.ISO_8859_1)
                                        + "' in DB " + db.id());
                            }
                            keysLoaded++;
                        }
                    }
                    expire = -1;
                    idle = -1;
                    freq = -1;
                    if (((keysLoaded + keysExpired) & 1023) == 0) {
                        long t = System.nanoTime();
                        if (t - lastReport > 1_000_000_000L) {
                            lastReport = t;
                            progress(what, in.position(), totalBytes, start, t);
                        }
                    }
                    continue;
            }
            break;
        }
        if (version >= 5) {
            long expected = in.crc();
            long stored = in.readLongLE();
            if (engine.config().getBool("rdbchecksum")) {
                if (stored == 0) {
                    log.warning("RDB file was saved with checksum disabled: no check performed.");
                } else if (stored != expected) {
                    throw new RdbException(String.format("Wrong RDB checksum expected: (%x) but got (%x). Aborting now. "
                            + "RDB CRC error", expected, stored));
                }
            }
        }
        if (emptySkipped > 0) {
            log.warning("Done loading RDB, keys loaded: " + keysLoaded + ", keys expired: " + keysExpired
                    + ", empty keys skipped: " + emptySkipped + ".");
        } else {
            log.notice("Done loading RDB, keys loaded: " + keysLoaded + ", keys expired: " + keysExpired + ".");
        }
    }

    private void progress(String what, long pos, long total, long start, long now) {
        double secs = (now - start) / 1e9;
        long keys = keysLoaded + keysExpired;
        String perc = total > 0 ? String.format(Locale.ROOT, "%.2f%%", pos * 100.0 / total) : pos + " bytes";
        log.notice(String.format(Locale.ROOT, "Loading %s: %s, %d keys, %.0f keys/s", what, perc, keys,
                secs > 0 ? keys / secs : 0.0));
    }

    private void aux(byte[] k, byte[] v) {
        String key = new String(k, StandardCharsets.ISO_8859_1);
        String val = new String(v, StandardCharsets.ISO_8859_1);
        if (key.startsWith("%")) {
            log.notice("RDB '" + key + "': " + val);
            return;
        }
        switch (key.toLowerCase(Locale.ROOT)) {
            case "redis-ver":
                log.notice("Loading RDB produced by version " + val);
                break;
            case "ctime":
                try {
                    long age = Math.max(0, System.currentTimeMillis() / 1000 - Long.parseLong(val));
                    log.notice("RDB age " + age + " seconds");
                } catch (NumberFormatException ignored) {
                    // informational only
                }
                break;
            case "used-mem":
                try {
                    log.notice(String.format(Locale.ROOT, "RDB memory usage when created %.2f Mb",
                            Long.parseLong(val) / (1024.0 * 1024)));
                } catch (NumberFormatException ignored) {
                    // informational only
                }
                break;
            case "aof-preamble":
                if (!val.equals("0")) log.notice("RDB has an AOF tail");
                break;
            case "aof-base":
                if (!val.equals("0")) log.notice("RDB is base AOF");
                break;
            default:
                log.debug("Unrecognized RDB AUX field: '" + key + "'");
                break;
        }
    }

    private void loadFunction(byte[] code) {
        if (functions == null) {
            String first = new String(code, 0, Math.min(code.length, 80), StandardCharsets.ISO_8859_1);
            int nl = first.indexOf('\n');
            log.warning("Skipping a function library saved in the RDB (Spinel has no FUNCTION support yet): "
                    + (nl >= 0 ? first.substring(0, nl) : first));
            return;
        }
        try {
            functions.load(code);
        } catch (RuntimeException e) {
            throw new RdbException("Failed loading library, " + e.getMessage(), e);
        }
    }

    /** Redis's moduleTypeNameByID: 9 characters from the 54 high bits of the id. */
    private static String moduleName(long id) {
        final String set = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        char[] name = new char[9];
        long v = id >>> 10;
        for (int j = 8; j >= 0; j--) {
            name[j] = set.charAt((int) (v & 63));
            v >>>= 6;
        }
        return new String(name);
    }
}
