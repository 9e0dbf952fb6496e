package io.spinel.server;

import io.spinel.server.testing.RawClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RBucket;
import org.redisson.api.RLock;
import org.redisson.api.RMap;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RScoredSortedSet;
import org.redisson.api.RateType;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Spinel through Redisson 4, whose objects are built on Lua scripts (EVAL/EVALSHA with many keys,
 * pub/sub for lock release, hashes for lock owners, sorted sets for fair locks and rate limiters).
 * Each test first checks that the server has the data types the Redisson object uses.
 */
class RedissonIntegrationTest {
    private static SpinelServer server;
    private static RedissonClient redisson;

    @BeforeAll
    static void start() {
        server = SpinelServer.builder().randomPort().option("bind", "127.0.0.1").start();
        Config config = new Config();
        config.setCodec(StringCodec.INSTANCE);
        config.useSingleServer().setAddress("redis://127.0.0.1:" + server.port())
                .setConnectionMinimumIdleSize(2).setConnectionPoolSize(8)
                .setSubscriptionConnectionMinimumIdleSize(1).setSubscriptionConnectionPoolSize(4)
                .setTimeout(5000).setRetryAttempts(0);
        redisson = Redisson.create(config);
    }

    @AfterAll
    static void stop() {
        if (redisson != null) redisson.shutdown();
        if (server != null) server.close();
    }

    /** Skips the test unless the server knows every command (data types other work adds). */
    private static void requireCommands(String... names) throws Exception {
        try (RawClient c = new RawClient(server.port())) {
            for (String n : names) {
                List<byte[]> args = new ArrayList<>();
                for (String a : new String[] {"COMMAND", "INFO", n}) args.add(a.getBytes(StandardCharsets.US_ASCII));
                String reply = new String(c.call(args), StandardCharsets.ISO_8859_1);
                Assumptions.assumeTrue(reply.contains("\r\n" + n + "\r\n"), "server has no " + n.toUpperCase());
            }
        }
    }

    @Test
    void bucketWithTtlAndScriptedCompareAndSet() throws Exception {
        RBucket<String> b = redisson.getBucket("bucket");
        b.set("v1", Duration.ofSeconds(100));
        assertThat(b.get()).isEqualTo("v1");
        assertThat(b.remainTimeToLive()).isBetween(98_000L, 100_000L);
        assertThat(b.compareAndSet("nope", "v2")).isFalse();
        assertThat(b.compareAndSet("v1", "v2")).isTrue();
        assertThat(b.get()).isEqualTo("v2");
        assertThat(b.setIfAbsent("v3")).isFalse();
        assertThat(b.getAndDelete()).isEqualTo("v2");
        assertThat(b.isExists()).isFalse();
        assertThat(b.setIfAbsent("v4", Duration.ofMillis(150))).isTrue();
        assertThat(b.remainTimeToLive()).isBetween(1L, 150L);
        Thread.sleep(300);
        assertThat(b.get()).isNull();
    }

    @Test
    void lockIsReentrantAndExclusive() throws Exception {
        requireCommands("hincrby", "hexists", "publish", "subscribe");
        RLock lock = redisson.getLock("lock");
        lock.lock();
        lock.lock();
        assertThat(lock.isLocked()).isTrue();
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        assertThat(lock.getHoldCount()).isEqualTo(2);
        assertThat(lock.remainTimeToLive()).isPositive();
        CompletableFuture<Boolean> other = CompletableFuture.supplyAsync(() -> {
            try {
                return lock.tryLock(0, 5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(other.get(10, TimeUnit.SECONDS)).isFalse();
        lock.unlock();
        assertThat(lock.getHoldCount()).isEqualTo(1);
        lock.unlock();
        assertThat(lock.isLocked()).isFalse();

        // a waiting thread is woken by the unlock's PUBLISH (sent from inside the unlock script)
        lock.lock();
        CountDownLatch acquired = new CountDownLatch(1);
        Thread waiter = new Thread(() -> {
            lock.lock();
            acquired.countDown();
            lock.unlock();
        });
        waiter.start();
        assertThat(acquired.await(300, TimeUnit.MILLISECONDS)).isFalse();
        lock.unlock();
        assertThat(acquired.await(10, TimeUnit.SECONDS)).isTrue();
        waiter.join(10_000);
    }

    @Test
    void tryLockWithLeaseExpires() throws Exception {
        requireCommands("hincrby", "hexists", "publish");
        RLock lock = redisson.getLock("leased");
        assertThat(lock.tryLock(1, 1, TimeUnit.SECONDS)).isTrue();
        assertThat(lock.remainTimeToLive()).isBetween(1L, 1000L);
        long t0 = System.nanoTime();
        CompletableFuture<Boolean> other = CompletableFuture.supplyAsync(() -> {
            try {
                boolean ok = lock.tryLock(10, 10, TimeUnit.SECONDS);
                if (ok) lock.unlock();
                return ok;
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(other.get(15, TimeUnit.SECONDS)).isTrue();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)).isGreaterThanOrEqualTo(500);
        assertThat(lock.forceUnlock()).isFalse();
    }

    @Test
    void fairLockServesWaitersInOrder() throws Exception {
        requireCommands("hincrby", "zadd", "zrange", "rpush", "lindex", "publish");
        RLock fair = redisson.getFairLock("fair");
        fair.lock();
        List<Integer> order = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            int n = i;
            Thread t = new Thread(() -> {
                fair.lock();
                order.add(n);
                fair.unlock();
            });
            t.start();
            threads.add(t);
            Thread.sleep(200); // queue them in a known order
        }
        fair.unlock();
        for (Thread t : threads) t.join(20_000);
        assertThat(order).containsExactly(0, 1, 2);
        assertThat(fair.isLocked()).isFalse();
    }

    @Test
    void rateLimiterCountsPermits() throws Exception {
        requireCommands("hsetnx", "hget", "zadd", "zrangebyscore");
        RRateLimiter rl = redisson.getRateLimiter("limiter");
        assertThat(rl.trySetRate(RateType.OVERALL, 3, Duration.ofSeconds(30))).isTrue();
        assertThat(rl.trySetRate(RateType.OVERALL, 5, Duration.ofSeconds(30))).isFalse();
        assertThat(rl.tryAcquire()).isTrue();
        assertThat(rl.tryAcquire(2)).isTrue();
        assertThat(rl.tryAcquire()).isFalse();
        assertThat(rl.availablePermits()).isZero();
    }

    @Test
    void mapOperationsThroughScripts() throws Exception {
        requireCommands("hset", "hget", "hgetall", "hincrby");
        RMap<String, String> m = redisson.getMap("map");
        assertThat(m.put("a", "1")).isNull();
        assertThat(m.put("a", "2")).isEqualTo("1");
        assertThat(m.putIfAbsent("a", "3")).isEqualTo("2");
        assertThat(m.putIfAbsent("b", "3")).isNull();
        assertThat(m.fastPut("c", "4")).isTrue();
        assertThat(m.replace("c", "4", "5")).isTrue();
        assertThat(m.replace("c", "4", "6")).isFalse();
        assertThat(m.remove("b")).isEqualTo("3");
        assertThat(m.remove("a", "nope")).isFalse();
        assertThat(m.readAllMap()).isEqualTo(Map.of("a", "2", "c", "5"));
        assertThat(m.size()).isEqualTo(2);
        assertThat(m.getAll(java.util.Set.of("a", "c", "x"))).isEqualTo(Map.of("a", "2", "c", "5"));
        m.putAll(Map.of("d", "7", "e", "8"));
        assertThat(m.keySet()).containsExactlyInAnyOrder("a", "c", "d", "e");
    }

    @Test
    void scoredSortedSet() throws Exception {
        requireCommands("zadd", "zscore", "zrange", "zrank");
        RScoredSortedSet<String> z = redisson.getScoredSortedSet("zset");
        assertThat(z.add(1.5, "a")).isTrue();
        assertThat(z.add(0.5, "b")).isTrue();
        assertThat(z.tryAdd(3, "a")).isFalse();
        assertThat(z.addScore("c", 2)).isEqualTo(2.0);
        assertThat(z.getScore("a")).isEqualTo(1.5);
        assertThat(z.rank("c")).isEqualTo(2);
        assertThat(z.readAll()).containsExactly("b", "a", "c");
        assertThat(z.first()).isEqualTo("b");
        assertThat(z.pollFirst()).isEqualTo("b");
        assertThat(z.size()).isEqualTo(2);
    }
}
