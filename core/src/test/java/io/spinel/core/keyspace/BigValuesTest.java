package io.spinel.core.keyspace;

import io.spinel.core.util.Bytes;
import io.spinel.core.util.NativeMemory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * When the native memory of a BIG string entry is freed: only once no table holds an entry with
 * its address, decided after the command, so that an entry taken out and stored again (under
 * another key, in another database, as a copy with a new layout) keeps its value; and not while
 * a snapshot may still read a table that a flush replaced.
 */
class BigValuesTest {
    private Keyspace ks;
    private long blocksBefore;

    @BeforeEach
    void nativeMemory() {
        assumeThat(NativeMemory.available()).as("java.base/jdk.internal.misc opened (surefire's argLine)").isTrue();
        ks = new Keyspace(2, Keyspace.Listener.NONE);
        blocksBefore = NativeMemory.blocksInUse();
    }

    /** A BIG entry for key k holding value v, as SET makes it from a received argument. */
    private byte[] big(String k, byte[] v) {
        long address = NativeMemory.allocate(v.length);
        NativeMemory.copyFrom(v, 0, address, v.length);
        byte[] key = Bytes.ascii(k);
        byte[] e = StringEntry.adoptBig(key, 0, key.length, address, v.length, -1, 0);
        ks.bigValues().adopted(e);
        return e;
    }

    private static byte[] value(int n) {
        byte[] v = new byte[n];
        for (int i = 0; i < n; i++) v[i] = (byte) (i * 31);
        return v;
    }

    @Test
    void anEntryMovedWithinACommandKeepsItsMemory() {
        Db db0 = ks.db(0), db1 = ks.db(1);
        byte[] e = big("a", value(40_000));
        db0.put(Bytes.ascii("a"), e);
        ks.bigValues().release();

        // RENAME's steps without the lookup that would move the value to the heap first
        db0.remove(Bytes.ascii("a"));
        byte[] renamed = StringEntry.withKey(e, Bytes.ascii("b"), 0, 1);
        db0.put(Bytes.ascii("b"), renamed);
        // MOVE's: the same array into another database
        db0.remove(Bytes.ascii("b"));
        db1.put(Bytes.ascii("b"), renamed);
        // EXPIRE's: a copy with room for the expire replaces it
        db1.setExpire(Bytes.ascii("b"), 0, 1, renamed, Long.MAX_VALUE);
        ks.bigValues().release();

        assertThat(NativeMemory.blocksInUse()).isEqualTo(blocksBefore + 1);
        assertThat(ks.bigValues().count()).isEqualTo(1);
        assertThat(StringEntry.value((byte[]) db1.find(Bytes.ascii("b")))).isEqualTo(value(40_000));

        db1.remove(Bytes.ascii("b"));
        ks.bigValues().release();
        assertThat(NativeMemory.blocksInUse()).isEqualTo(blocksBefore);
        assertThat(ks.bigValues().count()).isZero();
        assertThat(ks.bigValues().bytes()).isZero();
    }

    @Test
    void anEntryStoredAndDroppedAgainInOneScriptIsFreedOnce() {
        Db db0 = ks.db(0);
        byte[] e = big("a", value(50_000));
        db0.put(Bytes.ascii("a"), e);
        db0.remove(Bytes.ascii("a"));
        db0.put(Bytes.ascii("c"), StringEntry.withKey(e, Bytes.ascii("c"), 0, 1));
        db0.remove(Bytes.ascii("c"));
        ks.bigValues().release();
        assertThat(NativeMemory.blocksInUse()).isEqualTo(blocksBefore);
        assertThat(ks.bigValues().count()).isZero();
    }

    @Test
    void aReadThatNeedsTheBytesOnTheHeapMovesTheValueThere() {
        Db db0 = ks.db(0);
        db0.put(Bytes.ascii("a"), big("a", value(45_000)));
        Object read = db0.lookupRead(Bytes.ascii("a"), 0, 1);
        assertThat(StringEntry.isBig((byte[]) read)).isFalse();
        assertThat(StringEntry.value((byte[]) read)).isEqualTo(value(45_000));
        assertThat(db0.find(Bytes.ascii("a"))).isSameAs(read);
        ks.bigValues().release();
        assertThat(NativeMemory.blocksInUse()).isEqualTo(blocksBefore);
        assertThat(ks.bigValues().count()).isZero();
    }

    @Test
    void aFlushDuringASnapshotFreesOnlyWhenTheSnapshotEnds() {
        Db db0 = ks.db(0);
        db0.put(Bytes.ascii("a"), big("a", value(33_000)));
        db0.put(Bytes.ascii("b"), big("b", value(34_000)));
        FrozenDb snapshot = db0.freeze((f, e) -> { });
        db0.clear();
        ks.bigValues().release();
        assertThat(ks.bigValues().count()).isZero();
        // counted as blocks: 33,000 and 34,000 bytes with a 16-byte header, each in 17 steps of 2 KB
        assertThat(ks.bigValues().deferredBytes()).isEqualTo(2 * 17 * 2048);
        // the snapshot still reads the old table's entries, values included
        for (Object e = snapshot.next(); e != null; e = snapshot.next()) {
            assertThat(StringEntry.value((byte[]) e)).hasSizeBetween(33_000, 34_000);
        }
        assertThat(NativeMemory.blocksInUse()).isEqualTo(blocksBefore + 2);
        snapshot.detach();
        assertThat(ks.bigValues().deferredBytes()).isZero();
        assertThat(NativeMemory.blocksInUse()).isEqualTo(blocksBefore);
    }
}
