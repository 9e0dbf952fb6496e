package io.spinel.core.script.lua;

/**
 * A Lua error in flight: any Lua value (usually a string message). Thrown as a Java exception so
 * the Java stack unwinds to the nearest protected call; the interpreter's own call stack is left
 * as it was at the raise point until a handler has seen it (error handlers inspect it).
 */
public final class LuaError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Object value;
    /**
     * A runtime error (Lua's luaG_runerror) whose "chunk:line:" prefix is still to be added from
     * the frame that was running when it was raised.
     */
    boolean needsPosition;
    /** SCRIPT KILL / load timeout: protected calls do not stop it. */
    boolean uncatchable;
    /** Raised while handling another error (Lua's LUA_ERRERR). */
    boolean inHandler;

    LuaError(Object value) {
        super(null, null, false, false);
        this.value = value;
    }

    /** An error carrying any Lua value (Redis raises {err=...} tables this way). */
    public static LuaError value(Object v) {
        return new LuaError(v);
    }

    /** An error whose value is exactly this message (no position added). */
    public static LuaError of(String message) {
        return new LuaError(LuaString.valueOf(message));
    }

    /** A runtime error raised from outside the interpreter package (position added like Lua's luaG_runerror). */
    public static LuaError runtimeError(String message) {
        return runtime(message);
    }

    /** A runtime error: the position of the running Lua function is prepended when it is raised. */
    static LuaError runtime(String message) {
        LuaError e = new LuaError(LuaString.valueOf(message));
        e.needsPosition = true;
        return e;
    }

    public Object value() {
        return value;
    }

    public boolean uncatchable() {
        return uncatchable;
    }

    /** Protected calls will not stop this error (SCRIPT KILL, FUNCTION LOAD timeout). */
    public void setUncatchable() {
        uncatchable = true;
    }

    @Override
    public String getMessage() {
        // one char per byte: a reply made of it carries the script's own bytes
        return value instanceof LuaString ? value.toString() : String.valueOf(value);
    }
}
