package io.spinel.bench;

import com.github.fppt.jedismock.RedisServer;
import io.spinel.core.embedded.EmbeddedSpinel;
import io.spinel.server.SpinelServer;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;

/**
 * What a test suite pays for its Redis stand-in: Spinel next to jedis-mock.
 *
 * <pre>
 *   startup [runs]           warm start -> first PING reply, close, and FLUSHALL round trip, in this JVM
 *   cold spinel|spinel-netty|jedis-mock|embedded   the first start in a fresh JVM (what the first
 *                            test class pays; spinel: SpinelServer's default loop, the JDK's selector;
 *                            spinel-netty: on Netty; embedded: EmbeddedSpinel, no socket)
 *   serve spinel|spinel-netty|jedis-mock PORT   serves on 127.0.0.1:PORT until killed (for redis-benchmark)
 * </pre>
 *
 * Every figure is wall-clock time measured with a plain socket speaking RESP, so no client
 * library's own start-up is counted. See run.sh for the full comparison.
 */
public final class JedisMockComparison {
    private JedisMockComparison() {
    }

    /** A server under test: started on a free port, stopped by close. */
    private interface Handle extends AutoCloseable {
        int port();

        @Override
        void close() throws IOException;
    }

    private interface Starter {
        Handle start(int port) throws IOException;
    }

    /** An in-process SpinelServer on its default event loop (the JDK's selector) or on Netty's. */
    private static Handle spinel(int port, SpinelServer.Transport transport) {
        SpinelServer.Builder b = SpinelServer.builder().option("bind", "127.0.0.1").transport(transport);
        SpinelServer s = (port == 0 ? b.randomPort() : b.port(port)).start();
        return new Handle() {
            public int port() {
                return s.port();
            }

            public void close() {
                s.close();
            }
        };
    }

    private static Handle jedisMock(int port) throws IOException {
        RedisServer s = RedisServer.newRedisServer(port, InetAddress.getByName("127.0.0.1")).start();
        return new Handle() {
            public int port() {
                return s.getBindPort();
            }

            public void close() throws IOException {
                s.stop();
            }
        };
    }

    private static Starter starter(String name) {
        switch (name) {
            case "spinel":
                return port -> spinel(port, SpinelServer.Transport.JDK);
            case "spinel-netty":
                return port -> spinel(port, SpinelServer.Transport.NETTY);
            case "jedis-mock":
                return JedisMockComparison::jedisMock;
            default:
                throw new IllegalArgumentException("unknown server " + name + " (spinel, spinel-netty or jedis-mock)");
        }
    }

    public static void main(String[] args) throws Exception {
        String mode = args.length > 0 ? args[0] : "startup";
        switch (mode) {
            case "startup":
                startup(args.length > 1 ? Integer.parseInt(args[1]) : 200);
                break;
            case "cold":
                cold(args[1]);
                break;
            case "serve":
                serve(args[1], Integer.parseInt(args[2]));
                break;
            default:
                throw new IllegalArgumentException("modes: startup [runs] | cold NAME | serve NAME PORT");
        }
    }

    private static void cold(String name) throws IOException {
        long t0 = System.nanoTime();
        if (name.equals("embedded")) { // the engine alone, no socket: what the transport adds is the rest
            try (EmbeddedSpinel e = EmbeddedSpinel.start()) {
                e.client().ping();
                System.out.printf(Locale.ROOT, "%s cold start -> first PING: %.1f ms%n", name, (System.nanoTime() - t0) / 1e6);
            }
            return;
        }
        try (Handle h = starter(name).start(0); Socket s = connect(h.port())) {
            ping(s);
            System.out.printf(Locale.ROOT, "%s cold start -> first PING: %.1f ms%n", name, (System.nanoTime() - t0) / 1e6);
        }
    }

    private static void serve(String name, int port) throws Exception {
        Handle h = starter(name).start(port);
        System.out.println(name + " serving on 127.0.0.1:" + h.port());
        Thread.currentThread().join();
    }

    private static void startup(int runs) throws Exception {
        int warmup = Math.max(20, runs / 5);
        System.out.printf(Locale.ROOT, "%d warm-up rounds, then %d measured, JDK %s, %d CPUs%n", warmup, runs,
                System.getProperty("java.version"), Runtime.getRuntime().availableProcessors());
        for (String name : new String[] {"spinel", "spinel-netty", "jedis-mock"}) {
            Starter st = starter(name);
            long[] start = new long[runs];
            long[] stop = new long[runs];
            for (int i = 0; i < warmup + runs; i++) {
                long t0 = System.nanoTime();
                Handle h = st.start(0);
                try (Socket s = connect(h.port())) {
                    ping(s);
                }
                long t1 = System.nanoTime();
                h.close();
                long t2 = System.nanoTime();
                if (i >= warmup) {
                    start[i - warmup] = t1 - t0;
                    stop[i - warmup] = t2 - t1;
                }
            }
            long[] total = new long[runs];
            for (int i = 0; i < runs; i++) total[i] = start[i] + stop[i];
            System.out.println(name + " start -> first PING: " + summary(start));
            System.out.println(name + " stop:                " + summary(stop));
            System.out.println(name + " per-method server (start + PING + stop): " + summary(total));
            flushOverhead(name, st, runs);
        }
        long[] embedded = new long[runs];
        for (int i = 0; i < warmup + runs; i++) {
            long t0 = System.nanoTime();
            try (EmbeddedSpinel e = EmbeddedSpinel.start()) {
                e.client().ping();
                if (i >= warmup) embedded[i - warmup] = System.nanoTime() - t0;
            }
        }
        System.out.println("EmbeddedSpinel (no socket) start -> first PING: " + summary(embedded));
    }

    /** Per-class server, per-test cost: a test writes 100 keys, then FLUSHALL empties the server. */
    private static void flushOverhead(String name, Starter st, int runs) throws IOException {
        try (Handle h = st.start(0); Socket s = connect(h.port())) {
            long[] flush = new long[runs];
            byte[] sets = sets(100);
            for (int i = 0; i < runs * 2; i++) {
                s.getOutputStream().write(sets);
                s.getOutputStream().flush();
                for (int k = 0; k < 100; k++) readReply(s);
                long t0 = System.nanoTime();
                send(s, "FLUSHALL");
                readReply(s);
                if (i >= runs) flush[i - runs] = System.nanoTime() - t0;
            }
            System.out.println(name + " FLUSHALL of 100 keys (per-class server, per test): " + summary(flush));
        }
    }

    private static byte[] sets(int n) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            String k = "key:" + i;
            sb.append("*3\r\n$3\r\nSET\r\n$").append(k.length()).append("\r\n").append(k).append("\r\n$5\r\nvalue\r\n");
        }
        return sb.toString().getBytes(StandardCharsets.US_ASCII);
    }

    private static Socket connect(int port) throws IOException {
        Socket s = new Socket("127.0.0.1", port);
        s.setTcpNoDelay(true);
        return s;
    }

    private static void send(Socket s, String command) throws IOException {
        OutputStream out = s.getOutputStream();
        out.write(("*1\r\n$" + command.length() + "\r\n" + command + "\r\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    private static void ping(Socket s) throws IOException {
        send(s, "PING");
        // Redis answers +PONG; jedis-mock answers a bulk string. Either is a PONG.
        String r = readReply(s);
        if (!r.equals("PONG")) throw new IOException("unexpected reply to PING: " + r);
    }

    /** Reads one simple, error, integer or bulk reply; returns its text. */
    private static String readReply(Socket s) throws IOException {
        InputStream in = s.getInputStream();
        String line = readLine(in);
        if (line.startsWith("-")) throw new IOException("error reply: " + line);
        if (!line.startsWith("$")) return line.substring(1);
        int n = Integer.parseInt(line.substring(1));
        if (n < 0) return null;
        byte[] buf = in.readNBytes(n + 2);
        if (buf.length < n + 2) throw new IOException("connection closed");
        return new String(buf, 0, n, StandardCharsets.UTF_8);
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder();
        int prev = -1;
        while (true) {
            int c = in.read();
            if (c < 0) throw new IOException("connection closed");
            if (prev == '\r' && c == '\n') {
                sb.setLength(sb.length() - 1);
                return sb.toString();
            }
            sb.append((char) c);
            prev = c;
        }
    }

    private static String summary(long[] nanos) {
        long[] s = nanos.clone();
        Arrays.sort(s);
        return String.format(Locale.ROOT, "median %.2f ms, p90 %.2f ms, max %.2f ms", s[s.length / 2] / 1e6,
                s[s.length * 9 / 10] / 1e6, s[s.length - 1] / 1e6);
    }
}
