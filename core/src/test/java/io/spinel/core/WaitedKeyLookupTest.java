package io.spinel.core;

import io.spinel.core.embedded.EmbeddedSpinel;
import io.spinel.core.embedded.SpinelClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Writes find blocked and WATCHed keys through a reused probe pointing into the query buffer
 * instead of a copy of the key: the probe must match exactly the refs a copy would have matched.
 */
class WaitedKeyLookupTest {
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

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aProbeOverASliceEqualsTheStoredRefOfThatKeyOnly() {
        Map<Blocking.KeyRef, String> stored = new HashMap<>();
        stored.put(new Blocking.KeyRef(0, b("queue")), "db0 queue");
        stored.put(new Blocking.KeyRef(1, b("queue")), "db1 queue");
        stored.put(new Blocking.KeyRef(0, b("")), "db0 empty key");
        byte[] buffer = b("*2\r\n$4\r\nLPUSH\r\n$5\r\nqueue\r\n$6\r\nqueues\r\n");
        int at = new String(buffer, StandardCharsets.UTF_8).indexOf("queue");
        Blocking.KeyRef probe = new Blocking.KeyRef(0, new byte[0]);

        assertThat(stored.get(probe.point(0, buffer, at, 5))).isEqualTo("db0 queue");
        assertThat(probe.copy()).isEqualTo(new Blocking.KeyRef(0, b("queue")));
        assertThat(probe.copy().hashCode()).isEqualTo(new Blocking.KeyRef(0, b("queue")).hashCode());
        assertThat(stored.get(probe.point(1, buffer, at, 5))).isEqualTo("db1 queue");
        assertThat(stored.get(probe.point(2, buffer, at, 5))).isNull();
        assertThat(stored.get(probe.point(0, buffer, at, 4))).isNull(); // "queu"
        assertThat(stored.get(probe.point(0, buffer, at + 1, 5))).isNull(); // "ueue\r"
        int second = new String(buffer, StandardCharsets.UTF_8).indexOf("queues");
        assertThat(stored.get(probe.point(0, buffer, second, 6))).isNull();
        assertThat(stored.get(probe.point(0, buffer, 3, 0))).isEqualTo("db0 empty key");
        probe.release();
        assertThat(probe.key).isNull();
    }

    @Test
    void writesToOtherKeysLeaveAWatchAloneAndAWriteToTheKeyBreaksIt() {
        try (SpinelClient watcher = spinel.newClient()) {
            redis.execute("SET", "w", "0");
            assertThat(watcher.execute("WATCH", "w")).isEqualTo("OK");
            // keys that share a prefix, a suffix or the length with the watched one
            redis.execute("SET", "ww", "1");
            redis.execute("SET", "xw", "1");
            redis.execute("SET", "x", "1");
            redis.execute("MSET", "a", "1", "w", "1"); // the watched key after another in one command
            assertThat(watcher.execute("MULTI")).isEqualTo("OK");
            assertThat(watcher.execute("PING")).isEqualTo("QUEUED");
            assertThat(watcher.execute("EXEC")).isNull();

            assertThat(watcher.execute("WATCH", "w")).isEqualTo("OK");
            redis.execute("SET", "ww", "2");
            redis.execute("SELECT", "1");
            redis.execute("SET", "w", "other database");
            redis.execute("SELECT", "0");
            assertThat(watcher.execute("MULTI")).isEqualTo("OK");
            assertThat(watcher.execute("PING")).isEqualTo("QUEUED");
            assertThat(watcher.execute("EXEC")).isEqualTo(List.of("PONG"));
        }
    }

    @Test
    void aBlockedClientIsServedByAWriteToItsKeyOnly() throws Exception {
        try (SpinelClient waiter = spinel.newClient()) {
            CompletableFuture<Object> popped = waiter.executeAsync("BLPOP", "q2", "q1", "0");
            assertThat(redis.execute("PING")).isEqualTo("PONG"); // the BLPOP has run and blocked
            redis.execute("RPUSH", "q", "no");
            redis.execute("RPUSH", "q12", "no");
            redis.execute("SET", "q1x", "no");
            assertThat(popped).isNotDone();
            // several writes to the waited key in one command: it is served once, with the first
            redis.execute("RPUSH", "q1", "job", "more");
            assertThat(popped.get(10, TimeUnit.SECONDS)).isEqualTo(List.of("q1", "job"));
            assertThat(redis.execute("LRANGE", "q1", "0", "-1")).isEqualTo(List.of("more"));
            assertThat(redis.execute("LRANGE", "q", "0", "-1")).isEqualTo(List.of("no"));
        }
    }
}
