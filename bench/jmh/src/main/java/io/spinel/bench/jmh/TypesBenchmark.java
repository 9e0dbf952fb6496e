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
 * The commands of redis-benchmark's tests beyond GET/SET that the side-by-side tables compare:
 * ZADD into a 100k-member sorted set, PFADD, PFCOUNT, SETBIT, BITCOUNT, GEOADD and GEOSEARCH,
 * from request bytes to reply bytes, with random members the way redis-benchmark's
 * __rand_int__ makes them.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class TypesBenchmark {
    private static final int VARIANTS = 1024;

    private InProcessServer server;
    private byte[][] zadd = new byte[VARIANTS][];
    private byte[][] pfadd = new byte[VARIANTS][];
    private byte[][] setbit = new byte[VARIANTS][];
    private byte[][] geoadd = new byte[VARIANTS][];
    private byte[] pfcount;
    private byte[] bitcount;
    private byte[] geosearch;
    private byte[] lrange600;
    private byte[] lrange100;
    private byte[] mset;
    private byte[] spop;
    private byte[] sadd;
    private byte[] hsetNew;
    private int i;

    @Setup
    public void setUp() {
        server = new InProcessServer();
        java.util.SplittableRandom r = new java.util.SplittableRandom(7);
        for (int k = 0; k < 100_000; k++) server.call("ZADD", "zset", Integer.toString(k), "element:" + k);
        for (int k = 0; k < 100_000; k++) server.call("PFADD", "hll", Integer.toString(k));
        for (int k = 0; k < 100_000; k += 3) server.call("SETBIT", "bits", Integer.toString(k), "1");
        for (int k = 0; k < 10_000; k++) {
            server.call("GEOADD", "geo", Double.toString(13 + r.nextDouble()), Double.toString(38 + r.nextDouble()), "m:" + k);
        }
        for (int k = 0; k < VARIANTS; k++) {
            int n = r.nextInt(100_000);
            zadd[k] = InProcessServer.encode("ZADD", "zset", Integer.toString(r.nextInt(100_000)), "element:" + n);
            pfadd[k] = InProcessServer.encode("PFADD", "hll", Integer.toString(n));
            setbit[k] = InProcessServer.encode("SETBIT", "bits", Integer.toString(n), "1");
            geoadd[k] = InProcessServer.encode("GEOADD", "geo", "13.361389", "38.115556", "m:" + (n % 10_000));
        }
        for (int k = 0; k < 600; k++) server.call("RPUSH", "list", "xxx");
        lrange600 = InProcessServer.encode("LRANGE", "list", "0", "599");
        lrange100 = InProcessServer.encode("LRANGE", "list", "0", "99");
        String[] msetArgs = new String[21];
        msetArgs[0] = "MSET";
        for (int k = 0; k < 10; k++) {
            msetArgs[1 + 2 * k] = "key:__rand_int__" + k;
            msetArgs[2 + 2 * k] = "xxx";
        }
        mset = InProcessServer.encode(msetArgs);
        sadd = InProcessServer.encode("SADD", "myset", "element:1");
        spop = InProcessServer.encode("SPOP", "myset");
        hsetNew = InProcessServer.encode("HSET", "myhash", "element:1", "xxx");
        pfcount = InProcessServer.encode("PFCOUNT", "hll");
        bitcount = InProcessServer.encode("BITCOUNT", "bits");
        geosearch = InProcessServer.encode("GEOSEARCH", "geo", "FROMLONLAT", "13.5", "38.5", "BYRADIUS", "5", "km", "ASC", "COUNT", "10");
        server.expect(pfcount, server.call("PFCOUNT", "hll"));
        if (!server.call("GEOSEARCH", "geo", "FROMLONLAT", "13.5", "38.5", "BYRADIUS", "5", "km", "ASC", "COUNT", "10").startsWith("*")) {
            throw new IllegalStateException("GEOSEARCH failed");
        }
    }

    @TearDown
    public void tearDown() {
        server.close();
    }

    private int next() {
        return i = (i + 1) & (VARIANTS - 1);
    }

    @Benchmark
    public long zadd() {
        server.feed(zadd[next()]);
        return server.connection.bytes;
    }

    @Benchmark
    public long pfadd() {
        server.feed(pfadd[next()]);
        return server.connection.bytes;
    }

    @Benchmark
    public long pfcount() {
        server.feed(pfcount);
        return server.connection.bytes;
    }

    @Benchmark
    public long setbit() {
        server.feed(setbit[next()]);
        return server.connection.bytes;
    }

    @Benchmark
    public long bitcount() {
        server.feed(bitcount);
        return server.connection.bytes;
    }

    @Benchmark
    public long geoadd() {
        server.feed(geoadd[next()]);
        return server.connection.bytes;
    }

    @Benchmark
    public long lrange600() {
        server.feed(lrange600);
        return server.connection.bytes;
    }

    @Benchmark
    public long lrange100() {
        server.feed(lrange100);
        return server.connection.bytes;
    }

    @Benchmark
    public long mset() {
        server.feed(mset);
        return server.connection.bytes;
    }

    /** SADD then SPOP of the same member: the set stays as it was. */
    @Benchmark
    public long saddSpop() {
        server.feed(sadd);
        server.feed(spop);
        return server.connection.bytes;
    }

    @Benchmark
    public long hset() {
        server.feed(hsetNew);
        return server.connection.bytes;
    }

    @Benchmark
    public long geosearch() {
        server.feed(geosearch);
        return server.connection.bytes;
    }
}
