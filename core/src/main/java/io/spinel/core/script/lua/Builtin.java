package io.spinel.core.script.lua;

/**
 * A function written in Java. Arguments are in the coroutine's stack at [base, base+nargs); the
 * function leaves its results at [base, base+n) and returns n. It may use the stack above
 * base+nargs (after {@link Coroutine#ensure}) and may call back into Lua through the
 * {@link Interp}.
 */
public abstract class Builtin extends LuaFunction {
    final String name;

    protected Builtin(String name) {
        this.name = name;
    }

    public String name() {
        return name;
    }

    protected abstract int call(Interp L, Coroutine th, int base, int nargs);

    /** Builtins written as lambdas. */
    public interface Body {
        int call(Interp L, Coroutine th, int base, int nargs);
    }

    public static Builtin of(String name, Body body) {
        return new Builtin(name) {
            @Override
            protected int call(Interp L, Coroutine th, int base, int nargs) {
                return body.call(L, th, base, nargs);
            }
        };
    }
}
