package io.spinel.core.type.stream;

import io.spinel.core.persist.Listpack;
import io.spinel.core.util.Bytes;

/**
 * Element-level access to a listpack held in a growable byte array: the layout of a stream node
 * is Redis's own (6-byte header with total bytes and element count, entries each followed by
 * their length written backwards, 0xFF terminator), so that a node goes to and comes from an RDB
 * file as it is, and the byte-size limits of stream-node-max-bytes apply to the same numbers.
 * Decoding fills the fields of one reusable {@link Lp} cursor.
 */
final class Lp {
    static final int HEADER = Listpack.HEADER;
    static final int EOF = Listpack.EOF;

    /** The element just decoded: an integer, or a string at buf[off, off+len). */
    boolean isInt;
    long intValue;
    byte[] buf;
    int off;
    int len;
    /** Position of the element after the decoded one. */
    int next;

    /** Decodes the element at p of b. */
    Lp decode(byte[] b, int p) {
        int e = b[p] & 0xff;
        int start = p;
        buf = b;
        if ((e & 0x80) == 0) {
            isInt = true;
            intValue = e;
            p += 1;
        } else if ((e & 0xC0) == 0x80) {
            isInt = false;
            off = p + 1;
            len = e & 0x3f;
            p = off + len;
        } else if ((e & 0xE0) == 0xC0) {
            long u = ((e & 0x1f) << 8) | (b[p + 1] & 0xff);
            isInt = true;
            intValue = u >= (1 << 12) ? u - (1 << 13) : u;
            p += 2;
        } else if ((e & 0xF0) == 0xE0) {
            isInt = false;
            len = ((e & 0xf) << 8) | (b[p + 1] & 0xff);
            off = p + 2;
            p = off + len;
        } else if (e == 0xF1) {
            isInt = true;
            intValue = (short) ((b[p + 1] & 0xff) | (b[p + 2] & 0xff) << 8);
            p += 3;
        } else if (e == 0xF2) {
            isInt = true;
            intValue = (b[p + 1] & 0xff) | (b[p + 2] & 0xff) << 8 | (b[p + 3] << 16);
            p += 4;
        } else if (e == 0xF3) {
            isInt = true;
            intValue = Bytes.getIntLE(b, p + 1);
            p += 5;
        } else if (e == 0xF4) {
            isInt = true;
            intValue = Bytes.getLongLE(b, p + 1);
            p += 9;
        } else if (e == 0xF0) {
            isInt = false;
            len = Bytes.getIntLE(b, p + 1);
            off = p + 5;
            p = off + len;
        } else {
            throw new IllegalStateException("bad listpack encoding " + e);
        }
        next = p + backlenSize(p - start);
        return this;
    }

    /** The integer element at p. */
    long intAt(byte[] b, int p) {
        decode(b, p);
        if (!isInt) return Bytes.parseLong(buf, off, len);
        return intValue;
    }

    /** Position after the element at p. */
    int skip(byte[] b, int p) {
        return decode(b, p).next;
    }

    /** Whether the decoded element equals the bytes s[o, o+l). */
    boolean equalsBytes(byte[] s, int o, int l) {
        if (isInt) {
            if (l == 0 || l > 20 || !Bytes.isLong(s, o, l)) return false;
            return Bytes.parseLong(s, o, l) == intValue;
        }
        return Bytes.compare(buf, off, len, s, o, l) == 0;
    }

    /** The decoded element as bytes. */
    byte[] bytes() {
        return isInt ? Bytes.longToBytes(intValue) : Bytes.copy(buf, off, len);
    }

    static int backlenSize(int l) {
        return Listpack.backlenSize(l);
    }

    /** Reads the backlen that ends just before p: the length of the element before p, without its backlen. */
    static int prevLen(byte[] b, int p) {
        long v = 0;
        int shift = 0;
        int i = p - 1;
        while (true) {
            int x = b[i] & 0xff;
            v |= (long) (x & 127) << shift;
            if ((x & 128) == 0) break;
            shift += 7;
            i--;
        }
        return (int) v;
    }

    /** Start of the element that ends just before p. */
    static int prev(byte[] b, int p) {
        int l = prevLen(b, p);
        return p - backlenSize(l) - l;
    }

    // ---- encoded sizes (the entries themselves are written by persist.Listpack) -------------------

    /** Encoded size (element and backlen) of an integer. */
    static int intSize(long v) {
        return Listpack.intSize(v);
    }

    /** Encoded size of a string stored as it is. */
    static int strSize(int len) {
        return Listpack.stringSize(len);
    }

    /** Encoded size of bytes added with lpAppend (integer-looking strings become integers). */
    static int size(byte[] s, int o, int l) {
        return Listpack.elementSize(s, o, l);
    }

    static int count(byte[] b) {
        return (b[4] & 0xff) | (b[5] & 0xff) << 8;
    }
}
