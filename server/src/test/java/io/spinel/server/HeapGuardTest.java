package io.spinel.server;

import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * With no maxmemory, a server whose data nears the end of the Java heap refuses what may add
 * memory with Redis's -OOM error, and keeps answering everything else, instead of failing
 * wherever the heap runs out; it takes writes again once memory was freed. The heap's share is
 * made tiny here (a few KB) so that a handful of keys reaches it.
 */
class HeapGuardTest {
    @Test
    void writesAreRefusedNearTheHeapsEndAndAcceptedAgainAfterADelete() throws Exception {
        String share = System.getProperty("spinel.heapDataShare");
        System.setProperty("spinel.heapDataShare", Double.toString(64.0 * 1024 / Runtime.getRuntime().maxMemory()));
        try (SpinelServer s = SpinelServer.builder().randomPort().start(); Jedis j = new Jedis("127.0.0.1", s.port())) {
            String value = "v".repeat(4096);
            for (int i = 0; i < 40; i++) j.set("k" + i, value); // 160 KB: past the 64 KB allowed
            waitForCron();
            assertThatThrownBy(() -> j.set("one-more", "x"))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessage("OOM command not allowed when used memory > 'maxmemory'.");
            assertThatThrownBy(() -> j.lpush("list", "x")).hasMessageStartingWith("OOM ");
            // reads, deletes and the rest go on
            assertThat(j.get("k1")).isEqualTo(value);
            assertThat(j.dbSize()).isEqualTo(40);
            assertThat(j.ping()).isEqualTo("PONG");
            for (int i = 0; i < 40; i++) j.del("k" + i);
            waitForCron();
            assertThat(j.set("one-more", "x")).isEqualTo("OK");
        } finally {
            if (share == null) System.clearProperty("spinel.heapDataShare");
            else System.setProperty("spinel.heapDataShare", share);
        }
    }

    /** The guard looks at the heap once per cron tick (10 a second). */
    private static void waitForCron() throws InterruptedException {
        Thread.sleep(300);
    }
}
