package io.spinel.core.script;

import io.spinel.core.protocol.Reply;
import io.spinel.core.script.lua.LightUserdata;
import io.spinel.core.script.lua.LuaString;
import io.spinel.core.script.lua.LuaTable;
import io.spinel.core.script.lua.LuaValues;
import io.spinel.core.script.lua.Num;
import io.spinel.core.util.Bytes;

/**
 * Conversions between RESP and Lua values as Redis's scripting does them: redis.call replies
 * (RESP2, or RESP3 after redis.setresp(3)) become Lua values, and a script's return value becomes
 * the caller's reply.
 */
final class LuaResp {
    private LuaResp() {
    }

    static final LuaString OK = LuaString.valueOf("ok");
    static final LuaString ERR = LuaString.valueOf("err");
    static final LuaString DOUBLE = LuaString.valueOf("double");
    static final LuaString MAP = LuaString.valueOf("map");
    static final LuaString SET = LuaString.valueOf("set");
    static final LuaString BIG_NUMBER = LuaString.valueOf("big_number");
    static final LuaString VERBATIM = LuaString.valueOf("verbatim_string");
    static final LuaString STRING = LuaString.valueOf("string");
    static final LuaString FORMAT = LuaString.valueOf("format");
    static final LuaString IGNORE_STATS = LuaString.valueOf("ignore_error_stats_update");
    static final LuaString SOURCE = LuaString.valueOf("source");
    static final LuaString LINE = LuaString.valueOf("line");

    // ---- RESP to Lua ----------------------------------------------------------------------------

    /** Parser over a reply the server itself produced (well formed by construction). */
    static final class Parser {
        private byte[] b;
        private int p;

        Parser(byte[] b, int p) {
            this.b = b;
            this.p = p;
        }

        Parser() {
        }

        /** Points a reused parser at a new reply. */
        Parser reset(byte[] b, int p) {
            this.b = b;
            this.p = p;
            return this;
        }

        private long readLong() {
            int start = p;
            while (b[p] != '\r') p++;
            long v = Bytes.parseLong(b, start, p - start);
            p += 2;
            return v;
        }

        private LuaString readLine() {
            int start = p;
            while (b[p] != '\r') p++;
            LuaString s = LuaString.copyOf(b, start, p - start);
            p += 2;
            return s;
        }

        private LuaString readBulk(int len) {
            LuaString s = LuaString.copyOf(b, p, len);
            p += len + 2;
            return s;
        }

        /** The next value; with skip the value is consumed but not built (attributes). */
        Object next(boolean skip) {
            byte t = b[p++];
            switch (t) {
                case ':': {
                    long v = readLong();
                    return skip ? null : LuaValues.num((double) v);
                }
                case '$': {
                    long len = readLong();
                    if (len < 0) return Boolean.FALSE;
                    LuaString s = readBulk((int) len);
                    return skip ? null : s;
                }
                case '+': {
                    LuaString s = readLine();
                    if (skip) return null;
                    LuaTable tb = new LuaTable();
                    tb.rawset(OK, s);
                    return tb;
                }
                case '-': {
                    LuaString s = readLine();
                    if (skip) return null;
                    LuaTable tb = errorTable("-" + s.toString());
                    tb.rawset(IGNORE_STATS, Boolean.TRUE);
                    return tb;
                }
                case '*': {
                    long n = readLong();
                    if (n < 0) return Boolean.FALSE;
                    LuaTable tb = skip ? null : new LuaTable();
                    for (int j = 0; j < n; j++) {
                        Object v = next(skip);
                        if (!skip) tb.rawset(LuaValues.num(j + 1), v);
                    }
                    return tb;
                }
                case '%': {
                    long n = readLong();
                    LuaTable outer = skip ? null : new LuaTable();
                    LuaTable inner = skip ? null : new LuaTable();
                    for (int j = 0; j < n; j++) {
                        Object k = next(skip);
                        Object v = next(skip);
                        if (!skip) inner.rawset(k, v);
                    }
                    if (!skip) outer.rawset(MAP, inner);
                    return outer;
                }
                case '~': {
                    long n = readLong();
                    LuaTable outer = skip ? null : new LuaTable();
                    LuaTable inner = skip ? null : new LuaTable();
                    for (int j = 0; j < n; j++) {
                        Object k = next(skip);
                        if (!skip) inner.rawset(k, Boolean.TRUE);
                    }
                    if (!skip) outer.rawset(SET, inner);
                    return outer;
                }
                case '_':
                    p += 2;
                    return null;
                case '#': {
                    boolean v = b[p] == 't';
                    p += 3;
                    return skip ? null : LuaValues.bool(v);
                }
                case ',': {
                    LuaString s = readLine();
                    if (skip) return null;
                    LuaTable tb = new LuaTable();
                    Double d = Num.str2d(s);
                    tb.rawset(DOUBLE, LuaValues.num(d == null ? 0 : d));
                    return tb;
                }
                case '(': {
                    LuaString s = readLine();
                    if (skip) return null;
                    LuaTable tb = new LuaTable();
                    tb.rawset(BIG_NUMBER, s);
                    return tb;
                }
                case '=': {
                    long len = readLong();
                    LuaString all = readBulk((int) len);
                    if (skip) return null;
                    LuaTable outer = new LuaTable();
                    LuaTable inner = new LuaTable();
                    inner.rawset(STRING, all.substring(4, all.length()));
                    inner.rawset(FORMAT, all.substring(0, 3));
                    outer.rawset(VERBATIM, inner);
                    return outer;
                }
                case '|': {
                    long n = readLong();
                    for (int j = 0; j < n; j++) {
                        next(true);
                        next(true);
                    }
                    return next(skip);
                }
                case '>': {
                    long n = readLong();
                    LuaTable tb = skip ? null : new LuaTable();
                    for (int j = 0; j < n; j++) {
                        Object v = next(skip);
                        if (!skip) tb.rawset(LuaValues.num(j + 1), v);
                    }
                    return tb;
                }
                default:
                    throw new IllegalStateException("unexpected reply type " + (char) t);
            }
        }
    }

    /**
     * Redis's luaPushErrorBuff: "-CODE message" keeps its code, anything else gets ERR; the
     * result is a table {err = "CODE message"}.
     */
    static LuaTable errorTable(String error) {
        String msg;
        String code;
        if (error.startsWith("-")) {
            int sp = error.indexOf(' ');
            if (sp < 0) {
                msg = error.substring(1);
                code = "ERR";
            } else {
                msg = error.substring(sp + 1);
                code = error.substring(1, sp);
            }
        } else {
            msg = error;
            code = "ERR";
        }
        msg = trimCrLf(msg);
        LuaTable t = new LuaTable();
        t.rawset(ERR, LuaString.valueOf(code + " " + msg)); // one char per byte, as the script's strings
        return t;
    }

    private static String trimCrLf(String s) {
        int a = 0;
        int e = s.length();
        while (a < e && (s.charAt(a) == '\r' || s.charAt(a) == '\n')) a++;
        while (e > a && (s.charAt(e - 1) == '\r' || s.charAt(e - 1) == '\n')) e--;
        return s.substring(a, e);
    }

    // ---- Lua to RESP ----------------------------------------------------------------------------

    /** Lua's stack limit for C code (LUAI_MAXCSTACK) as luaReplyToRedisReply meets it. */
    private static final int MAXCSTACK = 8000;

    /** Sink for error replies met while converting (counted in INFO errorstats unless flagged). */
    interface ErrorSink {
        /** message is the error without its leading '-' ("ERR ..."). */
        void error(Reply r, byte[] message, boolean countStats);
    }

    /** "-message\r\n" with CR/LF inside the message turned into spaces, as Redis writes errors. */
    static void writeError(Reply r, byte[] message) {
        message = cString(message);
        byte[] b = new byte[message.length + 3];
        b[0] = '-';
        for (int i = 0; i < message.length; i++) {
            byte c = message[i];
            b[i + 1] = (c == '\r' || c == '\n') ? (byte) ' ' : c;
        }
        b[b.length - 2] = '\r';
        b[b.length - 1] = '\n';
        r.raw(b);
    }

    /** The bytes before the first NUL: what Redis keeps where it copies a Lua string as a C string. */
    static byte[] cString(byte[] s) {
        for (int i = 0; i < s.length; i++) if (s[i] == 0) return java.util.Arrays.copyOf(s, i);
        return s;
    }

    private static byte[] mapCrLf(byte[] s) {
        byte[] b = s.clone();
        for (int i = 0; i < b.length; i++) if (b[i] == '\r' || b[i] == '\n') b[i] = ' ';
        return b;
    }

    /**
     * Writes v as the caller's reply. scriptResp is the protocol the script selected with
     * redis.setresp (it decides how booleans go out); stack mirrors Lua stack use so deeply nested
     * tables fail where Redis's do.
     */
    static void toReply(Reply r, Object v, int scriptResp, int stack, ErrorSink errors) {
        // Iterative walk (an explicit frame stack instead of Java recursion): nesting may go
        // thousands of levels deep before the emulated Lua stack limit is met.
        java.util.ArrayList<Frame> frames = null;
        Object cur = v;
        int curStack = stack;
        boolean have = true;
        while (true) {
            if (have) {
                Frame f = emit(r, cur, scriptResp, curStack, errors);
                if (f != null) {
                    if (frames == null) frames = new java.util.ArrayList<>();
                    frames.add(f);
                }
            }
            if (frames == null || frames.isEmpty()) return;
            Frame top = frames.get(frames.size() - 1);
            have = true;
            if (top.kind == '*') {
                Object e = top.table.getInt(top.pos + 1);
                if (e == null) {
                    r.setDeferredLength(top.handle, '*', top.n);
                    frames.remove(frames.size() - 1);
                    have = false;
                    continue;
                }
                top.pos++;
                top.n++;
                cur = e;
                curStack = top.stack + 1;
            } else if (top.kind == '%' && top.valueNext) {
                cur = top.table.slotValue(top.pos);
                curStack = top.stack + 3;
                top.valueNext = false;
                top.pos++;
            } else {
                int s = top.table.nextSlot(top.pos);
                if (s < 0) {
                    r.setDeferredLength(top.handle, top.kind, top.n);
                    frames.remove(frames.size() - 1);
                    have = false;
                    continue;
                }
                top.n++;
                cur = top.table.slotKey(s);
                if (top.kind == '%') {
                    curStack = top.stack + 4;
                    top.pos = s;
                    top.valueNext = true;
                } else {
                    curStack = top.stack + 3;
                    top.pos = s + 1;
                }
            }
        }
    }

    /** A table being written: kind is '*' (array), '%' (map) or '~' (set). */
    private static final class Frame {
        final LuaTable table;
        final char kind;
        final int handle;
        final int stack;
        int pos;
        int n;
        boolean valueNext;

        Frame(LuaTable table, char kind, int handle, int stack) {
            this.table = table;
            this.kind = kind;
            this.handle = handle;
            this.stack = stack;
        }
    }

    /** Writes a scalar (or special table) reply; for a container, writes nothing and returns its frame. */
    private static Frame emit(Reply r, Object v, int scriptResp, int stack, ErrorSink errors) {
        if (stack + 4 > MAXCSTACK) {
            errors.error(r, Bytes.ascii("ERR reached lua stack limit"), true);
            return null;
        }
        if (v instanceof LuaString) {
            LuaString s = (LuaString) v;
            r.bulk(s.bytes(), 0, s.length());
        } else if (v instanceof Boolean) {
            boolean b = (Boolean) v;
            if (scriptResp == 2) {
                if (b) r.integer(1);
                else r.nullBulk();
            } else {
                r.bool(b);
            }
        } else if (v instanceof Double) {
            r.integer(Num.cLong((Double) v));
        } else if (v instanceof LuaTable) {
            return tableToReply(r, (LuaTable) v, stack, errors);
        } else {
            r.nullBulk();
        }
        return null;
    }

    private static Frame tableToReply(Reply r, LuaTable t, int stack, ErrorSink errors) {
        Object err = t.getStr(ERR);
        if (err instanceof LuaString) {
            Object ign = t.getStr(IGNORE_STATS);
            boolean ignore = ign instanceof Boolean && (Boolean) ign;
            errors.error(r, ((LuaString) err).bytes(), !ignore);
            return null;
        }
        Object ok = t.getStr(OK);
        if (ok instanceof LuaString) {
            byte[] st = mapCrLf(cString(((LuaString) ok).bytes()));
            byte[] line = new byte[st.length + 3];
            line[0] = '+';
            System.arraycopy(st, 0, line, 1, st.length);
            line[line.length - 2] = '\r';
            line[line.length - 1] = '\n';
            r.raw(line);
            return null;
        }
        Object dbl = t.getStr(DOUBLE);
        if (dbl instanceof Double) {
            double d = (Double) dbl;
            if (d != d) {
                // %.17g of a NaN: its sign shows ("-nan" for x86's default NaN)
                String text = Double.doubleToRawLongBits(d) < 0 ? "-nan" : "nan";
                if (r.resp3()) r.raw(Bytes.ascii("," + text + "\r\n"));
                else r.bulk(text);
                return null;
            }
            r.dbl(d);
            return null;
        }
        Object big = t.getStr(BIG_NUMBER);
        if (big instanceof LuaString) {
            byte[] num = mapCrLf(((LuaString) big).bytes());
            if (r.resp3()) {
                r.raw(new byte[] {'('});
                r.raw(num);
                r.raw(new byte[] {'\r', '\n'});
            } else {
                r.bulk(num);
            }
            return null;
        }
        Object verb = t.getStr(VERBATIM);
        if (verb instanceof LuaTable) {
            Object fmt = ((LuaTable) verb).getStr(FORMAT);
            if (fmt instanceof LuaString) {
                Object str = ((LuaTable) verb).getStr(STRING);
                if (str instanceof LuaString) {
                    byte[] s = ((LuaString) str).bytes();
                    if (r.resp3()) {
                        byte[] f = ((LuaString) fmt).bytes();
                        r.raw(Bytes.ascii("=" + (s.length + 4) + "\r\n"));
                        byte[] head = new byte[4];
                        for (int i = 0; i < 3; i++) head[i] = i < f.length ? f[i] : 0;
                        head[3] = ':';
                        r.raw(head);
                        r.raw(s);
                        r.raw(Bytes.ascii("\r\n"));
                    } else {
                        r.bulk(s);
                    }
                    return null;
                }
            }
        }
        Object map = t.getStr(MAP);
        if (map instanceof LuaTable) {
            return new Frame((LuaTable) map, '%', r.deferLength(), stack);
        }
        Object set = t.getStr(SET);
        if (set instanceof LuaTable) {
            return new Frame((LuaTable) set, '~', r.deferLength(), stack);
        }
        return new Frame(t, '*', r.deferLength(), stack);
    }

    /** Reply null as the caller's protocol writes it (Redis's addReplyNull). */
    static boolean isNull(Object v) {
        return v == null || v == LightUserdata.NULL;
    }
}
