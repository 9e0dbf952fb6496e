package io.spinel.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelConfig;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.util.UncheckedBooleanSupplier;
import io.spinel.core.protocol.RespReader;

import java.util.function.Supplier;

/**
 * A connection's read buffers: while a big SET or MSET value is arriving into native memory
 * ({@link RespReader#nativeTarget}), the socket is read straight into that memory, as Redis reads
 * a big argument into the buffer that becomes the value; otherwise the pooled buffers that
 * {@code sizes} picks. The buffer over the value is exactly as long as what the value still
 * lacks, so nothing of the next command lands in it, and it frees nothing when released.
 *
 * <p>Only for transports that read synchronously into the buffer they are given (epoll, NIO): a
 * read that completes later (io_uring) could write into memory freed meanwhile.
 */
final class ValueReadAllocator implements RecvByteBufAllocator {
    /**
     * The read after a big value arrived: enough for the next command's header and short
     * arguments; of a next big value, only what follows its header here is copied. The read
     * loop goes on at the usual sizes when this fills.
     */
    static final int AFTER_BIG_VALUE = 1024;

    private final RecvByteBufAllocator sizes;
    /** The connection's request reader, null until the channel is active. */
    private final Supplier<RespReader> connection;

    ValueReadAllocator(RecvByteBufAllocator sizes, Supplier<RespReader> connection) {
        this.sizes = sizes;
        this.connection = connection;
    }

    @Override
    public Handle newHandle() {
        return new ValueHandle((ExtendedHandle) sizes.newHandle());
    }

    private final class ValueHandle implements ExtendedHandle {
        private final ExtendedHandle sized;

        ValueHandle(ExtendedHandle sized) {
            this.sized = sized;
        }

        @Override
        public ByteBuf allocate(ByteBufAllocator alloc) {
            RespReader reader = connection.get();
            long target = reader == null ? 0 : reader.nativeTarget();
            if (target == 0) {
                // after a big value, only the next command's header (see takeBigValueBegan)
                if (reader != null && reader.takeBigValueBegan()) return alloc.ioBuffer(AFTER_BIG_VALUE);
                return sized.allocate(alloc);
            }
            return Unpooled.wrappedBuffer(target, reader.maxWrite(), false).clear();
        }

        @Override
        public int guess() {
            return sized.guess();
        }

        @Override
        public void reset(ChannelConfig config) {
            sized.reset(config);
        }

        @Override
        public void incMessagesRead(int numMessages) {
            sized.incMessagesRead(numMessages);
        }

        @Override
        public void lastBytesRead(int bytes) {
            sized.lastBytesRead(bytes);
        }

        @Override
        public int lastBytesRead() {
            return sized.lastBytesRead();
        }

        @Override
        public void attemptedBytesRead(int bytes) {
            sized.attemptedBytesRead(bytes);
        }

        @Override
        public int attemptedBytesRead() {
            return sized.attemptedBytesRead();
        }

        @Override
        public boolean continueReading() {
            return sized.continueReading();
        }

        @Override
        public boolean continueReading(UncheckedBooleanSupplier maybeMoreDataSupplier) {
            return sized.continueReading(maybeMoreDataSupplier);
        }

        @Override
        public void readComplete() {
            sized.readComplete();
        }
    }
}
