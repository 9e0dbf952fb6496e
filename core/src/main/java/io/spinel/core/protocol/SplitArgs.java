package io.spinel.core.protocol;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Redis's argument splitting for inline commands and configuration lines (sdssplitargs). */
public final class SplitArgs {
    private SplitArgs() {
    }

    private static boolean isSpace(int c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0x0b || c == 0x0c;
    }

    private static int hex(int c) {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    }

    /**
     * Redis's sdssplitargs over buf[from, to): blanks separate arguments; "double quotes" take
     * \xHH and \n \r \t \b \a escapes; 'single quotes' take \'; a closing quote must be followed
     * by a blank or the end. Argument bytes are written to {@code out} (at least to - from long)
     * and added to {@code args} as slices of it. Returns false on unbalanced quotes.
     */
    public static boolean split(byte[] buf, int from, int to, byte[] out, Args args) {
        args.clear();
        int o = 0;
        int p = from;
        // A NUL byte ends the line for C string functions; mirror that.
        for (int i = from; i < to; i++) {
            if (buf[i] == 0) {
                to = i;
                break;
            }
        }
        while (true) {
            while (p < to && isSpace(buf[p])) p++;
            if (p >= to) return true;
            int tokenStart = o;
            boolean inq = false, insq = false, done = false;
            while (!done) {
                int c = p < to ? buf[p] : 0;
                int c1 = p + 1 < to ? buf[p + 1] : 0;
                if (inq) {
                    if (c == '\\' && c1 == 'x' && p + 3 < to && hex(buf[p + 2]) >= 0 && hex(buf[p + 3]) >= 0) {
                        out[o++] = (byte) (hex(buf[p + 2]) * 16 + hex(buf[p + 3]));
                        p += 3;
                    } else if (c == '\\' && c1 != 0) {
                        p++;
                        int e;
                        switch (c1) {
                            case 'n': e = '\n'; break;
                            case 'r': e = '\r'; break;
                            case 't': e = '\t'; break;
                            case 'b': e = '\b'; break;
                            case 'a': e = 7; break;
                            default: e = c1; break;
                        }
                        out[o++] = (byte) e;
                    } else if (c == '"') {
                        if (c1 != 0 && !isSpace(c1)) return false;
                        done = true;
                    } else if (c == 0) {
                        return false;
                    } else {
                        out[o++] = (byte) c;
                    }
                } else if (insq) {
                    if (c == '\\' && c1 == '\'') {
                        p++;
                        out[o++] = '\'';
                    } else if (c == '\'') {
                        if (c1 != 0 && !isSpace(c1)) return false;
                        done = true;
                    } else if (c == 0) {
                        return false;
                    } else {
                        out[o++] = (byte) c;
                    }
                } else {
                    switch (c) {
                        case ' ':
                        case '\n':
                        case '\r':
                        case '\t':
                        case 0:
                            done = true;
                            break;
                        case '"':
                            inq = true;
                            break;
                        case '\'':
                            insq = true;
                            break;
                        default:
                            out[o++] = (byte) c;
                            break;
                    }
                }
                if (p < to) p++;
            }
            args.add(out, tokenStart, o - tokenStart);
        }
    }

    /**
     * Splits a line of bytes, one char per byte (a config file's line), into strings of the same
     * kind, "\xNN" escapes giving that byte; null on unbalanced quotes.
     */
    public static List<String> split(String line) {
        byte[] b = line.getBytes(StandardCharsets.ISO_8859_1);
        Args args = new Args();
        if (!split(b, 0, b.length, new byte[b.length], args)) return null;
        List<String> out = new ArrayList<>(args.count());
        for (int i = 0; i < args.count(); i++) {
            out.add(new String(args.buf(i), args.off(i), args.len(i), StandardCharsets.ISO_8859_1));
        }
        return out;
    }
}
