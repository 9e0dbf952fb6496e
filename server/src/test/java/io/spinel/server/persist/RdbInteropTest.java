package io.spinel.server.persist;

import io.spinel.server.SpinelServer;
import io.spinel.server.testing.DataSet;
import io.spinel.server.testing.DualRun;
import io.spinel.server.testing.RawClient;
import io.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static io.spinel.server.persist.PersistTesting.await;
import static io.spinel.server.persist.PersistTesting.spinel;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * RDB files and DUMP payloads move between redis-server 7.0 and Spinel in both directions: the
 * data set of {@link DataSet} (every type and encoding, expires, several databases) is written
 * by one and loaded by the other, and every key must come back with the same type, encoding,
 * absolute expire and value. Files Spinel writes must also pass redis-check-rdb.
 */
class RdbInteropTest {
    @BeforeAll
    static void needRedis() {
        Assumptions.assumeTrue(RedisServerProcess.available(), "redis-server not installed: RDB interop tests skipped");
    }

    @Test
    void redisRdbLoadsInSpinel(@TempDir Path tmp) throws Exception {
        Path rdir = Files.createDirectories(tmp.resolve("redis"));
        Path sdir = Files.createDirectories(tmp.resolve("spinel"));
        TreeMap<String, String> expected;
        try (RedisServerProcess r = RedisServerProcess.start(rdir); RawClient c = new RawClient(r.port())) {
            DataSet.populate(c, 1, 500);
            expected = DataSet.read(c, 16, true);
            assertThat(c.callString("SAVE")).isEqualTo("+OK\r\n");
        }
        Files.copy(rdir.resolve("dump.rdb"), sdir.resolve("dump.rdb"));
        try (SpinelServer s = spinel(sdir); RawClient c = new RawClient(s.port())) {
            DataSet.assertSame(expected, DataSet.read(c, 16, true));
            assertThat(PersistTesting.info(c, "rdb_last_load_keys_loaded")).isEqualTo(Integer.toString(expected.size()));
        }
    }

    @Test
    void spinelRdbLoadsInRedis(@TempDir Path tmp) throws Exception {
        Path sdir = Files.createDirectories(tmp.resolve("spinel"));
        Path rdir = Files.createDirectories(tmp.resolve("redis"));
        TreeMap<String, String> expected;
        try (SpinelServer s = spinel(sdir); RawClient c = new RawClient(s.port())) {
            DataSet.populate(c, 2, 500);
            expected = DataSet.read(c, 16, true);
            assertThat(c.callString("SAVE")).isEqualTo("+OK\r\n");
        }
        if (PersistTesting.toolAvailable("redis-check-rdb")) {
            PersistTesting.Result check = PersistTesting.run("/usr/bin/redis-check-rdb", sdir.resolve("dump.rdb").toString());
            assertThat(check.output()).contains("RDB looks OK");
            assertThat(check.exit()).isZero();
        }
        Files.copy(sdir.resolve("dump.rdb"), rdir.resolve("dump.rdb"));
        try (RedisServerProcess r = RedisServerProcess.start(rdir); RawClient c = new RawClient(r.port())) {
            DataSet.assertSame(expected, DataSet.read(c, 16, true));
        }
    }

    @Test
    void backgroundSaveWithoutCompressionOrChecksumLoadsInRedis(@TempDir Path tmp) throws Exception {
        Path sdir = Files.createDirectories(tmp.resolve("spinel"));
        Path rdir = Files.createDirectories(tmp.resolve("redis"));
        TreeMap<String, String> expected;
        try (SpinelServer s = spinel(sdir, "rdbcompression", "no", "rdbchecksum", "no", "dbfilename", "other.rdb");
             RawClient c = new RawClient(s.port())) {
            DataSet.populate(c, 3, 100);
            expected = DataSet.read(c, 16, true);
            assertThat(c.callString("BGSAVE")).isEqualTo("+Background saving started\r\n");
            await(c, "rdb_bgsave_in_progress", "0");
            assertThat(PersistTesting.info(c, "rdb_last_bgsave_status")).isEqualTo("ok");
            assertThat(PersistTesting.info(c, "rdb_changes_since_last_save")).isEqualTo("0");
        }
        Files.copy(sdir.resolve("other.rdb"), rdir.resolve("dump.rdb"));
        try (RedisServerProcess r = RedisServerProcess.start(rdir); RawClient c = new RawClient(r.port())) {
            DataSet.assertSame(expected, DataSet.read(c, 16, true));
        }
    }

    @Test
    void lfuAndLruHintsTravelBothWays(@TempDir Path tmp) throws Exception {
        for (String policy : new String[] {"allkeys-lfu", "allkeys-lru"}) {
            boolean lfu = policy.endsWith("lfu");
            String option = lfu ? "FREQ" : "IDLETIME";
            String query = lfu ? "FREQ" : "IDLETIME";
            Path sdir = Files.createDirectories(tmp.resolve(policy + "-spinel"));
            Path rdir = Files.createDirectories(tmp.resolve(policy + "-redis"));
            byte[] payload;
            try (RedisServerProcess r = RedisServerProcess.start(rdir, "--maxmemory-policy", policy);
                 RawClient c = new RawClient(r.port())) {
                c.call("SET", "v", "x");
                payload = bulk(c.call("DUMP", "v"));
                c.call(List.of("RESTORE".getBytes(), "from-redis".getBytes(), "0".getBytes(), payload,
                        option.getBytes(), "200".getBytes()));
                c.call("SAVE");
            }
            Files.copy(rdir.resolve("dump.rdb"), sdir.resolve("dump.rdb"));
            try (SpinelServer s = spinel(sdir, "maxmemory-policy", policy); RawClient c = new RawClient(s.port())) {
                long v = Long.parseLong(c.callString("OBJECT", query, "from-redis").trim().substring(1));
                if (lfu) assertThat(v).isEqualTo(200);
                else assertThat(v).isBetween(199L, 205L);
                c.call(List.of("RESTORE".getBytes(), "from-spinel".getBytes(), "0".getBytes(), payload,
                        option.getBytes(), "150".getBytes()));
                c.call("SAVE");
            }
            Files.copy(sdir.resolve("dump.rdb"), rdir.resolve("dump.rdb"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            try (RedisServerProcess r = RedisServerProcess.start(rdir, "--maxmemory-policy", policy);
                 RawClient c = new RawClient(r.port())) {
                long v = Long.parseLong(c.callString("OBJECT", query, "from-spinel").trim().substring(1));
                if (lfu) assertThat(v).isEqualTo(150);
                else assertThat(v).isBetween(149L, 155L);
            }
        }
    }

    @Test
    void dumpPayloadsRestoreOnTheOtherSide(@TempDir Path tmp) throws Exception {
        try (RedisServerProcess r = RedisServerProcess.start(Files.createDirectories(tmp.resolve("redis")));
             SpinelServer s = spinel(Files.createDirectories(tmp.resolve("spinel")));
             RawClient rc = new RawClient(r.port()); RawClient sc = new RawClient(s.port())) {
            DataSet.populate(rc, 4, 10);
            DataSet.populate(sc, 4, 10);
            for (int db : new int[] {0, 1, 5}) {
                rc.call("SELECT", Integer.toString(db));
                sc.call("SELECT", Integer.toString(db));
                List<Object> keys = DualRun.list(rc.call("KEYS", "*"));
                for (Object k : keys) {
                    byte[] key = ((String) k).getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
                    byte[] fromRedis = bulk(rc.call(List.of("DUMP".getBytes(), key)));
                    byte[] fromSpinel = bulk(sc.call(List.of("DUMP".getBytes(), key)));
                    byte[] copy = ("copy:" + k).getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
                    assertThat(new String(sc.call(List.of("RESTORE".getBytes(), copy, "0".getBytes(), fromRedis)))).as("%s", k)
                            .isEqualTo("+OK\r\n");
                    assertThat(new String(rc.call(List.of("RESTORE".getBytes(), copy, "0".getBytes(), fromSpinel)))).as("%s", k)
                            .isEqualTo("+OK\r\n");
                }
            }
            // every restored copy equals its original on both sides
            for (RawClient c : new RawClient[] {rc, sc}) {
                Map<String, String> all = DataSet.read(c, 6, false);
                List<String> mismatches = new ArrayList<>();
                for (Map.Entry<String, String> e : all.entrySet()) {
                    String name = e.getKey();
                    if (!name.contains("/copy:")) continue;
                    String original = all.get(name.replace("/copy:", "/"));
                    // a restored copy has no expire
                    String strip = e.getValue().replaceFirst(" -?\\d+ ", " ");
                    if (!strip.equals(original.replaceFirst(" -?\\d+ ", " "))) mismatches.add(name);
                }
                assertThat(mismatches).isEmpty();
            }
        }
    }

    /** The contents of a bulk reply. */
    static byte[] bulk(byte[] reply) {
        int i = 0;
        while (reply[i] != '\r') i++;
        int n = Integer.parseInt(new String(reply, 1, i - 1));
        return java.util.Arrays.copyOfRange(reply, i + 2, i + 2 + n);
    }
}
