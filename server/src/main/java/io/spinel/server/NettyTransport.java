package io.spinel.server;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoEventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.SingleThreadIoEventLoop;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.ServerChannelRecvByteBufAllocator;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.spinel.core.Engine;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The engine on one Netty event loop: native epoll where available (TCP and unix sockets), Netty's
 * NIO elsewhere or with -Dspinel.nio=true. Each channel's pipeline is one {@link ClientHandler}.
 *
 * <p>With {@code io-threads} N above 1, N - 1 more event loops (threads "spinel-io-*") own the
 * connections: they read the sockets and write the replies, and hand what they read to the
 * engine's loop, which still runs every command and accepts the connections ({@link EngineInbox}).
 * Off by default: on a small machine the hand-off costs more than the system calls it moves.
 */
final class NettyTransport implements ServerTransport {
    static {
        // Netty 4.2 registers its buffer-allocation JFR events when it initialises, which took
        // about 100 ms of a 400 ms first start; they are diagnostics nobody records by default.
        // -Dio.netty.jfr.enabled=true brings them back.
        if (System.getProperty("io.netty.jfr.enabled") == null) System.setProperty("io.netty.jfr.enabled", "false");
    }

    private final boolean epoll;
    private final EventLoopGroup group;
    private final EventLoop loop;
    private final IoHandlerFactory ioFactory;
    /** The connections' loops with io-threads above 1, else null (the engine's loop serves them). */
    private EventLoopGroup ioGroup;
    /** Where the connections' loops hand their events to the engine's, with io-threads above 1. */
    private EngineInbox inbox;
    /**
     * Accepts on listeners opened on the loop thread (CONFIG SET port/bind): the loop cannot
     * wait for a bind that it would have to perform itself. Created on first use.
     */
    private EventLoopGroup rebindGroup;
    private Engine engine;

    NettyTransport() {
        // (the property first: asking Epoll loads and unpacks its native library)
        this.epoll = !Boolean.getBoolean("spinel.nio") && Epoll.isAvailable();
        // (see SpinBeforeSleep; 0 keeps Netty's own choice: block whenever no task is waiting)
        long spin = Long.getLong("spinel.spinMicros", 20) * 1000;
        IoHandlerFactory io = !epoll ? NioIoHandler.newFactory()
                : spin > 0 ? EpollIoHandler.newFactory(0, () -> new SpinBeforeSleep(spin)) : EpollIoHandler.newFactory();
        this.ioFactory = io;
        this.group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("spinel-main", true), io) {
            @Override
            protected IoEventLoop newChild(Executor executor, IoHandlerFactory ioHandlerFactory, Object... args) {
                return new PollableLoop(this, executor, ioHandlerFactory);
            }
        };
        this.loop = group.next();
    }

    /**
     * The engine's loop, able to poll its sockets from inside one of its own tasks: the load at
     * start runs as one long task, and polling from it every few tens of milliseconds serves
     * the clients that connect meanwhile (Redis's processEventsWhileBlocked).
     */
    private static final class PollableLoop extends SingleThreadIoEventLoop {
        private static final Runnable NOTHING = () -> { };
        /** Bounds one poll's tasks: a task that queues another each time cannot keep the load waiting. */
        private static final int MAX_TASKS_PER_POLL = 1024;

        PollableLoop(IoEventLoopGroup parent, Executor executor, IoHandlerFactory factory) {
            super(parent, executor, factory);
        }

        /**
         * On the loop thread, from a task: handles the sockets that are ready, without waiting,
         * then the tasks queued meanwhile (a closed connection's end, a signal's shutdown), as
         * Redis's processEventsWhileBlocked frees clients and sees SIGTERM during its load.
         * Timers wait: nothing of the cron runs inside the load.
         */
        void pollNow() {
            // a queued task is what tells the I/O handler not to block
            execute(NOTHING);
            runIo();
            for (int i = 0; i < MAX_TASKS_PER_POLL; i++) {
                Runnable task = pollTask();
                if (task == null) break;
                safeExecute(task);
            }
        }
    }

    @Override
    public Runnable loadingPoller() {
        PollableLoop l = (PollableLoop) loop;
        if (inbox == null) return l::pollNow;
        EngineInbox events = inbox;
        return () -> {
            l.pollNow();
            events.drain();
        };
    }

    @Override
    public ScheduledExecutorService loop() {
        return loop;
    }

    @Override
    public boolean inLoop() {
        return loop.inEventLoop();
    }

    @Override
    public String multiplexingApi() {
        return epoll ? "epoll" : "nio";
    }

    @Override
    public void serve(Engine engine) {
        this.engine = engine;
        int threads = engine.config().getInt("io-threads");
        if (threads > 1) {
            ioGroup = new MultiThreadIoEventLoopGroup(threads - 1, new DefaultThreadFactory("spinel-io", true), ioFactory);
            inbox = new EngineInbox(loop);
            engine.setIoThreadsActive(true);
        }
    }

    /** The loops that serve the connections. */
    private EventLoopGroup connectionLoops() {
        return ioGroup != null ? ioGroup : group;
    }

    @Override
    public Listener listenTcp(InetSocketAddress address, int backlog, int keepaliveSeconds, TlsContexts tls) throws IOException {
        return listener(tcpBootstrap(inLoop() ? rebindGroup() : group, backlog, keepaliveSeconds, tls).bind(address));
    }

    /** A TCP listener's bootstrap: accepting on {@code acceptor}, connections served by the loop. */
    private ServerBootstrap tcpBootstrap(EventLoopGroup acceptor, int backlog, int keepaliveSeconds, TlsContexts tls) {
        Class<? extends ServerChannel> type = epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
        ServerBootstrap b = new ServerBootstrap()
                .group(acceptor, connectionLoops())
                .channel(type)
                .option(ChannelOption.SO_BACKLOG, backlog)
                .option(ChannelOption.SO_REUSEADDR, true)
                .option(ChannelOption.RECVBUF_ALLOCATOR, acceptsPerWakeUp())
                .childOption(ChannelOption.RECVBUF_ALLOCATOR, readSizes())
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(initializer(tls));
        if (keepaliveSeconds > 0) {
            b.childOption(ChannelOption.SO_KEEPALIVE, true);
            if (epoll) {
                b.childOption(EpollChannelOption.TCP_KEEPIDLE, keepaliveSeconds);
                b.childOption(EpollChannelOption.TCP_KEEPINTVL, Math.max(1, keepaliveSeconds / 3));
                b.childOption(EpollChannelOption.TCP_KEEPCNT, 3);
            }
        }
        return b;
    }

    /**
     * Connections a listener accepts per wake-up of the loop: Redis's MAX_ACCEPTS_PER_CALL (1000)
     * instead of Netty's 16 for server channels. With 16, a storm of new connections (5,000
     * clients connecting at once) drains the accept queue a few at a time between turns that serve
     * the clients already in, and the last ones to get in wait several turns for their first reply.
     */
    private static ServerChannelRecvByteBufAllocator acceptsPerWakeUp() {
        ServerChannelRecvByteBufAllocator a = new ServerChannelRecvByteBufAllocator();
        a.maxMessagesPerRead(1000);
        return a;
    }

    /**
     * What a connection's reads ask the socket for: at least 16 KB (Redis's PROTO_IOBUF_LEN), up to
     * 64 KB while reads keep filling what they asked for. Netty's default guesses down to 64 bytes
     * after a few small requests, and a larger one then arrived in two reads: one more system call,
     * and the command's first part left over in the shared query buffer had to move into a 16 KB
     * buffer of the client's own. The read buffers come from the pooled allocator and go back to it
     * as soon as the read is parsed, so asking for more costs no memory.
     */
    private static AdaptiveRecvByteBufAllocator readSizes() {
        return new AdaptiveRecvByteBufAllocator(16 * 1024, 16 * 1024, 64 * 1024);
    }

    /**
     * Opens and closes a listener on a loopback port the OS picks. Opening the first listener
     * after a long load took 100-140 ms of the loop here, nearly all of it code running for the
     * first time; run while the engine is being built, that part overlaps it and the real
     * listener opens in ~20 ms. Failing changes nothing: the real one reports its own errors.
     */
    @Override
    public void warmUpListening() {
        loop.execute(() -> {
            try {
                tcpBootstrap(group, 16, 0, null).bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                        .addListener((ChannelFutureListener) f -> {
                            if (f.isSuccess()) f.channel().close();
                        });
            } catch (RuntimeException ignored) {
                // only a warm-up
            }
        });
    }

    @Override
    public Listener listenUnix(String path, int backlog) throws IOException {
        if (!epoll) throw new IOException("unixsocket needs the native epoll transport, which is not available here");
        return listener(new ServerBootstrap()
                .group(group, connectionLoops())
                .channel(EpollServerDomainSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, backlog)
                .option(ChannelOption.RECVBUF_ALLOCATOR, acceptsPerWakeUp())
                .childOption(ChannelOption.RECVBUF_ALLOCATOR, readSizes())
                .childHandler(initializer(null))
                .bind(new DomainSocketAddress(path)));
    }

    private static Listener listener(io.netty.channel.ChannelFuture bound) throws IOException {
        Channel ch;
        try {
            ch = bound.sync().channel();
        } catch (Exception e) {
            throw e instanceof IOException ? (IOException) e : new IOException(e.getMessage(), e);
        }
        int port = ch.localAddress() instanceof InetSocketAddress ? ((InetSocketAddress) ch.localAddress()).getPort() : 0;
        return new Listener() {
            @Override
            public int port() {
                return port;
            }

            @Override
            public void close() {
                ch.close().awaitUninterruptibly();
            }
        };
    }

    private EventLoopGroup rebindGroup() {
        if (rebindGroup == null) {
            IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
            rebindGroup = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("spinel-accept", true), io);
        }
        return rebindGroup;
    }

    /** A connection's pipeline; with tls (a TLS listener's) a TLS session under the client's handler. */
    private ChannelInitializer<Channel> initializer(TlsContexts tls) {
        return new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                ClientHandler handler = new ClientHandler(engine, inbox);
                // big values read straight into their native memory (ValueReadAllocator); not
                // from an I/O thread, which must not look at the reader the engine's thread fills,
                // nor under TLS, where the socket's bytes are ciphertext
                if (inbox == null && tls == null) ch.config().setRecvByteBufAllocator(new ValueReadAllocator(readSizes(), handler::reader));
                if (tls != null) {
                    io.netty.handler.ssl.SslHandler session = new io.netty.handler.ssl.SslHandler(tls.newServerEngine());
                    session.setHandshakeTimeoutMillis(0); // as Redis: a client's handshake may take as long as it likes
                    ch.pipeline().addLast(session);
                }
                ch.pipeline().addLast(handler);
            }
        };
    }

    @Override
    public void shutdown(Runnable whenStopped) {
        if (rebindGroup != null) rebindGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        if (ioGroup == null) {
            group.shutdownGracefully(0, 2, TimeUnit.SECONDS).addListener(f -> whenStopped.run());
            return;
        }
        // the connections' loops first: what they still have to write goes out, and the events of
        // their closing connections still find the engine's loop running
        ioGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).addListener(io ->
                group.shutdownGracefully(0, 2, TimeUnit.SECONDS).addListener(f -> whenStopped.run()));
    }

    @Override
    public boolean isShuttingDown() {
        return group.isShuttingDown();
    }
}
