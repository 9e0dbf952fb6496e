package io.spinel.server;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Client buffers are memory (Redis 7.0): a client's query buffer and the output it does not read
 * count in used_memory and mem_clients_normal, so they make keys go under maxmemory, and with
 * maxmemory-clients the largest clients are disconnected instead (evicted_clients).
 * The scenarios are those of Redis's unit/maxmemory: 50 keys of 100 KB under an 11 MB limit.
 */
class ClientMemoryTest {
    private SpinelServer server;
    private Jedis r;
    private final List<Socket> sockets = new ArrayList<>();

    @BeforeEach
    void start() {
        server = SpinelServer.builder().randomPort().option("enable-debug-command", "yes").start();
        r = new Jedis("127.0.0.1", server.port());
        r.configSet("maxmemory", "11mb");
        r.configSet("maxmemory-policy", "allkeys-lru");
    }

    @AfterEach
    void stop() throws IOException {
        for (Socket s : sockets) s.close();
        r.close();
        server.close();
    }

    /** Redis's init_test: 50 keys of 100 KB (5 MB), optionally client eviction at 3 MB with this client exempt. */
    private void fill(String maxmemoryClients) {
        r.flushDB();
        r.configSet("maxmemory-clients", maxmemoryClients);
        if (!maxmemoryClients.equals("0")) assertThat(r.clientNoEvictOn()).isEqualTo("OK");
        r.configResetStat();
        for (int j = 0; j < 50; j++) r.setrange(Integer.toString(j), 100000, "x");
        assertThat(r.dbSize()).isEqualTo(50);
    }

    /** A connection that reads nothing once set up, with a small receive window so the server keeps what it sends. */
    private Socket rawClient() throws IOException {
        Socket s = new Socket();
        s.setReceiveBufferSize(4096);
        s.connect(new InetSocketAddress("127.0.0.1", server.port()));
        s.setSoTimeout(5000);
        sockets.add(s);
        return s;
    }

    private long stat(String field) {
        String info = r.info();
        int i = info.indexOf("\r\n" + field + ":");
        assertThat(i).as(field).isPositive();
        int from = i + field.length() + 3;
        return Long.parseLong(info.substring(from, info.indexOf("\r\n", from)));
    }

    private static void await(BooleanSupplier condition, Runnable step) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition not reached in time").isLessThan(deadline);
            step.run();
        }
    }

    private static byte[] command(String... args) {
        StringBuilder sb = new StringBuilder("*").append(args.length).append("\r\n");
        for (String a : args) sb.append('$').append(a.length()).append("\r\n").append(a).append("\r\n");
        return sb.toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    /** Whether the server closed the connection (a read ends, or fails, instead of timing out). */
    private static boolean closedByServer(Socket s) {
        try {
            s.setSoTimeout(200);
            InputStream in = s.getInputStream();
            byte[] buf = new byte[1 << 16];
            while (true) {
                if (in.read(buf) < 0) return true;
            }
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    private void mgetFlood(List<Socket> clients, BooleanSupplier done) {
        byte[] batch = command("MGET", "1");
        await(done, () -> {
            for (Socket s : clients) {
                if (s.isClosed()) continue;
                try {
                    OutputStream out = s.getOutputStream();
                    for (int k = 0; k < 4; k++) out.write(batch);
                    out.flush();
                } catch (IOException e) {
                    // evicted: the server closed it
                    try {
                        s.close();
                    } catch (IOException ignored) {
                        // already gone
                    }
                }
            }
        });
    }

    private List<Socket> rawClients(int n) throws IOException {
        List<Socket> list = new ArrayList<>();
        for (int j = 0; j < n; j++) list.add(rawClient());
        return list;
    }

    @Test
    void unreadMgetRepliesCountAsMemoryAndEvictKeys() throws IOException {
        fill("0");
        long before = stat("mem_clients_normal");
        List<Socket> clients = rawClients(20);
        mgetFlood(clients, () -> stat("evicted_keys") > 0);
        // Nothing but MGET ran: only the flood's unsent replies, counted in used_memory, could
        // push it over maxmemory (the keys hold 5 MB of the 11). How much is still unsent when
        // INFO runs depends on how much the kernel's socket buffers took since, so the figures
        // below are only checked for consistency.
        assertThat(r.dbSize()).isLessThan(50);
        assertThat(stat("evicted_clients")).isZero();
        long clientsMem = stat("mem_clients_normal");
        assertThat(clientsMem).isGreaterThan(before + 20 * 4096L); // each client's fixed overhead
        assertThat(stat("used_memory")).isGreaterThanOrEqualTo(clientsMem);
        long totMem = 0;
        for (String line : r.clientList().split("\n")) {
            assertThat(field(line, "tot-mem")).isGreaterThanOrEqualTo(field(line, "omem") + field(line, "qbuf"));
            totMem += field(line, "tot-mem");
        }
        assertThat(totMem).isGreaterThanOrEqualTo(clientsMem - 100_000); // CLIENT LIST adds up to INFO
        // the clients' memory goes when they do
        for (Socket s : clients) s.close();
        await(() -> stat("mem_clients_normal") < 100_000, ClientMemoryTest::pause);
    }

    @Test
    void unreadMgetRepliesEvictClientsUnderMaxmemoryClients() throws IOException {
        fill("3mb");
        List<Socket> clients = rawClients(20);
        mgetFlood(clients, () -> stat("evicted_clients") > 0);
        assertThat(stat("evicted_keys")).isZero();
        assertThat(r.dbSize()).isEqualTo(50);
        assertThat(clients.stream().anyMatch(ClientMemoryTest::closedByServer)).isTrue();
    }

    /** Redis's dead client: a command of 250 arguments that stops after 249 of 1000 bytes. */
    private static void sendPartialCommand(Socket s) throws IOException {
        OutputStream out = s.getOutputStream();
        StringBuilder sb = new StringBuilder("*250\r\n");
        String arg = "x".repeat(1000);
        for (int j = 0; j < 249; j++) sb.append("$1000\r\n").append(arg).append("\r\n");
        out.write(sb.toString().getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
    }

    /**
     * Clients that hold all 249 arguments of {@link #sendPartialCommand}: parsed, they are the
     * command's arguments (argv-mem), no longer query buffer (qbuf), as in Redis.
     */
    private long clientsWithBigQueryBuffer() {
        return r.clientList().lines().filter(line -> field(line, "argv-mem") >= 249 * 1000).count();
    }

    @Test
    void deadClientsQueryBuffersCountAndEvictKeys() throws IOException {
        fill("0");
        for (int j = 0; j < 30; j++) sendPartialCommand(rawClient());
        // Wait for every client's whole partial command to be read, not for a memory figure:
        // the total can pass any threshold while the last few clients' bytes are still in flight.
        await(() -> clientsWithBigQueryBuffer() == 30, ClientMemoryTest::pause);
        assertThat(stat("mem_clients_normal")).isGreaterThan(30 * 249_000L);
        for (String line : r.clientList().split("\n")) {
            if (field(line, "argv-mem") >= 249 * 1000) {
                assertThat(field(line, "qbuf")).isLessThan(1000);
                assertThat(field(line, "tot-mem")).isGreaterThanOrEqualTo(field(line, "argv-mem"));
            }
        }
        assertThat(r.dbSize()).isLessThan(50);
        assertThat(stat("evicted_keys")).isPositive();
        assertThat(stat("evicted_clients")).isZero();
    }

    @Test
    void deadClientsAreEvictedUnderAPercentageOfMaxmemory() throws IOException {
        // 3% of 100 MB: about the 3 MB of Redis's test, given as a percentage
        r.configSet("maxmemory", "100mb");
        fill("3%");
        List<Socket> clients = rawClients(30);
        for (Socket s : clients) sendPartialCommand(s);
        await(() -> stat("evicted_clients") > 0, ClientMemoryTest::pause);
        assertThat(stat("evicted_keys")).isZero();
        assertThat(r.dbSize()).isEqualTo(50);
        assertThat(stat("mem_clients_normal")).isLessThan(3L * 1024 * 1024);
        assertThat(clients.stream().filter(ClientMemoryTest::closedByServer).count())
                .isEqualTo(stat("evicted_clients"));
        // CONFIG RESETSTAT clears the counter
        r.configResetStat();
        assertThat(stat("evicted_clients")).isZero();
    }

    private List<Socket> subscribers(int n, boolean noEvict) throws IOException {
        List<Socket> list = rawClients(n);
        for (Socket s : list) {
            OutputStream out = s.getOutputStream();
            if (noEvict) out.write(command("CLIENT", "NO-EVICT", "on"));
            out.write(command("SUBSCRIBE", "bla"));
            out.flush();
            String expect = (noEvict ? "+OK\r\n" : "") + "*3\r\n$9\r\nsubscribe\r\n$3\r\nbla\r\n:1\r\n";
            byte[] got = s.getInputStream().readNBytes(expect.length());
            assertThat(new String(got, StandardCharsets.ISO_8859_1)).isEqualTo(expect);
        }
        return list;
    }

    @Test
    void unreadPubSubMessagesEvictKeys() throws IOException {
        fill("0");
        subscribers(20, false);
        String big = "x".repeat(100000);
        await(() -> stat("evicted_keys") > 0, () -> r.publish("bla", big));
        assertThat(r.dbSize()).isLessThan(50);
        assertThat(stat("evicted_clients")).isZero();
    }

    @Test
    void unreadPubSubMessagesEvictSubscribersUnlessNoEvict() throws IOException {
        fill("3mb");
        List<Socket> exempt = subscribers(10, true);
        String big = "x".repeat(100000);
        // exempt subscribers alone: they pass the limit, nobody is evicted
        await(() -> stat("mem_clients_normal") > 4L * 1024 * 1024, () -> r.publish("bla", big));
        assertThat(stat("evicted_clients")).isZero();
        for (Socket s : exempt) assertThat(closedByServer(s)).isFalse();
        for (Socket s : exempt) s.close();
        await(() -> stat("mem_clients_normal") < 1024 * 1024, ClientMemoryTest::pause);

        List<Socket> evictable = subscribers(20, false);
        await(() -> stat("evicted_clients") > 0, () -> r.publish("bla", big));
        assertThat(stat("evicted_keys")).isZero();
        assertThat(r.dbSize()).isEqualTo(50);
        assertThat(evictable.stream().anyMatch(ClientMemoryTest::closedByServer)).isTrue();
    }

    @Test
    void outputBufferLimitsCloseClients() throws IOException {
        r.configSet("maxmemory", "0");
        r.configSet("client-output-buffer-limit", "pubsub 1mb 0 0");
        r.setrange("1", 100000, "x");
        Socket sub = subscribers(1, false).get(0);
        String big = "x".repeat(100000);
        await(() -> r.pubsubNumSub("bla").get("bla") == 0L, () -> r.publish("bla", big));
        assertThat(closedByServer(sub)).isTrue();

        // normal clients: MGET replies nobody reads, over a 2 MB hard limit
        r.configSet("client-output-buffer-limit", "normal 2mb 0 0");
        Socket flood = rawClient();
        flood.getOutputStream().write(command("PING"));
        assertThat(new String(flood.getInputStream().readNBytes(7), StandardCharsets.ISO_8859_1)).isEqualTo("+PONG\r\n");
        assertThat(r.clientList().split("\n")).hasSize(2);
        mgetFlood(List.of(flood), () -> flood.isClosed() || r.clientList().split("\n").length == 1);
        assertThat(flood.isClosed() || closedByServer(flood)).isTrue();
        assertThat(r.ping()).isEqualTo("PONG");
    }

    /**
     * A pipeline whose replies pass the hard limit within one batch (Redis's TCL obuf-limits): the
     * client is closed with not one byte of reply, and what it pipelined after the limit was
     * reached does not run.
     */
    @Test
    void aPipelinePastTheHardLimitGetsNothingAndRunsNoMore() throws IOException {
        r.configSet("maxmemory", "0");
        r.configSet("client-output-buffer-limit", "normal 100000 0 0");
        r.set("bigkey", "x".repeat(10000));
        Socket pipeline = rawClient();
        java.io.ByteArrayOutputStream buf = new java.io.ByteArrayOutputStream();
        for (int i = 0; i < 15; i++) {
            buf.write(command("GET", "bigkey"));
            buf.write(command("SET", "after:" + i, "1"));
        }
        pipeline.getOutputStream().write(buf.toByteArray());
        assertThat(pipeline.getInputStream().read()).isEqualTo(-1);
        // 10 replies of 10 KB reach 100000 bytes: the SETs behind the tenth GET never ran
        assertThat(r.exists("after:8")).isTrue();
        assertThat(r.exists("after:9")).isFalse();
        assertThat(r.exists("after:14")).isFalse();
        r.configSet("client-output-buffer-limit", "normal 0 0 0");
    }

    /** A reply of a billion random fields stops once the client is past its limit, and none of it is sent (Redis's "stopped mid-run"). */
    @Test
    void aHugeRandomReplyStopsAtTheLimit() throws IOException {
        r.configSet("maxmemory", "0");
        r.configSet("client-output-buffer-limit", "normal 1000000 0 0");
        r.hset("myhash", "a", "b");
        r.sadd("myset", "a");
        r.zadd("myzset", 1, "a");
        for (String[] cmd : new String[][] {{"HRANDFIELD", "myhash", "-999999999"}, {"SRANDMEMBER", "myset", "-999999999"},
                {"ZRANDMEMBER", "myzset", "-999999999"}}) {
            Socket s = rawClient();
            s.setSoTimeout(20_000);
            s.getOutputStream().write(command(cmd));
            byte[] buf = new byte[1 << 16];
            long read = 0;
            while (true) {
                int n = s.getInputStream().read(buf);
                if (n < 0) break;
                read += n;
            }
            assertThat(read).as(cmd[0]).isZero(); // closed, the reply held until it passed the limit, then dropped
        }
        assertThat(r.ping()).isEqualTo("PONG");
        r.configSet("client-output-buffer-limit", "normal 0 0 0");
    }

    /** The CLIENT LIST line of the client with this name, or null. */
    private String clientLine(String name) {
        return r.clientList().lines().filter(l -> l.contains(" name=" + name + " ")).findFirst().orElse(null);
    }

    private static byte[] filled(int n) {
        byte[] b = new byte[n];
        java.util.Arrays.fill(b, (byte) 'v');
        return b;
    }

    /**
     * A command whose name is its one big argument (Redis's client-eviction test): while it
     * arrives its bytes are the query buffer, header parsed off; once whole it is an unknown
     * command and the connection goes on.
     */
    @Test
    void aBigCommandNameArrivesAsQueryBuffer() throws IOException {
        r.configSet("maxmemory", "0");
        Socket s = rawClient();
        OutputStream out = s.getOutputStream();
        out.write(command("CLIENT", "SETNAME", "bigname"));
        int size = 225_280;
        int sent = 200_000;
        out.write(("*1\r\n$" + size + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
        out.write(filled(sent));
        out.flush();
        await(() -> {
            String line = clientLine("bigname");
            return line != null && field(line, "qbuf") == sent;
        }, ClientMemoryTest::pause);
        assertThat(field(clientLine("bigname"), "tot-mem")).isGreaterThan(sent);
        out.write(filled(size - sent));
        out.write("\r\n".getBytes(StandardCharsets.ISO_8859_1));
        out.write(command("PING"));
        out.flush();
        s.setSoTimeout(5000);
        String got = new String(s.getInputStream().readNBytes(5), StandardCharsets.ISO_8859_1);
        assertThat(got).isEqualTo("+OK\r\n");
        java.io.ByteArrayOutputStream rest = new java.io.ByteArrayOutputStream();
        while (!rest.toString(StandardCharsets.ISO_8859_1).endsWith("+PONG\r\n")) {
            int b = s.getInputStream().read();
            assertThat(b).as("connection closed after: " + rest).isNotNegative();
            rest.write(b);
        }
        assertThat(rest.toString(StandardCharsets.ISO_8859_1)).startsWith("-ERR unknown command 'vvv");
    }

    /**
     * What a client's state costs counts as its memory (Redis's getClientMemoryUsage): watched
     * keys, subscriptions, and a queued transaction (multi-mem), which maxmemory-clients then
     * evicts for.
     */
    @Test
    void watchedKeysSubscriptionsAndTransactionsAreClientMemory() throws IOException {
        r.configSet("maxmemory", "0");
        assertThat(r.clientNoEvictOn()).isEqualTo("OK");
        String[] keys = new String[1000];
        for (int j = 0; j < keys.length; j++) keys[j] = "key:" + j;
        try (Jedis c = new Jedis("127.0.0.1", server.port())) {
            c.clientSetname("state");
            long base = field(clientLine("state"), "tot-mem");
            c.watch(keys);
            long watching = field(clientLine("state"), "tot-mem");
            assertThat(watching - base).isGreaterThanOrEqualTo(1000 * 56L);
            c.unwatch();
            assertThat(field(clientLine("state"), "tot-mem")).isLessThan(watching - 1000 * 50L);
        }
        Socket sub = rawClient();
        OutputStream subOut = sub.getOutputStream();
        subOut.write(command("CLIENT", "SETNAME", "subscriber"));
        subOut.flush();
        assertThat(new String(sub.getInputStream().readNBytes(5), StandardCharsets.ISO_8859_1)).isEqualTo("+OK\r\n");
        long beforeSubscribing = field(clientLine("subscriber"), "tot-mem");
        String[] channels = new String[1000];
        for (int j = 0; j < channels.length; j++) channels[j] = "ch:" + j;
        subOut.write(command(prepend("SUBSCRIBE", channels)));
        subOut.write(command(prepend("PSUBSCRIBE", channels)));
        subOut.flush();
        await(() -> field(clientLine("subscriber"), "psub") == 1000, ClientMemoryTest::pause);
        // per channel a table entry and a slot, per pattern a list node
        assertThat(field(clientLine("subscriber"), "tot-mem") - beforeSubscribing)
                .isGreaterThanOrEqualTo(1000 * (24L + 8) + 1000 * 24L);

        Socket tx = rawClient();
        OutputStream txOut = tx.getOutputStream();
        String value = "v".repeat(100_000);
        txOut.write(command("CLIENT", "SETNAME", "tx"));
        txOut.write(command("MULTI"));
        txOut.write(command("SET", "k", value));
        txOut.write(command("SET", "k", value));
        txOut.flush();
        String queued = "+OK\r\n+OK\r\n+QUEUED\r\n+QUEUED\r\n";
        assertThat(new String(tx.getInputStream().readNBytes(queued.length()), StandardCharsets.ISO_8859_1)).isEqualTo(queued);
        String line = clientLine("tx");
        assertThat(field(line, "multi")).isEqualTo(2);
        // each command's arguments and a pointer each, as Redis's mstate.argv_len_sums
        assertThat(field(line, "multi-mem")).isEqualTo(2 * (3 + 1 + 100_000 + 3 * 8L));
        assertThat(field(line, "tot-mem")).isGreaterThan(field(line, "multi-mem"));
        // three more queued values pass a limit of 400 KB: the client goes, nothing was run
        r.configSet("maxmemory-clients", "400000");
        try {
            for (int j = 0; j < 3; j++) txOut.write(command("SET", "k", value));
            txOut.flush();
        } catch (IOException closedWhileWriting) {
            // evicted before the last of it was written
        }
        assertThat(closedByServer(tx)).isTrue();
        assertThat(stat("evicted_clients")).isPositive();
        assertThat(r.exists("k")).isFalse();
        r.configSet("maxmemory-clients", "0");
    }

    private static String[] prepend(String first, String[] rest) {
        String[] all = new String[rest.length + 1];
        all[0] = first;
        System.arraycopy(rest, 0, all, 1, rest.length);
        return all;
    }

    /**
     * Redis's "evict clients only until below limit": ten clients of 1 MB each, the limit set for
     * half of them and the client setting it; exactly half go. It needs every client's memory to
     * stay what CLIENT LIST showed: the reply buffer keeps its size (DEBUG REPLYBUFFER RESIZING 0),
     * and the client running CLIENT LIST is shown with its arguments, which it no longer holds
     * when the limit is set.
     */
    @Test
    void clientsAreEvictedOnlyUntilUnderTheLimit() throws IOException {
        r.configSet("maxmemory", "0");
        r.sendCommand(() -> "DEBUG".getBytes(StandardCharsets.US_ASCII), "REPLYBUFFER", "RESIZING", "0");
        r.clientSetname("control");
        assertThat(r.clientNoEvictOn()).isEqualTo("OK");
        int clients = 10;
        int size = 1 << 20;
        for (int j = 0; j < clients; j++) {
            Socket s = rawClient();
            OutputStream out = s.getOutputStream();
            out.write(command("CLIENT", "SETNAME", "client" + j));
            out.write(("*2\r\n$" + size + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
            out.write(filled(size));
            out.flush();
            String name = "client" + j;
            await(() -> {
                String line = clientLine(name);
                return line != null && field(line, "tot-mem") >= size;
            }, ClientMemoryTest::pause);
        }
        long max = r.clientList().lines().filter(l -> l.contains(" name=client"))
                .mapToLong(l -> field(l, "tot-mem")).max().orElseThrow();
        long limit = max * clients / 2 + field(clientLine("control"), "tot-mem");
        r.configSet("maxmemory-clients", Long.toString(limit));
        List<String> lines = r.clientList().lines().toList();
        assertThat(lines.stream().filter(l -> l.contains(" name=client")).count()).isEqualTo(clients / 2);
        assertThat(lines.stream().mapToLong(l -> field(l, "tot-mem")).sum()).isLessThanOrEqualTo(limit);
        assertThat(stat("evicted_clients")).isEqualTo(clients / 2);
        r.sendCommand(() -> "DEBUG".getBytes(StandardCharsets.US_ASCII), "REPLYBUFFER", "RESIZING", "1");
        r.configSet("maxmemory-clients", "0");
    }

    private static long field(String clientLine, String name) {
        for (String f : clientLine.trim().split(" ")) {
            if (f.startsWith(name + "=")) return Long.parseLong(f.substring(name.length() + 1));
        }
        throw new AssertionError("no " + name + " in " + clientLine);
    }

    private static void pause() {
        try {
            Thread.sleep(20);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
