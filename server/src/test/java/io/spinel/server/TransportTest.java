package io.spinel.server;

import io.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.Jedis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What a client sees must not depend on the event loop: each test runs on Netty's transport and on
 * the JDK's selector (SpinelServer.Transport), covering what the transport does itself (accepting,
 * closing after the last reply, timers between reads, unix sockets, moving listeners, stopping).
 */
class TransportTest {
    private SpinelServer server;

    private SpinelServer start(SpinelServer.Transport transport, String... options) {
        SpinelServer.Builder b = SpinelServer.builder().randomPort().transport(transport);
        for (int i = 0; i < options.length; i += 2) b.option(options[i], options[i + 1]);
        server = b.start();
        return server;
    }

    @AfterEach
    void stop() {
        if (server != null) server.close();
    }

    @ParameterizedTest
    @EnumSource(SpinelServer.Transport.class)
    void servesManyClientsAtOnceEachWithItsOwnAddressAndFd(SpinelServer.Transport transport) {
        start(transport);
        List<Jedis> clients = new ArrayList<>();
        try {
            for (int i = 0; i < 40; i++) {
                Jedis j = new Jedis("127.0.0.1", server.port());
                j.set("k" + i, "v" + i);
                clients.add(j);
            }
            for (int i = 0; i < 40; i++) assertThat(clients.get(i).get("k" + (39 - i))).isEqualTo("v" + (39 - i));
            String list = clients.get(0).clientList();
            Set<String> fds = new HashSet<>();
            Set<String> addrs = new HashSet<>();
            for (String line : list.split("\n")) {
                fds.add(field(line, "fd"));
                addrs.add(field(line, "addr"));
                assertThat(field(line, "laddr")).isEqualTo("127.0.0.1:" + server.port());
            }
            assertThat(fds).hasSize(40);
            assertThat(addrs).hasSize(40).allMatch(a -> a.startsWith("127.0.0.1:"));
            assertThat(clients.get(0).info("clients")).contains("connected_clients:40");
        } finally {
            clients.forEach(Jedis::close);
        }
    }

    /** INFO's read and write counts: one write per reply batch, as Redis counts its writes to a client. */
    @ParameterizedTest
    @EnumSource(SpinelServer.Transport.class)
    void readsAndWritesAreCounted(SpinelServer.Transport transport) {
        start(transport);
        try (Jedis j = new Jedis("127.0.0.1", server.port())) {
            String before = j.info("stats");
            for (int i = 0; i < 5; i++) assertThat(j.ping()).isEqualTo("PONG");
            String after = j.info("stats");
            // the five PINGs and the first INFO's own reply (written after it was made)
            assertThat(stat(after, "total_writes_processed") - stat(before, "total_writes_processed")).isEqualTo(6);
            assertThat(stat(after, "total_reads_processed") - stat(before, "total_reads_processed")).isEqualTo(6);
            assertThat(stat(after, "io_threaded_writes_processed")).isZero();
        }
    }

    private static long stat(String info, String name) {
        return Long.parseLong(info.split(name + ":")[1].split("\r\n")[0]);
    }

    @ParameterizedTest
    @EnumSource(SpinelServer.Transport.class)
    void smallCommandsKeepTheQueryBufferAtItsStartingSize(SpinelServer.Transport transport) {
        start(transport);
        try (Jedis r = new Jedis("127.0.0.1", server.port())) {
            for (int i = 0; i < 20; i++) r.set("k" + i, "v");
            String info = r.clientInfo();
            long buffer = Long.parseLong(field(info.trim(), "qbuf")) + Long.parseLong(field(info.trim(), "qbuf-free"));
            // 16 KB to start, as in Redis; a transport that reads in bigger steps must not grow it
            assertThat(buffer).isLessThanOrEqualTo(16 * 1024);
        }
    }

    /**
     * A client that once got a big reply gives its reply buffer back once its recent peak is
     * small again, busy or not (Redis's clientsCronResizeOutputBuffer): CLIENT LIST's rbs comes
     * down to 1 KB, rbp shows the peak, INFO counts the shrink.
     */
    @ParameterizedTest
    @EnumSource(SpinelServer.Transport.class)
    void aReplyBufferShrinksToItsRecentPeak(SpinelServer.Transport transport) throws Exception {
        start(transport, "enable-debug-command", "yes");
        try (Jedis r = new Jedis("127.0.0.1", server.port())) {
            r.sendCommand(() -> "DEBUG".getBytes(StandardCharsets.US_ASCII), "REPLYBUFFER", "PEAK-RESET-TIME", "100");
            // a reply built in the buffer: 3,000 elements, about 45 KB
            String[] items = new String[3000];
            java.util.Arrays.fill(items, "0123456789");
            r.rpush("list", items);
            r.lrange("list", 0, -1);
            String grown = r.clientInfo().trim();
            assertThat(Long.parseLong(field(grown, "rbs"))).isGreaterThanOrEqualTo(40_000);
            long deadline = System.currentTimeMillis() + 10_000;
            String info;
            while (Long.parseLong(field(info = r.clientInfo().trim(), "rbs")) > 2048) {
                assertThat(System.currentTimeMillis()).as(info).isLessThan(deadline);
                Thread.sleep(20); // busy: never idle long
            }
            assertThat(Long.parseLong(field(info, "rbp"))).isLessThan(2048);
            assertThat(stat(r.info("stats"), "reply_buffer_shrinks")).isPositive();
        }
    }

    /**
     * A client busy with replies bigger than its reply buffer gets a larger one from the cron, up
     * to 16 KB (Redis's rule: the buffer's peak filled it), even where the value went to the
     * socket from where it is stored, past the buffer (the standalone server's transport; the
     * JDK transport copies such a value through the buffer, which grows to hold it).
     */
    @org.junit.jupiter.api.Test
    void aBusyClientsReplyBufferGrowsUpTo16K() throws Exception {
        start(SpinelServer.Transport.NETTY, "enable-debug-command", "yes");
        try (Jedis r = new Jedis("127.0.0.1", server.port())) {
            r.set("big", "x".repeat(40_000));
            r.sendCommand(() -> "DEBUG".getBytes(StandardCharsets.US_ASCII), "REPLYBUFFER", "PEAK-RESET-TIME", "never");
            long deadline = System.currentTimeMillis() + 10_000;
            String info;
            while (Long.parseLong(field(info = r.clientInfo().trim(), "rbs")) < 16384) {
                assertThat(System.currentTimeMillis()).as(info).isLessThan(deadline);
                assertThat(r.get("big")).hasSize(40_000);
                Thread.sleep(20);
            }
            assertThat(Long.parseLong(field(info, "rbs"))).isLessThan(32768);
            assertThat(stat(r.info("stats"), "reply_buffer_expands")).isGreaterThanOrEqualTo(4);
            Thread.sleep(300); // more cron runs: 16 KB is as far as it goes
            assertThat(Long.parseLong(field(r.clientInfo().trim(), "rbs"))).isLessThan(32768);
        }
    }

    /** The same with a value kept on the heap (a hash field) too big for the buffer: it spills past it. */
    @ParameterizedTest
    @EnumSource(SpinelServer.Transport.class)
    void aReplyBufferGrowsWhenBigRepliesSpillPastIt(SpinelServer.Transport transport) throws Exception {
        start(transport, "enable-debug-command", "yes");
        try (Jedis r = new Jedis("127.0.0.1", server.port())) {
            r.hset("h", "f", "x".repeat(100_000));
            r.sendCommand(() -> "DEBUG".getBytes(StandardCharsets.US_ASCII), "REPLYBUFFER", "PEAK-RESET-TIME", "never");
            long deadline = System.currentTimeMillis() + 10_000;
            String info;
            while (Long.parseLong(field(info = r.clientInfo().trim(), "rbs")) < 16384) {
                assertThat(System.currentTimeMillis()).as(info).isLessThan(deadline);
                assertThat(r.hget("h", "f")).hasSize(100_000);
                Thread.sleep(20);
            }
            assertThat(Long.parseLong(field(info, "rbs"))).isLessThan(32768);
        }
    }

    private static String field(String line, String name) {
        for (String f : line.split(" ")) if (f.startsWith(name + "=")) return f.substring(name.length() + 1);
        throw new AssertionError("no " + name + " in " + line);
    }

    @ParameterizedTest
    @EnumSource(SpinelServer.Transport.class)
    void quitClosesAfterItsReplyAndTheServerForgetsTheClient(SpinelServer.Transport transport) throws Exception {
        start(transport);
        try (Socket s = new Socket("127.0.0.1", server.port()); Jedis r = new Jedis("127.0.0.1", server.port())) {
            s.setSoTimeout(5000);
            OutputStream out = s.getOutputStream();
            out.write("SET a 1\r\nQUIT\r\nGET a\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            assertThat(new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII)).isEqualTo("+OK\r\n+OK\r\n");
            assertThat(r.get("a")).isEqualTo("1");
            awaitClients(r, 1);
        }
    }

    @ParameterizedTest
    @EnumSource(SpinelServer.Transport.class)
    void aClientThatHangsUpIsForgotten(SpinelServer.Transport transport) throws Exception {
        start(transport);
        try (Jedis r = new Jedis("127.0.0.1", server.port())) {
            for (int i = 0; i < 5; i++) {
                Socket s = new Socket("127.0.0.1", server.port());
                s.getOutputStream().write("*2\r\n$3\r\nGET\r\n$1\r\n".getBytes(StandardCharsets.US_ASCII)); // half a command
                s.close();
            }
            awaitClients(r, 1);
            assertThat(r.ping()).isEqualTo("PONG");
        }
    }

    @ParameterizedTest
    @EnumSource(SpinelServer.Transport.class)
    void timersRunBetweenReadsBlockingTimeoutsAndActiveExpiry(SpinelServer.Transport transport) throws Exception {
        start(transport, "hz", "100");
        try (Jedis r = new Jedis("127.0.0.1", server.port())) {
            long t0 = System.nanoTime();
            assertThat(r.blpop(0.2, "nothing")).isNull(); // answered by a timer, with no other traffic
            assertThat((System.nanoTime() - t0) / 1_000_000).isBetween(150L, 3000L);
            for (int i = 0; i < 50; i++) r.psetex("short" + i, 20, "x");
            long deadline = System.currentTimeMillis() + 5000;
            // active expiry (the server cron, a periodic timer) removes them without any access
            while (keysIn(r) > 0 && System.currentTimeMillis() < deadline) Thread.sleep(20);
            assertThat(keysIn(r)).isZero();
            assertThat(r.info("stats")).contains("expired_keys:50");
        }
    }

    private static long keysIn(Jedis r) {
        String ks = r.info("keyspace");
        int i = ks.indexOf("db0:keys=");
        if (i < 0) return 0;
        int end = ks.indexOf(',', i);
        return Long.parseLong(ks.substring(i + "db0:keys=".length(), end));
    }

    @ParameterizedTest
    @EnumSource(SpinelServer.Transport.class)
    void configSetPortMovesTheListener(SpinelServer.Transport transport) throws Exception {
        start(transport);
        int oldPort = server.port();
        int newPort = RedisServerProcess.freePort();
        try (Jedis r = new Jedis("127.0.0.1", oldPort)) {
            assertThat(r.configSet("port", Integer.toString(newPort))).isEqualTo("OK");
            // the connection that asked stays; new ones go to the new port
            assertThat(r.ping()).isEqualTo("PONG");
        }
        assertThat(server.port()).isEqualTo(newPort);
        try (Jedis moved = new Jedis("127.0.0.1", newPort)) {
            assertThat(moved.configGet("port")).containsEntry("port", Integer.toString(newPort));
        }
        assertThatThrownBy(() -> new Socket("127.0.0.1", oldPort).close()).isInstanceOf(ConnectException.class);
    }

    @ParameterizedTest
    @EnumSource(SpinelServer.Transport.class)
    void unixSocketClientsAreLocalAndFlaggedU(SpinelServer.Transport transport) throws Exception {
        Path dir = Files.createTempDirectory("spinel-unix");
        Path sock = dir.resolve("s.sock");
        start(transport, "unixsocket", sock.toString(), "unixsocketperm", "700");
        try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            ch.connect(UnixDomainSocketAddress.of(sock));
            ch.write(ByteBuffer.wrap("CLIENT LIST\r\n".getBytes(StandardCharsets.US_ASCII)));
            ByteBuffer in = ByteBuffer.allocate(4096);
            String reply = "";
            long deadline = System.currentTimeMillis() + 5000;
            while (!reply.endsWith("\n\r\n") && System.currentTimeMillis() < deadline) {
                ch.read(in);
                reply = new String(in.array(), 0, in.position(), StandardCharsets.US_ASCII);
            }
            assertThat(reply).contains("flags=U").contains("addr=" + sock + ":0");
        }
        assertThat(Files.getPosixFilePermissions(sock)).hasSize(3); // rwx for the owner only
        server.close();
        assertThat(sock).doesNotExist(); // removed on stop, as Redis does
        server = null;
        Files.deleteIfExists(dir);
    }

    @ParameterizedTest
    @EnumSource(SpinelServer.Transport.class)
    void closeStopsServingAndEndsTheLoopThread(SpinelServer.Transport transport) throws Exception {
        Set<Thread> before = loopThreads();
        start(transport);
        Set<Thread> mine = loopThreads();
        mine.removeAll(before);
        assertThat(mine).isNotEmpty();
        int port = server.port();
        Socket open = new Socket("127.0.0.1", port);
        open.setSoTimeout(5000);
        // served once first: a connection still waiting in the accept queue when the listener
        // closes gets a reset, not the orderly close this test is about
        open.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
        byte[] pong = open.getInputStream().readNBytes(7);
        assertThat(new String(pong, StandardCharsets.US_ASCII)).isEqualTo("+PONG\r\n");
        server.close();
        server = null;
        InputStream in = open.getInputStream();
        assertThat(in.read()).isEqualTo(-1); // the server closed its side
        open.close();
        assertThatThrownBy(() -> new Socket("127.0.0.1", port).close()).isInstanceOf(IOException.class);
        long deadline = System.currentTimeMillis() + 5000;
        // Netty's thread ends; the JDK loop's goes back to the pool of loop threads, renamed
        java.util.function.Predicate<Thread> runsALoop = t -> t.isAlive() && t.getName().startsWith("spinel-main");
        while (mine.stream().anyMatch(runsALoop) && System.currentTimeMillis() < deadline) Thread.sleep(20);
        assertThat(mine).noneMatch(runsALoop);
    }

    /** The server loops' threads alive now. */
    private static Set<Thread> loopThreads() {
        Set<Thread> out = new HashSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) if (t.getName().startsWith("spinel-main") && t.isAlive()) out.add(t);
        return out;
    }

    @Test
    void theJdkLoopReportsTheKernelInterfaceItWaitsWith() {
        start(SpinelServer.Transport.JDK);
        try (Jedis r = new Jedis("127.0.0.1", server.port())) {
            String api = server.multiplexingApi();
            assertThat(api).isIn("epoll", "kqueue", "select");
            assertThat(r.info("server")).contains("multiplexing_api:" + api);
            assertThat(server.isEpoll()).isFalse(); // not Netty's native transport
            // looked up when INFO first asks: this JVM's launcher
            assertThat(r.info("server")).containsPattern("executable:\\S*java\\r\\n");
        }
    }

    private static void awaitClients(Jedis r, int n) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 5000;
        while (!r.info("clients").contains("connected_clients:" + n + "\r") && System.currentTimeMillis() < deadline) {
            Thread.sleep(10);
        }
        assertThat(r.info("clients")).contains("connected_clients:" + n + "\r");
    }
}
