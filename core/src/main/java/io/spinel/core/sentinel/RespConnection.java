package io.spinel.core.sentinel;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Consumer;

/**
 * One outbound client connection of a Sentinel (what hiredis's async context is to Redis's
 * Sentinel): commands are queued by the engine's thread and written by a writer thread, replies
 * are parsed by a reader thread and handed back to the engine's thread, in order, each to the
 * callback of its command. Nothing here touches Sentinel's state: the engine's thread owns it.
 *
 * <p>Replies are decoded as RESP2 values: {@link String} for simple strings and bulk strings
 * (ISO-8859-1, byte for byte), {@link Error} for errors, {@link Long} for integers, {@link List}
 * for arrays and null for null replies. On a pub/sub connection, messages that answer no command
 * go to the push handler.
 */
final class RespConnection {
    /** An error reply ("-ERR ..." without its minus sign). */
    record Error(String message) {
    }

    /** What the engine's thread hears about the connection. */
    interface Listener {
        /** A reply or message that no queued command waits for (pub/sub messages). */
        void pushed(RespConnection connection, Object message);

        /** The connection failed or closed; it is dead and will not call back again. */
        void closed(RespConnection connection, String why);
    }

    private static final byte[] END = {};
    private static final int CONNECT_TIMEOUT_MS = 5000;

    private final String host;
    private final int port;
    private final Executor engine;
    private final Listener listener;
    private final LinkedBlockingQueue<byte[]> outgoing = new LinkedBlockingQueue<>();
    /** Callbacks of the commands sent, in order; touched on the engine's thread only. */
    private final ArrayDeque<Consumer<Object>> callbacks = new ArrayDeque<>();
    private final Thread reader;
    private volatile Socket socket;
    private volatile boolean closed;
    /** Set once a subscription reply came: later unanswered arrays are messages. */
    private boolean subscribed;
    /** This side's address of the socket, once connected (hello messages announce it). */
    private volatile String localIp;

    /** What the connection is made with: TLS (tls-replication yes) or null, and bind-source-addr or "". */
    record Options(io.spinel.core.Tls tls, String sourceAddress) {
    }

    private final Options options;

    RespConnection(String host, int port, Options options, Executor engine, Listener listener, String name) {
        this.host = host;
        this.port = port;
        this.options = options;
        this.engine = engine;
        this.listener = listener;
        this.reader = new Thread(this::run, name);
        reader.setDaemon(true);
    }

    void start() {
        reader.start();
    }

    /** Queues a command; {@code onReply} runs on the engine's thread with its reply (null callback: discarded). */
    void send(Consumer<Object> onReply, String... args) {
        if (closed) return;
        callbacks.addLast(onReply == null ? r -> { } : onReply);
        outgoing.add(encode(args));
    }

    /** Marks the connection as one that receives pub/sub messages. */
    void expectPushes() {
        subscribed = true;
    }

    String localIp() {
        return localIp;
    }

    /** Closes it (from the engine's thread): no callback runs afterwards. */
    void close() {
        if (closed) return;
        closed = true;
        outgoing.add(END);
        Socket s = socket;
        if (s != null) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing is all that is left to do
            }
        }
        reader.interrupt();
    }

    boolean isClosed() {
        return closed;
    }

    private static byte[] encode(String... args) {
        StringBuilder sb = new StringBuilder();
        sb.append('*').append(args.length).append("\r\n");
        for (String a : args) {
            byte[] b = a.getBytes(StandardCharsets.ISO_8859_1);
            sb.append('$').append(b.length).append("\r\n").append(a).append("\r\n");
        }
        return sb.toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    private void run() {
        String why = "connection closed";
        Socket s = new Socket();
        try {
            socket = s;
            if (closed) return;
            if (!options.sourceAddress().isEmpty()) s.bind(new InetSocketAddress(options.sourceAddress(), 0));
            s.connect(new InetSocketAddress(host, port), CONNECT_TIMEOUT_MS);
            s.setTcpNoDelay(true);
            s.setKeepAlive(true);
            localIp = s.getLocalAddress().getHostAddress();
            if (options.tls() != null) {
                s = options.tls().overTls(s, host, port);
                socket = s;
                if (closed) return;
            }
            Socket connected = s;
            Thread writer = new Thread(() -> write(connected), reader.getName() + "-writer");
            writer.setDaemon(true);
            writer.start();
            InputStream in = new BufferedInputStream(s.getInputStream(), 16 * 1024);
            while (!closed) {
                Object reply = read(in);
                toEngine(() -> deliver(reply));
            }
        } catch (IOException | RuntimeException e) {
            why = e.getMessage() == null ? e.toString() : e.getMessage();
        } finally {
            try {
                s.close();
            } catch (IOException ignored) {
                // already lost
            }
            outgoing.add(END);
            String reason = why;
            toEngine(() -> {
                if (closed) return;
                closed = true;
                listener.closed(this, reason);
            });
        }
    }

    private void toEngine(Runnable task) {
        try {
            engine.execute(task);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            closed = true; // the server stopped: nobody is left to tell
        }
    }

    private void write(Socket s) {
        try {
            OutputStream out = s.getOutputStream();
            while (true) {
                byte[] b = outgoing.take();
                if (b == END) return;
                out.write(b);
                // several queued commands (MULTI ... EXEC) go in one write
                byte[] next;
                while ((next = outgoing.peek()) != null && next != END) {
                    out.write(outgoing.poll());
                }
                out.flush();
            }
        } catch (IOException | InterruptedException e) {
            try {
                s.close(); // the reader sees the loss and reports it
            } catch (IOException ignored) {
                // already lost
            }
        }
    }

    /** On the engine's thread: the reply goes to its command, or to the listener as a message. */
    private void deliver(Object reply) {
        if (closed) return;
        if (subscribed && reply instanceof List<?> l && !l.isEmpty() && isMessage(l.get(0))) {
            listener.pushed(this, reply);
            return;
        }
        Consumer<Object> cb = callbacks.pollFirst();
        if (cb != null) cb.accept(reply);
        else listener.pushed(this, reply);
    }

    private static boolean isMessage(Object kind) {
        return "message".equals(kind) || "pmessage".equals(kind);
    }

    int pendingReplies() {
        return callbacks.size();
    }

    // ---- RESP2 decoding -----------------------------------------------------------------------

    private static Object read(InputStream in) throws IOException {
        int type = in.read();
        if (type < 0) throw new EOFException("connection closed by peer");
        String line = readLine(in);
        switch (type) {
            case '+':
                return line;
            case '-':
                return new Error(line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int n = Integer.parseInt(line);
                if (n < 0) return null;
                byte[] b = in.readNBytes(n);
                if (b.length < n) throw new EOFException("connection closed by peer");
                readLine(in);
                return new String(b, StandardCharsets.ISO_8859_1);
            }
            case '*': {
                int n = Integer.parseInt(line);
                if (n < 0) return null;
                List<Object> items = new ArrayList<>(n);
                for (int i = 0; i < n; i++) items.add(read(in));
                return items;
            }
            default:
                throw new IOException("Protocol error, got '" + (char) type + "' as reply type byte");
        }
    }

    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream(32);
        while (true) {
            int c = in.read();
            if (c < 0) throw new EOFException("connection closed by peer");
            if (c == '\r') {
                in.read(); // '\n'
                return b.toString(StandardCharsets.ISO_8859_1);
            }
            b.write(c);
        }
    }
}
