package io.spinel.server;

import io.spinel.core.cluster.ClusterMessage;
import io.spinel.server.testing.RawClient;
import io.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

import static io.spinel.core.cluster.ClusterMessage.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * ClusterMessage against a live redis-server 7.0 cluster node: the test plays one or two other
 * nodes of its cluster (a bus listener and a connection to Redis's bus port each, speaking only
 * through the codec), decodes everything Redis sends on both links, and watches Redis's CLUSTER
 * NODES to see that it took what we sent as meant: the handshake, slot claims won and lost by
 * configEpoch, an UPDATE, a FAIL, and a PUBLISH each way.
 */
class ClusterBusWireTest {
    private static final long WAIT_MS = 5000;
    private static final String REDIS_HOSTNAME = "redis-bus-test";
    private static final long REDIS_EPOCH = 10;

    private RedisServerProcess redis;
    private int redisBusPort;
    private RawClient admin;
    private String redisId;
    private final List<FakeNode> fakes = new ArrayList<>();

    @BeforeEach
    void startRedis() throws Exception {
        Assumptions.assumeTrue(RedisServerProcess.available(), "redis-server not installed");
        redisBusPort = RedisServerProcess.freePort();
        redis = RedisServerProcess.start("--cluster-enabled", "yes", "--cluster-port", Integer.toString(redisBusPort),
                "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "5000",
                "--cluster-announce-hostname", REDIS_HOSTNAME);
        admin = new RawClient(redis.port());
        assertThat(admin.callString("CLUSTER", "ADDSLOTS", "0", "1", "100", "16383")).isEqualTo("+OK\r\n");
        // A configEpoch no fake node uses: Redis never resolves an epoch collision with us (which would
        // depend on which random name sorts first), and claims below and above it have known outcomes.
        assertThat(admin.callString("CLUSTER", "SET-CONFIG-EPOCH", Long.toString(REDIS_EPOCH))).isEqualTo("+OK\r\n");
        redisId = bulk(admin.callString("CLUSTER", "MYID"));
        assertThat(redisId).hasSize(40);
    }

    @AfterEach
    void stop() throws IOException {
        for (FakeNode f : fakes) f.close();
        if (admin != null) admin.close();
        if (redis != null) redis.close();
        for (FakeNode f : fakes) assertThat(f.errors).as("reader errors of " + f.hostname).isEmpty();
    }

    @Test
    void redisMessagesDecode() throws Exception {
        FakeNode a = fake("fake-a", 1);
        a.meet();
        // Redis answers the MEET on the connection it came on.
        ClusterMessage pong = a.await(0, r -> !r.accepted, "Redis's answer to MEET").message;
        assertFromRedis(pong, PONG);
        assertThat(pong.gossip).isEmpty(); // it knows no third node to gossip about
        // Then it connects to our bus port and pings there: a plain PING, since it learned of us from a MEET.
        ClusterMessage ping = a.await(0, r -> r.accepted, "Redis's first message on its link to us").message;
        assertFromRedis(ping, PING);

        // A second fake node gives Redis someone to gossip about. A PONG then carries at most one
        // entry: Redis draws up to 3 random known nodes, skips itself, and may pick the recipient.
        FakeNode b = fake("fake-b", 2);
        b.meet();
        awaitNode(b.name, f -> f[2].equals("master"), "b known, handshake done");
        awaitNode(a.name, f -> f[2].equals("master"), "a known, handshake done");
        Set<String> gossiped = new HashSet<>();
        for (int tries = 0; tries < 50 && !gossiped.contains(b.name); tries++) {
            int mark = a.mark();
            a.send(a.header(PING));
            ClusterMessage p = a.await(mark, r -> !r.accepted && r.message.type == PONG, "PONG to our PING").message;
            assertFromRedis(p, PONG);
            assertThat(p.gossip).hasSizeLessThanOrEqualTo(1);
            for (Gossip g : p.gossip) {
                FakeNode about = g.name().equals(a.name) ? a : g.name().equals(b.name) ? b : null;
                assertThat(about).as("gossip names a node Redis knows: " + g).isNotNull();
                assertThat(g.name()).matches("[0-9a-f]{40}");
                assertThat(g.ip()).isEqualTo("127.0.0.1");
                assertThat(g.port()).isEqualTo(about.port);
                assertThat(g.cport()).isEqualTo(about.cport);
                assertThat(g.pport()).isZero();
                assertThat(g.flags()).isEqualTo(NODE_MASTER);
                assertThat(g.pongReceivedSeconds()).isBetween(System.currentTimeMillis() / 1000 - 60,
                        System.currentTimeMillis() / 1000 + 60);
                gossiped.add(g.name());
            }
        }
        assertThat(gossiped).contains(b.name);

        // FAIL: once b is unreachable (so that no PONG from it clears the flag), a says it failed.
        b.close();
        ClusterMessage fail = a.header(FAIL);
        fail.failing = b.name;
        a.send(fail);
        awaitNode(b.name, f -> Arrays.asList(f[2].split(",")).contains("fail"), "b flagged fail");
    }

    @Test
    void ourMessagesAreAccepted() throws Exception {
        FakeNode a = fake("fake-a", 1);
        a.meet();
        // We announced no ip: Redis takes the address our connection comes from.
        awaitNode(a.name, f -> f[2].equals("master"), "handshake done");
        a.send(a.header(PING)); // the handshake's PONG is not trusted for epochs; the first PING after it is
        String[] line = awaitNode(a.name, f -> f[6].equals("1"), "a's configEpoch known");
        assertThat(line[1]).isEqualTo("127.0.0.1:" + a.port + "@" + a.cport + ",fake-a");
        assertThat(line[3]).isEqualTo("-");
        assertThat(line[2]).isEqualTo("master");
        assertThat(line[7]).isEqualTo("connected");

        // Claiming 5000 (free) and 100 (Redis's, at configEpoch 10) at configEpoch 1: Redis gives us
        // 5000, keeps 100, and sends us an UPDATE about its own slots.
        int mark = a.mark();
        a.announce(1, 5000, 100);
        a.send(a.header(PING));
        awaitNode(a.name, f -> slots(f).equals("5000"), "a owns 5000 only");
        assertThat(slots(awaitNode(redisId, f -> true, "Redis"))).isEqualTo("0-1 100 16383");
        ClusterMessage update = a.await(mark, r -> r.accepted && r.message.type == UPDATE, "UPDATE from Redis").message;
        assertThat(update.sender).isEqualTo(redisId);
        assertThat(update.updateNode).isEqualTo(redisId);
        assertThat(update.updateConfigEpoch).isEqualTo(REDIS_EPOCH);
        assertThat(slotList(update.updateSlots)).containsExactly(0, 1, 100, 16383);

        // At configEpoch 11 the claim on 100 wins, and Redis's currentEpoch follows ours.
        a.announce(11, 5000, 100);
        a.send(a.header(PING));
        awaitNode(a.name, f -> slots(f).equals("100 5000") && f[6].equals("11"), "a owns 100 and 5000 at epoch 11");
        assertThat(slots(awaitNode(redisId, f -> true, "Redis"))).isEqualTo("0-1 16383");
        assertThat(admin.callString("CLUSTER", "INFO")).contains("cluster_current_epoch:11\r\n");

        // UPDATE about ourselves, at configEpoch 12, adding 6000 (our PINGs and PONGs still say 11
        // without 6000 until Redis shows it: only the UPDATE can have given it).
        ClusterMessage u = a.header(UPDATE);
        u.updateNode = a.name;
        u.updateConfigEpoch = 12;
        u.updateSlots = new byte[SLOT_BITMAP_SIZE];
        for (int s : new int[] {100, 5000, 6000}) setSlot(u.updateSlots, s);
        a.send(u);
        awaitNode(a.name, f -> slots(f).equals("100 5000 6000") && f[6].equals("12"), "a owns 6000 at epoch 12");
        a.announce(12, 100, 5000, 6000);

        // PUBLISH from us reaches Redis's subscribers, bytes intact.
        byte[] payload = {'h', 'i', 0, '\r', '\n', (byte) 0xff};
        try (RawClient sub = new RawClient(redis.port())) {
            sub.setTimeout((int) WAIT_MS);
            assertThat(sub.callString("SUBSCRIBE", "bus-news")).startsWith("*3\r\n$9\r\nsubscribe\r\n");
            ClusterMessage pub = a.header(PUBLISH);
            pub.channel = "bus-news".getBytes(StandardCharsets.US_ASCII);
            pub.message = payload;
            a.send(pub);
            byte[] expected = concat("*3\r\n$7\r\nmessage\r\n$8\r\nbus-news\r\n$6\r\n".getBytes(StandardCharsets.US_ASCII),
                    payload, "\r\n".getBytes(StandardCharsets.US_ASCII));
            assertThat(sub.readReply()).isEqualTo(expected);
        }

        // PUBLISH on Redis goes to every node it has a link to: to us, on the link Redis opened.
        mark = a.mark();
        assertThat(admin.callString("PUBLISH", "from-redis", "hello")).isEqualTo(":0\r\n");
        ClusterMessage fromRedis = a.await(mark, r -> r.accepted && r.message.type == PUBLISH, "PUBLISH from Redis").message;
        assertThat(fromRedis.sender).isEqualTo(redisId);
        assertThat(new String(fromRedis.channel, StandardCharsets.US_ASCII)).isEqualTo("from-redis");
        assertThat(new String(fromRedis.message, StandardCharsets.US_ASCII)).isEqualTo("hello");
        assertThat(slotList(fromRedis.slots)).containsExactly(0, 1, 16383);
        assertThat(fromRedis.configEpoch).isEqualTo(REDIS_EPOCH);
    }

    /** What every message from Redis says about it in its header. */
    private void assertFromRedis(ClusterMessage m, int type) {
        assertThat(m.type).isEqualTo(type);
        assertThat(m.sender).isEqualTo(redisId);
        assertThat(m.port).isEqualTo(redis.port());
        assertThat(m.cport).isEqualTo(redisBusPort);
        assertThat(m.pport).isZero(); // no TLS
        assertThat(m.flags).isEqualTo(NODE_MASTER | NODE_MYSELF);
        assertThat(slotList(m.slots)).containsExactly(0, 1, 100, 16383);
        assertThat(m.configEpoch).isEqualTo(REDIS_EPOCH);
        assertThat(m.currentEpoch).isEqualTo(REDIS_EPOCH);
        assertThat(m.replicaOf).isNull();
        assertThat(m.ip).isEmpty(); // no cluster-announce-ip: receivers use the connection's address
        assertThat(m.state).isEqualTo(STATE_FAIL); // not every slot is served
        assertThat(m.hostname).isEqualTo(REDIS_HOSTNAME);
        assertThat(m.mflags[0] & MFLAG0_EXT_DATA).isNotZero();
    }

    private FakeNode fake(String hostname, long epoch) throws IOException {
        FakeNode f = new FakeNode(hostname, epoch);
        fakes.add(f);
        return f;
    }

    private static String bulk(String reply) {
        assertThat(reply).startsWith("$");
        return reply.substring(reply.indexOf("\r\n") + 2, reply.length() - 2);
    }

    private Map<String, String[]> clusterNodes() throws IOException {
        Map<String, String[]> nodes = new HashMap<>();
        for (String l : bulk(admin.callString("CLUSTER", "NODES")).split("\n")) {
            if (l.isBlank()) continue;
            String[] f = l.trim().split(" ");
            nodes.put(f[0], f);
        }
        return nodes;
    }

    /** The slot ranges at the end of a CLUSTER NODES line. */
    private static String slots(String[] fields) {
        return String.join(" ", Arrays.asList(fields).subList(Math.min(8, fields.length), fields.length));
    }

    /** Polls CLUSTER NODES until the node's line satisfies ok; returns its fields. */
    private String[] awaitNode(String id, Predicate<String[]> ok, String what) throws Exception {
        long deadline = System.currentTimeMillis() + WAIT_MS;
        Map<String, String[]> nodes;
        do {
            nodes = clusterNodes();
            String[] f = nodes.get(id);
            if (f != null && ok.test(f)) return f;
            Thread.sleep(20);
        } while (System.currentTimeMillis() < deadline);
        StringBuilder all = new StringBuilder();
        for (String[] f : nodes.values()) all.append(String.join(" ", f)).append('\n');
        return fail("timed out waiting for: " + what + "; CLUSTER NODES:\n" + all);
    }

    private static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) n += p.length;
        byte[] r = new byte[n];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, r, at, p.length);
            at += p.length;
        }
        return r;
    }

    /** A message as one of our links received it: accepted is the link Redis opened to our bus port. */
    private record Received(boolean accepted, ClusterMessage message) {
    }

    /**
     * A cluster node made of a bus listener and a connection to Redis's bus port. It answers
     * every PING or MEET with a PONG announcing its current slots and epochs, and keeps every
     * message it receives, on either link, in arrival order.
     */
    private final class FakeNode implements AutoCloseable {
        final String name;
        final String hostname;
        /** The client port we announce; nothing listens there, Redis only lists it. */
        final int port;
        final int cport;
        private final ServerSocket bus;
        private final List<Socket> sockets = Collections.synchronizedList(new ArrayList<>());
        private Socket link;
        private final List<Received> log = new ArrayList<>();
        final List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());
        private final byte[] slots = new byte[SLOT_BITMAP_SIZE];
        private long epoch;
        private volatile boolean closed;

        FakeNode(String hostname, long epoch) throws IOException {
            byte[] id = new byte[20];
            new SecureRandom().nextBytes(id);
            this.name = HexFormat.of().formatHex(id);
            this.hostname = hostname;
            this.epoch = epoch;
            this.port = RedisServerProcess.freePort();
            int busPort = RedisServerProcess.freePort();
            this.bus = new ServerSocket();
            bus.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), busPort));
            this.cport = busPort;
            Thread acceptor = new Thread(() -> {
                try {
                    while (true) {
                        Socket s = bus.accept();
                        sockets.add(s);
                        startReader(s, true);
                    }
                } catch (IOException closed) {
                    // the listener was closed
                }
            }, "fake-bus-accept-" + hostname);
            acceptor.setDaemon(true);
            acceptor.start();
        }

        /** Sets what our headers announce from now on. */
        synchronized void announce(long epoch, int... ownedSlots) {
            this.epoch = epoch;
            Arrays.fill(slots, (byte) 0);
            for (int s : ownedSlots) setSlot(slots, s);
        }

        synchronized ClusterMessage header(int type) {
            ClusterMessage m = new ClusterMessage(type);
            m.sender = name;
            m.port = port;
            m.cport = cport;
            m.flags = NODE_MASTER;
            m.currentEpoch = epoch;
            m.configEpoch = epoch;
            m.slots = slots.clone();
            m.state = STATE_OK;
            m.ip = "";
            if (isPingLike(type)) m.hostname = hostname;
            return m;
        }

        void meet() throws IOException {
            link = new Socket();
            link.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), redisBusPort), 2000);
            sockets.add(link);
            startReader(link, false);
            send(header(MEET));
        }

        /** Sends on our connection to Redis's bus port. */
        void send(ClusterMessage m) throws IOException {
            write(link, m.encode());
        }

        private void write(Socket s, byte[] bytes) throws IOException {
            synchronized (s) {
                OutputStream out = s.getOutputStream();
                out.write(bytes);
                out.flush();
            }
        }

        private void startReader(Socket s, boolean accepted) {
            Thread t = new Thread(() -> {
                try {
                    InputStream in = new BufferedInputStream(s.getInputStream());
                    while (true) {
                        byte[] head = in.readNBytes(8);
                        if (head.length < 8) return;
                        int len = ClusterMessage.frameLength(head, 0);
                        if (len < 0) throw new IOException("bad signature or length: " + HexFormat.of().formatHex(head));
                        byte[] frame = Arrays.copyOf(head, len);
                        if (in.readNBytes(frame, 8, len - 8) < len - 8) return;
                        ClusterMessage m = ClusterMessage.decode(frame);
                        if (accepted && (m.type == PING || m.type == MEET)) write(s, header(PONG).encode());
                        synchronized (log) {
                            log.add(new Received(accepted, m));
                            log.notifyAll();
                        }
                    }
                } catch (IOException e) {
                    if (!closed) errors.add(e); // after close, resets and closed sockets are expected
                } catch (RuntimeException e) {
                    errors.add(e);
                }
            }, "fake-bus-read-" + hostname);
            t.setDaemon(true);
            t.start();
        }

        /** How many messages have arrived so far, to wait for one that comes after them. */
        int mark() {
            synchronized (log) {
                return log.size();
            }
        }

        /** The first message at index from or later that satisfies p, waiting for it up to WAIT_MS. */
        Received await(int from, Predicate<Received> p, String what) throws InterruptedException {
            long deadline = System.currentTimeMillis() + WAIT_MS;
            synchronized (log) {
                int i = from;
                while (true) {
                    for (; i < log.size(); i++) {
                        if (p.test(log.get(i))) return log.get(i);
                    }
                    long left = deadline - System.currentTimeMillis();
                    if (left <= 0) break;
                    log.wait(left);
                }
                return fail("timed out waiting for " + what + " (" + hostname + "); received: " + log
                        + "; errors: " + errors);
            }
        }

        @Override
        public void close() throws IOException {
            closed = true;
            bus.close();
            synchronized (sockets) {
                for (Socket s : sockets) s.close();
            }
        }
    }
}
