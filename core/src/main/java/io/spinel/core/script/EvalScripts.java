package io.spinel.core.script;

import io.spinel.core.Client;
import io.spinel.core.command.Command;
import io.spinel.core.command.CommandError;
import io.spinel.core.keyspace.KeyCommands;
import io.spinel.core.command.CommandHandler;
import io.spinel.core.protocol.Args;
import io.spinel.core.protocol.Reply;
import io.spinel.core.protocol.SplitArgs;
import io.spinel.core.script.lua.Interp;
import io.spinel.core.script.lua.LuaClosure;
import io.spinel.core.script.lua.LuaError;
import io.spinel.core.script.lua.LuaString;
import io.spinel.core.script.lua.LuaTable;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/** EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT (Redis's eval.c). */
public final class EvalScripts {
    static final String NOSCRIPT = "NOSCRIPT No matching script. Please use EVAL.";
    private static final Object[] NO_ARGS = new Object[0];
    private static final io.spinel.core.script.lua.LuaString KEYS = io.spinel.core.script.lua.LuaString.valueOf("KEYS");
    private static final io.spinel.core.script.lua.LuaString ARGV = io.spinel.core.script.lua.LuaString.valueOf("ARGV");

    /** A cached script: its body, shebang flags and compiled function. */
    static final class Script {
        final String sha;
        final byte[] body;
        final int flags;
        final LuaClosure fn;

        Script(String sha, byte[] body, int flags, LuaClosure fn) {
            this.sha = sha;
            this.body = body;
            this.flags = flags;
            this.fn = fn;
        }
    }

    private final Scripting s;
    final CaptureConnection conn = new CaptureConnection();
    final Client client;
    Interp lua;
    /** sha (lower case hex) to script; SCRIPT EXISTS and EVALSHA compare shas ignoring case. */
    final Map<String, Script> cache = new HashMap<>();
    private long cacheBytes;
    /** Scripts compiled so far (EVALSHA and EVAL of a cached body compile nothing). */
    long compilations;

    EvalScripts(Scripting s) {
        this.s = s;
        this.client = s.engine.newInternalClient(1, conn);
        this.lua = LuaEnv.evalState(s);
    }

    /** The handler of each command CommandFamilies registers for this family, made when it first runs. */
    /** EVAL and EVALSHA take the flags of the script's shebang line, for CommandFamilies. */
    public static Command.DynamicFlags dynamicFlags(String name) {
        boolean sha = name.startsWith("evalsha");
        return (c, flags) -> Scripting.of(c).eval.commandFlags(c, flags, sha);
    }

    public static CommandHandler handler(String name) {
        return switch (name) {
            case "eval" -> c -> Scripting.of(c).eval.eval(c, false, false);
            case "evalsha" -> c -> Scripting.of(c).eval.eval(c, true, false);
            case "eval_ro" -> c -> Scripting.of(c).eval.eval(c, false, true);
            case "evalsha_ro" -> c -> Scripting.of(c).eval.eval(c, true, true);
            case "script|load" -> c -> Scripting.of(c).eval.load(c);
            case "script|exists" -> c -> Scripting.of(c).eval.exists(c);
            case "script|flush" -> c -> Scripting.of(c).eval.flush(c);
            case "script|kill" -> c -> Scripting.of(c).kill(c, true);
            case "script|debug" -> EvalScripts::debug;
            case "script|help" -> EvalScripts::help;
            default -> null;
        };
    }

    // ---- shebang ------------------------------------------------------------------------------

    /** Flags of a body (EVAL_COMPAT_MODE without shebang) and the shebang's length; error text when invalid. */
    static final class Shebang {
        int flags = ScriptFlags.EVAL_COMPAT_MODE;
        int length;
        String error;
    }

    static Shebang shebang(byte[] body) {
        Shebang sb = new Shebang();
        if (body.length < 2 || body[0] != '#' || body[1] != '!') return sb;
        int nl = -1;
        for (int i = 0; i < body.length; i++) {
            if (body[i] == 0) break;
            if (body[i] == '\n') {
                nl = i;
                break;
            }
        }
        if (nl < 0) {
            sb.error = "Invalid script shebang";
            return sb;
        }
        sb.length = nl;
        Args parts = new Args();
        if (!SplitArgs.split(body, 0, nl, new byte[nl + 1], parts) || parts.count() == 0) {
            sb.error = "Invalid engine in script shebang";
            return sb;
        }
        String engine = parts.string(0);
        if (!engine.equals("#!lua")) {
            sb.error = "Unexpected engine in script shebang: " + engine;
            return sb;
        }
        sb.flags &= ~ScriptFlags.EVAL_COMPAT_MODE;
        for (int j = 1; j < parts.count(); j++) {
            String part = new String(parts.copy(j), StandardCharsets.ISO_8859_1);
            if (part.startsWith("flags=")) {
                String list = part.substring(6);
                if (list.isEmpty()) continue;
                for (String f : list.split(",", -1)) {
                    int bit = ScriptFlags.parse(f, false);
                    if (bit == 0) {
                        sb.error = "Unexpected flag in script shebang: " + f;
                        return sb;
                    }
                    sb.flags |= bit;
                }
            } else {
                sb.error = "Unknown lua shebang option: " + part;
                return sb;
            }
        }
        return sb;
    }

    // ---- the cache ----------------------------------------------------------------------------

    /** Compiles and caches a body (Redis's luaCreateFunction); null after replying the error. */
    Script create(Client c, byte[] body, String sha) {
        Script sc = cache.get(sha);
        if (sc != null) return sc;
        Shebang sb = shebang(body);
        if (sb.error != null) {
            c.error("ERR " + sb.error);
            return null;
        }
        byte[] code = sb.length == 0 ? body : Arrays.copyOfRange(body, sb.length, body.length);
        LuaClosure fn;
        compilations++;
        try {
            fn = lua.load(code, USER_SCRIPT.toString());
        } catch (LuaError e) {
            c.error("ERR Error compiling script (new function): " + e.getMessage());
            return null;
        }
        sc = new Script(sha, body, sb.flags, fn);
        cache.put(sha, sc);
        cacheBytes += sha.length() + body.length + 64;
        return sc;
    }

    boolean isCached(String sha) {
        return cache.containsKey(sha);
    }

    /** Takes a script out of the cache again (a forked debugging session's, see LuaDebugger). */
    void uncache(String sha) {
        Script sc = cache.remove(sha);
        if (sc == null) return;
        cacheBytes -= sha.length() + sc.body.length + 64;
        clearMemos();
    }

    // ---- finding a cached script without allocating ------------------------------------------
    // EVALSHA and EVAL of a cached body run for every call of a rate limiter or a lock: small
    // direct-mapped memos in front of the cache answer them from the argument bytes, with no
    // String, copy or SHA1 (the cache itself is keyed by the sha's String).

    private static final int MEMO_SLOTS = 64;
    private final byte[][] memoShaKeys = new byte[MEMO_SLOTS][];
    private final Script[] memoBySha = new Script[MEMO_SLOTS];
    private final Script[] memoByBody = new Script[MEMO_SLOTS];

    private static int lower(byte b) {
        return b >= 'A' && b <= 'Z' ? b + 32 : b;
    }

    private static int slot(int h) {
        return (h ^ (h >>> 16)) & (MEMO_SLOTS - 1);
    }

    /** The cached script whose sha (any case) is argument i, or null. */
    private Script cachedBySha(Args a, int i) {
        if (a.len(i) != 40) return null;
        byte[] b = a.buf(i);
        int off = a.off(i);
        int h = 0;
        for (int j = 0; j < 40; j++) h = h * 31 + lower(b[off + j]);
        int slot = slot(h);
        byte[] key = memoShaKeys[slot];
        if (key != null) {
            int j = 0;
            while (j < 40 && key[j] == lower(b[off + j])) j++;
            if (j == 40) return memoBySha[slot];
        }
        String sha = new String(b, off, 40, StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT);
        Script sc = cache.get(sha);
        if (sc != null) {
            memoShaKeys[slot] = sha.getBytes(StandardCharsets.ISO_8859_1);
            memoBySha[slot] = sc;
        }
        return sc;
    }

    private static int bodyHash(Args a, int i) {
        byte[] b = a.buf(i);
        int h = a.len(i);
        for (int j = a.off(i), end = j + a.len(i); j < end; j++) h = h * 31 + b[j];
        return h;
    }

    /** The cached script whose body is argument i, or null (then compute its sha). */
    private Script cachedByBody(Args a, int i) {
        Script sc = memoByBody[slot(bodyHash(a, i))];
        if (sc != null && Arrays.equals(sc.body, 0, sc.body.length, a.buf(i), a.off(i), a.off(i) + a.len(i))) return sc;
        return null;
    }

    private void rememberBody(Args a, int i, Script sc) {
        memoByBody[slot(bodyHash(a, i))] = sc;
    }

    private void clearMemos() {
        Arrays.fill(memoShaKeys, null);
        Arrays.fill(memoBySha, null);
        Arrays.fill(memoByBody, null);
    }

    int commandFlags(Client c, int flags, boolean evalsha) {
        Args a = c.args();
        if (a.count() < 2) return flags;
        if (evalsha && a.len(1) != 40) return flags;
        Script sc = evalsha ? cachedBySha(a, 1) : cachedByBody(a, 1);
        if (sc == null && !evalsha) sc = cache.get(Scripting.sha1hex(a.copy(1)));
        int scriptFlags;
        if (sc == null) {
            if (evalsha) return flags;
            Shebang sb = shebang(a.copy(1));
            if (sb.error != null) return flags;
            scriptFlags = sb.flags;
        } else {
            scriptFlags = sc.flags;
        }
        if ((scriptFlags & ScriptFlags.EVAL_COMPAT_MODE) != 0) return flags;
        return ScriptFlags.toCommandFlags(flags, scriptFlags);
    }

    // ---- EVAL ---------------------------------------------------------------------------------

    /** The chunk name of EVAL scripts (what the debugger and error messages look for). */
    static final LuaString USER_SCRIPT = LuaString.valueOf("@user_script");

    void eval(Client c, boolean evalsha, boolean ro) {
        if (c.luaDebug() != 0) {
            debugEval(c, evalsha, ro);
            return;
        }
        evalScript(c, evalsha, ro);
    }

    /**
     * EVAL for a client that asked for SCRIPT DEBUG: a debugging session around the run (Redis's
     * evalGenericCommandWithDebugging). It ends with the script, or here when the script never
     * started (an error in the arguments or the script), and the connection closes after it.
     */
    private void debugEval(Client c, boolean evalsha, boolean ro) {
        Args a = c.args();
        if (evalsha) {
            if (a.len(1) != 40) throw new CommandError(NOSCRIPT);
            throw CommandError.err("Please use EVAL instead of EVALSHA for debugging");
        }
        // a session stops the script and waits for the client: not possible in the middle of a
        // transaction's commands, which run back to back
        if (c.inExec()) throw CommandError.err("A script inside MULTI/EXEC cannot be debugged");
        Reply r = c.reply();
        int mark = r.mark();
        s.debugger.start(c, a.copy(1));
        try {
            evalScript(c, false, ro);
        } finally {
            // a script that never started (an error in the arguments or the script) ends the
            // session here, whose last lines go before the error; one that stopped ends it when it
            // ends, one that finished has
            if (s.debugger.debugging(c) && !s.debugger.isStopped()) {
                byte[] written = r.length() > mark ? Arrays.copyOfRange(r.buffer(), mark, r.length()) : null;
                if (written != null) r.truncate(mark);
                s.debugger.end();
                if (written != null) r.raw(written, 0, written.length);
            }
        }
    }

    private void evalScript(Client c, boolean evalsha, boolean ro) {
        Args a = c.args();
        if (evalsha && a.len(1) != 40) throw new CommandError(NOSCRIPT);
        long numkeys = c.argLong(2);
        if (numkeys > a.count() - 3) throw CommandError.err("Number of keys can't be greater than number of args");
        if (numkeys < 0) throw CommandError.err("Number of keys can't be negative");
        Script sc = evalsha ? cachedBySha(a, 1) : cachedByBody(a, 1);
        if (sc == null) {
            if (evalsha) throw new CommandError(NOSCRIPT);
            byte[] arg = a.copy(1);
            sc = create(c, arg, Scripting.sha1hex(arg));
            if (sc == null) return;
            rememberBody(a, 1, sc);
        }
        String err = s.prepareError(c, sc.flags, ro);
        if (err != null) {
            c.error(err);
            return;
        }
        // (an EVAL's own arguments are never shown: FUNCTION STATS refuses to run during one)
        RunContext ctx = new RunContext(c, client, sc.sha, true, null);
        boolean compat = (sc.flags & ScriptFlags.EVAL_COMPAT_MODE) != 0;
        ctx.readOnly = ro || (!compat && (sc.flags & ScriptFlags.NO_WRITES) != 0);
        ctx.allowOom = !compat && (sc.flags & ScriptFlags.ALLOW_OOM) != 0;
        ctx.allowCrossSlot = compat || (sc.flags & ScriptFlags.ALLOW_CROSS_SLOT) != 0;
        LuaTable g = lua.globals();
        int nk = (int) numkeys;
        LuaEnv.setProtectedGlobal(g, KEYS, LuaEnv.array(a, 3, nk));
        LuaEnv.setProtectedGlobal(g, ARGV, LuaEnv.array(a, 3 + nk, a.count() - 3 - nk));
        s.run(lua, ctx, sc.fn, NO_ARGS);
    }

    // ---- SCRIPT -------------------------------------------------------------------------------

    private void load(Client c) {
        byte[] body = c.args().copy(2);
        String sha = Scripting.sha1hex(body);
        if (create(c, body, sha) == null) return;
        c.reply().bulk(sha);
    }

    private void exists(Client c) {
        Args a = c.args();
        Reply r = c.reply();
        r.arrayHeader(a.count() - 2);
        for (int j = 2; j < a.count(); j++) {
            r.integer(cache.containsKey(a.string(j).toLowerCase(Locale.ROOT)) ? 1 : 0);
        }
    }

    private void flush(Client c) {
        Args a = c.args();
        if (!(a.count() == 2 || (a.count() == 3 && (a.is(2, "sync") || a.is(2, "async"))))) {
            throw CommandError.err("SCRIPT FLUSH only support SYNC|ASYNC option");
        }
        cache.clear();
        clearMemos();
        cacheBytes = 0;
        lua = LuaEnv.evalState(s);
        c.reply().ok();
    }

    /**
     * SCRIPT DEBUG YES|SYNC|NO: the client's next EVAL runs as a debugging session (LuaDebugger),
     * forked (its changes thrown away) or synchronous. As in Redis, YES after SYNC leaves the
     * session synchronous: only NO clears the SYNC flag.
     */
    private static void debug(Client c) {
        Args a = c.args();
        if (c.reply().length() > 0) throw CommandError.err("SCRIPT DEBUG must be called outside a pipeline");
        if (a.is(2, "no")) {
            c.setLuaDebug(0);
        } else if (a.is(2, "sync")) {
            c.setLuaDebug(Client.LUA_DEBUG_SYNC);
        } else if (a.is(2, "yes")) {
            c.setLuaDebug(c.luaDebug() == Client.LUA_DEBUG_SYNC ? Client.LUA_DEBUG_SYNC : Client.LUA_DEBUG_YES);
        } else {
            throw CommandError.err("Use SCRIPT DEBUG YES/SYNC/NO");
        }
        c.reply().ok();
    }

    private static void help(Client c) {
        // Spinel's own wording, as for every other HELP reply (it is for people, not parsed)
        KeyCommands.helpReply(c, new String[] {
            "DEBUG (YES|SYNC|NO)",
            "    Run the next EVAL in the Lua debugger, its changes undone at the end (YES) or kept (SYNC), or not (NO).",
            "EXISTS <sha1> [<sha1> ...]",
            "    For each SHA1, 1 if that script is cached, else 0.",
            "FLUSH [ASYNC|SYNC]",
            "    Empty the script cache (lazyfree-lazy-user-flush picks the mode when none is given).",
            "KILL",
            "    Stop the running script, if it has not written anything.",
            "LOAD <script>",
            "    Cache a script without running it; replies with its SHA1.",
        });
    }

    int size() {
        return cache.size();
    }

    long memory() {
        return cacheBytes;
    }

    long luaMemory() {
        return 31744 + cacheBytes * 4;
    }
}
