package io.spinel.core.persist;

import io.spinel.core.util.Bytes;

/**
 * A cursor over the elements of one of Redis's packed encodings (listpack, ziplist, zipmap) read
 * from an RDB payload. After {@link #next()} returns true the current element is either an
 * integer ({@link #isInt()}, {@link #intValue()}) or a byte string in place
 * ({@link #buf()}, {@link #off()}, {@link #len()}).
 */
abstract class Elements {
    boolean isInt;
    long intValue;
    byte[] buf;
    int off;
    int len;

    /** Advances; false at the end. Throws {@link RdbException} on malformed data. */
    abstract boolean next();

    final boolean isInt() {
        return isInt;
    }

    final long intValue() {
        return intValue;
    }

    /** The current element as bytes (integers as their decimal text). */
    final byte[] bytes() {
        return isInt ? Bytes.longToBytes(intValue) : Bytes.copy(buf, off, len);
    }
}
