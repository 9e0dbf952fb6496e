package io.spinel.server;

import io.netty.channel.epoll.Epoll;
import io.netty.channel.unix.Socket;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The {@code supervised} option: telling the init system that started the server when it is
 * ready. Under systemd, its readiness protocol (sd_notify) as Redis speaks it: one datagram per
 * message to the unix socket named by NOTIFY_SOCKET; a unit of {@code Type=notify} (Debian's
 * redis-server.service) waits for READY=1 before it counts the server as started. The JDK has no
 * unix datagram sockets; Netty's native library has. Under upstart, a job with
 * {@code expect stop} waits for the process to stop itself (SIGSTOP) and then continues it.
 */
final class Supervisor {
    private Supervisor() {
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

    /** Sends systemd one message ("READY=1\n"...); false if it could not (logged by the caller). */
    static boolean notifySystemd(String message) {
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

    /**
     * Upstart's readiness signal: this process stops itself and goes on when upstart sends
     * SIGCONT. A JVM cannot raise a signal on itself, so a {@code kill -STOP} child sends it; the
     * wait for that child returns once the process runs again. False if the signal could not be
     * sent (logged by the caller).
     */
    static boolean stopForUpstart() {
        try {
            Process kill = new ProcessBuilder("kill", "-STOP", Long.toString(ProcessHandle.current().pid()))
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return kill.waitFor() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
