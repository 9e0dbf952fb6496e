package io.spinel.core.keyspace;

/**
 * A keyspace entry holding a non-string value: the key, its metadata and the value. (String keys
 * use the packed {@link StringEntry} form instead.)
 *
 * <p>One of these stands in front of every hash, list, set and sorted set, so its fields are
 * packed: 32 bytes with compact object headers (JDK 25), 40 with the classic ones, instead of 40
 * and 48 with the LRU, the touched flag and a long byte count as separate fields.
 */
public final class DbObject {
    /** Above the 24 bits of LRU clock or LFU data in {@link #meta}: queued to be measured again. */
    private static final int TOUCHED = 1 << 24;
    private static final int LRU_MASK = (1 << 24) - 1;
    /** {@link #accountedUnits} counts bytes in these (values up to 16 GB each are counted exactly to 8 bytes). */
    private static final int ACCOUNT_SHIFT = 3;

    final byte[] key;
    /** Absolute expire time in ms, -1 for none. */
    long expire;
    public Value value;
    /** LRU clock or LFU data, 24 bits (Redis's robj.lru), and the {@link #TOUCHED} flag. */
    private int meta;
    /** What this entry is counted for in its database's total, in 8-byte units; -1 once it left the table. */
    private int accountedUnits = -1;

    public DbObject(byte[] key, Value value, long expire, int lru) {
        this.key = key;
        this.value = value;
        this.expire = expire;
        this.meta = lru & LRU_MASK;
    }

    public byte[] key() {
        return key;
    }

    public long expire() {
        return expire;
    }

    public Value value() {
        return value;
    }

    public int type() {
        return value.type();
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
