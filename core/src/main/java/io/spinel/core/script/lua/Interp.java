package io.spinel.core.script.lua;

/**
 * A Lua 5.1 state and its virtual machine.
 *
 * <p>Lua-to-Lua calls, pcall and xpcall run inside one interpreter loop without growing the Java
 * stack (frames live in {@link Coroutine#ci}). That makes a running script resumable: at a hook
 * point the loop can return {@link #EXEC_SUSPEND}, leaving every frame in place, and
 * {@link #resume()} continues exactly there. Redis uses this to answer other clients while a slow
 * script runs; coroutines use the same mechanism for coroutine.yield. Calls that go through Java
 * (metamethods, table.sort comparators, string.gsub callbacks, iterator functions of generic
 * for) nest a loop on the Java stack and cannot be suspended, as in Lua 5.1 where they cannot
 * yield either.
 */
public final class Interp {
    /** Called every {@link #hookPeriod} back-jumps/calls; may throw a LuaError to abort. */
    public interface Hook {
        /** Returns true to ask for the script to be suspended (honoured where possible). */
        boolean onHook(Interp L);
    }

    /**
     * Called when a Lua function starts a new line, jumps back, or is entered (Lua's line hook,
     * LUA_MASKLINE); set only while a script is being debugged.
     */
    public interface LineHook {
        /**
         * Returns true to stop before the line runs: the script is suspended there (only asked
         * when that is possible: canStop) and {@link #resume()} runs the line.
         */
        boolean onLine(Interp L, LuaString source, int line, boolean canStop);
    }

    public static final int EXEC_DONE = 0;
    public static final int EXEC_YIELD = 1;
    public static final int EXEC_SUSPEND = 2;
    static final int PCR_LUA = 0;
    static final int PCR_C = 1;
    static final int PCR_YIELD = 2;
    static final int MULTRET = -1;
    static final int MAXTAGLOOP = 100;
    static final int MAXCCALLS = 200;
    /** Lua's LUAI_MAXCSTACK: builtins may not push past this many values. */
    static final int MAXCSTACK = 8000;
    static final int MINSTACK = 20;

    static final LuaString S_INDEX = LuaString.valueOf("__index");
    static final LuaString S_NEWINDEX = LuaString.valueOf("__newindex");
    static final LuaString S_CALL = LuaString.valueOf("__call");
    static final LuaString S_EQ = LuaString.valueOf("__eq");
    static final LuaString S_LT = LuaString.valueOf("__lt");
    static final LuaString S_LE = LuaString.valueOf("__le");
    static final LuaString S_LEN = LuaString.valueOf("__len");
    static final LuaString S_CONCAT = LuaString.valueOf("__concat");
    static final LuaString S_UNM = LuaString.valueOf("__unm");
    static final LuaString S_TOSTRING = LuaString.valueOf("__tostring");
    static final LuaString S_METATABLE = LuaString.valueOf("__metatable");
    static final LuaString S_ERR = LuaString.valueOf("err");
    static final LuaString S_N = LuaString.valueOf("n");
    private static final LuaString[] ARITH_EVENTS = {
        LuaString.valueOf("__add"), LuaString.valueOf("__sub"), LuaString.valueOf("__mul"),
        LuaString.valueOf("__div"), LuaString.valueOf("__mod"), LuaString.valueOf("__pow"), S_UNM,
    };

    final Coroutine main;
    Coroutine current;
    LuaTable stringMeta;
    int nCcalls;
    int execDepth;
    /** Nesting of Java-level loops that cannot be suspended (used to decide if suspension is possible). */
    private Hook hook;
    private int hookPeriod;
    private int hookCountdown = Integer.MAX_VALUE;
    private boolean suspendable;
    /** Whether {@link #start}/{@link #resume} may return EXEC_SUSPEND at all. */
    private boolean allowSuspend = true;
    Builtin pcallFn;
    Builtin xpcallFn;
    Builtin yieldFn;
    /** Arbitrary per-state data for the embedder (the Redis run context). */
    public Object context;
    /** Metatables made by newproxy(true), the only ones newproxy accepts back. */
    final java.util.WeakHashMap<LuaTable, Boolean> validProxyMetatables = new java.util.WeakHashMap<>();
    /** What collectgarbage("count") reports, in KB (Lua's own heap does not exist here). */
    private double memoryKb = 20.0;

    public double memoryKb() {
        return memoryKb;
    }

    public void setMemoryKb(double kb) {
        memoryKb = kb;
    }

    public Interp() {
        main = new Coroutine(new LuaTable());
        main.status = Coroutine.RUNNING;
        main.started = true;
        current = main;
    }

    public LuaTable globals() {
        return main.globals;
    }

    public void setGlobals(LuaTable g) {
        main.globals = g;
    }

    public Coroutine mainThread() {
        return main;
    }

    public void setStringMetatable(LuaTable mt) {
        stringMeta = mt;
    }

    /** Whether scripts started from now on may be suspended by the hook. */
    public void setSuspendable(boolean allow) {
        allowSuspend = allow;
    }

    private LineHook lineHook;
    /** An error the script stopped by the line hook raises where it stopped ({@link #resumeRaising}). */
    private LuaError raiseOnResume;

    /**
     * Continues a script the line hook stopped by raising e at that point, as an error raised by
     * the hook would be (the debugger's abort, a broken debugging connection).
     */
    public int resumeRaising(LuaError e) {
        raiseOnResume = e;
        return resume();
    }
    /** The instruction the line hook stopped before runs without being traced a second time. */
    private boolean lineStopped;

    /** Installs (or removes, with null) the line hook. */
    public void setLineHook(LineHook h) {
        lineHook = h;
        lineStopped = false;
    }

    /**
     * Lua's traceexec for the line mask: whether instruction npc of the running frame begins a
     * line the hook is told about (the function's first instruction, a jump back, a new line).
     * True when the hook asks to stop there and the script can be suspended.
     */
    private boolean traceLine(Coroutine th, CallInfo ci, int npc) {
        int old = ci.hookPc;
        ci.hookPc = npc;
        if (lineStopped) {
            lineStopped = false;
            LuaError e = raiseOnResume;
            if (e != null) {
                raiseOnResume = null;
                ci.savedpc = npc + 1; // raised by the instruction it stopped before, as errors name their line
                throw e;
            }
            return false;
        }
        Proto p = ci.cl.p;
        if (npc != 0 && npc > old && p.line(npc) == p.line(old)) return false;
        boolean canStop = suspendable && execDepth == 1 && th == main;
        if (!lineHook.onLine(this, p.source, p.line(npc), canStop) || !canStop) return false;
        lineStopped = true;
        return true;
    }

    /** Takes the line hook off while the debugger itself runs Lua (Lua calls no hook from a hook). */
    public LineHook pauseLineHook() {
        LineHook h = lineHook;
        lineHook = null;
        return h;
    }

    /** Puts back what {@link #pauseLineHook} took off. */
    public void restoreLineHook(LineHook h) {
        lineHook = h;
    }

    // ---- frames, for the debugger (Lua's lua_getstack levels: 0 is the running function) --------

    /** The frame at level, or null (builtins count as levels; tail calls do not). */
    private CallInfo frame(int level) {
        int idx = main.ciIdx - level;
        return level >= 0 && idx >= 1 ? main.ci[idx] : null;
    }

    /** The instruction a Lua frame is at: where the line hook stopped, or the call it made. */
    private int framePc(CallInfo ci) {
        return ci == main.ci[main.ciIdx] && lineStopped ? ci.savedpc : ci.savedpc - 1;
    }

    /** Whether there is a frame at level. */
    public boolean hasFrame(int level) {
        return frame(level) != null;
    }

    /** The chunk name of the Lua function at level ("@user_script"), or null for a builtin. */
    public LuaString frameSource(int level) {
        CallInfo ci = frame(level);
        return ci != null && ci.isLua() ? ci.cl.p.source : null;
    }

    /** The line the Lua function at level is at, or -1. */
    public int frameLine(int level) {
        CallInfo ci = frame(level);
        return ci != null && ci.isLua() ? ci.cl.p.line(framePc(ci)) : -1;
    }

    /** The name its caller called the function at level by (Lua's getfuncname), or null. */
    public String frameFunctionName(int level) {
        CallInfo ci = frame(level);
        if (ci == null) return null;
        String[] n = funcName(main, main.ciIdx - level);
        return n == null ? null : n[1];
    }

    /** The active local variables of the Lua function at level, {name, value} in order (Lua's lua_getlocal). */
    public java.util.List<Object[]> frameLocals(int level) {
        java.util.List<Object[]> out = new java.util.ArrayList<>();
        CallInfo ci = frame(level);
        if (ci == null || !ci.isLua()) return out;
        int pc = framePc(ci);
        for (int n = 1; ; n++) {
            LuaString name = ci.cl.p.localName(n, pc);
            if (name == null) return out;
            out.add(new Object[] {name, main.stack[ci.base + n - 1]});
        }
    }

    /**
     * Calls f above the frames of a suspended script (the debugger's eval and redis commands),
     * protected: returns its first result, or throws the LuaError with the frames as they were.
     */
    public Object callAboveSuspended(Object f, Object... args) {
        Coroutine th = main;
        int savedTop = th.top;
        // above the stopped frame's registers, which th.top may be below at a stop
        int func = Math.max(th.top, th.ci[th.ciIdx].top);
        th.ensure(func + args.length + 1 + MINSTACK);
        th.stack[func] = f;
        System.arraycopy(args, 0, th.stack, func + 1, args.length);
        th.top = func + 1 + args.length;
        try {
            LuaError e = pcallJava(th, func, 1);
            if (e != null) throw e;
            return th.stack[func];
        } finally {
            th.top = savedTop;
        }
    }

    /** Installs (or removes, with null) the periodic hook. */
    public void setHook(Hook h, int period) {
        hook = h;
        hookPeriod = period;
        hookCountdown = h == null ? Integer.MAX_VALUE : period;
    }

    // ---- loading --------------------------------------------------------------------------------

    /** Compiles a chunk into a function whose environment is the current globals. */
    public LuaClosure load(byte[] source, String chunkName) {
        return load(source, LuaString.valueOf(chunkName), main.globals);
    }

    LuaClosure load(byte[] source, LuaString chunkName, LuaTable env) {
        Proto p = Parser.compile(source, chunkName);
        return new LuaClosure(p, env);
    }

    // ---- errors ---------------------------------------------------------------------------------

    static String chunkId(LuaString source) {
        return Lexer.chunkId(source);
    }

    static int currentLine(CallInfo ci) {
        if (!ci.isLua()) return -1;
        return ci.cl.p.line(ci.savedpc - 1);
    }

    /** Lua's lua_getstack: the frame `level` calls below the running one, or null. */
    CallInfo getStack(Coroutine th, int level) {
        int idx = th.ciIdx;
        for (; level > 0 && idx > 0; idx--) {
            level--;
            CallInfo c = th.ci[idx];
            if (c.isLua()) level -= c.tailcalls;
        }
        if (level == 0 && idx > 0) return th.ci[idx];
        return null;
    }

    /** Lua's luaL_where: "chunk:line: " of the function at that level, or "". */
    public String where(Coroutine th, int level) {
        CallInfo ci = getStack(th, level);
        if (ci != null && ci.isLua()) {
            int line = currentLine(ci);
            if (line > 0) return chunkId(ci.cl.p.source) + ":" + line + ": ";
        }
        return "";
    }

    /** Lua's luaL_error from a builtin: message prefixed with the caller's position. */
    public LuaError error(Coroutine th, String msg) {
        return new LuaError(LuaString.valueOf(where(th, 1) + msg));
    }

    /** Adds the position prefix to a runtime error raised while th's top frame was running. */
    void finish(Coroutine th, LuaError e) {
        if (!e.needsPosition) return;
        e.needsPosition = false;
        CallInfo ci = th.ci[th.ciIdx];
        if (ci.isLua() && e.value instanceof LuaString) {
            e.value = LuaString.concat(
                    LuaString.valueOf(chunkId(ci.cl.p.source) + ":" + currentLine(ci) + ": "), (LuaString) e.value);
        }
    }

    /** Finalizes an error caught outside the interpreter loop (position from the raising frame). */
    public void finish(LuaError e) {
        finish(current, e);
    }

    LuaError typeError(Coroutine th, Object o, String op, int reg) {
        String t = LuaValues.typeName(o);
        String[] kn = reg >= 0 ? objName(th.ci[th.ciIdx], reg) : null;
        if (kn != null) return LuaError.runtime("attempt to " + op + " " + kn[0] + " '" + kn[1] + "' (a " + t + " value)");
        return LuaError.runtime("attempt to " + op + " a " + t + " value");
    }

    static LuaError orderError(Object a, Object b) {
        String t1 = LuaValues.typeName(a);
        String t2 = LuaValues.typeName(b);
        if (t1.charAt(2) == t2.charAt(2)) return LuaError.runtime("attempt to compare two " + t1 + " values");
        return LuaError.runtime("attempt to compare " + t1 + " with " + t2);
    }

    /** Lua's getobjname: how the value in register reg of a Lua frame was obtained. */
    String[] objName(CallInfo ci, int reg) {
        String[] r = objNameRaw(ci, reg);
        if (r != null) r[1] = cString(r[1]); // names reach messages through %s: C strings
        return r;
    }

    /** The characters before the first NUL (a Lua string formatted with %s by C code). */
    public static String cString(String s) {
        int z = s.indexOf('\0');
        return z < 0 ? s : s.substring(0, z);
    }

    private String[] objNameRaw(CallInfo ci, int reg) {
        if (!ci.isLua()) return null;
        Proto p = ci.cl.p;
        int pc = ci.savedpc - 1;
        LuaString name = p.localName(reg + 1, pc);
        if (name != null) return new String[] {"local", name.toString()};
        int i = symbexec(p, pc, reg);
        switch (Op.op(i)) {
            case Op.GETGLOBAL:
                return new String[] {"global", p.k[Op.bx(i)].toString()};
            case Op.MOVE: {
                int a = Op.a(i);
                int b = Op.b(i);
                if (b < a) return objNameRaw(ci, b);
                return null;
            }
            case Op.GETTABLE:
                return new String[] {"field", kname(p, Op.c(i))};
            case Op.GETUPVAL: {
                int u = Op.b(i);
                return new String[] {"upvalue", u < p.upvalueNames.length ? p.upvalueNames[u].toString() : "?"};
            }
            case Op.SELF:
                return new String[] {"method", kname(p, Op.c(i))};
            default:
                return null;
        }
    }

    private static String kname(Proto p, int c) {
        if (Op.isK(c) && p.k[Op.indexK(c)] instanceof LuaString) return p.k[Op.indexK(c)].toString();
        return "?";
    }

    /** The last instruction before lastpc that changed register reg (Lua's symbexec). */
    static int symbexec(Proto pt, int lastpc, int reg) {
        int last = pt.code.length - 1;
        for (int pc = 0; pc < lastpc; pc++) {
            int i = pt.code[pc];
            int op = Op.op(i);
            int a = Op.a(i);
            int b = 0;
            int c = 0;
            switch (Op.mode(op)) {
                case Op.MODE_ABC:
                    b = Op.b(i);
                    c = Op.c(i);
                    break;
                case Op.MODE_ABx:
                    b = Op.bx(i);
                    break;
                default:
                    b = Op.sbx(i);
                    break;
            }
            if (Op.testA(op) && a == reg) last = pc;
            switch (op) {
                case Op.LOADNIL:
                    if (a <= reg && reg <= b) last = pc;
                    break;
                case Op.SELF:
                    if (reg == a + 1) last = pc;
                    break;
                case Op.TFORLOOP:
                    if (reg >= a + 2) last = pc;
                    break;
                case Op.FORLOOP:
                case Op.FORPREP:
                case Op.JMP: {
                    int dest = pc + 1 + b;
                    if (pc < dest && dest <= lastpc) pc += b;
                    break;
                }
                case Op.CALL:
                case Op.TAILCALL:
                    if (reg >= a) last = pc;
                    break;
                case Op.SETLIST:
                    if (c == 0) pc++;
                    break;
                case Op.CLOSURE:
                    pc += pt.p[b].nups;
                    break;
                default:
                    break;
            }
        }
        return pt.code[last];
    }

    /** Lua's getfuncname for the frame at index idx: the call site's name for the function. */
    String[] funcName(Coroutine th, int idx) {
        CallInfo ci = th.ci[idx];
        if ((ci.isLua() && ci.tailcalls > 0) || idx < 1 || !th.ci[idx - 1].isLua()) return null;
        CallInfo caller = th.ci[idx - 1];
        int i = caller.cl.p.code[caller.savedpc - 1];
        int op = Op.op(i);
        if (op == Op.CALL || op == Op.TAILCALL || op == Op.TFORLOOP) return objName(caller, Op.a(i));
        return null;
    }

    /** Lua's luaL_argerror for the builtin running on th. */
    public LuaError argError(Coroutine th, int narg, String extramsg) {
        String[] fn = funcName(th, th.ciIdx);
        String name = fn == null ? null : fn[1];
        if (fn != null && fn[0].equals("method")) {
            narg--;
            if (narg == 0) return error(th, "calling '" + name + "' on bad self (" + extramsg + ")");
        }
        if (name == null) name = "?";
        return error(th, "bad argument #" + narg + " to '" + name + "' (" + extramsg + ")");
    }

    public LuaError typeArgError(Coroutine th, int narg, String tname, int base, int nargs) {
        String got = narg > nargs ? "no value" : LuaValues.typeName(th.stack[base + narg - 1]);
        return argError(th, narg, tname + " expected, got " + got);
    }

    // ---- argument helpers for builtins ----------------------------------------------------------

    public Object arg(Coroutine th, int base, int nargs, int n) {
        return n <= nargs ? th.stack[base + n - 1] : null;
    }

    public void checkAny(Coroutine th, int base, int nargs, int n) {
        if (n > nargs) throw argError(th, n, "value expected");
    }

    public LuaTable checkTable(Coroutine th, int base, int nargs, int n) {
        Object v = arg(th, base, nargs, n);
        if (!(v instanceof LuaTable)) throw typeArgError(th, n, "table", base, nargs);
        return (LuaTable) v;
    }

    public double checkNumber(Coroutine th, int base, int nargs, int n) {
        Object v = arg(th, base, nargs, n);
        Double d = LuaValues.toNumber(v);
        if (d == null) throw typeArgError(th, n, "number", base, nargs);
        return d;
    }

    /** luaL_checkinteger: (long) of the number, as x86 converts it. */
    public long checkInteger(Coroutine th, int base, int nargs, int n) {
        return Num.cLong(checkNumber(th, base, nargs, n));
    }

    /** luaL_checkint: the integer truncated to a C int. */
    public int checkInt(Coroutine th, int base, int nargs, int n) {
        return (int) checkInteger(th, base, nargs, n);
    }

    public int optInt(Coroutine th, int base, int nargs, int n, int def) {
        Object v = arg(th, base, nargs, n);
        return v == null ? def : checkInt(th, base, nargs, n);
    }

    public double optNumber(Coroutine th, int base, int nargs, int n, double def) {
        Object v = arg(th, base, nargs, n);
        return v == null ? def : checkNumber(th, base, nargs, n);
    }

    public LuaString checkString(Coroutine th, int base, int nargs, int n) {
        Object v = arg(th, base, nargs, n);
        LuaString s = LuaValues.toLuaString(v);
        if (s == null) throw typeArgError(th, n, "string", base, nargs);
        return s;
    }

    public LuaString optString(Coroutine th, int base, int nargs, int n, LuaString def) {
        Object v = arg(th, base, nargs, n);
        return v == null ? def : checkString(th, base, nargs, n);
    }

    /** lua_checkstack as builtins use it: at most MAXCSTACK values in their frame. */
    public void checkStack(Coroutine th, int base, int n, String msg) {
        if (th.top - base + n > MAXCSTACK) throw error(th, "stack overflow (" + msg + ")");
        th.ensure(th.top + n + MINSTACK);
    }

    // ---- metatables -----------------------------------------------------------------------------

    LuaTable metatableOf(Object o) {
        if (o instanceof LuaTable) return ((LuaTable) o).metatable;
        if (o instanceof LuaString) return stringMeta;
        if (o instanceof Userdata) return ((Userdata) o).metatable;
        return null;
    }

    public LuaTable getMetatable(Object o) {
        return metatableOf(o);
    }

    Object tm(Object o, LuaString event) {
        LuaTable mt = metatableOf(o);
        return mt == null ? null : mt.getStr(event);
    }

    // ---- calls from Java ------------------------------------------------------------------------

    /**
     * Calls stack[func] with the arguments up to th.top; leaves nresults results (all when
     * MULTRET) at func.. and sets th.top after them (Lua's luaD_call).
     */
    public void call(Coroutine th, int func, int nresults) {
        if (++nCcalls >= MAXCCALLS) {
            if (nCcalls == MAXCCALLS) {
                nCcalls--;
                throw LuaError.runtime("C stack overflow");
            } else if (nCcalls >= MAXCCALLS + (MAXCCALLS >> 3)) {
                nCcalls--;
                LuaError e = LuaError.of("error in error handling");
                e.inHandler = true;
                throw e;
            }
        }
        try {
            if (precall(th, func, nresults, false) == PCR_LUA) {
                CallInfo ci = th.ci[th.ciIdx];
                ci.entry = true;
                execute(th, th.ciIdx);
            }
        } catch (StackOverflowError so) {
            throw LuaError.runtime("stack overflow");
        } finally {
            nCcalls--;
        }
    }

    /** Calls f with the given arguments from Java; returns the first result. */
    public Object call1(Coroutine th, Object f, Object... args) {
        int func = th.top;
        th.ensure(func + args.length + 1 + MINSTACK);
        Object[] s = th.stack;
        s[func] = f;
        System.arraycopy(args, 0, s, func + 1, args.length);
        th.top = func + 1 + args.length;
        call(th, func, 1);
        Object r = th.stack[func];
        th.top = func;
        return r;
    }

    /** Calls f from Java keeping all results: returns them as an array. */
    public Object[] callAll(Coroutine th, Object f, Object... args) {
        int func = th.top;
        th.ensure(func + args.length + 1 + MINSTACK);
        Object[] s = th.stack;
        s[func] = f;
        System.arraycopy(args, 0, s, func + 1, args.length);
        th.top = func + 1 + args.length;
        call(th, func, MULTRET);
        int n = th.top - func;
        Object[] r = new Object[n];
        System.arraycopy(th.stack, func, r, 0, n);
        th.top = func;
        return r;
    }

    private Object callTMres(Coroutine th, Object f, Object p1, Object p2) {
        int func = th.top;
        th.ensure(func + 3 + MINSTACK);
        Object[] s = th.stack;
        s[func] = f;
        s[func + 1] = p1;
        s[func + 2] = p2;
        th.top = func + 3;
        call(th, func, 1);
        Object r = th.stack[func];
        th.top = func;
        return r;
    }

    private void callTM(Coroutine th, Object f, Object p1, Object p2, Object p3) {
        int func = th.top;
        th.ensure(func + 4 + MINSTACK);
        Object[] s = th.stack;
        s[func] = f;
        s[func + 1] = p1;
        s[func + 2] = p2;
        s[func + 3] = p3;
        th.top = func + 4;
        call(th, func, 0);
        th.top = func;
    }

    // ---- call machinery -------------------------------------------------------------------------

    /** Prepares a call of stack[func]; runs builtins right away. */
    int precall(Coroutine th, int func, int nresults, boolean inVm) {
        Object f = th.stack[func];
        if (!(f instanceof LuaFunction)) f = tryFuncTM(th, func);
        if (f instanceof LuaClosure) {
            precallLua(th, func, nresults, (LuaClosure) f);
            return PCR_LUA;
        }
        Builtin b = (Builtin) f;
        if (inVm) {
            if (b == pcallFn || b == xpcallFn) return precallPcall(th, func, nresults, b == xpcallFn);
            if (b == yieldFn) return precallYield(th, func);
        }
        th.ensure(th.top + MINSTACK);
        CallInfo ci = th.pushCi();
        ci.kind = CallInfo.BUILTIN;
        ci.func = func;
        ci.base = func + 1;
        ci.top = th.top + MINSTACK;
        ci.nresults = nresults;
        ci.fn = b;
        int n = b.call(this, th, func + 1, th.top - func - 1);
        poscall(th, func + 1, n);
        return PCR_C;
    }

    private Object tryFuncTM(Coroutine th, int func) {
        Object f = th.stack[func];
        Object tm = tm(f, S_CALL);
        if (!(tm instanceof LuaFunction)) {
            CallInfo ci = th.ci[th.ciIdx];
            throw typeError(th, f, "call", ci.isLua() ? func - ci.base : -1);
        }
        th.ensure(th.top + 1);
        Object[] s = th.stack;
        for (int p = th.top; p > func; p--) s[p] = s[p - 1];
        th.top++;
        s[func] = tm;
        return tm;
    }

    private void precallLua(Coroutine th, int func, int nresults, LuaClosure cl) {
        Proto p = cl.p;
        th.ensure(th.top + p.maxstacksize + p.numparams + 2);
        int base;
        if (p.isVararg == 0) {
            base = func + 1;
            if (th.top > base + p.numparams) th.top = base + p.numparams;
        } else {
            base = adjustVarargs(th, p, th.top - func - 1);
        }
        CallInfo ci = th.pushCi();
        ci.kind = CallInfo.LUA;
        ci.func = func;
        ci.base = base;
        ci.top = base + p.maxstacksize;
        ci.cl = cl;
        ci.fn = cl;
        ci.nresults = nresults;
        th.ensure(ci.top + 1);
        Object[] s = th.stack;
        for (int st = th.top; st < ci.top; st++) s[st] = null;
        th.top = ci.top;
    }

    private int adjustVarargs(Coroutine th, Proto p, int actual) {
        int nfix = p.numparams;
        Object[] s = th.stack;
        for (; actual < nfix; ++actual) s[th.top++] = null;
        LuaTable htab = null;
        if ((p.isVararg & Proto.VARARG_NEEDSARG) != 0) {
            int nvar = actual - nfix;
            htab = new LuaTable(nvar, 1);
            for (int i = 0; i < nvar; i++) htab.setInt(i + 1, s[th.top - nvar + i]);
            htab.rawset(S_N, LuaValues.num(nvar));
        }
        int fixed = th.top - actual;
        int base = th.top;
        for (int i = 0; i < nfix; i++) {
            s[th.top++] = s[fixed + i];
            s[fixed + i] = null;
        }
        if (htab != null) s[th.top++] = htab;
        return base;
    }

    /** Moves nres results from firstResult to the finished frame's function slot; pops the frame. */
    boolean poscall(Coroutine th, int firstResult, int nres) {
        CallInfo ci = th.ci[th.ciIdx--];
        int res = ci.func;
        int wanted = ci.nresults;
        Object[] s = th.stack;
        int end = firstResult + nres;
        int i = wanted;
        if (wanted > 0) th.ensure(res + wanted + 1);
        s = th.stack;
        for (; i != 0 && firstResult < end; i--) s[res++] = s[firstResult++];
        while (i-- > 0) s[res++] = null;
        th.top = res;
        return wanted != MULTRET;
    }

    /** pcall/xpcall inside the loop: a marker frame, then the protected function above it. */
    private int precallPcall(Coroutine th, int func, int nresults, boolean x) {
        int nargs = th.top - func - 1;
        Object handler = null;
        if (x) {
            if (nargs < 2) {
                // report as the builtin would, from its own frame
                CallInfo ci = th.pushCi();
                ci.kind = CallInfo.BUILTIN;
                ci.func = func;
                ci.base = func + 1;
                ci.top = th.top + MINSTACK;
                ci.fn = xpcallFn;
                throw argError(th, 2, "value expected");
            }
            handler = th.stack[func + 2];
            th.top = func + 2; // xpcall passes no arguments to f
        }
        th.ensure(th.top + MINSTACK);
        CallInfo m = th.pushCi();
        m.kind = x ? CallInfo.XPCALL : CallInfo.PCALL;
        m.func = func;
        m.base = func + 1;
        m.top = th.top + MINSTACK;
        m.nresults = nresults;
        m.fn = x ? xpcallFn : pcallFn;
        m.handler = handler;
        int mIdx = th.ciIdx;
        int r = precall(th, func + 1, MULTRET, true);
        if (r == PCR_C) finishPcall(th, mIdx);
        return r;
    }

    /** The protected function returned: [true, results...] to the pcall's caller. */
    private boolean finishPcall(Coroutine th, int mIdx) {
        CallInfo m = th.ci[mIdx];
        th.stack[m.func] = Boolean.TRUE;
        return poscall(th, m.func, th.top - m.func);
    }

    private int precallYield(Coroutine th, int func) {
        CallInfo ci = th.pushCi();
        ci.kind = CallInfo.BUILTIN;
        ci.func = func;
        ci.base = func + 1;
        ci.top = th.top + MINSTACK;
        ci.nresults = MULTRET;
        ci.fn = yieldFn;
        // raised from the yield builtin's own frame: no position, as lua_yield's error has none
        if (th == main || execDepth != th.baseExecDepth || hasMarker(th)) {
            throw LuaError.runtime("attempt to yield across metamethod/C-call boundary");
        }
        th.yieldCount = th.top - (func + 1);
        return PCR_YIELD;
    }

    private static boolean hasMarker(Coroutine th) {
        for (int i = th.ciIdx; i > 0; i--) {
            int k = th.ci[i].kind;
            if (k == CallInfo.PCALL || k == CallInfo.XPCALL) return true;
        }
        return false;
    }

    /**
     * An error reached the loop running frames above entryLevel: if a pcall/xpcall there catches
     * it, unwind to it and put its results in place (then the loop continues in its caller).
     */
    private boolean handleError(Coroutine th, int entryLevel, LuaError e) {
        finish(th, e);
        if (e.uncatchable) return false;
        for (int lvl = th.ciIdx; lvl > entryLevel; lvl--) {
            CallInfo m = th.ci[lvl];
            if (m.kind != CallInfo.PCALL && m.kind != CallInfo.XPCALL) continue;
            Object err = e.value;
            if (m.kind == CallInfo.XPCALL && !e.inHandler) err = runHandler(th, m.handler, err);
            else if (e.inHandler) err = LuaString.valueOf("error in error handling");
            int f = m.func + 1;
            th.closeUpvals(f);
            th.ciIdx = lvl;
            Object[] s = th.stack;
            th.ensure(m.func + 4);
            s = th.stack;
            s[m.func] = Boolean.FALSE;
            int n = 2;
            if (m.kind == CallInfo.PCALL && err instanceof LuaTable) {
                // Redis's pcall hands back the message of {err=...} tables instead of the table
                Object ef = ((LuaTable) err).getStr(S_ERR);
                if (ef instanceof LuaString || ef instanceof Double) {
                    s[f] = ef;
                } else {
                    s[f] = err;
                    s[f + 1] = null;
                    n = 3;
                }
            } else {
                s[f] = err;
            }
            th.top = m.func + n;
            boolean fixed = poscall(th, m.func, n);
            // a pcall that was itself protected by an enclosing pcall completes too
            while (th.ci[th.ciIdx].kind == CallInfo.PCALL || th.ci[th.ciIdx].kind == CallInfo.XPCALL) {
                fixed = finishPcall(th, th.ciIdx);
            }
            if (fixed) th.top = th.ci[th.ciIdx].top;
            return true;
        }
        return false;
    }

    /** Runs an xpcall message handler on top of the failed frames. */
    private Object runHandler(Coroutine th, Object handler, Object err) {
        CallInfo top = th.ci[th.ciIdx];
        if (th.top < top.top) th.top = top.top;
        try {
            return call1(th, handler, err);
        } catch (LuaError inner) {
            return LuaString.valueOf("error in error handling");
        }
    }

    // ---- metamethod-aware operations -----------------------------------------------------------

    /** t[key] with __index (Lua's luaV_gettable); reg names the register for error messages. */
    public Object index(Coroutine th, Object t, Object key, int reg) {
        for (int loop = 0; loop < MAXTAGLOOP; loop++) {
            Object tm;
            if (t instanceof LuaTable) {
                LuaTable h = (LuaTable) t;
                Object res = h.get(key);
                if (res != null || h.metatable == null || (tm = h.metatable.getStr(S_INDEX)) == null) return res;
            } else {
                tm = tm(t, S_INDEX);
                if (tm == null) throw typeError(th, t, "index", reg);
            }
            if (tm instanceof LuaFunction) return callTMres(th, tm, t, key);
            t = tm;
            reg = -1;
        }
        throw LuaError.runtime("loop in gettable");
    }

    /** t[key] = val with __newindex and Redis's read-only tables (Lua's luaV_settable). */
    public void setIndex(Coroutine th, Object t, Object key, Object val, int reg) {
        for (int loop = 0; loop < MAXTAGLOOP; loop++) {
            Object tm;
            if (t instanceof LuaTable) {
                LuaTable h = (LuaTable) t;
                if (h.readonly) throw LuaError.runtime("Attempt to modify a readonly table");
                if (h.metatable == null || (tm = h.metatable.getStr(S_NEWINDEX)) == null) {
                    h.rawset(key, val);
                    return;
                }
                if (h.get(key) != null) {
                    h.rawset(key, val);
                    return;
                }
                h.rawset(key, null); // Lua creates the slot before trying the metamethod
            } else {
                tm = tm(t, S_NEWINDEX);
                if (tm == null) throw typeError(th, t, "index", reg);
            }
            if (tm instanceof LuaFunction) {
                callTM(th, tm, t, key, val);
                return;
            }
            t = tm;
            reg = -1;
        }
        throw LuaError.runtime("loop in settable");
    }

    private static final long SIGN = Long.MIN_VALUE;
    private static final long QUIET = 0x0008000000000000L;

    /**
     * pow as glibc computes it on x86-64, down to which NaN comes out (its sign shows in
     * tostring: "nan" or "-nan"): the special cases of glibc's pow, then Math.pow.
     */
    static double pow(double x, double y) {
        long ix = Double.doubleToRawLongBits(x);
        long iy = Double.doubleToRawLongBits(y);
        if (zeroInfNan(iy)) {
            if (2 * iy == 0) return isSignaling(ix) ? addNan(x, y) : 1.0;
            if (ix == Double.doubleToRawLongBits(1.0)) return isSignaling(iy) ? addNan(x, y) : 1.0;
            if (Double.isNaN(x) || Double.isNaN(y)) return addNan(x, y);
            if (Math.abs(x) == 1.0) return 1.0;
            if ((Math.abs(x) < 1.0) == (iy >= 0)) return 0.0;
            return y * y;
        }
        if (zeroInfNan(ix)) {
            double x2 = Double.isNaN(x) ? quiet(x) : x * x;
            if (ix < 0 && isOddInteger(y)) x2 = Double.longBitsToDouble(Double.doubleToRawLongBits(x2) ^ SIGN);
            return iy < 0 ? (Double.isNaN(x2) ? x2 : 1 / x2) : x2;
        }
        if (ix < 0 && y != Math.rint(y)) return Num.DEFAULT_NAN; // negative base, fractional power
        return Math.pow(x, y);
    }

    /** ±0, ±inf or NaN. */
    private static boolean zeroInfNan(long i) {
        return Long.compareUnsigned(2 * i - 1, 2 * Double.doubleToRawLongBits(Double.POSITIVE_INFINITY) - 1) >= 0;
    }

    private static boolean isSignaling(long i) {
        return (i & 0x7ff0000000000000L) == 0x7ff0000000000000L && (i & 0x000fffffffffffffL) != 0 && (i & QUIET) == 0;
    }

    private static double quiet(double v) {
        return Double.longBitsToDouble(Double.doubleToRawLongBits(v) | QUIET);
    }

    /** x + y where one is NaN, as SSE does it: the first NaN operand, quieted. */
    private static double addNan(double x, double y) {
        return quiet(Double.isNaN(x) ? x : y);
    }

    private static boolean isOddInteger(double y) {
        if (Double.isInfinite(y) || y != Math.rint(y)) return false;
        if (Math.abs(y) >= 9007199254740992.0) return false;
        return ((long) y & 1) != 0;
    }

    static double arithRaw(int op, double x, double y) {
        double r;
        switch (op) {
            case Op.ADD: r = x + y; break;
            case Op.SUB: r = x - y; break;
            case Op.MUL: r = x * y; break;
            case Op.DIV: r = x / y; break;
            case Op.MOD: r = x - Math.floor(x / y) * y; break;
            case Op.POW: r = pow(x, y); break;
            default: r = -x; break;
        }
        if (r != r && op != Op.POW) r = nanResult(op, x, y); // pow picks its own NaN
        return r;
    }

    /** The NaN x86 produces: an operand's NaN propagates, else the default (negative) NaN. */
    private static double nanResult(int op, double x, double y) {
        if (op == Op.UNM) return Double.longBitsToDouble(Double.doubleToRawLongBits(x) ^ Long.MIN_VALUE);
        if (x != x) return x;
        if (y != y) return y;
        return Num.DEFAULT_NAN;
    }

    Object arith(Coroutine th, int op, Object rb, Object rc, int regB, int regC) {
        Double b = LuaValues.toNumber(rb);
        Double c;
        if (b != null && (c = LuaValues.toNumber(rc)) != null) return LuaValues.num(arithRaw(op, b, c));
        LuaString event = ARITH_EVENTS[op - Op.ADD];
        Object tm = tm(rb, event);
        if (tm == null) tm = tm(rc, event);
        if (tm == null) {
            if (b == null) throw typeError(th, rb, "perform arithmetic on", regB);
            throw typeError(th, rc, "perform arithmetic on", regC);
        }
        return callTMres(th, tm, rb, rc);
    }

    public boolean equalsObj(Coroutine th, Object a, Object b) {
        if (a instanceof Double) return b instanceof Double && ((Double) a).doubleValue() == ((Double) b).doubleValue();
        if (a == b) return true;
        if (a == null || b == null) return false;
        if (a instanceof LuaString) return b instanceof LuaString && ((LuaString) a).equals((LuaString) b);
        LuaTable mt1;
        LuaTable mt2;
        if (a instanceof LuaTable && b instanceof LuaTable) {
            mt1 = ((LuaTable) a).metatable;
            mt2 = ((LuaTable) b).metatable;
        } else if (a instanceof Userdata && b instanceof Userdata) {
            mt1 = ((Userdata) a).metatable;
            mt2 = ((Userdata) b).metatable;
        } else {
            return false;
        }
        Object tm = compTM(mt1, mt2, S_EQ);
        if (tm == null) return false;
        return !LuaValues.isFalse(callTMres(th, tm, a, b));
    }

    private static Object compTM(LuaTable mt1, LuaTable mt2, LuaString event) {
        if (mt1 == null) return null;
        Object tm1 = mt1.getStr(event);
        if (tm1 == null) return null;
        if (mt1 == mt2) return tm1;
        if (mt2 == null) return null;
        Object tm2 = mt2.getStr(event);
        if (tm2 == null) return null;
        return LuaValues.rawEquals(tm1, tm2) ? tm1 : null;
    }

    /** Returns TRUE/FALSE, or null when there is no usable order metamethod. */
    private Boolean orderTM(Coroutine th, Object a, Object b, LuaString event) {
        Object tm1 = tm(a, event);
        if (tm1 == null) return null;
        Object tm2 = tm(b, event);
        if (!LuaValues.rawEquals(tm1, tm2)) return null;
        return !LuaValues.isFalse(callTMres(th, tm1, a, b));
    }

    public boolean lessThan(Coroutine th, Object a, Object b) {
        if (a instanceof Double && b instanceof Double) return (Double) a < (Double) b;
        if (a instanceof LuaString && b instanceof LuaString) return ((LuaString) a).compareTo((LuaString) b) < 0;
        if (LuaValues.typeTag(a) != LuaValues.typeTag(b)) throw orderError(a, b);
        Boolean r = orderTM(th, a, b, S_LT);
        if (r != null) return r;
        throw orderError(a, b);
    }

    boolean lessEqual(Coroutine th, Object a, Object b) {
        if (a instanceof Double && b instanceof Double) return (Double) a <= (Double) b;
        if (a instanceof LuaString && b instanceof LuaString) return ((LuaString) a).compareTo((LuaString) b) <= 0;
        if (LuaValues.typeTag(a) != LuaValues.typeTag(b)) throw orderError(a, b);
        Boolean r = orderTM(th, a, b, S_LE);
        if (r != null) return r;
        r = orderTM(th, b, a, S_LT);
        if (r != null) return !r;
        throw orderError(a, b);
    }

    private static boolean isStrOrNum(Object o) {
        return o instanceof LuaString || o instanceof Double;
    }

    /** Lua's luaV_concat over stack slots [last-total+1, last]; result in the first slot. */
    void concat(Coroutine th, int total, int last, int frameBase) {
        do {
            Object[] s = th.stack;
            int top = last + 1;
            int n = 2;
            Object a = s[top - 2];
            Object b = s[top - 1];
            if (!isStrOrNum(a) || !isStrOrNum(b)) {
                Object tm = tm(a, S_CONCAT);
                if (tm == null) tm = tm(b, S_CONCAT);
                if (tm == null) {
                    int bad = isStrOrNum(a) ? top - 1 : top - 2;
                    throw typeError(th, s[bad], "concatenate", frameBase >= 0 ? bad - frameBase : -1);
                }
                Object r = callTMres(th, tm, a, b);
                th.stack[top - 2] = r;
            } else {
                LuaString bs = LuaValues.toLuaString(b);
                s[top - 1] = bs;
                if (bs.length() == 0) {
                    s[top - 2] = LuaValues.toLuaString(a);
                } else {
                    long tl = bs.length();
                    for (n = 1; n < total && isStrOrNum(s[top - n - 1]); n++) {
                        LuaString x = LuaValues.toLuaString(s[top - n - 1]);
                        s[top - n - 1] = x;
                        tl += x.length();
                        if (tl >= Integer.MAX_VALUE - 8) throw LuaError.runtime("string length overflow");
                    }
                    byte[] buf = new byte[(int) tl];
                    int pos = 0;
                    for (int i = n; i > 0; i--) {
                        LuaString x = (LuaString) s[top - i];
                        System.arraycopy(x.bytes, 0, buf, pos, x.bytes.length);
                        pos += x.bytes.length;
                    }
                    s[top - n] = LuaString.wrap(buf);
                }
            }
            total -= n - 1;
            last -= n - 1;
        } while (total > 1);
    }

    Object len(Coroutine th, Object v, int reg) {
        if (v instanceof LuaTable) return LuaValues.num(((LuaTable) v).length());
        if (v instanceof LuaString) return LuaValues.num(((LuaString) v).length());
        Object tm = tm(v, S_LEN);
        if (tm == null) throw typeError(th, v, "get length of", reg);
        return callTMres(th, tm, v, null);
    }

    /** tostring on the main thread for Java callers; errors from __tostring give the plain form. */
    public String tostringSafe(Object v) {
        try {
            return tostring(main, v).toString();
        } catch (LuaError e) {
            return LuaValues.typeName(v) + ": " + LuaValues.address(v);
        }
    }

    /** tostring as the base library does it (honouring __tostring). */
    public LuaString tostring(Coroutine th, Object v) {
        Object tm = tm(v, S_TOSTRING);
        if (tm != null) {
            Object r = call1(th, tm, v);
            if (!(r instanceof LuaString)) {
                LuaString s = LuaValues.toLuaString(r);
                if (s == null) throw error(th, "'__tostring' must return a string");
                return s;
            }
            return (LuaString) r;
        }
        if (v instanceof Double) return LuaValues.numberToString((Double) v);
        if (v instanceof LuaString) return (LuaString) v;
        if (v == null) return LuaString.valueOf("nil");
        if (v instanceof Boolean) return LuaString.valueOf(v.toString());
        return LuaString.valueOf(LuaValues.typeName(v) + ": " + LuaValues.address(v));
    }

    // ---- the interpreter loop -------------------------------------------------------------------

    private boolean hookFired(Coroutine th) {
        hookCountdown = hookPeriod;
        if (hook == null) {
            hookCountdown = Integer.MAX_VALUE;
            return false;
        }
        boolean wantSuspend = hook.onHook(this);
        return wantSuspend && suspendable && execDepth == 1 && th == main;
    }

    /**
     * Runs Lua frames of th from the current one until the frame at entryLevel returns (DONE), a
     * coroutine yields (YIELD) or the hook asks for a pause (SUSPEND).
     */
    int execute(Coroutine th, int entryLevel) {
        execDepth++;
        try {
            newframe:
            for (;;) {
                CallInfo ci = th.ci[th.ciIdx];
                LuaClosure cl = ci.cl;
                Proto p = cl.p;
                int[] code = p.code;
                Object[] k = p.k;
                int base = ci.base;
                int pc = ci.savedpc;
                Object[] stack = th.stack;
                // a register test per instruction, set only while a script is debugged
                boolean tracing = lineHook != null;
                try {
                    for (;;) {
                        if (tracing && traceLine(th, ci, pc)) {
                            ci.savedpc = pc;
                            return EXEC_SUSPEND;
                        }
                        int i = code[pc++];
                        ci.savedpc = pc;
                        int a = base + ((i >>> 6) & 0xFF);
                        switch (i & 0x3F) {
                            case Op.MOVE:
                                stack[a] = stack[base + (i >>> 23)];
                                continue;
                            case Op.LOADK:
                                stack[a] = k[i >>> 14];
                                continue;
                            case Op.LOADBOOL:
                                stack[a] = (i >>> 23) != 0 ? Boolean.TRUE : Boolean.FALSE;
                                if (((i >>> 14) & 0x1FF) != 0) pc++;
                                continue;
                            case Op.LOADNIL: {
                                int b = base + (i >>> 23);
                                for (int r = a; r <= b; r++) stack[r] = null;
                                continue;
                            }
                            case Op.GETUPVAL:
                                stack[a] = cl.upvals[i >>> 23].get();
                                continue;
                            case Op.GETGLOBAL: {
                                LuaString key = (LuaString) k[i >>> 14];
                                LuaTable env = cl.env;
                                Object v = env.getStr(key);
                                if (v == null && env.metatable != null) {
                                    v = index(th, env, key, -1);
                                    stack = th.stack;
                                }
                                stack[a] = v;
                                continue;
                            }
                            case Op.GETTABLE: {
                                int rb = i >>> 23;
                                Object t = stack[base + rb];
                                int c = (i >>> 14) & 0x1FF;
                                Object key = c >= 256 ? k[c - 256] : stack[base + c];
                                Object v;
                                if (t instanceof LuaTable) {
                                    LuaTable h = (LuaTable) t;
                                    v = h.get(key);
                                    if (v == null && h.metatable != null) {
                                        v = index(th, t, key, rb);
                                        stack = th.stack;
                                    }
                                } else {
                                    v = index(th, t, key, rb);
                                    stack = th.stack;
                                }
                                stack[a] = v;
                                continue;
                            }
                            case Op.SETGLOBAL: {
                                setIndex(th, cl.env, k[i >>> 14], stack[a], -1);
                                stack = th.stack;
                                continue;
                            }
                            case Op.SETUPVAL:
                                cl.upvals[i >>> 23].set(stack[a]);
                                continue;
                            case Op.SETTABLE: {
                                Object t = stack[a];
                                int b = i >>> 23;
                                int c = (i >>> 14) & 0x1FF;
                                Object key = b >= 256 ? k[b - 256] : stack[base + b];
                                Object val = c >= 256 ? k[c - 256] : stack[base + c];
                                if (t instanceof LuaTable && ((LuaTable) t).metatable == null && !((LuaTable) t).readonly) {
                                    ((LuaTable) t).rawset(key, val);
                                } else {
                                    setIndex(th, t, key, val, a - base);
                                    stack = th.stack;
                                }
                                continue;
                            }
                            case Op.NEWTABLE:
                                stack[a] = new LuaTable(Parser.fb2int(i >>> 23), Parser.fb2int((i >>> 14) & 0x1FF));
                                continue;
                            case Op.SELF: {
                                int rb = i >>> 23;
                                Object t = stack[base + rb];
                                int c = (i >>> 14) & 0x1FF;
                                Object key = c >= 256 ? k[c - 256] : stack[base + c];
                                stack[a + 1] = t;
                                Object v;
                                if (t instanceof LuaTable && ((LuaTable) t).metatable == null) {
                                    v = ((LuaTable) t).get(key);
                                } else {
                                    v = index(th, t, key, rb);
                                    stack = th.stack;
                                }
                                stack[a] = v;
                                continue;
                            }
                            case Op.ADD:
                            case Op.SUB:
                            case Op.MUL:
                            case Op.DIV:
                            case Op.MOD:
                            case Op.POW: {
                                int b = i >>> 23;
                                int c = (i >>> 14) & 0x1FF;
                                Object rb = b >= 256 ? k[b - 256] : stack[base + b];
                                Object rc = c >= 256 ? k[c - 256] : stack[base + c];
                                if (rb instanceof Double && rc instanceof Double) {
                                    stack[a] = LuaValues.num(arithRaw(i & 0x3F, (Double) rb, (Double) rc));
                                } else {
                                    Object r = arith(th, i & 0x3F, rb, rc, b >= 256 ? -1 : b, c >= 256 ? -1 : c);
                                    stack = th.stack;
                                    stack[a] = r;
                                }
                                continue;
                            }
                            case Op.UNM: {
                                int b = i >>> 23;
                                Object rb = stack[base + b];
                                if (rb instanceof Double) {
                                    stack[a] = LuaValues.num(arithRaw(Op.UNM, (Double) rb, 0));
                                } else {
                                    Object r = arith(th, Op.UNM, rb, rb, b, b);
                                    stack = th.stack;
                                    stack[a] = r;
                                }
                                continue;
                            }
                            case Op.NOT: {
                                Object v = stack[base + (i >>> 23)];
                                stack[a] = (v == null || v == Boolean.FALSE) ? Boolean.TRUE : Boolean.FALSE;
                                continue;
                            }
                            case Op.LEN: {
                                int b = i >>> 23;
                                Object r = len(th, stack[base + b], b);
                                stack = th.stack;
                                stack[a] = r;
                                continue;
                            }
                            case Op.CONCAT: {
                                int b = i >>> 23;
                                int c = (i >>> 14) & 0x1FF;
                                concat(th, c - b + 1, base + c, base);
                                stack = th.stack;
                                stack[a] = stack[base + b];
                                continue;
                            }
                            case Op.JMP: {
                                int sbx = (i >>> 14) - Op.MAXARG_sBx;
                                pc += sbx;
                                if (sbx < 0 && --hookCountdown <= 0 && hookFired(th)) {
                                    ci.savedpc = pc;
                                    return EXEC_SUSPEND;
                                }
                                continue;
                            }
                            case Op.EQ: {
                                int b = i >>> 23;
                                int c = (i >>> 14) & 0x1FF;
                                Object rb = b >= 256 ? k[b - 256] : stack[base + b];
                                Object rc = c >= 256 ? k[c - 256] : stack[base + c];
                                boolean eq;
                                if (rb instanceof Double && rc instanceof Double) eq = ((Double) rb).doubleValue() == ((Double) rc).doubleValue();
                                else if (rb == rc) eq = true;
                                else {
                                    eq = equalsObj(th, rb, rc);
                                    stack = th.stack;
                                }
                                if ((eq ? 1 : 0) == ((i >>> 6) & 0xFF)) {
                                    int sbx = (code[pc] >>> 14) - Op.MAXARG_sBx;
                                    pc += sbx + 1;
                                    if (sbx < 0 && --hookCountdown <= 0 && hookFired(th)) {
                                        ci.savedpc = pc;
                                        return EXEC_SUSPEND;
                                    }
                                    continue;
                                }
                                pc++;
                                continue;
                            }
                            case Op.LT:
                            case Op.LE: {
                                int b = i >>> 23;
                                int c = (i >>> 14) & 0x1FF;
                                Object rb = b >= 256 ? k[b - 256] : stack[base + b];
                                Object rc = c >= 256 ? k[c - 256] : stack[base + c];
                                boolean r;
                                if (rb instanceof Double && rc instanceof Double) {
                                    r = (i & 0x3F) == Op.LT ? (Double) rb < (Double) rc : (Double) rb <= (Double) rc;
                                } else {
                                    r = (i & 0x3F) == Op.LT ? lessThan(th, rb, rc) : lessEqual(th, rb, rc);
                                    stack = th.stack;
                                }
                                if ((r ? 1 : 0) == ((i >>> 6) & 0xFF)) {
                                    int sbx = (code[pc] >>> 14) - Op.MAXARG_sBx;
                                    pc += sbx + 1;
                                    if (sbx < 0 && --hookCountdown <= 0 && hookFired(th)) {
                                        ci.savedpc = pc;
                                        return EXEC_SUSPEND;
                                    }
                                    continue;
                                }
                                pc++;
                                continue;
                            }
                            case Op.TEST: {
                                Object v = stack[a];
                                boolean f = v == null || v == Boolean.FALSE;
                                if ((f ? 1 : 0) != ((i >>> 14) & 0x1FF)) {
                                    int sbx = (code[pc] >>> 14) - Op.MAXARG_sBx;
                                    pc += sbx + 1;
                                    if (sbx < 0 && --hookCountdown <= 0 && hookFired(th)) {
                                        ci.savedpc = pc;
                                        return EXEC_SUSPEND;
                                    }
                                    continue;
                                }
                                pc++;
                                continue;
                            }
                            case Op.TESTSET: {
                                Object v = stack[base + (i >>> 23)];
                                boolean f = v == null || v == Boolean.FALSE;
                                if ((f ? 1 : 0) != ((i >>> 14) & 0x1FF)) {
                                    stack[a] = v;
                                    int sbx = (code[pc] >>> 14) - Op.MAXARG_sBx;
                                    pc += sbx + 1;
                                    if (sbx < 0 && --hookCountdown <= 0 && hookFired(th)) {
                                        ci.savedpc = pc;
                                        return EXEC_SUSPEND;
                                    }
                                    continue;
                                }
                                pc++;
                                continue;
                            }
                            case Op.CALL: {
                                int b = i >>> 23;
                                int nresults = ((i >>> 14) & 0x1FF) - 1;
                                if (b != 0) th.top = a + b;
                                Object fn = stack[a];
                                if (fn instanceof LuaClosure) {
                                    precallLua(th, a, nresults, (LuaClosure) fn);
                                    if (--hookCountdown <= 0 && hookFired(th)) return EXEC_SUSPEND;
                                    continue newframe;
                                }
                                int r = precall(th, a, nresults, true);
                                if (r == PCR_LUA) continue newframe;
                                if (r == PCR_YIELD) return EXEC_YIELD;
                                if (nresults >= 0) th.top = ci.top;
                                stack = th.stack;
                                continue;
                            }
                            case Op.TAILCALL: {
                                int b = i >>> 23;
                                if (b != 0) th.top = a + b;
                                Object fn = stack[a];
                                if (!(fn instanceof LuaFunction)) {
                                    fn = tryFuncTM(th, a);
                                    stack = th.stack;
                                }
                                if (fn instanceof LuaClosure) {
                                    // reuse this frame: move function and arguments down
                                    if (th.openUpval != null) th.closeUpvals(base);
                                    int func = ci.func;
                                    int n = th.top - a;
                                    System.arraycopy(stack, a, stack, func, n);
                                    th.top = func + n;
                                    boolean entry = ci.entry;
                                    int tail = ci.tailcalls + 1;
                                    int nres = ci.nresults;
                                    th.ciIdx--;
                                    precallLua(th, func, nres, (LuaClosure) fn);
                                    CallInfo nci = th.ci[th.ciIdx];
                                    nci.entry = entry;
                                    nci.tailcalls = tail;
                                    if (--hookCountdown <= 0 && hookFired(th)) return EXEC_SUSPEND;
                                    continue newframe;
                                }
                                int r = precall(th, a, MULTRET, true);
                                if (r == PCR_LUA) continue newframe;
                                if (r == PCR_YIELD) return EXEC_YIELD;
                                stack = th.stack;
                                continue;
                            }
                            case Op.RETURN: {
                                int b = i >>> 23;
                                if (b != 0) th.top = a + b - 1;
                                if (th.openUpval != null) th.closeUpvals(base);
                                boolean entry = ci.entry;
                                boolean fixed = poscall(th, a, th.top - a);
                                if (entry) return EXEC_DONE;
                                for (;;) {
                                    CallInfo nci = th.ci[th.ciIdx];
                                    if (nci.kind != CallInfo.PCALL && nci.kind != CallInfo.XPCALL) break;
                                    fixed = finishPcall(th, th.ciIdx);
                                }
                                if (fixed) th.top = th.ci[th.ciIdx].top;
                                continue newframe;
                            }
                            case Op.FORLOOP: {
                                double step = (Double) stack[a + 2];
                                double idx = (Double) stack[a] + step;
                                double limit = (Double) stack[a + 1];
                                if (0 < step ? idx <= limit : limit <= idx) {
                                    pc += (i >>> 14) - Op.MAXARG_sBx;
                                    Double v = LuaValues.num(idx);
                                    stack[a] = v;
                                    stack[a + 3] = v;
                                    if (--hookCountdown <= 0 && hookFired(th)) {
                                        ci.savedpc = pc;
                                        return EXEC_SUSPEND;
                                    }
                                }
                                continue;
                            }
                            case Op.FORPREP: {
                                Double init = LuaValues.toNumber(stack[a]);
                                if (init == null) throw LuaError.runtime("'for' initial value must be a number");
                                Double limit = LuaValues.toNumber(stack[a + 1]);
                                if (limit == null) throw LuaError.runtime("'for' limit must be a number");
                                Double step = LuaValues.toNumber(stack[a + 2]);
                                if (step == null) throw LuaError.runtime("'for' step must be a number");
                                stack[a + 1] = limit;
                                stack[a + 2] = step;
                                stack[a] = LuaValues.num(init - step);
                                pc += (i >>> 14) - Op.MAXARG_sBx;
                                continue;
                            }
                            case Op.TFORLOOP: {
                                int cb = a + 3;
                                stack[cb + 2] = stack[a + 2];
                                stack[cb + 1] = stack[a + 1];
                                stack[cb] = stack[a];
                                th.top = cb + 3;
                                call(th, cb, (i >>> 14) & 0x1FF);
                                stack = th.stack;
                                th.top = ci.top;
                                if (stack[cb] != null) {
                                    stack[cb - 1] = stack[cb];
                                    pc += (code[pc] >>> 14) - Op.MAXARG_sBx;
                                    pc++;
                                    if (--hookCountdown <= 0 && hookFired(th)) {
                                        ci.savedpc = pc;
                                        return EXEC_SUSPEND;
                                    }
                                    continue;
                                }
                                pc++;
                                continue;
                            }
                            case Op.SETLIST: {
                                int n = i >>> 23;
                                int c = (i >>> 14) & 0x1FF;
                                if (n == 0) {
                                    n = th.top - a - 1;
                                    th.top = ci.top;
                                }
                                if (c == 0) c = code[pc++];
                                LuaTable h = (LuaTable) stack[a];
                                int last = (c - 1) * Op.LFIELDS_PER_FLUSH + n;
                                if (last > h.sizeArray) h.resizeArray(last);
                                for (; n > 0; n--) h.setInt(last--, stack[a + n]);
                                continue;
                            }
                            case Op.CLOSE:
                                th.closeUpvals(a);
                                continue;
                            case Op.CLOSURE: {
                                Proto np = p.p[i >>> 14];
                                LuaClosure ncl = new LuaClosure(np, cl.env);
                                for (int j = 0; j < np.nups; j++) {
                                    int ui = code[pc++];
                                    if ((ui & 0x3F) == Op.GETUPVAL) ncl.upvals[j] = cl.upvals[ui >>> 23];
                                    else ncl.upvals[j] = th.findUpval(base + (ui >>> 23));
                                }
                                stack[a] = ncl;
                                continue;
                            }
                            case Op.VARARG: {
                                int b = (i >>> 23) - 1;
                                int n = ci.base - ci.func - p.numparams - 1;
                                if (b == MULTRET) {
                                    th.ensure(a + n + 1);
                                    stack = th.stack;
                                    b = n;
                                    th.top = a + n;
                                }
                                for (int j = 0; j < b; j++) stack[a + j] = j < n ? stack[ci.base - n + j] : null;
                                continue;
                            }
                            default:
                                throw new IllegalStateException("bad opcode " + (i & 0x3F));
                        }
                    }
                } catch (LuaError e) {
                    if (!handleError(th, entryLevel, e)) throw e;
                } catch (StackOverflowError so) {
                    LuaError e = LuaError.runtime("stack overflow");
                    if (!handleError(th, entryLevel, e)) throw e;
                }
            }
        } finally {
            execDepth--;
        }
    }

    // ---- running scripts (suspendable) ---------------------------------------------------------

    /**
     * Starts f(args) on the main thread with suspension allowed. Returns EXEC_DONE (results via
     * {@link #results()}) or EXEC_SUSPEND (continue with {@link #resume()}); errors come out as
     * LuaError with the frames still in place for {@link #errorSource} until {@link #reset()}.
     */
    public int start(LuaFunction f, Object... args) {
        Coroutine th = main;
        th.ciIdx = 0;
        th.top = 1;
        th.ensure(args.length + 2 + MINSTACK);
        th.stack[1] = f;
        System.arraycopy(args, 0, th.stack, 2, args.length);
        th.top = 2 + args.length;
        return run(startMain);
    }

    /** The first step of {@link #start} (one object for every run). */
    private final Step startMain = this::startMainFunction;

    private int startMainFunction() {
        Coroutine th = main;
        if (precall(th, 1, 1, false) == PCR_LUA) {
            th.ci[th.ciIdx].entry = true;
            return execute(th, th.ciIdx);
        }
        return EXEC_DONE;
    }

    /** Continues a suspended script. */
    public int resume() {
        Coroutine th = main;
        int entry = 1;
        return run(() -> execute(th, entry));
    }

    private interface Step {
        int run();
    }

    private int run(Step s) {
        suspendable = allowSuspend;
        current = main;
        hookCountdown = hook == null ? Integer.MAX_VALUE : hookPeriod;
        try {
            return s.run();
        } finally {
            suspendable = false;
        }
    }

    /** The single result of the finished script. */
    public Object result() {
        return main.stack[1];
    }

    /**
     * Where the error being handled was raised, as Redis's error handler computes it
     * (debug.getinfo level 2, or 3 if that is a builtin): {source, line}, or null.
     */
    public Object[] errorSource() {
        Coroutine th = main;
        int idx = th.ciIdx;
        if (idx < 1) return null;
        CallInfo ci = th.ci[idx];
        if (!ci.isLua()) {
            idx--;
            if (idx < 1) return null;
            ci = th.ci[idx];
        }
        if (ci.isLua()) return new Object[] {ci.cl.p.source, LuaValues.num(currentLine(ci))};
        return new Object[] {LuaString.valueOf("=[C]"), LuaValues.num(-1)};
    }

    /**
     * For a builtin running on th: {source, line} of the Lua function that called it (or of the
     * one below when the caller is a builtin too), as debug.getinfo would give them.
     */
    public Object[] callerSource(Coroutine th) {
        int idx = th.ciIdx - 1;
        if (idx >= 1 && !th.ci[idx].isLua()) idx--;
        if (idx < 1) return null;
        CallInfo ci = th.ci[idx];
        if (ci.isLua()) return new Object[] {ci.cl.p.source, LuaValues.num(currentLine(ci))};
        return new Object[] {LuaString.valueOf("=[C]"), LuaValues.num(-1)};
    }

    /** Drops whatever the main thread had running (after an error or when abandoning a script). */
    public void reset() {
        Coroutine th = main;
        th.closeUpvals(0);
        th.ciIdx = 0;
        for (int i = 0; i < th.top && i < th.stack.length; i++) th.stack[i] = null;
        th.top = 1;
        current = main;
        nCcalls = 0;
        execDepth = 0;
        lineStopped = false;
        raiseOnResume = null;
    }

    // ---- coroutines -----------------------------------------------------------------------------

    public Coroutine newCoroutine(LuaFunction f) {
        Coroutine co = new Coroutine(current.globals);
        co.stack[1] = f;
        co.top = 2;
        return co;
    }

    /**
     * Resumes co with the arguments; returns the values it yielded or returned, or throws the
     * error that killed it (already finalized). co is left dead after an error.
     */
    Object[] resumeCoroutine(Coroutine co, Object[] args) {
        Coroutine prev = current;
        co.status = Coroutine.RUNNING;
        prev.status = Coroutine.NORMAL;
        current = co;
        int r;
        try {
            co.baseExecDepth = execDepth + 1;
            co.ensure(co.top + args.length + MINSTACK);
            if (!co.started) {
                co.started = true;
                System.arraycopy(args, 0, co.stack, co.top, args.length);
                co.top += args.length;
                int pr = precall(co, 1, MULTRET, true);
                if (pr == PCR_LUA) {
                    co.ci[co.ciIdx].entry = true;
                    r = execute(co, co.ciIdx);
                } else {
                    r = pr == PCR_YIELD ? EXEC_YIELD : EXEC_DONE;
                }
            } else {
                CallInfo yci = co.ci[co.ciIdx];
                int b = yci.base;
                co.ensure(b + args.length + MINSTACK);
                System.arraycopy(args, 0, co.stack, b, args.length);
                co.top = b + args.length;
                boolean fixed = poscall(co, b, args.length);
                if (fixed) co.top = co.ci[co.ciIdx].top;
                r = execute(co, 1);
            }
        } catch (LuaError e) {
            finish(co, e);
            co.status = Coroutine.DEAD;
            throw e;
        } catch (StackOverflowError so) {
            co.status = Coroutine.DEAD;
            throw LuaError.of("stack overflow");
        } finally {
            current = prev;
            prev.status = Coroutine.RUNNING;
        }
        Object[] out;
        if (r == EXEC_YIELD) {
            co.status = Coroutine.SUSPENDED;
            CallInfo yci = co.ci[co.ciIdx];
            out = new Object[co.yieldCount];
            System.arraycopy(co.stack, yci.base, out, 0, co.yieldCount);
        } else {
            co.status = Coroutine.DEAD;
            int n = co.top - 1;
            out = new Object[n];
            System.arraycopy(co.stack, 1, out, 0, n);
        }
        return out;
    }

    Coroutine current() {
        return current;
    }

    // ---- helpers for builtins -------------------------------------------------------------------

    /** Places values as a builtin's results at base (growing the stack if needed); returns count. */
    public int ret(Coroutine th, int base, Object... values) {
        th.ensure(base + values.length + 1);
        System.arraycopy(values, 0, th.stack, base, values.length);
        return values.length;
    }

    /** A protected call from Java (Lua's lua_pcall without handler): null on success, else the error value. */
    public LuaError pcallJava(Coroutine th, int func, int nresults) {
        int savedCi = th.ciIdx;
        int savedCalls = nCcalls;
        int savedDepth = execDepth;
        try {
            call(th, func, nresults);
            return null;
        } catch (LuaError e) {
            finish(th, e);
            if (e.uncatchable) throw e;
            th.closeUpvals(func);
            th.ciIdx = savedCi;
            nCcalls = savedCalls;
            execDepth = savedDepth;
            return e;
        }
    }
}
