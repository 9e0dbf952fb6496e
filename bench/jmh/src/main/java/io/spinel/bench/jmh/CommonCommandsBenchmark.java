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

import java.util.concurrent.TimeUnit;

/**
 * The everyday commands of a cache or a small data service beyond the six of issue 6's
 * allocation target, each on data of the size such services keep (10 string keys, one with a
 * TTL, a counter, a 5-field hash, a 5-member set, a 10-member sorted set, a 10-element list), in
 * steady state: reads, and writes that leave the data the same shape. What one allocates is
 * young-generation garbage, and in a workload of only such commands young collections (and
 * their pauses) happen only because of it.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@State(Scope.Thread)
public class CommonCommandsBenchmark {
    @Param({
        "MGET k1 k2 k3 k4 k5 k6 k7 k8 k9 k10",
        "EXISTS k1",
        "TTL kt",
        "EXPIRE kt 1000",
        "SETEX k1 1000 value-0001",
        "SET k1 value-0001 XX GET",
        "INCRBY counter 3",
        "STRLEN k1",
        "GETRANGE k1 0 3",
        "TYPE k1",
        "DEL missing",
        "HGET h f1",
        "HMGET h f1 f2 f3",
        "HGETALL h",
        "HINCRBY h n 1",
        "HEXISTS h f1",
        "SISMEMBER s m1",
        "SMEMBERS s",
        "ZSCORE z m1",
        "ZRANK z m5",
        "ZRANGE z 0 9 WITHSCORES",
        "ZINCRBY z 1 m1",
        "ZRANGEBYSCORE z -inf +inf LIMIT 0 5",
        "LINDEX l 5",
        "LRANGE l 0 9",
        "LSET l 0 xxx",
        "GETEX k1 EX 1000",
        "SETRANGE k1 0 v",
        "TOUCH k1",
        "EXPIRETIME kt",
        "OBJECT ENCODING k1",
        "HSETNX h f1 x",
        "HDEL h missing",
        "HKEYS h",
        "HSTRLEN h f1",
        "SADD s m1",
        "SMISMEMBER s m1 m9",
        "ZCOUNT z 2 8",
        "ZREVRANGE z 0 4",
        "ZREVRANK z m3",
        "ZMSCORE z m1 m2",
        "ZLEXCOUNT z - +",
        "LMOVE l l LEFT RIGHT",
        "LPOS l e5",
        "LLEN l",
        "SCAN 0 COUNT 20",
        "HSCAN h 0",
        "SSCAN s 0",
        "ZSCAN z 0",
        "XADD st MAXLEN 100 * f v",
        "XADD st MAXLEN ~ 100 * f v",
        "XLEN st",
        "XRANGE st - + COUNT 10",
        "XREVRANGE st + - COUNT 10",
        "XREAD COUNT 10 STREAMS st 0",
        "XREADGROUP GROUP g c COUNT 10 STREAMS st 0",
        "XPENDING st g",
        "XACK st g 0-1",
        "XAUTOCLAIM st g c 0 0 COUNT 10",
        "XCLAIM sc g c 0 1-1 1-2 1-3 1-4 1-5 1-6 1-7 1-8 1-9 1-10",
        "XCLAIM sc g c 0 1-1 1-2 1-3 1-4 1-5 1-6 1-7 1-8 1-9 1-10 JUSTID",
        "XPENDING st g - + 10",
        "XINFO STREAM st",
    })
    public String command;

    private InProcessServer server;
    private byte[] request;

    @Setup
    public void setUp() {
        server = new InProcessServer();
        for (int k = 1; k <= 10; k++) server.call("SET", "k" + k, String.format("value-%04d", k));
        server.call("SET", "kt", "v", "EX", "100000");
        server.call("SET", "counter", "100");
        server.call("HSET", "h", "f1", "a", "f2", "b", "f3", "c", "f4", "d", "n", "1");
        server.call("SADD", "s", "m1", "m2", "m3", "m4", "m5");
        for (int k = 1; k <= 10; k++) server.call("ZADD", "z", Integer.toString(k), "m" + k);
        for (int k = 1; k <= 10; k++) server.call("RPUSH", "l", "e" + k);
        // a stream of 100 entries with a group whose consumer has read (not acknowledged) them all
        for (int k = 1; k <= 100; k++) server.call("XADD", "st", "*", "f", "v" + k);
        server.call("XGROUP", "CREATE", "st", "g", "0");
        server.call("XREADGROUP", "GROUP", "g", "c", "STREAMS", "st", ">");
        // ten entries of known IDs, pending for c, for XCLAIM
        for (int k = 1; k <= 10; k++) server.call("XADD", "sc", "1-" + k, "f", "v" + k);
        server.call("XGROUP", "CREATE", "sc", "g", "0");
        server.call("XREADGROUP", "GROUP", "g", "c", "STREAMS", "sc", ">");
        request = InProcessServer.encode(command.split(" "));
        String reply = server.call(command.split(" "));
        if (reply.startsWith("-")) throw new IllegalStateException(command + " replied " + reply);
    }

    @TearDown
    public void tearDown() {
        server.close();
    }

    @Benchmark
    public long run() {
        server.feed(request);
        return server.connection.bytes;
    }
}
