package io.spinel.server.persist;

import io.spinel.server.testing.DataSet;
import io.spinel.server.testing.RawClient;
import io.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import static io.spinel.server.persist.PersistTesting.info;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Spinel as a separate JVM killed with SIGKILL (Process.destroyForcibly) in the middle of work:
 * with appendfsync always no acknowledged write is lost; with everysec at most about the last
 * second; a crash during BGSAVE or BGREWRITEAOF leaves the previous files intact and loadable;
 * a corrupt file stops start-up with status 1 and a message naming the problem.
 */
class CrashTest {
    private final List<Process> processes = new ArrayList<>();

    @AfterEach
    void killAll() {
        for (Process p : processes) p.destroyForcibly();
    }

    private Process launch(Path dir, int port, String... extra) throws IOException {
        List<String> cmd = new ArrayList<>(Arrays.asList(
                System.getProperty("java.home") + File.separator + "bin" + File.separator + "java",
                "-cp", System.getProperty("java.class.path"), "io.spinel.server.Main",
                "--port", Integer.toString(port), "--bind", "127.0.0.1", "--dir", dir.toString(), "--save", ""));
        cmd.addAll(Arrays.asList(extra));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("spinel.log").toFile())).start();
        processes.add(p);
        return p;
    }

    private static RawClient connect(int port, Process p) throws Exception {
        long deadline = System.currentTimeMillis() + 30_000;
        while (true) {
            try {
                RawClient c = new RawClient(port);
                if (c.callString("PING").startsWith("+PONG")) return c;
                c.close();
            } catch (IOException e) {
                if (!p.isAlive()) throw new AssertionError("Spinel exited with status " + p.exitValue());
                if (System.currentTimeMillis() > deadline) throw new AssertionError("Spinel did not start");
            }
            Thread.sleep(50);
        }
    }

    private static void kill(Process p) throws InterruptedException {
        p.destroyForcibly();
        assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
    }

    /** Writes INCR counter and SET k:i until stopped; acked counts the writes that got their reply. */
    private static Thread writer(int port, AtomicLong acked, long[] ackTimes) {
        Thread t = new Thread(() -> {
            try (RawClient c = new RawClient(port)) {
                for (int i = 0; ; i++) {
                    if (!c.callString("SET", "k:" + i, "v" + i).startsWith("+OK")) return;
                    if (!c.callString("INCR", "counter").startsWith(":")) return;
                    if (i < ackTimes.length) ackTimes[i] = System.currentTimeMillis();
                    acked.set(i + 1);
                }
            } catch (IOException e) {
                // the server died: expected
            }
        });
        t.start();
        return t;
    }

    @Test
    void appendfsyncAlwaysLosesNoAcknowledgedWrite(@TempDir Path dir) throws Exception {
        int port = RedisServerProcess.freePort();
        Process p = launch(dir, port, "--appendonly", "yes", "--appendfsync", "always");
        connect(port, p).close();
        AtomicLong acked = new AtomicLong();
        Thread w = writer(port, acked, new long[0]);
        Thread.sleep(1500);
        kill(p);
        w.join(10_000);
        long n = acked.get();
        assertThat(n).isPositive();
        Process q = launch(dir, port, "--appendonly", "yes");
        try (RawClient c = connect(port, q)) {
            long counter = Long.parseLong(c.callString("GET", "counter").split("\r\n")[1]);
            assertThat(counter).isBetween(n, n + 1);
            for (long i = 0; i < n; i += Math.max(1, n / 200)) {
                assertThat(c.callString("GET", "k:" + i)).isEqualTo("$" + ("v" + i).length() + "\r\nv" + i + "\r\n");
            }
            assertThat(c.callString("GET", "k:" + (n - 1))).contains("v" + (n - 1));
        }
        kill(q);
    }

    /**
     * DEBUG SEGFAULT ends the standalone process at once, status 139 as a SIGSEGV gives a shell,
     * with nothing saved: what appendfsync always wrote comes back. An in-process server refuses
     * it (the process is its host's).
     */
    @Test
    void debugSegfaultEndsTheProcessAsACrash(@TempDir Path dir) throws Exception {
        int port = RedisServerProcess.freePort();
        Process p = launch(dir, port, "--appendonly", "yes", "--appendfsync", "always", "--enable-debug-command", "yes");
        try (RawClient c = connect(port, p)) {
            for (int i = 0; i < 100; i++) c.call("SET", "k:" + i, "v" + i);
            c.send(List.of("DEBUG".getBytes(), "SEGFAULT".getBytes()));
            assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(p.exitValue()).isEqualTo(139);
        String log = Files.readString(dir.resolve("spinel.log"));
        assertThat(log).doesNotContain("DB saved on disk");
        // the crash report, as Redis's signal handler logs it: the running command's client included
        assertThat(log).contains("crashed by signal: 11", "------ STACK TRACE ------", "------ INFO OUTPUT ------",
                "db0:keys=100,", "------ CURRENT CLIENT INFO ------", "argv[0]: 'DEBUG'", "argv[1]: 'SEGFAULT'");
        assertThat(log.indexOf("=== SPINEL BUG REPORT END")).isGreaterThan(log.indexOf("=== SPINEL BUG REPORT START"));
        Process q = launch(dir, port, "--appendonly", "yes");
        try (RawClient c = connect(port, q)) {
            assertThat(c.callString("DBSIZE")).isEqualTo(":100\r\n");
            assertThat(c.callString("GET", "k:99")).isEqualTo("$3\r\nv99\r\n");
        }
        kill(q);
        try (io.spinel.server.SpinelServer s = io.spinel.server.SpinelServer.builder().randomPort()
                .option("enable-debug-command", "yes").start();
             RawClient c = new RawClient(s.port())) {
            assertThat(c.callString("DEBUG", "SEGFAULT")).startsWith("-ERR DEBUG SEGFAULT would end the host's process");
            assertThat(c.callString("PING")).isEqualTo("+PONG\r\n");
        }
    }

    @Test
    void appendfsyncEverysecLosesAtMostAboutOneSecond(@TempDir Path dir) throws Exception {
        int port = RedisServerProcess.freePort();
        Process p = launch(dir, port, "--appendonly", "yes", "--appendfsync", "everysec");
        connect(port, p).close();
        AtomicLong acked = new AtomicLong();
        long[] ackTimes = new long[1_000_000];
        Thread w = writer(port, acked, ackTimes);
        Thread.sleep(2500);
        long killedAt = System.currentTimeMillis();
        kill(p);
        w.join(10_000);
        long n = Math.min(acked.get(), ackTimes.length);
        long olderThanOneSecond = 0;
        while (olderThanOneSecond < n && ackTimes[(int) olderThanOneSecond] < killedAt - 1200) olderThanOneSecond++;
        Process q = launch(dir, port, "--appendonly", "yes");
        try (RawClient c = connect(port, q)) {
            long counter = Long.parseLong(c.callString("GET", "counter").split("\r\n")[1]);
            assertThat(counter).isGreaterThanOrEqualTo(olderThanOneSecond).isLessThanOrEqualTo(acked.get() + 1);
        }
        kill(q);
    }

    @Test
    void crashDuringBgsaveLeavesThePreviousRdb(@TempDir Path dir) throws Exception {
        int port = RedisServerProcess.freePort();
        Process p = launch(dir, port);
        TreeMap<String, String> saved;
        byte[] rdb;
        try (RawClient c = connect(port, p)) {
            DataSet.populate(c, 21, 200);
            assertThat(c.callString("SAVE")).isEqualTo("+OK\r\n");
            saved = DataSet.read(c, 16, true);
            rdb = Files.readAllBytes(dir.resolve("dump.rdb"));
            c.call("SET", "after-save", "x");
            c.call("CONFIG", "SET", "rdb-key-save-delay", "100000");
            assertThat(c.callString("BGSAVE")).isEqualTo("+Background saving started\r\n");
            Thread.sleep(300);
            assertThat(info(c, "rdb_bgsave_in_progress")).isEqualTo("1");
            assertThat(tempFiles(dir)).isNotEmpty();
        }
        kill(p);
        assertThat(Files.readAllBytes(dir.resolve("dump.rdb"))).isEqualTo(rdb);
        Process q = launch(dir, port);
        try (RawClient c = connect(port, q)) {
            DataSet.assertSame(saved, DataSet.read(c, 16, true));
        }
        kill(q);
    }

    @Test
    void crashDuringAofRewriteLeavesALoadableAof(@TempDir Path dir) throws Exception {
        int port = RedisServerProcess.freePort();
        Process p = launch(dir, port, "--appendonly", "yes", "--appendfsync", "always");
        TreeMap<String, String> expected;
        try (RawClient c = connect(port, p)) {
            DataSet.populate(c, 22, 200);
            c.call("CONFIG", "SET", "rdb-key-save-delay", "100000");
            assertThat(c.callString("BGREWRITEAOF")).isEqualTo("+Background append only file rewriting started\r\n");
            DataSet.mutate(c);
            c.call("SET", "after-rewrite-started", "1");
            Thread.sleep(300);
            assertThat(info(c, "aof_rewrite_in_progress")).isEqualTo("1");
            expected = DataSet.read(c, 16, true);
        }
        kill(p);
        Process q = launch(dir, port, "--appendonly", "yes");
        try (RawClient c = connect(port, q)) {
            DataSet.assertSame(expected, DataSet.read(c, 16, true));
        }
        kill(q);
    }

    @Test
    void corruptValueIsCaughtByTheChecksum(@TempDir Path dir) throws Exception {
        int port = RedisServerProcess.freePort();
        Process p = launch(dir, port);
        byte[] value;
        try (RawClient c = connect(port, p)) {
            DataSet.populate(c, 23, 50);
            byte[] reply = c.call("GET", "s:random");
            // "$300\r\n" + 300 random bytes (stored uncompressed: random bytes do not compress)
            value = Arrays.copyOfRange(reply, 6, 6 + 300);
            c.callString("SAVE");
        }
        kill(p);
        byte[] b = Files.readAllBytes(dir.resolve("dump.rdb"));
        int at = indexOf(b, value);
        assertThat(at).as("the value's bytes in dump.rdb").isPositive();
        b[at + 150] ^= 0x5a; // a bit flip that still parses: only the CRC64 can tell
        Files.write(dir.resolve("dump.rdb"), b);
        Process q = launch(dir, port);
        assertThat(q.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(q.exitValue()).isEqualTo(1);
        assertThat(Files.readString(dir.resolve("spinel.log"))).contains("Wrong RDB checksum");
    }

    @Test
    void corruptRdbStopsStartupWithStatusOne(@TempDir Path dir) throws Exception {
        int port = RedisServerProcess.freePort();
        Process p = launch(dir, port);
        try (RawClient c = connect(port, p)) {
            DataSet.populate(c, 23, 50);
            c.callString("SAVE");
        }
        kill(p);
        byte[] b = Files.readAllBytes(dir.resolve("dump.rdb"));
        // Where this byte falls depends on the aux fields, so the error found first varies
        // (a bad length, a duplicate member, a bad checksum...); each must stop start-up.
        b[b.length / 2] ^= 0x5a;
        Files.write(dir.resolve("dump.rdb"), b);
        Process q = launch(dir, port);
        assertThat(q.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(q.exitValue()).isEqualTo(1);
        String log = Files.readString(dir.resolve("spinel.log"));
        String second = log.substring(log.lastIndexOf("Spinel is starting"));
        assertThat(second).containsAnyOf("Error loading the RDB file", "Fatal error loading the DB")
                .doesNotContain("Ready to accept connections");
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) if (haystack[i + j] != needle[j]) continue outer;
            return i;
        }
        return -1;
    }

    private static List<Path> tempFiles(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(f -> f.getFileName().toString().startsWith("temp-")).toList();
        }
    }
}
