package io.spinel.core.script;

import io.spinel.core.script.lua.BaseLib;
import io.spinel.core.script.lua.BitLib;
import io.spinel.core.script.lua.Builtin;
import io.spinel.core.script.lua.CjsonLib;
import io.spinel.core.script.lua.CmsgpackLib;
import io.spinel.core.script.lua.Interp;
import io.spinel.core.script.lua.LuaError;
import io.spinel.core.script.lua.LuaString;
import io.spinel.core.script.lua.LuaTable;
import io.spinel.core.script.lua.LuaValues;
import io.spinel.core.script.lua.MathLib;
import io.spinel.core.script.lua.StringLib;
import io.spinel.core.script.lua.StructLib;
import io.spinel.core.script.lua.TableLib;

import java.util.IdentityHashMap;

/**
 * Builds Lua states the way Redis does (script_lua.c luaRegisterRedisAPI, eval.c scriptingInit,
 * function_lua.c luaEngineInitEngine): the same libraries loaded in the same order, the redis
 * table, and the global protection: reading an unknown global is an error and every table reachable
 * from the globals is read-only.
 */
final class LuaEnv {
    private LuaEnv() {
    }

    /** The globals of a fresh state, libraries and redis API loaded, not yet protected. */
    static LuaTable loadLibraries(Interp L, Scripting s, LuaTable redisOut[]) {
        LuaTable g = new LuaTable(0, 2);
        L.setGlobals(g);
        BaseLib.open(L, g);
        TableLib.open(L, g);
        StringLib.open(L, g);
        MathLib.open(L, g);
        // Redis loads the debug library and removes it right after building its error handler;
        // only the (now dead) slot it leaves in the globals remains.
        g.rawset("debug", new LuaTable(0, 14));
        CjsonLib.open(L, g);
        StructLib.open(L, g);
        CmsgpackLib.open(L, g);
        BitLib.open(L, g);
        LuaTable redis = RedisApi.table(s);
        g.rawset("redis", redis);
        redisOut[0] = redis;
        return g;
    }

    /** The state EVAL scripts run in. */
    static Interp evalState(Scripting s) {
        Interp L = new Interp();
        LuaTable[] redis = new LuaTable[1];
        LuaTable g = loadLibraries(L, s, redis);
        // the debugger's functions (SCRIPT DEBUG): false and nothing outside a debugging session
        redis[0].rawset("breakpoint", Builtin.of("breakpoint", (I, th, base, n) -> {
            th.stack()[base] = s.debugger.breakpointCalled();
            return 1;
        }));
        redis[0].rawset("debug", Builtin.of("debug", (I, th, base, n) -> {
            if (s.debugger.active()) {
                Object[] values = new Object[n];
                System.arraycopy(th.stack(), base, values, 0, n);
                s.debugger.debugCalled(values);
            }
            return 0;
        }));
        redis[0].rawset("replicate_commands", Builtin.of("replicate_commands", (I, th, base, n) -> {
            th.stack()[base] = Boolean.TRUE;
            return 1;
        }));
        g.rawset("debug", null);
        g.rawset("__redis__err__handler", Builtin.of("__redis__err__handler", LuaEnv::errorHandler));
        protectGlobals(L, g);
        return L;
    }

    /** Redis's __redis__err__handler, callable by scripts too: wraps messages into {err=...} tables. */
    private static int errorHandler(Interp L, io.spinel.core.script.lua.Coroutine th, int base, int n) {
        Object err = n >= 1 ? th.stack()[base] : null;
        LuaTable t;
        if (err instanceof LuaTable) {
            t = (LuaTable) err;
        } else {
            t = new LuaTable();
            t.rawset(LuaResp.ERR, LuaString.concat(LuaString.valueOf("ERR "), L.tostring(th, err)));
        }
        Object[] src = L.callerSource(th);
        if (src != null) {
            if (t.isReadonly()) throw LuaError.runtimeError("Attempt to modify a readonly table");
            t.rawset(LuaResp.SOURCE, src[0]);
            t.rawset(LuaResp.LINE, src[1]);
        }
        th.stack()[base] = t;
        return 1;
    }

    /** Reading a missing global fails with Redis's message (luaProtectedTableError). */
    static Builtin protectedTableError() {
        return Builtin.of("__index", (L, th, base, n) -> {
            if (n != 2) throw L.error(th, "Wrong number of arguments to luaProtectedTableError");
            Object key = th.stack()[base + 1];
            LuaString name = LuaValues.toLuaString(key);
            if (name == null) throw L.error(th, "Second argument to luaProtectedTableError must be a string or number");
            throw L.error(th, "Script attempted to access nonexistent global variable '" + Interp.cString(name.toString()) + "'");
        });
    }

    /** Gives t a metatable whose __index raises the nonexistent-global error. */
    static void setErrorMetatable(LuaTable t) {
        LuaTable mt = new LuaTable();
        mt.rawset("__index", protectedTableError());
        t.setMetatable(mt);
    }

    static void protectGlobals(Interp L, LuaTable g) {
        setErrorMetatable(g);
        protectRecursively(g, new IdentityHashMap<>());
        // the metatable of strings is shared by every script: read-only too (CVE-2025-46818)
        protectRecursively(L.getMetatable(LuaString.EMPTY), new IdentityHashMap<>());
    }

    /** Marks t, every table reachable from it and their metatables read-only. */
    static void protectRecursively(LuaTable t, IdentityHashMap<LuaTable, Boolean> seen) {
        if (t.isReadonly() || seen.put(t, Boolean.TRUE) != null) return;
        t.setReadonly(true);
        for (int s = t.nextSlot(0); s >= 0; s = t.nextSlot(s + 1)) {
            Object v = t.slotValue(s);
            if (v instanceof LuaTable) protectRecursively((LuaTable) v, seen);
        }
        if (t.metatable() != null) protectRecursively(t.metatable(), seen);
    }

    /** Sets a global bypassing the read-only protection (KEYS and ARGV before an EVAL). */
    static void setProtectedGlobal(LuaTable g, Object name, Object v) {
        g.setReadonly(false);
        try {
            g.rawset(name, v);
        } finally {
            g.setReadonly(true);
        }
    }

    static LuaTable array(byte[][] argv, int from, int count) {
        LuaTable t = new LuaTable(count, 0);
        for (int j = 0; j < count; j++) t.setInt(j + 1, LuaString.wrap(argv[from + j]));
        return t;
    }

    /** A Lua array of copies of arguments from..from+count-1 (KEYS, ARGV). */
    static LuaTable array(io.spinel.core.protocol.Args a, int from, int count) {
        LuaTable t = new LuaTable(count, 0);
        for (int j = 0; j < count; j++) t.setInt(j + 1, LuaString.wrap(a.copy(from + j)));
        return t;
    }
}
