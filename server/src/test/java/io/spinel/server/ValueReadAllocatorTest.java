package io.spinel.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.RecvByteBufAllocator;
import io.spinel.core.protocol.Args;
import io.spinel.core.protocol.RespReader;
import io.spinel.core.util.NativeMemory;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What each socket read of a connection goes into: the pooled buffer of the usual size, the
 * value's own memory while a big value arrives, and after a big value a read only as long as a
 * command's header, so that the next big value lands mostly where it is kept (a 64 KB read would
 * hold all of it, to be copied).
 */
class ValueReadAllocatorTest {
    private final ByteBufAllocator alloc = new UnpooledByteBufAllocator(false);
    private final Args args = new Args();
    private final RespReader reader = new RespReader(args);
    /** Keeps the third argument on as a value, as SET's layout does. */
    private final RespReader.BigArgLayout layout = new RespReader.BigArgLayout() {
        @Override
        public int headroom(Args parsed, int argc, int length) {
            return 0;
        }

        @Override
        public boolean keepsAsValue(Args parsed, int argc) {
            return parsed.count() >= 2;
        }
    };
    private final RecvByteBufAllocator.Handle reads =
            new ValueReadAllocator(new AdaptiveRecvByteBufAllocator(16 * 1024, 16 * 1024, 64 * 1024), () -> reader)
                    .newHandle();

    ValueReadAllocatorTest() {
        reader.layout(layout);
        reader.receiveBigValuesNatively(true);
    }

    /** One read of {@code data} as the transport makes it (the socket fills the buffer given); the bytes it took. */
    private int read(byte[] data, int from) {
        ByteBuf b = reads.allocate(alloc);
        try {
            reads.attemptedBytesRead(b.writableBytes());
            int n = Math.min(b.writableBytes(), data.length - from);
            b.writeBytes(data, from, n);
            reads.lastBytesRead(n);
            // as ClientHandler: into the value's memory (already there), else the query buffer
            int done = 0;
            while (done < n) {
                int step = Math.min(n - done, reader.maxWrite());
                long target = reader.nativeTarget();
                if (target != 0) {
                    if (!b.hasMemoryAddress() || b.memoryAddress() + done != target) {
                        NativeMemory.copyFrom(Arrays.copyOfRange(data, from + done, from + done + step), 0, target, step);
                    }
                } else {
                    byte[] dst = reader.writable(step);
                    System.arraycopy(data, from + done, dst, reader.writeOffset(), step);
                }
                reader.commit(step);
                done += step;
                while (reader.next(false, 512L << 20) == RespReader.COMMAND) reader.consumed();
            }
            return n;
        } finally {
            b.release();
        }
    }

    private static byte[] set(String key, int size) {
        byte[] head = ("*3\r\n$3\r\nSET\r\n$" + key.length() + "\r\n" + key + "\r\n$" + size + "\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        byte[] out = Arrays.copyOf(head, head.length + size + 2);
        Arrays.fill(out, head.length, head.length + size, (byte) 'v');
        out[out.length - 2] = '\r';
        out[out.length - 1] = '\n';
        return out;
    }

    @Test
    void afterABigValueTheNextReadTakesOnlyAHeader() {
        assumeTrue(NativeMemory.available());
        byte[] first = set("a", 65_536), second = set("b", 65_536);
        byte[] stream = Arrays.copyOf(first, first.length + second.length);
        System.arraycopy(second, 0, stream, first.length, second.length);

        // the first value: the usual read (16 KB here) holds its header and the start of it
        int at = read(stream, 0);
        assertThat(at).isEqualTo(16 * 1024);
        // the rest of it straight into its memory, in one read exactly as long as what it lacks
        int rest = read(stream, at);
        assertThat(at + rest).isEqualTo(first.length);
        at += rest;
        // then a read of a header's length: of the second value, only what follows its header is copied
        int header = read(stream, at);
        assertThat(header).isEqualTo(ValueReadAllocator.AFTER_BIG_VALUE);
        at += header;
        assertThat(read(stream, at)).isEqualTo(stream.length - at);
        assertThat(reader.takeBigValueBegan()).as("asked by the read after the second value").isTrue();
    }

    @Test
    void smallCommandsAfterABigValueAreReadAtTheUsualSizesAgain() {
        assumeTrue(NativeMemory.available());
        byte[] big = set("a", 40_000);
        byte[] pings = "*1\r\n$4\r\nPING\r\n".repeat(5_000).getBytes(StandardCharsets.US_ASCII);
        byte[] stream = Arrays.copyOf(big, big.length + pings.length);
        System.arraycopy(pings, 0, stream, big.length, pings.length);

        int at = read(stream, 0);
        at += read(stream, at);
        assertThat(at).isEqualTo(big.length);
        assertThat(read(stream, at)).isEqualTo(ValueReadAllocator.AFTER_BIG_VALUE);
        at += ValueReadAllocator.AFTER_BIG_VALUE;
        // no big value began in it: the next read is the pooled buffer's usual size
        int usual = reads.guess();
        assertThat(usual).isGreaterThanOrEqualTo(16 * 1024);
        assertThat(read(stream, at)).isEqualTo(usual);
    }

    @Test
    void aBigArgumentThatIsNoValueChangesNoReadSize() {
        byte[] key = new byte[40_000];
        Arrays.fill(key, (byte) 'k');
        byte[] get = ("*2\r\n$3\r\nGET\r\n$" + key.length + "\r\n").getBytes(StandardCharsets.US_ASCII);
        byte[] pings = "*1\r\n$4\r\nPING\r\n".repeat(5_000).getBytes(StandardCharsets.US_ASCII);
        byte[] stream = Arrays.copyOf(get, get.length + key.length + 2 + pings.length);
        System.arraycopy(key, 0, stream, get.length, key.length);
        stream[get.length + key.length] = '\r';
        stream[get.length + key.length + 1] = '\n';
        System.arraycopy(pings, 0, stream, get.length + key.length + 2, pings.length);

        int at = 0;
        while (at < get.length + key.length + 2) at += read(stream, at);
        assertThat(reader.takeBigValueBegan()).isFalse();
        assertThat(read(stream, at)).isGreaterThan(ValueReadAllocator.AFTER_BIG_VALUE);
    }
}
