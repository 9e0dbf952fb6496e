package io.spinel.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelConfig;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.util.UncheckedBooleanSupplier;
import io.spinel.core.protocol.RespReader;

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
    private final RecvByteBufAllocator sizes;
    private final ClientHandler connection;

    ValueReadAllocator(RecvByteBufAllocator sizes, ClientHandler connection) {
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
            RespReader reader = connection.reader();
            long target = reader == null ? 0 : reader.nativeTarget();
            if (target == 0) return sized.allocate(alloc);
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
