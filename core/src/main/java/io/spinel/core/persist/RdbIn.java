package io.spinel.core.persist;

import io.spinel.core.util.Bytes;
import io.spinel.core.util.Doubles;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * Reads RDB primitives (Redis's rdbLoad* functions) from a byte array (a DUMP payload) or a
 * stream (a file), keeping the CRC-64 of everything consumed so the trailing checksum can be
 * verified. Truncated or malformed input raises {@link RdbException}.
 */
public final class RdbIn {
    private final InputStream in;
    private byte[] buf;
    private int pos;
    private int limit;
    /** Bytes consumed before buf[0]. */
    private long base;
    private long crc;
    /** Position in buf up to which crc covers. */
    private int crcPos;
    private final boolean checksum;

    /** Over a byte array (no checksum tracking; DUMP verifies its footer separately). */
    public RdbIn(byte[] data, int off, int len) {
        this.in = null;
        this.buf = data;
        this.pos = off;
        this.limit = off + len;
        this.crcPos = off;
        this.base = -off;
        this.checksum = false;
    }

    /**
     * Bytes read from the stream at a time (the stream itself is buffered). Small on purpose: with
     * 64 KB the JIT's profile of a loading start had never seen {@link #readByte} refill, so C2
     * compiled the refill as a trap, and the first refill after compiling deoptimized every method
     * readByte was inlined into (five per start of 1M keys, each compiled again); a refill every
     * 8 KB is in the profile. 1M mixed keys: 5 deoptimizations instead of 14, the load 4% shorter
     * (medians of 7 alternating starts).
     */
    private static final int STREAM_CHUNK = 8 << 10;

    /** Over a stream, checksumming as it reads. */
    public RdbIn(InputStream in, boolean checksum) {
        this.in = in;
        this.buf = new byte[STREAM_CHUNK];
        this.checksum = checksum;
    }

    /** Bytes consumed so far. */
    public long position() {
        return base + pos;
    }

    /** The CRC-64 of every byte consumed so far. */
    public long crc() {
        if (checksum && crcPos < pos) {
            crc = Crc64.update(crc, buf, crcPos, pos - crcPos);
            crcPos = pos;
        }
        return crc;
    }

    private static RdbException eof() {
        return new RdbException("Unexpected EOF reading RDB file");
    }

    /** Makes at least n bytes available (n at most the buffer size); false at end of input. */
    private boolean fill(int n) {
        if (limit - pos >= n) return true;
        if (in == null) return false;
        crc();
        int keep = limit - pos;
        if (n > buf.length) buf = Arrays.copyOf(buf, Math.max(n, buf.length * 2));
        System.arraycopy(buf, pos, buf, 0, keep);
        base += pos;
        pos = 0;
        crcPos = 0;
        limit = keep;
        try {
            while (limit < n) {
                int r = in.read(buf, limit, buf.length - limit);
                if (r < 0) return false;
                limit += r;
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return true;
    }

    /** Whether the input has no more bytes. */
    public boolean atEnd() {
        return !fill(1);
    }

    public int readByte() {
        if (pos >= limit && !fill(1)) throw eof();
        return buf[pos++] & 0xff;
    }

    public void readFully(byte[] dst, int off, int len) {
        while (len > 0) {
            if (pos >= limit && !fill(1)) throw eof();
            int n = Math.min(len, limit - pos);
            System.arraycopy(buf, pos, dst, off, n);
            pos += n;
            off += n;
            len -= n;
        }
    }

    public long readLongLE() {
        if (!fill(8)) throw eof();
        long v = Bytes.getLongLE(buf, pos);
        pos += 8;
        return v;
    }

    public int readIntLE() {
        if (!fill(4)) throw eof();
        int v = Bytes.getIntLE(buf, pos);
        pos += 4;
        return v;
    }

    /** Set by {@link #readLenOrEncoding()} when the value read is a special string encoding. */
    private boolean encoded;

    /**
     * rdbLoadLen for plain lengths. A special-encoding byte here is read as its low six bits, as
     * Redis's rdbLoadLen reads it when the caller does not ask about encodings.
     */
    public long readLen() {
        return readLenOrEncoding();
    }

    /**
     * A length where Redis does not check for its read error (a stream's IDs and counters): a
     * first byte of no known length encoding is read as Redis's RDB_LENERR, all bits set (-1),
     * and loading goes on from the next byte.
     */
    public long readLenUnchecked() {
        if (pos >= limit && !fill(1)) throw eof();
        int b = buf[pos] & 0xff;
        if ((b & 0xC0) == 0x80 && b != Rdb.LEN_32BIT && b != Rdb.LEN_64BIT) {
            pos++;
            return -1;
        }
        return readLen();
    }

    /** A length that must fit an int (an element count or a string size Java can hold). */
    public int readIntLen() {
        long v = readLen();
        if (v < 0 || v > Integer.MAX_VALUE - 16) throw new RdbException("Length out of range: " + Long.toUnsignedString(v));
        return (int) v;
    }

    private long readLenOrEncoding() {
        int b = readByte();
        int kind = (b & 0xC0) >>> 6;
        encoded = false;
        switch (kind) {
            case 3:
                encoded = true;
                return b & 0x3F;
            case 0:
                return b & 0x3F;
            case 1:
                return ((b & 0x3F) << 8) | readByte();
            default:
                if (b == Rdb.LEN_32BIT) {
                    long v = 0;
                    for (int i = 0; i < 4; i++) v = (v << 8) | readByte();
                    return v;
                }
                if (b == Rdb.LEN_64BIT) {
                    long v = 0;
                    for (int i = 0; i < 8; i++) v = (v << 8) | readByte();
                    return v;
                }
                throw new RdbException("Unknown length encoding " + kind + " in rdbLoadLen()");
        }
    }

    /** A string in any of its encodings (plain, 8/16/32-bit integer, LZF). */
    public byte[] readString() {
        long len = readLenOrEncoding();
        if (encoded) {
            if (len != Rdb.ENC_LZF) return readEncodedInteger(len);
            int clen = readIntLen();
            int ulen = lzfLength(clen);
            return decompress(clen, new byte[ulen], ulen);
        }
        int n = plainLength(len);
        byte[] s = new byte[n];
        readFully(s, 0, n);
        return s;
    }

    /** Buffers {@link #readTransient} reuses: the string, and the compressed form of an LZF one. */
    private byte[] transientBuf = new byte[0];
    private byte[] compressedBuf = new byte[0];
    private int transientOffset;
    private int transientLength;

    /**
     * A string the caller is done with before its next read from this stream (a packed blob that
     * is turned into Spinel's own encoding, a value the caller copies): returned in an array this
     * stream reuses, from {@link #transientOffset()} for {@link #transientLength()} bytes. Loading
     * a file reads one such string per key, and allocating each only to drop it made a good part
     * of the garbage a load collects. A plain string that fits the read buffer is handed out
     * where it lies there, without a copy (the checksum covers it when the buffer next moves on).
     */
    public byte[] readTransient() {
        long len = readLenOrEncoding();
        transientOffset = 0;
        if (encoded) {
            if (len != Rdb.ENC_LZF) {
                byte[] b = readEncodedInteger(len);
                transientLength = b.length;
                return b;
            }
            int clen = readIntLen();
            int ulen = lzfLength(clen);
            transientLength = ulen;
            return decompress(clen, transientBuffer(ulen), ulen);
        }
        int n = plainLength(len);
        transientLength = n;
        if (n <= limit - pos || (in != null && n <= buf.length && fill(n))) {
            transientOffset = pos;
            pos += n;
            return buf;
        }
        byte[] b = transientBuffer(n);
        readFully(b, 0, n);
        return b;
    }

    /** Strings up to this size share the reused buffer; a bigger one gets an array of its own. */
    private static final int TRANSIENT_REUSE_LIMIT = 1 << 20;

    private byte[] transientBuffer(int n) {
        return n > TRANSIENT_REUSE_LIMIT ? new byte[n] : (transientBuf = atLeast(transientBuf, n));
    }

    /** current if it holds n bytes, else a bigger array (doubling, up to the reuse limit). */
    private static byte[] atLeast(byte[] current, int n) {
        if (n <= current.length) return current;
        return new byte[Math.max(n, Math.min(TRANSIENT_REUSE_LIMIT, current.length * 2))];
    }

    /** The listpack reader of the blob last read with {@link #readTransient} (one reused per load). */
    Listpack.Reader transientListpack() {
        byte[] b = readTransient();
        return listpackOf(b, transientOffset, transientLength);
    }

    /** The reused listpack reader over b[off, off+len), a blob just read with {@link #readTransient}. */
    Listpack.Reader listpackOf(byte[] b, int off, int len) {
        Listpack.Reader r = listpackReader;
        if (r == null) return listpackReader = new Listpack.Reader(b, off, len);
        return r.reset(b, off, len);
    }

    private Listpack.Reader listpackReader;

    /** Where the string the last {@link #readTransient} returned starts in the array it returned. */
    public int transientOffset() {
        return transientOffset;
    }

    /** The length of the string the last {@link #readTransient} returned. */
    public int transientLength() {
        return transientLength;
    }

    private byte[] readEncodedInteger(long encoding) {
        switch ((int) encoding) {
            case Rdb.ENC_INT8:
                return Bytes.longToBytes((byte) readByte());
            case Rdb.ENC_INT16: {
                int lo = readByte();
                int hi = readByte();
                return Bytes.longToBytes((short) (lo | hi << 8));
            }
            case Rdb.ENC_INT32:
                return Bytes.longToBytes(readIntLE());
            default:
                throw new RdbException("Unknown RDB string encoding type " + encoding);
        }
    }

    /**
     * The expanded length of an LZF string of clen bytes, checked before anything of that size is
     * allocated: a damaged or crafted payload (RESTORE's checksum is no proof against the latter)
     * must not make the server take gigabytes it then fails to fill.
     */
    private int lzfLength(int clen) {
        int ulen = readIntLen();
        if (in == null && clen > limit - pos) throw eof();
        if (!Lzf.canExpandTo(clen, ulen)) throw new RdbException("Invalid LZF compressed string");
        return ulen;
    }

    /**
     * Reads clen compressed bytes and expands them into out[0, ulen). An expanded length of 0
     * takes whatever the bytes are, as in Redis, whose lzf_decompress answers 0 on any error.
     */
    private byte[] decompress(int clen, byte[] out, int ulen) {
        if (in == null && clen > limit - pos) throw eof();
        byte[] c = clen > TRANSIENT_REUSE_LIMIT ? new byte[clen] : (compressedBuf = atLeast(compressedBuf, clen));
        readFully(c, 0, clen);
        if (ulen == 0) return out;
        try {
            Lzf.decompress(c, 0, clen, out, 0, ulen);
        } catch (IllegalArgumentException e) {
            throw new RdbException(e.getMessage());
        }
        return out;
    }

    private int plainLength(long len) {
        if (len < 0 || len > Integer.MAX_VALUE - 16) throw new RdbException("String too long: " + Long.toUnsignedString(len));
        int n = (int) len;
        if (in == null && n > limit - pos) throw eof();
        return n;
    }

    /** The old text double encoding (RDB_TYPE_ZSET): a length byte (253 nan, 254 +inf, 255 -inf) and text. */
    public double readTextDouble() {
        int len = readByte();
        switch (len) {
            case 255:
                return Double.NEGATIVE_INFINITY;
            case 254:
                return Double.POSITIVE_INFINITY;
            case 253:
                return Double.NaN;
            default: {
                byte[] t = new byte[len];
                readFully(t, 0, len);
                try {
                    return Doubles.parse(t, 0, len);
                } catch (NumberFormatException e) {
                    throw new RdbException("Invalid double value");
                }
            }
        }
    }

    public double readBinaryDouble() {
        return Double.longBitsToDouble(readLongLE());
    }

    /**
     * Reads a line, up to and including its '\n', into dst, as fgets does with a buffer of
     * dst.length + 1 bytes: a longer line comes back in pieces. Returns the number of bytes read,
     * 0 at the end of the input.
     */
    public int readLine(byte[] dst) {
        int n = 0;
        while (n < dst.length) {
            if (pos >= limit && !fill(1)) return n;
            byte b = buf[pos++];
            dst[n++] = b;
            if (b == '\n') return n;
        }
        return n;
    }

    /** Skips n bytes. */
    public void skip(long n) {
        while (n > 0) {
            if (pos >= limit && !fill(1)) throw eof();
            int k = (int) Math.min(n, limit - pos);
            pos += k;
            n -= k;
        }
    }
}
