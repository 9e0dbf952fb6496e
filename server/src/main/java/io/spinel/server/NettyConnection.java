package io.spinel.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.channel.unix.FileDescriptor;
import io.netty.channel.unix.Socket;
import io.netty.channel.unix.UnixChannel;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.internal.PlatformDependent;
import io.spinel.core.util.NativeMemory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;

/**
 * A client's transport. Replies go straight to the socket (one write system call per batch, as
 * Redis writes them) when nothing is queued ahead of them; what the socket does not take, and
 * everything on a transport without a file descriptor, is queued on the Netty channel and flushed
 * once per batch.
 */
final class NettyConnection extends SocketConnection {
    /**
     * Where reply bytes are copied for the system call, one per event-loop thread. Going around
     * Netty's write path saves, per reply, a pooled buffer, the outbound pipeline and the outbound
     * buffer's bookkeeping, which at one request per round trip are a good part of the work.
     */
    private static final ThreadLocal<ByteBuffer> SOCKET_SCRATCH = ThreadLocal.withInitial(() -> ByteBuffer.allocateDirect(64 * 1024));

    private final Channel channel;
    /** The socket, when the channel has one (native epoll) and nothing in its pipeline transforms output. */
    private final Socket socket;
    /** Something was queued on the channel since the last flush. */
    private boolean queued;
    /**
     * Replies written on the engine's thread to a channel that an I/O thread owns (io-threads
     * above 1), gathered until {@link #flush()} hands them over in one task: Netty's write and
     * flush from another thread would be a task each, and a wake-up of the I/O thread each.
     */
    private ByteBuf handOff;
    /**
     * With I/O threads: tells the engine's thread that a handed-off write has left (or failed),
     * so the client's memory, which counted it while it waited, is measured again.
     */
    private final ChannelFutureListener handOffWritten;

    NettyConnection(Channel channel) {
        this(channel, null);
    }

    /** @param handOffWritten with I/O threads, run on the I/O thread once a handed-off write has left */
    NettyConnection(Channel channel, Runnable handOffWritten) {
        super(format(channel.remoteAddress(), true), format(channel.localAddress(), false),
                isUnix(channel) || Addresses.isLoopback(channel.remoteAddress()), isUnix(channel), fdOf(channel),
                channel.pipeline().get(SslHandler.class) != null);
        this.channel = channel;
        FileDescriptor descriptor = descriptor(channel);
        // only when the pipeline holds nothing but the ClientHandler: no encoder sits between
        // the replies and the socket
        boolean plain = channel.pipeline().first() instanceof ClientHandler && channel.pipeline().last() instanceof ClientHandler;
        this.socket = plain && descriptor instanceof Socket ? (Socket) descriptor : null;
        this.handOffWritten = handOffWritten == null ? null : f -> handOffWritten.run();
    }

    private static FileDescriptor descriptor(Channel channel) {
        return channel instanceof UnixChannel ? ((UnixChannel) channel).fd() : null;
    }

    private static int fdOf(Channel channel) {
        FileDescriptor d = descriptor(channel);
        return d == null ? -1 : d.intValue();
    }

    private static boolean isUnix(Channel channel) {
        return channel.localAddress() instanceof DomainSocketAddress;
    }

    /** "ip:port" as Redis prints it (IPv6 without brackets), or "path:0" for unix sockets. */
    static String format(SocketAddress a, boolean peer) {
        if (a instanceof InetSocketAddress) return io.spinel.core.util.SocketAddresses.format((InetSocketAddress) a);
        if (a instanceof DomainSocketAddress) {
            return ((DomainSocketAddress) a).path() + ":0";
        }
        return peer ? "?:0" : String.valueOf(a);
    }

    @Override
    public void write(byte[] buf, int off, int len) {
        if (socket != null && len > 0 && channel.eventLoop().inEventLoop()) {
            ChannelOutboundBuffer out = channel.unsafe().outboundBuffer();
            if (out != null && out.totalPendingWriteBytes() == 0 && channel.isActive()) {
                int sent = writeToSocket(buf, off, len);
                if (sent < 0 || sent == len) return;
                off += sent;
                len -= sent;
            }
        }
        if (handOffWritten != null && !channel.eventLoop().inEventLoop()) {
            handOff(len).writeBytes(buf, off, len);
            return;
        }
        ByteBuf b = channel.alloc().directBuffer(len);
        b.writeBytes(buf, off, len);
        channel.write(b, channel.voidPromise());
        queued = true;
    }

    /** The hand-off buffer, with room for n more bytes. */
    private ByteBuf handOff(int n) {
        if (handOff == null) handOff = channel.alloc().directBuffer(Math.max(n, 1024));
        handOff.ensureWritable(n);
        return handOff;
    }

    /**
     * Writes as much as the socket takes now; the rest is for the caller to queue (Netty then
     * waits for the socket to become writable). -1 when the write failed and the channel is
     * being closed, as Netty closes it on a failed write.
     */
    private int writeToSocket(byte[] buf, int off, int len) {
        ByteBuffer scratch = SOCKET_SCRATCH.get();
        int sent = 0;
        try {
            while (sent < len) {
                int n = Math.min(len - sent, scratch.capacity());
                scratch.clear();
                scratch.put(buf, off + sent, n);
                int w = socket.send(scratch, 0, n); // as Netty sends
                sent += w;
                if (w < n) break;
            }
        } catch (IOException e) {
            channel.close();
            return -1;
        }
        return sent;
    }

    @Override
    public boolean takesNative() {
        return true;
    }

    /**
     * A reply whose value lies in native memory (a big string): on the socket path head, value and
     * tail go in one writev straight from where they lie, so the value is copied once, by the
     * kernel, as Redis copies it into its reply buffer once. What the socket does not take now is
     * copied to a queued buffer at once: the value's memory may be freed after this command.
     */
    @Override
    public void writeNative(byte[] head, int off, int len, long address, int n, byte[] tail) {
        if (len > MAX_WRITEV_HEAD) {
            // a long run of replies before this one: those go the usual way first
            write(head, off, len);
            len = 0;
        }
        long total = (long) len + n + tail.length;
        long sent = 0;
        if (socket != null && SCRATCH_ADDRESSES && channel.eventLoop().inEventLoop()) {
            ChannelOutboundBuffer out = channel.unsafe().outboundBuffer();
            if (out != null && out.totalPendingWriteBytes() == 0 && channel.isActive()) {
                sent = writevToSocket(head, off, len, address, n, tail);
                if (sent < 0 || sent == total) return;
            }
        }
        boolean handingOff = handOffWritten != null && !channel.eventLoop().inEventLoop();
        ByteBuf b = handingOff ? handOff((int) (total - sent)) : channel.alloc().directBuffer((int) (total - sent));
        // skip what the socket took: first of the head, then of the value, then of the tail
        int fromHead = (int) Math.min(sent, len);
        b.writeBytes(head, off + fromHead, len - fromHead);
        long fromValue = Math.max(0, Math.min(sent - len, n));
        copyNative(address + fromValue, b, (int) (n - fromValue));
        int fromTail = (int) Math.max(0, sent - len - n);
        b.writeBytes(tail, fromTail, tail.length - fromTail);
        if (handingOff) return;
        channel.write(b, channel.voidPromise());
        queued = true;
    }

    /** Heads longer than this are written before the value (the scratch buffer holds head, tail and the iovecs). */
    private static final int MAX_WRITEV_HEAD = 60 * 1024;
    private static final int IOV_SIZE = 16;
    /** Whether the scratch buffer's address is known here (Netty reaches Unsafe), so writev can name it. */
    private static final boolean SCRATCH_ADDRESSES = PlatformDependent.hasUnsafe();

    /** One writev of head, value and tail; bytes sent, -1 when the write failed and the channel is closing. */
    private long writevToSocket(byte[] head, int off, int len, long address, int n, byte[] tail) {
        ByteBuffer scratch = SOCKET_SCRATCH.get();
        long base = PlatformDependent.directBufferAddress(scratch);
        scratch.put(0, head, off, len);
        scratch.put(len, tail, 0, tail.length);
        long iov = base + ((len + tail.length + 7) & ~7);
        int count = 0;
        if (len > 0) count = iovec(iov, count, base, len);
        count = iovec(iov, count, address, n);
        count = iovec(iov, count, base + len, tail.length);
        try {
            return socket.writevAddresses(iov, count);
        } catch (IOException e) {
            channel.close();
            return -1;
        }
    }

    private static int iovec(long iov, int index, long address, int length) {
        PlatformDependent.putLong(iov + (long) index * IOV_SIZE, address);
        PlatformDependent.putLong(iov + (long) index * IOV_SIZE + 8, length);
        return index + 1;
    }

    private static void copyNative(long address, ByteBuf to, int n) {
        to.ensureWritable(n);
        if (to.hasMemoryAddress()) {
            NativeMemory.copy(address, to.memoryAddress() + to.writerIndex(), n);
            to.writerIndex(to.writerIndex() + n);
            return;
        }
        byte[] chunk = new byte[Math.min(n, 16 * 1024)];
        for (int done = 0; done < n; ) {
            int c = Math.min(chunk.length, n - done);
            NativeMemory.copyTo(address + done, chunk, 0, c);
            to.writeBytes(chunk, 0, c);
            done += c;
        }
    }

    @Override
    public void flush() {
        if (handOff != null) {
            ByteBuf b = handOff;
            handOff = null;
            channel.writeAndFlush(b).addListener(handOffWritten);
        }
        if (queued) {
            queued = false;
            channel.flush();
        }
    }

    @Override
    public void close() {
        if (handOff != null) flush(); // the replies before the close go first
        if (channel.isActive()) {
            channel.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
        }
    }

    @Override
    public void closeNow() {
        if (handOff != null) {
            handOff.release();
            handOff = null;
        }
        // close() fails and releases whatever the outbound buffer still holds
        channel.close();
    }

    @Override
    public int pendingChunks() {
        io.netty.channel.ChannelOutboundBuffer b = channel.unsafe().outboundBuffer();
        return b == null ? 0 : b.size();
    }

    @Override
    public long pendingBytes() {
        io.netty.channel.ChannelOutboundBuffer b = channel.unsafe().outboundBuffer();
        long handedOff = handOff == null ? 0 : handOff.readableBytes();
        return handedOff + (b == null ? 0 : b.totalPendingWriteBytes());
    }

    Channel channel() {
        return channel;
    }
}
