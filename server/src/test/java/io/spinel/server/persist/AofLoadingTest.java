package io.spinel.server.persist;

import io.spinel.server.SpinelServer;
import io.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static io.spinel.server.persist.PersistTesting.await;
import static io.spinel.server.persist.PersistTesting.info;
import static io.spinel.server.persist.PersistTesting.resp;
import static io.spinel.server.persist.PersistTesting.spinel;
import static io.spinel.server.persist.PersistTesting.spinelLogging;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Loading AOF directories, the cases of Redis's integration/aof and integration/aof-multi-part
 * tests: torn and truncated files, unfinished transactions, bad formats, unknown commands,
 * every kind of broken manifest, empty and missing files, upgrade from a single old-style AOF,
 * file names with blanks, timestamp annotations, base creation on first start, switching
 * appendonly at run time.
 */
class AofLoadingTest {
    private static final String MANIFEST = "file appendonly.aof.1.base.aof seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n";

    private static Path aofDir(Path dir, String manifest, String base, String incr) throws Exception {
        Path d = Files.createDirectories(dir.resolve("appendonlydir"));
        Files.writeString(d.resolve("appendonly.aof.manifest"), manifest);
        if (base != null) Files.writeString(d.resolve("appendonly.aof.1.base.aof"), base, StandardCharsets.ISO_8859_1);
        if (incr != null) Files.writeString(d.resolve("appendonly.aof.1.incr.aof"), incr, StandardCharsets.ISO_8859_1);
        return d;
    }

    private static String get(RawClient c, String key) throws Exception {
        return c.callString("GET", key);
    }

    /**
     * An EVAL in the AOF (script replication, as AOFs of older Redis versions hold it) that runs
     * longer than busy-reply-threshold runs to its end before the next command is replayed: a
     * script suspended to serve clients, as one is at run time, would let the commands after it
     * in the file run first.
     */
    @Test
    void aSlowScriptInTheAofFinishesBeforeTheNextCommand(@TempDir Path dir) throws Exception {
        String slow = "local t = redis.call('TIME') local s = t[1] * 1000000 + t[2] "
                + "repeat local n = redis.call('TIME') until n[1] * 1000000 + n[2] - s > 300000 "
                + "redis.call('SET', 'k', 'script') return 1";
        aofDir(dir, MANIFEST, "", resp("SELECT", "0") + resp("EVAL", slow, "0") + resp("SET", "k", "after"));
        try (SpinelServer s = spinel(dir, "appendonly", "yes", "busy-reply-threshold", "50");
             RawClient c = new RawClient(s.port())) {
            assertThat(get(c, "k")).isEqualTo("$5\r\nafter\r\n");
        }
    }

    /**
     * Redis's "AOF fsync always barrier" test: with DEBUG AOF-FLUSH-SLEEP stretching the time
     * before each write of the AOF, a write's reply still comes only after it is in the file.
     */
    @Test
    void aReplyNeverLeavesBeforeItsWriteIsInTheAof(@TempDir Path dir) throws Exception {
        try (SpinelServer s = spinel(dir, "appendonly", "yes", "appendfsync", "always", "enable-debug-command", "yes");
             RawClient c = new RawClient(s.port())) {
            assertThat(c.callString("DEBUG", "AOF-FLUSH-SLEEP", "200000")).isEqualTo("+OK\r\n");
            Path incr = dir.resolve("appendonlydir").resolve("appendonly.aof.1.incr.aof");
            for (int i = 1; i <= 3; i++) {
                long before = Files.size(incr);
                long t0 = System.nanoTime();
                assertThat(c.callString("INCR", "counter")).isEqualTo(":" + i + "\r\n");
                assertThat(Files.size(incr)).isGreaterThan(before);
                assertThat(System.nanoTime() - t0).as("the write slept first").isGreaterThanOrEqualTo(150_000_000L);
            }
            // a read writes nothing, so nothing sleeps
            assertThat(c.callString("DEBUG", "AOF-FLUSH-SLEEP", "0")).isEqualTo("+OK\r\n");
            assertThat(c.callString("DEBUG", "AOF-FLUSH-SLEEP")).startsWith("-ERR unknown subcommand");
        }
    }

    /** DEBUG LOADAOF replays the AOF into memory only: the files do not grow by what it replays. */
    @Test
    void debugLoadAofReplaysTheFilesIntoMemory(@TempDir Path dir) throws Exception {
        try (SpinelServer s = spinel(dir, "appendonly", "yes", "appendfsync", "always", "enable-debug-command", "yes");
             RawClient c = new RawClient(s.port())) {
            c.call("SET", "k", "1");
            c.call("INCR", "k");
            c.call("RPUSH", "l", "a", "b");
            c.call("SET", "t", "v", "EX", "1000");
            c.call("SELECT", "2");
            c.call("HSET", "h", "f", "v");
            c.call("FUNCTION", "LOAD", "#!lua name=lib\nredis.register_function('f', function() return 'hi' end)");
            Path incr = dir.resolve("appendonlydir").resolve("appendonly.aof.1.incr.aof");
            long size = Files.size(incr);
            String digest = c.callString("DEBUG", "DIGEST");
            assertThat(digest).doesNotStartWith("+000000");
            assertThat(c.callString("DEBUG", "LOADAOF")).isEqualTo("+OK\r\n");
            assertThat(c.callString("DEBUG", "DIGEST")).isEqualTo(digest);
            assertThat(c.callString("HGET", "h", "f")).isEqualTo("$1\r\nv\r\n");
            assertThat(c.callString("FCALL", "f", "0")).isEqualTo("$2\r\nhi\r\n");
            assertThat(Files.size(incr)).isEqualTo(size);
            // what was written after it is replayed the next time, once
            c.call("SELECT", "0");
            c.call("INCR", "k");
            assertThat(c.callString("DEBUG", "LOADAOF")).isEqualTo("+OK\r\n");
            assertThat(c.callString("GET", "k")).isEqualTo("$1\r\n3\r\n");
            assertThat(c.callString("LRANGE", "l", "0", "-1")).isEqualTo("*2\r\n$1\r\na\r\n$1\r\nb\r\n");
            assertThat(Long.parseLong(c.callString("TTL", "t").trim().substring(1))).isBetween(900L, 1000L);
        }
        // appendonly no: the files a BGREWRITEAOF wrote (unit/other's digest test), and none yet
        Path plain = Files.createDirectory(dir.resolve("plain"));
        try (SpinelServer s = spinel(plain, "appendonly", "no", "enable-debug-command", "yes");
             RawClient c = new RawClient(s.port())) {
            c.call("SET", "k", "1");
            assertThat(c.callString("DEBUG", "LOADAOF")).isEqualTo("-ERR No AOF files to load\r\n");
            assertThat(c.callString("GET", "k")).isEqualTo("$1\r\n1\r\n");
            c.call("CONFIG", "SET", "aof-use-rdb-preamble", "no");
            c.call("BGREWRITEAOF");
            await(c, "aof_rewrite_in_progress", "0");
            c.call("SET", "k", "2");
            assertThat(c.callString("DEBUG", "LOADAOF")).isEqualTo("+OK\r\n");
            assertThat(c.callString("GET", "k")).isEqualTo("$1\r\n1\r\n");
        }
    }

    @Test
    void unfinishedMultiIsRevertedWhenLoadTruncatedIsOn(@TempDir Path dir) throws Exception {
        Path d = aofDir(dir, MANIFEST, resp("SET", "foo", "hello"), resp("MULTI") + resp("SET", "foo", "changed"));
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        try (SpinelServer s = spinelLogging(log, dir, "appendonly", "yes"); RawClient c = new RawClient(s.port())) {
            assertThat(get(c, "foo")).isEqualTo("$5\r\nhello\r\n");
        }
        assertThat(log.toString()).contains("Revert incomplete MULTI/EXEC transaction in AOF file appendonly.aof.1.incr.aof");
        assertThat(Files.size(d.resolve("appendonly.aof.1.incr.aof"))).isZero();
    }

    @Test
    void shortReadIsCutOffAndLoggingGoesOnAfterIt(@TempDir Path dir) throws Exception {
        String incr = resp("SET", "foo", "5") + resp("SET", "bar", "x");
        Path d = aofDir(dir, MANIFEST, "", incr.substring(0, incr.length() - 4));
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        try (SpinelServer s = spinelLogging(log, dir, "appendonly", "yes"); RawClient c = new RawClient(s.port())) {
            assertThat(get(c, "foo")).isEqualTo("$1\r\n5\r\n");
            assertThat(get(c, "bar")).isEqualTo("$-1\r\n");
            c.call("INCR", "foo");
        }
        assertThat(log.toString()).contains("!!! Warning: short read while loading the AOF file appendonly.aof.1.incr.aof!!!")
                .contains("AOF appendonly.aof.1.incr.aof loaded anyway because aof-load-truncated is enabled");
        assertThat(Files.readString(d.resolve("appendonly.aof.1.incr.aof"))).startsWith(resp("SET", "foo", "5"))
                .endsWith(resp("INCR", "foo"));
        try (SpinelServer s = spinel(dir, "appendonly", "yes"); RawClient c = new RawClient(s.port())) {
            assertThat(get(c, "foo")).isEqualTo("$1\r\n6\r\n");
        }
    }

    @Test
    void truncatedOrInvalidAofsStopStartup(@TempDir Path dir) throws Exception {
        String torn = resp("SET", "foo", "5").substring(0, 10);
        aofDir(dir, MANIFEST, "", resp("SET", "a", "1") + torn);
        assertThatThrownBy(() -> spinel(dir, "appendonly", "yes", "aof-load-truncated", "no"))
                .hasMessageContaining("Unexpected end of file reading the append only file appendonly.aof.1.incr.aof");
        aofDir(dir, MANIFEST, "", resp("MULTI") + resp("SET", "foo", "1"));
        assertThatThrownBy(() -> spinel(dir, "appendonly", "yes", "aof-load-truncated", "no"))
                .hasMessageContaining("Unexpected end of file");
        aofDir(dir, MANIFEST, "", "!!!" + resp("SET", "a", "1"));
        assertThatThrownBy(() -> spinel(dir, "appendonly", "yes")).hasMessageContaining("Bad file format reading the append only file");
        aofDir(dir, MANIFEST, "", resp("NOSUCHCOMMAND", "x"));
        assertThatThrownBy(() -> spinel(dir, "appendonly", "yes"))
                .hasMessageContaining("Unknown command 'NOSUCHCOMMAND' reading the append only file");
        // a torn file that is not the last one is fatal even with aof-load-truncated
        aofDir(dir, MANIFEST + "file appendonly.aof.2.incr.aof seq 2 type i\n", "", resp("SET", "a", "1") + torn);
        Files.writeString(dir.resolve("appendonlydir/appendonly.aof.2.incr.aof"), resp("SET", "b", "2"));
        assertThatThrownBy(() -> spinel(dir, "appendonly", "yes")).hasMessageContaining("the truncated file is not the last file");
    }

    /**
     * A long file, with annotations and a transaction of 300 commands, replays whole, and each way
     * a file can end takes effect after every complete command before it (the endings of the other
     * tests come after a command or two).
     */
    @Test
    void longFilesReplayWholeAndEndWhereTheirLastCompleteCommandEnds(@TempDir Path dir) throws Exception {
        StringBuilder incr = new StringBuilder();
        for (int i = 0; i < 1000; i++) {
            if (i % 100 == 0) incr.append("#TS:").append(1700000000 + i).append("\r\n");
            incr.append(resp("RPUSH", "l", Integer.toString(i)));
        }
        // a transaction across the first batches' boundaries, then one that never ends
        incr.append(resp("MULTI"));
        for (int i = 0; i < 300; i++) incr.append(resp("INCR", "n"));
        incr.append(resp("EXEC"));
        String complete = incr.toString();
        String unfinished = resp("MULTI") + resp("SET", "n", "0") + resp("DEL", "l");

        aofDir(dir, MANIFEST, "", complete);
        try (SpinelServer s = spinel(dir, "appendonly", "yes"); RawClient c = new RawClient(s.port())) {
            assertThat(c.callString("LLEN", "l")).isEqualTo(":1000\r\n");
            assertThat(c.callString("LINDEX", "l", "999")).isEqualTo("$3\r\n999\r\n");
            assertThat(get(c, "n")).isEqualTo("$3\r\n300\r\n");
        }

        // torn in the middle of a command: cut off there, everything before it replayed
        Path d = aofDir(dir, MANIFEST, "", complete + resp("RPUSH", "l", "torn").substring(0, 12));
        try (SpinelServer s = spinel(dir, "appendonly", "yes"); RawClient c = new RawClient(s.port())) {
            assertThat(c.callString("LLEN", "l")).isEqualTo(":1000\r\n");
        }
        assertThat(Files.readString(d.resolve("appendonly.aof.1.incr.aof"))).isEqualTo(complete);

        // an unfinished transaction at the end: reverted to where it began
        d = aofDir(dir, MANIFEST, "", complete + unfinished);
        try (SpinelServer s = spinel(dir, "appendonly", "yes"); RawClient c = new RawClient(s.port())) {
            assertThat(get(c, "n")).isEqualTo("$3\r\n300\r\n");
            assertThat(c.callString("LLEN", "l")).isEqualTo(":1000\r\n");
        }
        assertThat(Files.readString(d.resolve("appendonly.aof.1.incr.aof"))).isEqualTo(complete);

        // something that is not a command after 1,300 that are: the start fails
        aofDir(dir, MANIFEST, "", complete + "!!!" + resp("SET", "a", "1"));
        assertThatThrownBy(() -> spinel(dir, "appendonly", "yes")).hasMessageContaining("Bad file format reading the append only file");
        aofDir(dir, MANIFEST, "", complete + resp("NOSUCHCOMMAND", "x") + complete);
        assertThatThrownBy(() -> spinel(dir, "appendonly", "yes"))
                .hasMessageContaining("Unknown command 'NOSUCHCOMMAND' reading the append only file");
    }

    @Test
    void brokenManifestsStopStartup(@TempDir Path dir) throws Exception {
        String[][] cases = {
            {"file appendonly.aof.1.base.aof seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n"
                    + "file appendonly.aof.2.incr.aof seq 2 type i\n", "Unable to obtain the AOF file appendonly.aof.2.incr.aof"},
            {"file appendonly.aof.1.base.aof seq 1 type b\nfile appendonly.aof.3.incr.aof seq 3 type i\n"
                    + "file appendonly.aof.2.incr.aof seq 2 type i\n", "Found a non-monotonic sequence number"},
            {"file appendonly.aof.1.base.aof seq 1 type b\n\nfile appendonly.aof.1.incr.aof seq 1 type i\n",
                "Invalid AOF manifest file format"},
            {"file appendonly.aof.1.base.aof seq 1 type b\nfile appendonly.aof.2.base.aof seq 2 type b\n",
                "Found duplicate base file information"},
            {"file appendonly.aof.1.base.aof seq 1 type x\n", "Unknown AOF file type"},
            {"file appendonly.aof.1.base.aof seq 1\n", "Invalid AOF manifest file format"},
            {"file appendonly.aof.1.base.aof\n", "Invalid AOF manifest file format"},
            {"file appendonly.aof.1.base.aof seq 1 type b " + "x".repeat(1100) + "\n", "The AOF manifest file contains too long line"},
            {"file appendonly.aof.1.base.aof seq 1 type b newkey\n", "Invalid AOF manifest file format"},
            {"", "Found an empty AOF manifest"},
        };
        for (String[] c : cases) {
            aofDir(dir, c[0], resp("SET", "k", "v"), resp("SET", "k2", "v2"));
            assertThatThrownBy(() -> spinel(dir, "appendonly", "yes")).as(c[1]).hasMessageContaining(c[1]);
        }
    }

    @Test
    void unusualButValidDirectoriesLoad(@TempDir Path dir) throws Exception {
        // sequence numbers with gaps, an empty incremental file, a manifest key Redis does not know yet
        Path d = aofDir(dir, "file appendonly.aof.1.base.aof seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n"
                + "file appendonly.aof.5.incr.aof seq 5 type i newkey newvalue\n", resp("SET", "k1", "v1"), "");
        Files.writeString(d.resolve("appendonly.aof.5.incr.aof"), "#TS:1628217470\r\n" + resp("SET", "k2", "v2")
                + "#TS:1628217471\r\n");
        try (SpinelServer s = spinel(dir, "appendonly", "yes"); RawClient c = new RawClient(s.port())) {
            assertThat(get(c, "k1")).isEqualTo("$2\r\nv1\r\n");
            assertThat(get(c, "k2")).isEqualTo("$2\r\nv2\r\n");
            c.call("SET", "k3", "v3");
        }
        assertThat(Files.readString(d.resolve("appendonly.aof.5.incr.aof"))).endsWith(resp("SET", "k3", "v3"));
    }

    @Test
    void startingEmptyCreatesABaseOfEitherFormat(@TempDir Path dir) throws Exception {
        for (String preamble : new String[] {"yes", "no"}) {
            Path sub = Files.createDirectories(dir.resolve(preamble));
            try (SpinelServer s = spinel(sub, "appendonly", "yes", "aof-use-rdb-preamble", preamble);
                 RawClient c = new RawClient(s.port())) {
                c.call("SET", "k", "v");
            }
            String ext = preamble.equals("yes") ? "rdb" : "aof";
            assertThat(Files.readString(sub.resolve("appendonlydir/appendonly.aof.manifest"))).isEqualTo(
                    "file appendonly.aof.1.base." + ext + " seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n");
            assertThat(Files.exists(sub.resolve("appendonlydir/appendonly.aof.1.base." + ext))).isTrue();
        }
        // an empty directory is a fresh start too
        Path empty = Files.createDirectories(dir.resolve("empty/appendonlydir"));
        try (SpinelServer s = spinel(empty.getParent(), "appendonly", "yes"); RawClient c = new RawClient(s.port())) {
            assertThat(c.callString("DBSIZE")).isEqualTo(":0\r\n");
        }
    }

    @Test
    void oldStyleAofsAreMigratedIntoTheDirectory(@TempDir Path dir) throws Exception {
        for (String preamble : new String[] {"no", "yes"}) {
            Path sub = Files.createDirectories(dir.resolve(preamble));
            // Redis 6 style: one appendonly.aof in dir (an RDB preamble then commands, or commands only)
            Path src = Files.createDirectories(dir.resolve("src-" + preamble));
            byte[] old;
            if (preamble.equals("yes")) {
                try (SpinelServer s = spinel(src); RawClient c = new RawClient(s.port())) {
                    c.call("SET", "from-preamble", "1");
                    c.call("SAVE");
                }
                byte[] rdb = Files.readAllBytes(src.resolve("dump.rdb"));
                byte[] tail = resp("SET", "from-tail", "2").getBytes(StandardCharsets.ISO_8859_1);
                old = new byte[rdb.length + tail.length];
                System.arraycopy(rdb, 0, old, 0, rdb.length);
                System.arraycopy(tail, 0, old, rdb.length, tail.length);
            } else {
                old = (resp("SELECT", "0") + resp("SET", "from-preamble", "1") + resp("SET", "from-tail", "2"))
                        .getBytes(StandardCharsets.ISO_8859_1);
            }
            Files.write(sub.resolve("appendonly.aof"), old);
            ByteArrayOutputStream log = new ByteArrayOutputStream();
            try (SpinelServer s = spinelLogging(log, sub, "appendonly", "yes"); RawClient c = new RawClient(s.port())) {
                assertThat(get(c, "from-preamble")).isEqualTo("$1\r\n1\r\n");
                assertThat(get(c, "from-tail")).isEqualTo("$1\r\n2\r\n");
            }
            assertThat(log.toString()).contains("Successfully migrated an old-style AOF file (appendonly.aof) into the AOF directory");
            assertThat(Files.exists(sub.resolve("appendonly.aof"))).isFalse();
            assertThat(Files.readString(sub.resolve("appendonlydir/appendonly.aof.manifest")))
                    .startsWith("file appendonly.aof seq 1 type b\n");
        }
    }

    @Test
    void fileNamesWithBlanksAreQuotedInTheManifest(@TempDir Path dir) throws Exception {
        try (SpinelServer s = spinel(dir, "appendonly", "yes", "appendfilename", "\" file seq \\n\\n.aof \"");
             RawClient c = new RawClient(s.port())) {
            c.call("SET", "k", "v");
        }
        try (SpinelServer s = spinel(dir, "appendonly", "yes", "appendfilename", "\" file seq \\n\\n.aof \"");
             RawClient c = new RawClient(s.port())) {
            assertThat(get(c, "k")).isEqualTo("$1\r\nv\r\n");
        }
    }

    @Test
    void flushesAndExpiresReplayToTheSameState(@TempDir Path dir) throws Exception {
        try (SpinelServer s = spinel(dir, "appendonly", "yes"); RawClient c = new RawClient(s.port())) {
            c.call("SET", "a", "1");
            c.call("SELECT", "1");
            c.call("SET", "b", "1");
            c.call("FLUSHDB");
            c.call("SELECT", "0");
            c.call("RPUSH", "l", "x");
            c.call("EXPIRE", "l", "-1");
            c.call("SADD", "s", "a", "b");
            c.call("SPOP", "s");
            c.call("SELECT", "2");
            c.call("SET", "gone", "1");
            c.call("FLUSHALL");
            c.call("SET", "c", "1");
        }
        try (SpinelServer s = spinel(dir, "appendonly", "yes"); RawClient c = new RawClient(s.port())) {
            assertThat(c.callString("DBSIZE")).isEqualTo(":0\r\n");
            c.call("SELECT", "2");
            assertThat(c.callString("KEYS", "*")).isEqualTo("*1\r\n$1\r\nc\r\n");
        }
    }

    @Test
    void appendonlyCanBeSwitchedAtRunTime(@TempDir Path dir) throws Exception {
        Path manifest = dir.resolve("appendonlydir/appendonly.aof.manifest");
        try (SpinelServer s = spinel(dir); RawClient c = new RawClient(s.port())) {
            c.call("SET", "before", "1");
            assertThat(Files.exists(manifest)).isFalse();
            assertThat(c.callString("CONFIG", "SET", "appendonly", "yes")).isEqualTo("+OK\r\n");
            c.call("SET", "during", "2");
            await(c, "aof_rewrite_in_progress", "0");
            assertThat(info(c, "aof_enabled")).isEqualTo("1");
            c.call("SET", "after", "3");
            assertThat(Files.readString(manifest)).isEqualTo(
                    "file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n");
            assertThat(c.callString("CONFIG", "SET", "appendonly", "no")).isEqualTo("+OK\r\n");
            c.call("SET", "not-logged", "4");
            // BGREWRITEAOF with the AOF off writes a new base and retires the incremental files
            c.call("BGREWRITEAOF");
            await(c, "aof_rewrite_in_progress", "0");
            assertThat(Files.readString(manifest)).isEqualTo("file appendonly.aof.2.base.rdb seq 2 type b\n");
            c.call("DEL", "not-logged");
        }
        try (SpinelServer s = spinel(dir, "appendonly", "yes"); RawClient c = new RawClient(s.port())) {
            assertThat(get(c, "before")).isEqualTo("$1\r\n1\r\n");
            assertThat(get(c, "during")).isEqualTo("$1\r\n2\r\n");
            assertThat(get(c, "after")).isEqualTo("$1\r\n3\r\n");
            assertThat(get(c, "not-logged")).isEqualTo("$1\r\n4\r\n");
        }
    }

    @Test
    void enablingTheAofDuringARewriteRestartsIt(@TempDir Path dir) throws Exception {
        try (SpinelServer s = spinel(dir, "rdb-key-save-delay", "100000"); RawClient c = new RawClient(s.port())) {
            for (int i = 0; i < 5; i++) c.call("SET", "k" + i, "v");
            assertThat(c.callString("BGREWRITEAOF")).isEqualTo("+Background append only file rewriting started\r\n");
            assertThat(c.callString("CONFIG", "SET", "appendonly", "yes")).isEqualTo("+OK\r\n");
            c.call("SET", "while-enabling", "1");
            c.call("CONFIG", "SET", "rdb-key-save-delay", "0");
            await(c, "aof_rewrite_in_progress", "0");
            await(c, "aof_rewrite_scheduled", "0");
            c.call("SET", "after", "2");
        }
        try (SpinelServer s = spinel(dir, "appendonly", "yes"); RawClient c = new RawClient(s.port())) {
            assertThat(c.callString("DBSIZE")).isEqualTo(":7\r\n");
        }
    }

    @Test
    void theAofIsRewrittenWhenItGrows(@TempDir Path dir) throws Exception {
        try (SpinelServer s = spinel(dir, "appendonly", "yes", "auto-aof-rewrite-min-size", "10kb",
                "auto-aof-rewrite-percentage", "100"); RawClient c = new RawClient(s.port())) {
            await(c, "aof_rewrites", "0");
            for (int i = 0; i < 300; i++) c.call("SET", "key", "value-" + i); // the log grows, the data does not
            await(c, "aof_rewrites", "1");
            await(c, "aof_rewrite_in_progress", "0");
            assertThat(Long.parseLong(info(c, "aof_current_size"))).isLessThan(10_000);
            assertThat(info(c, "aof_base_size")).isEqualTo(info(c, "aof_current_size"));
        }
        try (SpinelServer s = spinel(dir, "appendonly", "yes"); RawClient c = new RawClient(s.port())) {
            assertThat(get(c, "key")).isEqualTo("$9\r\nvalue-299\r\n");
        }
    }

    @Test
    void enablingTheAofDuringBgsaveWaitsForIt(@TempDir Path dir) throws Exception {
        try (SpinelServer s = spinel(dir, "rdb-key-save-delay", "200000"); RawClient c = new RawClient(s.port())) {
            for (int i = 0; i < 5; i++) c.call("SET", "k" + i, "v");
            c.call("BGSAVE");
            assertThat(c.callString("CONFIG", "SET", "appendonly", "yes")).isEqualTo("+OK\r\n");
            assertThat(info(c, "aof_rewrite_scheduled")).isEqualTo("1");
            assertThat(c.callString("BGREWRITEAOF")).isEqualTo("+Background append only file rewriting scheduled\r\n");
            c.call("CONFIG", "SET", "rdb-key-save-delay", "0");
            await(c, "aof_rewrite_in_progress", "0");
            await(c, "aof_rewrite_scheduled", "0");
            await(c, "aof_rewrite_in_progress", "0");
            c.call("SET", "late", "1");
        }
        try (SpinelServer s = spinel(dir, "appendonly", "yes"); RawClient c = new RawClient(s.port())) {
            assertThat(c.callString("DBSIZE")).isEqualTo(":6\r\n");
        }
    }
}
