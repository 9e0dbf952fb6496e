package io.spinel.core.type.hash;

import io.spinel.core.util.PackedStrings;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class FieldTableTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static String field(Object e) {
        byte[] b = (byte[]) e;
        return new String(b, FieldTable.fieldOffset(b), FieldTable.fieldLength(b), StandardCharsets.ISO_8859_1);
    }

    @Test
    void lengthPrefixRoundTrips() {
        for (int len : new int[] {0, 1, 127, 128, 16383, 16384, 2097151, 2097152, 268435455, 268435456}) {
            byte[] buf = new byte[8];
            int end = PackedStrings.writeLength(buf, 0, len);
            assertThat(end).isEqualTo(PackedStrings.prefixSize(len));
            assertThat(PackedStrings.readLength(buf, 0)).isEqualTo(len);
        }
    }

    @Test
    void entriesHoldFieldAndValue() {
        FieldTable t = new FieldTable();
        String longField = "f".repeat(300);
        assertThat(t.set(b(longField), 0, 300, b("value"), 0, 5)).isTrue();
        assertThat(t.set(b(longField), 0, 300, b("other"), 0, 5)).isFalse();
        byte[] e = t.find(b(longField), 0, 300);
        assertThat(field(e)).isEqualTo(longField);
        assertThat(new String(e, FieldTable.valueOffset(e), FieldTable.valueLength(e), StandardCharsets.ISO_8859_1))
                .isEqualTo("other");
        assertThat(t.delete(b(longField), 0, 300)).isTrue();
        assertThat(t.size()).isZero();
    }

    /**
     * SCAN's guarantee: a field present from the start to the end of a scan is returned, even
     * while the table grows and shrinks (incremental rehash both ways) between the calls.
     */
    @Test
    void scanReturnsEveryStableFieldAcrossResizes() {
        for (int round = 0; round < 40; round++) {
            FieldTable t = new FieldTable();
            Set<String> stable = new HashSet<>();
            for (int i = 0; i < 300 + (round % 20) * 50; i++) {
                stable.add("s" + i);
                put(t, "s" + i);
            }
            boolean growing = round % 2 == 0;
            int transients = 0;
            if (!growing) {
                // a big table that will shrink (and rehash into a smaller one) during the scan
                for (; transients < 20_000; transients++) put(t, "t" + transients);
            }
            Set<String> seen = new HashSet<>();
            long cursor = 0;
            int next = 0;
            do {
                cursor = t.scan(cursor, e -> seen.add(field(e)));
                // one scan step visits one bucket, so the churn per step must stay small for the
                // scan to finish: a few fields, bounded in total
                for (int k = 0; k < 3; k++) {
                    if (growing && transients < 20_000) {
                        put(t, "t" + transients++);
                    } else if (!growing && next < transients) {
                        String f = "t" + next++;
                        t.delete(b(f), 0, f.length());
                    }
                }
            } while (cursor != 0);
            assertThat(seen).as("round " + round).containsAll(stable);
        }
    }

    private static void put(FieldTable t, String f) {
        t.set(b(f), 0, f.length(), b("v"), 0, 1);
    }
}
