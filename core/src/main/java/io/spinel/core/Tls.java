package io.spinel.core;

import java.io.IOException;
import java.net.Socket;
import javax.net.ssl.SSLEngine;

/**
 * What the engine needs of TLS, which the network layer (the server module) provides: core has
 * no network code. Without one, TLS cannot be configured (as a Redis built without TLS).
 */
public interface Tls {
    /**
     * Builds the TLS contexts again from the configuration as it stands (CONFIG SET of a tls-*
     * option, Redis's tlsConfigure). On failure the reasons are logged, the contexts in use stay,
     * and an IllegalStateException says "Unable to update TLS configuration. Check server logs."
     */
    void reconfigure();

    /**
     * The replica's connection to its master over TLS (tls-replication yes): a TLS client
     * session over the connected socket, its handshake done. The master's certificate is checked
     * against the configured CA; its host name is not (as Redis does not).
     */
    Socket overTls(Socket connected, String host, int port) throws IOException;

    /**
     * The TLS side of a cluster bus link (tls-cluster yes), its handshake not begun. For a link
     * this node opens (outbound), the client side, presenting tls-client-cert-file or else the
     * server's certificate; for one it accepted, the server side, which always asks for the
     * peer's certificate, whatever tls-auth-clients says (as Redis's bus does). Either checks the
     * peer's certificate against the configured CAs, never its host name. An outbound link names
     * its peer's address, so that a link opened again to the same node resumes the TLS session
     * of the last one instead of a full handshake (the links of a busy cluster are dropped and
     * opened again when pongs come late, and full handshakes of every node at once were what
     * kept a loaded 20-node cluster from settling).
     */
    SSLEngine clusterBusEngine(boolean outbound, String peerHost, int peerPort);
}
