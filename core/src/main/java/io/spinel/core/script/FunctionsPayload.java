package io.spinel.core.script;

import io.spinel.core.persist.Lzf;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * FUNCTION DUMP / RESTORE payloads in Redis's format: for each library the RDB opcode
 * FUNCTION2 (245) and its code as an RDB string (integer encoding, LZF compression or verbatim,
 * as rdbSaveRawString chooses), then the 2-byte RDB version (10, little endian) and the CRC64
 * (Jones polynomial, reflected, little endian) of everything before it.
 */
final class FunctionsPayload {
    private FunctionsPayload() {
    }

    static final int OPCODE_FUNCTION2 = 245;
    static final int OPCODE_FUNCTION = 246;
    static final int RDB_VERSION = 10;

    private static final long[] CRC_TABLE = new long[256];

    static {
        long poly = Long.reverse(0xad93d23594c935a9L);
        for (int i = 0; i < 256; i++) {
            long c = i;
            for (int k = 0; k < 8; k++) c = (c & 1) != 0 ? (c >>> 1) ^ poly : c >>> 1;
            CRC_TABLE[i] = c;
        }
    }

    /** Redis's crc64 (starting value 0). */
    static long crc64(byte[] b, int off, int len) {
        long crc = 0;
        for (int i = off; i < off + len; i++) crc = CRC_TABLE[(int) ((crc ^ b[i]) & 0xff)] ^ (crc >>> 8);
        return crc;
    }

    static byte[] dump(List<byte[]> codes, boolean compress) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] code : codes) {
            out.write(OPCODE_FUNCTION2);
            writeString(out, code, compress);
        }
        out.write(RDB_VERSION & 0xff);
        out.write((RDB_VERSION >> 8) & 0xff);
        byte[] body = out.toByteArray();
        long crc = crc64(body, 0, body.length);
        for (int i = 0; i < 8; i++) out.write((int) (crc >>> (8 * i)));
        return out.toByteArray();
    }

    /** Redis's verifyDumpPayload: version not newer than ours and the checksum right. */
    static boolean verify(byte[] p) {
        if (p.length < 10) return false;
        int f = p.length - 10;
        int ver = (p[f] & 0xff) | ((p[f + 1] & 0xff) << 8);
        if (ver > RDB_VERSION) return false;
        long crc = crc64(p, 0, p.length - 8);
        for (int i = 0; i < 8; i++) if ((byte) (crc >>> (8 * i)) != p[f + 2 + i]) return false;
        return true;
    }

    /** Why a payload could not be read (the error text FUNCTION RESTORE replies). */
    static final class BadPayload extends Exception {
        private static final long serialVersionUID = 1L;

        BadPayload(String msg) {
            super(msg, null, false, false);
        }
    }

    /** Takes each library's code as it is read; may refuse it (FUNCTION RESTORE compiles it). */
    interface LibrarySink<E extends Exception> {
        void accept(byte[] code) throws E;
    }

    /**
     * Reads the library codes of a verified payload in order, handing each to the sink before
     * the next is read, as Redis loads a library as soon as it is read: a bad record after a
     * library that does not compile is not what the error names. A string is read from the
     * whole payload, its footer included, as Redis's reader of the payload buffer does; records
     * start until the footer.
     */
    static <E extends Exception> void read(byte[] p, LibrarySink<E> sink) throws BadPayload, E {
        int[] pos = {0};
        int records = p.length - 10;
        int limit = p.length;
        while (records - pos[0] > 0) {
            int type = p[pos[0]++] & 0xff;
            if (type != OPCODE_FUNCTION && type != OPCODE_FUNCTION2) throw new BadPayload("given type is not a function");
            if (type == OPCODE_FUNCTION) {
                byte[] name = readString(p, pos, limit, "Failed loading library name");
                byte[] engine = readString(p, pos, limit, "Failed loading engine name");
                long hasDesc = readLen(p, pos, limit);
                if (hasDesc < 0) throw new BadPayload("Failed loading library description indicator");
                if (hasDesc != 0) readString(p, pos, limit, "Failed loading library description");
                byte[] blob = readString(p, pos, limit, "Failed loading library blob");
                ByteArrayOutputStream b = new ByteArrayOutputStream();
                b.write('#');
                b.write('!');
                b.write(engine, 0, engine.length);
                byte[] mid = " name=".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
                b.write(mid, 0, mid.length);
                b.write(name, 0, name.length);
                b.write('\n');
                b.write(blob, 0, blob.length);
                sink.accept(b.toByteArray());
            } else {
                sink.accept(readString(p, pos, limit, "Failed loading library payload"));
            }
        }
    }

    // ---- RDB length and string encodings ---------------------------------------------------------

    static void writeLen(ByteArrayOutputStream out, long len) {
        if (len < (1 << 6)) {
            out.write((int) len);
        } else if (len < (1 << 14)) {
            out.write((int) ((len >> 8) | 0x40));
            out.write((int) (len & 0xff));
        } else if (len <= 0xffffffffL) {
            out.write(0x80);
            for (int i = 3; i >= 0; i--) out.write((int) (len >>> (8 * i)));
        } else {
            out.write(0x81);
            for (int i = 7; i >= 0; i--) out.write((int) (len >>> (8 * i)));
        }
    }

    /**
     * Length, or -1 when the bytes run out or no length encoding stands there; an encoded-object
     * marker reads as its six low bits, as Redis's rdbLoadLen reads it for a plain length.
     */
    private static long readLen(byte[] p, int[] pos, int limit) {
        if (pos[0] >= limit) return -1;
        int b = p[pos[0]++] & 0xff;
        int type = (b & 0xc0) >> 6;
        if (type == 0 || type == 3) return b & 0x3f;
        if (type == 1) {
            if (pos[0] >= limit) return -1;
            return ((long) (b & 0x3f) << 8) | (p[pos[0]++] & 0xff);
        }
        if (b == 0x80 || b == 0x81) {
            int n = b == 0x80 ? 4 : 8;
            if (pos[0] + n > limit) return -1;
            long v = 0;
            for (int i = 0; i < n; i++) v = (v << 8) | (p[pos[0]++] & 0xff);
            return v;
        }
        return -1;
    }

    static void writeString(ByteArrayOutputStream out, byte[] s, boolean compress) {
        int len = s.length;
        if (len <= 11) {
            byte[] enc = intEncoding(s);
            if (enc != null) {
                out.write(enc, 0, enc.length);
                return;
            }
        }
        if (compress && len > 20 && len > 4) {
            byte[] c = new byte[len - 4];
            int clen = Lzf.compress(s, 0, len, c, 0, c.length);
            if (clen > 0) {
                out.write(0xc3);
                writeLen(out, clen);
                writeLen(out, len);
                out.write(c, 0, clen);
                return;
            }
        }
        writeLen(out, len);
        out.write(s, 0, len);
    }

    /** rdbTryIntegerEncoding: decimal text that round-trips through a long fitting 32 bits. */
    private static byte[] intEncoding(byte[] s) {
        long v;
        try {
            v = io.spinel.core.util.Bytes.parseLong(s, 0, s.length);
        } catch (NumberFormatException e) {
            return null;
        }
        if (!java.util.Arrays.equals(Long.toString(v).getBytes(java.nio.charset.StandardCharsets.ISO_8859_1), s)) {
            return null;
        }
        if (v >= -(1 << 7) && v <= (1 << 7) - 1) return new byte[] {(byte) 0xc0, (byte) v};
        if (v >= -(1 << 15) && v <= (1 << 15) - 1) return new byte[] {(byte) 0xc1, (byte) v, (byte) (v >> 8)};
        if (v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE) {
            return new byte[] {(byte) 0xc2, (byte) v, (byte) (v >> 8), (byte) (v >> 16), (byte) (v >> 24)};
        }
        return null;
    }

    private static byte[] readString(byte[] p, int[] pos, int limit, String err) throws BadPayload {
        if (pos[0] >= limit) throw new BadPayload(err);
        int b = p[pos[0]] & 0xff;
        if ((b & 0xc0) == 0xc0) {
            pos[0]++;
            int enc = b & 0x3f;
            switch (enc) {
                case 0:
                case 1:
                case 2: {
                    int n = 1 << enc;
                    if (pos[0] + n > limit) throw new BadPayload(err);
                    long v = 0;
                    for (int i = n - 1; i >= 0; i--) v = (v << 8) | (p[pos[0] + i] & 0xff);
                    pos[0] += n;
                    if (n == 1) v = (byte) v;
                    else if (n == 2) v = (short) v;
                    else v = (int) v;
                    return Long.toString(v).getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
                }
                case 3: {
                    long clen = readLen(p, pos, limit);
                    long len = readLen(p, pos, limit);
                    if (pos[0] + clen > limit || len > Integer.MAX_VALUE || !Lzf.canExpandTo(clen, len)) throw new BadPayload(err);
                    byte[] outb = new byte[(int) len];
                    // an expanded length of 0 takes any bytes: Redis's lzf_decompress answers 0 on error
                    if (len == 0) {
                        pos[0] += (int) clen;
                        return outb;
                    }
                    try {
                        Lzf.decompress(p, pos[0], (int) clen, outb, 0, (int) len);
                    } catch (IllegalArgumentException e) {
                        throw new BadPayload(err);
                    }
                    pos[0] += (int) clen;
                    return outb;
                }
                default:
                    throw new BadPayload(err);
            }
        }
        long len = readLen(p, pos, limit);
        if (len < 0 || pos[0] + len > limit) throw new BadPayload(err);
        byte[] s = java.util.Arrays.copyOfRange(p, pos[0], pos[0] + (int) len);
        pos[0] += (int) len;
        return s;
    }
}
