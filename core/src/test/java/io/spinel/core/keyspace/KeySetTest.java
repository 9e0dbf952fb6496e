package io.spinel.core.keyspace;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class KeySetTest {
    /** A put whose first rehash step finishes the rehash must not take a second step on no rehash. */
    @Test
    void putsAcrossManyRehashesKeepEveryKey() {
        KeySet s = new KeySet();
        for (int i = 0; i < 5000; i++) {
            assertThat(s.add(("key:" + i).getBytes(StandardCharsets.US_ASCII))).isTrue();
        }
        assertThat(s.size()).isEqualTo(5000);
        for (int i = 0; i < 5000; i++) {
            byte[] k = ("key:" + i).getBytes(StandardCharsets.US_ASCII);
            assertThat(s.contains(k, 0, k.length)).isTrue();
        }
        for (int i = 0; i < 5000; i += 2) {
            byte[] k = ("key:" + i).getBytes(StandardCharsets.US_ASCII);
            assertThat(s.remove(k, 0, k.length)).isTrue();
        }
        assertThat(s.size()).isEqualTo(2500);
    }
}
