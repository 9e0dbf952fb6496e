package io.spinel.core.keyspace;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;

/**
 * What a forked Lua debugging session (SCRIPT DEBUG YES) changed in the keyspace, to be undone
 * when it ends. Redis runs such a session in a fork()ed child whose writes die with it; here the
 * session runs on the data set itself, and every database records here, before it changes, what
 * a key held (a deep copy, or that it was absent), what a FLUSHDB dropped (the table itself,
 * kept whole) and which databases SWAPDB exchanged. {@link #undo} replays that backwards.
 *
 * <p>A key is copied at its first change only: later changes are undone with it. A flush or a
 * swap of a database starts its record of keys afresh, as its table is another one from then on.
 */
public final class UndoLog {
    /** One recorded change, undone by {@link #undo}. */
    private interface Step {
        void undo(Keyspace ks);
    }

    /**
     * A key's entry before its first change: a copy, or null when the key did not exist. A BIG
     * string's copy is on the heap (its native memory goes with the entry) and goes back there.
     */
    private record KeyBefore(Db db, byte[] key, Object entry, boolean big) implements Step {
        @Override
        public void undo(Keyspace ks) {
            db.remove(key);
            if (entry == null) return;
            Object e = entry;
            if (big) {
                byte[] raw = (byte[]) entry, v = StringEntry.value(raw);
                e = StringEntry.copyToBig(key, 0, key.length, v, 0, v.length, StringEntry.expire(raw), StringEntry.lru(raw));
            }
            db.putComplete(key, e);
        }
    }

    /** A flushed database's contents, given back whole. */
    private record Flushed(Db db, Db.Contents contents) implements Step {
        @Override
        public void undo(Keyspace ks) {
            db.clear();
            db.restore(contents);
        }
    }

    /** Two databases that SWAPDB exchanged. */
    private record Swapped(int a, int b) implements Step {
        @Override
        public void undo(Keyspace ks) {
            ks.swap(a, b);
        }
    }

    private final ArrayList<Step> steps = new ArrayList<>();
    /** Keys copied in each database since its last flush or swap. */
    private final HashMap<Db, HashSet<ByteBuffer>> recorded = new HashMap<>();

    /** Entry e, stored in db, is about to change or go: a copy of it is kept (once per key). */
    void before(Db db, Object e) {
        byte[] key = Entries.key(e);
        if (firstChange(db, key)) {
            steps.add(new KeyBefore(db, key, copyOf(e), e instanceof byte[] && StringEntry.isBig((byte[]) e)));
        }
    }

    /** The key did not exist and is being added. */
    void added(Db db, byte[] k, int off, int len) {
        byte[] key = java.util.Arrays.copyOfRange(k, off, off + len);
        if (firstChange(db, key)) steps.add(new KeyBefore(db, key, null, false));
    }

    /** db is being emptied: its contents are kept as they are, to be put back. */
    void flushed(Db db, Db.Contents contents) {
        steps.add(new Flushed(db, contents));
        recorded.remove(db);
    }

    void swapped(Db a, Db b) {
        steps.add(new Swapped(a.id(), b.id()));
        recorded.remove(a);
        recorded.remove(b);
    }

    private boolean firstChange(Db db, byte[] key) {
        return recorded.computeIfAbsent(db, d -> new HashSet<>()).add(ByteBuffer.wrap(key));
    }

    /**
     * A copy that no later change of e reaches: packed strings are changed in place (INCR,
     * APPEND), a BIG one's value lives in native memory that goes when the entry does.
     */
    private static Object copyOf(Object e) {
        if (e instanceof byte[]) {
            byte[] s = (byte[]) e;
            return StringEntry.isBig(s) ? StringEntry.toRaw(s) : s.clone();
        }
        DbObject o = (DbObject) e;
        return o.copy().asEntry(Entries.key(e), o.expire(), o.lru());
    }

    /** Whether anything was recorded. */
    public boolean isEmpty() {
        return steps.isEmpty();
    }

    /**
     * Puts the keyspace back as it was when this log started (the log must be detached from the
     * keyspace first, or the undoing would be recorded).
     */
    void undo(Keyspace ks) {
        for (int i = steps.size() - 1; i >= 0; i--) steps.get(i).undo(ks);
        steps.clear();
        recorded.clear();
        ks.settle();
    }
}
