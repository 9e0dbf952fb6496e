package io.spinel.core.script;

import io.spinel.core.Client;
import io.spinel.core.command.Command;
import io.spinel.core.command.CommandError;
import io.spinel.core.keyspace.KeyCommands;
import io.spinel.core.command.CommandHandler;
import io.spinel.core.protocol.Args;
import io.spinel.core.protocol.Reply;
import io.spinel.core.protocol.SplitArgs;
import io.spinel.core.script.lua.Builtin;
import io.spinel.core.script.lua.Coroutine;
import io.spinel.core.script.lua.Interp;
import io.spinel.core.script.lua.LuaClosure;
import io.spinel.core.script.lua.LuaError;
import io.spinel.core.script.lua.LuaFunction;
import io.spinel.core.script.lua.LuaString;
import io.spinel.core.script.lua.LuaTable;
import io.spinel.core.script.lua.LuaValues;
import io.spinel.core.util.Glob;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Redis 7 functions (functions.c, function_lua.c): libraries loaded with FUNCTION LOAD
 * ("#!lua name=..." code calling redis.register_function), run with FCALL/FCALL_RO, listed,
 * deleted, dumped and restored. All libraries share one Lua state; while a library's code runs at
 * load time its globals only offer the registration API.
 */
public final class Functions {
    private static final long LOAD_TIMEOUT_MS = 500;

    /** A registered function. */
    static final class Fn {
        final String name;
        final String desc;
        final int flags;
        final LuaFunction callback;
        Library lib;

        Fn(String name, String desc, int flags, LuaFunction callback) {
            this.name = name;
            this.desc = desc;
            this.flags = flags;
            this.callback = callback;
        }
    }

    /** A library: its code (shebang included) and its functions, by exact name. */
    static final class Library {
        final String name;
        final byte[] code;
        final LinkedHashMap<String, Fn> functions = new LinkedHashMap<>();

        Library(String name, byte[] code) {
            this.name = name;
            this.code = code;
        }
    }

    /** A set of libraries and the functions they define (names of functions ignore case). */
    static final class LibCtx {
        final LinkedHashMap<String, Library> libraries = new LinkedHashMap<>();
        final HashMap<String, Fn> functions = new HashMap<>();

        void link(Library li) {
            for (Fn f : li.functions.values()) functions.put(key(f.name), f);
            libraries.put(li.name, li);
        }

        void unlink(Library li) {
            for (Fn f : li.functions.values()) functions.remove(key(f.name));
            libraries.remove(li.name);
        }

        int functionCount() {
            return functions.size();
        }
    }

    static String key(String functionName) {
        return functionName.toLowerCase(Locale.ROOT);
    }

    /** What register_function needs while a library's code runs. */
    private static final class LoadContext {
        final Library lib;
        final long start = System.nanoTime();
        final long timeoutMs;

        LoadContext(Library lib, long timeoutMs) {
            this.lib = lib;
            this.timeoutMs = timeoutMs;
        }
    }

    private final Scripting s;
    final CaptureConnection conn = new CaptureConnection();
    final Client client;
    final Interp lua;
    private final LuaTable globalsMeta;
    private final LuaTable realGlobals;
    private final LuaTable libraryApi;
    LibCtx current = new LibCtx();

    Functions(Scripting s) {
        this.s = s;
        this.client = s.engine.newInternalClient(2, conn);
        this.lua = new Interp();
        LuaTable[] redis = new LuaTable[1];
        realGlobals = LuaEnv.loadLibraries(lua, s, redis);
        // the library registration API: the only globals while a library's code runs
        libraryApi = new LuaTable();
        LuaTable libRedis = new LuaTable();
        libRedis.rawset("register_function", Builtin.of("register_function", this::registerFunction));
        RedisApi.addLog(s, libRedis);
        RedisApi.addVersion(libRedis);
        LuaEnv.setErrorMetatable(libRedis);
        libraryApi.rawset("redis", libRedis);
        LuaEnv.setErrorMetatable(libraryApi);
        LuaEnv.protectRecursively(libraryApi, new java.util.IdentityHashMap<>());
        realGlobals.rawset("debug", null);
        LuaEnv.protectGlobals(lua, realGlobals);
        // functions see an empty, read-only globals table whose metatable leads to the real ones
        LuaTable newGlobals = new LuaTable();
        globalsMeta = new LuaTable();
        globalsMeta.rawset("__index", realGlobals);
        globalsMeta.setReadonly(true);
        newGlobals.setMetatable(globalsMeta);
        newGlobals.setReadonly(true);
        lua.setGlobals(newGlobals);
    }

    /** The handler of each command CommandFamilies registers for this family, made when it first runs. */
    /** FCALL takes the flags the function was registered with, for CommandFamilies. */
    public static Command.DynamicFlags dynamicFlags(String name) {
        return (c, flags) -> Scripting.of(c).functions.commandFlags(c, flags);
    }

    public static CommandHandler handler(String name) {
        return switch (name) {
            case "fcall" -> c -> Scripting.of(c).functions.fcall(c, false);
            case "fcall_ro" -> c -> Scripting.of(c).functions.fcall(c, true);
            case "function|load" -> c -> Scripting.of(c).functions.load(c);
            case "function|delete" -> c -> Scripting.of(c).functions.delete(c);
            case "function|list" -> c -> Scripting.of(c).functions.list(c);
            case "function|flush" -> c -> Scripting.of(c).functions.flush(c);
            case "function|dump" -> c -> Scripting.of(c).functions.dump(c);
            case "function|restore" -> c -> Scripting.of(c).functions.restore(c);
            case "function|stats" -> c -> Scripting.of(c).functions.stats(c);
            case "function|kill" -> c -> Scripting.of(c).kill(c, false);
            case "function|help" -> Functions::help;
            default -> null;
        };
    }

    private static boolean validName(String name) {
        if (name.isEmpty()) return false;
        for (int i = 0; i < name.length(); i++) {
            char ch = name.charAt(i);
            if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_')) {
                return false;
            }
        }
        return true;
    }

    private static final String BAD_NAME =
            "Library names can only contain letters, numbers, or underscores(_) and must be at least one character long";

    // ---- creating libraries -----------------------------------------------------------------

    /** Thrown with the error text FUNCTION LOAD/RESTORE reply (without the "ERR " Redis adds). */
    static final class LoadError extends Exception {
        private static final long serialVersionUID = 1L;

        LoadError(String msg) {
            super(msg, null, false, false);
        }
    }

    /**
     * Redis's functionsCreateWithLibraryCtx: parses the metadata, runs the code to register its
     * functions and links the library into ctx. Returns the library name.
     */
    String create(byte[] code, boolean replace, LibCtx ctx, long timeoutMs) throws LoadError {
        if (code.length < 2 || code[0] != '#' || code[1] != '!') throw new LoadError("Missing library metadata");
        int nl = -1;
        for (int i = 0; i < code.length && code[i] != 0; i++) {
            if (code[i] == '\n') {
                nl = i;
                break;
            }
        }
        if (nl < 0) throw new LoadError("Invalid library metadata");
        Args parts = new Args();
        if (!SplitArgs.split(code, 0, nl, new byte[nl + 1], parts) || parts.count() == 0) {
            throw new LoadError("Invalid library metadata");
        }
        String engine = parts.string(0).substring(2);
        String name = null;
        for (int i = 1; i < parts.count(); i++) {
            String part = new String(parts.copy(i), StandardCharsets.ISO_8859_1);
            if (part.length() >= 5 && part.substring(0, 5).equalsIgnoreCase("name=")) {
                if (name != null) throw new LoadError("Invalid metadata value, name argument was given multiple times");
                name = part.substring(5);
                continue;
            }
            throw new LoadError("Invalid metadata value given: " + part);
        }
        if (name == null) throw new LoadError("Library name was not given");
        if (!validName(name)) throw new LoadError(BAD_NAME);
        if (!engine.equalsIgnoreCase("LUA")) throw new LoadError("Engine '" + engine + "' not found");
        Library old = ctx.libraries.get(name);
        if (old != null && !replace) throw new LoadError("Library '" + name + "' already exists");
        if (old != null) ctx.unlink(old);
        try {
            Library li = new Library(name, code);
            compileAndRegister(li, Arrays.copyOfRange(code, nl, code.length), timeoutMs);
            if (li.functions.isEmpty()) throw new LoadError("No functions registered");
            for (Fn f : li.functions.values()) {
                if (ctx.functions.containsKey(key(f.name))) throw new LoadError("Function " + f.name + " already exists");
            }
            ctx.link(li);
            old = null;
            return name;
        } finally {
            if (old != null) ctx.link(old);
        }
    }

    /** Compiles the library code and runs it with the registration API as its globals. */
    private void compileAndRegister(Library li, byte[] body, long timeoutMs) throws LoadError {
        globalsMeta.setReadonly(false);
        globalsMeta.rawset("__index", libraryApi);
        globalsMeta.setReadonly(true);
        try {
            LuaClosure fn;
            try {
                fn = lua.load(body, "@user_function");
            } catch (LuaError e) {
                throw new LoadError("Error compiling function: " + e.getMessage());
            }
            LoadContext lc = new LoadContext(li, timeoutMs);
            lua.context = lc;
            lua.setHook(interp -> {
                if (lc.timeoutMs > 0 && (System.nanoTime() - lc.start) / 1_000_000 > lc.timeoutMs) {
                    LuaError e = RedisApi.raise("FUNCTION LOAD timeout");
                    e.setUncatchable();
                    throw e;
                }
                return false;
            }, Scripting.HOOK_PERIOD);
            lua.setSuspendable(false);
            try {
                lua.start(fn);
            } catch (LuaError e) {
                throw new LoadError("Error registering functions: " + loadErrorMessage(e.value()));
            } finally {
                lua.reset();
                lua.setHook(null, 0);
                lua.context = null;
            }
        } finally {
            globalsMeta.setReadonly(false);
            globalsMeta.rawset("__index", realGlobals);
            globalsMeta.setReadonly(true);
        }
    }

    /** Redis's luaExtractErrorInformation for errors of a load run (no error handler there). */
    private static String loadErrorMessage(Object v) {
        String msg = null;
        if (v instanceof LuaString || v instanceof Double) msg = "ERR " + LuaValues.toLuaString(v).toString();
        if (v instanceof LuaTable) {
            Object e = ((LuaTable) v).getStr(LuaResp.ERR);
            if (e instanceof LuaString || e instanceof Double) msg = LuaValues.toLuaString(e).toString();
        }
        return msg == null ? "(null)" : msg;
    }

    /** redis.register_function(name, callback) or redis.register_function{function_name=..., ...}. */
    private int registerFunction(Interp L, Coroutine th, int base, int n) {
        if (!(L.context instanceof LoadContext)) {
            throw RedisApi.raise("redis.register_function can only be called on FUNCTION LOAD command");
        }
        LoadContext lc = (LoadContext) L.context;
        Object[] st = th.stack();
        if (n < 1 || n > 2) throw RedisApi.raise("wrong number of arguments to redis.register_function");
        String name = null;
        String desc = null;
        LuaFunction callback = null;
        int flags = 0;
        if (n == 1) {
            if (!(st[base] instanceof LuaTable)) {
                throw RedisApi.raise("calling redis.register_function with a single argument is only applicable to Lua"
                        + " table (representing named arguments).");
            }
            LuaTable t = (LuaTable) st[base];
            Object[] kv = new Object[2];
            Object k = null;
            while (t.next(k, kv)) {
                k = kv[0];
                Object v = kv[1];
                LuaString ks = LuaValues.toLuaString(k);
                if (ks == null) throw RedisApi.raise("named argument key given to redis.register_function is not a string");
                String key = ks.toString();
                if (key.equalsIgnoreCase("function_name")) {
                    LuaString vs = LuaValues.toLuaString(v);
                    if (vs == null) {
                        throw RedisApi.raise("function_name argument given to redis.register_function must be a string");
                    }
                    name = vs.toString();
                } else if (key.equalsIgnoreCase("description")) {
                    LuaString vs = LuaValues.toLuaString(v);
                    if (vs == null) {
                        throw RedisApi.raise("description argument given to redis.register_function must be a string");
                    }
                    desc = vs.toString();
                } else if (key.equalsIgnoreCase("callback")) {
                    if (!(v instanceof LuaFunction)) {
                        throw RedisApi.raise("callback argument given to redis.register_function must be a function");
                    }
                    callback = (LuaFunction) v;
                } else if (key.equalsIgnoreCase("flags")) {
                    if (!(v instanceof LuaTable)) {
                        throw RedisApi.raise("flags argument to redis.register_function must be a table representing "
                                + "function flags");
                    }
                    flags = readFlags(L, th, (LuaTable) v);
                } else {
                    throw RedisApi.raise("unknown argument given to redis.register_function");
                }
            }
            if (name == null) throw RedisApi.raise("redis.register_function must get a function name argument");
            if (callback == null) throw RedisApi.raise("redis.register_function must get a callback argument");
        } else {
            LuaString ns = LuaValues.toLuaString(st[base]);
            if (ns == null) throw RedisApi.raise("first argument to redis.register_function must be a string");
            if (!(st[base + 1] instanceof LuaFunction)) {
                throw RedisApi.raise("second argument to redis.register_function must be a function");
            }
            name = ns.toString();
            callback = (LuaFunction) st[base + 1];
        }
        if (!validName(name)) throw RedisApi.raise(BAD_NAME);
        if (lc.lib.functions.containsKey(name)) throw RedisApi.raise("Function already exists in the library");
        Fn f = new Fn(name, desc, flags, callback);
        f.lib = lc.lib;
        lc.lib.functions.put(name, f);
        return 0;
    }

    private static int readFlags(Interp L, Coroutine th, LuaTable t) {
        int flags = 0;
        for (int j = 1; ; j++) {
            Object v = L.index(th, t, LuaValues.num(j), -1);
            if (v == null) break;
            LuaString fs = LuaValues.toLuaString(v);
            if (fs == null) throw RedisApi.raise("unknown flag given");
            int bit = ScriptFlags.parse(fs.toString(), true);
            if (bit == 0) throw RedisApi.raise("unknown flag given");
            flags |= bit;
        }
        return flags;
    }

    // ---- FCALL --------------------------------------------------------------------------------

    int commandFlags(Client c, int flags) {
        Args a = c.args();
        if (a.count() < 2) return flags;
        Fn f = current.functions.get(key(a.string(1)));
        return f == null ? flags : ScriptFlags.toCommandFlags(flags, f.flags);
    }

    private void fcall(Client c, boolean ro) {
        Args a = c.args();
        Fn f = current.functions.get(key(a.string(1)));
        if (f == null) throw CommandError.err("Function not found");
        long numkeys;
        try {
            numkeys = io.spinel.core.util.Bytes.parseLong(a.buf(2), a.off(2), a.len(2));
        } catch (NumberFormatException e) {
            throw CommandError.err("Bad number of keys provided");
        }
        if (numkeys > a.count() - 3) throw CommandError.err("Number of keys can't be greater than number of args");
        if (numkeys < 0) throw CommandError.err("Number of keys can't be negative");
        String err = s.prepareError(c, f.flags, ro);
        if (err != null) {
            c.error(err);
            return;
        }
        byte[][] argv = a.toArrays();
        RunContext ctx = new RunContext(c, client, f.name, false, argv);
        ctx.readOnly = ro || (f.flags & ScriptFlags.NO_WRITES) != 0;
        ctx.allowOom = (f.flags & ScriptFlags.ALLOW_OOM) != 0;
        ctx.allowCrossSlot = (f.flags & ScriptFlags.ALLOW_CROSS_SLOT) != 0;
        int nk = (int) numkeys;
        LuaTable keys = LuaEnv.array(argv, 3, nk);
        LuaTable args = LuaEnv.array(argv, 3 + nk, argv.length - 3 - nk);
        s.run(lua, ctx, f.callback, new Object[] {keys, args});
    }

    // ---- FUNCTION subcommands ---------------------------------------------------------------

    private void load(Client c) {
        Args a = c.args();
        boolean replace = false;
        int pos = 2;
        while (pos < a.count() - 1) {
            if (a.is(pos, "replace")) {
                replace = true;
                pos++;
                continue;
            }
            throw CommandError.err("Unknown option given: " + a.cString(pos));
        }
        if (pos >= a.count()) throw CommandError.err("Function code is missing");
        String name;
        try {
            name = create(a.copy(pos), replace, current, LOAD_TIMEOUT_MS);
        } catch (LoadError e) {
            throw CommandError.err(e.getMessage());
        }
        s.engine.dirty++;
        c.reply().bulk(name);
    }

    private void delete(Client c) {
        Library li = current.libraries.get(c.args().string(2));
        if (li == null) throw CommandError.err("Library not found");
        current.unlink(li);
        s.engine.dirty++;
        c.reply().ok();
    }

    private void list(Client c) {
        Args a = c.args();
        boolean withCode = false;
        byte[] pattern = null;
        for (int i = 2; i < a.count(); i++) {
            if (!withCode && a.is(i, "withcode")) {
                withCode = true;
                continue;
            }
            if (pattern == null && a.is(i, "libraryname")) {
                if (i >= a.count() - 1) throw CommandError.err("library name argument was not given");
                pattern = a.copy(++i);
                continue;
            }
            throw CommandError.err("Unknown argument " + a.cString(i));
        }
        Reply r = c.reply();
        List<Library> libs = new ArrayList<>();
        for (Library li : current.libraries.values()) {
            byte[] ln = li.name.getBytes(StandardCharsets.ISO_8859_1);
            if (pattern != null && !Glob.match(pattern, ln, true)) continue;
            libs.add(li);
        }
        r.arrayHeader(libs.size());
        for (Library li : libs) {
            r.mapHeader(withCode ? 4 : 3);
            r.bulk("library_name");
            r.bulk(li.name.getBytes(StandardCharsets.ISO_8859_1));
            r.bulk("engine");
            r.bulk("LUA");
            r.bulk("functions");
            r.arrayHeader(li.functions.size());
            for (Fn f : li.functions.values()) {
                r.mapHeader(3);
                r.bulk("name");
                r.bulk(f.name.getBytes(StandardCharsets.ISO_8859_1));
                r.bulk("description");
                if (f.desc != null) r.bulk(f.desc.getBytes(StandardCharsets.ISO_8859_1));
                else r.nil();
                r.bulk("flags");
                int count = 0;
                for (int bit : ScriptFlags.BITS) if ((f.flags & bit) != 0) count++;
                r.setHeader(count);
                for (int i = 0; i < ScriptFlags.BITS.length; i++) {
                    if ((f.flags & ScriptFlags.BITS[i]) != 0) r.status(ScriptFlags.NAMES[i]);
                }
            }
            if (withCode) {
                r.bulk("library_code");
                r.bulk(li.code);
            }
        }
    }

    private void flush(Client c) {
        Args a = c.args();
        if (a.count() > 3) throw subcommandSyntax(c);
        if (!(a.count() == 2 || a.is(2, "sync") || a.is(2, "async"))) {
            throw CommandError.err("FUNCTION FLUSH only supports SYNC|ASYNC option");
        }
        current = new LibCtx();
        s.engine.dirty++;
        c.reply().ok();
    }

    private static CommandError subcommandSyntax(Client c) {
        return CommandError.subcommandSyntax(c.args());
    }

    private void dump(Client c) {
        List<byte[]> codes = new ArrayList<>();
        for (Library li : current.libraries.values()) codes.add(li.code);
        c.reply().bulk(FunctionsPayload.dump(codes, s.engine.config().getBool("rdbcompression")));
    }

    private void restore(Client c) {
        Args a = c.args();
        if (a.count() > 4) throw subcommandSyntax(c);
        int policy = 1; // 0 flush, 1 append, 2 replace
        if (a.count() == 4) {
            if (a.is(3, "append")) policy = 1;
            else if (a.is(3, "replace")) policy = 2;
            else if (a.is(3, "flush")) policy = 0;
            else throw CommandError.err("Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.");
        }
        byte[] payload = a.copy(2);
        if (!FunctionsPayload.verify(payload, s.engine.skipsChecksumValidation())) throw CommandError.err("DUMP payload version or checksum are wrong");
        LibCtx tmp = new LibCtx();
        try {
            FunctionsPayload.read(payload, code -> create(code, false, tmp, 0));
        } catch (FunctionsPayload.BadPayload | LoadError e) {
            throw CommandError.err(e.getMessage());
        }
        if (policy == 0) {
            current = tmp;
        } else {
            String err = join(current, tmp, policy == 2);
            if (err != null) throw CommandError.err(err);
        }
        s.engine.dirty++;
        c.reply().ok();
    }

    /** Redis's libraryJoin: moves src's libraries into dst; an error (and dst unchanged) on collision. */
    private static String join(LibCtx dst, LibCtx src, boolean replace) {
        List<Library> old = new ArrayList<>();
        for (Library li : src.libraries.values()) {
            Library o = dst.libraries.get(li.name);
            if (o != null) {
                if (!replace) {
                    for (Library back : old) dst.link(back);
                    return "Library " + li.name + " already exists";
                }
                dst.unlink(o);
                old.add(o);
            }
        }
        for (Fn f : src.functions.values()) {
            if (dst.functions.containsKey(key(f.name))) {
                for (Library back : old) dst.link(back);
                return "Function " + f.name + " already exists";
            }
        }
        for (Library li : src.libraries.values()) dst.link(li);
        return null;
    }

    private void stats(Client c) {
        RunContext run = s.running;
        if (run != null && run.evalMode) throw new CommandError(Scripting.SLOW_EVAL);
        Reply r = c.reply();
        r.mapHeader(2);
        r.bulk("running_script");
        if (run == null) {
            r.nil();
        } else {
            r.mapHeader(3);
            r.bulk("name");
            r.bulk(run.funcname);
            r.bulk("command");
            r.arrayHeader(run.callerArgv.length);
            for (byte[] arg : run.callerArgv) r.bulk(arg);
            r.bulk("duration_ms");
            r.integer(run.durationMs());
        }
        r.bulk("engines");
        r.mapHeader(1);
        r.bulk("LUA");
        r.mapHeader(2);
        r.bulk("libraries_count");
        r.integer(current.libraries.size());
        r.bulk("functions_count");
        r.integer(current.functionCount());
    }

    private static void help(Client c) {
        // Spinel's own wording, as for every other HELP reply (it is for people, not parsed)
        KeyCommands.helpReply(c, new String[] {
            "LOAD [REPLACE] <FUNCTION CODE>",
            "    Register the library that the code declares (REPLACE: over one of the same name).",
            "DELETE <LIBRARY NAME>",
            "    Remove a library and its functions.",
            "LIST [LIBRARYNAME PATTERN] [WITHCODE]",
            "    Each library's name, engine and functions, and its code with WITHCODE;",
            "    LIBRARYNAME keeps only libraries whose names match the pattern.",
            "STATS",
            "    The function running now (name, command, milliseconds so far) or nil,",
            "    and the number of libraries and functions of each engine.",
            "KILL",
            "    Stop the running function, if it has not written anything.",
            "FLUSH [ASYNC|SYNC]",
            "    Remove every library (lazyfree-lazy-user-flush picks the mode when none is given).",
            "DUMP",
            "    All libraries as one payload for FUNCTION RESTORE.",
            "RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
            "    Load the libraries of a DUMP payload. FLUSH removes the existing libraries first;",
            "    APPEND (the default) fails if a name is taken; REPLACE replaces libraries of the same",
            "    name, and still fails if a function name is taken by another library.",
        });
    }

    int functionCount() {
        return current.functionCount();
    }

    int libraryCount() {
        return current.libraries.size();
    }

    long memory() {
        long n = 0;
        for (Library li : current.libraries.values()) n += li.code.length + li.name.length() + 64 + 96L * li.functions.size();
        return n;
    }

    long luaMemory() {
        return 32768 + memory() * 4;
    }

    static Map<String, Library> libraries(Functions f) {
        return f.current.libraries;
    }
}
