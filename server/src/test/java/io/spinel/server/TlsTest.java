package io.spinel.server;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import io.lettuce.core.SslVerifyMode;
import io.lettuce.core.api.StatefulRedisConnection;
import io.spinel.core.Log;
import io.spinel.server.testing.RawClient;
import io.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.commands.ProtocolCommand;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.Socket;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * TLS for clients (tls-port beside port, on whichever transport the suite runs: the JDK's
 * selector, or Netty in the suite's second run) and for replication (tls-replication), with the
 * certificates of src/test/resources/tls (made by gen-test-certs.sh there).
 */
class TlsTest {
    private static final Path CERTS = certs();
    private static final ProtocolCommand DEBUG = () -> "DEBUG".getBytes(StandardCharsets.US_ASCII);
    private final List<SpinelServer> servers = new ArrayList<>();
    private final List<RedisServerProcess> redis = new ArrayList<>();

    @AfterEach
    void stop() {
        for (SpinelServer s : servers) s.close();
        for (RedisServerProcess r : redis) r.close();
    }

    private static Path certs() {
        try {
            return Path.of(TlsTest.class.getResource("/tls/ca.crt").toURI()).getParent();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static String cert(String name) {
        return CERTS.resolve(name).toString();
    }

    /** A server with a TLS port beside its plain one, tls-auth-clients as given. */
    private SpinelServer tlsServer(String authClients, String... options) throws IOException {
        return tlsServer(Log.silent(), authClients, options);
    }

    private SpinelServer tlsServer(Log log, String authClients, String... options) throws IOException {
        SpinelServer.Builder b = SpinelServer.builder().randomPort().log(log).option("bind", "127.0.0.1")
                .option("tls-port", Integer.toString(RedisServerProcess.freePort()))
                .option("tls-cert-file", cert("server.crt")).option("tls-key-file", cert("server.key"))
                .option("tls-ca-cert-file", cert("ca.crt")).option("tls-auth-clients", authClients);
        for (int i = 0; i < options.length; i += 2) b.option(options[i], options[i + 1]);
        SpinelServer s = b.start();
        servers.add(s);
        return s;
    }

    private static int tlsPort(SpinelServer s) {
        return Integer.parseInt(s.engine().config().get("tls-port"));
    }

    /** A client's TLS context: trusts the test CA, presents the given certificate if any. */
    static SSLContext clientContext(String certName) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", certificates(cert("ca.crt"))[0]);
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        KeyManagerFactory kmf = null;
        if (certName != null) {
            KeyStore keys = KeyStore.getInstance("PKCS12");
            keys.load(null, null);
            keys.setKeyEntry("me", privateKey(cert(certName + ".key")), "x".toCharArray(), certificates(cert(certName + ".crt")));
            kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(keys, "x".toCharArray());
        }
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(kmf == null ? null : new KeyManager[] {new Presenting((X509KeyManager) kmf.getKeyManagers()[0])},
                tmf.getTrustManagers(), null);
        return ctx;
    }

    /**
     * Presents its certificate whatever the server asks for: the JDK's own key manager keeps quiet
     * when the server's CA list does not name the issuer, and the server would never see a
     * stranger's certificate.
     */
    private static final class Presenting extends X509ExtendedKeyManager {
        private final X509KeyManager keys;

        Presenting(X509KeyManager keys) {
            this.keys = keys;
        }

        @Override
        public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
            return "me";
        }

        @Override
        public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
            return "me";
        }

        @Override
        public String[] getClientAliases(String keyType, Principal[] issuers) {
            return new String[] {"me"};
        }

        @Override
        public String[] getServerAliases(String keyType, Principal[] issuers) {
            return null;
        }

        @Override
        public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
            return null;
        }

        @Override
        public X509Certificate[] getCertificateChain(String alias) {
            return keys.getCertificateChain(alias);
        }

        @Override
        public PrivateKey getPrivateKey(String alias) {
            return keys.getPrivateKey(alias);
        }
    }

    private static X509Certificate[] certificates(String file) throws Exception {
        try (InputStream in = Files.newInputStream(Path.of(file))) {
            List<X509Certificate> out = new ArrayList<>();
            for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) out.add((X509Certificate) c);
            return out.toArray(new X509Certificate[0]);
        }
    }

    private static PrivateKey privateKey(String file) throws Exception {
        String pem = Files.readString(Path.of(file)).replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
        return KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(pem)));
    }

    private static Jedis jedis(int port, String clientCert) throws Exception {
        return new Jedis(new HostAndPort("127.0.0.1", port), DefaultJedisClientConfig.builder().ssl(true)
                .sslSocketFactory(clientContext(clientCert).getSocketFactory()).socketTimeoutMillis(10_000).build());
    }

    /** A raw TLS connection, its handshake done. */
    private static SSLSocket tlsSocket(int port, String clientCert) throws Exception {
        SSLSocket s = (SSLSocket) clientContext(clientCert).getSocketFactory().createSocket("127.0.0.1", port);
        s.setSoTimeout(10_000);
        s.startHandshake();
        return s;
    }

    private static String peerName(SSLSocket s) throws Exception {
        return ((X509Certificate) s.getSession().getPeerCertificates()[0]).getSubjectX500Principal().getName();
    }

    @Test
    void jedisWithAClientCertificateWhereOneIsRequired() throws Exception {
        SpinelServer s = tlsServer("yes");
        byte[] big = new byte[3 * 1024 * 1024 + 17]; // records, reads and writes of every size
        for (int i = 0; i < big.length; i++) big[i] = (byte) (i * 31 + (i >> 9));
        try (Jedis j = jedis(tlsPort(s), "client")) {
            assertThat(j.ping()).isEqualTo("PONG");
            assertThat(j.set("k", "v")).isEqualTo("OK");
            assertThat(j.get("k")).isEqualTo("v");
            j.set("big".getBytes(), big);
            assertThat(j.get("big".getBytes())).isEqualTo(big);
            Pipeline p = j.pipelined();
            for (int i = 0; i < 2000; i++) p.incr("n");
            p.sync();
            assertThat(j.get("n")).isEqualTo("2000");
            assertThat(j.strlen("big")).isEqualTo(big.length);
        }
        // the plain port serves the same data
        try (RawClient c = new RawClient(s.port())) {
            assertThat(c.callString("GET", "k")).isEqualTo("$1\r\nv\r\n");
        }
        // without a certificate the handshake fails: that connection only
        assertThatThrownBy(() -> {
            try (Jedis j = jedis(tlsPort(s), null)) {
                j.ping();
            }
        }).isInstanceOf(redis.clients.jedis.exceptions.JedisConnectionException.class);
        // a certificate from another CA neither
        assertThatThrownBy(() -> {
            try (Jedis j = jedis(tlsPort(s), "stranger")) {
                j.ping();
            }
        }).isInstanceOf(redis.clients.jedis.exceptions.JedisConnectionException.class);
        try (Jedis j = jedis(tlsPort(s), "client")) {
            assertThat(j.get("k")).isEqualTo("v");
        }
    }

    @Test
    void withIoThreads() throws Exception {
        // (Netty's I/O threads own the TLS sessions; the JDK transport ignores io-threads)
        SpinelServer s = tlsServer("no", "io-threads", "3");
        try (Jedis a = jedis(tlsPort(s), null); Jedis b = jedis(tlsPort(s), null)) {
            Pipeline p = a.pipelined();
            for (int i = 0; i < 1000; i++) p.rpush("l", "x" + i);
            p.sync();
            assertThat(b.llen("l")).isEqualTo(1000);
            assertThat(b.lindex("l", 999)).isEqualTo("x999");
        }
    }

    @Test
    void withoutAClientCertificateWhereItIsOptionalOrNotAsked() throws Exception {
        for (String auth : new String[] {"optional", "no"}) {
            SpinelServer s = tlsServer(auth);
            try (Jedis j = jedis(tlsPort(s), null)) {
                assertThat(j.set("k", auth)).isEqualTo("OK");
                assertThat(j.get("k")).isEqualTo(auth);
            }
        }
        // optional: a certificate that is presented must still be good
        SpinelServer s = tlsServer("optional");
        assertThatThrownBy(() -> {
            try (Jedis j = jedis(tlsPort(s), "stranger")) {
                j.ping();
            }
        }).isInstanceOf(redis.clients.jedis.exceptions.JedisConnectionException.class);
        // and CONFIG SET tls-auth-clients applies to the next connection
        try (Jedis j = jedis(tlsPort(s), "client")) {
            assertThat(j.configSet("tls-auth-clients", "yes")).isEqualTo("OK");
        }
        assertThatThrownBy(() -> {
            try (Jedis j = jedis(tlsPort(s), null)) {
                j.ping();
            }
        }).isInstanceOf(redis.clients.jedis.exceptions.JedisConnectionException.class);
    }

    @Test
    void lettuceOverTls() throws Exception {
        SpinelServer s = tlsServer("yes");
        RedisClient client = RedisClient.create(RedisURI.builder().withHost("127.0.0.1").withPort(tlsPort(s))
                .withSsl(true).withVerifyPeer(SslVerifyMode.CA).build());
        client.setOptions(ClientOptions.builder().sslOptions(SslOptions.builder().jdkSslProvider()
                .trustManager(new File(cert("ca.crt")))
                .keyManager(new File(cert("client.crt")), new File(cert("client.key")), null).build()).build());
        try (StatefulRedisConnection<String, String> c = client.connect()) {
            assertThat(c.sync().ping()).isEqualTo("PONG");
            c.sync().set("lettuce", "tls");
            List<io.lettuce.core.RedisFuture<Long>> futures = new ArrayList<>();
            for (int i = 0; i < 500; i++) futures.add(c.async().rpush("list", Integer.toString(i)));
            for (io.lettuce.core.RedisFuture<Long> f : futures) f.get(10, TimeUnit.SECONDS);
            assertThat(c.sync().llen("list")).isEqualTo(500);
            assertThat(c.sync().get("lettuce")).isEqualTo("tls");
        } finally {
            client.shutdown();
        }
    }

    @Test
    void aPlainClientOnTheTlsPortFailsOnlyItsConnection() throws Exception {
        ByteArrayOutputStream logged = new ByteArrayOutputStream();
        SpinelServer s = tlsServer(new Log(new PrintStream(logged, true)), "no");
        try (Jedis tls = jedis(tlsPort(s), null)) {
            tls.set("k", "v");
            try (Socket plain = new Socket("127.0.0.1", tlsPort(s))) {
                plain.setSoTimeout(5000);
                plain.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
                // what comes back is no PONG: at most a TLS alert, then the end of the connection
                ByteArrayOutputStream got = new ByteArrayOutputStream();
                try {
                    plain.getInputStream().transferTo(got);
                } catch (IOException reset) {
                    // a reset ends it too
                }
                assertThat(got.toString(StandardCharsets.ISO_8859_1)).doesNotContain("PONG");
            }
            assertThat(tls.get("k")).isEqualTo("v");
        }
        try (RawClient c = new RawClient(s.port())) {
            assertThat(c.callString("PING")).isEqualTo("+PONG\r\n");
        }
        long deadline = System.currentTimeMillis() + 5000;
        while (!logged.toString().contains("Error accepting a client connection: ") && System.currentTimeMillis() < deadline) {
            Thread.sleep(20);
        }
        assertThat(logged.toString()).contains("Error accepting a client connection: ");
    }

    @Test
    void aClientOverMaxclientsIsTurnedAwayAfterItsHandshake() throws Exception {
        SpinelServer s = tlsServer("no", "maxclients", "1");
        try (Jedis first = jedis(tlsPort(s), null)) {
            assertThat(first.ping()).isEqualTo("PONG");
            // the reply waits for the handshake, which comes after the server has written it
            try (SSLSocket second = tlsSocket(tlsPort(s), null)) {
                ByteArrayOutputStream got = new ByteArrayOutputStream();
                try {
                    second.getInputStream().transferTo(got);
                } catch (IOException reset) {
                    // closed after the reply
                }
                assertThat(got.toString(StandardCharsets.ISO_8859_1)).isEqualTo("-ERR max number of clients reached\r\n");
            }
            assertThat(first.ping()).isEqualTo("PONG");
        }
    }

    @Test
    void redisCliOverTls() throws Exception {
        Assumptions.assumeTrue(new File("/usr/bin/redis-cli").canExecute(), "redis-cli (Debian's redis-tools) is needed");
        SpinelServer s = tlsServer("yes");
        Process p = new ProcessBuilder("/usr/bin/redis-cli", "--tls", "--cacert", cert("ca.crt"), "--cert", cert("client.crt"),
                "--key", cert("client.key"), "-h", "127.0.0.1", "-p", Integer.toString(tlsPort(s)), "PING")
                .redirectErrorStream(true).start();
        assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        Assumptions.assumeFalse(out.contains("not supported") || out.contains("Unrecognized option"), "redis-cli without TLS: " + out);
        assertThat(out.trim()).isEqualTo("PONG");
        assertThat(p.exitValue()).isZero();
    }

    @Test
    void configSetOfTheCertificateServesNewConnectionsWithTheNewOne() throws Exception {
        SpinelServer s = tlsServer("no");
        int port = tlsPort(s);
        try (SSLSocket first = tlsSocket(port, null); RawClient old = new RawClient(first)) {
            assertThat(peerName(first)).contains("CN=Server-1");
            assertThat(old.callString("CONFIG", "SET", "tls-cert-file", cert("server2.crt"), "tls-key-file", cert("server2.key")))
                    .isEqualTo("+OK\r\n");
            try (SSLSocket second = tlsSocket(port, null)) {
                assertThat(peerName(second)).contains("CN=Server-2");
            }
            // a file that is no certificate: refused, and the context in use stays
            assertThat(old.callString("CONFIG", "SET", "tls-cert-file", cert("gen-test-certs.sh")))
                    .isEqualTo("-ERR CONFIG SET failed (possibly related to argument 'tls-cert-file') - "
                            + "Unable to update TLS configuration. Check server logs.\r\n");
            assertThat(old.callString("CONFIG", "GET", "tls-cert-file")).contains(cert("server2.crt"));
            // a key that is not the certificate's: refused too
            assertThat(old.callString("CONFIG", "SET", "tls-key-file", cert("server.key")))
                    .startsWith("-ERR CONFIG SET failed (possibly related to argument 'tls-key-file')");
            try (SSLSocket third = tlsSocket(port, null)) {
                assertThat(peerName(third)).contains("CN=Server-2");
            }
            // the connection made before the change keeps its session
            assertThat(old.callString("PING")).isEqualTo("+PONG\r\n");
            assertThat(peerName(first)).contains("CN=Server-1");
        }
    }

    @Test
    void configSetTlsPortOpensMovesAndClosesTheListener() throws Exception {
        SpinelServer s = SpinelServer.builder().randomPort().option("bind", "127.0.0.1").start();
        servers.add(s);
        int tlsPort = RedisServerProcess.freePort();
        try (RawClient c = new RawClient(s.port())) {
            // no certificate yet: TLS cannot be configured
            assertThat(c.callString("CONFIG", "SET", "tls-port", Integer.toString(tlsPort)))
                    .isEqualTo("-ERR CONFIG SET failed (possibly related to argument 'tls-port') - "
                            + "Unable to update TLS configuration. Check server logs.\r\n");
            assertThat(c.callString("CONFIG", "GET", "tls-port")).endsWith("$1\r\n0\r\n");
            // certificate, key and port in one command
            assertThat(c.callString("CONFIG", "SET", "tls-port", Integer.toString(tlsPort), "tls-cert-file", cert("server.crt"),
                    "tls-key-file", cert("server.key"), "tls-auth-clients", "no")).isEqualTo("+OK\r\n");
            try (Jedis j = jedis(tlsPort, null)) {
                assertThat(j.ping()).isEqualTo("PONG");
            }
            int moved = RedisServerProcess.freePort();
            assertThat(c.callString("CONFIG", "SET", "tls-port", Integer.toString(moved))).isEqualTo("+OK\r\n");
            try (Jedis j = jedis(moved, null)) {
                assertThat(j.ping()).isEqualTo("PONG");
            }
            assertThatThrownBy(() -> new Socket("127.0.0.1", tlsPort).close()).isInstanceOf(IOException.class);
            assertThat(c.callString("CONFIG", "SET", "tls-port", "0")).isEqualTo("+OK\r\n");
            assertThatThrownBy(() -> new Socket("127.0.0.1", moved).close()).isInstanceOf(IOException.class);
            // TLS stays configured: changing an option rebuilds nothing while it is off
            assertThat(c.callString("CONFIG", "SET", "tls-cert-file", "/nonexistent")).isEqualTo("+OK\r\n");
        }
    }

    @Test
    void aServerWithOnlyATlsPort() throws Exception {
        int tlsPort = RedisServerProcess.freePort();
        SpinelServer s = SpinelServer.builder().option("port", "0").option("bind", "127.0.0.1")
                .option("tls-port", Integer.toString(tlsPort)).option("tls-cert-file", cert("server.crt"))
                .option("tls-key-file", cert("server.key")).option("tls-auth-clients", "no").start();
        servers.add(s);
        assertThat(s.port()).isZero();
        assertThat(s.tlsPort()).isEqualTo(tlsPort);
        int moved = RedisServerProcess.freePort();
        try (Jedis j = jedis(tlsPort, null)) {
            // INFO's tcp_port is the TLS port where there is no plain one, as Redis's
            assertThat(j.info("server")).contains("tcp_port:" + tlsPort + "\r\n");
            assertThat(j.configSet("tls-port", Integer.toString(moved))).isEqualTo("OK");
            assertThat(j.ping()).isEqualTo("PONG"); // its session stays
        }
        try (Jedis j = jedis(moved, null)) {
            assertThat(j.ping()).isEqualTo("PONG");
        }
        assertThat(s.tlsPort()).isEqualTo(moved);
    }

    @Test
    void unusableCertificatesStopTheStart() throws Exception {
        String[][] bad = {
            {"tls-cert-file", "", "No tls-cert-file configured!"},
            {"tls-key-file", "", "No tls-key-file configured!"},
            {"tls-cert-file", "/nonexistent/server.crt", "Failed to load certificate: /nonexistent/server.crt: "},
            {"tls-key-file", cert("server2.key"), "Failed to load private key: " + cert("server2.key") + ": "},
            {"tls-ca-cert-file", "", "Either tls-ca-cert-file or tls-ca-cert-dir must be specified when tls-cluster, "
                + "tls-replication or tls-auth-clients are enabled!"},
            {"tls-protocols", "TLSv1.2 SSLv3", "Invalid tls-protocols specified. Use a combination of 'TLSv1', 'TLSv1.1', "
                + "'TLSv1.2' and 'TLSv1.3'."},
            {"tls-ciphersuites", "NOT_A_SUITE", "Failed to configure ciphersuites: NOT_A_SUITE"},
        };
        for (String[] b : bad) {
            ByteArrayOutputStream logged = new ByteArrayOutputStream();
            assertThatThrownBy(() -> tlsServer(new Log(new PrintStream(logged, true)), "yes", b[0], b[1]))
                    .as(b[0] + " " + b[1]).hasMessageContaining("Failed to configure TLS. Check logs for more info.");
            assertThat(logged.toString()).as(b[0] + " " + b[1]).contains(b[2]);
        }
    }

    @Test
    void anEncryptedKeyWithItsPassword() throws Exception {
        SpinelServer s = tlsServer("no", "tls-key-file", cert("server-encrypted.key"), "tls-key-file-pass", "spinel-pass");
        try (Jedis j = jedis(tlsPort(s), null)) {
            assertThat(j.ping()).isEqualTo("PONG");
        }
        assertThatThrownBy(() -> tlsServer("no", "tls-key-file", cert("server-encrypted.key"), "tls-key-file-pass", "wrong"))
                .hasMessageContaining("Failed to configure TLS");
    }

    /**
     * A password with a key that is not encrypted goes unused, as OpenSSL leaves it (Redis's
     * unit/tls sets tls-key-file-pass while the key file is still the plain one, then switches to
     * the encrypted key).
     */
    @Test
    void aPasswordForAKeyThatIsNotEncryptedGoesUnused() throws Exception {
        SpinelServer s = tlsServer("no", "tls-key-file-pass", "unused");
        try (Jedis j = jedis(tlsPort(s), null)) {
            assertThat(j.ping()).isEqualTo("PONG");
        }
        try (RawClient c = new RawClient(s.port())) {
            assertThat(c.callString("CONFIG", "SET", "tls-key-file-pass", "spinel-pass")).isEqualTo("+OK\r\n");
            assertThat(c.callString("CONFIG", "SET", "tls-key-file", cert("server-encrypted.key"))).isEqualTo("+OK\r\n");
        }
        try (Jedis j = jedis(tlsPort(s), null)) {
            assertThat(j.ping()).isEqualTo("PONG");
        }
    }

    @Test
    void anRsaKeyInOpenSslsOlderForm() throws Exception {
        assertThat(Files.readString(Path.of(cert("server-pkcs1.key")))).startsWith("-----BEGIN RSA PRIVATE KEY-----");
        SpinelServer s = tlsServer("no", "tls-key-file", cert("server-pkcs1.key"));
        try (Jedis j = jedis(tlsPort(s), null)) {
            assertThat(j.ping()).isEqualTo("PONG");
        }
    }

    @Test
    void protocolsAndCipherSuitesAreTheConfiguredOnes() throws Exception {
        SpinelServer s = tlsServer("no", "tls-protocols", "TLSv1.2", "tls-ciphers", "ECDHE-RSA-AES128-GCM-SHA256");
        try (SSLSocket c = tlsSocket(tlsPort(s), null)) {
            assertThat(c.getSession().getProtocol()).isEqualTo("TLSv1.2");
            assertThat(c.getSession().getCipherSuite()).isEqualTo("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256");
        }
        // whose order of suites decides: the client's, unless tls-prefer-server-ciphers
        String serverFirst = "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-RSA-AES128-GCM-SHA256";
        String[] clientOrder = {"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384"};
        for (String prefer : new String[] {"no", "yes"}) {
            SpinelServer ordered = tlsServer("no", "tls-protocols", "TLSv1.2", "tls-ciphers", serverFirst,
                    "tls-prefer-server-ciphers", prefer);
            try (SSLSocket c = (SSLSocket) clientContext(null).getSocketFactory().createSocket("127.0.0.1", tlsPort(ordered))) {
                c.setEnabledCipherSuites(clientOrder);
                c.startHandshake();
                assertThat(c.getSession().getCipherSuite()).as("prefer " + prefer)
                        .isEqualTo(prefer.equals("yes") ? "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384" : clientOrder[0]);
            }
        }
        SpinelServer s13 = tlsServer("no", "tls-protocols", "TLSv1.3", "tls-ciphersuites", "TLS_CHACHA20_POLY1305_SHA256");
        try (SSLSocket c = tlsSocket(tlsPort(s13), null)) {
            assertThat(c.getSession().getProtocol()).isEqualTo("TLSv1.3");
            assertThat(c.getSession().getCipherSuite()).isEqualTo("TLS_CHACHA20_POLY1305_SHA256");
        }
    }

    @Test
    void aSpinelReplicaOfASpinelMasterOverTls() throws Exception {
        SpinelServer master = tlsServer("yes");
        try (Jedis m = jedis(tlsPort(master), "client")) {
            m.set("before", "sync");
        }
        SpinelServer replica = tlsServer("yes", "tls-replication", "yes", "tls-client-cert-file", cert("client.crt"),
                "tls-client-key-file", cert("client.key"));
        try (Jedis r = jedis(tlsPort(replica), "client"); Jedis m = jedis(tlsPort(master), "client")) {
            assertThat(r.replicaof("127.0.0.1", tlsPort(master))).isEqualTo("OK");
            awaitKey(r, "before", "sync");
            m.set("after", "stream");
            awaitKey(r, "after", "stream");
            // the master lists the replica at its TLS port
            assertThat(m.info("replication")).contains("port=" + tlsPort(replica));
        }
    }

    @Test
    void aLargeFullSyncOverTls() throws Exception {
        // tens of MB through the master's TLS writes (what the socket does not take waits) and the
        // replica's TLS reads, the load polling its clients in between
        SpinelServer master = tlsServer("no", "enable-debug-command", "yes", "repl-diskless-sync", "no");
        SpinelServer replica = tlsServer("no", "tls-replication", "yes", "enable-debug-command", "yes");
        try (Jedis m = jedis(tlsPort(master), null); Jedis r = jedis(tlsPort(replica), null)) {
            m.sendCommand(DEBUG, "POPULATE", "300000", "key", "100");
            String digest = new String((byte[]) m.sendCommand(DEBUG, "DIGEST"));
            assertThat(r.replicaof("127.0.0.1", tlsPort(master))).isEqualTo("OK");
            long deadline = System.currentTimeMillis() + 60_000;
            while (!r.info("replication").contains("master_link_status:up") && System.currentTimeMillis() < deadline) {
                Thread.sleep(50);
            }
            assertThat(r.dbSize()).isEqualTo(300000);
            m.set("after", "sync");
            awaitKey(r, "after", "sync");
            assertThat(new String((byte[]) r.sendCommand(DEBUG, "DIGEST")))
                    .isEqualTo(new String((byte[]) m.sendCommand(DEBUG, "DIGEST")))
                    .isNotEqualTo(digest); // (the digest of the data set with "after" in it)
        }
    }

    @Test
    void aSpinelReplicaOfARedisMasterOverTls() throws Exception {
        Assumptions.assumeTrue(RedisServerProcess.available(), "redis-server (Debian's redis-server package) is needed");
        int redisTls = RedisServerProcess.freePort();
        RedisServerProcess r = RedisServerProcess.start(Files.createTempDirectory("redis-tls"), "--tls-port", Integer.toString(redisTls),
                "--tls-cert-file", cert("server.crt"), "--tls-key-file", cert("server.key"), "--tls-ca-cert-file", cert("ca.crt"),
                "--repl-diskless-sync-delay", "0");
        Assumptions.assumeTrue(r != null, "redis-server did not start");
        redis.add(r);
        try (RawClient c = new RawClient(r.port())) {
            c.callString("SET", "from", "redis");
        }
        // the replica presents its server certificate (no tls-client-cert-file), as Redis's does
        SpinelServer replica = tlsServer("yes", "tls-replication", "yes");
        try (Jedis j = jedis(tlsPort(replica), "client")) {
            assertThat(j.replicaof("127.0.0.1", redisTls)).isEqualTo("OK");
            awaitKey(j, "from", "redis");
            try (RawClient c = new RawClient(r.port())) {
                c.callString("SET", "streamed", "too");
            }
            awaitKey(j, "streamed", "too");
        }
    }

    @Test
    void configSetErrorTextIsRedisOwn() throws Exception {
        Assumptions.assumeTrue(RedisServerProcess.available(), "redis-server (Debian's redis-server package) is needed");
        int redisTls = RedisServerProcess.freePort();
        RedisServerProcess r = RedisServerProcess.start(Files.createTempDirectory("redis-tls"), "--tls-port", Integer.toString(redisTls),
                "--tls-cert-file", cert("server.crt"), "--tls-key-file", cert("server.key"), "--tls-ca-cert-file", cert("ca.crt"));
        Assumptions.assumeTrue(r != null, "redis-server did not start");
        redis.add(r);
        SpinelServer s = tlsServer("yes");
        String[][] sets = {
            {"CONFIG", "SET", "tls-cert-file", "/nonexistent"},
            {"CONFIG", "SET", "tls-protocols", "TLSv9"},
            {"CONFIG", "SET", "tls-key-file", cert("server2.key")},
            {"CONFIG", "SET", "maxclients", "100", "tls-ca-cert-file", "/nonexistent"},
            {"CONFIG", "SET", "tls-key-file", cert("server2.key"), "tls-cert-file", cert("server2.crt")},
            {"CONFIG", "SET", "tls-ciphersuites", "NOPE"},
            {"CONFIG", "SET", "tls-auth-clients", "maybe"},
        };
        try (RawClient redisClient = new RawClient(r.port()); RawClient spinel = new RawClient(s.port())) {
            for (String[] set : sets) {
                assertThat(spinel.callString(set)).as(String.join(" ", set)).isEqualTo(redisClient.callString(set));
            }
        }
    }

    private static void awaitKey(Jedis j, String key, String value) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 15_000;
        while (!value.equals(j.get(key)) && System.currentTimeMillis() < deadline) Thread.sleep(20);
        assertThat(j.get(key)).as(key).isEqualTo(value);
    }
}
