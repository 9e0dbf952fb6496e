package io.spinel.server;

import io.spinel.core.Engine;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.ScheduledExecutorService;

/**
 * What a {@link SpinelServer} needs from its network layer: one event-loop thread that is also the
 * engine's executor (commands run where the bytes are read), listeners, and a stop. Two exist:
 * {@link NettyTransport}, the fast one (native epoll), and {@link JdkTransport}, the JDK's own
 * selector, which starts in a fraction of the time (no Netty classes to load) for in-process
 * servers whose first start matters more than their peak throughput.
 */
interface ServerTransport {
    /** An open listening socket. */
    interface Listener {
        /** The TCP port it listens on (0 for a unix socket). */
        int port();

        void close();
    }

    /** The engine's executor: the loop thread that serves the connections. */
    ScheduledExecutorService loop();

    boolean inLoop();

    /** INFO's multiplexing_api: the kernel interface the loop waits with. */
    String multiplexingApi();

    /** Accepted connections from now on are served by this engine (before any listener opens). */
    void serve(Engine engine);

    /**
     * Listens on a TCP address. Accepted connections get TCP_NODELAY and, when keepaliveSeconds is
     * above 0, TCP keepalive probes (idle, interval a third of it, 3 probes, as Redis sets them).
     * May be called on the loop thread (CONFIG SET port) or off it. With tls (a TLS listener,
     * tls-port), each connection is a TLS session made from the contexts tls holds when it is
     * accepted; null for a plain listener.
     */
    Listener listenTcp(InetSocketAddress address, int backlog, int keepaliveSeconds, TlsContexts tls) throws IOException;

    /** Listens on a unix domain socket at path (which must not exist). */
    Listener listenUnix(String path, int backlog) throws IOException;

    /**
     * Queues on the loop, without waiting, a first run of what opening a listener runs (the
     * standalone server, while it builds its engine): the real listener then opens quickly.
     */
    default void warmUpListening() {
    }

    /**
     * What polls the loop's sockets once without blocking, from a task running on the loop (the
     * load at start, so that clients get -LOADING instead of a refused connection), or null
     * where the transport cannot: its listeners then open after the load.
     */
    default Runnable loadingPoller() {
        return null;
    }

    /** Stops the loop once the tasks queued now have run; whenStopped runs after it has. */
    void shutdown(Runnable whenStopped);

    boolean isShuttingDown();
}
