package io.spinel.core.type.hash;

import io.spinel.core.protocol.Reply;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class HashValueTest {
    private static final int ENTRIES = 128;
    private static final int VALUE = 64;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static String s(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.ISO_8859_1);
    }

    private static boolean set(HashValue h, String f, String v, int maxEntries, int maxValue) {
        byte[] fb = b(f), vb = b(v);
        return h.set(fb, 0, fb.length, vb, 0, vb.length, maxEntries, maxValue);
    }

    private static boolean set(HashValue h, String f, String v) {
        return set(h, f, v, ENTRIES, VALUE);
    }

    private static String get(HashValue h, String f) {
        byte[] fb = b(f);
        return s(h.get(fb, 0, fb.length));
    }

    private static boolean delete(HashValue h, String f) {
        byte[] fb = b(f);
        return h.delete(fb, 0, fb.length);
    }

    private static Map<String, String> contents(HashValue h) {
        Map<String, String> m = new LinkedHashMap<>();
        h.forEachPair(p -> m.put(s(p[0]), s(p[1])));
        return m;
    }

    private static String repeat(char c, int n) {
        return String.valueOf(c).repeat(n);
    }

    @Test
    void aSameLengthValueIsWrittenInPlaceAndACopyDoesNotSeeIt() {
        HashValue h = new HashValue();
        for (int i = 0; i < ENTRIES + 1; i++) set(h, "f" + i, "v" + (1000 + i));
        assertThat(h.isListpack()).isFalse();
        HashValue copy = (HashValue) h.copy();
        long memory = h.memoryUsage();

        assertThat(set(h, "f7", "w9999")).isFalse(); // same length: written over the old value
        assertThat(set(h, "f8", "longer-value")).isFalse(); // another length: a new entry
        assertThat(set(h, "f9", "")).isFalse();
        assertThat(get(h, "f7")).isEqualTo("w9999");
        assertThat(get(h, "f8")).isEqualTo("longer-value");
        assertThat(get(h, "f9")).isEmpty();
        assertThat(h.length()).isEqualTo(ENTRIES + 1);
        assertThat(h.memoryUsage()).isGreaterThan(memory);

        Map<String, String> copied = contents(copy);
        assertThat(copied).hasSize(ENTRIES + 1);
        for (int i = 0; i < ENTRIES + 1; i++) assertThat(copied.get("f" + i)).isEqualTo("v" + (1000 + i));
        assertThat(set(copy, "f10", "x0000")).isFalse();
        assertThat(get(h, "f10")).isEqualTo("v1010");
    }

    @Test
    void listpackKeepsInsertionOrderThroughUpdatesAndDeletes() {
        HashValue h = new HashValue();
        assertThat(set(h, "a", "1")).isTrue();
        assertThat(set(h, "b", "2")).isTrue();
        assertThat(set(h, "c", "3")).isTrue();
        assertThat(set(h, "b", "a much longer value than before")).isFalse();
        assertThat(set(h, "a", "")).isFalse();
        assertThat(delete(h, "c")).isTrue();
        assertThat(delete(h, "c")).isFalse();
        assertThat(set(h, "c", "again")).isTrue();
        assertThat(h.encoding()).isEqualTo("listpack");
        assertThat(contents(h)).containsExactly(Map.entry("a", ""),
                Map.entry("b", "a much longer value than before"), Map.entry("c", "again"));
        assertThat(h.length()).isEqualTo(3);
    }

    @Test
    void longStringsUseMultiBytePrefixes() {
        HashValue h = new HashValue();
        String mid = repeat('m', 200);      // 2-byte length
        String large = repeat('L', 20000);  // 3-byte length
        set(h, mid, large, ENTRIES, Integer.MAX_VALUE);
        set(h, "x", mid, ENTRIES, Integer.MAX_VALUE);
        set(h, large, "y", ENTRIES, Integer.MAX_VALUE);
        assertThat(h.encoding()).isEqualTo("listpack");
        assertThat(get(h, mid)).isEqualTo(large);
        assertThat(get(h, "x")).isEqualTo(mid);
        assertThat(get(h, large)).isEqualTo("y");
        byte[] f = b(mid);
        assertThat(h.valueLength(f, 0, f.length)).isEqualTo(20000);
        set(h, mid, "short", ENTRIES, Integer.MAX_VALUE);
        assertThat(contents(h).keySet()).containsExactly(mid, "x", large);
        assertThat(get(h, mid)).isEqualTo("short");
    }

    @Test
    void convertsPastEntryLimitAndNeverBack() {
        HashValue h = new HashValue();
        for (int i = 0; i < 4; i++) set(h, "f" + i, "v", 4, VALUE);
        assertThat(h.encoding()).isEqualTo("listpack");
        set(h, "f0", "updated", 4, VALUE); // an update does not add an entry
        assertThat(h.encoding()).isEqualTo("listpack");
        set(h, "f4", "v", 4, VALUE);
        assertThat(h.encoding()).isEqualTo("hashtable");
        for (int i = 0; i < 5; i++) delete(h, "f" + i);
        assertThat(h.length()).isZero();
        assertThat(h.encoding()).isEqualTo("hashtable");
    }

    @Test
    void convertsOnLongFieldOrValueBeforeStoring() {
        HashValue a = new HashValue();
        set(a, "f", repeat('v', 8), ENTRIES, 8);
        assertThat(a.encoding()).isEqualTo("listpack");
        set(a, "f", repeat('v', 9), ENTRIES, 8);
        assertThat(a.encoding()).isEqualTo("hashtable");
        assertThat(get(a, "f")).isEqualTo(repeat('v', 9));

        HashValue b = new HashValue();
        set(b, repeat('k', 9), "v", ENTRIES, 8);
        assertThat(b.encoding()).isEqualTo("hashtable");

        HashValue zero = new HashValue();
        set(zero, "", "", ENTRIES, 0);
        assertThat(zero.encoding()).isEqualTo("listpack");
        set(zero, "a", "", ENTRIES, 0);
        assertThat(zero.encoding()).isEqualTo("hashtable");
    }

    @Test
    void conversionKeepsEveryPair() {
        HashValue h = new HashValue();
        Map<String, String> expected = new HashMap<>();
        for (int i = 0; i < 10; i++) {
            set(h, "field" + i, "value" + i, 10, VALUE);
            expected.put("field" + i, "value" + i);
        }
        assertThat(h.encoding()).isEqualTo("listpack");
        set(h, "field10", "value10", 10, VALUE);
        expected.put("field10", "value10");
        assertThat(h.encoding()).isEqualTo("hashtable");
        assertThat(contents(h)).isEqualTo(expected);
        assertThat(set(h, "field3", "changed", 10, VALUE)).isFalse();
        assertThat(get(h, "field3")).isEqualTo("changed");
    }

    /** Both encodings against a reference map, under a seeded mix of sets, updates and deletes. */
    @Test
    void randomOperationsMatchAMap() {
        for (int round = 0; round < 2; round++) {
            Random rnd = new Random(42 + round);
            int maxEntries = round == 0 ? 1_000_000 : 16;
            HashValue h = new HashValue();
            Map<String, String> ref = new LinkedHashMap<>();
            for (int i = 0; i < 20_000; i++) {
                String f = "f" + rnd.nextInt(round == 0 ? 300 : 3000);
                int op = rnd.nextInt(10);
                if (op < 6) {
                    String v = repeat((char) ('a' + rnd.nextInt(26)), rnd.nextInt(round == 0 ? 300 : 100));
                    boolean isNew = !ref.containsKey(f);
                    assertThat(set(h, f, v, maxEntries, 1_000_000)).isEqualTo(isNew);
                    ref.put(f, v);
                } else if (op < 9) {
                    assertThat(delete(h, f)).isEqualTo(ref.remove(f) != null);
                } else {
                    assertThat(get(h, f)).isEqualTo(ref.get(f));
                    byte[] fb = b(f);
                    assertThat(h.exists(fb, 0, fb.length)).isEqualTo(ref.containsKey(f));
                }
                assertThat(h.length()).isEqualTo(ref.size());
            }
            if (round == 0) {
                assertThat(h.encoding()).isEqualTo("listpack");
                assertThat(contents(h)).containsExactlyEntriesOf(ref);
            } else {
                assertThat(h.encoding()).isEqualTo("hashtable");
                assertThat(contents(h)).isEqualTo(new HashMap<>(ref));
            }
        }
    }

    @Test
    void bigHashtable() {
        HashValue h = new HashValue();
        int n = 200_000;
        for (int i = 0; i < n; i++) set(h, "k" + i, Integer.toString(i));
        assertThat(h.length()).isEqualTo(n);
        for (int i = 0; i < n; i += 7) assertThat(get(h, "k" + i)).isEqualTo(Integer.toString(i));
        long full = h.memoryUsage();
        for (int i = 0; i < n; i++) if (i % 10 != 0) delete(h, "k" + i);
        assertThat(h.length()).isEqualTo(n / 10);
        // the lookups also drive the incremental rehash into the smaller table
        for (int i = 0; i < n; i += 10) assertThat(get(h, "k" + i)).isEqualTo(Integer.toString(i));
        assertThat(h.memoryUsage()).isLessThan(full / 4); // entries gone and the table shrank
    }

    @Test
    void copyIsIndependent() {
        for (int entries : new int[] {ENTRIES, 1}) {
            HashValue h = new HashValue();
            set(h, "a", "1", entries, VALUE);
            set(h, "b", "2", entries, VALUE);
            HashValue c = (HashValue) h.copy();
            assertThat(c.encoding()).isEqualTo(h.encoding());
            set(c, "a", "changed", entries, VALUE);
            delete(c, "b");
            assertThat(contents(h)).containsEntry("a", "1").containsEntry("b", "2");
            assertThat(contents(c)).containsOnlyKeys("a");
        }
    }

    @Test
    void memoryUsageFollowsContents() {
        HashValue h = new HashValue();
        long empty = h.memoryUsage();
        set(h, "field", repeat('x', 1000), ENTRIES, 2000);
        assertThat(h.memoryUsage()).isGreaterThan(empty + 1000);
        HashValue t = new HashValue();
        for (int i = 0; i < 1000; i++) set(t, "f" + i, repeat('y', 100), 10, VALUE * 2);
        assertThat(t.encoding()).isEqualTo("hashtable");
        // at least the bytes themselves and an array header per entry
        assertThat(t.memoryUsage()).isGreaterThan(1000L * (100 + 16));
    }

    @Test
    void repliesWriteStraightFromTheEncoding() {
        HashValue h = new HashValue();
        set(h, "f1", "v1");
        set(h, "f2", "v2");
        Reply r = new Reply();
        byte[] f = b("f2");
        assertThat(h.replyValue(f, 0, f.length, r)).isTrue();
        h.replyAll(r, true, false);
        h.replyAll(r, false, true);
        assertThat(new String(r.buffer(), 0, r.length(), StandardCharsets.ISO_8859_1))
                .isEqualTo("$2\r\nv2\r\n$2\r\nf1\r\n$2\r\nf2\r\n$2\r\nv1\r\n$2\r\nv2\r\n");
        byte[] missing = b("nope");
        assertThat(h.replyValue(missing, 0, missing.length, r)).isFalse();
    }

    @Test
    void pairPositionsIndexEveryPair() {
        HashValue h = new HashValue();
        List<String> fields = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            fields.add("field-" + i);
            set(h, "field-" + i, repeat('v', i * 5), ENTRIES, 1000);
        }
        int[] pos = h.pairPositions();
        assertThat(pos).hasSize(50);
        Reply r = new Reply();
        h.replyPair(pos[49], r, true);
        assertThat(new String(r.buffer(), 0, r.length(), StandardCharsets.ISO_8859_1))
                .isEqualTo("$8\r\nfield-49\r\n$245\r\n" + repeat('v', 245) + "\r\n");
    }
}
