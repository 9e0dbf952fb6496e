package io.spinel.server;

import io.netty.util.ResourceLeakDetector;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.netty.util.internal.logging.JdkLoggerFactory;
import io.spinel.core.Engine;
import io.spinel.core.Log;
import io.spinel.core.command.CommandTable;
import io.spinel.core.config.Config;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;

/**
 * The redis-server compatible command line: {@code spinel-server [config-file] [--name value ...]}.
 * A bad option stops start-up with the line named; SIGTERM and SIGINT stop the server cleanly and
 * exit 0.
 */
public final class Main {
    private Main() {
    }

    /**
     * Netty samples one buffer in 128 for leak tracking unless told otherwise: a tracked buffer is
     * wrapped in another class, which makes the read path's calls polymorphic, and its records
     * are kept and dropped on the event loop. The standalone server leaves that off (as servers
     * built on Netty do in production) unless -Dio.netty.leakDetection.level asks for it; an
     * embedding application keeps whatever it chose for its own Netty.
     */
    private static void disableLeakDetectionUnlessAsked() {
        if (System.getProperty("io.netty.leakDetection.level") == null
                && System.getProperty("io.netty.leakDetectionLevel") == null) {
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        }
    }

    private static final byte[] OUT_OF_MEMORY = ("Out of memory: the Java heap is exhausted outside a command, exiting. "
            + "Raise the heap (SPINEL_JAVA_OPTS=-Xmx...) or set maxmemory.\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    /**
     * An OutOfMemoryError that a thread does not catch (a command's own is answered with -OOM)
     * ends the process, as Redis aborts when an allocation fails: the thread it ends may be the
     * event loop's, and a process without it would accept connections and answer none, SIGTERM
     * included. The message is made beforehand: there may be no memory left to make it then.
     */
    private static void exitOnEscapedOutOfMemory() {
        Thread.UncaughtExceptionHandler previous = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler((thread, e) -> {
            if (e instanceof OutOfMemoryError) {
                System.err.write(OUT_OF_MEMORY, 0, OUT_OF_MEMORY.length);
                System.err.flush();
                Runtime.getRuntime().halt(1);
            }
            if (previous != null) {
                previous.uncaughtException(thread, e);
            } else {
                // what the JVM prints without a handler (not the thread group's uncaughtException,
                // which hands the exception back to this default handler, round and round)
                System.err.print("Exception in thread \"" + thread.getName() + "\" ");
                e.printStackTrace(System.err);
            }
        });
    }

    public static void main(String[] argv) {
        List<String> args = new ArrayList<>(Arrays.asList(argv));
        if (args.size() == 1 && (args.get(0).equals("-v") || args.get(0).equals("--version"))) {
            System.out.println(versionLine());
            return;
        }
        if (args.size() == 1 && (args.get(0).equals("-h") || args.get(0).equals("--help"))) {
            System.out.println(usage());
            return;
        }
        exitOnEscapedOutOfMemory();
        // Netty's event loop and native library take longer to set up than reading the
        // configuration and logging the banner: made meanwhile on a second thread.
        FutureTask<ServerTransport> transport = new FutureTask<>(() -> {
            // (java.util.logging is what Netty settles on here after looking for SLF4J and Log4J)
            InternalLoggerFactory.setDefaultFactory(JdkLoggerFactory.INSTANCE);
            disableLeakDetectionUnlessAsked();
            ServerTransport t = SpinelServer.newStandaloneTransport();
            t.warmUpListening();
            return t;
        });
        startDaemon("spinel-prepare", transport);
        // What the banner, making the engine and beginning the load wait for, made meanwhile on
        // two more threads (main then finds it done, or waits for the rest): the JVM's management
        // beans, for the banner and for the heap sizing of a load (10-20 ms in a fresh JVM), and
        // the command table's specs, parsed from CommandRows (interpreted).
        FutureTask<String> jvmLine = new FutureTask<>(() -> {
            String line = jvmLine();
            HeapRoom.prepare();
            return line;
        });
        startDaemon("spinel-prepare-jvm", jvmLine);
        startDaemon("spinel-prepare-commands", CommandTable::new);
        Config config = new Config();
        ConfigLoader loader = new ConfigLoader(config);
        boolean sentinelMode = SentinelMode.requested(args, System.getProperty("spinel.execName", ""));
        if (sentinelMode) SentinelMode.setDefaults(config, loader);
        String configFile = null;
        Path rewritable = null;
        String stdinConfig = null;
        try {
            if (!args.isEmpty() && !args.get(0).startsWith("--")) {
                configFile = args.remove(0);
                if (configFile.equals("-")) {
                    stdinConfig = new String(System.in.readAllBytes(), StandardCharsets.ISO_8859_1);
                    loader.load(stdinConfig, null);
                } else {
                    Path p = Path.of(configFile);
                    if (!Files.isReadable(p)) {
                        System.err.println("Fatal error, can't open config file '" + configFile + "': No such file or directory");
                        System.exit(1);
                    }
                    loader.loadFile(p);
                    rewritable = p.toAbsolutePath();
                    configFile = rewritable.toString();
                }
            }
            loader.load(ConfigLoader.optionsToConfig(args), null);
            loader.checkAfterLoading();
        } catch (ConfigLoader.ConfigError e) {
            System.err.println(e.report(Engine.SPINEL_VERSION));
            System.exit(1);
        } catch (IOException e) {
            System.err.println("Fatal error, can't read config file '" + configFile + "': " + e.getMessage());
            System.exit(1);
        }

        // as Redis: a supervisor that is there (its variable set) keeps the process in the foreground
        String supervisor = Supervisor.supervisor(config.get("supervised"));
        if (config.getBool("daemonize") && supervisor == null) {
            if (System.getenv(DAEMON_ENV) == null) daemonize(stdinConfig);
            // Redis's pid file when daemonized without one
            if (config.get("pidfile").isEmpty()) {
                try {
                    config.set("pidfile", "/var/run/redis.pid");
                } catch (io.spinel.core.config.Config.ConfigException e) {
                    throw new IllegalStateException(e); // a valid value: cannot happen
                }
            }
        }

        Log log = new Log(System.out);
        log.setLevel(Log.parseLevel(config.get("loglevel")));
        // Redis changes into "dir" as it reads the option, so a relative log or pid file name is
        // relative to it (Redis's cluster tests give each node "dir ./redis_N" and "logfile log.txt")
        String logfile = inDir(config, config.get("logfile"));
        if (!logfile.isEmpty()) {
            try {
                log.setOutput(new PrintStream(new FileOutputStream(logfile, true), true, StandardCharsets.UTF_8));
            } catch (IOException e) {
                System.err.println("Can't open the log file: " + e.getMessage());
                System.exit(1);
            }
        }
        config.listen("loglevel", o -> log.setLevel(Log.parseLevel(o.value())));

        log.setRole('C');
        if (sentinelMode && !SentinelMode.configFileUsable(rewritable, log)) System.exit(1);
        log.warning("oO0OoO0OoO0Oo Spinel is starting oO0OoO0OoO0Oo");
        log.warning("Spinel version=" + Engine.SPINEL_VERSION + " (Redis " + Engine.REDIS_VERSION
                + " compatible), bits=64, pid=" + ProcessHandle.current().pid() + ", just started");
        try {
            log.warning(jvmLine.get());
        } catch (InterruptedException | ExecutionException e) {
            log.warning(jvmLine());
        }
        if (configFile == null) {
            log.warning("Warning: no config file specified, using the default config. In order to specify a config "
                    + "file use spinel-server /path/to/redis.conf");
        } else {
            log.warning("Configuration loaded");
        }
        for (String ignored : config.ignoredInUse()) {
            log.warning("Option '" + ignored + "' is accepted but has no effect in Spinel (value '"
                    + config.get(ignored) + "')");
        }
        log.setRole(sentinelMode ? 'X' : 'M');
        // Redis's warnings when the supervisor named is not what started the process
        if (supervisor == null && config.get("supervised").equals("upstart")) {
            log.warning("upstart supervision requested, but UPSTART_JOB not found!");
        } else if (supervisor == null && config.get("supervised").equals("systemd")) {
            log.warning("systemd supervision error: NOTIFY_SOCKET not found!");
        }

        // Written before the server answers anyone, as Redis writes it before its event loop runs:
        // a client that got a reply can rely on the file being there.
        String pidfile = inDir(config, config.get("pidfile"));
        if (!pidfile.isEmpty()) writePidFile(pidfile, log);
        SpinelServer server;
        try {
            if (AOT_TRAINING) {
                try (java.net.ServerSocket probe = new java.net.ServerSocket(0)) {
                    config.set("port", Integer.toString(probe.getLocalPort()));
                }
            }
            // as Redis before it loads anything: a server no client can reach stops
            boolean tcp = (config.getInt("port") != 0 || config.getInt("tls-port") != 0) && !config.get("bind").isEmpty();
            if (!tcp && config.get("unixsocket").isEmpty()) {
                throw new IllegalStateException("Configured to not listen anywhere, exiting.");
            }
            io.spinel.core.Engine engine;
            if (sentinelMode) {
                try {
                    engine = SentinelMode.prepareEngine(config, log, loader.sentinelLines(), rewritable);
                } catch (io.spinel.core.sentinel.SentinelConfig.LoadError e) {
                    System.err.println(SentinelMode.report(e));
                    System.exit(1);
                    return;
                }
            } else {
                engine = SpinelServer.prepareStandaloneEngine(config, log);
            }
            // checked line by line while the configuration loaded: these cannot fail now
            loader.renames().applyTo(engine.commands());
            SpinelServer.loadUsers(engine, loader.users());
            // DEBUG SEGFAULT / PANIC: the process ends as it would by the signal (128 + SIGSEGV's 11),
            // after the crash report the caller logged
            engine.setCrashHandler(() -> Runtime.getRuntime().halt(139));
            engine.ownProcess(); // oom-score-adj
            Signals.installForLoading(engine);
            // Redis prints its ASCII logo once it listens, before it loads the data set; test
            // harnesses (Redis's own TCL suite) find the server's pid through the "PID: n" line of
            // that banner, and then connect (a server that fails to load included), so Spinel
            // prints one of its own there
            Runnable banner = !config.getBool("always-show-logo") ? () -> { } : () -> log.raw("\n    Spinel "
                    + Engine.SPINEL_VERSION + " (Redis " + Engine.REDIS_VERSION + " compatible) 64 bit\n"
                    + "    Running in " + (sentinelMode ? "sentinel" : "standalone") + " mode\n"
                    + "    Port: " + (config.getInt("port") != 0 ? config.getInt("port") : config.getInt("tls-port")) + "\n"
                    + "    PID: " + ProcessHandle.current().pid() + "\n");
            server = SpinelServer.start(engine, awaitTransport(transport), banner);
        } catch (io.spinel.core.persist.ShutdownWhileLoading e) {
            // SHUTDOWN from a client while the data set loaded: nothing saved, a clean exit
            removePidFile(pidfile, log);
            log.warning("Spinel is now ready to exit, bye bye...");
            System.exit(0);
            return;
        } catch (Exception e) {
            // the reason is the log's last line, as Redis leaves it (tools read the tail)
            removePidFile(pidfile, log);
            log.warning(e.getMessage() == null ? e.toString() : e.getMessage());
            System.exit(1);
            return;
        }
        // INFO executable: as Redis gives its argv[0] made absolute, the launcher as started
        // (started without it, the JVM)
        String execName = System.getProperty("spinel.execName");
        String executable = execName != null ? Path.of(execName).toAbsolutePath().normalize().toString()
                : ProcessHandle.current().info().command().orElse("java");
        server.engine().setHostInfo(server.multiplexingApi(), executable, configFile == null ? "" : configFile);
        // CONFIG REWRITE needs the file the server started with (not stdin, not options alone)
        if (rewritable != null && !sentinelMode) ConfigRewriter.install(server.engine(), rewritable);
        boolean notifySystemd = "systemd".equals(supervisor);
        server.onStopped(() -> {
            if (notifySystemd) Supervisor.notifySystemd("STOPPING=1\n");
            removePidFile(pidfile, log);
            log.warning("Spinel is now ready to exit, bye bye...");
            System.exit(0);
        });
        Signals.install(server);
        ProcTitle.install(server.engine(), System.getProperty("spinel.execName", "spinel-server"));
        log.notice("Running mode=" + (server.engine().cluster() != null ? "cluster" : sentinelMode ? "sentinel" : "standalone") + ", port=" + (server.port() != 0 ? server.port() : server.tlsPort()) + ".");
        log.notice("Transport: " + (server.isEpoll() ? "native epoll" : server.multiplexingApi().equals("nio") ? "NIO"
                : "the JDK's selector (" + server.multiplexingApi() + ")"));
        if (server.engine().ioThreadsActive()) {
            int io = config.getInt("io-threads");
            log.notice((io - 1) + " I/O thread" + (io > 2 ? "s" : "") + " read and write the connections, "
                    + "commands run on the main thread (io-threads " + io + ")");
        }
        log.warning("Server initialized");
        if (server.port() != 0) log.notice("Ready to accept connections tcp");
        if (server.unixSocket() != null) log.notice("Ready to accept connections unix");
        if (notifySystemd) {
            log.notice("Under systemd (supervised " + config.get("supervised") + "): notifying it that the server is ready");
            if (!Supervisor.notifySystemd("STATUS=Ready to accept connections\n") || !Supervisor.notifySystemd("READY=1\n")) {
                log.warning("Failed to notify systemd that the server is ready (NOTIFY_SOCKET " + System.getenv("NOTIFY_SOCKET") + ")");
            }
        }
        if ("upstart".equals(supervisor)) {
            // Redis stops itself as soon as its configuration is read; Spinel once it serves, so
            // that what upstart starts after it finds it listening
            log.notice("supervised by upstart, will stop to signal readiness.");
            if (!Supervisor.stopForUpstart()) log.warning("Failed to stop for upstart (kill -STOP): it is not told that the server is ready");
        }
        if (AOT_TRAINING) {
            // the launcher's training run for the JDK's AOT cache: serve one client, then stop
            trainingClient(server.port());
            server.close();
            return;
        }
        try {
            server.awaitStop(); // the event loop thread is a daemon: keep the JVM up until stopped
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static ServerTransport awaitTransport(FutureTask<ServerTransport> transport) throws Exception {
        try {
            return transport.get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception ? (Exception) e.getCause() : e;
        }
    }

    /**
     * Set by the launcher for its training run (JDK 25+): the JVM records the classes that
     * starting and serving a first client load, and later starts map them ready-linked.
     */
    private static final boolean AOT_TRAINING = Boolean.getBoolean("spinel.aotTraining");

    /** Sends a few commands the way a client does and reads the replies (for the training run). */
    private static void trainingClient(int port) {
        if (port == 0) return;
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", port)) {
            s.setSoTimeout(5000);
            // (SAVE, into the training run's own directory: the first BGSAVE of a server then
            // finds its classes in the cache too, instead of taking ~0.1 s of the executor)
            s.getOutputStream().write(("PING\r\n*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n"
                    + "*2\r\n$3\r\nGET\r\n$1\r\nk\r\nSAVE\r\n*2\r\n$3\r\nDEL\r\n$1\r\nk\r\n")
                    .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            java.io.InputStream in = s.getInputStream();
            int lines = 0;
            while (lines < 6) {
                int c = in.read();
                if (c < 0) break;
                if (c == '\n') lines++;
            }
        } catch (IOException ignored) {
            // training is best effort: a cache of what start-up loaded is still worth having
        }
    }

    /** A file name option's value as a path: a relative one is inside "dir"; "" stays "". */
    private static String inDir(Config config, String value) {
        String name = Config.fileName(value);
        if (name.isEmpty()) return name;
        return Path.of(Config.fileName(config.get("dir"))).resolve(name).toString();
    }

    private static void writePidFile(String path, Log log) {
        try {
            Files.writeString(Path.of(path), ProcessHandle.current().pid() + "\n");
        } catch (IOException e) {
            log.warning("Failed to write PID file: " + e.getMessage());
        }
    }

    private static void removePidFile(String path, Log log) {
        if (path.isEmpty()) return;
        log.notice("Removing the pid file.");
        try {
            Files.deleteIfExists(Path.of(path));
        } catch (IOException ignored) {
            // best effort, as Redis
        }
    }

    /** Set in the environment of the process that daemonize started, which is the server. */
    private static final String DAEMON_ENV = "SPINEL_DAEMONIZED";

    /**
     * daemonize yes: the JVM cannot fork, so it starts itself again, with the same command line,
     * in a session of its own (setsid) with no terminal and its output to /dev/null, as Redis's
     * forked child has, and exits with 0 at once, as Redis's parent does; the configuration was
     * checked first, so its errors still reach the terminal. A configuration read from stdin
     * ("-") is written to the new process's stdin.
     */
    private static void daemonize(String stdinConfig) {
        List<String> cmd = new ArrayList<>();
        if (Files.isExecutable(Path.of("/usr/bin/setsid"))) cmd.add("/usr/bin/setsid");
        try {
            cmd.addAll(ownCommandLine());
        } catch (IOException e) {
            System.err.println("Can't daemonize: this JVM's command line cannot be read: " + e.getMessage());
            System.exit(1);
        }
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().put(DAEMON_ENV, "1");
        java.io.File devNull = new java.io.File("/dev/null");
        pb.redirectOutput(devNull).redirectError(devNull);
        if (stdinConfig == null) pb.redirectInput(devNull);
        try {
            Process child = pb.start();
            if (stdinConfig != null) {
                try (var in = child.getOutputStream()) {
                    in.write(stdinConfig.getBytes(StandardCharsets.ISO_8859_1));
                }
            }
        } catch (IOException e) {
            System.err.println("Can't daemonize: " + e.getMessage());
            System.exit(1);
        }
        System.exit(0);
    }

    /**
     * This JVM's command line, executable first, from /proc/self/cmdline (ProcessHandle's
     * arguments stop at the first empty one, such as the value of {@code --save ""}).
     */
    private static List<String> ownCommandLine() throws IOException {
        byte[] b = Files.readAllBytes(Path.of("/proc/self/cmdline"));
        List<String> out = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < b.length; i++) {
            if (b[i] == 0) {
                out.add(new String(b, start, i - start, StandardCharsets.UTF_8));
                start = i + 1;
            }
        }
        if (out.isEmpty()) throw new IOException("empty /proc/self/cmdline");
        return out;
    }

    private static void startDaemon(String name, Runnable task) {
        Thread t = new Thread(task, name);
        t.setDaemon(true);
        t.start();
    }

    /** The banner's line about the JVM: version, heap, collectors and options. */
    private static String jvmLine() {
        return "JDK " + System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ", "
                + System.getProperty("java.vendor") + "), max heap " + Runtime.getRuntime().maxMemory() / (1024 * 1024)
                + " MB, GC " + gcNames() + ", JVM options "
                + String.join(" ", java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments());
    }

    private static String gcNames() {
        StringBuilder sb = new StringBuilder();
        for (java.lang.management.GarbageCollectorMXBean gc : java.lang.management.ManagementFactory.getGarbageCollectorMXBeans()) {
            if (sb.length() > 0) sb.append(" + ");
            sb.append(gc.getName());
        }
        return sb.toString();
    }

    static String versionLine() {
        return "Spinel server v=" + Engine.SPINEL_VERSION + " redis=" + Engine.REDIS_VERSION + " bits=64 jdk="
                + System.getProperty("java.version");
    }

    static String usage() {
        return String.join("\n",
                "Usage: ./spinel-server [/path/to/redis.conf] [options] [-]",
                "       ./spinel-server - (read config from stdin)",
                "       ./spinel-server -v or --version",
                "       ./spinel-server -h or --help",
                "",
                "Examples:",
                "       ./spinel-server (run the server with default config)",
                "       ./spinel-server /etc/redis/6379.conf",
                "       ./spinel-server --port 7777",
                "       ./spinel-server /etc/myredis.conf --loglevel verbose -",
                "       ./spinel-server /etc/myredis.conf --loglevel verbose",
                "",
                "Options are redis.conf directives given as --name value; see docs/COMMANDS.md for what Spinel supports.");
    }
}
