package io.spinel.core.keyspace;

import io.spinel.core.util.Bytes;
import io.spinel.core.util.NativeMemory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The keyspace's undo log (a forked Lua debugging session, SCRIPT DEBUG YES): after
 * {@link Keyspace#undoChanges} every database holds what it held at {@link Keyspace#recordChanges},
 * whatever happened in between and in whatever order: changes in place, new and deleted keys,
 * expires, flushes and swaps of whole databases, BIG values, a snapshot running meanwhile.
 */
class UndoLogTest {
    private Keyspace ks;

    @BeforeEach
    void keyspace() {
        ks = new Keyspace(3, Keyspace.Listener.NONE);
    }

    private static byte[] k(String s) {
        return Bytes.ascii(s);
    }

    private void set(Db db, String key, String value) {
        byte[] kb = k(key), v = k(value);
        db.remove(kb);
        db.put(kb, StringEntry.create(kb, 0, kb.length, v, 0, v.length, -1, 0));
    }

    /** A value short enough for an assertion message. */
    private static String describe(byte[] v) {
        return v.length <= 32 ? new String(v, java.nio.charset.StandardCharsets.ISO_8859_1)
                : v.length + " bytes, hash " + java.util.Arrays.hashCode(v);
    }

    /** Every database's keys, values, expires and memory estimate. */
    private String contents() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < ks.count(); i++) {
            Db db = ks.db(i);
            TreeMap<String, String> keys = new TreeMap<>();
            db.forEach(e -> keys.put(new String(Entries.key(e), java.nio.charset.StandardCharsets.ISO_8859_1),
                    (e instanceof byte[] ? describe(StringEntry.value((byte[]) e)) : e.getClass().getSimpleName())
                            + " ttl " + Entries.expire(e)));
            sb.append("db").append(i).append(' ').append(keys).append(" volatile ").append(db.volatileCount())
                    .append(" bytes ").append(db.memoryUsage()).append('\n');
        }
        return sb.toString();
    }

    @Test
    void changesFlushesAndSwapsInAnyOrderAreUndone() {
        Db db0 = ks.db(0), db1 = ks.db(1), db2 = ks.db(2);
        set(db0, "a", "x");
        set(db0, "b", "two");
        set(db1, "c", "three");
        set(db2, "d", "four");
        db0.setExpire(k("b"), 0, 1, db0.find(k("b")), 4_102_444_800_000L);
        ks.settle();
        String before = contents();

        ks.recordChanges();
        // in place (as SET does over a value of the same length), then a new key and a deleted one
        byte[] a = (byte[]) db0.lookupWrite(k("a"), 0, 1);
        assertThat(StringEntry.canOverwrite(a, k("y"), 0, 1, -1)).isTrue();
        StringEntry.overwrite(a, k("y"), 0, 1, -1);
        set(db0, "new", "x");
        db0.remove(k("b"));
        // the same key changed again after its database swapped: the other table's "a" is new
        ks.swap(0, 1);
        set(db0, "a", "in the swapped table");
        set(db1, "a", "again");
        // a flush, then writes into the emptied table, then a key of it changed once more
        db1.clear();
        set(db1, "a", "after the flush");
        db2.setExpire(k("d"), 0, 1, db2.find(k("d")), 4_102_444_800_000L);
        ks.swap(1, 2);
        db2.clear();
        ks.settle();
        assertThat(contents()).isNotEqualTo(before);

        ks.undoChanges();
        assertThat(contents()).isEqualTo(before);
        // no longer recorded
        set(db0, "later", "kept");
        ks.undoChanges();
        assertThat(db0.find(k("later"))).isNotNull();
    }

    @Test
    void aFlushedTableKeepsItsBigValues() {
        org.assertj.core.api.Assumptions.assumeThat(NativeMemory.available()).isTrue();
        long blocksBefore = NativeMemory.blocksInUse();
        Db db0 = ks.db(0);
        byte[] v = new byte[50_000];
        java.util.Arrays.fill(v, (byte) 'v');
        byte[] big = StringEntry.copyToBig(k("big"), 0, 3, v, 0, v.length, -1, 0);
        ks.bigValues().adopted(big);
        db0.put(k("big"), big);
        byte[] other = StringEntry.copyToBig(k("other"), 0, 5, v, 0, v.length, -1, 0);
        ks.bigValues().adopted(other);
        db0.put(k("other"), other);
        ks.bigValues().release();
        String before = contents();

        ks.recordChanges();
        db0.remove(k("other")); // its value is copied to the heap first: its native block goes
        ks.bigValues().release();
        db0.clear();
        ks.bigValues().release();
        assertThat(NativeMemory.blocksInUse()).as("the flushed table's BIG value is kept").isEqualTo(blocksBefore + 1);
        ks.undoChanges();
        ks.bigValues().release();

        assertThat(contents()).isEqualTo(before);
        assertThat(StringEntry.value((byte[]) db0.find(k("big")))).isEqualTo(v);
        db0.clear();
        ks.bigValues().release();
        assertThat(NativeMemory.blocksInUse()).isEqualTo(blocksBefore);
    }

    @Test
    void aSnapshotRunningAcrossAFlushGoesOnRecordingTheTablesChanges() {
        Db db0 = ks.db(0);
        set(db0, "a", "x");
        set(db0, "b", "2");
        List<String> captured = new ArrayList<>();
        FrozenDb snapshot = db0.freeze((f, e) -> captured.add(new String(Entries.key(e), java.nio.charset.StandardCharsets.ISO_8859_1)));

        ks.recordChanges();
        db0.clear();
        ks.undoChanges();
        assertThat(captured).as("nothing of the snapshot's table changed").isEmpty();

        set(db0, "a", "changed after the session");
        assertThat(captured).as("the snapshot serializes the old value first").contains("a");
        snapshot.detach();
        db0.unfreeze(snapshot);
    }
}
