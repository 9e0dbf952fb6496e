package io.spinel.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.spinel.core.Client;
import io.spinel.core.Engine;
import io.spinel.core.protocol.RespReader;
import io.spinel.core.util.NativeMemory;

import java.io.IOException;

/**
 * Bridges one Netty channel to the engine. By default all channels share the engine's single
 * event loop, so this runs on the thread that owns the keyspace: bytes are copied into the
 * client's query buffer, commands run right here, and replies go out once per read batch.
 *
 * <p>With {@code io-threads} above 1 the channel belongs to an I/O thread, which reads the socket
 * and writes the replies; every event is handed to the engine's thread through the
 * {@link EngineInbox} and handled there exactly as on the engine's own loop.
 */
final class ClientHandler extends ChannelInboundHandlerAdapter {
    /** Most bytes of one read copied into the query buffer before the commands in it are parsed. */
    private static final int QUERY_SLICE = 16 * 1024;

    private final Engine engine;
    /** Where an I/O thread hands this channel's events to the engine's thread; null on the engine's loop. */
    private final EngineInbox inbox;
    /** Only ever touched on the engine's thread. */
    private Client client;

    ClientHandler(Engine engine) {
        this(engine, null);
    }

    ClientHandler(Engine engine, EngineInbox inbox) {
        this.engine = engine;
        this.inbox = inbox;
    }

    /** The connection's request reader, null until the channel is active. */
    RespReader reader() {
        return client == null ? null : client.reader();
    }

    /**
     * Runs a connection event on the engine's thread: here, or handed over from an I/O thread.
     * (Not for reads, the hot path: a handed-over task is an object per read.)
     */
    private void onEngine(Runnable event) {
        if (inbox == null) {
            event.run();
        } else {
            inbox.post(event);
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        // with I/O threads, the client's memory counted what waited for its thread: measured again
        // once it left, by a task queued behind the write (Netty tells the write's listener before
        // it takes the bytes off the channel's pending count)
        NettyConnection connection = inbox == null ? new NettyConnection(ctx.channel())
                : new NettyConnection(ctx.channel(), () -> ctx.channel().eventLoop().execute(() -> inbox.post(this::outputMoved)));
        onEngine(() -> connected(connection));
    }

    private void connected(NettyConnection connection) {
        client = engine.connect(connection);
        if (client != null) client.reader().receiveBigValuesNatively(true);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf in = (ByteBuf) msg;
        if (inbox == null) {
            read(in);
            return;
        }
        inbox.post(() -> {
            try {
                engine.stats().ioThreadedReads++;
                read(in);
            } catch (RuntimeException e) {
                // what exceptionCaught does with one thrown by channelRead on the engine's loop
                engine.log().warning("Error on client connection: " + e);
                ctx.close();
            }
            engine.flushSoon();
        });
    }

    /** On the engine's thread: the bytes of one read, parsed and their commands run; releases in. */
    private void read(ByteBuf in) {
        try {
            if (client == null || client.isClosed()) return;
            engine.stats().netInputBytes += in.readableBytes();
            engine.stats().readsProcessed++;
            RespReader reader = client.reader();
            // in steps, so that a big argument goes straight into its own array or native memory
            // (see RespReader): into the query buffer at most 16 KB at a time, so that of a big
            // value that starts in this read only the part in that slice is copied twice
            do {
                int n = Math.min(in.readableBytes(), reader.maxWrite());
                long target = reader.nativeTarget();
                if (target != 0) {
                    copyToNative(in, target, n);
                } else {
                    n = Math.min(n, QUERY_SLICE);
                    byte[] dst = reader.writable(n);
                    in.readBytes(dst, reader.writeOffset(), n);
                }
                reader.commit(n);
                engine.processInput(client);
            } while (in.isReadable() && !client.isClosed());
        } finally {
            in.release();
            // whatever happened, the shared query buffer is free for the next client
            if (client != null) client.reader().detach();
        }
    }

    /**
     * Moves n readable bytes of in to native memory at target, where they already are when the
     * socket was read into it ({@link ValueReadAllocator}).
     */
    private static void copyToNative(ByteBuf in, long target, int n) {
        if (in.hasMemoryAddress()) {
            long from = in.memoryAddress() + in.readerIndex();
            if (from != target) NativeMemory.copy(from, target, n);
            in.skipBytes(n);
            return;
        }
        byte[] chunk = new byte[Math.min(n, 16 * 1024)];
        for (int done = 0; done < n; ) {
            int k = Math.min(chunk.length, n - done);
            in.readBytes(chunk, 0, k);
            NativeMemory.copyFrom(chunk, 0, target + done, k);
            done += k;
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        // (with I/O threads, each read's event asks for the flush itself)
        if (inbox == null) engine.flushSoon();
    }

    /**
     * The transport's queue crossed a water mark: it grew past the high one or was sent down to the
     * low one, so this client's memory changed by that much since it was last measured.
     */
    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        onEngine(this::outputMoved);
        ctx.fireChannelWritabilityChanged();
    }

    private void outputMoved() {
        if (client != null && !client.isClosed()) engine.updateClientMemory(client);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        onEngine(this::closed);
    }

    private void closed() {
        if (client != null) engine.disconnected(client);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof io.netty.handler.codec.DecoderException && cause.getCause() instanceof javax.net.ssl.SSLException) {
            // a TLS listener's connection whose handshake failed: logged as Redis logs it
            io.netty.handler.ssl.SslHandler session = ctx.pipeline().get(io.netty.handler.ssl.SslHandler.class);
            if (session != null && !session.handshakeFuture().isSuccess()) {
                String why = cause.getCause().getMessage();
                onEngine(() -> engine.log().warning("Error accepting a client connection: " + why));
            }
        } else if (!(cause instanceof IOException)) {
            onEngine(() -> engine.log().warning("Error on client connection: " + cause));
        }
        ctx.close();
    }
}
