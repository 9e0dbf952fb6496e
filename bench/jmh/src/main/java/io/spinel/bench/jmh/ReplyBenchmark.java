package io.spinel.bench.jmh;

import io.spinel.core.protocol.Reply;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Reply encoding into the client's output buffer, drained to a sink after every reply as the
 * transport does once per read batch.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class ReplyBenchmark {
    private final Reply reply = new Reply();
    private final byte[] value = "v".repeat(32).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private long sunk;
    private long n = 1_000_000_007L;

    @Setup
    public void setUp() {
        reply.setSink((b, off, len) -> sunk += len + b[off]);
    }

    @Benchmark
    public long bulk() {
        reply.bulk(value, 0, value.length);
        return reply.drain();
    }

    @Benchmark
    public long bulkLong() {
        reply.bulkLong(n++);
        return reply.drain();
    }

    @Benchmark
    public long integer() {
        reply.integer(n++);
        return reply.drain();
    }

    @Benchmark
    public long ok() {
        reply.ok();
        return reply.drain();
    }

    @Benchmark
    public long status() {
        reply.status("PONG");
        return reply.drain();
    }

    @Benchmark
    public long nullBulk() {
        reply.nullBulk();
        return reply.drain();
    }

    /** An array header and three bulk elements, like a short LRANGE or HMGET. */
    @Benchmark
    public long arrayOf3() {
        reply.arrayHeader(3);
        reply.bulk(value, 0, value.length);
        reply.bulk(value, 0, 8);
        reply.bulk(value, 0, 1);
        return reply.drain();
    }

    /** A deferred length patched after the elements (replies whose count is found while writing). */
    @Benchmark
    public long deferredArrayOf3() {
        int h = reply.deferLength();
        reply.bulk(value, 0, value.length);
        reply.bulk(value, 0, 8);
        reply.bulk(value, 0, 1);
        reply.setDeferredLength(h, '*', 3);
        return reply.drain();
    }
}
