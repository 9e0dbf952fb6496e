package io.spinel.server;

import io.spinel.server.testing.RawClient;
import io.spinel.server.testing.ServerPair;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Seeded random list workloads run against Spinel and redis-server side by side; every reply must
 * be byte-identical. Values come from a small alphabet so that LREM, LPOS and LINSERT find
 * matches, with some long ones so that lists span many nodes, and each run uses a different
 * list-max-listpack-size so that node splits and merges are exercised under every limit kind.
 * Every ten commands the DUMP payload of every key is compared too: it lists the quicklist's nodes,
 * so Spinel must split and merge them exactly where Redis does.
 */
class ListRandomDiffTest {
    private static final String[] KEYS = {"l0", "l1", "l2", "l3", "l4"};
    private static final int COMMANDS = 3000;

    @RegisterExtension
    static final ServerPair servers = new ServerPair();

    @ParameterizedTest(name = "seed {0}, list-max-listpack-size {1}")
    @CsvSource({"1, -2", "2, 3", "3, -1", "4, 1", "5, -5", "6, 2", "7, -3"})
    void randomListCommandsMatchRedis(long seed, int fill) throws IOException {
        try (RawClient r = new RawClient(servers.redis().port()); RawClient s = new RawClient(servers.spinel().port())) {
            for (RawClient c : new RawClient[] {r, s}) {
                c.call("FLUSHALL");
                c.call("CONFIG", "SET", "list-max-listpack-size", Integer.toString(fill));
            }
            Random rnd = new Random(seed);
            List<String> log = new ArrayList<>();
            for (int i = 0; i < COMMANDS; i++) {
                if (i == COMMANDS / 2) {
                    // second half in RESP3 (the HELLO reply itself carries the client id: not compared)
                    r.call("HELLO", "3");
                    s.call("HELLO", "3");
                }
                List<byte[]> cmd = randomCommand(rnd);
                log.add(show(cmd));
                byte[] expected = r.call(cmd);
                byte[] actual = s.call(cmd);
                if (!Arrays.equals(expected, actual)) {
                    int from = Math.max(0, log.size() - 15);
                    fail("seed " + seed + ", command #" + i + ": " + show(cmd) + "\n  redis:  " + text(expected)
                            + "\n  spinel: " + text(actual) + "\n  preceding commands:\n    "
                            + String.join("\n    ", log.subList(from, log.size())));
                }
                if (i % 10 == 9) {
                    // the quicklists' nodes, split and merged as Redis's are: DUMP, byte for byte
                    for (String k : KEYS) {
                        byte[] dr = r.call("DUMP", k);
                        byte[] ds = s.call("DUMP", k);
                        if (!Arrays.equals(dr, ds)) {
                            int from = Math.max(0, log.size() - 15);
                            fail("seed " + seed + ", after command #" + i + ": DUMP " + k + "\n  redis:  " + text(dr)
                                    + "\n  spinel: " + text(ds) + "\n  preceding commands:\n    "
                                    + String.join("\n    ", log.subList(from, log.size())));
                        }
                    }
                }
            }
            for (String k : KEYS) {
                byte[] expected = r.call("LRANGE", k, "0", "-1");
                byte[] actual = s.call("LRANGE", k, "0", "-1");
                if (!Arrays.equals(expected, actual)) fail("final contents of " + k + " differ");
                // the quicklist's nodes, split and merged as Redis's are: its DUMP payload, byte for byte
                expected = r.call("DUMP", k);
                actual = s.call("DUMP", k);
                if (!Arrays.equals(expected, actual)) fail("DUMP of " + k + " differs:\n  redis:  " + text(expected) + "\n  spinel: " + text(actual));
            }
            for (RawClient c : new RawClient[] {r, s}) c.call("CONFIG", "SET", "list-max-listpack-size", "-2");
        }
    }

    private static List<byte[]> randomCommand(Random rnd) {
        List<String> a = new ArrayList<>();
        String k = key(rnd);
        switch (rnd.nextInt(24)) {
            case 0:
            case 1:
            case 2: {
                a.add(rnd.nextBoolean() ? "RPUSH" : "LPUSH");
                a.add(k);
                int n = 1 + rnd.nextInt(rnd.nextInt(8) == 0 ? 40 : 4);
                for (int i = 0; i < n; i++) a.add(value(rnd));
                break;
            }
            case 3:
                a.add(rnd.nextBoolean() ? "RPUSHX" : "LPUSHX");
                a.add(k);
                a.add(value(rnd));
                break;
            case 4:
            case 5:
                a.add(rnd.nextBoolean() ? "LPOP" : "RPOP");
                a.add(k);
                if (rnd.nextInt(3) > 0) a.add(count(rnd));
                break;
            case 6:
                a.add("LMPOP");
                int n = 1 + rnd.nextInt(3);
                a.add(Integer.toString(n));
                for (int i = 0; i < n; i++) a.add(key(rnd));
                a.add(rnd.nextBoolean() ? "LEFT" : "RIGHT");
                if (rnd.nextBoolean()) {
                    a.add("COUNT");
                    a.add(count(rnd));
                }
                break;
            case 7:
            case 8:
                a.add("LRANGE");
                a.add(k);
                a.add(index(rnd));
                a.add(index(rnd));
                break;
            case 9:
                a.add("LINDEX");
                a.add(k);
                a.add(index(rnd));
                break;
            case 10:
                a.add("LSET");
                a.add(k);
                a.add(index(rnd));
                a.add(value(rnd));
                break;
            case 11:
                a.add("LINSERT");
                a.add(k);
                a.add(rnd.nextInt(20) == 0 ? "ASIDE" : rnd.nextBoolean() ? "BEFORE" : "AFTER");
                a.add(value(rnd));
                a.add(value(rnd));
                break;
            case 12:
                a.add("LREM");
                a.add(k);
                a.add(Integer.toString(rnd.nextInt(7) - 3));
                a.add(value(rnd));
                break;
            case 13:
                if (rnd.nextInt(4) > 0) break; // LTRIM empties lists fast: keep it rarer
                a.add("LTRIM");
                a.add(k);
                a.add(index(rnd));
                a.add(index(rnd));
                break;
            case 14:
            case 15: {
                a.add("LPOS");
                a.add(k);
                a.add(value(rnd));
                if (rnd.nextBoolean()) {
                    a.add("RANK");
                    a.add(Integer.toString(rnd.nextInt(7) - 3));
                }
                if (rnd.nextBoolean()) {
                    a.add("COUNT");
                    a.add(Integer.toString(rnd.nextInt(4)));
                }
                if (rnd.nextInt(3) == 0) {
                    a.add("MAXLEN");
                    a.add(Integer.toString(rnd.nextInt(10)));
                }
                break;
            }
            case 16:
            case 17:
                a.add("LMOVE");
                a.add(k);
                a.add(key(rnd));
                a.add(rnd.nextBoolean() ? "LEFT" : "RIGHT");
                a.add(rnd.nextBoolean() ? "LEFT" : "RIGHT");
                break;
            case 18:
                a.add("RPOPLPUSH");
                a.add(k);
                a.add(key(rnd));
                break;
            case 19:
                a.add("LLEN");
                a.add(k);
                break;
            case 20:
                a.add("SET");
                a.add("str");
                a.add(value(rnd));
                break;
            case 21:
                a.add("DEL");
                a.add(k);
                break;
            case 22:
                a.add("TYPE");
                a.add(k);
                break;
            default:
                a.add("LRANGE");
                a.add(k);
                a.add("0");
                a.add("-1");
                break;
        }
        if (a.isEmpty()) {
            a.add("LLEN");
            a.add(k);
        }
        List<byte[]> out = new ArrayList<>();
        for (String s : a) out.add(s.getBytes(StandardCharsets.ISO_8859_1));
        return out;
    }

    /** Mostly the five list keys; now and then the string key (WRONGTYPE) or a missing one. */
    private static String key(Random rnd) {
        int x = rnd.nextInt(40);
        if (x == 0) return "str";
        if (x == 1) return "missing";
        return KEYS[x % KEYS.length];
    }

    private static String value(Random rnd) {
        int x = rnd.nextInt(40);
        if (x == 0) return "v".repeat(100 + rnd.nextInt(200));
        if (x == 1) return "w".repeat(5000 + rnd.nextInt(15000));
        if (x == 2) return "";
        if (x == 3) return "\u0000\r\n\u00ff";
        if (x < 10) return Integer.toString(rnd.nextInt(1000) - 500);
        return Character.toString((char) ('a' + rnd.nextInt(6)));
    }

    private static String index(Random rnd) {
        int x = rnd.nextInt(30);
        if (x == 0) return "9223372036854775807";
        if (x == 1) return "-9223372036854775808";
        if (x == 2) return "notanumber";
        return Integer.toString(rnd.nextInt(61) - 30);
    }

    private static String count(Random rnd) {
        int x = rnd.nextInt(30);
        if (x == 0) return "-1";
        if (x == 1) return "0";
        if (x == 2) return "9223372036854775807";
        if (x == 3) return "x";
        return Integer.toString(1 + rnd.nextInt(rnd.nextBoolean() ? 3 : 30));
    }

    private static String show(List<byte[]> cmd) {
        StringBuilder sb = new StringBuilder();
        for (byte[] b : cmd) {
            if (sb.length() > 0) sb.append(' ');
            String s = new String(b, StandardCharsets.ISO_8859_1);
            sb.append(s.length() > 40 ? s.substring(0, 20) + "...(" + s.length() + ")" : s);
        }
        return sb.toString();
    }

    private static String text(byte[] b) {
        String s = new String(b, StandardCharsets.ISO_8859_1).replace("\r\n", "\\r\\n");
        return s.length() > 300 ? s.substring(0, 300) + "..." : s;
    }
}
