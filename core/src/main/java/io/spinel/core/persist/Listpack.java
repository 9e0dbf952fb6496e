package io.spinel.core.persist;

import io.spinel.core.util.Bytes;

import java.util.Arrays;

/**
 * Redis's listpack, the serialized form of small hashes, small sorted sets and the nodes of
 * lists in RDB version 10: a 6-byte header (total bytes, element count, both little endian),
 * entries, and a 0xFF terminator. Each entry is an encoding byte with its payload (integers in
 * 7, 13, 16, 24, 32 or 64 bits; strings with 6, 12 or 32-bit lengths) followed by the entry's
 * length written backwards, so the list can be walked from either end.
 */
public final class Listpack {
    private Listpack() {
    }

    public static final int HEADER = 6;
    public static final int EOF = 0xFF;
    private static final int COUNT_UNKNOWN = 65535;

    // ---- entry encoding, shared by the RDB builder below and the streams' in-memory nodes -------

    /** Writes an integer entry and its backlen at p (room checked by the caller); returns the end. */
    public static int writeInt(byte[] b, int p, long v) {
        int start = p;
        if (v >= 0 && v <= 127) {
            b[p++] = (byte) v;
        } else if (v >= -4096 && v <= 4095) {
            long u = v < 0 ? (1L << 13) + v : v;
            b[p++] = (byte) ((u >>> 8) | 0xC0);
            b[p++] = (byte) u;
        } else if (v >= -32768 && v <= 32767) {
            b[p++] = (byte) 0xF1;
            b[p++] = (byte) v;
            b[p++] = (byte) (v >> 8);
        } else if (v >= -8388608 && v <= 8388607) {
            b[p++] = (byte) 0xF2;
            b[p++] = (byte) v;
            b[p++] = (byte) (v >> 8);
            b[p++] = (byte) (v >> 16);
        } else if (v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE) {
            b[p++] = (byte) 0xF3;
            Bytes.putIntLE(b, p, (int) v);
            p += 4;
        } else {
            b[p++] = (byte) 0xF4;
            Bytes.putLongLE(b, p, v);
            p += 8;
        }
        return writeBacklen(b, p, p - start);
    }

    /** Writes bytes as a string entry (never as an integer) and its backlen at p; returns the end. */
    public static int writeString(byte[] b, int p, byte[] s, int off, int len) {
        int start = p;
        if (len < 64) {
            b[p++] = (byte) (0x80 | len);
        } else if (len < 4096) {
            b[p++] = (byte) (0xE0 | (len >>> 8));
            b[p++] = (byte) len;
        } else {
            b[p++] = (byte) 0xF0;
            Bytes.putIntLE(b, p, len);
            p += 4;
        }
        System.arraycopy(s, off, b, p, len);
        p += len;
        return writeBacklen(b, p, p - start);
    }

    /** Writes bytes as lpAppend does (a canonical integer becomes an integer entry); returns the end. */
    public static int writeElement(byte[] b, int p, byte[] s, int off, int len) {
        if (len > 0 && len <= 20 && Bytes.isLong(s, off, len)) return writeInt(b, p, Bytes.parseLong(s, off, len));
        return writeString(b, p, s, off, len);
    }

    /**
     * The bytes {@link #writeElement} takes for these bytes, backlen included: what a listpack
     * grows by when the element is added (a stream node's room, a list node's size kept to split
     * and merge nodes where Redis does).
     */
    public static int elementSize(byte[] s, int off, int len) {
        if (len > 0 && len <= 20 && Bytes.isLong(s, off, len)) return intSize(Bytes.parseLong(s, off, len));
        return stringSize(len);
    }

    /** The bytes {@link #writeInt} takes, backlen included. */
    public static int intSize(long v) {
        int entry;
        if (v >= 0 && v <= 127) entry = 1;
        else if (v >= -4096 && v <= 4095) entry = 2;
        else if (v >= -32768 && v <= 32767) entry = 3;
        else if (v >= -8388608 && v <= 8388607) entry = 4;
        else if (v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE) entry = 5;
        else entry = 9;
        return entry + backlenSize(entry);
    }

    /** The bytes {@link #writeString} takes for a string of len bytes, backlen included. */
    public static int stringSize(int len) {
        int entry = (len < 64 ? 1 : len < 4096 ? 2 : 5) + len;
        return entry + backlenSize(entry);
    }

    /** The entry's length l written backwards, 7 bits a byte, at p; returns the end. */
    private static int writeBacklen(byte[] b, int p, int l) {
        if (l <= 127) {
            b[p++] = (byte) l;
        } else if (l < 16383) {
            b[p++] = (byte) (l >>> 7);
            b[p++] = (byte) ((l & 127) | 128);
        } else if (l < 2097151) {
            b[p++] = (byte) (l >>> 14);
            b[p++] = (byte) (((l >>> 7) & 127) | 128);
            b[p++] = (byte) ((l & 127) | 128);
        } else if (l < 268435455) {
            b[p++] = (byte) (l >>> 21);
            b[p++] = (byte) (((l >>> 14) & 127) | 128);
            b[p++] = (byte) (((l >>> 7) & 127) | 128);
            b[p++] = (byte) ((l & 127) | 128);
        } else {
            b[p++] = (byte) (l >>> 28);
            b[p++] = (byte) (((l >>> 21) & 127) | 128);
            b[p++] = (byte) (((l >>> 14) & 127) | 128);
            b[p++] = (byte) (((l >>> 7) & 127) | 128);
            b[p++] = (byte) ((l & 127) | 128);
        }
        return p;
    }

    /** Bytes of the backlen of an entry of l bytes. */
    public static int backlenSize(int l) {
        if (l <= 127) return 1;
        if (l < 16383) return 2;
        if (l < 2097151) return 3;
        if (l < 268435455) return 4;
        return 5;
    }

    /** Writes the header: total bytes and element count (65535 when it does not fit). */
    public static void writeHeader(byte[] b, int total, int count) {
        Bytes.putIntLE(b, 0, total);
        int n = Math.min(count, COUNT_UNKNOWN);
        b[4] = (byte) n;
        b[5] = (byte) (n >>> 8);
    }

    /** Builds a listpack blob element by element, as lpAppend does (integer-looking strings become integers). */
    static final class Builder {
        private byte[] b;
        private int p = HEADER;
        private int count;

        Builder(int capacity) {
            b = new byte[Math.max(capacity, 16) + HEADER + 1];
        }

        /** Empties the builder for the next blob, keeping its array (snapshots reuse one). */
        void reset() {
            p = HEADER;
            count = 0;
        }

        /** Bytes of array held, for dropping a builder that grew for one huge value. */
        int capacity() {
            return b.length;
        }

        private void ensure(int extra) {
            if (p + extra + 1 > b.length) b = Arrays.copyOf(b, Math.max(p + extra + 1, b.length * 2));
        }

        /** Appends a string, stored as an integer when it is a canonical integer (lpStringToInt64). */
        void add(byte[] s, int off, int len) {
            if (len > 0 && len <= 20 && Bytes.isLong(s, off, len)) addLong(Bytes.parseLong(s, off, len));
            else addString(s, off, len);
        }

        void addString(byte[] s, int off, int len) {
            ensure(len + 10);
            p = writeString(b, p, s, off, len);
            count++;
        }

        void addLong(long v) {
            ensure(14);
            p = writeInt(b, p, v);
            count++;
        }

        /** Terminates the blob; the result holds {@link #length()} bytes. */
        byte[] finish() {
            ensure(1);
            b[p++] = (byte) EOF;
            writeHeader(b, p, count);
            return b;
        }

        int length() {
            return p;
        }
    }

    /** Validates a listpack blob and walks its elements. */
    static final class Reader extends Elements {
        private int end; // position of the terminator
        private int p;
        private int seen;
        private int declared;

        Reader(byte[] b, int off, int len) {
            reset(b, off, len);
        }

        /** Reads another listpack with this reader (a load reads one per collection). */
        Reader reset(byte[] b, int off, int len) {
            if (len < HEADER + 1) throw new RdbException("Listpack integrity check failed.");
            long total = Bytes.getIntLE(b, off) & 0xFFFFFFFFL;
            if (total != len || (b[off + len - 1] & 0xff) != EOF) throw new RdbException("Listpack integrity check failed.");
            this.buf = b;
            this.end = off + len - 1;
            this.p = off + HEADER;
            this.seen = 0;
            this.isInt = false;
            this.declared = (b[off + 4] & 0xff) | (b[off + 5] & 0xff) << 8;
            return this;
        }

        /**
         * Leaves the header's element count unchecked: Redis validates a stream's listpacks entry
         * by entry but not their count (streamValidateListpackIntegrity), and keeps them as they are.
         */
        Reader ignoringDeclaredCount() {
            declared = COUNT_UNKNOWN;
            return this;
        }

        @Override
        boolean next() {
            byte[] b = buf;
            if (p >= end) {
                if (p != end || (declared != COUNT_UNKNOWN && declared != seen)) {
                    throw new RdbException("Listpack integrity check failed.");
                }
                return false;
            }
            int start = p;
            int e = b[p] & 0xff;
            if ((e & 0x80) == 0) {
                isInt = true;
                intValue = e;
                p += 1;
            } else if ((e & 0xC0) == 0x80) {
                setString(p + 1, e & 0x3f);
            } else if ((e & 0xE0) == 0xC0) {
                need(2);
                long u = ((e & 0x1f) << 8) | (b[p + 1] & 0xff);
                isInt = true;
                intValue = u >= (1 << 12) ? u - (1 << 13) : u;
                p += 2;
            } else if ((e & 0xF0) == 0xE0) {
                need(2);
                setString(p + 2, ((e & 0xf) << 8) | (b[p + 1] & 0xff));
            } else if (e == 0xF1) {
                need(3);
                isInt = true;
                intValue = (short) ((b[p + 1] & 0xff) | (b[p + 2] & 0xff) << 8);
                p += 3;
            } else if (e == 0xF2) {
                need(4);
                isInt = true;
                intValue = ((b[p + 1] & 0xff) | (b[p + 2] & 0xff) << 8 | (b[p + 3] << 16));
                p += 4;
            } else if (e == 0xF3) {
                need(5);
                isInt = true;
                intValue = Bytes.getIntLE(b, p + 1);
                p += 5;
            } else if (e == 0xF4) {
                need(9);
                isInt = true;
                intValue = Bytes.getLongLE(b, p + 1);
                p += 9;
            } else if (e == 0xF0) {
                need(5);
                long l = Bytes.getIntLE(b, p + 1) & 0xFFFFFFFFL;
                if (l > end - p) throw new RdbException("Listpack integrity check failed.");
                setString(p + 5, (int) l);
            } else {
                throw new RdbException("Listpack integrity check failed.");
            }
            int entryLen = p - start;
            // the backlen must follow and encode the entry's length
            int bl = backlenSize(entryLen);
            if (p + bl > end) throw new RdbException("Listpack integrity check failed.");
            // decoded as a reader walking back decodes it (Redis's lpDecodeBacklen): from the last
            // byte back while the high bit says more, at most five bytes
            long v = 0;
            for (int i = p + bl - 1, shift = 0; ; i--, shift += 7) {
                if (shift > 28) throw new RdbException("Listpack integrity check failed.");
                v |= (long) (b[i] & 127) << shift;
                if ((b[i] & 128) == 0) break;
            }
            if (v != entryLen) throw new RdbException("Listpack integrity check failed.");
            p += bl;
            seen++;
            return true;
        }

        private void need(int n) {
            if (p + n > end) throw new RdbException("Listpack integrity check failed.");
        }

        private void setString(int at, int l) {
            if (at + l > end) throw new RdbException("Listpack integrity check failed.");
            isInt = false;
            off = at;
            len = l;
            p = at + l;
        }

    }
}
