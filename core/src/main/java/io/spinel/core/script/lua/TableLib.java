package io.spinel.core.script.lua;

import java.io.ByteArrayOutputStream;

/** Lua 5.1's table library (ltablib.c), including its quicksort so comparator calls happen in the same order. */
public final class TableLib {
    private TableLib() {
    }

    public static LuaTable open(Interp L, LuaTable g) {
        LuaTable t = new LuaTable(0, 9);
        g.rawset("table", t);
        t.rawset("concat", Builtin.of("concat", TableLib::concat));
        t.rawset("foreach", Builtin.of("foreach", TableLib::foreach));
        t.rawset("foreachi", Builtin.of("foreachi", TableLib::foreachi));
        t.rawset("getn", Builtin.of("getn", (I, th, base, n) -> {
            LuaTable tb = I.checkTable(th, base, n, 1);
            th.stack[base] = LuaValues.num(tb.length());
            return 1;
        }));
        t.rawset("maxn", Builtin.of("maxn", (I, th, base, n) -> {
            LuaTable tb = I.checkTable(th, base, n, 1);
            double max = 0;
            for (int s = tb.nextSlot(0); s >= 0; s = tb.nextSlot(s + 1)) {
                Object k = tb.slotKey(s);
                if (k instanceof Double && (Double) k > max) max = (Double) k;
            }
            th.stack[base] = LuaValues.num(max);
            return 1;
        }));
        t.rawset("insert", Builtin.of("insert", TableLib::insert));
        t.rawset("remove", Builtin.of("remove", TableLib::remove));
        t.rawset("setn", Builtin.of("setn", (I, th, base, n) -> {
            I.checkTable(th, base, n, 1);
            throw I.error(th, "'setn' is obsolete");
        }));
        t.rawset("sort", Builtin.of("sort", TableLib::sort));
        return t;
    }

    static void rawseti(LuaTable t, int i, Object v) {
        if (t.readonly) throw LuaError.runtime("Attempt to modify a readonly table");
        t.setInt(i, v);
    }

    private static int concat(Interp I, Coroutine th, int base, int n) {
        LuaString sep = I.optString(th, base, n, 2, LuaString.EMPTY);
        LuaTable t = I.checkTable(th, base, n, 1);
        int i = I.optInt(th, base, n, 3, 1);
        int last = I.arg(th, base, n, 4) == null ? t.length() : I.checkInt(th, base, n, 4);
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (; i < last; i++) {
            addField(I, th, b, t, i);
            b.write(sep.bytes, 0, sep.length());
        }
        if (i == last) addField(I, th, b, t, i);
        th.stack[base] = LuaString.wrap(b.toByteArray());
        return 1;
    }

    private static void addField(Interp I, Coroutine th, ByteArrayOutputStream b, LuaTable t, int i) {
        Object v = t.getInt(i);
        LuaString s = LuaValues.toLuaString(v);
        if (s == null) {
            throw I.error(th, "invalid value (" + LuaValues.typeName(v) + ") at index " + i + " in table for 'concat'");
        }
        b.write(s.bytes, 0, s.length());
    }

    private static int foreach(Interp I, Coroutine th, int base, int n) {
        LuaTable t = I.checkTable(th, base, n, 1);
        Object f = I.arg(th, base, n, 2);
        if (!(f instanceof LuaFunction)) throw I.typeArgError(th, 2, "function", base, n);
        Object[] kv = new Object[2];
        Object k = null;
        while (t.next(k, kv)) {
            k = kv[0];
            Object r = I.call1(th, f, kv[0], kv[1]);
            if (r != null) {
                th.stack[base] = r;
                return 1;
            }
        }
        return 0;
    }

    private static int foreachi(Interp I, Coroutine th, int base, int n) {
        LuaTable t = I.checkTable(th, base, n, 1);
        int len = t.length();
        Object f = I.arg(th, base, n, 2);
        if (!(f instanceof LuaFunction)) throw I.typeArgError(th, 2, "function", base, n);
        for (int i = 1; i <= len; i++) {
            Object r = I.call1(th, f, LuaValues.num(i), t.getInt(i));
            if (r != null) {
                th.stack[base] = r;
                return 1;
            }
        }
        return 0;
    }

    private static int insert(Interp I, Coroutine th, int base, int n) {
        LuaTable t = I.checkTable(th, base, n, 1);
        int e = t.length() + 1;
        int pos;
        switch (n) {
            case 2:
                pos = e;
                break;
            case 3: {
                pos = I.checkInt(th, base, n, 2);
                if (pos > e) e = pos;
                for (int i = e; i > pos; i--) rawseti(t, i, t.getInt(i - 1));
                break;
            }
            default:
                throw I.error(th, "wrong number of arguments to 'insert'");
        }
        rawseti(t, pos, th.stack[base + n - 1]);
        return 0;
    }

    private static int remove(Interp I, Coroutine th, int base, int n) {
        LuaTable t = I.checkTable(th, base, n, 1);
        int e = t.length();
        int pos = I.optInt(th, base, n, 2, e);
        if (!(1 <= pos && pos <= e)) return 0;
        Object result = t.getInt(pos);
        for (; pos < e; pos++) rawseti(t, pos, t.getInt(pos + 1));
        rawseti(t, e, null);
        th.stack[base] = result;
        return 1;
    }

    private static int sort(Interp I, Coroutine th, int base, int n) {
        LuaTable t = I.checkTable(th, base, n, 1);
        int len = t.length();
        Object f = I.arg(th, base, n, 2);
        if (f != null && !(f instanceof LuaFunction)) throw I.typeArgError(th, 2, "function", base, n);
        th.top = base + 2;
        new Sorter(I, th, t, f).auxsort(1, len);
        return 0;
    }

    private static final class Sorter {
        final Interp I;
        final Coroutine th;
        final LuaTable t;
        final Object comp;

        Sorter(Interp I, Coroutine th, LuaTable t, Object comp) {
            this.I = I;
            this.th = th;
            this.t = t;
            this.comp = comp;
        }

        boolean lt(Object a, Object b) {
            if (comp != null) return !LuaValues.isFalse(I.call1(th, comp, a, b));
            return I.lessThan(th, a, b);
        }

        void set2(int i, Object vi, int j, Object vj) {
            rawseti(t, i, vi);
            rawseti(t, j, vj);
        }

        void auxsort(int l, int u) {
            while (l < u) {
                Object al = t.getInt(l);
                Object au = t.getInt(u);
                if (lt(au, al)) set2(l, au, u, al);
                if (u - l == 1) break;
                int i = (l + u) >>> 1;
                Object ai = t.getInt(i);
                al = t.getInt(l);
                if (lt(ai, al)) {
                    set2(i, al, l, ai);
                } else {
                    au = t.getInt(u);
                    if (lt(au, ai)) set2(i, au, u, ai);
                }
                if (u - l == 2) break;
                Object p = t.getInt(i);
                Object aum1 = t.getInt(u - 1);
                set2(i, aum1, u - 1, p);
                i = l;
                int j = u - 1;
                for (;;) {
                    Object x;
                    while (lt(x = t.getInt(++i), p)) {
                        if (i > u) throw I.error(th, "invalid order function for sorting");
                    }
                    Object y;
                    while (lt(p, y = t.getInt(--j))) {
                        if (j < l) throw I.error(th, "invalid order function for sorting");
                    }
                    if (j < i) break;
                    set2(i, y, j, x);
                }
                Object a1 = t.getInt(u - 1);
                Object a2 = t.getInt(i);
                set2(u - 1, a2, i, a1);
                if (i - l < u - i) {
                    j = l;
                    i = i - 1;
                    l = i + 2;
                } else {
                    j = i + 1;
                    i = u;
                    u = j - 2;
                }
                auxsort(j, i);
            }
        }
    }
}
