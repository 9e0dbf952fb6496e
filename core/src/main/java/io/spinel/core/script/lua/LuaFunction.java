package io.spinel.core.script.lua;

/** A Lua function value: a Lua closure or a builtin written in Java. Both carry an environment. */
public abstract class LuaFunction {
    /** The function environment (getfenv/setfenv): where a Lua closure's globals live. */
    LuaTable env;

    public LuaTable env() {
        return env;
    }
}
