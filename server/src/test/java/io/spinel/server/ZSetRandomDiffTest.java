package io.spinel.server;

import io.spinel.server.testing.RawClient;
import io.spinel.server.testing.ServerPair;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Seeded random sequences of sorted set commands (every command with random options, valid and
 * not, over a handful of keys including a string) run on redis-server and Spinel side by side;
 * every reply must be byte-identical. Small encoding thresholds make listpack/skiplist
 * conversions frequent. A failure prints the seed and the commands that led to it.
 */
class ZSetRandomDiffTest {
    @RegisterExtension
    static final ServerPair servers = new ServerPair();

    private static final String[] KEYS = {"z1", "z2", "z3", "z4", "str", "nokey", "lx1"};
    /**
     * Keys whose members all score 0: lex ranges are only specified for those (over unequal scores
     * the skiplist result depends on its random tower heights, in Redis as in Spinel).
     */
    private static final String[] LEX_KEYS = {"lx1", "lx2"};
    private static final String[] MEMBERS = {"a", "b", "c", "d", "e", "f", "g", "h", "", "10", "-3", "aa", "ab",
        "member-with-a-longer-name", "\u00ff", "\u0000x"};
    private static final String[] SCORES = {"0", "1", "2", "3", "-1", "-2", "1.5", "-0.5", "0.1", "0.2", "7",
        "100", "inf", "-inf", "+inf", "1e300", "-1e300", "3.0000000000000004", "-0", "12345678.25"};

    private final List<String> cmd = new ArrayList<>();
    private SplittableRandom rnd;

    private String pick(String[] a) {
        return a[rnd.nextInt(a.length)];
    }

    /** Any key, for commands that do not change scores. */
    private String key() {
        return rnd.nextInt(12) == 0 ? pick(KEYS) : KEYS[rnd.nextInt(4)];
    }

    /** A key for commands that set scores: never a lex key. */
    private String writeKey() {
        String k = key();
        return k.startsWith("lx") ? "z1" : k;
    }

    private String lexKey() {
        return rnd.nextInt(20) == 0 ? pick(new String[] {"absent", "strlex"}) : pick(LEX_KEYS);
    }

    private String member() {
        return rnd.nextInt(50) == 0 ? "m" + rnd.nextInt(1000) : pick(MEMBERS);
    }

    private String score() {
        return rnd.nextInt(40) == 0 ? pick(new String[] {"abc", "nan", "", "1e400"}) : pick(SCORES);
    }

    private String scoreBound() {
        String s = rnd.nextInt(20) == 0 ? pick(new String[] {"x", "(", "((1", " 1"}) : pick(SCORES);
        return rnd.nextInt(3) == 0 ? "(" + s : s;
    }

    private String lexBound() {
        int r = rnd.nextInt(10);
        if (r == 0) return "-";
        if (r == 1) return "+";
        if (r == 2) return pick(new String[] {"a", "", "+x"});
        return (rnd.nextBoolean() ? "[" : "(") + pick(MEMBERS);
    }

    private String index() {
        return Integer.toString(rnd.nextInt(24) - 12);
    }

    private void add(String... parts) {
        cmd.addAll(Arrays.asList(parts));
    }

    private void maybe(int oneIn, String... parts) {
        if (rnd.nextInt(oneIn) == 0) add(parts);
    }

    private void keysWithNumkeys(int max) {
        int n = 1 + rnd.nextInt(max);
        add(rnd.nextInt(30) == 0 ? pick(new String[] {"0", "-1", "x", "9"}) : Integer.toString(n));
        for (int i = 0; i < n; i++) add(key());
    }

    /** One random command into {@link #cmd}. */
    private void generate() {
        cmd.clear();
        switch (rnd.nextInt(24)) {
            case 0:
            case 1:
            case 2: {
                boolean lex = rnd.nextInt(4) == 0;
                add("ZADD", lex ? pick(LEX_KEYS) : writeKey());
                String[] opts = {"NX", "XX", "CH", "GT", "LT", "INCR"};
                for (String o : opts) if (rnd.nextInt(6) == 0) add(o);
                int pairs = 1 + rnd.nextInt(rnd.nextInt(8) == 0 ? 2 : 4);
                for (int i = 0; i < pairs; i++) add(lex ? "0" : score(), member());
                maybe(40, "1");
                break;
            }
            case 3:
                add("ZINCRBY", writeKey(), score(), member());
                break;
            case 4: {
                add("ZREM", key());
                int n = 1 + rnd.nextInt(3);
                for (int i = 0; i < n; i++) add(member());
                break;
            }
            case 5:
                add(pick(new String[] {"ZSCORE", "ZRANK", "ZREVRANK"}), key(), member());
                break;
            case 6:
                add("ZMSCORE", key(), member(), member());
                break;
            case 7:
                add("ZCARD", key());
                break;
            case 8: {
                add(pick(new String[] {"ZRANGE", "ZREVRANGE"}), key(), index(), index());
                maybe(2, "WITHSCORES");
                maybe(8, "REV");
                maybe(20, "LIMIT", "0", "1");
                break;
            }
            case 9:
            case 10: {
                boolean rev = rnd.nextBoolean();
                add(rev ? "ZREVRANGEBYSCORE" : "ZRANGEBYSCORE", key(), scoreBound(), scoreBound());
                maybe(2, "WITHSCORES");
                maybe(3, "LIMIT", index(), index());
                break;
            }
            case 11: {
                boolean rev = rnd.nextBoolean();
                add(rev ? "ZREVRANGEBYLEX" : "ZRANGEBYLEX", lexKey(), lexBound(), lexBound());
                maybe(3, "LIMIT", index(), index());
                maybe(30, "WITHSCORES");
                break;
            }
            case 12: {
                boolean store = rnd.nextInt(3) == 0;
                int type = rnd.nextInt(3);
                String src = type == 2 ? lexKey() : key();
                if (store) add("ZRANGESTORE", writeKey(), src);
                else add("ZRANGE", src);
                if (type == 0) add(index(), index());
                else if (type == 1) add(scoreBound(), scoreBound(), "BYSCORE");
                else add(lexBound(), lexBound(), "BYLEX");
                maybe(3, "REV");
                if (type != 0 || rnd.nextInt(10) == 0) maybe(2, "LIMIT", index(), index());
                if (!store && type != 2) maybe(2, "WITHSCORES");
                break;
            }
            case 13:
                add("ZCOUNT", key(), scoreBound(), scoreBound());
                break;
            case 14:
                add("ZLEXCOUNT", lexKey(), lexBound(), lexBound());
                break;
            case 15: {
                int t = rnd.nextInt(3);
                if (t == 0) add("ZREMRANGEBYRANK", key(), index(), index());
                else if (t == 1) add("ZREMRANGEBYSCORE", key(), scoreBound(), scoreBound());
                else add("ZREMRANGEBYLEX", lexKey(), lexBound(), lexBound());
                break;
            }
            case 16:
            case 17: {
                int op = rnd.nextInt(7);
                String[] names = {"ZUNION", "ZINTER", "ZDIFF", "ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE", "ZINTERCARD"};
                add(names[op]);
                if (op >= 3 && op <= 5) add(writeKey());
                int before = cmd.size();
                keysWithNumkeys(3);
                int n = cmd.size() - before - 1;
                if (op != 2 && op != 5 && op != 6) {
                    if (rnd.nextInt(3) == 0) {
                        add("WEIGHTS");
                        for (int i = 0; i < n; i++) add(rnd.nextInt(20) == 0 ? "x" : pick(new String[] {"1", "2", "-1", "0", "0.5", "inf"}));
                    }
                    maybe(3, "AGGREGATE", pick(new String[] {"SUM", "MIN", "MAX", "sum", "avg"}));
                }
                if (op <= 2) maybe(2, "WITHSCORES");
                if (op == 6) maybe(2, "LIMIT", pick(new String[] {"0", "1", "2", "-1"}));
                break;
            }
            case 18:
            case 19: {
                String name = pick(new String[] {"ZPOPMIN", "ZPOPMAX"});
                add(name, key());
                maybe(2, pick(new String[] {"0", "1", "2", "5", "-1", "x"}));
                break;
            }
            case 20: {
                add("ZMPOP");
                keysWithNumkeys(2);
                add(pick(new String[] {"MIN", "MAX", "max", "bad"}));
                maybe(2, "COUNT", pick(new String[] {"1", "2", "10", "0", "-1"}));
                break;
            }
            case 21: {
                // only the deterministic forms: everything (count >= size) or nothing
                add("ZRANDMEMBER", key(), pick(new String[] {"0", "1000"}));
                maybe(2, "WITHSCORES");
                break;
            }
            case 22:
                // a pattern matching at most one member and a COUNT above the size: one complete,
                // order-free reply in both encodings
                add("ZSCAN", key(), "0", "MATCH", pick(new String[] {"a", "10", "nomatch", "member-with-a-longer-name"}),
                        "COUNT", "1000");
                break;
            default:
                // encodings and types of the keys
                add(pick(new String[] {"OBJECT", "TYPE", "EXISTS"}));
                if (cmd.get(0).equals("OBJECT")) add("ENCODING");
                add(key());
        }
    }

    @ParameterizedTest(name = "seed {0}, listpack limits {1}/{2}")
    @CsvSource({"1, 128, 64", "2, 8, 4", "3, 0, 0", "4, 4, 64", "5, 16, 16", "6, 3, 2"})
    void randomSequences(long seed, int entries, int value) throws Exception {
        rnd = new SplittableRandom(seed);
        try (RawClient r = new RawClient(servers.redis().port()); RawClient s = new RawClient(servers.spinel().port())) {
            for (RawClient c : new RawClient[] {r, s}) {
                c.call("FLUSHALL");
                c.call("CONFIG", "SET", "zset-max-listpack-entries", Integer.toString(entries));
                c.call("CONFIG", "SET", "zset-max-listpack-value", Integer.toString(value));
                c.call("SET", "str", "x");
                c.call("SET", "strlex", "x");
            }
            Deque<String> history = new ArrayDeque<>();
            try {
                for (int step = 0; step < 2500; step++) {
                    generate();
                    if (step % 500 == 0) {
                        // switch protocol now and then: RESP3 changes most zset replies
                        String proto = (step / 500) % 2 == 0 ? "2" : "3";
                        r.call("HELLO", proto);
                        s.call("HELLO", proto);
                        history.addLast("HELLO " + proto);
                    }
                    List<byte[]> args = new ArrayList<>();
                    for (String a : cmd) args.add(a.getBytes(StandardCharsets.ISO_8859_1));
                    history.addLast(String.join(" ", cmd));
                    if (history.size() > 40) history.removeFirst();
                    compare(r, s, args, seed, step, history);
                    if (step % 13 == 0) {
                        // the whole state, encodings included, so a divergence shows where it starts
                        for (String k : new String[] {"z1", "z2", "z3", "z4", "lx1", "lx2"}) {
                            compare(r, s, bytes("ZRANGE", k, "0", "-1", "WITHSCORES"), seed, step, history);
                            compare(r, s, bytes("OBJECT", "ENCODING", k), seed, step, history);
                            compare(r, s, bytes("DUMP", k), seed, step, history); // Redis's payload bytes
                        }
                    }
                }
            } finally {
                for (RawClient c : new RawClient[] {r, s}) {
                    c.call("HELLO", "2");
                    c.call("CONFIG", "SET", "zset-max-listpack-entries", "128");
                    c.call("CONFIG", "SET", "zset-max-listpack-value", "64");
                }
            }
        }
    }

    private static List<byte[]> bytes(String... parts) {
        List<byte[]> l = new ArrayList<>();
        for (String p : parts) l.add(p.getBytes(StandardCharsets.ISO_8859_1));
        return l;
    }

    private static void compare(RawClient r, RawClient s, List<byte[]> args, long seed, int step, Deque<String> history)
            throws java.io.IOException {
        byte[] want = r.call(args);
        byte[] got = s.call(args);
        if (!Arrays.equals(want, got)) {
            List<String> shown = new ArrayList<>();
            for (byte[] a : args) shown.add(new String(a, StandardCharsets.ISO_8859_1));
            fail("seed " + seed + " step " + step + ": replies to " + String.join(" ", shown) + " differ\n    redis:  "
                    + show(want) + "\n    spinel: " + show(got) + "\nlast commands:\n  " + String.join("\n  ", history));
        }
    }

    private static String show(byte[] b) {
        String s = new String(b, StandardCharsets.ISO_8859_1).replace("\r\n", "\\r\\n");
        return s.length() > 600 ? s.substring(0, 600) + "..." : s;
    }
}
