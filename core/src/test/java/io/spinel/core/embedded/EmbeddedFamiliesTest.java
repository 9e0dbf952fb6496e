package io.spinel.core.embedded;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The typed helpers of command families that are written in parallel with the embedded API, and
 * the commands whose replies come later or nest errors. Each test runs once its commands exist in
 * the engine and is skipped (with the reason) before that.
 */
class EmbeddedFamiliesTest {
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

    private void assumeCommands(String... names) {
        for (String name : names) {
            List<?> info = (List<?>) redis.execute("COMMAND", "INFO", name);
            assumeTrue(info.get(0) != null, name.toUpperCase() + " is not implemented yet");
        }
    }

    @Test
    void hashHelpers() {
        assumeCommands("hset", "hget", "hmget", "hgetall", "hdel", "hexists", "hlen", "hincrby", "hkeys", "hvals");
        assertThat(redis.hset("h", "a", "1")).isEqualTo(1);
        Map<String, String> more = new LinkedHashMap<>();
        more.put("b", "2");
        more.put("a", "10");
        assertThat(redis.hset("h", more)).isEqualTo(1);
        assertThat(redis.hget("h", "a")).isEqualTo("10");
        assertThat(redis.hmget("h", "a", "zz")).containsExactly("10", null);
        assertThat(redis.hgetAll("h")).isEqualTo(Map.of("a", "10", "b", "2"));
        assertThat(redis.hexists("h", "b")).isTrue();
        assertThat(redis.hincrBy("h", "b", 5)).isEqualTo(7);
        assertThat(redis.hlen("h")).isEqualTo(2);
        assertThat(redis.hkeys("h")).containsExactlyInAnyOrder("a", "b");
        assertThat(redis.hvals("h")).containsExactlyInAnyOrder("10", "7");
        assertThat(redis.hdel("h", "a", "b", "c")).isEqualTo(2);
        assertThat(redis.exists("h")).isZero();
        try (SpinelClient resp3 = spinel.newClient()) {
            resp3.execute("HELLO", "3");
            resp3.hset("h3", "f", "v");
            assertThat(resp3.hgetAll("h3")).isEqualTo(Map.of("f", "v"));
        }
    }

    @Test
    void setHelpers() {
        assumeCommands("sadd", "srem", "smembers", "sismember", "scard");
        assertThat(redis.sadd("s", "a", "b", "a")).isEqualTo(2);
        assertThat(redis.smembers("s")).isEqualTo(Set.of("a", "b"));
        assertThat(redis.sismember("s", "a")).isTrue();
        assertThat(redis.sismember("s", "z")).isFalse();
        assertThat(redis.srem("s", "a", "z")).isEqualTo(1);
        assertThat(redis.scard("s")).isEqualTo(1);
        try (SpinelClient resp3 = spinel.newClient()) {
            resp3.execute("HELLO", "3");
            assertThat(resp3.smembers("s")).isEqualTo(Set.of("b"));
        }
    }

    @Test
    void sortedSetHelpers() {
        assumeCommands("zadd", "zscore", "zincrby", "zrem", "zcard", "zrank", "zrange", "zrangebyscore");
        assertThat(redis.zadd("z", 1, "a")).isEqualTo(1);
        Map<String, Double> more = new LinkedHashMap<>();
        more.put("b", 2.5);
        more.put("c", Double.POSITIVE_INFINITY);
        assertThat(redis.zadd("z", more)).isEqualTo(2);
        assertThat(redis.zscore("z", "b")).isEqualTo(2.5);
        assertThat(redis.zscore("z", "c")).isEqualTo(Double.POSITIVE_INFINITY);
        assertThat(redis.zscore("z", "nope")).isNull();
        assertThat(redis.zincrBy("z", 0.5, "a")).isEqualTo(1.5);
        assertThat(redis.zrank("z", "b")).isEqualTo(1);
        assertThat(redis.zrank("z", "nope")).isNull();
        assertThat(redis.zrange("z", 0, -1)).containsExactly("a", "b", "c");
        assertThat(redis.zrangeWithScores("z", 0, 1))
                .containsExactly(new ScoredMember("a", 1.5), new ScoredMember("b", 2.5));
        assertThat(redis.zrangeByScore("z", 2, Double.POSITIVE_INFINITY)).containsExactly("b", "c");
        assertThat(redis.zrem("z", "a", "nope")).isEqualTo(1);
        assertThat(redis.zcard("z")).isEqualTo(2);
        try (SpinelClient resp3 = spinel.newClient()) {
            resp3.execute("HELLO", "3");
            assertThat(resp3.zscore("z", "b")).isEqualTo(2.5);
            assertThat(resp3.zrangeWithScores("z", 0, -1))
                    .containsExactly(new ScoredMember("b", 2.5), new ScoredMember("c", Double.POSITIVE_INFINITY));
        }
    }

    @Test
    void aBlockedCallCompletesWhenAnotherClientServesIt() throws Exception {
        assumeCommands("blpop");
        try (SpinelClient waiter = spinel.newClient()) {
            CompletableFuture<Object> popped = waiter.executeAsync("BLPOP", "queue", "0");
            // The waiter's own later calls queue up behind the blocked one.
            CompletableFuture<Object> next = waiter.executeAsync("PING");
            assertThat(redis.execute("CLIENT", "LIST", "ID", Long.toString(waiter.id())).toString())
                    .contains("cmd=blpop");
            assertThat(popped).isNotDone();
            redis.rpush("queue", "job");
            assertThat(popped.get(10, TimeUnit.SECONDS)).isEqualTo(List.of("queue", "job"));
            assertThat(next.get(10, TimeUnit.SECONDS)).isEqualTo("PONG");
        }
    }

    @Test
    void execRepliesCarryErrorsAsElements() {
        assumeCommands("multi", "exec");
        try (SpinelClient c = spinel.newClient()) {
            c.execute("SET", "s", "text");
            assertThat(c.execute("MULTI")).isEqualTo("OK");
            assertThat(c.execute("INCR", "s")).isEqualTo("QUEUED");
            assertThat(c.execute("SET", "s", "other")).isEqualTo("QUEUED");
            List<?> results = (List<?>) c.execute("EXEC");
            assertThat(results.get(0)).isInstanceOf(SpinelException.class);
            assertThat(((SpinelException) results.get(0)).getMessage())
                    .isEqualTo("ERR value is not an integer or out of range");
            assertThat(results.get(1)).isEqualTo("OK");
            assertThat(c.get("s")).isEqualTo("other");
        }
    }
}
