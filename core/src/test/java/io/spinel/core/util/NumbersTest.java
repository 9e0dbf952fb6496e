package io.spinel.core.util;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Number parsing and printing that must agree with Redis's string2ll, strtod, %.17g and long double. */
class NumbersTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    @Test
    void parseLongIsStrict() {
        assertThat(Bytes.parseLong(b("0"))).isZero();
        assertThat(Bytes.parseLong(b("-9223372036854775808"))).isEqualTo(Long.MIN_VALUE);
        assertThat(Bytes.parseLong(b("9223372036854775807"))).isEqualTo(Long.MAX_VALUE);
        for (String bad : new String[] {"", "-", "+1", "01", "-0", " 1", "1 ", "9223372036854775808",
                "-9223372036854775809", "1.0", "abc", "123456789012345678901"}) {
            assertThatThrownBy(() -> Bytes.parseLong(b(bad))).as(bad).isInstanceOf(NumberFormatException.class);
        }
    }

    @Test
    void writeLongRoundTrips() {
        for (long v : new long[] {0, 1, -1, 10, 999, Long.MAX_VALUE, Long.MIN_VALUE, 1234567890123L}) {
            assertThat(new String(Bytes.longToBytes(v), StandardCharsets.US_ASCII)).isEqualTo(Long.toString(v));
            assertThat(Bytes.decimalLength(v)).isEqualTo(Long.toString(v).length());
        }
    }

    @Test
    void writeLongAtEveryDigitCountBoundary() {
        java.util.List<Long> values = new java.util.ArrayList<>();
        for (long p = 1; p > 0 && p <= Long.MAX_VALUE / 10 * 10; p *= 10) {
            for (long v : new long[] {p - 1, p, p + 1, p * 2 - 1}) {
                values.add(v);
                values.add(-v);
            }
            if (p > Long.MAX_VALUE / 10) break;
        }
        values.add(Long.MAX_VALUE - 1);
        values.add(Long.MIN_VALUE + 1);
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(42);
        for (int i = 0; i < 10_000; i++) values.add(rnd.nextLong() >> rnd.nextInt(64));
        byte[] buf = new byte[30];
        for (long v : values) {
            String expected = Long.toString(v);
            assertThat(Bytes.decimalLength(v)).as("length of %d", v).isEqualTo(expected.length());
            buf[0] = 'x';
            int end = Bytes.writeLong(buf, 1, v);
            assertThat(new String(buf, 1, end - 1, StandardCharsets.US_ASCII)).isEqualTo(expected);
            assertThat(buf[0]).isEqualTo((byte) 'x');
        }
    }

    @Test
    void format17gMatchesPrintf() {
        // values and the text glibc's printf("%.17g") gives for them
        assertThat(Doubles.format17g(0.1)).isEqualTo("0.10000000000000001");
        assertThat(Doubles.format17g(1.5)).isEqualTo("1.5");
        assertThat(Doubles.format17g(3.0)).isEqualTo("3");
        assertThat(Doubles.format17g(-0.0)).isEqualTo("-0");
        assertThat(Doubles.format17g(1e17)).isEqualTo("1e+17");
        assertThat(Doubles.format17g(1.2345e-5)).isEqualTo("1.2345e-05");
        assertThat(Doubles.format17g(1.0 / 3)).isEqualTo("0.33333333333333331");
        assertThat(Doubles.format17g(123456789012345678.0)).isEqualTo("1.2345678901234568e+17");
        assertThat(Doubles.format17g(2.5e-300)).isEqualTo("2.5e-300");
        assertThat(Doubles.format17g(123456789.123)).isEqualTo("123456789.123");
        assertThat(Doubles.format17g(Double.POSITIVE_INFINITY)).isEqualTo("inf");
        assertThat(Doubles.format17g(1e300)).isEqualTo("1.0000000000000001e+300");
        assertThat(Doubles.format17g(0.0001)).isEqualTo("0.0001");
    }

    @Test
    void parseFollowsStrtod() {
        assertThat(Doubles.parse(b("1.5"), 0, 3)).isEqualTo(1.5);
        assertThat(Doubles.parse(b("-inf"), 0, 4)).isEqualTo(Double.NEGATIVE_INFINITY);
        assertThat(Doubles.parse(b("+Infinity"), 0, 9)).isEqualTo(Double.POSITIVE_INFINITY);
        assertThat(Doubles.parse(b("0x10"), 0, 4)).isEqualTo(16.0);
        assertThat(Doubles.parse(b(".5"), 0, 2)).isEqualTo(0.5);
        assertThat(Doubles.parse(b("5."), 0, 2)).isEqualTo(5.0);
        for (String bad : new String[] {"", " 1", "1 ", "nan", "1e", "abc", "1e400", "1e-400", "--1", "0x"}) {
            assertThatThrownBy(() -> Doubles.parse(b(bad), 0, bad.length())).as(bad)
                    .isInstanceOf(NumberFormatException.class);
        }
    }

    @Test
    void fastDecimalPathAgreesWithTheGeneralParser() {
        java.util.Random r = new java.util.Random(7);
        String[] fixed = {"0", "-0", "0.0", "1", "-1.5", "123.456", "0.000001", "1e22", "1e-22", "123456789012345",
            "0.1", "3.14159", "1.7976931348623157e308", "4.9e-324", "1e23", "9007199254740993", "00012.500",
            "-.5", "5.", "1E5", "2.5e-3"};
        for (String s : fixed) {
            assertThat(Doubles.parse(b(s), 0, s.length())).as(s).isEqualTo(Double.parseDouble(s));
        }
        for (int k = 0; k < 100_000; k++) {
            String s;
            switch (k % 3) {
                case 0: s = Long.toString(r.nextLong() % 1_000_000_000_000L); break;
                case 1: s = String.format(java.util.Locale.ROOT, "%." + r.nextInt(10) + "f", r.nextDouble() * 1e6); break;
                default: s = (r.nextInt(2000) - 1000) + "." + r.nextInt(100000) + "e" + (r.nextInt(40) - 20); break;
            }
            assertThat(Doubles.parse(b(s), 0, s.length())).as(s).isEqualTo(Double.parseDouble(s));
        }
    }

    @Test
    void longDoubleArithmeticMatchesRedis() {
        // INCRBYFLOAT results printed by redis-server 7.0 on x86-64
        assertThat(sum("10.5", "0.1")).isEqualTo("10.6");
        assertThat(sum("17179869184", "-1.1")).isEqualTo("17179869182.90000000037252903");
        assertThat(sum("0", "5.0e3")).isEqualTo("5000");
        assertThat(sum("1.5", "-1.5")).isEqualTo("0");
        assertThat(sum("0.1", "0.2")).isEqualTo("0.3");
    }

    private static String sum(String a, String b) {
        return LongDouble.formatHuman(LongDouble.add(LongDouble.parse(b(a), 0, a.length()),
                LongDouble.parse(b(b), 0, b.length())));
    }

    @Test
    void globMatching() {
        assertThat(Glob.match(b("h?llo"), b("hello"), false)).isTrue();
        assertThat(Glob.match(b("h*o"), b("hello"), false)).isTrue();
        assertThat(Glob.match(b("h[ae]llo"), b("hallo"), false)).isTrue();
        assertThat(Glob.match(b("h[^e]llo"), b("hello"), false)).isFalse();
        assertThat(Glob.match(b("h[a-b]llo"), b("hbllo"), false)).isTrue();
        assertThat(Glob.match(b("h\\*llo"), b("h*llo"), false)).isTrue();
        assertThat(Glob.match(b("HELLO"), b("hello"), true)).isTrue();
        assertThat(Glob.match(b("a*a*a*a*a*a*a*a*a*a*b"), b("a".repeat(60)), false)).isFalse();
        // giving up stops only when a star ran out of subject: earlier stars still try shorter ways
        assertThat(Glob.match(b("*x*y"), b("axbxcy"), false)).isTrue();
        assertThat(Glob.match(b("a*b*c"), b("aXbYbZc"), false)).isTrue();
        assertThat(Glob.match(b("a*bc"), b("abcbc"), false)).isTrue();
        assertThat(Glob.match(b("a*b*c"), b("aXbYbZ"), false)).isFalse();
        assertThat(Glob.match(b("__key*__:*"), 0, 10, b("x__keyevent@0__:setx"), 1, 18, false)).isTrue();
        // like Redis, a lone star does not match the empty string (KEYS * special-cases it)
        assertThat(Glob.match(b("*"), b(""), false)).isFalse();
        assertThat(Glob.match(b("["), b("["), false)).isFalse();
    }

    private static String fixed(double d, int decimals) {
        StringBuilder sb = new StringBuilder();
        Doubles.appendFixed(sb, d, decimals);
        return sb.toString();
    }

    /** What printf("%.Nf") prints: the exact binary value rounded half to even, with its sign. */
    private static String printf(double d, int decimals) {
        String digits = new java.math.BigDecimal(Math.abs(d)).setScale(decimals, java.math.RoundingMode.HALF_EVEN).toPlainString();
        return (Double.doubleToRawLongBits(d) < 0 ? "-" : "") + digits;
    }

    @Test
    void fixedPointIsPrintfsRoundingOfTheExactValue() {
        // ties round to even on the exact value; 1.005 is 1.00499999999999989... in binary
        assertThat(fixed(0.125, 2)).isEqualTo("0.12");
        assertThat(fixed(0.375, 2)).isEqualTo("0.38");
        assertThat(fixed(2.5, 0)).isEqualTo("2");
        assertThat(fixed(3.5, 0)).isEqualTo("4");
        assertThat(fixed(1.005, 2)).isEqualTo("1.00");
        assertThat(fixed(0, 6)).isEqualTo("0.000000");
        assertThat(fixed(-0.001, 2)).isEqualTo("-0.00");
        assertThat(fixed(1.0 / 3, 6)).isEqualTo("0.333333");
        assertThat(fixed(12.3456789, 9)).isEqualTo("12.345678900");
        assertThat(fixed(1e300, 2)).isEqualTo(printf(1e300, 2));
        java.util.Random rnd = new java.util.Random(3);
        for (int i = 0; i < 200_000; i++) {
            int decimals = rnd.nextInt(10);
            double d = switch (rnd.nextInt(5)) {
                case 0 -> rnd.nextDouble() * 100;
                case 1 -> rnd.nextLong(1L << 40) / 1024.0; // exact binary fractions: ties at every decimal count
                case 2 -> (rnd.nextInt(2_000_000) + 0.5) / Math.pow(10, decimals); // near ties
                case 3 -> -rnd.nextDouble() * 1e6;
                default -> Double.longBitsToDouble(rnd.nextLong() & 0x7fefffffffffffffL) * (rnd.nextBoolean() ? 1 : -1);
            };
            assertThat(fixed(d, decimals)).as("%s with %d decimals", d, decimals).isEqualTo(printf(d, decimals));
        }
    }

    /** strtod(s, NULL) where Redis ignores the end (DEBUG SLEEP): the longest numeric prefix, else 0. */
    @Test
    void strtodPrefixReadsWhatCsStrtodReads() {
        String[][] cases = {{"abc", "0.0"}, {"", "0.0"}, {"0\r\n", "0.0"}, {" \t0.5", "0.5"}, {"0.01x", "0.01"},
            {"1e5x", "100000.0"}, {"1e", "1.0"}, {"1e+", "1.0"}, {".5", "0.5"}, {".", "0.0"}, {"-.5", "-0.5"},
            {"+3", "3.0"}, {"5.", "5.0"}, {"0x10", "16.0"}, {"0x1p4z", "16.0"}, {"0x", "0.0"}, {"0x.8", "0.5"},
            {"inf", "Infinity"}, {"-infinity", "-Infinity"}, {"nan", "NaN"}, {"- 1", "0.0"}};
        for (String[] c : cases) {
            assertThat(Double.toString(Doubles.strtodPrefix(b(c[0]), 0, c[0].length()))).as(c[0]).isEqualTo(c[1]);
        }
    }

    /** string2d's whole-slice strtod: what it takes, and NaN for the rest (syntax, overflow, underflow). */
    @Test
    void parseOrNaNTakesWholeStrtodNumbersOnly() {
        String[][] good = {{"1.", "1.0"}, {".5", "0.5"}, {"-1.5e3", "-1500.0"}, {"1.e2", "100.0"}, {"+2", "2.0"},
            {"0x10", "16.0"}, {"0x1p4", "16.0"}, {"0x.8", "0.5"}, {"0X1.8P+1", "3.0"}, {"inf", "Infinity"},
            {"-Infinity", "-Infinity"}, {"0e-400", "0.0"}, {"1e-300", "1.0E-300"}};
        for (String[] g : good) {
            assertThat(Double.toString(Doubles.parseOrNaN(b(g[0]), 0, g[0].length()))).as(g[0]).isEqualTo(g[1]);
        }
        for (String bad : new String[] {"", "-", ".", "1e", "1e+", "e5", "1 ", " 1", "0x", "0x.", "0x1p", "1.5x",
                "nan", "1e400", "1e-400", "0x1p99999", "infinit"}) {
            assertThat(Doubles.parseOrNaN(b(bad), 0, bad.length())).as(bad).isNaN();
        }
    }
}
