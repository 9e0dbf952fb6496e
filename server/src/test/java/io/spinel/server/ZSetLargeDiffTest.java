package io.spinel.server;

import io.spinel.server.testing.RawClient;
import io.spinel.server.testing.ServerPair;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Sorted sets of thousands of members (the large encoding several levels deep: leaves split,
 * borrow and merge as members come and go) under seeded random reads and writes on redis-server
 * and Spinel side by side; every reply must be byte-identical, and the whole sets are compared
 * every hundred steps. ZSetRandomDiffTest covers the options and errors on small sets.
 */
class ZSetLargeDiffTest {
    @RegisterExtension
    static final ServerPair servers = new ServerPair();

    private static final String[] KEYS = {"big1", "big2"};
    /** All members at score 0: lex ranges are only specified for such sets. */
    private static final String LEX = "lexbig";

    private SplittableRandom rnd;
    private final Deque<String> history = new ArrayDeque<>();
    private RawClient redis;
    private RawClient spinel;
    private long seed;
    private int step;

    private String member() {
        int n = rnd.nextInt(9000);
        return rnd.nextInt(40) == 0 ? "m\u00ff" + n : "m" + n;
    }

    private String score() {
        switch (rnd.nextInt(4)) {
            case 0: return Integer.toString(rnd.nextInt(300)); // ties: member order decides
            case 1: return Double.toString(rnd.nextInt(40_000) / 4.0 - 5_000);
            case 2: return rnd.nextBoolean() ? "-0" : "0";
            default: return Double.toString(rnd.nextDouble() * 1e4);
        }
    }

    private String scoreBound() {
        String s = rnd.nextInt(10) == 0 ? (rnd.nextBoolean() ? "-inf" : "+inf") : score();
        return rnd.nextInt(3) == 0 ? "(" + s : s;
    }

    private String lexBound() {
        int r = rnd.nextInt(12);
        if (r == 0) return "-";
        if (r == 1) return "+";
        return (rnd.nextBoolean() ? "[" : "(") + member();
    }

    private String rank() {
        return Integer.toString(rnd.nextInt(12_000) - 6_000);
    }

    private void run(String... args) throws IOException {
        List<byte[]> a = new ArrayList<>();
        for (String s : args) a.add(s.getBytes(StandardCharsets.ISO_8859_1));
        history.addLast(String.join(" ", args).length() > 200 ? args[0] + " " + args[1] + " ..." : String.join(" ", args));
        if (history.size() > 30) history.removeFirst();
        byte[] want = redis.call(a);
        byte[] got = spinel.call(a);
        if (!Arrays.equals(want, got)) {
            fail("seed " + seed + " step " + step + ": replies to " + history.getLast() + " differ\n    redis:  "
                    + show(want) + "\n    spinel: " + show(got) + "\nlast commands:\n  " + String.join("\n  ", history));
        }
    }

    private static String show(byte[] b) {
        String s = new String(b, StandardCharsets.ISO_8859_1).replace("\r\n", "\\r\\n");
        return s.length() > 600 ? s.substring(0, 600) + "..." : s;
    }

    /** ZADD of 100 random members with random scores (or 0 for the lex set). */
    private void fill(String key) throws IOException {
        List<String> args = new ArrayList<>(List.of("ZADD", key));
        for (int i = 0; i < 100; i++) {
            args.add(key.equals(LEX) ? "0" : score());
            args.add(member());
        }
        run(args.toArray(new String[0]));
    }

    private void randomStep() throws IOException {
        String k = KEYS[rnd.nextInt(KEYS.length)];
        switch (rnd.nextInt(20)) {
            case 0: case 1: case 2:
                run("ZADD", k, score(), member());
                break;
            case 3:
                run("ZADD", k, rnd.nextBoolean() ? "GT" : "LT", "CH", score(), member(), score(), member());
                break;
            case 4:
                run("ZINCRBY", k, score(), member());
                break;
            case 5:
                run("ZREM", k, member(), member(), member());
                break;
            case 6:
                run(rnd.nextBoolean() ? "ZRANK" : "ZREVRANK", k, member());
                break;
            case 7:
                run("ZMSCORE", k, member(), member());
                break;
            case 8:
                run("ZRANGE", k, rank(), rank(), "WITHSCORES");
                break;
            case 9: {
                String lo = scoreBound();
                String hi = scoreBound();
                if (rnd.nextBoolean()) run("ZRANGE", k, hi, lo, "BYSCORE", "REV", "LIMIT", Integer.toString(rnd.nextInt(50)), "20", "WITHSCORES");
                else run("ZRANGE", k, lo, hi, "BYSCORE", "LIMIT", Integer.toString(rnd.nextInt(50)), "20", "WITHSCORES");
                break;
            }
            case 10:
                run("ZCOUNT", k, scoreBound(), scoreBound());
                break;
            case 11:
                run(rnd.nextBoolean() ? "ZRANGEBYLEX" : "ZREVRANGEBYLEX", LEX, lexBound(), lexBound(), "LIMIT",
                        Integer.toString(rnd.nextInt(30)), "25");
                break;
            case 12:
                run("ZLEXCOUNT", LEX, lexBound(), lexBound());
                break;
            case 13: {
                int start = rnd.nextInt(6_000) - 3_000;
                run("ZREMRANGEBYRANK", k, Integer.toString(start), Integer.toString(start + rnd.nextInt(rnd.nextInt(8) == 0 ? 900 : 60)));
                break;
            }
            case 14: {
                String lo = score();
                run("ZREMRANGEBYSCORE", k, lo, "(" + (Double.parseDouble(lo) + rnd.nextInt(30)));
                break;
            }
            case 15: {
                String lo = member();
                run("ZREMRANGEBYLEX", LEX, "[" + lo, "(" + lo + "5");
                break;
            }
            case 16:
                run(rnd.nextBoolean() ? "ZPOPMIN" : "ZPOPMAX", k, Integer.toString(1 + rnd.nextInt(40)));
                break;
            case 17:
                run(rnd.nextBoolean() ? "ZUNIONSTORE" : "ZINTERSTORE", "dst", "2", "big1", "big2", "WEIGHTS", "1", "2",
                        "AGGREGATE", rnd.nextBoolean() ? "SUM" : "MIN");
                break;
            case 18:
                run("ZCARD", k);
                break;
            default:
                run("ZSCORE", k, member());
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3})
    void largeSetsStayIdentical(long seed) throws Exception {
        this.seed = seed;
        rnd = new SplittableRandom(seed);
        history.clear();
        try (RawClient r = new RawClient(servers.redis().port()); RawClient s = new RawClient(servers.spinel().port())) {
            redis = r;
            spinel = s;
            run("FLUSHALL");
            for (int i = 0; i < 60; i++) {
                fill("big1");
                fill("big2");
                fill(LEX);
            }
            for (step = 0; step < 3000; step++) {
                randomStep();
                if (step % 50 == 0) {
                    for (String k : new String[] {"big1", "big2", LEX}) {
                        if (rnd.nextInt(3) == 0) fill(k); // keep them in the thousands as pops and range deletes shrink them
                    }
                }
                if (step % 300 == 0) {
                    for (String k : new String[] {"big1", "big2", LEX, "dst"}) {
                        run("ZRANGE", k, "0", "-1", "WITHSCORES");
                        run("OBJECT", "ENCODING", k);
                    }
                }
            }
            for (String k : new String[] {"big1", "big2", LEX, "dst"}) run("ZRANGE", k, "0", "-1", "WITHSCORES");
        }
    }
}
