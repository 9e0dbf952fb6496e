package io.spinel.core.keyspace;

import io.spinel.core.protocol.Reply;
import io.spinel.core.protocol.RespReader;
import io.spinel.core.util.Bytes;
import io.spinel.core.util.NativeMemory;

import java.util.Arrays;

/**
 * The layout of a string key in the keyspace: key, value and metadata packed into one byte array,
 * so a small string key costs one object (Redis spends a dictEntry, an sds key and a robj).
 *
 * <pre>
 *  [0]      flags: bits 0-1 encoding (EMBSTR, RAW, INT), bit 2 has-expire,
 *           bits 3-7 the key length when under 31 (31: a varint length follows the header)
 *  [1..3]   LRU clock or LFU data, 24 bits (Redis's robj.lru)
 *  [4..11]  absolute expire time in ms, only when has-expire
 *  varint   key length, only for keys of 31 bytes or more; then the key bytes
 *  value:   INT    1 to 8 bytes, two's complement little endian, the rest of the array
 *                  (INCR works in place while the value fits; wider values get a new entry)
 *           EMBSTR the rest of the array
 *           RAW    4-byte length, the bytes, then spare room (APPEND grows in amortised O(1))
 *           BIG    8-byte address and 4-byte length of the bytes in native memory (NativeMemory)
 * </pre>
 *
 * Every byte counts because arrays are padded to 8 bytes: with compact object headers (12 bytes)
 * a 16-byte key and a 16-byte value fit in 48 bytes only because the key length lives in the
 * flags, and a 20-byte key with a 6-digit counter fits in 40 only because the integer takes 3
 * bytes instead of 8.
 *
 * The encodings are the ones OBJECT ENCODING reports: "int" for canonical integers, "embstr" up to
 * 44 bytes, "raw" beyond or after an in-place modification (APPEND, SETRANGE).
 *
 * <p>BIG (reported as "raw") is a value SET received from the socket straight into native memory
 * (see RespReader): the collector never copies it, as Redis keeps a big argument's buffer as the
 * value. Only GET, MGET, STRLEN and persistence read it where it is; every other lookup turns it
 * into a RAW entry first ({@link Db#lookupRead}), so code that indexes the entry's array never
 * sees one. Its memory belongs to the keyspace's {@link BigValues}, which frees it once no table
 * holds it.
 */
public final class StringEntry {
    private StringEntry() {
    }

    public static final int EMBSTR = 0;
    public static final int RAW = 1;
    public static final int INT = 2;
    public static final int BIG = 3;

    private static final int ENC_MASK = 0x3;
    private static final int HAS_EXPIRE = 0x4;
    private static final int EXPIRE_OFF = 4;
    private static final int KEYLEN_SHIFT = 3;
    /** Key-length field value meaning "a varint follows the header". */
    private static final int LONG_KEY = 31;
    /** Redis stores strings of up to 44 bytes with the object header ("embstr"). */
    public static final int EMBSTR_MAX = 44;
    /** Spare room added on growth, as sds does: double up to 1 MB, then 1 MB at a time. */
    private static final int MAX_PREALLOC = 1024 * 1024;

    public static int encoding(byte[] e) {
        return e[0] & ENC_MASK;
    }

    public static boolean hasExpire(byte[] e) {
        return (e[0] & HAS_EXPIRE) != 0;
    }

    public static long expire(byte[] e) {
        return hasExpire(e) ? Bytes.getLongLE(e, EXPIRE_OFF) : -1;
    }

    public static int lru(byte[] e) {
        return (e[1] & 0xff) | (e[2] & 0xff) << 8 | (e[3] & 0xff) << 16;
    }

    public static void setLru(byte[] e, int lru) {
        e[1] = (byte) lru;
        e[2] = (byte) (lru >>> 8);
        e[3] = (byte) (lru >>> 16);
    }

    /** Length of the fixed header: flags, LRU and the expire when there is one. */
    private static int headerLength(byte[] e) {
        return hasExpire(e) ? EXPIRE_OFF + 8 : EXPIRE_OFF;
    }

    public static int keyLength(byte[] e) {
        int kl = (e[0] & 0xff) >>> KEYLEN_SHIFT;
        return kl < LONG_KEY ? kl : readVarint(e, headerLength(e));
    }

    public static int keyOffset(byte[] e) {
        int kl = (e[0] & 0xff) >>> KEYLEN_SHIFT;
        int h = headerLength(e);
        return kl < LONG_KEY ? h : h + varintSize(readVarint(e, h));
    }

    private static int valuePos(byte[] e) {
        int kl = (e[0] & 0xff) >>> KEYLEN_SHIFT;
        int h = headerLength(e);
        if (kl < LONG_KEY) return h + kl;
        kl = readVarint(e, h);
        return h + varintSize(kl) + kl;
    }

    public static boolean keyEquals(byte[] e, byte[] k, int off, int len) {
        int kl = (e[0] & 0xff) >>> KEYLEN_SHIFT;
        int ko = headerLength(e);
        if (kl == LONG_KEY) {
            kl = readVarint(e, ko);
            ko += varintSize(kl);
        }
        return kl == len && Arrays.equals(e, ko, ko + kl, k, off, off + len);
    }

    public static byte[] key(byte[] e) {
        int ko = keyOffset(e);
        return Arrays.copyOfRange(e, ko, ko + keyLength(e));
    }

    // ---- value ----------------------------------------------------------------------------------

    /** Offset of the value bytes (not meaningful for INT; a BIG value has none). */
    public static int valueOffset(byte[] e) {
        int v = valuePos(e);
        switch (encoding(e)) {
            case RAW:
                return v + 4;
            case BIG:
                throw new IllegalStateException("a native string value has no offset in its entry");
            default:
                return v;
        }
    }

    public static boolean isBig(byte[] e) {
        return encoding(e) == BIG;
    }

    /** Where a BIG value's bytes are. */
    public static long bigAddress(byte[] e) {
        return Bytes.getLongLE(e, valuePos(e));
    }

    /** How many bytes a BIG value has. */
    public static int bigLength(byte[] e) {
        return Bytes.getIntLE(e, valuePos(e) + 8);
    }

    /** Length of the value as a string (the decimal length for INT). */
    public static int valueLength(byte[] e) {
        int v = valuePos(e);
        switch (encoding(e)) {
            case INT:
                return Bytes.decimalLength(readInt(e, v));
            case RAW:
                return Bytes.getIntLE(e, v);
            case BIG:
                return Bytes.getIntLE(e, v + 8);
            default:
                return e.length - v;
        }
    }

    public static boolean isInt(byte[] e) {
        return encoding(e) == INT;
    }

    public static long intValue(byte[] e) {
        return readInt(e, valuePos(e));
    }

    /**
     * The entry with its INT value set to v: e itself, overwritten in place, when v fits in the
     * bytes the value has (INCR on an existing counter allocates nothing), else a new entry with
     * the same key and metadata that the caller must store instead.
     */
    public static byte[] setIntValue(byte[] e, long v) {
        int p = valuePos(e);
        int width = e.length - p;
        // a small integer in the unshared form (COPY's) becomes a shared one, as Redis's INCR
        // answers a value of 0..9999 with its shared object
        if (intWidth(v) <= width && !(width == UNSHARED_WIDTH && isSmallShared(v))) {
            writeInt(e, p, e.length - p, v);
            return e;
        }
        byte[] n = Arrays.copyOf(e, p + intWidth(v));
        writeInt(n, p, n.length - p, v);
        return n;
    }

    /**
     * Redis shares one object per integer 0..9999 (OBJECT REFCOUNT 2147483647), except where
     * COPY duplicated one: that copy is an object of its own until written. Spinel tells such a
     * copy by its value's width: 8 bytes, which no integer of that range otherwise takes.
     */
    private static final int UNSHARED_WIDTH = 8;

    private static boolean isSmallShared(long v) {
        return v >= 0 && v < 10000;
    }

    /** Whether this INT entry stands for one of Redis's shared integers (given that Redis shares them). */
    public static boolean isSharedInt(byte[] e) {
        if (encoding(e) != INT) return false;
        int p = valuePos(e);
        return e.length - p != UNSHARED_WIDTH && isSmallShared(readInt(e, p));
    }

    /** COPY's duplicate of an INT entry: a shared small integer becomes an object of its own. */
    public static byte[] unshared(byte[] e) {
        if (!isSharedInt(e)) return e;
        int p = valuePos(e);
        long v = readInt(e, p);
        byte[] n = Arrays.copyOf(e, p + UNSHARED_WIDTH);
        writeInt(n, p, UNSHARED_WIDTH, v);
        return n;
    }

    /** Bytes that hold v in two's complement: 1 for -128..127, up to 8. */
    static int intWidth(long v) {
        long m = v ^ (v >> 63); // the magnitude bits, sign folded away
        return (64 - Long.numberOfLeadingZeros(m)) / 8 + 1;
    }

    private static void writeInt(byte[] e, int p, int width, long v) {
        for (int i = 0; i < width; i++) {
            e[p + i] = (byte) v;
            v >>= 8;
        }
    }

    /** Reads the INT value at p, which runs to the end of the array, sign-extended. */
    private static long readInt(byte[] e, int p) {
        int width = e.length - p;
        long v = e[p + width - 1]; // the most significant byte carries the sign
        for (int i = width - 2; i >= 0; i--) v = (v << 8) | (e[p + i] & 0xff);
        return v;
    }

    /** The value as a fresh byte array (decimal text for INT). */
    public static byte[] value(byte[] e) {
        int v = valuePos(e);
        switch (encoding(e)) {
            case INT:
                return Bytes.longToBytes(readInt(e, v));
            case RAW:
                return Arrays.copyOfRange(e, v + 4, v + 4 + Bytes.getIntLE(e, v));
            case BIG: {
                byte[] b = new byte[Bytes.getIntLE(e, v + 8)];
                NativeMemory.copyTo(Bytes.getLongLE(e, v), b, 0, b.length);
                return b;
            }
            default:
                return Arrays.copyOfRange(e, v, e.length);
        }
    }

    /** Writes the value as a bulk string reply. */
    public static void replyValue(byte[] e, Reply r) {
        int v = valuePos(e);
        switch (encoding(e)) {
            case INT:
                r.bulkLong(readInt(e, v));
                break;
            case RAW:
                r.bulk(e, v + 4, Bytes.getIntLE(e, v));
                break;
            case BIG:
                r.bulkNative(Bytes.getLongLE(e, v), Bytes.getIntLE(e, v + 8));
                break;
            default:
                r.bulk(e, v, e.length - v);
                break;
        }
    }

    /** Spare bytes after a RAW value (0 for the other encodings). */
    public static int spare(byte[] e) {
        if (encoding(e) != RAW) return 0;
        int v = valuePos(e);
        return e.length - v - 4 - Bytes.getIntLE(e, v);
    }

    // ---- construction ---------------------------------------------------------------------------

    /** Bytes before the value: header, key length (for long keys) and key. */
    private static int keyPart(int kLen, long expireAt) {
        return (expireAt >= 0 ? EXPIRE_OFF + 8 : EXPIRE_OFF) + (kLen < LONG_KEY ? 0 : varintSize(kLen)) + kLen;
    }

    private static int keyLengthFlags(int kLen) {
        return Math.min(kLen, LONG_KEY) << KEYLEN_SHIFT;
    }

    private static int startEntry(byte[] e, int enc, long expireAt, int lru, byte[] k, int kOff, int kLen) {
        e[0] = (byte) (enc | (expireAt >= 0 ? HAS_EXPIRE : 0) | keyLengthFlags(kLen));
        setLru(e, lru);
        int p = EXPIRE_OFF;
        if (expireAt >= 0) {
            Bytes.putLongLE(e, p, expireAt);
            p += 8;
        }
        if (kLen >= LONG_KEY) p = writeVarint(e, p, kLen);
        System.arraycopy(k, kOff, e, p, kLen);
        return p + kLen;
    }

    /**
     * A string entry for the value, with the encoding Redis would pick: INT for a canonical
     * integer, EMBSTR up to 44 bytes, RAW beyond.
     *
     * @param expireAt absolute ms, or -1 for none
     */
    public static byte[] create(byte[] k, int kOff, int kLen, byte[] v, int vOff, int vLen, long expireAt, int lru) {
        if (vLen <= 20 && Bytes.isLong(v, vOff, vLen)) {
            return createInt(k, kOff, kLen, Bytes.parseLong(v, vOff, vLen), expireAt, lru);
        }
        if (vLen <= EMBSTR_MAX) {
            byte[] e = new byte[keyPart(kLen, expireAt) + vLen];
            int p = startEntry(e, EMBSTR, expireAt, lru, k, kOff, kLen);
            System.arraycopy(v, vOff, e, p, vLen);
            return e;
        }
        return createRaw(k, kOff, kLen, v, vOff, vLen, vLen, expireAt, lru);
    }

    /** A string entry holding exactly these bytes, never converted to INT (e.g. results of SETRANGE). */
    public static byte[] createRaw(byte[] k, int kOff, int kLen, byte[] v, int vOff, int vLen, int capacity,
                                   long expireAt, int lru) {
        byte[] e = new byte[keyPart(kLen, expireAt) + 4 + capacity];
        int p = startEntry(e, RAW, expireAt, lru, k, kOff, kLen);
        Bytes.putIntLE(e, p, vLen);
        System.arraycopy(v, vOff, e, p + 4, vLen);
        return e;
    }

    /**
     * Where a RAW value of a key of kLen bytes starts in its entry: a big argument read into its
     * own array at this offset can become the entry without being copied ({@link #adoptRaw}).
     */
    public static int rawValueOffset(int kLen, boolean hasExpire) {
        return keyPart(kLen, hasExpire ? 0 : -1) + 4;
    }

    /** Whether {@link #adoptRaw} can turn array v, holding the value at vOff, into the entry. */
    public static boolean canAdopt(byte[] v, int vOff, int vLen, int kLen, long expireAt) {
        return vLen > EMBSTR_MAX && vOff == rawValueOffset(kLen, expireAt >= 0) && v.length >= vOff + vLen;
    }

    /**
     * Makes v, which holds the value at {@link #rawValueOffset}, the RAW entry of this key by
     * writing the header and key in front of the value (what Redis does when it keeps a big
     * argument's query buffer as the value). Bytes after the value are spare room. Only after
     * {@link #canAdopt} said yes, and only for an array nothing else refers to.
     */
    public static byte[] adoptRaw(byte[] v, byte[] k, int kOff, int kLen, int vLen, long expireAt, int lru) {
        int p = startEntry(v, RAW, expireAt, lru, k, kOff, kLen);
        Bytes.putIntLE(v, p, vLen);
        return v;
    }

    /**
     * A BIG entry for the value of vLen bytes at address, which the entry owns from now on
     * (the caller hands it over; {@link BigValues} frees it).
     */
    public static byte[] adoptBig(byte[] k, int kOff, int kLen, long address, int vLen, long expireAt, int lru) {
        byte[] e = new byte[keyPart(kLen, expireAt) + 12];
        int p = startEntry(e, BIG, expireAt, lru, k, kOff, kLen);
        Bytes.putLongLE(e, p, address);
        Bytes.putIntLE(e, p + 8, vLen);
        return e;
    }

    /**
     * A BIG entry holding a copy of the value in new native memory, for values loaded from a file
     * (the RDB, the AOF): a data set of big values that lived outside the heap must load without
     * needing a heap of its size. The caller owns the memory until the entry is in a table
     * ({@link BigValues#freeUnstored} otherwise).
     */
    public static byte[] copyToBig(byte[] k, int kOff, int kLen, byte[] v, int vOff, int vLen, long expireAt, int lru) {
        long address = NativeMemory.allocate(vLen);
        NativeMemory.copyFrom(v, vOff, address, vLen);
        return adoptBig(k, kOff, kLen, address, vLen, expireAt, lru);
    }

    /** Whether a loaded string value of that length is kept in native memory ({@link #copyToBig}). */
    public static boolean loadsAsBig(int vLen) {
        return vLen >= RespReader.BIG_ARG && NativeMemory.available();
    }

    /** An EMBSTR/RAW entry for a value that Redis keeps as a string even if it looks numeric. */
    public static byte[] createString(byte[] k, int kOff, int kLen, byte[] v, int vOff, int vLen, long expireAt, int lru) {
        if (vLen <= EMBSTR_MAX) {
            byte[] e = new byte[keyPart(kLen, expireAt) + vLen];
            int p = startEntry(e, EMBSTR, expireAt, lru, k, kOff, kLen);
            System.arraycopy(v, vOff, e, p, vLen);
            return e;
        }
        return createRaw(k, kOff, kLen, v, vOff, vLen, vLen, expireAt, lru);
    }

    public static byte[] createInt(byte[] k, int kOff, int kLen, long value, long expireAt, int lru) {
        int width = intWidth(value);
        byte[] e = new byte[keyPart(kLen, expireAt) + width];
        int p = startEntry(e, INT, expireAt, lru, k, kOff, kLen);
        writeInt(e, p, width, value);
        return e;
    }

    /**
     * Whether a SET of vLen bytes can overwrite this entry in place, keeping its layout: an EMBSTR
     * of the same length, or a RAW entry (a value over 44 bytes) whose room holds the new value
     * with at most a tenth of it to spare, the free space Redis lets a string keep
     * (trimStringObjectIfNeeded). Overwriting keeps the array, which has long been in the old
     * generation, instead of storing a new one that the next young collection copies there while
     * the old one becomes garbage that only a mixed collection reclaims.
     */
    public static boolean canOverwrite(byte[] e, byte[] v, int vOff, int vLen, long expireAt) {
        if (hasExpire(e) != (expireAt >= 0)) return false;
        int p = valuePos(e);
        switch (encoding(e)) {
            case EMBSTR:
                return e.length - p == vLen && vLen <= EMBSTR_MAX && !(vLen <= 20 && Bytes.isLong(v, vOff, vLen));
            case RAW: {
                int room = e.length - p - 4;
                return vLen > EMBSTR_MAX && room >= vLen && room - vLen <= vLen / 10;
            }
            default:
                return false;
        }
    }

    /** Overwrites value (and expire) in place; only after {@link #canOverwrite} said yes. */
    public static void overwrite(byte[] e, byte[] v, int vOff, int vLen, long expireAt) {
        if (expireAt >= 0) Bytes.putLongLE(e, EXPIRE_OFF, expireAt);
        int p = valuePos(e);
        if (encoding(e) == RAW) {
            Bytes.putIntLE(e, p, vLen);
            p += 4;
        }
        System.arraycopy(v, vOff, e, p, vLen);
    }

    /** The same key and value with a new expire (-1 removes it); may return e itself. */
    public static byte[] withExpire(byte[] e, long expireAt) {
        boolean had = hasExpire(e);
        if (had && expireAt >= 0) {
            Bytes.putLongLE(e, EXPIRE_OFF, expireAt);
            return e;
        }
        if (!had && expireAt < 0) return e;
        int oldBody = headerLength(e);
        int bodyLen = e.length - oldBody;
        int newBody = expireAt >= 0 ? EXPIRE_OFF + 8 : EXPIRE_OFF;
        byte[] n = new byte[newBody + bodyLen];
        n[0] = (byte) ((e[0] & ~HAS_EXPIRE) | (expireAt >= 0 ? HAS_EXPIRE : 0));
        n[1] = e[1];
        n[2] = e[2];
        n[3] = e[3];
        if (expireAt >= 0) Bytes.putLongLE(n, EXPIRE_OFF, expireAt);
        System.arraycopy(e, oldBody, n, newBody, bodyLen);
        return n;
    }

    /** The same value and metadata under another key (RENAME, MOVE, COPY). */
    public static byte[] withKey(byte[] e, byte[] k, int kOff, int kLen) {
        int vp = valuePos(e);
        int valueBytes = e.length - vp;
        int hdr = headerLength(e);
        byte[] n = new byte[hdr + (kLen < LONG_KEY ? 0 : varintSize(kLen)) + kLen + valueBytes];
        System.arraycopy(e, 0, n, 0, hdr);
        n[0] = (byte) ((e[0] & ~(0xff << KEYLEN_SHIFT)) | keyLengthFlags(kLen));
        int p = kLen < LONG_KEY ? hdr : writeVarint(n, hdr, kLen);
        System.arraycopy(k, kOff, n, p, kLen);
        System.arraycopy(e, vp, n, p + kLen, valueBytes);
        return n;
    }

    /**
     * The entry with its value replaced by {@code len} bytes that the caller then fills at
     * {@link #valueOffset}: RAW with room to grow (APPEND, SETRANGE). Keeps the first
     * {@code keep} bytes of the old value; may return e itself when the spare room suffices.
     */
    public static byte[] resizeRaw(byte[] e, int newLen, int keep) {
        if (encoding(e) == RAW) {
            int v = valuePos(e);
            if (e.length - v - 4 >= newLen) {
                Bytes.putIntLE(e, v, newLen);
                return e;
            }
        }
        byte[] old = value(e);
        int kl = keyLength(e);
        int ko = keyOffset(e);
        long overhead = (long) ko + kl + 4;
        long capacity = newLen < MAX_PREALLOC ? newLen * 2L : newLen + (long) MAX_PREALLOC;
        // the preallocation must not push the array past what the JVM can allocate
        capacity = Math.max(newLen, Math.min(capacity, MAX_ARRAY - overhead));
        byte[] n = new byte[(int) (overhead + capacity)];
        System.arraycopy(e, 0, n, 0, ko + kl);
        n[0] = (byte) ((e[0] & ~ENC_MASK) | RAW);
        int p = ko + kl;
        Bytes.putIntLE(n, p, newLen);
        System.arraycopy(old, 0, n, p + 4, Math.min(keep, Math.min(old.length, newLen)));
        return n;
    }

    /**
     * The entry with its value in the RAW encoding, ready to be edited in place (Redis's
     * dbUnshareStringValue): e itself if it already is RAW, else a copy with exactly the value's
     * length (the decimal text for INT), the same key, expire and LRU.
     */
    public static byte[] toRaw(byte[] e) {
        int enc = encoding(e);
        if (enc == RAW) return e;
        if (enc == BIG) {
            // straight from native memory into the new entry (e keeps its memory: BigValues frees it)
            int v = valuePos(e);
            int len = Bytes.getIntLE(e, v + 8);
            byte[] n = new byte[v + 4 + len];
            System.arraycopy(e, 0, n, 0, v);
            n[0] = (byte) ((n[0] & ~ENC_MASK) | RAW);
            Bytes.putIntLE(n, v, len);
            NativeMemory.copyTo(Bytes.getLongLE(e, v), n, v + 4, len);
            return n;
        }
        int ko = keyOffset(e);
        int kl = keyLength(e);
        if (enc == INT) {
            byte[] v = value(e);
            return createRaw(e, ko, kl, v, 0, v.length, v.length, expire(e), lru(e));
        }
        int vo = valueOffset(e);
        int vl = valueLength(e);
        return createRaw(e, ko, kl, e, vo, vl, vl, expire(e), lru(e));
    }

    /** Largest array the JVM reliably allocates. */
    private static final long MAX_ARRAY = Integer.MAX_VALUE - 8;

    /**
     * The longest value an entry for a key of {@code keyLen} bytes can hold: Java arrays stop
     * short of 2 GB, where Redis strings only stop at proto-max-bulk-len.
     */
    public static long maxValueLength(int keyLen) {
        return MAX_ARRAY - (EXPIRE_OFF + 8 + varintSize(keyLen) + keyLen + 4);
    }

    /**
     * Bytes this entry takes, for memory accounting: its array (object header included) and, for
     * BIG, the native block it owns (its size class).
     */
    public static long heapSize(byte[] e) {
        long n = (16L + e.length + 7) & ~7L;
        return isBig(e) ? n + NativeMemory.footprint(bigLength(e)) : n;
    }

    // ---- varint ---------------------------------------------------------------------------------

    static int varintSize(int v) {
        if (v < 0x80) return 1;
        if (v < 0x4000) return 2;
        if (v < 0x200000) return 3;
        if (v < 0x10000000) return 4;
        return 5;
    }

    private static int writeVarint(byte[] b, int p, int v) {
        while (v >= 0x80) {
            b[p++] = (byte) (v | 0x80);
            v >>>= 7;
        }
        b[p++] = (byte) v;
        return p;
    }

    private static int readVarint(byte[] b, int p) {
        int v = 0, shift = 0;
        while (true) {
            int x = b[p++];
            v |= (x & 0x7f) << shift;
            if (x >= 0) return v;
            shift += 7;
        }
    }
}
