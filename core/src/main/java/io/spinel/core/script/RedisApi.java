package io.spinel.core.script;

import io.spinel.core.Engine;
import io.spinel.core.Log;
import io.spinel.core.acl.Acl;
import io.spinel.core.command.Command;
import io.spinel.core.command.CommandFlags;
import io.spinel.core.script.lua.Builtin;
import io.spinel.core.script.lua.Coroutine;
import io.spinel.core.script.lua.Interp;
import io.spinel.core.script.lua.LuaError;
import io.spinel.core.script.lua.LuaString;
import io.spinel.core.script.lua.LuaTable;
import io.spinel.core.script.lua.LuaValues;
import io.spinel.core.script.lua.Num;

import java.nio.charset.StandardCharsets;

/** The "redis" table scripts see (Redis's script_lua.c): redis.call, pcall, log, setresp and friends. */
final class RedisApi {
    private RedisApi() {
    }

    static final int REDIS_VERSION_NUM = (7 << 16) | (0 << 8) | 15;

    /** Builds the redis table shared by EVAL and functions, in Redis's field order. */
    static LuaTable table(Scripting s) {
        LuaTable r = new LuaTable();
        r.rawset("call", Builtin.of("call", (L, th, base, n) -> command(s, L, th, base, n, true)));
        r.rawset("pcall", Builtin.of("pcall", (L, th, base, n) -> command(s, L, th, base, n, false)));
        addLog(s, r);
        addVersion(r);
        r.rawset("setresp", Builtin.of("setresp", (L, th, base, n) -> {
            RunContext ctx = context(L, th, "redis.setresp can only be called inside a script invocation");
            if (n != 1) throw raise("redis.setresp() requires one argument.");
            int resp = (int) Num.cLong(toNumber(th.stack()[base]));
            if (resp != 2 && resp != 3) throw raise("RESP version must be 2 or 3.");
            ctx.client.reply().setProtocol(resp);
            return 0;
        }));
        r.rawset("sha1hex", Builtin.of("sha1hex", (L, th, base, n) -> {
            if (n != 1) throw raise("wrong number of arguments");
            LuaString str = LuaValues.toLuaString(th.stack()[base]);
            th.stack()[base] = LuaString.valueOf(Scripting.sha1hex(str == null ? new byte[0] : str.bytes()));
            return 1;
        }));
        r.rawset("error_reply", Builtin.of("error_reply", (L, th, base, n) -> {
            if (n != 1 || !(th.stack()[base] instanceof LuaString)) {
                th.stack()[base] = LuaResp.errorTable("wrong number or type of arguments");
                return 1;
            }
            String e = ((LuaString) th.stack()[base]).toString();
            th.stack()[base] = LuaResp.errorTable(e.startsWith("-") ? e : "-" + e);
            return 1;
        }));
        r.rawset("status_reply", Builtin.of("status_reply", (L, th, base, n) -> {
            if (n != 1 || !(th.stack()[base] instanceof LuaString)) {
                th.stack()[base] = LuaResp.errorTable("wrong number or type of arguments");
                return 1;
            }
            LuaTable t = new LuaTable();
            t.rawset(LuaResp.OK, th.stack()[base]);
            th.stack()[base] = t;
            return 1;
        }));
        r.rawset("set_repl", Builtin.of("set_repl", (L, th, base, n) -> {
            RunContext ctx = context(L, th, "redis.set_repl can only be called inside a script invocation");
            if (n != 1) throw raise("redis.set_repl() requires two arguments.");
            int flags = (int) Num.cLong(toNumber(th.stack()[base + n - 1]));
            if ((flags & ~(RunContext.PROPAGATE_AOF | RunContext.PROPAGATE_REPL)) != 0) {
                throw raise("Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.");
            }
            ctx.replFlags = flags;
            return 0;
        }));
        r.rawset("REPL_NONE", LuaValues.num(0));
        r.rawset("REPL_AOF", LuaValues.num(RunContext.PROPAGATE_AOF));
        r.rawset("REPL_SLAVE", LuaValues.num(RunContext.PROPAGATE_REPL));
        r.rawset("REPL_REPLICA", LuaValues.num(RunContext.PROPAGATE_REPL));
        r.rawset("REPL_ALL", LuaValues.num(RunContext.PROPAGATE_AOF | RunContext.PROPAGATE_REPL));
        r.rawset("acl_check_cmd", Builtin.of("acl_check_cmd", (L, th, base, n) -> {
            RunContext ctx = context(L, th, "redis.acl_check_cmd can only be called inside a script invocation");
            byte[][] argv = toArgv(th, base, n);
            io.spinel.core.protocol.Args args = argvArgs(argv);
            Command cmd = s.engine.commands().resolve(args);
            if (cmd == null) throw raise("Invalid command passed to redis.acl_check_cmd()");
            th.stack()[base] = s.engine.acl().check(s.engine.userOf(ctx.caller), cmd, args) == Acl.OK;
            return 1;
        }));
        return r;
    }

    /** redis.log and the LOG_* levels (also on the library registration API). */
    static void addLog(Scripting s, LuaTable r) {
        r.rawset("log", Builtin.of("log", (L, th, base, n) -> {
            if (n < 2) throw raise("redis.log() requires two arguments or more.");
            Double lv = LuaValues.toNumber(th.stack()[base]);
            if (lv == null) throw raise("First argument must be a number (log level).");
            int level = (int) Num.cLong(lv);
            if (level < Log.DEBUG || level > Log.WARNING) throw raise("Invalid debug level.");
            Log log = s.engine.log();
            if (!log.enabled(level)) return 0;
            StringBuilder sb = new StringBuilder();
            for (int j = 1; j < n; j++) {
                LuaString str = LuaValues.toLuaString(th.stack()[base + j]);
                if (str != null) {
                    if (j != 1) sb.append(' ');
                    sb.append(str.toUtf8());
                }
            }
            log.log(level, sb.toString());
            return 0;
        }));
        r.rawset("LOG_DEBUG", LuaValues.num(Log.DEBUG));
        r.rawset("LOG_VERBOSE", LuaValues.num(Log.VERBOSE));
        r.rawset("LOG_NOTICE", LuaValues.num(Log.NOTICE));
        r.rawset("LOG_WARNING", LuaValues.num(Log.WARNING));
    }

    static void addVersion(LuaTable r) {
        r.rawset("REDIS_VERSION_NUM", LuaValues.num(REDIS_VERSION_NUM));
        r.rawset("REDIS_VERSION", LuaString.valueOf(Engine.REDIS_VERSION));
    }

    private static double toNumber(Object v) {
        Double d = LuaValues.toNumber(v);
        return d == null ? 0 : d;
    }

    /** An error raised as Redis's luaPushError + lua_error: the value is an {err=...} table. */
    static LuaError raise(String msg) {
        return LuaError.value(LuaResp.errorTable(msg));
    }

    static RunContext context(Interp L, Coroutine th, String notRunning) {
        if (!(L.context instanceof RunContext)) throw raise(notRunning);
        return (RunContext) L.context;
    }

    /** Lua arguments to command arguments; null (with the error left to the caller) when one is not a string or number. */
    private static byte[][] toArgv(Coroutine th, int base, int n) {
        if (n == 0) throw raise("Please specify at least one argument for this redis lib call");
        byte[][] argv = new byte[n][];
        for (int j = 0; j < n; j++) {
            Object v = th.stack()[base + j];
            if (v instanceof LuaString) {
                argv[j] = ((LuaString) v).bytes();
            } else if (v instanceof Double) {
                // Lua's own %.14g would lose precision; Redis formats with %.17g
                argv[j] = Num.fmt17g((Double) v).getBytes(StandardCharsets.ISO_8859_1);
            } else {
                throw raise("Lua redis lib command arguments must be strings or integers");
            }
        }
        return argv;
    }

    private static io.spinel.core.protocol.Args argvArgs(byte[][] argv) {
        io.spinel.core.protocol.Args a = new io.spinel.core.protocol.Args();
        a.set(argv);
        return a;
    }

    /** redis.call (raise) and redis.pcall: run a command as the script's client, convert the reply. */
    private static int command(Scripting s, Interp L, Coroutine th, int base, int n, boolean raise) {
        RunContext ctx = context(L, th, "redis.call/pcall can only be called inside a script invocation");
        byte[][] argv;
        try {
            argv = toArgv(th, base, n);
        } catch (LuaError e) {
            // the debugger shows the message as raised, before its error code was put in front
            if (s.debugger.logging()) {
                Object err = e.value() instanceof LuaTable t ? t.getStr(LuaResp.ERR) : e.value();
                s.debugger.log("<error> " + String.valueOf(err).replaceFirst("^ERR ", ""));
            }
            if (raise) throw e;
            th.stack()[base] = e.value();
            return 1;
        }
        Object result = s.runFromScript(ctx, argv);
        if (raise && s.lastReplyWasError) {
            throw LuaError.value(result);
        }
        th.stack()[base] = result;
        return 1;
    }

    /** Commands Redis flags may-replicate (scripts count them as writes): PFCOUNT, PUBLISH, SPUBLISH. */
    private static boolean mayReplicate(Command cmd) {
        String n = cmd.name;
        return n.equals("pfcount") || n.equals("publish") || n.equals("spublish");
    }

    /** Redis's scriptCall checks, in order: returns an error (without '-') or null if the command may run. */
    static String check(Scripting s, RunContext ctx, Command cmd, int argc) {
        if (cmd == null) return "Unknown Redis command called from script";
        if (!cmd.arityOk(argc)) return "Wrong number of args calling Redis command from script";
        if (cmd.has(CommandFlags.NOSCRIPT) && !s.engine.scriptDenyDisabled()) {
            return "This Redis command is not allowed from script";
        }
        // a script allowed to run on a stale replica (allow-stale) still calls only what may
        if (s.engine.staleDenied() && !cmd.has(CommandFlags.STALE)) return "Can not execute the command on a stale replica";
        int denied = s.engine.aclCheckFromScript(ctx.caller, ctx.client, cmd, ctx.client.args());
        if (denied != Acl.OK) {
            return switch (denied) {
                case Acl.DENIED_CMD -> "The user executing the script can't run this command or subcommand";
                case Acl.DENIED_KEY -> "The user executing the script can't access at least one of the keys mentioned "
                        + "in the command arguments";
                default -> "The user executing the script can't publish to the channel mentioned in the command";
            };
        }
        int flags = cmd.flags(ctx.client);
        if (ctx.readOnly && ((flags & CommandFlags.WRITE) != 0 || mayReplicate(cmd))) {
            return "Write commands are not allowed from read-only scripts.";
        }
        if ((flags & CommandFlags.WRITE) != 0 && s.engine.deniesWritesFrom(ctx.caller)) {
            return "-READONLY You can't write against a read only replica.";
        }
        if ((flags & CommandFlags.WRITE) != 0 && !ctx.writeDirty && !s.engine().hasGoodReplicas()) {
            return "-NOREPLICAS Not enough good replicas to write.";
        }
        if (!ctx.allowOom && !ctx.writeDirty && ctx.oomAtStart && (flags & CommandFlags.DENYOOM) != 0) {
            return "-OOM command not allowed when used memory > 'maxmemory'.";
        }
        return clusterCheck(s, ctx, cmd);
    }

    /**
     * Cluster mode (Redis's scriptVerifyClusterState): a script's command must touch keys this
     * node serves, and unless the script allows cross-slot keys, all in the slot of the first
     * key the script (or its declared keys) touched. A master's stream is obeyed as it is.
     */
    private static String clusterCheck(Scripting s, RunContext ctx, Command cmd) {
        io.spinel.core.cluster.Cluster cluster = s.engine.cluster();
        if (cluster == null || ctx.caller.mustObey()) return null;
        ctx.client.clusterAsking = ctx.caller.clusterAsking;
        ctx.client.clusterReadonly = ctx.caller.clusterReadonly;
        io.spinel.core.cluster.ClusterCommands.Route r =
                io.spinel.core.cluster.ClusterCommands.route(ctx.client, cluster, cmd, ctx.client.args(), null, null, 0);
        if (!r.local()) {
            if (r.downReadOnly()) return "Script attempted to execute a write command while the cluster is down and readonly";
            if (r.down()) return "Script attempted to execute a command while the cluster is down";
            return "Script attempted to access a non local key in a cluster node";
        }
        if (r.slot != -1 && !ctx.allowCrossSlot) {
            if (ctx.caller.clusterSlot == -1) ctx.caller.clusterSlot = r.slot;
            else if (ctx.caller.clusterSlot != r.slot) return "Script attempted to access keys that do not hash to the same slot";
        }
        return null;
    }
}
