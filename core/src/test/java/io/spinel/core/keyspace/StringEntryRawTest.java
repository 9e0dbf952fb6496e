package io.spinel.core.keyspace;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/** The RAW conversion that in-place editors (bitmaps, HLL) rely on, and the key table under churn. */
class StringEntryRawTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    @Test
    void toRawConvertsIntAndEmbstrKeepingMetadata() {
        byte[] k = b("key");
        byte[] i = StringEntry.create(k, 0, 3, b("12345"), 0, 5, 99_000L, 7);
        assertThat(StringEntry.isInt(i)).isTrue();
        byte[] r = StringEntry.toRaw(i);
        assertThat(StringEntry.encoding(r)).isEqualTo(StringEntry.RAW);
        assertThat(StringEntry.value(r)).isEqualTo(b("12345"));
        assertThat(StringEntry.expire(r)).isEqualTo(99_000L);
        assertThat(StringEntry.lru(r)).isEqualTo(7);
        assertThat(StringEntry.key(r)).isEqualTo(k);
        assertThat(StringEntry.spare(r)).isZero();

        byte[] e = StringEntry.create(k, 0, 3, b("hello"), 0, 5, -1, 3);
        assertThat(StringEntry.encoding(e)).isEqualTo(StringEntry.EMBSTR);
        byte[] r2 = StringEntry.toRaw(e);
        assertThat(StringEntry.value(r2)).isEqualTo(b("hello"));
        assertThat(StringEntry.expire(r2)).isEqualTo(-1);
        assertThat(StringEntry.toRaw(r2)).isSameAs(r2);
    }

    @Test
    void resizeRawGrowsWithRoomAndShrinksInPlace() {
        byte[] e = StringEntry.createRaw(b("k"), 0, 1, b("abc"), 0, 3, 3, -1, 0);
        byte[] g = StringEntry.resizeRaw(e, 10, 3);
        assertThat(g).isNotSameAs(e);
        assertThat(StringEntry.valueLength(g)).isEqualTo(10);
        assertThat(StringEntry.spare(g)).isEqualTo(10);
        assertThat(StringEntry.resizeRaw(g, 4, 4)).isSameAs(g);
        assertThat(StringEntry.valueLength(g)).isEqualTo(4);
        assertThat(StringEntry.maxValueLength(1)).isLessThan(Integer.MAX_VALUE - 8);
        assertThat(StringEntry.maxValueLength(1000)).isEqualTo(StringEntry.maxValueLength(1) - 999 - 1);
    }

    @Test
    void tableSurvivesChurnAcrossRehashes() {
        SplittableRandom rnd = new SplittableRandom(5);
        EntryTable t = new EntryTable();
        Map<String, byte[]> model = new HashMap<>();
        for (int step = 0; step < 200_000; step++) {
            String key = "k" + rnd.nextInt(step < 100_000 ? 5000 : 300);
            byte[] k = b(key);
            long h = KeyHash.of(k, 0, k.length);
            if (rnd.nextInt(3) == 0) {
                Object removed = t.remove(h, k, 0, k.length);
                assertThat(removed != null).isEqualTo(model.remove(key) != null);
            } else {
                byte[] e = StringEntry.create(k, 0, k.length, b("v"), 0, 1, -1, 0);
                t.put(h, e, k, 0, k.length);
                model.put(key, e);
            }
            if (rnd.nextInt(50) == 0) t.rehashSome(1);
        }
        assertThat(t.size()).isEqualTo(model.size());
        for (Map.Entry<String, byte[]> m : model.entrySet()) {
            byte[] k = b(m.getKey());
            assertThat(t.get(KeyHash.of(k, 0, k.length), k, 0, k.length)).isSameAs(m.getValue());
        }
    }
}
