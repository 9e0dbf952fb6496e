package io.spinel.core.keyspace;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * Open-addressing hash table of entries that carry their own key (Redis's dict, reshaped for the
 * JVM): one reference per slot and one tag byte per slot, no node objects. Linear probing with
 * backward-shift deletion keeps every element within an unbroken run that starts at its home
 * slot, which is what makes the two harder properties simple:
 *
 * <ul>
 *   <li><b>Incremental rehash.</b> Growing allocates a second table and moves whole runs (a run
 *       is a maximal stretch of occupied slots, so removing one never breaks another's probe
 *       path) a few at a time on each operation and from the cron, never stopping the world.</li>
 *   <li><b>Stateless SCAN.</b> The cursor walks home buckets in Redis's reverse-binary order;
 *       visiting a bucket means walking its run and taking the elements whose home it is. An
 *       element present for the whole scan is returned at least once, across resizes.</li>
 * </ul>
 *
 * <p>The tag byte holds 7 hash bits (high bit set, 0 means empty), so probing mostly reads the
 * dense tag array and touches an entry only on a likely match. Subclasses say how to get an
 * entry's key and hash.
 */
public abstract class KeyTable {
    private static final int MIN_CAPACITY = 8;

    // Table A: the only table, or the old one while rehashing.
    private Object[] slots;
    private byte[] tags;
    private int mask;
    private int sizeA;
    // Table B: the new table while rehashing, null otherwise.
    private Object[] slotsB;
    private byte[] tagsB;
    private int maskB;
    private int sizeB;
    /** Next slot of A to migrate; -1 when not rehashing. */
    private int rehashIdx = -1;
    /** A snapshot's view of this table while one lasts (see {@link #freeze()}), else null. */
    private Frozen frozen;
    /**
     * This table's own hash seed. With one seed for every table, a table filled in another's
     * slot order (DEBUG RELOAD or DEBUG LOADAOF of a file this process wrote, a collection built
     * by walking another) gets its elements grouped by home slot, which linear probing turns
     * into long probes: a 1.2M-key AOF took 45 s to replay in the process that wrote it, 1.5 s
     * with a seed per table.
     */
    private final long seed;

    /** The hash of key k in this table, what {@link #get}, {@link #put} and {@link #remove} take. */
    public final long hash(byte[] k, int off, int len) {
        return io.spinel.core.util.Bytes.hash(seed, k, off, len);
    }

    protected KeyTable() {
        this(KeyHash.tableSeed());
    }

    /** A table hashing with the seed of another (a database's keys with expires share its table's hashes). */
    protected KeyTable(long seed) {
        this.seed = seed;
        clear();
    }

    /** The seed this table hashes with (see {@link #hash}). */
    public final long seed() {
        return seed;
    }

    /** Whether entry e has the key k[off, off+len). */
    protected abstract boolean matches(Object e, byte[] k, int off, int len);

    /** The hash of entry e's key, as {@link #hash} computes it for the key bytes. */
    protected abstract long hashOf(Object e);

    public final int size() {
        return sizeA + sizeB;
    }

    public final boolean isRehashing() {
        return rehashIdx >= 0;
    }

    /** Total slots allocated (for memory accounting and DEBUG HTSTATS-like output). */
    public final int capacity() {
        return slots.length + (slotsB == null ? 0 : slotsB.length);
    }

    /**
     * DEBUG HTSTATS's text for this table, in Redis's dictGetStats form: the main table, and the
     * new one while rehashing ("rehashing target"). A slot's "chain" is the elements whose home
     * it is (where Redis chains them; here they lie in the run that starts there).
     */
    public final void appendStats(StringBuilder sb) {
        appendStats(sb, 0, slots, mask, sizeA);
        if (slotsB != null) appendStats(sb, 1, slotsB, maskB, sizeB);
    }

    private static final int STATS_LENGTHS = 50;

    private void appendStats(StringBuilder sb, int which, Object[] s, int m, int used) {
        String name = which == 0 ? "main hash table" : "rehashing target";
        if (used == 0) {
            sb.append("Hash table ").append(which).append(" stats (").append(name).append("):\n")
                    .append("No stats available for empty dictionaries\n");
            return;
        }
        int[] chain = new int[s.length];
        for (Object e : s) if (e != null) chain[(int) hashOf(e) & m]++;
        long[] lengths = new long[STATS_LENGTHS];
        long slotsUsed = 0, maxChain = 0, total = 0;
        for (int n : chain) {
            lengths[Math.min(n, STATS_LENGTHS - 1)]++;
            if (n == 0) continue;
            slotsUsed++;
            maxChain = Math.max(maxChain, n);
            total += n;
        }
        sb.append("Hash table ").append(which).append(" stats (").append(name).append("):\n")
                .append(" table size: ").append(s.length).append('\n')
                .append(" number of elements: ").append(used).append('\n')
                .append(" different slots: ").append(slotsUsed).append('\n')
                .append(" max chain length: ").append(maxChain).append('\n')
                .append(" avg chain length (counted): ").append(String.format(java.util.Locale.ROOT, "%.2f", (float) total / slotsUsed)).append('\n')
                .append(" avg chain length (computed): ").append(String.format(java.util.Locale.ROOT, "%.2f", (float) used / slotsUsed)).append('\n')
                .append(" Chain length distribution:\n");
        for (int i = 0; i < STATS_LENGTHS - 1; i++) {
            if (lengths[i] == 0) continue;
            sb.append("   ").append(i).append(": ").append(lengths[i]).append(" (")
                    .append(String.format(java.util.Locale.ROOT, "%.2f", (float) lengths[i] / s.length * 100)).append("%)\n");
        }
    }

    public final void clear() {
        slots = new Object[MIN_CAPACITY];
        tags = new byte[MIN_CAPACITY];
        mask = MIN_CAPACITY - 1;
        sizeA = 0;
        slotsB = null;
        tagsB = null;
        sizeB = 0;
        rehashIdx = -1;
    }

    private static byte tag(long h) {
        return (byte) ((h >>> 57) | 0x80);
    }

    // ---- lookup -------------------------------------------------------------------------------

    public final Object get(long h, byte[] k, int off, int len) {
        if (rehashIdx >= 0) {
            rehashStep();
            Object e = find(slots, tags, mask, h, k, off, len);
            if (e != null) return e;
            if (slotsB != null) return find(slotsB, tagsB, maskB, h, k, off, len);
            return null;
        }
        return find(slots, tags, mask, h, k, off, len);
    }

    private Object find(Object[] s, byte[] t, int m, long h, byte[] k, int off, int len) {
        byte tg = tag(h);
        int i = (int) h & m;
        while (true) {
            byte x = t[i];
            if (x == 0) return null;
            if (x == tg) {
                Object e = s[i];
                if (matches(e, k, off, len)) return e;
            }
            i = (i + 1) & m;
        }
    }

    private int indexOf(Object[] s, byte[] t, int m, long h, byte[] k, int off, int len) {
        byte tg = tag(h);
        int i = (int) h & m;
        while (true) {
            byte x = t[i];
            if (x == 0) return -1;
            if (x == tg && matches(s[i], k, off, len)) return i;
            i = (i + 1) & m;
        }
    }

    // ---- insert / replace ---------------------------------------------------------------------

    /**
     * Inserts entry e (whose key hashes to h), or replaces the entry with the same key.
     *
     * @return the entry replaced, or null if the key was new
     */
    public final Object put(long h, Object e, byte[] k, int off, int len) {
        if (rehashIdx >= 0) {
            rehashStep();
            rehashStep();
            int i = indexOf(slots, tags, mask, h, k, off, len);
            if (i >= 0) {
                Object old = slots[i];
                willWrite(slots, i);
                slots[i] = e;
                return old;
            }
            if (slotsB != null) {
                i = indexOf(slotsB, tagsB, maskB, h, k, off, len);
                if (i >= 0) {
                    Object old = slotsB[i];
                    willWrite(slotsB, i);
                    slotsB[i] = e;
                    return old;
                }
                insertB(h, e);
                return null;
            }
        }
        int i = indexOf(slots, tags, mask, h, k, off, len);
        if (i >= 0) {
            Object old = slots[i];
            willWrite(slots, i);
            slots[i] = e;
            return old;
        }
        if (rehashIdx < 0 && (sizeA + 1) * 4L > slots.length * 3L) {
            startRehash(slots.length * 2);
            insertB(h, e);
            return null;
        }
        insertInto(slots, tags, mask, h, e);
        sizeA++;
        return null;
    }

    private void insertB(long h, Object e) {
        if ((sizeB + 1) * 4L > slotsB.length * 3L) {
            // Only reachable if rehash fell far behind; finish it and grow again.
            while (rehashIdx >= 0) rehashStep();
            startRehash(slots.length * 2);
        }
        insertInto(slotsB, tagsB, maskB, h, e);
        sizeB++;
    }

    private void insertInto(Object[] s, byte[] t, int m, long h, Object e) {
        int i = (int) h & m;
        while (t[i] != 0) i = (i + 1) & m;
        willWrite(s, i);
        s[i] = e;
        t[i] = tag(h);
    }

    // ---- removal ------------------------------------------------------------------------------

    /** Removes the entry with key k; returns it, or null if absent. */
    public final Object remove(long h, byte[] k, int off, int len) {
        Object removed = null;
        if (rehashIdx >= 0) {
            rehashStep();
            int i = indexOf(slots, tags, mask, h, k, off, len);
            if (i >= 0) {
                removed = slots[i];
                deleteAt(slots, tags, mask, i);
                sizeA--;
            } else if (slotsB != null) {
                i = indexOf(slotsB, tagsB, maskB, h, k, off, len);
                if (i >= 0) {
                    removed = slotsB[i];
                    deleteAt(slotsB, tagsB, maskB, i);
                    sizeB--;
                }
            }
            return removed;
        }
        int i = indexOf(slots, tags, mask, h, k, off, len);
        if (i < 0) return null;
        removed = slots[i];
        deleteAt(slots, tags, mask, i);
        sizeA--;
        maybeShrink();
        return removed;
    }

    /** Backward-shift deletion: pull later members of the run into the hole when it is on their path. */
    private void deleteAt(Object[] s, byte[] t, int m, int hole) {
        int j = hole;
        while (true) {
            j = (j + 1) & m;
            if (t[j] == 0) break;
            int home = (int) hashOf(s[j]) & m;
            // j may move to hole iff hole lies cyclically in [home, j)
            boolean movable = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
            if (movable) {
                willWrite(s, hole);
                s[hole] = s[j];
                t[hole] = t[j];
                hole = j;
            }
        }
        willWrite(s, hole);
        s[hole] = null;
        t[hole] = 0;
    }

    private void maybeShrink() {
        if (rehashIdx < 0 && slots.length > MIN_CAPACITY && sizeA * 10L < slots.length) {
            int cap = MIN_CAPACITY;
            while (cap * 3L < sizeA * 4L + 4) cap <<= 1;
            cap <<= 1;
            if (cap < slots.length) startRehash(cap);
        }
    }

    /**
     * Makes room for {@code expected} elements at once (Redis's dictExpand when an RDB announces
     * its sizes): a load then inserts without growing, so no entry is moved or rehashed. Any
     * rehash in progress is finished first; a table already big enough is left as it is.
     */
    public final void reserve(long expected) {
        int cap = MIN_CAPACITY;
        while (cap < (1 << 30) && expected * 4L > cap * 3L) cap <<= 1;
        if (cap <= slots.length && rehashIdx < 0) return;
        while (rehashIdx >= 0) rehashStep();
        if (cap <= slots.length) return;
        startRehash(cap);
        while (rehashIdx >= 0) rehashStep();
    }

    // ---- rehashing ----------------------------------------------------------------------------

    private void startRehash(int newCapacity) {
        slotsB = new Object[newCapacity];
        tagsB = new byte[newCapacity];
        maskB = newCapacity - 1;
        sizeB = 0;
        rehashIdx = 0;
    }

    /** Moves one run of table A (or skips empty slots) to table B; nothing once rehashing is done. */
    private void rehashStep() {
        if (rehashIdx < 0) return; // a previous step of the same operation may have finished it
        int budget = 64; // empty slots to skip before giving up for this step
        int n = slots.length;
        while (rehashIdx < n && tags[rehashIdx] == 0) {
            rehashIdx++;
            if (--budget == 0) return;
        }
        if (rehashIdx >= n) {
            finishRehash();
            return;
        }
        int i = rehashIdx;
        while (i < n && tags[i] != 0) {
            Object e = slots[i];
            insertInto(slotsB, tagsB, maskB, hashOf(e), e);
            sizeB++;
            sizeA--;
            willWrite(slots, i);
            slots[i] = null;
            tags[i] = 0;
            i++;
        }
        rehashIdx = i;
        if (rehashIdx >= n) finishRehash();
    }

    private void finishRehash() {
        slots = slotsB;
        tags = tagsB;
        mask = maskB;
        sizeA = sizeB;
        slotsB = null;
        tagsB = null;
        sizeB = 0;
        rehashIdx = -1;
    }

    /** Rehash work for the cron: up to {@code steps} runs. Returns true if more remains. */
    public final boolean rehashSome(int steps) {
        for (int i = 0; i < steps && rehashIdx >= 0; i++) rehashStep();
        return rehashIdx >= 0;
    }

    // ---- scan ---------------------------------------------------------------------------------

    /**
     * One SCAN step from {@code cursor}: calls the visitor for every element of one home bucket
     * (both tables while rehashing) and returns the next cursor, 0 when the scan is complete.
     */
    public final long scan(long cursor, Consumer<Object> visitor) {
        if (size() == 0) return 0;
        long v = cursor;
        if (rehashIdx < 0) {
            long m0 = mask;
            visitBucket(slots, tags, mask, (int) (v & m0), visitor);
            v |= ~m0;
            v = Long.reverse(v);
            v++;
            v = Long.reverse(v);
            return v;
        }
        Object[] s0 = slots, s1 = slotsB;
        byte[] t0 = tags, t1 = tagsB;
        int k0 = mask, k1 = maskB;
        if (s0.length > s1.length) {
            s0 = slotsB;
            s1 = slots;
            t0 = tagsB;
            t1 = tags;
            k0 = maskB;
            k1 = mask;
        }
        long m0 = k0, m1 = k1;
        visitBucket(s0, t0, k0, (int) (v & m0), visitor);
        // Visit every expansion of that bucket in the larger table, stepping the bits the small
        // mask does not cover in reverse-binary order too (an ordinary increment of those bits
        // skips buckets when the cursor was made while the table was larger). The carry out of
        // those bits advances the small-table part, so v ends as the next cursor.
        do {
            visitBucket(s1, t1, k1, (int) (v & m1), visitor);
            v |= ~m1;
            v = Long.reverse(v);
            v++;
            v = Long.reverse(v);
        } while ((v & (m0 ^ m1)) != 0);
        return v;
    }

    /** The entries of the bucket {@link #visitBucket} visits, reused (no visitor scans again). */
    private Object[] bucketEntries;

    private void visitBucket(Object[] s, byte[] t, int m, int bucket, Consumer<Object> visitor) {
        // Collect first: the visitor may delete (e.g. expired keys), which shifts the run.
        int i = bucket;
        Object[] found = bucketEntries;
        int nFound = 0;
        while (t[i] != 0) {
            Object e = s[i];
            if (((int) hashOf(e) & m) == bucket) {
                if (found == null) found = bucketEntries = new Object[8];
                else if (nFound == found.length) found = bucketEntries = Arrays.copyOf(found, nFound * 2);
                found[nFound++] = e;
            }
            i = (i + 1) & m;
        }
        for (int j = 0; j < nFound; j++) visitor.accept(found[j]);
        if (nFound > 0) Arrays.fill(found, 0, nFound, null);
    }

    // ---- point-in-time copies -----------------------------------------------------------------

    /**
     * A snapshot's view of the slot arrays as they are now, while the table keeps changing. Nothing
     * is copied up front (a whole copy of a big table took 30-60 ms of the executor here, most of
     * it the first touch of fresh memory): the view reads the table's own arrays, and the table
     * copies a chunk of {@link Frozen#CHUNK} slots into the view just before it first writes into
     * that chunk, as fork's copy-on-write does with pages. A table with a view attached keeps
     * its arrays' contents for the view; a second freeze first completes the previous view's copy.
     */
    public final Frozen freeze() {
        if (frozen != null) frozen.copyAll();
        frozen = new Frozen(this, slots, tags, slotsB, tagsB, size());
        return frozen;
    }

    /** Called before any write into slot i of array s (A or B, of this moment or an earlier one). */
    private void willWrite(Object[] s, int i) {
        Frozen f = frozen;
        if (f != null) f.preserve(s, i);
    }

    /**
     * The entries of a table at the moment of {@link #freeze()}, each of which can be taken once:
     * either in slot order by {@link #next()} or out of turn by {@link #take} when it is about to
     * change. Reads go to the table's arrays, or to the copy of their chunk once the table has
     * written there; taken slots are marked in a bitmap.
     */
    public static final class Frozen {
        static final int CHUNK_SHIFT = 12;
        /** Slots per copied chunk (16 KB of references, 4 KB of tags). */
        static final int CHUNK = 1 << CHUNK_SHIFT;

        private KeyTable table;
        private final Object[] a;
        private final byte[] ta;
        private final Object[] b;
        private final byte[] tb;
        private final Object[][] copiesA;
        private final byte[][] tagCopiesA;
        private final Object[][] copiesB;
        private final byte[][] tagCopiesB;
        /** Taken slots: bit i for slot i of A, bit a.length + i for slot i of B. */
        private final long[] taken;
        private int cursor;
        private int pending;

        private Frozen(KeyTable table, Object[] a, byte[] ta, Object[] b, byte[] tb, int pending) {
            this.table = table;
            this.a = a;
            this.ta = ta;
            this.b = b;
            this.tb = tb;
            this.copiesA = new Object[chunks(a.length)][];
            this.tagCopiesA = new byte[copiesA.length][];
            this.copiesB = b == null ? null : new Object[chunks(b.length)][];
            this.tagCopiesB = b == null ? null : new byte[copiesB.length][];
            this.taken = new long[(a.length + (b == null ? 0 : b.length) + 63) >>> 6];
            this.pending = pending;
        }

        private static int chunks(int slots) {
            return (slots + CHUNK - 1) >>> CHUNK_SHIFT;
        }

        /** Entries not taken yet. */
        public int pending() {
            return pending;
        }

        /** The snapshot is over: the table stops copying for it. */
        public void detach() {
            if (table != null && table.frozen == this) table.frozen = null;
            table = null;
        }

        /** Before the table writes slot i of s: keeps that slot's chunk as it is now. */
        void preserve(Object[] s, int i) {
            if (s == a) {
                int c = i >>> CHUNK_SHIFT;
                if (copiesA[c] == null) copy(a, ta, copiesA, tagCopiesA, c);
            } else if (s == b) {
                int c = i >>> CHUNK_SHIFT;
                if (copiesB[c] == null) copy(b, tb, copiesB, tagCopiesB, c);
            }
        }

        private static void copy(Object[] s, byte[] t, Object[][] copies, byte[][] tagCopies, int c) {
            int from = c << CHUNK_SHIFT;
            int to = Math.min(s.length, from + CHUNK);
            copies[c] = Arrays.copyOfRange(s, from, to);
            tagCopies[c] = Arrays.copyOfRange(t, from, to);
        }

        /** Copies every chunk not copied yet: the view then no longer depends on the table. */
        void copyAll() {
            for (int c = 0; c < copiesA.length; c++) if (copiesA[c] == null) copy(a, ta, copiesA, tagCopiesA, c);
            if (b != null) {
                for (int c = 0; c < copiesB.length; c++) if (copiesB[c] == null) copy(b, tb, copiesB, tagCopiesB, c);
            }
            detach();
        }

        private static Object slot(Object[] s, Object[][] copies, int i) {
            Object[] c = copies[i >>> CHUNK_SHIFT];
            return c != null ? c[i & (CHUNK - 1)] : s[i];
        }

        private static byte tagAt(byte[] t, byte[][] copies, int i) {
            byte[] c = copies[i >>> CHUNK_SHIFT];
            return c != null ? c[i & (CHUNK - 1)] : t[i];
        }

        private boolean isTaken(int bit) {
            return (taken[bit >>> 6] & (1L << bit)) != 0;
        }

        private void markTaken(int bit) {
            taken[bit >>> 6] |= 1L << bit;
            pending--;
        }

        /** Takes e (whose key hashes to h) if it is still pending; returns whether it was. */
        public boolean take(long h, Object e) {
            if (pending == 0) return false;
            return take(a, ta, copiesA, tagCopiesA, 0, h, e) || (b != null && take(b, tb, copiesB, tagCopiesB, a.length, h, e));
        }

        private boolean take(Object[] s, byte[] t, Object[][] copies, byte[][] tagCopies, int base, long h, Object e) {
            int m = s.length - 1;
            byte tg = tag(h);
            int i = (int) h & m;
            while (true) {
                byte x = tagAt(t, tagCopies, i);
                if (x == 0) return false;
                if (x == tg && slot(s, copies, i) == e) {
                    if (isTaken(base + i)) return false;
                    markTaken(base + i);
                    return true;
                }
                i = (i + 1) & m;
            }
        }

        /** Takes the next pending entry in slot order; null when none is left. */
        public Object next() {
            while (pending > 0) {
                int bit = cursor++;
                Object e = bit < a.length ? slot(a, copiesA, bit) : slot(b, copiesB, bit - a.length);
                if (e != null && !isTaken(bit)) {
                    markTaken(bit);
                    return e;
                }
            }
            return null;
        }
    }

    // ---- iteration and sampling ---------------------------------------------------------------

    /** Visits every entry. The visitor must not modify the table. */
    public final void forEach(Consumer<Object> visitor) {
        for (Object e : slots) if (e != null) visitor.accept(e);
        if (slotsB != null) for (Object e : slotsB) if (e != null) visitor.accept(e);
    }

    /** A snapshot array of all entries (for commands that modify while iterating, like KEYS). */
    public final Object[] toArray() {
        Object[] out = new Object[size()];
        int n = 0;
        for (Object e : slots) if (e != null) out[n++] = e;
        if (slotsB != null) for (Object e : slotsB) if (e != null) out[n++] = e;
        return n == out.length ? out : Arrays.copyOf(out, n);
    }

    /**
     * A random entry, or null when empty. Every entry is equally likely (SRANDMEMBER and
     * HRANDFIELD are tested for it): a table is picked in proportion to its share of the entries,
     * then slots are drawn until one is occupied. Walking forward from a random slot instead would
     * favour the first entry of each run by the length of the gap before it. Tables shrink below
     * 10% load, so the expected number of draws stays small. Like a lookup, a draw moves a
     * growing table's rehash one step on (Redis's random-key sampling does too), so a collection
     * that is only ever sampled (SRANDMEMBER, HRANDFIELD, RANDOMKEY) still finishes its rehash
     * and gives back the old table.
     */
    public final Object random(SplittableRandom rnd) {
        if (size() == 0) return null;
        if (rehashIdx >= 0) rehashStep();
        Object[] s = rnd.nextInt(size()) < sizeA ? slots : slotsB;
        while (true) {
            Object e = s[rnd.nextInt(s.length)];
            if (e != null) return e;
        }
    }
}
