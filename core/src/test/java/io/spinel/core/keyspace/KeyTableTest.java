package io.spinel.core.keyspace;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class KeyTableTest {
    private static byte[] k(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Random inserts, replaces and removes, checked against a HashMap after every step. */
    @Test
    void behavesLikeAMapThroughGrowthShrinkAndRehash() {
        KeySet table = new KeySet();
        Set<String> model = new HashSet<>();
        Random rnd = new Random(42);
        for (int step = 0; step < 200_000; step++) {
            // phases of growth and shrinkage so both directions of rehash happen mid-operation
            int range = (step / 20_000) % 2 == 0 ? 5000 : 300;
            String key = "key:" + rnd.nextInt(range);
            int op = rnd.nextInt(10);
            if (op < 5) {
                assertThat(table.add(k(key))).isEqualTo(model.add(key));
            } else if (op < 8) {
                assertThat(table.remove(k(key), 0, k(key).length)).isEqualTo(model.remove(key));
            } else {
                assertThat(table.contains(k(key), 0, k(key).length)).isEqualTo(model.contains(key));
            }
            assertThat(table.size()).isEqualTo(model.size());
        }
        for (String key : model) assertThat(table.contains(k(key), 0, k(key).length)).isTrue();
    }

    /** RDB RESIZEDB: room made up front, so the inserts that follow never grow the table. */
    @Test
    void reserveMakesRoomSoInsertsDoNotGrowTheTable() {
        KeySet table = new KeySet();
        for (int i = 0; i < 100; i++) table.add(k("pre:" + i));
        // grow into a rehash, then reserve in the middle of it: the rehash is finished first
        for (int i = 0; i < 10; i++) table.add(k("mid:" + i));
        table.reserve(50_000);
        assertThat(table.isRehashing()).isFalse();
        long capacity = table.capacity();
        assertThat(capacity * 3 / 4).isGreaterThanOrEqualTo(50_000);
        for (int i = 0; i < 50_000 - 110; i++) table.add(k("key:" + i));
        assertThat(table.capacity()).isEqualTo(capacity);
        assertThat(table.isRehashing()).isFalse();
        assertThat(table.size()).isEqualTo(50_000);
        for (int i = 0; i < 100; i++) assertThat(table.contains(k("pre:" + i), 0, k("pre:" + i).length)).isTrue();
        for (int i = 0; i < 10; i++) assertThat(table.contains(k("mid:" + i), 0, k("mid:" + i).length)).isTrue();
        table.reserve(10); // never shrinks
        assertThat(table.capacity()).isEqualTo(capacity);
    }

    /**
     * A table filled in another's slot order (DEBUG RELOAD or LOADAOF of a file this process wrote
     * walks the keyspace in slot order) must not hash as that table did: with one hash for both,
     * growing linear-probing tables took 10-20 times as long (a 1.2M-key AOF 45 s to replay, 1.5 s
     * with a seed per table; measured, see BENCHMARKS.md). Every table has its own seed; a
     * database's keys with expires share its table's, so that one hash serves both.
     */
    @Test
    void everyTableHashesWithItsOwnSeed() {
        byte[] key = k("some key");
        KeySet a = new KeySet();
        KeySet b = new KeySet();
        assertThat(a.seed()).isNotEqualTo(b.seed());
        assertThat(a.hash(key, 0, key.length)).isNotEqualTo(b.hash(key, 0, key.length));
        KeySet sharing = new KeySet(a.seed());
        assertThat(sharing.hash(key, 0, key.length)).isEqualTo(a.hash(key, 0, key.length));
        // and each finds what it holds, filled in the other's slot order, across its own resizes
        for (int i = 0; i < 50_000; i++) a.add(k("0." + i));
        java.util.List<byte[]> slotOrder = new java.util.ArrayList<>();
        a.forEach(e -> slotOrder.add((byte[]) e));
        for (byte[] e : slotOrder) b.add(e);
        assertThat(b.size()).isEqualTo(50_000);
        for (int i = 0; i < 50_000; i++) {
            byte[] x = k("0." + i);
            assertThat(b.contains(x, 0, x.length)).isTrue();
        }
    }

    @Test
    void putReplacesAndReturnsThePreviousEntry() {
        EntryTable t = new EntryTable();
        byte[] key = k("a");
        byte[] e1 = StringEntry.create(key, 0, 1, k("1"), 0, 1, -1, 0);
        byte[] e2 = StringEntry.create(key, 0, 1, k("2"), 0, 1, -1, 0);
        long h = t.hash(key, 0, key.length);
        assertThat(t.put(h, e1, key, 0, 1)).isNull();
        assertThat(t.put(h, e2, key, 0, 1)).isSameAs(e1);
        assertThat(t.get(h, key, 0, 1)).isSameAs(e2);
        assertThat(t.size()).isEqualTo(1);
    }

    /** SCAN's guarantee: every key present for the whole scan is returned, even across resizes. */
    @Test
    void scanReturnsEveryStableKeyWhileTheTableResizes() {
        for (int seed = 0; seed < 20; seed++) {
            KeySet table = new KeySet();
            Random rnd = new Random(seed);
            Set<String> stable = new HashSet<>();
            for (int i = 0; i < 1000; i++) {
                String s = "stable:" + i;
                table.add(k(s));
                stable.add(s);
            }
            Set<String> seen = new HashSet<>();
            long cursor = 0;
            int tmp = 0;
            int steps = 0;
            do {
                cursor = table.scan(cursor, e -> seen.add(new String((byte[]) e, StandardCharsets.UTF_8)));
                // churn: grow by thousands of temporary keys, then drop them, so the table doubles
                // and shrinks (with incremental rehash in flight) while the scan goes on
                if (tmp < 4000 && rnd.nextInt(3) > 0) {
                    for (int i = 0; i < 50; i++) table.add(k("tmp:" + tmp++));
                } else {
                    for (int i = 0; i < 50 && tmp > 0; i++) {
                        tmp--;
                        table.remove(k("tmp:" + tmp), 0, k("tmp:" + tmp).length);
                    }
                }
                assertThat(++steps).isLessThan(1_000_000);
            } while (cursor != 0);
            assertThat(seen).containsAll(stable);
        }
    }

    @Test
    void randomFindsEntriesOnlyFromTheTable() {
        KeySet table = new KeySet();
        assertThat(table.random(new SplittableRandom(1))).isNull();
        Map<String, Integer> counts = new HashMap<>();
        for (int i = 0; i < 10; i++) table.add(k("r" + i));
        SplittableRandom r = new SplittableRandom(7);
        for (int i = 0; i < 2000; i++) {
            counts.merge(new String((byte[]) table.random(r), StandardCharsets.UTF_8), 1, Integer::sum);
        }
        assertThat(counts.keySet()).hasSize(10);
    }

    /** Drawing random entries moves a growing table's rehash on, as lookups do, until it is over. */
    @Test
    void randomDrawsFinishARehash() {
        KeySet table = new KeySet();
        int n = 0;
        while (!table.isRehashing()) table.add(k("r" + n++));
        long before = table.capacity();
        SplittableRandom r = new SplittableRandom(3);
        int draws = 0;
        while (table.isRehashing()) {
            assertThat(table.random(r)).isNotNull();
            assertThat(++draws).isLessThan(10_000);
        }
        assertThat((long) table.capacity()).isLessThan(before); // the old table is gone
        assertThat(table.size()).isEqualTo(n);
        for (int i = 0; i < n; i++) assertThat(table.contains(k("r" + i), 0, k("r" + i).length)).isTrue();
    }

    /**
     * A frozen view holds exactly the entries of the moment of freeze(), each given once (taken
     * out of turn or in slot order), while the table inserts, replaces and removes across chunk
     * boundaries, grows and shrinks through rehashes, and is frozen again by another snapshot.
     */
    @Test
    void aFrozenViewKeepsTheEntriesOfItsMomentThroughEveryChange() {
        for (long seed = 1; seed <= 4; seed++) {
            KeySet table = new KeySet();
            SplittableRandom rnd = new SplittableRandom(seed);
            Map<String, byte[]> live = new HashMap<>();
            for (int i = 0; i < 20_000; i++) put(table, live, "key:" + i);
            if (seed == 2) for (int i = 20_000; i < 24_600; i++) put(table, live, "key:" + i); // mid-rehash
            java.util.IdentityHashMap<Object, Boolean> atFreeze = new java.util.IdentityHashMap<>();
            for (byte[] e : live.values()) atFreeze.put(e, true);
            KeyTable.Frozen view = table.freeze();
            java.util.IdentityHashMap<Object, Boolean> given = new java.util.IdentityHashMap<>();
            KeyTable.Frozen other = null;
            java.util.IdentityHashMap<Object, Boolean> atSecond = new java.util.IdentityHashMap<>();
            int next = 24_600;
            for (int step = 0; step < 60_000; step++) {
                // growth first, then mostly deletions (a shrink), with replacements throughout
                int op = rnd.nextInt(10);
                boolean growing = step < 30_000;
                if (op < (growing ? 5 : 1)) {
                    put(table, live, "key:" + next++);
                } else if (!live.isEmpty()) {
                    String key = "key:" + rnd.nextInt(next);
                    byte[] e = live.get(key);
                    if (e == null) continue;
                    long h = table.hashOf(e);
                    // the database reports most changes first (a capture); the view holds either way
                    if (rnd.nextBoolean() && view.take(h, e)) assertThat(given.put(e, true)).isNull();
                    if (op < 8) {
                        assertThat(table.remove(h, e, 0, e.length)).isSameAs(e);
                        live.remove(key);
                    } else {
                        put(table, live, key); // a new entry object for the same key
                    }
                }
                if (rnd.nextInt(4) == 0) {
                    Object e = view.next();
                    if (e != null) assertThat(given.put(e, true)).isNull();
                }
                if (step == 45_000) { // a second snapshot starts while the first goes on
                    other = table.freeze();
                    for (byte[] e : live.values()) atSecond.put(e, true);
                }
            }
            for (Object e; (e = view.next()) != null; ) assertThat(given.put(e, true)).isNull();
            assertThat(view.pending()).isZero();
            assertThat(given.keySet()).isEqualTo(atFreeze.keySet());
            // the second view holds what was live when it was made, and nothing since
            java.util.IdentityHashMap<Object, Boolean> second = new java.util.IdentityHashMap<>();
            for (Object e; (e = other.next()) != null; ) assertThat(second.put(e, true)).isNull();
            assertThat(second.keySet()).isEqualTo(atSecond.keySet());
            other.detach();
            view.detach();
        }
    }

    private static void put(KeySet table, Map<String, byte[]> live, String key) {
        byte[] e = k(key);
        table.put(table.hashOf(e), e, e, 0, e.length);
        live.put(key, e);
    }
}
