package io.spinel.core.keyspace;

import io.spinel.core.util.Bytes;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The packed layout of string keys: key lengths held in the flags (short keys) or as a varint
 * (31 bytes and more), integers in as few bytes as hold them, and every transformation keeping
 * key, value, expire and LRU intact across those boundaries.
 */
class StringEntryLayoutTest {
    private static byte[] key(int n) {
        byte[] k = new byte[n];
        for (int i = 0; i < n; i++) k[i] = (byte) ('a' + i % 26);
        return k;
    }

    private static void assertEntry(byte[] e, byte[] k, String value, long expire, int lru) {
        assertThat(StringEntry.key(e)).isEqualTo(k);
        assertThat(StringEntry.keyLength(e)).isEqualTo(k.length);
        assertThat(StringEntry.keyEquals(e, k, 0, k.length)).isTrue();
        assertThat(new String(StringEntry.value(e), StandardCharsets.ISO_8859_1)).isEqualTo(value);
        assertThat(StringEntry.valueLength(e)).isEqualTo(value.length());
        assertThat(StringEntry.expire(e)).isEqualTo(expire);
        assertThat(StringEntry.lru(e)).isEqualTo(lru);
    }

    @Test
    void keysOfEveryLengthAroundTheFlagLimitRoundTrip() {
        for (int kl : new int[]{0, 1, 29, 30, 31, 32, 127, 128, 16_383, 16_384}) {
            byte[] k = key(kl);
            for (long expire : new long[]{-1, 1_700_000_000_000L}) {
                byte[] e = StringEntry.create(k, 0, kl, Bytes.ascii("hello"), 0, 5, expire, 0xabcdef);
                assertEntry(e, k, "hello", expire, 0xabcdef);
                assertThat(StringEntry.keyEquals(e, key(kl + 1), 0, kl + 1)).isFalse();
                byte[] other = Arrays.copyOf(k, kl);
                if (kl > 0) {
                    other[kl - 1] ^= 1;
                    assertThat(StringEntry.keyEquals(e, other, 0, kl)).isFalse();
                }
                // expire added and removed, key renamed across the 31-byte boundary both ways
                // (withExpire may change e in place, so each case starts from a copy)
                assertEntry(StringEntry.withExpire(e.clone(), 42), k, "hello", 42, 0xabcdef);
                assertEntry(StringEntry.withExpire(e.clone(), -1), k, "hello", -1, 0xabcdef);
                for (int nl : new int[]{3, 30, 31, 200}) {
                    byte[] nk = key(nl);
                    nk[0] = 'Z';
                    assertEntry(StringEntry.withKey(e, nk, 0, nl), nk, "hello", expire, 0xabcdef);
                }
                byte[] raw = StringEntry.resizeRaw(e, 7, 5);
                System.arraycopy(Bytes.ascii("!!"), 0, raw, StringEntry.valueOffset(raw) + 5, 2);
                assertEntry(raw, k, "hello!!", expire, 0xabcdef);
            }
        }
    }

    @Test
    void shortKeysSpendNoByteOnTheirLength() {
        // flags + LRU (4) + key + value, nothing else
        assertThat(StringEntry.create(key(16), 0, 16, key(16), 0, 16, -1, 0)).hasSize(4 + 16 + 16);
        assertThat(StringEntry.create(key(31), 0, 31, key(16), 0, 16, -1, 0)).hasSize(4 + 1 + 31 + 16);
    }

    @Test
    void integersTakeTheFewestBytesThatHoldThem() {
        long[][] widths = {{0, 1}, {127, 1}, {-128, 1}, {128, 2}, {-129, 2}, {32_767, 2}, {32_768, 3},
                {999_999, 3}, {8_388_608, 4}, {Integer.MAX_VALUE, 4}, {1L << 31, 5}, {Long.MAX_VALUE, 8},
                {Long.MIN_VALUE, 8}, {-1, 1}};
        for (long[] w : widths) {
            assertThat(StringEntry.intWidth(w[0])).as("width of %d", w[0]).isEqualTo((int) w[1]);
            byte[] e = StringEntry.createInt(key(20), 0, 20, w[0], -1, 0);
            assertThat(e).hasSize(4 + 20 + (int) w[1]);
            assertThat(StringEntry.intValue(e)).isEqualTo(w[0]);
            assertEntry(e, key(20), Long.toString(w[0]), -1, 0);
        }
    }

    @Test
    void setIntValueStaysInPlaceWhileTheValueFitsAndGrowsOtherwise() {
        byte[] k = key(40);
        byte[] e = StringEntry.createInt(k, 0, 40, 120, 5_000, 77);
        for (long v = 120; v <= 130; v++) {
            byte[] n = StringEntry.setIntValue(e, v);
            if (v == 128) assertThat(n).isNotSameAs(e); // 128 needs a second byte
            else assertThat(n).isSameAs(e);
            e = n;
            assertEntry(e, k, Long.toString(v), 5_000, 77);
        }
        // a narrower value is written sign-extended into the wider room it has
        assertThat(StringEntry.setIntValue(e, -3)).isSameAs(e);
        assertThat(StringEntry.intValue(e)).isEqualTo(-3);
        e = StringEntry.setIntValue(e, Long.MIN_VALUE);
        assertEntry(e, k, Long.toString(Long.MIN_VALUE), 5_000, 77);
        assertThat(StringEntry.setIntValue(e, -1)).isSameAs(e);
        assertThat(StringEntry.intValue(e)).isEqualTo(-1);
        // ... except that a shared small integer (0..9999) never keeps 8 bytes: that width marks
        // COPY's unshared duplicates (OBJECT REFCOUNT 1)
        byte[] small = StringEntry.setIntValue(e, 1);
        assertThat(small).isNotSameAs(e);
        assertEntry(small, k, "1", 5_000, 77);
        assertThat(StringEntry.isSharedInt(small)).isTrue();
    }

    @Test
    void aCopiedSmallIntegerIsUnsharedUntilWritten() {
        byte[] k = key(5);
        byte[] e = StringEntry.createInt(k, 0, 5, 42, -1, 3);
        assertThat(StringEntry.isSharedInt(e)).isTrue();
        byte[] copy = StringEntry.unshared(e);
        assertThat(StringEntry.isSharedInt(copy)).isFalse();
        assertEntry(copy, k, "42", -1, 3);
        assertThat(StringEntry.unshared(copy)).isSameAs(copy);
        // outside 0..9999 nothing is shared: the copy is the entry as it was
        byte[] big = StringEntry.createInt(k, 0, 5, 10_000, -1, 3);
        assertThat(StringEntry.unshared(big)).isSameAs(big);
        // a write that leaves the range keeps the copy's own object; one into it shares again
        byte[] far = StringEntry.setIntValue(copy, 123_456);
        assertThat(far).isSameAs(copy);
        assertThat(StringEntry.isSharedInt(far)).isFalse();
        byte[] back = StringEntry.setIntValue(far, 7);
        assertEntry(back, k, "7", -1, 3);
        assertThat(StringEntry.isSharedInt(back)).isTrue();
    }
}
