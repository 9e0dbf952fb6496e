package io.spinel.core.keyspace;

/**
 * A keyspace entry holding a non-string value: the key, its metadata and the value. (String keys
 * use the packed {@link StringEntry} form instead.)
 */
public final class DbObject {
    final byte[] key;
    /** Absolute expire time in ms, -1 for none. */
    long expire;
    /** LRU clock or LFU data, 24 bits (Redis's robj.lru). */
    int lru;
    public Value value;
    /** Bytes this entry is counted for in its database's total; -1 once it left the table. */
    long accounted = -1;
    /** Queued to have its size measured again at the end of the current command. */
    boolean touched;

    public DbObject(byte[] key, Value value, long expire, int lru) {
        this.key = key;
        this.value = value;
        this.expire = expire;
        this.lru = lru;
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
}
