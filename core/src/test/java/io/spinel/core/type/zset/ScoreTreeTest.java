package io.spinel.core.type.zset;

import io.spinel.core.keyspace.EncodingConfig;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeSet;

import static io.spinel.core.type.zset.ZSetTest.E;
import static io.spinel.core.type.zset.ZSetTest.ORDER;
import static io.spinel.core.type.zset.ZSetTest.b;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sorted set's tree encoding grown to thousands of elements (three levels, inner nodes that
 * split, borrow and merge, the root growing and collapsing) against a sorted model, with every
 * invariant of {@link ScoreTree#check()} verified along the way.
 */
class ScoreTreeTest {
    private static final EncodingConfig TREE = ZSetTest.cfg(0, 64);
    /** Node sizes (leaf, inner): tiny ones make deep trees whose inner nodes rebalance often. */
    private static final int[][] SHAPES = {{5, 6}, {9, 7}, {ScoreTree.LEAF_CAP, ScoreTree.INNER_CAP}};

    private static ZSet newSet(int[] shape) {
        ZSet z = ZSet.newSkiplist();
        z.tree = new ScoreTree(shape[0], shape[1]);
        return z;
    }

    /** Model: member -> score plus the sorted set of both. */
    private static final class Model {
        final Map<String, Double> scores = new HashMap<>();
        final TreeSet<E> sorted = new TreeSet<>(ORDER);

        void put(String m, double s) {
            Double old = scores.put(m, s);
            if (old != null) sorted.remove(new E(b(m), old));
            sorted.add(new E(b(m), s));
        }

        void remove(String m) {
            Double old = scores.remove(m);
            if (old != null) sorted.remove(new E(b(m), old));
        }

        List<E> list() {
            return new ArrayList<>(sorted);
        }
    }

    private static String name(E e) {
        return new String(e.m(), StandardCharsets.ISO_8859_1);
    }

    private static void assertMatches(ZSet z, Model model) {
        z.tree.check();
        List<E> want = model.list();
        assertThat(z.size()).isEqualTo(want.size());
        int i = 0;
        for (ZIter it = z.first(); it.valid(); it.next(), i++) {
            assertThat(it.member()).isEqualTo(want.get(i).m());
            assertThat(it.score()).isEqualTo(want.get(i).s());
        }
        assertThat(i).isEqualTo(want.size());
        for (ZIter it = z.last(); it.valid(); it.prev()) i--;
        assertThat(i).isZero();
    }

    private static double randomScore(SplittableRandom rnd) {
        switch (rnd.nextInt(4)) {
            case 0: return rnd.nextInt(50); // many ties: member order decides
            case 1: return rnd.nextInt(200_000) / 4.0 - 10_000;
            case 2: return rnd.nextBoolean() ? -0.0 : 0.0;
            default: return rnd.nextDouble() * 1e6;
        }
    }

    @Test
    void growsChurnsAndShrinksLikeTheModel() {
        for (long seed = 1; seed <= 3; seed++) {
            SplittableRandom rnd = new SplittableRandom(seed);
            ZSet z = newSet(SHAPES[(int) seed - 1]);
            Model model = new Model();
            double[] ns = new double[1];
            int members = 30_000;
            // grow, churn at the size reached, shrink to nothing, grow again
            int[][] phases = {{40_000, 85}, {40_000, 50}, {60_000, 15}, {30_000, 70}};
            for (int[] phase : phases) {
                for (int step = 0; step < phase[0]; step++) {
                    String m = "member:" + rnd.nextInt(members);
                    byte[] mb = b(m);
                    int op = rnd.nextInt(100);
                    if (op < phase[1]) {
                        int flags = rnd.nextInt(8) == 0 ? ZSet.IN_INCR : 0;
                        double score = randomScore(rnd);
                        Double cur = model.scores.get(m);
                        z.add(score, mb, 0, mb.length, flags, TREE, ns);
                        model.put(m, flags != 0 && cur != null ? cur + score : score);
                    } else if (rnd.nextInt(8) != 0) {
                        assertThat(z.remove(mb, 0, mb.length)).isEqualTo(model.scores.containsKey(m));
                        model.remove(m);
                    } else {
                        rangeStep(z, model, rnd);
                    }
                    if (step % 5_000 == 0) z.tree.check();
                }
                assertMatches(z, model);
            }
            assertMatches(z.copy(), model);
        }
    }

    /** Ranks, rank ranges and score ranges, read and sometimes removed. */
    private static void rangeStep(ZSet z, Model model, SplittableRandom rnd) {
        if (model.sorted.isEmpty()) return;
        List<E> sorted = model.list();
        int n = sorted.size();
        switch (rnd.nextInt(3)) {
            case 0: {
                int a = rnd.nextInt(n);
                assertThat(z.atRank(a).member()).isEqualTo(sorted.get(a).m());
                assertThat(z.rank(sorted.get(a).m(), 0, sorted.get(a).m().length, false)).isEqualTo(a);
                if (rnd.nextInt(3) == 0) {
                    int e = Math.min(n - 1, a + rnd.nextInt(rnd.nextInt(10) == 0 ? 2_000 : 150));
                    assertThat(z.removeRangeByRank(a, e)).isEqualTo(e - a + 1);
                    for (int k = a; k <= e; k++) model.remove(name(sorted.get(k)));
                }
                break;
            }
            default: {
                ScoreRange r = new ScoreRange();
                r.min = randomScore(rnd);
                r.max = r.min + (rnd.nextBoolean() ? rnd.nextInt(30) : rnd.nextDouble() * 5_000);
                r.minex = rnd.nextBoolean();
                r.maxex = rnd.nextBoolean();
                List<E> in = new ArrayList<>();
                for (E e : sorted) if (r.gteMin(e.s()) && r.lteMax(e.s())) in.add(e);
                assertThat(z.count(r)).isEqualTo(in.size());
                ZIter f = z.firstInRange(r);
                ZIter l = z.lastInRange(r);
                assertThat(f.valid()).isEqualTo(!in.isEmpty());
                assertThat(l.valid()).isEqualTo(!in.isEmpty());
                if (!in.isEmpty()) {
                    assertThat(f.member()).isEqualTo(in.get(0).m());
                    assertThat(l.member()).isEqualTo(in.get(in.size() - 1).m());
                }
                if (rnd.nextInt(4) == 0) {
                    assertThat(z.removeRangeByScore(r)).isEqualTo(in.size());
                    for (E e : in) model.remove(name(e));
                }
            }
        }
    }

    @Test
    void lexRangesOnEqualScores() {
        for (int[] shape : SHAPES) lexRangesOnEqualScores(shape);
    }

    private static void lexRangesOnEqualScores(int[] shape) {
        SplittableRandom rnd = new SplittableRandom(11);
        ZSet z = newSet(shape);
        Model model = new Model();
        double[] ns = new double[1];
        for (int i = 0; i < 20_000; i++) {
            String m = Integer.toString(rnd.nextInt(1_000_000), 36);
            byte[] mb = b(m);
            z.add(0, mb, 0, mb.length, 0, TREE, ns);
            model.put(m, 0);
        }
        for (int step = 0; step < 400; step++) {
            String lo = Integer.toString(rnd.nextInt(1_000_000), 36);
            String hi = Integer.toString(rnd.nextInt(1_000_000), 36);
            if (lo.compareTo(hi) > 0) {
                String t = lo;
                lo = hi;
                hi = t;
            }
            byte[] lob = b((rnd.nextBoolean() ? "(" : "[") + lo);
            byte[] hib = b(rnd.nextInt(10) == 0 ? "+" : (rnd.nextBoolean() ? "(" : "[") + hi);
            LexRange r = new LexRange();
            assertThat(r.parse(lob, 0, lob.length, hib, 0, hib.length)).isTrue();
            List<E> in = new ArrayList<>();
            for (E e : model.sorted) if (r.gteMin(e.m(), 0, e.m().length) && r.lteMax(e.m(), 0, e.m().length)) in.add(e);
            assertThat(z.lexCount(r)).isEqualTo(in.size());
            ZIter f = z.firstInLexRange(r);
            ZIter l = z.lastInLexRange(r);
            assertThat(f.valid()).isEqualTo(!in.isEmpty());
            if (!in.isEmpty()) {
                assertThat(f.member()).isEqualTo(in.get(0).m());
                assertThat(l.member()).isEqualTo(in.get(in.size() - 1).m());
            }
            if (step % 5 == 0) {
                assertThat(z.removeRangeByLex(r)).isEqualTo(in.size());
                for (E e : in) model.remove(name(e));
                z.tree.check();
            }
        }
        assertMatches(z, model);
    }

    @Test
    void loadsInOrderFillTheirLeaves() {
        for (boolean ascending : new boolean[] {true, false}) {
            ZSet z = ZSet.newSkiplist();
            Model model = new Model();
            int n = 50_000;
            for (int i = 0; i < n; i++) {
                int k = ascending ? i : n - 1 - i;
                byte[] m = b("m" + k);
                z.insertLoaded(k, m, 0, m.length);
                model.put("m" + k, k);
            }
            assertMatches(z, model);
            // full leaves: about 12 bytes of leaf per element, plus the entry and its member
            long perElement = z.memoryUsage() / n;
            assertThat(perElement).as("bytes per element, ascending=%s", ascending).isLessThan(80);
            // then every other element goes: leaves merge back to the minimum fill or above
            for (int i = 0; i < n; i += 2) {
                byte[] m = b("m" + i);
                assertThat(z.remove(m, 0, m.length)).isTrue();
                model.remove("m" + i);
            }
            assertMatches(z, model);
            assertThat(z.removeRangeByRank(0, z.size() - 1)).isEqualTo(n / 2);
            z.tree.check();
            assertThat(z.size()).isZero();
        }
    }

    @Test
    void scoreUpdatesInPlaceAndMovedKeepOrder() {
        for (int[] shape : SHAPES) scoreUpdatesInPlaceAndMovedKeepOrder(shape);
    }

    private static void scoreUpdatesInPlaceAndMovedKeepOrder(int[] shape) {
        SplittableRandom rnd = new SplittableRandom(5);
        ZSet z = newSet(shape);
        Model model = new Model();
        double[] ns = new double[1];
        for (int i = 0; i < 10_000; i++) {
            byte[] m = b("e" + i);
            z.add(i, m, 0, m.length, 0, TREE, ns);
            model.put("e" + i, i);
        }
        // small moves mostly stay inside a leaf; large ones cross the tree
        for (int step = 0; step < 50_000; step++) {
            String m = "e" + rnd.nextInt(10_000);
            byte[] mb = b(m);
            double delta = rnd.nextBoolean() ? rnd.nextDouble() - 0.5 : rnd.nextInt(20_000) - 10_000;
            z.add(delta, mb, 0, mb.length, ZSet.IN_INCR, TREE, ns);
            model.put(m, model.scores.get(m) + delta);
            if (step % 10_000 == 0) z.tree.check();
        }
        assertMatches(z, model);
    }
}
