package io.spinel.core.type.bitmap;

import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class BitsTest {
    private static int bit(byte[] a, int off, long i) {
        return (a[off + (int) (i >>> 3)] >>> (7 - (int) (i & 7))) & 1;
    }

    private static byte[] random(SplittableRandom rnd, int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            int x = rnd.nextInt(4);
            b[i] = (byte) (x == 0 ? 0 : x == 1 ? 0xff : rnd.nextInt(256));
        }
        return b;
    }

    @Test
    void popcountMatchesBitByBit() {
        SplittableRandom rnd = new SplittableRandom(1);
        for (int round = 0; round < 500; round++) {
            byte[] a = random(rnd, rnd.nextInt(300)); // past the 32-byte unrolled loop
            int off = a.length == 0 ? 0 : rnd.nextInt(a.length);
            int len = rnd.nextInt(a.length - off + 1);
            long naive = 0;
            for (long i = 0; i < len * 8L; i++) naive += bit(a, off, i);
            assertThat(Bits.popcount(a, off, len)).isEqualTo(naive);
        }
    }

    @Test
    void findMatchesBitByBit() {
        SplittableRandom rnd = new SplittableRandom(2);
        for (int round = 0; round < 3000; round++) {
            byte[] a = random(rnd, 1 + rnd.nextInt(60));
            if (rnd.nextInt(4) == 0) java.util.Arrays.fill(a, rnd.nextBoolean() ? (byte) 0 : (byte) 0xff);
            int off = rnd.nextInt(a.length);
            long bits = (a.length - off) * 8L;
            long from = rnd.nextLong(bits);
            long to = from + rnd.nextLong(bits - from);
            int which = rnd.nextInt(2);
            long naive = -1;
            for (long i = from; i <= to; i++) {
                if (bit(a, off, i) == which) {
                    naive = i;
                    break;
                }
            }
            assertThat(Bits.find(a, off, from, to, which)).as("round %d", round).isEqualTo(naive);
        }
        assertThat(Bits.find(new byte[4], 0, 5, 4, 0)).isEqualTo(-1);
    }

    @Test
    void fieldsRoundTripAndReadZerosPastTheEnd() {
        SplittableRandom rnd = new SplittableRandom(3);
        for (int round = 0; round < 3000; round++) {
            byte[] a = random(rnd, 20);
            int bits = 1 + rnd.nextInt(64);
            long offset = rnd.nextInt(20 * 8 - bits + 1);
            long value = rnd.nextLong();
            byte[] before = a.clone();
            Bits.set(a, 0, offset, bits, value);
            long mask = bits == 64 ? -1L : (1L << bits) - 1;
            assertThat(Bits.getUnsigned(a, 0, a.length, offset, bits)).isEqualTo(value & mask);
            long signed = bits == 64 ? value : (value << (64 - bits)) >> (64 - bits);
            assertThat(Bits.getSigned(a, 0, a.length, offset, bits)).isEqualTo(signed);
            for (long i = 0; i < a.length * 8L; i++) {
                if (i < offset || i >= offset + bits) assertThat(bit(a, 0, i)).isEqualTo(bit(before, 0, i));
            }
        }
        byte[] a = {(byte) 0xff};
        assertThat(Bits.getUnsigned(a, 0, 1, 4, 8)).isEqualTo(0xf0);
        assertThat(Bits.getSigned(a, 0, 1, 0, 16)).isEqualTo((short) 0xff00);
        assertThat(Bits.getUnsigned(a, 0, 1, 1000, 63)).isZero();
    }

    /** The mathematically expected outcome, for values inside the field's range. */
    private static long model(long value, long incr, int bits, boolean signed, int owtype, int[] overflow) {
        BigInteger sum = BigInteger.valueOf(value).add(BigInteger.valueOf(incr));
        BigInteger min = signed ? BigInteger.ONE.shiftLeft(bits - 1).negate() : BigInteger.ZERO;
        BigInteger max = signed ? BigInteger.ONE.shiftLeft(bits - 1).subtract(BigInteger.ONE)
                : BigInteger.ONE.shiftLeft(bits).subtract(BigInteger.ONE);
        overflow[0] = sum.compareTo(max) > 0 ? 1 : sum.compareTo(min) < 0 ? -1 : 0;
        if (overflow[0] == 0) return sum.longValue();
        if (owtype == Bits.SAT) return overflow[0] > 0 ? max.longValue() : min.longValue();
        BigInteger range = BigInteger.ONE.shiftLeft(bits);
        BigInteger wrapped = sum.subtract(min).mod(range).add(min);
        return wrapped.longValue();
    }

    @Test
    void overflowHandlingMatchesArithmetic() {
        SplittableRandom rnd = new SplittableRandom(4);
        long[] limit = new long[1];
        int[] expectedOverflow = new int[1];
        for (int round = 0; round < 20000; round++) {
            boolean signed = rnd.nextBoolean();
            int bits = 1 + rnd.nextInt(signed ? 64 : 63);
            long value;
            if (signed) {
                long half = bits == 64 ? 0 : 1L << (bits - 1);
                value = bits == 64 ? rnd.nextLong() : rnd.nextLong(-half, half);
            } else {
                value = bits == 63 ? rnd.nextLong() >>> 1 : rnd.nextLong(1L << bits);
            }
            long incr = rnd.nextBoolean() ? rnd.nextLong() : rnd.nextLong(-300, 300);
            int owtype = rnd.nextInt(3);
            long expected = model(value, incr, bits, signed, owtype, expectedOverflow);
            int overflow = signed ? Bits.checkSigned(value, incr, bits, owtype, limit)
                    : Bits.checkUnsigned(value, incr, bits, owtype, limit);
            String what = (signed ? "i" : "u") + bits + " " + value + "+" + incr + " ow" + owtype;
            assertThat(overflow != 0).as(what).isEqualTo(expectedOverflow[0] != 0);
            if (overflow != 0 && owtype != Bits.FAIL) assertThat(limit[0]).as(what).isEqualTo(expected);
            if (overflow != 0 && owtype == Bits.SAT) assertThat(overflow).as(what).isEqualTo(expectedOverflow[0]);
        }
    }

    @Test
    void outOfRangeSetKeepsRedisQuirks() {
        long[] limit = new long[1];
        // SET i8 to LLONG_MIN with SAT: Redis's wrapped max-value arithmetic reports an overflow, not an
        // underflow, and saturates to the maximum
        assertThat(Bits.checkSigned(Long.MIN_VALUE, 0, 8, Bits.SAT, limit)).isEqualTo(1);
        assertThat(limit[0]).isEqualTo(127);
        // an unsigned SET of a negative number is a huge unsigned value: overflow
        assertThat(Bits.checkUnsigned(-1, 0, 8, Bits.WRAP, limit)).isEqualTo(1);
        assertThat(limit[0]).isEqualTo(255);
        assertThat(Bits.checkUnsigned(-1, 0, 8, Bits.SAT, limit)).isEqualTo(1);
        assertThat(limit[0]).isEqualTo(255);
        // WRAP reports 1 even for an underflow
        assertThat(Bits.checkUnsigned(3, -5, 8, Bits.WRAP, limit)).isEqualTo(1);
        assertThat(limit[0]).isEqualTo(254);
        assertThat(Bits.checkUnsigned(3, -5, 8, Bits.SAT, limit)).isEqualTo(-1);
        assertThat(limit[0]).isZero();
    }
}
