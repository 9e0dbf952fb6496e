package io.spinel.server;

import io.spinel.server.testing.RawClient;
import io.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.JedisSentinelPool;
import redis.clients.jedis.Protocol;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Sentinel mode: Spinel Sentinels watching a Spinel master and its replicas (discovery of the
 * replicas and of each other, the state they save in their files, a failover when the master
 * goes, +switch-master to a subscriber, JedisSentinelPool following it), and a Spinel Sentinel
 * next to redis-server's own Sentinel watching redis-server instances: the same reply shapes and
 * errors from both, and a failover they agree on.
 */
class SentinelTest {
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) open.get(i).close();
    }

    private <T extends AutoCloseable> T keep(T c) {
        open.add(c);
        return c;
    }

    private SpinelServer spinel(String... options) {
        // (no 5 s wait before the replicas' first synchronization)
        SpinelServer.Builder b = SpinelServer.builder().randomPort().option("bind", "127.0.0.1")
                .option("repl-diskless-sync-delay", "0");
        for (int i = 0; i < options.length; i += 2) b.option(options[i], options[i + 1]);
        return keep(b.start());
    }

    /** A file for a Sentinel watching the master at port, with short periods so that tests take seconds. */
    private static Path sentinelConfig(int masterPort, int quorum) throws Exception {
        Path conf = Files.createTempDirectory("sentinel").resolve("sentinel.conf");
        Files.writeString(conf, "sentinel monitor mymaster 127.0.0.1 " + masterPort + " " + quorum + "\n"
                + "sentinel down-after-milliseconds mymaster 1000\n"
                + "sentinel failover-timeout mymaster 4000\n");
        return conf;
    }

    /** Each Sentinel's configuration file. */
    private final java.util.Map<SpinelServer, Path> files = new java.util.HashMap<>();

    private SpinelServer spinelSentinel(int masterPort, int quorum) throws Exception {
        Path conf = sentinelConfig(masterPort, quorum);
        SpinelServer s = keep(SpinelServer.builder().sentinel(conf).randomPort().option("bind", "127.0.0.1").start());
        files.put(s, conf);
        return s;
    }

    private static void await(String what, long millis, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.currentTimeMillis() + millis;
        while (System.currentTimeMillis() < deadline) {
            try {
                if (condition.getAsBoolean()) return;
            } catch (RuntimeException ignored) {
                // not reachable yet
            }
            Thread.sleep(50);
        }
        throw new AssertionError("timed out waiting for " + what);
    }

    private static Object sentinel(int port, String... args) {
        try (Jedis j = new Jedis("127.0.0.1", port)) {
            return j.sendCommand(Protocol.Command.SENTINEL, args);
        }
    }

    /** SENTINEL MASTER's (or a replica's or Sentinel's) fields as a name to value list, in order. */
    private static List<String[]> fields(Object reply) {
        List<?> l = (List<?>) reply;
        List<String[]> out = new ArrayList<>();
        for (int i = 0; i < l.size(); i += 2) {
            out.add(new String[] {text(l.get(i)), text(l.get(i + 1))});
        }
        return out;
    }

    private static String text(Object o) {
        return o instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(o);
    }

    private static String field(Object reply, String name) {
        for (String[] f : fields(reply)) if (f[0].equals(name)) return f[1];
        return null;
    }

    private static List<String> names(Object reply) {
        List<String> n = new ArrayList<>();
        for (String[] f : fields(reply)) n.add(f[0]);
        return n;
    }

    private static int masterPortSeenBy(int sentinelPort) {
        List<?> addr = (List<?>) sentinel(sentinelPort, "GET-MASTER-ADDR-BY-NAME", "mymaster");
        return Integer.parseInt(text(addr.get(1)));
    }

    @Test
    void spinelSentinelsFailASpinelMasterOverAndJedisFollows() throws Exception {
        SpinelServer master = spinel();
        SpinelServer replica1 = spinel("replicaof", "127.0.0.1 " + master.port());
        SpinelServer replica2 = spinel("replicaof", "127.0.0.1 " + master.port());
        try (Jedis m = new Jedis("127.0.0.1", master.port())) {
            await("both replicas", 5000, () -> m.info("replication").contains("connected_slaves:2"));
        }
        List<SpinelServer> sentinels = new ArrayList<>();
        for (int i = 0; i < 3; i++) sentinels.add(spinelSentinel(master.port(), 2));

        for (SpinelServer s : sentinels) {
            assertThat(masterPortSeenBy(s.port())).isEqualTo(master.port());
            await("replicas and other Sentinels found", 8000, () -> {
                Object mm = sentinel(s.port(), "MASTER", "mymaster");
                return field(mm, "num-slaves").equals("2") && field(mm, "num-other-sentinels").equals("2");
            });
        }
        // what a restart needs is in the file: its id, the replicas and the other Sentinels
        String saved = Files.readString(sentinelFile(sentinels.get(0)));
        assertThat(saved).contains("sentinel myid ", "sentinel known-replica mymaster 127.0.0.1 " + replica1.port(),
                "sentinel known-replica mymaster 127.0.0.1 " + replica2.port(), "sentinel known-sentinel mymaster 127.0.0.1 ",
                "sentinel current-epoch 0");

        BlockingQueue<String> switches = new LinkedBlockingQueue<>();
        Jedis subscriber = keep(new Jedis("127.0.0.1", sentinels.get(0).port()));
        JedisPubSub listener = new JedisPubSub() {
            @Override
            public void onMessage(String channel, String message) {
                switches.add(message);
            }
        };
        Thread t = new Thread(() -> subscriber.subscribe(listener, "+switch-master"));
        t.setDaemon(true);
        t.start();
        await("subscribed", 3000, () -> listener.getSubscribedChannels() == 1);

        Set<String> addresses = Set.of("127.0.0.1:" + sentinels.get(0).port(), "127.0.0.1:" + sentinels.get(1).port(),
                "127.0.0.1:" + sentinels.get(2).port());
        JedisSentinelPool pool = keep(new JedisSentinelPool("mymaster", addresses));
        try (Jedis j = pool.getResource()) {
            assertThat(j.set("k", "v")).isEqualTo("OK");
        }
        for (SpinelServer r : List.of(replica1, replica2)) {
            try (Jedis rj = new Jedis("127.0.0.1", r.port())) {
                await("the write on both replicas before the master goes", 10000, () -> "v".equals(rj.get("k")));
            }
        }
        assertThat(pool.getCurrentHostMaster()).isEqualTo(new HostAndPort("127.0.0.1", master.port()));

        int oldPort = master.port();
        master.close();
        String message = switches.poll(20, TimeUnit.SECONDS);
        assertThat(message).isNotNull();
        String[] w = message.split(" ");
        assertThat(w[0]).isEqualTo("mymaster");
        assertThat(w[2]).isEqualTo(Integer.toString(oldPort));
        int newPort = Integer.parseInt(w[4]);
        assertThat(newPort).isIn(replica1.port(), replica2.port());
        listener.unsubscribe();

        for (SpinelServer s : sentinels) await("every Sentinel on the new master", 15000, () -> masterPortSeenBy(s.port()) == newPort);
        try (Jedis promoted = new Jedis("127.0.0.1", newPort)) {
            assertThat(promoted.info("replication")).contains("role:master");
        }
        // the other replica follows the new master
        SpinelServer other = newPort == replica1.port() ? replica2 : replica1;
        try (Jedis o = new Jedis("127.0.0.1", other.port())) {
            await("the other replica to follow", 15000, () -> o.info("replication").contains("master_port:" + newPort));
        }
        await("the pool to follow", 15000, () -> pool.getCurrentHostMaster().getPort() == newPort);
        try (Jedis j = pool.getResource()) {
            assertThat(j.set("k2", "v2")).isEqualTo("OK");
            assertThat(j.get("k")).isEqualTo("v");
        }
        assertThat(Files.readString(sentinelFile(sentinels.get(0))))
                .contains("sentinel monitor mymaster 127.0.0.1 " + newPort + " 2");
        // Lettuce asks a Sentinel too (it speaks RESP3 to it: HELLO 3)
        io.lettuce.core.RedisClient lettuce = io.lettuce.core.RedisClient.create(
                io.lettuce.core.RedisURI.Builder.sentinel("127.0.0.1", sentinels.get(1).port(), "mymaster").build());
        try (var connection = lettuce.connect()) {
            assertThat(connection.sync().get("k2")).isEqualTo("v2");
            assertThat(connection.sync().set("k3", "v3")).isEqualTo("OK"); // replicas are read-only: the master
        } finally {
            lettuce.shutdown();
        }
    }

    private Path sentinelFile(SpinelServer s) {
        return files.get(s);
    }

    @Test
    void repliesMatchRedisSentinelAndBothFollowARedisFailover() throws Exception {
        Assumptions.assumeTrue(RedisServerProcess.available(), "redis-server (Debian's redis-server package) is needed");
        RedisServerProcess master = keep(RedisServerProcess.start());
        RedisServerProcess replica = keep(RedisServerProcess.start("--replicaof", "127.0.0.1", Integer.toString(master.port())));
        SpinelServer spinel = spinelSentinel(master.port(), 1);
        Path redisDir = Files.createTempDirectory("redis-sentinel");
        Path redisConf = redisDir.resolve("sentinel.conf");
        Files.copy(sentinelConfig(master.port(), 1), redisConf);
        int redisPort = RedisServerProcess.freePort();
        RedisServerProcess redis = keep(RedisServerProcess.startExactly(redisDir, redisPort, redisConf.toString(),
                "--sentinel", "--port", Integer.toString(redisPort), "--bind", "127.0.0.1"));

        for (int port : new int[] {spinel.port(), redisPort}) {
            await("the replica and the other Sentinel", 10000, () -> {
                Object mm = sentinel(port, "MASTER", "mymaster");
                return field(mm, "num-slaves").equals("1") && field(mm, "num-other-sentinels").equals("1")
                        && !field(mm, "flags").contains("disconnected");
            });
        }
        // the same fields, in the same order
        assertThat(names(sentinel(spinel.port(), "MASTER", "mymaster"))).isEqualTo(names(sentinel(redisPort, "MASTER", "mymaster")));
        assertThat(names(((List<?>) sentinel(spinel.port(), "REPLICAS", "mymaster")).get(0)))
                .isEqualTo(names(((List<?>) sentinel(redisPort, "REPLICAS", "mymaster")).get(0)));
        assertThat(names(((List<?>) sentinel(spinel.port(), "SENTINELS", "mymaster")).get(0)))
                .isEqualTo(names(((List<?>) sentinel(redisPort, "SENTINELS", "mymaster")).get(0)));
        assertThat(field(((List<?>) sentinel(spinel.port(), "SENTINELS", "mymaster")).get(0), "port"))
                .isEqualTo(Integer.toString(redisPort));
        assertThat(names(sentinel(spinel.port(), "DEBUG"))).isEqualTo(names(sentinel(redisPort, "DEBUG")));
        assertThat(names(sentinel(spinel.port(), "CONFIG", "GET", "*"))).isEqualTo(names(sentinel(redisPort, "CONFIG", "GET", "*")));

        try (RawClient s = new RawClient(spinel.port()); RawClient r = new RawClient(redisPort)) {
            for (String[] cmd : new String[][] {
                    {"SENTINEL", "MASTER", "nosuch"}, {"SENTINEL", "NOSUCH"}, {"SENTINEL", "GET-MASTER-ADDR-BY-NAME", "nosuch"},
                    {"SENTINEL", "SET", "mymaster", "quorum", "x"}, {"SENTINEL", "SET", "mymaster", "nosuch", "1"},
                    {"SENTINEL", "MONITOR", "m2", "127.0.0.1", "1", "0"}, {"SENTINEL", "MONITOR", "m2", "not-an-ip", "1", "1"},
                    {"SENTINEL", "MONITOR", "mymaster", "127.0.0.1", "1", "1"}, {"SENTINEL", "CONFIG", "SET", "nosuch", "1"},
                    {"SENTINEL", "CKQUORUM", "mymaster"}, {"SENTINEL", "IS-MASTER-DOWN-BY-ADDR", "127.0.0.1", "1", "0", "*"},
                    {"SENTINEL", "MASTERS", "extra"}, {"SENTINEL", "SIMULATE-FAILURE", "HELP"}, {"SENTINEL", "PENDING-SCRIPTS"},
                    {"GET", "k"}, {"SET", "k", "v"}, {"ROLE"}, {"CONFIG", "GET", "port"}, {"SELECT", "0"}, {"PUBLISH", "other", "x"}, {"PING"},
                    {"SENTINEL", "INFO-CACHE", "nosuch"},
                    // ACL rules name the Sentinel's commands only, SENTINEL's among them
                    {"ACL", "SETUSER", "u1", "+get"}, {"ACL", "SETUSER", "u1", "+config|get"},
                    {"ACL", "SETUSER", "u1", "+client|getredir", "+sentinel|masters"}, {"ACL", "SETUSER", "u1", "+client|nosuch"},
                    {"ACL", "SETUSER", "u2", "+sentinel"}, {"ACL", "SETUSER", "u3", "+@admin", "-sentinel"},
                    {"ACL", "DRYRUN", "u2", "SENTINEL", "MASTERS"}, {"ACL", "DRYRUN", "u3", "SENTINEL", "MASTERS"},
                    {"ACL", "DRYRUN", "u3", "CLIENT", "KILL", "ID", "1"}, {"ACL", "CAT", "nosuch"}}) {
                assertThat(s.callString(cmd)).as(String.join(" ", cmd)).isEqualTo(r.callString(cmd));
            }
            // each category holds the same commands (Redis lists them in its dictionary's order)
            for (String category : new String[] {"admin", "dangerous", "slow", "fast", "connection", "pubsub", "read", "keyspace"}) {
                assertThat(sortedLines(s.callString("ACL", "CAT", category))).as("ACL CAT " + category)
                        .isEqualTo(sortedLines(r.callString("ACL", "CAT", category)));
            }
            assertThat(sortedLines(s.callString("ACL", "CAT", "admin"))).contains("sentinel", "sentinel|masters", "shutdown")
                    .doesNotContain("config|get", "bgsave");
            // HELLO: mode sentinel and no role (the client ids differ, so the fields are compared)
            assertThat(names(helloFields(s.callString("HELLO", "2")))).isEqualTo(names(helloFields(r.callString("HELLO", "2"))));
            assertThat(s.callString("HELLO", "2")).contains("$4\r\nmode\r\n$8\r\nsentinel\r\n");
            assertThat(infoFields(s.callString("INFO", "sentinel"))).isEqualTo(infoFields(r.callString("INFO", "sentinel")));
            assertThat(infoSections(s.callString("INFO"))).isEqualTo(infoSections(r.callString("INFO")));
            assertThat(s.callString("INFO", "keyspace")).isEqualTo(r.callString("INFO", "keyspace"));
        }

        // a Sentinel seen under two masters is one link (Redis shares it): link-refcount 2, 1 again after REMOVE
        for (int port : new int[] {spinel.port(), redisPort}) {
            assertThat(text(sentinel(port, "MONITOR", "second", "127.0.0.1", Integer.toString(master.port()), "1"))).isEqualTo("OK");
        }
        for (int port : new int[] {spinel.port(), redisPort}) {
            await("the other Sentinel under the second name", 10000, () -> {
                List<?> others = (List<?>) sentinel(port, "SENTINELS", "second");
                return others.size() == 1 && "2".equals(field(others.get(0), "link-refcount"));
            });
        }
        for (int port : new int[] {spinel.port(), redisPort}) {
            assertThat(text(sentinel(port, "REMOVE", "second"))).isEqualTo("OK");
            assertThat(field(((List<?>) sentinel(port, "SENTINELS", "mymaster")).get(0), "link-refcount")).isEqualTo("1");
        }

        master.kill();
        for (int port : new int[] {spinel.port(), redisPort}) {
            await("the new master", 20000, () -> masterPortSeenBy(port) == replica.port());
        }
        try (Jedis promoted = new Jedis("127.0.0.1", replica.port())) {
            assertThat(promoted.info("replication")).contains("role:master");
        }
    }

    /** INFO's lines (the sentinel section's values are the same on both: one master, seen the same way). */
    private static List<String> infoFields(String info) {
        List<String> out = new ArrayList<>();
        for (String line : info.split("\r\n")) {
            if (line.contains(":") || line.startsWith("#")) out.add(line);
        }
        return out;
    }

    /** A raw RESP2 HELLO reply's flat array, its elements' lines (names at even places). */
    private static List<Object> helloFields(String raw) {
        List<Object> out = new ArrayList<>();
        String[] lines = raw.split("\r\n");
        for (int i = 1; i < lines.length; i++) {
            if (lines[i].startsWith("$")) out.add(lines[++i]);
            else if (lines[i].startsWith(":")) out.add(lines[i].substring(1));
            else if (lines[i].startsWith("*")) {
                out.add("array");
                i += Integer.parseInt(lines[i].substring(1)) * 2; // (the modules list: empty on both)
            }
        }
        return out;
    }

    /** The lines of a raw reply but its headers, sorted. */
    private static List<String> sortedLines(String raw) {
        List<String> out = new ArrayList<>();
        for (String line : raw.split("\r\n")) if (!line.startsWith("*") && !line.startsWith("$")) out.add(line);
        java.util.Collections.sort(out);
        return out;
    }

    private static List<String> infoSections(String info) {
        List<String> out = new ArrayList<>();
        for (String line : info.split("\r\n")) if (line.startsWith("#")) out.add(line);
        return out;
    }

    @Test
    void startsOnlyWithAWritableConfigFileAndRefusesBadLines() throws Exception {
        Path conf = Files.createTempDirectory("sentinel").resolve("sentinel.conf");
        Files.writeString(conf, "sentinel down-after-milliseconds nosuch 1000\n");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> SpinelServer.builder().sentinel(conf).randomPort().start())
                .hasMessageContaining("Reading the configuration file, at line 1")
                .hasMessageContaining("No such master with specified name.");
        Files.writeString(conf, "sentinel monitor m 127.0.0.1 1 0\n");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> SpinelServer.builder().sentinel(conf).randomPort().start())
                .hasMessageContaining("Quorum must be 1 or greater.");
        // (Redis reads the masters after the global lines: this order works)
        // a notification script runs for the events of level warning: +monitor at start, +sdown
        Path events = conf.resolveSibling("events.txt");
        Path script = conf.resolveSibling("notify.sh");
        Files.writeString(script, "#!/bin/sh\necho \"$@\" >> " + events + "\n");
        script.toFile().setExecutable(true);
        Files.writeString(conf, "sentinel down-after-milliseconds m 500\nsentinel monitor m 127.0.0.1 1 2\nsentinel myid "
                + "0123456789012345678901234567890123456789\nsentinel notification-script m notify.sh\n");
        SpinelServer s = keep(SpinelServer.builder().sentinel(conf).randomPort().option("bind", "127.0.0.1")
                .option("dir", conf.getParent().toString()).start());
        assertThat(text(sentinel(s.port(), "MYID"))).isEqualTo("0123456789012345678901234567890123456789");
        assertThat(field(sentinel(s.port(), "MASTER", "m"), "down-after-milliseconds")).isEqualTo("500");
        assertThat(field(sentinel(s.port(), "MASTER", "m"), "notification-script")).isEqualTo("notify.sh");
        await("the script's runs", 10000, () -> {
            try {
                String seen = Files.exists(events) ? Files.readString(events) : "";
                return seen.contains("+monitor master m 127.0.0.1 1 quorum 2") && seen.contains("+sdown master m 127.0.0.1 1");
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        // SENTINEL SET may not change it unless deny-scripts-reconfig is no
        try (RawClient c = new RawClient(s.port())) {
            assertThat(c.callString("SENTINEL", "SET", "m", "notification-script", "other.sh"))
                    .startsWith("-ERR Reconfiguration of scripts path is denied");
            assertThat(c.callString("SENTINEL", "PENDING-SCRIPTS")).startsWith("*");
        }
    }
}
