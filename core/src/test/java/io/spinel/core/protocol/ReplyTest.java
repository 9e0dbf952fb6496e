package io.spinel.core.protocol;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class ReplyTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final Reply r = new Reply();

    ReplyTest() {
        r.setSink(out::write);
    }

    private String drained() {
        r.drain();
        String s = out.toString(StandardCharsets.ISO_8859_1);
        out.reset();
        return s;
    }

    @Test
    void resp2AndResp3Encodings() {
        r.integer(-42);
        r.bulk("héllo");
        r.nullBulk();
        r.nullArray();
        r.mapHeader(2);
        r.dbl(1.5);
        r.bool(true);
        assertThat(drained()).isEqualTo(":-42\r\n$6\r\nhéllo\r\n".replace("héllo", "h\u00c3\u00a9llo")
                + "$-1\r\n*-1\r\n*4\r\n$3\r\n1.5\r\n:1\r\n");
        r.setProtocol(3);
        r.nullBulk();
        r.nullArray();
        r.mapHeader(2);
        r.setHeader(1);
        r.dbl(1.5);
        r.dbl(Double.POSITIVE_INFINITY);
        r.bool(false);
        assertThat(drained()).isEqualTo("_\r\n_\r\n%2\r\n~1\r\n,1.5\r\n,inf\r\n#f\r\n");
    }

    /**
     * Whole-number doubles are written straight from their digits; every double must still read
     * exactly as %.17g prints it (Doubles.format17g), -0 and the exponent form included.
     */
    @Test
    void doublesReadAsPercent17gWhetherWholeOrNot() {
        double[] values = {0.0, -0.0, 1, -1, 7, -123456, 1e15, 99999999999999984.0, 1e17, -1e17, 2.5e17,
                1733400000000.0, 0.5, -2.25, 1.0 / 3, 1e-5, Double.MAX_VALUE, -Double.MIN_VALUE};
        for (int protocol : new int[] {2, 3}) {
            r.setProtocol(protocol);
            for (double d : values) {
                r.dbl(d);
                String text = io.spinel.core.util.Doubles.format17g(d);
                String expected = protocol == 3 ? "," + text + "\r\n" : "$" + text.length() + "\r\n" + text + "\r\n";
                assertThat(drained()).as("%s in RESP%d", d, protocol).isEqualTo(expected);
            }
        }
    }

    /** Stream IDs: both halves unsigned 64-bit, written in place whatever their size. */
    @Test
    void dashedBulkWritesBothHalvesUnsigned() {
        long[] values = {0, 1, 9, 10, 1700000000000L, Long.MAX_VALUE, Long.MIN_VALUE, -10, -2, -1};
        StringBuilder expected = new StringBuilder();
        for (long hi : values) {
            for (long lo : values) {
                r.bulkDashed(hi, lo);
                String id = Long.toUnsignedString(hi) + "-" + Long.toUnsignedString(lo);
                expected.append('$').append(id.length()).append("\r\n").append(id).append("\r\n");
            }
        }
        assertThat(drained()).isEqualTo(expected.toString());
    }

    @Test
    void deferredLengthIsPatchedInPlace() {
        r.status("before");
        int h = r.deferLength();
        for (int i = 0; i < 12; i++) r.integer(i);
        r.setDeferredLength(h, '*', 12);
        StringBuilder expected = new StringBuilder("+before\r\n*12\r\n");
        for (int i = 0; i < 12; i++) expected.append(':').append(i).append("\r\n");
        assertThat(drained()).isEqualTo(expected.toString());
    }

    @Test
    void hugeRepliesSpillToTheSinkInsteadOfGrowingForever() {
        byte[] value = new byte[10_000];
        for (int i = 0; i < 1000; i++) r.bulk(value);
        assertThat(r.buffer().length).isLessThan(1 << 20);
        assertThat(out.size() + r.length()).isEqualTo(1000 * (10_000 + 10));
    }

    @Test
    void discardingDropsEverythingInBetween() {
        r.ok();
        r.startDiscarding();
        r.status("dropped");
        r.stopDiscarding();
        r.integer(1);
        assertThat(drained()).isEqualTo("+OK\r\n:1\r\n");
    }
}
