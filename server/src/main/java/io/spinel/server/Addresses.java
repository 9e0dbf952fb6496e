package io.spinel.server;

import java.net.InetSocketAddress;
import java.net.SocketAddress;

/** Peer and local addresses as Redis prints and judges them (CLIENT LIST, protected mode). */
final class Addresses {
    private Addresses() {
    }

    /** "ip:port" as Redis prints it: IPv6 without brackets or scope, "::1" for the loopback. */
    static String format(InetSocketAddress a) {
        String ip = a.getAddress() == null ? a.getHostString() : a.getAddress().getHostAddress();
        int pct = ip.indexOf('%');
        if (pct >= 0) ip = ip.substring(0, pct);
        if (ip.equals("0:0:0:0:0:0:0:1")) ip = "::1";
        return ip + ":" + a.getPort();
    }

    /** Redis counts exactly 127.0.0.1 and ::1 as local. */
    static boolean isLoopback(SocketAddress a) {
        if (!(a instanceof InetSocketAddress)) return false;
        InetSocketAddress ia = (InetSocketAddress) a;
        String ip = ia.getAddress() == null ? ia.getHostString() : ia.getAddress().getHostAddress();
        return ip.equals("127.0.0.1") || ip.equals("0:0:0:0:0:0:0:1") || ip.equals("::1");
    }
}
