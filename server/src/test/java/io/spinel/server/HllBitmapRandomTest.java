package io.spinel.server;

import io.spinel.server.testing.ServerPair;
import io.spinel.server.testing.TwinClients;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Randomized differential tests of the HyperLogLog and bitmap commands: seeded streams of commands
 * over a few keys run against redis-server and Spinel, every reply compared byte for byte (GET
 * included, so the HLL and bitmap bytes themselves are compared).
 */
class HllBitmapRandomTest {
    @RegisterExtension
    static final ServerPair servers = new ServerPair();

    private static TwinClients twins() throws IOException {
        TwinClients t = new TwinClients(servers.redis().port(), servers.spinel().port());
        t.call("FLUSHALL");
        return t;
    }

    private static void check(TwinClients t, long seed) {
        assertEquals(0, t.mismatchCount(), "seed " + seed + ": " + t.mismatchCount() + " of " + t.commands()
                + " replies differ from redis-server:\n" + t.report());
    }

    // ---- HyperLogLog -------------------------------------------------------------------------------

    /** PFCOUNT must give Redis's number for sets of every size, sparse and dense, and their unions. */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void pfcountMatchesOverGrowingSets(long seed) throws IOException {
        SplittableRandom rnd = new SplittableRandom(seed);
        try (TwinClients t = twins()) {
            int total = 0;
            int target = 60_000;
            while (total < target) {
                int batch = total < 3000 ? 1 + rnd.nextInt(40) : 200 + rnd.nextInt(2000);
                List<byte[]> cmd = new ArrayList<>();
                cmd.add(bytes("PFADD"));
                cmd.add(bytes("set" + rnd.nextInt(3)));
                for (int i = 0; i < batch; i++) cmd.add(element(rnd));
                t.send(cmd);
                total += batch;
                t.send("PFCOUNT", "set0");
                t.send("PFCOUNT", "set1");
                t.send("PFCOUNT", "set0", "set1", "set2");
                if (rnd.nextInt(10) == 0) t.send("GET", "set" + rnd.nextInt(3));
                if (rnd.nextInt(10) == 0) t.send("PFMERGE", "union", "set0", "set1", "set2");
                if (rnd.nextInt(10) == 0) t.send("PFCOUNT", "union");
            }
            t.send("GET", "union");
            t.flush();
            check(t, seed);
            assertTrue(t.commands() > 100);
        }
    }

    /** Random PFADD/PFCOUNT/PFMERGE/PFDEBUG over a few keys, with corruption and odd configurations. */
    @ParameterizedTest
    @ValueSource(longs = {11, 12, 13, 14})
    void randomHllOperations(long seed) throws IOException {
        SplittableRandom rnd = new SplittableRandom(seed);
        try (TwinClients t = twins()) {
            for (int step = 0; step < 3000; step++) {
                String k = "h" + rnd.nextInt(5);
                int op = rnd.nextInt(100);
                if (op < 40) {
                    List<byte[]> cmd = new ArrayList<>();
                    cmd.add(bytes("PFADD"));
                    cmd.add(bytes(k));
                    int n = rnd.nextInt(rnd.nextInt(10) == 0 ? 500 : 8);
                    for (int i = 0; i < n; i++) cmd.add(element(rnd));
                    t.send(cmd);
                } else if (op < 55) {
                    t.send("PFCOUNT", k);
                } else if (op < 62) {
                    t.send("PFCOUNT", k, "h" + rnd.nextInt(5), "h" + rnd.nextInt(6));
                } else if (op < 70) {
                    t.send("PFMERGE", k, "h" + rnd.nextInt(6), "h" + rnd.nextInt(6));
                } else if (op < 78) {
                    t.send("GET", k);
                } else if (op < 82) {
                    t.send("PFDEBUG", "ENCODING", k);
                } else if (op < 84) {
                    t.send("PFDEBUG", "DECODE", k);
                } else if (op < 85) {
                    t.send("PFDEBUG", "TODENSE", k);
                } else if (op < 86) {
                    t.send("PFDEBUG", "GETREG", k);
                } else if (op < 89) {
                    // corrupt a byte, as the TCL fuzzer does
                    byte[] one = {(byte) rnd.nextInt(256)};
                    t.send("SETRANGE", k, rnd.nextInt(rnd.nextBoolean() ? 20 : 200), one);
                } else if (op < 90) {
                    t.send("APPEND", k, new byte[] {(byte) rnd.nextInt(256)});
                } else if (op < 92) {
                    t.send("DEL", k);
                } else if (op < 93) {
                    t.send("SET", k, rnd.nextBoolean() ? "12345" : "not an hll");
                } else if (op < 94) {
                    t.send("CONFIG", "SET", "hll-sparse-max-bytes", String.valueOf(rnd.nextInt(4000)));
                } else if (op < 96) {
                    t.send("EXPIRE", k, "1000");
                    t.send("TTL", k);
                } else {
                    t.send("GETRANGE", k, "0", "15");
                }
            }
            for (int i = 0; i < 5; i++) t.send("GET", "h" + i);
            t.call("CONFIG", "SET", "hll-sparse-max-bytes", "3000");
            check(t, seed);
        }
    }

    private static byte[] element(SplittableRandom rnd) {
        switch (rnd.nextInt(4)) {
            case 0:
                return bytes(Long.toString(rnd.nextLong()));
            case 1:
                return bytes(Integer.toString(rnd.nextInt(100_000)));
            case 2: {
                byte[] b = new byte[rnd.nextInt(30)];
                for (int i = 0; i < b.length; i++) b[i] = (byte) rnd.nextInt(256);
                return b;
            }
            default:
                return bytes("e" + rnd.nextInt(1_000_000));
        }
    }

    // ---- bitmaps -----------------------------------------------------------------------------------

    /** Random SETBIT/GETBIT/BITCOUNT/BITPOS/BITOP/BITFIELD over a few string keys. */
    @ParameterizedTest
    @ValueSource(longs = {21, 22, 23, 24})
    void randomBitmapOperations(long seed) throws IOException {
        SplittableRandom rnd = new SplittableRandom(seed);
        try (TwinClients t = twins()) {
            for (int step = 0; step < 4000; step++) {
                String k = "b" + rnd.nextInt(4);
                int op = rnd.nextInt(100);
                if (op < 15) {
                    t.send("SETBIT", k, bitOffset(rnd), rnd.nextInt(12) == 0 ? "2" : String.valueOf(rnd.nextInt(2)));
                } else if (op < 22) {
                    t.send("GETBIT", k, bitOffset(rnd));
                } else if (op < 35) {
                    bitcount(t, rnd, k);
                } else if (op < 50) {
                    bitpos(t, rnd, k);
                } else if (op < 58) {
                    String[] ops = {"AND", "OR", "XOR", "NOT", "and", "nor"};
                    String o = ops[rnd.nextInt(ops.length)];
                    int n = o.equalsIgnoreCase("NOT") && rnd.nextInt(5) > 0 ? 1 : 1 + rnd.nextInt(4);
                    List<byte[]> cmd = new ArrayList<>();
                    cmd.add(bytes("BITOP"));
                    cmd.add(bytes(o));
                    cmd.add(bytes("b" + rnd.nextInt(5)));
                    for (int i = 0; i < n; i++) cmd.add(bytes("b" + rnd.nextInt(5)));
                    t.send(cmd);
                } else if (op < 80) {
                    bitfield(t, rnd, k, rnd.nextInt(5) == 0);
                } else if (op < 88) {
                    t.send("GET", k);
                } else if (op < 92) {
                    t.send("SET", k, randomValue(rnd));
                } else if (op < 94) {
                    t.send("APPEND", k, randomValue(rnd));
                } else if (op < 96) {
                    t.send("DEL", k);
                } else if (op < 98) {
                    t.send("SETRANGE", k, String.valueOf(rnd.nextInt(300)), randomValue(rnd));
                } else {
                    t.send("STRLEN", k);
                }
            }
            for (int i = 0; i < 5; i++) t.send("GET", "b" + i);
            t.flush();
            check(t, seed);
        }
    }

    private static String bitOffset(SplittableRandom rnd) {
        int r = rnd.nextInt(50);
        if (r == 0) return "-1";
        if (r == 1) return "4294967296";
        if (r == 2) return "abc";
        if (r < 6) return String.valueOf(rnd.nextInt(20_000));
        return String.valueOf(rnd.nextInt(600));
    }

    private static String index(SplittableRandom rnd) {
        int r = rnd.nextInt(40);
        if (r == 0) return "x";
        if (r < 4) return String.valueOf(rnd.nextInt(2000) - 1000);
        return String.valueOf(rnd.nextInt(200) - 100);
    }

    private static void bitcount(TwinClients t, SplittableRandom rnd, String k) throws IOException {
        switch (rnd.nextInt(5)) {
            case 0:
                t.send("BITCOUNT", k);
                break;
            case 1:
                t.send("BITCOUNT", k, index(rnd), index(rnd));
                break;
            case 2:
                t.send("BITCOUNT", k, index(rnd), index(rnd), "BYTE");
                break;
            case 3:
                t.send("BITCOUNT", k, index(rnd), index(rnd), rnd.nextInt(10) == 0 ? "BITS" : "BIT");
                break;
            default:
                t.send("BITCOUNT", k, index(rnd));
                break;
        }
    }

    private static void bitpos(TwinClients t, SplittableRandom rnd, String k) throws IOException {
        String bit = rnd.nextInt(20) == 0 ? "2" : String.valueOf(rnd.nextInt(2));
        switch (rnd.nextInt(5)) {
            case 0:
                t.send("BITPOS", k, bit);
                break;
            case 1:
                t.send("BITPOS", k, bit, index(rnd));
                break;
            case 2:
                t.send("BITPOS", k, bit, index(rnd), index(rnd));
                break;
            case 3:
                t.send("BITPOS", k, bit, index(rnd), index(rnd), "BYTE");
                break;
            default:
                t.send("BITPOS", k, bit, index(rnd), index(rnd), "BIT");
                break;
        }
    }

    private static void bitfield(TwinClients t, SplittableRandom rnd, String k, boolean readOnly) throws IOException {
        List<byte[]> cmd = new ArrayList<>();
        cmd.add(bytes(readOnly ? "BITFIELD_RO" : "BITFIELD"));
        cmd.add(bytes(k));
        int n = rnd.nextInt(5);
        for (int i = 0; i < n; i++) {
            int sub = rnd.nextInt(readOnly ? 12 : 10);
            if (sub < 3 || readOnly && sub < 11) {
                cmd.add(bytes("GET"));
                cmd.add(bytes(bitfieldType(rnd)));
                cmd.add(bytes(bitfieldOffset(rnd)));
            } else if (sub < 6) {
                cmd.add(bytes("SET"));
                cmd.add(bytes(bitfieldType(rnd)));
                cmd.add(bytes(bitfieldOffset(rnd)));
                cmd.add(bytes(bitfieldValue(rnd)));
            } else if (sub < 9) {
                cmd.add(bytes("INCRBY"));
                cmd.add(bytes(bitfieldType(rnd)));
                cmd.add(bytes(bitfieldOffset(rnd)));
                cmd.add(bytes(bitfieldValue(rnd)));
            } else {
                String[] ow = {"WRAP", "SAT", "FAIL", "fail", "BAD"};
                cmd.add(bytes("OVERFLOW"));
                cmd.add(bytes(ow[rnd.nextInt(rnd.nextInt(20) == 0 ? 5 : 4)]));
            }
        }
        t.send(cmd);
    }

    private static String bitfieldType(SplittableRandom rnd) {
        int r = rnd.nextInt(60);
        if (r == 0) return "u64";
        if (r == 1) return "i65";
        if (r == 2) return "x8";
        boolean signed = rnd.nextBoolean();
        int bits = 1 + rnd.nextInt(signed ? 64 : 63);
        return (signed ? "i" : "u") + bits;
    }

    private static String bitfieldOffset(SplittableRandom rnd) {
        int r = rnd.nextInt(30);
        if (r == 0) return "-3";
        if (r < 6) return "#" + rnd.nextInt(40);
        return String.valueOf(rnd.nextInt(400));
    }

    private static String bitfieldValue(SplittableRandom rnd) {
        switch (rnd.nextInt(6)) {
            case 0:
                return Long.toString(rnd.nextLong());
            case 1:
                return Long.toString(Long.MAX_VALUE - rnd.nextInt(3));
            case 2:
                return Long.toString(Long.MIN_VALUE + rnd.nextInt(3));
            case 3:
                return Integer.toString(rnd.nextInt(512) - 256);
            default:
                return Long.toString((rnd.nextLong() >> rnd.nextInt(64)));
        }
    }

    private static byte[] randomValue(SplittableRandom rnd) {
        if (rnd.nextInt(4) == 0) return bytes(Integer.toString(rnd.nextInt(1_000_000)));
        byte[] b = new byte[rnd.nextInt(rnd.nextInt(8) == 0 ? 200 : 20)];
        for (int i = 0; i < b.length; i++) {
            int x = rnd.nextInt(4);
            b[i] = (byte) (x == 0 ? 0 : x == 1 ? 0xff : rnd.nextInt(256));
        }
        return b;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
