package io.spinel.bench.jmh;

import io.spinel.core.keyspace.Db;
import io.spinel.core.keyspace.KeySet;
import io.spinel.core.keyspace.Keyspace;
import io.spinel.core.keyspace.StringEntry;
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
 * The keyspace table (KeyTable through Db and KeySet) with 64Ki keys. Lookups pass the key as a
 * slice of one large array, as commands pass slices of the query buffer, and walk the keys in an
 * order unrelated to the hash so that each one is a cache miss like in a real keyspace.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class KeyTableBenchmark {
    private static final int KEYS = 1 << 16;
    private static final int KEY_LEN = 16;

    private Db db;
    private final KeySet set = new KeySet();
    /** All keys back to back, "key:000000000000" style. */
    private byte[] keys;
    /** Absent keys, same shape. */
    private byte[] missing;
    private byte[][] entries;
    /** Entries for the absent keys (an entry carries its key), for the put-then-remove benchmark. */
    private byte[][] missingEntries;
    private int i;

    @Setup
    public void setUp() {
        Keyspace keyspace = new Keyspace(1, Keyspace.Listener.NONE);
        db = keyspace.db(0);
        keys = new byte[KEYS * KEY_LEN];
        missing = new byte[KEYS * KEY_LEN];
        entries = new byte[KEYS][];
        missingEntries = new byte[KEYS][];
        byte[] value = "v".repeat(32).getBytes(StandardCharsets.US_ASCII);
        for (int k = 0; k < KEYS; k++) {
            byte[] key = String.format("key:%012d", k).getBytes(StandardCharsets.US_ASCII);
            byte[] absent = String.format("nok:%012d", k).getBytes(StandardCharsets.US_ASCII);
            System.arraycopy(key, 0, keys, k * KEY_LEN, KEY_LEN);
            System.arraycopy(absent, 0, missing, k * KEY_LEN, KEY_LEN);
            entries[k] = StringEntry.create(key, 0, KEY_LEN, value, 0, value.length, -1, keyspace.newLru());
            missingEntries[k] = StringEntry.create(absent, 0, KEY_LEN, value, 0, value.length, -1, keyspace.newLru());
            db.put(keys, k * KEY_LEN, KEY_LEN, entries[k]);
            set.add(key);
        }
        // a rehash still under way finishes during warm-up (every operation moves a few runs)
        set.rehashSome(Integer.MAX_VALUE);
        if (db.size() != KEYS || db.find(keys, 0, KEY_LEN) != entries[0]) {
            throw new IllegalStateException("table not filled");
        }
    }

    /** Next key index in a fixed pseudo-random order (odd stride: visits every key). */
    private int next() {
        return i = (i + 40_503) & (KEYS - 1);
    }

    @Benchmark
    public Object findHit() {
        return db.find(keys, next() * KEY_LEN, KEY_LEN);
    }

    /** GET's lookup: expiry check, hit statistics, LRU touch. */
    @Benchmark
    public Object lookupReadHit() {
        return db.lookupRead(keys, next() * KEY_LEN, KEY_LEN, true);
    }

    @Benchmark
    public Object lookupReadMiss() {
        return db.lookupRead(missing, next() * KEY_LEN, KEY_LEN, true);
    }

    /** The lookup of a write command before it changes a value in place. */
    @Benchmark
    public Object lookupWriteHit() {
        return db.lookupWrite(keys, next() * KEY_LEN, KEY_LEN);
    }

    /** SET of an existing key with a new entry of the same size: replace in place. */
    @Benchmark
    public Object putReplace() {
        int k = next();
        return db.put(keys, k * KEY_LEN, KEY_LEN, entries[k]);
    }

    /** A new key stored and deleted again (DEL), so the table keeps its size. */
    @Benchmark
    @OperationsPerInvocation(2)
    public Object putNewThenRemove() {
        int k = next();
        db.put(missing, k * KEY_LEN, KEY_LEN, missingEntries[k]);
        return db.remove(missing, k * KEY_LEN, KEY_LEN);
    }

    @Benchmark
    public boolean keySetContains() {
        return set.contains(keys, next() * KEY_LEN, KEY_LEN);
    }
}
