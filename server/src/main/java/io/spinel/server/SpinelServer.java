package io.spinel.server;

import io.spinel.core.Client;
import io.spinel.core.Engine;
import io.spinel.core.command.CommandRenames;
import io.spinel.core.keyspace.Keyspace;
import io.spinel.core.Log;
import io.spinel.core.config.Config;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A running Spinel server: the engine on one event-loop thread with TCP listeners on the bind
 * addresses and an optional unix socket. Used by the command line launcher and, in-process, by
 * tests and applications:
 *
 * <pre>
 *   try (SpinelServer s = SpinelServer.builder().randomPort().start()) {
 *       int port = s.port();
 *   }
 * </pre>
 *
 * <p>The loop is Netty's (native epoll: the fastest; the standalone server's) or the JDK's own
 * selector (a first start about 0.3 s sooner in a fresh JVM; in-process servers' default); see
 * {@link Transport}.
 */
public final class SpinelServer implements AutoCloseable {
    /** Which event loop serves the connections. */
    public enum Transport {
        /**
         * Netty's event loop with its native epoll transport (Netty's NIO where that is missing):
         * the most requests per second, and what the standalone server runs.
         */
        NETTY,
        /**
         * The JDK's own selector, without Netty: a first start in a fresh JVM about 0.3 s sooner
         * (no Netty classes or native library to load); the default for in-process servers (test
         * suites, applications). At one request per round trip it serves about as many requests
         * per second as NETTY on a small machine; NETTY is the choice for the most throughput.
         */
        JDK;

        /** As -Dspinel.transport=netty|jdk says, else the given default. */
        static Transport fromSystemProperty(Transport byDefault) {
            String v = System.getProperty("spinel.transport", "");
            return v.equalsIgnoreCase("jdk") ? JDK : v.equalsIgnoreCase("netty") ? NETTY : byDefault;
        }
    }

    private final Config config;
    private final Log log;
    private final ServerTransport transport;
    private final ScheduledExecutorService loop;
    private final Engine engine;
    private final List<ServerTransport.Listener> listeners = new ArrayList<>();
    /** The TCP ones among {@link #listeners}, which CONFIG SET port and bind replace. */
    private final List<ServerTransport.Listener> tcpListeners = new ArrayList<>();
    /** The TLS ones among {@link #listeners} (tls-port), which CONFIG SET tls-port and bind replace. */
    private final List<ServerTransport.Listener> tlsListeners = new ArrayList<>();
    /** The bind addresses the TCP listeners were opened with. */
    private String boundAddresses = "";
    /** The port the TLS listeners listen on, 0 if none. */
    private int tlsPort;
    private final TlsContexts tls;
    /** Set once started: from then on CONFIG SET port/bind move the listeners. */
    private boolean watchingListenConfig;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile boolean stopping;
    private volatile int port;
    private String unixSocket;
    private Runnable onStopped = () -> { };
    /** Whether start-up loads the RDB or AOF found in dir. */
    private final boolean loadData;

    private SpinelServer(Config config, Log log, boolean loadData, Keyspace.Clock clock, ServerTransport transport,
                         Engine engine) {
        this.loadData = loadData;
        this.config = config;
        this.log = log;
        this.transport = transport;
        this.loop = transport.loop();
        this.engine = engine;
        this.tls = new TlsContexts(config, log);
        engine.setTls(tls);
        engine.attachLoop(loop, transport::inLoop);
        if (clock != null) engine.keyspace().setClock(clock); // before the loop runs anything
        engine.setShutdownHandler(this::shutdownRequested);
        transport.serve(engine);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Options for an in-process server, as on the redis-server command line. */
    public static final class Builder {
        private final Config config = new Config();
        private final List<String[]> options = new ArrayList<>();
        private boolean randomPort;
        private Log log = Log.silent();
        private Keyspace.Clock clock;
        private Transport transport = Transport.fromSystemProperty(Transport.JDK);
        private final CommandRenames renames = new CommandRenames();
        /** A Sentinel's configuration file (Sentinel mode), or null. */
        private Path sentinelConfig;

        /**
         * Starts a Sentinel instead of a data server (as redis-server --sentinel FILE): the file is
         * read first (its "sentinel" lines and other options; {@link #option} overrides the latter)
         * and Sentinel keeps its state in it.
         */
        public Builder sentinel(Path configFile) {
            this.sentinelConfig = configFile.toAbsolutePath();
            return this;
        }

        /**
         * Sets an option ("port", "7000"; "save", ""; ...), validated as CONFIG SET would; a value
         * stands for its UTF-8 bytes, as a client sending the same string would set it.
         *
         * <p>Unlike redis-server, an in-process server has no save points unless "save" is set,
         * and reads the RDB or AOF of a previous run only when "dir" (or "appendonly yes") is
         * given: a test fixture must not pick up a dump.rdb lying in the working directory.
         */
        public Builder option(String name, String value) {
            options.add(new String[] {name, value});
            return this;
        }

        /**
         * rename-command, as in redis.conf: the command is called newName instead (for clients,
         * scripts and transactions), or with an empty newName is gone. Checked at once, with
         * Redis's messages ("No such command in rename-command", "Target command name already exists").
         */
        public Builder renameCommand(String name, String newName) {
            renames.add(name, newName);
            return this;
        }

        public Builder port(int port) {
            return option("port", Integer.toString(port));
        }

        /** Listen on a free port chosen by the OS (read it back with {@link SpinelServer#port()}). */
        public Builder randomPort() {
            randomPort = true;
            return this;
        }

        /**
         * The clock keys expire by, instead of the system's: with a
         * {@link io.spinel.core.embedded.ManualClock} a test sets a TTL, advances the clock past
         * it and sees the key gone, without waiting. TIME, LASTSAVE and the like keep the wall clock.
         */
        public Builder clock(Keyspace.Clock clock) {
            this.clock = clock;
            return this;
        }

        public Builder log(Log log) {
            this.log = log;
            return this;
        }

        /**
         * The event loop. In-process servers default to {@link Transport#JDK} (the quicker first
         * start, for test suites); -Dspinel.transport=netty|jdk changes the default.
         */
        public Builder transport(Transport transport) {
            this.transport = transport;
            return this;
        }

        public SpinelServer start() {
            List<io.spinel.core.sentinel.SentinelConfig.Line> sentinelLines = List.of();
            if (sentinelConfig != null) {
                ConfigLoader loader = new ConfigLoader(config);
                SentinelMode.setDefaults(config, loader);
                try {
                    loader.loadFile(sentinelConfig);
                } catch (ConfigLoader.ConfigError | java.io.IOException e) {
                    throw new IllegalArgumentException("cannot start Spinel: " + e.getMessage(), e);
                }
                sentinelLines = loader.sentinelLines();
            }
            List<String[]> all = new ArrayList<>();
            all.add(new String[] {"save", ""});
            if (randomPort) all.add(new String[] {"port", "0"});
            all.addAll(options);
            boolean load = false;
            for (String[] o : options) {
                if (o[0].equalsIgnoreCase("dir") || (o[0].equalsIgnoreCase("appendonly") && o[1].equalsIgnoreCase("yes"))) {
                    load = true;
                }
            }
            for (String[] o : all) {
                try {
                    config.set(o[0], io.spinel.core.util.Bytes.latin1(io.spinel.core.util.Bytes.utf8(o[1]))); // its UTF-8 bytes
                } catch (Config.ConfigException e) {
                    throw new IllegalArgumentException("Invalid option '" + o[0] + "' value '" + o[1] + "': "
                            + e.getMessage(), e);
                }
            }
            Engine engine;
            if (sentinelConfig != null) {
                load = false;
                try {
                    engine = SentinelMode.prepareEngine(config, log, sentinelLines, sentinelConfig);
                } catch (io.spinel.core.sentinel.SentinelConfig.LoadError e) {
                    throw new IllegalArgumentException("cannot start Spinel: " + SentinelMode.report(e), e);
                }
            } else {
                engine = new Engine(config, log);
            }
            renames.applyTo(engine.commands());
            try {
                loadUsers(engine, List.of());
            } catch (IllegalStateException e) {
                throw new IllegalArgumentException("cannot start Spinel: " + e.getMessage(), e);
            }
            SpinelServer s = new SpinelServer(config, log, load, clock, newTransport(transport), engine);
            try {
                s.bind(randomPort);
            } catch (Exception e) {
                s.close();
                throw new IllegalStateException("cannot start Spinel: " + e.getMessage(), e);
            }
            return s;
        }
    }

    /**
     * The ACL users at start: the configuration's "user" lines, or the ACL file's (aclfile), as
     * Redis loads them once everything else is configured. Throws with Redis's message when they
     * cannot be loaded (the server does not start).
     */
    static void loadUsers(Engine engine, List<List<String>> configured) {
        engine.acl().loadAtStartup(configured, engine.aclFile(), engine.config().get("aclfile"));
    }

    static ServerTransport newTransport(Transport kind) {
        return kind == Transport.JDK ? new JdkTransport() : new NettyTransport();
    }

    /** The standalone server's transport: Netty's unless -Dspinel.transport=jdk. */
    static ServerTransport newStandaloneTransport() {
        return newTransport(Transport.fromSystemProperty(Transport.NETTY));
    }

    /**
     * The standalone server's engine, made from its loaded configuration before its transport is
     * ready: a large RDB file to load starts decoding now, on a thread of its own, while Netty's
     * event loop is set up (50-100 ms of a start), and {@link #start} inserts its keys.
     */
    static Engine prepareStandaloneEngine(Config config, Log log) {
        Engine engine = new Engine(config, log);
        // The standalone server owns its JVM: give the heap back after the data shrank
        // (-Dspinel.idleHeapReturn=false turns it off), and grow it ahead of a load.
        if (!"false".equals(System.getProperty("spinel.idleHeapReturn"))) engine.setIdleHeapReturn(HeapRoom::collect);
        engine.persistence().setLoadingScope(HeapRoom::forLoading);
        engine.persistence().beginStartUpLoad();
        return engine;
    }

    /**
     * Starts a server from an already loaded configuration (the command line launcher), with the
     * engine from {@link #prepareStandaloneEngine}, on a transport made by
     * {@link #newStandaloneTransport()} (which the launcher makes on another thread while it reads
     * the configuration).
     */
    static SpinelServer start(Engine engine, ServerTransport transport) throws Exception {
        return start(engine, transport, () -> { });
    }

    /** As above; {@code listening} runs once the listeners are open (before the load where clients get -LOADING). */
    static SpinelServer start(Engine engine, ServerTransport transport, Runnable listening) throws Exception {
        // (a Sentinel has no data set: nothing to load)
        SpinelServer s = new SpinelServer(engine.config(), engine.log(), engine.sentinel() == null, null, transport, engine);
        s.listening = listening;
        try {
            s.bind(false);
        } catch (Exception e) {
            s.close();
            throw e;
        }
        return s;
    }

    /** Run once the listeners are open (the launcher's banner). */
    private Runnable listening = () -> { };

    private void bind(boolean randomPort) throws Exception {
        // as Redis's initServer, before anything listens or loads: the reasons are logged
        if (tls.neededAtStart()) {
            try {
                tls.reconfigure();
            } catch (IllegalStateException e) {
                throw new IllegalStateException("Failed to configure TLS. Check logs for more info.", e);
            }
        }
        // Where the transport can serve while the data set loads, its listeners open first and
        // clients get -LOADING until it is loaded (as from Redis); elsewhere they open after the
        // load. Either way no client sees a partial data set.
        Runnable poller = transport.loadingPoller();
        engine.setLoadingPoller(poller);
        if (poller != null) {
            // loading from before the listeners open: a client the loop serves ahead of the
            // start-up's first step gets -LOADING too, not the empty data set's answers
            onLoop(() -> engine.keyspace().setLoading(true));
            openListeners(randomPort);
            listening.run();
            // cluster mode: the bus answers the other nodes during the load too
            onLoop(engine::openClusterBus);
        }
        try {
            onLoop(() -> engine.persistence().startUp(loadData));
        } catch (io.spinel.core.persist.PersistenceException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
        if (poller == null) {
            openListeners(randomPort);
            listening.run();
        }
        onLoop(engine::start);
        // from now on a change of port or bind (CONFIG SET) moves the TCP listeners
        config.listen("port", o -> {
            if (watchingListenConfig && !stopping) changeListeners(config.get("bind"), config.getInt("port"));
        });
        config.listen("bind", o -> {
            if (!watchingListenConfig || stopping) return;
            String old = boundAddresses;
            changeListeners(o.value(), port);
            try {
                changeTlsListeners(old, o.value(), tlsPort);
            } catch (IllegalStateException e) {
                changeListeners(old, port);
                throw e;
            }
        });
        config.listen("tls-port", o -> {
            if (watchingListenConfig && !stopping) changeTlsListeners(boundAddresses, boundAddresses, config.getInt("tls-port"));
        });
        watchingListenConfig = true;
    }

    private void openListeners(boolean randomPort) throws Exception {
        int wantedPort = config.getInt("port");
        engine.setHostInfo(transport.multiplexingApi(), null, engine.configFile());
        boundAddresses = config.get("bind"); // (where the TLS listeners go too, with no plain one)
        if (wantedPort != 0 || randomPort) {
            try {
                port = listenTcp(config.get("bind"), wantedPort, false);
            } catch (IOException e) {
                // Redis's two lines: the reason, then this one, which harnesses read to tell a busy
                // port from a failed start (Redis's TCL suite then starts the server on another port)
                log.warning(e.getMessage());
                throw new IOException("Failed listening on port " + wantedPort + " (TCP), aborting.", e);
            }
        }
        // a port the OS picked is the port: CONFIG GET port says where the server listens (0 would
        // mean no TCP listener at all)
        if (randomPort && wantedPort == 0 && port != 0) config.set("port", Integer.toString(port));
        String socketPath = Config.fileName(config.get("unixsocket"));
        // a relative path is inside dir, where Redis's chdir puts it
        if (!socketPath.isEmpty()) socketPath = Path.of(Config.fileName(config.get("dir"))).resolve(socketPath).toString();
        if (!socketPath.isEmpty()) {
            Path p = Path.of(socketPath);
            Files.deleteIfExists(p);
            listeners.add(transport.listenUnix(socketPath, config.getInt("tcp-backlog")));
            unixSocket = socketPath;
            long perm = config.getLong("unixsocketperm");
            if (perm != 0) Files.setPosixFilePermissions(p, permissions(perm));
        }
        int wantedTls = config.getInt("tls-port");
        if (wantedTls != 0) {
            try {
                tlsPort = listenTcp(config.get("bind"), wantedTls, true);
            } catch (IOException e) {
                log.warning(e.getMessage());
                throw new IOException("Failed listening on port " + wantedTls + " (TLS), aborting.", e);
            }
        }
        engine.setListenInfo(config.get("bind"), port);
    }

    /** Runs a step of the start on the loop thread and waits for it; its exception is rethrown. */
    private void onLoop(Runnable step) throws Exception {
        try {
            loop.submit(step).get();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception) throw (Exception) cause;
            if (cause instanceof Error) throw (Error) cause;
            throw e;
        }
    }

    /**
     * Opens a TCP listener on each address of bindSpec (Redis's bind syntax: "-" marks an
     * address that may fail) at wantedPort, 0 for a port the OS picks, and returns the port.
     * When a required address fails, what this call opened is closed again. secure: TLS listeners
     * (tls-port), else plain ones.
     */
    private int listenTcp(String bindSpec, int wantedPort, boolean secure) throws IOException {
        if (bindSpec.isEmpty()) { // bind "": no TCP listener, the port stays what was asked
            if (!secure) boundAddresses = bindSpec;
            return wantedPort;
        }
        int backlog = config.getInt("tcp-backlog");
        int keepalive = config.getInt("tcp-keepalive");
        int bindPort = wantedPort;
        List<ServerTransport.Listener> opened = new ArrayList<>();
        for (String addr : bindSpec.split(" ")) {
            boolean optional = addr.startsWith("-");
            String host = optional ? addr.substring(1) : addr;
            if (host.equals("*")) host = "0.0.0.0";
            else if (host.equals("::*")) host = "::";
            try {
                ServerTransport.Listener l = transport.listenTcp(new InetSocketAddress(host, bindPort), backlog, keepalive,
                        secure ? tls : null);
                opened.add(l);
                if (bindPort == 0) bindPort = l.port();
            } catch (Exception e) {
                if (optional) {
                    log.verbose("Skipping optional bind address " + host + ": " + e.getMessage());
                    continue;
                }
                for (ServerTransport.Listener l : opened) l.close();
                throw new IOException("Could not create server TCP listening socket " + host + ":" + bindPort
                        + ": " + e.getMessage(), e);
            }
        }
        (secure ? tlsListeners : tcpListeners).addAll(opened);
        listeners.addAll(opened);
        if (!secure) boundAddresses = bindSpec;
        return bindPort;
    }

    /**
     * CONFIG SET port or bind, on the engine's loop: closes the TCP listeners and opens them on
     * the new port or addresses (port 0: none), as Redis's changeListenPort/changeBindAddr do.
     * If that fails the old ones are opened again and the error rolls the CONFIG SET back.
     */
    private void changeListeners(String bindSpec, int newPort) {
        String oldSpec = boundAddresses;
        int oldPort = port;
        closeTcpListeners();
        try {
            port = newPort == 0 ? 0 : listenTcp(bindSpec, newPort, false);
            boundAddresses = bindSpec;
        } catch (IOException e) {
            log.warning(e.getMessage());
            try {
                port = oldPort == 0 ? 0 : listenTcp(oldSpec, oldPort, false);
            } catch (IOException again) {
                log.warning("Failed to restore the previous listeners: " + again.getMessage());
                port = 0;
            }
            boundAddresses = oldSpec;
            throw new IllegalStateException(newPort != oldPort ? "Unable to listen on this port. Check server logs."
                    : "Failed to bind to specified addresses.");
        }
        engine.setListenInfo(bindSpec, port);
    }

    private void closeTcpListeners() {
        close(tcpListeners);
    }

    private void close(List<ServerTransport.Listener> some) {
        for (ServerTransport.Listener l : some) {
            listeners.remove(l);
            l.close();
        }
        some.clear();
    }

    /**
     * CONFIG SET tls-port (or bind), on the engine's loop, as Redis's applyTLSPort: TLS is
     * configured first if it never was, then the TLS listeners move to the new port or addresses
     * (port 0: none); on failure the old ones are opened again and the change is refused.
     */
    private void changeTlsListeners(String oldSpec, String bindSpec, int newPort) {
        int oldPort = tlsPort;
        if (newPort != 0) tls.configureIfNeeded();
        close(tlsListeners);
        try {
            tlsPort = newPort == 0 || bindSpec.isEmpty() ? 0 : listenTcp(bindSpec, newPort, true);
        } catch (IOException e) {
            log.warning(e.getMessage());
            try {
                tlsPort = oldPort == 0 || oldSpec.isEmpty() ? 0 : listenTcp(oldSpec, oldPort, true);
            } catch (IOException again) {
                log.warning("Failed to restore the previous TLS listeners: " + again.getMessage());
                tlsPort = 0;
            }
            throw new IllegalStateException(newPort != oldPort ? "Unable to listen on this port. Check server logs."
                    : "Failed to bind to specified addresses.");
        }
    }

    /** The TLS port listened on (tls-port), 0 if none. */
    public int tlsPort() {
        return tlsPort;
    }

    private static Set<PosixFilePermission> permissions(long mode) {
        Set<PosixFilePermission> s = EnumSet.noneOf(PosixFilePermission.class);
        PosixFilePermission[] order = {
            PosixFilePermission.OTHERS_EXECUTE, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_READ,
            PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_READ,
            PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_READ,
        };
        for (int i = 0; i < order.length; i++) if ((mode & (1L << i)) != 0) s.add(order[i]);
        return s;
    }

    /** The TCP port listened on (the actual one when it was chosen at random), 0 if none. */
    public int port() {
        return port;
    }

    public String unixSocket() {
        return unixSocket;
    }

    public Engine engine() {
        return engine;
    }

    /** Whether connections are served by Netty's native epoll transport. */
    public boolean isEpoll() {
        return transport instanceof NettyTransport && transport.multiplexingApi().equals("epoll");
    }

    /** INFO's multiplexing_api for this server's loop: epoll, kqueue, select or nio. */
    public String multiplexingApi() {
        return transport.multiplexingApi();
    }

    /** Called once the server has fully stopped (the launcher exits the JVM there). */
    void onStopped(Runnable r) {
        this.onStopped = r;
    }

    /**
     * The end of a shutdown (SHUTDOWN or a signal, once the replicas caught up or the wait is
     * over), on the loop thread: persistence first (it may refuse), then the stop.
     */
    private String shutdownRequested(boolean save, boolean nosave, boolean now, boolean force) {
        if (engine.loading()) {
            // from a client served during a load: it stops with ShutdownWhileLoading and nothing
            // is saved; at start, start-up fails; a replica's load calls back here, then not loading
            engine.shutdownWhileLoading();
            return null;
        }
        String err = engine.persistence().shutdown(save, nosave, force);
        if (err != null) return err;
        loop.execute(() -> stop("shutdown"));
        return null;
    }

    /**
     * A signal asked the server to stop (SIGTERM/SIGINT): saves as shutdown-on-sigterm or
     * shutdown-on-sigint say; if saving fails (and force is not set) the server keeps running.
     */
    void signal(String name) {
        // a second SIGINT while the first one's shutdown is asked for or under way (a save, the
        // wait for replicas), or any signal while stopping: at once, as Redis
        if (stopping || name.equals("SIGINT") && engine.shutdownSignalled()) {
            log.warning("You insist... exiting now.");
            engine.persistence().removeShutdownTempFile();
            Runtime.getRuntime().halt(1);
        }
        log.warning("Received " + name + " scheduling shutdown...");
        engine.shutdownBySignal(name);
    }

    /**
     * Graceful stop on the loop thread: stop accepting, send what clients are owed, close them,
     * remove the unix socket, then release the event loop.
     */
    private void stop(String why) {
        if (stopping) return;
        stopping = true;
        for (ServerTransport.Listener l : listeners) l.close();
        engine.flushPending();
        engine.stop();
        List<Client> all = new ArrayList<>(engine.clients());
        for (Client c : all) engine.closeClient(c);
        if (unixSocket != null) {
            log.notice("Removing the unix socket file.");
            new File(unixSocket).delete();
        }
        transport.shutdown(() -> {
            stopped.countDown();
            onStopped.run();
        });
    }

    /** Blocks until the server has stopped. */
    public void awaitStop() throws InterruptedException {
        stopped.await();
    }

    /** Stops the server and waits for it. */
    @Override
    public void close() {
        if (!transport.isShuttingDown() && !stopping) {
            CompletableFuture<Void> f = new CompletableFuture<>();
            loop.execute(() -> {
                try {
                    engine.persistence().shutdown(false, false, true);
                } finally {
                    stop("close");
                    f.complete(null);
                }
            });
            try {
                f.get(5, TimeUnit.SECONDS);
            } catch (Exception ignored) {
                transport.shutdown(stopped::countDown);
            }
        }
        try {
            stopped.await(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
