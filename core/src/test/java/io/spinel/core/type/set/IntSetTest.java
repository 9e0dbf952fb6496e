package io.spinel.core.type.set;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

class IntSetTest {
    private static List<Long> contents(byte[] is) {
        List<Long> out = new ArrayList<>();
        for (int i = 0; i < IntSet.length(is); i++) out.add(IntSet.get(is, i));
        return out;
    }

    @Test
    void startsAt16BitsAndWidensOnDemand() {
        byte[] is = IntSet.create();
        assertThat(IntSet.width(is)).isEqualTo(2);
        is = IntSet.add(is, 5);
        is = IntSet.add(is, -32768);
        is = IntSet.add(is, 32767);
        assertThat(IntSet.width(is)).isEqualTo(2);
        is = IntSet.add(is, 32768);
        assertThat(IntSet.width(is)).isEqualTo(4);
        is = IntSet.add(is, -2147483648L);
        assertThat(IntSet.width(is)).isEqualTo(4);
        is = IntSet.add(is, -2147483649L);
        assertThat(IntSet.width(is)).isEqualTo(8);
        is = IntSet.add(is, Long.MAX_VALUE);
        is = IntSet.add(is, Long.MIN_VALUE);
        assertThat(contents(is)).containsExactly(Long.MIN_VALUE, -2147483649L, -2147483648L, -32768L, 5L, 32767L,
                32768L, Long.MAX_VALUE);
        // removing the wide values does not narrow the others
        IntSet.remove(is, Long.MIN_VALUE);
        IntSet.remove(is, Long.MAX_VALUE);
        IntSet.remove(is, -2147483649L);
        assertThat(IntSet.width(is)).isEqualTo(8);
        assertThat(contents(is)).containsExactly(-2147483648L, -32768L, 5L, 32767L, 32768L);
    }

    @Test
    void widenPutsTheNewValueAtTheRightEnd() {
        byte[] is = IntSet.create();
        for (long v : new long[] {3, 1, 2}) is = IntSet.add(is, v);
        byte[] neg = IntSet.add(is.clone(), -100000);
        assertThat(contents(neg)).containsExactly(-100000L, 1L, 2L, 3L);
        byte[] pos = IntSet.add(is.clone(), 100000);
        assertThat(contents(pos)).containsExactly(1L, 2L, 3L, 100000L);
    }

    @Test
    void blobHasRedisLayout() {
        byte[] is = IntSet.create();
        is = IntSet.add(is, 1);
        is = IntSet.add(is, -2);
        byte[] blob = IntSet.copy(is);
        // encoding 2 (LE u32), length 2 (LE u32), then -2 and 1 as LE int16
        assertThat(blob).containsExactly(2, 0, 0, 0, 2, 0, 0, 0, (byte) 0xfe, (byte) 0xff, 1, 0);
        assertThat(IntSet.blobLength(is)).isEqualTo(12);
    }

    @Test
    void duplicatesAndMissingValues() {
        byte[] is = IntSet.create();
        is = IntSet.add(is, 7);
        byte[] again = IntSet.add(is, 7);
        assertThat(IntSet.length(again)).isEqualTo(1);
        assertThat(IntSet.remove(is, 8)).isFalse();
        assertThat(IntSet.remove(is, 1L << 40)).isFalse();
        assertThat(IntSet.contains(is, 1L << 40)).isFalse();
        assertThat(IntSet.contains(is, -(1L << 40))).isFalse();
        assertThat(IntSet.remove(is, 7)).isTrue();
        assertThat(IntSet.length(is)).isZero();
        assertThat(IntSet.contains(is, 7)).isFalse();
    }

    @Test
    void randomOperationsMatchATreeSet() {
        Random rnd = new Random(1);
        byte[] is = IntSet.create();
        TreeSet<Long> ref = new TreeSet<>();
        for (int i = 0; i < 50_000; i++) {
            long v;
            switch (rnd.nextInt(3)) {
                case 0:
                    v = rnd.nextInt(2000) - 1000;
                    break;
                case 1:
                    v = rnd.nextInt();
                    break;
                default:
                    v = i > 30_000 ? rnd.nextLong() : rnd.nextInt(100);
            }
            if (rnd.nextInt(3) > 0) {
                is = IntSet.add(is, v);
                ref.add(v);
            } else {
                assertThat(IntSet.remove(is, v)).isEqualTo(ref.remove(v));
                is = IntSet.trim(is);
            }
            assertThat(IntSet.contains(is, v)).isEqualTo(ref.contains(v));
        }
        assertThat(contents(is)).containsExactlyElementsOf(ref);
        assertThat(IntSet.width(is)).isEqualTo(8);
    }

    @Test
    void trimGivesBackMemory() {
        byte[] is = IntSet.create();
        for (int i = 0; i < 10_000; i++) is = IntSet.add(is, i);
        int big = is.length;
        for (int i = 0; i < 9_990; i++) {
            IntSet.remove(is, i);
            is = IntSet.trim(is);
        }
        assertThat(is.length).isLessThan(big / 100);
        assertThat(contents(is)).hasSize(10).first().isEqualTo(9990L);
    }
}
