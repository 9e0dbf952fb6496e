package io.spinel.core.script.lua;

/**
 * A Lua thread: its own value stack and call stack. The main thread runs scripts; others are
 * coroutines made by coroutine.create.
 */
public final class Coroutine {
    static final int SUSPENDED = 0;
    static final int RUNNING = 1;
    static final int NORMAL = 2;
    static final int DEAD = 3;
    /** Lua's LUAI_MAXCALLS: deeper call chains fail with "stack overflow". */
    static final int MAXCALLS = 20000;

    Object[] stack = new Object[256];
    int top;
    CallInfo[] ci = new CallInfo[32];
    int ciIdx;
    UpVal openUpval;
    int status = SUSPENDED;
    boolean started;
    /** Globals of the thread (LUA_GLOBALSINDEX). */
    LuaTable globals;
    /** Depth of execute() nesting at which this coroutine's own loop runs (yield must come from it). */
    int baseExecDepth;
    /** Number of values a pending yield hands over (they sit at the yield frame's base). */
    int yieldCount;

    Coroutine(LuaTable globals) {
        this.globals = globals;
        for (int i = 0; i < ci.length; i++) ci[i] = new CallInfo();
        CallInfo base = ci[0];
        base.kind = CallInfo.BUILTIN;
        base.func = 0;
        base.base = 1;
        base.top = 1 + 20;
        top = 1;
    }

    /** The value stack (builtins read their arguments and write their results here). */
    public Object[] stack() {
        return stack;
    }

    /** Makes sure stack slots up to (excluding) n exist. */
    public void ensure(int n) {
        if (n > stack.length) {
            int size = stack.length;
            while (size < n) size *= 2;
            stack = java.util.Arrays.copyOf(stack, size);
        }
    }

    CallInfo current() {
        return ci[ciIdx];
    }

    /** Pushes a new frame record (Lua's inc_ci), failing past MAXCALLS as Lua does. */
    CallInfo pushCi() {
        if (ciIdx + 1 >= ci.length) {
            // Lua doubles its CallInfo array from 8 and fails once it would pass LUAI_MAXCALLS
            if (ci.length * 2 > MAXCALLS && ci.length >= 16384) throw LuaError.runtime("stack overflow");
            int n = ci.length * 2;
            CallInfo[] a = java.util.Arrays.copyOf(ci, n);
            for (int i = ci.length; i < n; i++) a[i] = new CallInfo();
            ci = a;
        }
        CallInfo c = ci[++ciIdx];
        reset(c);
        return c;
    }

    private static void reset(CallInfo c) {
        c.kind = CallInfo.LUA;
        c.tailcalls = 0;
        c.entry = false;
        c.handler = null;
        c.cl = null;
        c.fn = null;
        c.savedpc = 0;
        c.hookPc = -1;
    }

    /** Closes the open upvalues at or above a stack level (Lua's luaF_close). */
    void closeUpvals(int level) {
        UpVal uv = openUpval;
        while (uv != null && uv.index >= level) {
            UpVal next = uv.next;
            uv.close();
            uv.next = null;
            uv = next;
        }
        openUpval = uv;
    }

    /** The open upvalue for a stack slot, created if needed (Lua's luaF_findupval). */
    UpVal findUpval(int index) {
        UpVal prev = null;
        UpVal uv = openUpval;
        while (uv != null && uv.index >= index) {
            if (uv.index == index) return uv;
            prev = uv;
            uv = uv.next;
        }
        UpVal n = new UpVal(this, index);
        n.next = uv;
        if (prev == null) openUpval = n;
        else prev.next = n;
        return n;
    }
}
