package io.spinel.bench.jmh;

import io.spinel.core.command.Command;
import io.spinel.core.command.CommandTable;
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

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/** Command table lookup by the name bytes as clients send them (any case), hits and a miss. */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class CommandLookupBenchmark {
    private InProcessServer server;
    private CommandTable table;
    private final byte[] getUpper = bytes("GET");
    private final byte[] setLower = bytes("set");
    private final byte[] hsetMixed = bytes("hSet");
    private final byte[] zrangebyscore = bytes("ZRANGEBYSCORE");
    private final byte[] unknown = bytes("NOSUCHCOMMAND");

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    @Setup
    public void setUp() {
        // the table as the engine builds it: every family registered
        server = new InProcessServer();
        table = server.engine.commands();
        if (table.lookup(getUpper, 0, getUpper.length) == null || table.lookup(unknown, 0, unknown.length) != null) {
            throw new IllegalStateException("command table lookups are wrong");
        }
    }

    @TearDown
    public void tearDown() {
        server.close();
    }

    @Benchmark
    public Command getUpper() {
        return table.lookup(getUpper, 0, getUpper.length);
    }

    @Benchmark
    public Command setLower() {
        return table.lookup(setLower, 0, setLower.length);
    }

    @Benchmark
    public Command hsetMixedCase() {
        return table.lookup(hsetMixed, 0, hsetMixed.length);
    }

    @Benchmark
    public Command zrangebyscore() {
        return table.lookup(zrangebyscore, 0, zrangebyscore.length);
    }

    @Benchmark
    public Command miss() {
        return table.lookup(unknown, 0, unknown.length);
    }
}
