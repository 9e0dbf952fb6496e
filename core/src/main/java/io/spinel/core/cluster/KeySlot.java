package io.spinel.core.cluster;

/**
 * The hash slot of a key in Redis Cluster: CRC16 (the XMODEM variant: polynomial 0x1021, initial
 * value 0, no reflection) modulo {@link #SLOTS}. A key with a hash tag, a non-empty part between
 * its first '{' and the first '}' after it, is hashed by that part alone, so that keys which share
 * a tag live in one slot (and multi-key commands on them stay on one node). Clients compute the
 * same function to route commands, so it must agree with Redis bit for bit.
 */
public final class KeySlot {
    private KeySlot() {
    }

    /** Slots in a cluster; a power of two, so the modulo is a mask of the CRC's low 14 bits. */
    public static final int SLOTS = 16384;

    /** CRC16 of every byte value, computed once from the polynomial (MSB first). */
    private static final char[] TABLE = new char[256];

    static {
        for (int b = 0; b < 256; b++) {
            int crc = b << 8;
            for (int i = 0; i < 8; i++) crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            TABLE[b] = (char) crc;
        }
    }

    /** CRC16/XMODEM of k[off, off+len). */
    public static int crc16(byte[] k, int off, int len) {
        int crc = 0;
        for (int i = off, end = off + len; i < end; i++) {
            crc = ((crc << 8) ^ TABLE[((crc >>> 8) ^ k[i]) & 0xff]) & 0xffff;
        }
        return crc;
    }

    /** The slot of key k[off, off+len), in [0, {@link #SLOTS}). */
    public static int slot(byte[] k, int off, int len) {
        int end = off + len;
        int open = off;
        while (open < end && k[open] != '{') open++;
        if (open < end) {
            int close = open + 1;
            while (close < end && k[close] != '}') close++;
            // "{}" or an unclosed '{': no tag, the whole key is hashed
            if (close < end && close > open + 1) return crc16(k, open + 1, close - open - 1) & (SLOTS - 1);
        }
        return crc16(k, off, len) & (SLOTS - 1);
    }

    public static int slot(byte[] k) {
        return slot(k, 0, k.length);
    }
}
