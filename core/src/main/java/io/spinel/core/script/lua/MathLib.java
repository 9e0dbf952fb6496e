package io.spinel.core.script.lua;

import java.util.function.DoubleUnaryOperator;

/**
 * Lua 5.1's math library, with math.random/randomseed replaced as Redis does: a 48-bit linear
 * congruential generator (Redis's rand.c, the lrand48 sequence) shared by all scripts, so a
 * seeded sequence is the same on every platform.
 */
public final class MathLib {
    private MathLib() {
    }

    /** Redis's redisLrand48 state, shared process-wide as in Redis. */
    public static final class Rand48 {
        private long x = 0x1234ABCD330EL;

        public synchronized int next() {
            x = (x * 0x5DEECE66DL + 0xB) & 0xFFFFFFFFFFFFL;
            return (int) (x >>> 17);
        }

        public synchronized void seed(int seed) {
            x = (((long) seed & 0xFFFFFFFFL) << 16) | 0x330EL;
        }
    }

    public static final Rand48 RAND = new Rand48();
    private static final int LRAND48_MAX = Integer.MAX_VALUE;

    public static LuaTable open(Interp L, LuaTable g) {
        LuaTable m = new LuaTable(0, 28);
        g.rawset("math", m);
        fn(m, "abs", Math::abs);
        fn(m, "acos", StrictMath::acos);
        fn(m, "asin", StrictMath::asin);
        m.rawset("atan2", Builtin.of("atan2", (I, th, base, n) -> {
            // gcc evaluates these C call arguments right to left: argument 2 is checked first
            double x = I.checkNumber(th, base, n, 2);
            double y = I.checkNumber(th, base, n, 1);
            th.stack[base] = LuaValues.num(StrictMath.atan2(y, x));
            return 1;
        }));
        fn(m, "atan", StrictMath::atan);
        fn(m, "ceil", Math::ceil);
        fn(m, "cosh", StrictMath::cosh);
        fn(m, "cos", StrictMath::cos);
        fn(m, "deg", d -> d / (Math.PI / 180.0));
        fn(m, "exp", StrictMath::exp);
        fn(m, "floor", Math::floor);
        Builtin fmod = Builtin.of("fmod", (I, th, base, n) -> {
            double b = I.checkNumber(th, base, n, 2);
            double a = I.checkNumber(th, base, n, 1);
            double r = a % b;
            if (r != r && a == a && b == b) r = Num.DEFAULT_NAN;
            th.stack[base] = LuaValues.num(r);
            return 1;
        });
        m.rawset("fmod", fmod);
        m.rawset("frexp", Builtin.of("frexp", (I, th, base, n) -> {
            double d = I.checkNumber(th, base, n, 1);
            double mant;
            int e;
            if (d == 0 || Double.isNaN(d) || Double.isInfinite(d)) {
                mant = d;
                e = 0;
            } else {
                e = Math.getExponent(d) + 1;
                if (e < Double.MIN_EXPONENT + 1) {
                    // subnormal: normalise first
                    double scaled = d * 0x1p54;
                    e = Math.getExponent(scaled) + 1 - 54;
                    mant = scaled / Math.scalb(1.0, Math.getExponent(scaled) + 1);
                } else {
                    mant = d / Math.scalb(1.0, e);
                }
            }
            th.ensure(base + 3);
            th.stack[base] = LuaValues.num(mant);
            th.stack[base + 1] = LuaValues.num(e);
            return 2;
        }));
        m.rawset("ldexp", Builtin.of("ldexp", (I, th, base, n) -> {
            int e = I.checkInt(th, base, n, 2);
            double d = I.checkNumber(th, base, n, 1);
            th.stack[base] = LuaValues.num(Math.scalb(d, e));
            return 1;
        }));
        fn(m, "log10", StrictMath::log10);
        fn(m, "log", StrictMath::log);
        m.rawset("max", Builtin.of("max", (I, th, base, n) -> {
            double max = I.checkNumber(th, base, n, 1);
            for (int i = 2; i <= n; i++) {
                double d = I.checkNumber(th, base, n, i);
                if (d > max) max = d;
            }
            th.stack[base] = LuaValues.num(max);
            return 1;
        }));
        m.rawset("min", Builtin.of("min", (I, th, base, n) -> {
            double min = I.checkNumber(th, base, n, 1);
            for (int i = 2; i <= n; i++) {
                double d = I.checkNumber(th, base, n, i);
                if (d < min) min = d;
            }
            th.stack[base] = LuaValues.num(min);
            return 1;
        }));
        m.rawset("modf", Builtin.of("modf", (I, th, base, n) -> {
            double d = I.checkNumber(th, base, n, 1);
            double ip = d >= 0 ? Math.floor(d) : Math.ceil(d);
            double fp = Double.isInfinite(d) ? Math.copySign(0.0, d) : d - ip;
            th.ensure(base + 3);
            th.stack[base] = LuaValues.num(ip);
            th.stack[base + 1] = LuaValues.num(fp);
            return 2;
        }));
        m.rawset("pow", Builtin.of("pow", (I, th, base, n) -> {
            double b = I.checkNumber(th, base, n, 2);
            double a = I.checkNumber(th, base, n, 1);
            th.stack[base] = LuaValues.num(Interp.arithRaw(Op.POW, a, b));
            return 1;
        }));
        fn(m, "rad", d -> d * (Math.PI / 180.0));
        m.rawset("random", Builtin.of("random", MathLib::random));
        m.rawset("randomseed", Builtin.of("randomseed", (I, th, base, n) -> {
            if (I.context == null) throw I.error(th, "math.randomseed can only be called inside a script invocation");
            RAND.seed(I.checkInt(th, base, n, 1));
            return 0;
        }));
        fn(m, "sinh", StrictMath::sinh);
        fn(m, "sin", StrictMath::sin);
        fn(m, "sqrt", Math::sqrt);
        fn(m, "tanh", StrictMath::tanh);
        fn(m, "tan", StrictMath::tan);
        m.rawset("pi", LuaValues.num(Math.PI));
        m.rawset("huge", LuaValues.num(Double.POSITIVE_INFINITY));
        m.rawset("mod", fmod);
        return m;
    }

    private static void fn(LuaTable m, String name, DoubleUnaryOperator op) {
        m.rawset(name, Builtin.of(name, (I, th, base, n) -> {
            double d = I.checkNumber(th, base, n, 1);
            double r = op.applyAsDouble(d);
            if (r != r && d == d) r = Num.DEFAULT_NAN;
            th.stack[base] = LuaValues.num(r);
            return 1;
        }));
    }

    private static int random(Interp I, Coroutine th, int base, int n) {
        if (I.context == null) throw I.error(th, "math.random can only be called inside a script invocation");
        double r = (double) (RAND.next() % LRAND48_MAX) / (double) LRAND48_MAX;
        switch (n) {
            case 0:
                th.stack[base] = LuaValues.num(r);
                return 1;
            case 1: {
                int u = I.checkInt(th, base, n, 1);
                if (!(1 <= u)) throw I.argError(th, 1, "interval is empty");
                th.stack[base] = LuaValues.num(Math.floor(r * u) + 1);
                return 1;
            }
            case 2: {
                int l = I.checkInt(th, base, n, 1);
                int u = I.checkInt(th, base, n, 2);
                if (!(l <= u)) throw I.argError(th, 2, "interval is empty");
                th.stack[base] = LuaValues.num(Math.floor(r * (u - l + 1)) + l);
                return 1;
            }
            default:
                throw I.error(th, "wrong number of arguments");
        }
    }
}
