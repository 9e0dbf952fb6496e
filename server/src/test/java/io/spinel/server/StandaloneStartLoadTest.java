package io.spinel.server;

import io.spinel.core.Engine;
import io.spinel.core.Log;
import io.spinel.core.config.Config;
import io.spinel.server.testing.RawClient;
import io.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The standalone start (what Main does): an RDB file big enough to be decoded on a thread of its
 * own, or with appendonly yes such an AOF base, starts decoding when the engine is made, before
 * the event loop is ready, and the loop then inserts what was decoded (and replays the AOF's
 * incremental files after it). The data set arrives whole, a damaged file still stops the start,
 * and a start that fails before the load stops the decoding.
 */
class StandaloneStartLoadTest {
    private static final int STRINGS = 4_500; // 1,000-byte values, uncompressed: over the 4 MB threshold
    private static final int EACH_OTHER_TYPE = 200;

    @Test
    void aBigFileDecodedBeforeTheLoopIsReadyLoadsWhole(@TempDir Path dir) throws Exception {
        List<String> values = writeDataSet(dir);
        ByteArrayOutputStream logged = new ByteArrayOutputStream();
        Config config = config(dir, RedisServerProcess.freePort());
        Engine engine = SpinelServer.prepareStandaloneEngine(config, new Log(new PrintStream(logged, true)));
        assertThat(engine.persistence().startUpLoadBegun()).isTrue();
        try (SpinelServer s = SpinelServer.start(engine, SpinelServer.newStandaloneTransport());
             RawClient c = new RawClient(s.port())) {
            assertThat(engine.persistence().startUpLoadBegun()).isFalse();
            assertThat(c.callString("DBSIZE")).isEqualTo(":" + (STRINGS + 4 * EACH_OTHER_TYPE) + "\r\n");
            for (int i = 0; i < STRINGS; i += 449) {
                assertThat(c.callString("GET", "s:" + i)).isEqualTo("$1000\r\n" + values.get(i) + "\r\n");
            }
            assertThat(c.callString("HGET", "h:17", "f3")).isEqualTo("$4\r\nv173\r\n");
            assertThat(c.callString("LINDEX", "l:199", "-1")).isEqualTo("$6\r\ne199-4\r\n");
            assertThat(c.callString("SISMEMBER", "set:5", "m5-2")).isEqualTo(":1\r\n");
            assertThat(c.callString("ZSCORE", "z:42", "z42-3")).isEqualTo("$1\r\n3\r\n");
            assertThat(c.callString("INFO", "persistence")).contains("loading:0\r\n");
        }
        assertThat(logged.toString(StandardCharsets.UTF_8))
                .contains("Done loading RDB, keys loaded: " + (STRINGS + 4 * EACH_OTHER_TYPE))
                .contains("DB loaded from disk");
    }

    @Test
    void aDamagedBigFileStillStopsTheStart(@TempDir Path dir) throws Exception {
        writeDataSet(dir);
        Path rdb = dir.resolve("dump.rdb");
        byte[] b = Files.readAllBytes(rdb);
        b[b.length - 3] ^= 0x5a; // the checksum no longer matches
        Files.write(rdb, b);
        Engine engine = SpinelServer.prepareStandaloneEngine(config(dir, RedisServerProcess.freePort()), Log.silent());
        assertThatThrownBy(() -> SpinelServer.start(engine, SpinelServer.newStandaloneTransport()))
                .hasMessageContaining("not starting with a partial data set")
                .hasMessageContaining("Wrong RDB checksum");
    }

    @Test
    void aStartThatFailsBeforeTheLoadStopsTheDecoding(@TempDir Path dir) throws Exception {
        writeDataSet(dir);
        try (ServerSocket taken = new ServerSocket(RedisServerProcess.freePort(), 1, InetAddress.getLoopbackAddress())) {
            Config config = config(dir, taken.getLocalPort());
            config.set("key-load-delay", "1000"); // 1 ms a key: decoding alone would take over 5 s
            Engine engine = SpinelServer.prepareStandaloneEngine(config, Log.silent());
            assertThat(decodingThreads()).isNotEmpty();
            assertThatThrownBy(() -> SpinelServer.start(engine, SpinelServer.newStandaloneTransport()))
                    .hasMessage("Failed listening on port " + taken.getLocalPort() + " (TCP), aborting.")
                    .cause().hasMessageContaining("Could not create server TCP listening socket");
            long deadline = System.currentTimeMillis() + 2_000;
            while (!decodingThreads().isEmpty() && System.currentTimeMillis() < deadline) Thread.sleep(20);
            assertThat(decodingThreads()).isEmpty();
            assertThat(engine.persistence().startUpLoadBegun()).isFalse();
        }
    }

    @Test
    void anAofsBigBaseIsDecodedBeforeTheLoopIsReadyAndItsIncrFileReplayedAfterIt(@TempDir Path dir) throws Exception {
        List<String> values = writeDataSet(dir);
        Path aof = aofFromDump(dir, "*3\r\n$3\r\nSET\r\n$3\r\ns:0\r\n$7\r\nchanged\r\n"
                + "*2\r\n$3\r\nDEL\r\n$4\r\nh:17\r\n"
                + "*3\r\n$5\r\nRPUSH\r\n$5\r\nl:199\r\n$6\r\ne199-9\r\n"
                + "*2\r\n$4\r\nINCR\r\n$7\r\ncounter\r\n");
        ByteArrayOutputStream logged = new ByteArrayOutputStream();
        Engine engine = SpinelServer.prepareStandaloneEngine(config(dir, RedisServerProcess.freePort(), "--appendonly", "yes"),
                new Log(new PrintStream(logged, true)));
        assertThat(engine.persistence().startUpLoadBegun()).isTrue();
        try (SpinelServer s = SpinelServer.start(engine, SpinelServer.newStandaloneTransport());
             RawClient c = new RawClient(s.port())) {
            assertThat(engine.persistence().startUpLoadBegun()).isFalse();
            assertThat(c.callString("DBSIZE")).isEqualTo(":" + (STRINGS + 4 * EACH_OTHER_TYPE) + "\r\n"); // -h:17 +counter
            assertThat(c.callString("GET", "s:0")).isEqualTo("$7\r\nchanged\r\n");
            assertThat(c.callString("GET", "s:449")).isEqualTo("$1000\r\n" + values.get(449) + "\r\n");
            assertThat(c.callString("EXISTS", "h:17")).isEqualTo(":0\r\n");
            assertThat(c.callString("LINDEX", "l:199", "-1")).isEqualTo("$6\r\ne199-9\r\n");
            assertThat(c.callString("GET", "counter")).isEqualTo("$1\r\n1\r\n");
            // the files are the server's AOF from now on
            assertThat(c.callString("SET", "after", "start")).isEqualTo("+OK\r\n");
        }
        assertThat(Files.readString(aof.resolve("appendonly.aof.1.incr.aof"), StandardCharsets.ISO_8859_1)).endsWith("after\r\n$5\r\nstart\r\n");
        String log = logged.toString(StandardCharsets.UTF_8);
        assertThat(log.split("Reading RDB base file on AOF loading", -1)).hasSize(2); // once, before the base's own lines
        assertThat(log.indexOf("Reading RDB base file")).isLessThan(log.indexOf("Loading RDB produced by"));
        assertThat(log).contains("DB loaded from base file appendonly.aof.1.base.rdb")
                .contains("DB loaded from incr file appendonly.aof.1.incr.aof")
                .contains("DB loaded from append only file");
    }

    @Test
    void aDamagedBigAofBaseStillStopsTheStart(@TempDir Path dir) throws Exception {
        writeDataSet(dir);
        Path aof = aofFromDump(dir, "");
        Path base = aof.resolve("appendonly.aof.1.base.rdb");
        byte[] b = Files.readAllBytes(base);
        b[b.length - 3] ^= 0x5a;
        Files.write(base, b);
        Engine engine = SpinelServer.prepareStandaloneEngine(config(dir, RedisServerProcess.freePort(), "--appendonly", "yes"),
                Log.silent());
        assertThat(engine.persistence().startUpLoadBegun()).isTrue();
        assertThatThrownBy(() -> SpinelServer.start(engine, SpinelServer.newStandaloneTransport()))
                .hasMessageContaining("Error reading the RDB base file appendonly.aof.1.base.rdb, AOF loading aborted")
                .hasMessageContaining("Wrong RDB checksum");
        assertThat(engine.persistence().startUpLoadBegun()).isFalse();
    }

    /** Makes dir's dump.rdb the base of a multi-part AOF with that incremental file, and removes it. */
    private static Path aofFromDump(Path dir, String incr) throws Exception {
        Path aof = Files.createDirectories(dir.resolve("appendonlydir"));
        Files.move(dir.resolve("dump.rdb"), aof.resolve("appendonly.aof.1.base.rdb"));
        Files.writeString(aof.resolve("appendonly.aof.1.incr.aof"), incr, StandardCharsets.ISO_8859_1);
        Files.writeString(aof.resolve("appendonly.aof.manifest"),
                "file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n");
        return aof;
    }

    private static List<Thread> decodingThreads() {
        List<Thread> out = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive() && t.getName().equals("spinel-rdb-decode")) out.add(t);
        }
        return out;
    }

    /** What Main makes of "--port P --bind 127.0.0.1 --dir D --save '' [more options]". */
    private static Config config(Path dir, int port, String... more) throws Exception {
        Config config = new Config();
        ConfigLoader loader = new ConfigLoader(config);
        List<String> options = new ArrayList<>(List.of("--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--dir", dir.toString(), "--save", ""));
        options.addAll(List.of(more));
        loader.load(ConfigLoader.optionsToConfig(options), null);
        return config;
    }

    /** Writes dump.rdb into dir (strings of random text, and small values of the other types); returns the strings. */
    private static List<String> writeDataSet(Path dir) throws Exception {
        Random random = new Random(7);
        List<String> values = new ArrayList<>();
        try (SpinelServer s = SpinelServer.builder().randomPort().option("bind", "127.0.0.1")
                .option("dir", dir.toString()).option("rdbcompression", "no").start();
             RawClient c = new RawClient(s.port())) {
            int sent = 0;
            for (int i = 0; i < STRINGS; i++) {
                StringBuilder v = new StringBuilder(1000);
                for (int j = 0; j < 1000; j++) v.append((char) ('!' + random.nextInt(90)));
                values.add(v.toString());
                c.send(args("SET", "s:" + i, v.toString()));
                sent++;
            }
            for (int i = 0; i < EACH_OTHER_TYPE; i++) {
                c.send(args("HSET", "h:" + i, "f1", "v" + i + "1", "f3", "v" + i + "3"));
                c.send(args("RPUSH", "l:" + i, "e" + i + "-0", "e" + i + "-4"));
                c.send(args("SADD", "set:" + i, "m" + i + "-1", "m" + i + "-2"));
                c.send(args("ZADD", "z:" + i, "1", "z" + i + "-1", "3", "z" + i + "-3"));
                sent += 4;
            }
            for (int i = 0; i < sent; i++) assertThat(new String(c.readReply(), StandardCharsets.ISO_8859_1)).doesNotStartWith("-");
            assertThat(c.callString("SAVE")).isEqualTo("+OK\r\n");
        }
        assertThat(Files.size(dir.resolve("dump.rdb"))).isGreaterThan(4L << 20);
        return values;
    }

    private static List<byte[]> args(String... a) {
        List<byte[]> out = new ArrayList<>();
        for (String s : a) out.add(s.getBytes(StandardCharsets.ISO_8859_1));
        return out;
    }
}
