package io.spinel.server.persist;

import io.spinel.server.SpinelServer;
import io.spinel.server.testing.DataSet;
import io.spinel.server.testing.RawClient;
import io.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.TreeMap;

import static io.spinel.server.persist.PersistTesting.await;
import static io.spinel.server.persist.PersistTesting.spinel;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Multi-part AOF directories move between redis-server 7.0 and Spinel both ways, with an RDB or
 * a command base: a base written by a rewrite, then incremental commands (including every
 * command Redis propagates rewritten, transactions and a lazily expired key) must rebuild the
 * same data set on the other side. Spinel's directories must pass redis-check-aof.
 */
class AofInteropTest {
    @BeforeAll
    static void needRedis() {
        Assumptions.assumeTrue(RedisServerProcess.available(), "redis-server not installed: AOF interop tests skipped");
    }

    @ParameterizedTest
    @ValueSource(strings = {"yes", "no"})
    void redisAofLoadsInSpinel(String preamble, @TempDir Path tmp) throws Exception {
        Path rdir = Files.createDirectories(tmp.resolve("redis"));
        Path sdir = Files.createDirectories(tmp.resolve("spinel"));
        TreeMap<String, String> expected;
        RedisServerProcess r = RedisServerProcess.start(rdir, "--appendonly", "yes", "--aof-use-rdb-preamble", preamble,
                "--aof-timestamp-enabled", "yes");
        try (RawClient c = new RawClient(r.port())) {
            DataSet.populate(c, 5, 200);
            c.call("BGREWRITEAOF");
            await(c, "aof_rewrite_in_progress", "0");
            DataSet.mutate(c);
            expected = DataSet.read(c, 16, true);
        } finally {
            r.close();
        }
        PersistTesting.copyTree(rdir.resolve("appendonlydir"), sdir.resolve("appendonlydir"));
        try (SpinelServer s = spinel(sdir, "appendonly", "yes"); RawClient c = new RawClient(s.port())) {
            DataSet.assertSame(expected, DataSet.read(c, 16, true));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"yes", "no"})
    void spinelAofLoadsInRedis(String preamble, @TempDir Path tmp) throws Exception {
        Path sdir = Files.createDirectories(tmp.resolve("spinel"));
        Path rdir = Files.createDirectories(tmp.resolve("redis"));
        TreeMap<String, String> expected;
        try (SpinelServer s = spinel(sdir, "appendonly", "yes", "aof-use-rdb-preamble", preamble,
                "aof-timestamp-enabled", "yes"); RawClient c = new RawClient(s.port())) {
            DataSet.populate(c, 6, 200);
            assertThat(c.callString("BGREWRITEAOF")).isEqualTo("+Background append only file rewriting started\r\n");
            await(c, "aof_rewrite_in_progress", "0");
            assertThat(PersistTesting.info(c, "aof_last_bgrewrite_status")).isEqualTo("ok");
            DataSet.mutate(c);
            expected = DataSet.read(c, 16, true);
        }
        Path aofDir = sdir.resolve("appendonlydir");
        assertThat(Files.readString(aofDir.resolve("appendonly.aof.manifest"))).isEqualTo(
                "file appendonly.aof.2.base." + (preamble.equals("yes") ? "rdb" : "aof") + " seq 2 type b\n"
                + "file appendonly.aof.2.incr.aof seq 2 type i\n");
        if (PersistTesting.toolAvailable("redis-check-aof")) {
            PersistTesting.Result check = PersistTesting.run("/usr/bin/redis-check-aof",
                    aofDir.resolve("appendonly.aof.manifest").toString());
            assertThat(check.output()).contains("All AOF files and manifest are valid");
        }
        PersistTesting.copyTree(aofDir, rdir.resolve("appendonlydir"));
        RedisServerProcess r = RedisServerProcess.start(rdir, "--appendonly", "yes");
        try (RawClient c = new RawClient(r.port())) {
            DataSet.assertSame(expected, DataSet.read(c, 16, true));
        } finally {
            r.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"yes", "no"})
    void spinelReloadsItsOwnAofAcrossRewrites(String preamble, @TempDir Path dir) throws Exception {
        TreeMap<String, String> expected;
        try (SpinelServer s = spinel(dir, "appendonly", "yes", "aof-use-rdb-preamble", preamble);
             RawClient c = new RawClient(s.port())) {
            DataSet.populate(c, 7, 100);
            DataSet.mutate(c);
            c.call("BGREWRITEAOF");
            await(c, "aof_rewrite_in_progress", "0");
            c.call("SET", "after-rewrite", "1");
            c.call("BGREWRITEAOF");
            await(c, "aof_rewrite_in_progress", "0");
            c.call("SET", "after-second-rewrite", "2");
            expected = DataSet.read(c, 16, true);
        }
        assertThat(Files.readString(dir.resolve("appendonlydir/appendonly.aof.manifest")))
                .contains("appendonly.aof.3.base").contains("appendonly.aof.3.incr.aof").doesNotContain("type h");
        try (SpinelServer s = spinel(dir, "appendonly", "yes"); RawClient c = new RawClient(s.port())) {
            DataSet.assertSame(expected, DataSet.read(c, 16, true));
        }
    }
}
