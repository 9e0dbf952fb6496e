package io.spinel.server;

import io.spinel.core.Client;

/**
 * What both transports' connections know about their socket from the start: the addresses as
 * CLIENT LIST prints them, whether the peer counts as local for protected mode, the number
 * shown as its fd, and whether it is a TLS listener's.
 */
abstract class SocketConnection implements Client.Connection {
    private final String remote;
    private final String local;
    private final boolean isLocal;
    private final boolean unixSocket;
    private final int fd;
    private final boolean tls;

    SocketConnection(String remote, String local, boolean isLocal, boolean unixSocket, int fd, boolean tls) {
        this.remote = remote;
        this.local = local;
        this.isLocal = isLocal;
        this.unixSocket = unixSocket;
        this.fd = fd;
        this.tls = tls;
    }

    @Override
    public final String remoteAddress() {
        return remote;
    }

    @Override
    public final String localAddress() {
        return local;
    }

    @Override
    public final boolean isLocal() {
        return isLocal;
    }

    @Override
    public final boolean isUnixSocket() {
        return unixSocket;
    }

    @Override
    public final boolean isPlainSocket() {
        return !tls;
    }

    @Override
    public final int fd() {
        return fd;
    }
}
