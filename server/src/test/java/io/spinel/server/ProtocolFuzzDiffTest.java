package io.spinel.server;

import io.spinel.server.testing.DualRun;
import io.spinel.server.testing.RawClient;
import io.spinel.server.testing.ServerPair;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Seeded random request bytes, each case on a fresh connection to redis-server and to Spinel:
 * well-formed multibulk and inline commands, and the same with bytes changed, cut, repeated or
 * inserted (lengths, CR and LF, quotes and escapes, signs), followed by an ECHO of a marker. Each
 * server's replies are read until the marker comes back, the server closes the connection (a
 * protocol error) or nothing more comes; the replies and how the exchange ended must be the same.
 * A malformed request must get Redis's error and only its own connection may suffer. Set
 * -Dfuzz.seed=N to replay a run.
 */
class ProtocolFuzzDiffTest {
    @RegisterExtension
    static final ServerPair servers = new ServerPair();

    private static final String MARKER = "*2\r\n$4\r\nECHO\r\n$6\r\nMARKER\r\n";
    private static final byte[] MARKER_REPLY = "$6\r\nMARKER\r\n".getBytes(StandardCharsets.ISO_8859_1);
    private static final String NOISE = "\r\n$*-+0123456789 \"'\\xq\t{}";
    private Random rnd;

    @Test
    void randomRequestBytes() throws IOException {
        long seed = Long.getLong("fuzz.seed", 17_2026L);
        rnd = new Random(seed);
        List<String> differences = new ArrayList<>();
        for (int i = 0; i < 300 && differences.size() < 20; i++) {
            StringBuilder req = new StringBuilder();
            int items = 1 + rnd.nextInt(3);
            for (int k = 0; k < items; k++) req.append(item());
            req.append(MARKER);
            byte[] bytes = req.toString().getBytes(StandardCharsets.ISO_8859_1);
            String redis = exchange(servers.redis().port(), bytes, SHORT_WAIT_MS);
            String spinel = exchange(servers.spinel().port(), bytes, SHORT_WAIT_MS);
            if (!redis.equals(spinel) && (redis.endsWith(NO_MORE) || spinel.endsWith(NO_MORE))) {
                // one server was slower than the short wait (a loaded machine): ask both again, patiently
                redis = exchange(servers.redis().port(), bytes, LONG_WAIT_MS);
                spinel = exchange(servers.spinel().port(), bytes, LONG_WAIT_MS);
            }
            if (!redis.equals(spinel)) {
                differences.add("case " + i + ": " + DualRun.show(bytes) + "\n    redis:  " + redis + "\n    spinel: " + spinel);
            }
        }
        // the servers still answer on a new connection
        try (RawClient r = new RawClient(servers.redis().port()); RawClient s = new RawClient(servers.spinel().port())) {
            if (!new String(s.call("PING"), StandardCharsets.ISO_8859_1).equals(new String(r.call("PING"), StandardCharsets.ISO_8859_1))) {
                differences.add("PING after the run differs");
            }
        }
        if (!differences.isEmpty()) fail(differences.size() + " differences (seed " + seed + "):\n" + String.join("\n", differences));
    }

    /** One request: well formed, or with a few bytes changed. */
    private String item() {
        String good = rnd.nextInt(3) == 0 ? inline() : multibulk();
        if (rnd.nextInt(3) > 0) return good;
        StringBuilder b = new StringBuilder(good);
        int changes = 1 + rnd.nextInt(2);
        for (int c = 0; c < changes && b.length() > 0; c++) {
            int at = rnd.nextInt(b.length());
            switch (rnd.nextInt(5)) {
                case 0:
                    b.setCharAt(at, NOISE.charAt(rnd.nextInt(NOISE.length())));
                    break;
                case 1:
                    b.insert(at, NOISE.charAt(rnd.nextInt(NOISE.length())));
                    break;
                case 2:
                    b.deleteCharAt(at);
                    break;
                case 3:
                    b.setLength(at); // cut short
                    break;
                default:
                    b.insert(at, new String[] {"-1", "99999999999", "0", "-", "2147483648", "\r\n"}[rnd.nextInt(6)]);
                    break;
            }
        }
        return b.toString();
    }

    private String[] command() {
        switch (rnd.nextInt(6)) {
            case 0:
                return new String[] {"PING"};
            case 1:
                return new String[] {"SET", "k" + rnd.nextInt(3), word()};
            case 2:
                return new String[] {"GET", "k" + rnd.nextInt(3)};
            case 3:
                return new String[] {"ECHO", word()};
            case 4:
                return new String[] {"RPUSH", "l", word(), word()};
            default:
                return new String[] {"STRLEN", "k" + rnd.nextInt(3)};
        }
    }

    private String word() {
        String[] w = {"v", "", "hello world", "a\"b", "x'y", "\\x41", "12", "-3", "\t", "caf\u00e9"};
        return w[rnd.nextInt(w.length)];
    }

    private String multibulk() {
        String[] c = command();
        StringBuilder b = new StringBuilder("*").append(c.length).append("\r\n");
        for (String a : c) b.append('$').append(a.length()).append("\r\n").append(a).append("\r\n");
        return b.toString();
    }

    private String inline() {
        String[] c = command();
        StringBuilder b = new StringBuilder();
        for (String a : c) {
            if (b.length() > 0) b.append(rnd.nextInt(5) == 0 ? "  " : " ");
            if (a.isEmpty() || a.contains(" ") || rnd.nextInt(4) == 0) {
                b.append('"').append(a.replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
            } else {
                b.append(a);
            }
        }
        return b.append(rnd.nextInt(4) == 0 ? "\n" : "\r\n").toString();
    }

    /** How long a reply is waited for before the exchange ends with {@link #NO_MORE}. */
    private static final int SHORT_WAIT_MS = 150, LONG_WAIT_MS = 2000;
    private static final String NO_MORE = "[no more replies]";

    /**
     * Sends the bytes on a new connection; the replies up to the marker, then how it ended (a
     * request left incomplete ends with no more replies after waitMs).
     */
    private static String exchange(int port, byte[] bytes, int waitMs) throws IOException {
        StringBuilder out = new StringBuilder();
        try (RawClient c = new RawClient(port)) {
            c.setTimeout(waitMs);
            c.sendRaw(bytes);
            for (int n = 0; n < 50; n++) {
                byte[] reply;
                try {
                    reply = c.readReply();
                } catch (SocketTimeoutException e) {
                    return out.append(NO_MORE).toString();
                } catch (IOException e) {
                    return out.append("[closed]").toString();
                }
                if (java.util.Arrays.equals(reply, MARKER_REPLY)) return out.append("[marker]").toString();
                out.append(DualRun.show(reply)).append(' ');
            }
            return out.append("[too many replies]").toString();
        }
    }
}
