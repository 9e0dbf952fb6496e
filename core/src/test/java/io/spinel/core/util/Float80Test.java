package io.spinel.core.util;

import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Float80 must compute exactly what the BigDecimal emulation in {@link LongDouble} computes (itself
 * checked against redis-server's output in NumbersTest and the differential tests): parsing,
 * adding and printing, over operands that take the integer paths and operands that fall back.
 */
class Float80Test {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static String reference(String x, String y) {
        try {
            return referenceOrThrow(x, y);
        } catch (NumberFormatException e) {
            return "not a float";
        }
    }

    private static String fast(String x, String y) {
        try {
            return fastOrThrow(x, y);
        } catch (NumberFormatException e) {
            return "not a float";
        }
    }

    private static String referenceOrThrow(String x, String y) {
        BigDecimal a = LongDouble.parse(b(x), 0, x.length());
        BigDecimal c = LongDouble.parse(b(y), 0, y.length());
        if (a == null || c == null) return "inf";
        BigDecimal sum = LongDouble.add(a, c);
        return sum == null ? "inf" : LongDouble.formatHuman(sum);
    }

    private static String fastOrThrow(String x, String y) {
        Float80 a = Float80.parse(b(x), 0, x.length());
        Float80 c = Float80.parse(b(y), 0, y.length());
        if (a == null || c == null) return "inf";
        Float80 sum = a.plus(c);
        return sum == null ? "inf" : sum.toHumanString();
    }

    private static String decimal(Random r) {
        StringBuilder sb = new StringBuilder();
        if (r.nextInt(3) == 0) sb.append('-');
        int intDigits = r.nextInt(12);
        for (int i = 0; i < intDigits; i++) sb.append((char) ('0' + r.nextInt(10)));
        if (intDigits == 0) sb.append('0');
        int decimals = r.nextInt(4) == 0 ? 0 : 1 + r.nextInt(r.nextBoolean() ? 6 : 20);
        if (decimals > 0) {
            sb.append('.');
            for (int i = 0; i < decimals; i++) sb.append((char) ('0' + r.nextInt(10)));
        }
        return sb.toString();
    }

    private static String operand(Random r) {
        switch (r.nextInt(10)) {
            case 0: return Long.toString(r.nextLong());
            case 1: return Long.toString(r.nextInt(2001) - 1000);
            case 2: return (r.nextInt(2000) - 1000) + "." + r.nextInt(1000) + "e" + (r.nextInt(60) - 30);
            case 3: return new String[] {"0", "-0", "0.1", "0.2", "1.5", "-1.5", "10.5", "1e4000", "-1e4000",
                "1.18973149535723176502e4932", "3.6e-4951", "1e-4940", "5.0e3", "17179869184", "-1.1",
                "0.30000000000000000001", "12345678901234567890123", "+7", ".5", "5."}[r.nextInt(20)];
            case 4: return r.nextInt(100) + "." + "0".repeat(r.nextInt(25)) + (1 + r.nextInt(9));
            default: return decimal(r);
        }
    }

    @Test
    void sumsPrintAsTheBigDecimalEmulationPrintsThem() {
        Random r = new Random(80);
        List<String> mismatches = new ArrayList<>();
        for (int i = 0; i < 50_000 && mismatches.size() < 10; i++) {
            String x = operand(r);
            String y = r.nextInt(8) == 0 && !x.startsWith("-") ? "-" + x : operand(r); // cancellation too
            String want = reference(x, y);
            String got = fast(x, y);
            if (!want.equals(got)) mismatches.add(x + " + " + y + ": " + want + " != " + got);
        }
        assertThat(mismatches).isEmpty();
    }

    @Test
    void parsedValuesAreTheEmulationsRoundedValues() {
        Random r = new Random(81);
        for (int i = 0; i < 30_000; i++) {
            String x = operand(r);
            BigDecimal want;
            try {
                want = LongDouble.parse(b(x), 0, x.length());
            } catch (NumberFormatException e) {
                String shown = x;
                org.assertj.core.api.Assertions.assertThatThrownBy(() -> Float80.parse(b(shown), 0, shown.length()))
                        .as(x).isInstanceOf(NumberFormatException.class);
                continue;
            }
            Float80 got = Float80.parse(b(x), 0, x.length());
            if (want == null) {
                assertThat(got).as(x).isNull();
            } else {
                assertThat(got.toBigDecimal().compareTo(want)).as(x).isZero();
                assertThat(got.toHumanString()).as(x).isEqualTo(LongDouble.formatHuman(want));
            }
        }
    }

    @Test
    void repeatedIncrementsStayInStep() {
        // what INCRBYFLOAT does in a loop: the printed result is parsed again as the next value
        Random r = new Random(82);
        for (int run = 0; run < 200; run++) {
            String value = operand(r);
            String incr = decimal(r);
            String slow = value, quick = value;
            for (int i = 0; i < 50; i++) {
                slow = reference(slow, incr);
                quick = fast(quick, incr);
                assertThat(quick).as(value + " + " + incr + " x" + i).isEqualTo(slow);
                if (slow.equals("inf")) break;
            }
        }
    }

    @Test
    void aTieInTheFrameIsBrokenByWhatLiesBelowIt() {
        // 2^63 + 1 - (2^64 - 1) * 2^-65 = 2^63 + 0.5 + 2^-65: the subtrahend reaches one bit below
        // the 128-bit frame, and that bit makes a seeming tie round up
        String below = new BigDecimal(java.math.BigInteger.ONE.shiftLeft(64).subtract(java.math.BigInteger.ONE))
                .divide(new BigDecimal(java.math.BigInteger.ONE.shiftLeft(65))).toPlainString();
        assertThat(reference("9223372036854775809", "-" + below)).isEqualTo("9223372036854775809");
        assertThat(fast("9223372036854775809", "-" + below)).isEqualTo("9223372036854775809");
    }

    @Test
    void knownRedisResults() {
        assertThat(fast("10.5", "0.1")).isEqualTo("10.6");
        assertThat(fast("17179869184", "-1.1")).isEqualTo("17179869182.90000000037252903");
        assertThat(fast("0", "5.0e3")).isEqualTo("5000");
        assertThat(fast("1.5", "-1.5")).isEqualTo("0");
        assertThat(fast("0.1", "0.2")).isEqualTo("0.3");
        assertThat(Float80.of(Long.MIN_VALUE).toHumanString()).isEqualTo("-9223372036854775808");
        assertThat(Float80.of(-42).plus(Float80.of(42)).toHumanString()).isEqualTo("0");
    }
}
