package io.spinel.bench.jmh;

import io.spinel.core.Client;
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
 * Writes while other clients wait: one is blocked in BLPOP and one has a key WATCHed (a job queue
 * and an optimistic transaction somewhere on the server, as in many real deployments). Every
 * write then asks whether anyone waits on or watches its key; the answer is no here, and asking
 * must cost neither time to speak of nor allocation.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class WaitersBenchmark {
    private static final String VALUE = "v".repeat(32);

    private InProcessServer server;
    private byte[] set;
    private byte[] incr;
    private byte[] hset;
    private byte[] lpush;
    private byte[] lpop;

    @Setup
    public void setUp() {
        server = new InProcessServer();
        Client blocked = server.connectOther();
        server.feed(blocked, InProcessServer.encode("BLPOP", "queue", "0"));
        Client watcher = server.connectOther();
        server.feed(watcher, InProcessServer.encode("WATCH", "watched"));
        server.call("SET", "counter", "1000000000");
        server.call("HSET", "hash", "field", VALUE);
        for (int k = 0; k < 100; k++) server.call("RPUSH", "list", "element:" + k);
        set = InProcessServer.encode("SET", "key", VALUE);
        incr = InProcessServer.encode("INCR", "counter");
        hset = InProcessServer.encode("HSET", "hash", "field", VALUE);
        lpush = InProcessServer.encode("LPUSH", "list", "element:x");
        lpop = InProcessServer.encode("LPOP", "list");
        server.expect(set, "+OK\r\n");
        server.expect(incr, ":1000000001\r\n");
        server.expect(hset, ":0\r\n");
        String clients = server.call("INFO", "clients");
        String watched = ((InProcessServer.ReplyCapture) watcher.connection()).text();
        if (!clients.contains("blocked_clients:1\r\n") || !watched.equals("+OK\r\n")) {
            throw new IllegalStateException("the waiting clients are not in place: " + clients + watched);
        }
    }

    @TearDown
    public void tearDown() {
        server.close();
    }

    @Benchmark
    public long set() {
        server.feed(set);
        return server.connection.bytes;
    }

    @Benchmark
    public long incr() {
        server.feed(incr);
        return server.connection.bytes;
    }

    @Benchmark
    public long hset() {
        server.feed(hset);
        return server.connection.bytes;
    }

    @Benchmark
    @OperationsPerInvocation(2)
    public long lpushLpop() {
        server.feed(lpush);
        server.feed(lpop);
        return server.connection.bytes;
    }
}
