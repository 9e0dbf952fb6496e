package io.spinel.core.script.lua;

import java.io.ByteArrayOutputStream;

/** lua-cjson 2.1.0 ("cjson") as bundled with Redis: encoding rules, options and error texts. */
public final class CjsonLib {
    private CjsonLib() {
    }

    /** Per-module settings (cjson.new() makes a module with its own). */
    private static final class Config {
        int sparseConvert = 0;
        int sparseRatio = 2;
        int sparseSafe = 10;
        int encodeMaxDepth = 1000;
        int decodeMaxDepth = 1000;
        int encodeInvalidNumbers = 0;
        int decodeInvalidNumbers = 1;
        int keepBuffer = 1;
        int precision = 14;
    }

    private static final String[] ESCAPES = new String[256];

    static {
        for (int i = 0; i < 32; i++) ESCAPES[i] = String.format("\\u%04x", i);
        ESCAPES['\b'] = "\\b";
        ESCAPES['\t'] = "\\t";
        ESCAPES['\n'] = "\\n";
        ESCAPES['\f'] = "\\f";
        ESCAPES['\r'] = "\\r";
        ESCAPES['"'] = "\\\"";
        ESCAPES['/'] = "\\/";
        ESCAPES['\\'] = "\\\\";
        ESCAPES[0x7f] = "\\u007f";
    }

    public static LuaTable open(Interp L, LuaTable g) {
        LuaTable m = newModule();
        g.rawset("cjson", m);
        return m;
    }

    private static LuaTable newModule() {
        Config cfg = new Config();
        LuaTable m = new LuaTable();
        m.rawset("encode", Builtin.of("encode", (I, th, base, n) -> encode(I, th, base, n, cfg)));
        m.rawset("decode", Builtin.of("decode", (I, th, base, n) -> decode(I, th, base, n, cfg)));
        m.rawset("encode_sparse_array", Builtin.of("encode_sparse_array", (I, th, base, n) -> {
            argInit(I, th, n, 3);
            Object[] r = new Object[3];
            r[0] = enumOption(I, th, base, n, 1, new int[] {cfg.sparseConvert}, null, v -> cfg.sparseConvert = v);
            r[1] = intOption(I, th, base, n, 2, 0, Integer.MAX_VALUE, cfg.sparseRatio, v -> cfg.sparseRatio = v);
            r[2] = intOption(I, th, base, n, 3, 0, Integer.MAX_VALUE, cfg.sparseSafe, v -> cfg.sparseSafe = v);
            return I.ret(th, base, r);
        }));
        m.rawset("encode_max_depth", Builtin.of("encode_max_depth", (I, th, base, n) -> {
            argInit(I, th, n, 1);
            th.stack[base] = intOption(I, th, base, n, 1, 1, Integer.MAX_VALUE, cfg.encodeMaxDepth, v -> cfg.encodeMaxDepth = v);
            return 1;
        }));
        m.rawset("decode_max_depth", Builtin.of("decode_max_depth", (I, th, base, n) -> {
            argInit(I, th, n, 1);
            th.stack[base] = intOption(I, th, base, n, 1, 1, Integer.MAX_VALUE, cfg.decodeMaxDepth, v -> cfg.decodeMaxDepth = v);
            return 1;
        }));
        m.rawset("encode_number_precision", Builtin.of("encode_number_precision", (I, th, base, n) -> {
            argInit(I, th, n, 1);
            th.stack[base] = intOption(I, th, base, n, 1, 1, 14, cfg.precision, v -> cfg.precision = v);
            return 1;
        }));
        m.rawset("encode_keep_buffer", Builtin.of("encode_keep_buffer", (I, th, base, n) -> {
            argInit(I, th, n, 1);
            th.stack[base] = enumOption(I, th, base, n, 1, new int[] {cfg.keepBuffer}, null, v -> cfg.keepBuffer = v);
            return 1;
        }));
        m.rawset("encode_invalid_numbers", Builtin.of("encode_invalid_numbers", (I, th, base, n) -> {
            argInit(I, th, n, 1);
            th.stack[base] = enumOption(I, th, base, n, 1, new int[] {cfg.encodeInvalidNumbers},
                    new String[] {"off", "on", "null"}, v -> cfg.encodeInvalidNumbers = v);
            return 1;
        }));
        m.rawset("decode_invalid_numbers", Builtin.of("decode_invalid_numbers", (I, th, base, n) -> {
            argInit(I, th, n, 1);
            th.stack[base] = enumOption(I, th, base, n, 1, new int[] {cfg.decodeInvalidNumbers}, null,
                    v -> cfg.decodeInvalidNumbers = v);
            return 1;
        }));
        m.rawset("new", Builtin.of("new", (I, th, base, n) -> {
            th.stack[base] = newModule();
            return 1;
        }));
        m.rawset("null", LightUserdata.NULL);
        m.rawset("_NAME", LuaString.valueOf("cjson"));
        m.rawset("_VERSION", LuaString.valueOf("2.1.0"));
        return m;
    }

    private static void argInit(Interp I, Coroutine th, int n, int args) {
        if (n > args) throw I.argError(th, args + 1, "found too many arguments");
    }

    private static Object intOption(Interp I, Coroutine th, int base, int n, int idx, int min, int max, int current,
                                    java.util.function.IntConsumer set) {
        Object v = I.arg(th, base, n, idx);
        int value = current;
        if (v != null) {
            value = (int) I.checkInteger(th, base, n, idx);
            if (!(min <= value && value <= max)) {
                throw I.argError(th, 1, "expected integer between " + min + " and " + max);
            }
            set.accept(value);
        }
        return LuaValues.num(value);
    }

    private static Object enumOption(Interp I, Coroutine th, int base, int n, int idx, int[] setting, String[] options,
                                     java.util.function.IntConsumer set) {
        if (options == null) options = new String[] {"off", "on"};
        int boolTrue = 1;
        Object v = I.arg(th, base, n, idx);
        if (v != null) {
            int value;
            if (v instanceof Boolean) {
                value = ((Boolean) v) ? boolTrue : 0;
            } else {
                LuaString s = I.checkString(th, base, n, idx);
                value = -1;
                for (int i = 0; i < options.length; i++) if (options[i].equals(s.toString())) value = i;
                if (value < 0) throw I.argError(th, idx, "invalid option '" + s + "'");
            }
            setting[0] = value;
            set.accept(value);
        }
        if (setting[0] == 0 || setting[0] == boolTrue) return LuaValues.bool(setting[0] != 0);
        return LuaString.valueOf(options[setting[0]]);
    }

    // ---- encoding -----------------------------------------------------------------------------

    private static int encode(Interp I, Coroutine th, int base, int n, Config cfg) {
        if (n != 1) throw I.argError(th, 1, "expected 1 argument");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        appendData(I, th, cfg, 0, out, th.stack[base]);
        th.stack[base] = LuaString.wrap(out.toByteArray());
        return 1;
    }

    private static LuaError encodeException(Interp I, Coroutine th, Object v, String reason) {
        return I.error(th, "Cannot serialise " + LuaValues.typeName(v) + ": " + reason);
    }

    private static void appendString(ByteArrayOutputStream out, LuaString s) {
        out.write('"');
        for (byte b : s.bytes) {
            String esc = ESCAPES[b & 0xFF];
            if (esc != null) {
                for (int i = 0; i < esc.length(); i++) out.write(esc.charAt(i));
            } else {
                out.write(b);
            }
        }
        out.write('"');
    }

    private static void appendNumber(Interp I, Coroutine th, Config cfg, ByteArrayOutputStream out, double num) {
        if (cfg.encodeInvalidNumbers == 0) {
            if (Double.isInfinite(num) || Double.isNaN(num)) throw encodeException(I, th, num, "must not be NaN or Inf");
        } else if (cfg.encodeInvalidNumbers == 1) {
            if (Double.isNaN(num)) {
                writeAscii(out, "nan");
                return;
            }
        } else if (Double.isInfinite(num) || Double.isNaN(num)) {
            writeAscii(out, "null");
            return;
        }
        writeAscii(out, Num.fmtG(num, cfg.precision, false, false));
    }

    private static void writeAscii(ByteArrayOutputStream out, String s) {
        for (int i = 0; i < s.length(); i++) out.write(s.charAt(i));
    }

    /** Array length if t is a proper array (keys 1..n, not too sparse), else -1. */
    private static int arrayLength(Interp I, Coroutine th, Config cfg, LuaTable t) {
        double max = 0;
        int items = 0;
        for (int s = t.nextSlot(0); s >= 0; s = t.nextSlot(s + 1)) {
            Object k = t.slotKey(s);
            if (k instanceof Double) {
                double d = (Double) k;
                if (d != 0 && Math.floor(d) == d && d >= 1) {
                    if (d > max) max = d;
                    items++;
                    continue;
                }
            }
            return -1;
        }
        int imax = Num.cInt(max);
        if (cfg.sparseRatio > 0 && imax > items * cfg.sparseRatio && imax > cfg.sparseSafe) {
            if (cfg.sparseConvert == 0) throw encodeException(I, th, t, "excessively sparse array");
            return -1;
        }
        return imax;
    }

    private static void appendData(Interp I, Coroutine th, Config cfg, int depth, ByteArrayOutputStream out, Object v) {
        if (v instanceof LuaString) {
            appendString(out, (LuaString) v);
        } else if (v instanceof Double) {
            appendNumber(I, th, cfg, out, (Double) v);
        } else if (v instanceof Boolean) {
            writeAscii(out, (Boolean) v ? "true" : "false");
        } else if (v instanceof LuaTable) {
            depth++;
            if (depth > cfg.encodeMaxDepth || depth * 2 + 3 > Interp.MAXCSTACK) {
                throw I.error(th, "Cannot serialise, excessive nesting (" + depth + ")");
            }
            LuaTable t = (LuaTable) v;
            int len = arrayLength(I, th, cfg, t);
            if (len > 0) {
                out.write('[');
                for (int i = 1; i <= len; i++) {
                    if (i > 1) out.write(',');
                    appendData(I, th, cfg, depth, out, t.getInt(i));
                }
                out.write(']');
            } else {
                out.write('{');
                boolean comma = false;
                for (int s = t.nextSlot(0); s >= 0; s = t.nextSlot(s + 1)) {
                    if (comma) out.write(',');
                    else comma = true;
                    Object k = t.slotKey(s);
                    if (k instanceof Double) {
                        out.write('"');
                        appendNumber(I, th, cfg, out, (Double) k);
                        out.write('"');
                        out.write(':');
                    } else if (k instanceof LuaString) {
                        appendString(out, (LuaString) k);
                        out.write(':');
                    } else {
                        throw encodeException(I, th, k, "table key must be a number or string");
                    }
                    appendData(I, th, cfg, depth, out, t.slotValue(s));
                }
                out.write('}');
            }
        } else if (v == null || v == LightUserdata.NULL) {
            writeAscii(out, "null");
        } else {
            throw encodeException(I, th, v, "type not supported");
        }
    }

    // ---- decoding -----------------------------------------------------------------------------

    private static final int T_OBJ_BEGIN = 0, T_OBJ_END = 1, T_ARR_BEGIN = 2, T_ARR_END = 3, T_STRING = 4,
            T_NUMBER = 5, T_BOOLEAN = 6, T_NULL = 7, T_COLON = 8, T_COMMA = 9, T_END = 10, T_ERROR = 12;
    private static final String[] TOKEN_NAMES = {
        "T_OBJ_BEGIN", "T_OBJ_END", "T_ARR_BEGIN", "T_ARR_END", "T_STRING", "T_NUMBER", "T_BOOLEAN", "T_NULL",
        "T_COLON", "T_COMMA", "T_END", "T_WHITESPACE", "T_ERROR", "T_UNKNOWN",
    };

    /** Parser state over the JSON text (which, as in C, ends at its first NUL). */
    private static final class Parse {
        final Interp I;
        final Coroutine th;
        final Config cfg;
        final byte[] data;
        int ptr;
        int depth;
        // current token
        int type;
        int index;
        Object value;
        String error;

        Parse(Interp I, Coroutine th, Config cfg, byte[] data) {
            this.I = I;
            this.th = th;
            this.cfg = cfg;
            this.data = data;
        }

        int at(int i) {
            return i < data.length ? data[i] & 0xFF : 0;
        }

        void setError(String err) {
            type = T_ERROR;
            index = ptr;
            error = err;
        }

        boolean startsWith(String s) {
            for (int i = 0; i < s.length(); i++) if (at(ptr + i) != s.charAt(i)) return false;
            return true;
        }

        boolean isInvalidNumber() {
            int p = ptr;
            if (at(p) == '+') return true;
            if (at(p) == '-') p++;
            if (at(p) == '0') {
                int ch2 = at(p + 1);
                return (ch2 | 0x20) == 'x' || ('0' <= ch2 && ch2 <= '9');
            } else if (at(p) <= '9') {
                return false;
            }
            if (matchCase(p, "inf")) return true;
            return matchCase(p, "nan");
        }

        boolean matchCase(int p, String w) {
            for (int i = 0; i < w.length(); i++) {
                if (Character.toLowerCase((char) at(p + i)) != w.charAt(i)) return false;
            }
            return true;
        }

        void nextNumber() {
            type = T_NUMBER;
            int end = data.length;
            for (int i = ptr; i < data.length; i++) {
                if (data[i] == 0) {
                    end = i;
                    break;
                }
            }
            int[] e = new int[1];
            double d = Num.strtod(data, ptr, end, e);
            if (e[0] == ptr) setError("invalid number");
            else {
                value = LuaValues.num(d);
                ptr = e[0];
            }
        }

        void nextString() {
            ptr++;
            ByteArrayOutputStream tmp = new ByteArrayOutputStream();
            int ch;
            while ((ch = at(ptr)) != '"') {
                if (ch == 0) {
                    setError("unexpected end of string");
                    return;
                }
                if (ch == '\\') {
                    int esc = at(ptr + 1);
                    int c;
                    switch (esc) {
                        case '"': c = '"'; break;
                        case '\\': c = '\\'; break;
                        case '/': c = '/'; break;
                        case 'b': c = '\b'; break;
                        case 't': c = '\t'; break;
                        case 'n': c = '\n'; break;
                        case 'f': c = '\f'; break;
                        case 'r': c = '\r'; break;
                        case 'u': c = 'u'; break;
                        default: c = 0;
                    }
                    if (c == 'u') {
                        if (unicodeEscape(tmp)) continue;
                        setError("invalid unicode escape code");
                        return;
                    }
                    if (c == 0) {
                        setError("invalid escape code");
                        return;
                    }
                    ptr++;
                    ch = c;
                }
                tmp.write(ch);
                ptr++;
            }
            ptr++;
            type = T_STRING;
            value = LuaString.wrap(tmp.toByteArray());
        }

        int hex4(int p) {
            int v = 0;
            for (int i = 0; i < 4; i++) {
                int c = at(p + i);
                int d;
                if ('0' <= c && c <= '9') d = c - '0';
                else {
                    c |= 0x20;
                    if ('a' <= c && c <= 'f') d = 10 + c - 'a';
                    else return -1;
                }
                v = (v << 4) + d;
            }
            return v;
        }

        boolean unicodeEscape(ByteArrayOutputStream tmp) {
            int escapeLen = 6;
            int cp = hex4(ptr + 2);
            if (cp < 0) return false;
            if ((cp & 0xF800) == 0xD800) {
                if ((cp & 0x400) != 0) return false;
                if (at(ptr + escapeLen) != '\\' || at(ptr + escapeLen + 1) != 'u') return false;
                int low = hex4(ptr + 2 + escapeLen);
                if (low < 0) return false;
                if ((low & 0xFC00) != 0xDC00) return false;
                cp = (((cp & 0x3FF) << 10) | (low & 0x3FF)) + 0x10000;
                escapeLen = 12;
            }
            if (cp <= 0x7F) {
                tmp.write(cp);
            } else if (cp <= 0x7FF) {
                tmp.write((cp >> 6) | 0xC0);
                tmp.write((cp & 0x3F) | 0x80);
            } else if (cp <= 0xFFFF) {
                tmp.write((cp >> 12) | 0xE0);
                tmp.write(((cp >> 6) & 0x3F) | 0x80);
                tmp.write((cp & 0x3F) | 0x80);
            } else if (cp <= 0x1FFFFF) {
                tmp.write((cp >> 18) | 0xF0);
                tmp.write(((cp >> 12) & 0x3F) | 0x80);
                tmp.write(((cp >> 6) & 0x3F) | 0x80);
                tmp.write((cp & 0x3F) | 0x80);
            } else {
                return false;
            }
            ptr += escapeLen;
            return true;
        }

        void next() {
            int ch;
            for (;;) {
                ch = at(ptr);
                if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r') ptr++;
                else break;
            }
            index = ptr;
            switch (ch) {
                case '{': type = T_OBJ_BEGIN; ptr++; return;
                case '}': type = T_OBJ_END; ptr++; return;
                case '[': type = T_ARR_BEGIN; ptr++; return;
                case ']': type = T_ARR_END; ptr++; return;
                case ',': type = T_COMMA; ptr++; return;
                case ':': type = T_COLON; ptr++; return;
                case 0: type = T_END; return;
                default: break;
            }
            boolean unknown = ch == 'f' || ch == 'i' || ch == 'I' || ch == 'n' || ch == 'N' || ch == 't' || ch == '"'
                    || ch == '+' || ch == '-' || (ch >= '0' && ch <= '9');
            if (!unknown) {
                setError("invalid token");
                return;
            }
            if (ch == '"') {
                nextString();
            } else if (ch == '-' || ('0' <= ch && ch <= '9')) {
                if (cfg.decodeInvalidNumbers == 0 && isInvalidNumber()) {
                    setError("invalid number");
                    return;
                }
                nextNumber();
            } else if (startsWith("true")) {
                type = T_BOOLEAN;
                value = Boolean.TRUE;
                ptr += 4;
            } else if (startsWith("false")) {
                type = T_BOOLEAN;
                value = Boolean.FALSE;
                ptr += 5;
            } else if (startsWith("null")) {
                type = T_NULL;
                ptr += 4;
            } else if (cfg.decodeInvalidNumbers != 0 && isInvalidNumber()) {
                nextNumber();
            } else {
                setError("invalid token");
            }
        }

        LuaError parseError(String exp) {
            String found = type == T_ERROR ? error : TOKEN_NAMES[type];
            return I.error(th, "Expected " + exp + " but found " + found + " at character " + (index + 1));
        }

        void descend() {
            depth++;
            if (depth <= cfg.decodeMaxDepth && depth * 3 + 8 < Interp.MAXCSTACK) return;
            throw I.error(th, "Found too many nested data structures (" + depth + ") at character " + ptr);
        }

        Object value() {
            switch (type) {
                case T_STRING:
                case T_NUMBER:
                case T_BOOLEAN:
                    return value;
                case T_OBJ_BEGIN:
                    return object();
                case T_ARR_BEGIN:
                    return array();
                case T_NULL:
                    return LightUserdata.NULL;
                default:
                    throw parseError("value");
            }
        }

        LuaTable object() {
            descend();
            LuaTable t = new LuaTable();
            next();
            if (type == T_OBJ_END) {
                depth--;
                return t;
            }
            for (;;) {
                if (type != T_STRING) throw parseError("object key string");
                Object key = value;
                next();
                if (type != T_COLON) throw parseError("colon");
                next();
                Object v = value();
                t.rawset(key, v);
                next();
                if (type == T_OBJ_END) {
                    depth--;
                    return t;
                }
                if (type != T_COMMA) throw parseError("comma or object end");
                next();
            }
        }

        LuaTable array() {
            descend();
            LuaTable t = new LuaTable();
            next();
            if (type == T_ARR_END) {
                depth--;
                return t;
            }
            for (int i = 1; ; i++) {
                Object v = value();
                t.setInt(i, v);
                next();
                if (type == T_ARR_END) {
                    depth--;
                    return t;
                }
                if (type != T_COMMA) throw parseError("comma or array end");
                next();
            }
        }
    }

    private static int decode(Interp I, Coroutine th, int base, int n, Config cfg) {
        if (n != 1) throw I.argError(th, 1, "expected 1 argument");
        LuaString s = I.checkString(th, base, n, 1);
        byte[] data = s.bytes;
        if (data.length >= 2 && (data[0] == 0 || data[1] == 0)) {
            throw I.error(th, "JSON parser does not support UTF-16 or UTF-32");
        }
        Parse p = new Parse(I, th, cfg, data);
        p.next();
        Object v = p.value();
        p.next();
        if (p.type != T_END) throw p.parseError("the end");
        th.stack[base] = v;
        return 1;
    }
}
