package io.spinel.server;

import io.spinel.server.testing.RawClient;
import io.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One cluster node alone, redis-server 7.0 and Spinel side by side, the same commands sent to
 * both and the raw replies compared (each node's ID and ports replaced by placeholders): the
 * CLUSTER subcommands' replies and errors, the routing errors (CLUSTERDOWN, CROSSSLOT), what
 * cluster mode forbids (SELECT, MOVE, SWAPDB, COPY ... DB, REPLICAOF, FAILOVER), scripts' slot
 * rules, and reads while the cluster is down.
 */
class ClusterDiffTest {
    private RedisServerProcess redis;
    private SpinelServer spinel;
    private final List<String> mismatches = new ArrayList<>();

    @AfterEach
    void stop() {
        if (spinel != null) spinel.close();
        if (redis != null) redis.close();
    }

    private static final class Node {
        final RawClient client;
        final String id;
        final String port;
        final String busPort;

        Node(int port, int busPort) throws Exception {
            this.client = new RawClient(port);
            this.port = Integer.toString(port);
            this.busPort = Integer.toString(busPort);
            String reply = client.callString("CLUSTER", "MYID");
            this.id = reply.substring(reply.indexOf("\r\n") + 2, reply.length() - 2);
        }

        /** Sends the command ("$id" stands for the node's own ID) and returns the reply, normalized. */
        String call(String... args) throws Exception {
            String[] a = args.clone();
            for (int i = 0; i < a.length; i++) a[i] = a[i].replace("$id", id);
            return normalize(client.callString(a));
        }

        String normalize(String reply) {
            // lengths of bulk strings holding the ID or a port change with them: compare without lengths there
            String r = reply.replace(id, "<id>").replace("@" + busPort, "@<busport>").replace(":" + port + "\r\n", ":<port>\r\n")
                    .replace(":" + port + "@", ":<port>@").replace(" " + port + "\r\n", " <port>\r\n");
            return r.replaceAll("[$=](\\d+)\r\n(?=[^\r]*<(id|port|busport)>)", "\\$?\r\n");
        }
    }

    private void same(Node r, Node s, String... cmd) throws Exception {
        String a = r.call(cmd);
        String b = s.call(cmd);
        if (!a.equals(b)) mismatches.add(String.join(" ", cmd) + "\n  redis:  " + a.replace("\r\n", "\\r\\n")
                + "\n  spinel: " + b.replace("\r\n", "\\r\\n"));
    }

    private static String info(Node n, String field) throws Exception {
        String text = n.client.callString("CLUSTER", "INFO");
        for (String line : text.split("\r\n")) if (line.startsWith(field + ":")) return line.substring(field.length() + 1);
        return null;
    }

    private static void awaitState(Node n, String state) throws Exception {
        long deadline = System.currentTimeMillis() + 10_000;
        while (!state.equals(info(n, "cluster_state"))) {
            if (System.currentTimeMillis() > deadline) throw new AssertionError("cluster_state never became " + state);
            Thread.sleep(50);
        }
    }

    @Test
    void aLoneNodeAnswersAsRedisDoes() throws Exception {
        Assumptions.assumeTrue(RedisServerProcess.available(), "redis-server is not installed");
        int redisBus = RedisServerProcess.freePort();
        redis = RedisServerProcess.start("--cluster-enabled", "yes", "--cluster-port", Integer.toString(redisBus));
        int spinelBus = RedisServerProcess.freePort();
        spinel = SpinelServer.builder().randomPort().option("bind", "127.0.0.1")
                .option("dir", Files.createTempDirectory("spinel-cluster").toString())
                .option("cluster-enabled", "yes").option("cluster-port", Integer.toString(spinelBus)).start();
        Node r = new Node(redis.port(), redisBus);
        Node s = new Node(spinel.port(), spinelBus);
        assertEquals(40, s.id.length());

        // no slot served yet
        same(r, s, "SET", "foo", "bar");
        same(r, s, "SPUBLISH", "news", "x");
        same(r, s, "PING");
        same(r, s, "CLUSTER", "KEYSLOT", "foo");
        same(r, s, "CLUSTER", "KEYSLOT", "{user1000}.following");
        same(r, s, "CLUSTER", "KEYSLOT", "");
        same(r, s, "CLUSTER", "COUNTKEYSINSLOT", "abc");
        same(r, s, "CLUSTER", "COUNTKEYSINSLOT", "-1");
        same(r, s, "CLUSTER", "COUNTKEYSINSLOT", "16384");
        same(r, s, "CLUSTER", "COUNTKEYSINSLOT", "5");
        same(r, s, "CLUSTER", "GETKEYSINSLOT", "5", "-1");
        same(r, s, "CLUSTER", "GETKEYSINSLOT", "x", "1");
        same(r, s, "CLUSTER", "GETKEYSINSLOT", "16384", "1");
        same(r, s, "CLUSTER", "GETKEYSINSLOT", "5", "10");
        same(r, s, "CLUSTER", "ADDSLOTS", "1", "1");
        same(r, s, "CLUSTER", "ADDSLOTS", "16384");
        same(r, s, "CLUSTER", "ADDSLOTS", "abc");
        same(r, s, "CLUSTER", "ADDSLOTSRANGE", "5", "1");
        same(r, s, "CLUSTER", "ADDSLOTSRANGE", "1", "2", "3");
        same(r, s, "CLUSTER", "ADDSLOTSRANGE", "1", "3", "2", "4");
        same(r, s, "CLUSTER", "DELSLOTS", "7");
        same(r, s, "CLUSTER", "DELSLOTSRANGE", "1", "2");
        same(r, s, "CLUSTER", "SETSLOT", "1", "bogus");
        same(r, s, "CLUSTER", "SETSLOT", "1", "MIGRATING", "0000000000000000000000000000000000000000");
        same(r, s, "CLUSTER", "SETSLOT", "1", "IMPORTING", "0000000000000000000000000000000000000000");
        same(r, s, "CLUSTER", "SETSLOT", "99999", "STABLE");
        same(r, s, "CLUSTER", "SETSLOT", "1", "NODE", "x");
        same(r, s, "CLUSTER", "SETSLOT", "1", "STABLE", "extra");
        same(r, s, "CLUSTER", "MEET", "1.2.3", "80");
        same(r, s, "CLUSTER", "MEET", "127.0.0.1", "abc");
        same(r, s, "CLUSTER", "MEET", "127.0.0.1", "80", "x");
        same(r, s, "CLUSTER", "MEET", "127.0.0.1", "0");
        same(r, s, "CLUSTER", "MEET", "a", "b", "c", "d");
        same(r, s, "CLUSTER", "FORGET", "unknown");
        same(r, s, "CLUSTER", "FORGET", "$id");
        same(r, s, "CLUSTER", "REPLICATE", "$id");
        same(r, s, "CLUSTER", "REPLICATE", "unknown");
        same(r, s, "CLUSTER", "FAILOVER");
        same(r, s, "CLUSTER", "FAILOVER", "bogus");
        same(r, s, "CLUSTER", "FAILOVER", "force", "x");
        same(r, s, "CLUSTER", "SET-CONFIG-EPOCH", "-1");
        same(r, s, "CLUSTER", "SET-CONFIG-EPOCH", "abc");
        same(r, s, "CLUSTER", "RESET", "bogus");
        same(r, s, "CLUSTER", "RESET", "a", "b");
        same(r, s, "CLUSTER", "COUNT-FAILURE-REPORTS", "$id");
        same(r, s, "CLUSTER", "COUNT-FAILURE-REPORTS", "nobody");
        same(r, s, "CLUSTER", "REPLICAS", "$id");
        same(r, s, "CLUSTER", "SLAVES", "unknown");
        same(r, s, "CLUSTER", "LINKS");
        same(r, s, "CLUSTER", "SLOTS");
        same(r, s, "CLUSTER", "SHARDS");
        same(r, s, "CLUSTER", "NODES");
        same(r, s, "CLUSTER", "MYID");
        same(r, s, "CLUSTER", "BOGUS");
        same(r, s, "CLUSTER", "BUMPEPOCH");
        same(r, s, "CLUSTER", "BUMPEPOCH");
        same(r, s, "CLUSTER", "SET-CONFIG-EPOCH", "5");
        same(r, s, "CLUSTER", "NODES");
        same(r, s, "SELECT", "1");
        same(r, s, "SELECT", "0");
        same(r, s, "SELECT", "x");
        same(r, s, "MOVE", "foo", "1");
        same(r, s, "SWAPDB", "0", "1");
        same(r, s, "COPY", "a", "b", "DB", "1");
        same(r, s, "REPLICAOF", "127.0.0.1", "1");
        same(r, s, "FAILOVER");
        same(r, s, "ASKING");
        same(r, s, "READWRITE");
        same(r, s, "READONLY");
        same(r, s, "INFO", "cluster");
        String flags = s.client.callString("CLIENT", "INFO");
        assertTrue(flags.contains(" flags=r "), flags);
        same(r, s, "READWRITE");

        // every slot here: the node is the cluster (after Redis's two seconds of caution)
        same(r, s, "CLUSTER", "ADDSLOTSRANGE", "0", "16383");
        awaitState(r, "ok");
        awaitState(s, "ok");
        same(r, s, "CLUSTER", "INFO");
        same(r, s, "CLUSTER", "SLOTS");
        same(r, s, "CLUSTER", "SHARDS");
        same(r, s, "SET", "foo", "bar");
        same(r, s, "MSET", "a", "1", "b", "2");
        same(r, s, "MSET", "{a}1", "1", "{a}2", "2");
        same(r, s, "CLUSTER", "COUNTKEYSINSLOT", "12182");
        same(r, s, "CLUSTER", "GETKEYSINSLOT", "12182", "10");
        same(r, s, "SPUBLISH", "news", "x");
        same(r, s, "SSUBSCRIBE", "{a}x", "{b}y");
        same(r, s, "CLUSTER", "GETKEYSINSLOT", "12182", "0");
        same(r, s, "EVAL", "return redis.call('get','foo')", "0");
        same(r, s, "EVAL", "redis.call('get','foo') return redis.call('get','bar')", "0");
        same(r, s, "EVAL", "#!lua\nreturn redis.call('get', KEYS[1])", "1", "foo");
        same(r, s, "EVAL", "#!lua\nredis.call('get','foo')\nreturn redis.call('get','bar')", "0");
        same(r, s, "EVAL", "#!lua flags=allow-cross-slot-keys\nredis.call('get','foo')\nreturn redis.call('get','bar')", "0");
        same(r, s, "EVAL", "#!lua flags=no-cluster\nreturn 1", "0");
        same(r, s, "EVAL", "return 1", "2", "a", "b");
        // SORT_RO's keys are its first argument only: its STORE is a syntax error, not CROSSSLOT
        same(r, s, "SORT_RO", "foo", "STORE", "bar");
        same(r, s, "COMMAND", "GETKEYS", "SORT_RO", "foo", "STORE", "bar");
        same(r, s, "SORT", "foo", "STORE", "bar");
        same(r, s, "COMMAND", "GETKEYS", "SORT", "foo", "LIMIT", "0", "1", "STORE", "{foo}bar");
        same(r, s, "MULTI");
        same(r, s, "SET", "foo", "1");
        same(r, s, "SET", "bar", "1");
        same(r, s, "EXEC");
        same(r, s, "CLUSTER", "FLUSHSLOTS");
        same(r, s, "CLUSTER", "RESET");
        same(r, s, "CLUSTER", "SETSLOT", "12182", "NODE", "0000000000000000000000000000000000000000");
        same(r, s, "CLUSTER", "SETSLOT", "12182", "MIGRATING", "0000000000000000000000000000000000000000");
        same(r, s, "CLUSTER", "SETSLOT", "12182", "IMPORTING", "$id");
        // a slot given up: its keys stay, unreachable; the cluster is down; its shard channels' subscribers are let go
        RawClient rSub = new RawClient(redis.port());
        RawClient sSub = new RawClient(spinel.port());
        assertEquals(rSub.callString("SSUBSCRIBE", "foo", "{foo}2", "bar"), sSub.callString("SSUBSCRIBE", "foo", "{foo}2", "bar"));
        assertEquals(rSub.callString("SSUBSCRIBE", "foo", "{foo}2"), sSub.callString("SSUBSCRIBE", "foo", "{foo}2"));
        assertEquals(new String(rSub.readReply()), new String(sSub.readReply())); // the second confirmation
        same(r, s, "CLUSTER", "DELSLOTS", "12182");
        for (int i = 0; i < 2; i++) assertEquals(new String(rSub.readReply()), new String(sSub.readReply()));
        same(r, s, "PUBSUB", "SHARDCHANNELS");
        rSub.close();
        sSub.close();
        awaitState(r, "fail");
        awaitState(s, "fail");
        same(r, s, "GET", "foo");
        same(r, s, "GET", "a");
        same(r, s, "SPUBLISH", "bar", "m");
        same(r, s, "CONFIG", "SET", "cluster-allow-pubsubshard-when-down", "no");
        same(r, s, "SPUBLISH", "bar", "m");
        same(r, s, "PING");
        same(r, s, "CONFIG", "SET", "cluster-allow-reads-when-down", "yes");
        same(r, s, "GET", "a");
        same(r, s, "SET", "a", "2");
        same(r, s, "CLUSTER", "COUNTKEYSINSLOT", "12182");
        same(r, s, "CLUSTER", "INFO");
        same(r, s, "DBSIZE");
        same(r, s, "FLUSHALL");
        same(r, s, "CLUSTER", "RESET", "HARD");
        same(r, s, "CLUSTER", "INFO");
        assertEquals(List.of(), mismatches, String.join("\n", mismatches));
    }
}
