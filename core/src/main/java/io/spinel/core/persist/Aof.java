package io.spinel.core.persist;

import io.spinel.core.Client;
import io.spinel.core.Engine;
import io.spinel.core.Log;
import io.spinel.core.config.Config;
import io.spinel.core.util.Bytes;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The append-only file in Redis 7's multi-part layout: in {@code appenddirname} a base file (an
 * RDB with aof-use-rdb-preamble, else commands), incremental files of commands, and the manifest
 * that lists them. Every write the engine propagates is appended in RESP (with a SELECT when the
 * database changes and, with aof-timestamp-enabled, "#TS:" annotations); the buffer reaches the
 * file before replies are sent, and is fsynced then (always), by a background thread every
 * second (everysec), or when the OS decides (no).
 *
 * <p>A rewrite opens a new incremental file at the moment the snapshot of the new base is taken,
 * so base plus the files after it always describe the data; when the base is complete the
 * manifest switches to it and the files it replaces are deleted.
 */
final class Aof implements Engine.PropagationListener {
    enum State { OFF, ON, WAIT_REWRITE }

    private final Persistence persistence;
    private final Engine engine;
    private final Log log;
    private final Config config;

    State state = State.OFF;
    private AofManifest manifest = new AofManifest();
    /** The file appended to (read by the fsync thread, hence volatile). */
    private volatile FileChannel incr;
    // starts small (it grows to what a turn's writes need and stays): most servers, in-process
    // ones especially, never enable the AOF, and a 64 KB array was a tenth of starting one
    private final RdbOut buf = new RdbOut(1024, false);
    private int selectedDb = -1;
    private long curTimestamp;
    /** Bytes of base plus incremental files (aof_current_size). */
    long currentSize;
    /** Size after the last rewrite or load (aof_rewrite_base_size). */
    long baseSize;
    long lastIncrSize;
    boolean lastWriteOk = true;
    String lastWriteError = "";
    private volatile String fsyncError;
    private final AtomicBoolean unsynced = new AtomicBoolean();
    private ScheduledExecutorService bio;
    private int fsyncPolicy; // 0 no, 1 everysec, 2 always

    // rewrite state and statistics
    boolean rewriteScheduled;
    long rewrites;
    long consecutiveFailures;
    boolean lastRewriteOk = true;
    long rewriteTimeLast = -1;
    long rewriteTimeStart = -1;
    /** Temporary incremental file of a rewrite started by CONFIG SET appendonly yes. */
    private Path tempIncr;

    Aof(Persistence persistence, Engine engine) {
        this.persistence = persistence;
        this.engine = engine;
        this.log = engine.log();
        this.config = engine.config();
        config.listen("appendfsync", o -> fsyncPolicy = o.value().equals("always") ? 2 : o.value().equals("everysec") ? 1 : 0);
    }

    private String fileName() {
        return Config.fileName(config.get("appendfilename"));
    }

    private Path dir() {
        return Path.of(engine.workingDirectory()).resolve(Config.fileName(config.get("appenddirname")));
    }

    boolean enabled() {
        return state != State.OFF;
    }

    long bufferLength() {
        return buf.size();
    }

    /** The buffer's memory while the AOF is on (INFO mem_aof_buffer). */
    long bufferMemory() {
        return enabled() ? buf.array().length : 0;
    }

    boolean writeOk() {
        return lastWriteOk && fsyncError == null;
    }

    String writeError() {
        return fsyncError != null ? fsyncError : lastWriteError;
    }

    // ---- feeding --------------------------------------------------------------------------------

    @Override
    public void propagate(int db, byte[][] argv) {
        if (state == State.OFF || incr == null) return;
        if (config.getBool("aof-timestamp-enabled")) {
            long t = System.currentTimeMillis() / 1000;
            if (t > curTimestamp) {
                curTimestamp = t;
                buf.write(Bytes.ascii("#TS:" + t + "\r\n"));
            }
        }
        if (db != selectedDb) {
            AofFormat.command(buf, AofFormat.SELECT, Bytes.longToBytes(db));
            selectedDb = db;
        }
        AofFormat.command(buf, argv);
    }

    /** DEBUG AOF-FLUSH-SLEEP: microseconds to sleep before each write of the buffer (0: none). */
    int flushSleepMicros;

    private static void sleepMicros(long micros) {
        try {
            Thread.sleep(micros / 1000, (int) (micros % 1000) * 1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Writes the buffer to the current file (Redis's flushAppendOnlyFile), before the replies of
     * the batch leave; with appendfsync always, fsyncs too.
     */
    void flush(boolean forceSync) {
        if (incr == null) return;
        if (buf.size() > 0) {
            // DEBUG AOF-FLUSH-SLEEP: Redis's tests widen the window between a batch's commands and
            // its write, to see that no reply leaves before its write
            if (flushSleepMicros > 0) sleepMicros(flushSleepMicros);
            // latency monitor events of Redis's flushAppendOnlyFile (timed only while the monitor is on)
            boolean timed = engine.latencyMonitorOn();
            String writeEvent = !timed ? null : fsyncPolicy == 1 && unsynced.get() ? "aof-write-pending-fsync"
                    : persistence.backgroundJobRunning() ? "aof-write-active-child" : "aof-write-alone";
            long t0 = timed ? System.nanoTime() : 0;
            try {
                ByteBuffer bb = ByteBuffer.wrap(buf.array(), 0, buf.size());
                while (bb.hasRemaining()) incr.write(bb);
                if (timed) {
                    long ms = (System.nanoTime() - t0) / 1_000_000;
                    engine.latencySample(writeEvent, ms);
                    engine.latencySample("aof-write", ms);
                }
                currentSize += buf.size();
                lastIncrSize += buf.size();
                buf.clear();
                if (!lastWriteOk) {
                    log.warning("AOF write error looks solved, Redis can write again.");
                    lastWriteOk = true;
                }
            } catch (IOException e) {
                if (lastWriteOk) log.warning("Error writing to the AOF file: " + e.getMessage());
                lastWriteOk = false;
                lastWriteError = e.getMessage() == null ? e.toString() : e.getMessage();
                return;
            }
            if (fsyncPolicy == 1) unsynced.set(true);
        }
        if (fsyncPolicy == 2 || forceSync) {
            try {
                long t0 = System.nanoTime();
                incr.force(false);
                if (fsyncPolicy == 2) engine.latencySample("aof-fsync-always", (System.nanoTime() - t0) / 1_000_000);
            } catch (IOException e) {
                lastWriteOk = false;
                lastWriteError = e.getMessage() == null ? e.toString() : e.getMessage();
                log.warning("Can't persist the AOF on disk (fsync): " + lastWriteError);
            }
        }
    }

    private void startBio() {
        if (bio != null) return;
        bio = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "spinel-aof-fsync");
            t.setDaemon(true);
            return t;
        });
        bio.scheduleAtFixedRate(() -> {
            FileChannel ch = incr;
            if (ch != null && unsynced.getAndSet(false)) {
                try {
                    ch.force(false);
                    fsyncError = null;
                } catch (IOException e) {
                    if (ch.isOpen()) fsyncError = e.getMessage() == null ? e.toString() : e.getMessage();
                }
            }
        }, 1, 1, TimeUnit.SECONDS);
    }

    /** fsync and close an incremental file no longer written, off the executor. */
    private void closeInBackground(FileChannel ch) {
        if (ch == null) return;
        Runnable r = () -> {
            try {
                ch.force(false);
                ch.close();
            } catch (IOException ignored) {
                // the file is complete up to what was written; nothing else to do
            }
        };
        if (bio != null) bio.execute(r);
        else r.run();
    }

    void stopBio() {
        if (bio != null) {
            bio.shutdown();
            try {
                bio.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            bio = null;
        }
    }

    // ---- start and stop -------------------------------------------------------------------------

    private Path manifestPath() {
        return dir().resolve(fileName() + ".manifest");
    }

    /** Whether an AOF directory with a manifest is there to load (DEBUG LOADAOF with appendonly no). */
    boolean hasManifest() {
        return Files.exists(manifestPath());
    }

    /**
     * The RDB base file that {@link #load} will begin with, for decoding it before the executor is
     * ready; null where there is none or anything is unusual (no manifest or one that does not
     * parse, an old-style AOF to migrate first, a base of commands, a preamble named like the old
     * single file): load then reads the files as it always does and reports what is wrong.
     */
    Path startUpBase() {
        try {
            if (Files.isRegularFile(Path.of(engine.workingDirectory()).resolve(fileName()))) return null;
            if (!Files.exists(manifestPath())) return null;
            AofManifest m = AofManifest.parse(manifestPath());
            if (m.base == null || m.base.name().equals(fileName())) return null;
            Path p = dir().resolve(m.base.name());
            return startsAsRdb(p) ? p : null;
        } catch (IOException | RuntimeException unusual) {
            return null;
        }
    }

    /** Whether the file begins with an RDB's signature (an RDB base or preamble) rather than commands. */
    private static boolean startsAsRdb(Path p) throws IOException {
        try (InputStream head = Files.newInputStream(p)) {
            return new String(head.readNBytes(5), StandardCharsets.ISO_8859_1).equals("REDIS");
        }
    }

    /** Loads the AOF at start-up (appendonly yes) or for DEBUG LOADAOF; true if there was one. */
    boolean load() {
        Path dir = dir();
        Path manifestPath = manifestPath();
        if (Files.isDirectory(dir) && Files.exists(manifestPath)) manifest = AofManifest.parse(manifestPath);
        upgradeIfNeeded(dir);
        if (manifest.isEmpty()) return false;
        long total = 0;
        long base = 0;
        int files = (manifest.base != null ? 1 : 0) + manifest.incrs.size();
        for (AofManifest.Info i : all()) {
            Path p = dir.resolve(i.name());
            try {
                long size = Files.size(p);
                total += size;
                if (i == manifest.base) base = size;
            } catch (IOException e) {
                throw new PersistenceException("Unable to obtain the AOF file " + i.name() + " length. stat: "
                        + (Files.exists(p) ? e.getMessage() : "No such file or directory"));
            }
        }
        if (total == 0) return true;
        persistence.loading(total, () -> {
            int n = 0;
            loadedBefore = 0;
            for (AofManifest.Info i : all()) {
                boolean last = ++n == files;
                Persistence.EarlyLoad early = persistence.earlyAofBase(dir.resolve(i.name()));
                long t0 = early != null ? early.startNanos : System.nanoTime(); // (decoding since then)
                boolean truncated = loadFile(dir, i.name(), last);
                loadedBefore += dir.resolve(i.name()).toFile().length();
                if (truncated && !last) throw new PersistenceException("Fatal error: the truncated file is not the last file");
                log.notice(String.format(Locale.ROOT, "DB loaded from %s file %s: %.3f seconds",
                        i.type() == AofManifest.BASE ? "base" : "incr", i.name(), (System.nanoTime() - t0) / 1e9));
            }
        });
        try {
            currentSize = 0;
            for (AofManifest.Info i : all()) currentSize += Files.size(dir.resolve(i.name()));
        } catch (IOException e) {
            currentSize = total;
        }
        baseSize = base;
        return true;
    }

    private java.util.List<AofManifest.Info> all() {
        java.util.List<AofManifest.Info> l = new java.util.ArrayList<>();
        if (manifest.base != null) l.add(manifest.base);
        l.addAll(manifest.incrs);
        return l;
    }

    /**
     * An appendonly.aof of Redis 6 or older in the data directory becomes the base of a new
     * multi-part AOF (Redis's aofUpgradePrepare).
     */
    private void upgradeIfNeeded(Path dir) {
        Path old = Path.of(engine.workingDirectory()).resolve(fileName());
        if (!Files.isRegularFile(old)) return;
        boolean upgrade = !Files.isDirectory(dir) || manifest.isEmpty()
                || (manifest.base != null && manifest.incrs.isEmpty() && manifest.base.name().equals(fileName())
                    && !Files.exists(dir.resolve(fileName())));
        if (!upgrade) return;
        try {
            Files.createDirectories(dir);
            AofManifest m = new AofManifest();
            m.base = new AofManifest.Info(fileName(), 1, AofManifest.BASE);
            m.baseSeq = 1;
            m.write(dir, fileName());
            Files.move(old, dir.resolve(fileName()), StandardCopyOption.ATOMIC_MOVE);
            manifest = m;
            log.notice("Successfully migrated an old-style AOF file (" + fileName() + ") into the AOF directory ("
                    + config.get("appenddirname") + ").");
        } catch (IOException e) {
            throw new PersistenceException("Error trying to move the old AOF file " + fileName() + " into dir "
                    + config.get("appenddirname") + ": " + e.getMessage(), e);
        }
    }

    /**
     * After loading, with appendonly yes: creates a base if there is no AOF yet, opens the last
     * incremental file for appending (or a new one) and writes the manifest.
     */
    void openAtStartup() {
        Path dir = dir();
        try {
            Files.createDirectories(dir);
            boolean created = false;
            if (manifest.isEmpty()) {
                String baseName = manifest.newBase(fileName(), config.getBool("aof-use-rdb-preamble"));
                long size = persistence.writeAofBaseNow(dir.resolve(baseName));
                log.notice("Creating AOF base file " + baseName + " on server start");
                currentSize = size;
                baseSize = size;
            }
            boolean hadIncr = !manifest.incrs.isEmpty();
            String name = manifest.lastIncr(fileName());
            Path p = dir.resolve(name);
            incr = FileChannel.open(p, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
            manifest.write(dir, fileName());
            lastIncrSize = incr.size();
            log.notice((hadIncr ? "Opening" : "Creating") + " AOF incr file " + name + " on server start");
        } catch (IOException e) {
            throw new PersistenceException("Can't open the append-only file: " + e.getMessage(), e);
        }
        state = State.ON;
        selectedDb = -1;
        engine.addPropagationListener(this);
        startBio();
    }

    /** CONFIG SET appendonly yes: start logging after a rewrite that writes the current data as base. */
    void start() {
        // a rewrite already running does not collect the writes from now on: start a new one
        if (persistence.aofJobRunning()) {
            log.warning("AOF was enabled but there is already an AOF rewriting in background. Stopping background AOF "
                    + "and starting a rewrite now.");
            persistence.killAofRewrite();
        }
        state = State.WAIT_REWRITE;
        engine.addPropagationListener(this);
        startBio();
        Client current = engine.currentClient();
        if (persistence.backgroundJobRunning()) {
            rewriteScheduled = true;
            log.warning("AOF was enabled but there is already another background operation. An AOF background was "
                    + "scheduled to start when possible.");
        } else if (current != null && current.inExec()) {
            // the base would hold the transaction's earlier writes and the incr file the whole transaction again
            rewriteScheduled = true;
            log.warning("AOF was enabled during a transaction. An AOF background was scheduled to start when possible.");
        } else if (!persistence.startAofRewrite()) {
            stop();
            throw new IllegalStateException("Unable to turn on AOF. Check server logs.");
        }
        lastWriteOk = true;
        fsyncError = null;
    }

    /** CONFIG SET appendonly no, or shutdown: flush, fsync and close. */
    void stop() {
        if (state == State.OFF) return;
        flush(true);
        persistence.killAofRewrite();
        if (incr != null) {
            try {
                incr.close();
            } catch (IOException ignored) {
                // closing only
            }
            incr = null;
        }
        deleteTempIncr();
        engine.removePropagationListener(this);
        state = State.OFF;
        selectedDb = -1;
        buf.clear();
        rewriteScheduled = false;
        lastIncrSize = 0;
        stopBio();
    }

    // ---- rewrite --------------------------------------------------------------------------------

    /**
     * The executor-side start of a rewrite (Redis's rewriteAppendOnlyFileBackground before the
     * fork): flush what is buffered, then start a new incremental file, so that the commands
     * from this moment on, which the new base will not contain, have a file of their own.
     */
    boolean prepareRewrite() {
        Path dir = dir();
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            log.warning("Can't open or create append-only dir " + config.get("appenddirname") + ": " + e.getMessage());
            lastRewriteOk = false;
            return false;
        }
        selectedDb = -1;
        flush(false);
        try {
            if (state == State.ON) {
                AofManifest m = manifest.copy();
                String name = m.newIncr(fileName());
                FileChannel ch = FileChannel.open(dir.resolve(name), StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                        StandardOpenOption.TRUNCATE_EXISTING);
                try {
                    m.write(dir, fileName());
                } catch (IOException e) {
                    ch.close();
                    throw e;
                }
                log.notice("Creating AOF incr file " + name + " on background rewrite");
                closeInBackground(incr);
                incr = ch;
                manifest = m;
                lastIncrSize = 0;
            } else if (state == State.WAIT_REWRITE) {
                tempIncr = dir.resolve("temp-" + fileName() + ".incr");
                FileChannel ch = FileChannel.open(tempIncr, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                        StandardOpenOption.TRUNCATE_EXISTING);
                log.notice("Creating AOF incr file temp-" + fileName() + ".incr on background rewrite");
                closeInBackground(incr);
                incr = ch;
                lastIncrSize = 0;
            }
        } catch (IOException e) {
            log.warning("Can't open the append-only file: " + e.getMessage());
            lastRewriteOk = false;
            return false;
        }
        rewrites++;
        rewriteScheduled = false;
        rewriteTimeStart = System.currentTimeMillis() / 1000;
        return true;
    }

    /** Names the base of a rewrite that completed at temp and switches the manifest to it. */
    void rewriteSucceeded(Path temp) {
        Path dir = dir();
        AofManifest m = manifest.copy();
        String baseName = m.newBase(fileName(), config.getBool("aof-use-rdb-preamble"));
        Path basePath = dir.resolve(baseName);
        try {
            Files.move(temp, basePath, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            log.warning("Error trying to rename the temporary AOF base file " + temp.getFileName() + " into "
                    + baseName + ": " + e.getMessage());
            rewriteFailed(temp);
            return;
        }
        log.notice("Successfully renamed the temporary AOF base file " + temp.getFileName() + " into " + baseName);
        if (state == State.WAIT_REWRITE && tempIncr != null) {
            String incrName = m.newIncr(fileName());
            try {
                Files.move(tempIncr, dir.resolve(incrName), StandardCopyOption.ATOMIC_MOVE);
            } catch (IOException e) {
                log.warning("Error trying to rename the temporary AOF incr file " + tempIncr.getFileName() + " into "
                        + incrName + ": " + e.getMessage());
                try {
                    Files.deleteIfExists(basePath);
                } catch (IOException ignored) {
                    // best effort
                }
                rewriteFailed(null);
                return;
            }
            log.notice("Successfully renamed the temporary AOF incr file temp-" + fileName() + ".incr into " + incrName);
            tempIncr = null;
        }
        m.markRewrittenIncrsAsHistory(incr != null);
        try {
            m.write(dir, fileName());
        } catch (IOException e) {
            log.warning("Can't persist the AOF manifest: " + e.getMessage());
            try {
                Files.deleteIfExists(basePath);
            } catch (IOException ignored) {
                // best effort
            }
            rewriteFailed(null);
            return;
        }
        manifest = m;
        if (state == State.WAIT_REWRITE && incr == null) {
            // this rewrite began before the AOF was switched on: the writes since are in no file
            rewriteScheduled = true;
        } else if (state == State.WAIT_REWRITE) {
            state = State.ON;
        }
        if (state != State.OFF) {
            try {
                currentSize = Files.size(basePath) + lastIncrSize;
            } catch (IOException e) {
                currentSize = lastIncrSize;
            }
            baseSize = currentSize;
        }
        deleteHistory();
        lastRewriteOk = true;
        consecutiveFailures = 0;
        log.notice("Background AOF rewrite finished successfully");
        rewriteEnded();
    }

    void rewriteFailed(Path temp) {
        lastRewriteOk = false;
        consecutiveFailures++;
        if (temp != null) {
            try {
                Files.deleteIfExists(temp);
            } catch (IOException ignored) {
                // best effort
            }
        }
        if (state == State.WAIT_REWRITE) {
            buf.clear();
            deleteTempIncr();
            rewriteScheduled = true;
        }
        rewriteEnded();
    }

    /** A rewrite stopped on purpose (shutdown, appendonly no): not a failure. */
    void rewriteKilled() {
        if (state == State.WAIT_REWRITE) {
            buf.clear();
            deleteTempIncr();
        }
        rewriteEnded();
    }

    private void rewriteEnded() {
        if (rewriteTimeStart >= 0) rewriteTimeLast = System.currentTimeMillis() / 1000 - rewriteTimeStart;
        rewriteTimeStart = -1;
    }

    private void deleteTempIncr() {
        if (tempIncr == null) return;
        if (incr != null && state == State.WAIT_REWRITE) {
            try {
                incr.close();
            } catch (IOException ignored) {
                // deleting next
            }
            incr = null;
        }
        try {
            Files.deleteIfExists(tempIncr);
        } catch (IOException ignored) {
            // best effort
        }
        tempIncr = null;
    }

    private void deleteHistory() {
        if (config.getBool("aof-disable-auto-gc") || manifest.history.isEmpty()) return;
        Path dir = dir();
        for (AofManifest.Info i : manifest.history) {
            log.notice("Removing the history file " + i.name() + " in the background");
            try {
                Files.deleteIfExists(dir.resolve(i.name()));
            } catch (IOException e) {
                log.warning("Can't remove the history file " + i.name() + ": " + e.getMessage());
            }
        }
        manifest.history.clear();
        try {
            manifest.write(dir, fileName());
        } catch (IOException e) {
            log.warning("Can't persist the AOF manifest: " + e.getMessage());
        }
    }

    /** Whether an automatic rewrite is due (auto-aof-rewrite-percentage and -min-size). */
    boolean autoRewriteDue(long nowSeconds) {
        if (state != State.ON) return false;
        long perc = config.getLong("auto-aof-rewrite-percentage");
        if (perc <= 0 || currentSize <= config.getLong("auto-aof-rewrite-min-size")) return false;
        long base = baseSize > 0 ? baseSize : 1;
        long growth = currentSize * 100 / base - 100;
        if (growth < perc || rewriteLimited(nowSeconds)) return false;
        log.notice("Starting automatic rewriting of AOF on " + growth + "% growth");
        return true;
    }

    /** Consecutive failed rewrites from which the automatic and scheduled ones are spaced out. */
    private static final int LIMIT_FAILURES = 3;
    private static final int LIMIT_MAX_MINUTES = 60;
    private int limitDelayMinutes;
    /** When the next limited rewrite may start (seconds); 0 when none waits. */
    private long limitUntil;

    /**
     * Redis's aofRewriteLimited: after three failed rewrites in a row (a full disk, a directory
     * that cannot be written), the automatic and scheduled ones wait 1 minute, then 2, 4... up to
     * an hour, instead of each cron opening another INCR file for a rewrite bound to fail. A
     * successful rewrite (BGREWRITEAOF is never limited) or CONFIG RESETSTAT ends the limit.
     */
    boolean rewriteLimited(long nowSeconds) {
        if (consecutiveFailures < LIMIT_FAILURES) {
            limitDelayMinutes = 0;
            limitUntil = 0;
            return false;
        }
        if (limitUntil != 0) {
            if (nowSeconds < limitUntil) return true;
            limitUntil = 0;
            return false;
        }
        limitDelayMinutes = limitDelayMinutes == 0 ? 1 : Math.min(limitDelayMinutes * 2, LIMIT_MAX_MINUTES);
        limitUntil = nowSeconds + limitDelayMinutes * 60L;
        log.warning("Background AOF rewrite has repeatedly failed and triggered the limit, will retry in "
                + limitDelayMinutes + " minutes");
        return true;
    }

    // ---- loading --------------------------------------------------------------------------------

    /** Bytes of the AOF files already replayed by the running load (INFO's loading_loaded_bytes). */
    private long loadedBefore;

    /**
     * Replays one file (Redis's loadSingleAppendOnlyFile). Returns true if it had to be
     * truncated (only allowed for the last file); throws on anything that cannot be loaded.
     */
    private boolean loadFile(Path dir, String name, boolean last) {
        Path path = dir.resolve(name);
        long size;
        try {
            size = Files.size(path);
        } catch (IOException e) {
            throw new PersistenceException("Fatal error: can't open the append log file " + name + " for reading: "
                    + e.getMessage(), e);
        }
        if (size == 0) return false;
        boolean rdb;
        try {
            rdb = startsAsRdb(path);
        } catch (IOException e) {
            throw new PersistenceException("Unrecoverable error reading the append only file " + name + ": "
                    + e.getMessage(), e);
        }
        Client fake = engine.internalClient();
        long validUpTo = 0;
        long validBeforeMulti = 0;
        // the base may have been decoding since before the executor was ready (Persistence.beginStartUpLoad)
        Persistence.EarlyLoad early = rdb ? persistence.earlyAofBase(path) : null;
        try (InputStream is = early != null ? early.file : Files.newInputStream(path)) {
            RdbIn in = early != null ? early.in : new RdbIn(new java.io.BufferedInputStream(is, 1 << 16), true);
            if (rdb) {
                boolean oldStyle = name.equals(fileName());
                if (early == null) {
                    log.notice(oldStyle ? "Reading RDB preamble from AOF file..." : "Reading RDB base file on AOF loading...");
                }
                try {
                    if (early != null) early.loader.finish(early.decoding);
                    else new RdbLoader(engine, persistence.functionStore(), true).load(in, size, "AOF base");
                } catch (RdbException e) {
                    throw new PersistenceException((oldStyle ? "Error reading the RDB preamble of the AOF file "
                            : "Error reading the RDB base file ") + name + ", AOF loading aborted: " + e.getMessage(), e);
                }
                if (oldStyle) log.notice("Reading the remaining AOF tail...");
                validUpTo = in.position();
            }
            byte[] line = new byte[1024];
            long loops = 0;
            LoadProgress progress = new LoadProgress(log) {
                @Override
                String line(long bytes, long commands, double seconds) {
                    return String.format(Locale.ROOT, "Loading AOF %s: %.2f%%", name, bytes * 100.0 / size);
                }
            };
            try {
                while (true) {
                    if ((++loops & 1023) == 0) {
                        progress.publish(in.position(), loops);
                        persistence.loadingProgress(loadedBefore + in.position());
                        engine.processEventsWhileLoading();
                    }
                    int n = in.readLine(line);
                    if (n == 0) break; // clean end of file
                    if (line[0] == '#') {
                        while (line[n - 1] != '\n') { // the rest of a long annotation
                            n = in.readLine(line);
                            if (n == 0) break;
                        }
                        continue;
                    }
                    if (line[0] != '*') throw formatError(name);
                    if (line[n - 1] != '\n') {
                        if (n == line.length) throw formatError(name);
                        return truncated(path, name, validUpTo, last);
                    }
                    long argc = atol(line, 1, n);
                    if (argc < 1 || argc > Integer.MAX_VALUE - 16) throw formatError(name);
                    byte[][] argv = new byte[(int) argc][];
                    for (int j = 0; j < argc; j++) {
                        n = in.readLine(line);
                        if (n == 0) return truncated(path, name, validUpTo, last);
                        if (line[0] != '$') throw formatError(name);
                        if (line[n - 1] != '\n') {
                            if (n == line.length) throw formatError(name);
                            return truncated(path, name, validUpTo, last);
                        }
                        long len = atol(line, 1, n);
                        if (len < 0 || len > Integer.MAX_VALUE - 16) throw formatError(name);
                        if (in.position() + len + 2 > size) return truncated(path, name, validUpTo, last);
                        byte[] arg = new byte[(int) len];
                        in.readFully(arg, 0, arg.length);
                        in.skip(2);
                        argv[j] = arg;
                    }
                    boolean isMulti = Bytes.equalsIgnoreCase(argv[0], 0, argv[0].length, "multi");
                    if (isMulti) validBeforeMulti = validUpTo;
                    if (!engine.replay(fake, argv)) {
                        throw new PersistenceException("Unknown command '" + new String(argv[0], StandardCharsets.ISO_8859_1)
                                + "' reading the append only file " + name);
                    }
                    validUpTo = in.position();
                }
            } finally {
                progress.stop();
            }
            if (fake.inMulti()) {
                log.warning("Revert incomplete MULTI/EXEC transaction in AOF file " + name);
                return truncated(path, name, validBeforeMulti, last);
            }
            return false;
        } catch (RdbException e) {
            // a read past the end of the file in the middle of a command
            return truncated(path, name, validUpTo, last);
        } catch (IOException e) {
            throw new PersistenceException("Unrecoverable error reading the append only file " + name + ": "
                    + e.getMessage(), e);
        } catch (java.io.UncheckedIOException e) {
            throw new PersistenceException("Unrecoverable error reading the append only file " + name + ": "
                    + e.getCause().getMessage(), e);
        }
    }

    private static long atol(byte[] b, int from, int to) {
        long v = 0;
        boolean neg = false;
        int i = from;
        if (i < to && b[i] == '-') {
            neg = true;
            i++;
        }
        int digits = 0;
        while (i < to && b[i] >= '0' && b[i] <= '9' && digits < 19) {
            v = v * 10 + (b[i++] - '0');
            digits++;
        }
        return neg ? -v : v;
    }

    private PersistenceException formatError(String name) {
        return new PersistenceException("Bad file format reading the append only file " + name
                + ": make a backup of your AOF file, then use ./redis-check-aof --fix <filename.manifest>");
    }

    /** The file ends in the middle of a command: cut it there if allowed (aof-load-truncated), else fail. */
    private boolean truncated(Path path, String name, long validUpTo, boolean last) {
        if (config.getBool("aof-load-truncated")) {
            log.warning("!!! Warning: short read while loading the AOF file " + name + "!!!");
            log.warning("!!! Truncating the AOF " + name + " at offset " + validUpTo + " !!!");
            try (FileChannel ch = FileChannel.open(path, StandardOpenOption.WRITE)) {
                ch.truncate(validUpTo);
                ch.force(true);
            } catch (IOException e) {
                throw new PersistenceException("Error truncating the AOF file " + name + ": " + e.getMessage(), e);
            }
            log.warning("AOF " + name + " loaded anyway because aof-load-truncated is enabled");
            return true;
        }
        throw new PersistenceException("Unexpected end of file reading the append only file " + name + ". You can: "
                + "1) Make a backup of your AOF file, then use ./redis-check-aof --fix <filename.manifest>. "
                + "2) Alternatively you can set the 'aof-load-truncated' configuration option to yes and restart the server.");
    }
}
