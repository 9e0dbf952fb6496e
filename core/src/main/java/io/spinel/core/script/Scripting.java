package io.spinel.core.script;

import io.spinel.core.Client;
import io.spinel.core.Engine;
import io.spinel.core.command.Command;
import io.spinel.core.command.CommandFlags;
import io.spinel.core.command.CommandTable;
import io.spinel.core.protocol.Args;
import io.spinel.core.protocol.Reply;
import io.spinel.core.script.lua.Interp;
import io.spinel.core.script.lua.LuaError;
import io.spinel.core.script.lua.LuaFunction;
import io.spinel.core.script.lua.LuaString;
import io.spinel.core.script.lua.LuaTable;
import io.spinel.core.util.Bytes;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.concurrent.TimeUnit;

/**
 * Lua scripting for one engine: the EVAL state and script cache, the functions engine, and the
 * run machinery both share (Redis's eval.c, script.c and script_lua.c).
 *
 * <p><b>Slow scripts.</b> Scripts run on the engine's executor thread, atomically. A hook runs every
 * {@value #HOOK_PERIOD} loop iterations/calls; once a script has run longer than
 * busy-reply-threshold, the interpreter suspends it at that point (its frames stay on its own
 * heap-allocated stack) and the executor returns to the event loop, where other clients get
 * -BUSY (or may run SCRIPT KILL, FUNCTION KILL, FUNCTION STATS, SHUTDOWN NOSAVE...) and no data
 * changes. A task resumes the script for another time slice, again and again, until it ends or
 * is killed; then its caller gets the reply and the commands it had pipelined run. This is Redis's
 * processEventsWhileBlocked turned inside out: instead of the script calling back into the event
 * loop, the script becomes a resumable task of it, so no second thread ever touches data. A script
 * started inside MULTI/EXEC, or caught inside a callback made from Java (a table.sort comparator,
 * a metamethod), cannot be suspended at that moment and keeps running.
 *
 * <p><b>Replication.</b> Redis 7 replicates scripts by their effects: every write command a script
 * runs goes through the script's own client and {@link Engine#runCommand}, with its own propagation
 * rewrites (Client.propagateAs), while the EVAL/FCALL itself is marked not to be propagated
 * ({@link Client#preventPropagation}). A propagation hook in the engine's call path therefore sees
 * exactly the effects Redis would propagate; redis.set_repl's choice is kept in the run context.
 */
public final class Scripting {
    static final String SLOW_EVAL = "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.";
    static final String SLOW_SCRIPT = "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.";
    static final int HOOK_PERIOD = 10_000;
    /** While a slow script yields, how long it runs between visits to the event loop. */
    static final long SLICE_NANOS = 2_000_000;

    final Engine engine;
    final EvalScripts eval;
    final Functions functions;
    /** SCRIPT DEBUG's sessions (one at a time, as scripts run one at a time). */
    final LuaDebugger debugger = new LuaDebugger(this);
    /** The script running now (also while it is suspended), or null. */
    RunContext running;
    private Interp runningLua;
    private Command runningCommand;
    private int runningErrors;
    /** Whether the last redis.call produced an error (redis.call raises it). */
    boolean lastReplyWasError;

    private Scripting(Engine engine) {
        this.engine = engine;
        this.eval = new EvalScripts(this);
        this.functions = new Functions(this);
        engine.setScriptStats(() -> new long[] {eval.size(), functions.current.functions.size(),
            functions.current.libraries.size(), eval.memory(), functions.memory(), eval.luaMemory(),
            functions.luaMemory()});
        // kept current here: reading and parsing the option on every script run showed in profiles
        engine.config().listen("busy-reply-threshold", o -> busyThresholdConfig = Long.parseLong(o.value()));
    }

    private long busyThresholdConfig;

    /** busy-reply-threshold in milliseconds (also the debugger's limit for a script that never stops). */
    long busyThresholdMs() {
        return busyThresholdConfig;
    }

    /** The scripting state of an engine, created on first use. */
    public static Scripting of(Engine engine) {
        return engine.extension(Scripting.class, Scripting::new);
    }

    static Scripting of(Client c) {
        return of(c.engine());
    }

    public Engine engine() {
        return engine;
    }

    /**
     * The source code of every function library, for persistence to save (RDB FUNCTION2
     * records, FUNCTION LOAD commands in a rewritten AOF).
     */
    public static java.util.List<byte[]> libraries(Engine engine) {
        java.util.List<byte[]> codes = new java.util.ArrayList<>();
        for (Functions.Library li : of(engine).functions.current.libraries.values()) codes.add(li.code);
        return codes;
    }

    /**
     * Loads a saved library (RDB or AOF loading, Redis's rdbFunctionLoad: no time limit, REPLACE
     * only for DEBUG RELOAD MERGE). Throws IllegalStateException with Redis's reason when it
     * cannot be loaded.
     */
    public static void loadLibrary(Engine engine, byte[] code, boolean replace) {
        Functions f = of(engine).functions;
        try {
            f.create(code, replace, f.current, 0);
        } catch (Functions.LoadError e) {
            throw new IllegalStateException(e.getMessage());
        }
    }

    /** Removes every function library, as emptying the data set for DEBUG RELOAD does. */
    public static void flushLibraries(Engine engine) {
        of(engine).functions.current = new Functions.LibCtx();
    }

    static String sha1hex(byte[] body) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-1").digest(body);
            StringBuilder sb = new StringBuilder(40);
            for (byte b : d) {
                sb.append(Character.forDigit((b >> 4) & 15, 16)).append(Character.forDigit(b & 15, 16));
            }
            return sb.toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    // ---- running --------------------------------------------------------------------------------

    /**
     * Runs fn(args) for ctx.caller. The reply goes to the caller now, or, if the script becomes slow
     * and yields to the event loop, when it ends.
     */
    /** Turns each redis.call reply into Lua values (reused: one reply is parsed at a time). */
    private final LuaResp.Parser replyParser = new LuaResp.Parser();
    /**
     * The command name a script called last and what it resolved to: a script calls the same
     * command from a string constant, whose bytes are the same array on every call, so the name
     * lookup runs once per constant instead of once per call. (Container commands, which resolve on
     * their second argument too, are not remembered.)
     */
    private byte[] lastCalledName;
    private Command lastCalled;

    /** The hook every script runs with (one object, not one per call): it watches the running script. */
    private final Interp.Hook busyHook = interp -> hook(running, this.busyThresholdMs);
    private long busyThresholdMs;

    void run(Interp L, RunContext ctx, LuaFunction fn, Object[] args) {
        // the script's effects are propagated, never the EVAL/FCALL itself; said up front because a
        // script that yields returns from its command before it has finished
        ctx.caller.preventPropagation();
        Client client = ctx.client;
        client.setDb(ctx.caller.db());
        client.reply().setProtocol(2);
        client.setDenyBlocking(true);
        ctx.oomAtStart = engine.isOutOfMemory();
        running = ctx;
        engine.setScriptCaller(ctx.caller);
        runningLua = L;
        runningCommand = ctx.caller.currentCommand();
        runningErrors = 0;
        L.context = ctx;
        boolean wasFrozen = engine.keyspace().isTimeFrozen();
        engine.keyspace().freezeTime(true);
        busyThresholdMs = busyThresholdConfig;
        boolean debugging = debugger.debugging(ctx);
        L.setHook(debugging ? debugger.countHook : busyHook, HOOK_PERIOD);
        if (debugging) L.setLineHook(debugger);
        // (a script replayed from the AOF runs to its end: the loader goes on with the next
        // command as soon as this call returns; once slow, its hook serves the clients instead)
        boolean loading = engine.keyspace().isLoading();
        L.setSuspendable(!engine.isNestedCall() && !loading);
        ctx.pollsLoad = loading;
        int status;
        try {
            status = L.start(fn, args);
        } catch (LuaError e) {
            finish(L, ctx, null, e, wasFrozen, false);
            return;
        } catch (RuntimeException e) {
            finish(L, ctx, null, internalError(e), wasFrozen, false);
            return;
        }
        if (status == Interp.EXEC_SUSPEND) {
            ctx.caller.pauseInput();
            if (debugging) debugger.stopped(L, ctx, wasFrozen);
            else schedule(L, ctx, wasFrozen);
            return;
        }
        finish(L, ctx, L.result(), null, wasFrozen, false);
    }

    /**
     * Continues a script the debugger stopped (raising an error where it stopped when raise is not
     * null): until its next stop, or to its end and reply.
     */
    void continueDebugged(Interp L, RunContext ctx, boolean wasFrozen, LuaError raise) {
        resumeScript(L, ctx, wasFrozen, raise);
    }

    private LuaError internalError(RuntimeException e) {
        engine.log().warning("Internal error running a script: " + e);
        return LuaError.value(LuaResp.errorTable("internal error: " + e));
    }

    private void schedule(Interp L, RunContext ctx, boolean wasFrozen) {
        // during a replica's async load the script runs from the load's polls, which run queued
        // tasks but no timers (the load waits for the script's end there, see Engine#processEventsWhileLoading)
        if (engine.asyncLoading()) engine.loop().execute(() -> continueRun(L, ctx, wasFrozen));
        else engine.loop().schedule(() -> continueRun(L, ctx, wasFrozen), 1, TimeUnit.MICROSECONDS);
    }

    private void continueRun(Interp L, RunContext ctx, boolean wasFrozen) {
        ctx.sliceStart = System.nanoTime();
        resumeScript(L, ctx, wasFrozen, null);
    }

    /**
     * Resumes a suspended script (raising raise where it stopped, if not null) until it is
     * suspended again, at the debugger's next stop or at the end of a slow script's time slice,
     * or to its end and reply.
     */
    private void resumeScript(Interp L, RunContext ctx, boolean wasFrozen, LuaError raise) {
        int status;
        try {
            status = raise == null ? L.resume() : L.resumeRaising(raise);
        } catch (LuaError e) {
            finish(L, ctx, null, e, wasFrozen, true);
            return;
        } catch (RuntimeException e) {
            finish(L, ctx, null, internalError(e), wasFrozen, true);
            return;
        }
        if (status == Interp.EXEC_SUSPEND) {
            if (debugger.debugging(ctx)) {
                debugger.stopped(L, ctx, wasFrozen);
            } else {
                engine.flushPending();
                schedule(L, ctx, wasFrozen);
            }
            return;
        }
        finish(L, ctx, L.result(), null, wasFrozen, true);
    }

    /** The interpreter hook: kill requests, the busy threshold and time slices. */
    private boolean hook(RunContext ctx, long thresholdMs) {
        if (ctx.killed) {
            engine.log().warning("Lua script killed by user with SCRIPT KILL.");
            LuaError e = LuaError.value(LuaResp.errorTable("Script killed by user with SCRIPT KILL..."));
            e.setUncatchable();
            throw e;
        }
        long now = System.nanoTime();
        if (!ctx.timedOut) {
            if (thresholdMs > 0 && now - ctx.startNanos >= thresholdMs * 1_000_000L) {
                engine.log().warning("Slow script detected: still in execution after " + ctx.durationMs()
                        + " milliseconds. You can try killing the script using the "
                        + (ctx.evalMode ? "SCRIPT KILL" : "FUNCTION KILL") + " command. Script name is: "
                        + ctx.funcname + ".");
                ctx.timedOut = true;
                engine.setBusy(ctx.evalMode ? SLOW_EVAL : SLOW_SCRIPT);
                ctx.sliceStart = now;
                return true;
            }
            return false;
        }
        if (ctx.pollsLoad) {
            // as Redis's scriptInterrupt while loading: the clients get -LOADING meanwhile
            engine.processEventsFromLoadingScript();
            if (engine.shutdownWhileLoadingAsked()) {
                // SHUTDOWN came meanwhile: nothing of this load will be kept, the loader stops at its next poll
                LuaError e = LuaError.value(LuaResp.errorTable("Script killed by a shutdown while loading"));
                e.setUncatchable();
                throw e;
            }
            return false;
        }
        return now - ctx.sliceStart >= SLICE_NANOS;
    }

    /** How an error inside a script's result is written and counted (one object for every call). */
    private final LuaResp.ErrorSink replyError = (rr, msg, count) -> {
        LuaResp.writeError(rr, msg);
        if (count) countError(msg);
        else runningErrors++;
        if (count) runningErrors = Math.max(runningErrors, 1);
    };

    /** Writes the script's reply (or error) to its caller and tears the run down. */
    private void finish(Interp L, RunContext ctx, Object result, LuaError error, boolean wasFrozen, boolean resumed) {
        Client caller = ctx.caller;
        Reply r = caller.reply();
        // a debugging session's last lines go before the script's reply
        if (debugger.debugging(ctx)) debugger.end();
        try {
            if (error != null) {
                writeScriptError(L, ctx, r, error);
            } else {
                LuaResp.toReply(r, result, ctx.client.reply().protocol(), 2, replyError);
            }
        } finally {
            if (runningCommand != null && runningErrors > 0) runningCommand.failedCalls += runningErrors;
            L.reset();
            L.setHook(null, 0);
            L.setLineHook(null);
            L.context = null;
            running = null;
            engine.setScriptCaller(null);
            runningLua = null;
            runningCommand = null;
            if (!wasFrozen) engine.keyspace().freezeTime(false);
            caller.preventPropagation();
            if (ctx.timedOut) engine.setBusy(null);
            if (resumed) {
                caller.resumeInput();
                engine.flushPending();
            }
        }
    }

    /** Redis's error paths of luaCallFunction: {err=...} tables get "script: name, on source:line." */
    private void writeScriptError(Interp L, RunContext ctx, Reply r, LuaError error) {
        Object v = error.value();
        Object[] src = L.errorSource();
        LuaTable t;
        if (v instanceof LuaTable) {
            t = (LuaTable) v;
        } else {
            t = new LuaTable();
            LuaString msg = v instanceof LuaString || v instanceof Double
                    ? io.spinel.core.script.lua.LuaValues.toLuaString(v)
                    : LuaString.valueOf(io.spinel.core.script.lua.LuaValues.typeName(v).equals("nil") ? "nil"
                    : L.tostringSafe(v));
            t.rawset(LuaResp.ERR, LuaString.concat(LuaString.valueOf("ERR "), msg));
        }
        Object errField = t.getStr(LuaResp.ERR);
        String msg = errField instanceof LuaString ? ((LuaString) errField).toString()
                : errField instanceof Double ? io.spinel.core.script.lua.LuaValues.toLuaString(errField).toString() : null;
        if (msg != null && msg.indexOf('\0') >= 0) msg = msg.substring(0, msg.indexOf('\0')); // copied as a C string
        StringBuilder sb = new StringBuilder();
        sb.append(msg == null ? "(null)" : msg);
        if (src != null) {
            sb.append(" script: ").append(ctx.funcname).append(", on ")
                    .append(src[0].toString()).append(':')
                    .append(io.spinel.core.script.lua.LuaValues.toLuaString(src[1]).toString()).append('.');
        }
        Object ign = t.getStr(LuaResp.IGNORE_STATS);
        boolean ignore = ign instanceof Boolean && (Boolean) ign;
        byte[] bytes = sb.toString().getBytes(StandardCharsets.ISO_8859_1);
        LuaResp.writeError(r, bytes);
        if (!ignore) {
            countError(bytes);
            runningErrors = Math.max(runningErrors, 1);
        } else {
            runningErrors++;
        }
    }

    /** Counts an error reply in INFO errorstats as Redis's afterErrorReply does. */
    void countError(byte[] msg) {
        msg = LuaResp.cString(msg);
        int n = Math.min(msg.length, 31);
        int sp = -1;
        for (int i = 0; i < n; i++) {
            if (msg[i] == ' ') {
                sp = i;
                break;
            }
        }
        engine.countErrorReply(sp < 0 ? "ERR" : new String(msg, 0, sp, StandardCharsets.ISO_8859_1));
    }

    /** Redis's scriptPrepareForRun checks on the script's flags; the error to reply, or null. */
    String prepareError(Client caller, int flags, boolean ro) {
        boolean stale = engine.staleDenied();
        if ((flags & ScriptFlags.EVAL_COMPAT_MODE) != 0) {
            // a script without flags may read anything: not on a stale replica
            return stale ? "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'." : null;
        }
        if ((flags & ScriptFlags.NO_CLUSTER) != 0 && engine.cluster() != null) {
            return "ERR Can not run script on cluster, 'no-cluster' flag is set.";
        }
        if (stale && (flags & ScriptFlags.ALLOW_STALE) == 0) {
            return "MASTERDOWN Link with MASTER is down, replica-serve-stale-data is set to 'no' and 'allow-stale' flag "
                    + "is not set on the script.";
        }
        if ((flags & ScriptFlags.NO_WRITES) == 0 && ro) {
            return "ERR Can not execute a script with write flag using *_ro command.";
        }
        if ((flags & ScriptFlags.NO_WRITES) == 0 && !engine.hasGoodReplicas()) {
            return "NOREPLICAS Not enough good replicas to write.";
        }
        if ((flags & (ScriptFlags.ALLOW_OOM | ScriptFlags.NO_WRITES)) == 0 && engine.isOutOfMemory()) {
            return "OOM allow-oom flag is not set on the script, can not run it when used memory > 'maxmemory'";
        }
        return null;
    }

    /** Redis's addReplyHelp: "<CMD> <subcommand> ..." header, the lines, then HELP. */
    // ---- redis.call ------------------------------------------------------------------------------

    /** Runs a command as the script's client; returns its reply as a Lua value (Redis's scriptCall). */
    Object runFromScript(RunContext ctx, byte[][] argv) {
        Client c = ctx.client;
        Args a = c.args();
        a.set(argv);
        Command cmd;
        if (argv[0] == lastCalledName) {
            cmd = lastCalled;
        } else {
            cmd = engine.commands().resolve(a);
            boolean remember = cmd != null && !cmd.isContainer();
            lastCalledName = remember ? argv[0] : null;
            lastCalled = remember ? cmd : null;
        }
        boolean logging = debugger.logging();
        if (logging) debugger.logCommand(argv);
        String err = cmd != null ? RedisApi.check(this, ctx, cmd, argv.length) : unimplementedError(a);
        if (err != null) {
            if (logging) debugger.log("<error> " + err);
            countError(Bytes.ascii(err.startsWith("-") ? err.substring(1) : "ERR " + err));
            if (cmd != null) cmd.rejectedCalls++;
            LuaTable t = LuaResp.errorTable(err);
            t.rawset(LuaResp.IGNORE_STATS, Boolean.TRUE);
            lastReplyWasError = true;
            return t;
        }
        if ((cmd.flags(c) & CommandFlags.WRITE) != 0) ctx.writeDirty = true;
        CaptureConnection conn = (CaptureConnection) c.connection();
        Reply r = c.reply();
        c.setPropagationTargets(ctx.replFlags);
        engine.runCommand(c, cmd);
        byte[] buf;
        int start;
        if (conn.length() == 0) {
            buf = r.buffer();
            start = 0;
        } else {
            conn.write(r.buffer(), 0, r.length());
            buf = conn.buffer();
            start = 0;
        }
        int len = conn.length() == 0 ? r.length() : conn.length();
        Object v;
        if (len == 0) {
            v = null;
            lastReplyWasError = false;
        } else {
            lastReplyWasError = buf[start] == '-';
            v = replyParser.reset(buf, start).next(false);
            if (logging) {
                // an error reply becomes a Lua error the way Redis's luaPushError makes one, which logs it
                if (lastReplyWasError) debugger.log("<error> " + new String(buf, start, lineLength(buf, start), StandardCharsets.ISO_8859_1));
                debugger.logReply(buf, start, len);
            }
        }
        r.clear();
        conn.clear();
        return v;
    }

    /** The length of the line at start, up to its CRLF. */
    private static int lineLength(byte[] buf, int start) {
        int i = start;
        while (buf[i] != '\r') i++;
        return i - start;
    }

    /**
     * A command Spinel does not run: Redis would still know it, so arity and "not allowed from
     * script" errors come first; anything else is reported as unknown.
     */
    private String unimplementedError(Args a) {
        String name = a.string(0).toLowerCase(java.util.Locale.ROOT);
        CommandTable t = engine.commands();
        Command spec = t.spec(name);
        if (spec != null && a.count() > 1 && spec.isContainer()) {
            spec = t.spec(name + "|" + a.string(1).toLowerCase(java.util.Locale.ROOT));
        }
        if (spec == null) return "Unknown Redis command called from script";
        if (!spec.arityOk(a.count())) return "Wrong number of args calling Redis command from script";
        if (spec.has(CommandFlags.NOSCRIPT)) return "This Redis command is not allowed from script";
        return "Unknown Redis command called from script";
    }

    // ---- SCRIPT KILL / FUNCTION KILL / FUNCTION STATS --------------------------------------------

    /** Redis's scriptKill: isEval is true for SCRIPT KILL, false for FUNCTION KILL. */
    void kill(Client c, boolean isEval) {
        RunContext ctx = running;
        if (ctx == null) {
            c.error("NOTBUSY No scripts in execution right now.");
            return;
        }
        if (ctx.writeDirty) {
            c.error("UNKILLABLE Sorry the script already executed write commands against the dataset. You can either"
                    + " wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command.");
            return;
        }
        if (isEval && !ctx.evalMode) {
            c.error(SLOW_SCRIPT);
            return;
        }
        if (!isEval && ctx.evalMode) {
            c.error(SLOW_EVAL);
            return;
        }
        ctx.killed = true;
        c.reply().ok();
    }

    /** Lua memory in bytes for INFO (both states): an estimate, the JVM keeps no per-state heap. */
    long luaMemory() {
        return eval.luaMemory() + functions.luaMemory();
    }
}
