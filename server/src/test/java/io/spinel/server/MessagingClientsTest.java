package io.spinel.server;

import io.lettuce.core.RedisClient;
import io.lettuce.core.TrackingArgs;
import io.lettuce.core.TransactionResult;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.support.caching.CacheAccessor;
import io.lettuce.core.support.caching.CacheFrontend;
import io.lettuce.core.support.caching.ClientSideCaching;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.Transaction;

import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Pub/sub listeners, transactions and client-side caching as Jedis (RESP2) and Lettuce (RESP3) use them. */
class MessagingClientsTest {
    private static SpinelServer server;
    private static RedisClient lettuce;

    @BeforeAll
    static void start() {
        server = SpinelServer.builder().randomPort().option("bind", "127.0.0.1").start();
        lettuce = RedisClient.create("redis://127.0.0.1:" + server.port());
    }

    @AfterAll
    static void stop() {
        lettuce.shutdown();
        server.close();
    }

    private static Jedis jedis() {
        return new Jedis("127.0.0.1", server.port());
    }

    @Test
    void jedisListenerGetsChannelAndPatternMessagesInOrder() throws Exception {
        BlockingQueue<String> got = new LinkedBlockingQueue<>();
        CountDownLatch subscribed = new CountDownLatch(2);
        JedisPubSub listener = new JedisPubSub() {
            @Override
            public void onMessage(String channel, String message) {
                got.add(channel + ":" + message);
            }

            @Override
            public void onPMessage(String pattern, String channel, String message) {
                got.add(pattern + ">" + channel + ":" + message);
            }

            @Override
            public void onSubscribe(String channel, int count) {
                subscribed.countDown();
            }

            @Override
            public void onPSubscribe(String pattern, int count) {
                subscribed.countDown();
            }
        };
        try (Jedis sub = jedis(); Jedis pub = jedis()) {
            Thread t = new Thread(() -> sub.subscribe(listener, "news"));
            t.start();
            // the pattern subscription goes through the same connection once SUBSCRIBE is in place
            while (listener.getSubscribedChannels() == 0) Thread.sleep(5);
            listener.psubscribe("n*");
            assertThat(subscribed.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(pub.publish("news", "one")).isEqualTo(2); // channel and pattern
            assertThat(pub.publish("nothing", "two")).isEqualTo(1); // pattern only
            assertThat(pub.publish("other", "three")).isZero();
            assertThat(got.poll(10, TimeUnit.SECONDS)).isEqualTo("news:one");
            assertThat(got.poll(10, TimeUnit.SECONDS)).isEqualTo("n*>news:one");
            assertThat(got.poll(10, TimeUnit.SECONDS)).isEqualTo("n*>nothing:two");
            listener.unsubscribe();
            listener.punsubscribe();
            t.join(10_000);
            assertThat(t.isAlive()).isFalse();
            assertThat(got).isEmpty();
            assertThat(pub.pubsubNumSub("news")).containsEntry("news", 0L);
        }
    }

    @Test
    void jedisTransactionsAndWatch() {
        try (Jedis a = jedis(); Jedis b = jedis()) {
            a.set("balance", "10");
            Transaction tx = a.multi();
            tx.incrBy("balance", 5);
            tx.get("balance");
            tx.lpush("balance", "x"); // fails at EXEC with WRONGTYPE; the others still apply
            List<Object> results = tx.exec();
            assertThat(results.get(0)).isEqualTo(15L);
            assertThat(results.get(1)).isEqualTo("15");
            assertThat(results.get(2)).isInstanceOf(Exception.class);

            a.watch("balance");
            b.set("balance", "100"); // another client changes the watched key
            Transaction spoiled = a.multi();
            spoiled.set("balance", "0");
            assertThat(spoiled.exec()).isNull();
            assertThat(a.get("balance")).isEqualTo("100");
        }
    }

    @Test
    void lettucePubSubOverResp3Pushes() throws Exception {
        BlockingQueue<String> got = new LinkedBlockingQueue<>();
        try (StatefulRedisPubSubConnection<String, String> sub = lettuce.connectPubSub();
             StatefulRedisConnection<String, String> pub = lettuce.connect()) {
            sub.addListener(new RedisPubSubAdapter<>() {
                @Override
                public void message(String channel, String message) {
                    got.add(channel + ":" + message);
                }

                @Override
                public void message(String pattern, String channel, String message) {
                    got.add(pattern + ">" + channel + ":" + message);
                }
            });
            sub.sync().subscribe("orders");
            sub.sync().psubscribe("ord*");
            // RESP3: a subscribed connection still answers ordinary commands
            assertThat(sub.sync().ping()).isEqualTo("PONG");
            for (int i = 0; i < 100; i++) pub.sync().publish("orders", "o" + i);
            for (int i = 0; i < 100; i++) {
                assertThat(got.poll(10, TimeUnit.SECONDS)).isEqualTo("orders:o" + i);
                assertThat(got.poll(10, TimeUnit.SECONDS)).isEqualTo("ord*>orders:o" + i);
            }
            sub.sync().unsubscribe("orders");
            sub.sync().punsubscribe("ord*");
            assertThat(pub.sync().publish("orders", "late")).isZero();
        }
    }

    @Test
    void lettuceTransactions() {
        try (StatefulRedisConnection<String, String> conn = lettuce.connect()) {
            RedisCommands<String, String> r = conn.sync();
            r.del("stock");
            r.multi();
            r.incrby("stock", 3);
            r.decr("stock");
            r.get("stock");
            TransactionResult result = r.exec();
            assertThat(result.wasDiscarded()).isFalse();
            assertThat((List<Object>) result.stream().toList()).containsExactly(3L, 2L, "2");

            r.multi();
            r.set("stock", "99");
            assertThat(r.discard()).isEqualTo("OK");
            assertThat(r.get("stock")).isEqualTo("2");
        }
    }

    @Test
    void lettuceClientSideCacheIsInvalidatedByAnotherClientsWrite() throws Exception {
        Map<String, String> cache = new ConcurrentHashMap<>();
        try (StatefulRedisConnection<String, String> tracked = lettuce.connect();
             StatefulRedisConnection<String, String> writer = lettuce.connect()) {
            writer.sync().set("user:1", "alice");
            CacheFrontend<String, String> frontend =
                    ClientSideCaching.enable(CacheAccessor.forMap(cache), tracked, TrackingArgs.Builder.enabled());
            assertThat(frontend.get("user:1")).isEqualTo("alice");
            assertThat(cache).containsEntry("user:1", "alice");

            writer.sync().set("user:1", "bob"); // Spinel pushes an invalidation to the tracking client
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (cache.containsKey("user:1") && System.nanoTime() < deadline) Thread.sleep(5);
            assertThat(cache).doesNotContainKey("user:1");
            assertThat(frontend.get("user:1")).isEqualTo("bob");
            frontend.close();
        }
    }
}
