package io.spinel.server;

import io.spinel.server.testing.DualRun;
import io.spinel.server.testing.ServerPair;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Seeded random string commands over a few keys, run on redis-server and Spinel side by side,
 * replies compared byte for byte. Values mix canonical and non-canonical integers (the "int"
 * encoding and the parse errors of INCR and INCRBYFLOAT), strings on both sides of the embstr
 * limit (44 bytes), bytes 0-255, and now and then a value of 33-40 KB, which Spinel may receive
 * into native memory and must turn back into an ordinary value before APPEND, SETRANGE, INCR
 * and the rest touch it. OBJECT ENCODING and DUMP (the RDB string encodings: integer, LZF,
 * plain) are compared along the way, and TTLs are whole seconds far from a rounding boundary (EXAT and PXAT only in the past). Set
 * -Dfuzz.seed=N to replay a run.
 */
class StringRandomDiffTest {
    @RegisterExtension
    static final ServerPair servers = new ServerPair();

    private static final String[] KEYS = {"s0", "s1", "s2", "s3"};
    private static final String[] ODD_NUMBERS = {"007", "+5", "-0", " 3", "3 ", "1e3", "10.5", "1.", ".5",
        "inf", "-inf", "nan", "0x10", "", "-", "9223372036854775808", "-9223372036854775809", "1 2",
        "3.0e-2", "1" + "0".repeat(30), "-1.5e308", "5e-324", "\u0000"};
    private Random rnd;

    private String key() {
        int r = rnd.nextInt(30);
        if (r == 0) return "list";
        if (r == 1) return "missing";
        return KEYS[rnd.nextInt(KEYS.length)];
    }

    private String value() {
        switch (rnd.nextInt(12)) {
            case 0:
            case 1:
                return Long.toString(rnd.nextInt(2001) - 1000);
            case 2:
                return Long.toString(rnd.nextBoolean() ? Long.MAX_VALUE - rnd.nextInt(3) : Long.MIN_VALUE + rnd.nextInt(3));
            case 3:
                return ODD_NUMBERS[rnd.nextInt(ODD_NUMBERS.length)];
            case 4:
                return String.format("%.6f", rnd.nextDouble() * 200 - 100);
            case 5:
                return bytes(43 + rnd.nextInt(4)); // either side of embstr's 44
            case 6:
                return bytes(rnd.nextInt(200));
            case 7:
                return rnd.nextInt(20) == 0 ? big() : "v" + rnd.nextInt(10);
            default:
                return "v" + rnd.nextInt(10);
        }
    }

    /** A 33-40 KB value: above the size Spinel may keep outside the heap. Compressible or not. */
    private String big() {
        int n = 33_000 + rnd.nextInt(7_000);
        if (rnd.nextBoolean()) return "ab".repeat(n / 2);
        return bytes(n);
    }

    private String bytes(int n) {
        StringBuilder sb = new StringBuilder(n);
        for (int i = 0; i < n; i++) sb.append((char) (rnd.nextInt(4) == 0 ? rnd.nextInt(256) : 'a' + rnd.nextInt(26)));
        return sb.toString();
    }

    private String index() {
        switch (rnd.nextInt(6)) {
            case 0:
                return Integer.toString(-rnd.nextInt(60));
            case 1:
                return new String[] {"-9223372036854775808", "9223372036854775807", "x", "1.5"}[rnd.nextInt(4)];
            default:
                return Integer.toString(rnd.nextInt(60));
        }
    }

    /**
     * An expire time that both servers refuse (a short valid one would expire on each server at
     * a slightly different step of the run).
     */
    private String badTtl() {
        return new String[] {"0", "-5", "x", "1.5", "", "9223372036854775807", "-9223372036854775808",
            "9223372036854775"}[rnd.nextInt(8)];
    }

    @Test
    void randomStringCommands() throws IOException {
        long seed = Long.getLong("fuzz.seed", 12_2026L);
        rnd = new Random(seed);
        try (DualRun d = new DualRun(servers.redis().port(), servers.spinel().port(), "string fuzz seed " + seed)) {
            d.both("FLUSHALL");
            d.both("RPUSH", "list", "a", "b");
            try {
                for (int step = 0; step < 8000; step++) {
                    d.setStep(step);
                    one(d);
                    if (step % 2000 == 1999) {
                        for (String k : KEYS) {
                            d.same("GET", k);
                            d.same("OBJECT", "ENCODING", k);
                        }
                        d.both("FLUSHALL");
                        d.both("RPUSH", "list", "a", "b");
                    }
                }
            } finally {
                d.both("HELLO", "2");
            }
            if (!d.mismatches().isEmpty()) {
                List<String> shown = new ArrayList<>();
                for (String m : d.mismatches()) shown.add(m.length() > 600 ? m.substring(0, 600) + "..." : m);
                fail(d.mismatches().size() + " differences:\n" + String.join("\n", shown));
            }
        }
    }

    /**
     * DUMP of strings shaped for the corners of LZF (RDB compresses strings over 20 bytes): runs
     * of every period, matches that reach the input's last bytes (liblzf stops them two bytes
     * short, or runs its unrolled comparison past that), matches longer than 264 bytes, distances
     * about 8 KB, literal runs of 32 and more, and strings that do not shrink by 4 bytes (stored
     * plain); then small hashes, sorted sets and lists, whose listpacks are compressed alike.
     * Redis's payload bytes, exactly.
     */
    @Test
    void dumpPayloadsAreRedisBytes() throws IOException {
        rnd = new Random(Long.getLong("fuzz.seed", 13_2026L));
        try (DualRun d = new DualRun(servers.redis().port(), servers.spinel().port(), "lzf dump")) {
            d.both("FLUSHALL");
            List<String> values = new ArrayList<>();
            for (int len = 21; len <= 90; len++) {
                for (int period = 1; period <= 12; period++) values.add(periodic(len, period, 0));
                values.add(bytes(len - 19) + "x".repeat(19)); // a run ending 0-19 bytes from the end
                values.add("abcdefghij".repeat(2) + bytes(len - 20));
                String head = bytes(len / 2);
                values.add((head + head + head).substring(0, len)); // a match to the very end
                values.add((head + "." + head + head).substring(0, len));
            }
            for (int len : new int[] {263, 264, 265, 266, 267, 300, 530, 531, 1000}) values.add(periodic(len, 3, 1));
            for (int gap : new int[] {8180, 8189, 8190, 8191, 8192, 8193, 8200}) {
                String word = bytes(40);
                values.add(word + bytes(gap - 40) + word + bytes(30));
            }
            for (int i = 0; i < 300; i++) values.add(mostlyRepeats(21 + rnd.nextInt(rnd.nextBoolean() ? 100 : 5000)));
            for (int i = 0; i < values.size(); i++) {
                d.setStep(i);
                d.both("SET", "v", values.get(i));
                d.same("DUMP", "v");
            }
            // the listpack encodings are RDB strings too, compressed the same way
            for (int i = 0; i < 100; i++) {
                d.setStep(values.size() + i);
                d.both("DEL", "h", "z", "l");
                int n = 1 + rnd.nextInt(40);
                for (int j = 0; j < n; j++) {
                    String m = rnd.nextInt(3) == 0 ? Integer.toString(rnd.nextInt(100_000) - 500) : "m" + rnd.nextInt(50) + bytes(rnd.nextInt(12));
                    d.both("HSET", "h", m, rnd.nextBoolean() ? m : bytes(rnd.nextInt(30)));
                    d.both("ZADD", "z", rnd.nextBoolean() ? Integer.toString(rnd.nextInt(100)) : Double.toString(rnd.nextGaussian()), m);
                    d.both("RPUSH", "l", m);
                }
                d.same("DUMP", "h");
                d.same("DUMP", "z");
                d.same("DUMP", "l");
            }
            if (!d.mismatches().isEmpty()) {
                List<String> shown = new ArrayList<>();
                for (String m : d.mismatches()) shown.add(m.length() > 600 ? m.substring(0, 600) + "..." : m);
                fail(d.mismatches().size() + " differences:\n" + String.join("\n", shown));
            }
        }
    }

    /** len bytes repeating a random pattern of the given period, with a few changed bytes. */
    private String periodic(int len, int period, int changes) {
        String unit = bytes(period);
        StringBuilder sb = new StringBuilder(len);
        while (sb.length() < len) sb.append(unit);
        sb.setLength(len);
        for (int i = 0; i < changes; i++) sb.setCharAt(rnd.nextInt(len), (char) rnd.nextInt(256));
        return sb.toString();
    }

    /** Pieces copied from earlier in the string, some short, some long, with bytes between. */
    private String mostlyRepeats(int len) {
        StringBuilder sb = new StringBuilder(bytes(1 + rnd.nextInt(8)));
        while (sb.length() < len) {
            if (rnd.nextInt(3) == 0) {
                sb.append(bytes(1 + rnd.nextInt(40)));
            } else {
                int from = rnd.nextInt(sb.length());
                int n = Math.min(1 + rnd.nextInt(rnd.nextBoolean() ? 8 : 300), sb.length() - from);
                sb.append(sb, from, from + n);
            }
        }
        sb.setLength(len);
        return sb.toString();
    }

    private void one(DualRun d) throws IOException {
        String k = key();
        int op = rnd.nextInt(100);
        if (op < 14) {
            set(d, k);
        } else if (op < 22) {
            d.same("GET", k);
        } else if (op < 26) {
            d.same("APPEND", k, value());
        } else if (op < 30) {
            d.same("SETRANGE", k, rnd.nextInt(8) == 0 ? index() : Integer.toString(rnd.nextInt(50)), value());
        } else if (op < 35) {
            d.same(rnd.nextBoolean() ? "GETRANGE" : "SUBSTR", k, index(), index());
        } else if (op < 38) {
            d.same("STRLEN", k);
        } else if (op < 46) {
            switch (rnd.nextInt(4)) {
                case 0:
                    d.same("INCR", k);
                    break;
                case 1:
                    d.same("DECR", k);
                    break;
                case 2:
                    d.same("INCRBY", k, rnd.nextInt(10) == 0 ? value() : Integer.toString(rnd.nextInt(2001) - 1000));
                    break;
                default:
                    d.same("DECRBY", k, rnd.nextInt(10) == 0 ? value() : Integer.toString(rnd.nextInt(2001) - 1000));
                    break;
            }
        } else if (op < 52) {
            String by = rnd.nextInt(4) == 0 ? value() : String.format("%.3f", rnd.nextDouble() * 20 - 10);
            d.same("INCRBYFLOAT", k, by);
        } else if (op < 55) {
            d.same("GETSET", k, value());
        } else if (op < 58) {
            d.same("GETDEL", k);
        } else if (op < 62) {
            getex(d, k);
        } else if (op < 66) {
            List<Object> c = new ArrayList<>(List.of(rnd.nextInt(3) == 0 ? "MSETNX" : "MSET"));
            int n = 1 + rnd.nextInt(3);
            for (int i = 0; i < n; i++) {
                c.add(key());
                c.add(value());
            }
            d.same(c.toArray());
        } else if (op < 70) {
            List<Object> c = new ArrayList<>(List.of("MGET"));
            int n = 1 + rnd.nextInt(4);
            for (int i = 0; i < n; i++) c.add(key());
            d.same(c.toArray());
        } else if (op < 73) {
            d.same("SETNX", k, value());
        } else if (op < 76) {
            String ttl = rnd.nextInt(10) == 0 ? badTtl() : Integer.toString(1000 + rnd.nextInt(1000) * 1000);
            d.same(rnd.nextBoolean() ? "SETEX" : "PSETEX", k, ttl, value());
        } else if (op < 80) {
            d.same("TTL", k);
        } else if (op < 85) {
            d.same("OBJECT", "ENCODING", k);
        } else if (op < 89) {
            d.same("DUMP", k);
        } else if (op < 92) {
            d.same("LCS", k, key(), rnd.nextBoolean() ? "LEN" : "IDX");
        } else if (op < 94) {
            d.same("DEL", k);
        } else if (op < 96) {
            d.same("PERSIST", k);
        } else if (op < 98) {
            d.same("COPY", k, KEYS[rnd.nextInt(KEYS.length)], "REPLACE");
        } else {
            d.both("HELLO", rnd.nextBoolean() ? "3" : "2");
        }
    }

    /** SET with a random subset of its options, some of them in conflict (Redis's syntax errors). */
    private void set(DualRun d, String k) throws IOException {
        List<Object> c = new ArrayList<>(List.of("SET", k, value()));
        int n = rnd.nextInt(4);
        for (int i = 0; i < n; i++) {
            switch (rnd.nextInt(9)) {
                case 0:
                    c.add("EX");
                    c.add(rnd.nextInt(10) == 0 ? badTtl() : Integer.toString(1000 + rnd.nextInt(1000)));
                    break;
                case 1:
                    c.add("PX");
                    c.add(Integer.toString(1_000_000 + rnd.nextInt(1000) * 1000));
                    break;
                case 2:
                    // in the past: the key goes at once (a future one would make TTL's rounding
                    // depend on when each server ran the command)
                    c.add(rnd.nextBoolean() ? "EXAT" : "PXAT");
                    c.add(Integer.toString(1 + rnd.nextInt(1000)));
                    break;
                case 3:
                    c.add("KEEPTTL");
                    break;
                case 4:
                    c.add("NX");
                    break;
                case 5:
                    c.add("XX");
                    break;
                case 6:
                case 7:
                    c.add("GET");
                    break;
                default:
                    c.add(rnd.nextBoolean() ? "PXAT" : "EX");
                    c.add(rnd.nextBoolean() ? "0" : "-5");
                    break;
            }
        }
        d.same(c.toArray());
    }

    private void getex(DualRun d, String k) throws IOException {
        switch (rnd.nextInt(5)) {
            case 0:
                d.same("GETEX", k);
                break;
            case 1:
                d.same("GETEX", k, "PERSIST");
                break;
            case 2:
                d.same("GETEX", k, "EX", Integer.toString(1000 + rnd.nextInt(1000)));
                break;
            case 3:
                d.same("GETEX", k, "PX", rnd.nextBoolean() ? "0" : "abc");
                break;
            default:
                d.same("GETEX", k, "EX", "100", "PERSIST");
                break;
        }
    }
}
