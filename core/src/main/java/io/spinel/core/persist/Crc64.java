package io.spinel.core.persist;

/**
 * CRC-64 with the Jones polynomial, reflected, initial value 0 and no final xor: the checksum
 * Redis puts at the end of RDB files and DUMP payloads. Slicing-by-8 tables, so checksumming
 * runs at memory speed on the thread that writes or reads the file.
 */
public final class Crc64 {
    private Crc64() {
    }

    /** 0xad93d23594c935a9 with its bits reversed (the reflected form of the polynomial). */
    private static final long POLY = 0x95ac9329ac4bc9b5L;
    private static final long[][] T = new long[8][256];

    static {
        for (int n = 0; n < 256; n++) {
            long crc = n;
            for (int k = 0; k < 8; k++) crc = (crc & 1) != 0 ? (crc >>> 1) ^ POLY : crc >>> 1;
            T[0][n] = crc;
        }
        for (int n = 0; n < 256; n++) {
            long crc = T[0][n];
            for (int k = 1; k < 8; k++) {
                crc = T[0][(int) crc & 0xff] ^ (crc >>> 8);
                T[k][n] = crc;
            }
        }
    }

    /** The checksum of b[off, off+len) continuing from crc (0 to start). */
    public static long update(long crc, byte[] b, int off, int len) {
        int i = off;
        int end = off + len;
        while (end - i >= 8) {
            long x = crc
                    ^ ((b[i] & 0xffL) | (b[i + 1] & 0xffL) << 8 | (b[i + 2] & 0xffL) << 16 | (b[i + 3] & 0xffL) << 24
                    | (b[i + 4] & 0xffL) << 32 | (b[i + 5] & 0xffL) << 40 | (b[i + 6] & 0xffL) << 48
                    | (b[i + 7] & 0xffL) << 56);
            crc = T[7][(int) x & 0xff] ^ T[6][(int) (x >>> 8) & 0xff] ^ T[5][(int) (x >>> 16) & 0xff]
                    ^ T[4][(int) (x >>> 24) & 0xff] ^ T[3][(int) (x >>> 32) & 0xff] ^ T[2][(int) (x >>> 40) & 0xff]
                    ^ T[1][(int) (x >>> 48) & 0xff] ^ T[0][(int) (x >>> 56) & 0xff];
            i += 8;
        }
        while (i < end) crc = T[0][(int) (crc ^ b[i++]) & 0xff] ^ (crc >>> 8);
        return crc;
    }

    public static long of(byte[] b, int off, int len) {
        return update(0, b, off, len);
    }
}
