package io.spinel.server;

import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPubSub;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Keys removed by eviction are announced as "evicted" keyspace events, one per key, naming it. */
class EvictionNotificationTest {
    @Test
    void everyEvictedKeyIsAnnounced() throws Exception {
        try (SpinelServer s = SpinelServer.builder().randomPort().start()) {
            everyEvictedKeyIsAnnounced(s);
        }
    }

    /** Also run with I/O threads (IoThreadsTest). */
    static void everyEvictedKeyIsAnnounced(SpinelServer s) throws Exception {
        try (Jedis c = new Jedis("127.0.0.1", s.port());
             Jedis sub = new Jedis("127.0.0.1", s.port())) {
            c.configSet("notify-keyspace-events", "Ee");
            c.configSet("maxmemory-policy", "allkeys-lru");
            List<String> evicted = Collections.synchronizedList(new ArrayList<>());
            CountDownLatch subscribed = new CountDownLatch(1);
            JedisPubSub listener = new JedisPubSub() {
                @Override
                public void onSubscribe(String channel, int count) {
                    subscribed.countDown();
                }

                @Override
                public void onMessage(String channel, String key) {
                    evicted.add(key);
                }
            };
            Thread t = new Thread(() -> sub.subscribe(listener, "__keyevent@0__:evicted"));
            t.start();
            assertThat(subscribed.await(10, TimeUnit.SECONDS)).isTrue();

            String value = "x".repeat(100);
            for (int i = 0; i < 100; i++) c.set("k" + i, value);
            c.configSet("maxmemory", Long.toString(usedMemory(c)));
            for (int i = 0; i < 30; i++) c.set("more" + i, value);
            // Every command runs the eviction first (UNSUBSCRIBE and INFO too), and the
            // notifications queued for the subscriber count as used memory: lift the limit
            // before counting, so that the count is final.
            c.configSet("maxmemory", "0");
            long count = Long.parseLong(c.info("stats").split("evicted_keys:")[1].split("\r\n")[0]);
            // 30 new keys push out about as many old ones: not all (memory that replies and
            // notifications held must stop counting once they were written).
            assertThat(count).isPositive().isLessThan(100);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (evicted.size() < count && System.nanoTime() < deadline) Thread.sleep(10);
            listener.unsubscribe();
            t.join(10_000);

            assertThat(evicted).hasSize((int) count).doesNotHaveDuplicates();
            for (String key : evicted) assertThat(c.exists(key)).as(key).isFalse();
        }
    }

    private static long usedMemory(Jedis c) {
        return Long.parseLong(c.info("memory").split("used_memory:")[1].split("\r\n")[0]);
    }
}
