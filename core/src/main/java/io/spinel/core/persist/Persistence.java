package io.spinel.core.persist;

import io.spinel.core.Engine;
import io.spinel.core.Log;
import io.spinel.core.config.Config;
import io.spinel.core.keyspace.Db;
import io.spinel.core.keyspace.Keyspace;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * Persistence for one engine (Redis's rdb.c/aof.c server side): SAVE and fork-less BGSAVE, save
 * points, the AOF and its rewrites, loading at start, shutdown saving, the -MISCONF guard, and
 * the INFO persistence section. Runs on the executor thread; file writing and fsync happen on
 * background threads that report back through the loop.
 *
 * <p>At most one background job (BGSAVE or AOF rewrite) runs at a time, as with Redis's single
 * child process, so replies about conflicts are Redis's. A job is a {@link Snapshot}: the
 * executor serializes it in slices of about a millisecond scheduled between client batches,
 * while commands that change not yet serialized data write the old value first.
 */
public final class Persistence {
    /** One slice of snapshot serialization on the executor. */
    private static final long SLICE_NANOS = 200_000;
    /**
     * Executor time left to clients after each slice while commands keep arriving: a snapshot
     * then takes at most a quarter of the executor, so requests wait at most one short slice
     * (back-to-back 1 ms slices gave GET a p99 of 7-10 ms during BGSAVE, against Redis's 2 ms
     * with its fork; 200/600 µs gave 1.8 ms). With no commands arriving, slices run back to back.
     */
    private static final long CLIENT_SHARE_NANOS = 600_000;
    private static final int BGSAVE_RETRY_DELAY = 5;
    static final String MISCONF_RDB = "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to "
            + "persist to disk. Commands that may modify the data set are disabled, because this instance is configured "
            + "to report errors during writes if RDB snapshotting fails (stop-writes-on-bgsave-error option). Please "
            + "check the Redis logs for details about the RDB error.";

    private final Engine engine;
    private final Config config;
    private final Log log;
    final Aof aof;
    /** MIGRATE's connections to its targets. */
    final Migrate.Cache migrateCache = new Migrate.Cache();
    private FunctionStore functions;
    private boolean started;

    private long[] saveParams = new long[0]; // seconds, changes, seconds, changes...
    private long lastSave = System.currentTimeMillis() / 1000;
    private long lastBgsaveTry;
    private boolean lastBgsaveOk = true;
    private long rdbSaves;
    private long rdbSaveTimeLast = -1;
    private long rdbSaveTimeStart = -1;
    private boolean bgsaveScheduled;
    private long dirtyBeforeBgsave;
    private long loadKeysLoaded;
    private long loadKeysExpired;
    /**
     * Background snapshots started (BGSAVE, AOF rewrites, snapshots for replicas): where Redis
     * forks, so INFO's total_forks and latest_fork_usec count them, the latter the time the
     * executor spent starting one (what Redis's fork costs its main thread).
     */
    private long totalForks;
    private long latestForkMicros;

    private Job job;
    /** Numbers temporary files of background jobs: a killed job may still be deleting its own. */
    private long jobSeq;

    /** A running BGSAVE or AOF rewrite. */
    private final class Job {
        final boolean rdb;
        final Snapshot snapshot;
        final JobSink sink;
        /** The file being written, or null when the snapshot goes to replicas' sockets. */
        final Path temp;
        ScheduledFuture<?> next;
        /** total_commands_processed at the end of the last slice. */
        long commandsSeen = -1;
        boolean serialized;
        boolean over;
        /** For a snapshot made for replicas: who gets the file (or the error) instead of the RDB file's place. */
        BiConsumer<Path, Throwable> forReplicas;

        Job(boolean rdb, Snapshot snapshot, JobSink sink, Path temp) {
            this.rdb = rdb;
            this.snapshot = snapshot;
            this.sink = sink;
            this.temp = temp;
        }
    }

    public Persistence(Engine engine) {
        this.engine = engine;
        this.config = engine.config();
        this.log = engine.log();
        config.listen("save", o -> saveParams = parseSave(o.value()));
        this.aof = new Aof(this, engine);
        config.listen("appendonly", o -> {
            if (!started) return;
            boolean on = o.value().equals("yes");
            if (on && !aof.enabled()) aof.start();
            else if (!on && aof.enabled()) aof.stop();
        });
    }

    private static long[] parseSave(String v) {
        if (v.isBlank()) return new long[0];
        String[] f = io.spinel.core.config.Config.words(v.trim());
        long[] p = new long[f.length];
        for (int i = 0; i < f.length; i++) p[i] = Long.parseLong(f[i]);
        return p;
    }

    /**
     * What the host does around loading a data set at start (the standalone server lets its heap
     * grow ahead of the data): {@code enter} is given the bytes about to be loaded and returns
     * what undoes it afterwards, or null.
     */
    public interface LoadingScope {
        Runnable enter(long bytes);
    }

    private LoadingScope loadingScope = bytes -> null;

    public void setLoadingScope(LoadingScope scope) {
        this.loadingScope = scope;
    }

    /** Runs {@code load} inside the host's {@link LoadingScope} for that many bytes. */
    void loading(long bytes, Runnable load) {
        Runnable after = enterLoading(bytes);
        try {
            load.run();
        } finally {
            if (after != null) after.run();
        }
    }

    /** Resets what INFO shows of a load and enters the host's scope; returns its exit or null. */
    private Runnable enterLoading(long bytes) {
        resetLoadingInfo(bytes);
        return loadingScope.enter(bytes);
    }

    private void resetLoadingInfo(long bytes) {
        loadingStartTime = System.currentTimeMillis() / 1000;
        loadingTotalBytes = bytes;
        loadingLoadedBytes = 0;
        loadingRdbUsedMem = 0;
    }

    // What INFO shows while a load runs (Redis's loading_* fields); the loaded bytes are written
    // by whichever thread decodes, every 1024 keys.
    private long loadingStartTime;
    private long loadingTotalBytes;
    private volatile long loadingLoadedBytes;
    private volatile long loadingRdbUsedMem;

    void loadingProgress(long bytes) {
        loadingLoadedBytes = bytes;
    }

    void loadingRdbUsedMem(long bytes) {
        loadingRdbUsedMem = bytes;
    }

    /** The replication fields of the last RDB loaded: {repl-stream-db, repl-id, repl-offset}. */
    private final String[] loadedReplicationInfo = new String[3];

    /**
     * Keys the start-up load dropped as expired, {db, key} (for a master restarted on an RDB that
     * holds replication fields: its replicas must delete them too); null once they would no longer
     * fit the backlog, so many that a partial resynchronization could not hold them anyway.
     */
    private List<Object[]> expiredAtLoad = new java.util.ArrayList<>();
    private long expiredAtLoadBytes;

    void expiredAtLoad(int db, byte[] key) {
        if (started || expiredAtLoad == null) return;
        expiredAtLoadBytes += key.length + 32; // (a DEL's RESP and, now and then, a SELECT)
        if (expiredAtLoadBytes > config.getLong("repl-backlog-size")) {
            expiredAtLoad = null;
            return;
        }
        expiredAtLoad.add(new Object[] {db, key});
    }

    /** The keys the start-up load dropped as expired ({@link #expiredAtLoad}), once; null if too many. */
    public List<Object[]> takeExpiredAtLoad() {
        List<Object[]> l = expiredAtLoad;
        expiredAtLoad = java.util.List.of();
        return l;
    }

    void replicationInfoLoaded(String field, String value) {
        loadedReplicationInfo[switch (field) {
            case "repl-stream-db" -> 0;
            case "repl-id" -> 1;
            default -> 2;
        }] = value;
    }

    /**
     * What the start-up's RDB said of replication (all three fields), once: a replica restarted
     * on it asks its master to continue from there.
     */
    public String[] takeLoadedReplicationInfo() {
        String[] info = loadedReplicationInfo.clone();
        java.util.Arrays.fill(loadedReplicationInfo, null);
        for (String f : info) if (f == null) return null;
        return info;
    }

    /** Registers where function libraries come from and go to (see {@link FunctionStore}). */
    public void setFunctionStore(FunctionStore store) {
        this.functions = store;
    }

    FunctionStore functionStore() {
        return functions;
    }

    private List<byte[]> functionCodes() {
        return functions == null ? List.of() : functions.libraries();
    }

    private Path dir() {
        return Path.of(engine.workingDirectory());
    }

    private Path rdbPath() {
        return dir().resolve(Config.fileName(config.get("dbfilename")));
    }

    private static long pid() {
        return ProcessHandle.current().pid();
    }

    /** Unix time of the last successful save. */
    public long lastSave() {
        return lastSave;
    }

    // ---- start-up -------------------------------------------------------------------------------

    /**
     * Start-up, on the executor before clients are served: loads the data set (the AOF with
     * appendonly yes, else the RDB file) when {@code load} is true, then opens the AOF.
     *
     * @throws PersistenceException when the files exist but cannot be loaded: never start empty then
     */
    public void startUp(boolean load) {
        engine.keyspace().setLoading(true);
        engine.setPollingWhileLoading(true);
        try {
            if (load) loadDataSet();
        } finally {
            engine.setPollingWhileLoading(false);
            engine.keyspace().setLoading(false);
            abandonStartUpLoad();
        }
        // what loading counted is not activity of this run
        engine.resetStats();
        engine.dirty = 0;
        if (config.getBool("appendonly")) aof.openAtStartup();
        started = true;
    }

    /**
     * An RDB load whose decoding began before the executor was ready ({@link #beginStartUpLoad}):
     * the RDB file or the AOF's RDB base, the stream and the decoding thread, and what ends the
     * host's loading scope.
     */
    static final class EarlyLoad {
        final long startNanos;
        final Path path;
        /** The AOF's base (the AOF load takes it), not the RDB file. */
        final boolean aofBase;
        final InputStream file;
        final RdbIn in;
        final RdbLoader loader;
        final RdbLoader.Decoding decoding;
        final Runnable exitScope;

        EarlyLoad(long startNanos, Path path, boolean aofBase, InputStream file, RdbIn in, RdbLoader loader,
                  RdbLoader.Decoding decoding, Runnable exitScope) {
            this.startNanos = startNanos;
            this.path = path;
            this.aofBase = aofBase;
            this.file = file;
            this.in = in;
            this.loader = loader;
            this.decoding = decoding;
            this.exitScope = exitScope;
        }
    }

    private EarlyLoad earlyLoad;

    /**
     * Decoded batches a start-up load may queue before its keys are inserted: enough for the
     * 50-100 ms the standalone server's event loop takes to get ready, as far as this machine
     * decodes; the decoding thread then waits.
     */
    private static final int EARLY_QUEUED_BATCHES = 2048;

    /**
     * The standalone server's start, before the executor is attached: begins decoding the RDB
     * file that {@link #startUp startUp(true)} will load, or with appendonly yes the AOF's RDB
     * base, on the decoding thread, so that the load overlaps setting up the event loop and
     * listeners (the keys still go into the tables on the executor, in startUp; an AOF's
     * incremental files are replayed there after its base). Only for a file big enough to be
     * decoded on a thread of its own; a file that cannot be read now, or an AOF directory that is
     * anything but the usual, is left to startUp to load and report.
     */
    public void beginStartUpLoad() {
        if (earlyLoad != null) return;
        long t0 = System.nanoTime();
        boolean aofBase = config.getBool("appendonly");
        Path p = aofBase ? aof.startUpBase() : rdbPath();
        if (p == null) return;
        long size;
        InputStream is;
        try {
            size = Files.size(p);
            if (!RdbLoader.decodesAhead(size)) return;
            is = Files.newInputStream(p);
        } catch (IOException e) {
            return;
        }
        resetLoadingInfo(size);
        RdbLoader loader = new RdbLoader(engine, functions, aofBase, false);
        // (an AOF's base is always checked against its checksum, as Aof reads it)
        RdbIn in = new RdbIn(new java.io.BufferedInputStream(is, 1 << 16), aofBase || config.getBool("rdbchecksum"));
        if (aofBase) log.notice("Reading RDB base file on AOF loading...");
        RdbLoader.Decoding decoding = loader.startDecoding(in, size, aofBase ? "AOF base" : "RDB", EARLY_QUEUED_BATCHES);
        // (the scope after the decoding began: the standalone server's takes 10-20 ms to set)
        earlyLoad = new EarlyLoad(t0, p, aofBase, is, in, loader, decoding, loadingScope.enter(size));
    }

    /**
     * The early decoding of the AOF base file p ({@link #beginStartUpLoad}), for the AOF load to
     * finish; null if none began for that file. It stays registered, so that startUp's end still
     * closes it and leaves the loading scope.
     */
    EarlyLoad earlyAofBase(Path p) {
        EarlyLoad e = earlyLoad;
        return e != null && e.aofBase && e.path.equals(p) ? e : null;
    }

    /** Whether {@link #beginStartUpLoad} began decoding a file that startUp has not loaded yet. */
    public boolean startUpLoadBegun() {
        return earlyLoad != null;
    }

    /** Stops an early decoding that startUp did not take (the start failed before the load). */
    private void abandonStartUpLoad() {
        EarlyLoad e = earlyLoad;
        if (e == null) return;
        earlyLoad = null;
        e.decoding.cancel();
        try {
            e.file.close();
        } catch (IOException ignored) {
            // read-only: nothing to lose
        }
        if (e.exitScope != null) e.exitScope.run();
    }

    /** Inserts the keys of an early-started load ({@link #beginStartUpLoad}) as they come. */
    private void finishStartUpLoad() {
        EarlyLoad e = earlyLoad;
        try {
            e.loader.finish(e.decoding);
            loadKeysLoaded = e.loader.keysLoaded;
            loadKeysExpired = e.loader.keysExpired;
            logRdbLoaded(e.startNanos);
        } catch (RdbException | java.io.UncheckedIOException ex) {
            throw rdbLoadFailed(e.path, ex);
        } finally {
            abandonStartUpLoad(); // (done with it: the file closed, the scope left)
        }
    }

    private void loadDataSet() {
        if (earlyLoad != null && !earlyLoad.aofBase) {
            finishStartUpLoad();
            return;
        }
        long t0 = earlyLoad != null ? earlyLoad.startNanos : System.nanoTime(); // (the AOF's base decoding since then)
        if (config.getBool("appendonly")) {
            if (aof.load()) {
                log.notice(String.format(Locale.ROOT, "DB loaded from append only file: %.3f seconds",
                        (System.nanoTime() - t0) / 1e9));
            }
            return;
        }
        Path p = rdbPath();
        long size;
        try {
            size = Files.size(p);
        } catch (NoSuchFileException e) {
            return;
        } catch (IOException e) {
            throw new PersistenceException("Fatal error loading the DB: " + e.getMessage() + ". Exiting.", e);
        }
        try {
            loadRdb(p, size, false);
            logRdbLoaded(t0);
        } catch (RdbException | java.io.UncheckedIOException e) {
            throw rdbLoadFailed(p, e);
        } catch (IOException e) {
            throw new PersistenceException("Fatal error loading the DB: " + e.getMessage() + ". Exiting.", e);
        }
    }

    private void logRdbLoaded(long startNanos) {
        log.notice(String.format(Locale.ROOT, "DB loaded from disk: %.3f seconds", (System.nanoTime() - startNanos) / 1e9));
    }

    /** A start-up RDB load that failed (bad data, or the file could not be read): the server does not start. */
    private PersistenceException rdbLoadFailed(Path p, RuntimeException e) {
        if (e instanceof java.io.UncheckedIOException) {
            return new PersistenceException("Fatal error loading the DB: " + e.getCause().getMessage() + ". Exiting.", e);
        }
        // Redis's rdbReportError lines, which tools and Redis's tests look for
        log.warning("Internal error in RDB reading offset 0, function at rdb.c:0 -> " + e.getMessage());
        log.warning("Terminating server after rdb file reading failure.");
        return new PersistenceException("Error loading the RDB file " + p + ", not starting with a partial data set: "
                + e.getMessage(), e);
    }

    // ---- a replica's full synchronization ---------------------------------------------------------

    /**
     * Replaces the data set and the function libraries with the master's RDB (Redis's
     * readSyncBulkPayload, loading from disk): a running BGSAVE goes first, as its data is no
     * longer this server's; the file received becomes this server's RDB file (dbfilename, as
     * Redis renames it: a replica restarted on it continues from the master's offset), removed
     * after the load when rdb-del-sync-files is on and persistence off; clients get -LOADING
     * meanwhile; with the AOF on, an AOF rewrite follows (what the file loaded never passed
     * through the AOF). Throws, having logged why, when the file cannot be kept or loaded.
     */
    public void loadFromMaster(Path received) throws IOException {
        killRdbJob();
        log.notice("MASTER <-> REPLICA sync: Flushing old data");
        emptyDataSet();
        log.notice("MASTER <-> REPLICA sync: Loading DB in memory");
        Path rdb = rdbPath();
        try {
            Files.move(received, rdb, java.nio.file.StandardCopyOption.ATOMIC_MOVE, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            log.warning("Failed trying to rename the temp DB into " + rdb.getFileName()
                    + " in MASTER <-> REPLICA synchronization: " + e.getMessage());
            throw e;
        }
        FileSink.fsyncDirectory(rdb.toAbsolutePath().getParent());
        engine.keyspace().setLoading(true);
        engine.setPollingWhileLoading(true);
        try {
            loadRdb(rdb, Files.size(rdb), false);
        } catch (ShutdownWhileLoading e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            String why = e instanceof java.io.UncheckedIOException ? e.getCause().getMessage() : e.getMessage();
            log.warning("Failed trying to load the MASTER synchronization DB from disk: " + why);
            throw new IOException(why, e);
        } finally {
            engine.setPollingWhileLoading(false);
            engine.keyspace().setLoading(false);
            removeSyncFileIfUnwanted(rdb);
        }
        engine.dirty = 0;
        if (aof.enabled()) aof.rewriteScheduled = true;
    }

    /**
     * repl-diskless-load (Redis's readSyncBulkPayload with use_diskless_load): loads the master's
     * RDB as it arrives on the link, {@code size} bytes of it, or up to the 40-byte {@code eofMark}
     * that follows it when size is unknown (-1). Without {@code swapdb} the data set is emptied
     * first and a failed load leaves it empty; with it the RDB goes to detached databases (its
     * libraries aside) that replace the data set only once the load succeeded, and a failed load
     * leaves the old one; {@code async} (swapdb from the master this replica already followed)
     * lets the clients use the old data set meanwhile instead of getting -LOADING. Throws, having
     * logged why, when the load failed.
     */
    public void loadFromMasterSocket(InputStream link, long size, byte[] eofMark, boolean swapdb, boolean async)
            throws IOException {
        killRdbJob();
        Keyspace ks = engine.keyspace();
        Db[] loaded = swapdb ? ks.detachedDbs() : null;
        List<byte[]> libraries = swapdb ? new java.util.ArrayList<>() : null;
        if (!swapdb) {
            log.notice("MASTER <-> REPLICA sync: Flushing old data");
            emptyDataSet();
        }
        log.notice("MASTER <-> REPLICA sync: Loading DB in memory");
        if (async) engine.setAsyncLoading(true);
        else ks.setLoading(true);
        engine.setPollingWhileLoading(true);
        boolean done = false;
        try {
            RdbIn in = new RdbIn(link, config.getBool("rdbchecksum"));
            RdbLoader loader = new RdbLoader(engine, functions, false, false).into(loaded, libraries);
            loading(Math.max(0, size), () -> loader.load(in, Math.max(0, size), "RDB"));
            loadKeysLoaded = loader.keysLoaded;
            loadKeysExpired = loader.keysExpired;
            if (eofMark != null) {
                byte[] mark = new byte[eofMark.length];
                try {
                    in.readFully(mark, 0, mark.length);
                } catch (RdbException e) {
                    mark = null;
                }
                if (!java.util.Arrays.equals(mark, eofMark)) {
                    log.warning("Replication stream EOF marker is broken");
                    throw new IOException("Replication stream EOF marker is broken");
                }
            }
            done = true;
        } catch (ShutdownWhileLoading e) {
            throw e;
        } catch (RuntimeException e) {
            // Redis's rdbReportError lines for a load from the socket: a short read is the link's
            // failure, the rest a corrupt RDB (where Redis exits; here the link starts again)
            boolean shortRead = e instanceof java.io.UncheckedIOException;
            String why = shortRead ? e.getCause().getMessage() : e.getMessage();
            log.warning("Internal error in RDB reading offset 0, function at rdb.c:0 -> "
                    + (shortRead ? "Unexpected EOF reading RDB file. Failure loading rdb format from socket, assuming "
                    + "connection error, resuming operation." : why + ". Failure loading rdb format"));
            log.warning("Failed trying to load the MASTER synchronization DB from socket: " + why);
            throw new IOException(why, e);
        } finally {
            engine.setPollingWhileLoading(false);
            engine.setAsyncLoading(false);
            ks.setLoading(false);
            if (!done) {
                if (swapdb) {
                    ks.discardDetached(loaded);
                    log.notice("MASTER <-> REPLICA sync: Discarding temporary DB in background");
                } else {
                    emptyDataSet(); // no half-loaded data set
                }
            }
        }
        if (swapdb) {
            replaceLibraries(libraries, loaded);
            log.notice("MASTER <-> REPLICA sync: Swapping active DB with loaded DB");
            engine.swapInLoadedDatabases(loaded);
            ks.discardDetached(loaded);
            log.notice("MASTER <-> REPLICA sync: Discarding old DB in background");
        }
        // the data set changed without a save of it (Redis's dirty++ after a diskless load)
        engine.dirty++;
        if (aof.enabled()) aof.rewriteScheduled = true;
    }

    /** The libraries of a swapdb load replace the current ones; if one cannot be loaded, nothing changes. */
    private void replaceLibraries(List<byte[]> libraries, Db[] loaded) throws IOException {
        if (functions == null) return;
        List<byte[]> old = functions.libraries();
        functions.flush();
        try {
            for (byte[] code : libraries) functions.load(code, false);
        } catch (RuntimeException e) {
            functions.flush();
            for (byte[] code : old) functions.load(code, false);
            engine.keyspace().discardDetached(loaded);
            log.warning("Failed trying to load the MASTER synchronization DB from socket: Failed loading library, "
                    + e.getMessage());
            log.notice("MASTER <-> REPLICA sync: Discarding temporary DB in background");
            throw new IOException(e.getMessage(), e);
        }
    }

    /** rdb-del-sync-files: a replica without persistence keeps no copy of its master's data on disk. */
    private void removeSyncFileIfUnwanted(Path rdb) {
        if (!config.getBool("rdb-del-sync-files") || saveParams.length > 0 || aof.enabled()) return;
        log.notice("Removing the RDB file obtained from the master. This replica has persistence disabled");
        try {
            Files.deleteIfExists(rdb);
        } catch (IOException e) {
            log.warning("Failed removing " + rdb + ": " + e.getMessage());
        }
    }

    // ---- DEBUG RELOAD ---------------------------------------------------------------------------

    /**
     * DEBUG RELOAD's load, on the executor, after its command saved the RDB file (NOSAVE aside):
     * empties the databases and the function libraries (unless {@code flush} is false), then loads
     * the file back. With {@code merge}, loaded keys and libraries replace those of the same name;
     * without it a name already taken fails the load. Returns null, or the error to reply.
     *
     * @throws ShutdownWhileLoading SHUTDOWN or a signal came while clients were served during the load
     */
    public String debugReload(boolean flush, boolean merge) {
        if (flush) emptyDataSet();
        Path p = rdbPath();
        engine.keyspace().setLoading(true);
        try {
            loadRdb(p, Files.size(p), merge);
        } catch (ShutdownWhileLoading e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            log.warning("Failed loading the RDB file " + p + " for DEBUG RELOAD: "
                    + (e instanceof java.io.UncheckedIOException ? e.getCause().getMessage() : e.getMessage()));
            return "ERR Error trying to load the RDB dump";
        } finally {
            engine.keyspace().setLoading(false);
        }
        log.warning("DB reloaded by DEBUG RELOAD");
        return null;
    }

    /**
     * DEBUG LOADAOF: writes and syncs what the AOF buffer holds, empties the data set and the
     * function libraries, and replays the AOF files into memory (not into the AOF again); with
     * appendonly no, the files a BGREWRITEAOF wrote. Returns null, or the error to reply. Redis
     * exits when there is no AOF to load or it cannot be loaded; Spinel refuses without AOF
     * files and reports a failed load.
     *
     * @throws ShutdownWhileLoading SHUTDOWN or a signal came while clients were served during the load
     */
    public String debugLoadAof() {
        if (aof.enabled()) aof.flush(true);
        else if (!aof.hasManifest()) return "ERR No AOF files to load";
        emptyDataSet();
        engine.keyspace().setLoading(true);
        try {
            engine.withoutPropagation(aof::load);
        } catch (ShutdownWhileLoading e) {
            throw e;
        } catch (RuntimeException e) {
            log.warning("Failed loading the AOF for DEBUG LOADAOF: " + e.getMessage());
            return "ERR Error trying to load the AOF files";
        } finally {
            engine.keyspace().setLoading(false);
        }
        engine.dirty = 0;
        log.warning("Append Only File loaded by DEBUG LOADAOF");
        return null;
    }

    /**
     * Loads the RDB file p of that size into the keyspace (start-up and DEBUG RELOAD) and keeps
     * its counts for INFO; {@code replaceExisting} lets its keys and libraries replace those of
     * the same name.
     */
    private void loadRdb(Path p, long size, boolean replaceExisting) throws IOException {
        try (InputStream is = Files.newInputStream(p)) {
            RdbLoader loader = new RdbLoader(engine, functions, false, replaceExisting);
            RdbIn in = new RdbIn(new java.io.BufferedInputStream(is, 1 << 16), config.getBool("rdbchecksum"));
            loading(size, () -> loader.load(in, size, "RDB"));
            loadKeysLoaded = loader.keysLoaded;
            loadKeysExpired = loader.keysExpired;
        }
    }

    /** Empties every database and the function libraries (Redis's emptyData, for DEBUG). */
    private void emptyDataSet() {
        engine.beforeFlush(-1);
        for (int i = 0; i < engine.keyspace().count(); i++) engine.keyspace().db(i).clear();
        if (functions != null) functions.flush();
    }

    // ---- SAVE -----------------------------------------------------------------------------------

    /** Where a synchronous save writes before its rename (Redis's temp-PID.rdb). */
    private Path saveTempFile() {
        return dir().resolve("temp-" + pid() + ".rdb");
    }

    /**
     * A second SIGINT ends the process in the middle of a shutdown's save: its temporary file
     * goes (Redis's rdbRemoveTempFile). Any thread.
     */
    public void removeShutdownTempFile() {
        try {
            Files.deleteIfExists(saveTempFile());
        } catch (IOException | RuntimeException ignored) {
            // exiting anyway
        }
    }

    /** A synchronous save of the RDB file (SAVE, FLUSHALL, shutdown). Returns whether it worked. */
    public boolean saveNow() {
        Path temp = saveTempFile();
        FileSink sink = null;
        Snapshot s = null;
        try {
            sink = new FileSink(temp, rdbPath(), true, config.getBool("rdbchecksum"), false);
            s = new Snapshot(engine, Snapshot.Format.RDB, false, sink, functionCodes());
            s.begin();
            s.step(Long.MAX_VALUE, Long.MAX_VALUE);
            sink.finish();
        } catch (IOException | RuntimeException e) {
            if (s != null) s.abort();
            if (sink != null) sink.discard();
            log.warning("Write error saving DB on disk: " + e.getMessage());
            return false;
        }
        log.notice("DB saved on disk");
        engine.dirty = 0;
        lastSave = System.currentTimeMillis() / 1000;
        lastBgsaveOk = true;
        return true;
    }

    /** Writes an AOF base of the current data synchronously (start-up with an empty AOF); returns its size. */
    long writeAofBaseNow(Path target) throws IOException {
        boolean preamble = config.getBool("aof-use-rdb-preamble");
        Path temp = dir().resolve("temp-rewriteaof-" + pid() + ".aof");
        FileSink sink = new FileSink(temp, target, preamble, config.getBool("rdbchecksum"), false);
        Snapshot s = new Snapshot(engine, preamble ? Snapshot.Format.RDB : Snapshot.Format.COMMANDS, true, sink,
                functionCodes());
        try {
            s.begin();
            s.step(Long.MAX_VALUE, Long.MAX_VALUE);
            sink.finish();
        } catch (IOException | RuntimeException e) {
            s.abort();
            sink.discard();
            throw e;
        }
        return Files.size(target);
    }

    boolean rdbJobRunning() {
        return job != null && job.rdb;
    }

    boolean aofJobRunning() {
        return job != null && !job.rdb;
    }

    boolean backgroundJobRunning() {
        return job != null;
    }

    void countRdbSave() {
        rdbSaves++;
    }

    void scheduleBgsave() {
        bgsaveScheduled = true;
    }

    /** CONFIG RESETSTAT: the counters Redis's resetServerStats clears. */
    public void resetStats() {
        rdbSaves = 0;
        totalForks = 0;
        latestForkMicros = 0;
        aof.rewrites = 0;
        aof.consecutiveFailures = 0;
    }

    /** INFO stats: latest_fork_usec and total_forks. */
    public void forkStats(StringBuilder sb) {
        field(sb, "latest_fork_usec", latestForkMicros);
        field(sb, "total_forks", totalForks);
    }

    // ---- background jobs --------------------------------------------------------------------------

    /** Starts a BGSAVE (Redis's rdbSaveBackground). Returns false if it could not start. */
    boolean startBgsave() {
        if (job != null) return false;
        rdbSaves++;
        dirtyBeforeBgsave = engine.dirty;
        lastBgsaveTry = System.currentTimeMillis() / 1000;
        Path temp = dir().resolve("temp-bgsave-" + pid() + "-" + (++jobSeq) + ".rdb");
        FileSink sink;
        try {
            sink = new FileSink(temp, rdbPath(), true, config.getBool("rdbchecksum"), true);
        } catch (IOException e) {
            lastBgsaveOk = false;
            log.warning("Can't save in background: " + e.getMessage());
            return false;
        }
        Snapshot s = new Snapshot(engine, Snapshot.Format.RDB, false, sink, functionCodes());
        Job j = new Job(true, s, sink, temp);
        if (!begin(j)) {
            lastBgsaveOk = false;
            return false;
        }
        rdbSaveTimeStart = System.currentTimeMillis() / 1000;
        log.notice("Background saving started");
        return true;
    }

    /**
     * Where a snapshot streamed to replicas goes (repl-diskless-sync): the replication hands each
     * chunk to the replicas' connections, on the executor.
     */
    public interface SocketTarget {
        /** The next len bytes of the RDB, b's content copied (the array is reused afterwards). */
        void write(byte[] b, int len);

        /** Bytes handed over that the slowest replica has not taken yet: serialization waits for it. */
        long backlog();

        /** After each slice: what was handed over goes out. */
        void flush();
    }

    /**
     * Starts a snapshot for replicas, written in slices as BGSAVE's: to a temporary file handed
     * to {@code done} when complete, or with {@code sockets} straight to the replicas' sockets
     * (done then gets a null file); done gets the error instead when the snapshot fails or is
     * killed (FLUSHALL, shutdown, {@link #killReplicationSnapshot}), on the executor. The RDB file
     * itself is not touched. Returns false when another job runs: the caller tries again later.
     */
    public boolean startReplicationSnapshot(SocketTarget sockets, BiConsumer<Path, Throwable> done,
            boolean excludeData, boolean excludeFunctions) {
        if (job != null) return false;
        Path temp = null;
        JobSink sink;
        if (sockets != null) {
            sink = new SocketSink(sockets, config.getBool("rdbchecksum"));
        } else {
            temp = dir().resolve("temp-repl-" + pid() + "-" + (++jobSeq) + ".rdb");
            try {
                sink = new FileSink(temp, null, true, config.getBool("rdbchecksum"), true);
            } catch (IOException e) {
                log.warning("Can't start the snapshot for replicas: " + e.getMessage());
                return false;
            }
        }
        Snapshot s = new Snapshot(engine, Snapshot.Format.RDB, false, sink,
                excludeFunctions ? List.of() : functionCodes());
        if (excludeData) s.withoutKeys();
        Job j = new Job(true, s, sink, temp);
        j.forReplicas = done;
        return begin(j);
    }

    /** Whether a BGSAVE or AOF rewrite (or a snapshot for replicas) runs. */
    public boolean jobRunning() {
        return job != null;
    }

    /** The replicas a snapshot was streamed to are gone (Redis kills its child then). */
    public void killReplicationSnapshot() {
        if (job != null && job.forReplicas != null) killRdbJob();
    }

    /** Starts an AOF rewrite (Redis's rewriteAppendOnlyFileBackground). Returns false if it could not start. */
    boolean startAofRewrite() {
        if (job != null) return false;
        if (!aof.prepareRewrite()) return false;
        boolean preamble = config.getBool("aof-use-rdb-preamble");
        Path temp = dir().resolve("temp-rewriteaof-bg-" + pid() + "-" + (++jobSeq) + ".aof");
        FileSink sink;
        try {
            sink = new FileSink(temp, null, preamble, config.getBool("rdbchecksum"), true);
        } catch (IOException e) {
            log.warning("Can't rewrite append only file in background: " + e.getMessage());
            aof.rewriteFailed(null);
            return false;
        }
        Snapshot s = new Snapshot(engine, preamble ? Snapshot.Format.RDB : Snapshot.Format.COMMANDS, true, sink,
                functionCodes());
        Job j = new Job(false, s, sink, temp);
        if (!begin(j)) {
            aof.rewriteFailed(null);
            return false;
        }
        log.notice("Background append only file rewriting started");
        return true;
    }

    private boolean begin(Job j) {
        long t0 = System.nanoTime();
        try {
            j.snapshot.begin();
        } catch (IOException | RuntimeException e) {
            j.snapshot.abort();
            j.sink.discard();
            log.warning("Can't start the background snapshot: " + e.getMessage());
            return false;
        }
        totalForks++;
        latestForkMicros = (System.nanoTime() - t0) / 1000;
        engine.latencySample("fork", latestForkMicros / 1000);
        job = j;
        j.sink.startBackground(j.rdb ? "spinel-bgsave" : "spinel-aof-rewrite", err -> {
            try {
                engine.loop().execute(() -> finished(j, err));
            } catch (RejectedExecutionException ignored) {
                // the server is stopping; the job no longer matters
            }
        });
        schedule(j, 0);
        return true;
    }

    private void schedule(Job j, long delayNanos) {
        try {
            j.next = engine.loop().schedule(() -> step(j), delayNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException ignored) {
            // the server is stopping
        }
    }

    /** One slice of serialization between client batches. */
    private void step(Job j) {
        if (j.over || j.serialized) return;
        if (j.snapshot.backlog() > j.sink.maxBacklog()) {
            schedule(j, 1_000_000);
            return;
        }
        long delayMicros = config.getLong("rdb-key-save-delay");
        try {
            boolean done = j.snapshot.step(System.nanoTime() + SLICE_NANOS, delayMicros != 0 ? 1 : Long.MAX_VALUE);
            if (done) {
                j.serialized = true;
                j.sink.finishBackground();
                return;
            }
            j.sink.sliceDone();
        } catch (IOException | RuntimeException e) {
            log.warning("Error while serializing the snapshot: " + e);
            kill(j);
            finished(j, e);
            return;
        }
        long commands = engine.stats().commandsProcessed;
        boolean clientsWaiting = commands != j.commandsSeen;
        j.commandsSeen = commands;
        schedule(j, delayMicros > 0 ? delayMicros * 1000 : clientsWaiting ? CLIENT_SHARE_NANOS : 0);
    }

    /** Completion, on the executor: success (err null) or failure of the file writing. */
    private void finished(Job j, Throwable err) {
        if (job != j) return; // killed meanwhile
        job = null;
        j.over = true;
        j.snapshot.abort();
        if (j.forReplicas != null) {
            j.forReplicas.accept(err == null ? j.temp : null, err);
            return;
        }
        long now = System.currentTimeMillis() / 1000;
        if (j.rdb) {
            if (err == null) {
                log.notice("Background saving terminated with success");
                engine.dirty -= dirtyBeforeBgsave;
                lastSave = now;
                lastBgsaveOk = true;
            } else {
                log.warning("Background saving error: " + err.getMessage());
                lastBgsaveOk = false;
            }
            rdbSaveTimeLast = now - rdbSaveTimeStart;
            rdbSaveTimeStart = -1;
        } else {
            if (err == null) {
                log.notice("Background AOF rewrite terminated with success");
                aof.rewriteSucceeded(j.temp);
            } else {
                log.warning("Background AOF rewrite terminated with error: " + err.getMessage());
                aof.rewriteFailed(j.temp);
            }
        }
    }

    /** Stops a job, deleting its temporary file. */
    private void kill(Job j) {
        j.over = true;
        if (j.next != null) j.next.cancel(false);
        j.snapshot.abort();
        j.sink.abortBackground();
    }

    /** Kills a running BGSAVE (FLUSHALL, shutdown); not counted as a failure. */
    void killRdbJob() {
        if (job == null || !job.rdb) return;
        Job j = job;
        kill(j);
        job = null;
        if (j.forReplicas != null) {
            j.forReplicas.accept(null, new IOException("the snapshot was killed"));
            return;
        }
        rdbSaveTimeLast = System.currentTimeMillis() / 1000 - rdbSaveTimeStart;
        rdbSaveTimeStart = -1;
    }

    /** Kills a running AOF rewrite (appendonly no, shutdown); not counted as a failure. */
    void killAofRewrite() {
        if (job == null || job.rdb) return;
        // Redis's words, which its tests and log scrapers look for (here the child is a job of this process)
        log.notice("Killing running AOF rewrite child: its job in this process");
        kill(job);
        job = null;
        aof.rewriteKilled();
    }

    // ---- periodic work ----------------------------------------------------------------------------

    /** From the engine's cron: save points, scheduled jobs, automatic AOF rewrites. */
    public void cron() {
        migrateCache.closeIdle(System.currentTimeMillis());
        if (!started) return;
        long now = System.currentTimeMillis() / 1000;
        if (job == null && aof.rewriteScheduled && !aof.rewriteLimited(now)) startAofRewrite();
        if (job == null && bgsaveScheduled && (now - lastBgsaveTry > BGSAVE_RETRY_DELAY || lastBgsaveOk)) {
            if (startBgsave()) bgsaveScheduled = false;
        }
        if (job == null) {
            long[] sp = saveParams;
            for (int i = 0; i + 1 < sp.length; i += 2) {
                if (engine.dirty >= sp[i + 1] && now - lastSave > sp[i]
                        && (now - lastBgsaveTry > BGSAVE_RETRY_DELAY || lastBgsaveOk)) {
                    log.notice(sp[i + 1] + " changes in " + sp[i] + " seconds. Saving...");
                    startBgsave();
                    break;
                }
            }
        }
        if (job == null && aof.autoRewriteDue(now)) startAofRewrite();
        if (aof.enabled() && !aof.lastWriteOk) aof.flush(false); // retry after a write error
    }

    /** Before a batch of replies is sent: the AOF buffer reaches the file (and the disk with always). */
    public void beforeReplies() {
        if (aof.enabled()) aof.flush(false);
    }

    /**
     * The error writes (and PING) get while the data cannot be persisted (Redis's
     * writeCommandsDeniedByDiskError), or null.
     */
    public String writeDeniedReason() {
        if (!lastBgsaveOk && saveParams.length > 0 && config.getBool("stop-writes-on-bgsave-error")) return MISCONF_RDB;
        if (aof.enabled() && !aof.writeOk()) return "MISCONF Errors writing to the AOF file: " + aof.writeError();
        return null;
    }

    /** FLUSHALL: a running BGSAVE is pointless now; with save points the empty data set is saved at once. */
    public void afterFlushAll() {
        killRdbJob();
        if (saveParams.length > 0) saveNow();
    }

    /**
     * The persistence part of a shutdown (Redis's finishShutdown): stop background jobs, fsync
     * the AOF, save the RDB when save points exist (or SAVE was asked) unless NOSAVE. Returns
     * null to go on, or the error reply that cancels the shutdown.
     */
    public String shutdown(boolean save, boolean nosave, boolean force) {
        // Before start-up finished loading (a corrupt file, SHUTDOWN from a client while loading)
        // the data set is partial: it must not be saved over the files it came from, and the AOF
        // is not open yet.
        if (!started) {
            abandonStartUpLoad();
            return null;
        }
        engine.killDiscardedSession();
        if (job != null && job.rdb) {
            log.warning("There is a child saving an .rdb. Killing it!");
            killRdbJob();
        }
        if (job != null && !job.rdb) {
            if (aof.state == Aof.State.WAIT_REWRITE) {
                if (force) {
                    log.warning("Writing initial AOF. Exit anyway.");
                } else {
                    log.warning("Writing initial AOF, can't exit.");
                    return shutdownError();
                }
            }
            log.warning("There is a child rewriting the AOF. Killing it!");
            killAofRewrite();
        }
        if (aof.enabled()) {
            log.notice("Calling fsync() on the AOF file.");
            aof.flush(true);
        }
        if ((saveParams.length > 0 && !nosave) || save) {
            log.notice("Saving the final RDB snapshot before exiting.");
            if (!saveNow()) {
                if (force) {
                    log.warning("Error trying to save the DB. Exit anyway.");
                } else {
                    log.warning("Error trying to save the DB, can't exit.");
                    return shutdownError();
                }
            }
        }
        aof.stop();
        return null;
    }

    private String shutdownError() {
        log.warning("Errors trying to shut down the server. Check the logs for more information.");
        return "ERR Errors trying to SHUTDOWN. Check logs.";
    }

    /** The engine stops: background threads end (files already durable stay as they are). */
    public void stop() {
        migrateCache.closeAll();
        if (job != null) {
            Job j = job;
            kill(j);
            job = null;
            j.sink.join(2000);
        }
        aof.stopBio();
    }

    // ---- INFO ---------------------------------------------------------------------------------

    private static void field(StringBuilder sb, String name, Object value) {
        sb.append(name).append(':').append(value).append("\r\n");
    }

    /** The "# Persistence" section of INFO, with Redis's fields. */
    public void info(StringBuilder sb) {
        long now = System.currentTimeMillis() / 1000;
        boolean rdbJob = job != null && job.rdb;
        boolean aofJob = job != null && !job.rdb;
        sb.append("# Persistence\r\n");
        field(sb, "loading", engine.keyspace().isLoading() ? 1 : 0);
        field(sb, "async_loading", engine.asyncLoading() ? 1 : 0);
        field(sb, "current_cow_peak", 0);
        field(sb, "current_cow_size", 0);
        field(sb, "current_cow_size_age", 0);
        double perc = job != null && job.snapshot.keysTotal() > 0
                ? job.snapshot.keysDone() * 100.0 / job.snapshot.keysTotal() : 0;
        field(sb, "current_fork_perc", io.spinel.core.util.Doubles.fixed(perc, 2));
        field(sb, "current_save_keys_processed", job != null ? job.snapshot.keysDone() : 0);
        field(sb, "current_save_keys_total", job != null ? job.snapshot.keysTotal() : 0);
        field(sb, "rdb_changes_since_last_save", engine.dirty);
        field(sb, "rdb_bgsave_in_progress", rdbJob ? 1 : 0);
        field(sb, "rdb_last_save_time", lastSave);
        field(sb, "rdb_last_bgsave_status", lastBgsaveOk ? "ok" : "err");
        field(sb, "rdb_last_bgsave_time_sec", rdbSaveTimeLast);
        field(sb, "rdb_current_bgsave_time_sec", rdbJob ? now - rdbSaveTimeStart : -1);
        field(sb, "rdb_saves", rdbSaves);
        field(sb, "rdb_last_cow_size", 0);
        field(sb, "rdb_last_load_keys_expired", loadKeysExpired);
        field(sb, "rdb_last_load_keys_loaded", loadKeysLoaded);
        field(sb, "aof_enabled", aof.enabled() ? 1 : 0);
        field(sb, "aof_rewrite_in_progress", aofJob ? 1 : 0);
        field(sb, "aof_rewrite_scheduled", aof.rewriteScheduled ? 1 : 0);
        field(sb, "aof_last_rewrite_time_sec", aof.rewriteTimeLast);
        field(sb, "aof_current_rewrite_time_sec", aofJob && aof.rewriteTimeStart >= 0 ? now - aof.rewriteTimeStart : -1);
        field(sb, "aof_last_bgrewrite_status", aof.lastRewriteOk ? "ok" : "err");
        field(sb, "aof_rewrites", aof.rewrites);
        field(sb, "aof_rewrites_consecutive_failures", aof.consecutiveFailures);
        field(sb, "aof_last_write_status", aof.writeOk() ? "ok" : "err");
        field(sb, "aof_last_cow_size", 0);
        field(sb, "module_fork_in_progress", 0);
        field(sb, "module_fork_last_cow_size", 0);
        if (config.getBool("appendonly")) {
            field(sb, "aof_current_size", aof.currentSize);
            field(sb, "aof_base_size", aof.baseSize);
            field(sb, "aof_pending_rewrite", aof.rewriteScheduled ? 1 : 0);
            field(sb, "aof_buffer_length", aof.bufferLength());
            field(sb, "aof_pending_bio_fsync", 0);
            field(sb, "aof_delayed_fsync", 0);
        }
        if (engine.loading()) {
            long loaded = loadingLoadedBytes;
            double loadedPerc = loadingTotalBytes > 0 ? loaded * 100.0 / loadingTotalBytes : 0;
            long remaining = loadingTotalBytes > 0 ? loadingTotalBytes - loaded : 1;
            long elapsed = now - loadingStartTime;
            field(sb, "loading_start_time", loadingStartTime);
            field(sb, "loading_total_bytes", loadingTotalBytes);
            field(sb, "loading_rdb_used_mem", loadingRdbUsedMem);
            field(sb, "loading_loaded_bytes", loaded);
            field(sb, "loading_loaded_perc", io.spinel.core.util.Doubles.fixed(loadedPerc, 2));
            field(sb, "loading_eta_seconds", elapsed == 0 ? 1 : elapsed * remaining / (loaded + 1));
        }
    }

    /** What the AOF's buffer takes (INFO mem_aof_buffer; maxmemory does not count it). */
    /** DEBUG AOF-FLUSH-SLEEP: sleep this long (µs) before each write of the AOF buffer. */
    public void aofFlushSleep(int micros) {
        aof.flushSleepMicros = Math.max(0, micros);
    }

    public long aofBufferMemory() {
        return aof.bufferMemory();
    }

    /** MIGRATE's connections kept for the next MIGRATE to the same target (INFO migrate_cached_sockets). */
    public int migrateCachedSockets() {
        return migrateCache.size();
    }
}
