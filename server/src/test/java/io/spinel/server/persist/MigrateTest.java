package io.spinel.server.persist;

import io.spinel.server.SpinelServer;
import io.spinel.server.testing.RawClient;
import io.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static io.spinel.server.persist.PersistTesting.spinel;
import static org.assertj.core.api.Assertions.assertThat;

/** MIGRATE between two servers: moves, copies, replaces, selects, authenticates and reports as Redis. */
class MigrateTest {
    private static String port(SpinelServer s) {
        return Integer.toString(s.port());
    }

    @Test
    void movesCopiesAndReplacesKeys() throws Exception {
        try (SpinelServer src = SpinelServer.builder().randomPort().start();
             SpinelServer dst = SpinelServer.builder().randomPort().start();
             RawClient a = new RawClient(src.port());
             RawClient b = new RawClient(dst.port())) {
            String to = port(dst);
            a.callString("SET", "k", "v");
            a.callString("EXPIRE", "k", "100");
            assertThat(a.callString("MIGRATE", "127.0.0.1", to, "k", "0", "5000")).isEqualTo("+OK\r\n");
            assertThat(a.callString("EXISTS", "k")).isEqualTo(":0\r\n");
            assertThat(b.callString("GET", "k")).isEqualTo("$1\r\nv\r\n");
            String ttl = b.callString("TTL", "k");
            assertThat(Integer.parseInt(ttl.substring(1).trim())).isBetween(90, 100);

            a.callString("SET", "k2", "v2");
            assertThat(a.callString("MIGRATE", "127.0.0.1", to, "k2", "0", "5000", "COPY")).isEqualTo("+OK\r\n");
            assertThat(a.callString("GET", "k2")).isEqualTo("$2\r\nv2\r\n");
            assertThat(b.callString("GET", "k2")).isEqualTo("$2\r\nv2\r\n");
            assertThat(b.callString("TTL", "k2")).isEqualTo(":-1\r\n");

            a.callString("SET", "k2", "other");
            assertThat(a.callString("MIGRATE", "127.0.0.1", to, "k2", "0", "5000"))
                    .isEqualTo("-ERR Target instance replied with error: BUSYKEY Target key name already exists.\r\n");
            assertThat(a.callString("GET", "k2")).isEqualTo("$5\r\nother\r\n");
            assertThat(a.callString("MIGRATE", "127.0.0.1", to, "k2", "0", "5000", "REPLACE")).isEqualTo("+OK\r\n");
            assertThat(a.callString("EXISTS", "k2")).isEqualTo(":0\r\n");
            assertThat(b.callString("GET", "k2")).isEqualTo("$5\r\nother\r\n");

            // several keys at once, into another database, big and structured values included
            a.callString("SET", "big", "x".repeat(1_000_000));
            a.callString("HSET", "h", "f1", "1", "f2", "2");
            a.callString("RPUSH", "l", "a", "b", "c");
            assertThat(a.callString("MIGRATE", "127.0.0.1", to, "", "3", "5000", "KEYS", "big", "h", "nosuch", "l"))
                    .isEqualTo("+OK\r\n");
            assertThat(a.callString("DBSIZE")).isEqualTo(":0\r\n");
            b.callString("SELECT", "3");
            assertThat(b.callString("STRLEN", "big")).isEqualTo(":1000000\r\n");
            assertThat(b.callString("HGET", "h", "f2")).isEqualTo("$1\r\n2\r\n");
            assertThat(b.callString("LRANGE", "l", "0", "-1")).isEqualTo("*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n");
            assertThat(a.callString("MIGRATE", "127.0.0.1", to, "nosuch", "0", "5000")).isEqualTo("+NOKEY\r\n");
            // one connection to the target, kept for the next MIGRATEs (INFO as Redis's)
            assertThat(a.callString("INFO", "stats")).contains("migrate_cached_sockets:1\r\n");
            assertThat(b.callString("INFO", "stats")).contains("migrate_cached_sockets:0\r\n");
        }
    }

    @Test
    void authenticatesAndReportsTargetsThatCannotBeReached() throws Exception {
        try (SpinelServer src = SpinelServer.builder().randomPort().start();
             SpinelServer dst = SpinelServer.builder().randomPort().option("requirepass", "secret").start();
             RawClient a = new RawClient(src.port())) {
            String to = port(dst);
            a.callString("SET", "k", "v");
            assertThat(a.callString("MIGRATE", "127.0.0.1", to, "k", "0", "5000"))
                    .isEqualTo("-ERR Target instance replied with error: NOAUTH Authentication required.\r\n");
            assertThat(a.callString("MIGRATE", "127.0.0.1", to, "k", "0", "5000", "AUTH", "wrong"))
                    .startsWith("-ERR Target instance replied with error: WRONGPASS");
            assertThat(a.callString("EXISTS", "k")).isEqualTo(":1\r\n");
            assertThat(a.callString("MIGRATE", "127.0.0.1", to, "k", "0", "5000", "AUTH", "secret")).isEqualTo("+OK\r\n");
            assertThat(a.callString("EXISTS", "k")).isEqualTo(":0\r\n");
            try (RawClient b = new RawClient(dst.port())) {
                b.callString("AUTH", "secret");
                assertThat(b.callString("GET", "k")).isEqualTo("$1\r\nv\r\n");
            }
            int closed = RedisServerProcess.freePort();
            a.callString("SET", "k", "v");
            assertThat(a.callString("MIGRATE", "127.0.0.1", Integer.toString(closed), "k", "0", "500"))
                    .isEqualTo("-IOERR error or timeout writing to target instance\r\n");
            assertThat(a.callString("EXISTS", "k")).isEqualTo(":1\r\n");
        }
    }

    /** The AOF records a migrated key as deleted (Redis rewrites MIGRATE into DEL for propagation). */
    @Test
    void aMovedKeyIsDeletedInTheAof(@TempDir Path dir) throws Exception {
        try (SpinelServer src = spinel(dir, "appendonly", "yes", "appendfsync", "always");
             SpinelServer dst = SpinelServer.builder().randomPort().start();
             RawClient a = new RawClient(src.port())) {
            a.callString("SET", "k", "v");
            assertThat(a.callString("MIGRATE", "127.0.0.1", port(dst), "k", "0", "5000")).isEqualTo("+OK\r\n");
        }
        String aof = Files.readString(dir.resolve("appendonlydir/appendonly.aof.1.incr.aof"), StandardCharsets.ISO_8859_1);
        assertThat(aof).contains("*2\r\n$3\r\nDEL\r\n$1\r\nk\r\n").doesNotContain("MIGRATE");
    }

    /** Spinel's payloads restore in Redis, and Redis's MIGRATE restores in Spinel. */
    @Test
    void migratesToAndFromRedis() throws Exception {
        Assumptions.assumeTrue(RedisServerProcess.available(), "redis-server not installed");
        try (SpinelServer s = SpinelServer.builder().randomPort().start();
             RedisServerProcess r = RedisServerProcess.start();
             RawClient sc = new RawClient(s.port());
             RawClient rc = new RawClient(r.port())) {
            sc.callString("ZADD", "z", "1", "a", "2", "b");
            assertThat(sc.callString("MIGRATE", "127.0.0.1", Integer.toString(r.port()), "z", "0", "5000"))
                    .isEqualTo("+OK\r\n");
            assertThat(rc.callString("ZRANGE", "z", "0", "-1", "WITHSCORES"))
                    .isEqualTo("*4\r\n$1\r\na\r\n$1\r\n1\r\n$1\r\nb\r\n$1\r\n2\r\n");
            rc.callString("SADD", "s", "x", "y");
            assertThat(rc.callString("MIGRATE", "127.0.0.1", port(s), "s", "0", "5000")).isEqualTo("+OK\r\n");
            assertThat(sc.callString("SCARD", "s")).isEqualTo(":2\r\n");
        }
    }
}
