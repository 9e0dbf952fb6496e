package io.spinel.core.script.lua;

import java.io.ByteArrayOutputStream;

/**
 * Lua 5.1's base library and coroutine library (lbaselib.c) as Redis loads them. Redis keeps
 * print, dofile and loadfile out of the globals, and replaces pcall with its own variant (which
 * turns {err=...} error tables into their message); both are reproduced here.
 */
public final class BaseLib {
    private BaseLib() {
    }

    private static final String[] BASE_ORDER = {
        "assert", "collectgarbage", "dofile", "error", "gcinfo", "getfenv", "getmetatable", "loadfile", "load",
        "loadstring", "next", "pcall", "print", "rawequal", "rawget", "rawset", "select", "setfenv",
        "setmetatable", "tonumber", "tostring", "type", "unpack", "xpcall",
    };

    /**
     * Names Redis refuses to add to the globals: dofile, loadfile and print always; getfenv and
     * setfenv since the 2025 Lua sandbox fixes (CVE-2025-46818), which the reference build carries.
     */
    static boolean denied(String name) {
        return name.equals("dofile") || name.equals("loadfile") || name.equals("print")
                || name.equals("getfenv") || name.equals("setfenv");
    }

    /** Opens the base library into g (which is the globals table) in Lua's order. */
    public static void open(Interp L, LuaTable g) {
        g.rawset("_G", g);
        for (String name : BASE_ORDER) {
            if (denied(name)) continue;
            g.rawset(name, make(L, name));
        }
        g.rawset("_VERSION", LuaString.valueOf("Lua 5.1"));
        Builtin ipairsAux = Builtin.of("ipairs", BaseLib::ipairsAux);
        g.rawset("ipairs", Builtin.of("ipairs", (I, th, base, n) -> {
            I.checkTable(th, base, n, 1);
            return I.ret(th, base, ipairsAux, th.stack[base], LuaValues.num(0));
        }));
        Builtin nextFn = Builtin.of("next", BaseLib::next);
        g.rawset("pairs", Builtin.of("pairs", (I, th, base, n) -> {
            I.checkTable(th, base, n, 1);
            return I.ret(th, base, nextFn, th.stack[base], null);
        }));
        LuaTable co = new LuaTable(0, 6);
        g.rawset("coroutine", co);
        co.rawset("create", Builtin.of("create", BaseLib::coCreate));
        co.rawset("resume", Builtin.of("resume", BaseLib::coResume));
        co.rawset("running", Builtin.of("running", (I, th, base, n) -> {
            th.stack[base] = I.current == I.main ? null : I.current;
            return 1;
        }));
        co.rawset("status", Builtin.of("status", BaseLib::coStatus));
        co.rawset("wrap", Builtin.of("wrap", BaseLib::coWrap));
        L.yieldFn = Builtin.of("yield", (I, th, base, n) -> {
            throw LuaError.runtime("attempt to yield across metamethod/C-call boundary");
        });
        co.rawset("yield", L.yieldFn);
    }

    private static Builtin make(Interp L, String name) {
        switch (name) {
            case "assert":
                return Builtin.of(name, (I, th, base, n) -> {
                    I.checkAny(th, base, n, 1);
                    if (LuaValues.isFalse(th.stack[base])) {
                        LuaString msg = I.optString(th, base, n, 2, LuaString.valueOf("assertion failed!"));
                        throw I.error(th, msg.toString());
                    }
                    return n;
                });
            case "collectgarbage":
                return Builtin.of(name, BaseLib::collectgarbage);
            case "error":
                return Builtin.of(name, (I, th, base, n) -> {
                    int level = I.optInt(th, base, n, 2, 1);
                    Object v = n >= 1 ? th.stack[base] : null;
                    if ((v instanceof LuaString || v instanceof Double) && level > 0) {
                        v = LuaString.concat(LuaString.valueOf(I.where(th, level)), LuaValues.toLuaString(v));
                    }
                    throw new LuaError(v);
                });
            case "gcinfo":
                return Builtin.of(name, (I, th, base, n) -> {
                    th.stack[base] = LuaValues.num((int) (I.memoryKb()));
                    return 1;
                });
            case "getfenv":
                return Builtin.of(name, (I, th, base, n) -> {
                    Object f = getFunc(I, th, base, n, true);
                    th.stack[base] = f instanceof LuaClosure ? ((LuaFunction) f).env : th.globals;
                    return 1;
                });
            case "getmetatable":
                return Builtin.of(name, (I, th, base, n) -> {
                    I.checkAny(th, base, n, 1);
                    LuaTable mt = I.metatableOf(th.stack[base]);
                    if (mt == null) {
                        th.stack[base] = null;
                        return 1;
                    }
                    Object protectedMt = mt.getStr(Interp.S_METATABLE);
                    th.stack[base] = protectedMt != null ? protectedMt : mt;
                    return 1;
                });
            case "load":
                return Builtin.of(name, BaseLib::load);
            case "loadstring":
                return Builtin.of(name, (I, th, base, n) -> {
                    LuaString s = I.checkString(th, base, n, 1);
                    LuaString chunk = I.optString(th, base, n, 2, s);
                    return loadAux(I, th, base, s.bytes, chunk);
                });
            case "next":
                return Builtin.of(name, BaseLib::next);
            case "pcall": {
                Builtin b = Builtin.of(name, BaseLib::redisPcall);
                L.pcallFn = b;
                return b;
            }
            case "rawequal":
                return Builtin.of(name, (I, th, base, n) -> {
                    I.checkAny(th, base, n, 1);
                    I.checkAny(th, base, n, 2);
                    th.stack[base] = LuaValues.bool(LuaValues.rawEquals(th.stack[base], th.stack[base + 1]));
                    return 1;
                });
            case "rawget":
                return Builtin.of(name, (I, th, base, n) -> {
                    LuaTable t = I.checkTable(th, base, n, 1);
                    I.checkAny(th, base, n, 2);
                    th.stack[base] = t.get(th.stack[base + 1]);
                    return 1;
                });
            case "rawset":
                return Builtin.of(name, (I, th, base, n) -> {
                    LuaTable t = I.checkTable(th, base, n, 1);
                    I.checkAny(th, base, n, 2);
                    I.checkAny(th, base, n, 3);
                    if (t.readonly) throw LuaError.runtime("Attempt to modify a readonly table");
                    t.rawset(th.stack[base + 1], th.stack[base + 2]);
                    return 1;
                });
            case "select":
                return Builtin.of(name, (I, th, base, n) -> {
                    Object first = n >= 1 ? th.stack[base] : null;
                    if (first instanceof LuaString && ((LuaString) first).length() > 0
                            && ((LuaString) first).byteAt(0) == '#') {
                        th.stack[base] = LuaValues.num(n - 1);
                        return 1;
                    }
                    int i = I.checkInt(th, base, n, 1);
                    if (i < 0) i = n + i;
                    else if (i > n) i = n;
                    if (i < 1) throw I.argError(th, 1, "index out of range");
                    System.arraycopy(th.stack, base + i, th.stack, base, n - i);
                    return n - i;
                });
            case "setfenv":
                return Builtin.of(name, BaseLib::setfenv);
            case "setmetatable":
                return Builtin.of(name, (I, th, base, n) -> {
                    Object t2 = I.arg(th, base, n, 2);
                    LuaTable t = I.checkTable(th, base, n, 1);
                    if (t2 != null && !(t2 instanceof LuaTable)) throw I.argError(th, 2, "nil or table expected");
                    if (t.metatable != null && t.metatable.getStr(Interp.S_METATABLE) != null) {
                        throw I.error(th, "cannot change a protected metatable");
                    }
                    if (t.readonly) throw LuaError.runtime("Attempt to modify a readonly table");
                    t.metatable = (LuaTable) t2;
                    return 1;
                });
            case "tonumber":
                return Builtin.of(name, BaseLib::tonumber);
            case "tostring":
                return Builtin.of(name, (I, th, base, n) -> {
                    I.checkAny(th, base, n, 1);
                    LuaString s = I.tostring(th, th.stack[base]);
                    th.stack[base] = s;
                    return 1;
                });
            case "type":
                return Builtin.of(name, (I, th, base, n) -> {
                    I.checkAny(th, base, n, 1);
                    th.stack[base] = LuaString.valueOf(LuaValues.typeName(th.stack[base]));
                    return 1;
                });
            case "unpack":
                return Builtin.of(name, BaseLib::unpack);
            case "xpcall": {
                Builtin b = Builtin.of(name, BaseLib::xpcall);
                L.xpcallFn = b;
                return b;
            }
            default:
                throw new IllegalArgumentException(name);
        }
    }

    /** The pcall Redis installs (luaRedisPcall), used when called from Java rather than the VM. */
    static int redisPcall(Interp I, Coroutine th, int base, int n) {
        int func = base;
        th.top = base + n;
        if (n == 0) {
            th.ensure(base + 3);
            th.stack[base] = Boolean.FALSE;
            th.stack[base + 1] = LuaString.valueOf("attempt to call a nil value");
            return 2;
        }
        LuaError e = I.pcallJava(th, func, Interp.MULTRET);
        if (e == null) {
            int nres = th.top - func;
            th.ensure(th.top + 2);
            System.arraycopy(th.stack, func, th.stack, func + 1, nres);
            th.stack[func] = Boolean.TRUE;
            return nres + 1;
        }
        th.ensure(func + 4);
        th.stack[func] = Boolean.FALSE;
        Object err = e.value;
        if (err instanceof LuaTable) {
            Object ef = ((LuaTable) err).getStr(Interp.S_ERR);
            if (ef instanceof LuaString || ef instanceof Double) {
                th.stack[func + 1] = ef;
                return 2;
            }
            th.stack[func + 1] = err;
            th.stack[func + 2] = null;
            return 3;
        }
        th.stack[func + 1] = err;
        return 2;
    }

    static int xpcall(Interp I, Coroutine th, int base, int n) {
        I.checkAny(th, base, n, 2);
        Object f = th.stack[base];
        Object handler = th.stack[base + 1];
        int func = base + 1;
        th.stack[func] = f;
        th.top = func + 1;
        int savedCi = th.ciIdx;
        try {
            I.call(th, func, Interp.MULTRET);
        } catch (LuaError e) {
            I.finish(th, e);
            if (e.uncatchable) throw e;
            Object err;
            try {
                CallInfo top = th.ci[th.ciIdx];
                if (th.top < top.top) th.top = top.top;
                err = I.call1(th, handler, e.value);
            } catch (LuaError inner) {
                err = LuaString.valueOf("error in error handling");
            }
            th.closeUpvals(func);
            th.ciIdx = savedCi;
            th.stack[base] = Boolean.FALSE;
            th.stack[base + 1] = err;
            return 2;
        }
        int nres = th.top - func;
        th.stack[base] = Boolean.TRUE;
        return nres + 1;
    }

    private static int collectgarbage(Interp I, Coroutine th, int base, int n) {
        LuaString opt = I.optString(th, base, n, 1, LuaString.valueOf("collect"));
        String o = opt.toString();
        switch (o) {
            case "count":
                th.stack[base] = LuaValues.num(I.memoryKb());
                return 1;
            case "step":
                I.optInt(th, base, n, 2, 0);
                th.stack[base] = Boolean.FALSE;
                return 1;
            case "stop":
            case "restart":
            case "collect":
            case "setpause":
            case "setstepmul":
                I.optInt(th, base, n, 2, 0);
                th.stack[base] = LuaValues.num(o.equals("setpause") ? 200 : o.equals("setstepmul") ? 200 : 0);
                return 1;
            default:
                throw I.argError(th, 1, "invalid option '" + o + "'");
        }
    }

    private static Object getFunc(Interp I, Coroutine th, int base, int n, boolean opt) {
        Object a = I.arg(th, base, n, 1);
        if (a instanceof LuaFunction) return a;
        int level = opt ? I.optInt(th, base, n, 1, 1) : I.checkInt(th, base, n, 1);
        if (level < 0) throw I.argError(th, 1, "level must be non-negative");
        if (level == 0) return null; // the thread itself
        CallInfo ci = I.getStack(th, level);
        if (ci == null) throw I.argError(th, 1, "invalid level");
        if (ci.fn == null) throw I.error(th, "no function environment for tail call at level " + level);
        return ci.fn;
    }

    private static int setfenv(Interp I, Coroutine th, int base, int n) {
        LuaTable t = I.checkTable(th, base, n, 2);
        Object a = I.arg(th, base, n, 1);
        if (a instanceof Double && (Double) a == 0) {
            th.globals = t;
            return 0;
        }
        Object f = getFunc(I, th, base, n, false);
        if (f == null) {
            th.globals = t;
            return 0;
        }
        if (!(f instanceof LuaClosure)) throw I.error(th, "'setfenv' cannot change environment of given object");
        ((LuaClosure) f).env = t;
        th.stack[base] = f;
        return 1;
    }

    private static int tonumber(Interp I, Coroutine th, int base, int n) {
        int b = I.optInt(th, base, n, 2, 10);
        if (b == 10) {
            I.checkAny(th, base, n, 1);
            th.stack[base] = LuaValues.toNumber(th.stack[base]);
            return 1;
        }
        LuaString s = I.checkString(th, base, n, 1);
        if (!(2 <= b && b <= 36)) throw I.argError(th, 2, "base out of range");
        byte[] bytes = s.bytes;
        int len = bytes.length;
        for (int i = 0; i < len; i++) if (bytes[i] == 0) len = i;
        long[] out = new long[1];
        int end = strtoul(bytes, 0, len, b, out);
        if (end > 0) {
            while (end < len && Num.isSpace(bytes[end])) end++;
            if (end == len) {
                th.stack[base] = LuaValues.num(Num.unsignedToDouble(out[0]));
                return 1;
            }
        }
        th.stack[base] = null;
        return 1;
    }

    /** C strtoul: returns the end index (0 if nothing was converted). */
    static int strtoul(byte[] s, int from, int to, int base, long[] out) {
        int p = from;
        while (p < to && Num.isSpace(s[p])) p++;
        boolean neg = false;
        if (p < to && (s[p] == '+' || s[p] == '-')) {
            neg = s[p] == '-';
            p++;
        }
        if (base == 16 && p + 2 < to + 1 && p + 1 < to && s[p] == '0' && (s[p + 1] == 'x' || s[p + 1] == 'X')
                && p + 2 < to && digit(s[p + 2], base) >= 0) {
            p += 2;
        }
        int start = p;
        long v = 0;
        boolean overflow = false;
        while (p < to) {
            int d = digit(s[p], base);
            if (d < 0) break;
            long nv = v * base + d;
            if (Long.compareUnsigned(v, Long.divideUnsigned(-1L - d, base)) > 0) overflow = true;
            v = nv;
            p++;
        }
        if (p == start) {
            out[0] = 0;
            return 0;
        }
        out[0] = overflow ? -1L : (neg ? -v : v);
        return p;
    }

    private static int digit(byte c, int base) {
        int d;
        if (c >= '0' && c <= '9') d = c - '0';
        else if (c >= 'a' && c <= 'z') d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'Z') d = c - 'A' + 10;
        else return -1;
        return d < base ? d : -1;
    }

    private static int unpack(Interp I, Coroutine th, int base, int n) {
        LuaTable t = I.checkTable(th, base, n, 1);
        int i = I.optInt(th, base, n, 2, 1);
        int e = I.arg(th, base, n, 3) == null ? t.length() : I.checkInt(th, base, n, 3);
        if (i > e) return 0;
        long lcnt = (long) e - i + 1;
        if (lcnt <= 0 || lcnt >= Integer.MAX_VALUE || n + lcnt > Interp.MAXCSTACK) {
            throw I.error(th, "too many results to unpack");
        }
        int cnt = (int) lcnt;
        th.ensure(base + cnt + Interp.MINSTACK);
        Object[] s = th.stack;
        for (int j = 0; j < cnt; j++) s[base + j] = t.getInt(i + j);
        return cnt;
    }

    private static int next(Interp I, Coroutine th, int base, int n) {
        LuaTable t = I.checkTable(th, base, n, 1);
        Object k = n >= 2 ? th.stack[base + 1] : null;
        Object[] out = new Object[2];
        if (t.next(k, out)) {
            th.ensure(base + 3);
            th.stack[base] = out[0];
            th.stack[base + 1] = out[1];
            return 2;
        }
        th.stack[base] = null;
        return 1;
    }

    private static int ipairsAux(Interp I, Coroutine th, int base, int n) {
        int i = I.checkInt(th, base, n, 2);
        LuaTable t = I.checkTable(th, base, n, 1);
        i++;
        Object v = t.getInt(i);
        if (v == null) return 0;
        th.stack[base] = LuaValues.num(i);
        th.stack[base + 1] = v;
        return 2;
    }

    private static int newproxy(Interp I, Coroutine th, int base, int n) {
        Object a = I.arg(th, base, n, 1);
        Userdata u = new Userdata();
        if (LuaValues.isFalse(a)) {
            th.stack[base] = u;
            return 1;
        }
        if (a instanceof Boolean) {
            LuaTable mt = new LuaTable();
            I.validProxyMetatables.put(mt, Boolean.TRUE);
            u.metatable = mt;
        } else {
            LuaTable mt = I.metatableOf(a);
            if (mt == null || !I.validProxyMetatables.containsKey(mt)) {
                throw I.argError(th, 1, "boolean or proxy expected");
            }
            u.metatable = mt;
        }
        th.stack[base] = u;
        return 1;
    }

    private static int loadAux(Interp I, Coroutine th, int base, byte[] src, LuaString chunk) {
        try {
            th.stack[base] = I.load(src, chunk, th.globals);
            return 1;
        } catch (LuaError e) {
            th.stack[base] = null;
            th.stack[base + 1] = e.value;
            return 2;
        }
    }

    private static int load(Interp I, Coroutine th, int base, int n) {
        LuaString cname = I.optString(th, base, n, 2, LuaString.valueOf("=(load)"));
        Object f = I.arg(th, base, n, 1);
        if (!(f instanceof LuaFunction)) throw I.typeArgError(th, 1, "function", base, n);
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        th.top = base + Math.max(n, 3);
        try {
            for (;;) {
                Object piece = I.call1(th, f);
                if (piece == null) break;
                LuaString s = LuaValues.toLuaString(piece);
                if (s == null) throw I.error(th, "reader function must return a string");
                if (s.length() == 0) break;
                all.write(s.bytes, 0, s.length());
            }
        } catch (LuaError e) {
            I.finish(th, e);
            th.stack[base] = null;
            th.stack[base + 1] = e.value;
            return 2;
        }
        return loadAux(I, th, base, all.toByteArray(), cname);
    }

    // ---- coroutines ---------------------------------------------------------------------------

    private static final String[] STATUS = {"suspended", "running", "normal", "dead"};

    private static String status(Interp I, Coroutine co) {
        if (co == I.current) return "running";
        return STATUS[co.status];
    }

    private static int coCreate(Interp I, Coroutine th, int base, int n) {
        Object f = I.arg(th, base, n, 1);
        if (!(f instanceof LuaClosure)) throw I.argError(th, 1, "Lua function expected");
        th.stack[base] = I.newCoroutine((LuaFunction) f);
        return 1;
    }

    private static int coStatus(Interp I, Coroutine th, int base, int n) {
        Object c = I.arg(th, base, n, 1);
        if (!(c instanceof Coroutine)) throw I.argError(th, 1, "coroutine expected");
        th.stack[base] = LuaString.valueOf(status(I, (Coroutine) c));
        return 1;
    }

    /** Resumes; returns the values on success, or throws a LuaError carrying the error value. */
    private static Object[] auxResume(Interp I, Coroutine co, Object[] args) {
        String st = status(I, co);
        if (!st.equals("suspended")) throw new LuaError(LuaString.valueOf("cannot resume " + st + " coroutine"));
        return I.resumeCoroutine(co, args);
    }

    private static int coResume(Interp I, Coroutine th, int base, int n) {
        Object c = I.arg(th, base, n, 1);
        if (!(c instanceof Coroutine)) throw I.argError(th, 1, "coroutine expected");
        Object[] args = new Object[Math.max(0, n - 1)];
        System.arraycopy(th.stack, base + 1, args, 0, args.length);
        Object[] res;
        try {
            res = auxResume(I, (Coroutine) c, args);
        } catch (LuaError e) {
            if (e.uncatchable) throw e;
            th.stack[base] = Boolean.FALSE;
            th.stack[base + 1] = e.value;
            return 2;
        }
        if (res.length + 1 > Interp.MAXCSTACK) throw I.error(th, "too many results to resume");
        th.ensure(base + res.length + 2);
        th.stack[base] = Boolean.TRUE;
        System.arraycopy(res, 0, th.stack, base + 1, res.length);
        return res.length + 1;
    }

    private static int coWrap(Interp I, Coroutine th, int base, int n) {
        coCreate(I, th, base, n);
        Coroutine co = (Coroutine) th.stack[base];
        th.stack[base] = Builtin.of("wrap", (I2, th2, b2, n2) -> {
            Object[] args = new Object[n2];
            System.arraycopy(th2.stack, b2, args, 0, n2);
            Object[] res;
            try {
                res = auxResume(I2, co, args);
            } catch (LuaError e) {
                if (e.uncatchable) throw e;
                Object v = e.value;
                if (v instanceof LuaString || v instanceof Double) {
                    v = LuaString.concat(LuaString.valueOf(I2.where(th2, 1)), LuaValues.toLuaString(v));
                }
                throw new LuaError(v);
            }
            return I2.ret(th2, b2, res);
        });
        return 1;
    }
}
