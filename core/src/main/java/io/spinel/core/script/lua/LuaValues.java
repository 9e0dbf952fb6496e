package io.spinel.core.script.lua;

/**
 * Lua values as Java objects: nil is null, booleans are {@link Boolean#TRUE}/{@link Boolean#FALSE},
 * numbers are {@link Double}, strings {@link LuaString}, tables {@link LuaTable}, functions
 * {@link LuaFunction}, coroutines {@link Coroutine}, userdata {@link Userdata}.
 */
public final class LuaValues {
    private LuaValues() {
    }

    private static final int CACHE_LOW = -128;
    private static final int CACHE_HIGH = 1024;
    private static final Double[] SMALL = new Double[CACHE_HIGH - CACHE_LOW + 1];

    static {
        for (int i = 0; i < SMALL.length; i++) SMALL[i] = (double) (i + CACHE_LOW);
    }

    /** A boxed number; small integers share instances. */
    public static Double num(double d) {
        int i = (int) d;
        if (i == d && i >= CACHE_LOW && i <= CACHE_HIGH && (i != 0 || Double.doubleToRawLongBits(d) == 0)) {
            return SMALL[i - CACHE_LOW];
        }
        return d;
    }

    public static Double num(int i) {
        if (i >= CACHE_LOW && i <= CACHE_HIGH) return SMALL[i - CACHE_LOW];
        return (double) i;
    }

    public static Boolean bool(boolean b) {
        return b ? Boolean.TRUE : Boolean.FALSE;
    }

    public static boolean isFalse(Object v) {
        return v == null || v == Boolean.FALSE;
    }

    public static final String[] TYPE_NAMES = {
        "nil", "boolean", "userdata", "number", "string", "table", "function", "userdata", "thread",
    };

    public static String typeName(Object v) {
        if (v == null) return "nil";
        if (v instanceof Boolean) return "boolean";
        if (v instanceof Double) return "number";
        if (v instanceof LuaString) return "string";
        if (v instanceof LuaTable) return "table";
        if (v instanceof LuaFunction) return "function";
        if (v instanceof Coroutine) return "thread";
        return "userdata";
    }

    /** Lua type tags in Lua's numbering (LUA_TNIL=0 ... LUA_TTHREAD=8). */
    static int typeTag(Object v) {
        if (v == null) return 0;
        if (v instanceof Boolean) return 1;
        if (v instanceof LightUserdata) return 2;
        if (v instanceof Double) return 3;
        if (v instanceof LuaString) return 4;
        if (v instanceof LuaTable) return 5;
        if (v instanceof LuaFunction) return 6;
        if (v instanceof Coroutine) return 8;
        return 7;
    }

    public static boolean rawEquals(Object a, Object b) {
        return LuaTable.rawEquals(a, b);
    }

    /** Number to string conversion Lua applies in concatenation and tostring ("%.14g"). */
    public static LuaString numberToString(double d) {
        return LuaString.valueOf(Num.fmt14g(d));
    }

    /** Lua's tonumber coercion for arithmetic: numbers, and strings that read as numbers. */
    public static Double toNumber(Object v) {
        if (v instanceof Double) return (Double) v;
        if (v instanceof LuaString) return Num.str2d((LuaString) v);
        return null;
    }

    /** Lua's tostring coercion (lua_tolstring): strings, and numbers printed; else null. */
    public static LuaString toLuaString(Object v) {
        if (v instanceof LuaString) return (LuaString) v;
        if (v instanceof Double) return numberToString((Double) v);
        return null;
    }

    /** A %p-style address for tostring of tables, functions and threads. */
    public static String address(Object o) {
        if (o == LightUserdata.NULL) return "(nil)";
        return String.format("0x%08x", System.identityHashCode(o));
    }
}
