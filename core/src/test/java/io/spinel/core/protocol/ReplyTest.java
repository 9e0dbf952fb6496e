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
