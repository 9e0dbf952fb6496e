package io.spinel.server;

import io.spinel.server.testing.DataSet;
import io.spinel.server.testing.RawClient;
import io.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Spinel as a replica: of redis-server 7.0 (full synchronization from its diskless EOF-marked
 * RDB, the stream, partial resynchronization, WAIT counting Spinel's acknowledgements), of
 * another Spinel, between a Redis master and a Redis replica of its own (chained: the same
 * offsets all along), promoted with REPLICAOF NO ONE (its replicas continue), with a password,
 * and with its link down. Data sets are compared with DEBUG DIGEST and every key rendered.
 */
class ReplicaTest {
    private final List<RedisServerProcess> redis = new ArrayList<>();
    private final List<SpinelServer> spinels = new ArrayList<>();

    @BeforeEach
    void needsRedis() {
        Assumptions.assumeTrue(RedisServerProcess.available(), "redis-server (Debian's redis-server package) is needed");
    }

    @AfterEach
    void stop() {
        for (SpinelServer s : spinels) s.close();
        for (RedisServerProcess r : redis) r.close();
    }

    private RedisServerProcess redis(String... options) throws Exception {
        List<String> o = new ArrayList<>(List.of("--repl-diskless-sync-delay", "0", "--repl-ping-replica-period", "1"));
        o.addAll(List.of(options));
        RedisServerProcess r = RedisServerProcess.start(Files.createTempDirectory("redis"), o.toArray(new String[0]));
        redis.add(r);
        return r;
    }

    private SpinelServer spinel(String... options) throws Exception {
        SpinelServer.Builder b = SpinelServer.builder().randomPort().option("bind", "127.0.0.1")
                .option("enable-debug-command", "yes").option("dir", Files.createTempDirectory("spinel").toString())
                .option("repl-diskless-sync-delay", "0");
        for (int i = 0; i < options.length; i += 2) b.option(options[i], options[i + 1]);
        SpinelServer s = b.start();
        spinels.add(s);
        return s;
    }

    private static String info(RawClient c) throws Exception {
        return new String(c.call("INFO", "replication"), StandardCharsets.ISO_8859_1);
    }

    /** The field names of a CLIENT LIST line, in order. */
    private static List<String> fieldNames(String reply) {
        List<String> names = new ArrayList<>();
        String line = reply.substring(reply.indexOf("\r\n") + 2).trim(); // after the bulk string's length
        for (String f : line.split(" ")) names.add(f.substring(0, f.indexOf('=')));
        return names;
    }

    private static String flagsOf(String line) {
        return line.split(" flags=")[1].split(" ")[0];
    }

    private static String stats(RawClient c) throws Exception {
        return new String(c.call("INFO", "stats"), StandardCharsets.ISO_8859_1);
    }

    private static String field(String info, String name) {
        for (String line : info.split("\r\n")) if (line.startsWith(name + ":")) return line.substring(name.length() + 1);
        throw new AssertionError("no " + name + " in " + info);
    }

    private static void awaitInSync(int port) throws Exception {
        long deadline = System.currentTimeMillis() + 20_000;
        try (RawClient c = new RawClient(port)) {
            while (true) {
                String i = info(c);
                if (i.contains("master_link_status:up") && i.contains("master_sync_in_progress:0")) return;
                assertThat(System.currentTimeMillis()).as("in sync: " + i).isLessThan(deadline);
                Thread.sleep(20);
            }
        }
    }

    /** A write on the master, its WAIT for the replicas to acknowledge it, then the same digest and keys on each. */
    private static void assertReplicated(int master, int replicas, int... ports) throws Exception {
        try (RawClient m = new RawClient(master)) {
            m.call("SET", "marker", Long.toString(System.nanoTime()));
            assertThat(m.callString("WAIT", Integer.toString(replicas), "10000")).isEqualTo(":" + replicas + "\r\n");
            String digest = m.callString("DEBUG", "DIGEST");
            var keys = DataSet.read(m, 16, false);
            for (int p : ports) {
                try (RawClient c = new RawClient(p)) {
                    DataSet.assertSame(keys, DataSet.read(c, 16, false));
                    assertThat(c.callString("DEBUG", "DIGEST")).as("digest of " + p).isEqualTo(digest);
                }
            }
        }
    }

    @Test
    void replicaOfRedis() throws Exception {
        RedisServerProcess master = redis();
        try (RawClient m = new RawClient(master.port())) {
            DataSet.populate(m, 4, 3000);
        }
        SpinelServer s = spinel("replicaof", "127.0.0.1 " + master.port());
        awaitInSync(s.port());
        assertReplicated(master.port(), 1, s.port());
        try (RawClient m = new RawClient(master.port()); RawClient c = new RawClient(s.port())) {
            DataSet.mutate(m);
            m.call("MULTI");
            m.call("INCR", "counter");
            m.call("SELECT", "4");
            m.call("SET", "in4", "x");
            m.call("EXEC");
            m.call("SELECT", "0");
            m.call("EVAL", "redis.call('rpush', KEYS[1], 'a', 'b') return 1", "1", "list");
            assertReplicated(master.port(), 1, s.port());
            // a replica's clients read only
            assertThat(c.callString("SET", "k", "v")).isEqualTo("-READONLY You can't write against a read only replica.\r\n");
            assertThat(c.callString("EVAL", "return redis.call('set', 'k', 'v')", "0"))
                    .startsWith("-READONLY You can't write against a read only replica.");
            assertThat(c.callString("ROLE")).startsWith("*5\r\n$5\r\nslave\r\n$9\r\n127.0.0.1\r\n:" + master.port()
                    + "\r\n$9\r\nconnected\r\n:");
            String i = info(c);
            assertThat(field(i, "role")).isEqualTo("slave");
            // the same offset as the master's (which moves on with its pings: read until they meet)
            long deadline = System.currentTimeMillis() + 5000;
            while (!field(info(c), "master_repl_offset").equals(field(info(m), "master_repl_offset"))) {
                assertThat(System.currentTimeMillis()).isLessThan(deadline);
                Thread.sleep(10);
            }
            // what came from the master counts apart from clients' input (INFO total_net_repl_input_bytes):
            // the master's replica output, and the replies to the handshake before it
            long metDeadline = System.currentTimeMillis() + 5000;
            while (true) {
                long out = Long.parseLong(field(stats(m), "total_net_repl_output_bytes"));
                long in = Long.parseLong(field(stats(c), "total_net_repl_input_bytes"));
                if (in >= out && in <= out + 512 && out > 100_000) break;
                assertThat(System.currentTimeMillis()).as("replica read " + in + " of " + out).isLessThan(metDeadline);
                Thread.sleep(10);
            }
            // an expired key stays until the master deletes it, hidden meanwhile
            m.call("DEBUG", "SET-ACTIVE-EXPIRE", "0");
            m.call("SET", "short", "v", "PX", "50");
            assertThat(m.callString("WAIT", "1", "5000")).isEqualTo(":1\r\n");
            Thread.sleep(100);
            assertThat(c.callString("GET", "short")).isEqualTo("$-1\r\n");
            assertThat(c.callString("EXISTS", "short")).isEqualTo(":0\r\n");
            String size = c.callString("DBSIZE");
            m.call("GET", "short"); // the master's lazy expiry: a DEL in the stream
            assertThat(m.callString("WAIT", "1", "5000")).isEqualTo(":1\r\n");
            assertThat(Long.parseLong(c.callString("DBSIZE").substring(1).trim()))
                    .isEqualTo(Long.parseLong(size.substring(1).trim()) - 1);
            m.call("DEBUG", "SET-ACTIVE-EXPIRE", "1");
            // MONITOR on a replica shows what its master runs, from the master's address
            try (RawClient mon = new RawClient(s.port())) {
                assertThat(mon.callString("MONITOR")).isEqualTo("+OK\r\n");
                m.call("SET", "monitored", "1");
                String line = new String(mon.readReply(), StandardCharsets.ISO_8859_1);
                while (!line.contains("monitored")) line = new String(mon.readReply(), StandardCharsets.ISO_8859_1);
                assertThat(line).contains("[0 127.0.0.1:" + master.port() + "] \"SET\" \"monitored\" \"1\"");
            }
            // the master's client is listed as Redis lists it (flags=M), counts as connected, and
            // CLIENT KILL drops the link, which comes back with a partial resynchronization
            RedisServerProcess redisReplica = redis("--replicaof", "127.0.0.1", Integer.toString(master.port()));
            awaitInSync(redisReplica.port());
            try (RawClient rr = new RawClient(redisReplica.port())) {
                String ours = new String(c.call("CLIENT", "LIST", "TYPE", "master"), StandardCharsets.ISO_8859_1);
                String theirs = new String(rr.call("CLIENT", "LIST", "TYPE", "master"), StandardCharsets.ISO_8859_1);
                assertThat(ours).contains(" addr=127.0.0.1:" + master.port() + " ", " flags=M ", " user=(superuser) ");
                List<String> names = fieldNames(ours);
                names.removeAll(List.of("lib-name", "lib-ver")); // Redis 7.2's fields (CLIENT SETINFO), see COMMANDS.md
                assertThat(names).isEqualTo(fieldNames(theirs));
                assertThat(flagsOf(ours)).isEqualTo(flagsOf(theirs));
                assertThat(new String(c.call("CLIENT", "LIST"), StandardCharsets.ISO_8859_1)).contains(" flags=M ");
                assertThat(field(new String(c.call("INFO", "clients"), StandardCharsets.ISO_8859_1), "connected_clients"))
                        .isEqualTo(field(new String(rr.call("INFO", "clients"), StandardCharsets.ISO_8859_1), "connected_clients"));
                assertThat(c.callString("CLIENT", "LIST", "TYPE", "normal")).doesNotContain("flags=M");
            }
            redisReplica.close();
            long gone = System.currentTimeMillis() + 10_000;
            while (!new String(m.call("INFO", "replication"), StandardCharsets.ISO_8859_1).contains("connected_slaves:1\r\n")) {
                assertThat(System.currentTimeMillis()).isLessThan(gone);
                Thread.sleep(10);
            }
            long partialBefore = Long.parseLong(field(new String(m.call("INFO", "stats"), StandardCharsets.ISO_8859_1),
                    "sync_partial_ok"));
            assertThat(c.callString("CLIENT", "KILL", "USER", "default", "SKIPME", "yes")).isEqualTo(":0\r\n");
            assertThat(c.callString("CLIENT", "KILL", "TYPE", "master")).isEqualTo(":1\r\n");
            // the link finds the closed socket on its own thread: wait for the master to see it back
            long back = System.currentTimeMillis() + 20_000;
            while (Long.parseLong(field(new String(m.call("INFO", "stats"), StandardCharsets.ISO_8859_1),
                    "sync_partial_ok")) == partialBefore) {
                assertThat(System.currentTimeMillis()).isLessThan(back);
                Thread.sleep(10);
            }
            awaitInSync(s.port());
            assertThat(Long.parseLong(field(new String(m.call("INFO", "stats"), StandardCharsets.ISO_8859_1),
                    "sync_partial_ok"))).isEqualTo(partialBefore + 1);
            // messages published on the master reach the replica's subscribers
            try (RawClient sub = new RawClient(s.port())) {
                sub.call("SUBSCRIBE", "news");
                m.call("PUBLISH", "news", "hello");
                sub.setTimeout(10_000);
                assertThat(new String(sub.readReply(), StandardCharsets.ISO_8859_1))
                        .isEqualTo("*3\r\n$7\r\nmessage\r\n$4\r\nnews\r\n$5\r\nhello\r\n");
            }
            // the link dropped: the replica continues from the master's backlog
            assertThat(m.callString("CLIENT", "KILL", "TYPE", "replica")).isEqualTo(":1\r\n");
            m.call("SET", "while-down", "1");
            awaitInSync(s.port());
            assertReplicated(master.port(), 1, s.port());
            assertThat(new String(m.call("INFO", "stats"), StandardCharsets.ISO_8859_1)).contains("sync_partial_ok:2\r\n");
        }
    }

    /**
     * CLIENT PAUSE WRITE on a replica holds its master's writes as its clients' (Redis postpones
     * the master's client): they are read (slave_read_repl_offset) but not applied
     * (slave_repl_offset, the data) until the pause ends. The link connects from bind-source-addr.
     */
    @Test
    void aPausedReplicaHoldsItsMastersWrites() throws Exception {
        RedisServerProcess master = redis();
        SpinelServer s = spinel("bind-source-addr", "127.0.0.2");
        try (RawClient m = new RawClient(master.port()); RawClient c = new RawClient(s.port())) {
            m.call("CONFIG", "SET", "protected-mode", "no"); // (127.0.0.2 is not the loopback address it lets in)
            assertThat(c.callString("REPLICAOF", "127.0.0.1", Integer.toString(master.port()))).isEqualTo("+OK\r\n");
            awaitInSync(s.port());
            assertThat(field(info(m), "slave0")).startsWith("ip=127.0.0.2,");
            m.call("SET", "foo", "bar");
            // (offsets compared with >=: the master's PINGs move its offset at any time)
            long applied = Long.parseLong(field(info(m), "master_repl_offset"));
            long deadline = System.currentTimeMillis() + 15_000;
            while (Long.parseLong(field(info(c), "slave_repl_offset")) < applied) {
                assertThat(System.currentTimeMillis()).isLessThan(deadline);
                Thread.sleep(10);
            }
            assertThat(c.callString("CLIENT", "PAUSE", "100000", "WRITE")).isEqualTo("+OK\r\n");
            m.call("SET", "foo2", "bar2");
            long sent = Long.parseLong(field(info(m), "master_repl_offset"));
            while (Long.parseLong(field(info(c), "slave_read_repl_offset")) < sent) {
                assertThat(System.currentTimeMillis()).isLessThan(deadline);
                Thread.sleep(10);
            }
            assertThat(Long.parseLong(field(info(c), "slave_repl_offset"))).isLessThan(sent);
            assertThat(c.callString("GET", "foo2")).isEqualTo("$-1\r\n");
            assertThat(c.callString("CLIENT", "UNPAUSE")).isEqualTo("+OK\r\n");
            while (Long.parseLong(field(info(c), "slave_repl_offset")) < sent) {
                assertThat(System.currentTimeMillis()).isLessThan(deadline);
                Thread.sleep(10);
            }
            assertThat(c.callString("GET", "foo2")).isEqualTo("$4\r\nbar2\r\n");
            assertReplicated(master.port(), 1, s.port());
        }
    }

    /**
     * DEBUG RELOAD on a replica serves its clients while it loads; the master's writes that
     * arrive meanwhile wait for the load's end (applied to a half-loaded data set, they would
     * meet the keys the load still brings) and then run in order.
     */
    @Test
    void aReplicaHoldsItsMastersWritesWhileDebugReloadLoads() throws Exception {
        RedisServerProcess master = redis();
        SpinelServer s = spinel();
        try (RawClient m = new RawClient(master.port()); RawClient c = new RawClient(s.port());
             RawClient other = new RawClient(s.port())) {
            for (int i = 0; i < 200; i++) m.call("SET", "key:" + i, "old:" + i);
            assertThat(c.callString("REPLICAOF", "127.0.0.1", Integer.toString(master.port()))).isEqualTo("+OK\r\n");
            awaitInSync(s.port());
            assertReplicated(master.port(), 1, s.port());
            c.call("CONFIG", "SET", "key-load-delay", "5000"); // 1 s
            c.send(List.of("DEBUG".getBytes(StandardCharsets.US_ASCII), "RELOAD".getBytes(StandardCharsets.US_ASCII)));
            long deadline = System.currentTimeMillis() + 10_000;
            while (!other.callString("PING").startsWith("-LOADING")) {
                assertThat(System.currentTimeMillis()).isLessThan(deadline);
                Thread.sleep(2);
            }
            for (int i = 0; i < 200; i++) m.call("SET", "key:" + i, "new:" + i);
            assertThat(other.callString("PING")).startsWith("-LOADING");
            assertThat(c.callString("PING")).isEqualTo("+OK\r\n"); // (the reply to DEBUG RELOAD, then PING's)
            assertThat(new String(c.readReply(), StandardCharsets.US_ASCII)).isEqualTo("+PONG\r\n");
            assertReplicated(master.port(), 1, s.port());
            assertThat(c.callString("GET", "key:7")).isEqualTo("$5\r\nnew:7\r\n");
        }
    }

    @Test
    void chainedBetweenRedisServersThenPromoted() throws Exception {
        RedisServerProcess master = redis();
        try (RawClient m = new RawClient(master.port())) {
            DataSet.populate(m, 5, 500);
        }
        SpinelServer s = spinel("replicaof", "127.0.0.1 " + master.port());
        awaitInSync(s.port());
        RedisServerProcess sub = redis("--replicaof", "127.0.0.1", Integer.toString(s.port()));
        awaitInSync(sub.port());
        try (RawClient m = new RawClient(master.port()); RawClient c = new RawClient(s.port());
             RawClient r = new RawClient(sub.port())) {
            DataSet.mutate(m);
            assertReplicated(master.port(), 1, s.port());
            awaitOffset(r, field(info(m), "master_repl_offset"));
            assertSameData(s.port(), sub.port());
            // the same history all along the chain
            assertThat(field(info(r), "master_replid")).isEqualTo(field(info(m), "master_replid"));
            // promoted: writable, a new history whose past is the master's; its replica continues
            assertThat(c.callString("REPLICAOF", "NO", "ONE")).isEqualTo("+OK\r\n");
            assertThat(c.callString("SET", "after-promotion", "1")).isEqualTo("+OK\r\n");
            awaitInSync(sub.port());
            assertReplicated(s.port(), 1, sub.port());
            assertThat(new String(c.call("INFO", "stats"), StandardCharsets.ISO_8859_1)).contains("sync_partial_ok:1\r\n");
            assertThat(field(info(c), "master_replid2")).isEqualTo(field(info(m), "master_replid"));
        }
    }

    private static void assertSameData(int a, int b) throws Exception {
        try (RawClient x = new RawClient(a); RawClient y = new RawClient(b)) {
            DataSet.assertSame(DataSet.read(x, 16, false), DataSet.read(y, 16, false));
            assertThat(y.callString("DEBUG", "DIGEST")).isEqualTo(x.callString("DEBUG", "DIGEST"));
        }
    }

    private static void awaitOffset(RawClient c, String offset) throws Exception {
        long deadline = System.currentTimeMillis() + 10_000;
        while (!field(info(c), "master_repl_offset").equals(offset)) {
            assertThat(System.currentTimeMillis()).isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    @Test
    void spinelReplicatesSpinelWithAPassword() throws Exception {
        SpinelServer master = spinel("requirepass", "secret");
        try (RawClient m = new RawClient(master.port())) {
            m.call("AUTH", "secret");
            DataSet.populate(m, 6, 1000);
        }
        SpinelServer s = spinel("masterauth", "secret");
        try (RawClient c = new RawClient(s.port())) {
            assertThat(c.callString("REPLICAOF", "127.0.0.1", Integer.toString(master.port()))).isEqualTo("+OK\r\n");
            assertThat(c.callString("REPLICAOF", "127.0.0.1", Integer.toString(master.port())))
                    .isEqualTo("+OK Already connected to specified master\r\n");
            assertThat(c.callString("CONFIG", "GET", "replicaof"))
                    .isEqualTo("*2\r\n$9\r\nreplicaof\r\n$" + ("127.0.0.1 " + master.port()).length() + "\r\n127.0.0.1 "
                            + master.port() + "\r\n");
        }
        awaitInSync(s.port());
        try (RawClient m = new RawClient(master.port()); RawClient c = new RawClient(s.port())) {
            m.call("AUTH", "secret");
            DataSet.mutate(m);
            assertThat(m.callString("WAIT", "1", "10000")).isEqualTo(":1\r\n");
            assertThat(c.callString("DEBUG", "DIGEST")).isEqualTo(m.callString("DEBUG", "DIGEST"));
            DataSet.assertSame(DataSet.read(m, 16, false), DataSet.read(c, 16, false));
        }
    }

    /**
     * A replica keeps a backlog from its first synchronization on, as Redis's does: a replica of
     * the same master that moves to it continues with a partial resynchronization (Redis's
     * "replicaof right after disconnection").
     */
    @Test
    void aReplicaOfTheSameMasterMovesToSpinelWithAPartialResync() throws Exception {
        RedisServerProcess master = redis();
        SpinelServer s = spinel("replicaof", "127.0.0.1 " + master.port());
        RedisServerProcess other = redis("--replicaof", "127.0.0.1", Integer.toString(master.port()));
        awaitInSync(s.port());
        awaitInSync(other.port());
        try (RawClient m = new RawClient(master.port()); RawClient o = new RawClient(other.port());
             RawClient c = new RawClient(s.port())) {
            DataSet.populate(m, 8, 200);
            assertThat(m.callString("WAIT", "2", "10000")).isEqualTo(":2\r\n");
            assertThat(field(info(c), "repl_backlog_active")).isEqualTo("1");
            o.call("REPLICAOF", "127.0.0.1", Integer.toString(s.port()));
            awaitInSync(other.port());
            String stats = new String(c.call("INFO", "stats"), StandardCharsets.ISO_8859_1);
            assertThat(field(stats, "sync_full")).isEqualTo("0");
            assertThat(field(stats, "sync_partial_ok")).isEqualTo("1");
        }
        assertReplicated(master.port(), 1, s.port(), other.port());
    }

    /**
     * A writable replica's own keys with a TTL expire (no master will delete them: Redis's
     * expireSlaveKeys), and a write to an expired key deletes it first; compared with a
     * redis-server replica of the same master.
     */
    @Test
    void aWritableReplicaExpiresTheKeysItsClientsGaveATtl() throws Exception {
        RedisServerProcess master = redis();
        RedisServerProcess theirs = redis("--replicaof", "127.0.0.1", Integer.toString(master.port()));
        SpinelServer ours = spinel("replicaof", "127.0.0.1 " + master.port());
        awaitInSync(theirs.port());
        awaitInSync(ours.port());
        List<String> seen = new ArrayList<>();
        List<String> tracked = new ArrayList<>();
        for (int port : new int[] {theirs.port(), ours.port()}) {
            try (RawClient c = new RawClient(port)) {
                c.call("CONFIG", "SET", "replica-read-only", "no");
                c.call("SELECT", "5");
                c.call("SET", "a", "1", "PX", "50");
                c.call("SET", "b", "1");
                c.call("PEXPIRE", "b", "50");
                c.call("HSET", "h", "f", "v");
                c.call("PEXPIRE", "h", "50");
                c.call("SET", "kept", "1");
                tracked.add(field(new String(c.call("INFO", "stats"), StandardCharsets.ISO_8859_1), "slave_expires_tracked_keys"));
                long deadline = System.currentTimeMillis() + 10_000;
                while (!c.callString("DBSIZE").equals(":1\r\n")) {
                    assertThat(System.currentTimeMillis()).as("expired on " + port).isLessThan(deadline);
                    Thread.sleep(20);
                }
                seen.add(field(new String(c.call("INFO", "stats"), StandardCharsets.ISO_8859_1), "expired_keys"));
            }
        }
        assertThat(seen.get(1)).isEqualTo(seen.get(0)).isEqualTo("3");
        assertThat(tracked.get(1)).isEqualTo(tracked.get(0)).isEqualTo("3");
    }

    /**
     * A command of the master's stream that fails on the replica (a writable replica's own value
     * in the way, a command it does not know) is logged as Redis logs it and counted in
     * unexpected_error_replies; the stream goes on.
     */
    @Test
    void errorsAnsweredToTheMastersStreamAreLogged() throws Exception {
        RedisServerProcess master = redis("--enable-debug-command", "yes");
        java.io.ByteArrayOutputStream log = new java.io.ByteArrayOutputStream();
        SpinelServer s = SpinelServer.builder().randomPort().option("bind", "127.0.0.1")
                .option("dir", Files.createTempDirectory("spinel").toString())
                .option("replicaof", "127.0.0.1 " + master.port()).option("replica-read-only", "no")
                .log(new io.spinel.core.Log(new java.io.PrintStream(log, true))).start();
        spinels.add(s);
        awaitInSync(s.port());
        try (RawClient m = new RawClient(master.port()); RawClient c = new RawClient(s.port())) {
            c.call("SET", "number", "foo");
            m.call("INCRBY", "number", "1");
            m.call("DEBUG", "REPLICATE", "fake-command-1");
            m.call("SET", "after", "1");
            assertThat(m.callString("WAIT", "1", "10000")).isEqualTo(":1\r\n");
            assertThat(c.callString("GET", "number")).isEqualTo("$3\r\nfoo\r\n");
            assertThat(c.callString("GET", "after")).isEqualTo("$1\r\n1\r\n");
            assertThat(field(new String(c.call("INFO", "stats"), StandardCharsets.ISO_8859_1), "unexpected_error_replies"))
                    .isEqualTo("2");
        }
        String text = log.toString(StandardCharsets.ISO_8859_1);
        assertThat(text).contains("# == CRITICAL == This replica is sending an error to its master: 'value is not an "
                + "integer or out of range' after processing the command 'incrby'");
        assertThat(text).contains("# == CRITICAL == This replica is sending an error to its master: 'unknown command "
                + "'fake-command-1', with args beginning with: ' after processing the command '<unknown>'");
    }

    /**
     * The link dropped while the replica's engine is busy (CLIENT KILL of the master, then DEBUG
     * SLEEP, in one transaction, as Redis's replication-psync test does) under a steady write
     * load: the commands read before the drop still wait for the engine when the link reconnects,
     * so the PSYNC offset must count them, or the master sends them again (applied twice) and the
     * offsets stop meeting the master's commands.
     */
    @Test
    void aLinkDroppedWhileTheReplicaIsBusyContinuesWhereItsCommandsEnd() throws Exception {
        SpinelServer master = spinel();
        SpinelServer s = spinel("replicaof", "127.0.0.1 " + master.port());
        awaitInSync(s.port());
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        List<Throwable> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<Thread> writers = new ArrayList<>();
        for (int t = 0; t < 3; t++) {
            String counter = "counter" + t;
            Thread writer = new Thread(() -> {
                // pipelined, so that the replica always has read more of the stream than it ran
                try (RawClient w = new RawClient(master.port())) {
                    for (int i = 0; !stop.get(); i++) {
                        for (int j = 0; j < 50; j++) {
                            w.send(List.of("INCR".getBytes(), counter.getBytes()));
                            w.send(List.of("RPUSH".getBytes(), ("list" + counter).getBytes(), Integer.toString(i).getBytes()));
                        }
                        for (int j = 0; j < 100; j++) w.readReply();
                    }
                } catch (Exception e) {
                    errors.add(e);
                }
            });
            writer.start();
            writers.add(writer);
        }
        try (RawClient c = new RawClient(s.port())) {
            for (int round = 0; round < 2; round++) {
                Thread.sleep(300);
                c.call("MULTI");
                c.call("CLIENT", "KILL", "127.0.0.1:" + master.port());
                c.call("DEBUG", "SLEEP", "2.5"); // longer than the link waits before it reconnects
                assertThat(c.callString("EXEC")).startsWith("*2\r\n+OK\r\n");
            }
        } finally {
            stop.set(true);
            for (Thread w : writers) w.join();
        }
        assertThat(errors).isEmpty();
        awaitInSync(s.port());
        assertReplicated(master.port(), 1, s.port());
    }

    /**
     * A replica restarted on the RDB it saved at shutdown continues with a partial
     * resynchronization: the RDB holds the replication id, offset and stream database (Redis's
     * "PSYNC2: Partial resync after restart using RDB aux fields").
     */
    @Test
    void aReplicaRestartedOnItsRdbResynchronizesPartially() throws Exception {
        RedisServerProcess master = redis();
        java.nio.file.Path dir = Files.createTempDirectory("spinel");
        try (RawClient m = new RawClient(master.port())) {
            m.call("SELECT", "3");
            DataSet.populate(m, 9, 300);
        }
        for (int start = 0; start < 2; start++) {
            SpinelServer s = SpinelServer.builder().randomPort().option("bind", "127.0.0.1").option("dir", dir.toString())
                    .option("enable-debug-command", "yes").option("save", "3600 1")
                    .option("replicaof", "127.0.0.1 " + master.port()).start();
            try {
                awaitInSync(s.port());
                try (RawClient m = new RawClient(master.port())) {
                    m.call("SELECT", "3");
                    m.call("INCR", "counter"); // in the stream's database, with no SELECT before it after a restart
                }
                assertReplicated(master.port(), 1, s.port());
            } finally {
                s.close(); // SHUTDOWN saves (a save point is set)
            }
        }
        try (RawClient m = new RawClient(master.port())) {
            String stats = new String(m.call("INFO", "stats"), StandardCharsets.ISO_8859_1);
            assertThat(field(stats, "sync_full")).isEqualTo("1");
            assertThat(field(stats, "sync_partial_ok")).isEqualTo("1");
        }
    }

    /**
     * The master's RDB becomes the replica's own RDB file, as Redis renames it (a replica started
     * again on it continues with a partial resynchronization, no save of its own needed), clients
     * get -LOADING while it loads, and rdb-del-sync-files removes it from a replica without
     * persistence.
     */
    @Test
    void aReplicaKeepsItsMastersRdbAndAnswersLoadingMeanwhile() throws Exception {
        RedisServerProcess master = redis();
        try (RawClient m = new RawClient(master.port())) {
            DataSet.populate(m, 5, 400);
        }
        java.nio.file.Path dir = Files.createTempDirectory("spinel");
        SpinelServer s = SpinelServer.builder().randomPort().option("bind", "127.0.0.1").option("dir", dir.toString())
                .option("save", "").option("key-load-delay", "2000").start(); // 2 ms a key: a load of about a second
        try (RawClient c = new RawClient(s.port())) {
            c.call("REPLICAOF", "127.0.0.1", Integer.toString(master.port()));
            long deadline = System.currentTimeMillis() + 20_000;
            while (!new String(c.call("INFO", "persistence"), StandardCharsets.ISO_8859_1).contains("loading:1")) {
                assertThat(System.currentTimeMillis()).as("the replica's load begins").isLessThan(deadline);
                Thread.sleep(5);
            }
            assertThat(c.callString("GET", "any")).startsWith("-LOADING");
            c.call("CONFIG", "SET", "key-load-delay", "0");
            awaitInSync(s.port());
        } finally {
            s.close(); // no save point: SHUTDOWN saves nothing
        }
        assertThat(dir.resolve("dump.rdb")).exists();
        s = SpinelServer.builder().randomPort().option("bind", "127.0.0.1").option("dir", dir.toString())
                .option("save", "").option("enable-debug-command", "yes")
                .option("replicaof", "127.0.0.1 " + master.port()).start();
        try {
            awaitInSync(s.port());
            assertReplicated(master.port(), 1, s.port());
        } finally {
            s.close();
        }
        try (RawClient m = new RawClient(master.port())) {
            String stats = stats(m);
            assertThat(field(stats, "sync_partial_ok")).as("the restarted replica continues from the RDB it kept").isEqualTo("1");
        }

        assertInSyncLeavingNoFile(master, "a replica without persistence keeps no copy", "rdb-del-sync-files", "yes");
    }

    /** A replica of master without persistence, with these options: in sync, its dir left empty. */
    private void assertInSyncLeavingNoFile(RedisServerProcess master, String why, String... options) throws Exception {
        java.nio.file.Path dir = Files.createTempDirectory("spinel");
        List<String> o = new ArrayList<>(List.of("dir", dir.toString(), "save", "", "replicaof", "127.0.0.1 " + master.port()));
        o.addAll(List.of(options));
        SpinelServer s = spinel(o.toArray(new String[0]));
        awaitInSync(s.port());
        assertReplicated(master.port(), 1, s.port());
        try (var files = Files.list(dir)) {
            assertThat(files).as(why).isEmpty();
        }
    }

    /**
     * repl-diskless-load on-empty-db: an empty replica loads the master's RDB from the link, with
     * an EOF mark (diskless master) or a length (the master's file), and keeps no file of it.
     */
    @Test
    void anEmptyReplicaLoadsFromTheLink() throws Exception {
        for (String masterDiskless : List.of("yes", "no")) {
            RedisServerProcess master = redis("--repl-diskless-sync", masterDiskless);
            try (RawClient m = new RawClient(master.port())) {
                DataSet.populate(m, 11, 300);
            }
            assertInSyncLeavingNoFile(master, "nothing on disk (master diskless " + masterDiskless + ")",
                    "repl-diskless-load", "on-empty-db");
        }
    }

    private static String persistence(RawClient c) throws Exception {
        return new String(c.call("INFO", "persistence"), StandardCharsets.ISO_8859_1);
    }

    private static void awaitPersistence(RawClient c, String line, String what) throws Exception {
        long deadline = System.currentTimeMillis() + 20_000;
        while (!persistence(c).contains(line + "\r\n")) {
            assertThat(System.currentTimeMillis()).as(what).isLessThan(deadline);
            Thread.sleep(5);
        }
    }

    /**
     * repl-diskless-load swapdb: the RDB goes to databases of its own; a load that fails (the
     * master drops the link) leaves the old data set; from the master this replica already
     * follows, the clients keep reading the old data while it loads (async_loading), and the
     * loaded one replaces it at the end.
     */
    @Test
    void swapdbKeepsTheOldDataUntilTheLoadSucceeds() throws Exception {
        RedisServerProcess master = redis();
        try (RawClient m = new RawClient(master.port())) {
            m.call("DEBUG", "POPULATE", "100", "big", "10000");
            m.call("CONFIG", "SET", "rdbcompression", "no");
            m.call("CONFIG", "SET", "rdb-key-save-delay", "10000"); // 10 ms a key: a second's transfer
        }
        SpinelServer s = spinel("save", "", "repl-diskless-load", "swapdb");
        try (RawClient c = new RawClient(s.port()); RawClient m = new RawClient(master.port())) {
            c.call("SET", "mine", "old");
            c.call("REPLICAOF", "127.0.0.1", Integer.toString(master.port()));
            awaitPersistence(c, "loading:1", "the first load begins (another master's history: not async)");
            assertThat(persistence(c)).contains("async_loading:0");
            m.call("CONFIG", "SET", "repl-diskless-sync-delay", "5"); // no new attempt at once
            m.call("CLIENT", "KILL", "TYPE", "replica");
            awaitPersistence(c, "loading:0", "the load fails");
            assertThat(c.callString("GET", "mine")).isEqualTo("$3\r\nold\r\n");
            assertThat(c.callString("DBSIZE")).isEqualTo(":1\r\n");

            m.call("CONFIG", "SET", "repl-diskless-sync-delay", "0");
            m.call("CONFIG", "SET", "rdb-key-save-delay", "0");
            awaitInSync(s.port());
            assertReplicated(master.port(), 1, s.port());
            assertThat(c.callString("GET", "mine")).isEqualTo("$-1\r\n");

            // a full synchronization again, from the same master: the old data stays readable
            c.call("CONFIG", "SET", "replica-read-only", "no");
            c.call("SET", "mine", "kept while loading");
            long usedBefore = usedMemory(c);
            m.call("CONFIG", "SET", "rdb-key-save-delay", "10000");
            m.call("CONFIG", "SET", "repl-backlog-size", "16384");
            m.call("MULTI");
            m.call("CLIENT", "KILL", "TYPE", "replica");
            for (int i = 0; i < 4; i++) m.call("SET", "filler" + i, "x".repeat(16384)); // past the backlog
            m.call("EXEC");
            awaitPersistence(c, "async_loading:1", "the second load begins, async");
            assertThat(persistence(c)).contains("\r\nloading:0\r\n");
            assertThat(c.callString("GET", "mine")).isEqualTo("$18\r\nkept while loading\r\n");
            assertThat(c.callString("CONFIG", "SET", "appendonly", "no")).startsWith("-LOADING");
            assertThat(c.callString("REPLICAOF", "NO", "ONE")).startsWith("-LOADING");
            // the databases being loaded count in used_memory beside the old ones, as in Redis
            while (usedMemory(c) < usedBefore + 300_000) {
                assertThat(persistence(c)).as("300 KB loaded before the load's end").contains("async_loading:1");
                Thread.sleep(5);
            }
            awaitPersistence(c, "async_loading:0", "the second load ends");
            m.call("CONFIG", "SET", "rdb-key-save-delay", "0");
            awaitInSync(s.port());
            assertReplicated(master.port(), 1, s.port());
            assertThat(c.callString("GET", "mine")).isEqualTo("$-1\r\n");
            assertThat(usedMemory(c)).as("the old data set no longer counted").isLessThan(usedBefore + 300_000);
        }
    }

    private static long usedMemory(RawClient c) throws IOException {
        String info = c.callString("INFO", "memory");
        int at = info.indexOf("used_memory:") + "used_memory:".length();
        return Long.parseLong(info.substring(at, info.indexOf('\r', at)));
    }

    /**
     * A master turned replica: its blocked clients (lists, sorted sets, WAIT) get Redis's error and
     * are closed, since what they wait for would now come from the new master's stream (Redis's
     * issue #2473); compared with redis-server doing the same.
     */
    @Test
    void blockedClientsOfAMasterTurnedReplicaAreUnblocked() throws Exception {
        int nobody = RedisServerProcess.freePort();
        RedisServerProcess r = redis();
        SpinelServer s = spinel();
        List<String> seen = new ArrayList<>();
        for (int port : new int[] {r.port(), s.port()}) {
            try (RawClient c = new RawClient(port); RawClient list = new RawClient(port);
                 RawClient zset = new RawClient(port)) {
                list.send(List.of("BLPOP".getBytes(), "foo".getBytes(), "0".getBytes()));
                zset.send(List.of("BZPOPMIN".getBytes(), "z".getBytes(), "0".getBytes()));
                long deadline = System.currentTimeMillis() + 10_000;
                while (!c.callString("INFO", "clients").contains("blocked_clients:2")) {
                    assertThat(System.currentTimeMillis()).isLessThan(deadline);
                    Thread.sleep(10);
                }
                c.call("REPLICAOF", "127.0.0.1", Integer.toString(nobody));
                list.setTimeout(10_000);
                zset.setTimeout(10_000);
                String replies = new String(list.readReply(), StandardCharsets.ISO_8859_1)
                        + new String(zset.readReply(), StandardCharsets.ISO_8859_1);
                assertThat(list.isClosedByPeer()).as("closed after the error").isTrue();
                seen.add(replies + field(new String(c.call("INFO", "clients"), StandardCharsets.ISO_8859_1), "blocked_clients")
                        + field(new String(c.call("INFO", "errorstats"), StandardCharsets.ISO_8859_1), "errorstat_UNBLOCKED"));
                c.call("REPLICAOF", "NO", "ONE");
            }
        }
        assertThat(seen.get(0)).startsWith("-UNBLOCKED force unblock from blocking operation, instance state changed "
                + "(master -> replica?)\r\n");
        assertThat(seen.get(1)).isEqualTo(seen.get(0));
    }

    @Test
    void aReplicaWhoseLinkIsDown() throws Exception {
        int nobody = RedisServerProcess.freePort();
        SpinelServer s = spinel("replicaof", "127.0.0.1 " + nobody, "replica-serve-stale-data", "no");
        try (RawClient c = new RawClient(s.port())) {
            assertThat(c.callString("GET", "k"))
                    .isEqualTo("-MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.\r\n");
            String i = info(c);
            assertThat(field(i, "master_link_status")).isEqualTo("down");
            // (the link may already be trying its next connection: "connect" or "connecting", as in Redis)
            assertThat(c.callString("ROLE")).containsPattern("\\$7\r\nconnect\r\n|\\$10\r\nconnecting\r\n").contains(":-1\r\n");
            // a replica without a link serves no replicas
            c.call("CONFIG", "SET", "replica-serve-stale-data", "yes");
            assertThat(c.callString("PSYNC", "?", "-1")).isEqualTo("-NOMASTERLINK Can't SYNC while not connected with my master\r\n");
            assertThat(c.callString("GET", "k")).isEqualTo("$-1\r\n");
            assertThat(c.callString("REPLICAOF", "NO", "ONE")).isEqualTo("+OK\r\n");
            assertThat(c.callString("SET", "k", "v")).isEqualTo("+OK\r\n");
            assertThat(field(info(c), "role")).isEqualTo("master");
            // a transaction queued while serving, run once the link is down: refused whole, as Redis
            // checks EXEC against the commands it holds
            c.call("CONFIG", "SET", "replica-serve-stale-data", "no");
            try (RawClient other = new RawClient(s.port())) {
                c.call("MULTI");
                assertThat(c.callString("GET", "k")).isEqualTo("+QUEUED\r\n");
                other.call("REPLICAOF", "127.0.0.1", Integer.toString(nobody));
                assertThat(c.callString("EXEC")).isEqualTo("-EXECABORT Transaction discarded because of: MASTERDOWN Link "
                        + "with MASTER is down and replica-serve-stale-data is set to 'no'.\r\n");
                c.call("MULTI");
                assertThat(c.callString("INFO", "server")).isEqualTo("+QUEUED\r\n");
                assertThat(c.callString("EXEC")).startsWith("*1\r\n$");
                other.call("REPLICAOF", "NO", "ONE");
            }
            assertThat(c.callString("REPLICAOF", "127.0.0.1", "x")).isEqualTo("-ERR value is not an integer or out of range\r\n");
        }
    }

    /** redis-server's FAILOVER to a Spinel replica: Spinel takes PSYNC ... FAILOVER and becomes the master. */
    @Test
    void redisFailsOverToSpinel() throws Exception {
        RedisServerProcess master = redis();
        SpinelServer s = spinel("replicaof", "127.0.0.1 " + master.port());
        awaitInSync(s.port());
        try (RawClient m = new RawClient(master.port()); RawClient c = new RawClient(s.port())) {
            m.call("SET", "k", "v");
            assertThat(m.callString("FAILOVER", "TIMEOUT", "10000")).isEqualTo("+OK\r\n");
            long deadline = System.currentTimeMillis() + 15_000;
            while (!field(info(c), "role").equals("master") || !info(m).contains("master_link_status:up")) {
                assertThat(System.currentTimeMillis()).isLessThan(deadline);
                Thread.sleep(20);
            }
            assertThat(c.callString("SET", "after", "1")).isEqualTo("+OK\r\n");
            assertThat(c.callString("WAIT", "1", "5000")).isEqualTo(":1\r\n");
            assertThat(m.callString("GET", "after")).isEqualTo("$1\r\n1\r\n");
            assertThat(m.callString("GET", "k")).isEqualTo("$1\r\nv\r\n");
        }
    }
}
