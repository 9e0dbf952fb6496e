package io.spinel.core.type.zset;

import io.spinel.core.config.Config;
import io.spinel.core.keyspace.EncodingConfig;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The two sorted set encodings against a trivially correct model (a sorted list of entries), under
 * long random sequences of every mutation, with the tree's invariants (order, separators, counts,
 * fill, leaf links, index) checked as they go. ScoreTreeTest drives trees deep enough to split and
 * merge inner nodes.
 */
class ZSetTest {
    /** One model element. */
    record E(byte[] m, double s) {
    }

    static final Comparator<E> ORDER = (a, b) -> {
        int c = Double.compare(a.s, b.s);
        if (a.s == b.s) c = 0; // -0 == 0 as the C comparisons see it
        return c != 0 ? c : Arrays.compareUnsigned(a.m, b.m);
    };

    static EncodingConfig cfg(int entries, int value) {
        EncodingConfig c = new EncodingConfig(new Config());
        c.zsetMaxListpackEntries = entries;
        c.zsetMaxListpackValue = value;
        return c;
    }

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** Model: member -> score plus the sorted view. */
    static final class Model {
        final Map<String, Double> scores = new HashMap<>();

        List<E> sorted() {
            List<E> l = new ArrayList<>();
            scores.forEach((k, v) -> l.add(new E(b(k), v)));
            l.sort(ORDER);
            return l;
        }
    }

    static void assertSame(ZSet z, Model model) {
        List<E> want = model.sorted();
        assertThat(z.size()).isEqualTo(want.size());
        List<E> fwd = new ArrayList<>();
        for (ZIter it = z.first(); it.valid(); it.next()) fwd.add(new E(it.member(), it.score()));
        List<E> back = new ArrayList<>();
        for (ZIter it = z.last(); it.valid(); it.prev()) back.add(0, new E(it.member(), it.score()));
        for (int i = 0; i < want.size(); i++) {
            assertThat(fwd.get(i).m).isEqualTo(want.get(i).m);
            assertThat(fwd.get(i).s).isEqualTo(want.get(i).s);
            assertThat(back.get(i).m).isEqualTo(want.get(i).m);
        }
        assertThat(fwd).hasSize(want.size());
        assertThat(back).hasSize(want.size());
        if (!z.isPacked()) z.tree.check();
    }

    @Test
    void packedScoreEncodingRoundTrips() {
        double[] samples = {0, -0.0, 1, -1, 127, -120, 128, -121, 32767, -32768, 32768, Integer.MAX_VALUE,
            Integer.MIN_VALUE, Integer.MAX_VALUE + 1.0, 1.5, -2.25, 1e300, -1e-300, Double.MIN_VALUE,
            Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 4503599627370496.0, 0.1};
        byte[] buf = new byte[16];
        for (double d : samples) {
            int end = Packed.putScore(buf, 3, d);
            assertThat(end - 3).isEqualTo(Packed.scoreSize(d)).isEqualTo(Packed.scoreFieldSize(buf, 3));
            double back = d == 0 ? 0.0 : d; // -0 becomes 0 as in Redis's listpack
            assertThat(Double.doubleToRawLongBits(Packed.getScore(buf, 3))).isEqualTo(Double.doubleToRawLongBits(back));
        }
    }

    @Test
    void backlenWalksBackOverLongMembers() {
        ZSet z = ZSet.newPacked();
        EncodingConfig big = cfg(1000, 1 << 20);
        double[] ns = new double[1];
        int[] lens = {0, 1, 127, 128, 200, 16383, 16384, 70000};
        for (int i = 0; i < lens.length; i++) {
            byte[] m = new byte[lens[i]];
            Arrays.fill(m, (byte) ('a' + i));
            z.add(i, m, 0, m.length, 0, big, ns);
        }
        assertThat(z.isPacked()).isTrue();
        int i = lens.length - 1;
        for (ZIter it = z.last(); it.valid(); it.prev(), i--) {
            assertThat(it.len()).isEqualTo(lens[i]);
            assertThat(it.score()).isEqualTo(i);
        }
        assertThat(i).isEqualTo(-1);
    }

    @Test
    void randomOperationsMatchModelInBothEncodings() {
        for (int entries : new int[] {0, 16, 128}) {
            for (long seed = 1; seed <= 6; seed++) runRandom(seed, cfg(entries, 8), 3000);
        }
    }

    private static void runRandom(long seed, EncodingConfig cfg, int steps) {
        Random rnd = new Random(seed);
        ZSet z = ZSet.newFor(cfg, 1);
        Model model = new Model();
        double[] ns = new double[1];
        for (int step = 0; step < steps; step++) {
            String m = "m" + rnd.nextInt(60) + (rnd.nextInt(20) == 0 ? "-long-member" : "");
            byte[] mb = b(m);
            double score = rnd.nextInt(5) == 0 ? rnd.nextInt(10) : rnd.nextInt(2000) / 8.0 - 100;
            switch (rnd.nextInt(8)) {
                case 0:
                case 1:
                case 2: {
                    int flags = rnd.nextInt(4) == 0 ? ZSet.IN_INCR : 0;
                    int out = z.add(score, mb, 0, mb.length, flags, cfg, ns);
                    Double cur = model.scores.get(m);
                    double want = (flags != 0 && cur != null) ? cur + score : score;
                    assertThat(ns[0]).isEqualTo(want);
                    assertThat((out & ZSet.OUT_ADDED) != 0).isEqualTo(cur == null);
                    model.scores.put(m, want);
                    break;
                }
                case 3:
                    assertThat(z.remove(mb, 0, mb.length)).isEqualTo(model.scores.remove(m) != null);
                    break;
                case 4: {
                    ScoreRange r = new ScoreRange();
                    r.min = score;
                    r.max = score + rnd.nextInt(40);
                    r.minex = rnd.nextBoolean();
                    r.maxex = rnd.nextBoolean();
                    long want = model.scores.values().stream().filter(s -> r.gteMin(s) && r.lteMax(s)).count();
                    assertThat(z.count(r)).isEqualTo(want);
                    if (rnd.nextInt(4) == 0) {
                        assertThat(z.removeRangeByScore(r)).isEqualTo(want);
                        model.scores.values().removeIf(s -> r.gteMin(s) && r.lteMax(s));
                    }
                    break;
                }
                case 5: {
                    List<E> sorted = model.sorted();
                    if (sorted.isEmpty()) break;
                    int a = rnd.nextInt(sorted.size());
                    int e = Math.min(sorted.size() - 1, a + rnd.nextInt(5));
                    assertThat(z.atRank(a).member()).isEqualTo(sorted.get(a).m);
                    assertThat(z.rank(sorted.get(a).m, 0, sorted.get(a).m.length, false)).isEqualTo(a);
                    assertThat(z.rank(sorted.get(a).m, 0, sorted.get(a).m.length, true))
                            .isEqualTo(sorted.size() - 1 - a);
                    if (rnd.nextInt(6) == 0) {
                        assertThat(z.removeRangeByRank(a, e)).isEqualTo(e - a + 1);
                        for (int k = a; k <= e; k++) model.scores.remove(new String(sorted.get(k).m,
                                StandardCharsets.ISO_8859_1));
                    }
                    break;
                }
                case 6: {
                    // lex ranges only make sense with equal scores; check them on the members anyway
                    LexRange r = new LexRange();
                    byte[] lo = b("[m" + rnd.nextInt(60));
                    byte[] hi = b((rnd.nextBoolean() ? "(" : "[") + "m" + rnd.nextInt(60));
                    assertThat(r.parse(lo, 0, lo.length, hi, 0, hi.length)).isTrue();
                    ZIter f = z.firstInLexRange(r);
                    if (f.valid()) {
                        assertThat(r.gteMin(f.buf(), f.off(), f.len())).isTrue();
                        assertThat(r.lteMax(f.buf(), f.off(), f.len())).isTrue();
                    }
                    break;
                }
                default: {
                    if (z.size() == 0) break;
                    ZIter it = rnd.nextBoolean() ? z.first() : z.last();
                    String m2 = new String(it.member(), StandardCharsets.ISO_8859_1);
                    z.remove(it);
                    assertThat(model.scores.remove(m2)).isNotNull();
                }
            }
            if (step % 97 == 0) assertSame(z, model);
        }
        assertSame(z, model);
        assertSame(z.copy(), model);
    }

    @Test
    void convertsExactlyAtTheThresholds() {
        EncodingConfig c = cfg(4, 5);
        double[] ns = new double[1];
        ZSet z = ZSet.newFor(c, 1);
        for (int i = 0; i < 4; i++) z.add(i, b("m" + i), 0, 2, 0, c, ns);
        assertThat(z.encoding()).isEqualTo("listpack");
        z.add(9, b("m0"), 0, 2, 0, c, ns); // an update does not convert
        assertThat(z.encoding()).isEqualTo("listpack");
        z.add(9, b("m9"), 0, 2, ZSet.IN_XX, c, ns); // nor does a refused insert
        assertThat(z.encoding()).isEqualTo("listpack");
        z.add(9, b("m9"), 0, 2, 0, c, ns);
        assertThat(z.encoding()).isEqualTo("skiplist");

        ZSet y = ZSet.newFor(c, 1);
        y.add(1, b("12345"), 0, 5, 0, c, ns);
        assertThat(y.encoding()).isEqualTo("listpack");
        y.add(1, b("123456"), 0, 6, 0, c, ns);
        assertThat(y.encoding()).isEqualTo("skiplist");
        assertThat(ZSet.newFor(c, 6).encoding()).isEqualTo("skiplist");
        assertThat(ZSet.newFor(cfg(0, 64), 1).encoding()).isEqualTo("skiplist");

        // results of *STORE go back to listpack when small enough
        z.remove(b("m9"), 0, 2);
        z.convertToPackedIfNeeded(c, 2, 8);
        assertThat(z.encoding()).isEqualTo("listpack");
        assertThat(z.first().member()).isEqualTo(b("m1"));
        assertThat(z.last().score()).isEqualTo(9);
    }

    @Test
    void tiesOrderByUnsignedMemberBytes() {
        for (EncodingConfig c : new EncodingConfig[] {cfg(128, 64), cfg(0, 0)}) {
            ZSet z = ZSet.newFor(c, 1);
            double[] ns = new double[1];
            byte[][] ms = {b("b"), b("a"), {(byte) 0xff}, b(""), b("ab"), {0}};
            for (byte[] m : ms) z.add(1, m, 0, m.length, 0, c, ns);
            List<String> got = new ArrayList<>();
            for (ZIter it = z.first(); it.valid(); it.next()) got.add(Arrays.toString(it.member()));
            assertThat(got).containsExactly("[]", "[0]", "[97]", "[97, 98]", "[98]", "[-1]");
        }
    }

    @Test
    void largeSkiplistRanksAndRangesAreLogarithmicAndCorrect() {
        EncodingConfig c = cfg(128, 64);
        ZSet z = ZSet.newFor(c, 1);
        double[] ns = new double[1];
        int n = 100_000;
        SplittableRandom rnd = new SplittableRandom(7);
        int[] perm = new int[n];
        for (int i = 0; i < n; i++) perm[i] = i;
        for (int i = n - 1; i > 0; i--) {
            int j = rnd.nextInt(i + 1);
            int t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        for (int i : perm) {
            byte[] m = b("e" + i);
            z.add(i, m, 0, m.length, 0, c, ns);
        }
        assertThat(z.encoding()).isEqualTo("skiplist");
        assertThat(z.size()).isEqualTo(n);
        for (int k = 0; k < 1000; k++) {
            int r = rnd.nextInt(n);
            assertThat(z.atRank(r).score()).isEqualTo(r);
            byte[] m = b("e" + r);
            assertThat(z.rank(m, 0, m.length, false)).isEqualTo(r);
        }
        ScoreRange r = new ScoreRange();
        r.min = 1000;
        r.max = 75_000;
        r.minex = true;
        assertThat(z.count(r)).isEqualTo(74_000);
        assertThat(z.removeRangeByRank(0, 999)).isEqualTo(1000);
        assertThat(z.removeRangeByScore(r)).isEqualTo(74_000);
        assertThat(z.size()).isEqualTo(n - 75_000);
        assertThat(z.first().score()).isEqualTo(1000);
        assertThat(z.atRank(1).score()).isEqualTo(75_001);
        z.tree.check();
        // move every element: in-place and relinking updates both keep the invariants
        for (ZIter it = z.last(); it.score() > 0; it = z.last()) {
            byte[] m = it.member();
            z.add(-it.score(), m, 0, m.length, 0, c, ns);
        }
        assertThat(z.last().score()).isEqualTo(-1000);
        z.tree.check();
        long mem = z.memoryUsage();
        assertThat(mem).isGreaterThan(50L * z.size()).isLessThan(200L * z.size());
    }

    @Test
    void scoreRangeParsesLikeStrtod() {
        String[][] ok = {{"1", "1"}, {"(1", "1"}, {" 2", "2"}, {"", "0"}, {"(", "0"}, {"inf", "Infinity"},
            {"-INF", "-Infinity"}, {"+infinity", "Infinity"}, {"0x10", "16"}, {"1e400", "Infinity"},
            {"1e-400", "0"}, {"1.", "1"}, {".5", "0.5"}, {"1\0junk", "1"},
            // the short decimals parsed without a String, and longer ones that are not
            {"-0", "-0.0"}, {"0.1", "0.1"}, {"(-2.25", "-2.25"}, {"1.5e3", "1500"}, {"+7", "7"}, {"1e22", "1e22"},
            {"1e23", "1e23"}, {"123456789012345678", "123456789012345678"}, {"0.30000000000000004", "0.30000000000000004"},
            {"1733400000000.125", "1733400000000.125"}, {"000123.4500", "123.45"}};
        for (String[] t : ok) {
            ScoreRange r = new ScoreRange();
            byte[] v = b(t[0]);
            assertThat(r.parse(v, 0, v.length, v, 0, v.length)).as(t[0]).isTrue();
            assertThat(r.min).as(t[0]).isEqualTo(Double.parseDouble(t[1]));
            assertThat(r.minex).isEqualTo(t[0].startsWith("("));
        }
        for (String bad : new String[] {"nan", "1 ", "abc", " ", "((1", "1e", "0x", "-", ".", "infinit", "(nan"}) {
            ScoreRange r = new ScoreRange();
            byte[] v = b(bad);
            byte[] one = b("1");
            assertThat(r.parse(v, 0, v.length, one, 0, 1)).as(bad).isFalse();
        }
    }

    @Test
    void lexRangeBounds() {
        LexRange r = new LexRange();
        byte[] minus = b("-"), plus = b("+"), a = b("[a"), c = b("(c");
        assertThat(r.parse(minus, 0, 1, plus, 0, 1)).isTrue();
        assertThat(r.isEmpty()).isFalse();
        assertThat(r.gteMin(b(""), 0, 0)).isTrue();
        assertThat(r.parse(plus, 0, 1, minus, 0, 1)).isTrue();
        assertThat(r.isEmpty()).isTrue();
        assertThat(r.parse(minus, 0, 1, minus, 0, 1)).isTrue();
        assertThat(r.isEmpty()).isTrue();
        assertThat(r.parse(a, 0, 2, c, 0, 2)).isTrue();
        assertThat(r.gteMin(b("a"), 0, 1)).isTrue();
        assertThat(r.lteMax(b("c"), 0, 1)).isFalse();
        assertThat(r.lteMax(b("bz"), 0, 2)).isTrue();
        byte[] bad = b("a");
        assertThat(r.parse(bad, 0, 1, c, 0, 2)).isFalse();
        assertThat(r.parse(b("+x"), 0, 2, c, 0, 2)).isFalse();
        assertThat(r.parse(new byte[0], 0, 0, c, 0, 2)).isFalse();
    }

    @Test
    void randomMembersCoverTheSet() {
        for (EncodingConfig c : new EncodingConfig[] {cfg(128, 64), cfg(0, 0)}) {
            ZSet z = ZSet.newFor(c, 1);
            double[] ns = new double[1];
            for (int i = 0; i < 20; i++) z.add(i, b("x" + i), 0, ("x" + i).length(), 0, c, ns);
            TreeSet<Double> seen = new TreeSet<>();
            SplittableRandom rnd = new SplittableRandom(3);
            for (int i = 0; i < 2000; i++) seen.add(z.random(rnd).score());
            assertThat(seen).hasSize(20);
        }
    }
}
