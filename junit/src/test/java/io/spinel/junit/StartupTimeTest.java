package io.spinel.junit;

import io.spinel.core.embedded.EmbeddedSpinel;
import io.spinel.server.SpinelServer;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Measures how long a test waits for a server: from {@code start()} to the reply of a first PING
 * over TCP, once the JVM is warm, and the same for the socket-less embedded engine. Prints the
 * figures (see target/surefire-reports/io.spinel.junit.StartupTimeTest-output.txt); as with
 * every test here, it asserts behaviour, never timings.
 */
class StartupTimeTest {
    private static final int WARMUP = 20;
    private static final int RUNS = 50;

    @Test
    void serverStartToFirstPing() throws IOException {
        for (int i = 0; i < WARMUP; i++) startPingStop(null, null);
        long[] start = new long[RUNS];
        long[] stop = new long[RUNS];
        for (int i = 0; i < RUNS; i++) startPingStop(start, stop, i);
        System.out.println("SpinelServer start -> first PING reply (TCP, warm JVM): " + summary(start));
        System.out.println("SpinelServer close: " + summary(stop));
    }

    @Test
    void embeddedStartToFirstPing() {
        for (int i = 0; i < WARMUP; i++) embedded(null, 0);
        long[] start = new long[RUNS];
        for (int i = 0; i < RUNS; i++) embedded(start, i);
        System.out.println("EmbeddedSpinel start -> first PING reply (in memory, warm JVM): " + summary(start));
    }

    private static void startPingStop(long[] start, long[] stop) throws IOException {
        startPingStop(start, stop, 0);
    }

    private static void startPingStop(long[] start, long[] stop, int i) throws IOException {
        long t0 = System.nanoTime();
        SpinelServer s = SpinelServer.builder().randomPort().option("bind", "127.0.0.1").start();
        String reply;
        try (Socket socket = new Socket("127.0.0.1", s.port())) {
            socket.setTcpNoDelay(true);
            OutputStream out = socket.getOutputStream();
            out.write("*1\r\n$4\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            byte[] buf = new byte[7];
            int n = 0;
            while (n < buf.length) {
                int r = in.read(buf, n, buf.length - n);
                if (r < 0) break;
                n += r;
            }
            reply = new String(buf, 0, n, StandardCharsets.US_ASCII);
        }
        long t1 = System.nanoTime();
        s.close();
        long t2 = System.nanoTime();
        assertThat(reply).isEqualTo("+PONG\r\n");
        if (start != null) {
            start[i] = t1 - t0;
            stop[i] = t2 - t1;
        }
    }

    private static void embedded(long[] start, int i) {
        long t0 = System.nanoTime();
        try (EmbeddedSpinel s = EmbeddedSpinel.start()) {
            assertThat(s.client().ping()).isEqualTo("PONG");
            if (start != null) start[i] = System.nanoTime() - t0;
        }
    }

    private static String summary(long[] nanos) {
        long[] s = nanos.clone();
        Arrays.sort(s);
        return String.format("median %.2f ms, p90 %.2f ms, max %.2f ms over %d runs",
                s[s.length / 2] / 1e6, s[s.length * 9 / 10] / 1e6, s[s.length - 1] / 1e6, s.length);
    }
}
