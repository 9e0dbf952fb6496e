package io.spinel.junit;

import io.spinel.server.SpinelServer;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * Starts, serves one PING on and stops a throwaway Spinel server on a background thread as soon
 * as a JUnit session opens (before test discovery), so that the first test class asking for a
 * server finds Spinel's and Netty's classes already loaded, linked and initialised. A first
 * server in a fresh JVM otherwise spends about 0.3 s on that; the warm-up overlaps it with JUnit's
 * own start-up and discovery and with whatever tests run first.
 *
 * <p>Registered as a service (META-INF/services), so it runs in every session that has
 * spinel-junit on its class path; {@code -Dspinel.junit.warmUp=false} turns it off. It binds one
 * ephemeral port on 127.0.0.1 for a moment, and any failure is ignored: the first real start then
 * simply does the work itself.
 */
public final class WarmUpSessionListener implements LauncherSessionListener {

    @Override
    public void launcherSessionOpened(LauncherSession session) {
        if (!Boolean.parseBoolean(System.getProperty("spinel.junit.warmUp", "true"))) return;
        Thread t = new Thread(WarmUpSessionListener::warmUp, "spinel-junit-warm-up");
        t.setDaemon(true);
        t.start();
    }

    static void warmUp() {
        try (SpinelServer server = SpinelServer.builder().randomPort().option("bind", RunningSpinel.HOST).start();
             Socket socket = new Socket(RunningSpinel.HOST, server.port())) {
            OutputStream out = socket.getOutputStream();
            out.write("*1\r\n$4\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            for (int n = 0; n < "+PONG\r\n".length() && in.read() >= 0; n++) {
                // read the whole reply, so the server's write path has run too
            }
        } catch (Throwable ignored) {
            // a head start only
        }
    }
}
