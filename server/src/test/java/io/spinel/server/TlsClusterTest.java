package io.spinel.server;

import io.spinel.core.Log;
import io.spinel.server.testing.RawClient;
import io.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;

import static io.spinel.server.ClusterTest.await;
import static io.spinel.server.ClusterTest.call;
import static io.spinel.server.ClusterTest.clusterOk;
import static io.spinel.server.ClusterTest.myId;
import static io.spinel.server.ClusterTest.text;
import static io.spinel.server.TlsTest.cert;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The cluster bus over TLS (tls-cluster yes), with the certificates of src/test/resources/tls:
 * Spinel nodes forming a cluster whose every link is TLS, a replica syncing over TLS, the ports
 * clients are told on TLS and plain connections, a node whose certificate the others do not
 * trust, the certificate of new links after CONFIG SET, and a cluster of a Spinel node and a
 * redis-server 7.0 node, whose bus is OpenSSL's, compared reply by reply.
 */
class TlsClusterTest {
    private final List<SpinelServer> spinels = new ArrayList<>();
    private final List<RedisServerProcess> redis = new ArrayList<>();
    private final Map<SpinelServer, ByteArrayOutputStream> logs = new HashMap<>();
    /** The nodes' directories are made in it (JUnit deletes it after the servers stopped). */
    @TempDir
    Path dirs;

    @AfterEach
    void stop() {
        for (SpinelServer s : spinels) s.close();
        for (RedisServerProcess r : redis) r.close();
    }

    private Path tempDir() throws IOException {
        return Files.createTempDirectory(dirs, "node");
    }

    /** A TLS port whose bus port (+10000, as tls-cluster derives it) is free too. */
    private static int tlsPortWithFreeBusPort() throws IOException {
        while (true) {
            int port = RedisServerProcess.freePort();
            try (ServerSocket bus = new ServerSocket()) {
                bus.bind(new java.net.InetSocketAddress(port + 10_000));
                return port;
            } catch (IOException taken) {
                // the next one
            }
        }
    }

    /**
     * A cluster node with its plain port and a TLS one, the bus and replication over TLS, the bus
     * port derived from the TLS port; certificate (and key) and CA file as given; logs kept. The
     * bus port was free when picked but can be taken before the node binds it (an outgoing
     * connection's ephemeral port; seen once in a suite run): then again with other ports.
     */
    private SpinelServer tlsNode(String certName, String caFile, String... options) throws Exception {
        for (int attempt = 1; ; attempt++) {
            try {
                return tlsNodeOnce(certName, caFile, options);
            } catch (IllegalStateException e) {
                if (attempt == 5 || e.getMessage() == null || !e.getMessage().contains("Failed listening")) throw e;
            }
        }
    }

    private SpinelServer tlsNodeOnce(String certName, String caFile, String... options) throws Exception {
        ByteArrayOutputStream logged = new ByteArrayOutputStream();
        Log log = new Log(new PrintStream(logged, true));
        log.setLevel(Log.VERBOSE); // (where failed links are logged)
        SpinelServer.Builder b = SpinelServer.builder().randomPort().log(log)
                .option("bind", "127.0.0.1").option("dir", tempDir().toString())
                .option("cluster-enabled", "yes").option("cluster-node-timeout", "1000")
                .option("repl-diskless-sync-delay", "0").option("enable-debug-command", "local")
                .option("tls-port", Integer.toString(tlsPortWithFreeBusPort()))
                .option("tls-cert-file", cert(certName + ".crt")).option("tls-key-file", cert(certName + ".key"))
                .option("tls-ca-cert-file", caFile).option("tls-cluster", "yes").option("tls-replication", "yes")
                // clients need no certificate: the bus asks for one all the same
                .option("tls-auth-clients", "no");
        for (int i = 0; i < options.length; i += 2) b.option(options[i], options[i + 1]);
        SpinelServer s = b.start();
        spinels.add(s);
        logs.put(s, logged);
        return s;
    }

    private SpinelServer tlsNode() throws Exception {
        return tlsNode("server", cert("ca.crt"));
    }

    private static int tlsPort(SpinelServer s) {
        return s.engine().config().getInt("tls-port");
    }

    /** A TLS session to the port, presenting the given certificate (none for null), its handshake done. */
    private static SSLSocket tlsSocket(int port, String clientCert) throws Exception {
        SSLSocket s = (SSLSocket) TlsTest.clientContext(clientCert).getSocketFactory().createSocket("127.0.0.1", port);
        s.setSoTimeout(10_000);
        s.startHandshake();
        return s;
    }

    /** A command over a TLS client connection. */
    private static String tlsCall(int tlsPort, String... args) throws Exception {
        try (RawClient c = new RawClient(tlsSocket(tlsPort, null))) {
            return c.callString(args);
        }
    }

    /** Three masters with a third of the slots each, met over the TLS bus (CLUSTER MEET names their TLS ports). */
    private SpinelServer[] threeMasters() throws Exception {
        SpinelServer[] nodes = {tlsNode(), tlsNode(), tlsNode()};
        int[][] ranges = {{0, 5460}, {5461, 10922}, {10923, 16383}};
        for (int i = 0; i < 3; i++) {
            int port = nodes[i].port();
            assertEquals("+OK\r\n", call(port, "CLUSTER", "ADDSLOTSRANGE", Integer.toString(ranges[i][0]), Integer.toString(ranges[i][1])));
            assertEquals("+OK\r\n", call(port, "CLUSTER", "SET-CONFIG-EPOCH", Integer.toString(i + 1)));
        }
        // (no bus port given: the TLS port + 10000)
        for (int i = 1; i < 3; i++) {
            assertEquals("+OK\r\n", call(nodes[0].port(), "CLUSTER", "MEET", "127.0.0.1", Integer.toString(tlsPort(nodes[i]))));
        }
        for (SpinelServer n : nodes) await("cluster ok on " + n.port(), () -> clusterOk(n.port(), nodes.length));
        return nodes;
    }

    /** Each node's address in CLUSTER NODES, by node id ("ip:port@cport"). */
    private static Map<String, String> addresses(String nodesReply) {
        Map<String, String> out = new TreeMap<>();
        for (String line : text(nodesReply).split("\n")) {
            String[] f = line.split(" ");
            if (f.length > 1) out.put(f[0], f[1]);
        }
        return out;
    }

    @Test
    void mastersMeetOverTlsAndEachClientIsToldItsKindOfPort() throws Exception {
        SpinelServer[] masters = threeMasters();
        SpinelServer a = masters[0];
        SpinelServer b = masters[1];
        SpinelServer c = masters[2];
        int cBus = tlsPort(c) + 10_000;
        // CLUSTER NODES: the TLS ports on a TLS connection, the plain ones on a plain connection
        String cId = myId(c.port());
        assertEquals("127.0.0.1:" + tlsPort(c) + "@" + cBus, addresses(tlsCall(tlsPort(a), "CLUSTER", "NODES")).get(cId));
        assertEquals("127.0.0.1:" + c.port() + "@" + cBus, addresses(call(a.port(), "CLUSTER", "NODES")).get(cId));
        // "foo" is in slot 12182, c's: MOVED the same way
        assertEquals("-MOVED 12182 127.0.0.1:" + c.port() + "\r\n", call(a.port(), "SET", "foo", "bar"));
        assertEquals("-MOVED 12182 127.0.0.1:" + tlsPort(c) + "\r\n", tlsCall(tlsPort(a), "SET", "foo", "bar"));
        assertEquals("+OK\r\n", tlsCall(tlsPort(c), "SET", "foo", "bar"));
        // CLUSTER SLOTS likewise; CLUSTER SHARDS gives both
        String plainSlots = call(a.port(), "CLUSTER", "SLOTS");
        String tlsSlots = tlsCall(tlsPort(a), "CLUSTER", "SLOTS");
        for (SpinelServer n : List.of(a, b, c)) {
            assertThat(plainSlots).contains(":" + n.port() + "\r\n").doesNotContain(":" + tlsPort(n) + "\r\n");
            assertThat(tlsSlots).contains(":" + tlsPort(n) + "\r\n").doesNotContain(":" + n.port() + "\r\n");
        }
        assertEquals(plainSlots.replace(":" + c.port() + "\r\n", ":" + tlsPort(c) + "\r\n")
                .replace(":" + b.port() + "\r\n", ":" + tlsPort(b) + "\r\n")
                .replace(":" + a.port() + "\r\n", ":" + tlsPort(a) + "\r\n"), tlsSlots);
        assertThat(call(b.port(), "CLUSTER", "SHARDS"))
                .contains("$4\r\nport\r\n:" + c.port() + "\r\n$8\r\ntls-port\r\n:" + tlsPort(c) + "\r\n");
        // the bus speaks TLS only, and asks for a certificate although the clients' port does not
        try (SSLSocket s = tlsSocket(cBus, "client")) {
            assertThat(s.getSession().getProtocol()).startsWith("TLS");
        }
        assertThatThrownBy(() -> {
            try (RawClient bare = new RawClient(tlsSocket(cBus, null))) {
                bare.sendRaw("RCmb");
                bare.readReply(); // (TLS 1.3: the refusal arrives after the client's side of the handshake)
            }
        }).isInstanceOf(IOException.class);
        assertEquals("+PONG\r\n", tlsCall(tlsPort(c), "PING"));
    }

    @Test
    void replicaSyncsOverTlsAndServesReads() throws Exception {
        SpinelServer[] masters = threeMasters();
        SpinelServer a = masters[0];
        SpinelServer c = masters[2];
        SpinelServer r = tlsNode();
        assertEquals("+OK\r\n", call(r.port(), "CLUSTER", "MEET", "127.0.0.1", Integer.toString(tlsPort(a))));
        String masterId = myId(c.port());
        await("replica knows the master", () -> call(r.port(), "CLUSTER", "REPLICATE", masterId).equals("+OK\r\n"));
        await("replica in sync", () -> call(r.port(), "INFO", "replication").contains("master_link_status:up"));
        // it replicates from c's TLS port, and announces its own
        assertThat(call(r.port(), "INFO", "replication")).contains("master_port:" + tlsPort(c) + "\r\n");
        assertThat(call(c.port(), "INFO", "replication")).contains("port=" + tlsPort(r) + ",");
        assertEquals("+OK\r\n", call(c.port(), "SET", "foo", "bar"));
        try (RawClient reader = new RawClient(r.port())) {
            assertEquals("+OK\r\n", reader.callString("READONLY"));
            await("write replicated", () -> reader.callString("GET", "foo").equals("$3\r\nbar\r\n"));
        }
        // the masters list it with the port each kind of client is given
        String rId = myId(r.port());
        await("replica known everywhere", () -> call(a.port(), "CLUSTER", "NODES").contains(rId + " 127.0.0.1:" + r.port() + "@"));
        assertThat(tlsCall(tlsPort(a), "CLUSTER", "REPLICAS", masterId)).contains(rId + " 127.0.0.1:" + tlsPort(r) + "@");
    }

    @Test
    void aNodeWithAnUntrustedCertificateNeverJoins() throws Exception {
        SpinelServer a = tlsNode();
        SpinelServer b = tlsNode();
        assertEquals("+OK\r\n", call(a.port(), "CLUSTER", "MEET", "127.0.0.1", Integer.toString(tlsPort(b))));
        await("two nodes", () -> call(a.port(), "CLUSTER", "INFO").contains("cluster_known_nodes:2\r\n")
                && call(b.port(), "CLUSTER", "INFO").contains("cluster_known_nodes:2\r\n"));
        // its certificate comes from another CA; it trusts theirs
        SpinelServer stranger = tlsNode("stranger", cert("ca.crt"));
        assertEquals("+OK\r\n", call(a.port(), "CLUSTER", "MEET", "127.0.0.1", Integer.toString(tlsPort(stranger))));
        assertEquals("+OK\r\n", call(stranger.port(), "CLUSTER", "MEET", "127.0.0.1", Integer.toString(tlsPort(b))));
        String failedLink = " at 127.0.0.1:" + (tlsPort(stranger) + 10_000) + " failed: ";
        await("a's link to it failed", () -> logs.get(a).toString(StandardCharsets.UTF_8).contains(failedLink));
        await("b refused its link", () -> logs.get(b).toString(StandardCharsets.UTF_8)
                .contains("Error accepting cluster node connection: "));
        // the handshake nodes time out (the node timeout) and are forgotten
        Thread.sleep(2_500);
        assertThat(call(a.port(), "CLUSTER", "INFO")).contains("cluster_known_nodes:2\r\n");
        assertThat(call(b.port(), "CLUSTER", "INFO")).contains("cluster_known_nodes:2\r\n");
        assertThat(call(stranger.port(), "CLUSTER", "INFO")).contains("cluster_known_nodes:1\r\n");
        assertThat(call(a.port(), "CLUSTER", "NODES")).doesNotContain(":" + tlsPort(stranger) + "@");
    }

    @Test
    void newBusLinksUseTheCertificateConfigSetGave() throws Exception {
        SpinelServer a = tlsNode();
        SpinelServer b = tlsNode();
        assertEquals("+OK\r\n", call(a.port(), "CLUSTER", "MEET", "127.0.0.1", Integer.toString(tlsPort(b))));
        await("two nodes", () -> call(b.port(), "CLUSTER", "INFO").contains("cluster_known_nodes:2\r\n"));
        int aBus = tlsPort(a) + 10_000;
        try (SSLSocket s = tlsSocket(aBus, "client")) {
            assertEquals("CN=Server-1,O=Spinel Test", peerName(s));
        }
        assertEquals("+OK\r\n", call(a.port(), "CONFIG", "SET", "tls-cert-file", cert("server2.crt"),
                "tls-key-file", cert("server2.key")));
        try (SSLSocket s = tlsSocket(aBus, "client")) {
            assertEquals("CN=Server-2,O=Spinel Test", peerName(s));
        }
        // the links a opens again present the new certificate, which b trusts
        assertEquals("+OK\r\n", call(a.port(), "DEBUG", "CLUSTERLINK", "KILL", "ALL", myId(b.port())));
        await("links again", () -> call(a.port(), "CLUSTER", "LINKS").split("\\*12\r\n").length == 3
                && call(b.port(), "CLUSTER", "LINKS").split("\\*12\r\n").length == 3);
        assertThat(call(a.port(), "CLUSTER", "NODES")).doesNotContain("fail");
    }

    /** MIGRATE goes over TLS whenever tls-cluster is yes, as Redis's does (cluster mode or not). */
    @Test
    void migrateTalksTlsToItsTarget() throws Exception {
        SpinelServer source = tlsNode("server", cert("ca.crt"), "cluster-enabled", "no");
        SpinelServer target = tlsNode("server", cert("ca.crt"), "cluster-enabled", "no");
        assertEquals("+OK\r\n", call(source.port(), "SET", "k", "v"));
        assertEquals("+OK\r\n", call(source.port(), "MIGRATE", "127.0.0.1", Integer.toString(tlsPort(target)), "k", "0", "5000"));
        assertEquals("$1\r\nv\r\n", call(target.port(), "GET", "k"));
        // a plain port does not speak TLS: the handshake fails as a connection does
        assertEquals("+OK\r\n", call(source.port(), "SET", "k2", "v"));
        assertEquals("-IOERR error or timeout connecting to the client\r\n",
                call(source.port(), "MIGRATE", "127.0.0.1", Integer.toString(target.port()), "k2", "0", "1000"));
        assertEquals(":1\r\n", call(source.port(), "EXISTS", "k2"));
    }

    private static String peerName(SSLSocket s) throws Exception {
        return ((X509Certificate) s.getSession().getPeerCertificates()[0]).getSubjectX500Principal().getName();
    }

    /**
     * A Spinel node and a redis-server 7.0 node (Debian's, built with TLS) in one cluster over the
     * TLS bus: each side's handshakes with the other's TLS, and the same ports in CLUSTER NODES,
     * SLOTS and MOVED on either node, for plain and TLS clients.
     */
    @Test
    void aClusterWithRedisServerOverTlsAgreesOnEveryPort() throws Exception {
        Assumptions.assumeTrue(RedisServerProcess.available(), "redis-server is not installed");
        int redisTls = tlsPortWithFreeBusPort();
        RedisServerProcess r = RedisServerProcess.start(tempDir(), "--cluster-enabled", "yes", "--cluster-node-timeout", "1000",
                "--tls-port", Integer.toString(redisTls), "--tls-cluster", "yes", "--tls-replication", "yes",
                "--tls-cert-file", cert("server.crt"), "--tls-key-file", cert("server.key"),
                "--tls-ca-cert-file", cert("ca.crt"), "--tls-auth-clients", "no");
        Assumptions.assumeTrue(r != null, "redis-server did not start");
        redis.add(r);
        SpinelServer s = tlsNode();
        assertEquals("+OK\r\n", call(r.port(), "CLUSTER", "ADDSLOTSRANGE", "0", "8191"));
        assertEquals("+OK\r\n", call(s.port(), "CLUSTER", "ADDSLOTSRANGE", "8192", "16383"));
        assertEquals("+OK\r\n", call(r.port(), "CLUSTER", "SET-CONFIG-EPOCH", "1"));
        assertEquals("+OK\r\n", call(s.port(), "CLUSTER", "SET-CONFIG-EPOCH", "2"));
        assertEquals("+OK\r\n", call(s.port(), "CLUSTER", "MEET", "127.0.0.1", Integer.toString(redisTls)));
        await("cluster ok on both", () -> clusterOk(r.port(), 2) && clusterOk(s.port(), 2));
        // the same addresses for both nodes from either, on a plain and on a TLS connection
        assertEquals(addresses(call(r.port(), "CLUSTER", "NODES")), addresses(call(s.port(), "CLUSTER", "NODES")));
        assertEquals(addresses(tlsCall(redisTls, "CLUSTER", "NODES")), addresses(tlsCall(tlsPort(s), "CLUSTER", "NODES")));
        assertThat(addresses(call(s.port(), "CLUSTER", "NODES"))).containsValue("127.0.0.1:" + r.port() + "@" + (redisTls + 10_000));
        // CLUSTER SLOTS byte for byte
        assertEquals(call(r.port(), "CLUSTER", "SLOTS"), call(s.port(), "CLUSTER", "SLOTS"));
        assertEquals(tlsCall(redisTls, "CLUSTER", "SLOTS"), tlsCall(tlsPort(s), "CLUSTER", "SLOTS"));
        // MOVED: "foo" (12182) is Spinel's, "a" (15495) too, "b" (3300) Redis's
        assertEquals("-MOVED 12182 127.0.0.1:" + s.port() + "\r\n", call(r.port(), "GET", "foo"));
        assertEquals("-MOVED 12182 127.0.0.1:" + tlsPort(s) + "\r\n", tlsCall(redisTls, "GET", "foo"));
        assertEquals("-MOVED 3300 127.0.0.1:" + r.port() + "\r\n", call(s.port(), "GET", "b"));
        assertEquals("-MOVED 3300 127.0.0.1:" + redisTls + "\r\n", tlsCall(tlsPort(s), "GET", "b"));
        // CLUSTER SHARDS: the same fields, ports included (offsets and order aside)
        assertEquals(shardFields(call(r.port(), "CLUSTER", "SHARDS")), shardFields(call(s.port(), "CLUSTER", "SHARDS")));
    }

    /** The lines of a CLUSTER SHARDS reply, sorted, with replication offsets left out. */
    private static List<String> shardFields(String reply) {
        List<String> lines = new ArrayList<>(List.of(reply.replaceAll("replication-offset\r\n:\\d+", "replication-offset").split("\r\n")));
        lines.sort(null);
        return lines;
    }
}
