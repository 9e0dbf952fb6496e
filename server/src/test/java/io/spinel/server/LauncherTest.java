package io.spinel.server;

import io.spinel.server.testing.RawClient;
import io.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The redis-server compatible command line, run as a separate JVM as a user runs it. */
class LauncherTest {
    private static Process launch(Path log, String... args) throws IOException {
        return launch(java.util.Map.of(), log, args);
    }

    private static Process launch(java.util.Map<String, String> env, Path log, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(Arrays.asList(
                System.getProperty("java.home") + File.separator + "bin" + File.separator + "java",
                "-cp", System.getProperty("java.class.path"), "io.spinel.server.Main"));
        cmd.addAll(Arrays.asList(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().remove("UPSTART_JOB"); // a supervisor's variables only where a test sets them
        pb.environment().remove("NOTIFY_SOCKET");
        pb.environment().putAll(env);
        return pb.start();
    }

    @Test
    void sigtermShutsDownCleanlyWithExitZero(@TempDir Path dir) throws Exception {
        int port = RedisServerProcess.freePort();
        Path pidfile = dir.resolve("spinel.pid");
        Path log = dir.resolve("out.log");
        Process p = launch(log, "--port", Integer.toString(port), "--pidfile", pidfile.toString(), "--dir", dir.toString());
        try {
            waitForPing(port);
            assertThat(Files.readString(pidfile).trim()).isEqualTo(Long.toString(p.pid()));
            try (RawClient c = new RawClient(port)) {
                assertThat(c.callString("SET", "k", "v")).isEqualTo("+OK\r\n");
            }
            p.destroy(); // SIGTERM
            assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).isZero();
            String out = Files.readString(log);
            assertThat(out).contains("Received SIGTERM scheduling shutdown").contains("ready to exit, bye bye");
            assertThat(pidfile).doesNotExist();
            // Redis's default save points apply on the command line: the change is saved at exit
            assertThat(out).contains("Saving the final RDB snapshot before exiting.");
            assertThat(dir.resolve("dump.rdb")).exists();
        } finally {
            p.destroyForcibly();
        }
    }

    /**
     * --sentinel: refused without a config file (Sentinel keeps its state there), and with one it
     * starts as a Sentinel, saves the id it picked into the file, serves only Sentinel's commands
     * and saves no data set when stopped.
     */
    @Test
    void sentinelModeNeedsAFileAndSavesItsIdThere(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("out.log");
        Process none = launch(log, "--sentinel", "--port", Integer.toString(RedisServerProcess.freePort()));
        assertThat(none.waitFor(20, TimeUnit.SECONDS)).isTrue();
        assertThat(none.exitValue()).isEqualTo(1);
        assertThat(Files.readString(log)).contains("Sentinel needs config file on disk to save state. Exiting...");

        int port = RedisServerProcess.freePort();
        Path conf = dir.resolve("sentinel.conf");
        Files.writeString(conf, "sentinel monitor mymaster 127.0.0.1 1 2\n");
        Process p = launch(log, conf.toString(), "--sentinel", "--port", Integer.toString(port), "--dir", dir.toString());
        try {
            waitForPing(port);
            try (RawClient c = new RawClient(port)) {
                String id = c.callString("SENTINEL", "MYID");
                assertThat(Files.readString(conf)).contains("sentinel myid " + id.substring(id.indexOf("\r\n") + 2).trim())
                        .contains("sentinel monitor mymaster 127.0.0.1 1 2");
                assertThat(c.callString("GET", "k")).startsWith("-ERR unknown command 'GET'");
                assertThat(c.callString("INFO", "server")).contains("redis_mode:sentinel");
            }
            p.destroy(); // SIGTERM
            assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).isZero();
            assertThat(dir.resolve("dump.rdb")).doesNotExist();
        } finally {
            p.destroyForcibly();
        }
    }

    /**
     * SIGTERM while the data set loads at start ends the process at once with status 0, saving
     * nothing over the file being loaded (Redis sees the signal between its load's batches).
     */
    @Test
    void sigtermWhileLoadingExitsWithoutSaving(@TempDir Path dir) throws Exception {
        int port = RedisServerProcess.freePort();
        try (SpinelServer s = SpinelServer.builder().randomPort().option("dir", dir.toString()).start();
                RawClient c = new RawClient(s.port())) {
            for (int i = 0; i < 500; i++) c.call("SET", "key:" + i, "value:" + i);
            assertThat(c.callString("SAVE")).isEqualTo("+OK\r\n");
        }
        byte[] saved = Files.readAllBytes(dir.resolve("dump.rdb"));
        Path log = dir.resolve("out.log");
        // 20 ms a key: 10 s of loading
        Process p = launch(log, "--port", Integer.toString(port), "--dir", dir.toString(), "--key-load-delay", "20000");
        try {
            long deadline = System.currentTimeMillis() + 20_000;
            String loading = null;
            while (loading == null && System.currentTimeMillis() < deadline) {
                try (RawClient c = new RawClient(port)) {
                    loading = c.callString("PING");
                } catch (IOException e) {
                    Thread.sleep(50);
                }
            }
            assertThat(loading).startsWith("-LOADING");
            long t0 = System.nanoTime();
            p.destroy(); // SIGTERM
            assertThat(p.waitFor(5, TimeUnit.SECONDS)).as(Files.readString(log)).isTrue();
            assertThat(System.nanoTime() - t0).isLessThan(TimeUnit.SECONDS.toNanos(5));
            assertThat(p.exitValue()).isZero();
            assertThat(Files.readAllBytes(dir.resolve("dump.rdb"))).isEqualTo(saved);
            assertThat(Files.readString(log)).contains("Received shutdown signal during loading, scheduling shutdown.")
                    .doesNotContain("Saving the final RDB snapshot");
        } finally {
            p.destroyForcibly();
        }
    }

    /**
     * A signal's shutdown starts at the next cron tick, as Redis's: SHUTDOWN ABORT before it
     * (here with the cron paused) keeps the server running. A second SIGINT during the shutdown's
     * save exits at once with status 1 and removes the save's temporary file.
     */
    @Test
    void shutdownAbortCancelsASignalAndASecondSigintExitsAtOnce(@TempDir Path dir) throws Exception {
        int port = RedisServerProcess.freePort();
        Path log = dir.resolve("out.log");
        Process p = launch(log, "--port", Integer.toString(port), "--dir", dir.toString(), "--enable-debug-command", "yes");
        try {
            waitForPing(port);
            try (RawClient c = new RawClient(port)) {
                assertThat(c.callString("DEBUG", "PAUSE-CRON", "1")).isEqualTo("+OK\r\n");
                signal("-TERM", p.pid());
                Thread.sleep(300);
                assertThat(c.callString("SHUTDOWN", "ABORT")).isEqualTo("+OK\r\n");
                assertThat(c.callString("DEBUG", "PAUSE-CRON", "0")).isEqualTo("+OK\r\n");
                Thread.sleep(300);
                assertThat(c.callString("PING")).isEqualTo("+PONG\r\n");
                assertThat(Files.readString(log)).contains("Received SIGTERM scheduling shutdown...", "Shutdown manually aborted.")
                        .doesNotContain("User requested shutdown");
                assertThat(c.callString("SHUTDOWN", "ABORT")).isEqualTo("-ERR No shutdown in progress.\r\n");

                for (int i = 0; i < 20; i++) c.call("SET", "k" + i, "v");
                c.call("CONFIG", "SET", "rdb-key-save-delay", "100000"); // 2 s to save
                signal("-INT", p.pid());
                Path temp = dir.resolve("temp-" + p.pid() + ".rdb");
                long deadline = System.currentTimeMillis() + 10_000;
                while (!Files.exists(temp)) {
                    assertThat(System.currentTimeMillis()).as(Files.readString(log)).isLessThan(deadline);
                    Thread.sleep(10);
                }
                signal("-INT", p.pid());
                assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
                assertThat(p.exitValue()).isEqualTo(1);
                assertThat(temp).doesNotExist();
                assertThat(Files.readString(log)).contains("You insist... exiting now.");
            }
        } finally {
            p.destroyForcibly();
        }
    }

    /**
     * The process title (set-proc-title, proc-title-template) replaces the JVM's command line in
     * /proc/PID/cmdline, as Redis's setproctitle does, and follows CONFIG SET of the template.
     */
    @Test
    void theProcessTitleFollowsItsTemplate(@TempDir Path dir) throws Exception {
        int port = RedisServerProcess.freePort();
        Path log = dir.resolve("out.log");
        Path cmdline = Path.of("/proc/self/cmdline");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.exists(cmdline), "Linux's /proc");
        // (the title is written as NativeMemory writes, through the JDK internals the launcher opens)
        java.util.Map<String, String> open = java.util.Map.of("JDK_JAVA_OPTIONS", "--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED");
        Process p = launch(open, log, "--port", Integer.toString(port), "--dir", dir.toString(), "--bind", "127.0.0.1");
        try {
            waitForPing(port);
            Path own = Path.of("/proc/" + p.pid() + "/cmdline");
            assertThat(Files.readString(own)).startsWith("spinel-server 127.0.0.1:" + port + "\0");
            try (RawClient c = new RawClient(port)) {
                assertThat(c.callString("CONFIG", "SET", "proc-title-template", "TEST {title} {port} {tls-port} {config-file}"))
                        .isEqualTo("+OK\r\n");
                assertThat(Files.readString(own)).startsWith("TEST spinel-server " + port + " 0 -\0");
                assertThat(c.callString("CONFIG", "SET", "proc-title-template", "{nope}")).startsWith("-ERR");
                assertThat(Files.readString(own)).startsWith("TEST spinel-server " + port + " 0 -\0");
            }
        } finally {
            p.destroy();
            p.waitFor(20, TimeUnit.SECONDS);
            p.destroyForcibly();
        }
        // set-proc-title no: the command line stays
        Process q = launch(open, log, "--port", Integer.toString(port), "--dir", dir.toString(), "--set-proc-title", "no");
        try {
            waitForPing(port);
            assertThat(Files.readString(Path.of("/proc/" + q.pid() + "/cmdline"))).contains("io.spinel.server.Main");
        } finally {
            q.destroy();
            q.waitFor(20, TimeUnit.SECONDS);
            q.destroyForcibly();
        }
    }

    /**
     * always-show-logo: the banner with the pid comes before the data set loads, as Redis's logo
     * does, so that a harness that waits for it (Redis's TCL suite) sees a start that then fails.
     */
    @Test
    void theBannerNamesThePidBeforeTheLoadFails(@TempDir Path dir) throws Exception {
        Files.write(dir.resolve("dump.rdb"), "REDIS0010 not an RDB".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        Path log = dir.resolve("out.log");
        Process p = launch(log, "--port", Integer.toString(RedisServerProcess.freePort()), "--dir", dir.toString(),
                "--always-show-logo", "yes");
        assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isEqualTo(1);
        String out = Files.readString(log);
        assertThat(out).contains(" PID: " + p.pid() + "\n");
        assertThat(out.indexOf(" PID: ")).isLessThan(out.indexOf("Error loading the RDB file"));
    }

    /**
     * A busy port: the reason, then Redis's "Failed listening on port N (TCP), aborting." as the
     * last line (Redis's TCL suite reads it to start the server again on another port, and waits
     * two minutes for a pid without it), and no pid file left.
     */
    @Test
    void aStartThatCannotListenLeavesNoPidFile(@TempDir Path dir) throws Exception {
        Path pidfile = dir.resolve("spinel.pid");
        int busy;
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0)) {
            busy = taken.getLocalPort();
            Process p = launch(dir.resolve("out.log"), "--port", Integer.toString(busy),
                    "--pidfile", pidfile.toString(), "--dir", dir.toString());
            assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).isEqualTo(1);
        }
        String out = Files.readString(dir.resolve("out.log"));
        assertThat(out).contains("Removing the pid file.");
        assertThat(out).contains("Could not create server TCP listening socket");
        assertThat(out.strip()).endsWith("# Failed listening on port " + busy + " (TCP), aborting.");
        assertThat(pidfile).doesNotExist();
    }

    /**
     * daemonize yes: the process started returns 0 at once, and the server runs on in a session of
     * its own (another process, the one the pid file names) with no terminal, logging to its
     * logfile; SHUTDOWN ends it and removes the pid file.
     */
    @Test
    void daemonizeLeavesTheServerRunningInTheBackground(@TempDir Path dir) throws Exception {
        int port = RedisServerProcess.freePort();
        Path pidfile = dir.resolve("spinel.pid");
        Path logfile = dir.resolve("spinel.log");
        // the empty value of save must reach the background process too
        Process p = launch(dir.resolve("out.log"), "--port", Integer.toString(port), "--daemonize", "yes",
                "--pidfile", pidfile.toString(), "--logfile", logfile.toString(), "--dir", dir.toString(), "--save", "");
        long daemon = -1;
        try {
            assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).isZero();
            waitForPing(port);
            daemon = Long.parseLong(Files.readString(pidfile).trim());
            assertThat(daemon).isNotEqualTo(p.pid());
            assertThat(ProcessHandle.of(daemon)).isPresent();
            try (RawClient c = new RawClient(port)) {
                assertThat(c.callString("CONFIG", "GET", "daemonize")).isEqualTo("*2\r\n$9\r\ndaemonize\r\n$3\r\nyes\r\n");
                assertThat(c.callString("CONFIG", "GET", "save")).isEqualTo("*2\r\n$4\r\nsave\r\n$0\r\n\r\n");
                c.send(List.of("SHUTDOWN".getBytes()));
                assertThat(c.isClosedByPeer()).isTrue();
            }
            ProcessHandle handle = ProcessHandle.of(daemon).orElse(null);
            if (handle != null) handle.onExit().get(20, TimeUnit.SECONDS);
            assertThat(pidfile).doesNotExist();
            assertThat(Files.readString(logfile)).contains("Ready to accept connections").contains("bye bye");
            assertThat(dir.resolve("dump.rdb")).doesNotExist(); // save "" came through
        } finally {
            p.destroyForcibly();
            if (daemon > 0) ProcessHandle.of(daemon).ifPresent(ProcessHandle::destroyForcibly);
        }
    }

    /**
     * As Redis under systemd: daemonize yes stays in the foreground, and systemd's socket
     * (NOTIFY_SOCKET) gets READY=1 once the server serves, for units of Type=notify.
     */
    @Test
    void aSupervisedServerDoesNotDaemonizeAndSaysWhenReady(@TempDir Path dir) throws Exception {
        io.netty.channel.epoll.Epoll.ensureAvailability();
        int port = RedisServerProcess.freePort();
        Path pidfile = dir.resolve("spinel.pid");
        Path notify = dir.resolve("notify");
        io.netty.channel.unix.Socket systemd = io.netty.channel.unix.Socket.newSocketDomainDgram();
        systemd.bind(new io.netty.channel.unix.DomainSocketAddress(notify.toString()));
        Process p = launch(java.util.Map.of("NOTIFY_SOCKET", notify.toString()), dir.resolve("out.log"),
                "--port", Integer.toString(port), "--daemonize", "yes", "--supervised", "systemd",
                "--pidfile", pidfile.toString(), "--dir", dir.toString(), "--save", "");
        try {
            waitForPing(port);
            assertThat(p.isAlive()).isTrue();
            assertThat(Files.readString(pidfile).trim()).isEqualTo(Long.toString(p.pid()));
            StringBuilder got = new StringBuilder();
            java.nio.ByteBuffer buf = java.nio.ByteBuffer.allocateDirect(4096);
            long deadline = System.currentTimeMillis() + 20_000;
            while (!got.toString().contains("READY=1\n")) {
                assertThat(System.currentTimeMillis()).as("notifications: " + got).isLessThan(deadline);
                buf.clear();
                // (the socket does not block: null until a datagram is there)
                io.netty.channel.unix.DomainDatagramSocketAddress from = systemd.recvFromDomainSocket(buf, 0, buf.capacity());
                if (from == null) {
                    Thread.sleep(20);
                    continue;
                }
                byte[] b = new byte[from.receivedAmount()];
                buf.get(0, b);
                got.append(new String(b, StandardCharsets.UTF_8));
            }
            assertThat(got.toString()).contains("STATUS=Ready to accept connections\n");
        } finally {
            systemd.close();
            p.destroy();
            p.waitFor(20, TimeUnit.SECONDS);
        }
    }

    /**
     * As Redis under upstart ({@code expect stop}): daemonize yes stays in the foreground, and the
     * process stops itself (SIGSTOP) to say it is ready, here once it serves, and goes on when
     * continued.
     */
    @Test
    void underUpstartTheServerStopsItselfWhenReadyAndGoesOnWhenContinued(@TempDir Path dir) throws Exception {
        int port = RedisServerProcess.freePort();
        Path log = dir.resolve("out.log");
        Process p = launch(java.util.Map.of("UPSTART_JOB", "spinel"), log, "--port", Integer.toString(port),
                "--daemonize", "yes", "--supervised", "auto", "--dir", dir.toString(), "--save", "");
        try {
            long deadline = System.currentTimeMillis() + 30_000;
            while (processState(p.pid()) != 'T') {
                assertThat(p.isAlive()).as("the server exited: " + Files.readString(log)).isTrue();
                assertThat(System.currentTimeMillis()).as("never stopped: " + Files.readString(log)).isLessThan(deadline);
                Thread.sleep(20);
            }
            assertThat(Files.readString(log)).contains("Ready to accept connections")
                    .contains("supervised by upstart, will stop to signal readiness.");
            signal("-CONT", p.pid());
            waitForPing(port);
            assertThat(processState(p.pid())).isNotEqualTo('T');
        } finally {
            signal("-CONT", p.pid());
            p.destroy();
            p.waitFor(20, TimeUnit.SECONDS);
        }
    }

    @Test
    void upstartNamedWithoutUpstartIsReportedAndIgnored(@TempDir Path dir) throws Exception {
        int port = RedisServerProcess.freePort();
        Path log = dir.resolve("out.log");
        Process p = launch(log, "--port", Integer.toString(port), "--supervised", "upstart",
                "--dir", dir.toString(), "--save", "");
        try {
            waitForPing(port);
            assertThat(processState(p.pid())).isNotEqualTo('T');
            assertThat(Files.readString(log)).contains("upstart supervision requested, but UPSTART_JOB not found!")
                    .doesNotContain("will stop to signal readiness");
        } finally {
            p.destroy();
            p.waitFor(20, TimeUnit.SECONDS);
        }
    }

    /** The state letter in /proc/PID/stat (R, S, T for stopped, ...). */
    private static char processState(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        return stat.charAt(stat.lastIndexOf(')') + 2);
    }

    private static void signal(String signal, long pid) throws Exception {
        new ProcessBuilder("kill", signal, Long.toString(pid)).start().waitFor(10, TimeUnit.SECONDS);
    }

    /**
     * SIGABRT logs Redis's crash report (the threads' stacks, INFO, the clients) and the process
     * ends as by the signal (134 to a shell); SIGTERM and SIGINT are graceful instead.
     */
    @Test
    void sigabrtLogsACrashReportAndEndsAsTheSignal(@TempDir Path dir) throws Exception {
        int port = RedisServerProcess.freePort();
        Path log = dir.resolve("out.log");
        Process p = launch(log, "--port", Integer.toString(port), "--dir", dir.toString());
        try {
            waitForPing(port);
            try (RawClient c = new RawClient(port)) {
                assertThat(c.callString("SET", "k", "v")).isEqualTo("+OK\r\n");
                signal("-ABRT", p.pid());
                assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
            }
            assertThat(p.exitValue()).isEqualTo(134);
            String out = Files.readString(log);
            assertThat(out).contains("=== SPINEL BUG REPORT START", "crashed by signal: 6", "------ STACK TRACE ------",
                    "spinel-main", "------ INFO OUTPUT ------", "db0:keys=1,", "------ CLIENT LIST OUTPUT ------",
                    "cmd=set", "=== SPINEL BUG REPORT END");
            assertThat(out).doesNotContain("Saving the final RDB snapshot");
        } finally {
            p.destroyForcibly();
        }
    }

    /**
     * oom-score-adj: the standalone server's /proc/self/oom_score_adj follows its class (master,
     * replica) relative to the score it started with, and goes back to that score when turned off.
     */
    @Test
    void oomScoreAdjSetsTheProcessScoreByRole(@TempDir Path dir) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.exists(Path.of("/proc/self/oom_score_adj")));
        int port = RedisServerProcess.freePort();
        Process p = launch(dir.resolve("out.log"), "--port", Integer.toString(port), "--dir", dir.toString(),
                "--oom-score-adj-values", "10 20 30");
        Path score = Path.of("/proc", Long.toString(p.pid()), "oom_score_adj");
        try {
            waitForPing(port);
            int base = Integer.parseInt(Files.readString(score).trim());
            try (RawClient c = new RawClient(port)) {
                assertThat(c.callString("CONFIG", "SET", "oom-score-adj", "yes")).isEqualTo("+OK\r\n");
                assertThat(Files.readString(score).trim()).isEqualTo(Integer.toString(base + 10));
                c.call("REPLICAOF", "127.0.0.1", "1");
                assertThat(Files.readString(score).trim()).isEqualTo(Integer.toString(base + 20));
                c.call("REPLICAOF", "NO", "ONE");
                c.call("CONFIG", "SET", "oom-score-adj", "absolute");
                c.call("CONFIG", "SET", "oom-score-adj-values", "15 20 30");
                assertThat(Files.readString(score).trim()).isEqualTo("15");
                assertThat(c.callString("CONFIG", "SET", "oom-score-adj", "no")).isEqualTo("+OK\r\n");
                assertThat(Files.readString(score).trim()).isEqualTo(Integer.toString(base));
            }
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    void shutdownCommandStopsTheServer(@TempDir Path dir) throws Exception {
        int port = RedisServerProcess.freePort();
        Process p = launch(dir.resolve("out.log"), "--port", Integer.toString(port), "--dir", dir.toString());
        try {
            waitForPing(port);
            try (RawClient c = new RawClient(port)) {
                c.send(List.of("SHUTDOWN".getBytes(), "NOSAVE".getBytes()));
                assertThat(c.isClosedByPeer()).isTrue();
            }
            assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).isZero();
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    void badOptionStopsStartupNamingTheLine(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("out.log");
        Process p = launch(log, "--port", "abc");
        assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isEqualTo(1);
        assertThat(Files.readString(log)).contains("*** FATAL CONFIG FILE ERROR")
                .contains("Reading the configuration file, at line 1")
                .contains(">>> 'port \"abc\"'")
                .contains("argument couldn't be parsed into an integer");
    }

    @Test
    void badConfigFileLineIsNamed(@TempDir Path dir) throws Exception {
        Path conf = dir.resolve("redis.conf");
        Files.writeString(conf, "# a comment\nport 7777\nnot-an-option yes\n", StandardCharsets.UTF_8);
        Path log = dir.resolve("out.log");
        Process p = launch(log, conf.toString());
        assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isEqualTo(1);
        assertThat(Files.readString(log)).contains("at line 3").contains(">>> 'not-an-option yes'")
                .contains("Bad directive or wrong number of arguments");
    }

    @Test
    void badRenameCommandLinesAreNamed(@TempDir Path dir) throws Exception {
        String[][] cases = {
                {"rename-command nosuch other", "No such command in rename-command"},
                {"rename-command get SET", "Target command name already exists"},
        };
        for (String[] c : cases) {
            Path conf = dir.resolve("redis.conf");
            Files.writeString(conf, "port 0\n" + c[0] + "\n", StandardCharsets.UTF_8);
            Path log = dir.resolve("out.log");
            Process p = launch(log, conf.toString());
            assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).isEqualTo(1);
            assertThat(Files.readString(log)).contains("at line 2").contains(">>> '" + c[0] + "'").contains(c[1]);
        }
    }

    /** rename-command on the command line; the AOF written under the new names loads again. */
    @Test
    void renamedCommandsServeAndTheirAofLoads(@TempDir Path dir) throws Exception {
        int port = RedisServerProcess.freePort();
        String[] args = {"--port", Integer.toString(port), "--dir", dir.toString(), "--appendonly", "yes",
                "--rename-command", "set", "put", "--rename-command", "flushall", "",
                // the AOF has EXPIRE as PEXPIREAT, which it finds under its own name (where Redis
                // would stop loading at an unknown command)
                "--rename-command", "pexpireat", "pexp"};
        Process p = launch(dir.resolve("out.log"), args);
        try {
            waitForPing(port);
            try (RawClient c = new RawClient(port)) {
                assertThat(c.callString("PUT", "k", "v")).isEqualTo("+OK\r\n");
                assertThat(c.callString("SET", "k", "w")).startsWith("-ERR unknown command 'SET'");
                assertThat(c.callString("FLUSHALL")).startsWith("-ERR unknown command 'FLUSHALL'");
                assertThat(c.callString("EXPIRE", "k", "1000")).isEqualTo(":1\r\n");
            }
        } finally {
            p.destroy();
            assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
        }
        Process again = launch(dir.resolve("again.log"), args);
        try {
            waitForPing(port);
            try (RawClient c = new RawClient(port)) {
                assertThat(c.callString("GET", "k")).isEqualTo("$1\r\nv\r\n");
                // (the seconds two JVM starts take on a loaded machine)
                assertThat(c.callString("TTL", "k")).matches(":(1000|99[0-9])\r\n");
            }
        } finally {
            again.destroy();
            again.waitFor(20, TimeUnit.SECONDS);
        }
    }

    @Test
    void configFileThenOverrides(@TempDir Path dir) throws Exception {
        int port = RedisServerProcess.freePort();
        Path conf = dir.resolve("redis.conf");
        Files.writeString(conf, "port 1\ndatabases 4\nsave \"\"\nmaxclients 77\n", StandardCharsets.UTF_8);
        Process p = launch(dir.resolve("out.log"), conf.toString(), "--port", Integer.toString(port),
                "--requirepass", "pass word");
        try {
            waitForPing(port);
            try (RawClient c = new RawClient(port)) {
                assertThat(c.callString("AUTH", "pass word")).isEqualTo("+OK\r\n");
                assertThat(c.callString("CONFIG", "GET", "databases")).contains("$1\r\n4\r\n");
                assertThat(c.callString("CONFIG", "GET", "maxclients")).contains("$2\r\n77\r\n");
                assertThat(c.callString("SELECT", "4")).isEqualTo("-ERR DB index is out of range\r\n");
            }
        } finally {
            p.destroy();
            p.waitFor(20, TimeUnit.SECONDS);
        }
    }

    @Test
    void versionAndHelp(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("v.log");
        Process p = launch(log, "--version");
        assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
        assertThat(Files.readString(log)).startsWith("Spinel server v=").contains("redis=7.0.15");
        Process h = launch(dir.resolve("h.log"), "--help");
        assertThat(h.waitFor(20, TimeUnit.SECONDS)).isTrue();
        assertThat(Files.readString(dir.resolve("h.log"))).contains("Usage: ./spinel-server");
    }

    @Test
    void configRewriteWritesTheStartupFileAndItRestarts(@TempDir Path dir) throws Exception {
        int port = RedisServerProcess.freePort();
        Path conf = dir.resolve("redis.conf");
        Files.writeString(conf, "# mine\nport 1\nmaxmemory 10mb\nmaxmemory 20mb\n", StandardCharsets.UTF_8);
        Path log = dir.resolve("out.log");
        String[] args = {conf.toString(), "--port", Integer.toString(port), "--dir", dir.toString()};
        Process p = launch(log, args);
        try {
            waitForPing(port);
            try (RawClient c = new RawClient(port)) {
                assertThat(c.callString("CONFIG", "SET", "maxmemory", "1gb", "requirepass", "pw")).isEqualTo("+OK\r\n");
                assertThat(c.callString("CONFIG", "REWRITE")).isEqualTo("+OK\r\n");
            }
            assertThat(Files.readString(conf)).startsWith("# mine\nport " + port + "\nmaxmemory 1gb\n\n"
                    + "# Generated by CONFIG REWRITE\n").contains("\nrequirepass \"pw\"\n")
                    .contains("\ndir \"" + dir.toRealPath() + "\"\n")
                    .contains("\nuser default on #30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4 ~* &* +@all\n");
            assertThat(Files.readString(log)).contains("CONFIG REWRITE executed with success.");
        } finally {
            p.destroy();
            p.waitFor(20, TimeUnit.SECONDS);
        }
        // the rewritten file (with its user line) starts the server again, with the values set
        Process again = launch(dir.resolve("again.log"), args);
        try {
            waitForPing(port);
            try (RawClient c = new RawClient(port)) {
                assertThat(c.callString("AUTH", "pw")).isEqualTo("+OK\r\n");
                assertThat(c.callString("CONFIG", "GET", "maxmemory")).isEqualTo("*2\r\n$9\r\nmaxmemory\r\n$10\r\n1073741824\r\n");
            }
        } finally {
            again.destroy();
            again.waitFor(20, TimeUnit.SECONDS);
        }
    }

    /**
     * A config file's values are its bytes, whatever their encoding, as are the command line's:
     * a Latin-1 password (no UTF-8) is the one AUTH takes, a UTF-8 file name is the file SAVE
     * writes, and CONFIG GET and CONFIG REWRITE give the same bytes back.
     */
    @Test
    void configValuesAreTheirBytes(@TempDir Path dir) throws Exception {
        int port = RedisServerProcess.freePort();
        Path conf = dir.resolve("redis.conf");
        byte[] latin1Password = {'c', 'a', 'f', (byte) 0xE9};
        byte[] utf8Name = "d\u00e4.rdb".getBytes(StandardCharsets.UTF_8);
        java.io.ByteArrayOutputStream text = new java.io.ByteArrayOutputStream();
        text.writeBytes("requirepass ".getBytes(StandardCharsets.US_ASCII));
        text.writeBytes(latin1Password);
        text.writeBytes("\ndbfilename ".getBytes(StandardCharsets.US_ASCII));
        text.writeBytes(utf8Name);
        text.writeBytes("\n".getBytes(StandardCharsets.US_ASCII));
        Files.write(conf, text.toByteArray());
        String[] args = {conf.toString(), "--port", Integer.toString(port), "--dir", dir.toString(), "--masteruser", "\u00fc"};
        Process p = launch(dir.resolve("out.log"), args);
        try {
            waitForPing(port);
            try (RawClient c = new RawClient(port)) {
                assertThat(c.call(List.of("AUTH".getBytes(StandardCharsets.US_ASCII), latin1Password))).isEqualTo("+OK\r\n".getBytes(StandardCharsets.US_ASCII));
                assertThat(c.call("CONFIG", "GET", "dbfilename")).endsWith(bulk(utf8Name));
                assertThat(c.call("CONFIG", "GET", "masteruser")).endsWith(bulk("\u00fc".getBytes(StandardCharsets.UTF_8)));
                assertThat(c.callString("SAVE")).isEqualTo("+OK\r\n");
                assertThat(dir.resolve("d\u00e4.rdb")).isRegularFile();
                assertThat(c.callString("CONFIG", "REWRITE")).isEqualTo("+OK\r\n");
            }
            assertThat(new String(Files.readAllBytes(conf), StandardCharsets.ISO_8859_1))
                    .startsWith("requirepass \"caf\\xe9\"\n").contains("\ndbfilename \"d\\xc3\\xa4.rdb\"\n")
                    .contains("\nmasteruser \"\\xc3\\xbc\"\n");
        } finally {
            p.destroy();
            p.waitFor(20, TimeUnit.SECONDS);
        }
        // the rewritten file (its user line hashing the password's bytes) starts the server again
        Process again = launch(dir.resolve("again.log"), conf.toString(), "--port", Integer.toString(port));
        try {
            waitForPing(port);
            try (RawClient c = new RawClient(port)) {
                assertThat(c.call(List.of("AUTH".getBytes(StandardCharsets.US_ASCII), latin1Password))).isEqualTo("+OK\r\n".getBytes(StandardCharsets.US_ASCII));
                assertThat(c.call("CONFIG", "GET", "dbfilename")).endsWith(bulk(utf8Name));
            }
        } finally {
            again.destroy();
            again.waitFor(20, TimeUnit.SECONDS);
        }
    }

    private static byte[] bulk(byte[] value) {
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        b.writeBytes(("$" + value.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
        b.writeBytes(value);
        b.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        return b.toByteArray();
    }

    /**
     * bind "" opens no TCP listener (clients come through the unix socket), and a server that
     * listens nowhere stops before it loads anything, as Redis does.
     */
    @Test
    void bindNothingListensOnTheUnixSocketOnlyAndNowhereStops(@TempDir Path dir) throws Exception {
        int port = RedisServerProcess.freePort();
        Path socket = dir.resolve("s.sock");
        Process p = launch(dir.resolve("out.log"), "--port", Integer.toString(port), "--bind", "", "--unixsocket", socket.toString(),
                "--dir", dir.toString());
        try {
            long deadline = System.currentTimeMillis() + 20_000;
            while (!Files.exists(socket) && System.currentTimeMillis() < deadline) Thread.sleep(100);
            assertThat(socket).exists();
            try (var ch = java.nio.channels.SocketChannel.open(java.net.UnixDomainSocketAddress.of(socket))) {
                ch.write(java.nio.ByteBuffer.wrap("*3\r\n$6\r\nCONFIG\r\n$3\r\nGET\r\n$4\r\nbind\r\n".getBytes(StandardCharsets.US_ASCII)));
                java.nio.ByteBuffer in = java.nio.ByteBuffer.allocate(100);
                String expected = "*2\r\n$4\r\nbind\r\n$0\r\n\r\n";
                while (in.position() < expected.length() && ch.read(in) > 0) { }
                assertThat(new String(in.array(), 0, in.position(), StandardCharsets.US_ASCII)).isEqualTo(expected);
            }
            assertThatThrownBy(() -> new RawClient(port).close()).isInstanceOf(IOException.class);
        } finally {
            p.destroy();
            p.waitFor(20, TimeUnit.SECONDS);
        }
        Path log = dir.resolve("nowhere.log");
        Process nowhere = launch(log, "--port", "0", "--dir", dir.toString());
        assertThat(nowhere.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(nowhere.exitValue()).isEqualTo(1);
        assertThat(Files.readString(log)).contains("Configured to not listen anywhere, exiting.");
    }

    @Test
    void configRewriteNeedsAConfigFile(@TempDir Path dir) throws Exception {
        int port = RedisServerProcess.freePort();
        Process p = launch(dir.resolve("out.log"), "--port", Integer.toString(port), "--dir", dir.toString());
        try {
            waitForPing(port);
            try (RawClient c = new RawClient(port)) {
                assertThat(c.callString("CONFIG", "REWRITE")).isEqualTo("-ERR The server is running without a config file\r\n");
            }
        } finally {
            p.destroy();
            p.waitFor(20, TimeUnit.SECONDS);
        }
    }

    @Test
    void usersComeFromTheConfigurationOrTheAclFile(@TempDir Path dir) throws Exception {
        int port = RedisServerProcess.freePort();
        Path conf = dir.resolve("redis.conf");
        // the default user's line wins over requirepass (users load after the options, as in Redis)
        Files.writeString(conf, "requirepass secret\nuser default on nopass ~* &* +@all\nuser alice on >pw ~app:* +get\n");
        Process p = launch(dir.resolve("out.log"), conf.toString(), "--port", Integer.toString(port), "--dir", dir.toString());
        try {
            waitForPing(port);
            try (RawClient c = new RawClient(port)) {
                assertThat(c.callString("PING")).isEqualTo("+PONG\r\n");
                assertThat(c.callString("CONFIG", "REWRITE")).isEqualTo("+OK\r\n");
                assertThat(c.callString("AUTH", "alice", "pw")).isEqualTo("+OK\r\n");
                assertThat(c.callString("GET", "other")).startsWith("-NOPERM");
            }
            assertThat(Files.readString(conf)).contains("user alice on #" + io.spinel.core.acl.AclUser.sha256Hex("pw")
                    + " ~app:* resetchannels -@all +get\n").contains("user default on nopass sanitize-payload ~* &* +@all\n");
        } finally {
            p.destroy();
            p.waitFor(20, TimeUnit.SECONDS);
        }
        assertStartFails(dir, "user bob on +nosuchcommand\n",
                "Error loading ACL rule '+nosuchcommand' for the user named 'bob': Unknown command or category name in ACL");
        assertStartFails(dir, "aclfile users.acl\nuser bob on\n",
                "Configuring Redis with users defined in redis.conf and at the same setting an ACL file path is invalid");
        Files.writeString(dir.resolve("users.acl"), "user carol on +nosuch\n");
        assertStartFails(dir, "aclfile users.acl\n", "Aborting Redis startup because of ACL errors: users.acl:1: Error in "
                + "applying operation '+nosuch': Unknown command or category name in ACL.");
        // the ACL file, relative to dir: its users at start, ACL SAVE writes them back
        Files.writeString(dir.resolve("users.acl"), "user carol on nopass ~* +@all\n");
        Files.writeString(conf, "aclfile users.acl\n");
        p = launch(dir.resolve("acl.log"), conf.toString(), "--port", Integer.toString(port), "--dir", dir.toString());
        try {
            waitForPing(port);
            try (RawClient c = new RawClient(port)) {
                assertThat(c.callString("AUTH", "carol", "x")).isEqualTo("+OK\r\n");
                assertThat(c.callString("ACL", "SETUSER", "dave", "on")).isEqualTo("+OK\r\n");
                assertThat(c.callString("ACL", "SAVE")).isEqualTo("+OK\r\n");
            }
            assertThat(Files.readString(dir.resolve("users.acl"))).isEqualTo("user carol on nopass ~* resetchannels +@all\n"
                    + "user dave on resetchannels -@all\nuser default on nopass ~* &* +@all\n");
        } finally {
            p.destroy();
            p.waitFor(20, TimeUnit.SECONDS);
        }
    }

    private static void assertStartFails(Path dir, String config, String message) throws Exception {
        Path conf = dir.resolve("bad.conf");
        Files.writeString(conf, config);
        Path log = dir.resolve("bad.log");
        Process p = launch(log, conf.toString(), "--port", Integer.toString(RedisServerProcess.freePort()), "--dir", dir.toString());
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isEqualTo(1);
        assertThat(Files.readString(log)).contains(message);
    }

    private static void waitForPing(int port) throws Exception {
        long deadline = System.currentTimeMillis() + 20_000;
        while (System.currentTimeMillis() < deadline) {
            try (RawClient c = new RawClient(port)) {
                if (c.callString("PING").startsWith("+PONG") || c.callString("PING").startsWith("-NOAUTH")) return;
            } catch (IOException e) {
                Thread.sleep(100);
            }
        }
        throw new AssertionError("server did not answer PING on port " + port);
    }
}
