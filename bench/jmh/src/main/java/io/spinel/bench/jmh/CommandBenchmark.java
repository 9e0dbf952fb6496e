package io.spinel.bench.jmh;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Whole commands through the engine, from request bytes in the query buffer to reply bytes handed
 * to the connection: parsing, lookup, the checks of processCommand, call() accounting, the command
 * itself and reply encoding. Every benchmark is steady state: the data it touches is created in
 * set-up and does not grow, so time and allocation per operation stay flat however long it runs.
 * Set-up checks each request's exact reply, so a benchmark can never quietly measure an error path.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class CommandBenchmark {
    /** Keys (and hash fields) the commands rotate over, so one hot slot does not flatter the table. */
    private static final int KEYS = 64;
    /** Other keys in the database, so lookups probe a table of realistic size. */
    private static final int FILLER = 10_000;
    private static final String VALUE = "v".repeat(32);

    private InProcessServer server;
    private byte[][] get;
    private byte[][] set;
    private byte[][] hset;
    private byte[][] hsetBig;
    private byte[][] setEx;
    private byte[][] getMiss;
    private byte[] hsetNew;
    private byte[] hdelNew;
    private byte[] lpushLarge;
    private byte[] lpopLarge;
    private byte[] incr;
    private byte[] ping;
    private byte[] pingInline;
    private byte[] lpush;
    private byte[] lpop;
    private byte[] pipelineGet16;
    private int i;

    @Setup
    public void setUp() {
        server = new InProcessServer();
        for (int k = 0; k < FILLER; k++) server.call("SET", "filler:" + k, VALUE);
        get = new byte[KEYS][];
        set = new byte[KEYS][];
        hset = new byte[KEYS][];
        hsetBig = new byte[KEYS][];
        setEx = new byte[KEYS][];
        getMiss = new byte[KEYS][];
        for (int k = 0; k < KEYS; k++) {
            String key = key(k);
            server.call("SET", key, VALUE);
            server.call("HSET", "hash", field(k), VALUE);
            get[k] = InProcessServer.encode("GET", key);
            set[k] = InProcessServer.encode("SET", key, VALUE);
            hset[k] = InProcessServer.encode("HSET", "hash", field(k), VALUE);
            hsetBig[k] = InProcessServer.encode("HSET", "bighash", field(k), VALUE);
            setEx[k] = InProcessServer.encode("SET", "ex" + key, VALUE, "EX", "3600");
            getMiss[k] = InProcessServer.encode("GET", "missing" + key);
        }
        // past Redis's shared integers (0..9999) and far from a change in digit count
        server.call("SET", "counter", "1000000000");
        for (int k = 0; k < 100; k++) server.call("RPUSH", "list", "element:" + k);
        for (int k = 0; k < 10_000; k++) server.call("RPUSH", "biglist", "element:" + k);
        for (int k = 0; k < 1000; k++) server.call("HSET", "bighash", field(k), VALUE);
        for (int k = 0; k < KEYS; k++) server.call("SET", "ex" + key(k), VALUE, "EX", "3600");
        incr = InProcessServer.encode("INCR", "counter");
        ping = InProcessServer.encode("PING");
        pingInline = "PING\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        lpush = InProcessServer.encode("LPUSH", "list", "element:x");
        lpop = InProcessServer.encode("LPOP", "list");
        lpushLarge = InProcessServer.encode("LPUSH", "biglist", "element:x");
        lpopLarge = InProcessServer.encode("LPOP", "biglist");
        hsetNew = InProcessServer.encode("HSET", "hash", "newfield", VALUE);
        hdelNew = InProcessServer.encode("HDEL", "hash", "newfield");
        byte[][] gets = new byte[16][];
        for (int k = 0; k < 16; k++) gets[k] = get[k];
        pipelineGet16 = InProcessServer.concat(gets);

        String bulk = "$" + VALUE.length() + "\r\n" + VALUE + "\r\n";
        server.expect(get[0], bulk);
        server.expect(set[0], "+OK\r\n");
        server.expect(hset[0], ":0\r\n");
        server.expect(incr, ":1000000001\r\n");
        server.expect(ping, "+PONG\r\n");
        server.expect(pingInline, "+PONG\r\n");
        server.expect(lpush, ":101\r\n");
        server.expect(lpop, "$9\r\nelement:x\r\n");
        server.expect(pipelineGet16, bulk.repeat(16));
        server.expect(setEx[0], "+OK\r\n");
        server.expect(getMiss[0], "$-1\r\n");
        server.expect(hsetNew, ":1\r\n");
        server.expect(hdelNew, ":1\r\n");
        server.expect(lpushLarge, ":10001\r\n");
        server.expect(lpopLarge, "$9\r\nelement:x\r\n");
        server.expect(hsetBig[0], ":0\r\n");
        String encoding = server.call("OBJECT", "ENCODING", "hash");
        if (!encoding.equals("$8\r\nlistpack\r\n")) throw new IllegalStateException("hash encoding " + encoding);
        encoding = server.call("OBJECT", "ENCODING", "bighash");
        if (!encoding.equals("$9\r\nhashtable\r\n")) throw new IllegalStateException("bighash encoding " + encoding);
    }

    private static String key(int k) {
        return String.format("key:%012d", k);
    }

    private static String field(int k) {
        return String.format("field:%04d", k);
    }

    @TearDown
    public void tearDown() {
        server.close();
    }

    private int next() {
        return i = (i + 1) & (KEYS - 1);
    }

    @Benchmark
    public long get() {
        server.feed(get[next()]);
        return server.connection.bytes;
    }

    @Benchmark
    public long set() {
        server.feed(set[next()]);
        return server.connection.bytes;
    }

    @Benchmark
    public long incr() {
        server.feed(incr);
        return server.connection.bytes;
    }

    @Benchmark
    public long ping() {
        server.feed(ping);
        return server.connection.bytes;
    }

    @Benchmark
    public long pingInline() {
        server.feed(pingInline);
        return server.connection.bytes;
    }

    /** HSET overwriting a field of a 64-field listpack hash: the size never changes. */
    @Benchmark
    public long hset() {
        server.feed(hset[next()]);
        return server.connection.bytes;
    }

    /** HSET overwriting a field of a 1000-field hash (hashtable encoding). */
    @Benchmark
    public long hsetHashtable() {
        server.feed(hsetBig[next()]);
        return server.connection.bytes;
    }

    /** LPUSH then LPOP on a 100-element list, each its own read: the list keeps its size. */
    @Benchmark
    @OperationsPerInvocation(2)
    public long lpushLpop() {
        server.feed(lpush);
        server.feed(lpop);
        return server.connection.bytes;
    }

    /** GET of a key that does not exist (a miss counted in keyspace_misses). */
    @Benchmark
    public long getMiss() {
        server.feed(getMiss[next()]);
        return server.connection.bytes;
    }

    /** SET with a relative expire overwriting a key that has one: the cache-style SET. */
    @Benchmark
    public long setEx() {
        server.feed(setEx[next()]);
        return server.connection.bytes;
    }

    /** HSET adding a field to the hash and HDEL removing it again. */
    @Benchmark
    @OperationsPerInvocation(2)
    public long hsetNewFieldHdel() {
        server.feed(hsetNew);
        server.feed(hdelNew);
        return server.connection.bytes;
    }

    /** LPUSH then LPOP on a 10,000-element list (many nodes). */
    @Benchmark
    @OperationsPerInvocation(2)
    public long lpushLpopLarge() {
        server.feed(lpushLarge);
        server.feed(lpopLarge);
        return server.connection.bytes;
    }

    /** Sixteen GETs arriving in one read: one flush for all their replies. */
    @Benchmark
    @OperationsPerInvocation(16)
    public long pipelineGet16() {
        server.feed(pipelineGet16);
        return server.connection.bytes;
    }
}
