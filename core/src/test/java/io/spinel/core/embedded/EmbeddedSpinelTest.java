package io.spinel.core.embedded;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EmbeddedSpinelTest {
    private EmbeddedSpinel spinel;
    private SpinelClient redis;

    @BeforeEach
    void start() {
        spinel = EmbeddedSpinel.start();
        redis = spinel.client();
    }

    @AfterEach
    void stop() {
        spinel.close();
    }

    // ---- decoding of the generic call ----------------------------------------------------------

    @Test
    void genericCallsDecodeEachReplyType() {
        assertThat(redis.execute("PING")).isEqualTo("PONG");
        assertThat(redis.execute("SET", "k", "v")).isEqualTo("OK");
        assertThat(redis.execute("GET", "k")).isEqualTo("v");
        assertThat(redis.execute("GET".getBytes(StandardCharsets.UTF_8), "k".getBytes(StandardCharsets.UTF_8)))
                .isEqualTo(new byte[] {'v'});
        assertThat(redis.execute("GET", "missing")).isNull();
        assertThat(redis.execute("INCR", "n")).isEqualTo(1L);
        assertThat(redis.execute("RPUSH", "l", "a", "b", "c")).isEqualTo(3L);
        assertThat(redis.execute("LRANGE", "l", "0", "-1")).isEqualTo(List.of("a", "b", "c"));
        assertThat(redis.execute("LRANGE", "nolist", "0", "-1")).isEqualTo(List.of());
        assertThat(redis.execute("LPOP", "nolist", "2")).isNull();
    }

    @Test
    void timeNeverRunsBackwardsAndKeepsMicrosecondsInRange() {
        // TIME's two parts come from one reading of the wall clock: consecutive calls do not go back
        long previous = 0;
        for (int i = 0; i < 20_000; i++) {
            List<?> t = (List<?>) redis.execute("TIME");
            long seconds = Long.parseLong((String) t.get(0));
            long micros = Long.parseLong((String) t.get(1));
            assertThat(micros).isBetween(0L, 999_999L);
            long now = seconds * 1_000_000 + micros;
            assertThat(now).isGreaterThanOrEqualTo(previous);
            previous = now;
        }
        assertThat(previous / 1000).isCloseTo(System.currentTimeMillis(), org.assertj.core.data.Offset.offset(5_000L));
    }

    @Test
    void resp3RepliesDecodeToMapsDoublesAndBooleans() {
        try (SpinelClient c = spinel.newClient()) {
            Object hello = c.execute("HELLO", "3");
            assertThat(hello).isInstanceOf(Map.class);
            assertThat(((Map<?, ?>) hello).get("proto")).isEqualTo(3L);
            assertThat(c.execute("INCRBYFLOAT", "f", "1.5")).isEqualTo("1.5");
            assertThat(c.execute("CONFIG", "GET", "hz")).isEqualTo(Map.of("hz", "10"));
            assertThat(c.execute("GET", "missing")).isNull();
            // Typed helpers accept either protocol's shape.
            assertThat(c.configGet("databases")).isEqualTo("16");
        }
    }

    @Test
    void bulkValuesAreBinarySafeAndLargeOnesArriveWhole() {
        byte[] key = {0, '\r', '\n', (byte) 0xff};
        byte[] value = new byte[3 * 1024 * 1024 + 7];
        for (int i = 0; i < value.length; i++) value[i] = (byte) (i * 31);
        redis.set(key, value);
        assertThat(redis.get(key)).isEqualTo(value);
        assertThat(redis.strlen(new String(key, StandardCharsets.ISO_8859_1))).isEqualTo(0L);
        assertThat(redis.execute(new byte[][] {"STRLEN".getBytes(StandardCharsets.US_ASCII), key}))
                .isEqualTo((long) value.length);
    }

    // ---- errors ---------------------------------------------------------------------------------

    @Test
    void errorRepliesAreThrownWithRedisText() {
        redis.rpush("list", "x");
        assertThatThrownBy(() -> redis.get("list"))
                .isInstanceOf(SpinelException.class)
                .hasMessage("WRONGTYPE Operation against a key holding the wrong kind of value")
                .satisfies(e -> assertThat(((SpinelException) e).code()).isEqualTo("WRONGTYPE"));
        assertThatThrownBy(() -> redis.execute("GET"))
                .isInstanceOf(SpinelException.class)
                .hasMessage("ERR wrong number of arguments for 'get' command");
        assertThatThrownBy(() -> redis.execute("NOSUCH", "a"))
                .isInstanceOf(SpinelException.class)
                .hasMessage("ERR unknown command 'NOSUCH', with args beginning with: 'a' ");
        redis.set("s", "abc");
        assertThatThrownBy(() -> redis.incr("s"))
                .isInstanceOf(SpinelException.class)
                .hasMessage("ERR value is not an integer or out of range");
        // A failed call leaves the connection usable and the data as it was.
        assertThat(redis.get("s")).isEqualTo("abc");
    }

    @Test
    void asyncErrorsCompleteTheFutureExceptionally() {
        redis.rpush("list", "x");
        CompletableFuture<Object> f = redis.executeAsync("GET", "list");
        assertThatThrownBy(f::join)
                .isInstanceOf(CompletionException.class)
                .hasCauseInstanceOf(SpinelException.class)
                .cause().hasMessageStartingWith("WRONGTYPE");
    }

    /** Option values are their UTF-8 bytes, as a client's CONFIG SET of the same strings: a non-ASCII dir and password work. */
    @Test
    void nonAsciiOptionsAreTheirUtf8Bytes(@org.junit.jupiter.api.io.TempDir java.nio.file.Path tmp) throws Exception {
        java.nio.file.Path dir = java.nio.file.Files.createDirectory(tmp.resolve("d\u00e4t\u00e4"));
        try (EmbeddedSpinel s = EmbeddedSpinel.builder().option("dir", dir.toString()).option("requirepass", "p\u00e4ss")
                .option("dbfilename", "\u00fc.rdb").start();
             SpinelClient c = s.newClient()) {
            assertThat(c.execute("AUTH", "p\u00e4ss")).isEqualTo("OK");
            assertThat(c.execute("CONFIG", "GET", "dir")).isEqualTo(List.of("dir", dir.toRealPath().toString()));
            assertThat(c.execute("SAVE")).isEqualTo("OK");
            assertThat(dir.resolve("\u00fc.rdb")).isRegularFile();
        }
    }

    @Test
    void blockingOnTheEngineThreadIsRefusedInsteadOfDeadlocking() {
        try (EmbeddedSpinel s = EmbeddedSpinel.builder().option("enable-debug-command", "yes").start()) {
            SpinelClient c = s.client();
            // The engine is busy sleeping, so the stages below are attached before PING's reply
            // and run on the engine thread when it comes.
            c.executeAsync("DEBUG", "SLEEP", "0.2");
            CompletableFuture<Object> f = c.executeAsync("PING").thenApply(x -> c.execute("PING"));
            CompletableFuture<Object> g = c.executeAsync("SET", "a", "1").thenCompose(x -> c.executeAsync("GET", "a"));
            assertThatThrownBy(f::join).hasCauseInstanceOf(IllegalStateException.class)
                    .cause().hasMessageContaining("engine's own thread");
            // Asynchronous calls are fine there.
            assertThat(g.join()).isEqualTo("1");
        }
    }

    @Test
    void commandsThatAnswerWithAStreamAreRefused() {
        assertThatThrownBy(() -> redis.execute("CLIENT", "REPLY", "OFF"))
                .isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> redis.execute("subscribe", "a", "b"))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessage("SUBSCRIBE is not available to in-process clients; use a network client");
        assertThatThrownBy(() -> redis.executeAsync("MONITOR")).isInstanceOf(UnsupportedOperationException.class);
        assertThat(redis.ping()).isEqualTo("PONG");
    }

    // ---- typed helpers --------------------------------------------------------------------------

    @Test
    void stringHelpers() {
        redis.set("a", "1");
        assertThat(redis.get("a")).isEqualTo("1");
        assertThat(redis.set("a", "2", SetOptions.ifAbsent())).isFalse();
        assertThat(redis.set("b", "2", SetOptions.ifAbsent())).isTrue();
        assertThat(redis.set("nope", "x", SetOptions.ifPresent())).isFalse();
        assertThat(redis.exists("nope")).isZero();
        assertThat(redis.setAndGet("a", "3", SetOptions.none())).isEqualTo("1");
        assertThat(redis.set("t", "v", SetOptions.ttl(Duration.ofSeconds(100)).nx())).isTrue();
        assertThat(redis.ttl("t")).isBetween(99L, 100L);
        assertThat(redis.set("t", "w", SetOptions.none().keepTtl())).isTrue();
        assertThat(redis.pttl("t")).isBetween(98_000L, 100_000L);
        assertThat(redis.set("t", "x", SetOptions.none().ex(5).xx())).isTrue();
        assertThat(redis.ttl("t")).isBetween(4L, 5L);
        redis.mset("m1", "x", "m2", "y");
        Map<String, String> more = new LinkedHashMap<>();
        more.put("m3", "z");
        redis.mset(more);
        List<String> expected = new ArrayList<>(List.of("x", "y", "z"));
        expected.add(null);
        assertThat(redis.mget("m1", "m2", "m3", "m4")).isEqualTo(expected);
        assertThat(redis.incr("n")).isEqualTo(1);
        assertThat(redis.incrBy("n", 41)).isEqualTo(42);
        assertThat(redis.decr("n")).isEqualTo(41);
        assertThat(redis.decrBy("n", 40)).isEqualTo(1);
        assertThat(redis.incrByFloat("f", 2.5)).isEqualTo(2.5);
        assertThat(redis.incrByFloat("f", 0.25)).isEqualTo(2.75);
        assertThat(redis.append("s", "ab")).isEqualTo(2);
        assertThat(redis.append("s", "cd")).isEqualTo(4);
        assertThat(redis.strlen("s")).isEqualTo(4);
        assertThat(redis.type("s")).isEqualTo("string");
        assertThat(redis.del("s", "m1", "none")).isEqualTo(2);
        assertThat(redis.exists("a", "a", "b", "s")).isEqualTo(3);
    }

    @Test
    void keyAndServerHelpers() {
        redis.set("k", "v");
        assertThat(redis.ttl("k")).isEqualTo(-1);
        assertThat(redis.ttl("nokey")).isEqualTo(-2);
        assertThat(redis.expire("k", 100)).isTrue();
        assertThat(redis.expire("nokey", 100)).isFalse();
        assertThat(redis.ttl("k")).isBetween(99L, 100L);
        assertThat(redis.expire("k", Duration.ofMillis(50_500))).isTrue();
        assertThat(redis.pttl("k")).isBetween(49_000L, 50_500L);
        assertThat(redis.persist("k")).isTrue();
        assertThat(redis.ttl("k")).isEqualTo(-1);
        assertThat(redis.expireAt("k", Instant.now().plusSeconds(60))).isTrue();
        assertThat(redis.ttl("k")).isBetween(58L, 60L);
        redis.set("k2", "v");
        assertThat(redis.keys("k*")).containsExactlyInAnyOrder("k", "k2");
        assertThat(redis.dbSize()).isEqualTo(2);
        redis.select(1);
        assertThat(redis.dbSize()).isZero();
        redis.set("other", "1");
        redis.flushDb();
        redis.select(0);
        assertThat(redis.dbSize()).isEqualTo(2);
        redis.flushAll();
        assertThat(redis.dbSize()).isZero();
        redis.configSet("hz", "20");
        assertThat(redis.configGet("hz")).isEqualTo("20");
        assertThat(redis.configGet("no-such-option")).isNull();
    }

    @Test
    void listHelpers() {
        assertThat(redis.rpush("l", "b", "c")).isEqualTo(2);
        assertThat(redis.lpush("l", "a")).isEqualTo(3);
        assertThat(redis.lrange("l", 0, -1)).containsExactly("a", "b", "c");
        assertThat(redis.llen("l")).isEqualTo(3);
        assertThat(redis.lindex("l", -1)).isEqualTo("c");
        redis.lset("l", 1, "B");
        assertThat(redis.lrem("l", 0, "B")).isEqualTo(1);
        assertThat(redis.rpush("l", "d", "e")).isEqualTo(4);
        redis.ltrim("l", 1, -1);
        assertThat(redis.lpop("l")).isEqualTo("c");
        assertThat(redis.rpop("l")).isEqualTo("e");
        assertThat(redis.lpop("l")).isEqualTo("d");
        assertThat(redis.lpop("l")).isNull();
        assertThat(redis.exists("l")).isZero();
        assertThat(redis.type("l")).isEqualTo("none");
    }

    @Test
    void scoresAreSentAsRedisParsesThem() {
        assertThat(SpinelClient.number(1)).isEqualTo("1");
        assertThat(SpinelClient.number(-2.5)).isEqualTo("-2.5");
        assertThat(SpinelClient.number(Double.POSITIVE_INFINITY)).isEqualTo("+inf");
        assertThat(SpinelClient.number(Double.NEGATIVE_INFINITY)).isEqualTo("-inf");
        assertThat(SpinelClient.number(1e20)).isEqualTo("1.0E20");
        // What Spinel's float parser makes of them.
        assertThat(redis.incrByFloat("f", 1e20)).isEqualTo(1e20);
    }

    // ---- threads --------------------------------------------------------------------------------

    @Test
    void manyThreadsShareOneClient() throws Exception {
        int threads = 8, perThread = 2000;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<?>> fs = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                fs.add(pool.submit(() -> {
                    go.await();
                    for (int i = 0; i < perThread; i++) {
                        redis.incr("counter");
                        redis.rpush("list:" + id, Integer.toString(i));
                        assertThat(redis.get("own:" + id)).isEqualTo(i == 0 ? null : Integer.toString(i - 1));
                        redis.set("own:" + id, Integer.toString(i));
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> f : fs) f.get(60, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }
        assertThat(redis.get("counter")).isEqualTo(Integer.toString(threads * perThread));
        for (int t = 0; t < threads; t++) {
            List<String> l = redis.lrange("list:" + t, 0, -1);
            assertThat(l).hasSize(perThread);
            for (int i = 0; i < perThread; i++) assertThat(l.get(i)).isEqualTo(Integer.toString(i));
        }
    }

    @Test
    void clientsKeepTheirOwnConnectionState() throws Exception {
        int threads = 4;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int db = t;
                fs.add(pool.submit(() -> {
                    try (SpinelClient c = spinel.newClient()) {
                        c.select(db);
                        for (int i = 0; i < 500; i++) c.set("k" + i, "db" + db);
                        assertThat(c.dbSize()).isEqualTo(500);
                        assertThat(c.get("k7")).isEqualTo("db" + db);
                    }
                    return null;
                }));
            }
            for (Future<?> f : fs) f.get(60, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }
        for (int db = 0; db < threads; db++) {
            redis.select(db);
            assertThat(redis.get("k499")).isEqualTo("db" + db);
        }
        // The connections the threads closed are gone from CLIENT LIST.
        assertThat(((String) redis.execute("CLIENT", "LIST")).lines().count()).isEqualTo(1);
    }

    @Test
    void pipelinedAsyncCallsAreAnsweredInOrder() {
        List<CompletableFuture<Object>> fs = new ArrayList<>();
        for (int i = 0; i < 5000; i++) fs.add(redis.executeAsync("INCR", "seq"));
        for (int i = 0; i < fs.size(); i++) assertThat(fs.get(i).join()).isEqualTo((long) i + 1);
    }

    // ---- clock ----------------------------------------------------------------------------------

    @Test
    void manualClockExpiresKeysLazilyOnAccess() {
        ManualClock clock = new ManualClock();
        try (EmbeddedSpinel s = EmbeddedSpinel.builder().clock(clock).start()) {
            SpinelClient c = s.client();
            c.set("session", "data", SetOptions.ttl(Duration.ofMinutes(30)));
            c.set("forever", "x");
            clock.advance(Duration.ofMinutes(29));
            assertThat(c.get("session")).isEqualTo("data");
            assertThat(c.ttl("session")).isEqualTo(60);
            clock.advance(Duration.ofSeconds(61));
            assertThat(c.get("session")).isNull();
            assertThat(c.ttl("session")).isEqualTo(-2);
            assertThat(c.get("forever")).isEqualTo("x");
            assertThat(s.clock()).isSameAs(clock);
        }
    }

    @Test
    void activeExpiryCycleRemovesKeysNobodyTouches() {
        ManualClock clock = new ManualClock();
        try (EmbeddedSpinel s = EmbeddedSpinel.builder().clock(clock).start()) {
            SpinelClient c = s.client();
            for (int i = 0; i < 50; i++) c.set("tmp:" + i, "v", SetOptions.none().ex(10));
            c.set("keep", "v");
            assertThat(c.dbSize()).isEqualTo(51);
            clock.advance(Duration.ofSeconds(11));
            s.runActiveExpireCycle();
            // DBSIZE does not expire keys itself: only the cycle can have removed them.
            assertThat(c.dbSize()).isEqualTo(1);
            assertThat((String) c.execute("INFO", "stats")).contains("expired_keys:50\r\n");
        }
    }

    @Test
    void theServerCronExpiresKeysAfterTheClockMoves() throws InterruptedException {
        ManualClock clock = new ManualClock();
        try (EmbeddedSpinel s = EmbeddedSpinel.builder().clock(clock).option("hz", "100").start()) {
            SpinelClient c = s.client();
            for (int i = 0; i < 20; i++) c.set("tmp:" + i, "v", SetOptions.none().px(500));
            clock.advanceMillis(501);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (c.dbSize() > 0 && System.nanoTime() < deadline) Thread.sleep(5);
            assertThat(c.dbSize()).isZero();
        }
    }

    // ---- options and lifecycle ------------------------------------------------------------------

    @Test
    void optionsAreAppliedAndValidated() {
        try (EmbeddedSpinel s = EmbeddedSpinel.builder().option("databases", "2").option("requirepass", "pw").start()) {
            SpinelClient c = s.newClient();
            assertThatThrownBy(c::ping).isInstanceOf(SpinelException.class)
                    .hasMessage("NOAUTH Authentication required.");
            c.auth("pw");
            assertThat(c.ping()).isEqualTo("PONG");
            c.select(1);
            assertThatThrownBy(() -> c.select(2)).hasMessage("ERR DB index is out of range");
        }
        assertThatThrownBy(() -> EmbeddedSpinel.builder().option("hz", "often").start())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Invalid option 'hz' value 'often': argument couldn't be parsed into an integer");
        assertThatThrownBy(() -> EmbeddedSpinel.builder().option("no-such-thing", "1").start())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Unknown option 'no-such-thing'");
    }

    @Test
    void instancesAreIndependent() {
        try (EmbeddedSpinel other = EmbeddedSpinel.start()) {
            redis.set("k", "mine");
            other.client().set("k", "theirs");
            assertThat(redis.get("k")).isEqualTo("mine");
            assertThat(other.client().get("k")).isEqualTo("theirs");
        }
        assertThat(redis.get("k")).isEqualTo("mine");
    }

    @Test
    void quitAndCloseEndTheConnection() {
        SpinelClient c = spinel.newClient();
        assertThat(c.execute("QUIT")).isEqualTo("OK");
        assertThatThrownBy(c::ping).isInstanceOf(IllegalStateException.class);

        SpinelClient d = spinel.newClient();
        d.close();
        assertThatThrownBy(d::ping).isInstanceOf(IllegalStateException.class);
        assertThat(redis.ping()).isEqualTo("PONG");
    }

    @Test
    void closingTheInstanceFailsLaterCalls() {
        SpinelClient c = spinel.newClient();
        spinel.close();
        assertThatThrownBy(c::ping).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(redis::ping).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(spinel::newClient).isInstanceOf(IllegalStateException.class);
        spinel.close(); // idempotent
    }

    @Test
    void killedClientsFailTheirCalls() {
        SpinelClient victim = spinel.newClient();
        assertThat(redis.execute("CLIENT", "KILL", "ID", Long.toString(victim.id()))).isEqualTo(1L);
        assertThatThrownBy(victim::ping).isInstanceOf(IllegalStateException.class);
    }
}
