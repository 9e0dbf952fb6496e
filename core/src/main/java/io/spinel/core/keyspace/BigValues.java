package io.spinel.core.keyspace;

import io.spinel.core.util.NativeMemory;

import java.util.ArrayList;

/**
 * The native memory of BIG string entries ({@link StringEntry#BIG}) and when it is freed.
 *
 * <p>An entry can leave its table and come back within one command or script: RENAME and MOVE
 * remove it and store it (or a copy of its array, holding the same address) under another key or
 * in another database, EXPIRE may store a copy with a new layout, SWAPDB moves whole tables. So a
 * BIG entry leaving a table is only noted ({@link #dropped}), and {@link #release}, after the
 * command, frees its memory unless an entry stored since the last release with the same address
 * is in a table now. Nothing else holds an address: replies, snapshots and persistence copy the
 * bytes while the executor runs them (a snapshot serializes an entry before it changes or goes),
 * except a snapshot still reading the table that FLUSHDB replaced, which it goes on writing;
 * while any snapshot is running, frees wait until the last one ends.
 *
 * <p>Executor thread only.
 */
public final class BigValues {
    private final Keyspace keyspace;
    /** Native bytes owned by entries (freed or deferred ones excluded). */
    private long bytes;
    private long count;
    /** BIG entries that left a table since the last release. */
    private final ArrayList<byte[]> dropped = new ArrayList<>();
    /** BIG entries stored in a table since the last release. */
    private final ArrayList<byte[]> stored = new ArrayList<>();
    /** Addresses no entry holds, waiting for the running snapshots to end. */
    private long[] deferred = new long[16];
    private int deferredCount;
    private long deferredBytes;
    /** Frozen databases (snapshots) not yet detached. */
    private int frozen;

    BigValues(Keyspace keyspace) {
        this.keyspace = keyspace;
    }

    /** Native bytes of all BIG values in the keyspace. */
    public long bytes() {
        return bytes;
    }

    /** How many BIG values the keyspace holds. */
    public long count() {
        return count;
    }

    /** Native bytes no entry holds that wait for a snapshot to end before they are freed. */
    public long deferredBytes() {
        return deferredBytes;
    }

    /** A new BIG entry took over its native memory (SET adopting a received value). */
    public void adopted(byte[] e) {
        bytes += NativeMemory.footprint(StringEntry.bigLength(e));
        count++;
    }

    /**
     * Frees the native memory of an entry that was made but never stored in a table (a loaded
     * key that had expired, a load given up half-way). Any thread: nothing counts it yet.
     */
    public static void freeUnstored(Object e) {
        if (e instanceof byte[] && StringEntry.isBig((byte[]) e)) NativeMemory.free(StringEntry.bigAddress((byte[]) e));
    }

    void stored(byte[] e) {
        stored.add(e);
    }

    /**
     * A BIG entry left its table, or an adopted one will not be stored after all (RESTORE of a key
     * already expired): its memory is freed after the command unless a table holds it again.
     */
    public void dropped(byte[] e) {
        dropped.add(e);
    }

    void snapshotStarted() {
        frozen++;
    }

    void snapshotEnded() {
        if (--frozen == 0 && deferredCount > 0) {
            for (int i = 0; i < deferredCount; i++) NativeMemory.free(deferred[i]);
            deferredCount = 0;
            deferredBytes = 0;
        }
    }

    /**
     * A synchronous FLUSHALL/FLUSHDB: once its values are freed, the freed blocks kept for reuse
     * go back to malloc at once instead of over 10 s, as Redis purges jemalloc's pages then.
     */
    public void purgeAfterRelease() {
        purge = true;
    }

    private boolean purge;

    /** Frees the memory of the dropped entries that no table holds any more (after a command). */
    public void release() {
        if (dropped.isEmpty()) {
            stored.clear();
            purgeIfAsked();
            return;
        }
        for (int i = 0, n = dropped.size(); i < n; i++) {
            byte[] d = dropped.get(i);
            if (d == null) continue;
            long address = StringEntry.bigAddress(d);
            if (inTable(address)) continue;
            // the same address may have been dropped twice (RENAME then DEL): free it once
            for (int j = i + 1; j < n; j++) {
                byte[] later = dropped.get(j);
                if (later != null && StringEntry.bigAddress(later) == address) dropped.set(j, null);
            }
            free(address, StringEntry.bigLength(d));
        }
        dropped.clear();
        stored.clear();
        purgeIfAsked();
    }

    private void purgeIfAsked() {
        if (purge) {
            purge = false;
            NativeMemory.releaseKept();
        }
    }

    /** Whether an entry stored since the last release, holding this address, is in a table now. */
    private boolean inTable(long address) {
        for (int i = 0, n = stored.size(); i < n; i++) {
            byte[] s = stored.get(i);
            if (StringEntry.bigAddress(s) != address) continue;
            int ko = StringEntry.keyOffset(s);
            int kl = StringEntry.keyLength(s);
            for (int db = 0; db < keyspace.count(); db++) {
                if (keyspace.db(db).find(s, ko, kl) == s) return true;
            }
        }
        return false;
    }

    private void free(long address, int length) {
        long footprint = NativeMemory.footprint(length);
        bytes -= footprint;
        count--;
        if (frozen == 0) {
            NativeMemory.free(address);
            return;
        }
        if (deferredCount == deferred.length) deferred = java.util.Arrays.copyOf(deferred, deferredCount * 2);
        deferred[deferredCount++] = address;
        deferredBytes += footprint;
    }
}
