package io.spinel.server;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.spinel.core.Client;
import io.spinel.core.Engine;
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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A running Spinel server: the engine on one Netty event loop (native epoll where available, NIO
 * elsewhere) with TCP listeners on the bind addresses and an optional unix socket. Used by the
 * command line launcher and, in-process, by tests and applications:
 *
 * <pre>
 *   try (SpinelServer s = SpinelServer.builder().randomPort().start()) {
 *       int port = s.port();
 *   }
 * </pre>
 */
public final class SpinelServer implements AutoCloseable {
    static {
        // Netty 4.2 registers its buffer-allocation JFR events when it initialises, which took
        // about 100 ms of a 400 ms first start; they are diagnostics nobody records by default.
        // -Dio.netty.jfr.enabled=true brings them back.
        if (System.getProperty("io.netty.jfr.enabled") == null) System.setProperty("io.netty.jfr.enabled", "false");
    }

    private final Config config;
    private final Log log;
    private final EventLoopGroup group;
    private final EventLoop loop;
    private final Engine engine;
    private final boolean epoll;
    private final List<Channel> listeners = new ArrayList<>();
    /** The TCP ones among {@link #listeners}, which CONFIG SET port and bind replace. */
    private final List<Channel> tcpListeners = new ArrayList<>();
    /** The bind addresses the TCP listeners were opened with. */
    private String boundAddresses = "";
    /**
     * Accepts on listeners opened by CONFIG SET port/bind: that runs on the engine's loop, which
     * cannot wait for a bind that it would have to perform itself. Created on first use.
     */
    private EventLoopGroup rebindGroup;
    /** Set once started: from then on CONFIG SET port/bind move the listeners. */
    private boolean watchingListenConfig;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile boolean stopping;
    private volatile int port;
    private String unixSocket;
    private Runnable onStopped = () -> { };
    /** Whether start-up loads the RDB or AOF found in dir. */
    private final boolean loadData;

    private SpinelServer(Config config, Log log, boolean loadData, Keyspace.Clock clock) {
        this.loadData = loadData;
        this.config = config;
        this.log = log;
        // (the property first: asking Epoll loads and unpacks its native library)
        this.epoll = !Boolean.getBoolean("spinel.nio") && Epoll.isAvailable();
        // (see SpinBeforeSleep; 0 keeps Netty's own choice: block whenever no task is waiting)
        long spin = Long.getLong("spinel.spinMicros", 20) * 1000;
        IoHandlerFactory io = !epoll ? NioIoHandler.newFactory()
                : spin > 0 ? EpollIoHandler.newFactory(0, () -> new SpinBeforeSleep(spin)) : EpollIoHandler.newFactory();
        this.group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("spinel-main", true), io);
        this.loop = group.next();
        this.engine = new Engine(config, loop, loop::inEventLoop, log);
        if (clock != null) engine.keyspace().setClock(clock); // before the loop runs anything
        engine.setShutdownHandler(this::shutdownRequested);
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

        /**
         * Sets an option ("port", "7000"; "save", ""; ...), validated as CONFIG SET would.
         *
         * <p>Unlike redis-server, an in-process server has no save points unless "save" is set,
         * and reads the RDB or AOF of a previous run only when "dir" (or "appendonly yes") is
         * given: a test fixture must not pick up a dump.rdb lying in the working directory.
         */
        public Builder option(String name, String value) {
            options.add(new String[] {name, value});
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

        public SpinelServer start() {
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
                    config.set(o[0], o[1]);
                } catch (Config.ConfigException e) {
                    throw new IllegalArgumentException("Invalid option '" + o[0] + "' value '" + o[1] + "': "
                            + e.getMessage(), e);
                }
            }
            SpinelServer s = new SpinelServer(config, log, load, clock);
            try {
                s.bind(randomPort);
            } catch (Exception e) {
                s.close();
                throw new IllegalStateException("cannot start Spinel: " + e.getMessage(), e);
            }
            return s;
        }
    }

    /** Starts a server from an already loaded configuration (the command line launcher). */
    static SpinelServer start(Config config, Log log) throws Exception {
        SpinelServer s = new SpinelServer(config, log, true, null);
        // The standalone server owns its JVM: give the heap back after the data shrank
        // (-Dspinel.idleHeapReturn=false turns it off).
        if (!"false".equals(System.getProperty("spinel.idleHeapReturn"))) s.engine.setIdleHeapReturn(System::gc);
        try {
            s.bind(false);
        } catch (Exception e) {
            s.close();
            throw e;
        }
        return s;
    }

    private void bind(boolean randomPort) throws Exception {
        // The data set is loaded before any listener opens: clients never see a partial one.
        try {
            loop.submit(() -> engine.persistence().startUp(loadData)).sync();
        } catch (io.spinel.core.persist.PersistenceException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
        int wantedPort = config.getInt("port");
        int backlog = config.getInt("tcp-backlog");
        engine.setHostInfo(epoll ? "epoll" : "nio", ProcessHandle.current().info().command().orElse(""),
                engine.configFile());
        if (wantedPort != 0 || randomPort) port = listenTcp(group, config.get("bind"), wantedPort, backlog);
        // a port the OS picked is the port: CONFIG GET port says where the server listens (0 would
        // mean no TCP listener at all)
        if (randomPort && wantedPort == 0 && port != 0) config.set("port", Integer.toString(port));
        String socketPath = config.get("unixsocket");
        if (!socketPath.isEmpty()) {
            if (!epoll) throw new IOException("unixsocket needs the native epoll transport, which is not available here");
            Path p = Path.of(socketPath);
            Files.deleteIfExists(p);
            Channel ch = new ServerBootstrap()
                    .group(group)
                    .channel(EpollServerDomainSocketChannel.class)
                    .option(ChannelOption.SO_BACKLOG, backlog)
                    .childHandler(initializer())
                    .bind(new DomainSocketAddress(socketPath)).sync().channel();
            listeners.add(ch);
            unixSocket = socketPath;
            long perm = config.getLong("unixsocketperm");
            if (perm != 0) Files.setPosixFilePermissions(p, permissions(perm));
        }
        engine.setListenInfo(config.get("bind"), port);
        loop.submit(engine::start).sync();
        // from now on a change of port or bind (CONFIG SET) moves the TCP listeners
        config.listen("port", o -> {
            if (watchingListenConfig && !stopping) changeListeners(config.get("bind"), config.getInt("port"));
        });
        config.listen("bind", o -> {
            if (watchingListenConfig && !stopping) changeListeners(o.value(), port);
        });
        watchingListenConfig = true;
    }

    /**
     * Opens a TCP listener on each address of bindSpec (Redis's bind syntax: "-" marks an
     * address that may fail) at wantedPort, 0 for a port the OS picks, and returns the port.
     * When a required address fails, what this call opened is closed again.
     */
    private int listenTcp(EventLoopGroup parent, String bindSpec, int wantedPort, int backlog) throws IOException {
        Class<? extends ServerChannel> type = epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
        ServerBootstrap b = new ServerBootstrap()
                .group(parent, group)
                .channel(type)
                .option(ChannelOption.SO_BACKLOG, backlog)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(initializer());
        int keepalive = config.getInt("tcp-keepalive");
        if (keepalive > 0) {
            b.childOption(ChannelOption.SO_KEEPALIVE, true);
            if (epoll) {
                b.childOption(EpollChannelOption.TCP_KEEPIDLE, keepalive);
                b.childOption(EpollChannelOption.TCP_KEEPINTVL, Math.max(1, keepalive / 3));
                b.childOption(EpollChannelOption.TCP_KEEPCNT, 3);
            }
        }
        int bindPort = wantedPort;
        List<Channel> opened = new ArrayList<>();
        for (String addr : bindSpec.split(" ")) {
            boolean optional = addr.startsWith("-");
            String host = optional ? addr.substring(1) : addr;
            if (host.equals("*")) host = "0.0.0.0";
            else if (host.equals("::*")) host = "::";
            try {
                Channel ch = b.bind(new InetSocketAddress(host, bindPort)).sync().channel();
                opened.add(ch);
                if (bindPort == 0) bindPort = ((InetSocketAddress) ch.localAddress()).getPort();
            } catch (Exception e) {
                if (optional) {
                    log.verbose("Skipping optional bind address " + host + ": " + e.getMessage());
                    continue;
                }
                for (Channel ch : opened) ch.close().awaitUninterruptibly();
                throw new IOException("Could not create server TCP listening socket " + host + ":" + bindPort
                        + ": " + e.getMessage(), e);
            }
        }
        tcpListeners.addAll(opened);
        listeners.addAll(opened);
        boundAddresses = bindSpec;
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
            port = newPort == 0 ? 0 : listenTcp(rebindGroup(), bindSpec, newPort, config.getInt("tcp-backlog"));
            boundAddresses = bindSpec;
        } catch (IOException e) {
            log.warning(e.getMessage());
            try {
                port = oldPort == 0 ? 0 : listenTcp(rebindGroup(), oldSpec, oldPort, config.getInt("tcp-backlog"));
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
        for (Channel ch : tcpListeners) {
            listeners.remove(ch);
            ch.close().awaitUninterruptibly();
        }
        tcpListeners.clear();
    }

    private EventLoopGroup rebindGroup() {
        if (rebindGroup == null) {
            IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
            rebindGroup = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("spinel-accept", true), io);
        }
        return rebindGroup;
    }

    private ChannelInitializer<Channel> initializer() {
        return new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(new ClientHandler(engine));
            }
        };
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

    public boolean isEpoll() {
        return epoll;
    }

    /** Called once the server has fully stopped (the launcher exits the JVM there). */
    void onStopped(Runnable r) {
        this.onStopped = r;
    }

    /** SHUTDOWN, on the loop thread: persistence first (it may refuse), then the stop. */
    private String shutdownRequested(boolean save, boolean nosave, boolean now, boolean force) {
        log.warning("User requested shutdown...");
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
        if (stopping) {
            log.warning("You insist... exiting now.");
            Runtime.getRuntime().halt(1);
        }
        log.warning("Received " + name + " scheduling shutdown...");
        loop.execute(() -> {
            if (stopping) return;
            List<String> flags = List.of(config.get(name.equals("SIGINT") ? "shutdown-on-sigint" : "shutdown-on-sigterm")
                    .split(" "));
            String err = engine.persistence().shutdown(flags.contains("save"), flags.contains("nosave"),
                    flags.contains("force"));
            if (err != null) {
                log.warning(name + " received but errors trying to shut down the server, check the logs for more "
                        + "information");
                return;
            }
            stop(name);
        });
    }

    /**
     * Graceful stop on the loop thread: stop accepting, send what clients are owed, close them,
     * remove the unix socket, then release the event loop.
     */
    private void stop(String why) {
        if (stopping) return;
        stopping = true;
        for (Channel l : listeners) l.close();
        engine.flushPending();
        engine.stop();
        List<Client> all = new ArrayList<>(engine.clients());
        for (Client c : all) engine.closeClient(c);
        if (unixSocket != null) {
            log.notice("Removing the unix socket file.");
            new File(unixSocket).delete();
        }
        if (rebindGroup != null) rebindGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).addListener(f -> {
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
        if (!group.isShuttingDown() && !stopping) {
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
                group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            }
        }
        try {
            stopped.await(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
