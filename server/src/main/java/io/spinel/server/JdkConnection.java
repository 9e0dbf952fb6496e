package io.spinel.server;

import io.spinel.core.Client;
import io.spinel.core.Engine;
import io.spinel.core.protocol.RespReader;
import io.spinel.core.util.NativeMemory;
import io.spinel.core.util.TlsChannel;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;

/**
 * One client on {@link JdkTransport}. Reads go straight into the client's query buffer; replies
 * are written to the socket at once and what it does not take is queued (copied) and sent when
 * the socket is writable again, the way Netty's channel does it for {@link NettyConnection}.
 */
final class JdkConnection extends SocketConnection {
    /** Once the queue has drained below this (Netty's default low water mark), the client's memory is measured again. */
    private static final int LOW_WATER = 32 * 1024;
    /** A read asks for the query buffer's free room, or for this much when less is free. */
    private static final int READ_CHUNK = 16 * 1024;
    /** Views of arrays up to this size are kept for the next call; bigger ones (a big argument) are not held on to. */
    private static final int VIEW_KEPT_MAX = 64 * 1024;

    private final SocketChannel channel;
    private final JdkTransport transport;
    /** The TLS session on a TLS listener's connection; null on a plain one, whose reads and writes are the socket's. */
    private final TlsChannel tls;
    private SelectionKey key;
    private Engine engine;
    private Client client;
    private final ArrayDeque<ByteBuffer> queued = new ArrayDeque<>();
    /** The buffers that reads and writes last wrapped (the query buffer, the reply buffer), reused. */
    private ByteBuffer readView;
    /** Where a big value's bytes land before they are copied to native memory (see read()). */
    private byte[] staging;
    private ByteBuffer writeView;
    private long queuedBytes;
    private boolean closeWhenSent;
    private boolean closed;

    /**
     * unixPath: the listener's path for a unix socket connection, null for TCP; tls: the server
     * side of a TLS session for a TLS listener's connection, else null.
     */
    JdkConnection(SocketChannel channel, String unixPath, int fd, JdkTransport transport, javax.net.ssl.SSLEngine tls)
            throws IOException {
        super(unixPath != null ? unixPath + ":0" : format(channel.getRemoteAddress()),
                unixPath != null ? unixPath + ":0" : format(channel.getLocalAddress()),
                unixPath != null || Addresses.isLoopback(channel.getRemoteAddress()), unixPath != null, fd, tls != null);
        this.channel = channel;
        this.transport = transport;
        this.tls = tls == null ? null : new TlsChannel(channel, tls);
    }

    /** Starts serving: the engine sees a new client, the selector this socket. */
    void register(Selector selector, Engine engine) throws IOException {
        this.engine = engine;
        this.key = channel.register(selector, SelectionKey.OP_READ, this);
        this.client = engine.connect(this);
        // null: refused (maxclients, protected mode), the reason written and the socket closed
        if (client != null) client.reader().receiveBigValuesNatively(true);
    }

    private static String format(SocketAddress a) {
        return a instanceof InetSocketAddress ? io.spinel.core.util.SocketAddresses.format((InetSocketAddress) a) : "?:0";
    }

    /** A view of a[off, off + len), reusing the last one when it wraps the same array. */
    private static ByteBuffer view(ByteBuffer last, byte[] a, int off, int len) {
        if (last == null || last.array() != a) return ByteBuffer.wrap(a, off, len);
        last.clear().position(off).limit(off + len);
        return last;
    }

    /** The view to keep for the next call: none over a big array, which it would keep alive. */
    private static ByteBuffer keep(ByteBuffer b) {
        return b.capacity() <= VIEW_KEPT_MAX ? b : null;
    }

    /** The selector found the socket readable or writable (on the loop thread). */
    void ready(SelectionKey k) {
        if (!k.isValid()) return;
        if (k.isWritable()) writeQueued();
        // (a TLS session may have read records whole that the selector does not know of)
        if (k.isValid() && (k.isReadable() || tls != null && tls.hasBufferedInput())) read();
    }

    private void read() {
        if (client == null || client.isClosed()) {
            discardInput();
            if (tls != null && !closed) afterTlsRead(); // its last replies may wait for the handshake
            return;
        }
        RespReader reader = client.reader();
        boolean any = false;
        try {
            // as much as the socket has, in steps so that a big argument goes straight into its
            // own array (see RespReader), bounded so that one client cannot starve the others
            for (int round = 0; round < 16 && !client.isClosed(); round++) {
                // what fits in the query buffer now, so that it grows only when a client sends more
                // than fits (a fixed ask made every buffer as big as the ask)
                int room = reader.room();
                int want = Math.min(reader.maxWrite(), room >= 1024 ? room : READ_CHUNK);
                long target = reader.nativeTarget();
                ByteBuffer into;
                if (target != 0) {
                    // a big value bound for native memory: staged through a small array
                    if (staging == null) staging = new byte[READ_CHUNK];
                    want = Math.min(want, staging.length);
                    into = view(readView, staging, 0, want);
                } else {
                    byte[] dst = reader.writable(want);
                    into = view(readView, dst, reader.writeOffset(), want);
                }
                readView = keep(into);
                int n = tls == null ? channel.read(into) : tls.read(into);
                if (n > 0 && target != 0) NativeMemory.copyFrom(staging, 0, target, n);
                if (n < 0) {
                    closeNow();
                    break;
                }
                if (n == 0) break;
                any = true;
                engine.stats().netInputBytes += n;
                engine.stats().readsProcessed++;
                reader.commit(n);
                engine.processInput(client);
                if (n < want) break;
            }
        } catch (javax.net.ssl.SSLException e) {
            // a TLS listener's connection whose handshake failed: logged as Redis logs it
            if (!tls.established()) engine.log().warning("Error accepting a client connection: " + e.getMessage());
            closeNow();
        } catch (IOException e) {
            closeNow();
        } finally {
            reader.detach(); // a read that returned nothing borrowed the shared query buffer too
        }
        if (any) engine.flushSoon();
        if (tls != null && !closed) afterTlsRead();
    }

    /**
     * What a TLS read may leave to do: handshake messages that wait for the socket to be
     * writable, and decrypted or whole records that the selector will not report (read again on
     * the next turn).
     */
    private void afterTlsRead() {
        if (!queued.isEmpty() && !tls.pendingOutput()) writeQueued(); // replies that waited for the handshake
        if (closed) return;
        if (tls.pendingOutput()) key.interestOps(key.interestOps() | SelectionKey.OP_WRITE);
        if (tls.hasBufferedInput()) {
            transport.loop().execute(() -> {
                if (!closed && key.isValid()) read();
            });
        }
    }

    /**
     * A client the server closed while its last replies are still being sent (QUIT, CLIENT KILL):
     * what it sends now is read and dropped, as the Netty transport ignores it, until the close.
     */
    private void discardInput() {
        try {
            ByteBuffer scratch = ByteBuffer.allocate(4096);
            while (true) {
                scratch.clear();
                int n = tls == null ? channel.read(scratch) : tls.read(scratch);
                if (n < 0) {
                    closeNow();
                    return;
                }
                if (n == 0) return;
            }
        } catch (IOException e) {
            closeNow();
        }
    }

    @Override
    public void write(byte[] buf, int off, int len) {
        if (closed || len == 0) return;
        if (queued.isEmpty()) {
            try {
                ByteBuffer b = view(writeView, buf, off, len);
                writeView = keep(b);
                if (tls == null) {
                    channel.write(b);
                    if (!b.hasRemaining()) return;
                } else {
                    tls.write(b);
                    if (!b.hasRemaining() && !tls.pendingOutput()) return;
                }
                off = b.position();
                len = b.remaining();
            } catch (IOException e) {
                closeNow();
                return;
            }
            // (a TLS session whose handshake waits for the peer goes on from the reads: see afterTlsRead)
            if (tls == null || tls.pendingOutput()) key.interestOps(key.interestOps() | SelectionKey.OP_WRITE);
            if (len == 0) return; // all encrypted: only ciphertext waits, in the TLS session
        }
        byte[] copy = new byte[len];
        System.arraycopy(buf, off, copy, 0, len);
        queued.add(ByteBuffer.wrap(copy));
        queuedBytes += len;
    }

    private void writeQueued() {
        try {
            ByteBuffer b;
            while ((b = queued.peek()) != null) {
                int n = tls == null ? channel.write(b) : tls.write(b);
                queuedBytes -= n;
                if (b.hasRemaining()) break;
                queued.poll();
            }
            if (tls != null && queued.isEmpty() && !tls.flush()) return; // the rest of the ciphertext: writable again
        } catch (IOException e) {
            closeNow();
            return;
        }
        if (queued.isEmpty()) {
            if (closeWhenSent) {
                closeNow();
                return;
            }
            key.interestOps(SelectionKey.OP_READ);
        } else if (tls != null && !tls.pendingOutput()) {
            // the handshake waits for the peer: writable again would spin; the reads go on with it
            key.interestOps(SelectionKey.OP_READ);
        }
        // what was waiting for the peer no longer counts as this client's memory
        if (queuedBytes < LOW_WATER && client != null && !client.isClosed()) engine.updateClientMemory(client);
    }

    @Override
    public void flush() {
        // written as they come: what the socket did not take waits for OP_WRITE
    }

    @Override
    public void close() {
        if (queued.isEmpty() && (tls == null || !tls.pendingOutput())) closeNow();
        else closeWhenSent = true; // (TLS: the last records go out before the close)
    }

    @Override
    public void closeNow() {
        if (closed) return;
        closed = true;
        queued.clear();
        queuedBytes = 0;
        if (key != null) key.cancel();
        if (tls != null) tls.closeQuietly();
        try {
            channel.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        // as Netty reports a closed channel: after the code that closed it has returned
        if (client != null && !client.isClosed()) {
            Client c = client;
            try {
                transport.loop().execute(() -> engine.disconnected(c));
            } catch (java.util.concurrent.RejectedExecutionException stopped) {
                // the server is stopping: it closes every client itself
            }
        }
    }





    @Override
    public long pendingBytes() {
        return queuedBytes;
    }

    @Override
    public int pendingChunks() {
        return queued.size();
    }

}
