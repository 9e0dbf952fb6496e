package io.spinel.core.type.hll;

import io.spinel.core.keyspace.StringEntry;
import io.spinel.core.util.Bytes;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class HllTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** A fresh empty HLL in a RAW string entry, as PFADD creates it. */
    private static HllValue emptyHll(long expire) {
        byte[] e = StringEntry.createRaw(b("key"), 0, 3, Bytes.EMPTY, 0, 0, Hll.EMPTY_SPARSE_SIZE, expire, 42);
        e = StringEntry.resizeRaw(e, Hll.EMPTY_SPARSE_SIZE, 0);
        Hll.writeEmptySparse(e, StringEntry.valueOffset(e));
        return new HllValue(e);
    }

    private static byte[] value(HllValue h) {
        return StringEntry.value(h.entry());
    }

    private static long count(HllValue h) {
        byte[] e = h.entry();
        int[] histo = new int[64];
        assertThat(Hll.histogram(e, StringEntry.valueOffset(e), StringEntry.valueLength(e), histo)).isTrue();
        return Hll.estimate(histo);
    }

    private static void add(HllValue h, String element, int maxBytes) {
        byte[] x = b(element);
        assertThat(h.add(Hll.hash(x, 0, x.length), maxBytes)).isBetween(0, 1);
    }

    @Test
    void murmurHash64AMatchesRedis() {
        // reference values computed with Redis's MurmurHash64A and seed 0xadc83b19
        String[] in = {"", "a", "ab", "abcdefg", "abcdefgh", "abcdefghi", "hello world, this is spinel"};
        long[] out = {0xd8dfea6585bc9732L, 0x53d2470a9b43b1a7L, 0x0eaed676437142cfL, 0x22fe613bb08c9602L,
            0xf3a65df559914567L, 0x834fba4d9152daf7L, 0x777d75bcdbbb7559L};
        for (int i = 0; i < in.length; i++) {
            byte[] x = b("xx" + in[i] + "yy");
            assertThat(Hll.hash(x, 2, in[i].length())).as(in[i]).isEqualTo(out[i]);
        }
    }

    @Test
    void registerAndRunComeFromTheHash() {
        assertThat(Hll.registerOf(0x12345L)).isEqualTo(0x12345 & 16383);
        assertThat(Hll.runOf(1L << 14)).isEqualTo(1);
        assertThat(Hll.runOf(1L << 16)).isEqualTo(3);
        // no bit set above the index: the run is capped at Q + 1
        assertThat(Hll.runOf(0x3fffL)).isEqualTo(Hll.Q + 1);
    }

    @Test
    void denseRegistersRoundTripWithoutTouchingNeighbours() {
        SplittableRandom rnd = new SplittableRandom(7);
        byte[] dense = new byte[Hll.DENSE_SIZE];
        int[] expected = new int[Hll.REGISTERS];
        for (int round = 0; round < 20; round++) {
            for (int i = 0; i < Hll.REGISTERS; i++) {
                expected[i] = rnd.nextInt(64);
                Hll.denseSet(dense, Hll.HDR, i, expected[i]);
            }
            for (int i = 0; i < Hll.REGISTERS; i++) assertThat(Hll.denseGet(dense, Hll.HDR, i)).isEqualTo(expected[i]);
        }
        int[] histo = new int[64];
        dense[4] = Hll.DENSE;
        Hll.histogram(dense, 0, dense.length, histo);
        int[] naive = new int[64];
        for (int v : expected) naive[v]++;
        assertThat(histo).isEqualTo(naive);
    }

    @Test
    void emptyHllHasRedisBytesAndCountsZero() {
        HllValue h = emptyHll(-1);
        assertThat(value(h)).isEqualTo(b("HYLL\u0001\0\0\0\0\0\0\0\0\0\0\0\u007f\u00ff"));
        assertThat(count(h)).isZero();
        assertThat(Hll.decode(h.entry(), h.valueOffset(), Hll.EMPTY_SPARSE_SIZE)).isEqualTo("Z:16384");
    }

    @Test
    void sparseAddsGiveRedisBytes() throws Exception {
        HllValue h = emptyHll(-1);
        for (String s : new String[] {"a", "b", "c"}) add(h, s, 3000);
        // the bytes redis-server 7.0 stores after PFADD k a b c
        assertThat(value(h)).isEqualTo(b("HYLL\u0001\0\0\0\0\0\0\0\0\0\0\u0080"
                + "\u0060\u00f3\u0080\u0050\u00b1\u0084\u004b\u00fb\u0080\u0042\u005a"));
        assertThat(count(h)).isEqualTo(3);

        HllValue big = emptyHll(-1);
        for (int i = 1; i <= 1000; i++) add(big, Integer.toString(i), 3000);
        assertThat(count(big)).isEqualTo(1001);
        // as PFCOUNT caches it before the GET that gave the reference bytes
        Hll.setCachedCardinality(big.entry(), big.valueOffset(), 1001);
        byte[] v = value(big);
        assertThat(v).hasSize(1922);
        assertThat(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(v)))
                .isEqualTo("719dd6d68459551c0ffe9f675882cee133adeaf55feed3f7ef33f0f0df867a33");
    }

    @Test
    void sparseAndDenseAgreeAndStayAccurate() {
        SplittableRandom rnd = new SplittableRandom(99);
        HllValue sparse = emptyHll(-1);
        byte[] dense = new byte[Hll.DENSE_SIZE];
        byte[] ele = new byte[8];
        int[] histo = new int[64];
        long next = 1;
        for (long n = 1; n <= 200_000; n++) {
            Bytes.putLongLE(ele, 0, rnd.nextLong());
            long h = Hll.hash(ele, 0, 8);
            Hll.denseUpdate(dense, Hll.HDR, Hll.registerOf(h), Hll.runOf(h));
            sparse.add(h, 3000);
            if (n == next) {
                Arrays.fill(histo, 0);
                Hll.histogram(dense, 0, dense.length, histo);
                long d = Hll.estimate(histo);
                assertThat(count(sparse)).isEqualTo(d);
                assertThat((double) Math.abs(d - n)).isLessThanOrEqualTo(Math.max(2, n * 0.05));
                next *= 4;
            }
        }
        assertThat(sparse.encoding()).isEqualTo(Hll.DENSE);
    }

    @Test
    void promotesToDenseWhenSparseOutgrowsItsLimit() {
        HllValue h = emptyHll(-1);
        int adds = 0;
        while (h.encoding() == Hll.SPARSE) {
            int before = StringEntry.valueLength(h.entry());
            assertThat(before).isLessThanOrEqualTo(60);
            add(h, "element-" + adds++, 60);
        }
        assertThat(StringEntry.valueLength(h.entry())).isEqualTo(Hll.DENSE_SIZE);
        assertThat(adds).isGreaterThan(5);
        // a dense entry is exactly the dense size: no spare room kept
        assertThat(StringEntry.spare(h.entry())).isZero();
    }

    @Test
    void promotesToDenseForARunTooLongForSparse() {
        HllValue h = emptyHll(-1);
        add(h, "x", 3000);
        // this element's hash has 32 zero bits after the index: a run of 33, more than VAL holds
        byte[] x = b("1692856687");
        long hash = Hll.hash(x, 0, x.length);
        assertThat(Hll.runOf(hash)).isEqualTo(33);
        assertThat(h.add(hash, 3000)).isEqualTo(1);
        assertThat(h.encoding()).isEqualTo(Hll.DENSE);
        assertThat(Hll.denseGet(h.entry(), h.valueOffset() + Hll.HDR, Hll.registerOf(hash))).isEqualTo(33);
    }

    @Test
    void growingKeepsKeyExpireAndLru() {
        HllValue h = emptyHll(123456789L);
        byte[] original = h.entry();
        for (int i = 0; i < 3000; i++) add(h, "v" + i, 3000);
        byte[] e = h.entry();
        assertThat(e).isNotSameAs(original);
        assertThat(StringEntry.key(e)).isEqualTo(b("key"));
        assertThat(StringEntry.expire(e)).isEqualTo(123456789L);
        assertThat(StringEntry.lru(e)).isEqualTo(42);
        assertThat(StringEntry.encoding(e)).isEqualTo(StringEntry.RAW);
    }

    @Test
    void toDenseKeepsTheHeaderAndCachedCardinality() {
        HllValue h = emptyHll(-1);
        for (int i = 0; i < 100; i++) add(h, "v" + i, 3000);
        byte[] e = h.entry();
        int v = h.valueOffset();
        Hll.setCachedCardinality(e, v, 99);
        long sparseCount = count(h);
        assertThat(h.toDense()).isTrue();
        assertThat(h.encoding()).isEqualTo(Hll.DENSE);
        assertThat(Hll.cachedCardinality(h.entry(), h.valueOffset())).isEqualTo(99);
        assertThat(count(h)).isEqualTo(sparseCount);
        assertThat(h.toDense()).isTrue();
    }

    @Test
    void validityFollowsRedisChecks() {
        byte[] ok = b("HYLL\u0001\0\0\0\0\0\0\0\0\0\0\u0080\u007f\u00ff");
        assertThat(Hll.isValid(ok, 0, ok.length)).isTrue();
        assertThat(Hll.isValid(ok, 0, 15)).isFalse();
        byte[] magic = ok.clone();
        magic[3] = 'X';
        assertThat(Hll.isValid(magic, 0, magic.length)).isFalse();
        byte[] enc = ok.clone();
        enc[4] = 2;
        assertThat(Hll.isValid(enc, 0, enc.length)).isFalse();
        byte[] shortDense = ok.clone();
        shortDense[4] = Hll.DENSE;
        assertThat(Hll.isValid(shortDense, 0, shortDense.length)).isFalse();
        byte[] dense = new byte[Hll.DENSE_SIZE];
        System.arraycopy(b("HYLL"), 0, dense, 0, 4);
        assertThat(Hll.isValid(dense, 0, dense.length)).isTrue();
    }

    @Test
    void corruptedSparseFormsAreDetected() {
        int[] histo = new int[64];
        byte[] max = new byte[Hll.REGISTERS];
        // too few registers, too many, a VAL past the end, nothing at all
        String[] bodies = {"\u007f\u00fe", "\u007f\u00ff\u0000", "\u007f\u00fe\u0083", "", "\u007f"};
        for (String body : bodies) {
            byte[] v = b("HYLL\u0001\0\0\0\0\0\0\0\0\0\0\u0080" + body);
            assertThat(Hll.histogram(v, 0, v.length, histo)).as(body).isFalse();
            assertThat(Hll.mergeInto(max, v, 0, v.length)).as(body).isFalse();
            assertThat(Hll.sparseToDense(v, 0, v.length, new byte[Hll.DENSE_SIZE], Hll.HDR)).as(body).isFalse();
        }
        // an exact cover followed by one more opcode: corrupted too (the CVE-2025-32023 check)
        byte[] v = b("HYLL\u0001\0\0\0\0\0\0\0\0\0\0\u0080\u007f\u00ff\u0080");
        assertThat(Hll.mergeInto(max, v, 0, v.length)).isFalse();
        assertThat(Hll.sparseToDense(v, 0, v.length, new byte[Hll.DENSE_SIZE], Hll.HDR)).isFalse();
    }

    @Test
    void addToCorruptedSparseFails() {
        byte[] body = b("HYLL\u0001\0\0\0\0\0\0\0\0\0\0\u0080\u007f\u00fe");
        byte[] e = StringEntry.createRaw(b("k"), 0, 1, body, 0, body.length, body.length, -1, 0);
        HllValue h = new HllValue(e);
        // register 16383 lies beyond the opcodes
        assertThat(h.sparseSet(16383, 1, 3000)).isEqualTo(-1);
        assertThat(h.sparseSet(5, 1, 3000)).isEqualTo(1);
    }

    @Test
    void estimateOfEmptyAndFullHistograms() {
        int[] histo = new int[64];
        histo[0] = Hll.REGISTERS;
        assertThat(Hll.estimate(histo)).isZero();
        Arrays.fill(histo, 0);
        histo[Hll.Q + 1] = Hll.REGISTERS;
        assertThat(Hll.estimate(histo)).isPositive();
        byte[] regs = new byte[Hll.REGISTERS];
        Arrays.fill(histo, 0);
        Hll.rawHistogram(regs, histo);
        assertThat(histo[0]).isEqualTo(Hll.REGISTERS);
    }

    @Test
    void decodeListsOpcodes() {
        byte[] v = b("HYLL\u0001\0\0\0\0\0\0\0\0\0\0\u0080\u003f\u003f\u0080\u0087\u007f\u007a");
        assertThat(Hll.decode(v, 0, v.length)).isEqualTo("z:64 z:64 v:1,1 v:2,4 Z:16251");
    }
}
