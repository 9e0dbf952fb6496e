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
    void setOverwritesRawValuesInPlaceWithinATenthOfSpare() {
        byte[] k = b("key");
        byte[] e = StringEntry.create(k, 0, 3, b("a".repeat(1000)), 0, 1000, -1, 5);
        assertThat(StringEntry.encoding(e)).isEqualTo(StringEntry.RAW);
        byte[] same = b("b".repeat(1000));
        assertThat(StringEntry.canOverwrite(e, same, 0, 1000, -1)).isTrue();
        StringEntry.overwrite(e, same, 0, 1000, -1);
        assertThat(StringEntry.value(e)).isEqualTo(same);
        byte[] shorter = b("c".repeat(950)); // 50 spare of 950: within a tenth
        assertThat(StringEntry.canOverwrite(e, shorter, 0, 950, -1)).isTrue();
        StringEntry.overwrite(e, shorter, 0, 950, -1);
        assertThat(StringEntry.value(e)).isEqualTo(shorter);
        assertThat(StringEntry.valueLength(e)).isEqualTo(950);
        assertThat(StringEntry.spare(e)).isEqualTo(50);
        assertThat(StringEntry.key(e)).isEqualTo(k);
        assertThat(StringEntry.lru(e)).isEqualTo(5);
        // more than a tenth to spare, more than the room, embstr-sized or a different expire: a new entry
        assertThat(StringEntry.canOverwrite(e, b("d".repeat(900)), 0, 900, -1)).isFalse();
        assertThat(StringEntry.canOverwrite(e, b("d".repeat(1001)), 0, 1001, -1)).isFalse();
        assertThat(StringEntry.canOverwrite(e, b("d".repeat(44)), 0, 44, -1)).isFalse();
        assertThat(StringEntry.canOverwrite(e, same, 0, 1000, 77_000L)).isFalse();

        byte[] x = StringEntry.create(k, 0, 3, same, 0, 1000, 10_000L, 0);
        assertThat(StringEntry.canOverwrite(x, same, 0, 1000, -1)).isFalse();
        assertThat(StringEntry.canOverwrite(x, shorter, 0, 950, 20_000L)).isTrue();
        StringEntry.overwrite(x, shorter, 0, 950, 20_000L);
        assertThat(StringEntry.expire(x)).isEqualTo(20_000L);
        assertThat(StringEntry.value(x)).isEqualTo(shorter);
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
            long h = t.hash(k, 0, k.length);
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
            assertThat(t.get(t.hash(k, 0, k.length), k, 0, k.length)).isSameAs(m.getValue());
        }
    }
}
