package io.spinel.bench.jmh;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Keyed commands on a cluster node (cluster-enabled yes, every slot its own), against the same
 * commands on a standalone server: what the routing check (the key's slot, its owner, the
 * cluster's state) and the per-slot key index add to each command, in time and in allocation.
 * A single node: the bus and the cron are not started, so only the request path is measured.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@State(Scope.Thread)
public class ClusterModeBenchmark {
    @Param({"standalone", "cluster"})
    public String mode;

    @Param({"GET k1", "SET k1 value-0001", "INCR counter", "HSET h f1 x", "MGET {t}1 {t}2 {t}3", "PING"})
    public String command;

    private InProcessServer server;
    private Path dir;
    private byte[] request;

    @Setup
    public void setUp() throws IOException {
        dir = Files.createTempDirectory("spinel-jmh-cluster");
        server = mode.equals("cluster")
                ? new InProcessServer("dir", dir.toString(), "cluster-enabled", "yes")
                : new InProcessServer("dir", dir.toString());
        if (mode.equals("cluster")) {
            check("CLUSTER ADDSLOTSRANGE 0 16383", "+OK\r\n");
            // a master's state stays "fail" for 2 s after its first evaluation (Redis's
            // CLUSTER_WRITABLE_DELAY); with no cron here, a change of slots evaluates it again
            try {
                Thread.sleep(2100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            check("CLUSTER DELSLOTS 0", "+OK\r\n");
            check("CLUSTER ADDSLOTS 0", "+OK\r\n");
            if (!server.call("CLUSTER", "INFO").contains("cluster_state:ok")) {
                throw new IllegalStateException("cluster not ok: " + server.call("CLUSTER", "INFO"));
            }
        }
        server.call("SET", "k1", "value-0001");
        server.call("SET", "counter", "100");
        server.call("HSET", "h", "f1", "a", "f2", "b");
        for (int k = 1; k <= 3; k++) server.call("SET", "{t}" + k, "v" + k);
        request = InProcessServer.encode(command.split(" "));
        String reply = server.call(command.split(" "));
        if (reply.startsWith("-")) throw new IllegalStateException(command + " replied " + reply);
    }

    private void check(String request, String expected) {
        String reply = server.call(request.split(" "));
        if (!reply.equals(expected)) throw new IllegalStateException(request + " replied " + reply);
    }

    @TearDown
    public void tearDown() throws IOException {
        server.close();
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Benchmark
    public long run() {
        server.feed(request);
        return server.connection.bytes;
    }
}
