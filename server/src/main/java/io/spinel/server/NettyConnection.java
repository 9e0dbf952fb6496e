package io.spinel.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.channel.unix.UnixChannel;
import io.spinel.core.Client;

import java.net.InetSocketAddress;
import java.net.SocketAddress;

/** A client's transport: queues reply bytes on the Netty channel, one flush per batch. */
final class NettyConnection implements Client.Connection {
    private final Channel channel;
    private final String remote;
    private final String local;
    private final boolean isLocal;
    private final boolean unixSocket;
    private final int fd;

    NettyConnection(Channel channel) {
        this.channel = channel;
        this.remote = format(channel.remoteAddress(), true);
        this.local = format(channel.localAddress(), false);
        this.unixSocket = channel.localAddress() instanceof DomainSocketAddress;
        this.isLocal = unixSocket || isLoopback(channel.remoteAddress());
        this.fd = channel instanceof UnixChannel ? ((UnixChannel) channel).fd().intValue() : -1;
    }

    private static boolean isLoopback(SocketAddress a) {
        if (!(a instanceof InetSocketAddress)) return false;
        InetSocketAddress ia = (InetSocketAddress) a;
        String ip = ia.getAddress() == null ? ia.getHostString() : ia.getAddress().getHostAddress();
        // Redis counts exactly 127.0.0.1 and ::1 as local.
        return ip.equals("127.0.0.1") || ip.equals("0:0:0:0:0:0:0:1") || ip.equals("::1");
    }

    /** "ip:port" as Redis prints it (IPv6 without brackets), or "path:0" for unix sockets. */
    static String format(SocketAddress a, boolean peer) {
        if (a instanceof InetSocketAddress) {
            InetSocketAddress ia = (InetSocketAddress) a;
            String ip = ia.getAddress() == null ? ia.getHostString() : ia.getAddress().getHostAddress();
            int pct = ip.indexOf('%');
            if (pct >= 0) ip = ip.substring(0, pct);
            if (ip.equals("0:0:0:0:0:0:0:1")) ip = "::1";
            return ip + ":" + ia.getPort();
        }
        if (a instanceof DomainSocketAddress) {
            return ((DomainSocketAddress) a).path() + ":0";
        }
        return peer ? "?:0" : String.valueOf(a);
    }

    @Override
    public void write(byte[] buf, int off, int len) {
        ByteBuf b = channel.alloc().directBuffer(len);
        b.writeBytes(buf, off, len);
        channel.write(b, channel.voidPromise());
    }

    @Override
    public void flush() {
        channel.flush();
    }

    @Override
    public void close() {
        if (channel.isActive()) {
            channel.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
        }
    }

    @Override
    public void closeNow() {
        // close() fails and releases whatever the outbound buffer still holds
        channel.close();
    }

    @Override
    public int pendingChunks() {
        io.netty.channel.ChannelOutboundBuffer b = channel.unsafe().outboundBuffer();
        return b == null ? 0 : b.size();
    }

    @Override
    public String remoteAddress() {
        return remote;
    }

    @Override
    public String localAddress() {
        return local;
    }

    @Override
    public boolean isLocal() {
        return isLocal;
    }

    @Override
    public boolean isUnixSocket() {
        return unixSocket;
    }

    @Override
    public long pendingBytes() {
        io.netty.channel.ChannelOutboundBuffer b = channel.unsafe().outboundBuffer();
        return b == null ? 0 : b.totalPendingWriteBytes();
    }

    @Override
    public int fd() {
        return fd;
    }

    Channel channel() {
        return channel;
    }
}
