package io.spinel.bench.jmh;

import io.spinel.core.protocol.Args;
import io.spinel.core.protocol.RespReader;
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
import org.openjdk.jmh.annotations.Warmup;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * Request parsing alone (RespReader into Args): the bytes of one read are copied into the query
 * buffer, as the transport does, and every command in them is parsed and consumed.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class RespParseBenchmark {
    private static final long MAX_BULK = 512L * 1024 * 1024;

    private final Args args = new Args();
    private final RespReader reader = new RespReader(args);
    private byte[] set;
    private byte[] get;
    private byte[] pingInline;
    private byte[] pipeline16;

    @Setup
    public void setUp() {
        set = InProcessServer.encode("SET", "key:000000000042", "v".repeat(32));
        get = InProcessServer.encode("GET", "key:000000000042");
        pingInline = "PING\r\n".getBytes(StandardCharsets.US_ASCII);
        byte[][] mix = new byte[16][];
        for (int k = 0; k < 16; k++) {
            mix[k] = (k & 1) == 0
                    ? InProcessServer.encode("SET", String.format("key:%012d", k), "v".repeat(32))
                    : InProcessServer.encode("GET", String.format("key:%012d", k));
        }
        pipeline16 = InProcessServer.concat(mix);
        if (parseAll(pipeline16) != 16 * 3 - 8 || parseAll(pingInline) != 1 || parseAll(set) != 3) {
            throw new IllegalStateException("parser did not see the expected commands");
        }
    }

    /** Feeds one read and parses it to the end; returns the total argument count. */
    private int parseAll(byte[] read) {
        byte[] dst = reader.writable(read.length);
        System.arraycopy(read, 0, dst, reader.writeOffset(), read.length);
        reader.commit(read.length);
        int argc = 0;
        int r;
        while ((r = reader.next(false, MAX_BULK)) != RespReader.NEED_MORE) {
            if (r != RespReader.COMMAND) throw new IllegalStateException("parse result " + r);
            argc += args.count();
            reader.consumed();
        }
        return argc;
    }

    @Benchmark
    public int multibulkSet() {
        return parseAll(set);
    }

    @Benchmark
    public int multibulkGet() {
        return parseAll(get);
    }

    @Benchmark
    public int inlinePing() {
        return parseAll(pingInline);
    }

    /** Sixteen commands (SET and GET alternating) in one read; figures are per command. */
    @Benchmark
    @OperationsPerInvocation(16)
    public int pipeline16() {
        return parseAll(pipeline16);
    }
}
