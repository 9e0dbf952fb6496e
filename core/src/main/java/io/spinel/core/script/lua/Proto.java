package io.spinel.core.script.lua;

/** A compiled Lua function: code, constants, nested prototypes and debug information. */
public final class Proto {
    static final int VARARG_HASARG = 1;
    static final int VARARG_ISVARARG = 2;
    static final int VARARG_NEEDSARG = 4;

    int[] code;
    int[] lineinfo;
    Object[] k;
    Proto[] p;
    /** Local variable debug info: name, first and last pc where it is active. */
    LuaString[] locvarNames;
    int[] locvarStart;
    int[] locvarEnd;
    LuaString[] upvalueNames;
    int nups;
    int numparams;
    int isVararg;
    int maxstacksize;
    int linedefined;
    int lastlinedefined;
    /** Chunk name as given to load ("@user_script", "=[C]", or the source text). */
    LuaString source;

    /** Name of the nth active local variable at pc (Lua's luaF_getlocalname), or null. */
    LuaString localName(int localNumber, int pc) {
        for (int i = 0; i < locvarNames.length && locvarStart[i] <= pc; i++) {
            if (pc < locvarEnd[i]) {
                localNumber--;
                if (localNumber == 0) return locvarNames[i];
            }
        }
        return null;
    }

    int line(int pc) {
        return pc >= 0 && pc < lineinfo.length ? lineinfo[pc] : 0;
    }

    /** Rough size for memory accounting. */
    long memoryEstimate() {
        long n = 64 + code.length * 8L + k.length * 16L;
        for (Proto q : p) n += q.memoryEstimate();
        return n;
    }
}
