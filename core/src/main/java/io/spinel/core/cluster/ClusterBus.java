package io.spinel.core.cluster;

import io.spinel.core.Tls;
import io.spinel.core.util.TlsChannel;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;

/**
 * The cluster bus's sockets, on a thread of their own with one selector: the listening port
 * (cluster-port, or the client port + 10000), the links this node opens and those it accepts.
 * The thread only moves bytes: it frames what arrives into whole messages (8 bytes of signature
 * and length first, as Redis's clusterReadHandler reads them) and hands each one, and every
 * connect, accept and loss, to the engine's thread, which owns the cluster state ({@link Cluster}).
 * The engine queues messages on a link; this thread writes them when the socket takes them, so
 * a peer that stops reading never blocks the engine.
 *
 * <p>With tls-cluster yes every link opened or accepted from then on is a TLS session
 * ({@link TlsChannel}); the engine hears of it once its handshake is done, as Redis's connection
 * layer calls the bus's handlers only then. A plain link's reads and writes are the socket's.
 */
final class ClusterBus implements Runnable {
    /** What the engine hears from the bus, always on its own thread. */
    interface Events {
        void connected(BusLink link);

        void accepted(BusLink link);

        void received(BusLink link, byte[] message);

        /**
         * The connection failed, closed, or sent what is no bus message; the link is dead.
         * beforeConnected: it never got as far as {@link #connected} or its TLS handshake's end.
         */
        void lost(BusLink link, String why, boolean beforeConnected);
    }

    /** A message is never larger than this (a PUBLISH of two 512 MB strings would be; Redis has no cap). */
    private static final int MAX_MESSAGE = 1 << 30;

    private final Events events;
    private final Executor engine;
    private final Selector selector;
    private final List<ServerSocketChannel> listeners = new ArrayList<>();
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final Thread thread;
    private volatile boolean stopped;
    /** Where the TLS sessions of new links come from while tls-cluster is yes; null: plain TCP. */
    private volatile Tls tls;

    ClusterBus(Events events, Executor engine) throws IOException {
        this.events = events;
        this.engine = engine;
        this.selector = Selector.open();
        this.thread = new Thread(this, "spinel-cluster-bus");
        thread.setDaemon(true);
    }

    /**
     * Opens the listening socket on each address of the bind option (before {@link #start}), as
     * the client port does: "*" for every IPv4 address, "::*" for every IPv6 one, a "-" prefix
     * for an address that may be missing. Throws if a required one cannot be bound.
     */
    void listen(String bindSpec, int port, int backlog) throws IOException {
        for (String token : bindSpec.trim().split("\\s+")) {
            boolean optional = token.startsWith("-");
            String host = optional ? token.substring(1) : token;
            if (host.equals("*")) host = "0.0.0.0";
            else if (host.equals("::*")) host = "::";
            ServerSocketChannel ch = ServerSocketChannel.open();
            try {
                ch.setOption(StandardSocketOptions.SO_REUSEADDR, true);
                ch.bind(new InetSocketAddress(host, port), backlog);
                ch.configureBlocking(false);
            } catch (IOException | java.nio.channels.UnsupportedAddressTypeException e) {
                ch.close();
                if (optional) continue;
                for (ServerSocketChannel open : listeners) closeQuietly(open);
                listeners.clear();
                throw e instanceof IOException io ? io : new IOException(e.toString(), e);
            }
            listeners.add(ch);
        }
    }

    void start() throws IOException {
        for (ServerSocketChannel ch : listeners) ch.register(selector, SelectionKey.OP_ACCEPT);
        thread.start();
    }

    void stop() {
        stopped = true;
        selector.wakeup();
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (ServerSocketChannel ch : listeners) closeQuietly(ch);
        for (SelectionKey k : selector.keys()) closeQuietly(k.channel());
        closeQuietly(selector);
    }

    /** tls-cluster: the links opened and accepted from now on are TLS (tls not null) or plain TCP. */
    void useTls(Tls tls) {
        this.tls = tls;
    }

    /** Starts connecting an outbound link (Redis's connConnect, which does not wait either). */
    void connect(BusLink link, String host, int port) {
        onBus(() -> {
            try {
                SocketChannel ch = SocketChannel.open();
                link.channel = ch;
                Tls t = tls;
                if (t != null) link.tls = new TlsChannel(ch, t.clusterBusEngine(true, host, port));
                ch.configureBlocking(false);
                ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                ch.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
                if (ch.connect(new InetSocketAddress(host, port))) {
                    finishConnect(link, ch.register(selector, SelectionKey.OP_READ, link));
                } else {
                    ch.register(selector, SelectionKey.OP_CONNECT, link);
                }
            } catch (IOException | RuntimeException e) {
                fail(link, reason(e));
            }
        });
    }

    /** Queues a whole message on the link; sent once it is connected and the socket takes it. */
    void send(BusLink link, byte[] message) {
        link.outgoing.add(ByteBuffer.wrap(message));
        link.pendingBytes.addAndGet(message.length);
        onBus(() -> wantWrite(link));
    }

    /** Closes the link's connection; the engine has already let go of it. */
    void close(BusLink link) {
        onBus(() -> {
            SocketChannel ch = link.channel;
            if (link.tls != null) link.tls.closeQuietly(); // its close_notify, as Redis's connClose sends it
            if (ch != null) closeQuietly(ch);
            link.outgoing.clear();
            link.pendingBytes.set(0);
        });
    }

    private void onBus(Runnable task) {
        tasks.add(task);
        selector.wakeup();
    }

    @Override
    public void run() {
        while (!stopped) {
            try {
                selector.select(1000);
                Runnable t;
                while ((t = tasks.poll()) != null) t.run();
                for (SelectionKey k : selector.selectedKeys()) handle(k);
                selector.selectedKeys().clear();
            } catch (IOException | RuntimeException e) {
                if (stopped) return;
                // one bad key must not end the bus: handle() closes its own failures
            }
        }
    }

    private void handle(SelectionKey k) {
        if (!k.isValid()) return;
        if (k.isAcceptable()) {
            accept((ServerSocketChannel) k.channel());
            return;
        }
        BusLink link = (BusLink) k.attachment();
        try {
            if (k.isConnectable()) {
                SocketChannel ch = (SocketChannel) k.channel();
                if (!ch.finishConnect()) return;
                finishConnect(link, k);
            }
            TlsChannel session = link.tls;
            if (session != null && !link.connected) {
                handshake(link, k);
                if (!link.connected) return;
            }
            if (k.isValid() && k.isReadable()) read(link, k);
            if (k.isValid() && k.isWritable()) write(link, k);
            // (records a TLS session read whole but did not decrypt yet: the selector knows nothing of them)
            if (session != null && k.isValid() && session.hasBufferedInput()) read(link, k);
        } catch (IOException | RuntimeException e) {
            k.cancel();
            if (link.tls != null) link.tls.closeQuietly(); // (a failed handshake's alert, if the socket takes it)
            closeQuietly(k.channel());
            fail(link, reason(e));
        }
    }

    private void accept(ServerSocketChannel server) {
        for (int i = 0; i < 1000; i++) {
            SocketChannel ch;
            try {
                ch = server.accept();
            } catch (IOException e) {
                return;
            }
            if (ch == null) return;
            BusLink link = new BusLink(null, System.currentTimeMillis());
            try {
                ch.configureBlocking(false);
                ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                ch.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
                link.channel = ch;
                link.peerIp = ip(ch.getRemoteAddress());
                link.localIp = ip(ch.getLocalAddress());
                Tls t = tls;
                if (t == null) link.connected = true;
                else link.tls = new TlsChannel(ch, t.clusterBusEngine(false, null, 0)); // connected once its handshake is done
                ch.register(selector, SelectionKey.OP_READ, link);
            } catch (IOException | RuntimeException e) {
                closeQuietly(ch);
                continue;
            }
            engine.execute(() -> events.accepted(link));
        }
    }

    /** The TCP connection of an outbound link is up: ready, or its TLS handshake starts. */
    private void finishConnect(BusLink link, SelectionKey k) throws IOException {
        SocketChannel ch = (SocketChannel) k.channel();
        link.peerIp = ip(ch.getRemoteAddress());
        link.localIp = ip(ch.getLocalAddress());
        if (link.tls != null) handshake(link, k);
        else ready(link, k);
    }

    /** Drives a TLS link's handshake as far as the socket allows; the link is ready once it is done. */
    private void handshake(BusLink link, SelectionKey k) throws IOException {
        TlsChannel session = link.tls;
        if (session.handshake()) {
            ready(link, k);
            return;
        }
        // waiting for the peer, or for the socket to take what the handshake sends
        k.interestOps(SelectionKey.OP_READ | (session.pendingOutput() ? SelectionKey.OP_WRITE : 0));
    }

    /** The link carries messages from now on; the engine hears of an outbound one (it sends its PING). */
    private void ready(BusLink link, SelectionKey k) {
        link.connected = true;
        k.interestOps(SelectionKey.OP_READ | (link.outgoing.isEmpty() ? 0 : SelectionKey.OP_WRITE));
        if (!link.inbound) engine.execute(() -> events.connected(link));
    }

    private void read(BusLink link, SelectionKey k) throws IOException {
        SocketChannel ch = (SocketChannel) k.channel();
        while (true) {
            ByteBuffer into = link.body != null ? link.body : link.header;
            int n = link.tls == null ? ch.read(into) : link.tls.read(into);
            if (n < 0) throw new IOException("connection closed");
            if (n == 0) {
                // TLS: what reading handshake messages left to send, or messages that waited for them
                if (link.tls != null && (link.tls.pendingOutput() || !link.outgoing.isEmpty())) write(link, k);
                return;
            }
            if (into.hasRemaining()) continue;
            if (link.body == null) {
                byte[] h = link.header.array();
                int length = ClusterMessage.frameLength(h, 0);
                if (length < 0 || length > MAX_MESSAGE) {
                    throw new IOException("Bad message length or signature received from Cluster bus.");
                }
                link.body = ByteBuffer.allocate(length);
                link.body.put(h, 0, 8);
                link.header.clear();
                if (link.body.hasRemaining()) continue;
            }
            byte[] message = link.body.array();
            link.body = null;
            engine.execute(() -> events.received(link, message));
        }
    }

    private void wantWrite(BusLink link) {
        SocketChannel ch = link.channel;
        if (ch == null || !link.connected) return; // written once connected
        SelectionKey k = ch.keyFor(selector);
        if (k != null && k.isValid()) k.interestOps(k.interestOps() | SelectionKey.OP_WRITE);
    }

    private void write(BusLink link, SelectionKey k) throws IOException {
        SocketChannel ch = (SocketChannel) k.channel();
        TlsChannel session = link.tls;
        ByteBuffer b;
        while ((b = link.outgoing.peek()) != null) {
            int n = session == null ? ch.write(b) : session.write(b);
            link.pendingBytes.addAndGet(-n);
            if (b.hasRemaining()) {
                // the socket is full: the next OP_WRITE goes on; a TLS handshake that waits for
                // the peer goes on from the reads instead (writable again would spin)
                boolean socketFull = session == null || session.pendingOutput();
                k.interestOps(SelectionKey.OP_READ | (socketFull ? SelectionKey.OP_WRITE : 0));
                return;
            }
            link.outgoing.poll();
        }
        if (session != null && !session.flush()) {
            k.interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE); // the rest of the ciphertext
            return;
        }
        k.interestOps(SelectionKey.OP_READ);
    }

    private void fail(BusLink link, String why) {
        boolean beforeConnected = !link.connected;
        link.connected = false;
        link.outgoing.clear();
        link.pendingBytes.set(0);
        engine.execute(() -> events.lost(link, why, beforeConnected));
    }

    /** An exception's message for the log, with its causes' (a TLS failure's reason is in its cause). */
    private static String reason(Throwable e) {
        StringBuilder why = new StringBuilder(e.getMessage() == null ? e.toString() : e.getMessage());
        for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
            why.append(" (").append(c).append(')');
        }
        return why.toString();
    }

    private static String ip(java.net.SocketAddress a) {
        if (!(a instanceof InetSocketAddress)) return "";
        java.net.InetAddress addr = ((InetSocketAddress) a).getAddress();
        if (addr == null) return "";
        if (addr instanceof java.net.Inet6Address) return Ips.formatIpv6(addr.getAddress());
        String s = addr.getHostAddress();
        // an IPv4 client on a dual-stack socket reads as IPv4, as Redis shows it
        if (s.startsWith("::ffff:") && s.indexOf('.') > 0) s = s.substring(7);
        int zone = s.indexOf('%');
        return zone > 0 ? s.substring(0, zone) : s;
    }

    private static void closeQuietly(java.io.Closeable c) {
        try {
            c.close();
        } catch (IOException ignored) {
            // nothing left to do with it
        }
    }
}
