package io.spinel.core.keyspace;

import io.spinel.core.util.Bytes;

import java.util.Arrays;

/**
 * Uniform access to the two entry forms of the keyspace: a packed string ({@code byte[]}, see
 * {@link StringEntry}) or a {@link DbObject}.
 */
public final class Entries {
    private Entries() {
    }

    /**
     * The value of entry e if it has the given type, null if e is null; WRONGTYPE otherwise.
     * The usual first step of a collection command after the lookup.
     */
    public static Value valueOf(Object e, int type) {
        if (e == null) return null;
        if (e instanceof DbObject) {
            DbObject v = (DbObject) e;
            if (v.type() == type) return v;
        }
        throw io.spinel.core.command.CommandError.WRONGTYPE;
    }

    public static boolean isString(Object e) {
        return e instanceof byte[];
    }

    public static int type(Object e) {
        return e instanceof byte[] ? ValueType.STRING : ((DbObject) e).type();
    }

    public static String encoding(Object e) {
        if (e instanceof byte[]) {
            switch (StringEntry.encoding((byte[]) e)) {
                case StringEntry.INT:
                    return "int";
                case StringEntry.RAW:
                case StringEntry.BIG:
                    return "raw";
                default:
                    return "embstr";
            }
        }
        return ((DbObject) e).encoding();
    }

    public static long expire(Object e) {
        return e instanceof byte[] ? StringEntry.expire((byte[]) e) : ((DbObject) e).expire;
    }

    public static int lru(Object e) {
        return e instanceof byte[] ? StringEntry.lru((byte[]) e) : ((DbObject) e).lru();
    }

    public static void setLru(Object e, int lru) {
        if (e instanceof byte[]) StringEntry.setLru((byte[]) e, lru);
        else ((DbObject) e).setLru(lru);
    }

    public static boolean keyEquals(Object e, byte[] k, int off, int len) {
        if (e instanceof byte[]) return StringEntry.keyEquals((byte[]) e, k, off, len);
        byte[] key = ((DbObject) e).key;
        return key.length == len && Arrays.equals(key, 0, len, k, off, off + len);
    }

    /** The array holding the entry's key, at {@link #keyOffset} (read only). */
    public static byte[] keyArray(Object e) {
        return e instanceof byte[] ? (byte[]) e : ((DbObject) e).key;
    }

    public static int keyOffset(Object e) {
        return e instanceof byte[] ? StringEntry.keyOffset((byte[]) e) : 0;
    }

    public static int keyLength(Object e) {
        return e instanceof byte[] ? StringEntry.keyLength((byte[]) e) : ((DbObject) e).key.length;
    }

    /** The entry's key (a copy for packed strings, the shared array for objects: do not modify). */
    public static byte[] key(Object e) {
        return e instanceof byte[] ? StringEntry.key((byte[]) e) : ((DbObject) e).key;
    }

    static long hash(KeyTable table, Object e) {
        if (e instanceof byte[]) {
            byte[] s = (byte[]) e;
            return table.hash(s, StringEntry.keyOffset(s), StringEntry.keyLength(s));
        }
        byte[] k = ((DbObject) e).key;
        return table.hash(k, 0, k.length);
    }

    /**
     * Estimated heap bytes of the whole entry: key, value and metadata, plus the copy of the key
     * kept in the expire index when the key has a TTL. (The table slots are counted per table.)
     */
    public static long memoryUsage(Object e) {
        long n;
        byte[] key;
        if (e instanceof byte[]) {
            n = StringEntry.heapSize((byte[]) e);
            if (!StringEntry.hasExpire((byte[]) e)) return n;
            key = null;
            return n + align(16L + StringEntry.keyLength((byte[]) e)) + EXPIRE_INDEX_SLOT;
        }
        DbObject o = (DbObject) e;
        key = o.key;
        n = align(16L + key.length) + o.memoryUsage(); // (the value's size includes the entry fields)
        if (o.expire >= 0) n += align(16L + key.length) + EXPIRE_INDEX_SLOT;
        return n;
    }

    /** Slot and tag bytes per entry of an expire index at its usual load. */
    private static final long EXPIRE_INDEX_SLOT = 9;

    static long align(long n) {
        return (n + 7) & ~7L;
    }
}
