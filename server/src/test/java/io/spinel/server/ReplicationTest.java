package io.spinel.server;

import io.spinel.server.testing.DataSet;
import io.spinel.server.testing.RawClient;
import io.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Spinel as a master with redis-server 7.0 as its replica: the replica's own code checks every
 * byte of the handshake, the RDB and the stream, and its data set must end up as Spinel's
 * (DEBUG DIGEST of both, and every key rendered): after a full synchronization, while writes
 * continue during it, after a partial one from the backlog, and after a full one when the
 * backlog no longer holds what it missed.
 */
class ReplicationTest {
    private SpinelServer master;
    private final List<RedisServerProcess> replicas = new ArrayList<>();

    @BeforeEach
    void start() {
        Assumptions.assumeTrue(RedisServerProcess.available(), "redis-server (Debian's redis-server package) is needed");
        master = SpinelServer.builder().randomPort().option("bind", "127.0.0.1").option("enable-debug-command", "yes")
                .option("repl-backlog-size", "64kb").option("repl-diskless-sync-delay", "0").start();
    }

    @AfterEach
    void stop() {
        for (RedisServerProcess r : replicas) r.close();
        if (master != null) master.close();
    }

    private RawClient master() throws Exception {
        return new RawClient(master.port());
    }

    private RedisServerProcess replica() throws Exception {
        RedisServerProcess r = RedisServerProcess.start(Files.createTempDirectory("replica"), "--replicaof", "127.0.0.1",
                Integer.toString(master.port()), "--repl-ping-replica-period", "1");
        replicas.add(r);
        awaitInSync(r);
        return r;
    }

    /** A replica that reads nothing for a while (DEBUG SLEEP from a thread of its own), started. */
    private static Thread sleep(RedisServerProcess r, String seconds) {
        Thread sleeper = new Thread(() -> {
            try (RawClient c = new RawClient(r.port())) {
                c.call("DEBUG", "SLEEP", seconds);
            } catch (Exception ignored) {
                // the assertions that follow tell
            }
        });
        sleeper.start();
        return sleeper;
    }

    private static String info(RawClient c, String section) throws Exception {
        return new String(c.call("INFO", section), StandardCharsets.ISO_8859_1);
    }

    private static long field(String info, String name) {
        for (String line : info.split("\r\n")) {
            if (line.startsWith(name + ":")) return Long.parseLong(line.substring(name.length() + 1));
        }
        throw new AssertionError("no " + name + " in " + info);
    }

    private void awaitInSync(RedisServerProcess r) throws Exception {
        long deadline = System.currentTimeMillis() + 20_000;
        try (RawClient c = new RawClient(r.port())) {
            while (true) {
                String i = info(c, "replication");
                if (i.contains("master_link_status:up") && i.contains("master_sync_in_progress:0")) return;
                assertThat(System.currentTimeMillis()).as("replica in sync: " + i).isLessThan(deadline);
                Thread.sleep(20);
            }
        }
    }

    /**
     * A write, WAIT for every replica to acknowledge it (and so everything before it), then the
     * same digest on the replica as on the master. Redis's digest covers every key, value and
     * expiry, and here two implementations compute it, so equal digests are equal data sets; only
     * when they differ are both read key by key (seconds for the larger data sets), to name what.
     */
    private void assertReplicated(RedisServerProcess r) throws Exception {
        try (RawClient m = master(); RawClient c = new RawClient(r.port())) {
            m.call("SET", "marker", Long.toString(System.nanoTime()));
            assertThat(m.callString("WAIT", Integer.toString(replicas.size()), "10000"))
                    .isEqualTo(":" + replicas.size() + "\r\n");
            String digest = m.callString("DEBUG", "DIGEST");
            if (!c.callString("DEBUG", "DIGEST").equals(digest)) {
                DataSet.assertSame(DataSet.read(m, 16, false), DataSet.read(c, 16, false));
                assertThat(c.callString("DEBUG", "DIGEST")).as("the same keys, yet another digest").isEqualTo(digest);
            }
        }
    }

    /**
     * A replica that stops reading: the master holds its output, reports it (INFO memory's
     * replication fields, MEMORY STATS) and does not evict for it, as Redis leaves replicas'
     * buffers out of maxmemory; its bytes count apart from clients' output.
     */
    @Test
    void aSlowReplicasOutputIsReportedAndNotEvictedFor() throws Exception {
        RedisServerProcess r = replica();
        try (RawClient m = master()) {
            for (int i = 0; i < 100; i++) m.call("SET", "key:" + i, "x".repeat(i == 0 ? 100_000 : 1000));
            assertReplicated(r);
            String before = info(m, "memory");
            long backlog = field(before, "mem_replication_backlog");
            assertThat(backlog).isEqualTo(64 * 1024);
            assertThat(field(before, "mem_total_replication_buffers")).isLessThan(backlog + 64 * 1024);
            long limit = field(before, "used_memory") - field(before, "mem_not_counted_for_evict") + 1024 * 1024;
            m.call("CONFIG", "SET", "maxmemory-policy", "allkeys-random");
            m.call("CONFIG", "SET", "maxmemory", Long.toString(limit));
            long replOut = field(info(m, "stats"), "total_net_repl_output_bytes");
            long clientOut = field(info(m, "stats"), "total_net_output_bytes");
            Thread sleeper = sleep(r, "4");
            Thread.sleep(200);
            String value = "y".repeat(100_000);
            for (int i = 0; i < 200; i++) m.call("SETRANGE", "key:0", "0", value); // 20 MB, the data set the same
            String during = info(m, "memory");
            long held = field(during, "mem_not_counted_for_evict");
            assertThat(held).as(during).isGreaterThan(2 << 20);
            assertThat(field(during, "mem_clients_slaves")).isGreaterThan(held - 64 * 1024);
            // all a replica's output is left out, its reply buffer whole (grown by the burst) too:
            // what remains counted is the connection's own small cost
            assertThat(field(during, "mem_clients_slaves") - held).as(during).isLessThan(64 * 1024);
            assertThat(field(during, "mem_total_replication_buffers")).isGreaterThanOrEqualTo(backlog + held);
            assertThat(field(during, "used_memory")).isGreaterThan(limit);
            assertThat(m.callString("DBSIZE")).isEqualTo(":101\r\n"); // nothing evicted for the replica (100 and the marker)
            assertThat(m.callString("MEMORY", "STATS")).contains("$19\r\nreplication.backlog\r\n:" + backlog + "\r\n");
            String stats = info(m, "stats");
            assertThat(field(stats, "total_net_repl_output_bytes") - replOut).isGreaterThan(2 << 20);
            assertThat(field(stats, "total_net_output_bytes") - clientOut).isLessThan(100_000);
            sleeper.join();
            m.call("CONFIG", "SET", "maxmemory", "0");
            assertReplicated(r);
            assertThat(field(info(m, "memory"), "mem_not_counted_for_evict")).isLessThan(64 * 1024);
        }
    }

    /**
     * SHUTDOWN with a replica behind (Redis 7.0's shutdown-timeout): the caller waits, writes are
     * held, INFO says how long is left; SHUTDOWN ABORT lets the server go on (the caller gets the
     * error, the held write runs); a second SHUTDOWN stops the server once the replica caught up
     * with the last write, which it then holds.
     */
    /**
     * CONFIG SET repl-backlog-size to less than the backlog holds keeps only its newest bytes
     * (Redis's resizeReplicationBacklog), so a replica from before them needs a full
     * synchronization; the replicas online go on.
     */
    @Test
    void aSmallerBacklogKeepsItsNewestBytes() throws Exception {
        RedisServerProcess r = replica();
        try (RawClient m = master()) {
            for (int i = 0; i < 10; i++) m.call("SET", "k" + i, "v".repeat(10_000));
            assertReplicated(r);
            String replid = new String(m.call("INFO", "replication"), StandardCharsets.ISO_8859_1).split("master_replid:")[1].substring(0, 40);
            long early = field(info(m, "replication"), "repl_backlog_first_byte_offset");
            assertThat(field(info(m, "replication"), "repl_backlog_histlen")).isGreaterThan(16384L);
            m.call("CONFIG", "SET", "repl-backlog-size", "16384");
            String i = info(m, "replication");
            assertThat(field(i, "repl_backlog_histlen")).isEqualTo(16384L);
            assertThat(field(i, "repl_backlog_first_byte_offset")).isEqualTo(field(i, "master_repl_offset") - 16384 + 1);
            m.call("SET", "after", "1");
            assertReplicated(r);
            try (RawClient late = master()) {
                assertThat(late.callString("PSYNC", replid, Long.toString(early))).startsWith("+FULLRESYNC");
            }
        }
    }

    @Test
    void shutdownWaitsForALaggingReplica() throws Exception {
        master.close();
        java.io.ByteArrayOutputStream log = new java.io.ByteArrayOutputStream();
        master = SpinelServer.builder().randomPort().option("bind", "127.0.0.1").option("repl-diskless-sync-delay", "0")
                .option("enable-debug-command", "yes").option("shutdown-timeout", "30").log(new io.spinel.core.Log(new java.io.PrintStream(log, true))).start();
        RedisServerProcess r = replica();
        try (RawClient m = master(); RawClient caller = master(); RawClient writer = master()) {
            m.call("SET", "k", "1");
            assertReplicated(r);
            Thread sleeper = sleep(r, "3");
            Thread.sleep(200);
            m.call("INCR", "k");
            caller.send(List.of("SHUTDOWN".getBytes(StandardCharsets.UTF_8)));
            long deadline = System.currentTimeMillis() + 5000;
            while (!info(m, "server").contains("shutdown_in_milliseconds:")) {
                assertThat(System.currentTimeMillis()).isLessThan(deadline);
                Thread.sleep(10);
            }
            assertThat(field(info(m, "server"), "shutdown_in_milliseconds")).isBetween(20_000L, 30_000L);
            assertThat(field(info(m, "clients"), "blocked_clients")).isEqualTo(1);
            writer.send(List.of("SET".getBytes(StandardCharsets.UTF_8), "held".getBytes(StandardCharsets.UTF_8),
                    "1".getBytes(StandardCharsets.UTF_8)));
            Thread.sleep(100);
            assertThat(m.callString("EXISTS", "held")).isEqualTo(":0\r\n"); // writes wait while the shutdown does
            assertThat(m.callString("SHUTDOWN", "ABORT")).isEqualTo("+OK\r\n");
            assertThat(new String(caller.readReply(), StandardCharsets.UTF_8)).isEqualTo("-ERR Errors trying to SHUTDOWN. Check logs.\r\n");
            assertThat(new String(writer.readReply(), StandardCharsets.UTF_8)).isEqualTo("+OK\r\n");
            assertThat(info(m, "server")).doesNotContain("shutdown_in_milliseconds");
            assertThat(m.callString("SHUTDOWN", "ABORT")).isEqualTo("-ERR No shutdown in progress.\r\n");
            assertThat(log.toString()).contains("Waiting for replicas before shutting down.", "Shutdown manually aborted.");
            sleeper.join();
            sleeper = sleep(r, "2");
            Thread.sleep(200);
            m.call("INCR", "k");
            caller.send(List.of("SHUTDOWN".getBytes(StandardCharsets.UTF_8)));
            assertThat(caller.isClosedByPeer()).isTrue();
            sleeper.join();
        }
        try (RawClient c = new RawClient(r.port())) {
            assertThat(c.callString("GET", "k")).isEqualTo("$1\r\n3\r\n"); // the last write reached it first
        }
        assertThat(log.toString()).contains("1 of 1 replicas are in sync when shutting down.").doesNotContain("Lagging replica");
    }

    @Test
    void fullSyncThenTheStream() throws Exception {
        try (RawClient m = master()) {
            DataSet.populate(m, 1, 2000);
            m.call("FUNCTION", "LOAD", "#!lua name=lib\nredis.register_function('f', function(k) return 1 end)");
        }
        RedisServerProcess r = replica();
        assertReplicated(r);
        try (RawClient m = master(); RawClient c = new RawClient(r.port())) {
            // the stream: every type, databases, transactions, scripts, expiry, flushes
            DataSet.mutate(m);
            m.call("SELECT", "7");
            m.call("SET", "x", "1", "EX", "100");
            m.call("MULTI");
            m.call("INCR", "x");
            m.call("LPUSH", "l", "a", "b");
            m.call("EXEC");
            m.call("EVAL", "redis.call('set', KEYS[1], 'v') redis.call('hset', 'h', 'f', 'v') return 1", "1", "s");
            m.call("SET", "gone", "1", "PX", "1");
            Thread.sleep(20);
            m.call("GET", "gone");
            m.call("SELECT", "2");
            m.call("FLUSHDB");
            m.call("SELECT", "0");
            assertReplicated(r);
            assertThat(c.callString("FUNCTION", "LIST")).contains("$3\r\nlib\r\n");
            assertThat(c.callString("TTL", "x")).isNotEqualTo(":-1\r\n");
            // what a master with a replica shows
            String repl = info(m, "replication");
            assertThat(repl).contains("role:master\r\nconnected_slaves:1\r\nslave0:ip=127.0.0.1,port=" + r.port()
                    + ",state=online,offset=").contains("repl_backlog_active:1");
            // the replica's offset meets the master's (a ping may come in between: read until they meet)
            long deadline = System.currentTimeMillis() + 5000;
            while (field(info(m, "replication"), "master_repl_offset") != field(info(c, "replication"), "master_repl_offset")) {
                assertThat(System.currentTimeMillis()).isLessThan(deadline);
                Thread.sleep(10);
            }
            assertThat(m.callString("ROLE")).startsWith("*3\r\n$6\r\nmaster\r\n:").contains("$5\r\n" + r.port() + "\r\n");
            assertThat(m.callString("CLIENT", "LIST", "TYPE", "replica")).contains("flags=S");
            assertThat(field(info(m, "clients"), "connected_clients")).isEqualTo(1); // this one, not the replica
            assertThat(field(info(m, "stats"), "sync_full")).isEqualTo(1);
            m.call("CONFIG", "RESETSTAT");
            assertThat(field(info(m, "stats"), "sync_full")).isEqualTo(0);
        }
    }

    /**
     * PUBLISH and SPUBLISH go to the replicas (not to the AOF), as Redis propagates them, so that
     * the replicas' subscribers get what the master's get: alone, inside MULTI, from a script.
     */
    @Test
    void messagesPublishedOnTheMasterReachTheReplicasSubscribers() throws Exception {
        RedisServerProcess r = replica();
        try (RawClient m = master(); RawClient sub = new RawClient(r.port())) {
            sub.call("SUBSCRIBE", "news");
            sub.call("SSUBSCRIBE", "shard");
            m.call("PUBLISH", "news", "one");
            m.call("MULTI");
            m.call("PUBLISH", "news", "two");
            m.call("SET", "k", "v");
            m.call("EXEC");
            m.call("EVAL", "redis.call('publish', 'news', 'three')", "0");
            m.call("SPUBLISH", "shard", "four");
            sub.setTimeout(10_000);
            for (String message : List.of("one", "two", "three")) {
                assertThat(new String(sub.readReply(), StandardCharsets.ISO_8859_1))
                        .isEqualTo("*3\r\n$7\r\nmessage\r\n$4\r\nnews\r\n$" + message.length() + "\r\n" + message + "\r\n");
            }
            assertThat(new String(sub.readReply(), StandardCharsets.ISO_8859_1))
                    .isEqualTo("*3\r\n$8\r\nsmessage\r\n$5\r\nshard\r\n$4\r\nfour\r\n");
        }
        assertReplicated(r);
    }

    /**
     * A master restarted on its RDB (which records the replication id and offset) lets its replica
     * continue with a partial resynchronization, the keys that expired while it was down deleted
     * on the replica too (Redis's psync2-master-restart).
     */
    @Test
    void aMasterRestartedOnItsRdbKeepsItsReplicasPartial() throws Exception {
        java.nio.file.Path dir = Files.createTempDirectory("spinel");
        int port = RedisServerProcess.freePort();
        SpinelServer first = SpinelServer.builder().port(port).option("bind", "127.0.0.1").option("dir", dir.toString())
                .option("enable-debug-command", "yes").option("save", "3600 1").start();
        RedisServerProcess r;
        try (RawClient m = new RawClient(port)) {
            DataSet.populate(m, 10, 300);
            for (int i = 0; i < 20; i++) m.call("SET", "soon" + i, "v", "PX", "500");
            r = RedisServerProcess.start(Files.createTempDirectory("replica"), "--replicaof", "127.0.0.1",
                    Integer.toString(port));
            replicas.add(r);
            awaitInSync(r);
            m.call("SET", "marker", "1");
            assertThat(m.callString("WAIT", "1", "10000")).isEqualTo(":1\r\n");
        } finally {
            first.close(); // SHUTDOWN saves (a save point is set)
        }
        Thread.sleep(700); // the soon* keys expire while the master is down
        master.close();
        master = SpinelServer.builder().port(port).option("bind", "127.0.0.1").option("dir", dir.toString())
                .option("enable-debug-command", "yes").option("save", "3600 1").start();
        awaitInSync(r);
        try (RawClient m = master(); RawClient c = new RawClient(r.port())) {
            String stats = info(m, "stats");
            assertThat(field(stats, "sync_partial_ok")).isEqualTo(1);
            assertThat(field(stats, "sync_full")).isEqualTo(0);
            assertThat(m.callString("DBSIZE")).isEqualTo(c.callString("DBSIZE"));
        }
        assertReplicated(r);
    }

    /** redis.set_repl: a script's commands reach the replicas only where it says. */
    @Test
    void scriptsChooseWhatReachesTheReplicas() throws Exception {
        RedisServerProcess r = replica();
        try (RawClient m = master(); RawClient c = new RawClient(r.port())) {
            m.call("EVAL", "redis.set_repl(redis.REPL_AOF) redis.call('set', 'aof', '1') "
                    + "redis.set_repl(redis.REPL_NONE) redis.call('set', 'none', '1') "
                    + "redis.set_repl(redis.REPL_REPLICA) redis.call('set', 'replica', '1') "
                    + "redis.set_repl(redis.REPL_ALL) redis.call('set', 'all', '1')", "0");
            m.call("SET", "marker", "1");
            assertThat(m.callString("WAIT", "1", "10000")).isEqualTo(":1\r\n");
            assertThat(m.callString("EXISTS", "aof", "none", "replica", "all")).isEqualTo(":4\r\n");
            assertThat(c.callString("EXISTS", "aof", "none")).isEqualTo(":0\r\n");
            assertThat(c.callString("EXISTS", "replica", "all", "marker")).isEqualTo(":3\r\n");
        }
    }

    /** With repl-diskless-sync (the default) the RDB streams to the replica's socket. */
    @Test
    void writesDuringTheFullSyncReachTheReplica() throws Exception {
        writesDuringTheFullSync();
    }

    /** Without, it is written to a file first and sent with its length. */
    @Test
    void writesDuringADiskBasedFullSyncReachTheReplica() throws Exception {
        try (RawClient m = master()) {
            m.call("CONFIG", "SET", "repl-diskless-sync", "no");
        }
        writesDuringTheFullSync();
    }

    private void writesDuringTheFullSync() throws Exception {
        try (RawClient m = master()) {
            DataSet.populate(m, 2, 20_000);
            // 30 MB of values besides: the snapshot goes out in many chunks, as the socket takes them
            m.call("EVAL", "for i = 1, 300 do redis.call('set', 'v' .. i, string.rep(tostring(i), 100000)) end", "0");
        }
        AtomicBoolean stop = new AtomicBoolean();
        List<Throwable> errors = new ArrayList<>();
        Thread writer = new Thread(() -> {
            try (RawClient w = master()) {
                for (int i = 0; !stop.get(); i++) {
                    w.call("SET", "w:" + (i % 5000), Integer.toString(i));
                    w.call("RPUSH", "wl", Integer.toString(i));
                    if (i % 100 == 0) w.call("DEL", "w:" + (i % 700));
                }
            } catch (Exception e) {
                errors.add(e);
            }
        });
        writer.start();
        RedisServerProcess r = replica();
        Thread.sleep(200);
        stop.set(true);
        writer.join();
        assertThat(errors).isEmpty();
        assertReplicated(r);
    }

    @Test
    void aDroppedLinkContinuesFromTheBacklogOrSyncsAgain() throws Exception {
        try (RawClient m = master()) {
            DataSet.populate(m, 3, 100);
        }
        RedisServerProcess r = replica();
        try (RawClient m = master()) {
            // a few writes while the link is down fit in the 64 KB backlog: +CONTINUE
            assertThat(m.callString("CLIENT", "KILL", "TYPE", "replica")).isEqualTo(":1\r\n");
            for (int i = 0; i < 50; i++) m.call("SET", "k" + i, "v" + i);
            awaitInSync(r);
            assertReplicated(r);
            assertThat(field(info(m, "stats"), "sync_partial_ok")).isEqualTo(1);
            assertThat(field(info(m, "stats"), "sync_full")).isEqualTo(1);
            // more than the backlog holds: a full synchronization again (the replica sleeps
            // meanwhile, or it would reconnect at once and get the writes as they come)
            Thread sleeper = sleep(r, "1.5");
            Thread.sleep(200);
            m.call("CLIENT", "KILL", "TYPE", "replica");
            for (int i = 0; i < 200; i++) m.call("SET", "big" + i, "x".repeat(1000));
            sleeper.join();
            Thread.sleep(1200); // the replica finds the link gone, and reconnects within a second
            awaitInSync(r);
            assertReplicated(r);
            assertThat(field(info(m, "stats"), "sync_full")).isEqualTo(2);
            assertThat(field(info(m, "stats"), "sync_partial_err")).isEqualTo(1);
        }
    }

    @Test
    void twoReplicasAndWait() throws Exception {
        RedisServerProcess a = replica();
        RedisServerProcess b = replica();
        try (RawClient m = master()) {
            m.call("SET", "k", "v");
            assertThat(m.callString("WAIT", "2", "5000")).isEqualTo(":2\r\n");
            // more replicas than there are: the timeout, with the count of those that acknowledged
            long t0 = System.nanoTime();
            assertThat(m.callString("WAIT", "3", "300")).isEqualTo(":2\r\n");
            assertThat(System.nanoTime() - t0).isGreaterThanOrEqualTo(250_000_000L);
            // min-replicas-to-write counts replicas that acknowledged within the lag
            m.call("CONFIG", "SET", "min-replicas-to-write", "2");
            assertThat(m.callString("SET", "k2", "v")).isEqualTo("+OK\r\n");
            m.call("CONFIG", "SET", "min-replicas-to-write", "3");
            assertThat(m.callString("SET", "k3", "v")).isEqualTo("-NOREPLICAS Not enough good replicas to write.\r\n");
            m.call("CONFIG", "SET", "min-replicas-to-write", "0");
        }
        assertReplicated(a);
        assertReplicated(b);
    }

    @Test
    void replicationCommandsAsRedisAnswersThem() throws Exception {
        try (RawClient c = master()) {
            assertThat(c.callString("REPLCONF", "listening-port")).isEqualTo("-ERR syntax error\r\n");
            assertThat(c.callString("REPLCONF", "listening-port", "x"))
                    .isEqualTo("-ERR value is not an integer or out of range\r\n");
            assertThat(c.callString("REPLCONF", "nosuch", "1")).isEqualTo("-ERR Unrecognized REPLCONF option: nosuch\r\n");
            assertThat(c.callString("REPLCONF", "listening-port", "6380", "capa", "eof", "capa", "psync2"))
                    .isEqualTo("+OK\r\n");
            assertThat(c.callString("PSYNC", "x", "y")).isEqualTo("-ERR value is not an integer or out of range\r\n");
            assertThat(c.callString("PSYNC", "x", "1", "FAILOVER")).isEqualTo("-ERR PSYNC FAILOVER can't be sent to a master.\r\n");
            assertThat(c.callString("MULTI")).isEqualTo("+OK\r\n");
            assertThat(c.callString("SYNC")).isEqualTo("-ERR Command not allowed inside a transaction\r\n");
            c.call("DISCARD");
            assertThat(c.callString("ROLE")).isEqualTo("*3\r\n$6\r\nmaster\r\n:0\r\n*0\r\n");
            assertThat(info(c, "replication")).contains("connected_slaves:0\r\n").contains("repl_backlog_active:0\r\n");
        }
    }

    @Test
    void aReplicaThatFallsBehindIsDisconnectedAndSyncsAgain() throws Exception {
        RedisServerProcess r = replica();
        try (RawClient m = master()) {
            m.call("CONFIG", "SET", "client-output-buffer-limit", "replica 1mb 0 0");
            Thread sleeper = sleep(r, "2");
            Thread.sleep(200);
            // 40 MB while the replica reads nothing: more than the sockets hold and the limit allows
            m.call("EVAL", "for i = 1, 400 do redis.call('set', 'big' .. i, string.rep('x', 100000)) end", "0");
            assertThat(info(m, "replication")).contains("connected_slaves:0");
            sleeper.join();
            Thread.sleep(1200);
            awaitInSync(r);
            assertReplicated(r);
            assertThat(field(info(m, "stats"), "sync_full")).isEqualTo(2);
        }
    }

    /** Lettuce's master/replica client finds the replica from Spinel's INFO replication and reads there. */
    @Test
    void lettuceFindsTheReplicaAndReadsFromIt() throws Exception {
        RedisServerProcess r = replica();
        io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create();
        try (io.lettuce.core.masterreplica.StatefulRedisMasterReplicaConnection<String, String> conn =
                     io.lettuce.core.masterreplica.MasterReplica.connect(client, io.lettuce.core.codec.StringCodec.UTF8,
                             io.lettuce.core.RedisURI.create("redis://127.0.0.1:" + master.port()))) {
            conn.setReadFrom(io.lettuce.core.ReadFrom.REPLICA);
            var sync = conn.sync();
            assertThat(sync.set("lettuce", "value")).isEqualTo("OK");
            assertThat(sync.waitForReplication(1, 5000)).isEqualTo(1L);
            assertThat(sync.get("lettuce")).isEqualTo("value");
        } finally {
            client.shutdown();
        }
        try (RawClient c = new RawClient(r.port())) {
            // the GET was the replica's
            assertThat(info(c, "commandstats")).contains("cmdstat_get:calls=1,");
        }
    }

    /** FAILOVER: writes held until the replica caught up, then roles swapped; held writes get -READONLY. */
    @Test
    void failoverHandsTheMasterRoleToTheReplica() throws Exception {
        RedisServerProcess r = replica();
        try (RawClient m = master(); RawClient c = new RawClient(r.port())) {
            assertThat(m.callString("FAILOVER", "ABORT")).isEqualTo("-ERR No failover in progress.\r\n");
            assertThat(m.callString("FAILOVER", "FORCE")).isEqualTo(
                    "-ERR FAILOVER with force option requires both a timeout and target HOST and IP.\r\n");
            assertThat(m.callString("FAILOVER", "TO", "127.0.0.1", "1")).isEqualTo(
                    "-ERR FAILOVER target HOST and PORT is not a replica.\r\n");
            m.call("SET", "before", "1");
            assertThat(m.callString("FAILOVER", "TO", "127.0.0.1", Integer.toString(r.port()), "TIMEOUT", "5000"))
                    .isEqualTo("+OK\r\n");
            long deadline = System.currentTimeMillis() + 10_000;
            while (!new String(c.call("ROLE"), StandardCharsets.ISO_8859_1).contains("master")
                    || !new String(m.call("ROLE"), StandardCharsets.ISO_8859_1).contains("connected")) {
                assertThat(System.currentTimeMillis()).isLessThan(deadline);
                Thread.sleep(20);
            }
            assertThat(info(m, "replication")).contains("role:slave").contains("master_failover_state:no-failover");
            assertThat(m.callString("SET", "after", "1")).isEqualTo("-READONLY You can't write against a read only replica.\r\n");
            assertThat(c.callString("SET", "on-new-master", "1")).isEqualTo("+OK\r\n");
            assertThat(c.callString("WAIT", "1", "5000")).isEqualTo(":1\r\n");
            assertThat(m.callString("GET", "on-new-master")).isEqualTo("$1\r\n1\r\n");
            assertThat(m.callString("GET", "before")).isEqualTo("$1\r\n1\r\n");
            assertThat(m.callString("FAILOVER")).isEqualTo("-ERR FAILOVER is not valid when server is a replica.\r\n");
            // the old master continued from its own history: no full synchronization
            assertThat(info(c, "stats")).contains("sync_partial_ok:1");
        }
    }
}
