package io.spinel.core.embedded;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Encodes commands as RESP arrays and decodes replies (RESP2 and RESP3) into Java values. Bulk
 * strings become {@code byte[]} or, in string mode, UTF-8 {@code String}s; errors nested in an
 * array (EXEC) become {@link SpinelException} elements.
 */
final class Resp {
    /** Returned by {@link Decoder#next} when the buffer does not hold a whole reply yet. */
    static final Object INCOMPLETE = new Object();

    /** A RESP3 push frame: out-of-band data (invalidations, messages), not the reply to a call. */
    record Push(List<Object> items) {
    }

    private Resp() {
    }

    static byte[] encode(byte[][] args) {
        int size = 1 + digits(args.length) + 2;
        for (byte[] a : args) size += 1 + digits(a.length) + 2 + a.length + 2;
        byte[] out = new byte[size];
        int p = header(out, 0, (byte) '*', args.length);
        for (byte[] a : args) {
            p = header(out, p, (byte) '$', a.length);
            System.arraycopy(a, 0, out, p, a.length);
            p += a.length;
            out[p++] = '\r';
            out[p++] = '\n';
        }
        return out;
    }

    private static int header(byte[] out, int p, byte type, int n) {
        out[p++] = type;
        String s = Integer.toString(n);
        for (int i = 0; i < s.length(); i++) out[p++] = (byte) s.charAt(i);
        out[p++] = '\r';
        out[p++] = '\n';
        return p;
    }

    private static int digits(int n) {
        return Integer.toString(n).length();
    }

    /** Decodes replies from a byte range; {@link #pos} advances past each whole reply decoded. */
    static final class Decoder {
        private byte[] buf;
        private int end;
        int pos;

        void reset(byte[] buf, int pos, int end) {
            this.buf = buf;
            this.pos = pos;
            this.end = end;
        }

        /** The next whole reply, or {@link #INCOMPLETE} (and {@link #pos} unchanged). */
        Object next(boolean strings) {
            int start = pos;
            try {
                need(1);
                boolean push = buf[pos] == '>';
                Object v = value(strings);
                return push ? new Push(castList(v)) : v;
            } catch (NeedMore e) {
                pos = start;
                return INCOMPLETE;
            }
        }

        private Object value(boolean strings) {
            need(1);
            byte type = buf[pos++];
            switch (type) {
                case '+':
                    return line();
                case '-':
                    return new SpinelException(line(), false);
                case ':':
                    return Long.parseLong(line());
                case '$':
                case '=': {
                    int n = Integer.parseInt(line());
                    if (n < 0) return null;
                    need(n + 2);
                    int off = pos;
                    pos += n + 2;
                    if (type == '=') {
                        off += 4; // "txt:" or "mkd:"
                        n -= 4;
                    }
                    return strings ? new String(buf, off, n, StandardCharsets.UTF_8) : java.util.Arrays.copyOfRange(buf, off, off + n);
                }
                case '*':
                case '>':
                case '~': {
                    int n = Integer.parseInt(line());
                    if (n < 0) return null;
                    if (type == '~') {
                        Set<Object> s = new LinkedHashSet<>();
                        for (int i = 0; i < n; i++) s.add(value(strings));
                        return s;
                    }
                    List<Object> l = new ArrayList<>(Math.min(n, 1024));
                    for (int i = 0; i < n; i++) l.add(value(strings));
                    return l;
                }
                case '%': {
                    int n = Integer.parseInt(line());
                    Map<Object, Object> m = new LinkedHashMap<>();
                    for (int i = 0; i < n; i++) {
                        Object k = value(strings);
                        m.put(k, value(strings));
                    }
                    return m;
                }
                case '_':
                    line();
                    return null;
                case '#':
                    return line().equals("t");
                case ',':
                    return parseDouble(line());
                case '(':
                    return new BigInteger(line());
                default:
                    throw new IllegalStateException("unexpected reply type '" + (char) type + "'");
            }
        }

        @SuppressWarnings("unchecked")
        private static List<Object> castList(Object v) {
            return (List<Object>) v;
        }

        private static Double parseDouble(String s) {
            switch (s) {
                case "inf":
                    return Double.POSITIVE_INFINITY;
                case "-inf":
                    return Double.NEGATIVE_INFINITY;
                case "nan":
                    return Double.NaN;
                default:
                    return Double.parseDouble(s);
            }
        }

        private String line() {
            for (int i = pos; i + 1 < end; i++) {
                if (buf[i] == '\r' && buf[i + 1] == '\n') {
                    String s = new String(buf, pos, i - pos, StandardCharsets.UTF_8);
                    pos = i + 2;
                    return s;
                }
            }
            throw NeedMore.INSTANCE;
        }

        private void need(int n) {
            if (end - pos < n) throw NeedMore.INSTANCE;
        }
    }

    /** Control flow for a partial reply; preallocated, without a stack trace. */
    private static final class NeedMore extends RuntimeException {
        private static final long serialVersionUID = 1L;
        static final NeedMore INSTANCE = new NeedMore();

        private NeedMore() {
            super(null, null, false, false);
        }
    }
}
