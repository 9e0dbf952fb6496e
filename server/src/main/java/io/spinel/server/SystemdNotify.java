package io.spinel.server;

import io.netty.channel.epoll.Epoll;
import io.netty.channel.unix.Socket;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * systemd's readiness protocol (sd_notify), as Redis speaks it under {@code supervised systemd}:
 * one datagram per message to the unix socket named by NOTIFY_SOCKET. A unit of
 * {@code Type=notify} (Debian's redis-server.service) waits for READY=1 before it counts the
 * server as started. The JDK has no unix datagram sockets; Netty's native library has.
 */
final class SystemdNotify {
    private SystemdNotify() {
    }

    /**
     * Redis's redisIsSupervised: "systemd" or "upstart" when the supervisor that the supervised
     * option names (auto: either) started this process, as its variable says, else null. A
     * supervised server stays in the foreground whatever daemonize says.
     */
    static String supervisor(String supervised) {
        boolean upstart = System.getenv("UPSTART_JOB") != null;
        String socket = System.getenv("NOTIFY_SOCKET");
        boolean systemd = socket != null && !socket.isEmpty();
        switch (supervised) {
            case "upstart":
                return upstart ? "upstart" : null;
            case "systemd":
                return systemd ? "systemd" : null;
            case "auto":
                return upstart ? "upstart" : systemd ? "systemd" : null;
            default:
                return null;
        }
    }

    /** Sends one message ("READY=1\n"...); false if it could not (logged by the caller). */
    static boolean send(String message) {
        String path = System.getenv("NOTIFY_SOCKET");
        if (path == null || path.isEmpty() || !Epoll.isAvailable()) return false;
        byte[] address = path.getBytes(StandardCharsets.UTF_8);
        if (address[0] == '@') address[0] = 0; // an abstract socket's name
        byte[] text = message.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocateDirect(text.length);
        b.put(text).flip();
        Socket s = Socket.newSocketDomainDgram();
        try {
            return s.sendToDomainSocket(b, 0, text.length, address) == text.length;
        } catch (IOException e) {
            return false;
        } finally {
            try {
                s.close();
            } catch (IOException ignored) {
                // nothing was kept open
            }
        }
    }
}
