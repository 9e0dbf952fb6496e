package io.spinel.server.persist;

import io.spinel.server.SpinelServer;
import io.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static io.spinel.server.persist.PersistTesting.info;
import static io.spinel.server.persist.PersistTesting.spinel;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keys evicted under maxmemory are deleted in the AOF too (DEL, or UNLINK with
 * lazyfree-lazy-eviction, as Redis propagates them): a restart must not bring them back.
 */
class EvictionPropagationTest {
    @Test
    void evictedKeysStayGoneAfterARestart(@TempDir Path dir) throws Exception {
        long keysBefore;
        try (SpinelServer s = spinel(dir, "appendonly", "yes", "appendfsync", "always");
             RawClient c = new RawClient(s.port())) {
            c.callString("CONFIG", "SET", "maxmemory-policy", "allkeys-lru");
            c.callString("CONFIG", "SET", "lazyfree-lazy-eviction", "yes");
            String value = "x".repeat(100);
            for (int i = 0; i < 200; i++) c.callString("SET", "k" + i, value);
            c.callString("CONFIG", "SET", "maxmemory", info(c, "used_memory"));
            for (int i = 0; i < 100; i++) c.callString("SET", "more" + i, value);
            assertThat(Long.parseLong(info(c, "evicted_keys"))).isPositive();
            // while maxmemory is set, the cron and every command (this CONFIG SET included) may
            // evict a few more keys: count them once it is off
            c.callString("CONFIG", "SET", "maxmemory", "0");
            keysBefore = Long.parseLong(c.callString("DBSIZE").substring(1).trim());
        }
        String aof = Files.readString(dir.resolve("appendonlydir/appendonly.aof.1.incr.aof"), StandardCharsets.ISO_8859_1);
        assertThat(aof).contains("$6\r\nUNLINK\r\n");
        try (SpinelServer s = spinel(dir, "appendonly", "yes");
             RawClient c = new RawClient(s.port())) {
            assertThat(Long.parseLong(c.callString("DBSIZE").substring(1).trim())).isEqualTo(keysBefore);
        }
    }
}
