package io.spinel.core.persist;

import io.spinel.core.util.Bytes;

/**
 * Reader of the zipmap blobs of hashes in RDB files written before Redis 2.6: a count byte,
 * then field and value pairs, each string prefixed by its length (one byte below 254, or 254
 * and a 4-byte little-endian length), values also followed by a byte counting unused bytes
 * after them; 0xFF ends the map. Elements alternate field, value.
 */
final class Zipmap extends Elements {
    private static final int BIGLEN = 254;
    private static final int END = 0xFF;
    private final int end; // last byte (the terminator)
    private int p;
    private boolean field = true;
    private int freeAfter;
    /** The count byte (BIGLEN: too many to count there), and the pairs read so far. */
    private final int declared;
    private int pairs;

    Zipmap(byte[] b, int off, int len) {
        if (len < 2 || (b[off + len - 1] & 0xff) != END) throw corrupt();
        this.buf = b;
        this.end = off + len - 1;
        this.p = off + 1;
        this.declared = b[off] & 0xff;
    }

    private static RdbException corrupt() {
        return new RdbException("Zipmap integrity check failed.");
    }

    @Override
    boolean next() {
        byte[] b = buf;
        if (field) {
            if (p > end) throw corrupt();
            if ((b[p] & 0xff) == END) {
                // an empty map, or one whose count byte is wrong, is corrupt (Redis's zipmapValidateIntegrity)
                if (p != end || pairs == 0 || (declared != BIGLEN && declared != pairs)) throw corrupt();
                return false;
            }
        }
        long l;
        if (p > end) throw corrupt();
        if ((b[p] & 0xff) < BIGLEN) {
            l = b[p] & 0xff;
            p += 1;
        } else if ((b[p] & 0xff) == BIGLEN) {
            if (p + 5 > end) throw corrupt();
            l = Bytes.getIntLE(b, p + 1) & 0xFFFFFFFFL;
            p += 5;
        } else {
            throw corrupt();
        }
        if (!field) {
            if (p >= end) throw corrupt();
            freeAfter = b[p] & 0xff;
            p += 1;
        }
        if (l > end - p) throw corrupt();
        isInt = false;
        off = p;
        len = (int) l;
        p += len;
        if (!field) {
            if (freeAfter > end - p) throw corrupt();
            p += freeAfter;
            pairs++;
        }
        field = !field;
        return true;
    }
}
