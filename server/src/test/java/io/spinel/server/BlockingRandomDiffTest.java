package io.spinel.server;

import io.spinel.server.testing.DualRun;
import io.spinel.server.testing.RawClient;
import io.spinel.server.testing.ServerPair;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Seeded random blocking pops on redis-server and Spinel side by side. Client B sends BLPOP,
 * BRPOP, BLMOVE, BLMPOP, BZPOPMIN/MAX or BZMPOP on a few keys; where none of them exists it blocks
 * (both servers are waited on until INFO says so), client A then writes (pushes, ZADD, LMOVE, a
 * string over a key, DEL), and B is either served, by whichever key the write made ready, or,
 * where the write made none of its keys ready for its kind of pop, released with CLIENT UNBLOCK.
 * B's replies, A's, and every key's contents after each step must be the same bytes. Whether B
 * blocks and whether a write serves it are decided from the keys' types, never from timing. Set
 * -Dfuzz.seed=N to replay a run.
 */
class BlockingRandomDiffTest {
    @RegisterExtension
    static final ServerPair servers = new ServerPair();

    private static final String[] LISTS = {"l0", "l1", "l2"};
    private static final String[] ZSETS = {"z0", "z1"};
    private Random rnd;

    @Test
    void randomBlockingPops() throws IOException {
        long seed = Long.getLong("fuzz.seed", 21_2026L);
        rnd = new Random(seed);
        int redisPort = servers.redis().port();
        int spinelPort = servers.spinel().port();
        List<String> differences = new ArrayList<>();
        try (DualRun a = new DualRun(redisPort, spinelPort, "blocking fuzz seed " + seed);
             RawClient rb = new RawClient(redisPort); RawClient sb = new RawClient(spinelPort)) {
            rb.setTimeout(10_000);
            sb.setTimeout(10_000);
            String redisId = text(rb.call("CLIENT", "ID")).substring(1).trim();
            String spinelId = text(sb.call("CLIENT", "ID")).substring(1).trim();
            a.both("FLUSHALL");
            for (int step = 0; step < 400 && differences.size() < 20; step++) {
                a.setStep(step);
                if (step == 200) {
                    rb.call("HELLO", "3");
                    sb.call("HELLO", "3");
                }
                boolean zset = rnd.nextInt(3) == 0;
                List<String> keys = pick(zset ? ZSETS : LISTS, 1 + rnd.nextInt(2));
                if (rnd.nextInt(8) == 0) keys.add("str"); // a key of another type: WRONGTYPE when it exists
                List<String> cmd = blockingCommand(zset, keys);
                boolean blocks = true;
                for (String k : keys) if (exists(a, k)) blocks = false;
                List<byte[]> args = new ArrayList<>();
                for (String s : cmd) args.add(s.getBytes(StandardCharsets.ISO_8859_1));
                rb.send(args);
                sb.send(args);
                if (blocks) {
                    waitBlocked(a, true);
                    waitBlocked(a, false);
                    write(a);
                    boolean served = false;
                    for (String k : keys) if (readyFor(a, k, zset)) served = true;
                    if (!served) {
                        a.redisOnly("CLIENT", "UNBLOCK", redisId);
                        a.spinelOnly("CLIENT", "UNBLOCK", spinelId);
                    }
                }
                String r = text(rb.readReply());
                String s = text(sb.readReply());
                if (!r.equals(s)) differences.add("step " + step + ": " + String.join(" ", cmd) + (blocks ? " (blocked)" : "") + "\n    redis:  " + r + "\n    spinel: " + s);
                for (String k : new String[] {"l0", "l1", "l2", "z0", "z1", "str"}) {
                    a.same("TYPE", k);
                    if (k.startsWith("l")) a.same("LRANGE", k, "0", "-1");
                    if (k.startsWith("z")) a.same("ZRANGE", k, "0", "-1", "WITHSCORES");
                }
                if (rnd.nextInt(10) == 0) a.both("FLUSHALL");
            }
            differences.addAll(a.mismatches());
            if (!differences.isEmpty()) fail(differences.size() + " differences:\n" + String.join("\n", differences));
        }
    }

    private List<String> pick(String[] from, int n) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) out.add(from[rnd.nextInt(from.length)]);
        return out;
    }

    private List<String> blockingCommand(boolean zset, List<String> keys) {
        List<String> c = new ArrayList<>();
        String count = Integer.toString(1 + rnd.nextInt(3));
        if (zset) {
            switch (rnd.nextInt(3)) {
                case 0 -> c.add("BZPOPMIN");
                case 1 -> c.add("BZPOPMAX");
                default -> {
                    c.addAll(List.of("BZMPOP", "0", Integer.toString(keys.size())));
                    c.addAll(keys);
                    c.add(rnd.nextBoolean() ? "MIN" : "MAX");
                    if (rnd.nextBoolean()) c.addAll(List.of("COUNT", count));
                    return c;
                }
            }
            c.addAll(keys);
            c.add("0");
            return c;
        }
        switch (rnd.nextInt(4)) {
            case 0 -> c.add("BLPOP");
            case 1 -> c.add("BRPOP");
            case 2 -> {
                // one source: BLMOVE takes a single key
                c.addAll(List.of("BLMOVE", keys.get(0), LISTS[rnd.nextInt(LISTS.length)],
                        rnd.nextBoolean() ? "LEFT" : "RIGHT", rnd.nextBoolean() ? "LEFT" : "RIGHT", "0"));
                keys.subList(1, keys.size()).clear();
                return c;
            }
            default -> {
                c.addAll(List.of("BLMPOP", "0", Integer.toString(keys.size())));
                c.addAll(keys);
                c.add(rnd.nextBoolean() ? "LEFT" : "RIGHT");
                if (rnd.nextBoolean()) c.addAll(List.of("COUNT", count));
                return c;
            }
        }
        c.addAll(keys);
        c.add("0");
        return c;
    }

    /** Client A's write while B waits. */
    private void write(DualRun a) throws IOException {
        String l = LISTS[rnd.nextInt(LISTS.length)];
        String z = ZSETS[rnd.nextInt(ZSETS.length)];
        switch (rnd.nextInt(7)) {
            case 0, 1 -> a.same(rnd.nextBoolean() ? "LPUSH" : "RPUSH", l, "a" + rnd.nextInt(9), "b" + rnd.nextInt(9));
            case 2 -> a.same("ZADD", z, Integer.toString(rnd.nextInt(9)), "m" + rnd.nextInt(9), "5", "n");
            case 3 -> a.same("LMOVE", LISTS[rnd.nextInt(LISTS.length)], l, "LEFT", "RIGHT");
            case 4 -> a.same("SET", rnd.nextBoolean() ? "str" : l, "s");
            case 5 -> a.same("ZADD", l, "1", "wrongtype");
            default -> a.same("DEL", l, z);
        }
    }

    private static boolean exists(DualRun a, String k) throws IOException {
        return !text(a.redisOnly("EXISTS", k)).equals(":0\r\n");
    }

    /** Whether key k now holds what B's kind of pop takes. */
    private static boolean readyFor(DualRun a, String k, boolean zset) throws IOException {
        return text(a.redisOnly("TYPE", k)).equals(zset ? "+zset\r\n" : "+list\r\n");
    }

    /** Polls one server's INFO until its one other client is blocked. */
    private static void waitBlocked(DualRun a, boolean redis) throws IOException {
        for (int i = 0; i < 5000; i++) {
            String info = text(redis ? a.redisOnly("INFO", "clients") : a.spinelOnly("INFO", "clients"));
            if (info.contains("blocked_clients:1\r\n")) return;
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        throw new IOException((redis ? "redis" : "spinel") + " never reported the client blocked");
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.ISO_8859_1);
    }
}
