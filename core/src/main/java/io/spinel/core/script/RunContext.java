package io.spinel.core.script;

import io.spinel.core.Client;

/** One running script (Redis's scriptRunCtx): who called it, how it may behave, where it stands. */
final class RunContext {
    static final int PROPAGATE_AOF = io.spinel.core.Engine.PROPAGATE_AOF;
    static final int PROPAGATE_REPL = io.spinel.core.Engine.PROPAGATE_REPL;

    final Client caller;
    final Client client;
    /** The script's sha (EVAL) or the function's name (FCALL), as errors and logs name it. */
    final String funcname;
    final boolean evalMode;
    final byte[][] callerArgv;
    final long startNanos = System.nanoTime();
    boolean readOnly;
    boolean allowOom;
    /** Cluster mode: the script may touch keys of several slots (allow-cross-slot-keys, or an EVAL without flags). */
    boolean allowCrossSlot;
    /** The script has run a write command: SCRIPT KILL can no longer stop it. */
    boolean writeDirty;
    /** Past busy-reply-threshold: other clients are being answered BUSY. */
    boolean timedOut;
    boolean killed;
    /** Where propagation of the script's effects would go (redis.set_repl). */
    int replFlags = PROPAGATE_AOF | PROPAGATE_REPL;
    /**
     * Replayed by a load (from the AOF) that serves clients: once timed out, the script lets the
     * load's poll serve them from its hook instead of yielding (it cannot: the load needs its end).
     */
    boolean pollsLoad;
    /** Start of the current time slice while timed out. */
    long sliceStart;
    /** The caller was out of memory when the script started (denies deny-oom commands). */
    boolean oomAtStart;

    RunContext(Client caller, Client client, String funcname, boolean evalMode, byte[][] callerArgv) {
        this.caller = caller;
        this.client = client;
        this.funcname = funcname;
        this.evalMode = evalMode;
        this.callerArgv = callerArgv;
    }

    long durationMs() {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }
}
