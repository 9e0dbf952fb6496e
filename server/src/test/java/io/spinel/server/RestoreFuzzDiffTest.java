package io.spinel.server;

import io.spinel.core.persist.Crc64;
import io.spinel.server.testing.DualRun;
import io.spinel.server.testing.ServerPair;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Damaged DUMP payloads that still carry a valid checksum (as a buggy or hostile client can send
 * them): Redis's own payloads of every type and encoding with bytes changed, dropped or added,
 * the checksum made again, then RESTOREd on redis-server (with sanitize-dump-payload yes, its deep
 * checks) and on Spinel (which always checks, as it rebuilds every value). Spinel must accept
 * exactly what Redis accepts, answer as Redis answers, never fail inside, and hold the same value
 * afterwards.
 *
 * <p>Where Redis accepts what Spinel refuses, by design: a sorted-set listpack whose scores are no
 * numbers or out of order (Redis keeps the listpack unchecked and reads such a score as strtod
 * does; Spinel builds its tree from the scores). Set -Dfuzz.seed=N to replay a run.
 */
class RestoreFuzzDiffTest {
    @RegisterExtension
    static final ServerPair servers = new ServerPair();

    /** RDB types Spinel may refuse where Redis accepts (above): the sorted-set ziplist and listpack. */
    private static final Set<Integer> LENIENT_IN_REDIS = Set.of(12, 17);

    @Test
    void damagedPayloadsAreAcceptedAndRefusedAsRedisDoes() throws IOException {
        long seed = Long.getLong("fuzz.seed", 6_12_2026L);
        Random rnd = new Random(seed);
        try (DualRun d = new DualRun(servers.redis().port(), servers.spinel().port(), "restore fuzz seed " + seed)) {
            d.redisOnly("CONFIG", "SET", "sanitize-dump-payload", "yes");
            d.both("FLUSHALL");
            Map<String, byte[]> payloads = payloads(d, rnd);
            List<String> keys = new ArrayList<>(payloads.keySet());
            int accepted = 0;
            for (int step = 0; step < 10000; step++) {
                d.setStep(step);
                byte[] original = payloads.get(keys.get(rnd.nextInt(keys.size())));
                byte[] payload = damaged(original, rnd);
                byte[][] r = d.both("RESTORE", "k", "0", payload, "REPLACE");
                String redis = new String(r[0], StandardCharsets.ISO_8859_1);
                String spinel = new String(r[1], StandardCharsets.ISO_8859_1);
                int type = payload[0] & 0xff;
                if (spinel.contains("internal error")) {
                    d.fail("RESTORE of " + hex(payload) + ": " + spinel.trim());
                } else if (!redis.equals(spinel)) {
                    boolean tolerated = redis.equals("+OK\r\n") && spinel.equals("-ERR Bad data format\r\n")
                            && LENIENT_IN_REDIS.contains(type);
                    if (!tolerated) d.fail("RESTORE of " + hex(payload) + "\n    redis:  " + redis.trim() + "\n    spinel: " + spinel.trim());
                } else if (redis.equals("+OK\r\n")) {
                    accepted++;
                    sameContent(d, new String(d.same("TYPE", "k"), StandardCharsets.ISO_8859_1), type);
                }
            }
            d.same("PING");
            if (accepted < 1000) d.fail("only " + accepted + " damaged payloads accepted by both: the damage is too coarse to test much");
            if (!d.mismatches().isEmpty()) fail(d.mismatches().size() + " differences:\n" + String.join("\n", d.mismatches()));
        }
    }

    /**
     * The same for FUNCTION RESTORE: Redis's FUNCTION DUMP of two libraries (one LZF-compressed)
     * damaged, then restored with REPLACE on both; the libraries loaded must be the same.
     */
    @Test
    void damagedFunctionPayloadsAreAcceptedAndRefusedAsRedisDoes() throws IOException {
        long seed = Long.getLong("fuzz.seed", 7_12_2026L);
        Random rnd = new Random(seed);
        try (DualRun d = new DualRun(servers.redis().port(), servers.spinel().port(), "function restore fuzz seed " + seed)) {
            d.both("FUNCTION", "FLUSH");
            d.redisOnly("FUNCTION", "LOAD", "#!lua name=lib1\nredis.register_function('f1', function(keys, args) return 1 end)");
            d.redisOnly("FUNCTION", "LOAD", "#!lua name=lib2\nredis.register_function{function_name='f2', "
                    + "callback=function(keys, args) return redis.call('get', keys[1]) end, flags={'no-writes'}}\n-- " + "x".repeat(100));
            byte[] payload = bulk(d.redisOnly("FUNCTION", "DUMP"));
            d.redisOnly("FUNCTION", "FLUSH");
            int accepted = 0;
            for (int step = 0; step < 3000; step++) {
                d.setStep(step);
                byte[] damaged = damaged(payload, rnd);
                byte[] r = d.same("FUNCTION", "RESTORE", damaged, "REPLACE");
                if (r[0] == '+') {
                    accepted++;
                    d.sameUnordered("FUNCTION", "LIST", "WITHCODE");
                }
                d.both("FUNCTION", "FLUSH");
            }
            if (accepted < 100) d.fail("only " + accepted + " damaged payloads accepted by both");
            if (!d.mismatches().isEmpty()) fail(d.mismatches().size() + " differences:\n" + String.join("\n", d.mismatches()));
        }
    }

    /**
     * The restored value read back. Not its DUMP: Redis keeps a valid listpack as it came, with
     * an element in a longer encoding than needed, where Spinel writes every element anew.
     */
    private static void sameContent(DualRun d, String type, int rdbType) throws IOException {
        switch (type) {
            case "+string\r\n" -> d.same("GET", "k");
            case "+list\r\n" -> d.same("LRANGE", "k", "0", "-1");
            case "+hash\r\n" -> d.sameUnordered("HGETALL", "k");
            case "+set\r\n" -> d.sameUnordered("SMEMBERS", "k");
            case "+zset\r\n" -> {
                // a listpack Redis took unchecked may be out of order (see above)
                if (!LENIENT_IN_REDIS.contains(rdbType)) d.same("ZRANGE", "k", "0", "-1", "WITHSCORES");
            }
            case "+stream\r\n" -> {
                d.same("XRANGE", "k", "-", "+");
                d.same("XLEN", "k");
            }
            default -> d.fail("RESTORE made a " + type.trim());
        }
    }

    /** Redis's DUMP of a value of each type and encoding (listpacks, quicklist nodes, tables, LZF, streams with groups). */
    private static Map<String, byte[]> payloads(DualRun d, Random rnd) throws IOException {
        String[] words = {"a", "1", "bbbbbbbbbbbbbbbbbbbb", "-7", "12345678901", "3.5", ""};
        List<Object> list = new ArrayList<>(List.of("RPUSH", "l1"));
        for (int i = 0; i < 20; i++) list.add(words[rnd.nextInt(words.length)]);
        d.redisOnly(list.toArray());
        d.redisOnly("CONFIG", "SET", "list-max-listpack-size", "4");
        List<Object> nodes = new ArrayList<>(List.of("RPUSH", "l2"));
        for (int i = 0; i < 30; i++) nodes.add(Integer.toString(i * 37));
        d.redisOnly(nodes.toArray());
        d.redisOnly("CONFIG", "SET", "list-max-listpack-size", "-2");
        d.redisOnly("SET", "s1", "x".repeat(50));
        d.redisOnly("SET", "s2", "12345");
        d.redisOnly("SET", "s3", "abc".repeat(30));
        List<Object> hash = new ArrayList<>(List.of("HSET", "h1"));
        for (int i = 0; i < 10; i++) java.util.Collections.addAll(hash, "f" + i, words[rnd.nextInt(words.length)]);
        d.redisOnly(hash.toArray());
        d.redisOnly("HSET", "h2", "f0", "v".repeat(70), "f1", "w".repeat(70), "f2", "1");
        List<Object> ints = new ArrayList<>(List.of("SADD", "i1"));
        for (int i = 0; i < 10; i++) ints.add(Integer.toString(i * 1000 - 3000));
        d.redisOnly(ints.toArray());
        List<Object> set = new ArrayList<>(List.of("SADD", "t1"));
        for (int i = 0; i < 10; i++) set.add("m" + i);
        d.redisOnly(set.toArray());
        List<Object> zset = new ArrayList<>(List.of("ZADD", "z1"));
        for (int i = 0; i < 10; i++) java.util.Collections.addAll(zset, Double.toString(i * 1.5), "m" + i);
        d.redisOnly(zset.toArray());
        List<Object> bigZset = new ArrayList<>(List.of("ZADD", "z2"));
        for (int i = 0; i < 200; i++) java.util.Collections.addAll(bigZset, Integer.toString(i), "member" + i);
        d.redisOnly(bigZset.toArray());
        for (int i = 1; i <= 5; i++) d.redisOnly("XADD", "x1", i + "-1", "f", Integer.toString(i), "g", "v");
        d.redisOnly("XGROUP", "CREATE", "x1", "g1", "0");
        d.redisOnly("XREADGROUP", "GROUP", "g1", "c1", "COUNT", "2", "STREAMS", "x1", ">");
        d.redisOnly("PFADD", "p1", "a", "b", "c", "d");
        Map<String, byte[]> out = new LinkedHashMap<>();
        for (String k : new String[] {"l1", "l2", "s1", "s2", "s3", "h1", "h2", "i1", "t1", "z1", "z2", "x1", "p1"}) {
            out.put(k, bulk(d.redisOnly("DUMP", k)));
        }
        d.redisOnly("FLUSHALL");
        return out;
    }

    /**
     * One to three bytes changed, a bit flipped, a byte made a length marker, the body cut short,
     * or a byte put in; then a valid footer again.
     */
    private static byte[] damaged(byte[] payload, Random rnd) {
        byte[] body = Arrays.copyOf(payload, payload.length - 10);
        byte[] version = Arrays.copyOfRange(payload, payload.length - 10, payload.length - 8);
        switch (rnd.nextInt(5)) {
            case 4: {
                // a byte that reads as a length of another kind: no known encoding, a special
                // string encoding, or an edge value
                int[] marks = {0x82 + rnd.nextInt(0x3e), 0xC0 + rnd.nextInt(5), 0x00, 0xFF, 0x80, 0x81, 0x40};
                body[rnd.nextInt(body.length)] = (byte) marks[rnd.nextInt(marks.length)];
                break;
            }
            case 0:
                for (int n = 1 + rnd.nextInt(3); n > 0; n--) body[rnd.nextInt(body.length)] = (byte) rnd.nextInt(256);
                break;
            case 1:
                body = Arrays.copyOf(body, 1 + rnd.nextInt(body.length - 1));
                break;
            case 2:
                body[rnd.nextInt(body.length)] ^= (byte) (1 << rnd.nextInt(8));
                break;
            default: {
                int at = rnd.nextInt(body.length);
                byte[] longer = new byte[body.length + 1];
                System.arraycopy(body, 0, longer, 0, at);
                longer[at] = (byte) rnd.nextInt(256);
                System.arraycopy(body, at, longer, at + 1, body.length - at);
                body = longer;
            }
        }
        byte[] out = Arrays.copyOf(body, body.length + 10);
        System.arraycopy(version, 0, out, body.length, 2);
        long crc = Crc64.of(out, 0, body.length + 2);
        for (int i = 0; i < 8; i++) out[body.length + 2 + i] = (byte) (crc >>> (8 * i));
        return out;
    }

    /** The bytes of a bulk-string reply. */
    private static byte[] bulk(byte[] reply) {
        int crlf = 0;
        while (reply[crlf] != '\r') crlf++;
        int n = Integer.parseInt(new String(reply, 1, crlf - 1, StandardCharsets.US_ASCII));
        return Arrays.copyOfRange(reply, crlf + 2, crlf + 2 + n);
    }

    private static String hex(byte[] b) {
        StringBuilder sb = new StringBuilder();
        for (byte x : b) sb.append(String.format("%02x", x & 0xff));
        return sb.toString();
    }
}
