package io.spinel.core;

import io.spinel.core.command.Command;
import io.spinel.core.command.CommandError;
import io.spinel.core.command.CommandFlags;
import io.spinel.core.command.CommandTable;
import io.spinel.core.config.Config;
import io.spinel.core.keyspace.Db;
import io.spinel.core.keyspace.Keyspace;
import io.spinel.core.keyspace.LazyFree;
import io.spinel.core.protocol.Args;
import io.spinel.core.protocol.RespReader;
import io.spinel.core.protocol.SharedQueryBuffer;
import io.spinel.core.util.Bytes;
import io.spinel.core.util.NativeMemory;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The engine: keyspace, command table, clients and the dispatch loop (Redis's server.c core).
 * Every method here runs on one executor thread, which the host supplies: the network event
 * loop in the server, or a private thread when embedded. That thread owns all data, so there are
 * no locks, and commands run in arrival order.
 */
public final class Engine {
    public static final String REDIS_VERSION = "7.0.15";
    public static final String SPINEL_VERSION = Version.SPINEL;

    /** What the host does when a client asks the server to shut down. */
    public interface ShutdownHandler {
        /** Returns an error message to refuse, or null once the shutdown has been started. */
        String shutdown(boolean save, boolean nosave, boolean now, boolean force);
    }

    final Config config;
    final Keyspace keyspace;
    final CommandTable commands = new CommandTable();
    final Map<Long, Client> clients = new LinkedHashMap<>();
    final ArrayList<Client> pendingWrites = new ArrayList<>();
    final ServerStats stats = new ServerStats();
    final Blocking blocking = new Blocking(this);
    /** What clients with nothing pending read into, one at a time (see RespReader). */
    private final SharedQueryBuffer sharedQueryBuffer = new SharedQueryBuffer();
    final Transactions transactions = new Transactions(this);
    final PubSub pubsub;
    /** The master side of replication: replicas, the backlog, the stream. */
    final Replication replication = new Replication(this);
    private final Watchdog watchdog = new Watchdog(this);
    /** The ACL users, the permission checks and the ACL log. */
    final io.spinel.core.acl.Acl acl;
    final Tracking tracking;
    final Evictor evictor;
    final SlowLog slowlog = new SlowLog();
    final LatencyMonitor latency = new LatencyMonitor(this);
    final Monitors monitors = new Monitors(this);
    final ClientPause pause = new ClientPause(this);
    final Shutdown shutdown = new Shutdown(this);
    final OomScoreAdj oomScoreAdj = new OomScoreAdj(this);
    /** Set while replay() runs a command from the AOF: Redis keeps those out of slowlog, stats and MONITOR. */
    private boolean replaying;
    /**
     * Polls the transport's sockets once without blocking, on the loop thread, so that clients
     * are served (with -LOADING for most commands) while the data set loads at start, as Redis's
     * processEventsWhileBlocked does. Null when the transport cannot: its listeners then open
     * after the load.
     */
    private Runnable loadingPoller;
    /** TLS, when the network layer provides it (the server module always does); null otherwise. */
    private volatile Tls tls;
    private boolean pollingWhileLoading;
    /** SHUTDOWN came from a client served while loading: the load stops at its next poll. */
    /** Set by SHUTDOWN from a client served during the load, or by a signal's thread. */
    private volatile boolean shutdownWhileLoading;
    private long lastLoadingPoll;
    /** How often the loaders let clients in: Redis does after every 2 MB read, ~20-50 ms. */
    private static final long LOADING_POLL_NANOS = 20_000_000L;
    /** The client whose command is running (null between commands, or for internal work). */
    Client currentClient;
    /** Nesting of call(): blocked clients are served when the outermost command is done. */
    private int callDepth;
    final Log log;
    final io.spinel.core.keyspace.EncodingConfig encodings;
    final io.spinel.core.persist.Persistence persistence;

    // set once by attachLoop, before any client or task (the standalone server makes its engine
    // while its event loop is still being made)
    private ScheduledExecutorService loop;
    private BooleanSupplier inLoop;
    private ScheduledFuture<?> cron;
    /** Ids 1 and 2 belong to the internal clients of the two scripting engines (EVAL, functions), as in Redis. */
    private long nextClientId = 3;
    private ShutdownHandler shutdownHandler = (save, nosave, now, force) -> "ERR shutdown is not available";
    private final long startedAt = System.currentTimeMillis();
    private final long startedNanos = System.nanoTime();
    private String host = "embedded";
    private int port;

    // cached configuration, kept current by config listeners
    long protoMaxBulkLen;
    long queryBufferLimit;
    int maxClients;
    long idleTimeoutSeconds;
    boolean protectedMode;
    int hz;
    boolean activeRehashing;
    String enableDebugCommand = "no";
    String enableModuleCommand = "no";
    long maxmemory;
    /** Whether the last command that went through processCommand found memory over maxmemory (Redis's pre_command_oom_state). */
    boolean preCommandOom;
    /** min-replicas-to-write / min-replicas-max-lag (Spinel has no replicas: any value above 0 stops writes). */
    int minReplicasToWrite;
    int minReplicasMaxLag = 10;

    public Engine(Config config, ScheduledExecutorService loop, BooleanSupplier inLoop, Log log) {
        this(config, log);
        attachLoop(loop, inLoop);
    }

    /**
     * An engine whose executor is given later, by {@link #attachLoop}, before it serves anyone or
     * schedules anything: the standalone server makes it, and starts decoding the data set it
     * loads (see {@link io.spinel.core.persist.Persistence#beginStartUpLoad}), while Netty's event
     * loop is still being set up.
     */
    public Engine(Config config, Log log) {
        this.config = config;
        this.log = log;
        this.keyspace = new Keyspace(config.getInt("databases"), keyspaceListener);
        this.encodings = new io.spinel.core.keyspace.EncodingConfig(config);
        this.pubsub = new PubSub(this);
        this.acl = new io.spinel.core.acl.Acl(() -> config.get("acl-pubsub-default").equals("allchannels"),
                () -> config.getLong("acllog-max-len"));
        acl.setHooks(new AclClients());
        this.tracking = new Tracking(this);
        this.evictor = new Evictor(this);
        CommandFamilies.registerAll(commands);
        bindConfig();
        if (config.getBool("cluster-enabled")) {
            // before any data loads: the keyspace indexes keys by slot from the first one
            keyspace.enableSlotIndex();
            try {
                cluster = new io.spinel.core.cluster.Cluster(this);
            } catch (java.io.IOException e) {
                throw new IllegalStateException(e.getMessage(), e);
            }
        }
        this.persistence = new io.spinel.core.persist.Persistence(this);
        persistence.setFunctionStore(new io.spinel.core.persist.FunctionStore() {
            @Override
            public java.util.List<byte[]> libraries() {
                return io.spinel.core.script.Scripting.libraries(Engine.this);
            }

            @Override
            public void load(byte[] code, boolean replace) {
                io.spinel.core.script.Scripting.loadLibrary(Engine.this, code, replace);
            }

            @Override
            public void flush() {
                io.spinel.core.script.Scripting.flushLibraries(Engine.this);
            }
        });
    }

    /** The options {@link #applyConfig} applies, each when set and once at start. */
    private static final String[] BOUND_OPTIONS = {
            "proto-max-bulk-len", "client-query-buffer-limit", "requirepass", "maxclients", "timeout",
            "protected-mode", "hz", "activerehashing", "enable-debug-command", "enable-module-command",
            "maxmemory-policy", "min-replicas-to-write", "min-replicas-max-lag", "maxmemory", "maxmemory-clients",
            "client-output-buffer-limit", "lfu-log-factor", "lfu-decay-time", "lazyfree-lazy-expire",
            "lazyfree-lazy-eviction", "lazyfree-lazy-user-del", "lazyfree-lazy-user-flush",
            "slowlog-log-slower-than", "slowlog-max-len", "latency-monitor-threshold", "latency-tracking",
            "latency-tracking-info-percentiles", "notify-keyspace-events", "oom-score-adj", "oom-score-adj-values"
    };

    private void bindConfig() {
        for (String name : BOUND_OPTIONS) config.listen(name, this::applyConfig);
        config.listen("repl-backlog-size", o -> replication.resizeBacklog());
        // a period under two cron intervals is raised, and the option then says so (Redis's
        // applyWatchdogPeriod, at start and on CONFIG SET)
        config.listen("watchdog-period", o -> {
            long period = watchdog.setPeriod(Long.parseLong(o.value()), hz);
            if (period != Long.parseLong(o.value())) config.apply(o, Long.toString(period));
        });
    }

    /**
     * One listener for the options above, not a lambda each: every lambda is a class the JVM
     * spins on first use, which a server's first start in a fresh JVM pays.
     */
    private void applyConfig(Config.Option o) {
        switch (o.name) {
            case "proto-max-bulk-len" -> protoMaxBulkLen = Long.parseLong(o.value());
            case "client-query-buffer-limit" -> queryBufferLimit = Long.parseLong(o.value());
            case "requirepass" -> acl.updateDefaultUserPassword(o.value());
            case "maxclients" -> maxClients = Integer.parseInt(o.value());
            case "timeout" -> idleTimeoutSeconds = Long.parseLong(o.value());
            case "protected-mode" -> protectedMode = o.value().equals("yes");
            case "hz" -> {
                int v = Integer.parseInt(o.value());
                hz = Math.max(1, Math.min(500, v));
                if (cron != null) scheduleCron();
            }
            case "activerehashing" -> activeRehashing = o.value().equals("yes");
            case "oom-score-adj", "oom-score-adj-values" -> oomScoreAdj.apply();
            case "enable-debug-command" -> enableDebugCommand = o.value();
            case "enable-module-command" -> enableModuleCommand = o.value();
            case "maxmemory-policy" -> {
                keyspace.setLfu(o.value().contains("lfu"));
                updateSharedIntegers();
            }
            case "min-replicas-to-write" -> minReplicasToWrite = Integer.parseInt(o.value());
            case "min-replicas-max-lag" -> minReplicasMaxLag = Integer.parseInt(o.value());
            case "maxmemory" -> {
                maxmemory = config.getLong("maxmemory"); // unsigned: past Long.MAX_VALUE reads as Long.MAX_VALUE
                updateSharedIntegers();
                if (maxmemory > 0 && evictor != null) {
                    long used = usedMemory();
                    if (used > maxmemory) {
                        log.warning("WARNING: the new maxmemory value set via CONFIG SET (" + maxmemory + ") is smaller "
                                + "than the current memory usage (" + used + "). This will result in key eviction and/or "
                                + "the inability to accept new write commands depending on the maxmemory-policy.");
                    }
                    // after the command, as Redis's eviction time event: each eviction propagates
                    // alone, not in a MULTI/EXEC with the CONFIG SET (or the EXEC) that ran it
                    Runnable evict = () -> {
                        if (maxmemory > 0) evictor.perform(maxmemory);
                        flushPending();
                    };
                    if (loop != null) loop.execute(evict);
                    else beforeLoop.add(evict);
                }
            }
            case "maxmemory-clients" -> {
                String v = o.value();
                maxmemoryClients = v.endsWith("%") ? -Long.parseLong(v.substring(0, v.length() - 1)) : Long.parseLong(v);
            }
            case "client-output-buffer-limit" -> parseOutputBufferLimits(o.value());
            case "lfu-log-factor" -> keyspace.setLfuLogFactor(Integer.parseInt(o.value()));
            case "lfu-decay-time" -> keyspace.setLfuDecayTime(Integer.parseInt(o.value()));
            case "lazyfree-lazy-expire" -> lazyfreeLazyExpire = o.value().equals("yes");
            case "lazyfree-lazy-eviction" -> lazyfreeLazyEviction = o.value().equals("yes");
            case "lazyfree-lazy-user-del" -> lazyfreeLazyUserDel = o.value().equals("yes");
            case "lazyfree-lazy-user-flush" -> lazyfreeLazyUserFlush = o.value().equals("yes");
            case "slowlog-log-slower-than" -> {
                slowlog.slowerThan = Long.parseLong(o.value());
                slowlog.configChanged();
            }
            case "slowlog-max-len" -> {
                slowlog.maxLen = Long.parseLong(o.value());
                slowlog.configChanged();
            }
            case "latency-monitor-threshold" -> latency.thresholdMs = Long.parseLong(o.value());
            case "latency-tracking" -> latency.tracking = o.value().equals("yes");
            case "latency-tracking-info-percentiles" -> latency.setPercentiles(parsePercentiles(o.value().trim()));
            case "notify-keyspace-events" -> {
                notifyFlags = Notify.parse(o.value());
                keyspace.setEventFlags((notifyFlags & Notify.KEY_MISS) != 0, (notifyFlags & Notify.NEW) != 0);
            }
            default -> throw new IllegalArgumentException(o.name);
        }
    }

    /** "50 99 99.9" (already validated); split by hand: a regex and a stream cost a first start 10 ms. */
    private static double[] parsePercentiles(String v) {
        if (v.isEmpty()) return new double[0];
        String[] words = Config.words(v);
        double[] out = new double[words.length];
        for (int w = 0; w < out.length; w++) out[w] = Double.parseDouble(words[w]);
        return out;
    }

    private void updateSharedIntegers() {
        String policy = config.get("maxmemory-policy");
        boolean lruData = policy.contains("lru") || policy.contains("lfu");
        keyspace.setSharedIntegers(!(config.getLong("maxmemory") != 0 && lruData));
    }

    // ---- accessors ----------------------------------------------------------------------------

    public Config config() {
        return config;
    }

    public Keyspace keyspace() {
        return keyspace;
    }

    /** proto-max-bulk-len, kept current: the size limit of strings commands build (SETBIT offsets...). */
    public long protoMaxBulkLen() {
        return protoMaxBulkLen;
    }

    /** Collection encoding thresholds, current with the config. */
    public io.spinel.core.keyspace.EncodingConfig encodings() {
        return encodings;
    }

    public CommandTable commands() {
        return commands;
    }

    public ServerStats stats() {
        return stats;
    }

    public Log log() {
        return log;
    }

    /** RDB and AOF: saving, loading, the append-only log (see the persist package). */
    public io.spinel.core.persist.Persistence persistence() {
        return persistence;
    }

    public Collection<Client> clients() {
        return clients.values();
    }

    public Client client(long id) {
        return clients.get(id);
    }

    /** The client whose command is running, or null between commands. */
    public Client currentClient() {
        return currentClient;
    }

    public ScheduledExecutorService loop() {
        return loop;
    }

    /** The executor that owns the data, and how to tell its thread; once, before it runs anything. */
    public void attachLoop(ScheduledExecutorService loop, BooleanSupplier inLoop) {
        if (this.loop != null) throw new IllegalStateException("the engine already has its executor");
        this.loop = loop;
        this.inLoop = inLoop;
        for (Runnable task : beforeLoop) loop.execute(task);
        beforeLoop.clear();
    }

    private final Map<Class<?>, Object> extensions = new java.util.HashMap<>();

    /**
     * Per-engine state of a subsystem that lives outside this package (scripting), created on
     * first use by the factory.
     */
    public <T> T extension(Class<T> type, java.util.function.Function<Engine, T> factory) {
        Object o = extensions.get(type);
        if (o == null) {
            o = factory.apply(this);
            extensions.put(type, o);
        }
        return type.cast(o);
    }

    /**
     * A client that is not connected and not listed (CLIENT LIST): scripts run their redis.call
     * commands through one. Replies go to the connection given.
     */
    public Client newInternalClient(long id, Client.Connection conn) {
        Client c = new Client(id, this, conn, keyspace.db(0), System.currentTimeMillis());
        c.user = acl.defaultUser();
        c.script = true;
        return c;
    }

    /** Whether the running command was called by another one (inside EXEC, or from a script). */
    public boolean isNestedCall() {
        return callDepth > 1;
    }

    /** Runs a command that was already checked by the caller (scripts), with Redis's call() accounting. */
    public void runCommand(Client c, Command cmd) {
        call(c, cmd);
    }

    /** Whether maxmemory is set and exceeded (write commands that may grow memory are refused). */
    public boolean isOutOfMemory() {
        return maxmemory > 0 && preCommandOom;
    }

    /**
     * Redis's checkGoodReplicasStatus: false when min-replicas-to-write asks for more replicas
     * than have acknowledged within min-replicas-max-lag seconds (when that is not 0).
     */
    public boolean hasGoodReplicas() {
        return minReplicasToWrite == 0 || minReplicasMaxLag == 0
                || replication.goodReplicas(minReplicasMaxLag) >= minReplicasToWrite;
    }

    /**
     * INFO memory's scripting figures: {number_of_cached_scripts, number_of_functions,
     * number_of_libraries, used_memory_scripts_eval, used_memory_functions, used_memory_vm_eval,
     * used_memory_vm_functions}; the scripting extension installs the supplier.
     */
    private java.util.function.Supplier<long[]> scriptStats = () -> new long[] {0, 0, 0, 0, 0, 31744, 32768};

    public void setScriptStats(java.util.function.Supplier<long[]> stats) {
        scriptStats = stats;
    }

    public long[] scriptStats() {
        return scriptStats.get();
    }

    /** Counts an error reply that was written without {@link Client#error} (INFO errorstats). */
    public void countErrorReply(String message) {
        countError(message);
    }

    // ---- busy scripts -------------------------------------------------------------------------

    /** While a script runs past busy-reply-threshold: the error other clients get, else null. */
    private String busyError;

    /**
     * Enters (non-null error) or leaves (null) the state where a slow script yields to the event
     * loop: commands without the allow-busy flag are refused with that error, and periodic work
     * that touches data waits.
     */
    /** A synchronous Lua debugging session holds every other client's commands while it runs (see ClientPause). */
    public void scriptDebugPause(boolean on) {
        pause.scriptDebugPause(on);
    }

    /**
     * A forked Lua debugging session runs (SCRIPT DEBUG YES). Redis runs it in a fork()ed child,
     * so nothing it does reaches the server's data, its other clients, the AOF or the replicas.
     * Here it runs on the data set itself while every other client waits (as for SYNC): the
     * keyspace records what it changes, to undo at its end, and its effects go nowhere meanwhile:
     * nothing is propagated or shown to MONITOR, no keyspace event or PUBLISH is delivered, no
     * WATCH, client-side cache or blocked client hears of a change, and no change counts towards
     * a save point.
     */
    private boolean discardingEffects;
    /** Ends the forked debugging session at once (a shutdown), see {@link #killDiscardedSession}. */
    private Runnable discardedSessionKiller;

    /**
     * Starts a forked debugging session's sandbox (see {@link #discardingEffects}); kill ends the
     * session at once, on the way to {@link #endDiscardedSession}.
     */
    public void startDiscardedSession(Runnable kill) {
        keyspace.recordChanges();
        discardingEffects = true;
        discardedSessionKiller = kill;
    }

    /** Ends a forked debugging session: what it changed in the data set is undone. */
    public void endDiscardedSession() {
        if (!discardingEffects) return;
        try {
            keyspace.undoChanges(); // (still discarding: putting keys back is no news to anyone either)
        } finally {
            discardingEffects = false;
            discardedSessionKiller = null;
        }
    }

    /**
     * A shutdown kills a forked debugging session before it saves (Redis's ldbKillForkedSessions),
     * so that nothing the session changed reaches the files.
     */
    public void killDiscardedSession() {
        Runnable kill = discardedSessionKiller;
        if (kill != null) kill.run();
        endDiscardedSession(); // whatever the script did on its way out
    }

    /** Whether a forked debugging session runs, whose effects are thrown away. */
    public boolean discardingEffects() {
        return discardingEffects;
    }

    public void setBusy(String error) {
        busyError = error;
        if (error == null && callDepth == 0) {
            flushPropagation(null);
            if (blocking.hasReady()) blocking.serveReady();
        }
    }

    public String busyError() {
        return busyError;
    }

    public boolean inLoop() {
        return inLoop != null && inLoop.getAsBoolean();
    }

    private IdleHeapReturn heapReturn;

    /**
     * Makes the server run {@code collect} (a full GC that gives free heap back to the OS) once it
     * is idle after its data shrank by half, or grew and left the heap with room to spare (see
     * {@link IdleHeapReturn}). For a standalone server only: it owns the JVM.
     */
    public void setIdleHeapReturn(Runnable collect) {
        heapReturn = collect == null ? null : new IdleHeapReturn(collect, Runtime.getRuntime()::totalMemory);
    }

    /**
     * MEMORY PURGE: a standalone server collects its heap and gives the free part back to the OS,
     * as Redis has jemalloc purge its dirty pages; an embedded one leaves its host's heap alone.
     */
    void purgeHeap() {
        if (heapReturn != null) heapReturn.collectNow(usedMemory());
    }

    /** After a synchronous FLUSHALL/FLUSHDB: see {@link IdleHeapReturn#afterFlush}. */
    public void flushedSynchronously(long usedBefore) {
        if (heapReturn == null) return;
        long used = usedMemory();
        if (heapReturn.afterFlush(usedBefore, used)) {
            log.verbose("Flushed " + (usedBefore - used) + " bytes of data: heap collected, its free part returned to the OS");
        }
    }

    /**
     * What DEBUG SEGFAULT and DEBUG PANIC do: the standalone server ends its process at once, as
     * a crash would (nothing saved; what the fsync policy wrote stays). Null in-process, where
     * the host's JVM must not end: the commands are refused there.
     */
    private Runnable crashHandler;

    public void setCrashHandler(Runnable h) {
        this.crashHandler = h;
    }

    Runnable crashHandler() {
        return crashHandler;
    }

    /** Replication's fields for an RDB saved now ({repl-stream-db, repl-id, repl-offset}), or null. */
    public String[] replicationRdbInfo() {
        return replication.rdbSaveInfo();
    }

    /** Redis's serverPanic: logged, then the standalone process ends at once (in-process: logged only). */
    void crash(String why) {
        if (crashHandler == null) {
            log.warning("Guru Meditation: " + why);
            return;
        }
        CrashReport.log(this, "Guru Meditation: " + why);
        crashHandler.run();
    }

    /** A replica whose link is down with replica-serve-stale-data no: only stale-flagged commands run. */
    public boolean staleDenied() {
        return replication.staleDenied();
    }

    /**
     * The standalone server owns its process: oom-score-adj now sets the process's
     * /proc/self/oom_score_adj (an in-process server leaves its host's alone).
     */
    public void ownProcess() {
        ownsProcess = true;
        try {
            oomScoreAdj.enable();
        } catch (IllegalStateException e) {
            // logged; Redis starts all the same
        }
    }

    private boolean ownsProcess;

    /**
     * A fatal error (Redis's exit(1)): the standalone server's process ends; an in-process
     * server's host is not ended, the error is thrown instead.
     */
    public void exitProcess(int code) {
        if (ownsProcess) Runtime.getRuntime().halt(code);
        throw new IllegalStateException("fatal error, exit code " + code + " (see the log)");
    }

    // ---- sentinel mode ----------------------------------------------------------------------------

    /** Sentinel mode's state (--sentinel), or null for a data server. */
    private io.spinel.core.sentinel.Sentinel sentinel;

    public io.spinel.core.sentinel.Sentinel sentinel() {
        return sentinel;
    }

    /**
     * Turns this engine into a Sentinel (before it serves anyone): only Sentinel's command table
     * exists from now on, with its own PUBLISH and ROLE; the caller loads the "sentinel" lines
     * into {@link io.spinel.core.sentinel.Sentinel#configuration()}, and {@link #start} starts
     * watching.
     */
    public io.spinel.core.sentinel.Sentinel enableSentinel() {
        sentinel = new io.spinel.core.sentinel.Sentinel(this);
        commands.retainOnly(CommandFamilies.SENTINEL_COMMANDS);
        CommandFamilies.registerSentinel(commands);
        acl.useCommands(io.spinel.core.acl.AclCommandSet.sentinel(CommandFamilies.SENTINEL_COMMANDS));
        return sentinel;
    }

    /** Publishes to this server's own subscribers (Sentinel's events). */
    public long publish(byte[] channel, byte[] message) {
        return pubsub.publish(channel, message, false);
    }

    /**
     * Rewrites the configuration file without logging it as CONFIG REWRITE does (Sentinel saves
     * its state this way); the reason it failed, or null.
     */
    public String rewriteConfigFile() {
        return configFileWriter.get();
    }

    private java.util.function.Supplier<String> configFileWriter = () -> "no config file";

    public void setConfigFileWriter(java.util.function.Supplier<String> writer) {
        this.configFileWriter = writer;
    }

    // ---- cluster mode -----------------------------------------------------------------------------

    /** Cluster mode's state (cluster-enabled yes), or null for a standalone server. */
    private io.spinel.core.cluster.Cluster cluster;

    public io.spinel.core.cluster.Cluster cluster() {
        return cluster;
    }

    /**
     * Redis's iAmMaster: in cluster mode what nodes.conf (or the bus) made this node, otherwise
     * whether it follows a master. A replica loading an RDB keeps the keys already expired: its
     * master deletes them, and sends the DELs.
     */
    public boolean iAmMaster() {
        return cluster != null ? cluster.isMaster() : !replication.isReplica();
    }

    /** The replication offset a cluster node announces (its own stream, or what it applied of its master's). */
    public long clusterReplicationOffset() {
        return replication.announcedOffset();
    }

    /**
     * This replica is about to load its master's RDB (the data it served goes): in cluster mode
     * the other nodes learn its offset of 0 at once (CLUSTER SLOTS and SHARDS leave it out until
     * it reports data again), without waiting for the next PING, since the load may be short.
     */
    void replicaLoadStarts() {
        if (cluster != null) cluster.announce();
    }

    /**
     * A cluster replica follows this master (Redis's replicationSetMaster from cluster.c). Not
     * while a data set loads (a bus message handled from a loading poll): the load must end on
     * the link it came from; the cluster's cron points the replica at its master afterwards.
     */
    public void clusterReplicate(String host, int port) {
        if (loading()) return;
        replication.clusterSetMaster(host, port);
    }

    /** Whether this replica's link (up or not) is to that master. */
    public boolean clusterReplicatesFrom(String host, int port) {
        return replication.replicatesFrom(host, port);
    }

    /**
     * Cluster mode with clients served while the data set loads: the bus port opens before the
     * load too (see {@link io.spinel.core.cluster.Cluster#listen}); call once the client port is known.
     */
    public void openClusterBus() {
        if (cluster == null) return;
        try {
            cluster.listen(config.get("bind"), port);
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    public void clusterStopReplicating() {
        replication.clusterUnsetMaster();
    }

    /** How old the replica's data is: since the master last spoke, or since the link went down (ms). */
    public long clusterMasterDataAgeMillis() {
        return replication.masterDataAgeMillis();
    }

    /** A master in a manual failover holds writes until its replica took over, or until {@code until} (0: release). */
    public void clusterPauseWrites(long until) {
        pause.failoverPause(until != 0);
    }

    /** A PUBLISH or SPUBLISH that came over the bus: delivered to this node's subscribers only. */
    public void clusterDeliver(byte[] channel, byte[] message, boolean shard) {
        pubsub.publish(channel, message, shard);
    }

    /** A slot this node (or its master) no longer serves: its shard channels' subscribers are unsubscribed. */
    public void clusterSlotLost(int slot) {
        pubsub.unsubscribeShardSlot(slot);
    }

    /** Drops a key of a slot this node lost, with a DEL propagated (Redis's delKeysInSlot). */
    public void clusterDeleteKey(byte[] key) {
        Db db = keyspace.db(0);
        Object old = db.remove(key, 0, key.length);
        if (old == null) return;
        boolean lazy = config.getBool("lazyfree-lazy-server-del");
        if (lazy) deletedLazily(old);
        transactions.keyTouched(db, key, 0, key.length);
        tracking.keyModified(null, key, 0, key.length);
        if (propagates()) propagate(0, new byte[][] {lazy ? UNLINK : DEL, key});
    }

    /** CLUSTER RESET of a replica: the data set it held of its master goes. */
    public void clusterEmptyData() {
        for (int i = 0; i < keyspace.count(); i++) keyspace.db(i).clear();
    }

    /** The server became a replica or a master: its oom_score_adj class changed. */
    void roleChanged() {
        try {
            oomScoreAdj.apply();
        } catch (IllegalStateException e) {
            // logged
        }
    }

    public void setTls(Tls tls) {
        this.tls = tls;
    }

    /** The network layer's TLS, or null where there is none (CONFIG SET of TLS options then fails). */
    public Tls tls() {
        return tls;
    }

    public void setShutdownHandler(ShutdownHandler h) {
        this.shutdownHandler = h;
    }

    ShutdownHandler shutdownHandler() {
        return shutdownHandler;
    }

    /**
     * SIGTERM or SIGINT, from the signal's thread (Redis's sigShutdownHandler): the next cron tick
     * starts the shutdown as SHUTDOWN's (it may wait for replicas first).
     */
    public void shutdownBySignal(String name) {
        shutdown.bySignal(name);
    }

    /** Whether a signal's shutdown is asked for or under way (a second SIGINT then exits at once). */
    public boolean shutdownSignalled() {
        return shutdown.signalled();
    }

    /** Whether a shutdown waits for replicas (Redis's isShutdownInitiated); any thread may ask. */
    public boolean shutdownInitiated() {
        return shutdown.initiated();
    }

    /** Where the server listens, for INFO (tcp_port) and logs. */
    public void setListenInfo(String host, int port) {
        this.host = host;
        this.port = port;
    }

    public int port() {
        return port;
    }

    public long startedAt() {
        return startedAt;
    }

    public long uptimeMillis() {
        return (System.nanoTime() - startedNanos) / 1_000_000;
    }

    // ---- lifecycle ----------------------------------------------------------------------------

    /** Starts the periodic work (expiry, client timeouts, statistics). Call on the loop thread or before any client. */
    public void start() {
        scheduleCron();
        replication.startUp();
        if (sentinel != null) sentinel.start();
        if (cluster != null) {
            try {
                cluster.start(config.get("bind"), port);
            } catch (java.io.IOException e) {
                throw new IllegalStateException(e.getMessage(), e);
            }
        }
    }

    /** Set by a transport that can serve its connections while the data set loads (see {@link #loadingPoller}). */
    public void setLoadingPoller(Runnable poller) {
        this.loadingPoller = poller;
    }

    /**
     * Turned on around a load that runs outside any command (at start, a replica's load, DEBUG
     * RELOAD and LOADAOF run after their command: {@link #loadAfterCommand}).
     */
    public void setPollingWhileLoading(boolean on) {
        pollingWhileLoading = on && loadingPoller != null;
        lastLoadingPoll = System.nanoTime();
    }

    /**
     * Called by the loaders on the loop thread every so many keys or commands: at most every
     * {@link #LOADING_POLL_NANOS}, serves what the clients sent meanwhile (see {@link #loadingPoller}).
     */
    public void processEventsWhileLoading() {
        pollWhileLoading(true);
    }

    /**
     * Called by a slow script that the load replays (from the AOF), at every step of its hook once
     * past the busy threshold: as {@link #processEventsWhileLoading}, but one poll only, since
     * the script that is busy is the caller (Redis's scriptInterrupt while loading).
     */
    public void processEventsFromLoadingScript() {
        pollWhileLoading(false);
    }

    private void pollWhileLoading(boolean waitForSlowScript) {
        if (!pollingWhileLoading) return;
        long now = System.nanoTime();
        if (now - lastLoadingPoll < LOADING_POLL_NANOS) return;
        lastLoadingPoll = now;
        pollingWhileLoading = false; // a command run from the poll never polls again itself
        try {
            do {
                loadingPoller.run();
                // the replies: the flush queued behind the load would send them only after it
                flushPending();
                // a slow script (a client's, during an async load) yields in slices queued on the
                // loop: the load waits for its end, as Redis's runs below the script's call
            } while (waitForSlowScript && busyError != null && !shutdownWhileLoading && !shutdown.signalled());
        } finally {
            pollingWhileLoading = true;
        }
        // SHUTDOWN from a client served here, or (a replica's load once running) SIGTERM/SIGINT,
        // whose cron cannot run before the load ends: Redis's whileBlockedCron exits there
        if (shutdownWhileLoading || shutdown.signalled()) throw new io.spinel.core.persist.ShutdownWhileLoading();
    }

    /** A DEBUG RELOAD or LOADAOF runs after its command (see {@link #loadAfterCommand}). */
    private boolean loadingAfterCommand;

    boolean loadingAfterCommand() {
        return loadingAfterCommand;
    }

    /**
     * DEBUG RELOAD and DEBUG LOADAOF from a connection (not inside a transaction): the command
     * returns with the data set marked loading and its client's input held, and the load runs
     * right after as a task of its own on the loop, where its polls serve the other clients as at
     * start (-LOADING for most commands), as Redis's load serves them from processEventsWhileBlocked
     * with the DEBUG client protected. The master's stream waits (it would write keys the load
     * brings too); clients blocked on keys are served at the end, when the client gets its reply.
     * Inside a command the load could not serve anyone: the engine runs one command at a time.
     *
     * @param load the load, on the loop; returns null or the error to reply
     */
    public void loadAfterCommand(Client c, java.util.function.Supplier<String> load) {
        keyspace.setLoading(true);
        loadingAfterCommand = true;
        c.pauseInput();
        boolean replyOff = c.replyMode != 0; // CLIENT REPLY OFF or SKIP, as the command ran
        loop.execute(() -> {
            String error = null;
            boolean shutdownAsked = false;
            setPollingWhileLoading(true);
            try {
                error = load.get();
            } catch (io.spinel.core.persist.ShutdownWhileLoading e) {
                shutdownAsked = true;
            } finally {
                setPollingWhileLoading(false);
                keyspace.setLoading(false);
                loadingAfterCommand = false;
            }
            if (shutdownAsked) {
                // SHUTDOWN or a signal served during the load: stop without saving the half-loaded
                // data set, as after a replica's load (Redis's whileBlockedCron)
                shutdownHandler.shutdown(false, true, true, false);
                return;
            }
            // what the end of a command does with what it changed (see call)
            keyspace.settle();
            keyspace.bigValues().release(); // the values the flush dropped
            if (!c.closed) {
                if (replyOff) c.reply.startDiscarding();
                if (error != null) c.error(error);
                else c.reply.ok();
                if (replyOff) c.reply.stopDiscarding();
            }
            if (busyError == null && blocking.hasReady()) blocking.serveReady();
            replication.releaseHeldCommands();
            if (!c.closed) c.resumeInput();
            flushPending();
        });
    }

    /** SHUTDOWN while loading: the load stops at once, nothing is saved (see {@link io.spinel.core.persist.ShutdownWhileLoading}). */
    public void shutdownWhileLoading() {
        shutdownWhileLoading = true;
    }

    /** Whether a shutdown was asked for while loading (a signal that came before the load began too). */
    public boolean shutdownWhileLoadingAsked() {
        return shutdownWhileLoading;
    }

    /**
     * Whether the command must get -LOADING while the data set loads: all but those flagged
     * "loading" (Redis's rule, for EXEC also the queued commands), and DEBUG RELOAD, LOADAOF and
     * POPULATE, which would start a load inside the load or add keys the load may bring too.
     */
    private boolean deniedWhileLoading(Client c, Command cmd) {
        if ((cmd.flags(c) & CommandFlags.LOADING) == 0) return true;
        if (cmd.name.equals("debug")) {
            Args a = c.args();
            return a.count() > 1 && (a.is(1, "reload") || a.is(1, "loadaof") || a.is(1, "populate"));
        }
        return cmd.name.equals("exec") && c.multi != null
                && c.multi.commands.stream().anyMatch(q -> !q.has(CommandFlags.LOADING));
    }

    /**
     * A replica's diskless load with swapdb from the master it already follows (Redis's
     * async_loading): clients go on with the old data set meanwhile, but for the commands flagged
     * no-async-loading (saves, REPLICAOF, CONFIG SET of what a load depends on...).
     */
    private boolean asyncLoading;

    public void setAsyncLoading(boolean on) {
        asyncLoading = on;
    }

    public boolean asyncLoading() {
        return asyncLoading;
    }

    /** A data set loads, async or not (Redis's server.loading covers both). */
    public boolean loading() {
        return keyspace.isLoading() || asyncLoading;
    }

    private boolean deniedWhileAsyncLoading(Client c, Command cmd) {
        if ((cmd.flags(c) & CommandFlags.NO_ASYNC_LOADING) != 0) return true;
        return cmd.name.equals("exec") && c.multi != null
                && c.multi.commands.stream().anyMatch(q -> q.has(CommandFlags.NO_ASYNC_LOADING));
    }

    private void scheduleCron() {
        if (cron != null) cron.cancel(false);
        long periodMicros = 1_000_000L / hz;
        cron = loop.scheduleAtFixedRate(this::serverCron, periodMicros, periodMicros, TimeUnit.MICROSECONDS);
    }

    public void stop() {
        if (cron != null) cron.cancel(false);
        cron = null;
        if (cluster != null) cluster.stop();
        if (sentinel != null) sentinel.stop();
        watchdog.setPeriod(0, hz); // no cron from now on is no stall
        replication.stop();
        persistence.stop();
        keyspace.dropBigValues();
        NativeMemory.releaseKept();
    }

    private long cronLoops;

    /** Redis's serverCron, run hz times per second on the loop thread. */
    void serverCron() {
        // A slow script yielding to the loop still owns the data: nothing may expire or move.
        if (busyError != null || cronPaused) return;
        // (not while a slow script runs: Redis's cron does not either, and its watchdog fires)
        watchdog.tick();
        try {
            keyspace.resyncClock();
            keyspace.updateTime();
            cronLoops++;
            stats.sample(System.nanoTime(), this);
            clientsCron();
            // CLIENT PAUSE keeps the data set still: no active expiry, no eviction
            boolean paused = pause.active();
            // a replica's keys expire when its master deletes them
            // (a cluster replica is one from its start, before its link to the master is up: Redis's iAmMaster)
            if (activeExpireEnabled && !paused && iAmMaster()) {
                long t0 = System.nanoTime();
                keyspace.activeExpireCycle(1_000_000_000L / hz / 4); // 25% of a cron period
                long spent = System.nanoTime() - t0;
                expireCycleNanos += spent;
                latency.sample("expire-cycle", spent / 1_000_000);
            } else if (activeExpireEnabled && !paused) {
                keyspace.expireReplicaKeys(1_000_000_000L / hz / 4); // what its own clients wrote
            }
            evictClients();
            long used = usedMemory();
            guardHeap(used);
            if (maxmemory > 0 && !paused) performEvictions();
            keyspace.bigValues().release(); // what expiry and eviction dropped
            NativeMemory.decay(); // freed big blocks unused for 10 s go back to malloc
            if (heapReturn != null && heapReturn.tick(used, stats.commandsProcessed, System.currentTimeMillis())) {
                log.verbose("Idle with " + used + " bytes of data after it shrank or grew: heap collected, "
                        + "its free part returned to the OS");
            }
            tracking.limitTable();
            if (activeRehashing) keyspace.rehashStep();
            persistence.cron();
            if (cronLoops % hz == 0) replication.cron();
            else replication.failoverTick(); // a FAILOVER's timeout is checked at every tick, as Redis's beforeSleep does
            shutdown.cron();
            flushPending();
        } catch (RuntimeException e) {
            log.warning("Error in server cron: " + e);
        }
    }

    /**
     * The heap's share the data set and the clients may take before writes are refused: Redis
     * grows until the machine's memory ends, a JVM until its heap does, and past that every
     * allocation fails, whatever command makes it. So when what Spinel holds on the heap
     * (used_memory without the big values in native memory) passes 80% of the maximum heap,
     * commands that may add memory get Redis's -OOM error, as with maxmemory, until it is back
     * under; the rest is for the young generation and G1's free regions.
     * ({@code -Dspinel.heapDataShare=F} sets another share, for tests.)
     */
    private final long heapDataLimit = Runtime.getRuntime().maxMemory() == Long.MAX_VALUE ? Long.MAX_VALUE
            : (long) (Runtime.getRuntime().maxMemory() * Double.parseDouble(System.getProperty("spinel.heapDataShare", "0.8")));
    /** What Spinel holds on the heap passed {@link #heapDataLimit} at the last cron tick. */
    private boolean heapFull;

    private void guardHeap(long used) {
        long onHeap = used - keyspace.bigValues().bytes();
        // back under by 5% before writes are taken again: no flapping (and log lines) at the edge
        boolean full = heapFull ? onHeap > heapDataLimit / 20 * 19 : onHeap > heapDataLimit;
        if (full == heapFull) return;
        heapFull = full;
        long mb = 1024 * 1024;
        if (full) {
            log.warning("The Java heap is nearly full: data and client buffers take " + onHeap / mb + " MB of a "
                    + Runtime.getRuntime().maxMemory() / mb + " MB heap. Commands that may use more memory get -OOM "
                    + "until some is freed. Raise the heap (SPINEL_JAVA_OPTS=-Xmx...) or set maxmemory and an "
                    + "eviction policy.");
        } else {
            log.notice("The Java heap has room again (" + onHeap / mb + " MB held): write commands are accepted.");
        }
    }

    /** Idle time after which a client's empty query buffer is given back (Redis: 2 s). */
    private static final long QUERY_BUFFER_IDLE_MS = 2000;

    /** Fewest clients a cron tick looks at (CLIENTS_CRON_MIN_ITERATIONS). */
    private static final int CLIENTS_CRON_MIN = 5;
    /** The clients of the current pass of {@link #clientsCron}, and the next one it looks at. */
    private final ArrayList<Client> cronClients = new ArrayList<>();
    private int cronNext;

    /**
     * Redis's clientsCron: each tick looks at a slice of the clients, so that each one is seen
     * about once a second whatever their number (walking all 5,000 clients of a busy server at
     * every tick cost the event loop 3-5% of its time): an empty query buffer idle for 2 s is
     * given back, an idle client past the timeout closed, and the memory of the others measured
     * again (output the transport sent since; the client eviction below measures every client
     * before it acts).
     */
    private void clientsCron() {
        if (cronNext >= cronClients.size()) {
            cronClients.clear();
            cronClients.addAll(clients.values());
            cronNext = 0;
        }
        int n = cronClients.size();
        int slice = Math.max(n / hz, Math.min(n, CLIENTS_CRON_MIN));
        long now = System.currentTimeMillis();
        for (int end = Math.min(n, cronNext + slice); cronNext < end; cronNext++) {
            Client c = cronClients.get(cronNext);
            cronClients.set(cronNext, null); // a client that goes meanwhile is not kept
            if (c.closed) continue;
            long idleMs = now - c.lastInteraction;
            if (idleTimeoutSeconds > 0 && idleMs > idleTimeoutSeconds * 1000 && c.replica == null) {
                log.verbose("Closing idle client");
                closeClient(c);
                continue;
            }
            if (cluster != null && c.blocked != null) blocking.redirectIfNeeded(c, cluster);
            if (idleMs > QUERY_BUFFER_IDLE_MS) c.reader.releaseIfEmpty();
            if (replyBufferResizing) {
                int resized = c.reply.resizeToPeak(now, replyBufferPeakResetMillis);
                if (resized == io.spinel.core.protocol.Reply.SHRUNK) stats.replyBufferShrinks++;
                else if (resized == io.spinel.core.protocol.Reply.EXPANDED) stats.replyBufferExpands++;
            }
            updateClientMemory(c);
        }
    }

    // ---- clients ------------------------------------------------------------------------------

    /**
     * Registers a new connection. Returns null (after writing the reason to the connection and
     * closing it) when it must be refused: too many clients, or protected mode.
     */
    public Client connect(Client.Connection conn) {
        if (clients.size() + (cluster != null ? cluster.connections() : 0) >= maxClients) {
            byte[] msg = Bytes.ascii(cluster != null ? "-ERR max number of clients + cluster connections reached\r\n"
                    : "-ERR max number of clients reached\r\n");
            conn.write(msg, 0, msg.length);
            conn.flush();
            conn.close();
            stats.rejectedConnections++;
            return null;
        }
        if (protectedMode && acl.defaultUser().nopass() && !conn.isLocal()) {
            byte[] msg = Bytes.ascii(PROTECTED_MODE_DENIED);
            conn.write(msg, 0, msg.length);
            conn.flush();
            conn.close();
            stats.rejectedConnections++;
            return null;
        }
        long now = System.currentTimeMillis();
        Client c = new Client(nextClientId++, this, conn, keyspace.db(0), now);
        c.reply.setSpillGuard(() -> spillVerdict(c));
        if (!replyBufferResizing) c.reply.holdSize(true);
        setDefaultUser(c);
        clients.put(c.id, c);
        c.memTracked = true;
        updateClientMemory(c);
        stats.connectionsReceived++;
        return c;
    }

    /** The connection went away: forget the client. */
    public void disconnected(Client c) {
        if (c.closed) return;
        c.closed = true;
        if (c.inputTaker != null) c.inputTaker.disconnected(c);
        blocking.disconnected(c);
        pause.disconnected(c);
        shutdown.disconnected(c);
        monitors.clientGone(c);
        transactions.clientGone(c);
        pubsub.clientGone(c);
        tracking.clientGone(c);
        replication.clientGone(c);
        clients.remove(c.id);
        untrackClientMemory(c);
        c.reader.reset();
        c.reply.clear();
    }

    /** Closes a client from the server side (CLIENT KILL, timeouts, limits). */
    public void closeClient(Client c) {
        if (c.closed) return;
        disconnected(c);
        c.connection.close();
    }

    private final byte[] digitScratch = new byte[20];

    /**
     * Room for a long's decimal digits that a command hands to a structure which copies them
     * (HINCRBY into a hash): the executor's own, never kept past the call that filled it.
     */
    public byte[] digitScratch() {
        return digitScratch;
    }

    SharedQueryBuffer sharedQueryBuffer() {
        return sharedQueryBuffer;
    }

    public long nextClientId() {
        return nextClientId;
    }

    // ---- input and dispatch -------------------------------------------------------------------

    /** A Lua debugging session reads this client's commands: hand them over while it waits for them. */
    private void feedInputTaker(Client c) {
        RespReader reader = c.reader;
        while (c.inputTaker != null && !c.closed) {
            int r = reader.next(false, protoMaxBulkLen);
            if (r == RespReader.NEED_MORE) return;
            if (r == RespReader.ERROR) {
                Client.InputTaker t = c.inputTaker;
                String error = reader.error();
                c.closeAfterReply();
                t.protocolError(c, error);
                return;
            }
            if (r == RespReader.COMMAND) {
                c.inputTaker.take(c);
                reader.consumed();
            }
        }
    }

    /** New bytes are in the client's query buffer: run every complete command. */
    public void processInput(Client c) {
        RespReader reader = c.reader;
        if (c.closed) {
            reader.detach();
            return;
        }
        long clock = System.nanoTime();
        c.lastInteraction = keyspace.systemMillis(clock);
        if (c.inputTaker != null) {
            feedInputTaker(c);
            reader.detach();
            return;
        }
        // (a client over its output buffer limit runs nothing more of what it pipelined, as Redis's CLOSE_ASAP)
        while (!c.closed && !c.closeAfterReply && !c.paused && !c.closeAsap) {
            int r = reader.next(authRequired(c), protoMaxBulkLen);
            if (r == RespReader.NEED_MORE) break;
            if (r == RespReader.ERROR) {
                c.error("ERR " + reader.error());
                log.verbose("Protocol error (" + reader.error() + ") from client: " + c.connection.remoteAddress());
                c.closeAfterReply();
                break;
            }
            if (r == RespReader.COMMAND) {
                callStartNanos = clock;
                lastCallEndNanos = 0;
                // a replica's link carries the stream to it, never replies (REPLCONF answers nothing)
                boolean onReplicaLink = c.replica != null && !c.monitor && !c.args.is(0, "replconf");
                int replyMark = onReplicaLink ? c.reply.length() : 0;
                long replyTotal = onReplicaLink ? c.reply.totalBytes() : 0;
                processCommand(c);
                // ASKING covers the next command only (a transaction's queued ones until EXEC)
                if (c.clusterAsking && c.multi == null && c.lastCommand != null && !c.lastCommand.name.equals("asking")) {
                    c.clusterAsking = false;
                }
                if (onReplicaLink && (c.reply.length() != replyMark || c.reply.totalBytes() != replyTotal)) {
                    rogueReplica(c, replyMark); // (closes it: the loop ends)
                }
                callStartNanos = 0; // not taken (refused, queued by MULTI): never reused later
                reader.consumed();
                // the reply just produced, as Redis measures after each command
                updateClientMemory(c);
                // a pipelined command starts when the one before it ended, as far as timing goes
                clock = lastCallEndNanos != 0 ? lastCallEndNanos : System.nanoTime();
            } else {
                reader.consumed();
            }
        }
        // what is left of a command still arriving moves out of the shared query buffer
        reader.detach();
        if (!c.closed && reader.pending() > queryBufferLimit) {
            log.warning("Closing client that reached max query buffer length: id=" + c.id + " addr="
                    + c.connection.remoteAddress() + " qbuf=" + reader.pending());
            closeClient(c);
            return;
        }
        // a command that is still arriving grows the query buffer: it counts too
        updateClientMemory(c);
        // also when the reply left already (a big one spills to the connection as it is made, a
        // native value is written from where it lies): what the socket did not take at once
        // waits in the transport for the batch's flush
        if (c.reply.hasPending() || c.reply.totalBytes() != c.outputCounted) c.markPendingWrite();
    }

    /**
     * A replica sent a command that answered something (Redis's check in _addReplyToBufferOrList):
     * the answer would corrupt the stream it reads, so it is dropped and the replica with it.
     */
    private void rogueReplica(Client c, int replyMark) {
        String error = null;
        if (c.reply.length() > replyMark) {
            byte[] b = c.reply.buffer();
            if (b[replyMark] == '-') {
                int end = replyMark;
                while (end < c.reply.length() && b[end] != '\r') end++;
                error = new String(b, replyMark + 1, Math.min(end - replyMark - 1, 4096), java.nio.charset.StandardCharsets.ISO_8859_1);
                if (error.startsWith("ERR ")) error = error.substring(4);
            }
        }
        if (c.reply.length() >= replyMark) c.reply.truncate(replyMark);
        String name = c.lastCommand != null ? c.lastCommand.name : "<unknown>";
        log.warning("Replica generated a reply to command '" + name + "', disconnecting it: "
                + ConnectionCommands.clientInfo(c));
        if (error != null) {
            // (Redis's afterErrorReply, for a replica's client)
            log.warning("== CRITICAL == This master is sending an error to its replica: '" + error
                    + "' after processing the command '" + name + "'");
            stats.unexpectedErrorReplies++;
        }
        closeClient(c);
    }

    /** Redis's processCommand: the checks before running a command, in Redis's order. */
    void processCommand(Client c) {
        Args args = c.args;
        if (args.is(0, "host:") || args.is(0, "post")) {
            log.warning("Possible SECURITY ATTACK detected: a client sent an HTTP 'POST' or 'Host:' line, "
                    + "as a cross-protocol attack from a web page would. Connection aborted.");
            closeClient(c);
            return;
        }
        Command cmd = commands.resolve(args);
        if (cmd == null) {
            if (args.count() > 1 && commands.isContainer(args.buf(0), args.off(0), args.len(0))) {
                reject(c, null, "ERR unknown subcommand '" + truncate(args.cString(1), 128) + "'. Try "
                        + args.string(0).toUpperCase() + " HELP.");
            } else {
                reject(c, null, unknownCommandMessage(args));
            }
            return;
        }
        c.lastCommand = cmd;
        if (!cmd.arityOk(args.count())) {
            reject(c, cmd, "ERR wrong number of arguments for '" + cmd.name + "' command");
            return;
        }
        if (cmd.has(CommandFlags.PROTECTED) || (cmd.parent != null && cmd.parent.has(CommandFlags.PROTECTED))) {
            String top = cmd.parent != null ? cmd.parent.name : cmd.name;
            String setting = top.equals("debug") ? enableDebugCommand : enableModuleCommand;
            if (setting.equals("no") || (setting.equals("local") && !c.connection.isLocal())) {
                String option = top.equals("debug") ? "enable-debug-command" : "enable-module-command";
                reject(c, cmd, "ERR " + top.toUpperCase() + " command not allowed. If the " + option
                        + " option is set to \"local\", you can run it from a local connection, otherwise you "
                        + "need to set this option in the configuration file, and then restart the server.");
                return;
            }
        }
        if (authRequired(c) && !cmd.has(CommandFlags.NO_AUTH)) {
            reject(c, cmd, "NOAUTH Authentication required.");
            return;
        }
        if (c.multi != null && cmd.has(CommandFlags.NO_MULTI)) {
            reject(c, cmd, "ERR Command not allowed inside a transaction");
            return;
        }
        if (!c.user.unrestricted() && aclDenied(c, cmd, args)) return;
        // cluster mode: a command for keys this node does not serve is redirected (Redis checks
        // after the ACL, before anything else); a master's stream and commands without keys pass
        if (cluster != null) c.clusterSlot = -1;
        if (cluster != null && !c.mustObey() && (cmd.has(CommandFlags.MOVABLEKEYS) || !cmd.keySpecs.isEmpty()
                || cmd.name.equals("exec")) && clusterRedirected(c, cmd, args)) {
            return;
        }
        tracking.limitTable();
        // Clients that use too much go first (before keys), once the last command's output is counted.
        evictClients();
        if (c.closed) return;
        // no memory check while a slow script yields (Redis skips it; the command gets BUSY below)
        // (nor while the data set loads: Redis evicts nothing then either)
        // (the common case, no maxmemory and room on the heap, decided by the first two fields)
        boolean oom = (maxmemory > 0 || heapFull) && busyError == null && !keyspace.isLoading()
                && (maxmemory > 0 && !pause.active() && performEvictions() == Evictor.FAIL || heapFull);
        if (busyError == null) preCommandOom = oom;
        if (oom) {
            boolean denyoom = (cmd.flags(c) & CommandFlags.DENYOOM) != 0 || execQueues(c, cmd, CommandFlags.DENYOOM);
            if (c.multi != null && !cmd.name.equals("exec") && !cmd.name.equals("discard")
                    && !cmd.name.equals("quit") && !cmd.name.equals("reset")) {
                denyoom = true;
            }
            if (denyoom) {
                reject(c, cmd, "OOM command not allowed when used memory > 'maxmemory'.");
                return;
            }
        }
        String diskError = persistence.writeDeniedReason();
        if (diskError != null && ((cmd.flags(c) & CommandFlags.WRITE) != 0 || cmd.name.equals("ping")
                || execQueues(c, cmd, CommandFlags.WRITE))) {
            reject(c, cmd, diskError);
            return;
        }
        if (!hasGoodReplicas() && ((cmd.flags(c) & CommandFlags.WRITE) != 0 || execQueues(c, cmd, CommandFlags.WRITE))) {
            reject(c, cmd, "NOREPLICAS Not enough good replicas to write.");
            return;
        }
        if (replication.readOnlyReplica() && ((cmd.flags(c) & CommandFlags.WRITE) != 0 || execQueues(c, cmd, CommandFlags.WRITE))) {
            reject(c, cmd, "READONLY You can't write against a read only replica.");
            return;
        }
        if (c.resp() == 2 && PubSub.isSubscribed(c) && !allowedWhileSubscribed(cmd)) {
            reject(c, cmd, "ERR Can't execute '" + cmd.name + "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / "
                    + "QUIT / RESET are allowed in this context");
            return;
        }
        // (a script's declared flags count: a function without allow-stale gets MASTERDOWN)
        if (replication.staleDenied() && ((cmd.flags(c) & CommandFlags.STALE) == 0
                || (cmd.name.equals("exec") && c.multi != null && (c.multi.queuedInvFlags & CommandFlags.STALE) != 0))) {
            reject(c, cmd, "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.");
            return;
        }
        if (keyspace.isLoading() && deniedWhileLoading(c, cmd)) {
            reject(c, cmd, "LOADING Redis is loading the dataset in memory");
            return;
        }
        if (asyncLoading && deniedWhileAsyncLoading(c, cmd)) {
            reject(c, cmd, "LOADING Redis is loading the dataset in memory");
            return;
        }
        if (busyError != null && !cmd.has(CommandFlags.ALLOW_BUSY)) {
            reject(c, cmd, busyError);
            return;
        }
        // a replica's link, and a MONITOR client (a replica to Redis), may not touch the keyspace
        if ((c.monitor || c.replica != null) && ((cmd.flags(c) & (CommandFlags.WRITE | CommandFlags.READONLY)) != 0
                || ClientPause.mayReplicate(c, cmd))) {
            reject(c, cmd, "ERR Replica can't interact with the keyspace");
            return;
        }
        // CLIENT PAUSE holds the command (not refused) until the pause ends; a MONITOR client is never held
        if (pause.holds(c, cmd) && !c.monitor) {
            pause.postpone(c);
            return;
        }
        if (c.multi != null) {
            if (!Transactions.runsImmediately(cmd)) {
                transactions.queue(c, cmd);
                return;
            }
        }
        call(c, cmd);
    }

    /** The cluster's routing check; true when the command was answered with a redirection or refusal. */
    private boolean clusterRedirected(Client c, Command cmd, Args args) {
        boolean exec = cmd.name.equals("exec");
        if (exec && c.multi == null) return false;
        io.spinel.core.cluster.ClusterCommands.Route route = exec
                ? io.spinel.core.cluster.ClusterCommands.route(c, cluster, cmd, args, c.multi.commands, c.multi.argvs,
                        c.multi.queuedFlags)
                : io.spinel.core.cluster.ClusterCommands.route(c, cluster, cmd, args, null, null, 0);
        c.clusterSlot = route.slot;
        String error = route.errorReply();
        if (error == null) return false;
        if (exec) transactions.discardTransaction(c);
        else if (c.multi != null) c.multi.dirtyExec = true;
        cmd.rejectedCalls++;
        c.error(error);
        return true;
    }

    private static boolean allowedWhileSubscribed(Command cmd) {
        switch (cmd.name) {
            case "ping":
            case "subscribe":
            case "ssubscribe":
            case "unsubscribe":
            case "sunsubscribe":
            case "psubscribe":
            case "punsubscribe":
            case "quit":
            case "reset":
                return true;
            default:
                return false;
        }
    }

    /**
     * A System.nanoTime() reading that the next call() takes as its start instead of reading the
     * clock (0: none): processInput hands over the end of the command before, so a pipeline of N
     * commands reads the clock N + 1 times instead of 3N + 1. What a command is timed for then
     * includes parsing it and the checks before it runs, tens of nanoseconds.
     */
    private long callStartNanos;
    /** When the last top-level call() stopped timing its command, if nothing ran after it; else 0. */
    private long lastCallEndNanos;

    /**
     * The ACL check of processCommand, apart so that the common case (a user who may run
     * anything) costs processCommand one test: true when the command was refused.
     */
    private boolean aclDenied(Client c, Command cmd, Args args) {
        int denied = aclCheck(c, c.user, cmd, args, c.multi != null ? "multi" : "toplevel");
        if (denied == io.spinel.core.acl.Acl.OK) return false;
        reject(c, cmd, switch (denied) {
            case io.spinel.core.acl.Acl.DENIED_CMD -> "NOPERM this user has no permissions to run the '" + cmd.name
                    + "' command";
            case io.spinel.core.acl.Acl.DENIED_KEY ->
                    "NOPERM this user has no permissions to access one of the keys used as arguments";
            default -> "NOPERM this user has no permissions to access one of the channels used as arguments";
        });
        return true;
    }

    /** Runs a command and accounts for it (Redis's call()). */
    void call(Client c, Command cmd) {
        long start = callStartNanos;
        if (start != 0) callStartNanos = 0;
        else start = System.nanoTime();
        keyspace.updateTime(start);
        boolean discard = c.replyMode != 0;
        if (discard) c.reply.startDiscarding();
        Command outer = c.currentCommand;
        Client outerClient = currentClient;
        c.currentCommand = cmd;
        currentClient = c;
        callDepth++;
        long dirtyBefore = dirty;
        byte[][] outerPropagateAs = c.propagateAs;
        int outerPropagation = c.propagation;
        c.propagateAs = null;
        c.propagation = 0;
        // scripts are shown before the commands they run (Redis feeds EVAL/FCALL in their handlers)
        if (monitors.count != 0 && Monitors.feedsFirst(cmd) && !replaying && !discardingEffects) monitors.feed(c);
        try {
            cmd.handler().execute(c);
            if (c.tracking != null) tracking.afterCommand(c, cmd);
            else if (c.script && scriptCaller != null && scriptCaller.tracking != null) {
                tracking.afterScriptCommand(scriptCaller, cmd);
            }
        } catch (CommandError e) {
            c.error(e.getMessage());
            cmd.failedCalls++;
        } catch (OutOfMemoryError e) {
            // the JVM heap is exhausted: refuse this command, keep the server alive
            log.warning("Out of heap memory while running '" + cmd.name + "': set maxmemory below the heap size");
            c.error("OOM command not allowed when used memory > 'maxmemory'.");
            cmd.failedCalls++;
        } catch (RuntimeException e) {
            java.io.StringWriter sw = new java.io.StringWriter();
            e.printStackTrace(new java.io.PrintWriter(sw));
            log.warning("Error while running '" + cmd.name + "': " + sw);
            c.error("ERR internal error: " + e);
            cmd.failedCalls++;
        } finally {
            // EXEC is never propagated itself: the commands it ran were, and are wrapped below
            if (discardingEffects) dirty = dirtyBefore; // nothing for a save point to count
            if (!propagationListeners.isEmpty() && !discardingEffects && c.propagation != Client.PREVENT_PROPAGATION
                    && (dirty > dirtyBefore || c.propagation != 0)
                    && !cmd.name.equals("exec")) {
                int targets = dirty == dirtyBefore && c.propagation == Client.FORCE_REPLICA_PROPAGATION
                        ? PROPAGATE_REPL : PROPAGATE_AOF | PROPAGATE_REPL;
                targets &= c.propagationTargets; // a script's redis.set_repl
                // queued only when a target takes it: it then counts towards the MULTI/EXEC wrapping
                if (anyListens(targets)) {
                    pendingPropagation.add(new Propagated(c.db.id(),
                            c.propagateAs != null ? c.propagateAs : c.args.toArrays(), targets));
                }
            }
            c.propagateAs = outerPropagateAs;
            c.propagation = outerPropagation;
            c.currentCommand = outer;
            currentClient = outerClient;
            callDepth--;
        }
        long end = System.nanoTime();
        long nanos = end - start;
        long micros = nanos / 1000;
        // a command that blocked counts as one call when it is served, as in Redis
        if (c.blockedInCall) c.blockedInCall = false;
        else cmd.calls++;
        cmd.nanos += nanos;
        stats.commandsProcessed++;
        lastCallMicros = micros;
        if (!replaying) afterCall(c, cmd, micros);
        if (discard) {
            c.reply.stopDiscarding();
            if (c.replyMode == 2) c.replyMode = 0; // SKIP covered exactly one command
        }
        if (c.skipThisReply) {
            c.skipThisReply = false;
            c.replyMode = 2;
        }
        if (callDepth == 0) {
            keyspace.settle();
            long offset = replication.offset();
            flushPropagation(cmd);
            if (replication.offset() != offset) c.replWriteOffset = replication.offset();
            // after propagation and the slow log, which may still read a SET's or MSET's native values
            keyspace.bigValues().release();
            tracking.flushPendingForCurrent(c);
            // (not from a command served during a load: the clients blocked on keys wait for its end)
            if (busyError == null && blocking.hasReady() && !keyspace.isLoading()) {
                blocking.serveReady();
                end = 0; // other clients' commands ran since: the next command reads the clock
            }
            lastCallEndNanos = end;
        }
    }

    /**
     * Redis's call() bookkeeping after a command ran: the latency monitor, the slow log, the
     * latency histogram and MONITOR. A command that blocked is logged and measured when it is
     * served ({@link #commandUnblocked}), and its retries are not shown to monitors again.
     * Every step here is a field check unless its feature is in use.
     */
    private void afterCall(Client c, Command cmd, long micros) {
        if (latency.thresholdMs != 0) latency.sample(cmd.has(CommandFlags.FAST) ? "fast-command" : "command", micros / 1000);
        if (monitors.count != 0 && (cmd.flags & (CommandFlags.SKIP_MONITOR | CommandFlags.ADMIN)) == 0
                && !blocking.isRetrying(c) && !discardingEffects) {
            monitors.feed(c);
        }
        if (c.blocked != null) return;
        if (micros >= slowlog.slowerThan && slowlog.slowerThan >= 0) slowlog.push(c, cmd, micros);
        if (latency.tracking) latency.record(cmd, micros);
    }

    /** A blocked client's command was served at last (Redis's updateStatsOnUnblock): log it now. */
    void commandUnblocked(Client c, Command cmd, long micros) {
        if (micros >= slowlog.slowerThan && slowlog.slowerThan >= 0) slowlog.push(c, cmd, micros);
        if (latency.tracking) latency.record(cmd, micros);
        if (latency.thresholdMs != 0) latency.sample("command-unblocking", micros / 1000);
    }

    /** Evicts down to maxmemory, recording an eviction-cycle latency event when it takes long. */
    private int performEvictions() {
        // a replica holds what its master holds (replica-ignore-maxmemory): the master evicts
        if (replication.isReplica() && config.getBool("replica-ignore-maxmemory")) return Evictor.OK;
        if (latency.thresholdMs == 0) return evictor.perform(maxmemory);
        long t0 = System.nanoTime();
        int r = evictor.perform(maxmemory);
        latency.sample("eviction-cycle", (System.nanoTime() - t0) / 1_000_000);
        return r;
    }

    /** Whether latency-monitor-threshold is set (code outside this package times its events only then). */
    public boolean latencyMonitorOn() {
        return latency.thresholdMs != 0;
    }

    /** Records a latency monitor event of the given duration if it reaches the threshold. */
    public void latencySample(String event, long ms) {
        latency.sample(event, ms);
    }

    /** Duration of the last command call() ran, for the blocking code's accounting. */
    long lastCallMicros;

    // ---- propagation (AOF, and replicas later) --------------------------------------------------

    /** Receives every write as Redis propagates it: the database it applies to and the command. */
    public interface PropagationListener {
        void propagate(int db, byte[][] argv);

        /**
         * What this listener takes now: {@link #PROPAGATE_AOF} (the AOF), {@link #PROPAGATE_REPL}
         * (replicas, which also get what only they are meant to: PUBLISH), or 0 (nothing: a
         * replica's backlog is fed its master's stream as it came, not its own propagation).
         */
        default int target() {
            return PROPAGATE_AOF;
        }
    }

    /** Where a command propagates (Redis's PROPAGATE_AOF and PROPAGATE_REPL): the AOF... */
    public static final int PROPAGATE_AOF = 1;
    /** ...and the replicas (PUBLISH only there, and a script's commands as redis.set_repl says). */
    public static final int PROPAGATE_REPL = 2;

    /** A command to propagate, and to which of the AOF and the replicas. */
    private record Propagated(int db, byte[][] argv, int targets) {
    }

    private final ArrayList<PropagationListener> propagationListeners = new ArrayList<>(1);
    /** What the outermost running command (and everything it ran) propagates, in order. */
    private final ArrayList<Propagated> pendingPropagation = new ArrayList<>();
    private boolean lazyfreeLazyExpire;
    private boolean lazyfreeLazyEviction;
    private boolean lazyfreeLazyUserDel;
    private boolean lazyfreeLazyUserFlush;
    /** INFO lazyfreed_objects: values Redis would have freed on its lazy-free thread (see LazyFree). */
    private long lazyfreedObjects;

    /** DEL deletes lazily (lazyfree-lazy-user-del), as UNLINK always does. */
    public boolean lazyUserDel() {
        return lazyfreeLazyUserDel;
    }

    /** FLUSHALL/FLUSHDB without SYNC or ASYNC flush lazily (lazyfree-lazy-user-flush). */
    public boolean lazyUserFlush() {
        return lazyfreeLazyUserFlush;
    }

    /** A value deleted lazily (UNLINK, lazy DEL, expiry or eviction): counted as Redis counts it. */
    public void deletedLazily(Object entry) {
        if (LazyFree.freedInBackground(entry)) lazyfreedObjects++;
    }

    /** FLUSHALL/FLUSHDB ASYNC dropped this many keys: Redis counts each as lazily freed. */
    public void flushedLazily(long keys) {
        lazyfreedObjects += keys;
    }

    long lazyfreedObjects() {
        return lazyfreedObjects;
    }
    private static final byte[][] MULTI = {Bytes.ascii("MULTI")};
    private static final byte[][] EXEC = {Bytes.ascii("EXEC")};

    /**
     * Runs task with no propagation listener attached: what it runs changes memory only (DEBUG
     * LOADAOF replays the AOF, which must not be written to the AOF again).
     */
    public void withoutPropagation(Runnable task) {
        ArrayList<PropagationListener> attached = new ArrayList<>(propagationListeners);
        propagationListeners.clear();
        try {
            task.run();
        } finally {
            propagationListeners.addAll(attached);
        }
    }

    /** Whether scripts may call commands flagged noscript (DEBUG SET-DISABLE-DENY-SCRIPTS). */
    public boolean scriptDenyDisabled() {
        return scriptDenyDisabled;
    }

    /** Whether checksums of RESTORE payloads and RDB files are not checked (DEBUG SET-SKIP-CHECKSUM-VALIDATION). */
    public boolean skipsChecksumValidation() {
        return skipChecksumValidation;
    }

    /** Whether any listener receives propagated commands (see {@link Client#propagates()}). */
    public boolean propagates() {
        return anyListens(PROPAGATE_AOF | PROPAGATE_REPL);
    }

    /** Whether a listener takes what goes to these targets (Redis's shouldPropagate). */
    private boolean anyListens(int targets) {
        for (int i = 0; i < propagationListeners.size(); i++) {
            if ((targets & propagationListeners.get(i).target()) != 0) return true;
        }
        return false;
    }

    public void addPropagationListener(PropagationListener l) {
        propagationListeners.add(l);
    }

    public void removePropagationListener(PropagationListener l) {
        propagationListeners.remove(l);
    }

    /**
     * Propagates a command as if the running command had executed it (scripts propagating their
     * effects, lazily expired keys), or at once outside any command (active expiry). Within a
     * command it is queued with the command's own propagation, and the whole lot is wrapped in
     * MULTI/EXEC when it is more than one command, as Redis's propagatePendingCommands does.
     */
    public void propagate(int db, byte[][] argv) {
        if (!propagates() || discardingEffects) return;
        if (callDepth > 0) {
            pendingPropagation.add(new Propagated(db, argv, PROPAGATE_AOF | PROPAGATE_REPL));
        } else {
            for (PropagationListener l : propagationListeners) l.propagate(db, argv);
        }
    }

    private void flushPropagation(Command cmd) {
        int n = pendingPropagation.size();
        if (n == 0) return;
        // a slow script yielding to the event loop runs in slices: its effects go out (wrapped in
        // one MULTI/EXEC) when it ends, see setBusy
        if (busyError != null) return;
        // RANDOMKEY and SCAN may expire several keys: like active expiry, no transaction for that
        boolean transaction = n > 1 && (cmd == null || (!cmd.name.equals("randomkey") && !cmd.name.equals("scan")));
        try {
            for (PropagationListener l : propagationListeners) {
                // as Redis: MULTI/EXEC go to every target when more than one command was queued
                if (transaction) l.propagate(pendingPropagation.get(0).db, MULTI);
                int target = l.target();
                for (int i = 0; i < n; i++) {
                    Propagated p = pendingPropagation.get(i);
                    if ((p.targets & target) != 0) l.propagate(p.db, p.argv);
                }
                if (transaction) l.propagate(pendingPropagation.get(n - 1).db, EXEC);
            }
        } finally {
            pendingPropagation.clear();
        }
    }

    /**
     * Whether cmd is an EXEC whose queued commands have the flag, as they were when queued (Redis's
     * mstate.cmd_flags: a script's own flags count, not EVAL's).
     */
    private static boolean execQueues(Client c, Command cmd, int flag) {
        return c.multi != null && (c.multi.queuedFlags & flag) != 0 && cmd.name.equals("exec");
    }

    /** Whether a command is running (invalidations for its own client wait for its reply). */
    boolean inCommand() {
        return callDepth > 0;
    }

    private void reject(Client c, Command cmd, String message) {
        if (cmd != null) cmd.rejectedCalls++;
        if (c.multi != null) c.multi.dirtyExec = true;
        if (cmd != null && cmd.name.equals("exec")) {
            // Redis's rejectCommand: any EXEC refused before it runs, in a transaction or not
            // (after RESET, say), ends as an aborted transaction; its formatted reasons (arity,
            // the pub/sub context) carry no ERR there
            transactions.discardTransaction(c); // WATCHed keys too, as Redis's discardTransaction
            c.error("EXECABORT Transaction discarded because of: "
                    + (message.startsWith("ERR ") ? message.substring(4) : message));
            // monitors saw MULTI: they see the transaction end (Redis feeds them either way)
            if (monitors.count != 0) monitors.feed(c);
            return;
        }
        c.error(message);
    }

    private static String unknownCommandMessage(Args args) {
        String name = args.cString(0);
        StringBuilder sb = new StringBuilder();
        // Arguments shown until the preview reaches 128 chars, each cut to what fits.
        for (int i = 1; i < args.count() && sb.length() < 128; i++) {
            String a = args.cString(i);
            int room = 128 - sb.length();
            sb.append('\'').append(a, 0, Math.min(a.length(), room)).append("' ");
        }
        return "ERR unknown command '" + truncate(name, 128) + "', with args beginning with: " + sb;
    }

    static String truncate(String s, int n) {
        return s.length() <= n ? s : s.substring(0, n);
    }

    /** Counts an error reply for INFO errorstats (by the first word) and total_error_replies. */
    void countError(String message) {
        stats.errorReplies++;
        int sp = message.indexOf(' ');
        String code = sp < 0 ? message : message.substring(0, sp);
        stats.errorCodes.merge(code, 1L, Long::sum);
    }

    private boolean flushScheduled;
    private final Runnable scheduledFlush = () -> {
        flushScheduled = false;
        flushPending();
    };

    /**
     * Flushes once this turn of the event loop has read every ready connection (Redis writes
     * replies in beforeSleep the same way): a PUBLISH from each of many publishers then costs one
     * write per subscriber per turn, not one per message.
     */
    public void flushSoon() {
        if (flushScheduled) return;
        flushScheduled = true;
        loop().execute(scheduledFlush);
    }

    /** Sends what every client with pending output has; called once per read batch. */
    public void flushPending() {
        // cluster configuration changes reach nodes.conf before the replies that report them
        // (not from the polls of a load: Redis's beforeSleep leaves the cluster's work for after it)
        if (cluster != null && !keyspace.isLoading()) cluster.beforeSleep();
        // the AOF reaches the disk (and with appendfsync always, stable storage) before any reply
        persistence.beforeReplies();
        replication.beforeReplies();
        tracking.broadcast();
        ArrayList<Client> list = pendingWrites;
        int n = list.size();
        for (int i = 0; i < n; i++) {
            Client c = list.get(i);
            c.pendingWrite = false;
            if (c.closed) continue;
            if (c.closeAsap) { // over its output buffer limit: what it was owed is dropped, not sent
                c.reply.clear();
                continue;
            }
            c.reply.drain();
            // counted from the reply's total: big replies also leave mid-command (spills, values
            // written from native memory), not only here
            long out = c.reply.totalBytes();
            if (out != c.outputCounted) {
                // one write to the client per batch, as Redis counts its writeToClient calls
                stats.writesProcessed++;
                if (ioThreadsActive) stats.ioThreadedWrites++;
            }
            if (c.replica == null) stats.netOutputBytes += out - c.outputCounted;
            else stats.netReplOutputBytes += out - c.outputCounted;
            c.outputCounted = out;
            c.connection.flush();
            if (c.closeAfterReply) {
                disconnected(c);
                c.connection.close();
            } else {
                // what the transport could not send yet is still this client's memory
                updateClientMemory(c);
            }
        }
        list.clear();
        evictClients();
    }

    // ---- events -------------------------------------------------------------------------------

    /** Changes since the last save (Redis's server.dirty); writes add to it. */
    public long dirty;
    /** notify-keyspace-events as Notify bits; 0 means no notifications are wanted. */
    int notifyFlags;

    /**
     * A key's value changed (Redis's signalModifiedKey): invalidates WATCHes and client-side
     * caches that hold it. Commands call this for every key they modify.
     */
    public void keyModified(Db db, byte[] k, int off, int len) {
        if (discardingEffects) return;
        blocking.keyTouched(db, k, off, len);
        transactions.keyTouched(db, k, off, len);
        tracking.keyModified(trackingClient(), k, off, len);
    }

    /**
     * Clients blocked on the key may now be served, though the key did not change for WATCH or
     * client-side caching (Redis's signalKeyAsReady without signalModifiedKey: XGROUP DESTROY).
     */
    public void keyReady(Db db, byte[] k, int off, int len) {
        if (discardingEffects) return;
        blocking.keyTouched(db, k, off, len);
    }

    // ---- ACL ----------------------------------------------------------------------------------

    public io.spinel.core.acl.Acl acl() {
        return acl;
    }

    /** A connection's user and state as it starts, and after RESET: the default user, authenticated if it needs no password. */
    void setDefaultUser(Client c) {
        io.spinel.core.acl.AclUser d = acl.defaultUser();
        c.user = d;
        c.authenticated = d.nopass() && d.enabled();
    }

    /** Redis's authRequired: the default user needs a password (or is off) and the client has not authenticated. */
    boolean authRequired(Client c) {
        if (c.authenticated) return false;
        io.spinel.core.acl.AclUser d = acl.defaultUser();
        return !d.nopass() || !d.enabled();
    }

    /**
     * Checks a command against a user's permissions and logs a denial (context "toplevel",
     * "multi" or "lua"); returns the Acl result. {@code c} is the client that asks (for a script,
     * its caller), args the command's arguments.
     */
    public int aclCheck(Client c, io.spinel.core.acl.AclUser user, Command cmd, Args args, String context) {
        int denied = acl.check(user, cmd, args);
        if (denied != io.spinel.core.acl.Acl.OK) {
            int pos = acl.deniedPos();
            byte[] object = denied == io.spinel.core.acl.Acl.DENIED_CMD ? Bytes.ascii(cmd.name) : args.copy(pos);
            acl.log(denied, context, object, user.name, ConnectionCommands.clientInfo(c));
        }
        return denied;
    }

    /**
     * Whether the client's user may run its current command and read every key (SORT's BY and
     * GET patterns read keys the arguments do not name: Redis's ACLUserCheckCmdWithUnrestrictedKeyAccess).
     */
    public boolean mayReadEveryKey(Client c) {
        return c.user.unrestricted() || acl.checkWithEveryKey(c.user, c.currentCommand, c.args, false);
    }

    /** Whether this server refuses the client's writes: a read-only replica, unless the client is its master's. */
    public boolean deniesWritesFrom(Client c) {
        return replication.readOnlyReplica() && !replication.isMasterClient(c);
    }

    /** The user a client runs as. */
    public io.spinel.core.acl.AclUser userOf(Client c) {
        return c.user;
    }

    /**
     * The check of a command a script runs (Redis's scriptVerifyACL): the script's client takes
     * its caller's user, and a denial is logged as the caller's, in context "lua".
     */
    public int aclCheckFromScript(Client caller, Client scriptClient, Command cmd, Args args) {
        scriptClient.user = caller.user;
        if (caller.user.unrestricted()) return io.spinel.core.acl.Acl.OK;
        return aclCheck(caller, caller.user, cmd, args, "lua");
    }

    /** What the ACL asks of the connected clients when users go or lose channels. */
    private final class AclClients implements io.spinel.core.acl.Acl.Hooks {
        @Override
        public void userRemoved(io.spinel.core.acl.AclUser u) {
            for (Client c : new ArrayList<>(clients.values())) {
                if (c.user != u) continue;
                c.user = acl.defaultUser();
                c.authenticated = false;
                if (c == currentClient) c.closeAfterReply();
                else closeClient(c);
            }
        }

        @Override
        public void channelsRevoked(io.spinel.core.acl.AclUser u, List<String> allowed) {
            for (Client c : new ArrayList<>(clients.values())) {
                if (c.user != u || c.subscriptions == null || !c.subscriptions.any()) continue;
                boolean kill = false;
                for (PubSub.Name n : c.subscriptions.patterns) {
                    kill |= !io.spinel.core.acl.Acl.channelAllowed(allowed, n.bytes, true);
                }
                for (PubSub.Name n : c.subscriptions.channels) {
                    kill |= !io.spinel.core.acl.Acl.channelAllowed(allowed, n.bytes, false);
                }
                for (PubSub.Name n : c.subscriptions.shardChannels) {
                    kill |= !io.spinel.core.acl.Acl.channelAllowed(allowed, n.bytes, false);
                }
                if (!kill) continue;
                if (c == currentClient) c.closeAfterReply();
                else closeClient(c);
            }
        }
    }

    /** The client whose script is running (Redis's server.script_caller), null outside scripts. */
    private Client scriptCaller;

    public void setScriptCaller(Client caller) {
        scriptCaller = caller;
    }

    /**
     * The client that client-side caching sees as running the current command: a script's
     * commands count as its caller's (NOLOOP, and who gets invalidations after its reply).
     */
    Client trackingClient() {
        Client c = currentClient;
        return c != null && c.script && scriptCaller != null ? scriptCaller : c;
    }

    public void keyModified(Db db, byte[] k) {
        keyModified(db, k, 0, k.length);
    }

    /** A keyspace event (Redis's notifyKeyspaceEvent); free when notifications are off. */
    public void notify(int type, String event, Db db, byte[] k, int off, int len) {
        if ((notifyFlags & type) == 0 || discardingEffects) return;
        pubsub.notifyEvent(notifyFlags, event, db.id(), k, off, len);
    }

    public void notify(int type, String event, Db db, byte[] k) {
        notify(type, event, db, k, 0, k.length);
    }

    private final Keyspace.Listener keyspaceListener = new Keyspace.Listener() {
        @Override
        public void expired(Db db, byte[] key, Object entry) {
            if (lazyfreeLazyExpire) deletedLazily(entry);
            onExpired(db, key);
        }

        @Override
        public void keyMiss(Db db, byte[] k, int off, int len) {
            Engine.this.notify(Notify.KEY_MISS, "keymiss", db, k, off, len);
        }

        @Override
        public void keyAdded(Db db, byte[] k, int off, int len) {
            Engine.this.notify(Notify.NEW, "new", db, k, off, len);
        }
    };

    private static final byte[] DEL = Bytes.ascii("DEL");
    private static final byte[] UNLINK = Bytes.ascii("UNLINK");

    private void onExpired(Db db, byte[] key) {
        notify(Notify.EXPIRED, "expired", db, key);
        blocking.keyTouched(db, key, 0, key.length);
        transactions.keyTouched(db, key, 0, key.length);
        tracking.keyModified(null, key, 0, key.length);
        if (propagates()) propagate(db.id(), new byte[][] {lazyfreeLazyExpire ? UNLINK : DEL, key});
    }

    // ---- facts for INFO, CLIENT LIST and other commands -----------------------------------------

    private String transportName = "embedded";
    private String executable = "";
    private String configFile = "";
    private final String runId = io.spinel.core.util.Entropy.hex(40);
    private long usedMemoryPeak;
    boolean activeExpireEnabled = true;
    /** DEBUG SET-DISABLE-DENY-SCRIPTS: scripts may call commands flagged noscript (a test hook). */
    boolean scriptDenyDisabled;
    /**
     * DEBUG REPLYBUFFER RESIZING: whether the clients' cron shrinks reply buffers to their recent
     * peak. Off, each client's reply buffer also keeps its size (Reply.holdSize), so that its
     * memory stays what it was between commands, as Redis's fixed reply buffer.
     */
    private boolean replyBufferResizing = true;

    void replyBufferResizing(boolean on) {
        replyBufferResizing = on;
        for (Client c : clients.values()) c.reply.holdSize(!on);
    }
    /** DEBUG REPLYBUFFER PEAK-RESET-TIME: how often a reply buffer's peak starts again (ms; -1 never). */
    long replyBufferPeakResetMillis = REPLY_BUFFER_PEAK_RESET_MILLIS;
    static final long REPLY_BUFFER_PEAK_RESET_MILLIS = 5000;
    /** DEBUG PAUSE-CRON: the server cron does nothing while set. */
    boolean cronPaused;
    /** DEBUG SET-SKIP-CHECKSUM-VALIDATION: RESTORE payloads and RDB files load without their checksum checked. */
    boolean skipChecksumValidation;
    private long expireCycleNanos;

    /**
     * Describes the host for INFO server (multiplexing_api, executable, config_file); a null
     * executable is this JVM's, looked up when INFO first asks.
     */
    public void setHostInfo(String transportName, String executable, String configFile) {
        this.transportName = transportName;
        this.executable = executable;
        this.configFile = configFile;
    }

    String transportName() {
        return transportName;
    }

    private boolean ioThreadsActive;

    /** Set by a transport whose own threads read and write the sockets (io-threads above 1). */
    public void setIoThreadsActive(boolean active) {
        this.ioThreadsActive = active;
    }

    public boolean ioThreadsActive() {
        return ioThreadsActive;
    }

    String executable() {
        // (null: this JVM's launcher, asked only when INFO wants it; an in-process server's first
        // start does not set up ProcessHandle for it)
        if (executable == null) executable = ProcessHandle.current().info().command().orElse("");
        return executable;
    }

    public String configFile() {
        return configFile;
    }

    String runId() {
        return runId;
    }

    /** Unix time of the last successful save (start-up time until persistence saves). */
    public long lastSaveSeconds() {
        return persistence.lastSave();
    }

    // ---- internal clients and replay (AOF loading) ----------------------------------------------

    private static final Client.Connection NO_CONNECTION = new Client.Unconnected() {
        @Override
        public void write(byte[] buf, int off, int len) {
            // replies of replayed commands go nowhere
        }
    };

    /**
     * A client that is not connected to anything and not listed by CLIENT LIST: authenticated,
     * never blocking, replies discarded. AOF loading replays commands through one.
     */
    public Client internalClient() {
        return internalClient(NO_CONNECTION);
    }

    /** {@link #internalClient()} with a connection of its own (a replica's master client names its master). */
    Client internalClient(Client.Connection conn) {
        Client c = new Client(nextClientId++, this, conn, keyspace.db(0), System.currentTimeMillis());
        c.user = acl.defaultUser();
        c.authenticated = true;
        c.denyBlocking = true;
        return c;
    }

    /**
     * Runs one command for an internal client as Redis replays the AOF: MULTI queues until EXEC,
     * no permission, memory or disk checks, the reply is dropped. Returns false for an unknown
     * command or a wrong number of arguments.
     */
    public boolean replay(Client c, byte[][] argv) {
        return runUnchecked(c, argv, true);
    }

    /**
     * Runs a command of the master's stream on a replica: as {@link #replay}, but counted as a
     * command is (statistics, slow log, MONITOR), as Redis counts its master's. Returns the error it
     * answered (what Redis's afterErrorReply logs as "== CRITICAL ==" for a master's client,
     * counted in unexpected_error_replies), or null. An unknown command or a wrong arity gets Redis's error.
     */
    String runFromMaster(Client c, byte[][] argv) {
        long errors = stats.errorReplies;
        String error = null;
        if (!runUnchecked(c, argv, false, false)) {
            Command cmd = commands.resolveOrOriginal(c.args); // (rare: looked up again for the message)
            error = cmd == null ? unknownCommandMessage(c.args) : "ERR wrong number of arguments for '" + cmd.name + "' command";
            countError(error);
        } else if (stats.errorReplies != errors) {
            error = lastErrorLine(c.reply);
        }
        c.reply.clear();
        if (error != null) stats.unexpectedErrorReplies++;
        return error;
    }

    /** The last error line of a reply buffer, without its '-' and CRLF. */
    private static String lastErrorLine(io.spinel.core.protocol.Reply r) {
        byte[] b = r.buffer();
        int end = r.length();
        int start = end;
        while (start > 0) {
            int lineStart = start - 1;
            while (lineStart > 0 && b[lineStart - 1] != '\n') lineStart--;
            if (b[lineStart] == '-') {
                int n = start - lineStart - 1;
                while (n > 0 && (b[lineStart + n] == '\r' || b[lineStart + n] == '\n')) n--;
                return new String(b, lineStart + 1, n, java.nio.charset.StandardCharsets.ISO_8859_1);
            }
            start = lineStart;
        }
        return "(error)";
    }

    private boolean runUnchecked(Client c, byte[][] argv, boolean loading) {
        return runUnchecked(c, argv, loading, true);
    }

    private boolean runUnchecked(Client c, byte[][] argv, boolean loading, boolean clearReply) {
        c.args.set(argv);
        // (the AOF may name a command that rename-command renamed since it was written)
        Command cmd = commands.resolveOrOriginal(c.args);
        if (cmd == null || !cmd.arityOk(c.args.count())) return false;
        if (c.multi != null && !Transactions.runsImmediately(cmd)) {
            transactions.queue(c, cmd);
        } else {
            replaying = loading;
            try {
                call(c, cmd);
            } finally {
                replaying = false;
            }
        }
        if (clearReply) c.reply.clear();
        return true;
    }

    /**
     * Memory of connected clients (Redis's stat_clients_type_memory for normal and pub/sub
     * clients): each client's last measured usage, kept as a running sum so that used_memory
     * costs nothing to read. See {@link #updateClientMemory}.
     */
    private long clientsMemory;
    /** The part of {@link #clientsMemory} that belongs to clients without CLIENT NO-EVICT. */
    private long evictableClientsMemory;
    private long startupMemory = -1;

    /**
     * What a connected client costs besides its buffers: the Client object with its argument
     * arrays, reader and encoder, and the channel's objects in the transport (an estimate, as
     * Redis counts sizeof(client) and its fixed 16 KB reply chunk).
     */
    static final long CLIENT_OVERHEAD = 4096;

    /**
     * used_memory: the estimated heap bytes of the data (every value's memoryUsage plus table
     * slots, kept current as commands run) and of client buffers. This, not the JVM heap (which
     * includes garbage not yet collected), is what maxmemory and eviction compare against.
     */
    public long usedMemory() {
        long used = keyspace.memoryUsage() + clientsMemory + replication.bufferMemory();
        if (used > usedMemoryPeak) usedMemoryPeak = used;
        return used;
    }

    long usedMemoryStartup() {
        if (startupMemory < 0) startupMemory = keyspace.memoryUsage();
        return startupMemory;
    }

    long usedMemoryPeak() {
        return Math.max(usedMemoryPeak, usedMemory());
    }

    long clientsMemory() {
        return clientsMemory;
    }

    /**
     * Memory that maxmemory does not count (Redis's freeMemoryGetNotCountedMemory): the replicas'
     * output waiting to leave, and the AOF's buffer.
     */
    long memoryNotCountedForEvict() {
        return replication.replicasOutputMemory() + persistence.aofBufferMemory();
    }

    /**
     * A client's memory now (Redis's getClientMemoryUsage): the fixed overhead, the query buffer
     * as allocated, the reply buffer, the output still queued in the transport, and what its
     * state costs beyond that (a queued transaction, watched keys, subscriptions, tracked
     * prefixes: each a field test when unused).
     */
    static long clientMemory(Client c) {
        long m = CLIENT_OVERHEAD + c.reader.allocated() + c.reply.buffer().length + c.connection.pendingBytes();
        if (c.multi != null) m += c.multi.memory();
        if (!c.watching.isEmpty()) m += Transactions.watchedMemory(c);
        if (c.subscriptions != null) m += c.subscriptions.memory();
        if (c.tracking != null) m += Tracking.prefixesMemory(c.tracking);
        return m;
    }

    /** Output that waits to be sent (Redis's getClientOutputBufferMemoryUsage): what output limits compare. */
    static long outputBufferMemory(Client c) {
        long replicaPending = c.replica != null && c.replica.pending != null ? c.replica.pending.size() : 0;
        return c.reply.length() + c.connection.pendingBytes() + replicaPending;
    }

    /**
     * Measures a client again and moves the difference into the totals (Redis's
     * updateClientMemUsageAndBucket), then applies its output buffer limit. Constant time and
     * allocation-free: it runs after every command, after every flush and on every pub/sub push.
     */
    public void updateClientMemory(Client c) {
        if (!c.memTracked || c.closed) return;
        long m = clientMemory(c);
        clientsMemory += m - c.memUsage;
        if (c.memEvictable) evictableClientsMemory -= c.memUsage;
        c.memEvictable = !c.noEvict;
        if (c.memEvictable) evictableClientsMemory += m;
        c.memUsage = m;
        if (obufLimitsOn) checkOutputBufferLimits(c);
    }

    private void untrackClientMemory(Client c) {
        if (!c.memTracked) return;
        clientsMemory -= c.memUsage;
        if (c.memEvictable) evictableClientsMemory -= c.memUsage;
        c.memTracked = false;
        c.memUsage = 0;
        c.memEvictable = false;
    }

    private void measureClients() {
        if (clients.isEmpty()) return;
        // copied: an output buffer limit may close a client while we walk the map
        for (Client c : new ArrayList<>(clients.values())) updateClientMemory(c);
    }

    // ---- output buffer limits (client-output-buffer-limit) --------------------------------------

    /** client-output-buffer-limit by class: normal (0), pubsub (1), replica (2); hard, soft, seconds. */
    private final long[][] obufLimits = new long[3][3];
    private boolean obufLimitsOn;

    private void parseOutputBufferLimits(String value) {
        String[] f = value.split(" ");
        for (int i = 0; i + 3 < f.length; i += 4) {
            int cls = f[i].equals("normal") ? 0 : f[i].equals("pubsub") ? 1
                    : f[i].equals("replica") || f[i].equals("slave") ? 2 : -1;
            if (cls < 0) continue;
            for (int j = 0; j < 3; j++) obufLimits[cls][j] = Long.parseLong(f[i + 1 + j]);
        }
        obufLimitsOn = false;
        for (long[] l : obufLimits) if (l[0] > 0 || l[1] > 0) obufLimitsOn = true;
    }

    /**
     * Before a big reply leaves mid-command: with a hard limit for the client's class the reply
     * stays in the buffer (Redis writes nothing before the batch ends) until it passes the limit,
     * and then the client is closed and gets none of it.
     */
    private int spillVerdict(Client c) {
        if (!obufLimitsOn) return io.spinel.core.protocol.Reply.SpillGuard.WRITE;
        checkOutputBufferLimits(c);
        if (c.closeAsap) return io.spinel.core.protocol.Reply.SpillGuard.DROP;
        return obufLimitsOf(c)[0] > 0 ? io.spinel.core.protocol.Reply.SpillGuard.HOLD : io.spinel.core.protocol.Reply.SpillGuard.WRITE;
    }

    /** The client-output-buffer-limit class of a client: replica, pubsub (subscribed to anything) or normal. */
    private long[] obufLimitsOf(Client c) {
        return obufLimits[c.replica != null ? 2 : PubSub.isSubscribed(c) ? 1 : 0];
    }

    /**
     * Redis's checkClientOutputBufferLimits: over the hard limit, or over the soft limit for
     * longer than its seconds, the client is closed at once, whatever it had not received yet
     * dropped. Pub/sub clients are those subscribed to something (in RESP2 and RESP3 alike).
     */
    void checkOutputBufferLimits(Client c) {
        if (!obufLimitsOn) return;
        long[] limit = obufLimitsOf(c);
        if (limit[0] == 0 && limit[1] == 0) return;
        // what left mid-batch (big replies spill to the socket while commands run) counts as
        // still owed until the batch's flush, as Redis writes nothing before it
        long used = outputBufferMemory(c);
        long spilled = c.reply.totalBytes() - c.outputCounted;
        if (spilled > c.connection.pendingBytes()) used += spilled - c.connection.pendingBytes();
        boolean hard = limit[0] > 0 && used >= limit[0];
        boolean soft = false;
        if (limit[1] > 0 && used >= limit[1]) {
            long now = System.currentTimeMillis();
            if (c.softLimitSince == 0) c.softLimitSince = now;
            else soft = (now - c.softLimitSince) / 1000 > limit[2];
        } else {
            c.softLimitSince = 0;
        }
        if ((hard || soft) && !c.closeAsap) {
            log.warning("Client " + ConnectionCommands.clientInfo(c)
                    + " scheduled to be closed ASAP for overcoming of output buffer limits.");
            c.closeAsap = true;
            // the running command's own client goes once the command is over, and a replica once the
            // stream written to the replicas is
            if (c == currentClient || c.replica != null) loop.execute(() -> closeClientNow(c));
            else closeClientNow(c);
        }
    }

    // ---- client eviction (maxmemory-clients) -----------------------------------------------------

    /** maxmemory-clients: bytes, or minus a percentage of maxmemory; 0 is off. */
    private long maxmemoryClients;
    /** Clients disconnected by client eviction (INFO evicted_clients). */
    long evictedClients;

    /** The limit in bytes (Redis's getClientEvictionLimit), 0 when client eviction is off. */
    long clientEvictionLimit() {
        long limit;
        if (maxmemoryClients < 0 && maxmemory > 0) limit = (long) ((double) maxmemory * -(double) maxmemoryClients / 100);
        else if (maxmemoryClients > 0) limit = maxmemoryClients;
        else return 0;
        // never so small that nobody can talk to the server any more
        return Math.max(limit, 128 * 1024);
    }

    /**
     * Redis's evictClients: while the clients together use maxmemory-clients or more, disconnect
     * the evictable client that uses the most (Redis evicts from its largest bucket of clients of
     * about the same size; Spinel takes the exact largest). Free while under the limit.
     */
    void evictClients() {
        // never in the middle of a command, nor while a slow script yields (its caller must stay)
        if (maxmemoryClients == 0 || callDepth > 0 || busyError != null) return;
        long limit = clientEvictionLimit();
        if (limit == 0 || clientsMemory < limit || evictableClientsMemory == 0) return;
        measureClients(); // output may have left since the last measure
        if (clientsMemory < limit) return;
        ArrayList<Client> candidates = new ArrayList<>();
        for (Client c : clients.values()) if (c.memEvictable && c.memTracked) candidates.add(c);
        candidates.sort((a, b) -> Long.compare(b.memUsage, a.memUsage));
        for (Client c : candidates) {
            if (clientsMemory < limit) return;
            if (c.closed) continue;
            log.notice("Evicting client: " + ConnectionCommands.clientInfo(c));
            closeClientNow(c);
            evictedClients++;
        }
        if (clientsMemory >= limit) log.warning("Over client maxmemory after evicting all evictable clients");
    }

    /** Closes a client at once, dropping the output it did not read (eviction, output limits). */
    void closeClientNow(Client c) {
        if (c.closed) return;
        c.reply.clear();
        disconnected(c);
        c.connection.closeNow();
    }

    /** Deletes a key chosen by the eviction policy, with Redis's side effects. */
    void evict(Db db, byte[] key) {
        Object old = db.remove(key, 0, key.length);
        if (lazyfreeLazyEviction) deletedLazily(old);
        transactions.keyTouched(db, key, 0, key.length);
        tracking.keyModified(null, key, 0, key.length);
        notify(Notify.EVICTED, "evicted", db, key);
        // the AOF (and a replica) must forget the key too, or it comes back on the next start
        if (propagates()) propagate(db.id(), new byte[][] {lazyfreeLazyEviction ? UNLINK : DEL, key});
    }

    /** The old generation's collector ("g1-old-generation"): INFO's mem_allocator. Fixed for the JVM's life. */
    String gcName() {
        String name = gcName;
        if (name == null) {
            java.util.List<java.lang.management.GarbageCollectorMXBean> gcs =
                    java.lang.management.ManagementFactory.getGarbageCollectorMXBeans();
            name = gcs.isEmpty() ? "unknown" : gcs.get(gcs.size() - 1).getName().replace(' ', '-').toLowerCase(java.util.Locale.ROOT);
            gcName = name;
        }
        return name;
    }

    private String gcName;

    long expireCycleMillis() {
        return expireCycleNanos / 1_000_000;
    }

    long evictedKeys() {
        return evictor.evictedKeys;
    }

    long blockedClients() {
        return blocking.blockedClients() + pause.postponedCount();
    }

    /** CLIENT UNBLOCK: false if the client is not blocked. */
    boolean unblock(Client c, boolean withError) {
        return blocking.unblock(c, withError);
    }

    long pubsubChannelCount() {
        return pubsub.channelCount();
    }

    long pubsubPatternCount() {
        return pubsub.patternCount();
    }

    long pubsubShardChannelCount() {
        return pubsub.shardChannelCount();
    }

    /** Extra CLIENT LIST flag letters (P pub/sub, x MULTI, b blocked, t tracking...). */
    String clientFlags(Client c) {
        String f = c.monitor ? "O" : c.replica != null ? "S" : replication.isMasterClient(c) ? "M" : "";
        if (PubSub.isSubscribed(c)) f += "P";
        if (c.multi != null) f += "x";
        if (c.blocked != null || c.postponed != null) f += "b";
        if (c.tracking != null) {
            f += "t";
            if (c.tracking.brokenRedirect) f += "R";
            if (c.tracking.bcast) f += "B";
        }
        if (c.dirtyCas) f += "d";
        return f;
    }

    /** Channels (0), patterns (1) or shard channels (2) the client is subscribed to. */
    int subscriptionCount(Client c, int kind) {
        if (c.subscriptions == null) return 0;
        return kind == 0 ? c.subscriptions.channels.size()
                : kind == 1 ? c.subscriptions.patterns.size() : c.subscriptions.shardChannels.size();
    }

    /** Commands queued in MULTI, or -1 outside a transaction. */
    int multiCount(Client c) {
        return c.multi == null ? -1 : c.multi.commands.size();
    }

    long trackingRedirect(Client c) {
        return c.tracking == null ? -1 : c.tracking.redirect;
    }

    boolean isPubSubClient(Client c) {
        return PubSub.isSubscribed(c);
    }

    /** RESET: drop the client's transaction, subscriptions and tracking. */
    void clientReset(Client c) {
        monitors.clientGone(c);
        transactions.clientGone(c);
        pubsub.clientGone(c);
        tracking.clientGone(c);
    }

    /** The value CONFIG GET shows. */
    String configValueForGet(Config.Option o) {
        // Redis prints the event flags without 'n' when 'A' is there (the flag stays on)
        if (o.name.equals("notify-keyspace-events")) return Notify.toLetters(Notify.parse(o.value()));
        return o.value();
    }

    /** The ACL file (aclfile, relative to dir as Redis's is to its working directory), or null when none is set. */
    public java.nio.file.Path aclFile() {
        String f = config.get("aclfile");
        if (f.isEmpty()) return null;
        return java.nio.file.Path.of(workingDirectory()).resolve(Config.fileName(f));
    }

    /** Where files (RDB, AOF) go: the dir option, an absolute path (as the file system's string). */
    public String workingDirectory() {
        return Config.fileName(config.get("dir"));
    }

    /** enable-protected-configs: no, yes, or local (only from loopback/unix connections). */
    boolean protectedConfigAllowed(Client c) {
        String v = config.get("enable-protected-configs");
        return v.equals("yes") || (v.equals("local") && c.connection.isLocal());
    }

    public void resetStats() {
        stats.reset();
        keyspace.resetStats();
        commands.resetStats();
        evictor.evictedKeys = 0;
        evictor.resetExceeded();
        evictedClients = 0;
        lazyfreedObjects = 0;
        replication.syncFull = replication.syncPartialOk = replication.syncPartialErr = 0;
        persistence().resetStats();
    }

    /**
     * Where CONFIG REWRITE writes; set by the host when it loaded a config file. Its argument:
     * write every option, those at their defaults too (DEBUG CONFIG-REWRITE-FORCE-ALL).
     */
    private java.util.function.Function<Boolean, String> configRewriter =
            forceAll -> "ERR The server is running without a config file";

    public void setConfigRewriter(java.util.function.Function<Boolean, String> rewriter) {
        this.configRewriter = rewriter;
    }

    /** Returns an error message, or null when the file was rewritten. */
    String rewriteConfig(boolean forceAll) {
        return configRewriter.apply(forceAll);
    }

    /**
     * A database (or all, for -1) is about to be emptied: WATCHes of keys in it fail, and clients
     * blocked in XREADGROUP on its keys are told their stream is gone.
     */
    public void beforeFlush(int db) {
        if (discardingEffects) return;
        tracking.flushed();
        blocking.databasesChanged(db, db);
        for (int i = 0; i < keyspace.count(); i++) {
            if (db < 0 || i == db) transactions.databaseReplaced(keyspace.db(i), null);
        }
    }

    /**
     * A replica's diskless load with swapdb succeeded (Redis's swapMainDbWithTempDb): the loaded
     * databases take the data set's place, the old contents are left in {@code loaded}; WATCHed
     * keys on either side change, tracking clients are told as by a flush, and clients blocked on
     * keys that now exist are served.
     */
    public void swapInLoadedDatabases(io.spinel.core.keyspace.Db[] loaded) {
        for (int i = 0; i < keyspace.count(); i++) transactions.databaseReplaced(keyspace.db(i), loaded[i]);
        tracking.flushed();
        keyspace.swapWithDetached(loaded);
        blocking.databasesChanged(-1, -1);
        if (blocking.hasReady()) blocking.serveReady();
    }

    /** Two databases are about to swap contents: WATCHed keys that exist on either side change. */
    public void beforeSwap(int a, int b) {
        if (discardingEffects) return;
        transactions.databaseReplaced(keyspace.db(a), keyspace.db(b));
        transactions.databaseReplaced(keyspace.db(b), keyspace.db(a));
    }

    /** Two databases swapped contents: clients blocked on their keys may now be served. */
    public void afterSwap(int a, int b) {
        if (discardingEffects) return;
        blocking.databasesChanged(a, b);
    }

    /** Runs a task on the loop thread (immediately if already there; once it is attached if not yet). */
    public void execute(Runnable task) {
        if (inLoop()) task.run();
        else if (loop != null) loop.execute(task);
        else beforeLoop.add(task);
    }

    /** Tasks given to {@link #execute} before {@link #attachLoop}: the loop runs them first. */
    private final List<Runnable> beforeLoop = new ArrayList<>();

    public Map<String, Long> errorStats() {
        return new TreeMap<>(stats.errorCodes);
    }

    static final String PROTECTED_MODE_DENIED = "-DENIED Redis is running in protected mode because protected "
            + "mode is enabled and no password is set for the default user. "
            + "In this mode connections are only accepted from the loopback interface. "
            + "If you want to connect from external computers to Redis you "
            + "may adopt one of the following solutions: "
            + "1) Just disable protected mode sending the command "
            + "'CONFIG SET protected-mode no' from the loopback interface "
            + "by connecting to Redis from the same host the server is "
            + "running, however MAKE SURE Redis is not publicly accessible "
            + "from internet if you do so. Use CONFIG REWRITE to make this "
            + "change permanent. "
            + "2) Alternatively you can just disable the protected mode by "
            + "editing the Redis configuration file, and setting the protected "
            + "mode option to 'no', and then restarting the server. "
            + "3) If you started the server manually just for testing, restart "
            + "it with the '--protected-mode no' option. "
            + "4) Setup a an authentication password for the default user. "
            + "NOTE: You only need to do one of the above things in order for "
            + "the server to start accepting connections from the outside.\r\n";
}
