package io.spinel.server;

import io.spinel.server.testing.DualRun;
import io.spinel.server.testing.ServerPair;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Seeded random stream commands (XADD with explicit IDs and trims, XDEL, XTRIM, XRANGE, XREVRANGE,
 * XLEN, XGROUP, XREADGROUP, XACK, XPENDING, XCLAIM, XAUTOCLAIM, XINFO) over a few keys, run on
 * redis-server and Spinel side by side with small nodes (stream-node-max-entries 1..10) so that
 * approximate trims, node splits and deletes meet. Replies must be byte-identical; idle times,
 * the one thing that differs by nature, are filtered out (XPENDING's extended form is compared
 * without them, XCLAIM uses TIME). Set -Dfuzz.seed=N to replay a run.
 */
class StreamRandomDiffTest {
    @RegisterExtension
    static final ServerPair servers = new ServerPair();

    private static final String[] KEYS = {"x0", "x1", "x2"};
    private static final String[] GROUPS = {"g0", "g1"};
    private static final String[] CONSUMERS = {"c0", "c1", "c2"};
    private Random rnd;
    /** Per key, the ms part of the next explicit ID (IDs grow; some XADDs go below on purpose). */
    private final long[] nextMs = new long[KEYS.length];

    private int keyIndex() {
        return rnd.nextInt(KEYS.length);
    }

    private String key() {
        return rnd.nextInt(40) == 0 ? (rnd.nextBoolean() ? "str" : "missing") : KEYS[keyIndex()];
    }

    private String someId(int k) {
        long top = Math.max(1, nextMs[k]);
        switch (rnd.nextInt(8)) {
            case 0:
                return "-";
            case 1:
                return "+";
            case 2:
                return Long.toString(rnd.nextLong(top + 2));
            case 3:
                return "(" + rnd.nextLong(top + 2) + "-" + rnd.nextInt(3);
            default:
                return rnd.nextLong(top + 2) + "-" + rnd.nextInt(3);
        }
    }

    private String strictId(int k) {
        return Math.max(0, rnd.nextLong(Math.max(1, nextMs[k]) + 2)) + "-" + rnd.nextInt(3);
    }

    private String value() {
        switch (rnd.nextInt(5)) {
            case 0:
                return Integer.toString(rnd.nextInt(2000) - 1000);
            case 1:
                return "x".repeat(rnd.nextInt(200));
            case 2:
                return Long.toString(rnd.nextLong());
            default:
                return "v" + rnd.nextInt(100);
        }
    }

    private static final long DEFAULT_SEED = 5_2026L;

    @Test
    void randomStreamCommands() throws IOException {
        long seed = Long.getLong("fuzz.seed", DEFAULT_SEED);
        rnd = new Random(seed);
        try (DualRun d = new DualRun(servers.redis().port(), servers.spinel().port(), "stream fuzz seed " + seed)) {
            d.both("FLUSHALL");
            d.both("SET", "str", "a string");
            try {
                for (int phase = 0; phase < 3; phase++) {
                    int entries = new int[] {3, 10, 1}[phase];
                    int bytes = new int[] {4096, 300, 0}[phase];
                    d.same("CONFIG", "SET", "stream-node-max-entries", entries);
                    d.same("CONFIG", "SET", "stream-node-max-bytes", bytes);
                    java.util.Arrays.fill(nextMs, 1);
                    for (int step = 0; step < 1500; step++) {
                        d.setStep(phase * 1500 + step);
                        one(d);
                        // now and then too, not only at the phase's end (more payloads compared)
                        if (step % 250 == 249) for (String k : KEYS) dumpIfNoGroups(d, k);
                    }
                    for (String k : KEYS) {
                        d.same("XRANGE", k, "-", "+");
                        d.same("XINFO", "STREAM", k);
                        d.same("XINFO", "GROUPS", k);
                        dumpIfNoGroups(d, k);
                    }
                    d.both("FLUSHALL");
                    d.both("SET", "str", "a string");
                }
            } finally {
                d.both("CONFIG", "SET", "stream-node-max-entries", "100");
                d.both("CONFIG", "SET", "stream-node-max-bytes", "4096");
            }
            // the generator's check, on the default seed: with others, whether the keys still have
            // no group when they are looked at is their chance (3 of 23 seeds had fewer than 10)
            if (seed == DEFAULT_SEED && dumpsCompared < 10) {
                d.fail("only " + dumpsCompared + " DUMP payloads compared: the run no longer reaches streams without groups");
            }
            if (!d.mismatches().isEmpty()) {
                fail(d.mismatches().size() + " differences:\n" + String.join("\n", d.mismatches()));
            }
        }
    }

    /**
     * The key's DUMP payload, byte for byte, where it holds no consumer group (a group's payload
     * holds delivery and seen times, each server's own clock).
     */
    private int dumpsCompared;

    private void dumpIfNoGroups(DualRun d, String k) throws IOException {
        byte[] groups = d.redisOnly("XINFO", "GROUPS", k);
        if (new String(groups, java.nio.charset.StandardCharsets.ISO_8859_1).startsWith("*0\r\n")) {
            d.same("DUMP", k);
            dumpsCompared++;
        }
    }

    private void one(DualRun d) throws IOException {
        int ki = keyIndex();
        String k = rnd.nextInt(40) == 0 ? key() : KEYS[ki];
        String g = GROUPS[rnd.nextInt(GROUPS.length)];
        String c = CONSUMERS[rnd.nextInt(CONSUMERS.length)];
        int op = rnd.nextInt(100);
        if (op < 30) {
            List<Object> cmd = new ArrayList<>(List.of("XADD", k));
            int t = rnd.nextInt(10);
            if (t == 0) cmd.addAll(List.of("MAXLEN", rnd.nextBoolean() ? "~" : "=", rnd.nextInt(30)));
            else if (t == 1) cmd.addAll(List.of("MINID", "~", strictId(ki)));
            else if (t == 2) cmd.addAll(List.of("MAXLEN", "~", rnd.nextInt(30), "LIMIT", rnd.nextInt(20)));
            if (rnd.nextInt(20) == 0) cmd.add("NOMKSTREAM");
            int idKind = rnd.nextInt(10);
            if (idKind == 0) {
                cmd.add(strictId(ki)); // usually too small: an error
            } else if (idKind == 1) {
                cmd.add(nextMs[ki] + "-*");
                nextMs[ki] += rnd.nextInt(2);
            } else {
                cmd.add(nextMs[ki] + "-" + rnd.nextInt(3));
                nextMs[ki] += 1 + rnd.nextInt(3);
            }
            int n = 1 + rnd.nextInt(3);
            boolean sameFields = rnd.nextBoolean();
            for (int i = 0; i < n; i++) {
                cmd.add(sameFields ? "f" + i : "f" + rnd.nextInt(5));
                cmd.add(value());
            }
            d.same(cmd.toArray());
        } else if (op < 38) {
            List<Object> cmd = new ArrayList<>(List.of("XDEL", k));
            int n = 1 + rnd.nextInt(3);
            for (int i = 0; i < n; i++) cmd.add(strictId(ki));
            d.same(cmd.toArray());
        } else if (op < 42) {
            if (rnd.nextBoolean()) {
                d.same("XTRIM", k, "MAXLEN", rnd.nextBoolean() ? "~" : "=", rnd.nextInt(40));
            } else {
                d.same("XTRIM", k, "MINID", rnd.nextBoolean() ? "~" : "=", strictId(ki));
            }
        } else if (op < 50) {
            List<Object> cmd = new ArrayList<>(List.of(rnd.nextBoolean() ? "XRANGE" : "XREVRANGE", k, someId(ki),
                    someId(ki)));
            if (rnd.nextBoolean()) cmd.addAll(List.of("COUNT", rnd.nextInt(6) - 1));
            d.same(cmd.toArray());
        } else if (op < 53) {
            d.same("XLEN", k);
        } else if (op < 58) {
            switch (rnd.nextInt(6)) {
                case 0:
                    d.same("XGROUP", "CREATE", k, g, rnd.nextBoolean() ? "$" : strictId(ki), "MKSTREAM");
                    break;
                case 1:
                    d.same("XGROUP", "SETID", k, g, rnd.nextBoolean() ? "$" : strictId(ki));
                    break;
                case 2:
                    d.same("XGROUP", "CREATECONSUMER", k, g, c);
                    break;
                case 3:
                    d.same("XGROUP", "DELCONSUMER", k, g, c);
                    break;
                case 4:
                    if (rnd.nextInt(4) == 0) d.same("XGROUP", "DESTROY", k, g);
                    break;
                default:
                    d.same("XGROUP", "CREATE", k, g, "0");
                    break;
            }
        } else if (op < 72) {
            List<Object> cmd = new ArrayList<>(List.of("XREADGROUP", "GROUP", g, c));
            if (rnd.nextBoolean()) cmd.addAll(List.of("COUNT", rnd.nextInt(4)));
            if (rnd.nextInt(5) == 0) cmd.add("NOACK");
            cmd.add("STREAMS");
            cmd.add(k);
            cmd.add(rnd.nextInt(3) == 0 ? strictId(ki) : ">");
            d.same(cmd.toArray());
        } else if (op < 78) {
            List<Object> cmd = new ArrayList<>(List.of("XACK", k, g));
            int n = 1 + rnd.nextInt(3);
            for (int i = 0; i < n; i++) cmd.add(strictId(ki));
            d.same(cmd.toArray());
        } else if (op < 84) {
            d.same("XPENDING", k, g);
            pendingWithoutIdle(d, k, g, rnd.nextBoolean() ? null : c);
        } else if (op < 90) {
            List<Object> cmd = new ArrayList<>(List.of("XCLAIM", k, g, c, 0));
            int n = 1 + rnd.nextInt(3);
            for (int i = 0; i < n; i++) cmd.add(strictId(ki));
            cmd.addAll(List.of("TIME", 1_700_000_000_000L + rnd.nextInt(1000)));
            if (rnd.nextBoolean()) cmd.add("JUSTID");
            if (rnd.nextInt(4) == 0) cmd.add("FORCE");
            if (rnd.nextInt(4) == 0) cmd.addAll(List.of("RETRYCOUNT", rnd.nextInt(5)));
            d.same(cmd.toArray());
        } else if (op < 94) {
            List<Object> cmd = new ArrayList<>(List.of("XAUTOCLAIM", k, g, c, 0, rnd.nextBoolean() ? "0" : strictId(ki)));
            if (rnd.nextBoolean()) cmd.addAll(List.of("COUNT", 1 + rnd.nextInt(4)));
            if (rnd.nextBoolean()) cmd.add("JUSTID");
            d.same(cmd.toArray());
        } else if (op < 97) {
            d.same("XINFO", "STREAM", k);
            dumpIfNoGroups(d, k);
        } else {
            d.same("XINFO", "GROUPS", k);
        }
    }

    /** XPENDING's extended form compared without the idle times. */
    private void pendingWithoutIdle(DualRun d, String k, String g, String consumer) throws IOException {
        List<Object> cmd = new ArrayList<>(List.of("XPENDING", k, g, "-", "+", 20));
        if (consumer != null) cmd.add(consumer);
        byte[][] r = d.both(cmd.toArray());
        String a = strip(DualRun.decode(r[0]));
        String b = strip(DualRun.decode(r[1]));
        if (!a.equals(b)) d.fail(DualRun.describe(cmd.toArray()) + "\n  redis:  " + a + "\n  spinel: " + b);
    }

    private static String strip(Object o) {
        if (!(o instanceof List)) return String.valueOf(o);
        List<String> out = new ArrayList<>();
        for (Object e : (List<?>) o) {
            if (e instanceof List && ((List<?>) e).size() == 4) {
                List<?> l = (List<?>) e;
                out.add(l.get(0) + " " + l.get(1) + " " + l.get(3));
            } else {
                out.add(String.valueOf(e));
            }
        }
        return out.toString();
    }
}
