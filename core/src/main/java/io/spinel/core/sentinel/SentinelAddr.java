package io.spinel.core.sentinel;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * An instance's address (Redis's sentinelAddr): the host name as configured or announced, the IP
 * it resolved to (empty when it could not be resolved and that is allowed), and the port.
 */
record SentinelAddr(String hostname, String ip, int port) {
    /** Why an address could not be made (Redis's errno cases of createSentinelAddr). */
    static final class Invalid extends Exception {
        final boolean badPort;

        Invalid(boolean badPort) {
            super(null, null, false, false);
            this.badPort = badPort;
        }
    }

    /**
     * Makes an address; without resolve-hostnames only IP addresses are accepted (no DNS look-up),
     * as Redis's ANET_IP_ONLY. {@code acceptUnresolved}: with resolve-hostnames, a name that does
     * not resolve (yet) is kept with an empty IP.
     */
    static SentinelAddr create(String hostname, int port, boolean resolveHostnames, boolean acceptUnresolved)
            throws Invalid {
        if (port < 0 || port > 65535) throw new Invalid(true);
        String ip = resolve(hostname, resolveHostnames);
        if (ip == null) {
            if (resolveHostnames && acceptUnresolved) ip = "";
            else throw new Invalid(false);
        }
        return new SentinelAddr(hostname, ip, port);
    }

    /** The IP of a host, or null: only literal addresses unless {@code resolveHostnames}. */
    static String resolve(String host, boolean resolveHostnames) {
        if (!resolveHostnames && !isIpLiteral(host)) return null;
        try {
            return InetAddress.getByName(host).getHostAddress();
        } catch (UnknownHostException | SecurityException e) {
            return null;
        }
    }

    static boolean isIpLiteral(String host) {
        if (host.isEmpty()) return false;
        if (host.indexOf(':') >= 0) return host.chars().allMatch(ch -> Character.digit(ch, 16) >= 0 || ch == ':' || ch == '.');
        String[] parts = host.split("\\.", -1);
        if (parts.length != 4) return false;
        for (String p : parts) {
            if (p.isEmpty() || p.length() > 3 || !p.chars().allMatch(Character::isDigit) || Integer.parseInt(p) > 255) {
                return false;
            }
        }
        return true;
    }

    /** Same instance: same port, and the same IP or (unresolved) the same name. */
    boolean sameAs(SentinelAddr o) {
        return port == o.port && (ip.equals(o.ip) || hostname.equalsIgnoreCase(o.hostname));
    }

    /** Whether a host name (as a replica's INFO reports its master) is this address. */
    boolean matchesHost(String host, boolean resolveHostnames) {
        if (host == null) return false;
        String other = resolve(host, resolveHostnames);
        if (other == null) return (resolveHostnames ? hostname : ip).equalsIgnoreCase(host);
        return ip.equalsIgnoreCase(other);
    }

    /** What this Sentinel tells others: the name with announce-hostnames, else the IP. */
    String announced(boolean announceHostnames) {
        return announceHostnames ? hostname : ip;
    }

    /** "ip:port", IPv6 in brackets (a replica's name). */
    String announcedWithPort(boolean announceHostnames) {
        String a = announced(announceHostnames);
        return (a.indexOf(':') >= 0 ? "[" + a + "]" : a) + ":" + port;
    }
}
