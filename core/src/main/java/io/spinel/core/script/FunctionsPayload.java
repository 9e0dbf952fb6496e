package io.spinel.core.script;

import io.spinel.core.persist.Crc64;
import io.spinel.core.persist.RdbException;
import io.spinel.core.persist.RdbIn;
import io.spinel.core.persist.RdbOut;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * FUNCTION DUMP / RESTORE payloads in Redis's format: for each library the RDB opcode
 * FUNCTION2 (245) and its code as an RDB string (integer encoding, LZF compression or verbatim,
 * as rdbSaveRawString chooses), then the 2-byte RDB version (10, little endian) and the CRC64
 * (Jones polynomial, reflected, little endian) of everything before it. Written and read with
 * the RDB file's own encoder and decoder.
 */
final class FunctionsPayload {
    private FunctionsPayload() {
    }

    static final int OPCODE_FUNCTION2 = 245;
    static final int OPCODE_FUNCTION = 246;
    static final int RDB_VERSION = 10;

    static byte[] dump(List<byte[]> codes, boolean compress) {
        RdbOut out = new RdbOut(256, compress);
        for (byte[] code : codes) {
            out.writeByte(OPCODE_FUNCTION2);
            out.writeString(code);
        }
        out.writeByte(RDB_VERSION & 0xff);
        out.writeByte((RDB_VERSION >> 8) & 0xff);
        out.writeLongLE(Crc64.of(out.array(), 0, out.size()));
        return out.toByteArray();
    }

    /** Redis's verifyDumpPayload: version not newer than ours and the checksum right. */
    static boolean verify(byte[] p, boolean skipChecksum) {
        if (p.length < 10) return false;
        int f = p.length - 10;
        int ver = (p[f] & 0xff) | ((p[f + 1] & 0xff) << 8);
        if (ver > RDB_VERSION) return false;
        if (skipChecksum) return true;
        long crc = Crc64.of(p, 0, p.length - 8);
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
        RdbIn in = new RdbIn(p, 0, p.length);
        int records = p.length - 10;
        while (records - in.position() > 0) {
            int type = in.readByte();
            if (type != OPCODE_FUNCTION && type != OPCODE_FUNCTION2) throw new BadPayload("given type is not a function");
            if (type == OPCODE_FUNCTION) {
                byte[] name = readString(in, "Failed loading library name");
                byte[] engine = readString(in, "Failed loading engine name");
                long hasDesc;
                try {
                    hasDesc = in.readLen();
                } catch (RdbException e) {
                    throw new BadPayload("Failed loading library description indicator");
                }
                if (hasDesc < 0) throw new BadPayload("Failed loading library description indicator");
                if (hasDesc != 0) readString(in, "Failed loading library description");
                byte[] blob = readString(in, "Failed loading library blob");
                RdbOut code = new RdbOut(engine.length + name.length + blob.length + 16, false);
                code.write(new byte[] {'#', '!'});
                code.write(engine);
                code.write(" name=".getBytes(StandardCharsets.ISO_8859_1));
                code.write(name);
                code.writeByte('\n');
                code.write(blob);
                sink.accept(code.toByteArray());
            } else {
                sink.accept(readString(in, "Failed loading library payload"));
            }
        }
    }

    /** An RDB string in any encoding, or the error FUNCTION RESTORE names for the field. */
    private static byte[] readString(RdbIn in, String err) throws BadPayload {
        try {
            return in.readString();
        } catch (RdbException e) {
            throw new BadPayload(err);
        }
    }
}
