package io.spinel.core.keyspace;

/**
 * A database as it was when a snapshot started (a point-in-time view of its slots, see
 * {@link KeyTable.Frozen}), with the callback that serializes an entry before the executor
 * changes it. The copy stays attached to the table it was made from, so it follows SWAPDB; the
 * records it produces keep the database number of the moment it was made.
 */
public final class FrozenDb {
    /** Serializes an entry of the snapshot now, before it changes or disappears. */
    public interface Capture {
        void capture(FrozenDb db, Object entry);
    }

    private final int dbIndex;
    private final KeyTable.Frozen slots;
    private final Capture capture;
    private final int size;
    private final int volatileSize;
    /** Told when this copy is detached: frees of BIG values wait for that. */
    private BigValues bigValues;
    private boolean detached;

    FrozenDb(int dbIndex, KeyTable.Frozen slots, Capture capture, int size, int volatileSize, BigValues bigValues) {
        this.bigValues = bigValues;
        bigValues.snapshotStarted();
        this.dbIndex = dbIndex;
        this.slots = slots;
        this.capture = capture;
        this.size = size;
        this.volatileSize = volatileSize;
    }

    /** The database number when the snapshot started. */
    public int dbIndex() {
        return dbIndex;
    }

    /** Keys when the snapshot started (for RESIZEDB). */
    public int size() {
        return size;
    }

    /** Keys with an expire when the snapshot started (for RESIZEDB). */
    public int volatileSize() {
        return volatileSize;
    }

    /** Entries not serialized yet. */
    public int pending() {
        return slots.pending();
    }

    /** Whether {@link #detach} was called. */
    boolean isDetached() {
        return detached;
    }

    /** The snapshot is over (finished or abandoned): its table stops keeping anything for it. */
    public void detach() {
        detached = true;
        slots.detach();
        if (bigValues != null) {
            bigValues.snapshotEnded();
            bigValues = null;
        }
    }

    /** The next entry to serialize in slot order (taken), or null when all are done. */
    public Object next() {
        return slots.next();
    }

    /** Called before entry e (key hash h) changes: serializes it first if it is still pending. */
    void beforeChange(long h, Object e) {
        if (slots.take(h, e)) capture.capture(this, e);
    }
}
