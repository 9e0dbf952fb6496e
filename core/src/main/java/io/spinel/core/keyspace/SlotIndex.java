package io.spinel.core.keyspace;

import io.spinel.core.cluster.KeySlot;
import io.spinel.core.util.Bytes;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The keys of one database's table grouped by cluster hash slot (Redis's slots_to_keys), kept by
 * {@link Db} in cluster mode only: CLUSTER COUNTKEYSINSLOT reads a count, CLUSTER GETKEYSINSLOT
 * and the deletion of a lost slot's keys walk only that slot's keys.
 *
 * <p>Why this shape. A cluster node holds millions of keys, so the cost per key decides: Redis
 * links each key into a per-slot list through two pointers in its dict entry (16 bytes a key).
 * Here each slot has a small open-addressing set of references to the table's own entries, which
 * carry their key: one 4-byte reference per set slot, filled to between 3/8 and 3/4 as it grows
 * (down to 1/8 as it shrinks), no node objects and no copy of the key. With the per-slot counts
 * and array headers (see {@link #memoryUsage}) that is 8.4 bytes a key measured for a million
 * keys over all 16384 slots; by the same sizing rules about 6.7 for ten million and 11 for
 * 100,000, where the fixed 128 KB weighs more (all with 4-byte compressed references, as the
 * tables are counted; a heap over 32 GB doubles the reference part). The set is probed by the
 * hash the table already computed for the key (same seed: the index is made for
 * one table and moves with it, on SWAPDB, FLUSHDB's undo and a swapdb load), and members are
 * found by identity, never by comparing keys: {@link Db} always knows the entry it adds, replaces
 * or removes. Nothing is allocated until the first key arrives, and a slot's set goes away with
 * its last key, so an empty database (cluster mode keeps 16 of them) costs a few words.
 */
final class SlotIndex {
    /** Smallest set: holds up to 3 references. */
    private static final int MIN_CAPACITY = 4;
    /** Bytes of an array's header (mark word, class pointer, length). */
    private static final long ARRAY_HEADER = 16;

    /** The seed of the table this index belongs to: what its entries' hashes are computed with. */
    private final long seed;
    /** Per slot, the set of its entries (null slots are empty); null until the first key. */
    private Object[][] sets;
    private int[] counts;
    /** Sum of the sets' lengths and the number of sets, for {@link #memoryUsage}. */
    private long setSlots;
    private int setCount;

    SlotIndex(long seed) {
        this.seed = seed;
    }

    private long hashOf(Object e) {
        return Bytes.hash(seed, Entries.keyArray(e), Entries.keyOffset(e), Entries.keyLength(e));
    }

    static int slotOf(Object e) {
        return KeySlot.slot(Entries.keyArray(e), Entries.keyOffset(e), Entries.keyLength(e));
    }

    int count(int slot) {
        return counts == null ? 0 : counts[slot];
    }

    /** Entry e, whose key (in slot {@code slot}) the table hashes to h, entered the table. */
    void add(int slot, long h, Object e) {
        if (sets == null) {
            sets = new Object[KeySlot.SLOTS][];
            counts = new int[KeySlot.SLOTS];
        }
        Object[] s = sets[slot];
        int n = counts[slot];
        if (s == null) {
            s = resize(slot, MIN_CAPACITY);
        } else if ((n + 1) * 4L > s.length * 3L) {
            s = resize(slot, s.length * 2);
        }
        insert(s, h, e);
        counts[slot] = n + 1;
    }

    /** Entry old left the table and e took its place under the same key (slot, hash h). */
    void replace(int slot, long h, Object old, Object e) {
        Object[] s = sets == null ? null : sets[slot];
        s[indexOf(s, h, old)] = e;
    }

    /** Entry e, whose key (in slot {@code slot}) hashes to h, left the table. */
    void remove(int slot, long h, Object e) {
        Object[] s = sets == null ? null : sets[slot];
        int n = counts == null ? 0 : counts[slot] - 1;
        int hole = indexOf(s, h, e);
        counts[slot] = n;
        if (n == 0) {
            setSlots -= s.length;
            setCount--;
            sets[slot] = null;
            return;
        }
        // backward shift: a later member of the run moves into the hole when the hole lies
        // between its home and where it is, so no probe path is broken and no tombstone is left
        int m = s.length - 1;
        int j = hole;
        while (true) {
            j = (j + 1) & m;
            Object x = s[j];
            if (x == null) break;
            int home = (int) hashOf(x) & m;
            if (hole <= j ? (home <= hole || home > j) : (home <= hole && home > j)) {
                s[hole] = x;
                hole = j;
            }
        }
        s[hole] = null;
        // a slot whose keys were mostly deleted gives back its memory
        if (s.length > MIN_CAPACITY && n * 8L < s.length) resize(slot, s.length / 2);
    }

    /** Copies of up to max keys of the slot, in no particular order. */
    List<byte[]> keys(int slot, int max) {
        int n = Math.min(count(slot), Math.max(max, 0));
        List<byte[]> out = new ArrayList<>(n);
        if (n == 0) return out;
        for (Object e : sets[slot]) {
            if (e == null) continue;
            int off = Entries.keyOffset(e);
            out.add(Arrays.copyOfRange(Entries.keyArray(e), off, off + Entries.keyLength(e)));
            if (out.size() == n) break;
        }
        return out;
    }

    /** Estimated heap bytes: the per-slot arrays and counts once there are keys, and every set. */
    long memoryUsage() {
        if (sets == null) return 0;
        return 2 * (ARRAY_HEADER + KeySlot.SLOTS * 4L) + setCount * ARRAY_HEADER + setSlots * 4;
    }

    /** A new set for the slot of the given capacity, holding the slot's current members. */
    private Object[] resize(int slot, int capacity) {
        Object[] old = sets[slot];
        Object[] s = new Object[capacity];
        if (old != null) {
            for (Object e : old) if (e != null) insert(s, hashOf(e), e);
            setSlots -= old.length;
        } else {
            setCount++;
        }
        setSlots += capacity;
        sets[slot] = s;
        return s;
    }

    private static void insert(Object[] s, long h, Object e) {
        int m = s.length - 1;
        int i = (int) h & m;
        while (s[i] != null) i = (i + 1) & m;
        s[i] = e;
    }

    /**
     * Where entry e (hash h) is in set s. The table holds the entry, so the index must: if it does
     * not, a path that adds or removes keys bypassed it and the index is wrong from then on.
     */
    private static int indexOf(Object[] s, long h, Object e) {
        if (s != null) {
            int m = s.length - 1;
            int i = (int) h & m;
            Object x;
            while ((x = s[i]) != null) {
                if (x == e) return i;
                i = (i + 1) & m;
            }
        }
        throw new IllegalStateException("a key of the table is missing from its slot index");
    }
}
