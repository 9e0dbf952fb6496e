package io.spinel.core.persist;

import io.spinel.core.util.Bytes;

import java.util.Arrays;

/**
 * A growable buffer that encodes RDB primitives (Redis's rdbSave* functions): lengths, strings
 * with the integer and LZF special encodings, binary doubles, millisecond times. Snapshots fill
 * it on the executor and hand full buffers to the file writer; DUMP uses one for its payload.
 */
public final class RdbOut {
    private byte[] buf;
    private int size;
    private final boolean compress;
    private byte[] lzf = new byte[0];

    public RdbOut(int capacity, boolean compress) {
        this.buf = new byte[Math.max(capacity, 64)];
        this.compress = compress;
    }

    public int size() {
        return size;
    }

    public byte[] array() {
        return buf;
    }

    public void clear() {
        size = 0;
    }

    /** The bytes written so far, as an exact-size copy. */
    public byte[] toByteArray() {
        return Arrays.copyOf(buf, size);
    }

    /** Hands over the backing array (holding {@link #size()} bytes) and starts a fresh one. */
    public byte[] take(int nextCapacity) {
        return take(new byte[Math.max(nextCapacity, 64)]);
    }

    /** Hands over the backing array (holding {@link #size()} bytes) and continues in next. */
    byte[] take(byte[] next) {
        byte[] b = buf;
        buf = next;
        size = 0;
        return b;
    }

    // ---- scratch state reused value after value (a snapshot must not allocate per key) ----------

    private Listpack.Builder listpack;
    final ValueCodec.ListNodes listNodes = new ValueCodec.ListNodes();
    final ValueCodec.HashPairs hashPairs = new ValueCodec.HashPairs();

    /** An empty listpack builder, the same one each time (its last blob must have been written). */
    Listpack.Builder listpack() {
        if (listpack == null || listpack.capacity() > (1 << 20)) listpack = new Listpack.Builder(256);
        else listpack.reset();
        return listpack;
    }

    private void ensure(int extra) {
        long need = (long) size + extra;
        if (need <= buf.length) return;
        if (need > Integer.MAX_VALUE - 16) throw new IllegalStateException("RDB buffer too large");
        buf = Arrays.copyOf(buf, (int) Math.min(Integer.MAX_VALUE - 16, Math.max(need, buf.length * 2L)));
    }

    // ---- raw bytes ------------------------------------------------------------------------------

    public void writeByte(int b) {
        ensure(1);
        buf[size++] = (byte) b;
    }

    public void write(byte[] b, int off, int len) {
        ensure(len);
        System.arraycopy(b, off, buf, size, len);
        size += len;
    }

    public void write(byte[] b) {
        write(b, 0, b.length);
    }

    /** A number's decimal digits (RESP lengths), without allocating. */
    public void writeDecimal(long v) {
        ensure(20);
        size = Bytes.writeLong(buf, size, v);
    }

    public void writeIntLE(int v) {
        ensure(4);
        Bytes.putIntLE(buf, size, v);
        size += 4;
    }

    public void writeLongLE(long v) {
        ensure(8);
        Bytes.putLongLE(buf, size, v);
        size += 8;
    }

    // ---- RDB primitives -------------------------------------------------------------------------

    /** rdbSaveLen: 6-bit, 14-bit, 32-bit or 64-bit big-endian length. */
    public void writeLen(long len) {
        ensure(9);
        if (len < (1 << 6)) {
            buf[size++] = (byte) len;
        } else if (len < (1 << 14)) {
            buf[size++] = (byte) ((len >>> 8) | 0x40);
            buf[size++] = (byte) len;
        } else if (len <= 0xFFFFFFFFL) {
            buf[size++] = (byte) Rdb.LEN_32BIT;
            for (int s = 24; s >= 0; s -= 8) buf[size++] = (byte) (len >>> s);
        } else {
            buf[size++] = (byte) Rdb.LEN_64BIT;
            for (int s = 56; s >= 0; s -= 8) buf[size++] = (byte) (len >>> s);
        }
    }

    /** The integer special encodings of rdbEncodeInteger; false if v needs more than 32 bits. */
    private boolean writeEncodedInt(long v) {
        ensure(5);
        if (v >= -(1 << 7) && v <= (1 << 7) - 1) {
            buf[size++] = (byte) (0xC0 | Rdb.ENC_INT8);
            buf[size++] = (byte) v;
        } else if (v >= -(1 << 15) && v <= (1 << 15) - 1) {
            buf[size++] = (byte) (0xC0 | Rdb.ENC_INT16);
            buf[size++] = (byte) v;
            buf[size++] = (byte) (v >> 8);
        } else if (v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE) {
            buf[size++] = (byte) (0xC0 | Rdb.ENC_INT32);
            Bytes.putIntLE(buf, size, (int) v);
            size += 4;
        } else {
            return false;
        }
        return true;
    }

    /**
     * A string as rdbSaveRawString writes it: as an integer encoding if it is a canonical integer
     * of up to 11 characters that fits 32 bits, LZF-compressed if longer than 20 bytes and
     * compression is on and saves at least 4 bytes, verbatim otherwise.
     */
    public void writeString(byte[] s, int off, int len) {
        if (len <= 11 && len > 0 && Bytes.isLong(s, off, len) && writeEncodedInt(Bytes.parseLong(s, off, len))) return;
        if (compress && len > 20 && writeLzf(s, off, len)) return;
        writeLen(len);
        write(s, off, len);
    }

    public void writeString(byte[] s) {
        writeString(s, 0, s.length);
    }

    /** rdbSaveLongLongAsStringObject: an integer encoding, or the decimal text. */
    public void writeLongAsString(long v) {
        if (writeEncodedInt(v)) return;
        byte[] t = Bytes.longToBytes(v);
        writeLen(t.length);
        write(t, 0, t.length);
    }

    private boolean writeLzf(byte[] s, int off, int len) {
        int outLen = len - 4;
        if (lzf.length < outLen) lzf = new byte[Math.max(outLen, Math.min(lzf.length * 2, 1 << 20))];
        int n = Lzf.compress(s, off, len, lzf, 0, outLen);
        if (n == 0) return false;
        writeByte(0xC0 | Rdb.ENC_LZF);
        writeLen(n);
        writeLen(len);
        write(lzf, 0, n);
        return true;
    }

    /** An 8-byte little-endian IEEE double (RDB_TYPE_ZSET_2 scores). */
    public void writeBinaryDouble(double d) {
        writeLongLE(Double.doubleToRawLongBits(d));
    }

    /** Milliseconds, 8 bytes little endian (RDB_OPCODE_EXPIRETIME_MS). */
    public void writeMillis(long ms) {
        writeLongLE(ms);
    }
}
