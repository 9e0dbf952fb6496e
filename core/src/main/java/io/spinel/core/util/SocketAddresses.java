package io.spinel.core.util;

import java.net.InetSocketAddress;

/** Socket addresses as Redis prints them (CLIENT LIST's addr and laddr, a replica's link). */
public final class SocketAddresses {
    private SocketAddresses() {
    }

    /** "ip:port" as Redis prints it: IPv6 without brackets or scope, "::1" for the loopback. */
    public static String format(InetSocketAddress a) {
        String ip = a.getAddress() == null ? a.getHostString() : a.getAddress().getHostAddress();
        int pct = ip.indexOf('%');
        if (pct >= 0) ip = ip.substring(0, pct);
        if (ip.equals("0:0:0:0:0:0:0:1")) ip = "::1";
        return ip + ":" + a.getPort();
    }
}
