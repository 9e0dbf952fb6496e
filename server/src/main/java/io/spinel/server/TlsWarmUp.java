package io.spinel.server;

import java.nio.ByteBuffer;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;

/**
 * One TLS handshake in memory, between a client and a server engine of the server's own
 * contexts, before the server serves: a JVM's first handshake loads and initializes the JDK's TLS
 * and spends seconds in it (about two on an idle machine), and a cluster node's first bus
 * handshakes must be done within the node timeout, after which the node met is forgotten. The
 * handshake may fail (a client certificate the CAs do not trust): the warming is done by then.
 */
final class TlsWarmUp {
    private static final ByteBuffer NOTHING = ByteBuffer.allocate(0);
    /** Enough turns for any handshake: TLS 1.2 and 1.3 take a few. */
    private static final int MAX_TURNS = 64;

    private TlsWarmUp() {
    }

    static void handshake(SSLEngine client, SSLEngine server) {
        int packet = Math.max(client.getSession().getPacketBufferSize(), server.getSession().getPacketBufferSize());
        ByteBuffer toServer = ByteBuffer.allocate(4 * packet);
        ByteBuffer toClient = ByteBuffer.allocate(4 * packet);
        ByteBuffer plaintext = ByteBuffer.allocate(4 * packet);
        try {
            client.beginHandshake();
            server.beginHandshake();
            for (int turn = 0; turn < MAX_TURNS && (handshaking(client) || handshaking(server)); turn++) {
                step(client, toServer, toClient, plaintext);
                step(server, toClient, toServer, plaintext);
            }
        } catch (Exception | AssertionError e) {
            // warmed all the same
        }
    }

    private static boolean handshaking(SSLEngine e) {
        HandshakeStatus s = e.getHandshakeStatus();
        return s != HandshakeStatus.NOT_HANDSHAKING && s != HandshakeStatus.FINISHED;
    }

    /** What the engine asks for now: its tasks, a message to send (into out), or one to read (from in). */
    private static void step(SSLEngine e, ByteBuffer out, ByteBuffer in, ByteBuffer plaintext) throws Exception {
        switch (e.getHandshakeStatus()) {
            case NEED_TASK -> {
                Runnable task;
                while ((task = e.getDelegatedTask()) != null) task.run();
            }
            case NEED_WRAP -> e.wrap(NOTHING, out);
            case NEED_UNWRAP, NEED_UNWRAP_AGAIN -> {
                in.flip();
                plaintext.clear();
                e.unwrap(in, plaintext);
                in.compact();
            }
            default -> {
                // done, or waiting for the other side
            }
        }
    }
}
