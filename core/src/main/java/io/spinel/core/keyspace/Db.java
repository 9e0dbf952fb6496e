package io.spinel.core.keyspace;

import io.spinel.core.cluster.KeySlot;

import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * One numbered database (Redis's redisDb): the key table, the index of keys with an expire, and
 * the lookups that apply lazy expiry, LRU/LFU touch and hit/miss statistics. Only the executor
 * thread touches it.
 *
 * <p>Entries are packed strings ({@code byte[]}) or {@link DbObject}s; see {@link Entries}.
 */
public final class Db {
    private final int id;
    private final Keyspace keyspace;
    private EntryTable table = new EntryTable();
    /** Keys that have an expire: what the active expiry cycle samples. */
    /** Hashed as {@link #table} is: the hash of a key serves both. */
    private KeySet volatileKeys = new KeySet(table.seed());
    /**
     * The keys of {@link #table} by cluster hash slot, in cluster mode only (null otherwise); made
     * for one table (it hashes as the table does), so it goes wherever the table goes.
     */
    private SlotIndex keysBySlot;
    /** Where the active expiry cycle resumes its scan of {@link #volatileKeys}. */
    long expireCursor;
    /** Running average TTL of sampled keys (INFO keyspace avg_ttl). */
    long avgTtl;
    /** Estimated heap bytes of all entries (Entries.memoryUsage), kept current on every change. */
    private long bytes;
    /** Collections written by the current command: measured again when it finishes. */
    private final java.util.ArrayList<DbObject> touched = new java.util.ArrayList<>();
    /**
     * The point-in-time copy of {@link #table} a running snapshot still has to serialize, or
     * null. Every path that changes an entry in place or drops it from the table first offers
     * the entry to it (see {@link #willModify}), so the snapshot records the old value.
     */
    private FrozenDb frozen;
    /** BIG string entries in {@link #table} (whose native memory FLUSHDB must hand back). */
    private int bigEntries;

    Db(int id, Keyspace keyspace) {
        this.id = id;
        this.keyspace = keyspace;
        if (keyspace.slotIndexed()) indexSlots();
    }

    /** Starts the slot index of cluster mode (see {@link Keyspace#enableSlotIndex}), from the keys present. */
    void indexSlots() {
        if (keysBySlot != null) return;
        SlotIndex s = new SlotIndex(table.seed());
        table.forEach(e -> s.add(SlotIndex.slotOf(e), Entries.hash(table, e), e));
        keysBySlot = s;
    }

    /** Whether this database keeps its keys by cluster hash slot (cluster mode). */
    public boolean slotIndexed() {
        return keysBySlot != null;
    }

    /** How many keys are in the cluster hash slot, expired ones not deleted yet included (O(1)). */
    public int countKeysInSlot(int slot) {
        return indexBySlot().count(slot);
    }

    /** Copies of up to {@code max} keys of the cluster hash slot, in no particular order (O(max)). */
    public List<byte[]> keysInSlot(int slot, int max) {
        return indexBySlot().keys(slot, max);
    }

    private SlotIndex indexBySlot() {
        if (keysBySlot == null) throw new IllegalStateException("keys are indexed by slot in cluster mode only");
        return keysBySlot;
    }

    public int id() {
        return id;
    }

    public Keyspace keyspace() {
        return keyspace;
    }

    public int size() {
        return table.size();
    }

    /** DEBUG HTSTATS: the keys' table and the table of keys with a TTL, as Redis's dict and expires. */
    public void appendHtStats(StringBuilder sb) {
        sb.append("[Dictionary HT]\n");
        table.appendStats(sb);
        sb.append("[Expires HT]\n");
        volatileKeys.appendStats(sb);
    }

    public int volatileCount() {
        return volatileKeys.size();
    }

    public long avgTtl() {
        return avgTtl;
    }

    // ---- lookups ------------------------------------------------------------------------------

    /** The raw entry, expired or not, without side effects. */
    public Object find(byte[] k, int off, int len) {
        return table.get(table.hash(k, off, len), k, off, len);
    }

    public Object find(byte[] k) {
        return find(k, 0, k.length);
    }

    /**
     * Lookup for a read: deletes the key if it expired, counts a hit or a miss, and refreshes the
     * LRU/LFU data unless {@code touch} is false (OBJECT, TOUCH-less clients).
     */
    public Object lookupRead(byte[] k, int off, int len, boolean touch) {
        Object e = lookupReadBig(k, off, len, touch);
        return isBig(e) ? unBig(table.hash(k, off, len), (byte[]) e, k, off, len) : e;
    }

    /**
     * {@link #lookupRead} for the commands that read a BIG string where it is (GET, MGET,
     * STRLEN): the entry may be a {@link StringEntry#BIG}, whose array holds no value bytes.
     */
    public Object lookupReadBig(byte[] k, int off, int len, boolean touch) {
        Object e = table.get(table.hash(k, off, len), k, off, len);
        if (e != null && expireIfNeeded(e, k, off, len)) e = null;
        if (e == null) {
            keyspace.misses++;
            keyspace.keyMiss(this, k, off, len);
            return null;
        }
        keyspace.hits++;
        if (touch) keyspace.touch(e);
        return e;
    }

    private static boolean isBig(Object e) {
        return e instanceof byte[] && StringEntry.isBig((byte[]) e);
    }

    /**
     * Replaces BIG entry e, stored under k, with the RAW entry of the same value on the heap, for
     * the commands that index the entry's array (see {@link StringEntry#BIG}). The same key,
     * expire and LRU data: the expire index is unchanged and it is no write to clients.
     */
    private byte[] unBig(long h, byte[] e, byte[] k, int off, int len) {
        if (frozen != null) frozen.beforeChange(h, e);
        byte[] n = StringEntry.toRaw(e);
        table.put(h, n, k, off, len);
        if (keysBySlot != null) keysBySlot.replace(KeySlot.slot(k, off, len), h, e, n);
        account(n, e);
        bigEntries--;
        keyspace.bigValues.dropped(e);
        return n;
    }

    public Object lookupRead(byte[] k, int off, int len) {
        return lookupRead(k, off, len, true);
    }

    /**
     * Lookup for a write: lazy expiry and LRU touch, no hit/miss statistics. Commands must get
     * every entry they change in place through here (or announce it with {@link #willModify}):
     * a running BGSAVE or AOF rewrite then writes the entry's old value first.
     */
    public Object lookupWrite(byte[] k, int off, int len) {
        Object e = lookupWriteBig(k, off, len);
        return isBig(e) ? unBig(table.hash(k, off, len), (byte[]) e, k, off, len) : e;
    }

    /**
     * {@link #lookupWrite} for a command that replaces a string without reading it (SET): the
     * entry may be a {@link StringEntry#BIG}.
     */
    public Object lookupWriteBig(byte[] k, int off, int len) {
        long h = table.hash(k, off, len);
        Object e = table.get(h, k, off, len);
        if (e != null && expireIfNeeded(e, k, off, len, true)) return null;
        if (e != null) {
            beforeChange(h, e);
            keyspace.touch(e);
            if (e instanceof DbObject) markTouched((DbObject) e);
        }
        return e;
    }

    /** A collection may change size in place: measure it again at the end of the command. */
    private void markTouched(DbObject o) {
        if (o.touched()) return;
        o.setTouched(true);
        if (touched.isEmpty()) keyspace.dirtyDbs.add(this);
        touched.add(o);
    }

    /** Re-measures the collections written by the command that just ran. */
    void settle() {
        for (int i = 0, n = touched.size(); i < n; i++) {
            DbObject o = touched.get(i);
            o.setTouched(false);
            long before = o.accounted();
            if (before < 0) continue; // removed meanwhile
            bytes += o.account(Entries.memoryUsage(o)) - before;
        }
        touched.clear();
    }

    private void account(Object added, Object removed) {
        account(added, removed, true);
    }

    private void account(Object added, Object removed, boolean mayGrowLater) {
        if (removed != null) {
            if (removed instanceof DbObject) {
                DbObject o = (DbObject) removed;
                long counted = o.accounted();
                if (counted >= 0) bytes -= counted;
                o.unaccount();
            } else {
                bytes -= Entries.memoryUsage(removed);
            }
        }
        if (added != null) {
            long m = Entries.memoryUsage(added);
            if (added instanceof DbObject) {
                DbObject o = (DbObject) added;
                bytes += o.account(m);
                if (mayGrowLater) markTouched(o); // it may be filled after it was stored
            } else {
                bytes += m;
            }
        }
    }

    /** Estimated heap bytes of the keys and values of this database, table slots and the slot index included. */
    public long memoryUsage() {
        return bytes + table.capacity() * 5L + volatileKeys.capacity() * 5L + 64
                + (keysBySlot == null ? 0 : keysBySlot.memoryUsage());
    }

    /**
     * Announces that entry e, stored under k, is about to be changed in place although it was not
     * obtained with {@link #lookupWrite} (e.g. PFCOUNT refreshing its cached cardinality from a
     * read lookup). A running snapshot serializes it first.
     */
    public void willModify(byte[] k, int off, int len, Object e) {
        if (frozen != null || keyspace.undoLog != null) beforeChange(table.hash(k, off, len), e);
    }

    /**
     * Entry e (hash h) is about to change in place or leave the table: a running snapshot
     * serializes it first, a forked debugging session's undo log copies it.
     */
    private void beforeChange(long h, Object e) {
        if (frozen != null) frozen.beforeChange(h, e);
        UndoLog undo = keyspace.undoLog;
        if (undo != null) undo.before(this, e);
    }

    /** Whether the key exists (and has not expired); no statistics, no touch. */
    public boolean exists(byte[] k, int off, int len) {
        Object e = table.get(table.hash(k, off, len), k, off, len);
        return e != null && !expireIfNeeded(e, k, off, len);
    }

    /** Deletes e if its TTL has passed; returns whether it did. */
    private boolean expireIfNeeded(Object e, byte[] k, int off, int len) {
        return expireIfNeeded(e, k, off, len, false);
    }

    /**
     * As above; {@code forWrite}: a write's lookup, which deletes the expired key even on a
     * (writable) replica, as Redis's EXPIRE_FORCE_DELETE_EXPIRED, before the write re-creates it.
     */
    private boolean expireIfNeeded(Object e, byte[] k, int off, int len, boolean forWrite) {
        if (keyspace.loading || keyspace.applyingMaster) return false;
        long when = Entries.expire(e);
        if (when < 0 || when > keyspace.now()) return false;
        // CLIENT PAUSE, or a replica (its master deletes): missing to the reader, kept in the data
        if (keyspace.expiryPaused || (keyspace.replica && !forWrite)) return true;
        remove(k, off, len);
        keyspace.expired(this, Entries.key(e), e);
        return true;
    }

    /** Whether the entry's TTL has passed (without deleting it). */
    public boolean isExpired(Object e) {
        long when = Entries.expire(e);
        return when >= 0 && when <= keyspace.now();
    }

    // ---- writes -------------------------------------------------------------------------------

    /**
     * Stores entry e under key k, replacing any entry with that key, and keeps the expire index
     * in step with e's expire. Returns the replaced entry or null. Callers that must not inherit
     * the replaced entry's LFU counter (RESTORE, COPY, RENAME) remove the old entry first.
     */
    public Object put(byte[] k, int off, int len, Object e) {
        return put(k, off, len, e, false);
    }

    /**
     * {@link #put} for what the RDB loader made: the value is complete, so it is measured once now,
     * not again after the command (which after loading a few million collections made the first
     * command pay for measuring them all a second time); and k is a fresh array of exactly the
     * key, which the expiry index may keep as it is. A BIG entry's native memory becomes the
     * keyspace's here (the loader allocated it).
     */
    public Object putComplete(byte[] k, Object e) {
        if (isBig(e)) keyspace.bigValues.adopted((byte[]) e);
        return put(k, 0, k.length, e, true);
    }

    private Object put(byte[] k, int off, int len, Object e, boolean loaded) {
        long h = table.hash(k, off, len);
        Object old = table.put(h, e, k, off, len);
        if (keysBySlot != null && old != e) {
            if (old == null) keysBySlot.add(KeySlot.slot(k, off, len), h, e);
            else keysBySlot.replace(KeySlot.slot(k, off, len), h, old, e);
        }
        // Redis's dbOverwrite: under an LFU policy a new value inherits the access frequency of the
        // one it replaces, or hot keys that are rewritten would look new and be evicted first
        if (old != null && old != e && keyspace.lfu()) Entries.setLru(e, Entries.lru(old));
        account(e, old, !loaded);
        if (isBig(e) && old != e) {
            bigEntries++;
            keyspace.bigValues.stored((byte[]) e);
        }
        if (isBig(old) && old != e) {
            bigEntries--;
            keyspace.bigValues.dropped((byte[]) old);
        }
        if (old == null) {
            keyspace.keyAdded(this, k, off, len);
            if (keyspace.undoLog != null) keyspace.undoLog.added(this, k, off, len);
        } else if (old != e) {
            beforeChange(h, old);
        }
        boolean hadTtl = old != null && Entries.expire(old) >= 0;
        boolean hasTtl = Entries.expire(e) >= 0;
        if (hasTtl && !loaded) keyspace.expireSetByClient(this, k, off, len);
        if (hasTtl && !hadTtl) {
            // a command's key is a slice of the query buffer: the index keeps a copy
            volatileKeys.put(h, loaded ? k : copyKey(k, off, len), k, off, len);
        } else if (hadTtl && !hasTtl) {
            volatileKeys.remove(h, k, off, len);
        }
        return old;
    }

    /** Sizes the tables for this many keys, of which {@code withExpire} have a TTL (RDB RESIZEDB). */
    public void reserve(long keys, long withExpire) {
        table.reserve(keys);
        volatileKeys.reserve(withExpire);
    }

    public Object put(byte[] k, Object e) {
        return put(k, 0, k.length, e);
    }

    private static byte[] copyKey(byte[] k, int off, int len) {
        byte[] c = new byte[len];
        System.arraycopy(k, off, c, 0, len);
        return c;
    }

    /** Removes the key; returns the removed entry or null. */
    public Object remove(byte[] k, int off, int len) {
        long h = table.hash(k, off, len);
        Object old = table.remove(h, k, off, len);
        if (old != null) {
            if (keysBySlot != null) keysBySlot.remove(KeySlot.slot(k, off, len), h, old);
            account(null, old);
            if (isBig(old)) {
                bigEntries--;
                keyspace.bigValues.dropped((byte[]) old);
            }
            beforeChange(h, old);
            if (Entries.expire(old) >= 0) volatileKeys.remove(h, k, off, len);
        }
        return old;
    }

    public Object remove(byte[] k) {
        return remove(k, 0, k.length);
    }

    /**
     * Sets or clears (when {@code when} &lt; 0) the expire of an existing key, rewriting a packed
     * string entry if its layout must change. Returns the entry now stored.
     */
    public Object setExpire(byte[] k, int off, int len, Object e, long when) {
        if (frozen != null || keyspace.undoLog != null) beforeChange(table.hash(k, off, len), e);
        if (e instanceof byte[]) {
            byte[] n = StringEntry.withExpire((byte[]) e, when);
            if (n != e) {
                put(k, off, len, n);
                return n;
            }
            return e; // updated in place, index membership unchanged
        }
        DbObject o = (DbObject) e;
        boolean had = o.expire >= 0;
        o.expire = when;
        if (when >= 0) keyspace.expireSetByClient(this, k, off, len);
        markTouched(o); // the expire index copy of the key comes or goes
        long h = table.hash(k, off, len);
        if (when >= 0 && !had) volatileKeys.put(h, copyKey(k, off, len), k, off, len);
        else if (when < 0 && had) volatileKeys.remove(h, k, off, len);
        return e;
    }

    /** How many entries hold their value in native memory ({@link StringEntry#BIG}). */
    int bigEntries() {
        return bigEntries;
    }

    /** Drops every key (FLUSHDB); returns how many there were. */
    public long clear() {
        long n = table.size();
        UndoLog undo = keyspace.undoLog;
        if (undo != null) {
            // a forked debugging session: the table is kept whole, BIG values included, to come back
            settle();
            undo.flushed(this, new Contents(table, volatileKeys, keysBySlot, expireCursor, avgTtl, bytes, bigEntries, frozen));
        } else if (bigEntries > 0) {
            table.forEach(e -> {
                if (isBig(e)) keyspace.bigValues.dropped((byte[]) e);
            });
        }
        bigEntries = 0;
        table = new EntryTable();
        volatileKeys = new KeySet(table.seed());
        if (keysBySlot != null) keysBySlot = new SlotIndex(table.seed());
        expireCursor = 0;
        avgTtl = 0;
        bytes = 0;
        touched.clear();
        // what a snapshot still holds of the old table can no longer change
        frozen = null;
        return n;
    }

    /** What {@link #clear} took out of a database, for {@link #restore} (see {@link UndoLog}). */
    record Contents(EntryTable table, KeySet volatileKeys, SlotIndex keysBySlot, long expireCursor, long avgTtl, long bytes,
                    int bigEntries, FrozenDb frozen) {
    }

    /** Puts back what a {@link #clear} took out, into this emptied database. */
    void restore(Contents c) {
        table = c.table;
        volatileKeys = c.volatileKeys;
        keysBySlot = c.keysBySlot;
        expireCursor = c.expireCursor;
        avgTtl = c.avgTtl;
        bytes = c.bytes;
        bigEntries = c.bigEntries;
        // a snapshot that was running when the table left goes on recording its changes
        frozen = c.frozen != null && !c.frozen.isDetached() ? c.frozen : null;
    }

    /** SWAPDB: exchange the contents of two databases (clients keep their db number). */
    void swapWith(Db other) {
        EntryTable t = table;
        table = other.table;
        other.table = t;
        KeySet v = volatileKeys;
        volatileKeys = other.volatileKeys;
        other.volatileKeys = v;
        SlotIndex s = keysBySlot;
        keysBySlot = other.keysBySlot;
        other.keysBySlot = s;
        long c = expireCursor;
        expireCursor = other.expireCursor;
        other.expireCursor = c;
        long a = avgTtl;
        avgTtl = other.avgTtl;
        other.avgTtl = a;
        long b = bytes;
        bytes = other.bytes;
        other.bytes = b;
        int big = bigEntries;
        bigEntries = other.bigEntries;
        other.bigEntries = big;
        FrozenDb f = frozen;
        frozen = other.frozen;
        other.frozen = f;
    }

    // ---- snapshots ----------------------------------------------------------------------------

    /** Starts a point-in-time copy of this database for a snapshot (see {@link FrozenDb}). */
    public FrozenDb freeze(FrozenDb.Capture capture) {
        FrozenDb f = new FrozenDb(id, table.freeze(), capture, table.size(), volatileKeys.size(), keyspace.bigValues);
        frozen = f;
        return f;
    }

    /** Detaches a snapshot's copy (finished or aborted) wherever SWAPDB moved it. */
    public void unfreeze(FrozenDb f) {
        if (frozen == f) frozen = null;
    }

    // ---- iteration ----------------------------------------------------------------------------

    /** One SCAN step over the keys (see {@link KeyTable#scan}). */
    public long scan(long cursor, Consumer<Object> visitor) {
        return table.scan(cursor, visitor);
    }

    /** One step over the keys with an expire, for the active expiry cycle. */
    long scanVolatile(long cursor, Consumer<Object> visitor) {
        return volatileKeys.scan(cursor, visitor);
    }

    public Object[] entries() {
        return table.toArray();
    }

    public void forEach(Consumer<Object> visitor) {
        table.forEach(visitor);
    }

    public Object randomEntry(SplittableRandom rnd) {
        return table.random(rnd);
    }

    /** A random key with an expire, or null. */
    public byte[] randomVolatileKey(SplittableRandom rnd) {
        return (byte[]) volatileKeys.random(rnd);
    }

    /** Rehash work for the cron; returns true if some remains. */
    boolean rehashSome(int steps) {
        boolean more = table.rehashSome(steps);
        return volatileKeys.rehashSome(steps) || more;
    }

    public long tableCapacity() {
        return table.capacity();
    }
}
