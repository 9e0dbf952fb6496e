package io.spinel.server;

import io.spinel.server.testing.DualRun;
import io.spinel.server.testing.ServerPair;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Seeded random set commands over a few keys, run on redis-server and Spinel side by side.
 * Members mix small and wide integers, non-canonical numbers and strings, with a small
 * set-max-intset-entries, so sets cross from intset to hashtable and the *STORE and SPOP
 * rebuilds have to pick the encoding Redis picks. Replies must be byte-identical except where
 * Redis's order is unspecified (hashtable iteration: multisets) or its output random (SPOP,
 * SRANDMEMBER: checked for shape and membership, then the servers are brought back in step).
 * Set -Dfuzz.seed=N to replay a run.
 */
class SetRandomDiffTest {
    @RegisterExtension
    static final ServerPair servers = new ServerPair();

    private static final String[] KEYS = {"s0", "s1", "s2", "s3", "s4"};
    private Random rnd;

    private String key() {
        int r = rnd.nextInt(40);
        if (r == 0) return "str";
        if (r == 1) return "missing";
        return KEYS[rnd.nextInt(KEYS.length)];
    }

    /** Phases with mostly-integer members, where the encoding choices are the subtle ones. */
    private boolean mostlyInts;

    private String member() {
        if (mostlyInts && rnd.nextInt(12) > 0) return Integer.toString(rnd.nextInt(8));
        switch (rnd.nextInt(8)) {
            case 0:
                return Long.toString(rnd.nextInt(3) - 1 + (rnd.nextBoolean() ? 1L << 40 : -(1L << 33)));
            case 1:
                return Integer.toString(rnd.nextInt(3) + 40000);
            case 2:
                return "m" + rnd.nextInt(6);
            case 3:
                return new String[] {"007", "-0", "+1", "", "1.0"}[rnd.nextInt(5)];
            default:
                return Integer.toString(rnd.nextInt(24) - 8);
        }
    }

    private List<Object> keys(String cmd, int min) {
        List<Object> c = new ArrayList<>(List.of(cmd));
        int n = min + rnd.nextInt(4);
        for (int i = 0; i < n; i++) c.add(key());
        return c;
    }

    @Test
    void randomSetCommands() throws IOException {
        long seed = Long.getLong("fuzz.seed", 11_2026L);
        rnd = new Random(seed);
        try (DualRun d = new DualRun(servers.redis().port(), servers.spinel().port(), "set fuzz seed " + seed)) {
            d.both("FLUSHALL");
            d.both("SET", "str", "a string");
            try {
                for (int phase = 0; phase < 5; phase++) {
                    d.same("CONFIG", "SET", "set-max-intset-entries", new int[] {6, 2, 512, 5, 512}[phase]);
                    mostlyInts = phase >= 3;
                    for (int step = 0; step < 2000; step++) {
                        d.setStep(phase * 2000 + step);
                        one(d);
                    }
                    for (String k : KEYS) {
                        d.same("OBJECT", "ENCODING", k);
                        orderedIfIntset(d, k, "SMEMBERS", k);
                    }
                    d.both("FLUSHALL");
                    d.both("SET", "str", "a string");
                }
            } finally {
                d.both("CONFIG", "SET", "set-max-intset-entries", "512");
                d.both("HELLO", "2");
            }
            if (!d.mismatches().isEmpty()) {
                fail(d.mismatches().size() + " differences:\n" + String.join("\n", d.mismatches()));
            }
        }
    }

    private void one(DualRun d) throws IOException {
        String k = key();
        if (mostlyInts && rnd.nextInt(10) == 0) {
            d.same("DEL", k); // small sets, so that results can still be intsets
            return;
        }
        int op = rnd.nextInt(100);
        if (op < 22) {
            List<Object> c = new ArrayList<>(List.of("SADD", k));
            int n = 1 + rnd.nextInt(4);
            for (int i = 0; i < n; i++) c.add(member());
            d.same(c.toArray());
        } else if (op < 30) {
            List<Object> c = new ArrayList<>(List.of("SREM", k));
            int n = 1 + rnd.nextInt(3);
            for (int i = 0; i < n; i++) c.add(member());
            d.same(c.toArray());
        } else if (op < 34) {
            d.same("SMOVE", k, key(), member());
        } else if (op < 39) {
            d.same("SISMEMBER", k, member());
        } else if (op < 42) {
            d.same("SMISMEMBER", k, member(), member(), member());
        } else if (op < 45) {
            d.same("SCARD", k);
        } else if (op < 51) {
            orderedIfIntset(d, k, "SMEMBERS", k);
        } else if (op < 60) {
            String cmd = new String[] {"SINTER", "SUNION", "SDIFF"}[rnd.nextInt(3)];
            d.sameUnordered(keys(cmd, 1).toArray());
        } else if (op < 70) {
            String cmd = new String[] {"SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE"}[rnd.nextInt(3)];
            String dst = KEYS[rnd.nextInt(KEYS.length)];
            if (rnd.nextInt(4) == 0) d.same("EXPIRE", dst, "1000");
            List<Object> c = keys(cmd, 1);
            c.add(1, dst);
            d.same(c.toArray());
            d.same("OBJECT", "ENCODING", dst);
            d.same("TTL", dst);
            orderedIfIntset(d, dst, "SMEMBERS", dst);
        } else if (op < 74) {
            List<Object> c = keys("SINTERCARD", 1);
            c.add(1, c.size() - 1);
            if (rnd.nextBoolean()) {
                c.add("LIMIT");
                c.add(rnd.nextInt(4));
            }
            d.same(c.toArray());
        } else if (op < 81) {
            spop(d, k);
        } else if (op < 88) {
            srandmember(d, k);
        } else if (op < 92) {
            sscan(d, k);
        } else if (op < 95) {
            // a compact encoding's DUMP payload is Redis's bytes (a table's lists in its own order)
            String enc = String.valueOf(DualRun.decode(d.same("OBJECT", "ENCODING", k)));
            if (!enc.equals("hashtable")) d.same("DUMP", k);
        } else if (op < 97) {
            d.same("DEL", k);
        } else if (op < 98) {
            d.same("COPY", k, KEYS[rnd.nextInt(KEYS.length)], "REPLACE");
        } else {
            d.both("HELLO", rnd.nextBoolean() ? "3" : "2");
        }
    }

    /** Exact when Redis holds the key as an intset (numeric order), as a multiset otherwise. */
    private void orderedIfIntset(DualRun d, String k, Object... cmd) throws IOException {
        String enc = String.valueOf(DualRun.decode(d.same("OBJECT", "ENCODING", k)));
        if (enc.equals("intset")) d.same(cmd);
        else d.sameUnordered(cmd);
    }

    /** The set as Redis holds it: null if the key holds another type, empty if missing. */
    private Set<String> members(DualRun d, String k) throws IOException {
        List<Object> all = DualRun.list(d.redisOnly("SMEMBERS", k));
        if (all == null) return null;
        Set<String> s = new TreeSet<>();
        for (Object o : all) s.add((String) o);
        return s;
    }

    private static boolean isInt(String s) {
        try {
            return Long.toString(Long.parseLong(s)).equals(s);
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private static List<String> strings(List<Object> l) {
        List<String> out = new ArrayList<>();
        for (Object o : l) out.add((String) o);
        return out;
    }

    private void spop(DualRun d, String k) throws IOException {
        Set<String> before = members(d, k);
        boolean withCount = rnd.nextInt(3) > 0;
        long count = rnd.nextInt(10) - (rnd.nextInt(10) == 0 ? 2 : 0);
        Object[] cmd = withCount ? new Object[] {"SPOP", k, count} : new Object[] {"SPOP", k};
        if (before == null || before.isEmpty() || (withCount && count <= 0)) {
            d.same(cmd);
            return;
        }
        if (withCount && count >= before.size()) {
            d.sameUnordered(cmd); // the whole set, then the key is gone
            d.same("EXISTS", k);
            return;
        }
        byte[][] r = d.both(cmd);
        if (r[0][0] != r[1][0]) {
            d.fail(DualRun.describe(cmd) + ": reply types differ: " + DualRun.show(r[0]) + " vs " + DualRun.show(r[1]));
        }
        List<String> popped;
        if (withCount) {
            popped = strings(DualRun.list(r[1]));
        } else {
            popped = new ArrayList<>(List.of(String.valueOf(DualRun.decode(r[1]))));
        }
        long n = withCount ? count : 1;
        if (popped.size() != n || new HashSet<>(popped).size() != popped.size() || !before.containsAll(popped)) {
            d.fail(DualRun.describe(cmd) + ": popped " + popped + " from " + before);
        }
        Set<String> left = new TreeSet<>(strings(DualRun.list(d.spinelOnly("SMEMBERS", k))));
        Set<String> union = new TreeSet<>(left);
        union.addAll(popped);
        if (left.size() + popped.size() != before.size() || !union.equals(before)) {
            d.fail(DualRun.describe(cmd) + ": left " + left + " and popped " + popped + " from " + before);
        }
        // Popping a few keeps the set object, so its encoding; popping most rebuilds it from
        // random survivors, whose encoding is only known when the members are all alike.
        boolean rebuilt = withCount && 5L * (before.size() - n) <= n;
        boolean allInts = before.stream().allMatch(SetRandomDiffTest::isInt);
        boolean noInts = before.stream().noneMatch(SetRandomDiffTest::isInt);
        if (!rebuilt || allInts || noInts) {
            d.same("OBJECT", "ENCODING", k);
        }
        // back in step: both rebuilt from Redis's survivors
        Set<String> redisLeft = members(d, k);
        d.both("DEL", k);
        if (!redisLeft.isEmpty()) {
            List<Object> add = new ArrayList<>(List.of("SADD", k));
            add.addAll(redisLeft);
            d.same(add.toArray());
        }
    }

    private void srandmember(DualRun d, String k) throws IOException {
        Set<String> m = members(d, k);
        if (rnd.nextInt(4) == 0) {
            byte[][] r = d.both("SRANDMEMBER", k);
            if (m == null || m.isEmpty()) {
                if (!java.util.Arrays.equals(r[0], r[1])) d.fail("SRANDMEMBER " + k + " differs");
            } else if (!m.contains(String.valueOf(DualRun.decode(r[1])))) {
                d.fail("SRANDMEMBER " + k + " returned a non-member");
            }
            return;
        }
        long count = rnd.nextInt(16) - 6;
        if (m == null || m.isEmpty() || count == 0) {
            d.same("SRANDMEMBER", k, count);
            return;
        }
        if (count >= m.size()) {
            orderedIfIntset(d, k, "SRANDMEMBER", k, count);
            return;
        }
        byte[][] r = d.both("SRANDMEMBER", k, count);
        List<String> got = strings(DualRun.list(r[1]));
        if (got.size() != Math.abs(count) || !m.containsAll(got) || DualRun.list(r[0]).size() != got.size()) {
            d.fail("SRANDMEMBER " + k + " " + count + ": " + got + " from " + m);
        }
        if (count > 0 && new HashSet<>(got).size() != got.size()) d.fail("SRANDMEMBER " + k + " " + count + ": repeats " + got);
    }

    /** A whole SSCAN iteration on Spinel must return exactly the members. */
    private void sscan(DualRun d, String k) throws IOException {
        Set<String> m = members(d, k);
        int count = 1 + rnd.nextInt(10);
        String enc = String.valueOf(DualRun.decode(d.same("OBJECT", "ENCODING", k)));
        if (m == null || !enc.equals("hashtable")) {
            d.same("SSCAN", k, "0", "COUNT", count);
            if (m != null) d.same("SSCAN", k, "0", "MATCH", "*1*");
            return;
        }
        Set<String> got = new TreeSet<>();
        String cursor = "0";
        int calls = 0;
        do {
            List<Object> r = DualRun.list(d.spinelOnly("SSCAN", k, cursor, "COUNT", count));
            cursor = (String) r.get(0);
            for (Object o : (List<?>) r.get(1)) got.add((String) o);
        } while (!cursor.equals("0") && ++calls < 10_000);
        if (!got.equals(m)) d.fail("SSCAN " + k + " full iteration: " + got + " expected " + m);
    }
}
