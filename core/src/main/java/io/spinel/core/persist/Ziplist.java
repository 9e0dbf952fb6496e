package io.spinel.core.persist;

import io.spinel.core.util.Bytes;

/**
 * Reader of the ziplist blobs older RDB files hold (list, hash and sorted set encodings before
 * Redis 7): a 10-byte header (total bytes, tail offset, count), entries each made of the
 * previous entry's length (1 or 5 bytes), an encoding (6, 14 or 32-bit big-endian string
 * lengths; 8 to 64-bit integers; 4-bit immediates) and the payload, then a 0xFF terminator.
 */
final class Ziplist extends Elements {
    private static final int HEADER = 10;
    private final int end; // position of the terminator
    private final int declared;
    private int p;
    private int prevLen;
    private int seen;
    /** Where the header says the last entry starts, and where the last one read did. */
    private final int tail;
    private int lastEntry = -1;
    /** What the blob is, as Redis's integrity error names it ("Zset ziplist", "Ziplist" for a quicklist node). */
    private final String what;

    Ziplist(byte[] b, int off, int len, String what) {
        this.what = what;
        if (len < HEADER + 1) throw corrupt();
        if ((Bytes.getIntLE(b, off) & 0xFFFFFFFFL) != len || (b[off + len - 1] & 0xff) != 0xFF) throw corrupt();
        long tail = Bytes.getIntLE(b, off + 4) & 0xFFFFFFFFL;
        if (tail > len - 1) throw corrupt();
        this.tail = off + (int) tail;
        this.buf = b;
        this.end = off + len - 1;
        this.p = off + HEADER;
        this.declared = (b[off + 8] & 0xff) | (b[off + 9] & 0xff) << 8;
    }

    private RdbException corrupt() {
        return new RdbException(what + " integrity check failed.");
    }

    @Override
    boolean next() {
        byte[] b = buf;
        if (p >= end) {
            if (p != end || (declared != 65535 && declared != seen)) throw corrupt();
            // the header's tail offset must be the last entry's (Redis's ziplistValidateIntegrity)
            if (lastEntry >= 0 && lastEntry != tail) throw corrupt();
            return false;
        }
        int entryStart = p;
        int pl;
        if ((b[p] & 0xff) < 254) {
            pl = b[p] & 0xff;
            p += 1;
        } else if ((b[p] & 0xff) == 254) {
            need(5);
            pl = Bytes.getIntLE(b, p + 1);
            p += 5;
        } else {
            throw corrupt();
        }
        if (pl != prevLen) throw corrupt();
        need(1);
        int e = b[p] & 0xff;
        switch (e >>> 6) {
            case 0:
                string(p + 1, e & 0x3f);
                break;
            case 1:
                need(2);
                string(p + 2, ((e & 0x3f) << 8) | (b[p + 1] & 0xff));
                break;
            case 2: {
                need(5);
                long l = (b[p + 1] & 0xffL) << 24 | (b[p + 2] & 0xff) << 16 | (b[p + 3] & 0xff) << 8 | (b[p + 4] & 0xff);
                if (l > end - p) throw corrupt();
                string(p + 5, (int) l);
                break;
            }
            default:
                isInt = true;
                if (e == 0xC0) {
                    need(3);
                    intValue = (short) ((b[p + 1] & 0xff) | (b[p + 2] & 0xff) << 8);
                    p += 3;
                } else if (e == 0xD0) {
                    need(5);
                    intValue = Bytes.getIntLE(b, p + 1);
                    p += 5;
                } else if (e == 0xE0) {
                    need(9);
                    intValue = Bytes.getLongLE(b, p + 1);
                    p += 9;
                } else if (e == 0xF0) {
                    need(4);
                    intValue = (b[p + 1] & 0xff) | (b[p + 2] & 0xff) << 8 | (b[p + 3] << 16);
                    p += 4;
                } else if (e == 0xFE) {
                    need(2);
                    intValue = b[p + 1];
                    p += 2;
                } else if (e >= 0xF1 && e <= 0xFD) {
                    intValue = (e & 0x0f) - 1;
                    p += 1;
                } else {
                    throw corrupt();
                }
                break;
        }
        prevLen = p - entryStart;
        lastEntry = entryStart;
        seen++;
        return true;
    }

    private void need(int n) {
        if (p + n > end) throw corrupt();
    }

    private void string(int at, int l) {
        if (at + l > end) throw corrupt();
        isInt = false;
        off = at;
        len = l;
        p = at + l;
    }
}
