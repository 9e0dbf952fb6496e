package io.spinel.server;

import io.spinel.core.embedded.SpinelClient;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A Redis Cluster of in-process Spinel servers, for tests of code that talks to a cluster
 * (JedisCluster, Lettuce's RedisClusterClient, Redisson's cluster mode) without Docker or native
 * binaries: each node a {@link SpinelServer} with cluster-enabled yes on 127.0.0.1, its own
 * free ports and a temporary directory, set up as {@code redis-cli --cluster create} sets one up
 * (the slots split evenly over the masters, a distinct configuration epoch per node, MEET, then
 * the replicas attached to the masters in turn). {@link Builder#start} returns once every node
 * sees the whole cluster as ok and every replica is in sync.
 *
 * <pre>{@code
 * try (SpinelCluster cluster = SpinelCluster.builder().masters(3).replicasPerMaster(1).start()) {
 *     JedisCluster jedis = new JedisCluster(new HostAndPort("127.0.0.1", cluster.masters().get(0).port()));
 * }
 * }</pre>
 */
public final class SpinelCluster implements AutoCloseable {
    private final List<SpinelServer> masters;
    private final List<SpinelServer> replicas;
    /** The nodes' directories (nodes.conf, any RDB or AOF), removed on close. */
    private final List<java.nio.file.Path> dirs;

    private SpinelCluster(List<SpinelServer> masters, List<SpinelServer> replicas, List<java.nio.file.Path> dirs) {
        this.masters = masters;
        this.replicas = replicas;
        this.dirs = dirs;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The masters, in slot order: the first serves slot 0. */
    public List<SpinelServer> masters() {
        return Collections.unmodifiableList(masters);
    }

    /** The replicas, each following the master {@code index % masters} of {@link #masters()} at start. */
    public List<SpinelServer> replicas() {
        return Collections.unmodifiableList(replicas);
    }

    /** Every node's client address, masters first: the seeds to give a cluster client. */
    public List<InetSocketAddress> addresses() {
        List<InetSocketAddress> out = new ArrayList<>();
        for (SpinelServer s : masters) out.add(new InetSocketAddress("127.0.0.1", s.port()));
        for (SpinelServer s : replicas) out.add(new InetSocketAddress("127.0.0.1", s.port()));
        return out;
    }

    @Override
    public void close() {
        for (SpinelServer s : replicas) s.close();
        for (SpinelServer s : masters) s.close();
        deleteAll(dirs);
    }

    private static void deleteAll(List<java.nio.file.Path> dirs) {
        for (java.nio.file.Path dir : dirs) {
            try (java.util.stream.Stream<java.nio.file.Path> walk = Files.walk(dir)) {
                walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException | UncheckedIOException e) {
                // a temporary directory left behind is no reason to fail a test's teardown
            }
        }
    }

    public static final class Builder {
        private int masters = 3;
        private int replicasPerMaster;
        private long timeoutMillis = 30_000;
        private final List<String[]> options = new ArrayList<>();

        /** How many masters share the 16384 slots (at least 1; redis-cli asks for 3). */
        public Builder masters(int n) {
            if (n < 1 || n > 16384) throw new IllegalArgumentException("masters must be between 1 and 16384");
            masters = n;
            return this;
        }

        public Builder replicasPerMaster(int n) {
            if (n < 0) throw new IllegalArgumentException("replicasPerMaster must not be negative");
            replicasPerMaster = n;
            return this;
        }

        /** An option for every node ("cluster-node-timeout", "2000"; "requirepass" is not supported here). */
        public Builder option(String name, String value) {
            options.add(new String[] {name, value});
            return this;
        }

        /** How long {@link #start} waits for the cluster to form (default 30 s). */
        public Builder timeoutMillis(long ms) {
            timeoutMillis = ms;
            return this;
        }

        public SpinelCluster start() {
            List<SpinelServer> started = new ArrayList<>();
            List<java.nio.file.Path> dirs = new ArrayList<>();
            try {
                List<SpinelServer> ms = new ArrayList<>();
                List<SpinelServer> rs = new ArrayList<>();
                for (int i = 0; i < masters; i++) ms.add(node(started, dirs));
                for (int i = 0; i < masters * replicasPerMaster; i++) rs.add(node(started, dirs));
                formCluster(ms, rs);
                return new SpinelCluster(ms, rs, dirs);
            } catch (RuntimeException | Error e) {
                for (SpinelServer s : started) s.close();
                deleteAll(dirs);
                throw e;
            }
        }

        private SpinelServer node(List<SpinelServer> started, List<java.nio.file.Path> dirs) {
            SpinelServer.Builder b = SpinelServer.builder().randomPort().option("bind", "127.0.0.1")
                    .option("cluster-enabled", "yes").option("cluster-port", Integer.toString(freePort()));
            try {
                java.nio.file.Path dir = Files.createTempDirectory("spinel-cluster-node");
                dirs.add(dir);
                b.option("dir", dir.toString());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            for (String[] o : options) b.option(o[0], o[1]);
            SpinelServer s = b.start();
            started.add(s);
            return s;
        }

        private static int freePort() {
            try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
                return s.getLocalPort();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** redis-cli --cluster create's steps, then a wait for the cluster to settle. */
        private void formCluster(List<SpinelServer> ms, List<SpinelServer> rs) {
            List<SpinelServer> all = new ArrayList<>(ms);
            all.addAll(rs);
            // the slots split as redis-cli splits them: rounded shares, the last master up to 16383
            double share = 16384.0 / ms.size();
            long first = 0;
            double cursor = 0;
            for (int i = 0; i < ms.size(); i++) {
                long last = Math.round(cursor + share - 1);
                if (last > 16383 || i == ms.size() - 1) last = 16383;
                if (last < first) last = first;
                call(ms.get(i), "CLUSTER", "ADDSLOTSRANGE", Long.toString(first), Long.toString(last));
                first = last + 1;
                cursor += share;
            }
            for (int i = 0; i < all.size(); i++) call(all.get(i), "CLUSTER", "SET-CONFIG-EPOCH", Integer.toString(i + 1));
            SpinelServer seed = all.get(0);
            for (int i = 1; i < all.size(); i++) {
                call(all.get(i), "CLUSTER", "MEET", "127.0.0.1", Integer.toString(seed.port()),
                        Integer.toString(seed.engine().config().getInt("cluster-port")));
            }
            long deadline = System.currentTimeMillis() + timeoutMillis;
            for (SpinelServer s : all) await(deadline, "every node to know the others",
                    () -> infoField(s, "cluster_known_nodes").equals(Integer.toString(all.size())));
            for (int i = 0; i < rs.size(); i++) {
                SpinelServer master = ms.get(i % ms.size());
                String id = call(master, "CLUSTER", "MYID").toString();
                SpinelServer replica = rs.get(i);
                call(replica, "CLUSTER", "REPLICATE", id);
            }
            for (SpinelServer s : all) await(deadline, "the cluster to be ok", () -> infoField(s, "cluster_state").equals("ok"));
            for (SpinelServer r : rs) await(deadline, "the replicas to sync",
                    () -> call(r, "INFO", "replication").toString().contains("master_link_status:up"));
            // and until every node lists every replica in CLUSTER SLOTS (which waits for the
            // replica's offset to reach it over the bus), so that READONLY clients find them
            for (SpinelServer s : all) await(deadline, "every node to list the replicas", () -> slotsEntries(s) == all.size());
        }

        /** The nodes CLUSTER SLOTS names, over all ranges (a master once per range). */
        private static int slotsEntries(SpinelServer s) {
            int n = 0;
            for (Object range : (List<?>) call(s, "CLUSTER", "SLOTS")) n += ((List<?>) range).size() - 2;
            return n;
        }

        private static Object call(SpinelServer s, String... args) {
            try (SpinelClient c = SpinelClient.connect(s.engine())) {
                return c.execute(args);
            }
        }

        private static String infoField(SpinelServer s, String name) {
            for (String line : call(s, "CLUSTER", "INFO").toString().split("\r\n")) {
                if (line.startsWith(name + ":")) return line.substring(name.length() + 1);
            }
            return "";
        }

        private static void await(long deadline, String what, java.util.function.BooleanSupplier condition) {
            while (!condition.getAsBoolean()) {
                if (System.currentTimeMillis() > deadline) throw new IllegalStateException("cluster did not form: waited for " + what);
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while waiting for " + what, e);
                }
            }
        }
    }
}
