package io.spinel.server;

import io.spinel.server.testing.RawClient;
import io.spinel.server.testing.ServerPair;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Seeded random commands with random binary arguments (any byte, up to 200 bytes, up to 40
 * arguments) on Spinel and redis-server side by side, with a MONITOR client and the slow log
 * logging everything on each: the replies, every MONITOR line (time and client address masked)
 * and the slow log's entries (arguments, trimmed, client names and addresses; ids, times,
 * durations and port numbers masked) must be identical.
 */
class DiagnosticsRandomDiffTest {
    private static final int COMMANDS = 400;

    @RegisterExtension
    static final ServerPair servers = new ServerPair();

    /** One server: a client that runs the commands and one that monitors. */
    private static final class Side implements AutoCloseable {
        final RawClient c;
        final RawClient mon;

        Side(int port) throws IOException {
            c = new RawClient(port);
            mon = new RawClient(port);
            c.call("FLUSHALL");
            c.call("CONFIG", "SET", "slowlog-log-slower-than", "0");
            c.call("CONFIG", "SET", "slowlog-max-len", "128");
            c.call("SLOWLOG", "RESET");
            assertThat(new String(mon.call("MONITOR"), StandardCharsets.US_ASCII)).isEqualTo("+OK\r\n");
        }

        @Override
        public void close() throws IOException {
            c.call("CONFIG", "SET", "slowlog-log-slower-than", "10000");
            c.close();
            mon.close();
        }
    }

    private static byte[] randomBytes(Random r, int max) {
        byte[] b = new byte[r.nextInt(max + 1)];
        int kind = r.nextInt(3);
        for (int i = 0; i < b.length; i++) {
            // printable text, text with escapes, or any byte
            b[i] = kind == 0 ? (byte) (' ' + r.nextInt(95))
                    : kind == 1 ? (byte) "ab\"\\\n\r\t\u0007\b z".charAt(r.nextInt(11)) : (byte) r.nextInt(256);
        }
        return b;
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** A random command and how many MONITOR lines it produces. */
    private static List<byte[]> command(Random r, int[] monitorLines) {
        List<byte[]> a = new ArrayList<>();
        monitorLines[0] = 1;
        switch (r.nextInt(11)) {
            case 0:
                a.add(b("SET"));
                a.add(b("k" + r.nextInt(5)));
                a.add(randomBytes(r, 200));
                break;
            case 1: {
                a.add(b("SADD"));
                a.add(b("s" + r.nextInt(3)));
                int n = 1 + r.nextInt(40);
                for (int i = 0; i < n; i++) a.add(randomBytes(r, 10));
                break;
            }
            case 2:
                a.add(b("ECHO"));
                a.add(randomBytes(r, 160));
                break;
            case 3: {
                a.add(b("DEL"));
                int n = 1 + r.nextInt(36);
                for (int i = 0; i < n; i++) a.add(b("k" + r.nextInt(5)));
                break;
            }
            case 4:
                a.add(b("EVAL"));
                a.add(b("return redis.call('set', KEYS[1], ARGV[1])"));
                a.add(b("1"));
                a.add(b("k" + r.nextInt(5)));
                a.add(randomBytes(r, 140));
                monitorLines[0] = 2;
                break;
            case 5:
                a.add(b("CLIENT"));
                a.add(b("SETNAME"));
                a.add(b("name" + r.nextInt(4)));
                break;
            case 6:
                // administrative: logged, never shown to monitors
                a.add(b("CONFIG"));
                a.add(b("SET"));
                a.add(b("slowlog-max-len"));
                a.add(b(Integer.toString(r.nextInt(12))));
                monitorLines[0] = 0;
                break;
            case 7:
                a.add(b("AUTH"));
                a.add(randomBytes(r, 8));
                if (r.nextBoolean()) a.add(randomBytes(r, 8));
                break;
            case 8: {
                a.add(b("HSET"));
                a.add(b("h"));
                int n = 1 + r.nextInt(20);
                for (int i = 0; i < 2 * n; i++) a.add(randomBytes(r, 150));
                break;
            }
            case 9:
                // always refused (no such user, or a bad version): only the redaction differs
                a.add(b("HELLO"));
                a.add(b(new String[] {"2", "3", "4", "03"}[r.nextInt(4)]));
                a.add(b("AUTH"));
                a.add(b("nouser"));
                a.add(randomBytes(r, 8));
                break;
            default:
                a.add(b("GET"));
                a.add(b("k" + r.nextInt(5)));
                break;
        }
        return a;
    }

    /** A MONITOR line without its time and client address (scripts keep "lua"). */
    private static String masked(byte[] line) {
        return new String(line, StandardCharsets.ISO_8859_1)
                .replaceFirst("^\\+\\d+\\.\\d{6} \\[(\\d+) (?!lua\\])[^\\]]*\\]", "+T [$1 addr]")
                .replaceFirst("^\\+\\d+\\.\\d{6} ", "+T ");
    }

    @Test
    void monitorLinesAndSlowLogEntriesMatchRedis() throws Exception {
        Random r = new Random(20240607);
        try (Side red = new Side(servers.redis().port()); Side sp = new Side(servers.spinel().port())) {
            int[] lines = new int[1];
            for (int i = 0; i < COMMANDS; i++) {
                List<byte[]> cmd = command(r, lines);
                String what = "command " + i + ": " + new String(cmd.get(0), StandardCharsets.ISO_8859_1);
                byte[] expected = red.c.call(cmd);
                byte[] actual = sp.c.call(cmd);
                assertThat(new String(actual, StandardCharsets.ISO_8859_1)).as(what)
                        .isEqualTo(new String(expected, StandardCharsets.ISO_8859_1));
                for (int j = 0; j < lines[0]; j++) {
                    assertThat(masked(sp.mon.readReply())).as(what).isEqualTo(masked(red.mon.readReply()));
                }
                if (i % 20 == 19) compareSlowLogs(red, sp, what);
            }
            // nothing extra was shown to the monitors
            red.c.call("PING");
            sp.c.call("PING");
            assertThat(masked(sp.mon.readReply())).isEqualTo(masked(red.mon.readReply())).endsWith("\"PING\"\r\n");
        }
    }

    private static void compareSlowLogs(Side red, Side sp, String what) throws IOException {
        List<Object> expected = entries(red.c.call("SLOWLOG", "GET", "-1"));
        List<Object> actual = entries(sp.c.call("SLOWLOG", "GET", "-1"));
        assertThat(actual).as(what + ": slow log").isEqualTo(expected);
    }

    /** A SLOWLOG GET reply with ids, times and durations left out and TCP addresses masked. */
    @SuppressWarnings("unchecked")
    private static List<Object> entries(byte[] reply) {
        List<Object> all = (List<Object>) new Resp(reply).value();
        List<Object> out = new ArrayList<>();
        for (Object e : all) {
            List<Object> entry = (List<Object>) e;
            assertThat(entry).hasSize(6);
            out.add(List.of(entry.get(3), ((String) entry.get(4)).replaceFirst("^127\\.0\\.0\\.1:\\d+$", "addr"),
                    entry.get(5)));
        }
        return out;
    }

    /** Just enough RESP2 to read SLOWLOG GET. */
    private static final class Resp {
        private final byte[] b;
        private int p;

        Resp(byte[] b) {
            this.b = b;
        }

        private String line() {
            int start = p;
            while (b[p] != '\r') p++;
            String s = new String(b, start, p - start, StandardCharsets.ISO_8859_1);
            p += 2;
            return s;
        }

        Object value() {
            char t = (char) b[p++];
            String l = line();
            switch (t) {
                case '*': {
                    List<Object> list = new ArrayList<>();
                    for (int i = Integer.parseInt(l); i > 0; i--) list.add(value());
                    return list;
                }
                case '$': {
                    int n = Integer.parseInt(l);
                    String s = new String(b, p, n, StandardCharsets.ISO_8859_1);
                    p += n + 2;
                    return s;
                }
                default:
                    return t + l;
            }
        }
    }
}
