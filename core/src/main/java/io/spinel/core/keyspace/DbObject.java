package io.spinel.core.keyspace;

/**
 * A non-string value together with what the keyspace keeps for it as an entry: the key, the
 * expire time, the LRU/LFU field and the bytes it is counted for. (String keys use the packed
 * {@link StringEntry} form instead.) Every hash, list, set, sorted set and stream extends this, so
 * that a stored collection is one object in front of its data rather than an entry object pointing
 * at a value object: one object fewer per key for the collector to copy (every stored value is
 * copied at least once, when it survives its first young collection, and again by every load at
 * start) and one pointer fewer between a lookup and the data.
 *
 * <p>A value is made unattached (commands build results, RESTORE decodes payloads, COPY copies)
 * and becomes an entry with {@link #asEntry} when it is stored; RENAME and MOVE store the same
 * object again after taking it out of its table. A value is the entry of at most one key at a
 * time.
 *
 * <p>The fields are packed: 20 bytes (a long expire and three 4-byte fields) on top of the value's
 * own, instead of a separate 32-byte object (compact object headers, JDK 25); each value's
 * {@link #memoryUsage()} counts them in its object's size.
 */
public abstract class DbObject implements Value {
    /** Above the 24 bits of LRU clock or LFU data in {@link #meta}: queued to be measured again. */
    private static final int TOUCHED = 1 << 24;
    private static final int LRU_MASK = (1 << 24) - 1;
    /** {@link #accountedUnits} counts bytes in these (values up to 16 GB each are counted exactly to 8 bytes). */
    private static final int ACCOUNT_SHIFT = 3;

    /** The key while this value is (or is about to be) stored, null before. */
    byte[] key;
    /** Absolute expire time in ms, -1 for none. */
    long expire = -1;
    /** LRU clock or LFU data, 24 bits (Redis's robj.lru), and the {@link #TOUCHED} flag. */
    private int meta;
    /** What this entry is counted for in its database's total, in 8-byte units; -1 while not in a table. */
    private int accountedUnits = -1;

    protected DbObject() {
    }

    /**
     * Makes this value the entry of {@code key} with the given expire and LRU/LFU field, ready to
     * be put in a table; returns this. A value still in a table cannot take another key (it would
     * then be stored twice).
     */
    public final DbObject asEntry(byte[] key, long expire, int lru) {
        if (accountedUnits >= 0) throw new IllegalStateException("the value is stored under another key");
        this.key = key;
        this.expire = expire;
        this.meta = (meta & TOUCHED) | (lru & LRU_MASK); // a pending re-measure stays queued
        return this;
    }

    /** The hash table holding the elements (DEBUG HTSTATS-KEY), null for the compact encodings and lists. */
    public KeyTable hashTable() {
        return null;
    }

    /** A deep copy, not stored anywhere yet (COPY stores it with {@link #asEntry}). */
    @Override
    public abstract DbObject copy();

    public byte[] key() {
        return key;
    }

    public long expire() {
        return expire;
    }

    int lru() {
        return meta & LRU_MASK;
    }

    void setLru(int lru) {
        meta = (meta & ~LRU_MASK) | (lru & LRU_MASK);
    }

    boolean touched() {
        return (meta & TOUCHED) != 0;
    }

    void setTouched(boolean touched) {
        meta = touched ? meta | TOUCHED : meta & ~TOUCHED;
    }

    /** The bytes this entry is counted for in its database's total, -1 if it is not in a table. */
    long accounted() {
        return accountedUnits < 0 ? -1 : (long) accountedUnits << ACCOUNT_SHIFT;
    }

    /**
     * Counts this entry for {@code bytes} (rounded up to 8) and returns what it is counted for,
     * which is what the database's total must add.
     */
    long account(long bytes) {
        long units = (bytes + (1 << ACCOUNT_SHIFT) - 1) >>> ACCOUNT_SHIFT;
        accountedUnits = (int) Math.min(units, Integer.MAX_VALUE);
        return (long) accountedUnits << ACCOUNT_SHIFT;
    }

    /** It left its table: nothing is counted for it any more. */
    void unaccount() {
        accountedUnits = -1;
    }
}
