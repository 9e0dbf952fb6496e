package io.spinel.server;

import io.spinel.core.Engine;
import io.spinel.core.util.TaskLoop;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The engine on the JDK's own selector, without Netty: one thread that waits in the selector,
 * serves the connections that are ready and runs the engine's tasks and timers in between.
 *
 * <p>It exists for in-process servers (test suites, applications): loading Netty, its native
 * library and its pipeline took about 300 ms of a first start in a fresh JVM, more than the
 * engine itself; this loop costs a few JDK classes that the class-data archive mostly holds.
 * Netty's loop stays the one for throughput (the standalone server's default).
 *
 * <p>The loop is a {@link TaskLoop} (tasks in order, timers, shutdown as an executor's, on a
 * pooled thread) that waits in the selector until the next timer is due, serving the sockets
 * that are ready; a task queued from another thread wakes it.
 */
final class JdkTransport implements ServerTransport {
    private static final AtomicInteger LOOPS = new AtomicInteger();
    private static final long SPIN_NANOS = Long.getLong("spinel.spinMicros", 20) * 1000;
    /** Bounds one poll's tasks: a task that queues another each time cannot keep the load waiting. */
    private static final int MAX_TASKS_PER_POLL = 1024;

    private final Selector selector;
    private final Loop loop;
    private Engine engine;
    /** CLIENT LIST's fd: the JDK does not show a channel's descriptor, so connections are numbered. */
    private int nextFd = 8;
    private volatile Runnable whenStopped = () -> { };
    /** The keys one selection found ready (reused: the loop thread only). */
    private final java.util.ArrayList<SelectionKey> readyKeys = new java.util.ArrayList<>();
    private final java.util.function.Consumer<SelectionKey> collectReady = readyKeys::add;

    JdkTransport() {
        try {
            this.selector = Selector.open();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open a selector", e);
        }
        int n = LOOPS.incrementAndGet();
        this.loop = new Loop(n == 1 ? "spinel-main" : "spinel-main-" + n);
        loop.start();
    }

    /** The engine's executor, waiting in the selector. */
    private final class Loop extends TaskLoop {
        Loop(String name) {
            super(name);
        }

        /**
         * One turn's wait: in the selector until the next task is due (not at all if one is
         * queued), then serve what is ready; the tasks this queues (replies are flushed by such a
         * task, once per turn) run right after.
         */
        @Override
        protected void await(long timeoutNanos) {
            try {
                if (timeoutNanos == 0) selector.selectNow(collectReady);
                else if (!spinReady()) selector.select(collectReady, timeoutNanos < 0 ? 0 : Math.max(1, (timeoutNanos + 999_999) / 1_000_000));
            } catch (IOException | java.nio.channels.ClosedSelectorException e) {
                if (!isShutdown() && engine != null) engine.log().warning("Selector failed: " + e);
            }
            // served after the selection has returned: commands may select again (closing a listener)
            serveReady();
        }

        private void serveReady() {
            try {
                for (int i = 0; i < readyKeys.size(); i++) ready(readyKeys.get(i));
            } finally {
                readyKeys.clear();
            }
        }

        /**
         * From a task on this loop (a load): serves the sockets that are ready without waiting,
         * then the tasks queued meanwhile (replies' flushes, closed connections), as the Netty
         * loop's pollNow; timers wait.
         */
        void pollNow() {
            try {
                selector.selectNow(collectReady);
            } catch (IOException | java.nio.channels.ClosedSelectorException e) {
                return;
            }
            serveReady();
            runQueuedTasks(MAX_TASKS_PER_POLL);
        }

        @Override
        protected void wakeUp() {
            selector.wakeup();
        }

        /**
         * Right after a turn that did work, polls the sockets for up to spinel.spinMicros (20 µs)
         * before the loop sleeps, as the Netty loop does (see SpinBeforeSleep): at one request per
         * round trip the next request then finds the loop awake instead of paying for waking it.
         * True when sockets became ready (collected in readyKeys) or a task came meanwhile.
         */
        private boolean spinReady() throws IOException {
            long now = System.nanoTime();
            boolean active = now - lastTurn < 1_000_000;
            lastTurn = now;
            if (!active || SPIN_NANOS <= 0) return false;
            long deadline = now + SPIN_NANOS;
            do {
                selector.selectNow(collectReady);
                if (!readyKeys.isEmpty() || hasTasks()) return true;
                Thread.onSpinWait();
            } while (System.nanoTime() - deadline < 0);
            return false;
        }

        private long lastTurn;

        @Override
        protected void taskFailed(Throwable t) {
            if (engine != null) engine.log().warning("Error in a task of the event loop: " + t);
            else super.taskFailed(t);
        }

        @Override
        protected void terminated() {
            try {
                for (SelectionKey k : selector.keys()) closeQuietly(k.channel());
                selector.close();
            } catch (IOException | RuntimeException ignored) {
                // stopping anyway
            }
            whenStopped.run();
        }
    }

    private void ready(SelectionKey key) {
        Object a = key.attachment();
        try {
            if (a instanceof JdkConnection) {
                ((JdkConnection) a).ready(key);
            } else if (a instanceof Acceptor) {
                ((Acceptor) a).accept();
            }
        } catch (RuntimeException e) {
            // as Netty's exceptionCaught: that connection goes, the loop and everyone else stay
            if (engine != null) engine.log().warning("Error on client connection: " + e);
            if (a instanceof JdkConnection) ((JdkConnection) a).closeNow();
        }
    }

    /** A listening socket and what its connections get. */
    private final class Acceptor implements Listener {
        final ServerSocketChannel server;
        final int keepaliveSeconds;
        final String unixPath;
        final int port;
        /** A TLS listener's contexts, null for a plain one. */
        final TlsContexts tls;

        Acceptor(ServerSocketChannel server, int keepaliveSeconds, String unixPath, TlsContexts tls) throws IOException {
            this.server = server;
            this.keepaliveSeconds = keepaliveSeconds;
            this.unixPath = unixPath;
            this.tls = tls;
            this.port = server.getLocalAddress() instanceof InetSocketAddress
                    ? ((InetSocketAddress) server.getLocalAddress()).getPort() : 0;
        }

        void accept() {
            for (int i = 0; i < 64; i++) { // a burst of connections, bounded so that clients keep being served
                SocketChannel ch;
                try {
                    ch = server.accept();
                } catch (IOException e) {
                    engine.log().warning("Accepting a client connection: " + e.getMessage());
                    return;
                }
                if (ch == null) return;
                try {
                    ch.configureBlocking(false);
                    if (unixPath == null) {
                        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                        if (keepaliveSeconds > 0) keepalive(ch, keepaliveSeconds);
                    }
                    JdkConnection c = new JdkConnection(ch, unixPath, nextFd++, JdkTransport.this,
                            tls == null ? null : tls.newServerEngine());
                    c.register(selector, engine);
                } catch (IOException e) {
                    closeQuietly(ch); // the peer is gone already
                }
            }
        }

        @Override
        public int port() {
            return port;
        }

        @Override
        public void close() {
            if (inLoop()) {
                closeNow();
            } else {
                try {
                    loop.submit(this::closeNow).get(5, TimeUnit.SECONDS);
                } catch (Exception e) {
                    closeNow();
                }
            }
        }

        private void closeNow() {
            SelectionKey k = server.keyFor(selector);
            if (k != null) k.cancel();
            try {
                server.close();
                // a registered channel releases its socket (and port) only when the selector
                // drops the cancelled key, at its next selection: do it now, so that the port can
                // be bound again at once (CONFIG SET port back and forth). What is ready stays
                // ready for the next turn (level-triggered).
                if (k != null && selector.isOpen()) selector.selectNow(ready -> { });
            } catch (IOException ignored) {
                // closing anyway
            }
        }
    }

    private static void keepalive(SocketChannel ch, int seconds) throws IOException {
        ch.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
        try {
            ch.setOption(jdk.net.ExtendedSocketOptions.TCP_KEEPIDLE, seconds);
            ch.setOption(jdk.net.ExtendedSocketOptions.TCP_KEEPINTERVAL, Math.max(1, seconds / 3));
            ch.setOption(jdk.net.ExtendedSocketOptions.TCP_KEEPCOUNT, 3);
        } catch (UnsupportedOperationException notOnThisSystem) {
            // the system's keepalive timings then
        }
    }

    private static void closeQuietly(java.nio.channels.Channel ch) {
        try {
            ch.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    @Override
    public Runnable loadingPoller() {
        return loop::pollNow;
    }

    @Override
    public ScheduledExecutorService loop() {
        return loop;
    }

    @Override
    public boolean inLoop() {
        return loop.inLoop();
    }

    @Override
    public String multiplexingApi() {
        String impl = selector.getClass().getSimpleName().toLowerCase(java.util.Locale.ROOT);
        return impl.contains("epoll") ? "epoll" : impl.contains("kqueue") ? "kqueue" : "select";
    }

    @Override
    public void serve(Engine engine) {
        this.engine = engine;
        if (engine.config().getInt("io-threads") > 1) {
            engine.log().warning("io-threads is ignored by the JDK transport (in-process servers' default): "
                    + "its one thread serves every connection; the Netty transport has I/O threads");
        }
    }

    @Override
    public Listener listenTcp(InetSocketAddress address, int backlog, int keepaliveSeconds, TlsContexts tls) throws IOException {
        ServerSocketChannel server = ServerSocketChannel.open();
        try {
            server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            server.bind(address, backlog);
            return register(new Acceptor(server, keepaliveSeconds, null, tls));
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        }
    }

    @Override
    public Listener listenUnix(String path, int backlog) throws IOException {
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            server.bind(UnixDomainSocketAddress.of(path), backlog);
            return register(new Acceptor(server, 0, path, null));
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        }
    }

    /** Registers the listener with the selector, on the loop (a selector's keys change only there). */
    private Acceptor register(Acceptor a) throws IOException {
        a.server.configureBlocking(false);
        if (inLoop()) {
            a.server.register(selector, SelectionKey.OP_ACCEPT, a);
            return a;
        }
        try {
            loop.submit(() -> {
                a.server.register(selector, SelectionKey.OP_ACCEPT, a);
                return null;
            }).get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IOException("cannot register the listener: " + e.getMessage(), e);
        }
        return a;
    }

    @Override
    public void shutdown(Runnable whenStopped) {
        this.whenStopped = whenStopped;
        loop.shutdown();
        selector.wakeup();
    }

    @Override
    public boolean isShuttingDown() {
        return loop.isShutdown();
    }
}
