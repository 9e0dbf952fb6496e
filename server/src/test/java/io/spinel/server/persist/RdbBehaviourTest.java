package io.spinel.server.persist;

import io.spinel.server.SpinelServer;
import io.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static io.spinel.server.persist.PersistTesting.await;
import static io.spinel.server.persist.PersistTesting.info;
import static io.spinel.server.persist.PersistTesting.spinel;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Saving and loading RDB files, the cases of Redis's integration/rdb tests and the commands and
 * options around them: start-up with a missing, empty, corrupt or unreadable file, FLUSHALL
 * aborting BGSAVE, the change counter, load statistics, -MISCONF after a failed BGSAVE,
 * conflicts between background jobs, shutdown saving.
 */
class RdbBehaviourTest {
    @Test
    void startupWithMissingEmptyCorruptOrUnreadableFiles(@TempDir Path dir) throws Exception {
        try (SpinelServer s = spinel(dir); RawClient c = new RawClient(s.port())) {
            assertThat(c.callString("DBSIZE")).isEqualTo(":0\r\n");
            assertThat(c.callString("SAVE")).isEqualTo("+OK\r\n");
        }
        try (SpinelServer s = spinel(dir); RawClient c = new RawClient(s.port())) {
            assertThat(c.callString("DBSIZE")).isEqualTo(":0\r\n");
            c.call("SET", "k", "v");
            c.call("SAVE");
        }
        Path rdb = dir.resolve("dump.rdb");
        byte[] good = Files.readAllBytes(rdb);
        byte[] bad = good.clone();
        System.arraycopy("foobar00".getBytes(), 0, bad, bad.length - 8, 8);
        Files.write(rdb, bad);
        assertThatThrownBy(() -> spinel(dir)).hasMessageContaining("RDB CRC error");
        // with rdbchecksum no the stored checksum is not verified
        try (SpinelServer s = spinel(dir, "rdbchecksum", "no"); RawClient c = new RawClient(s.port())) {
            assertThat(c.callString("GET", "k")).isEqualTo("$1\r\nv\r\n");
        }
        byte[] truncated = java.util.Arrays.copyOf(good, good.length - 20);
        Files.write(rdb, truncated);
        assertThatThrownBy(() -> spinel(dir)).hasMessageContaining("Unexpected EOF reading RDB file");
        // with save points too, the failed start saves nothing over the file it could not load
        assertThatThrownBy(() -> spinel(dir, "save", "3600 1")).hasMessageContaining("Unexpected EOF reading RDB file");
        assertThat(Files.readAllBytes(rdb)).isEqualTo(truncated);
        Files.write(rdb, "NOTREDIS0010".getBytes());
        assertThatThrownBy(() -> spinel(dir)).hasMessageContaining("Wrong signature trying to load DB from file");
        Files.delete(rdb);
        Files.createDirectory(rdb);
        assertThatThrownBy(() -> spinel(dir)).hasMessageContaining("Fatal error loading the DB");
    }

    /** Files of 4 MB and more are decoded on a second thread: same data, same errors. */
    @Test
    void bigFilesLoadTheSameAndFailTheSame(@TempDir Path dir) throws Exception {
        try (SpinelServer s = spinel(dir); RawClient c = new RawClient(s.port())) {
            c.call("EVAL", "for i = 1, 200000 do redis.call('set', 'key:' .. i, string.rep('v', 30) .. i) end", "0");
            c.call("HSET", "h", "f", "v");
            c.call("RPUSH", "l", "a", "b");
            c.call("SET", "e", "x", "EX", "1000");
            c.call("SELECT", "3");
            c.call("SADD", "s", "m");
            assertThat(c.callString("SAVE")).isEqualTo("+OK\r\n");
        }
        Path rdb = dir.resolve("dump.rdb");
        assertThat(Files.size(rdb)).isGreaterThan(4L << 20);
        try (SpinelServer s = spinel(dir); RawClient c = new RawClient(s.port())) {
            assertThat(c.callString("DBSIZE")).isEqualTo(":200003\r\n");
            assertThat(c.callString("GET", "key:199999")).isEqualTo("$36\r\n" + "v".repeat(30) + "199999\r\n");
            assertThat(c.callString("HGET", "h", "f")).isEqualTo("$1\r\nv\r\n");
            assertThat(c.callString("LRANGE", "l", "0", "-1")).isEqualTo("*2\r\n$1\r\na\r\n$1\r\nb\r\n");
            assertThat(Long.parseLong(c.callString("TTL", "e").trim().substring(1))).isBetween(900L, 1000L);
            c.call("SELECT", "3");
            assertThat(c.callString("SISMEMBER", "s", "m")).isEqualTo(":1\r\n");
            assertThat(info(c, "rdb_last_load_keys_loaded")).isEqualTo("200004");
        }
        byte[] good = Files.readAllBytes(rdb);
        byte[] bad = good.clone();
        bad[bad.length - 3] ^= 1;
        Files.write(rdb, bad);
        assertThatThrownBy(() -> spinel(dir)).hasMessageContaining("RDB CRC error");
        Files.write(rdb, java.util.Arrays.copyOf(good, good.length - 1000));
        assertThatThrownBy(() -> spinel(dir)).hasMessageContaining("Unexpected EOF reading RDB file");
    }

    @Test
    void flushallAbortsBgsaveAndBgsaveResetsTheCounter(@TempDir Path dir) throws Exception {
        try (SpinelServer s = spinel(dir, "rdb-key-save-delay", "2000"); RawClient c = new RawClient(s.port())) {
            for (int i = 0; i < 1000; i++) c.call("SET", "key:" + i, "v");
            assertThat(Long.parseLong(info(c, "rdb_changes_since_last_save"))).isGreaterThan(999);
            assertThat(c.callString("BGSAVE")).isEqualTo("+Background saving started\r\n");
            assertThat(info(c, "rdb_bgsave_in_progress")).isEqualTo("1");
            c.call("FLUSHALL");
            assertThat(info(c, "rdb_bgsave_in_progress")).isEqualTo("0");
            assertThat(Long.parseLong(info(c, "rdb_changes_since_last_save"))).isGreaterThan(999);
            assertThat(Files.exists(dir.resolve("dump.rdb"))).isFalse();
            assertThat(c.callString("SET", "x", "xx")).isEqualTo("+OK\r\n");
            c.call("CONFIG", "SET", "rdb-key-save-delay", "0");
            long lastSave = Long.parseLong(info(c, "rdb_last_save_time"));
            c.call("BGSAVE");
            await(c, "rdb_bgsave_in_progress", "0");
            assertThat(info(c, "rdb_changes_since_last_save")).isEqualTo("0");
            assertThat(Long.parseLong(info(c, "rdb_last_save_time"))).isGreaterThanOrEqualTo(lastSave);
            assertThat(c.callString("LASTSAVE")).isEqualTo(":" + info(c, "rdb_last_save_time") + "\r\n");
            assertThat(info(c, "rdb_saves")).isEqualTo("2");
            // each background snapshot counts where Redis forks, the aborted one too
            assertThat(info(c, "total_forks")).isEqualTo("2");
            assertThat(Long.parseLong(info(c, "latest_fork_usec"))).isPositive();
            c.call("CONFIG", "RESETSTAT");
            assertThat(info(c, "total_forks")).isEqualTo("0");
            assertThat(info(c, "latest_fork_usec")).isEqualTo("0");
            assertThat(info(c, "rdb_saves")).isEqualTo("0");
            assertThat(c.callString("BGREWRITEAOF")).isEqualTo("+Background append only file rewriting started\r\n");
            await(c, "aof_rewrite_in_progress", "0");
            assertThat(info(c, "total_forks")).isEqualTo("1");
            assertThat(info(c, "aof_rewrites")).isEqualTo("1");
        }
    }

    @Test
    void appendonlyTurnedOnInsideATransactionRewritesAfterIt(@TempDir Path dir) throws Exception {
        java.io.ByteArrayOutputStream log = new java.io.ByteArrayOutputStream();
        try (SpinelServer s = PersistTesting.spinelLogging(log, dir); RawClient c = new RawClient(s.port())) {
            c.call("MULTI");
            c.call("INCR", "n");
            c.call("CONFIG", "SET", "appendonly", "yes");
            c.call("INCR", "n");
            assertThat(c.callString("EXEC")).isEqualTo("*3\r\n:1\r\n+OK\r\n:2\r\n");
            assertThat(log.toString()).contains("AOF was enabled during a transaction. An AOF background was scheduled");
            await(c, "aof_rewrites", "1");
            await(c, "aof_rewrite_in_progress", "0");
            c.call("INCR", "n");
        }
        // a base taken inside the transaction plus the transaction logged again would give 4 or 5
        try (SpinelServer s = spinel(dir, "appendonly", "yes"); RawClient c = new RawClient(s.port())) {
            assertThat(c.callString("GET", "n")).isEqualTo("$1\r\n3\r\n");
        }
    }

    /**
     * Rewrites that keep failing (here: the temporary file's name is taken by a directory) are
     * limited after three in a row, as in Redis: automatic ones wait a minute instead of opening
     * an INCR file at every cron; BGREWRITEAOF is not limited.
     */
    @Test
    void automaticRewritesThatKeepFailingAreLimited(@TempDir Path dir) throws Exception {
        java.io.ByteArrayOutputStream log = new java.io.ByteArrayOutputStream();
        long pid = ProcessHandle.current().pid();
        for (int seq = 1; seq <= 200; seq++) Files.createDirectories(dir.resolve("temp-rewriteaof-bg-" + pid + "-" + seq + ".aof"));
        try (SpinelServer s = PersistTesting.spinelLogging(log, dir, "appendonly", "yes", "auto-aof-rewrite-percentage", "1",
                "auto-aof-rewrite-min-size", "1kb"); RawClient c = new RawClient(s.port())) {
            c.call("SET", "x", "x".repeat(2048));
            await(c, "aof_rewrites_consecutive_failures", "3");
            Thread.sleep(1000); // ten crons
            assertThat(info(c, "aof_rewrites_consecutive_failures")).as(log.toString()).isEqualTo("3");
            assertThat(log.toString().split("triggered the limit, will retry in 1 minutes", -1)).hasSize(2);
            try (var files = Files.list(dir)) {
                for (Path p : files.filter(p -> p.getFileName().toString().startsWith("temp-")).toList()) Files.delete(p);
            }
            assertThat(c.callString("BGREWRITEAOF")).isEqualTo("+Background append only file rewriting started\r\n");
            await(c, "aof_rewrites_consecutive_failures", "0");
            assertThat(info(c, "aof_last_bgrewrite_status")).isEqualTo("ok");
        }
    }

    @Test
    void flushallWithSavePointsSavesTheEmptyDataSet(@TempDir Path dir) throws Exception {
        try (SpinelServer s = spinel(dir, "save", "3600 1"); RawClient c = new RawClient(s.port())) {
            c.call("SET", "a", "1");
            c.call("SAVE");
            c.call("FLUSHALL");
            assertThat(info(c, "rdb_changes_since_last_save")).isEqualTo("0");
        }
        try (SpinelServer s = spinel(dir, "save", ""); RawClient c = new RawClient(s.port())) {
            assertThat(c.callString("DBSIZE")).isEqualTo(":0\r\n");
        }
    }

    /** DEBUG RELOAD and its options, as integration/rdb and unit/functions use them. */
    @Test
    void debugReloadSavesEmptiesAndLoadsBack(@TempDir Path dir) throws Exception {
        try (SpinelServer s = spinel(dir, "enable-debug-command", "yes", "save", "");
             RawClient c = new RawClient(s.port())) {
            c.call("SET", "s", "v");
            c.call("SET", "t", "1", "EX", "1000");
            c.call("HSET", "h", "f", "v");
            c.call("ZADD", "z", "1.5", "m");
            c.call("SELECT", "3");
            c.call("RPUSH", "l", "a", "b");
            c.call("FUNCTION", "LOAD", "#!lua name=lib\nredis.register_function('f', function() return 'hi' end)");
            assertThat(c.callString("DEBUG", "RELOAD")).isEqualTo("+OK\r\n");
            assertThat(Files.exists(dir.resolve("dump.rdb"))).isTrue();
            assertThat(c.callString("LRANGE", "l", "0", "-1")).isEqualTo("*2\r\n$1\r\na\r\n$1\r\nb\r\n");
            assertThat(c.callString("FCALL", "f", "0")).isEqualTo("$2\r\nhi\r\n");
            assertThat(info(c, "rdb_last_load_keys_loaded")).isEqualTo("5");
            c.call("SELECT", "0");
            assertThat(c.callString("DBSIZE")).isEqualTo(":4\r\n");
            assertThat(c.callString("HGET", "h", "f")).isEqualTo("$1\r\nv\r\n");
            assertThat(c.callString("ZSCORE", "z", "m")).isEqualTo("$3\r\n1.5\r\n");
            assertThat(Long.parseLong(c.callString("TTL", "t").trim().substring(1))).isBetween(900L, 1000L);

            // NOSAVE: the file as it is on disk, so what changed since is undone
            c.call("SET", "s", "changed");
            c.call("SET", "new", "x");
            assertThat(c.callString("DEBUG", "RELOAD", "NOSAVE")).isEqualTo("+OK\r\n");
            assertThat(c.callString("GET", "s")).isEqualTo("$1\r\nv\r\n");
            assertThat(c.callString("EXISTS", "new")).isEqualTo(":0\r\n");

            // NOFLUSH without MERGE: the library saved in the file is already loaded (it comes
            // before the keys, so nothing else was loaded either)
            c.call("SET", "s", "changed");
            assertThat(c.callString("DEBUG", "RELOAD", "NOSAVE", "NOFLUSH"))
                    .isEqualTo("-ERR Error trying to load the RDB dump\r\n");
            assertThat(c.callString("GET", "s")).isEqualTo("$7\r\nchanged\r\n");
            // with MERGE, loaded keys and libraries replace those of the same name, the others stay
            c.call("SET", "new", "x");
            assertThat(c.callString("DEBUG", "RELOAD", "NOSAVE", "NOFLUSH", "MERGE")).isEqualTo("+OK\r\n");
            assertThat(c.callString("GET", "s")).isEqualTo("$1\r\nv\r\n");
            assertThat(c.callString("GET", "new")).isEqualTo("$1\r\nx\r\n");
            assertThat(c.callString("FCALL", "f", "0")).isEqualTo("$2\r\nhi\r\n");

            assertThat(c.callString("DEBUG", "RELOAD", "FAST"))
                    .isEqualTo("-ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.\r\n");
            // a file that cannot be loaded: an error, and the server goes on
            Files.write(dir.resolve("dump.rdb"), "NOTREDIS0010".getBytes());
            assertThat(c.callString("DEBUG", "RELOAD", "NOSAVE", "NOFLUSH", "MERGE"))
                    .isEqualTo("-ERR Error trying to load the RDB dump\r\n");
            assertThat(c.callString("GET", "new")).isEqualTo("$1\r\nx\r\n");
            assertThat(c.callString("DEBUG", "RELOAD")).isEqualTo("+OK\r\n");
            assertThat(c.callString("GET", "new")).isEqualTo("$1\r\nx\r\n");
        }
    }

    @Test
    void loadStatisticsCountLoadedAndExpiredKeys(@TempDir Path dir) throws Exception {
        try (SpinelServer s = spinel(dir, "enable-debug-command", "yes"); RawClient c = new RawClient(s.port())) {
            for (int i = 0; i < 1000; i++) c.call("SET", "key:" + i, "v");
            c.call("SAVE");
        }
        try (SpinelServer s = spinel(dir, "enable-debug-command", "yes"); RawClient c = new RawClient(s.port())) {
            assertThat(info(c, "rdb_last_load_keys_expired")).isEqualTo("0");
            assertThat(info(c, "rdb_last_load_keys_loaded")).isEqualTo("1000");
            c.call("DEBUG", "SET-ACTIVE-EXPIRE", "0");
            for (int j = 0; j < 1024; j++) {
                c.call("SELECT", Integer.toString(j % 16));
                c.call("SET", Integer.toString(j), "somevalue", "PX", "10");
            }
            Thread.sleep(20);
            c.call("SAVE");
        }
        try (SpinelServer s = spinel(dir); RawClient c = new RawClient(s.port())) {
            assertThat(info(c, "rdb_last_load_keys_expired")).isEqualTo("1024");
            assertThat(info(c, "rdb_last_load_keys_loaded")).isEqualTo("1000");
        }
    }

    @Test
    void failedBgsavePreventsWritesUntilOneSucceeds(@TempDir Path dir) throws Exception {
        // a directory where the file should go makes the final rename fail
        Files.createDirectories(dir.resolve("blocked.rdb/inside"));
        try (SpinelServer s = spinel(dir, "save", "3600 1", "enable-protected-configs", "yes");
             RawClient c = new RawClient(s.port())) {
            c.call("CONFIG", "SET", "dbfilename", "blocked.rdb");
            c.call("SET", "x", "x");
            assertThat(c.callString("BGSAVE")).isEqualTo("+Background saving started\r\n");
            await(c, "rdb_bgsave_in_progress", "0");
            assertThat(info(c, "rdb_last_bgsave_status")).isEqualTo("err");
            assertThat(c.callString("GET", "x")).isEqualTo("$1\r\nx\r\n");
            assertThat(c.callString("SET", "x", "y")).startsWith("-MISCONF Redis is configured to save RDB snapshots");
            assertThat(c.callString("PING")).startsWith("-MISCONF");
            assertThat(c.callString("MULTI")).isEqualTo("+OK\r\n");
            assertThat(c.callString("SET", "x", "y")).startsWith("-MISCONF");
            assertThat(c.callString("EXEC")).startsWith("-EXECABORT");
            c.call("CONFIG", "SET", "stop-writes-on-bgsave-error", "no");
            assertThat(c.callString("SET", "x", "z")).isEqualTo("+OK\r\n");
            c.call("CONFIG", "SET", "stop-writes-on-bgsave-error", "yes");
            assertThat(c.callString("SAVE")).isEqualTo("-ERR\r\n");
            c.call("CONFIG", "SET", "dbfilename", "dump.rdb");
            c.call("BGSAVE");
            await(c, "rdb_bgsave_in_progress", "0");
            assertThat(info(c, "rdb_last_bgsave_status")).isEqualTo("ok");
            assertThat(c.callString("SET", "x", "y")).isEqualTo("+OK\r\n");
        }
    }

    @Test
    void backgroundJobsExcludeEachOther(@TempDir Path dir) throws Exception {
        java.io.ByteArrayOutputStream log = new java.io.ByteArrayOutputStream();
        try (SpinelServer s = PersistTesting.spinelLogging(log, dir, "rdb-key-save-delay", "100000"); RawClient c = new RawClient(s.port())) {
            for (int i = 0; i < 20; i++) c.call("SET", "k" + i, "v");
            assertThat(c.callString("BGREWRITEAOF")).isEqualTo("+Background append only file rewriting started\r\n");
            assertThat(c.callString("BGREWRITEAOF")).isEqualTo("-ERR Background append only file rewriting already in progress\r\n");
            assertThat(c.callString("BGSAVE")).isEqualTo("-ERR Another child process is active (AOF?): can't BGSAVE right now. "
                    + "Use BGSAVE SCHEDULE in order to schedule a BGSAVE whenever possible.\r\n");
            assertThat(c.callString("BGSAVE", "SCHEDULE")).isEqualTo("+Background saving scheduled\r\n");
            assertThat(c.callString("BGSAVE", "NOW")).isEqualTo("-ERR syntax error\r\n");
            assertThat(info(c, "aof_rewrite_in_progress")).as(log.toString()).isEqualTo("1");
            c.call("CONFIG", "SET", "rdb-key-save-delay", "0");
            await(c, "aof_rewrite_in_progress", "0");
            await(c, "rdb_saves", "1"); // the scheduled BGSAVE starts once the rewrite is done
            await(c, "rdb_bgsave_in_progress", "0");
            assertThat(c.callString("MULTI")).isEqualTo("+OK\r\n");
            c.call("BGSAVE");
            assertThat(c.callString("EXEC")).isEqualTo("*1\r\n+Background saving scheduled\r\n");
        }
        assertThat(Files.exists(dir.resolve("dump.rdb"))).isTrue();
        assertThat(Files.exists(dir.resolve("appendonlydir/appendonly.aof.manifest"))).isTrue();
    }

    @Test
    void shutdownSavesWithSavePointsOrWhenAsked(@TempDir Path dir) throws Exception {
        Files.createDirectories(dir.resolve("dir-instead.rdb/x"));
        java.io.ByteArrayOutputStream log = new java.io.ByteArrayOutputStream();
        SpinelServer s = PersistTesting.spinelLogging(log, dir, "save", "3600 1", "enable-protected-configs", "yes");
        try (RawClient c = new RawClient(s.port())) {
            c.call("SET", "k", "v");
            c.call("CONFIG", "SET", "dbfilename", "dir-instead.rdb");
            assertThat(c.callString("SHUTDOWN")).as(log.toString()).isEqualTo("-ERR Errors trying to SHUTDOWN. Check logs.\r\n");
            assertThat(c.callString("PING")).isEqualTo("+PONG\r\n");
            c.call("CONFIG", "SET", "dbfilename", "dump.rdb");
            c.send(java.util.List.of("SHUTDOWN".getBytes()));
            assertThat(c.isClosedByPeer()).isTrue();
        } finally {
            s.close();
        }
        try (SpinelServer t = spinel(dir); RawClient c = new RawClient(t.port())) {
            assertThat(c.callString("GET", "k")).isEqualTo("$1\r\nv\r\n");
            c.call("SET", "k", "w");
            c.send(java.util.List.of("SHUTDOWN".getBytes(), "NOSAVE".getBytes()));
            assertThat(c.isClosedByPeer()).isTrue();
        }
        try (SpinelServer t = spinel(dir, "save", "3600 1"); RawClient c = new RawClient(t.port())) {
            assertThat(c.callString("GET", "k")).isEqualTo("$1\r\nv\r\n");
            c.call("SET", "k", "w");
            c.send(java.util.List.of("SHUTDOWN".getBytes(), "NOSAVE".getBytes()));
            assertThat(c.isClosedByPeer()).isTrue();
        }
        try (SpinelServer t = spinel(dir); RawClient c = new RawClient(t.port())) {
            assertThat(c.callString("GET", "k")).isEqualTo("$1\r\nv\r\n");
            c.call("SET", "k", "saved");
            c.send(java.util.List.of("SHUTDOWN".getBytes(), "SAVE".getBytes()));
            assertThat(c.isClosedByPeer()).isTrue();
        }
        try (SpinelServer t = spinel(dir); RawClient c = new RawClient(t.port())) {
            assertThat(c.callString("GET", "k")).isEqualTo("$5\r\nsaved\r\n");
        }
    }

    @Test
    void savePointsTriggerABackgroundSave(@TempDir Path dir) throws Exception {
        try (SpinelServer s = spinel(dir, "save", "1 3"); RawClient c = new RawClient(s.port())) {
            c.call("SET", "a", "1");
            c.call("SET", "b", "1");
            c.call("SET", "c", "1");
            long deadline = System.currentTimeMillis() + 10_000;
            while (!Files.exists(dir.resolve("dump.rdb")) && System.currentTimeMillis() < deadline) Thread.sleep(50);
            assertThat(Files.exists(dir.resolve("dump.rdb"))).isTrue();
            await(c, "rdb_changes_since_last_save", "0");
            assertThat(c.callString("CONFIG", "GET", "save")).isEqualTo("*2\r\n$4\r\nsave\r\n$3\r\n1 3\r\n");
        }
    }
}
