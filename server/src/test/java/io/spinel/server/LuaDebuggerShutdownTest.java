package io.spinel.server;

import io.spinel.core.Log;
import io.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A shutdown while a forked Lua debugging session (SCRIPT DEBUG YES) is stopped: Redis kills the
 * session's child before it saves, so nothing the script changed reaches the files. Spinel runs
 * the session on the data set itself; the shutdown ends it and undoes its changes first.
 */
class LuaDebuggerShutdownTest {
    @TempDir
    Path dir;

    @Test
    void aShutdownDuringAForkedSessionSavesNothingOfIt() throws Exception {
        ByteArrayOutputStream logged = new ByteArrayOutputStream();
        SpinelServer server = SpinelServer.builder().randomPort().option("dir", dir.toString())
                .option("save", "3600 1").option("appendonly", "yes")
                .log(new Log(new PrintStream(logged, true))).start();
        try (RawClient c = new RawClient(server.port()); RawClient d = new RawClient(server.port())) {
            assertThat(c.callString("SET", "dbg:k", "before")).isEqualTo("+OK\r\n");
            assertThat(d.callString("SCRIPT", "DEBUG", "YES")).isEqualTo("+OK\r\n");
            d.call("EVAL", "redis.call('set', 'dbg:k', 'in the session')\nredis.call('set', 'dbg:new', 'x')\nreturn 1", "0");
            assertThat(d.callString("s")).contains("Stopped at 2");
            assertThat(d.callString("s")).contains("Stopped at 3");
            server.engine().shutdownBySignal("SIGTERM");
            CompletableFuture.runAsync(() -> {
                try {
                    server.awaitStop();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }).get(20, TimeUnit.SECONDS);
            assertThat(d.isClosedByPeer()).as("the session's connection closed").isTrue();
        } finally {
            server.close();
        }
        assertThat(logged.toString(StandardCharsets.UTF_8)).contains("Redis forked for debugging eval")
                .contains("Killing debugging session").contains("Lua debugging session child exiting");
        assertThat(aofText()).contains("dbg:k").doesNotContain("in the session").doesNotContain("dbg:new");
        // the RDB saved on the way out (the AOF is loaded instead when it is on: read it alone)
        SpinelServer again = SpinelServer.builder().randomPort().option("dir", dir.toString()).start();
        try (RawClient c = new RawClient(again.port())) {
            assertThat(c.callString("GET", "dbg:k")).isEqualTo("$6\r\nbefore\r\n");
            assertThat(c.callString("EXISTS", "dbg:new")).isEqualTo(":0\r\n");
        } finally {
            again.close();
        }
    }

    private String aofText() throws IOException {
        StringBuilder sb = new StringBuilder();
        try (Stream<Path> files = Files.walk(dir.resolve("appendonlydir"))) {
            for (Path p : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                sb.append(new String(Files.readAllBytes(p), StandardCharsets.ISO_8859_1));
            }
        }
        return sb.toString();
    }
}
