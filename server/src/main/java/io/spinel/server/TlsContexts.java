package io.spinel.server;

import io.spinel.core.Log;
import io.spinel.core.Tls;
import io.spinel.core.config.Config;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSessionContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

/**
 * The server's TLS: the contexts that the TLS listeners' connections (both transports), the
 * replica's link to its master and the cluster bus's links (tls-cluster) are made from, built
 * from the tls-* options as Redis's tlsConfigure builds its OpenSSL contexts, and built again by
 * CONFIG SET. A build that fails logs why, with Redis's lines, and leaves the contexts in use as
 * they were; connections keep the session they started with.
 *
 * <p>JDK TLS (SunJSSE) stands in for OpenSSL: PEM certificates, PKCS#8 keys (encrypted ones with
 * tls-key-file-pass) and RSA/EC keys in OpenSSL's traditional formats through Netty's PEM reader
 * where BouncyCastle is present; OpenSSL cipher names in tls-ciphers are translated to the JDK's.
 */
final class TlsContexts implements Tls {
    static final String UPDATE_FAILED = "Unable to update TLS configuration. Check server logs.";
    private static final char[] STORE_PASSWORD = "spinel".toCharArray();

    /** One successful build: the server's context and the replica's, and what engines are given. */
    private record Built(SSLContext server, SSLContext client, String[] protocols, String[] suites, boolean serverOrder) {
    }

    private final Config config;
    private final Log log;
    private volatile Built built;
    /**
     * tls-auth-clients, which Redis reads for each connection rather than when it configures TLS:
     * kept here, as connections may be accepted on an I/O thread.
     */
    private volatile String authClients;

    TlsContexts(Config config, Log log) {
        this.config = config;
        this.log = log;
        config.listen("tls-auth-clients", o -> authClients = o.value());
    }

    /** Whether TLS was configured once (Redis's isTlsConfigured). */
    boolean isConfigured() {
        return built != null;
    }

    /** At start: TLS is configured when a TLS listener, replication or cluster bus asks for it. */
    boolean neededAtStart() {
        return config.getInt("tls-port") != 0 || config.getBool("tls-replication") || config.getBool("tls-cluster");
    }

    @Override
    public void reconfigure() {
        Built b = build();
        if (b == null) throw new IllegalStateException(UPDATE_FAILED);
        boolean first = built == null;
        built = b;
        // a cluster node's first bus handshakes must not pay for a cold JVM's TLS (see TlsWarmUp)
        if (first && config.getBool("tls-cluster")) TlsWarmUp.handshake(newEngine(null, null, 0), newEngine("yes", null, 0));
    }

    /** Builds the contexts when none are (tls-port set from 0); see {@link #reconfigure}. */
    void configureIfNeeded() {
        if (built == null) reconfigure();
    }

    /** The server side of a new TLS connection, with tls-auth-clients as it is now (Redis reads it per connection). */
    SSLEngine newServerEngine() {
        return newEngine(authClients, null, 0);
    }

    @Override
    public SSLEngine clusterBusEngine(boolean outbound, String peerHost, int peerPort) {
        return outbound ? newEngine(null, peerHost, peerPort) : newEngine("yes", null, 0);
    }

    /**
     * A new TLS session's engine with the configured protocols and suites: the client side for a
     * null clientAuth, else the server side, asking for the peer's certificate as clientAuth says
     * (tls-auth-clients' words). A client side given its peer's address may resume a session the
     * context cached for that address (the JDK's session cache is keyed by it).
     */
    private SSLEngine newEngine(String clientAuth, String peerHost, int peerPort) {
        Built b = built;
        boolean clientSide = clientAuth == null;
        SSLEngine e = clientSide && peerHost != null ? b.client.createSSLEngine(peerHost, peerPort)
                : (clientSide ? b.client : b.server).createSSLEngine();
        e.setUseClientMode(clientSide);
        SSLParameters p = e.getSSLParameters();
        p.setProtocols(b.protocols);
        p.setCipherSuites(b.suites);
        if (!clientSide) {
            p.setUseCipherSuitesOrder(b.serverOrder);
            switch (clientAuth) {
                case "yes" -> p.setNeedClientAuth(true);
                case "optional" -> p.setWantClientAuth(true);
                default -> p.setNeedClientAuth(false);
            }
        }
        e.setSSLParameters(p);
        return e;
    }

    @Override
    public Socket overTls(Socket connected, String host, int port) throws IOException {
        Built b = built;
        if (b == null) {
            connected.close();
            throw new IOException("TLS is not configured");
        }
        SSLSocket s = (SSLSocket) b.client.getSocketFactory().createSocket(connected, host, port, true);
        s.setUseClientMode(true);
        s.setEnabledProtocols(b.protocols);
        s.setEnabledCipherSuites(b.suites);
        s.startHandshake();
        return s;
    }

    /** The contexts from the options as they are now, or null after logging why not. */
    private Built build() {
        String cert = option("tls-cert-file");
        String key = option("tls-key-file");
        if (cert == null) return failed("No tls-cert-file configured!");
        if (key == null) return failed("No tls-key-file configured!");
        String caFile = option("tls-ca-cert-file");
        String caDir = option("tls-ca-cert-dir");
        boolean verifiesPeers = !config.get("tls-auth-clients").equals("no") || config.getBool("tls-cluster")
                || config.getBool("tls-replication");
        if (verifiesPeers && caFile == null && caDir == null) {
            return failed("Either tls-ca-cert-file or tls-ca-cert-dir must be specified when tls-cluster, "
                    + "tls-replication or tls-auth-clients are enabled!");
        }
        String[] protocols = protocols(option("tls-protocols"));
        if (protocols == null) return null;
        try {
            KeyManagerFactory serverKeys = keys(cert, key, option("tls-key-file-pass"));
            if (serverKeys == null) return null;
            String clientCert = option("tls-client-cert-file");
            String clientKey = option("tls-client-key-file");
            // as Redis: the replica presents the server's certificate unless it has one of its own
            KeyManagerFactory clientKeys = clientCert != null && clientKey != null
                    ? keys(clientCert, clientKey, option("tls-client-key-file-pass")) : serverKeys;
            if (clientKeys == null) return null;
            TrustManagerFactory trust = null;
            if (caFile != null || caDir != null) {
                trust = trust(caFile, caDir);
                if (trust == null) return null;
            }
            SSLContext server = SSLContext.getInstance("TLS");
            server.init(serverKeys.getKeyManagers(), trust == null ? null : trust.getTrustManagers(), null);
            SSLContext client = SSLContext.getInstance("TLS");
            client.init(clientKeys.getKeyManagers(), trust == null ? null : trust.getTrustManagers(), null);
            String[] suites = suites(server);
            if (suites == null) return null;
            SSLSessionContext sessions = server.getServerSessionContext();
            if (config.getBool("tls-session-caching")) {
                // 0 is no limit for both OpenSSL and the JDK
                sessions.setSessionCacheSize(config.getInt("tls-session-cache-size"));
                sessions.setSessionTimeout(config.getInt("tls-session-cache-timeout"));
            }
            return new Built(server, client, protocols, suites, config.getBool("tls-prefer-server-ciphers"));
        } catch (GeneralSecurityException e) {
            return failed("Failed to configure TLS: " + e.getMessage());
        }
    }

    private <T> T failed(String why) {
        log.warning(why);
        return null;
    }

    private String option(String name) {
        String v = Config.fileName(config.get(name));
        return v.isEmpty() ? null : v;
    }

    /** tls-protocols as the JDK names them; null (logged) when a word is not a protocol. */
    private String[] protocols(String spec) {
        if (spec == null) return new String[] {"TLSv1.2", "TLSv1.3"};
        Set<String> out = new LinkedHashSet<>();
        for (String word : spec.split(" ", -1)) {
            switch (word.toLowerCase(Locale.ROOT)) {
                case "tlsv1" -> out.add("TLSv1");
                case "tlsv1.1" -> out.add("TLSv1.1");
                case "tlsv1.2" -> out.add("TLSv1.2");
                case "tlsv1.3" -> out.add("TLSv1.3");
                default -> {
                    log.warning("Invalid tls-protocols specified. Use a combination of 'TLSv1', 'TLSv1.1', 'TLSv1.2' and 'TLSv1.3'.");
                    return null;
                }
            }
        }
        return out.toArray(new String[0]);
    }

    /** A key manager over the certificate chain and its private key; null (logged) when either cannot be used. */
    private KeyManagerFactory keys(String certFile, String keyFile, String password) throws GeneralSecurityException {
        X509Certificate[] chain;
        try {
            chain = certificates(Path.of(certFile));
            if (chain.length == 0) throw new IOException("no certificate found");
        } catch (IOException | GeneralSecurityException e) {
            return failed("Failed to load certificate: " + certFile + ": " + reason(e));
        }
        PrivateKey key;
        try {
            key = PemKeys.read(new File(keyFile), password);
            if (!matches(key, chain[0].getPublicKey())) throw new GeneralSecurityException("key values mismatch");
        } catch (Exception e) {
            return failed("Failed to load private key: " + keyFile + ": " + reason(e));
        }
        KeyStore store = KeyStore.getInstance("PKCS12");
        try {
            store.load(null, null);
        } catch (IOException e) {
            throw new GeneralSecurityException(e);
        }
        store.setKeyEntry("key", key, STORE_PASSWORD, chain);
        KeyManagerFactory f = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        f.init(store, STORE_PASSWORD);
        return f;
    }

    /** Why a file could not be used, in the words of the system where it is the system's. */
    private static String reason(Exception e) {
        if (e instanceof java.nio.file.NoSuchFileException) return "No such file or directory";
        if (e instanceof java.nio.file.AccessDeniedException) return "Permission denied";
        if (e instanceof java.io.FileNotFoundException && e.getMessage() != null && e.getMessage().endsWith(")")) {
            // "path (No such file or directory)"
            String m = e.getMessage();
            return m.substring(m.lastIndexOf('(') + 1, m.length() - 1);
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    private static X509Certificate[] certificates(Path file) throws IOException, GeneralSecurityException {
        CertificateFactory f = CertificateFactory.getInstance("X.509");
        List<X509Certificate> out = new ArrayList<>();
        try (InputStream in = Files.newInputStream(file)) {
            for (Certificate c : f.generateCertificates(in)) out.add((X509Certificate) c);
        }
        return out.toArray(new X509Certificate[0]);
    }

    /** Whether the private key is the certificate's (OpenSSL refuses a key that is not). */
    private static boolean matches(PrivateKey key, PublicKey pub) throws GeneralSecurityException {
        String algorithm = switch (pub.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            case "DSA" -> "SHA256withDSA";
            case "Ed25519", "Ed448", "EdDSA" -> pub.getAlgorithm();
            default -> null;
        };
        if (algorithm == null) return true; // nothing to check it with: the handshake will
        byte[] probe = "spinel".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        Signature sign = Signature.getInstance(algorithm);
        sign.initSign(key);
        sign.update(probe);
        byte[] signature = sign.sign();
        Signature verify = Signature.getInstance(algorithm);
        verify.initVerify(pub);
        verify.update(probe);
        return verify.verify(signature);
    }

    /**
     * The CA certificates peers are checked against: those of the file and those of every file in
     * the directory (OpenSSL's hashed directory holds them under their hash's name); null (logged)
     * when one cannot be read.
     */
    private TrustManagerFactory trust(String caFile, String caDir) throws GeneralSecurityException {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try {
            store.load(null, null);
            int n = 0;
            List<Path> files = new ArrayList<>();
            if (caFile != null) files.add(Path.of(caFile));
            if (caDir != null) {
                try (var entries = Files.list(Path.of(caDir))) {
                    entries.filter(Files::isRegularFile).sorted().forEach(files::add);
                }
            }
            for (Path p : files) {
                X509Certificate[] certs;
                try {
                    certs = certificates(p);
                } catch (IOException | GeneralSecurityException e) {
                    if (p.toString().equals(caFile)) throw e;
                    continue; // a directory's other files (OpenSSL looks up only its hashed names)
                }
                for (X509Certificate c : certs) store.setCertificateEntry("ca" + n++, c);
            }
            if (n == 0) throw new IOException("no certificate found");
        } catch (IOException | GeneralSecurityException e) {
            log.warning("Failed to configure CA certificate(s) file/directory: " + reason(e));
            return null;
        }
        TrustManagerFactory f = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        f.init(store);
        return f;
    }

    /**
     * The cipher suites engines enable: tls-ciphers (OpenSSL's names or the JDK's, for TLS 1.2 and
     * below) and tls-ciphersuites (TLS 1.3), each the JDK's defaults when unset; null (logged)
     * when one names no suite the JDK has.
     */
    private String[] suites(SSLContext ctx) {
        Set<String> supported = Set.of(ctx.getSupportedSSLParameters().getCipherSuites());
        List<String> defaults = List.of(ctx.getDefaultSSLParameters().getCipherSuites());
        List<String> upTo12 = new ArrayList<>();
        List<String> tls13 = new ArrayList<>();
        for (String s : defaults) (isTls13(s) ? tls13 : upTo12).add(s);
        String ciphers = option("tls-ciphers");
        if (ciphers != null) {
            List<String> named = new ArrayList<>();
            boolean explicit = false;
            for (String word : ciphers.split("[:, ]+")) {
                if (word.isEmpty() || word.startsWith("!") || word.startsWith("-") || word.startsWith("+")) continue;
                String java = word.contains("_") ? word : io.netty.handler.ssl.CipherSuiteConverter.toJava(word, "TLS");
                if (java == null && !word.contains("-")) continue; // a keyword (HIGH, DEFAULT, ...)
                explicit = true;
                if (java != null && supported.contains(java) && !isTls13(java)) named.add(java);
            }
            if (explicit && named.isEmpty()) {
                log.warning("Failed to configure ciphers: " + ciphers);
                return null;
            }
            if (explicit) upTo12 = named;
            else log.notice("tls-ciphers '" + ciphers + "' names no cipher suite: the JDK's default ones are enabled");
        }
        String suites = option("tls-ciphersuites");
        if (suites != null) {
            List<String> named = new ArrayList<>();
            for (String word : suites.split(":")) if (supported.contains(word) && isTls13(word)) named.add(word);
            if (named.isEmpty()) {
                log.warning("Failed to configure ciphersuites: " + suites);
                return null;
            }
            tls13 = named;
        }
        List<String> all = new ArrayList<>(tls13);
        all.addAll(upTo12);
        return all.toArray(new String[0]);
    }

    /** TLS 1.3's suites name no key exchange ("TLS_AES_128_GCM_SHA256"). */
    private static boolean isTls13(String suite) {
        return suite.startsWith("TLS_") && !suite.contains("_WITH_") && !suite.startsWith("TLS_EMPTY_");
    }

    /**
     * A PEM private key: PKCS#8, encrypted or not (Netty's reader), or an unencrypted RSA key in
     * OpenSSL's older PKCS#1 form ("BEGIN RSA PRIVATE KEY", what OpenSSL 1.1's genrsa writes).
     * It extends SslContext only to reach that class's protected static PEM reader (toPrivateKey);
     * it is never made.
     */
    private abstract static class PemKeys extends io.netty.handler.ssl.SslContext {
        private static final String PKCS1_BEGIN = "-----BEGIN RSA PRIVATE KEY-----";
        private static final String PKCS1_END = "-----END RSA PRIVATE KEY-----";
        /** rsaEncryption's AlgorithmIdentifier, DER. */
        private static final byte[] RSA_ALGORITHM = {
            0x30, 0x0d, 0x06, 0x09, 0x2a, (byte) 0x86, 0x48, (byte) 0x86, (byte) 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00,
        };

        static PrivateKey read(File file, String password) throws Exception {
            String pem = Files.readString(file.toPath(), java.nio.charset.StandardCharsets.ISO_8859_1);
            int begin = pem.indexOf(PKCS1_BEGIN);
            int end = pem.indexOf(PKCS1_END);
            if (begin < 0 || end < begin) {
                // OpenSSL uses the password only for a key that is encrypted: with an unencrypted
                // PKCS#8 key it goes unused (Netty's reader would take the key for an encrypted one)
                return toPrivateKey(file, pem.contains("-----BEGIN PRIVATE KEY-----") ? null : password);
            }
            String body = pem.substring(begin + PKCS1_BEGIN.length(), end);
            if (body.contains("Proc-Type:")) throw new GeneralSecurityException("encrypted PKCS#1 keys are not supported: convert with openssl pkcs8 -topk8");
            byte[] pkcs1 = java.util.Base64.getMimeDecoder().decode(body);
            // PrivateKeyInfo: SEQUENCE { INTEGER 0, rsaEncryption, OCTET STRING pkcs1 }
            java.io.ByteArrayOutputStream info = new java.io.ByteArrayOutputStream();
            info.write(new byte[] {0x02, 0x01, 0x00});
            info.write(RSA_ALGORITHM);
            der(info, 0x04, pkcs1);
            java.io.ByteArrayOutputStream whole = new java.io.ByteArrayOutputStream();
            der(whole, 0x30, info.toByteArray());
            return java.security.KeyFactory.getInstance("RSA")
                    .generatePrivate(new java.security.spec.PKCS8EncodedKeySpec(whole.toByteArray()));
        }

        private static void der(java.io.ByteArrayOutputStream out, int tag, byte[] content) {
            out.write(tag);
            int n = content.length;
            if (n < 0x80) {
                out.write(n);
            } else {
                int bytes = n > 0xffffff ? 4 : n > 0xffff ? 3 : n > 0xff ? 2 : 1;
                out.write(0x80 | bytes);
                for (int i = bytes - 1; i >= 0; i--) out.write(n >>> (8 * i));
            }
            out.write(content, 0, n);
        }
    }
}
