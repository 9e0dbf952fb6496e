package io.spinel.core.script.lua;

/** LuaBitOp ("bit"), as bundled with Redis: 32-bit operations on numbers. */
public final class BitLib {
    private BitLib() {
    }

    public static LuaTable open(Interp L, LuaTable g) {
        LuaTable b = new LuaTable(0, 12);
        g.rawset("bit", b);
        b.rawset("tobit", Builtin.of("tobit", (I, th, base, n) -> ret(th, base, barg(I, th, base, n, 1))));
        b.rawset("bnot", Builtin.of("bnot", (I, th, base, n) -> ret(th, base, ~barg(I, th, base, n, 1))));
        b.rawset("band", Builtin.of("band", (I, th, base, n) -> {
            int r = barg(I, th, base, n, 1);
            for (int i = n; i > 1; i--) r &= barg(I, th, base, n, i);
            return ret(th, base, r);
        }));
        b.rawset("bor", Builtin.of("bor", (I, th, base, n) -> {
            int r = barg(I, th, base, n, 1);
            for (int i = n; i > 1; i--) r |= barg(I, th, base, n, i);
            return ret(th, base, r);
        }));
        b.rawset("bxor", Builtin.of("bxor", (I, th, base, n) -> {
            int r = barg(I, th, base, n, 1);
            for (int i = n; i > 1; i--) r ^= barg(I, th, base, n, i);
            return ret(th, base, r);
        }));
        b.rawset("lshift", shift("lshift", 0));
        b.rawset("rshift", shift("rshift", 1));
        b.rawset("arshift", shift("arshift", 2));
        b.rawset("rol", shift("rol", 3));
        b.rawset("ror", shift("ror", 4));
        b.rawset("bswap", Builtin.of("bswap", (I, th, base, n) -> ret(th, base, Integer.reverseBytes(barg(I, th, base, n, 1)))));
        b.rawset("tohex", Builtin.of("tohex", (I, th, base, n) -> {
            int v = barg(I, th, base, n, 1);
            int digits = n < 2 ? 8 : barg(I, th, base, n, 2);
            String hex = "0123456789abcdef";
            if (digits == Integer.MIN_VALUE) digits = Integer.MIN_VALUE + 1;
            if (digits < 0) {
                digits = -digits;
                hex = "0123456789ABCDEF";
            }
            if (digits > 8) digits = 8;
            byte[] buf = new byte[Math.max(0, digits)];
            for (int i = digits; --i >= 0; ) {
                buf[i] = (byte) hex.charAt(v & 15);
                v >>>= 4;
            }
            th.stack[base] = LuaString.wrap(buf);
            return 1;
        }));
        return b;
    }

    private static Builtin shift(String name, int kind) {
        return Builtin.of(name, (I, th, base, n) -> {
            int v = barg(I, th, base, n, 1);
            int s = barg(I, th, base, n, 2) & 31;
            int r;
            switch (kind) {
                case 0: r = v << s; break;
                case 1: r = v >>> s; break;
                case 2: r = v >> s; break;
                case 3: r = (v << s) | (v >>> (32 - s)); break;
                default: r = (v << (32 - s)) | (v >>> s); break;
            }
            return ret(th, base, r);
        });
    }

    private static int ret(Coroutine th, int base, int v) {
        th.stack[base] = LuaValues.num(v);
        return 1;
    }

    /** The low 32 bits of n + 2^52 + 2^51 (LuaBitOp's normalisation); non-numbers are errors. */
    static int barg(Interp I, Coroutine th, int base, int nargs, int idx) {
        Object v = I.arg(th, base, nargs, idx);
        Double d = LuaValues.toNumber(v);
        double n = d == null ? 0 : d;
        int b = (int) Double.doubleToRawLongBits(n + 6755399441055744.0);
        if (b == 0 && d == null) throw I.typeArgError(th, idx, "number", base, nargs);
        return b;
    }
}
