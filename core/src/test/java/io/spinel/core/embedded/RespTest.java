package io.spinel.core.embedded;

import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class RespTest {
    private static Object decode(String resp, boolean strings) {
        byte[] b = resp.getBytes(StandardCharsets.UTF_8);
        Resp.Decoder d = new Resp.Decoder();
        d.reset(b, 0, b.length);
        Object v = d.next(strings);
        assertThat(d.pos).as("consumed all of %s", resp).isEqualTo(b.length);
        return v;
    }

    @Test
    void decodesEveryReplyType() {
        assertThat(decode("+OK\r\n", true)).isEqualTo("OK");
        assertThat(decode(":-42\r\n", true)).isEqualTo(-42L);
        assertThat(decode("$3\r\na\r\n\r\n", true)).isEqualTo("a\r\n");
        assertThat(decode("$0\r\n\r\n", false)).isEqualTo(new byte[0]);
        assertThat(decode("$-1\r\n", true)).isNull();
        assertThat(decode("*-1\r\n", true)).isNull();
        assertThat(decode("_\r\n", true)).isNull();
        assertThat(decode("#t\r\n", true)).isEqualTo(true);
        assertThat(decode("#f\r\n", true)).isEqualTo(false);
        assertThat(decode(",1.5\r\n", true)).isEqualTo(1.5);
        assertThat(decode(",inf\r\n", true)).isEqualTo(Double.POSITIVE_INFINITY);
        assertThat(decode(",-inf\r\n", true)).isEqualTo(Double.NEGATIVE_INFINITY);
        assertThat((Double) decode(",nan\r\n", true)).isNaN();
        assertThat(decode("(123456789012345678901234567890\r\n", true))
                .isEqualTo(new BigInteger("123456789012345678901234567890"));
        assertThat(decode("=8\r\ntxt:info\r\n", true)).isEqualTo("info");
        assertThat(decode("*2\r\n$1\r\na\r\n*1\r\n:1\r\n", true)).isEqualTo(List.of("a", List.of(1L)));
        assertThat(decode("%1\r\n+k\r\n:1\r\n", true)).isEqualTo(Map.of("k", 1L));
        assertThat(decode("~2\r\n$1\r\nb\r\n$1\r\na\r\n", true)).isEqualTo(new LinkedHashSet<>(List.of("b", "a")));
        assertThat(decode(">2\r\n+message\r\n:1\r\n", true)).isEqualTo(new Resp.Push(List.of("message", 1L)));
    }

    @Test
    void errorsInsideArraysAreElements() {
        List<?> l = (List<?>) decode("*2\r\n+OK\r\n-WRONGTYPE Operation against a key\r\n", true);
        assertThat(l.get(0)).isEqualTo("OK");
        assertThat(l.get(1)).isInstanceOf(SpinelException.class);
        assertThat(((SpinelException) l.get(1)).getMessage()).isEqualTo("WRONGTYPE Operation against a key");
        assertThat(((SpinelException) l.get(1)).code()).isEqualTo("WRONGTYPE");
    }

    @Test
    void aReplyCutAnywhereIsIncompleteAndLeavesThePositionAlone() {
        String whole = "*3\r\n$5\r\nhello\r\n%1\r\n+k\r\n,2.5\r\n~1\r\n:7\r\n";
        byte[] b = whole.getBytes(StandardCharsets.UTF_8);
        Resp.Decoder d = new Resp.Decoder();
        for (int cut = 0; cut < b.length; cut++) {
            d.reset(b, 0, cut);
            assertThat(d.next(true)).as("cut at %d", cut).isSameAs(Resp.INCOMPLETE);
            assertThat(d.pos).isZero();
        }
        d.reset(b, 0, b.length);
        assertThat(d.next(true)).isEqualTo(List.of("hello", Map.of("k", 2.5), Set.of(7L)));
    }

    @Test
    void encodesCommandsAsBulkArrays() {
        byte[][] args = {"SET".getBytes(StandardCharsets.UTF_8), new byte[] {0, '\r', '\n'}, new byte[0]};
        byte[] out = Resp.encode(args);
        byte[] expected = "*3\r\n$3\r\nSET\r\n$3\r\n\0\r\n\r\n$0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);
        assertThat(Arrays.equals(out, expected)).isTrue();
    }
}
