package io.spinel.server.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The same commands sent to redis-server and Spinel, pipelined in batches, with every pair of
 * replies compared byte for byte. For randomized differential tests: queue commands with
 * {@link #send}, and {@link #flush} (or {@link #call}) to read and compare the replies.
 */
public final class TwinClients implements AutoCloseable {
    private static final int BATCH = 64;
    private static final int MAX_REPORTED = 10;

    private final RawClient redis;
    private final RawClient spinel;
    private final List<List<byte[]>> pending = new ArrayList<>();
    private final List<String> mismatches = new ArrayList<>();
    private int mismatchCount;
    private long commands;

    public TwinClients(int redisPort, int spinelPort) throws IOException {
        redis = new RawClient(redisPort);
        spinel = new RawClient(spinelPort);
    }

    /** Queues a command for both servers; replies are compared at the next flush. */
    public void send(List<byte[]> args) throws IOException {
        redis.send(args);
        spinel.send(args);
        pending.add(args);
        if (pending.size() >= BATCH) flush();
    }

    public void send(Object... args) throws IOException {
        send(toArgs(args));
    }

    /** Runs a command on both (after the queued ones) and returns redis-server's reply. */
    public byte[] call(Object... args) throws IOException {
        flush();
        List<byte[]> a = toArgs(args);
        byte[] expected = redis.call(a);
        byte[] actual = spinel.call(a);
        compare(a, expected, actual);
        commands++;
        return expected;
    }

    public void flush() throws IOException {
        for (List<byte[]> args : pending) {
            compare(args, redis.readReply(), spinel.readReply());
            commands++;
        }
        pending.clear();
    }

    private void compare(List<byte[]> args, byte[] expected, byte[] actual) {
        if (java.util.Arrays.equals(expected, actual)) return;
        mismatchCount++;
        if (mismatches.size() < MAX_REPORTED) {
            mismatches.add(describe(args) + "\n    redis:  " + DiffScript.show(expected) + "\n    spinel: "
                    + DiffScript.show(actual));
        }
    }

    private static String describe(List<byte[]> args) {
        StringBuilder sb = new StringBuilder();
        for (byte[] a : args) {
            if (sb.length() > 0) sb.append(' ');
            String s = new String(a, StandardCharsets.ISO_8859_1);
            sb.append(s.length() > 60 ? s.substring(0, 60) + "...(" + s.length() + ")" : s);
            if (sb.length() > 300) {
                sb.append(" ...");
                break;
            }
        }
        return sb.toString();
    }

    private static List<byte[]> toArgs(Object... args) {
        List<byte[]> out = new ArrayList<>(args.length);
        for (Object o : args) {
            if (o instanceof byte[]) out.add((byte[]) o);
            else out.add(String.valueOf(o).getBytes(StandardCharsets.UTF_8));
        }
        return out;
    }

    public long commands() {
        return commands;
    }

    public int mismatchCount() {
        return mismatchCount;
    }

    /** The first mismatches, described, or an empty string. */
    public String report() {
        return String.join("\n", mismatches);
    }

    @Override
    public void close() throws IOException {
        redis.close();
        spinel.close();
    }
}
