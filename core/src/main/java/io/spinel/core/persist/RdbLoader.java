package io.spinel.core.persist;

import io.spinel.core.Engine;
import io.spinel.core.Log;
import io.spinel.core.keyspace.BigValues;
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
    /**
     * Keys and libraries loaded take the place of those of the same name (DEBUG RELOAD MERGE,
     * Redis's RDBFLAGS_ALLOW_DUP); otherwise a name already taken fails the load.
     */
    private final boolean replaceExisting;
    /**
     * Where the keys go instead of the keyspace's databases (a replica's diskless load with
     * swapdb: detached databases swapped in once the load ends), or null.
     */
    private Db[] into;
    /** Where function libraries are kept instead of being loaded (the same swapdb load), or null. */
    private java.util.List<byte[]> functionsInto;
    long keysLoaded;
    long keysExpired;

    RdbLoader(Engine engine, FunctionStore functions, boolean aofBase) {
        this(engine, functions, aofBase, false);
    }

    RdbLoader(Engine engine, FunctionStore functions, boolean aofBase, boolean replaceExisting) {
        this.engine = engine;
        this.log = engine.log();
        this.functions = functions;
        this.aofBase = aofBase;
        this.replaceExisting = replaceExisting;
    }

    /** Loads into detached databases and keeps the libraries aside, for a load that replaces the data set only if it succeeds. */
    RdbLoader into(Db[] dbs, java.util.List<byte[]> libraries) {
        this.into = dbs;
        this.functionsInto = libraries;
        return this;
    }

    /**
     * Files from this size on are decoded on a second thread while this one fills the tables
     * ({@code -Dspinel.rdb.sequential=true} turns that off, for comparing the two).
     */
    private static final long PARALLEL_MIN_BYTES = 4L << 20;

    /** Where decoded keys go: the tables directly, or a hand-off to the thread that owns them. */
    private interface Target {
        void put(Db db, byte[] key, Object entry);

        void reserve(Db db, long keys, long withExpire);

        void function(byte[] code);
    }

    /** Stores into the keyspace on the calling thread. */
    private final Target tables = new Target() {
        @Override
        public void put(Db db, byte[] key, Object entry) {
            // a start-up load then fails as a whole; DEBUG RELOAD NOFLUSH keeps the keys it
            // loaded before this one (where Redis stops the server)
            if (db.putComplete(key, entry) != null && !replaceExisting) {
                throw new RdbException("RDB has duplicated key '" + new String(key, StandardCharsets.ISO_8859_1)
                        + "' in DB " + db.id());
            }
        }

        @Override
        public void reserve(Db db, long keys, long withExpire) {
            db.reserve(keys, withExpire);
        }

        @Override
        public void function(byte[] code) {
            loadFunction(code);
        }
    };

    /**
     * Loads the stream. {@code totalBytes} (0 if unknown) is for the progress log. A big file is
     * decoded (reading, checksum, LZF, values) on a helper thread while the calling thread, which
     * owns the keyspace, inserts what it decoded: about a third of loading is filling the tables.
     */
    void load(RdbIn in, long totalBytes, String what) {
        if (!decodesAhead(totalBytes)) {
            decode(in, totalBytes, what, tables);
            return;
        }
        finish(startDecoding(in, totalBytes, what, Handoff.QUEUED_WHILE_LOADING));
    }

    /** Whether a stream of that size is decoded on a thread of its own (see {@link #load}). */
    static boolean decodesAhead(long totalBytes) {
        return totalBytes >= PARALLEL_MIN_BYTES && !Boolean.getBoolean("spinel.rdb.sequential");
    }

    /** Decoding on its own thread, handing batches of keys to whoever calls {@link #finish}. */
    static final class Decoding {
        private final Handoff handoff;

        private Decoding(Handoff handoff) {
            this.handoff = handoff;
        }

        /** Stops the decoding thread where {@link #finish} will never be called. */
        void cancel() {
            handoff.cancel();
        }
    }

    /**
     * Starts decoding the stream on a thread of its own; up to {@code queuedBatches} batches of
     * 512 keys wait for {@link #finish} (a start-up load queues many: it begins before the
     * thread that inserts them is ready).
     */
    Decoding startDecoding(RdbIn in, long totalBytes, String what, int queuedBatches) {
        Handoff handoff = new Handoff(queuedBatches);
        Thread decoder = new Thread(() -> {
            try {
                decode(in, totalBytes, what, handoff);
                handoff.finish(null);
            } catch (Handoff.Cancelled e) {
                // the loading thread gave up first
            } catch (Throwable e) {
                handoff.finish(e);
            }
        }, "spinel-rdb-decode");
        decoder.setDaemon(true);
        decoder.start();
        return new Decoding(handoff);
    }

    /** On the thread that owns the keyspace: inserts what is decoded until the end of the stream. */
    void finish(Decoding decoding) {
        try {
            decoding.handoff.drain(tables, engine);
        } finally {
            decoding.handoff.cancel();
        }
    }

    /** Batches of decoded keys (and the rare other operations, in order) from the decoding thread. */
    private static final class Handoff implements Target {
        private static final int BATCH = 512;
        /** Batches decoded ahead while the keyspace's thread inserts (more only cost the cache). */
        static final int QUEUED_WHILE_LOADING = 16;
        private static final Object DONE = new Object();

        static final class Cancelled extends RuntimeException {
            Cancelled() {
                super(null, null, false, false);
            }
        }

        private final java.util.concurrent.ArrayBlockingQueue<Object> queue;
        private volatile boolean cancelled;
        private Db[] dbs = new Db[BATCH];
        private byte[][] keys = new byte[BATCH][];
        private Object[] entries = new Object[BATCH];
        private int n;

        Handoff(int queuedBatches) {
            queue = new java.util.concurrent.ArrayBlockingQueue<>(queuedBatches);
        }

        private static final class Batch {
            final Db[] dbs;
            final byte[][] keys;
            final Object[] entries;
            final int n;

            Batch(Db[] dbs, byte[][] keys, Object[] entries, int n) {
                this.dbs = dbs;
                this.keys = keys;
                this.entries = entries;
                this.n = n;
            }
        }

        @Override
        public void put(Db db, byte[] key, Object entry) {
            if (cancelled) {
                BigValues.freeUnstored(entry);
                dropPending();
                throw new Cancelled(); // (a start that failed: stop reading the file now)
            }
            dbs[n] = db;
            keys[n] = key;
            entries[n] = entry;
            if (++n == BATCH) flush();
        }

        @Override
        public void reserve(Db db, long k, long withExpire) {
            flush();
            send((java.util.function.Consumer<Target>) t -> t.reserve(db, k, withExpire));
        }

        @Override
        public void function(byte[] code) {
            flush();
            send((java.util.function.Consumer<Target>) t -> t.function(code));
        }

        private void flush() {
            if (n == 0) return;
            send(new Batch(dbs, keys, entries, n));
            dbs = new Db[BATCH];
            keys = new byte[BATCH][];
            entries = new Object[BATCH];
            n = 0;
        }

        private void send(Object o) {
            try {
                while (!queue.offer(o, 100, java.util.concurrent.TimeUnit.MILLISECONDS)) {
                    if (cancelled) {
                        freeBatch(o);
                        throw new Cancelled();
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                freeBatch(o);
                throw new Cancelled();
            }
        }

        /** The native memory of big values in a batch that no table will get. */
        private static void freeBatch(Object o) {
            if (!(o instanceof Batch)) return;
            Batch b = (Batch) o;
            for (int i = 0; i < b.n; i++) BigValues.freeUnstored(b.entries[i]);
        }

        /** On the decoding thread: everything was decoded (failure null) or decoding failed. */
        void finish(Throwable failure) {
            if (failure == null) flush();
            else dropPending();
            send(failure == null ? DONE : failure);
        }

        /** The batch being filled will not be sent: its big values are freed. */
        private void dropPending() {
            for (int i = 0; i < n; i++) BigValues.freeUnstored(entries[i]);
            n = 0;
        }

        /**
         * On the loading thread: applies what arrives until the end, letting the engine serve its
         * clients between batches; rethrows a decoding failure.
         */
        @SuppressWarnings("unchecked")
        void drain(Target into, Engine engine) {
            while (true) {
                engine.processEventsWhileLoading();
                Object o;
                try {
                    // (a bounded wait: clients are still served while the decoder is slow)
                    o = queue.poll(20, java.util.concurrent.TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new RdbException("Interrupted while loading");
                }
                if (o == null) {
                    if (cancelled) throw new RdbException("Loading cancelled");
                    continue;
                }
                if (o == DONE) return;
                if (o instanceof Batch) {
                    Batch b = (Batch) o;
                    for (int i = 0; i < b.n; i++) {
                        try {
                            into.put(b.dbs[i], b.keys[i], b.entries[i]);
                        } catch (RuntimeException e) {
                            // (a duplicate key: the rest of the batch will not be stored)
                            for (int j = i + 1; j < b.n; j++) BigValues.freeUnstored(b.entries[j]);
                            throw e;
                        }
                    }
                } else if (o instanceof java.util.function.Consumer) {
                    ((java.util.function.Consumer<Target>) o).accept(into);
                } else if (o instanceof RuntimeException) {
                    throw (RuntimeException) o;
                } else if (o instanceof Error) {
                    throw (Error) o;
                } else {
                    throw new RdbException(String.valueOf(o));
                }
            }
        }

        void cancel() {
            cancelled = true;
            for (Object o; (o = queue.poll()) != null; ) freeBatch(o);
        }
    }

    private void decode(RdbIn in, long totalBytes, String what, Target target) {
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
        Db db = into != null ? into[0] : ks.db(0);
        long expire = -1;
        long idle = -1;
        int freq = -1;
        long now = System.currentTimeMillis();
        long emptySkipped = 0;
        // Redis's hidden key-load-delay (microseconds per key; tests use it to watch a load)
        long keyLoadDelayNanos = engine.config().getLong("key-load-delay") * 1000L;
        boolean onLoop = target == tables;
        LoadProgress progress = new LoadProgress(log) {
            @Override
            String line(long bytes, long keys, double seconds) {
                String perc = totalBytes > 0 ? String.format(Locale.ROOT, "%.2f%%", bytes * 100.0 / totalBytes) : bytes + " bytes";
                return String.format(Locale.ROOT, "Loading %s: %s, %d keys, %.0f keys/s", what, perc, keys, keys / seconds);
            }
        };
        try {
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
                        db = into != null ? into[(int) id] : ks.db((int) id);
                        continue;
                    }
                    case Rdb.OPCODE_RESIZEDB: {
                        long keys = in.readLen();
                        long withExpire = in.readLen();
                        // trusted only as far as the file could hold that many keys (3 bytes each at
                        // least), so a corrupt header cannot make the server allocate gigabytes
                        long most = totalBytes > 0 ? totalBytes / 3 : 0;
                        target.reserve(db, Math.min(keys, most), Math.min(withExpire, most));
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
                        target.function(code);
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
                            if (!aofBase && expire != -1 && expire < now && engine.iAmMaster()) {
                                keysExpired++;
                                engine.persistence().expiredAtLoad(db.id(), key);
                                BigValues.freeUnstored(entry);
                            } else {
                                target.put(db, key, entry);
                                keysLoaded++;
                            }
                        }
                        expire = -1;
                        idle = -1;
                        freq = -1;
                        if (keyLoadDelayNanos > 0) {
                            java.util.concurrent.locks.LockSupport.parkNanos(keyLoadDelayNanos);
                            if (onLoop) engine.processEventsWhileLoading();
                        }
                        if (((keysLoaded + keysExpired) & 1023) == 0) {
                            long pos = in.position();
                            progress.publish(pos, keysLoaded + keysExpired);
                            engine.persistence().loadingProgress(pos);
                            if (onLoop) engine.processEventsWhileLoading();
                        }
                        continue;
                }
                break;
            }
        } finally {
            progress.stop();
        }
        if (version >= 5) {
            long expected = in.crc();
            long stored = in.readLongLE();
            if (engine.config().getBool("rdbchecksum") && !engine.skipsChecksumValidation()) {
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
                    long usedMem = Long.parseLong(val);
                    engine.persistence().loadingRdbUsedMem(usedMem);
                    log.notice(String.format(Locale.ROOT, "RDB memory usage when created %.2f Mb",
                            usedMem / (1024.0 * 1024)));
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
            case "repl-stream-db", "repl-id", "repl-offset":
                engine.persistence().replicationInfoLoaded(key.toLowerCase(Locale.ROOT), val);
                break;
            default:
                log.debug("Unrecognized RDB AUX field: '" + key + "'");
                break;
        }
    }

    private void loadFunction(byte[] code) {
        if (functionsInto != null) {
            functionsInto.add(code);
            return;
        }
        if (functions == null) {
            String first = new String(code, 0, Math.min(code.length, 80), StandardCharsets.ISO_8859_1);
            int nl = first.indexOf('\n');
            log.warning("Skipping a function library saved in the RDB (Spinel has no FUNCTION support yet): "
                    + (nl >= 0 ? first.substring(0, nl) : first));
            return;
        }
        try {
            functions.load(code, replaceExisting);
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
