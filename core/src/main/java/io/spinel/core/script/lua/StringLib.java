package io.spinel.core.script.lua;

import java.io.ByteArrayOutputStream;

/** Lua 5.1's string library (lstrlib.c): patterns, string.format with C printf semantics. */
public final class StringLib {
    private StringLib() {
    }

    public static LuaTable open(Interp L, LuaTable g) {
        LuaTable s = new LuaTable(0, 15);
        g.rawset("string", s);
        s.rawset("byte", Builtin.of("byte", StringLib::byteFn));
        s.rawset("char", Builtin.of("char", StringLib::charFn));
        s.rawset("dump", Builtin.of("dump", StringLib::dump));
        s.rawset("find", Builtin.of("find", (I, th, base, n) -> findAux(I, th, base, n, true)));
        s.rawset("format", Builtin.of("format", StringLib::format));
        s.rawset("gfind", Builtin.of("gfind", (I, th, base, n) -> {
            throw I.error(th, "'string.gfind' was renamed to 'string.gmatch'");
        }));
        Builtin gmatch = Builtin.of("gmatch", StringLib::gmatch);
        s.rawset("gmatch", gmatch);
        s.rawset("gsub", Builtin.of("gsub", StringLib::gsub));
        s.rawset("len", Builtin.of("len", (I, th, base, n) -> {
            th.stack[base] = LuaValues.num(I.checkString(th, base, n, 1).length());
            return 1;
        }));
        s.rawset("lower", Builtin.of("lower", (I, th, base, n) -> {
            byte[] b = I.checkString(th, base, n, 1).bytes.clone();
            for (int i = 0; i < b.length; i++) b[i] = (byte) LuaPattern.tolower(b[i] & 0xFF);
            th.stack[base] = LuaString.wrap(b);
            return 1;
        }));
        s.rawset("match", Builtin.of("match", (I, th, base, n) -> findAux(I, th, base, n, false)));
        s.rawset("rep", Builtin.of("rep", StringLib::rep));
        s.rawset("reverse", Builtin.of("reverse", (I, th, base, n) -> {
            byte[] src = I.checkString(th, base, n, 1).bytes;
            byte[] b = new byte[src.length];
            for (int i = 0; i < b.length; i++) b[i] = src[src.length - 1 - i];
            th.stack[base] = LuaString.wrap(b);
            return 1;
        }));
        s.rawset("sub", Builtin.of("sub", StringLib::sub));
        s.rawset("upper", Builtin.of("upper", (I, th, base, n) -> {
            byte[] b = I.checkString(th, base, n, 1).bytes.clone();
            for (int i = 0; i < b.length; i++) b[i] = (byte) LuaPattern.toupper(b[i] & 0xFF);
            th.stack[base] = LuaString.wrap(b);
            return 1;
        }));
        s.rawset("gfind", gmatch);
        LuaTable meta = new LuaTable(0, 1);
        meta.rawset("__index", s);
        L.setStringMetatable(meta);
        return s;
    }

    private static long posrelat(long pos, int len) {
        if (pos < 0) pos += len + 1;
        return pos >= 0 ? pos : 0;
    }

    private static int sub(Interp I, Coroutine th, int base, int n) {
        LuaString s = I.checkString(th, base, n, 1);
        int l = s.length();
        long start = posrelat(I.checkInteger(th, base, n, 2), l);
        long end = posrelat(I.arg(th, base, n, 3) == null ? -1 : I.checkInteger(th, base, n, 3), l);
        if (start < 1) start = 1;
        if (end > l) end = l;
        th.stack[base] = start <= end ? s.substring((int) start - 1, (int) end) : LuaString.EMPTY;
        return 1;
    }

    private static int rep(Interp I, Coroutine th, int base, int n) {
        LuaString s = I.checkString(th, base, n, 1);
        int count = I.checkInt(th, base, n, 2);
        if (count <= 0 || s.length() == 0) {
            th.stack[base] = LuaString.EMPTY;
            return 1;
        }
        long total = (long) s.length() * count;
        if (total > Integer.MAX_VALUE - 16) throw LuaError.of("not enough memory");
        byte[] b = new byte[(int) total];
        for (int i = 0; i < count; i++) System.arraycopy(s.bytes, 0, b, i * s.length(), s.length());
        th.stack[base] = LuaString.wrap(b);
        return 1;
    }

    private static int byteFn(Interp I, Coroutine th, int base, int n) {
        LuaString s = I.checkString(th, base, n, 1);
        int l = s.length();
        long posi = posrelat(I.arg(th, base, n, 2) == null ? 1 : I.checkInteger(th, base, n, 2), l);
        long pose = posrelat(I.arg(th, base, n, 3) == null ? posi : I.checkInteger(th, base, n, 3), l);
        if (posi <= 0) posi = 1;
        if (pose > l) pose = l;
        if (posi > pose) return 0;
        int cnt = (int) (pose - posi + 1);
        if (posi + cnt <= pose) throw I.error(th, "string slice too long");
        I.checkStack(th, base, cnt, "string slice too long");
        Object[] st = th.stack;
        for (int i = 0; i < cnt; i++) st[base + i] = LuaValues.num(s.bytes[(int) posi + i - 1] & 0xFF);
        return cnt;
    }

    private static int charFn(Interp I, Coroutine th, int base, int n) {
        byte[] b = new byte[n];
        for (int i = 1; i <= n; i++) {
            int c = I.checkInt(th, base, n, i);
            if ((c & 0xFF) != c) throw I.argError(th, i, "invalid value");
            b[i - 1] = (byte) c;
        }
        th.stack[base] = LuaString.wrap(b);
        return 1;
    }

    private static int dump(Interp I, Coroutine th, int base, int n) {
        Object f = I.arg(th, base, n, 1);
        if (!(f instanceof LuaFunction)) throw I.typeArgError(th, 1, "function", base, n);
        if (!(f instanceof LuaClosure)) throw I.error(th, "unable to dump given function");
        // A Lua 5.1 binary chunk header; Redis's Lua never loads binary chunks back.
        byte[] header = {0x1b, 'L', 'u', 'a', 0x51, 0, 1, 4, 8, 4, 8, 0};
        th.stack[base] = LuaString.wrap(header);
        return 1;
    }

    private static boolean hasSpecials(byte[] p) {
        for (byte c : p) {
            if (c == 0) return false;
            if (LuaPattern.SPECIALS.indexOf(c & 0xFF) >= 0) return true;
        }
        return false;
    }

    private static int find(byte[] s, int from, byte[] p) {
        int l2 = p.length;
        if (l2 == 0) return from;
        outer:
        for (int i = from; i + l2 <= s.length; i++) {
            for (int j = 0; j < l2; j++) if (s[i + j] != p[j]) continue outer;
            return i;
        }
        return -1;
    }

    private static int findAux(Interp I, Coroutine th, int base, int n, boolean find) {
        LuaString s = I.checkString(th, base, n, 1);
        LuaString p = I.checkString(th, base, n, 2);
        int l1 = s.length();
        long init = posrelat(I.arg(th, base, n, 3) == null ? 1 : I.checkInteger(th, base, n, 3), l1) - 1;
        if (init < 0) init = 0;
        else if (init > l1) init = l1;
        if (find && (!LuaValues.isFalse(I.arg(th, base, n, 4)) || !hasSpecials(p.bytes))) {
            int at = find(s.bytes, (int) init, p.bytes);
            if (at >= 0) {
                th.stack[base] = LuaValues.num(at + 1);
                th.stack[base + 1] = LuaValues.num(at + p.length());
                return 2;
            }
        } else {
            LuaPattern ms = new LuaPattern(I, th, s.bytes, p.bytes);
            boolean anchor = p.length() > 0 && p.bytes[0] == '^';
            int pi = anchor ? 1 : 0;
            int s1 = (int) init;
            do {
                ms.level = 0;
                int res = ms.match(s1, pi);
                if (res >= 0) {
                    if (find) {
                        int nc = ms.captureCount(false);
                        I.checkStack(th, base, nc + 2, "too many captures");
                        th.stack[base] = LuaValues.num(s1 + 1);
                        th.stack[base + 1] = LuaValues.num(res);
                        for (int i = 0; i < nc; i++) th.stack[base + 2 + i] = ms.capture(i, 0, 0);
                        return nc + 2;
                    }
                    int nc = ms.captureCount(true);
                    I.checkStack(th, base, nc, "too many captures");
                    for (int i = 0; i < nc; i++) th.stack[base + i] = ms.capture(i, s1, res);
                    return nc;
                }
            } while (s1++ < l1 && !anchor);
        }
        th.stack[base] = null;
        return 1;
    }

    private static int gmatch(Interp I, Coroutine th, int base, int n) {
        LuaString s = I.checkString(th, base, n, 1);
        LuaString p = I.checkString(th, base, n, 2);
        int[] pos = {0};
        th.stack[base] = Builtin.of("gmatch", (I2, th2, b2, n2) -> {
            LuaPattern ms = new LuaPattern(I2, th2, s.bytes, p.bytes);
            for (int src = pos[0]; src <= s.length(); src++) {
                ms.level = 0;
                int e = ms.match(src, 0);
                if (e >= 0) {
                    int newstart = e;
                    if (e == src) newstart++;
                    pos[0] = newstart;
                    int nc = ms.captureCount(true);
                    I2.checkStack(th2, b2, nc, "too many captures");
                    for (int i = 0; i < nc; i++) th2.stack[b2 + i] = ms.capture(i, src, e);
                    return nc;
                }
            }
            return 0;
        });
        return 1;
    }

    private static int gsub(Interp I, Coroutine th, int base, int n) {
        LuaString srcStr = I.checkString(th, base, n, 1);
        LuaString p = I.checkString(th, base, n, 2);
        Object repl = I.arg(th, base, n, 3);
        int srcl = srcStr.length();
        int maxS = I.optInt(th, base, n, 4, srcl + 1);
        if (!(repl instanceof Double || repl instanceof LuaString || repl instanceof LuaFunction || repl instanceof LuaTable)) {
            throw I.argError(th, 3, "string/function/table expected");
        }
        boolean anchor = p.length() > 0 && p.bytes[0] == '^';
        int pi = anchor ? 1 : 0;
        byte[] src = srcStr.bytes;
        LuaPattern ms = new LuaPattern(I, th, src, p.bytes);
        ByteArrayOutputStream b = new ByteArrayOutputStream(srcl + 16);
        int s = 0;
        int count = 0;
        while (count < maxS) {
            ms.level = 0;
            int e = ms.match(s, pi);
            if (e >= 0) {
                count++;
                addValue(I, th, ms, b, s, e, repl);
            }
            if (e >= 0 && e > s) s = e;
            else if (s < srcl) b.write(src[s++]);
            else break;
            if (anchor) break;
        }
        b.write(src, s, srcl - s);
        th.ensure(base + 3);
        th.stack[base] = LuaString.wrap(b.toByteArray());
        th.stack[base + 1] = LuaValues.num(count);
        return 2;
    }

    private static void addValue(Interp I, Coroutine th, LuaPattern ms, ByteArrayOutputStream b, int s, int e, Object repl) {
        Object v;
        if (repl instanceof Double || repl instanceof LuaString) {
            byte[] news = LuaValues.toLuaString(repl).bytes;
            for (int i = 0; i < news.length; i++) {
                if (news[i] != '%') {
                    b.write(news[i]);
                } else {
                    i++;
                    int c = i < news.length ? news[i] & 0xFF : 0;
                    if (!LuaPattern.isdigit(c)) {
                        b.write(c);
                    } else if (c == '0') {
                        b.write(ms.src, s, e - s);
                    } else {
                        LuaString cap = LuaValues.toLuaString(ms.capture(c - '1', s, e));
                        b.write(cap.bytes, 0, cap.length());
                    }
                }
            }
            return;
        } else if (repl instanceof LuaFunction) {
            int nc = ms.captureCount(true);
            Object[] args = new Object[nc];
            for (int i = 0; i < nc; i++) args[i] = ms.capture(i, s, e);
            v = I.call1(th, repl, args);
        } else {
            v = I.index(th, repl, ms.capture(0, s, e), -1);
        }
        if (LuaValues.isFalse(v)) {
            b.write(ms.src, s, e - s);
            return;
        }
        LuaString vs = LuaValues.toLuaString(v);
        if (vs == null) throw I.error(th, "invalid replacement value (a " + LuaValues.typeName(v) + ")");
        b.write(vs.bytes, 0, vs.length());
    }

    private static void addQuoted(ByteArrayOutputStream b, LuaString s) {
        b.write('"');
        for (byte c : s.bytes) {
            switch (c) {
                case '"':
                case '\\':
                case '\n':
                    b.write('\\');
                    b.write(c);
                    break;
                case '\r':
                    b.write('\\');
                    b.write('r');
                    break;
                case 0:
                    b.write('\\');
                    b.write('0');
                    b.write('0');
                    b.write('0');
                    break;
                default:
                    b.write(c);
            }
        }
        b.write('"');
    }

    private static final String FLAGS = "-+ #0";

    private static int format(Interp I, Coroutine th, int base, int n) {
        LuaString fmt = I.checkString(th, base, n, 1);
        byte[] f = fmt.bytes;
        int end = f.length;
        int arg = 1;
        ByteArrayOutputStream b = new ByteArrayOutputStream(end + 16);
        int i = 0;
        while (i < end) {
            if (f[i] != '%') {
                b.write(f[i++]);
                continue;
            }
            i++;
            if (i < end && f[i] == '%') {
                b.write('%');
                i++;
                continue;
            }
            if (++arg > n) throw I.argError(th, arg, "no value");
            // scan flags, width, precision
            int p = i;
            while (p < end && f[p] != 0 && FLAGS.indexOf(f[p]) >= 0) p++;
            if (p - i >= FLAGS.length() + 1) throw I.error(th, "invalid format (repeated flags)");
            String flags = new String(f, i, p - i, java.nio.charset.StandardCharsets.ISO_8859_1);
            int width = 0;
            if (p < end && LuaPattern.isdigit(f[p])) width = f[p++] - '0';
            if (p < end && LuaPattern.isdigit(f[p])) width = width * 10 + (f[p++] - '0');
            int prec = -1;
            if (p < end && f[p] == '.') {
                p++;
                prec = 0;
                if (p < end && LuaPattern.isdigit(f[p])) prec = f[p++] - '0';
                if (p < end && LuaPattern.isdigit(f[p])) prec = prec * 10 + (f[p++] - '0');
            }
            if (p < end && LuaPattern.isdigit(f[p])) throw I.error(th, "invalid format (width or precision too long)");
            int conv = p < end ? f[p] & 0xFF : 0;
            i = p + 1;
            String item;
            switch (conv) {
                case 'c':
                    item = Num.printf(flags, width, prec, 'c', (long) Num.cInt(I.checkNumber(th, base, n, arg)));
                    break;
                case 'd':
                case 'i':
                    item = Num.printf(flags, width, prec, 'd', Num.cLong(I.checkNumber(th, base, n, arg)));
                    break;
                case 'o':
                case 'u':
                case 'x':
                case 'X':
                    item = Num.printf(flags, width, prec, (char) conv, Num.cULong(I.checkNumber(th, base, n, arg)));
                    break;
                case 'e':
                case 'E':
                case 'f':
                case 'g':
                case 'G':
                    item = Num.printf(flags, width, prec, (char) conv, I.checkNumber(th, base, n, arg));
                    break;
                case 'q':
                    addQuoted(b, I.checkString(th, base, n, arg));
                    continue;
                case 's': {
                    LuaString s = I.checkString(th, base, n, arg);
                    if (prec < 0 && s.length() >= 100) {
                        b.write(s.bytes, 0, s.length());
                        continue;
                    }
                    // sprintf's %s stops at the first NUL
                    int l = 0;
                    while (l < s.length() && s.bytes[l] != 0) l++;
                    item = Num.printf(flags, width, prec, 's', new String(s.bytes, 0, l, java.nio.charset.StandardCharsets.ISO_8859_1));
                    break;
                }
                default:
                    throw I.error(th, "invalid option '%" + (conv == 0 ? "" : String.valueOf((char) conv)) + "' to 'format'");
            }
            byte[] ib = item.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
            int l = 0;
            while (l < ib.length && ib[l] != 0) l++;
            b.write(ib, 0, l);
        }
        th.stack[base] = LuaString.wrap(b.toByteArray());
        return 1;
    }
}
