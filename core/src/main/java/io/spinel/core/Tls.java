package io.spinel.core;

import java.io.IOException;
import java.net.Socket;

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
}
