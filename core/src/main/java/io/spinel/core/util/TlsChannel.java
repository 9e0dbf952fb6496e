package io.spinel.core.util;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;

/**
 * A TLS session over a non-blocking socket, for the JDK transport's client connections and the
 * cluster bus's links (tls-cluster): reads give the peer's bytes decrypted, writes take
 * plaintext, and the handshake (and any later handshake message, such as TLS 1.3's session
 * tickets) happens inside them, as OpenSSL's SSL_read and SSL_write do it for Redis; or, for a
 * side that has nothing to send until it is done, in {@link #handshake()}. A handshake that fails
 * throws, and the connection closes.
 *
 * <p>Ciphertext that the socket did not take waits in {@link #pendingOutput()} for the socket to
 * be writable; decrypted bytes that did not fit the caller's buffer, and records read whole but
 * not yet decrypted, wait in {@link #hasBufferedInput()}: the selector does not know of them.
 */
public final class TlsChannel {
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

    private final SocketChannel channel;
    private final SSLEngine engine;
    /** Ciphertext read from the socket, not yet decrypted (kept ready for reading). */
    private ByteBuffer netIn;
    /** Ciphertext to send (kept ready for reading). */
    private ByteBuffer netOut;
    /** Plaintext decrypted beyond what the last read could take (kept ready for reading). */
    private ByteBuffer appIn;
    private boolean inputClosed;
    /** netIn holds only part of a record: nothing to decrypt until the socket gives more. */
    private boolean partial;

    public TlsChannel(SocketChannel channel, SSLEngine engine) {
        this.channel = channel;
        this.engine = engine;
        int packet = engine.getSession().getPacketBufferSize();
        this.netIn = ByteBuffer.allocate(packet).flip();
        this.netOut = ByteBuffer.allocate(packet).flip();
        this.appIn = ByteBuffer.allocate(engine.getSession().getApplicationBufferSize()).flip();
    }

    /** Whether the handshake has completed once (a session was agreed). */
    public boolean established() {
        return !engine.getSession().getCipherSuite().equals("SSL_NULL_WITH_NULL_NULL");
    }

    /** Whether ciphertext waits for the socket to take it. */
    public boolean pendingOutput() {
        return netOut.hasRemaining();
    }

    /** Whether a read would give something without the socket being readable. */
    public boolean hasBufferedInput() {
        return appIn.hasRemaining() || netIn.hasRemaining() && !partial && !inputClosed;
    }

    /**
     * Reads decrypted bytes into dst: how many, 0 when the socket has nothing more for now
     * (a handshake in progress included), -1 at the end of the stream or the peer's close_notify.
     */
    public int read(ByteBuffer dst) throws IOException {
        int n = take(dst);
        while (dst.hasRemaining()) {
            if (inputClosed) return n > 0 ? n : -1;
            SSLEngineResult r;
            if (netIn.hasRemaining()) {
                ByteBuffer into = dst.remaining() >= appIn.capacity() ? dst : appIn.compact();
                try {
                    r = engine.unwrap(netIn, into);
                } finally {
                    if (into == appIn) appIn.flip();
                }
                if (into == dst) n += r.bytesProduced();
                else n += take(dst);
            } else {
                r = null;
            }
            if (r == null || r.getStatus() == SSLEngineResult.Status.BUFFER_UNDERFLOW) {
                partial = r != null;
                int got = fill();
                if (got < 0) {
                    inputClosed = true;
                    continue;
                }
                if (got == 0) return n;
                continue;
            }
            switch (r.getStatus()) {
                case CLOSED -> {
                    inputClosed = true;
                    flush();
                }
                case BUFFER_OVERFLOW -> appIn = grow(appIn, engine.getSession().getApplicationBufferSize());
                default -> {
                    handshake(r.getHandshakeStatus());
                    // nothing moved: the handshake has to send first (the socket is full) and
                    // goes on once it is writable
                    if (r.bytesConsumed() == 0 && r.bytesProduced() == 0 && (pendingOutput()
                            || engine.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_WRAP)) {
                        return n;
                    }
                }
            }
        }
        return n;
    }

    /**
     * Reads more ciphertext from the socket after what netIn holds (a bigger buffer when a partial
     * record fills it): the bytes read, 0 when the socket has none now, -1 at its end.
     */
    private int fill() throws IOException {
        if (partial && netIn.limit() == netIn.capacity() && netIn.position() == 0) {
            netIn = grow(netIn, engine.getSession().getPacketBufferSize());
        }
        netIn.compact();
        int got;
        try {
            got = channel.read(netIn);
        } finally {
            netIn.flip();
        }
        if (got > 0) partial = false;
        return got;
    }

    /**
     * Drives the handshake as far as the socket allows now, without application data: true once
     * a session is agreed (what the peer sent after it waits for {@link #read}). For a side that
     * sends nothing before the handshake is done (the cluster bus, which tells the node of a
     * connection only then, as Redis's connection layer does). Throws when the handshake fails or
     * the peer closes.
     */
    public boolean handshake() throws IOException {
        if (!established() && engine.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NOT_HANDSHAKING) {
            engine.beginHandshake();
        }
        while (flush()) {
            SSLEngineResult.HandshakeStatus status = engine.getHandshakeStatus();
            switch (status) {
                case NEED_TASK, NEED_WRAP -> handshake(status);
                case NEED_UNWRAP, NEED_UNWRAP_AGAIN -> {
                    if (!unwrapForHandshake()) return false;
                }
                default -> {
                    return established();
                }
            }
        }
        return false;
    }

    /** One step of the handshake's reading: false when it waits for the socket. */
    private boolean unwrapForHandshake() throws IOException {
        if (netIn.hasRemaining() && !partial) {
            SSLEngineResult r;
            appIn.compact();
            try {
                r = engine.unwrap(netIn, appIn);
            } finally {
                appIn.flip();
            }
            switch (r.getStatus()) {
                case OK -> {
                    handshake(r.getHandshakeStatus());
                    return true;
                }
                case BUFFER_OVERFLOW -> {
                    appIn = grow(appIn, engine.getSession().getApplicationBufferSize());
                    return true;
                }
                case CLOSED -> throw new SSLException("the peer closed the TLS session during the handshake");
                default -> partial = true; // BUFFER_UNDERFLOW: the rest of the record is still to come
            }
        }
        int got = fill();
        if (got < 0) throw new java.io.EOFException("connection closed during the TLS handshake");
        return got > 0;
    }

    /** Moves decrypted bytes left from before into dst. */
    private int take(ByteBuffer dst) {
        int k = Math.min(appIn.remaining(), dst.remaining());
        if (k == 0) return 0;
        int limit = appIn.limit();
        appIn.limit(appIn.position() + k);
        dst.put(appIn);
        appIn.limit(limit);
        return k;
    }

    /**
     * Encrypts from src as much as the socket takes now: the bytes of src consumed (0 while the
     * handshake waits for the peer, or while earlier ciphertext still waits for the socket).
     */
    public int write(ByteBuffer src) throws IOException {
        int consumed = 0;
        while (src.hasRemaining() && flush()) {
            SSLEngineResult r = wrap(src);
            consumed += r.bytesConsumed();
            if (r.getStatus() == SSLEngineResult.Status.CLOSED) throw new SSLException("TLS session closed");
            if (r.getStatus() == SSLEngineResult.Status.BUFFER_OVERFLOW) {
                // room is made by sending what waits (the loop's flush), or by a bigger buffer
                if (!netOut.hasRemaining()) netOut = grow(netOut, engine.getSession().getPacketBufferSize());
                continue;
            }
            handshake(r.getHandshakeStatus());
            if (r.bytesConsumed() == 0 && r.bytesProduced() == 0) break; // the handshake needs the peer first
        }
        flush();
        return consumed;
    }

    /**
     * Sends waiting ciphertext, then what the handshake has to send next; true when nothing is
     * left waiting for the socket.
     */
    public boolean flush() throws IOException {
        while (netOut.hasRemaining()) {
            if (channel.write(netOut) == 0) return false;
        }
        if (engine.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_WRAP) {
            handshake(SSLEngineResult.HandshakeStatus.NEED_WRAP);
            while (netOut.hasRemaining()) {
                if (channel.write(netOut) == 0) return false;
            }
        }
        return true;
    }

    /** Does what the handshake asks of this side without reading: its tasks, and its messages to send. */
    private void handshake(SSLEngineResult.HandshakeStatus status) throws IOException {
        while (true) {
            switch (status) {
                case NEED_TASK -> {
                    Runnable task;
                    while ((task = engine.getDelegatedTask()) != null) task.run();
                    status = engine.getHandshakeStatus();
                }
                case NEED_WRAP -> {
                    SSLEngineResult r = wrap(EMPTY);
                    if (r.getStatus() == SSLEngineResult.Status.BUFFER_OVERFLOW) {
                        if (netOut.hasRemaining()) {
                            if (channel.write(netOut) == 0) return; // the rest once the socket is writable (flush)
                        } else {
                            netOut = grow(netOut, engine.getSession().getPacketBufferSize());
                        }
                    } else if (r.getStatus() == SSLEngineResult.Status.CLOSED) {
                        return;
                    }
                    status = r.getHandshakeStatus();
                }
                default -> {
                    return;
                }
            }
        }
    }

    /** Encrypts from src into what waits to be sent. */
    private SSLEngineResult wrap(ByteBuffer src) throws SSLException {
        netOut.compact();
        try {
            return engine.wrap(src, netOut);
        } finally {
            netOut.flip();
        }
    }

    /** At close: the close_notify alert, if the socket takes it now (as Redis's SSL_shutdown, without waiting). */
    public void closeQuietly() {
        try {
            engine.closeOutbound();
            handshake(SSLEngineResult.HandshakeStatus.NEED_WRAP);
            while (netOut.hasRemaining() && channel.write(netOut) > 0) {
                // written as far as it goes
            }
        } catch (IOException | RuntimeException ignored) {
            // closing anyway
        }
    }

    /** A buffer of at least the given size, holding b's readable bytes (ready for reading). */
    private static ByteBuffer grow(ByteBuffer b, int atLeast) {
        ByteBuffer bigger = ByteBuffer.allocate(Math.max(atLeast, b.capacity() * 2));
        bigger.put(b).flip();
        return bigger;
    }
}
