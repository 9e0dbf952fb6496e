package io.spinel.bench.jmh;

import io.spinel.core.Client;
import io.spinel.core.Engine;
import io.spinel.core.Log;
import io.spinel.core.config.Config;
import io.spinel.core.protocol.RespReader;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * An engine driven on the benchmark thread the way the Netty transport drives it (ClientHandler):
 * request bytes are copied into the client's query buffer, {@link Engine#processInput} runs every
 * complete command, {@link Engine#flushPending} hands the replies to the connection. The benchmark
 * thread plays the event loop, so nothing is handed between threads and nothing but the request
 * path is measured. The periodic cron is not started (it would run on another thread).
 */
final class InProcessServer implements AutoCloseable {
    private final ScheduledExecutorService unusedLoop = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "jmh-unused-loop");
        t.setDaemon(true);
        return t;
    });
    final Engine engine;
    final Client client;
    final ReplyCapture connection = new ReplyCapture();

    InProcessServer() {
        this(new String[0]);
    }

    /** With options set after the defaults, name and value in turn ("cluster-enabled", "yes", ...). */
    InProcessServer(String... options) {
        Config config = new Config();
        try {
            config.set("save", ""); // as embedded: no save points, so persistence stays out of the way
            for (int i = 0; i + 1 < options.length; i += 2) config.set(options[i], options[i + 1]);
        } catch (Config.ConfigException e) {
            throw new IllegalStateException(e);
        }
        engine = new Engine(config, unusedLoop, () -> true, Log.silent());
        engine.persistence().startUp(false);
        client = engine.connect(connection);
        if (client == null) throw new IllegalStateException("engine refused the connection");
    }

    /** Feeds one read's worth of bytes and runs it, as one channelRead + channelReadComplete. */
    void feed(byte[] request) {
        feed(client, request);
    }

    /** Another connection, e.g. one that blocks or WATCHes while the benchmark client works. */
    Client connectOther() {
        Client c = engine.connect(new ReplyCapture());
        if (c == null) throw new IllegalStateException("engine refused the connection");
        return c;
    }

    void feed(Client client, byte[] request) {
        RespReader reader = client.reader();
        byte[] dst = reader.writable(request.length);
        System.arraycopy(request, 0, dst, reader.writeOffset(), request.length);
        reader.commit(request.length);
        engine.processInput(client);
        engine.flushPending();
    }

    /** Runs a command and returns its reply as text (set-up and sanity checks, not measured). */
    String call(String... args) {
        connection.reset();
        feed(encode(args));
        return connection.text();
    }

    /** Runs the request and fails unless the reply is exactly {@code expected}. */
    void expect(byte[] request, String expected) {
        connection.reset();
        feed(request);
        String got = connection.text();
        if (!got.equals(expected)) {
            throw new IllegalStateException("benchmark request " + show(new String(request, StandardCharsets.UTF_8))
                    + " replied " + show(got) + ", expected " + show(expected));
        }
    }

    private static String show(String s) {
        return "\"" + s.replace("\r", "\\r").replace("\n", "\\n") + "\"";
    }

    static byte[] encode(String... args) {
        StringBuilder sb = new StringBuilder().append('*').append(args.length).append("\r\n");
        for (String a : args) {
            sb.append('$').append(a.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(a).append("\r\n");
        }
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) n += p.length;
        byte[] out = new byte[n];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, out, at, p.length);
            at += p.length;
        }
        return out;
    }

    @Override
    public void close() {
        engine.closeClient(client);
        unusedLoop.shutdownNow();
    }

    /**
     * The transport side: keeps the latest replies in a reused array (no allocation once warm), as
     * a socket would copy them into its own buffer.
     */
    static final class ReplyCapture implements Client.Connection {
        private byte[] buf = new byte[4096];
        private int len;
        long bytes;

        void reset() {
            len = 0;
        }

        String text() {
            return new String(buf, 0, len, StandardCharsets.UTF_8);
        }

        @Override
        public void write(byte[] b, int off, int n) {
            bytes += n;
            if (len + n > buf.length) {
                // only the latest replies are kept: they are what the sanity checks read
                if (n > buf.length) buf = Arrays.copyOf(buf, Math.max(n, buf.length * 2));
                len = 0;
            }
            System.arraycopy(b, off, buf, len, n);
            len += n;
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }

        @Override
        public String remoteAddress() {
            return "127.0.0.1:40000";
        }

        @Override
        public String localAddress() {
            return "127.0.0.1:0"; // in-process: no socket
        }
    }
}
