package io.spinel.core.type.stream;

import io.spinel.core.util.Bytes;

/** A stream entry ID: two unsigned 64-bit numbers, milliseconds and sequence, ordered as such. */
public record StreamId(long ms, long seq) implements Comparable<StreamId> {
    public static final StreamId ZERO = new StreamId(0, 0);
    public static final StreamId MAX = new StreamId(-1L, -1L);

    @Override
    public int compareTo(StreamId o) {
        return compare(ms, seq, o.ms, o.seq);
    }

    public static int compare(long ms1, long seq1, long ms2, long seq2) {
        int c = Long.compareUnsigned(ms1, ms2);
        return c != 0 ? c : Long.compareUnsigned(seq1, seq2);
    }

    public boolean isZero() {
        return ms == 0 && seq == 0;
    }

    /** The next ID, or null past the last possible one (streamIncrID). */
    public StreamId incr() {
        if (seq == -1L) {
            if (ms == -1L) return null;
            return new StreamId(ms + 1, 0);
        }
        return new StreamId(ms, seq + 1);
    }

    /** The previous ID, or null before 0-0 (streamDecrID). */
    public StreamId decr() {
        if (seq == 0) {
            if (ms == 0) return null;
            return new StreamId(ms - 1, -1L);
        }
        return new StreamId(ms, seq - 1);
    }

    @Override
    public String toString() {
        return Long.toUnsignedString(ms) + "-" + Long.toUnsignedString(seq);
    }

    public byte[] toBytes() {
        return Bytes.ascii(toString());
    }

    /** The 128-bit big-endian form Redis uses as radix tree key (RDB node keys, PEL keys). */
    public static void encode(byte[] b, int off, long ms, long seq) {
        for (int i = 0; i < 8; i++) {
            b[off + i] = (byte) (ms >>> (56 - 8 * i));
            b[off + 8 + i] = (byte) (seq >>> (56 - 8 * i));
        }
    }

    public static StreamId decode(byte[] b, int off) {
        long ms = 0, seq = 0;
        for (int i = 0; i < 8; i++) {
            ms = (ms << 8) | (b[off + i] & 0xff);
            seq = (seq << 8) | (b[off + 8 + i] & 0xff);
        }
        return new StreamId(ms, seq);
    }

    public byte[] encoded() {
        byte[] b = new byte[16];
        encode(b, 0, ms, seq);
        return b;
    }
}
