package io.spinel.server;

import io.spinel.server.testing.DualRun;
import io.spinel.server.testing.ServerPair;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Seeded random SCAN, SSCAN, HSCAN and ZSCAN over keys and collections of every encoding, on
 * redis-server and Spinel side by side. Cursors are each server's own (their tables differ), so
 * each scan is run to its end on each server and what it returned is compared as a set (with
 * HSCAN's values and ZSCAN's scores): MATCH patterns of every glob feature, TYPE filters, COUNT;
 * errors (bad cursors, COUNT 0, bad options) must be the same bytes. Set -Dfuzz.seed=N to replay
 * a run.
 */
class ScanRandomDiffTest {
    @RegisterExtension
    static final ServerPair servers = new ServerPair();

    private static final String[] PATTERNS = {"*", "k*", "*1", "k?", "k[0-3]*", "k[^0-3]*", "[a-k]*", "*[", "k\\*",
        "m:1*", "*:*", "??", "", "x*", "[!a]*", "k[1-]*", "*\\"};
    private static final String[] TYPES = {"string", "list", "set", "zset", "hash", "stream", "STRING", "nosuchtype"};
    private Random rnd;

    @Test
    void randomScansReturnWhatRedisReturns() throws IOException {
        long seed = Long.getLong("fuzz.seed", 20_2026L);
        rnd = new Random(seed);
        try (DualRun d = new DualRun(servers.redis().port(), servers.spinel().port(), "scan fuzz seed " + seed)) {
            for (int round = 0; round < 20; round++) {
                d.setStep(round);
                fill(d, round);
                for (int i = 0; i < 20; i++) {
                    switch (rnd.nextInt(4)) {
                        case 0 -> scan(d, "SCAN", null);
                        case 1 -> scan(d, "SSCAN", "s" + rnd.nextInt(3));
                        case 2 -> scan(d, "HSCAN", "h" + rnd.nextInt(3));
                        default -> scan(d, "ZSCAN", "z" + rnd.nextInt(3));
                    }
                }
                // errors
                // ("-1" is a valid cursor, 2^64-1, whose keys depend on each server's table)
                d.same("SCAN", new String[] {"abc", "+", "18446744073709551616", "1.5", " 1"}[rnd.nextInt(5)]);
                // an empty cursor is 0 (strtoul): the whole keyspace in one call here
                byte[][] empty = d.both("SCAN", "", "COUNT", "1000");
                if (!keysOf(empty[0]).equals(keysOf(empty[1]))) {
                    d.fail("SCAN \"\" COUNT 1000\n    redis:  " + keysOf(empty[0]) + "\n    spinel: " + keysOf(empty[1]));
                }
                d.same("SSCAN", "s0", "0", "COUNT", new String[] {"0", "-1", "x"}[rnd.nextInt(3)]);
                d.same("HSCAN", "h0", "0", "BOGUS", "1");
                d.same("ZSCAN", "s0", "0"); // wrong type
                d.same("SCAN", "0", "MATCH");
            }
            if (!d.mismatches().isEmpty()) fail(d.mismatches().size() + " differences:\n" + String.join("\n", d.mismatches()));
        }
    }

    private void fill(DualRun d, int round) throws IOException {
        d.both("FLUSHALL");
        int keys = 5 + rnd.nextInt(round % 3 == 0 ? 400 : 40);
        for (int i = 0; i < keys; i++) {
            String k = (rnd.nextBoolean() ? "k" : rnd.nextBoolean() ? "m:" : "x") + rnd.nextInt(1000);
            switch (rnd.nextInt(6)) {
                case 0 -> d.both("SET", k, "v");
                case 1 -> d.both("RPUSH", k, "a");
                case 2 -> d.both("SADD", k, "a");
                case 3 -> d.both("ZADD", k, "1", "a");
                case 4 -> d.both("HSET", k, "f", "v");
                default -> d.both("XADD", k, "1-1", "f", "v");
            }
        }
        for (int j = 0; j < 3; j++) {
            int n = rnd.nextInt(j == 2 ? 400 : 30); // the last of each big enough for a table
            boolean ints = rnd.nextBoolean();
            for (int i = 0; i < n; i++) {
                String m = ints ? Integer.toString(rnd.nextInt(5000)) : "m:" + rnd.nextInt(5000);
                d.both("SADD", "s" + j, m);
                d.both("HSET", "h" + j, m, "v" + i);
                d.both("ZADD", "z" + j, Integer.toString(rnd.nextInt(100)), m);
            }
        }
        if (rnd.nextBoolean()) d.both("DEL", "s1", "h1", "z1");
    }

    /** Scans to the end on each server with the same options; compares what came back as sets. */
    private void scan(DualRun d, String cmd, String key) throws IOException {
        List<Object> opts = new ArrayList<>();
        if (rnd.nextBoolean()) opts.addAll(List.of("MATCH", PATTERNS[rnd.nextInt(PATTERNS.length)]));
        if (rnd.nextInt(3) == 0) opts.addAll(List.of("COUNT", Integer.toString(1 + rnd.nextInt(50))));
        if (key == null && rnd.nextInt(3) == 0) opts.addAll(List.of("TYPE", TYPES[rnd.nextInt(TYPES.length)]));
        String redis = fullScan(d, true, cmd, key, opts);
        String spinel = fullScan(d, false, cmd, key, opts);
        if (!redis.equals(spinel)) {
            d.fail(cmd + " " + (key == null ? "" : key + " ") + opts + "\n    redis:  " + redis + "\n    spinel: " + spinel);
        }
    }

    /** A SCAN reply as its cursor and its keys as a set; an error as it is. */
    @SuppressWarnings("unchecked")
    private static String keysOf(byte[] reply) {
        if (reply[0] == '-') return DualRun.show(reply);
        List<Object> r = DualRun.list(reply);
        return r.get(0) + " " + new TreeSet<>((List<Object>) r.get(1));
    }

    private static String fullScan(DualRun d, boolean redis, String cmd, String key, List<Object> opts) throws IOException {
        TreeSet<String> seen = new TreeSet<>();
        TreeMap<String, String> pairs = new TreeMap<>();
        String cursor = "0";
        for (int calls = 0; calls < 10_000; calls++) {
            List<Object> c = new ArrayList<>(List.of(cmd));
            if (key != null) c.add(key);
            c.add(cursor);
            c.addAll(opts);
            byte[] reply = redis ? d.redisOnly(c.toArray()) : d.spinelOnly(c.toArray());
            if (reply[0] == '-') return DualRun.show(reply);
            List<Object> r = DualRun.list(reply);
            cursor = (String) r.get(0);
            @SuppressWarnings("unchecked")
            List<Object> items = (List<Object>) r.get(1);
            if (cmd.equals("HSCAN") || cmd.equals("ZSCAN")) {
                for (int i = 0; i + 1 < items.size(); i += 2) pairs.put((String) items.get(i), (String) items.get(i + 1));
            } else {
                for (Object o : items) seen.add((String) o);
            }
            if (cursor.equals("0")) return seen.isEmpty() ? pairs.toString() : seen.toString();
        }
        return "[no end]";
    }
}
