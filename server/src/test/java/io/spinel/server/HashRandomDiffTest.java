package io.spinel.server;

import io.spinel.server.testing.DualRun;
import io.spinel.server.testing.ServerPair;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Seeded random hash commands over a few keys, run on redis-server and Spinel side by side.
 * Small encoding thresholds make the keys cross from listpack to hashtable during the run.
 * Replies must be byte-identical, except where Redis's order is unspecified (hashtable
 * iteration: compared as multisets) or its output random (HRANDFIELD: checked for shape and
 * membership). Set -Dfuzz.seed=N to replay a run.
 */
class HashRandomDiffTest {
    @RegisterExtension
    static final ServerPair servers = new ServerPair();

    private static final String[] KEYS = {"h0", "h1", "h2", "h3"};
    private Random rnd;

    private String key() {
        return rnd.nextInt(40) == 0 ? (rnd.nextBoolean() ? "str" : "missing") : KEYS[rnd.nextInt(KEYS.length)];
    }

    private String field() {
        int r = rnd.nextInt(20);
        if (r == 0) return "";
        if (r == 1) return "long-field-name-" + rnd.nextInt(4);
        return "f" + rnd.nextInt(14);
    }

    private String value() {
        switch (rnd.nextInt(6)) {
            case 0:
                return Integer.toString(rnd.nextInt(2000) - 1000);
            case 1:
                return Long.toString(rnd.nextLong());
            case 2:
                return rnd.nextInt(10) + "." + rnd.nextInt(100);
            case 3:
                return "x".repeat(rnd.nextInt(30));
            case 4:
                return "0" + rnd.nextInt(10);
            default:
                return "v" + rnd.nextInt(100);
        }
    }

    @Test
    void randomHashCommands() throws IOException {
        long seed = Long.getLong("fuzz.seed", 7_2026L);
        rnd = new Random(seed);
        try (DualRun d = new DualRun(servers.redis().port(), servers.spinel().port(), "hash fuzz seed " + seed)) {
            d.both("FLUSHALL");
            d.both("SET", "str", "a string");
            try {
                for (int phase = 0; phase < 3; phase++) {
                    int entries = new int[] {8, 3, 128}[phase];
                    int valueMax = new int[] {16, 64, 5}[phase];
                    d.same("CONFIG", "SET", "hash-max-listpack-entries", entries);
                    d.same("CONFIG", "SET", "hash-max-listpack-value", valueMax);
                    for (int step = 0; step < 1500; step++) {
                        d.setStep(phase * 1500 + step);
                        one(d);
                    }
                    for (String k : KEYS) checkWhole(d, k);
                    d.both("FLUSHALL");
                    d.both("SET", "str", "a string");
                }
            } finally {
                d.both("CONFIG", "SET", "hash-max-listpack-entries", "512");
                d.both("CONFIG", "SET", "hash-max-listpack-value", "64");
                d.both("HELLO", "2");
            }
            if (!d.mismatches().isEmpty()) {
                fail(d.mismatches().size() + " differences:\n" + String.join("\n", d.mismatches()));
            }
        }
    }

    private void one(DualRun d) throws IOException {
        String k = key();
        int op = rnd.nextInt(100);
        if (op < 20) {
            List<Object> cmd = new ArrayList<>(List.of(rnd.nextInt(5) == 0 ? "HMSET" : "HSET", k));
            int n = 1 + rnd.nextInt(3);
            for (int i = 0; i < n; i++) {
                cmd.add(field());
                cmd.add(value());
            }
            d.same(cmd.toArray());
        } else if (op < 25) {
            d.same("HSETNX", k, field(), value());
        } else if (op < 35) {
            List<Object> cmd = new ArrayList<>(List.of("HDEL", k));
            int n = 1 + rnd.nextInt(3);
            for (int i = 0; i < n; i++) cmd.add(field());
            d.same(cmd.toArray());
        } else if (op < 42) {
            d.same("HGET", k, field());
        } else if (op < 46) {
            d.same("HMGET", k, field(), field(), field());
        } else if (op < 49) {
            d.same("HEXISTS", k, field());
        } else if (op < 52) {
            d.same("HLEN", k);
        } else if (op < 55) {
            d.same("HSTRLEN", k, field());
        } else if (op < 61) {
            d.same("HINCRBY", k, field(), rnd.nextInt(7) == 0 ? "1.5" : Integer.toString(rnd.nextInt(200) - 100));
        } else if (op < 66) {
            d.same("HINCRBYFLOAT", k, field(), rnd.nextInt(7) == 0 ? "abc" : (rnd.nextInt(200) - 100) + "." + rnd.nextInt(1000));
        } else if (op < 74) {
            String cmd = new String[] {"HGETALL", "HKEYS", "HVALS"}[rnd.nextInt(3)];
            orderedIfListpack(d, k, cmd, k);
        } else if (op < 82) {
            hrandfield(d, k);
        } else if (op < 87) {
            hscan(d, k);
        } else if (op < 92) {
            // a compact encoding's DUMP payload is Redis's bytes (a table's lists in its own order)
            String enc = String.valueOf(DualRun.decode(d.same("OBJECT", "ENCODING", k)));
            if (!enc.equals("hashtable")) d.same("DUMP", k);
        } else if (op < 94) {
            d.same("DEL", k);
        } else if (op < 96) {
            d.same("TYPE", k);
        } else if (op < 98) {
            String other = KEYS[rnd.nextInt(KEYS.length)];
            d.same("COPY", k, other, "REPLACE");
        } else {
            d.both("HELLO", rnd.nextBoolean() ? "3" : "2");
        }
    }

    /** Exact when Redis holds the key as a listpack (insertion order), as a multiset otherwise. */
    private void orderedIfListpack(DualRun d, String k, Object... cmd) throws IOException {
        String enc = String.valueOf(DualRun.decode(d.same("OBJECT", "ENCODING", k)));
        if (enc.equals("hashtable")) d.sameUnordered(cmd);
        else d.same(cmd);
    }

    /** The hash as Redis holds it, null when missing or not a hash. */
    private Map<String, String> contents(DualRun d, String k) throws IOException {
        List<Object> all = DualRun.list(d.redisOnly("HGETALL", k));
        if (all == null) return null;
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < all.size(); i += 2) m.put((String) all.get(i), (String) all.get(i + 1));
        return m;
    }

    private void checkWhole(DualRun d, String k) throws IOException {
        d.same("OBJECT", "ENCODING", k);
        orderedIfListpack(d, k, "HGETALL", k);
        d.same("HLEN", k);
    }

    private void hrandfield(DualRun d, String k) throws IOException {
        int shape = rnd.nextInt(4);
        if (shape == 0) {
            byte[][] r = d.both("HRANDFIELD", k);
            Map<String, String> m = contents(d, k);
            Object red = DualRun.decode(r[0]), sp = DualRun.decode(r[1]);
            if (m == null || m.isEmpty() || red instanceof DualRun.Err) {
                if (!java.util.Arrays.equals(r[0], r[1])) d.fail("HRANDFIELD " + k + ": " + DualRun.show(r[0]) + " vs " + DualRun.show(r[1]));
            } else if (!(sp instanceof String) || !m.containsKey(sp)) {
                d.fail("HRANDFIELD " + k + " returned " + sp + ", not a field of " + m.keySet());
            }
            return;
        }
        long count = rnd.nextInt(12) - 4;
        boolean withValues = shape == 3;
        Object[] cmd = withValues ? new Object[] {"HRANDFIELD", k, count, "WITHVALUES"} : new Object[] {"HRANDFIELD", k, count};
        Map<String, String> m = contents(d, k);
        if (m == null || m.isEmpty() || count == 0) {
            d.same(cmd);
            return;
        }
        if (count >= m.size()) {
            // the whole hash, in its iteration order
            orderedIfListpack(d, k, cmd);
            return;
        }
        byte[][] r = d.both(cmd);
        if (r[0][0] != r[1][0]) {
            d.fail(DualRun.describe(cmd) + ": reply types differ: " + DualRun.show(r[0]) + " vs " + DualRun.show(r[1]));
            return;
        }
        List<Object> got = DualRun.list(r[1]);
        long n = Math.abs(count);
        boolean resp3Pairs = withValues && !got.isEmpty() && got.get(0) instanceof List;
        List<String> fields = new ArrayList<>();
        List<String> values = new ArrayList<>();
        for (int i = 0; i < got.size(); i++) {
            if (resp3Pairs) {
                List<?> p = (List<?>) got.get(i);
                fields.add((String) p.get(0));
                values.add((String) p.get(1));
            } else {
                fields.add((String) got.get(i));
                if (withValues) values.add((String) got.get(++i));
            }
        }
        if (fields.size() != n || DualRun.list(r[0]).size() != got.size()) {
            d.fail(DualRun.describe(cmd) + ": " + fields.size() + " fields, expected " + n);
        }
        for (int i = 0; i < fields.size(); i++) {
            String f = fields.get(i);
            if (!m.containsKey(f)) d.fail(DualRun.describe(cmd) + ": " + f + " is not a field");
            else if (withValues && !m.get(f).equals(values.get(i))) d.fail(DualRun.describe(cmd) + ": wrong value for " + f);
        }
        if (count > 0 && new HashSet<>(fields).size() != fields.size()) d.fail(DualRun.describe(cmd) + ": repeated fields " + fields);
    }

    /** A whole HSCAN iteration on each server must return exactly the hash's pairs. */
    private void hscan(DualRun d, String k) throws IOException {
        String match = rnd.nextInt(3) == 0 ? "f1*" : null;
        int count = 1 + rnd.nextInt(20);
        Map<String, String> m = contents(d, k);
        if (m == null) {
            d.same("HSCAN", k, "0", "COUNT", count);
            return;
        }
        String enc = String.valueOf(DualRun.decode(d.same("OBJECT", "ENCODING", k)));
        if (enc.equals("listpack")) {
            // returned whole, in order, with cursor 0
            if (match != null) d.same("HSCAN", k, "0", "MATCH", match, "COUNT", count);
            else d.same("HSCAN", k, "0", "COUNT", count);
            return;
        }
        Map<String, String> expected = new HashMap<>();
        for (Map.Entry<String, String> e : m.entrySet()) {
            if (match == null || e.getKey().startsWith("f1")) expected.put(e.getKey(), e.getValue());
        }
        Map<String, String> got = new HashMap<>();
        String cursor = "0";
        int calls = 0;
        do {
            byte[] reply = match != null ? d.spinelOnly("HSCAN", k, cursor, "MATCH", match, "COUNT", count)
                    : d.spinelOnly("HSCAN", k, cursor, "COUNT", count);
            List<Object> r = DualRun.list(reply);
            cursor = (String) r.get(0);
            List<?> items = (List<?>) r.get(1);
            for (int i = 0; i < items.size(); i += 2) {
                got.put((String) items.get(i), (String) items.get(i + 1));
            }
        } while (!cursor.equals("0") && ++calls < 10_000);
        if (!got.equals(expected)) d.fail("HSCAN " + k + " full iteration: " + got + " expected " + expected);
    }
}
