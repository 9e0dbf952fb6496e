package io.spinel.server.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Runs the same commands on redis-server and Spinel for randomized differential tests: raw
 * replies for byte-for-byte comparison, a decoder to Java values for the checks that cannot be
 * byte-for-byte (random picks), and a record of every difference with the step that caused it.
 */
public final class DualRun implements AutoCloseable {
    /** A decoded error reply. */
    public static final class Err {
        public final String message;

        Err(String message) {
            this.message = message;
        }

        @Override
        public String toString() {
            return "-" + message;
        }
    }

    private final RawClient redis;
    private final RawClient spinel;
    private final List<String> mismatches = new ArrayList<>();
    private final String context;
    private int step;

    public DualRun(int redisPort, int spinelPort, String context) throws IOException {
        this.redis = new RawClient(redisPort);
        this.spinel = new RawClient(spinelPort);
        this.context = context;
        // -Ddiff.protocol=3 runs every differential test built on this in RESP3
        if (Integer.getInteger("diff.protocol", 2) == 3) {
            redis.call(List.of("HELLO".getBytes(), "3".getBytes()));
            spinel.call(List.of("HELLO".getBytes(), "3".getBytes()));
        }
    }

    public void setStep(int step) {
        this.step = step;
    }

    public List<String> mismatches() {
        return mismatches;
    }

    public void fail(String what) {
        if (mismatches.size() < 50) mismatches.add(context + " step " + step + ": " + what);
    }

    private static List<byte[]> args(Object... parts) {
        List<byte[]> out = new ArrayList<>();
        for (Object p : parts) {
            if (p instanceof byte[]) out.add((byte[]) p);
            else if (p instanceof List) for (Object x : (List<?>) p) out.add(x.toString().getBytes(StandardCharsets.ISO_8859_1));
            else out.add(p.toString().getBytes(StandardCharsets.ISO_8859_1));
        }
        return out;
    }

    /** Sends to both; returns {redis reply, spinel reply}. */
    public byte[][] both(Object... parts) throws IOException {
        List<byte[]> a = args(parts);
        return new byte[][] {redis.call(a), spinel.call(a)};
    }

    public byte[] redisOnly(Object... parts) throws IOException {
        return redis.call(args(parts));
    }

    public byte[] spinelOnly(Object... parts) throws IOException {
        return spinel.call(args(parts));
    }

    /** Sends to both and requires byte-identical replies; returns Redis's. */
    public byte[] same(Object... parts) throws IOException {
        byte[][] r = both(parts);
        if (!Arrays.equals(r[0], r[1])) fail(describe(parts) + "\n    redis:  " + show(r[0]) + "\n    spinel: " + show(r[1]));
        return r[0];
    }

    /** Sends to both and requires the same top-level elements in any order; returns Redis's. */
    public byte[] sameUnordered(Object... parts) throws IOException {
        byte[][] r = both(parts);
        if (!Resp.sameUnordered(r[0], r[1])) {
            fail(describe(parts) + " (unordered)\n    redis:  " + show(r[0]) + "\n    spinel: " + show(r[1]));
        }
        return r[0];
    }

    public static String describe(Object... parts) {
        StringBuilder sb = new StringBuilder();
        for (byte[] a : args(parts)) sb.append(sb.length() == 0 ? "" : " ").append(new String(a, StandardCharsets.ISO_8859_1));
        return sb.toString();
    }

    public static String show(byte[] b) {
        return DiffScript.show(b);
    }

    // ---- decoding -----------------------------------------------------------------------------

    /**
     * Decodes a reply: bulk and simple strings to String (latin-1), integers to Long, nulls to
     * null, errors to {@link Err}, every aggregate (maps flattened) to a List.
     */
    public static Object decode(byte[] reply) {
        int[] pos = {0};
        return value(reply, pos);
    }

    private static String line(byte[] b, int[] pos) {
        int start = pos[0];
        while (!(b[pos[0]] == '\r' && b[pos[0] + 1] == '\n')) pos[0]++;
        String s = new String(b, start, pos[0] - start, StandardCharsets.ISO_8859_1);
        pos[0] += 2;
        return s;
    }

    private static Object value(byte[] b, int[] pos) {
        String l = line(b, pos);
        char t = l.charAt(0);
        String rest = l.substring(1);
        switch (t) {
            case '+':
            case ',':
                return rest;
            case '-':
                return new Err(rest);
            case ':':
                return Long.parseLong(rest);
            case '_':
                return null;
            case '#':
                return rest.equals("t");
            case '$':
            case '=': {
                int n = Integer.parseInt(rest);
                if (n < 0) return null;
                String s = new String(b, pos[0], n, StandardCharsets.ISO_8859_1);
                pos[0] += n + 2;
                return s;
            }
            case '*':
            case '~':
            case '>':
            case '%': {
                int n = Integer.parseInt(rest);
                if (n < 0) return null;
                if (t == '%') n *= 2;
                List<Object> out = new ArrayList<>(n);
                for (int i = 0; i < n; i++) out.add(value(b, pos));
                return out;
            }
            default:
                throw new IllegalArgumentException("unexpected reply type " + t);
        }
    }

    @SuppressWarnings("unchecked")
    public static List<Object> list(byte[] reply) {
        Object o = decode(reply);
        return o instanceof List ? (List<Object>) o : null;
    }

    @Override
    public void close() throws IOException {
        redis.close();
        spinel.close();
    }
}
