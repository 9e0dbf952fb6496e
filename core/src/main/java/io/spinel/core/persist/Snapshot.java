package io.spinel.core.persist;

import io.spinel.core.Engine;
import io.spinel.core.keyspace.Db;
import io.spinel.core.keyspace.Entries;
import io.spinel.core.keyspace.FrozenDb;
import io.spinel.core.keyspace.Keyspace;
import io.spinel.core.util.Bytes;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A point-in-time image of the whole data set, taken without fork (Dragonfly's approach).
 *
 * <p>{@link #begin()} freezes every database (a copy of its slot references, see
 * {@link FrozenDb}); from then on the executor keeps serving clients, and the snapshot's entries
 * are serialized in two ways: in slot order by {@link #step}, a slice at a time between client
 * batches, and out of turn by {@link #capture} when a command is about to change or drop an
 * entry the snapshot has not written yet. Either way each entry is written once, with the value
 * it had when the snapshot began; entries created afterwards are not part of it. Records can
 * therefore come in any database order, and a SELECTDB precedes each record whose database
 * differs from the previous one's.
 *
 * <p>Two formats: an RDB file (also the AOF base with aof-use-rdb-preamble) or AOF commands
 * (SELECT, SET, RPUSH, SADD, ZADD, HMSET in batches of 64, PEXPIREAT), as Redis's rewrite writes
 * them. The serialized bytes go to a {@link Sink} in chunks; the sink writes them to a file.
 */
final class Snapshot implements FrozenDb.Capture {
    /** Where serialized chunks go. */
    interface Sink {
        /** Takes ownership of b, which holds len bytes. */
        void write(byte[] b, int len) throws IOException;

        /** Bytes handed over but not yet written (back pressure for background snapshots). */
        long backlog();

        /** An array the sink has finished writing, for the next chunk; null if none is free. */
        default byte[] spareChunk() {
            return null;
        }
    }

    enum Format { RDB, COMMANDS }

    private static final int CHUNK = 256 * 1024;
    private static final int ITEMS_PER_COMMAND = 64;

    private final Engine engine;
    private final Format format;
    private final boolean aofBase;
    private final Sink sink;
    private final RdbOut out;
    private final List<byte[]> functions;
    private final ArrayList<FrozenDb> frozen = new ArrayList<>();
    private final boolean[] resized;
    private final boolean saveLru;
    private final boolean saveLfu;
    private final boolean timestamps;
    private int current;
    private int lastDb = -1;
    private long keysTotal;
    private long keysDone;
    private boolean ended;
    private IOException failure;

    Snapshot(Engine engine, Format format, boolean aofBase, Sink sink, List<byte[]> functions) {
        this.engine = engine;
        this.format = format;
        this.aofBase = aofBase;
        this.sink = sink;
        this.functions = functions;
        this.out = new RdbOut(CHUNK + CHUNK / 4, engine.config().getBool("rdbcompression"));
        this.resized = new boolean[engine.keyspace().count()];
        String policy = engine.config().get("maxmemory-policy");
        this.saveLru = policy.contains("lru");
        this.saveLfu = policy.contains("lfu");
        this.timestamps = engine.config().getBool("aof-timestamp-enabled");
    }

    /** The snapshot has no keys, only its header and functions (a replica's REPLCONF rdb-filter-only). */
    private boolean withoutKeys;

    void withoutKeys() {
        withoutKeys = true;
    }

    long keysTotal() {
        return keysTotal;
    }

    long keysDone() {
        return keysDone;
    }

    /** Writes the header and freezes the databases: the moment the snapshot is of. */
    void begin() throws IOException {
        if (format == Format.RDB) {
            out.write(Bytes.ascii(String.format("REDIS%04d", Rdb.VERSION)));
            aux("redis-ver", Engine.REDIS_VERSION);
            aux("redis-bits", "64");
            aux("ctime", Long.toString(System.currentTimeMillis() / 1000));
            // used_memory, as Redis writes it (big values outside the heap included)
            aux("used-mem", Long.toString(engine.usedMemory()));
            String[] repl = aofBase ? null : engine.replicationRdbInfo();
            if (repl != null) {
                aux("repl-stream-db", repl[0]);
                aux("repl-id", repl[1]);
                aux("repl-offset", repl[2]);
            }
            aux("aof-base", aofBase ? "1" : "0");
            for (byte[] code : functions) {
                out.writeByte(Rdb.OPCODE_FUNCTION2);
                out.writeString(code);
            }
        } else {
            if (timestamps) out.write(Bytes.ascii("#TS:" + System.currentTimeMillis() / 1000 + "\r\n"));
            for (byte[] code : functions) AofFormat.command(out, AofFormat.FUNCTION, AofFormat.LOAD, code);
        }
        Keyspace ks = engine.keyspace();
        for (int i = 0; i < ks.count() && !withoutKeys; i++) {
            Db db = ks.db(i);
            if (db.size() == 0) continue;
            frozen.add(db.freeze(this));
            keysTotal += db.size();
        }
        flushIfFull();
    }

    private void aux(String key, String value) {
        out.writeByte(Rdb.OPCODE_AUX);
        out.writeString(Bytes.ascii(key));
        out.writeString(Bytes.ascii(value));
    }

    /**
     * Serializes pending entries in slot order until the deadline (System.nanoTime) passes or
     * maxKeys are done; then, once nothing is pending, writes the end of the file.
     *
     * @return true when the snapshot is complete
     */
    boolean step(long deadline, long maxKeys) throws IOException {
        if (failure != null) throw failure;
        long n = 0;
        while (current < frozen.size()) {
            FrozenDb f = frozen.get(current);
            Object e = f.next();
            if (e == null) {
                current++;
                continue;
            }
            record(f, e);
            flushIfFull();
            if (++n >= maxKeys || ((n & 63) == 0 && System.nanoTime() >= deadline)) {
                return false;
            }
        }
        end();
        return true;
    }

    private void end() throws IOException {
        detach();
        if (format == Format.RDB) out.writeByte(Rdb.OPCODE_EOF);
        int n = out.size();
        if (n > 0) sink.write(out.take(64), n);
        ended = true;
    }

    /** Detaches from the databases without finishing (abort, or before end). */
    void detach() {
        if (ended) return;
        Keyspace ks = engine.keyspace();
        for (FrozenDb f : frozen) {
            f.detach();
            for (int i = 0; i < ks.count(); i++) ks.db(i).unfreeze(f);
        }
    }

    /** Abandons the snapshot: the databases no longer report changes to it. */
    void abort() {
        detach();
        ended = true;
    }

    @Override
    public void capture(FrozenDb f, Object e) {
        if (ended || failure != null) return;
        record(f, e);
        try {
            flushIfFull();
        } catch (IOException ex) {
            failure = ex; // reported by the next step
        }
    }

    private void flushIfFull() throws IOException {
        if (out.size() >= CHUNK) {
            int n = out.size();
            byte[] next = sink.spareChunk(); // recycled: a snapshot is tens of MB of chunks
            sink.write(next != null ? out.take(next) : out.take(CHUNK + CHUNK / 4), n);
        }
    }

    /** Bytes waiting to be written by the sink. */
    long backlog() {
        return sink.backlog();
    }

    // ---- records ------------------------------------------------------------------------------

    private void record(FrozenDb f, Object e) {
        // a collection is deleted when emptied; one seen empty here was emptied without a write hook
        // (streams are the exception: an empty stream is a value, with its IDs and groups)
        if (!(e instanceof byte[]) && ((io.spinel.core.keyspace.DbObject) e).size() == 0
                && ((io.spinel.core.keyspace.DbObject) e).type() != io.spinel.core.keyspace.ValueType.STREAM) {
            return;
        }
        int db = f.dbIndex();
        long expire = Entries.expire(e);
        if (format == Format.RDB) {
            if (db != lastDb) {
                out.writeByte(Rdb.OPCODE_SELECTDB);
                out.writeLen(db);
                if (!resized[db]) {
                    resized[db] = true;
                    out.writeByte(Rdb.OPCODE_RESIZEDB);
                    out.writeLen(f.size());
                    out.writeLen(f.volatileSize());
                }
                lastDb = db;
            }
            if (expire >= 0) {
                out.writeByte(Rdb.OPCODE_EXPIRETIME_MS);
                out.writeMillis(expire);
            }
            if (saveLru) {
                out.writeByte(Rdb.OPCODE_IDLE);
                out.writeLen(engine.keyspace().idleSeconds(e));
            }
            if (saveLfu) {
                out.writeByte(Rdb.OPCODE_FREQ);
                out.writeByte(engine.keyspace().lfuDecrAndReturn(Entries.lru(e)));
            }
            out.writeByte(ValueCodec.typeOf(e));
            ValueCodec.writeKey(out, e);
            ValueCodec.writeValue(out, e);
        } else {
            if (db != lastDb) {
                AofFormat.command(out, AofFormat.SELECT, Bytes.longToBytes(db));
                lastDb = db;
            }
            AofFormat.rebuild(out, e, ITEMS_PER_COMMAND);
            if (expire >= 0) AofFormat.command(out, AofFormat.PEXPIREAT, Entries.key(e), Bytes.longToBytes(expire));
        }
        keysDone++;
    }
}
