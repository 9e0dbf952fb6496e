package io.spinel.server.testing;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A minimal RESP client for tests that need the raw bytes of replies: sends commands as RESP
 * arrays (or raw bytes), reads back exactly one complete reply (RESP2 or RESP3) at a time.
 */
public final class RawClient implements AutoCloseable {
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    public RawClient(String host, int port) throws IOException {
        socket = new Socket();
        socket.connect(new InetSocketAddress(host, port), 2000);
        socket.setSoTimeout(10_000);
        socket.setTcpNoDelay(true);
        in = new BufferedInputStream(socket.getInputStream());
        out = socket.getOutputStream();
    }

    /** Over a socket already connected (a TLS session, say). */
    public RawClient(Socket connected) throws IOException {
        socket = connected;
        socket.setSoTimeout(10_000);
        in = new BufferedInputStream(socket.getInputStream());
        out = socket.getOutputStream();
    }

    public RawClient(int port) throws IOException {
        this("127.0.0.1", port);
    }

    public void setTimeout(int millis) throws IOException {
        socket.setSoTimeout(millis);
    }

    public static byte[] encode(List<byte[]> args) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(("*" + args.size() + "\r\n").getBytes(StandardCharsets.US_ASCII));
        for (byte[] a : args) {
            b.writeBytes(("$" + a.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            b.writeBytes(a);
            b.writeBytes(new byte[] {'\r', '\n'});
        }
        return b.toByteArray();
    }

    public void send(List<byte[]> args) throws IOException {
        out.write(encode(args));
        out.flush();
    }

    public void sendRaw(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    public void sendRaw(String s) throws IOException {
        sendRaw(s.getBytes(StandardCharsets.ISO_8859_1));
    }

    /** Sends a command and returns its raw reply. */
    public byte[] call(List<byte[]> args) throws IOException {
        send(args);
        return readReply();
    }

    public byte[] call(String... args) throws IOException {
        List<byte[]> l = new ArrayList<>();
        for (String a : args) l.add(a.getBytes(StandardCharsets.UTF_8));
        return call(l);
    }

    /** The reply as a string (latin-1), e.g. "+OK\r\n". */
    public String callString(String... args) throws IOException {
        return new String(call(args), StandardCharsets.ISO_8859_1);
    }

    /** Reads one complete reply and returns its bytes. */
    public byte[] readReply() throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        readValue(b);
        return b.toByteArray();
    }

    /** True if the server closed the connection (reads until EOF or timeout). */
    public boolean isClosedByPeer() {
        try {
            return in.read() == -1;
        } catch (IOException e) {
            return e.getMessage() != null && e.getMessage().contains("reset");
        }
    }

    private String readLine(ByteArrayOutputStream b) throws IOException {
        StringBuilder sb = new StringBuilder();
        int prev = -1;
        while (true) {
            int c = in.read();
            if (c == -1) throw new IOException("connection closed by server");
            b.write(c);
            if (prev == '\r' && c == '\n') break;
            sb.append((char) c);
            prev = c;
        }
        return sb.substring(0, sb.length() - 1);
    }

    private void readValue(ByteArrayOutputStream b) throws IOException {
        String line = readLine(b);
        if (line.isEmpty()) throw new IOException("empty reply line");
        char t = line.charAt(0);
        String rest = line.substring(1);
        switch (t) {
            case '+': case '-': case ':': case ',': case '#': case '_': case '(':
                return;
            case '$': case '=': case '!': {
                int n = Integer.parseInt(rest);
                if (n < 0) return;
                for (int i = 0; i < n + 2; i++) {
                    int c = in.read();
                    if (c == -1) throw new IOException("connection closed by server");
                    b.write(c);
                }
                return;
            }
            case '*': case '~': case '>': {
                int n = Integer.parseInt(rest);
                for (int i = 0; i < n; i++) readValue(b);
                return;
            }
            case '%': case '|': {
                int n = Integer.parseInt(rest);
                for (int i = 0; i < 2 * n; i++) readValue(b);
                return;
            }
            default:
                throw new IOException("unexpected reply type: " + line);
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
