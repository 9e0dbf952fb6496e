package io.spinel.bench.jmh;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Scripts from request bytes to reply bytes: EVALSHA of a cached one-call script (what
 * rate limiters and locks run) and EVAL of a script making ten calls.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class ScriptBenchmark {
    private static final String ONE_CALL = "return redis.call('incr', KEYS[1])";
    private static final String TEN_CALLS = "for i = 1, 10 do redis.call('incr', KEYS[1]) end";

    private InProcessServer server;
    private byte[] evalsha;
    private byte[] eval10;

    @Setup
    public void setUp() {
        server = new InProcessServer();
        String sha = server.call("SCRIPT", "LOAD", ONE_CALL);
        sha = sha.substring(sha.indexOf('\n') + 1, sha.lastIndexOf('\r'));
        evalsha = InProcessServer.encode("EVALSHA", sha, "1", "counter");
        eval10 = InProcessServer.encode("EVAL", TEN_CALLS, "1", "counter10");
        server.call("SET", "counter", "1000000000");
        server.call("SET", "counter10", "1000000000");
        server.expect(evalsha, ":1000000001\r\n");
        server.expect(eval10, "$-1\r\n");
    }

    @TearDown
    public void tearDown() {
        server.close();
    }

    @Benchmark
    public long evalshaOneCall() {
        server.feed(evalsha);
        return server.connection.bytes;
    }

    @Benchmark
    public long evalTenCalls() {
        server.feed(eval10);
        return server.connection.bytes;
    }
}
