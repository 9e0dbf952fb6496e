package io.spinel.core.persist;

import io.spinel.core.embedded.EmbeddedSpinel;
import io.spinel.core.embedded.SpinelClient;
import io.spinel.core.util.Bytes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedInputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * RDB files as Redis 2.x to 6.x wrote them: ziplist lists, hashes and sorted sets, zipmap
 * hashes, quicklists of ziplists, text-encoded scores, expires in seconds. The file is built
 * here from the format description; Spinel must load every key with the value and encoding
 * Redis 7.0 gives it, checked against fixed expectations and, where redis-server is installed,
 * against redis-server loading the same file.
 */
class OldEncodingsLoadTest {
    private static void key(RdbOut out, int type, String key) {
        out.writeByte(type);
        out.writeString(Bytes.ascii(key));
    }

    private static void blob(RdbOut out, byte[] b) {
        out.writeString(b);
    }

    static byte[] oldFile() {
        RdbOut out = new RdbOut(256, true);
        out.write(Bytes.ascii("REDIS0006"));
        out.writeByte(Rdb.OPCODE_AUX);
        out.writeString(Bytes.ascii("redis-ver"));
        out.writeString(Bytes.ascii("3.2.0"));
        out.writeByte(Rdb.OPCODE_SELECTDB);
        out.writeLen(0);
        out.writeByte(Rdb.OPCODE_RESIZEDB);
        out.writeLen(12);
        out.writeLen(2);
        key(out, Rdb.TYPE_LIST_ZIPLIST, "zl-list");
        blob(out, OldEncodings.ziplist("a", 1L, "b", -300L, "x".repeat(100)));
        key(out, Rdb.TYPE_LIST_QUICKLIST, "ql-list");
        out.writeLen(2);
        blob(out, OldEncodings.ziplist("n1", 2L));
        blob(out, OldEncodings.ziplist(3L, "n2", 1L << 40));
        key(out, Rdb.TYPE_LIST, "plain-list");
        out.writeLen(3);
        for (String s : new String[] {"p", "42", "q"}) out.writeString(Bytes.ascii(s));
        key(out, Rdb.TYPE_HASH_ZIPMAP, "zm-hash");
        blob(out, OldEncodings.zipmap("f1", "v1", "f2", "22"));
        key(out, Rdb.TYPE_HASH_ZIPMAP, "zm-hash-long");
        blob(out, OldEncodings.zipmap("f1", "v".repeat(100)));
        key(out, Rdb.TYPE_HASH_ZIPLIST, "zl-hash");
        blob(out, OldEncodings.ziplist("a", "1", "b", 2L, "c", "x".repeat(100)));
        Object[] big = new Object[1200]; // past hash-max-listpack-entries (512)
        for (int i = 0; i < 600; i++) {
            big[2 * i] = "field" + i;
            big[2 * i + 1] = (long) i;
        }
        key(out, Rdb.TYPE_HASH_ZIPLIST, "zl-hash-big");
        blob(out, OldEncodings.ziplist(big));
        key(out, Rdb.TYPE_ZSET_ZIPLIST, "zl-zset");
        blob(out, OldEncodings.ziplist("m1", "-1.5", "m2", 2L, "m3", "inf"));
        key(out, Rdb.TYPE_ZSET, "text-zset");
        out.writeLen(3);
        out.writeString(Bytes.ascii("t1"));
        out.writeByte(3);
        out.write(Bytes.ascii("0.5"));
        out.writeString(Bytes.ascii("t2"));
        out.writeByte(254); // +inf
        out.writeString(Bytes.ascii("t3"));
        out.writeByte(255); // -inf
        // an expire in seconds (far future) and one already past (skipped on load)
        out.writeByte(Rdb.OPCODE_EXPIRETIME);
        out.writeIntLE((int) (System.currentTimeMillis() / 1000 + 100_000));
        key(out, Rdb.TYPE_STRING, "with-ttl");
        out.writeString(Bytes.ascii("v"));
        out.writeByte(Rdb.OPCODE_EXPIRETIME_MS);
        out.writeLongLE(System.currentTimeMillis() - 10_000);
        key(out, Rdb.TYPE_STRING, "expired");
        out.writeString(Bytes.ascii("gone"));
        out.writeByte(Rdb.OPCODE_SELECTDB);
        out.writeLen(2);
        key(out, Rdb.TYPE_SET, "set-in-db2");
        out.writeLen(2);
        out.writeString(Bytes.ascii("1"));
        out.writeString(Bytes.ascii("2"));
        out.writeByte(Rdb.OPCODE_EOF);
        out.writeLongLE(Crc64.of(out.array(), 0, out.size()));
        return out.toByteArray();
    }

    /** What every key loads as: type, encoding, value (canonical text), TTL flag. */
    private static final String[][] EXPECTED = {
        {"0", "zl-list", "quicklist", "[a, 1, b, -300, " + "x".repeat(100) + "]"},
        {"0", "ql-list", "quicklist", "[n1, 2, 3, n2, 1099511627776]"},
        {"0", "plain-list", "quicklist", "[p, 42, q]"},
        {"0", "zm-hash", "listpack", "[f1, v1, f2, 22]"},
        {"0", "zm-hash-long", "hashtable", "[f1, " + "v".repeat(100) + "]"},
        {"0", "zl-hash", "listpack", "[a, 1, b, 2, c, " + "x".repeat(100) + "]"},
        {"0", "zl-zset", "listpack", "[m1, -1.5, m2, 2, m3, inf]"},
        {"0", "text-zset", "skiplist-or-listpack", "[t3, -inf, t1, 0.5, t2, inf]"},
        {"0", "with-ttl", "embstr", "v"},
        {"2", "set-in-db2", "intset", "[1, 2]"},
    };

    @Test
    void spinelLoadsOldEncodingsAsRedisDoes(@TempDir Path dir) throws Exception {
        Files.write(dir.resolve("dump.rdb"), oldFile());
        Map<String, String> spinel = new LinkedHashMap<>();
        try (EmbeddedSpinel s = EmbeddedSpinel.builder().option("dir", dir.toString()).start()) {
            SpinelClient c = s.newClient();
            for (String[] e : EXPECTED) {
                c.select(Integer.parseInt(e[0]));
                String enc = String.valueOf(c.execute("OBJECT", "ENCODING", e[1]));
                if (e[2].equals("skiplist-or-listpack")) assertThat(enc).isEqualTo("listpack");
                else assertThat(enc).as(e[1]).isEqualTo(e[2]);
                String value = valueOf(c::execute, e[1]);
                assertThat(value).as(e[1]).isEqualTo(e[3]);
                spinel.put(e[0] + "/" + e[1], enc + " " + value);
            }
            c.select(0);
            assertThat(c.execute("EXISTS", "expired")).isEqualTo(0L);
            assertThat((Long) c.execute("TTL", "with-ttl")).isBetween(99_000L, 100_000L);
            assertThat(c.execute("HLEN", "zl-hash-big")).isEqualTo(600L);
            assertThat(c.execute("OBJECT", "ENCODING", "zl-hash-big")).isEqualTo("hashtable");
            assertThat(c.execute("HGET", "zl-hash-big", "field599")).isEqualTo("599");
        }
        String redisServer = redisServerBinary();
        if (redisServer == null) return; // the fixed expectations above were checked already
        Map<String, String> redis = new LinkedHashMap<>();
        int port = unusedLowPort();
        Process p = new ProcessBuilder(redisServer, "--port", Integer.toString(port), "--bind", "127.0.0.1", "--dir",
                dir.toString(), "--save", "", "--appendonly", "no").redirectErrorStream(true)
                .redirectOutput(dir.resolve("redis.log").toFile()).start();
        try (MiniClient c = MiniClient.connect(port)) {
            for (String[] e : EXPECTED) {
                c.call("SELECT", e[0]);
                String enc = String.valueOf(c.call("OBJECT", "ENCODING", e[1]));
                redis.put(e[0] + "/" + e[1], enc + " " + valueOf(c::call, e[1]));
            }
        } finally {
            p.destroy();
            p.waitFor();
        }
        assertThat(spinel).isEqualTo(redis);
    }

    interface Caller {
        Object call(String... args) throws Exception;
    }

    /** The value as canonical text: lists in order, hashes field/value, zsets with scores. */
    static String valueOf(Caller c, String key) throws Exception {
        String type = String.valueOf(c.call("TYPE", key));
        switch (type) {
            case "string":
                return String.valueOf(c.call("GET", key));
            case "list":
                return String.valueOf(c.call("LRANGE", key, "0", "-1"));
            case "hash":
                return String.valueOf(c.call("HGETALL", key));
            case "set":
                return String.valueOf(c.call("SMEMBERS", key));
            case "zset":
                return String.valueOf(c.call("ZRANGE", key, "0", "-1", "WITHSCORES"));
            default:
                return type;
        }
    }

    static String redisServerBinary() {
        for (String p : new String[] {"/usr/bin/redis-server", "/usr/local/bin/redis-server"}) {
            if (new File(p).canExecute()) return p;
        }
        return null;
    }

    /** Just enough RESP for the comparison: strings, integers, arrays. */
    static final class MiniClient implements AutoCloseable {
        private final Socket socket;
        private final InputStream in;
        private final OutputStream out;

        private MiniClient(Socket s) throws IOException {
            socket = s;
            in = new BufferedInputStream(s.getInputStream());
            out = s.getOutputStream();
        }

        static MiniClient connect(int port) throws Exception {
            long deadline = System.currentTimeMillis() + 10_000;
            while (true) {
                try {
                    MiniClient c = new MiniClient(new Socket("127.0.0.1", port));
                    if ("PONG".equals(c.call("PING"))) return c;
                    c.close();
                } catch (IOException e) {
                    if (System.currentTimeMillis() > deadline) throw e;
                }
                Thread.sleep(50);
            }
        }

        Object call(String... args) throws IOException {
            StringBuilder sb = new StringBuilder("*" + args.length + "\r\n");
            for (String a : args) sb.append('$').append(a.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(a).append("\r\n");
            out.write(sb.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
            return read();
        }

        private String line() throws IOException {
            StringBuilder sb = new StringBuilder();
            int b;
            while ((b = in.read()) != '\r') {
                if (b < 0) throw new IOException("closed");
                sb.append((char) b);
            }
            in.read();
            return sb.toString();
        }

        private Object read() throws IOException {
            String l = line();
            switch (l.charAt(0)) {
                case '+':
                    return l.substring(1);
                case '-':
                    return "ERR:" + l.substring(1);
                case ':':
                    return Long.parseLong(l.substring(1));
                case '$': {
                    int n = Integer.parseInt(l.substring(1));
                    if (n < 0) return null;
                    byte[] b = in.readNBytes(n + 2);
                    return new String(b, 0, n, StandardCharsets.UTF_8);
                }
                case '*': {
                    int n = Integer.parseInt(l.substring(1));
                    List<Object> items = new ArrayList<>();
                    for (int i = 0; i < n; i++) items.add(read());
                    return items;
                }
                default:
                    throw new IOException("unexpected reply " + l);
            }
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    /**
     * A port below the ephemeral range (32768+), where the connections this test makes while it
     * waits for redis-server cannot take it first (the server tests' RedisServerProcess.freePort
     * says more).
     */
    private static int unusedLowPort() throws IOException {
        java.util.Random random = new java.util.Random();
        for (int tries = 0; tries < 1000; tries++) {
            int port = 20000 + random.nextInt(12000);
            try (ServerSocket ss = new ServerSocket()) {
                ss.bind(new java.net.InetSocketAddress(port));
                return port;
            } catch (IOException taken) {
                // in use: try another
            }
        }
        throw new IOException("no free port found");
    }
}
