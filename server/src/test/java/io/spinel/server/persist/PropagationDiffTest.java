package io.spinel.server.persist;

import io.spinel.server.SpinelServer;
import io.spinel.server.testing.RawClient;
import io.spinel.server.testing.RedisServerProcess;
import io.spinel.core.protocol.SplitArgs;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static io.spinel.server.persist.PersistTesting.spinel;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What reaches the AOF is what Redis 7.0 propagates: the same script of write commands runs on
 * redis-server and on Spinel, both with appendonly yes, and the incremental files must hold the
 * same commands (SELECTs, rewritten forms, MULTI/EXEC wrapping, DELs of expired keys), with
 * absolute times compared to the second.
 */
class PropagationDiffTest {
    private static final String SCRIPT = String.join("\n",
            "DEBUG SET-ACTIVE-EXPIRE 0", // the expired keys below are found by commands, not by the cron
            "SET a 1",
            "SET b 2 EX 100",
            "SET c 3 PX 100000 GET",
            "SET d 4 EXAT 4102444800",
            "SET e 5 NX",
            "SET e 6 NX",
            "SETEX f 100 v",
            "PSETEX g 100000 v",
            "SETNX h v",
            "GETEX a EX 100",
            "GETEX a PERSIST",
            "GETEX missing EX 10",
            "GETDEL b",
            "EXPIRE c 100",
            "PEXPIRE c 100000",
            "EXPIREAT c 4102444800",
            "EXPIRE c -1",
            "EXPIRE nosuch 10",
            "INCRBYFLOAT fl 1.5",
            "GEOADD geo 13.361389 38.115556 Palermo",
            "GEOADD geo CH 13.4 38.1 Palermo 15.087269 37.502669 Catania",
            "GEOADD geo XX 1 1 nosuch",
            "INCR i",
            "DECRBY i 10",
            "APPEND s hello",
            "SETRANGE s 1 E",
            "MSET m1 1 m2 2",
            "MSETNX m1 1 m3 3",
            "RPUSH l 1 2 3 4 5 6",
            "LPOP l",
            "RPOP l 2",
            "LMPOP 1 l LEFT COUNT 1",
            "BLPOP l 0",
            "BRPOPLPUSH l l2 0",
            "BLMOVE l2 l LEFT RIGHT 0",
            "LPOP missing",
            "HSET h1 a 1 b 2",
            "HINCRBYFLOAT h1 a 0.5",
            "HDEL h1 b",
            "HDEL h1 nosuch",
            "SADD s1 a b c",
            "SREM s1 a",
            "SMOVE s1 s2 b",
            "SPOP s1 10",
            "ZADD z 1 a 2 b 3 c 4 d",
            "ZINCRBY z 1.5 a",
            "ZPOPMIN z",
            "ZPOPMAX z 2",
            "BZPOPMIN z 0",
            "ZMPOP 1 z MIN",
            "ZADD z2 1 x",
            "ZUNIONSTORE z3 1 z2",
            "PFADD hll a b",
            "PFADD hll a",
            "PFCOUNT hll",
            "SETBIT bits 3 1",
            "BITOP NOT bits2 bits",
            "MULTI",
            "SET t1 1",
            "SET t2 2",
            "EXEC",
            "MULTI",
            "SET t3 3",
            "EXEC",
            "MULTI",
            "GET t3",
            "EXEC",
            "SELECT 3",
            "SET x 1",
            "MOVE x 4",
            "SWAPDB 3 4",
            "FLUSHDB",
            "SELECT 0",
            "RENAME t1 t9",
            "RENAMENX t2 t9",
            "COPY t9 t10",
            "DEL t10 nosuch",
            "UNLINK t9",
            "PUBLISH ch m", // replicas only: not in the AOF
            "MULTI",
            "PUBLISH ch m",
            "SET afterpub 1",
            "EXEC",
            "MULTI",
            "PUBLISH ch m",
            "SPUBLISH ch m",
            "EXEC",
            // redis.set_repl: where a script's next commands go (no replicas here: REPL_REPLICA is nothing)
            "EVAL \"redis.set_repl(redis.REPL_NONE) redis.call('set', 'none', '1')\" 0",
            "EVAL \"redis.set_repl(redis.REPL_REPLICA) redis.call('set', 'r', '1') redis.set_repl(redis.REPL_ALL) redis.call('set', 'all', '1')\" 0",
            "EVAL \"redis.set_repl(redis.REPL_AOF) redis.call('set', 'a1', '1') redis.call('set', 'a2', '1')\" 0",
            "EVAL \"redis.call('set', 'b1', '1') redis.set_repl(redis.REPL_NONE) redis.call('incr', 'b1')\" 0",
            "SET short v PX 1",
            "@sleep 20",
            "GET short",
            "SET short2 v PX 1",
            "@sleep 20",
            "SET short2 w",
            "FLUSHALL");

    @Test
    void aofHoldsWhatRedisPropagates(@TempDir Path tmp) throws Exception {
        assertSameAof(tmp, port -> {
            try (RawClient c = new RawClient(port)) {
                run(c);
            }
        });
    }

    /**
     * A client blocked on a key that a write wakes, where the key's TTL has passed by then (EXEC
     * after DEBUG SLEEP; SWAPDB bringing in an expired key): Redis looks the key up to serve the
     * client, which deletes it and propagates a DEL after the write; the client stays blocked.
     */
    @Test
    void wokenClientsDeleteTheExpiredKeysTheyFind(@TempDir Path tmp) throws Exception {
        List<String> aof = assertSameAof(tmp, PropagationDiffTest::blockOnKeysThatExpire);
        assertThat(aof).contains("DEL k", "DEL k2");
    }

    /**
     * maxmemory lowered by CONFIG SET (here inside a MULTI): the evictions come after the command,
     * each DEL alone, not wrapped into the transaction that lowered the limit (Redis evicts in a
     * time event). Which key goes first is the LRU sampling's choice, so the DELs compare as a set.
     */
    @Test
    void evictionsAfterConfigSetPropagateAlone(@TempDir Path tmp) throws Exception {
        List<String> aof = assertSameAof(tmp, port -> {
            try (RawClient c = new RawClient(port)) {
                for (int i = 1; i <= 3; i++) c.call("SET", "asdf" + i, Integer.toString(i));
                c.call("CONFIG", "SET", "maxmemory-policy", "allkeys-lru");
                c.call("MULTI");
                c.call("INCR", "x");
                c.call("CONFIG", "SET", "maxmemory", "1");
                c.call("INCR", "x");
                assertThat(c.callString("EXEC")).isEqualTo("*3\r\n:1\r\n+OK\r\n:2\r\n");
                long deadline = System.currentTimeMillis() + 10_000;
                while (!c.callString("DBSIZE").equals(":0\r\n")) {
                    assertThat(System.currentTimeMillis()).isLessThan(deadline);
                    Thread.sleep(5);
                }
                c.call("CONFIG", "SET", "maxmemory", "0");
                c.call("SET", "after", "1");
            }
        }, true);
        assertThat(aof).containsSubsequence("MULTI", "INCR x", "INCR x", "EXEC", "DEL asdf1", "DEL x", "SET after 1");
    }

    /** What a session against a server on a port does. */
    private interface Session {
        void run(int port) throws IOException, InterruptedException;
    }

    /** Runs the session on redis-server and on Spinel, both with the AOF on; the same AOF or a failure. */
    private static List<String> assertSameAof(Path tmp, Session session) throws Exception {
        return assertSameAof(tmp, session, false);
    }

    /** As above; with {@code delsAsSets}, each run of DELs compares in any order (evictions: sampled keys). */
    private static List<String> assertSameAof(Path tmp, Session session, boolean delsAsSets) throws Exception {
        Assumptions.assumeTrue(RedisServerProcess.available(), "redis-server not installed");
        Path rdir = Files.createDirectories(tmp.resolve("redis"));
        Path sdir = Files.createDirectories(tmp.resolve("spinel"));
        RedisServerProcess r = RedisServerProcess.start(rdir, "--appendonly", "yes", "--appendfsync", "always");
        try {
            session.run(r.port());
        } finally {
            r.close();
        }
        List<String> fromRedis = commands(rdir.resolve("appendonlydir/appendonly.aof.1.incr.aof"));
        try (SpinelServer s = spinel(sdir, "appendonly", "yes", "appendfsync", "always", "enable-debug-command", "yes")) {
            session.run(s.port());
        }
        List<String> fromSpinel = commands(sdir.resolve("appendonlydir/appendonly.aof.1.incr.aof"));
        if (delsAsSets) {
            fromRedis = sortDelRuns(fromRedis);
            fromSpinel = sortDelRuns(fromSpinel);
        }
        assertThat(fromSpinel).isEqualTo(fromRedis);
        return fromRedis;
    }

    private static List<String> sortDelRuns(List<String> commands) {
        List<String> out = new ArrayList<>(commands);
        for (int i = 0; i < out.size(); i++) {
            int j = i;
            while (j < out.size() && out.get(j).startsWith("DEL ")) j++;
            if (j > i + 1) java.util.Collections.sort(out.subList(i, j));
            i = Math.max(i, j - 1);
        }
        return out;
    }

    private static void blockOnKeysThatExpire(int port) throws IOException, InterruptedException {
        try (RawClient c = new RawClient(port); RawClient blocked = new RawClient(port)) {
            c.call("DEBUG", "SET-ACTIVE-EXPIRE", "0");
            String id = new String(blocked.call("CLIENT", "ID"), StandardCharsets.US_ASCII).substring(1).trim();
            blocked.send(List.of(bytes("BRPOP"), bytes("k"), bytes("0")));
            waitForBlocked(c);
            c.call("MULTI");
            c.call("RPUSH", "k", "hello");
            c.call("PEXPIRE", "k", "100");
            c.call("DEBUG", "SLEEP", "0.2");
            c.call("EXEC");
            assertThat(c.callString("CLIENT", "LIST", "ID", id)).contains("flags=b");
            c.call("CLIENT", "UNBLOCK", id);
            assertThat(blocked.readReply()).isEqualTo(bytes("*-1\r\n"));

            c.call("SELECT", "1");
            c.call("RPUSH", "k2", "hello");
            c.call("PEXPIRE", "k2", "100");
            blocked.call("SELECT", "9");
            blocked.send(List.of(bytes("BRPOP"), bytes("k2"), bytes("0")));
            waitForBlocked(c);
            Thread.sleep(150);
            c.call("SWAPDB", "1", "9");
            assertThat(c.callString("CLIENT", "LIST", "ID", id)).contains("flags=b");
            c.call("CLIENT", "UNBLOCK", id);
            assertThat(blocked.readReply()).isEqualTo(bytes("*-1\r\n"));
        }
    }

    private static void waitForBlocked(RawClient c) throws IOException, InterruptedException {
        long deadline = System.currentTimeMillis() + 10_000;
        while (!c.callString("INFO", "clients").contains("blocked_clients:1")) {
            assertThat(System.currentTimeMillis()).isLessThan(deadline);
            Thread.sleep(5);
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static void run(RawClient c) throws IOException, InterruptedException {
        for (String line : SCRIPT.split("\n")) {
            if (line.startsWith("@sleep ")) {
                Thread.sleep(Long.parseLong(line.substring(7)));
                continue;
            }
            List<byte[]> args = new ArrayList<>();
            for (String a : SplitArgs.split(line)) args.add(a.getBytes(StandardCharsets.ISO_8859_1));
            c.call(args);
        }
    }

    /** The commands of an AOF file, one per line, absolute millisecond times near now shown as T. */
    static List<String> commands(Path file) throws IOException {
        byte[] b = Files.readAllBytes(file);
        List<String> out = new ArrayList<>();
        int p = 0;
        long now = System.currentTimeMillis();
        while (p < b.length) {
            int nl = indexOf(b, p);
            String line = new String(b, p, nl - p, StandardCharsets.ISO_8859_1);
            p = nl + 2;
            if (line.startsWith("#")) continue;
            int argc = Integer.parseInt(line.substring(1));
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < argc; i++) {
                nl = indexOf(b, p);
                int len = Integer.parseInt(new String(b, p + 1, nl - p - 1, StandardCharsets.ISO_8859_1));
                String arg = new String(b, nl + 2, len, StandardCharsets.ISO_8859_1);
                p = nl + 2 + len + 2;
                if (arg.matches("\\d{13}") && Math.abs(Long.parseLong(arg) - now) < 3_600_000_0L) arg = "T";
                sb.append(i == 0 ? "" : " ").append(arg);
            }
            out.add(sb.toString());
        }
        return out;
    }

    private static int indexOf(byte[] b, int from) {
        for (int i = from; i + 1 < b.length; i++) if (b[i] == '\r' && b[i + 1] == '\n') return i;
        return b.length;
    }
}
