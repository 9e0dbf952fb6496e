package io.spinel.server;

import io.spinel.server.testing.RawClient;
import io.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Collections;

import static org.assertj.core.api.Assertions.assertThat;

/** Connection-level behaviour: limits, protected mode, authentication, idle timeout, unix sockets. */
class ServerBehaviourTest {
    /**
     * DEBUG PROTOCOL attrib and push answer two replies in RESP3 (the attribute or push, then a
     * real reply), which the differential scripts cannot pair with commands: Redis 7.0's bytes.
     */
    @Test
    void debugProtocolAttributeAndPushInResp3() throws Exception {
        try (SpinelServer s = SpinelServer.builder().randomPort().option("enable-debug-command", "yes").start();
             RawClient c = new RawClient(s.port())) {
            c.call("HELLO", "3");
            assertThat(c.callString("DEBUG", "PROTOCOL", "attrib"))
                    .isEqualTo("|1\r\n$14\r\nkey-popularity\r\n*2\r\n$7\r\nkey:123\r\n:90\r\n");
            assertThat(new String(c.readReply(), StandardCharsets.UTF_8))
                    .isEqualTo("$39\r\nSome real reply following the attribute\r\n");
            assertThat(c.callString("DEBUG", "PROTOCOL", "push"))
                    .isEqualTo(">2\r\n$16\r\nserver-cpu-usage\r\n:42\r\n");
            assertThat(new String(c.readReply(), StandardCharsets.UTF_8))
                    .isEqualTo("$40\r\nSome real reply following the push reply\r\n");
            assertThat(c.callString("PING")).isEqualTo("+PONG\r\n");
            c.call("HELLO", "2");
            assertThat(c.callString("DEBUG", "PROTOCOL", "attrib"))
                    .isEqualTo("$39\r\nSome real reply following the attribute\r\n");
            assertThat(c.callString("DEBUG", "PROTOCOL", "push"))
                    .isEqualTo("-ERR RESP2 is not supported by this command\r\n");
        }
    }


    /**
     * Pipelined commands take the end of the command before them as their start (one clock read
     * per command): a command after a slow one must still see the time after it, for expiry and
     * in what it is timed for.
     */
    @Test
    void aPipelinedCommandSeesTheTimeAfterTheSlowOneBeforeIt() throws Exception {
        try (SpinelServer s = SpinelServer.builder().randomPort().option("enable-debug-command", "yes").start();
             RawClient c = new RawClient(s.port())) {
            c.sendRaw("SET k v PX 100\r\nDEBUG SLEEP 0.3\r\nEXISTS k\r\nPING\r\n");
            assertThat(new String(c.readReply(), StandardCharsets.US_ASCII)).isEqualTo("+OK\r\n");
            assertThat(new String(c.readReply(), StandardCharsets.US_ASCII)).isEqualTo("+OK\r\n");
            assertThat(new String(c.readReply(), StandardCharsets.US_ASCII)).isEqualTo(":0\r\n");
            assertThat(new String(c.readReply(), StandardCharsets.US_ASCII)).isEqualTo("+PONG\r\n");
            String stats = c.callString("INFO", "commandstats");
            assertThat(usec(stats, "debug")).isGreaterThanOrEqualTo(300_000);
            assertThat(usec(stats, "exists")).isLessThan(100_000);
            assertThat(usec(stats, "ping")).isLessThan(100_000);
        }
    }

    private static long usec(String commandstats, String command) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("cmdstat_" + command + ":calls=1,usec=(\\d+),")
                .matcher(commandstats);
        assertThat(m.find()).as(commandstats).isTrue();
        return Long.parseLong(m.group(1));
    }

    /** The refusal is the whole story: nothing else logged (the JDK transport took the refused client for one). */
    @Test
    void maxclientsRefusesTheConnectionOverTheLimit() throws Exception {
        java.io.ByteArrayOutputStream logged = new java.io.ByteArrayOutputStream();
        try (SpinelServer s = SpinelServer.builder().randomPort().option("maxclients", "2")
                .log(new io.spinel.core.Log(new java.io.PrintStream(logged, true))).start();
             RawClient a = new RawClient(s.port());
             RawClient b = new RawClient(s.port())) {
            assertThat(a.callString("PING")).isEqualTo("+PONG\r\n");
            assertThat(b.callString("PING")).isEqualTo("+PONG\r\n");
            try (RawClient c = new RawClient(s.port())) {
                assertThat(new String(c.readReply(), StandardCharsets.US_ASCII))
                        .isEqualTo("-ERR max number of clients reached\r\n");
                assertThat(c.isClosedByPeer()).isTrue();
            }
            assertThat(a.callString("INFO", "stats")).contains("rejected_connections:1");
        }
        assertThat(logged.toString(StandardCharsets.UTF_8)).doesNotContain("Error on client connection");
    }

    private static InetAddress nonLoopbackAddress() throws IOException {
        for (NetworkInterface ni : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (!ni.isUp() || ni.isLoopback()) continue;
            for (InetAddress a : Collections.list(ni.getInetAddresses())) {
                if (a instanceof Inet4Address && !a.isLoopbackAddress()) return a;
            }
        }
        return null;
    }

    @Test
    void protectedModeDeniesNonLoopbackClientsWithoutPassword() throws Exception {
        InetAddress external = nonLoopbackAddress();
        Assumptions.assumeTrue(external != null, "no non-loopback interface to connect from");
        try (SpinelServer s = SpinelServer.builder().randomPort().option("bind", "* -::*").start()) {
            try (RawClient local = new RawClient(s.port())) {
                assertThat(local.callString("PING")).isEqualTo("+PONG\r\n");
            }
            try (RawClient remote = new RawClient(external.getHostAddress(), s.port())) {
                String reply = new String(remote.readReply(), StandardCharsets.US_ASCII);
                assertThat(reply).startsWith("-DENIED Redis is running in protected mode");
                assertThat(remote.isClosedByPeer()).isTrue();
            }
        }
        // with a password set, remote clients are let in (and must authenticate)
        try (SpinelServer s = SpinelServer.builder().randomPort().option("requirepass", "pw").start();
             RawClient remote = new RawClient(external.getHostAddress(), s.port())) {
            assertThat(remote.callString("PING")).startsWith("-NOAUTH");
        }
    }

    @Test
    void authenticationAndUnauthenticatedLimits() throws Exception {
        try (SpinelServer s = SpinelServer.builder().randomPort().option("requirepass", "secret").start()) {
            try (RawClient c = new RawClient(s.port())) {
                assertThat(c.callString("GET", "k")).isEqualTo("-NOAUTH Authentication required.\r\n");
                assertThat(c.callString("AUTH", "wrong"))
                        .isEqualTo("-WRONGPASS invalid username-password pair or user is disabled.\r\n");
                assertThat(c.callString("AUTH", "secret")).isEqualTo("+OK\r\n");
                assertThat(c.callString("SET", "k", "v")).isEqualTo("+OK\r\n");
            }
            try (RawClient c = new RawClient(s.port())) {
                c.sendRaw("*20\r\n");
                assertThat(new String(c.readReply(), StandardCharsets.US_ASCII))
                        .isEqualTo("-ERR Protocol error: unauthenticated multibulk length\r\n");
                assertThat(c.isClosedByPeer()).isTrue();
            }
            try (RawClient c = new RawClient(s.port())) {
                c.sendRaw("*2\r\n$3\r\nGET\r\n$20000\r\n");
                assertThat(new String(c.readReply(), StandardCharsets.US_ASCII))
                        .isEqualTo("-ERR Protocol error: unauthenticated bulk length\r\n");
                assertThat(c.isClosedByPeer()).isTrue();
            }
        }
    }

    @Test
    void protocolErrorClosesOnlyThatConnection() throws Exception {
        try (SpinelServer s = SpinelServer.builder().randomPort().start();
             RawClient good = new RawClient(s.port());
             RawClient bad = new RawClient(s.port())) {
            good.callString("SET", "k", "v");
            bad.sendRaw("*1\r\n$4\r\nPING\r\n*x\r\n");
            assertThat(new String(bad.readReply(), StandardCharsets.US_ASCII)).isEqualTo("+PONG\r\n");
            assertThat(new String(bad.readReply(), StandardCharsets.US_ASCII))
                    .isEqualTo("-ERR Protocol error: invalid multibulk length\r\n");
            assertThat(bad.isClosedByPeer()).isTrue();
            assertThat(good.callString("GET", "k")).isEqualTo("$1\r\nv\r\n");
        }
    }

    @Test
    void queryBufferLimitClosesTheGreedyClient() throws Exception {
        try (SpinelServer s = SpinelServer.builder().randomPort()
                .option("client-query-buffer-limit", "1mb").option("proto-max-bulk-len", "100mb").start();
             RawClient greedy = new RawClient(s.port());
             RawClient other = new RawClient(s.port())) {
            greedy.sendRaw("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$10000000\r\n");
            byte[] chunk = new byte[64 * 1024];
            boolean closed = false;
            try {
                for (int i = 0; i < 40; i++) greedy.sendRaw(chunk);
            } catch (IOException e) {
                closed = true;
            }
            assertThat(closed || greedy.isClosedByPeer()).isTrue();
            assertThat(other.callString("PING")).isEqualTo("+PONG\r\n");
        }
    }

    private static byte[] pattern(int n, int seed) {
        byte[] v = new byte[n];
        for (int i = 0; i < n; i++) v[i] = (byte) ('a' + (i + seed) % 26);
        return v;
    }

    private static byte[] bulk(byte[] v) {
        byte[] head = ("$" + v.length + "\r\n").getBytes(StandardCharsets.US_ASCII);
        byte[] out = new byte[head.length + v.length + 2];
        System.arraycopy(head, 0, out, 0, head.length);
        System.arraycopy(v, 0, out, head.length, v.length);
        out[out.length - 2] = '\r';
        out[out.length - 1] = '\n';
        return out;
    }

    /** Sends a command whose last-but-options argument is big, the big one in pieces with pauses. */
    private static void sendInPieces(RawClient c, String before, byte[] big, String after) throws Exception {
        c.sendRaw(before + "$" + big.length + "\r\n");
        Thread.sleep(20);
        c.sendRaw(java.util.Arrays.copyOf(big, 1000));
        Thread.sleep(20);
        c.sendRaw(java.util.Arrays.copyOfRange(big, 1000, big.length));
        c.sendRaw("\r\n" + after);
    }

    /**
     * A big SET value that arrives in pieces is read into an array that becomes the stored entry
     * (no copy): it must read back whole, with or without EX, take APPEND and SETRANGE in place,
     * and survive a restart; forms that cannot keep the array (NX) copy it.
     */
    @Test
    void bigValuesArrivingInPiecesAreStoredWhole(@TempDir Path dir) throws Exception {
        byte[] expected, v2 = pattern(70_000, 2);
        try (SpinelServer s = SpinelServer.builder().randomPort().option("dir", dir.toString()).start();
             RawClient c = new RawClient(s.port())) {
            byte[] v1 = pattern(100_000, 1), v3 = pattern(40_000, 3);
            sendInPieces(c, "*3\r\n$3\r\nSET\r\n$3\r\nbig\r\n", v1, "");
            assertThat(new String(c.readReply(), StandardCharsets.US_ASCII)).isEqualTo("+OK\r\n");
            sendInPieces(c, "*5\r\n$3\r\nSET\r\n$40\r\n" + "k".repeat(40) + "\r\n", v2,
                    "$2\r\nEX\r\n$3\r\n100\r\n");
            assertThat(new String(c.readReply(), StandardCharsets.US_ASCII)).isEqualTo("+OK\r\n");
            sendInPieces(c, "*4\r\n$3\r\nSET\r\n$2\r\nnx\r\n", v3, "$2\r\nNX\r\n");
            assertThat(new String(c.readReply(), StandardCharsets.US_ASCII)).isEqualTo("+OK\r\n");

            assertThat(c.call("GET", "big")).isEqualTo(bulk(v1));
            assertThat(c.call("GET", "k".repeat(40))).isEqualTo(bulk(v2));
            assertThat(c.call("GET", "nx")).isEqualTo(bulk(v3));
            assertThat(c.callString("OBJECT", "ENCODING", "big")).isEqualTo("$3\r\nraw\r\n");
            String ttl = c.callString("TTL", "k".repeat(40));
            assertThat(Integer.parseInt(ttl.substring(1, ttl.length() - 2))).isBetween(90, 100);
            assertThat(c.callString("TTL", "big")).isEqualTo(":-1\r\n");

            assertThat(c.callString("APPEND", "big", "xyz")).isEqualTo(":100003\r\n");
            assertThat(c.callString("SETRANGE", "big", "0", "ZZ")).isEqualTo(":100003\r\n");
            expected = java.util.Arrays.copyOf(v1, 100_003);
            expected[0] = 'Z';
            expected[1] = 'Z';
            expected[100_000] = 'x';
            expected[100_001] = 'y';
            expected[100_002] = 'z';
            assertThat(c.call("GET", "big")).isEqualTo(bulk(expected));

            assertThat(c.callString("SAVE")).isEqualTo("+OK\r\n");
        }
        try (SpinelServer s = SpinelServer.builder().randomPort().option("dir", dir.toString()).start();
             RawClient c = new RawClient(s.port())) {
            assertThat(c.call("GET", "big")).isEqualTo(bulk(expected));
            assertThat(c.call("GET", "k".repeat(40))).isEqualTo(bulk(v2));
        }
    }

    /**
     * CONFIG SET port moves the TCP listener (connections already open stay); a port that cannot
     * be listened on fails the whole CONFIG SET, rolls back the options set with it, and leaves
     * the server listening where it was (Redis's "CONFIG SET rollback on apply error").
     */
    @Test
    void configSetPortMovesTheListenerOrRollsBack() throws Exception {
        try (SpinelServer s = SpinelServer.builder().randomPort().start();
             java.net.ServerSocket taken = new java.net.ServerSocket(0)) {
            int oldPort = s.port();
            int newPort = RedisServerProcess.freePort();
            try (RawClient c = new RawClient(oldPort)) {
                // the port the OS picked is the configured port from then on
                assertThat(c.callString("CONFIG", "GET", "port")).endsWith("$" + Integer.toString(oldPort).length()
                        + "\r\n" + oldPort + "\r\n");
                assertThat(c.callString("CONFIG", "SET", "maxmemory", "10000002")).isEqualTo("+OK\r\n");
                assertThat(c.callString("CONFIG", "SET", "maxmemory", "10000001", "port",
                        Integer.toString(taken.getLocalPort()), "client-query-buffer-limit", "10mb"))
                        .startsWith("-ERR CONFIG SET failed (possibly related to argument 'port') - Unable to listen on "
                                + "this port");
                assertThat(c.callString("CONFIG", "GET", "maxmemory")).contains("10000002");
                assertThat(c.callString("CONFIG", "GET", "client-query-buffer-limit")).contains("1073741824");
                assertThat(c.callString("CONFIG", "GET", "port")).contains(Integer.toString(oldPort));
                assertThat(s.port()).isEqualTo(oldPort);
                try (RawClient again = new RawClient(oldPort)) {
                    assertThat(again.callString("PING")).isEqualTo("+PONG\r\n");
                }

                assertThat(c.callString("CONFIG", "SET", "port", Integer.toString(newPort))).isEqualTo("+OK\r\n");
                assertThat(c.callString("PING")).isEqualTo("+PONG\r\n");
                assertThat(c.callString("CONFIG", "GET", "port")).contains(Integer.toString(newPort));
            }
            assertThat(s.port()).isEqualTo(newPort);
            try (RawClient moved = new RawClient(newPort)) {
                assertThat(moved.callString("PING")).isEqualTo("+PONG\r\n");
            }
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> new RawClient(oldPort).close())
                    .isInstanceOf(IOException.class);
        }
    }

    /** CONFIG SET bind reopens the listener on the new addresses; an address it cannot bind rolls back. */
    @Test
    void configSetBindMovesTheListenerOrRollsBack() throws Exception {
        try (SpinelServer s = SpinelServer.builder().randomPort().start();
             RawClient c = new RawClient(s.port())) {
            int port = s.port();
            assertThat(c.callString("CONFIG", "SET", "bind", "192.0.2.1"))
                    .isEqualTo("-ERR CONFIG SET failed (possibly related to argument 'bind') - Failed to bind to "
                            + "specified addresses.\r\n");
            assertThat(c.callString("CONFIG", "GET", "bind")).contains("* -::*");
            assertThat(c.callString("CONFIG", "SET", "bind", "127.0.0.1")).isEqualTo("+OK\r\n");
            assertThat(c.callString("CONFIG", "GET", "bind")).contains("127.0.0.1");
            assertThat(s.port()).isEqualTo(port);
            try (RawClient local = new RawClient("127.0.0.1", port)) {
                assertThat(local.callString("PING")).isEqualTo("+PONG\r\n");
            }
            assertThat(c.callString("PING")).isEqualTo("+PONG\r\n");
        }
    }

    /** WAIT on a master without replicas blocks until its timeout or CLIENT UNBLOCK, then says 0 (as Redis). */
    @Test
    void waitBlocksUntilTimeoutOrUnblock() throws Exception {
        try (SpinelServer s = SpinelServer.builder().randomPort().start();
             RawClient a = new RawClient(s.port());
             RawClient b = new RawClient(s.port())) {
            long t0 = System.nanoTime();
            assertThat(a.callString("WAIT", "1", "150")).isEqualTo(":0\r\n");
            assertThat(System.nanoTime() - t0).isGreaterThanOrEqualTo(140_000_000L);
            String id = a.callString("CLIENT", "ID").substring(1).trim();
            a.sendRaw("*3\r\n$4\r\nWAIT\r\n$1\r\n1\r\n$1\r\n0\r\n");
            awaitBlocked(b, 1);
            assertThat(b.callString("CLIENT", "UNBLOCK", id)).isEqualTo(":1\r\n");
            assertThat(new String(a.readReply(), StandardCharsets.US_ASCII)).isEqualTo(":0\r\n");
            a.sendRaw("*3\r\n$4\r\nWAIT\r\n$1\r\n2\r\n$1\r\n0\r\n");
            awaitBlocked(b, 1);
            assertThat(b.callString("CLIENT", "UNBLOCK", id, "ERROR")).isEqualTo(":1\r\n");
            assertThat(new String(a.readReply(), StandardCharsets.US_ASCII))
                    .isEqualTo("-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n");
        }
    }

    /** INFO clients_in_timeout_table: the blocked clients that have a timeout, as Redis's timeout table. */
    @Test
    void blockedClientsWithATimeoutAreCounted() throws Exception {
        try (SpinelServer s = SpinelServer.builder().randomPort().start();
             RawClient a = new RawClient(s.port());
             RawClient b = new RawClient(s.port());
             RawClient c = new RawClient(s.port())) {
            assertThat(c.callString("INFO", "clients")).contains("clients_in_timeout_table:0\r\n");
            a.sendRaw("*3\r\n$5\r\nBLPOP\r\n$1\r\nk\r\n$2\r\n30\r\n");
            awaitBlocked(c, 1);
            b.sendRaw("*3\r\n$5\r\nBLPOP\r\n$1\r\nj\r\n$1\r\n0\r\n");
            awaitBlocked(c, 2);
            assertThat(c.callString("INFO", "clients")).contains("clients_in_timeout_table:1\r\n");
            c.call("RPUSH", "k", "v");
            assertThat(new String(a.readReply(), StandardCharsets.US_ASCII)).isEqualTo("*2\r\n$1\r\nk\r\n$1\r\nv\r\n");
            awaitBlocked(c, 1);
            assertThat(c.callString("INFO", "clients")).contains("clients_in_timeout_table:0\r\n");
        }
    }

    /** With MODULE allowed, loading fails as a failed load does in Redis; LIST shows no modules. */
    @Test
    void moduleLoadFailsLikeAFailedLoad() throws Exception {
        try (SpinelServer s = SpinelServer.builder().randomPort().option("enable-module-command", "yes").start();
             RawClient c = new RawClient(s.port())) {
            assertThat(c.callString("MODULE", "LOAD", "/nonexistent/m.so"))
                    .isEqualTo("-ERR Error loading the extension. Please check the server logs.\r\n");
            assertThat(c.callString("MODULE", "LOADEX", "/nonexistent/m.so", "ARGS", "x"))
                    .isEqualTo("-ERR Error loading the extension. Please check the server logs.\r\n");
            assertThat(c.callString("MODULE", "UNLOAD", "m"))
                    .isEqualTo("-ERR Error unloading module: no such module with that name\r\n");
            assertThat(c.callString("MODULE", "LIST")).isEqualTo("*0\r\n");
        }
    }

    private static void awaitBlocked(RawClient c, int n) throws Exception {
        for (int i = 0; i < 200; i++) {
            if (c.callString("INFO", "clients").contains("blocked_clients:" + n + "\r\n")) return;
            Thread.sleep(10);
        }
        throw new AssertionError("no client blocked");
    }

    @Test
    void idleClientsAreClosedAfterTimeout() throws Exception {
        try (SpinelServer s = SpinelServer.builder().randomPort().option("timeout", "1").start();
             RawClient c = new RawClient(s.port())) {
            assertThat(c.callString("PING")).isEqualTo("+PONG\r\n");
            c.setTimeout(5000);
            assertThat(c.isClosedByPeer()).isTrue();
        }
    }

    /** The cron looks at a slice of the clients per tick; every one of many still gets its turn. */
    @Test
    void everyOneOfManyIdleClientsIsClosedAfterTimeout() throws Exception {
        try (SpinelServer s = SpinelServer.builder().randomPort().option("timeout", "1").start()) {
            java.util.List<RawClient> clients = new java.util.ArrayList<>();
            try {
                for (int i = 0; i < 120; i++) {
                    RawClient c = new RawClient(s.port());
                    clients.add(c);
                    assertThat(c.callString("PING")).isEqualTo("+PONG\r\n");
                }
                for (RawClient c : clients) {
                    c.setTimeout(6000);
                    assertThat(c.isClosedByPeer()).isTrue();
                }
            } finally {
                for (RawClient c : clients) c.close();
            }
        }
    }

    @Test
    void slowReaderDoesNotStallOthers() throws Exception {
        try (SpinelServer s = SpinelServer.builder().randomPort().start();
             Socket hog = new Socket("127.0.0.1", s.port());
             RawClient other = new RawClient(s.port())) {
            other.callString("SET", "k", "0123456789");
            OutputStream out = hog.getOutputStream();
            byte[] get = "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n".getBytes(StandardCharsets.US_ASCII);
            Thread writer = new Thread(() -> {
                try {
                    for (int i = 0; i < 200_000; i++) out.write(get);
                } catch (IOException ignored) {
                    // the hog never reads; the server may stop reading from it too
                }
            });
            writer.setDaemon(true);
            writer.start();
            for (int i = 0; i < 100; i++) {
                assertThat(other.callString("PING")).isEqualTo("+PONG\r\n");
            }
            hog.close();
        }
    }

    @Test
    void unixSocketListener(@TempDir Path dir) throws Exception {
        Path sock = dir.resolve("spinel.sock");
        try (SpinelServer s = SpinelServer.builder().option("port", "0")
                .option("unixsocket", sock.toString()).option("unixsocketperm", "700").start()) {
            assertThat(s.port()).isZero();
            try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                ch.connect(UnixDomainSocketAddress.of(sock));
                ch.write(ByteBuffer.wrap("PING\r\n".getBytes(StandardCharsets.US_ASCII)));
                ByteBuffer in = ByteBuffer.allocate(64);
                while (in.position() < 7) ch.read(in);
                assertThat(new String(in.array(), 0, in.position(), StandardCharsets.US_ASCII)).isEqualTo("+PONG\r\n");
                ch.write(ByteBuffer.wrap("CLIENT INFO\r\n".getBytes(StandardCharsets.US_ASCII)));
                in.clear();
                ByteBuffer big = ByteBuffer.allocate(2048);
                ch.read(big);
                assertThat(new String(big.array(), 0, big.position(), StandardCharsets.US_ASCII)).contains("flags=U");
            }
        }
        assertThat(sock).doesNotExist();
    }

    static String readAll(InputStream in) throws IOException {
        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
}
