package io.spinel.server;

import java.net.InetSocketAddress;
import java.net.SocketAddress;

/** Peer addresses as Redis judges them (protected mode); printed by {@link io.spinel.core.util.SocketAddresses}. */
final class Addresses {
    private Addresses() {
    }

    /** Redis counts exactly 127.0.0.1 and ::1 as local. */
    static boolean isLoopback(SocketAddress a) {
        if (!(a instanceof InetSocketAddress)) return false;
        InetSocketAddress ia = (InetSocketAddress) a;
        String ip = ia.getAddress() == null ? ia.getHostString() : ia.getAddress().getHostAddress();
        return ip.equals("127.0.0.1") || ip.equals("0:0:0:0:0:0:0:1") || ip.equals("::1");
    }
}
