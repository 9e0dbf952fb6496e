package io.spinel.core.script;

import io.spinel.core.Client;
import io.spinel.core.Engine;
import io.spinel.core.protocol.Args;
import io.spinel.core.protocol.Reply;
import io.spinel.core.script.lua.Coroutine;
import io.spinel.core.script.lua.Interp;
import io.spinel.core.script.lua.LightUserdata;
import io.spinel.core.script.lua.LuaClosure;
import io.spinel.core.script.lua.LuaError;
import io.spinel.core.script.lua.LuaFunction;
import io.spinel.core.script.lua.LuaString;
import io.spinel.core.script.lua.LuaTable;
import io.spinel.core.script.lua.LuaValues;
import io.spinel.core.script.lua.Num;
import io.spinel.core.script.lua.Userdata;
import io.spinel.core.util.Bytes;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The Lua debugger (Redis's LDB: SCRIPT DEBUG, what {@code redis-cli --ldb} talks to). A client
 * that asked for it has its next EVAL run as a debugging session: the script stops before its
 * first line, and at every stop the client sends debugger commands (step, continue, list, print,
 * break, eval, redis, trace, maxlen, abort, help) instead of Redis commands, each answered by the
 * debugger's log lines as an array of status replies. The session ends with the script: an
 * {@code <endsession>} line, the EVAL's reply, and the connection is closed.
 *
 * <p>How it runs here: a stop is the interpreter's line hook ({@link Interp.LineHook}) suspending
 * the script where it is, as a slow script is suspended to let the event loop run; while it is
 * stopped, the client's commands come here ({@link Client.InputTaker}) instead of to the command
 * table, and step or continue resume it. Every other client waits meanwhile (a pause of all
 * commands), as Redis's server serves nobody else while its debugger waits for the user.
 *
 * <p>SCRIPT DEBUG YES has Redis fork a child that runs the session while the server goes on,
 * and whatever the script wrote dies with the child. Without a fork, a forked session runs as a
 * synchronous one (every other client waits) inside a sandbox: the keyspace records what the
 * script changes and undoes it when the session ends, and nothing the script does reaches
 * anyone else meanwhile (see {@link Engine#startDiscardedSession}).
 */
final class LuaDebugger implements Interp.LineHook, Client.InputTaker {
    private static final int MAX_BREAKPOINTS = 64;
    private static final int DEFAULT_MAXLEN = 256;
    /** Nesting shown of tables inside tables (Redis's LUA_MINSTACK / 2). */
    private static final int MAX_VALUE_DEPTH = 10;
    /** Redis's debugger reads at most this many arguments of at most this many bytes. */
    private static final int MAX_INPUT = 1024;
    private static final LuaString LDB_EVAL = LuaString.valueOf("@ldb_eval");

    private final Scripting scripting;

    /** The debugging client while a session runs, else null. */
    private Client client;
    private boolean clientGone;
    /** SCRIPT DEBUG YES: the script's changes are undone at the end (Redis's forked session). */
    private boolean forked;
    /** A forked session's EVAL added its script to the cache: taken out again at the end (Redis's parent never ran it). */
    private String uncacheAtEnd;
    private byte[][] lines = new byte[0][];
    private final ArrayList<String> logs = new ArrayList<>();
    private final int[] breakpoints = new int[MAX_BREAKPOINTS];
    private int breakpointCount;
    /** Stop at the next line, whatever the breakpoints (also: log redis.call while set). */
    private boolean step;
    /** redis.breakpoint() was called: stop at the next line. */
    private boolean luaBreakpoint;
    private int currentLine;
    private int maxlen;
    private boolean maxlenHintSent;
    /** Running without stops for longer than the time limit: stop at the next line. */
    private boolean timedOut;
    private long runStartNanos;

    // the stopped script, while it waits for the client's commands
    private Interp lua;
    private RunContext ctx;
    private boolean wasFrozen;
    private boolean stopped;

    /** The interpreter's periodic hook during a session: notices a script running too long without stops. */
    final Interp.Hook countHook;

    LuaDebugger(Scripting scripting) {
        this.scripting = scripting;
        this.countHook = L -> {
            if (!step && !timedOut) {
                long limitMs = scripting.busyThresholdMs() > 0 ? scripting.busyThresholdMs() : 5000;
                if (System.nanoTime() - runStartNanos >= limitMs * 1_000_000L) timedOut = true;
            }
            return false;
        };
    }

    // ---- the session ----------------------------------------------------------------------------

    /** Whether a session runs for this script's caller. */
    boolean debugging(RunContext ctx) {
        return client != null && ctx.caller == client;
    }

    boolean active() {
        return client != null;
    }

    /** Whether a session runs for this client. */
    boolean debugging(Client c) {
        return client != null && client == c;
    }

    /** Whether the session's script is stopped, waiting for the client. */
    boolean isStopped() {
        return stopped;
    }

    /** Redis's ldbIsEnabled: redis.call and its reply are logged while stepping. */
    boolean logging() {
        return client != null && step;
    }

    /** Starts a session for the EVAL c runs now, whose script is body. */
    void start(Client c, byte[] body) {
        Engine engine = scripting.engine;
        client = c;
        clientGone = false;
        forked = c.luaDebug() == Client.LUA_DEBUG_YES;
        String sha = forked ? Scripting.sha1hex(body) : null;
        uncacheAtEnd = forked && !scripting.eval.isCached(sha) ? sha : null;
        logs.clear();
        breakpointCount = 0;
        step = true;
        luaBreakpoint = false;
        maxlen = DEFAULT_MAXLEN;
        maxlenHintSent = false;
        timedOut = false;
        currentLine = 0;
        runStartNanos = System.nanoTime();
        lines = splitLines(body);
        engine.scriptDebugPause(true);
        if (forked) {
            engine.startDiscardedSession(this::kill);
            engine.log().warning("Redis forked for debugging eval");
        } else {
            engine.log().warning("Redis synchronous debugging eval session started");
        }
    }

    /** The script's lines, without the line breaks at its end (Redis splits the EVAL's body on \n). */
    private static byte[][] splitLines(byte[] body) {
        int n = body.length;
        while (n > 0 && (body[n - 1] == '\n' || body[n - 1] == '\r')) n--;
        List<byte[]> out = new ArrayList<>();
        int from = 0;
        for (int i = 0; i <= n; i++) {
            if (i == n || body[i] == '\n') {
                out.add(java.util.Arrays.copyOfRange(body, from, i));
                from = i + 1;
            }
        }
        if (n == 0) out.clear();
        return out.toArray(new byte[0][]);
    }

    /** The script stopped (suspended by the line hook): the client's commands come here now. */
    void stopped(Interp L, RunContext ctx, boolean wasFrozen) {
        this.lua = L;
        this.ctx = ctx;
        this.wasFrozen = wasFrozen;
        stopped = true;
        if (!clientGone) client.takeInput(this);
    }

    /**
     * Ends the session, before the EVAL's reply is written (Redis's ldbEndSession): the last
     * lines and {@code <endsession>}, then the reply, then the connection closes.
     */
    void end() {
        Client c = client;
        if (c == null) return;
        Engine engine = scripting.engine;
        log("<endsession>");
        sendLogs();
        c.takeInput(null);
        c.closeAfterReply();
        boolean wasForked = forked;
        String uncache = uncacheAtEnd;
        forked = false;
        uncacheAtEnd = null;
        client = null;
        lua = null;
        ctx = null;
        stopped = false;
        lines = new byte[0][];
        try {
            if (wasForked) {
                engine.log().warning("Lua debugging session child exiting");
                engine.endDiscardedSession();
                if (uncache != null) scripting.eval.uncache(uncache);
            } else {
                engine.log().warning("Redis synchronous debugging eval session ended");
            }
        } finally {
            // (after the undo: nobody else may see what the session changed)
            engine.scriptDebugPause(false);
        }
    }

    /**
     * A shutdown kills a forked session first, as Redis's finishShutdown kills the child: the
     * client's connection closes with no more output, the script ends where it stopped, and what
     * it changed is undone before anything is saved.
     */
    private void kill() {
        Client c = client;
        if (c == null) return;
        scripting.engine.log().warning("Killing debugging session " + c.id());
        clientGone = true;
        step = false;
        breakpointCount = 0;
        luaBreakpoint = false;
        scripting.engine.closeClient(c);
        if (stopped) {
            LuaError killed = RedisApi.raise("Lua debugging session killed");
            killed.setUncatchable();
            resume(killed);
        }
    }

    private void resume(LuaError raise) {
        stopped = false;
        client.takeInput(null);
        runStartNanos = System.nanoTime();
        scripting.continueDebugged(lua, ctx, wasFrozen, raise);
    }

    // ---- stops ----------------------------------------------------------------------------------

    @Override
    public boolean onLine(Interp L, LuaString source, int line, boolean canStop) {
        currentLine = line;
        if (!source.equals(EvalScripts.USER_SCRIPT)) return false;
        if (clientGone) {
            if (timedOut) throw RedisApi.raise("timeout during Lua debugging with client closing connection");
            return false;
        }
        boolean breakpoint = isBreakpoint(line) || luaBreakpoint;
        if (!step && !breakpoint && !timedOut) return false;
        if (!canStop) return false; // inside a callback from Java: the next line that can stop will
        String reason = breakpoint ? (luaBreakpoint ? "redis.breakpoint() called" : "break point")
                : step ? "step over" : "timeout reached, infinite loop?";
        step = false;
        luaBreakpoint = false;
        timedOut = false;
        log("* Stopped at " + line + ", stop reason = " + reason);
        logSourceLine(line);
        sendLogs();
        return true;
    }

    /** redis.breakpoint(): stop at the next line; false outside a session. */
    boolean breakpointCalled() {
        if (client == null) return false;
        luaBreakpoint = true;
        return true;
    }

    /** redis.debug(values...): a line in the debugger's console. */
    void debugCalled(Object[] values) {
        if (client == null) return;
        StringBuilder sb = new StringBuilder("<debug> line ").append(currentLine).append(": ");
        for (int i = 0; i < values.length; i++) {
            if (i > 0) sb.append(", ");
            appendValue(sb, values[i], 0);
        }
        log(sb.toString());
    }

    // ---- the client's commands ------------------------------------------------------------------

    @Override
    public void take(Client c) {
        Args a = c.args();
        boolean valid = a.count() <= MAX_INPUT;
        for (int i = 0; valid && i < a.count(); i++) valid = a.len(i) > 0 && a.len(i) <= MAX_INPUT;
        if (!valid) {
            c.closeAfterReply();
            resume(RedisApi.raise("protocol error"));
            return;
        }
        int argc = a.count();
        // the name as C code compares it: up to a NUL
        String name = a.cString(0).toLowerCase(Locale.ROOT);
        switch (name) {
            case "h", "help" -> help();
            case "s", "step", "n", "next" -> {
                step = true;
                resume(null);
                return;
            }
            case "c", "continue" -> {
                resume(null);
                return;
            }
            case "t", "trace" -> trace();
            case "m", "maxlen" -> maxlen(a);
            case "b", "break" -> breakpoints(a);
            case "e", "eval" -> eval(a);
            case "a", "abort" -> {
                resume(RedisApi.raise("script aborted for user request"));
                return;
            }
            case "p", "print" -> {
                if (argc == 2) print(a.cString(1));
                else printAll();
            }
            case "l", "list" -> {
                int around = currentLine;
                int context = 5;
                if (argc > 1) {
                    int num = (int) Bytes.atoi(a.string(1));
                    if (num > 0) around = num;
                }
                if (argc > 2) context = (int) Bytes.atoi(a.string(2));
                list(around, context);
            }
            case "w", "whole" -> list(1, 1000000);
            default -> {
                if (argc > 1 && (name.equals("r") || name.equals("redis"))) {
                    redis(a);
                } else {
                    log("<error> Unknown Redis Lua debugger command or wrong number of arguments.");
                }
            }
        }
        sendLogs();
    }

    @Override
    public void protocolError(Client c, String error) {
        resume(RedisApi.raise("protocol error"));
    }

    /**
     * The client went away while the script was stopped: it runs on to its end without stopping
     * (Redis's debugger, failing to read, drops its breakpoints and stepping), or fails if it had
     * run past the time limit.
     */
    @Override
    public void disconnected(Client c) {
        clientGone = true;
        step = false;
        breakpointCount = 0;
        luaBreakpoint = false;
        if (stopped) scripting.engine.loop().execute(() -> {
            if (stopped && client == c) resume(null);
        });
    }

    private void help() {
        String[] help = {
            "Lua debugger commands (each also by its first letter):",
            "[h]elp               This help.",
            "[s]tep, [n]ext       Run the current line, stop at the next one.",
            "[c]ontinue           Run until a breakpoint.",
            "[l]ist               Show the source around the current line.",
            "[l]ist [line]        Show the source around [line] (0: the current one).",
            "[l]ist [line] [ctx]  The same with [ctx] lines before and after it.",
            "[w]hole              Show the whole source ('list 1 1000000').",
            "[p]rint              Show the local variables.",
            "[p]rint <var>        Show one variable; KEYS and ARGV too.",
            "[b]reak              Show the breakpoints.",
            "[b]reak <line>       Set a breakpoint at <line>.",
            "[b]reak -<line>      Remove the breakpoint at <line>.",
            "[b]reak 0            Remove every breakpoint.",
            "[t]race              Show the call stack.",
            "[e]val <code>        Run Lua code (in a frame of its own) and show its value.",
            "[r]edis <cmd>        Run a Redis command.",
            "[m]axlen [len]       Cut replies and values shown at <len> bytes (0: no limit).",
            "[a]bort              End the script with an error (with SYNC its writes stay).",
            "",
            "From the script itself:",
            "redis.debug(...)     Show values in this console.",
            "redis.breakpoint()   Stop at the next line.",
        };
        for (String line : help) log(line);
    }

    private void trace() {
        int level = 0;
        for (; lua.hasFrame(level); level++) {
            LuaString source = lua.frameSource(level);
            if (source != null && source.toString().contains("user_script")) {
                String fn = lua.frameFunctionName(level);
                log((level == 0 ? "In " : "From ") + (fn != null ? fn : "top level") + ":");
                logSourceLine(lua.frameLine(level));
            }
        }
        if (level == 0) log("<error> Can't retrieve Lua stack.");
    }

    private void maxlen(Args a) {
        if (a.count() == 2) {
            int n = (int) Bytes.atoi(a.string(1));
            maxlenHintSent = true; // the user knows the command
            if (n != 0 && n <= 60) n = 60;
            maxlen = n;
        }
        log(maxlen != 0 ? "<value> replies are truncated at " + maxlen + " bytes." : "<value> replies are unlimited.");
    }

    private void breakpoints(Args a) {
        if (a.count() == 1) {
            if (breakpointCount == 0) {
                log("No breakpoints set. Use 'b <line>' to add one.");
                return;
            }
            log(breakpointCount + " breakpoints set:");
            for (int j = 0; j < breakpointCount; j++) logSourceLine(breakpoints[j]);
            return;
        }
        for (int j = 1; j < a.count(); j++) {
            long line;
            try {
                line = Bytes.parseLong(a.buf(j), a.off(j), a.len(j)); // Redis's string2l
            } catch (NumberFormatException e) {
                log("Invalid argument:'" + a.cString(j) + "'");
                continue;
            }
            if (line == 0) {
                breakpointCount = 0;
                log("All breakpoints removed.");
            } else if (line > 0) {
                if (breakpointCount == MAX_BREAKPOINTS) log("Too many breakpoints set.");
                else if (addBreakpoint(line)) list((int) line, 1);
                else log("Wrong line number.");
            } else {
                log(removeBreakpoint(-line) ? "Breakpoint removed." : "No breakpoint in the specified line.");
            }
        }
    }

    private boolean isBreakpoint(long line) {
        for (int j = 0; j < breakpointCount; j++) if (breakpoints[j] == line) return true;
        return false;
    }

    private boolean addBreakpoint(long line) {
        if (line <= 0 || line > lines.length) return false;
        if (isBreakpoint(line) || breakpointCount == MAX_BREAKPOINTS) return false;
        breakpoints[breakpointCount++] = (int) line;
        return true;
    }

    private boolean removeBreakpoint(long line) {
        for (int j = 0; j < breakpointCount; j++) {
            if (breakpoints[j] == line) {
                System.arraycopy(breakpoints, j + 1, breakpoints, j, breakpointCount - j - 1);
                breakpointCount--;
                return true;
            }
        }
        return false;
    }

    /** Lua code typed at the prompt: an expression whose value is shown, or else a statement. */
    private void eval(Args a) {
        byte[] code = joined(a, 1);
        LuaClosure fn;
        try {
            fn = lua.load(concat("return ".getBytes(StandardCharsets.ISO_8859_1), code), LDB_EVAL.toString());
        } catch (LuaError asExpression) {
            try {
                fn = lua.load(code, LDB_EVAL.toString());
            } catch (LuaError e) {
                log("<error> " + errorText(e));
                return;
            }
        }
        Interp.LineHook hook = lua.pauseLineHook();
        try {
            Object v = lua.callAboveSuspended(fn);
            logWithMaxLen("<retval> " + valueText(v));
        } catch (LuaError e) {
            log("<error> " + errorText(e));
        } finally {
            lua.restoreLineHook(hook);
        }
    }

    /** A Redis command typed at the prompt: run through redis.call, so that it and its reply are logged. */
    private void redis(Args a) {
        Object call = ((LuaTable) lua.globals().get("redis")).get("call");
        Object[] args = new Object[a.count() - 1];
        for (int j = 1; j < a.count(); j++) args[j - 1] = LuaString.copyOf(a.buf(j), a.off(j), a.len(j));
        Interp.LineHook hook = lua.pauseLineHook();
        step = true; // logs the command and its reply
        try {
            lua.callAboveSuspended(call, args);
        } catch (LuaError e) {
            // logged by redis.call already
        } finally {
            step = false;
            lua.restoreLineHook(hook);
        }
    }

    private void print(String name) {
        for (int level = 0; lua.hasFrame(level); level++) {
            for (Object[] local : lua.frameLocals(level)) {
                if (local[0].toString().equals(name)) {
                    logWithMaxLen("<value> " + valueText(local[1]));
                    return;
                }
            }
        }
        if (name.equals("ARGV") || name.equals("KEYS")) {
            logWithMaxLen("<value> " + valueText(lua.globals().get(name)));
        } else {
            log("No such variable.");
        }
    }

    private void printAll() {
        int shown = 0;
        for (Object[] local : lua.frameLocals(0)) {
            String name = local[0].toString();
            if (name.contains("(*temporary)")) continue;
            logWithMaxLen("<value> " + name + " = " + valueText(local[1]));
            shown++;
        }
        if (shown == 0) log("No local variables in the current context.");
    }

    private void list(int around, int context) {
        for (int j = 1; j <= lines.length; j++) {
            if (around != 0 && Math.abs(around - j) > context) continue;
            logSourceLine(j);
        }
    }

    // ---- what redis.call does while logging ----------------------------------------------------

    /** "<redis> cmd args..." (the first ten arguments). */
    void logCommand(byte[][] argv) {
        StringBuilder sb = new StringBuilder("<redis>");
        for (int j = 0; j < argv.length; j++) {
            if (j == 10) {
                // Redis's count here is one short of what it leaves out; kept, it is what users see
                sb.append(" ... (").append(argv.length - j - 1).append(" more)");
                break;
            }
            sb.append(' ').append(Interp.cString(new String(argv[j], StandardCharsets.ISO_8859_1)));
        }
        log(sb.toString());
    }

    /** "<reply> ..." in Redis's human-readable form of a reply. */
    void logReply(byte[] buf, int start, int len) {
        StringBuilder sb = new StringBuilder("<reply> ");
        if (len > 0) human(buf, start, sb);
        logWithMaxLen(sb.toString());
    }

    /** Appends the reply at p in readable form; returns where the next one starts. */
    private static int human(byte[] b, int p, StringBuilder o) {
        int eol = lineEnd(b, p);
        String head = new String(b, p + 1, eol - p - 1, StandardCharsets.ISO_8859_1);
        switch (b[p]) {
            case ':':
                o.append(head);
                return eol + 2;
            case '$': {
                int n = Integer.parseInt(head);
                if (n == -1) {
                    o.append("NULL");
                    return eol + 2;
                }
                Bytes.appendRepr(o, b, eol + 2, n);
                return eol + 2 + n + 2;
            }
            case '+':
            case '-':
                Bytes.appendRepr(o, b, p, eol - p);
                return eol + 2;
            case '*': {
                int n = Integer.parseInt(head);
                p = eol + 2;
                if (n == -1) {
                    o.append("NULL");
                    return p;
                }
                return elements(b, p, n, o, "[", "]");
            }
            case '~':
                return elements(b, eol + 2, Integer.parseInt(head), o, "~(", ")");
            case '%': {
                int n = Integer.parseInt(head);
                p = eol + 2;
                o.append('{');
                for (int j = 0; j < n; j++) {
                    p = human(b, p, o);
                    o.append(" => ");
                    p = human(b, p, o);
                    if (j != n - 1) o.append(',');
                }
                o.append('}');
                return p;
            }
            case '_':
                o.append("(null)");
                return eol + 2;
            case '#':
                o.append(b[p + 1] == 't' ? "#true" : "#false");
                return eol + 2;
            case ',':
                o.append("(double) ").append(head);
                return eol + 2;
            default:
                // a type Redis's debugger does not show (big number, verbatim, attribute): as sent
                o.append(head);
                return eol + 2;
        }
    }

    /** n replies from p, comma-separated between open and close; returns where the next one starts. */
    private static int elements(byte[] b, int p, int n, StringBuilder o, String open, String close) {
        o.append(open);
        for (int j = 0; j < n; j++) {
            p = human(b, p, o);
            if (j != n - 1) o.append(',');
        }
        o.append(close);
        return p;
    }

    private static int lineEnd(byte[] b, int p) {
        int i = p + 1;
        while (b[i] != '\r') i++;
        return i;
    }

    // ---- logs -----------------------------------------------------------------------------------

    void log(String entry) {
        logs.add(entry);
    }

    /** A log line cut at maxlen, with a hint the first time one is cut (Redis's ldbLogWithMaxLen). */
    private void logWithMaxLen(String entry) {
        boolean trimmed = false;
        if (maxlen != 0 && entry.length() > maxlen) {
            entry = entry.substring(0, maxlen) + " ...";
            trimmed = true;
        }
        log(entry);
        if (trimmed && !maxlenHintSent) {
            maxlenHintSent = true;
            log("<hint> The above reply was trimmed. Use 'maxlen 0' to disable trimming.");
        }
    }

    /** The log lines so far, to the client as one array of status replies. */
    private void sendLogs() {
        Client c = client;
        if (c == null || clientGone) {
            logs.clear();
            return;
        }
        Reply r = c.reply();
        r.arrayHeader(logs.size());
        for (String entry : logs) r.status(entry.replace('\r', ' ').replace('\n', ' '));
        logs.clear();
        c.markPendingWrite();
    }

    private void logSourceLine(int line) {
        boolean current = line == currentLine;
        boolean bp = isBreakpoint(line);
        String prefix = current && bp ? "->#" : current ? "-> " : bp ? "  #" : "   ";
        String text = line >= 1 && line <= lines.length
                ? new String(lines[line - 1], StandardCharsets.ISO_8859_1) : "<out of range source code line>";
        log(prefix + String.format("%-3d", line) + " " + text);
    }

    // ---- values ---------------------------------------------------------------------------------

    private static String valueText(Object v) {
        StringBuilder sb = new StringBuilder();
        appendValue(sb, v, 0);
        return sb.toString();
    }

    /** Redis's ldbCatStackValue: strings quoted, tables as {a; b} or {[k]=v; ...}. */
    private static void appendValue(StringBuilder sb, Object v, int level) {
        if (level++ == MAX_VALUE_DEPTH) {
            sb.append("<max recursion level reached! Nested table?>");
            return;
        }
        if (v instanceof LuaString s) {
            Bytes.appendRepr(sb, s.bytes(), 0, s.length());
        } else if (v instanceof Boolean bool) {
            sb.append(bool ? "true" : "false");
        } else if (v instanceof Double d) {
            sb.append(Num.fmtG(d, 6, false, false));
        } else if (v == null) {
            sb.append("nil");
        } else if (v instanceof LuaTable t) {
            StringBuilder asArray = new StringBuilder();
            StringBuilder asMap = new StringBuilder();
            boolean isArray = true;
            int expected = 1;
            Object[] kv = new Object[2];
            Object key = null;
            while (t.next(key, kv)) {
                key = kv[0];
                if (isArray && !(key instanceof Double d && d == expected)) isArray = false;
                appendValue(asArray, kv[1], level);
                asArray.append("; ");
                asMap.append('[');
                appendValue(asMap, key, level);
                asMap.append("]=");
                appendValue(asMap, kv[1], level);
                asMap.append("; ");
                expected++;
            }
            StringBuilder chosen = isArray ? asArray : asMap;
            if (chosen.length() > 0) chosen.setLength(chosen.length() - 2);
            sb.append('{').append(chosen).append('}');
        } else {
            String type = v instanceof LuaFunction ? "function" : v instanceof Userdata ? "userdata"
                    : v instanceof Coroutine ? "thread" : v instanceof LightUserdata ? "light-userdata" : null;
            if (type == null) sb.append("\"<unknown-lua-type>\"");
            else sb.append('"').append(type).append('@').append(LuaValues.address(v)).append('"');
        }
    }

    private static String errorText(LuaError e) {
        Object v = e.value();
        if (v instanceof LuaTable t) {
            Object err = t.getStr(LuaResp.ERR);
            return err == null ? "(null)" : err.toString();
        }
        LuaString s = LuaValues.toLuaString(v);
        return s == null ? "(null)" : s.toString();
    }

    // ---- small helpers --------------------------------------------------------------------------

    private static byte[] joined(Args a, int from) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (int j = from; j < a.count(); j++) {
            if (j > from) out.write(' ');
            out.write(a.buf(j), a.off(j), a.len(j));
        }
        return out.toByteArray();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] r = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

}
