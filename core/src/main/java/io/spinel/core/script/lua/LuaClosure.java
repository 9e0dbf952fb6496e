package io.spinel.core.script.lua;

/** A Lua function: compiled prototype plus its captured upvalues. */
public final class LuaClosure extends LuaFunction {
    final Proto p;
    final UpVal[] upvals;

    LuaClosure(Proto p, LuaTable env) {
        this.p = p;
        this.upvals = new UpVal[p.nups];
        this.env = env;
    }

    public Proto proto() {
        return p;
    }
}
