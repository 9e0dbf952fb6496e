package io.spinel.server.persist;

import io.spinel.server.SpinelServer;
import io.spinel.server.testing.RawClient;
import io.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.spinel.server.persist.PersistTesting.info;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * While the data set loads at start, the Netty server accepts connections and answers as Redis
 * does then: -LOADING for commands not flagged "loading" (PING, GET, a transaction holding one,
 * and DEBUG's RELOAD, LOADAOF and POPULATE, which would load or add keys inside the load), INFO with loading:1 and the loading_* fields; once loaded, the same connections are served
 * normally. key-load-delay (microseconds per key, Redis's hidden option) makes the load last.
 */
class LoadingServeTest {
    private static final int KEYS = 300;

    @Test
    void clientsGetLoadingUntilTheDataSetIsLoadedThenTheData(@TempDir Path dir) throws Exception {
        try (SpinelServer s = PersistTesting.spinel(dir); RawClient c = new RawClient(s.port())) {
            for (int i = 0; i < KEYS; i++) c.call("SET", "key:" + i, "value:" + i);
            assertThat(c.callString("SAVE")).isEqualTo("+OK\r\n");
        }
        int port = RedisServerProcess.freePort();
        CompletableFuture<SpinelServer> started = CompletableFuture.supplyAsync(() -> SpinelServer.builder()
                .transport(SpinelServer.Transport.NETTY).option("bind", "127.0.0.1").option("port", Integer.toString(port))
                .option("dir", dir.toString()).option("key-load-delay", "10000") // 10 ms a key: 3 s
                .option("enable-debug-command", "yes").start());
        SpinelServer server = null;
        try (RawClient c = connect(port)) {
            assertThat(c.callString("PING")).isEqualTo("-LOADING Redis is loading the dataset in memory\r\n");
            assertThat(c.callString("GET", "key:1")).startsWith("-LOADING");
            assertThat(c.callString("DEBUG", "RELOAD")).startsWith("-LOADING");
            assertThat(c.callString("DEBUG", "LOADAOF")).startsWith("-LOADING");
            assertThat(c.callString("DEBUG", "POPULATE", "10")).startsWith("-LOADING");
            assertThat(c.callString("DEBUG", "LOG", "while loading")).isEqualTo("+OK\r\n");
            // a client that leaves during the load is gone before it ends
            try (RawClient other = connect(port)) {
                assertThat(other.callString("DEBUG", "LOG", "bye")).isEqualTo("+OK\r\n");
                assertThat(info(c, "connected_clients")).isEqualTo("2");
            }
            long deadline = System.currentTimeMillis() + 2000;
            while (!"1".equals(info(c, "connected_clients")) && System.currentTimeMillis() < deadline) Thread.sleep(10);
            assertThat(info(c, "connected_clients")).isEqualTo("1");
            assertThat(info(c, "loading")).isEqualTo("1");
            assertThat(c.callString("MULTI")).isEqualTo("+OK\r\n");
            assertThat(c.callString("DEBUG", "RELOAD")).startsWith("-LOADING");
            assertThat(c.callString("EXEC")).startsWith("-EXECABORT");
            assertThat(info(c, "loading")).isEqualTo("1");
            assertThat(Long.parseLong(info(c, "loading_total_bytes"))).isPositive();
            assertThat(info(c, "loading_loaded_perc")).matches("[0-9]+\\.[0-9]{2}");
            assertThat(info(c, "loading_start_time")).isNotNull();
            // CONFIG SET of what the load depends on waits (Redis's DENY_LOADING_CONFIG), the rest goes
            assertThat(c.callString("CONFIG", "SET", "loglevel", "debug")).isEqualTo("+OK\r\n");
            assertThat(c.callString("CONFIG", "SET", "loglevel", "notice", "dir", "/tmp"))
                    .isEqualTo("-LOADING Redis is loading the dataset in memory\r\n");
            assertThat(c.callString("CONFIG", "SET", "appendonly", "yes")).startsWith("-LOADING");
            assertThat(c.callString("CONFIG", "GET", "loglevel")).contains("debug");
            assertThat(c.callString("MULTI")).isEqualTo("+OK\r\n");
            assertThat(c.callString("GET", "key:1")).startsWith("-LOADING");
            assertThat(c.callString("EXEC")).startsWith("-EXECABORT");
            assertThat(started).isNotDone();

            server = started.get(60, TimeUnit.SECONDS);
            assertThat(info(c, "loading")).isEqualTo("0");
            assertThat(info(c, "loading_total_bytes")).isNull();
            assertThat(c.callString("PING")).isEqualTo("+PONG\r\n");
            assertThat(c.callString("DBSIZE")).isEqualTo(":" + KEYS + "\r\n");
            assertThat(c.callString("GET", "key:7")).isEqualTo("$7\r\nvalue:7\r\n");
        } finally {
            if (server == null) server = started.get(60, TimeUnit.SECONDS);
            server.close();
        }
    }

    @Test
    void shutdownWhileLoadingStopsTheLoadAndSavesNothing(@TempDir Path dir) throws Exception {
        try (SpinelServer s = PersistTesting.spinel(dir); RawClient c = new RawClient(s.port())) {
            for (int i = 0; i < KEYS; i++) c.call("SET", "key:" + i, "value:" + i);
            assertThat(c.callString("SAVE")).isEqualTo("+OK\r\n");
        }
        byte[] saved = java.nio.file.Files.readAllBytes(dir.resolve("dump.rdb"));
        int port = RedisServerProcess.freePort();
        long t0 = System.nanoTime();
        CompletableFuture<SpinelServer> started = CompletableFuture.supplyAsync(() -> SpinelServer.builder()
                .transport(SpinelServer.Transport.NETTY).option("bind", "127.0.0.1").option("port", Integer.toString(port))
                .option("dir", dir.toString()).option("save", "3600 1").option("key-load-delay", "10000")
                .start());
        try (RawClient c = connect(port)) {
            assertThat(c.callString("PING")).startsWith("-LOADING");
            c.send(java.util.List.of("SHUTDOWN".getBytes(java.nio.charset.StandardCharsets.US_ASCII)));
            assertThatThrownBy(() -> started.get(20, TimeUnit.SECONDS))
                    .hasRootCauseInstanceOf(io.spinel.core.persist.ShutdownWhileLoading.class);
        }
        // stopped at once, not after the 3 s the load would have taken; the file is as it was
        assertThat(System.nanoTime() - t0).isLessThan(TimeUnit.MILLISECONDS.toNanos(2500));
        assertThat(java.nio.file.Files.readAllBytes(dir.resolve("dump.rdb"))).isEqualTo(saved);
    }

    /**
     * DEBUG RELOAD serves the other clients while it loads, as Redis does: -LOADING for PING,
     * INFO's loading:1; its own client's next command waits for the reply, and the data set is
     * whole when it comes.
     */
    @Test
    void debugReloadServesOtherClientsWhileItLoads(@TempDir Path dir) throws Exception {
        try (SpinelServer s = PersistTesting.spinel(dir, "enable-debug-command", "yes");
             RawClient c = new RawClient(s.port()); RawClient other = new RawClient(s.port())) {
            for (int i = 0; i < KEYS; i++) c.call("SET", "key:" + i, "value:" + i);
            c.call("CONFIG", "SET", "key-load-delay", "5000"); // 5 ms a key: 1.5 s
            long t0 = System.nanoTime();
            // the command and one pipelined behind it, whose answer must see the loaded data
            c.sendRaw(PersistTesting.resp("DEBUG", "RELOAD") + PersistTesting.resp("DBSIZE"));
            awaitLoadingReply(other);
            assertThat(info(other, "loading")).isEqualTo("1");
            assertThat(other.callString("GET", "key:1")).startsWith("-LOADING");
            assertThat(new String(c.readReply(), java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo("+OK\r\n");
            assertThat(System.nanoTime() - t0).isGreaterThan(TimeUnit.MILLISECONDS.toNanos(1000));
            assertThat(new String(c.readReply(), java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo(":" + KEYS + "\r\n");
            assertThat(other.callString("PING")).isEqualTo("+PONG\r\n");
            assertThat(info(other, "loading")).isEqualTo("0");
            assertThat(other.callString("GET", "key:7")).isEqualTo("$7\r\nvalue:7\r\n");
            // inside a transaction the load runs within EXEC (no one could be served there)
            c.call("CONFIG", "SET", "key-load-delay", "0");
            assertThat(c.callString("MULTI")).isEqualTo("+OK\r\n");
            c.call("DEBUG", "RELOAD");
            c.call("DBSIZE");
            assertThat(c.callString("EXEC")).isEqualTo("*2\r\n+OK\r\n:" + KEYS + "\r\n");
            // CLIENT REPLY SKIP covers the reply that comes after the load
            c.sendRaw(PersistTesting.resp("CLIENT", "REPLY", "SKIP") + PersistTesting.resp("DEBUG", "RELOAD"));
            assertThat(c.callString("PING")).isEqualTo("+PONG\r\n");
        }
    }

    /** SHUTDOWN from a client served during DEBUG RELOAD stops the server at once, saving nothing. */
    @Test
    void shutdownDuringDebugReloadStopsTheServerSavingNothing(@TempDir Path dir) throws Exception {
        try (SpinelServer s = PersistTesting.spinel(dir, "enable-debug-command", "yes", "save", "3600 1");
             RawClient c = new RawClient(s.port()); RawClient other = new RawClient(s.port())) {
            for (int i = 0; i < KEYS; i++) c.call("SET", "key:" + i, "value:" + i);
            c.call("CONFIG", "SET", "key-load-delay", "10000"); // 3 s
            long t0 = System.nanoTime();
            c.send(java.util.List.of("DEBUG".getBytes(java.nio.charset.StandardCharsets.US_ASCII),
                    "RELOAD".getBytes(java.nio.charset.StandardCharsets.US_ASCII)));
            awaitLoadingReply(other);
            byte[] saved = java.nio.file.Files.readAllBytes(dir.resolve("dump.rdb"));
            other.send(java.util.List.of("SHUTDOWN".getBytes(java.nio.charset.StandardCharsets.US_ASCII)));
            assertThat(other.isClosedByPeer()).isTrue();
            assertThat(c.isClosedByPeer()).isTrue();
            assertThat(System.nanoTime() - t0).isLessThan(TimeUnit.MILLISECONDS.toNanos(2500));
            assertThat(java.nio.file.Files.readAllBytes(dir.resolve("dump.rdb"))).isEqualTo(saved);
            assertThatThrownBy(() -> new RawClient(s.port())).isInstanceOf(java.io.IOException.class);
        }
    }

    /**
     * A slow script in the AOF that DEBUG LOADAOF replays serves the other clients from its hook
     * once past lua-time-limit (Redis's integration/aof "EVAL timeout with slow verbatim Lua
     * script from AOF"): they get -LOADING, the log says so, and the script's write is there.
     */
    @Test
    void slowScriptReplayedByDebugLoadAofLetsClientsInWithLoading(@TempDir Path dir) throws Exception {
        java.io.ByteArrayOutputStream log = new java.io.ByteArrayOutputStream();
        try (SpinelServer s = PersistTesting.spinelLogging(log, dir, "enable-debug-command", "yes",
                "appendonly", "yes", "aof-use-rdb-preamble", "no", "lua-time-limit", "1");
             RawClient c = new RawClient(s.port()); RawClient other = new RawClient(s.port())) {
            c.call("SET", "before", "1");
            Path aofDir = dir.resolve("appendonlydir");
            Path incr;
            try (java.util.stream.Stream<Path> files = java.nio.file.Files.list(aofDir)) {
                incr = files.filter(f -> f.getFileName().toString().endsWith(".incr.aof")).findFirst().orElseThrow();
            }
            java.nio.file.Files.writeString(incr, PersistTesting.resp("EVAL",
                    "redis.call('set',KEYS[1],'y'); for i=1,3000000 do redis.call('ping') end return 'ok'", "1", "x"),
                    java.nio.file.StandardOpenOption.APPEND);
            c.send(java.util.List.of("DEBUG".getBytes(java.nio.charset.StandardCharsets.US_ASCII),
                    "LOADAOF".getBytes(java.nio.charset.StandardCharsets.US_ASCII)));
            awaitLoadingReply(other);
            assertThat(other.callString("PING")).startsWith("-LOADING");
            c.setTimeout(60_000);
            assertThat(new String(c.readReply(), java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo("+OK\r\n");
            assertThat(log.toString()).contains("Slow script detected");
            assertThat(other.callString("GET", "x")).isEqualTo("$1\r\ny\r\n");
            assertThat(other.callString("GET", "before")).isEqualTo("$1\r\n1\r\n");
        }
    }

    /** Sends PING until the reply is -LOADING (the load has begun), for at most 10 s. */
    private static void awaitLoadingReply(RawClient c) throws Exception {
        long deadline = System.currentTimeMillis() + 10_000;
        while (true) {
            String reply = c.callString("PING");
            if (reply.startsWith("-LOADING")) return;
            if (System.currentTimeMillis() > deadline) throw new AssertionError("never loading, last reply " + reply);
            Thread.sleep(2);
        }
    }

    /** Connects as soon as the port listens (the server starting on another thread). */
    private static RawClient connect(int port) throws Exception {
        long deadline = System.currentTimeMillis() + 20_000;
        while (true) {
            try {
                RawClient c = new RawClient(port);
                c.setTimeout(10_000);
                return c;
            } catch (java.io.IOException e) {
                if (System.currentTimeMillis() > deadline) throw e;
                Thread.sleep(5);
            }
        }
    }
}
