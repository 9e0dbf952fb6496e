package io.spinel.server;

import io.spinel.server.testing.RawClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.resps.Slowlog;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** CLIENT PAUSE, MONITOR and SLOWLOG as seen by clients over the wire. */
class ServerDiagnosticsTest {
    private static SpinelServer server;

    @BeforeAll
    static void start() throws Exception {
        server = SpinelServer.builder().randomPort().option("bind", "127.0.0.1").start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @AfterEach
    void cleanUp() throws IOException {
        try (RawClient c = new RawClient(server.port())) {
            c.call("CLIENT", "UNPAUSE");
            c.call("CONFIG", "SET", "slowlog-log-slower-than", "10000");
            c.call("CONFIG", "SET", "slowlog-max-len", "128");
            c.call("FLUSHALL");
        }
    }

    /**
     * watchdog-period (Redis's software watchdog): a loop held past the period by one command is
     * reported once, with where the loop's thread is; 0 turns it off.
     */
    @Test
    void theWatchdogReportsAStalledLoop() throws Exception {
        java.io.ByteArrayOutputStream log = new java.io.ByteArrayOutputStream();
        SpinelServer s = SpinelServer.builder().randomPort().option("bind", "127.0.0.1").option("enable-debug-command", "yes")
                .log(new io.spinel.core.Log(new java.io.PrintStream(log, true))).start();
        try (RawClient c = new RawClient(s.port())) {
            c.call("CONFIG", "SET", "watchdog-period", "200");
            c.call("DEBUG", "SLEEP", "0.8");
            long deadline = System.currentTimeMillis() + 5000;
            while (!log.toString().contains("--------")) {
                assertThat(System.currentTimeMillis()).as("the report: " + log).isLessThan(deadline);
                Thread.sleep(10);
            }
            String text = log.toString();
            assertThat(text.split("WATCHDOG TIMER EXPIRED", -1)).as("one report per stall").hasSize(2);
            assertThat(text).contains("--- WATCHDOG TIMER EXPIRED ---", "ServerCommands.debug");
            c.call("CONFIG", "SET", "watchdog-period", "0");
            c.call("DEBUG", "SLEEP", "0.5");
            Thread.sleep(100);
            assertThat(log.toString().split("WATCHDOG TIMER EXPIRED", -1)).as("off").hasSize(2);
        } finally {
            s.close();
        }
    }

    private static String str(byte[] b) {
        return new String(b, StandardCharsets.ISO_8859_1);
    }

    /** Asserts that no reply arrives within the time (the command is held). */
    private static void assertNoReplyWithin(RawClient c, int millis) throws IOException {
        c.setTimeout(millis);
        assertThatThrownBy(c::readReply).isInstanceOf(SocketTimeoutException.class);
        c.setTimeout(10_000);
    }

    private static long blockedClients(RawClient c) throws IOException {
        for (String line : c.callString("INFO", "clients").split("\r\n")) {
            if (line.startsWith("blocked_clients:")) return Long.parseLong(line.substring(16));
        }
        throw new AssertionError("no blocked_clients in INFO");
    }

    private static void waitForBlocked(RawClient c, long n) throws Exception {
        long deadline = System.currentTimeMillis() + 5000;
        while (blockedClients(c) != n) {
            if (System.currentTimeMillis() > deadline) throw new AssertionError("blocked_clients never reached " + n);
            Thread.sleep(10);
        }
    }

    // ---- CLIENT PAUSE ---------------------------------------------------------------------------

    @Test
    void writePauseHoldsWritesUntilUnpauseWhileReadsProceed() throws Exception {
        try (RawClient admin = new RawClient(server.port());
             RawClient writer = new RawClient(server.port());
             RawClient reader = new RawClient(server.port())) {
            admin.call("SET", "k", "old");
            String writerId = clientId(writer);
            assertThat(admin.callString("CLIENT", "PAUSE", "60000", "WRITE")).isEqualTo("+OK\r\n");
            writer.send(List.of("SET".getBytes(), "k".getBytes(), "new".getBytes()));
            writer.send(List.of("GET".getBytes(), "k".getBytes()));
            assertNoReplyWithin(writer, 200);
            // reads are not held, and see the data as it was
            assertThat(reader.callString("GET", "k")).isEqualTo("$3\r\nold\r\n");
            assertThat(blockedClients(admin)).isEqualTo(1);
            assertThat(admin.callString("CLIENT", "LIST", "ID", writerId)).contains("flags=b");
            assertThat(admin.callString("CLIENT", "UNPAUSE")).isEqualTo("+OK\r\n");
            // the held command runs, then what was pipelined behind it, in order
            assertThat(str(writer.readReply())).isEqualTo("+OK\r\n");
            assertThat(str(writer.readReply())).isEqualTo("$3\r\nnew\r\n");
            assertThat(blockedClients(admin)).isZero();
        }
    }

    private static String clientId(RawClient c) throws IOException {
        String r = c.callString("CLIENT", "ID");
        return r.substring(1, r.length() - 2);
    }

    @Test
    void allPauseHoldsEverythingUntilItsTimeout() throws Exception {
        try (RawClient admin = new RawClient(server.port());
             RawClient other = new RawClient(server.port())) {
            long start = System.nanoTime();
            admin.call("CLIENT", "PAUSE", "400", "ALL");
            other.send(List.of("PING".getBytes()));
            other.send(List.of("SET".getBytes(), "a".getBytes(), "1".getBytes()));
            assertThat(str(other.readReply())).isEqualTo("+PONG\r\n");
            assertThat(str(other.readReply())).isEqualTo("+OK\r\n");
            assertThat((System.nanoTime() - start) / 1_000_000).isGreaterThanOrEqualTo(350);
        }
    }

    @Test
    void aShorterPauseDoesNotShortenTheOneInForce() throws Exception {
        try (RawClient admin = new RawClient(server.port());
             RawClient other = new RawClient(server.port())) {
            long start = System.nanoTime();
            admin.call("CLIENT", "PAUSE", "600", "WRITE");
            admin.call("CLIENT", "PAUSE", "10", "WRITE");
            assertThat(other.callString("INCR", "n")).isEqualTo(":1\r\n");
            assertThat((System.nanoTime() - start) / 1_000_000).isGreaterThanOrEqualTo(550);
        }
    }

    @Test
    void aHeldClientThatDisconnectsLeavesNoTrace() throws Exception {
        try (RawClient admin = new RawClient(server.port())) {
            admin.call("CLIENT", "PAUSE", "60000", "WRITE");
            RawClient gone = new RawClient(server.port());
            gone.send(List.of("SET".getBytes(), "ghost".getBytes(), "1".getBytes()));
            waitForBlocked(admin, 1);
            gone.close();
            waitForBlocked(admin, 0);
            admin.call("CLIENT", "UNPAUSE");
            Thread.sleep(50);
            assertThat(admin.callString("EXISTS", "ghost")).isEqualTo(":0\r\n");
        }
    }

    @Test
    void keysDoNotExpireDuringAPause() throws Exception {
        try (RawClient admin = new RawClient(server.port())) {
            admin.call("SET", "k", "v", "PX", "50");
            admin.call("CLIENT", "PAUSE", "60000", "WRITE");
            Thread.sleep(200);
            // lazily expired: missing to readers, but not deleted while paused
            assertThat(admin.callString("GET", "k")).isEqualTo("$-1\r\n");
            assertThat(admin.callString("DBSIZE")).isEqualTo(":1\r\n");
            admin.call("CLIENT", "UNPAUSE");
            assertThat(admin.callString("GET", "k")).isEqualTo("$-1\r\n");
            assertThat(admin.callString("DBSIZE")).isEqualTo(":0\r\n");
        }
    }

    // ---- MONITOR --------------------------------------------------------------------------------

    @Test
    void monitorShowsCommandsAsRedisFormatsThem() throws Exception {
        try (RawClient monitor = new RawClient(server.port());
             RawClient c = new RawClient(server.port())) {
            String port = c.callString("CLIENT", "INFO").replaceAll("(?s).* addr=127\\.0\\.0\\.1:(\\d+) .*", "$1");
            assertThat(monitor.callString("MONITOR")).isEqualTo("+OK\r\n");
            c.call(List.of("SET".getBytes(), "k".getBytes(), new byte[] {'a', 0, '"', 'b', '\n', (byte) 0xff, '\\'}));
            c.call("CONFIG", "GET", "maxmemory"); // admin: never shown
            c.call("SELECT", "3");
            c.call("EVAL", "return redis.call('set', KEYS[1], 'x')", "1", "key");
            c.call("AUTH", "user", "password");
            String prefix = "\\+\\d+\\.\\d{6} ";
            List<String> lines = new ArrayList<>();
            for (int i = 0; i < 5; i++) lines.add(str(monitor.readReply()));
            assertThat(lines.get(0)).matches(prefix + "\\[0 127\\.0\\.0\\.1:" + port
                    + "\\] \"SET\" \"k\" \"a\\\\x00\\\\\"b\\\\n\\\\xff\\\\\\\\\"\r\n");
            // fed after it ran: the database it selected
            assertThat(lines.get(1)).matches(prefix + "\\[3 127\\.0\\.0\\.1:" + port + "\\] \"SELECT\" \"3\"\r\n");
            assertThat(lines.get(2)).matches(prefix + "\\[3 127\\.0\\.0\\.1:" + port
                    + "\\] \"EVAL\" \"return redis.call\\('set', KEYS\\[1\\], 'x'\\)\" \"1\" \"key\"\r\n");
            assertThat(lines.get(3)).matches(prefix + "\\[3 lua\\] \"set\" \"key\" \"x\"\r\n");
            assertThat(lines.get(4)).matches(prefix + "\\[3 127\\.0\\.0\\.1:" + port
                    + "\\] \"AUTH\" \"\\(redacted\\)\" \"\\(redacted\\)\"\r\n");
            // a monitor may not touch the keyspace, but may leave with RESET
            assertThat(monitor.callString("GET", "k")).isEqualTo("-ERR Replica can't interact with the keyspace\r\n");
            monitor.send(List.of("RESET".getBytes()));
            String reply = str(monitor.readReply());
            while (!reply.equals("+RESET\r\n")) reply = str(monitor.readReply()); // its own GET may be shown first
            c.call("PING");
            assertThat(monitor.callString("PING")).isEqualTo("+PONG\r\n");
        }
    }

    // ---- SLOWLOG --------------------------------------------------------------------------------

    @Test
    void slowlogEntriesKeepTrimmedArgumentsAndTheClient() throws Exception {
        try (Jedis j = new Jedis("127.0.0.1", server.port())) {
            j.configSet("slowlog-log-slower-than", "0");
            j.clientSetname("reporter");
            j.slowlogReset();
            String[] members = new String[40];
            for (int i = 0; i < members.length; i++) members[i] = "m" + i;
            j.sadd("set", members);
            j.set("big", "x".repeat(200));
            List<Slowlog> log = j.slowlogGet(2);
            assertThat(log).hasSize(2);
            Slowlog set = log.get(0);
            assertThat(set.getArgs()).containsExactly("SET", "big", "x".repeat(128) + "... (72 more bytes)");
            assertThat(set.getClientName()).isEqualTo("reporter");
            assertThat(set.getClientIpPort().getHost()).isEqualTo("127.0.0.1");
            assertThat(set.getTimeStamp()).isCloseTo(System.currentTimeMillis() / 1000, org.assertj.core.data.Offset.offset(5L));
            Slowlog sadd = log.get(1);
            assertThat(sadd.getId()).isEqualTo(set.getId() - 1);
            assertThat(sadd.getArgs()).hasSize(32);
            assertThat(sadd.getArgs().get(0)).isEqualTo("SADD");
            assertThat(sadd.getArgs().get(30)).isEqualTo("m28");
            assertThat(sadd.getArgs().get(31)).isEqualTo("... (11 more arguments)");
            // the limit applies at the next command
            j.configSet("slowlog-max-len", "2");
            j.ping();
            assertThat(j.slowlogLen()).isEqualTo(2);
        }
    }

    @Test
    void slowlogLogsQueuedCommandsNotExecAndBlockedCommandsWhenServed() throws Exception {
        try (Jedis j = new Jedis("127.0.0.1", server.port());
             RawClient blocked = new RawClient(server.port())) {
            j.configSet("slowlog-log-slower-than", "0");
            j.slowlogReset();
            redis.clients.jedis.Transaction t = j.multi();
            t.set("a", "1");
            t.exec();
            List<Slowlog> log = j.slowlogGet(-1);
            assertThat(log.stream().map(e -> String.join(" ", e.getArgs()))).containsExactly("SET a 1", "MULTI", "SLOWLOG RESET");

            blocked.send(List.of("BLPOP".getBytes(), "list".getBytes(), "0".getBytes()));
            try (RawClient admin = new RawClient(server.port())) {
                waitForBlocked(admin, 1);
            }
            j.slowlogReset();
            assertThat(j.slowlogLen()).isEqualTo(1); // only the SLOWLOG RESET: blocking is not logged yet
            j.rpush("list", "v");
            assertThat(str(blocked.readReply())).isEqualTo("*2\r\n$4\r\nlist\r\n$1\r\nv\r\n");
            List<String> commands = new ArrayList<>();
            for (Slowlog e : j.slowlogGet(-1)) commands.add(String.join(" ", e.getArgs()));
            assertThat(commands).contains("BLPOP list 0", "RPUSH list v");

            j.configSet("slowlog-log-slower-than", "-1");
            j.slowlogReset();
            j.ping();
            assertThat(j.slowlogLen()).isZero();
        }
    }

    @Test
    void slowlogRedactsSecrets() throws Exception {
        try (Jedis j = new Jedis("127.0.0.1", server.port())) {
            j.configSet("slowlog-log-slower-than", "0");
            j.slowlogReset();
            try {
                j.auth("nobody", "secret");
            } catch (RuntimeException expected) {
                // the password is wrong: what matters is what the log shows
            }
            List<Slowlog> log = j.slowlogGet(1);
            assertThat(log.get(0).getArgs()).containsExactly("AUTH", "(redacted)", "(redacted)");
        }
    }
}
