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
            Value v = ((DbObject) e).value;
            if (v.type() == type) return v;
        }
        throw io.spinel.core.command.CommandError.WRONGTYPE;
    }

    public static boolean isString(Object e) {
        return e instanceof byte[];
    }

    public static int type(Object e) {
        return e instanceof byte[] ? ValueType.STRING : ((DbObject) e).value.type();
    }

    public static String encoding(Object e) {
        if (e instanceof byte[]) {
            switch (StringEntry.encoding((byte[]) e)) {
                case StringEntry.INT:
                    return "int";
                case StringEntry.RAW:
                    return "raw";
                default:
                    return "embstr";
            }
        }
        return ((DbObject) e).value.encoding();
    }

    public static long expire(Object e) {
        return e instanceof byte[] ? StringEntry.expire((byte[]) e) : ((DbObject) e).expire;
    }

    public static int lru(Object e) {
        return e instanceof byte[] ? StringEntry.lru((byte[]) e) : ((DbObject) e).lru;
    }

    public static void setLru(Object e, int lru) {
        if (e instanceof byte[]) StringEntry.setLru((byte[]) e, lru);
        else ((DbObject) e).lru = lru;
    }

    public static boolean keyEquals(Object e, byte[] k, int off, int len) {
        if (e instanceof byte[]) return StringEntry.keyEquals((byte[]) e, k, off, len);
        byte[] key = ((DbObject) e).key;
        return key.length == len && Arrays.equals(key, 0, len, k, off, off + len);
    }

    /** The entry's key (a copy for packed strings, the shared array for objects: do not modify). */
    public static byte[] key(Object e) {
        return e instanceof byte[] ? StringEntry.key((byte[]) e) : ((DbObject) e).key;
    }

    public static long hash(Object e) {
        if (e instanceof byte[]) {
            byte[] s = (byte[]) e;
            return Bytes.hash(KeyHash.SEED, s, StringEntry.keyOffset(s), StringEntry.keyLength(s));
        }
        byte[] k = ((DbObject) e).key;
        return Bytes.hash(KeyHash.SEED, k, 0, k.length);
    }

    /** Estimated heap bytes of the whole entry, key included. */
    public static long memoryUsage(Object e) {
        if (e instanceof byte[]) return StringEntry.heapSize((byte[]) e);
        DbObject o = (DbObject) e;
        return 32 + ((16L + o.key.length + 7) & ~7L) + o.value.memoryUsage();
    }
}
