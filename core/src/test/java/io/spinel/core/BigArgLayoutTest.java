package io.spinel.core;

import io.spinel.core.protocol.Args;
import io.spinel.core.protocol.RespReader;
import io.spinel.core.util.NativeMemory;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The reader asks the string family's layout, while a big argument starts arriving, whether a
 * command will keep it as a value (then it goes to native memory). The layout looks at the
 * arguments parsed so far, of which there may be none: the big argument can be the first.
 */
class BigArgLayoutTest {
    private final Args args = new Args();
    private final RespReader reader = new RespReader(args);

    BigArgLayoutTest() {
        reader.layout(CommandFamilies.BIG_ARG_LAYOUT);
        reader.receiveBigValuesNatively(true);
    }

    /** Feeds b as a transport does (ClientHandler.read): in steps, parsing after each; the last parse's result. */
    private int feed(byte[] b) {
        int done = 0;
        int result;
        do {
            int n = Math.min(b.length - done, reader.maxWrite());
            long target = reader.nativeTarget();
            if (target != 0) {
                NativeMemory.copyFrom(b, done, target, n);
            } else {
                n = Math.min(n, 16 * 1024);
                byte[] dst = reader.writable(n);
                System.arraycopy(b, done, dst, reader.writeOffset(), n);
            }
            reader.commit(n);
            done += n;
            result = reader.next(false, 512L << 20);
        } while (done < b.length && result == RespReader.NEED_MORE);
        assertThat(done).isEqualTo(b.length);
        return result;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static byte[] filled(int n, char c) {
        byte[] b = new byte[n];
        Arrays.fill(b, (byte) c);
        return b;
    }

    /** Redis's client-eviction test sends a 220 KB command name that never completes. */
    @Test
    void aBigFirstArgumentIsReceivedWithNothingParsedBeforeIt() {
        int size = 225_280;
        assertThat(feed(bytes("*1\r\n$" + size + "\r\n"))).isEqualTo(RespReader.NEED_MORE);
        assertThat(feed(filled(100_000, 'x'))).isEqualTo(RespReader.NEED_MORE);
        assertThat(reader.pending()).isGreaterThanOrEqualTo(100_000);
        assertThat(feed(filled(size - 100_000, 'x'))).isEqualTo(RespReader.NEED_MORE);
        assertThat(feed(bytes("\r\n"))).isEqualTo(RespReader.COMMAND);
        assertThat(args.count()).isEqualTo(1);
        assertThat(args.len(0)).isEqualTo(size);
        assertThat(args.isNative(0)).isFalse();
        reader.consumed();
    }

    @Test
    void valuesOfTheStringStoreAreReceivedNatively() {
        assumeTrue(NativeMemory.available());
        int size = 100_000;
        assertThat(feed(bytes("*5\r\n$4\r\nMSET\r\n$1\r\na\r\n$1\r\n1\r\n$1\r\nb\r\n$" + size + "\r\n")))
                .isEqualTo(RespReader.NEED_MORE);
        assertThat(feed(filled(size, 'v'))).isEqualTo(RespReader.NEED_MORE);
        assertThat(feed(bytes("\r\n"))).isEqualTo(RespReader.COMMAND);
        assertThat(args.isNative(4)).isTrue();
        assertThat(args.isNative(2)).isFalse();
        reader.consumed();
    }

    /** The transport asks after each read whether a value began, to read only a header next. */
    @Test
    void aValueBeganIsToldOnceAndOnlyForValuesReceivedNatively() {
        assumeTrue(NativeMemory.available());
        int size = 50_000;
        assertThat(feed(bytes("*2\r\n$3\r\nGET\r\n$" + size + "\r\n"))).isEqualTo(RespReader.NEED_MORE);
        assertThat(feed(filled(size, 'k'))).isEqualTo(RespReader.NEED_MORE);
        assertThat(feed(bytes("\r\n"))).isEqualTo(RespReader.COMMAND);
        assertThat(reader.takeBigValueBegan()).as("a big key is no value").isFalse();
        reader.consumed();

        assertThat(feed(bytes("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$" + size + "\r\n"))).isEqualTo(RespReader.NEED_MORE);
        assertThat(reader.takeBigValueBegan()).isTrue();
        assertThat(reader.takeBigValueBegan()).as("told once").isFalse();
        assertThat(feed(filled(size, 'v'))).isEqualTo(RespReader.NEED_MORE);
        assertThat(feed(bytes("\r\n"))).isEqualTo(RespReader.COMMAND);
        assertThat(reader.takeBigValueBegan()).isFalse();
        reader.consumed();
    }
}
