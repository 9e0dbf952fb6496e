package io.spinel.core.cluster;

import io.spinel.core.util.TlsChannel;

import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One connection of the cluster bus (Redis's clusterLink): outbound (this node connected, to
 * send its PINGs) or inbound (accepted; the peer's PINGs arrive on it and PONGs go back). The
 * engine's thread owns {@link #node} and {@link #freed}; {@link ClusterBus}'s thread owns the
 * channel and the read buffer; the queue of outgoing messages is shared.
 */
final class BusLink {
    final boolean inbound;
    final long ctime;
    /** The node at the other end: set at creation for an outbound link, once known for an inbound one. */
    ClusterNode node;
    /** The engine let go of it (Redis's freeClusterLink): events still on their way are ignored. */
    boolean freed;

    // ---- the bus thread's side
    SocketChannel channel;
    /** tls-cluster: the link's TLS session; null on a plain link. */
    TlsChannel tls;
    /** Ready for messages: TCP connected, and under TLS the handshake done. */
    volatile boolean connected;
    /** The first 8 bytes of a message (signature and length), then the whole message. */
    ByteBuffer header = ByteBuffer.allocate(8);
    ByteBuffer body;
    final ConcurrentLinkedQueue<ByteBuffer> outgoing = new ConcurrentLinkedQueue<>();
    /** Bytes queued and not yet written (CLUSTER LINKS send-buffer-used, mem_cluster_links). */
    final AtomicLong pendingBytes = new AtomicLong();
    /** The addresses of the connection once it is up ("" before). */
    volatile String peerIp = "";
    volatile String localIp = "";

    BusLink(ClusterNode node, long now) {
        this.node = node;
        this.inbound = node == null;
        this.ctime = now;
    }
}
