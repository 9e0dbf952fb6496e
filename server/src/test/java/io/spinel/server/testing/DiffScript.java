package io.spinel.server.testing;

import io.spinel.core.protocol.SplitArgs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Runs a command script against Spinel and the reference redis-server side by side and compares
 * the raw replies byte for byte.
 *
 * <p>Script lines are commands in redis-cli syntax (quotes and \xHH escapes as in inline
 * commands); directives start with {@code @}:
 * <ul>
 *   <li>{@code @unordered CMD...} compare the top-level array as a multiset (KEYS, SMEMBERS...)</li>
 *   <li>{@code @nocompare CMD...} run on both, compare only the reply type (TIME, INFO...)</li>
 *   <li>{@code @approx N CMD...} integer replies may differ by up to N (PTTL measured ms apart)</li>
 *   <li>{@code @raw "bytes"} send raw protocol bytes, compare the reply</li>
 *   <li>{@code @closed} both servers must have closed the connection since</li>
 *   <li>{@code @reconnect} open fresh connections to both</li>
 *   <li>{@code @sleep MS} wait</li>
 *   <li>{@code @noreply CMD...} send to both; neither may answer within 300 ms (CLIENT REPLY OFF)</li>
 * </ul>
 */
public final class DiffScript {
    /** One difference between the servers. */
    public static final class Mismatch {
        public final String source;
        public final int line;
        public final String command;
        public final String expected;
        public final String actual;

        Mismatch(String source, int line, String command, String expected, String actual) {
            this.source = source;
            this.line = line;
            this.command = command;
            this.expected = expected;
            this.actual = actual;
        }

        @Override
        public String toString() {
            return source + ":" + line + ": " + command + "\n    redis:  " + expected + "\n    spinel: " + actual;
        }
    }

    private final int redisPort;
    private final int spinelPort;
    private RawClient redis;
    private RawClient spinel;
    private final List<Mismatch> mismatches = new ArrayList<>();

    public DiffScript(int redisPort, int spinelPort) throws IOException {
        this.redisPort = redisPort;
        this.spinelPort = spinelPort;
        reconnect();
    }

    private void reconnect() throws IOException {
        if (redis != null) redis.close();
        if (spinel != null) spinel.close();
        redis = new RawClient(redisPort);
        spinel = new RawClient(spinelPort);
    }

    public List<Mismatch> mismatches() {
        return mismatches;
    }

    /** Both servers start clean: FLUSHALL, SELECT 0, RESP2. */
    public void reset() throws IOException {
        reconnect();
        for (RawClient c : new RawClient[] {redis, spinel}) {
            c.call("FLUSHALL");
        }
    }

    public void run(String source, String text) throws IOException {
        String[] lines = text.split("\n");
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].trim();
            if (line.isEmpty() || line.startsWith("#")) continue;
            runLine(source, i + 1, line);
        }
    }

    public void runLine(String source, int lineNo, String line) throws IOException {
        String directive = null;
        String rest = line;
        if (line.startsWith("@")) {
            int sp = line.indexOf(' ');
            directive = sp < 0 ? line.substring(1) : line.substring(1, sp);
            rest = sp < 0 ? "" : line.substring(sp + 1).trim();
        }
        if ("sleep".equals(directive)) {
            try {
                Thread.sleep(Long.parseLong(rest));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return;
        }
        if ("noreply".equals(directive)) {
            List<byte[]> args = parseArgs(rest);
            redis.send(args);
            spinel.send(args);
            boolean rq = silent(redis), sq = silent(spinel);
            if (rq != sq) mismatches.add(new Mismatch(source, lineNo, line, "silent=" + rq, "silent=" + sq));
            return;
        }
        if ("reconnect".equals(directive)) {
            reconnect();
            return;
        }
        if ("closed".equals(directive)) {
            boolean rc = redis.isClosedByPeer();
            boolean sc = spinel.isClosedByPeer();
            if (rc != sc) mismatches.add(new Mismatch(source, lineNo, line, "closed=" + rc, "closed=" + sc));
            reconnect();
            return;
        }
        long tolerance = 0;
        if ("approx".equals(directive)) {
            int sp = rest.indexOf(' ');
            tolerance = Long.parseLong(rest.substring(0, sp));
            rest = rest.substring(sp + 1).trim();
        }
        byte[] expected;
        byte[] actual;
        if ("raw".equals(directive)) {
            List<String> parts = SplitArgs.split(rest);
            byte[] raw = parts.get(0).getBytes(StandardCharsets.ISO_8859_1);
            redis.sendRaw(raw);
            spinel.sendRaw(raw);
            expected = readOrError(redis);
            actual = readOrError(spinel);
        } else {
            List<byte[]> args = parseArgs(rest);
            if (args == null) throw new IllegalArgumentException(source + ":" + lineNo + ": unbalanced quotes");
            expected = callOrError(redis, args);
            actual = callOrError(spinel, args);
        }
        expected = normalize(expected);
        actual = normalize(actual);
        boolean same;
        if ("unordered".equals(directive)) {
            same = Resp.sameUnordered(expected, actual);
        } else if ("approx".equals(directive)) {
            same = Resp.sameApprox(expected, actual, tolerance);
        } else if ("nocompare".equals(directive)) {
            same = expected.length > 0 && actual.length > 0 && expected[0] == actual[0];
        } else {
            same = Arrays.equals(expected, actual);
        }
        if (!same) mismatches.add(new Mismatch(source, lineNo, line, show(expected), show(actual)));
    }

    /** True if nothing arrives within 300 ms. */
    private static boolean silent(RawClient c) throws IOException {
        c.setTimeout(300);
        try {
            c.readReply();
            return false;
        } catch (java.net.SocketTimeoutException e) {
            return true;
        } finally {
            c.setTimeout(10_000);
        }
    }

    /** Client ids differ between the servers (each counts its own connections): mask HELLO's id. */
    private static byte[] normalize(byte[] reply) {
        String s = new String(reply, StandardCharsets.ISO_8859_1);
        String n = s.replaceAll("\\$2\r\nid\r\n:\\d+\r\n", "\\$2\r\nid\r\n:<id>\r\n");
        return n.equals(s) ? reply : n.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static byte[] callOrError(RawClient c, List<byte[]> args) {
        try {
            return c.call(args);
        } catch (IOException e) {
            return ("<" + e.getMessage() + ">").getBytes(StandardCharsets.UTF_8);
        }
    }

    private static byte[] readOrError(RawClient c) {
        try {
            return c.readReply();
        } catch (IOException e) {
            return ("<" + e.getMessage() + ">").getBytes(StandardCharsets.UTF_8);
        }
    }

    /** Splits a script line like redis-cli does (the same rules as inline commands). */
    static List<byte[]> parseArgs(String line) {
        byte[] b = line.getBytes(StandardCharsets.UTF_8);
        io.spinel.core.protocol.Args a = new io.spinel.core.protocol.Args();
        if (!SplitArgs.split(b, 0, b.length, new byte[b.length], a)) return null;
        List<byte[]> out = new ArrayList<>();
        for (int i = 0; i < a.count(); i++) out.add(a.copy(i));
        return out;
    }

    static String show(byte[] b) {
        String s = new String(b, StandardCharsets.ISO_8859_1).replace("\r\n", "\\r\\n");
        return s.length() > 400 ? s.substring(0, 400) + "..." : s;
    }

    public void close() throws IOException {
        redis.close();
        spinel.close();
    }
}
