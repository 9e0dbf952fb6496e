package io.spinel.core.script.lua;

/** One activation record (Lua's CallInfo); reused in place as the call stack grows and shrinks. */
final class CallInfo {
    static final int LUA = 0;
    static final int BUILTIN = 1;
    /** A pcall in progress: the protected function runs in the frame above. */
    static final int PCALL = 2;
    /** An xpcall in progress; {@link #handler} holds the message handler. */
    static final int XPCALL = 3;

    int kind;
    /** Stack index of the function being called; results go here. */
    int func;
    int base;
    int top;
    int savedpc;
    int nresults;
    int tailcalls;
    LuaFunction fn;
    LuaClosure cl;
    Object handler;
    /** A Java caller waits for this frame: its return ends that execute() invocation. */
    boolean entry;
    /** The last instruction the line hook saw in this frame, -1 before the first (Lua's oldpc). */
    int hookPc = -1;

    boolean isLua() {
        return kind == LUA;
    }
}
