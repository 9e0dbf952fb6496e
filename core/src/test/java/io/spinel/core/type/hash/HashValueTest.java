package io.spinel.core.type.hash;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class HashValueTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static boolean set(HashValue h, String f, String v, int maxEntries, int maxValue) {
        byte[] fb = b(f), vb = b(v);
        return h.set(fb, 0, fb.length, vb, 0, vb.length, maxEntries, maxValue);
    }

    private static String get(HashValue h, String f) {
        byte[] fb = b(f);
        byte[] v = h.get(fb, 0, fb.length);
        return v == null ? null : new String(v, StandardCharsets.ISO_8859_1);
    }

    @Test
    void updateAfterConversion() {
        HashValue h = new HashValue();
        set(h, "a", "1", 4, 8);
        set(h, "b", "123456789", 4, 8);
        assertThat(h.encoding()).isEqualTo("hashtable");
        assertThat(set(h, "a", "11", 4, 8)).isFalse();
        assertThat(get(h, "a")).isEqualTo("11");
    }

    @Test
    void sequence() {
        HashValue h = new HashValue();
        for (String f : new String[] {"a", "b", "c", "d", "e", "f"}) set(h, f, "1", 4, 8);
        set(h, "a", "x", 4, 8);
        set(h, "g", "7", 4, 8);
        set(h, "a", "11", 4, 8);
        assertThat(get(h, "a")).isEqualTo("11");
    }
}
