package io.spinel.core.persist;

import io.spinel.core.util.Bytes;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Test-side writers of the encodings only old Redis versions produce (ziplist, zipmap), written
 * from the format description, to check that files from those versions load.
 */
public final class OldEncodings {
    private OldEncodings() {
    }

    /** A ziplist of strings and Long integers, with the smallest integer encodings. */
    public static byte[] ziplist(Object... elements) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        int prev = 0;
        int tail = 10;
        for (Object o : elements) {
            ByteArrayOutputStream e = new ByteArrayOutputStream();
            if (prev < 254) {
                e.write(prev);
            } else {
                e.write(254);
                writeIntLE(e, prev);
            }
            if (o instanceof Long) {
                long v = (Long) o;
                if (v >= 0 && v <= 12) {
                    e.write(0xF1 + (int) v);
                } else if (v >= Byte.MIN_VALUE && v <= Byte.MAX_VALUE) {
                    e.write(0xFE);
                    e.write((int) v);
                } else if (v >= Short.MIN_VALUE && v <= Short.MAX_VALUE) {
                    e.write(0xC0);
                    e.write((int) v);
                    e.write((int) (v >> 8));
                } else if (v >= -(1 << 23) && v < (1 << 23)) {
                    e.write(0xF0);
                    e.write((int) v);
                    e.write((int) (v >> 8));
                    e.write((int) (v >> 16));
                } else if (v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE) {
                    e.write(0xD0);
                    writeIntLE(e, (int) v);
                } else {
                    e.write(0xE0);
                    for (int i = 0; i < 8; i++) e.write((int) (v >> (8 * i)));
                }
            } else {
                byte[] s = ((String) o).getBytes(StandardCharsets.ISO_8859_1);
                if (s.length < 64) {
                    e.write(s.length);
                } else if (s.length < 16384) {
                    e.write(0x40 | (s.length >> 8));
                    e.write(s.length);
                } else {
                    e.write(0x80);
                    e.write(s.length >>> 24);
                    e.write(s.length >>> 16);
                    e.write(s.length >>> 8);
                    e.write(s.length);
                }
                e.write(s, 0, s.length);
            }
            byte[] eb = e.toByteArray();
            tail = 10 + body.size();
            body.write(eb, 0, eb.length);
            prev = eb.length;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int total = 10 + body.size() + 1;
        writeIntLE(out, total);
        writeIntLE(out, tail);
        out.write(elements.length);
        out.write(elements.length >> 8);
        byte[] b = body.toByteArray();
        out.write(b, 0, b.length);
        out.write(0xFF);
        return out.toByteArray();
    }

    /** A zipmap of field, value pairs (with one free byte after each value, as updates leave). */
    public static byte[] zipmap(String... pairs) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(Math.min(pairs.length / 2, 254));
        for (int i = 0; i < pairs.length; i++) {
            byte[] s = pairs[i].getBytes(StandardCharsets.ISO_8859_1);
            if (s.length < 254) {
                out.write(s.length);
            } else {
                out.write(254);
                writeIntLE(out, s.length);
            }
            boolean value = (i & 1) == 1;
            if (value) out.write(1);
            out.write(s, 0, s.length);
            if (value) out.write('!');
        }
        out.write(0xFF);
        return out.toByteArray();
    }

    private static void writeIntLE(ByteArrayOutputStream o, int v) {
        byte[] b = new byte[4];
        Bytes.putIntLE(b, 0, v);
        o.write(b, 0, 4);
    }
}
