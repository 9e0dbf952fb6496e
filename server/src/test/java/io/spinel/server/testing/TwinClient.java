package io.spinel.server.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * One role (a connection) played on redis-server and on Spinel at once: every call goes to both,
 * and every reply or pushed message that differs is added to a shared list of differences, for
 * tests where several connections interact (pub/sub, client-side caching).
 */
public final class TwinClient implements AutoCloseable {
    public final RawClient r;
    public final RawClient s;
    private final List<String> diffs;

    public TwinClient(int redisPort, int spinelPort, List<String> diffs) throws IOException {
        this.r = new RawClient(redisPort);
        this.s = new RawClient(spinelPort);
        this.diffs = diffs;
    }

    /** Sends a command to both and compares the replies. */
    public void call(String... args) throws IOException {
        compare(String.join(" ", args), r.call(bytes(args)), s.call(bytes(args)));
    }

    /** Sends a command to both without reading a reply. */
    public void send(String... args) throws IOException {
        r.send(bytes(args));
        s.send(bytes(args));
    }

    /** Reads one reply (or pushed message) from each and compares. */
    public void read(String what) throws IOException {
        compare(what, r.readReply(), s.readReply());
    }

    /** The client id on each server (redis-server's first), e.g. to REDIRECT to. */
    public String[] ids() throws IOException {
        return new String[] {idOf(r), idOf(s)};
    }

    private static String idOf(RawClient c) throws IOException {
        String reply = new String(c.call(bytes("CLIENT", "ID")), StandardCharsets.US_ASCII);
        return reply.substring(1).trim();
    }

    private void compare(String what, byte[] a, byte[] b) {
        String sa = new String(a, StandardCharsets.ISO_8859_1);
        String sb = new String(b, StandardCharsets.ISO_8859_1);
        if (!sa.equals(sb)) {
            diffs.add(what + "\n  redis:  " + sa.replace("\r\n", "\\r\\n") + "\n  spinel: " + sb.replace("\r\n", "\\r\\n"));
        }
    }

    public static List<byte[]> bytes(String... args) {
        List<byte[]> l = new ArrayList<>();
        for (String a : args) l.add(a.getBytes(StandardCharsets.UTF_8));
        return l;
    }

    @Override
    public void close() throws IOException {
        r.close();
        s.close();
    }
}
