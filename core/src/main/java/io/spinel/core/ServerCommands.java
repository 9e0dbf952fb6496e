package io.spinel.core;

import io.spinel.core.command.Command;
import io.spinel.core.command.CommandError;
import io.spinel.core.command.CommandHandler;
import io.spinel.core.command.CommandTable;
import io.spinel.core.command.IntList;
import io.spinel.core.command.KeySpecReplies;
import io.spinel.core.config.Config;
import io.spinel.core.keyspace.Entries;
import io.spinel.core.keyspace.KeyCommands;
import io.spinel.core.keyspace.Keyspace;
import io.spinel.core.protocol.Args;
import io.spinel.core.protocol.Reply;
import io.spinel.core.util.Bytes;
import io.spinel.core.util.Doubles;
import io.spinel.core.util.Glob;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Server commands (Redis's server.c, config.c, debug.c parts): COMMAND, CONFIG, TIME, LASTSAVE,
 * DEBUG and SHUTDOWN. INFO lives in {@link InfoCommand}.
 */
final class ServerCommands {
    private ServerCommands() {
    }


    /** The handler of each command CommandFamilies registers for this family, made when it first runs. */
    public static CommandHandler handler(String name) {
        if (name.startsWith("cluster|")) return io.spinel.core.cluster.ClusterCommands.handler(name);
        return switch (name) {
            case "time" -> ServerCommands::time;
            case "lastsave" -> c -> c.reply().integer(c.engine.lastSaveSeconds());
            case "command" -> ServerCommands::commandAll;
            case "command|count" -> c -> c.reply().integer(c.engine.commands.commands().size());
            case "command|list" -> ServerCommands::commandList;
            case "command|info" -> ServerCommands::commandInfo;
            case "command|docs" -> ServerCommands::commandDocs;
            case "command|getkeys" -> c -> getKeys(c, false);
            case "command|getkeysandflags" -> c -> getKeys(c, true);
            case "command|help" -> ServerCommands::commandHelp;
            case "config|get" -> ServerCommands::configGet;
            case "config|set" -> ServerCommands::configSet;
            case "config|resetstat" -> ServerCommands::configResetStat;
            case "config|rewrite" -> ServerCommands::configRewrite;
            case "config|help" -> ServerCommands::configHelp;
            case "debug" -> ServerCommands::debug;
            case "shutdown" -> ServerCommands::shutdown;
            case "module|list" -> c -> c.reply().arrayHeader(0);
            case "module|load" -> ServerCommands::moduleLoad;
            case "module|loadex" -> ServerCommands::moduleLoad;
            case "module|unload" -> c -> {
                throw CommandError.err("Error unloading module: no such module with that name");
            };
            case "module|help" -> c -> KeyCommands.helpReply(c,
                    "MODULE <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
                    "LIST",
                    "    The loaded modules (none: Spinel runs no native modules).",
                    "LOAD <path> [<arg> ...]",
                    "    Load a module; always fails here.",
                    "LOADEX <path> [[CONFIG NAME VALUE] [CONFIG NAME VALUE]] [ARGS ...]",
                    "    Load a module with configuration; always fails here.",
                    "UNLOAD <name>",
                    "    Unload a module; there is none.");
            case "role" -> ServerCommands::role;
            case "wait" -> ServerCommands::waitReplicas;
            case "readonly" -> io.spinel.core.cluster.ClusterCommands.handler("readonly");
            case "readwrite" -> io.spinel.core.cluster.ClusterCommands.handler("readwrite");
            case "asking" -> io.spinel.core.cluster.ClusterCommands.handler("asking");
            default -> null;
        };
    }

    /**
     * MODULE LOAD/LOADEX: Redis modules are native libraries written against Redis's C API, which
     * a JVM server cannot host; the load fails as a failed load does in Redis, with the reason in
     * the log.
     */
    static void moduleLoad(Client c) {
        c.engine.log().warning("Module " + c.args().string(2) + " failed to load: Spinel cannot run native "
                + "Redis modules");
        throw CommandError.err("Error loading the extension. Please check the server logs.");
    }

    // ---- replication, as a master without replicas answers it ----------------------------------

    /** ROLE: a master at replication offset 0 with no replicas (INFO replication says the same). */
    static void role(Client c) {
        c.engine.replication.role(c.reply());
    }

    /**
     * WAIT numreplicas timeout: the replicas that acknowledged the stream up to now, at once when
     * enough did (or inside MULTI), else when enough do, the timeout (ms, 0 = never) passes or
     * CLIENT UNBLOCK ends the wait.
     */
    static void waitReplicas(Client c) {
        long wanted = c.argLong(1);
        long ms = c.argLong(2, CommandError.err("timeout is not an integer or out of range"));
        if (ms < 0) throw CommandError.err("timeout is negative");
        long now = c.engine.keyspace().clock().millis();
        long deadline = ms == 0 ? 0 : (ms > Long.MAX_VALUE - now ? Long.MAX_VALUE : now + ms);
        c.engine.replication.waitReplicas(c, wanted, deadline);
    }


    static void time(Client c) {
        // the wall clock with microseconds (Instant reads it in one call, so the two parts agree)
        java.time.Instant now = java.time.Instant.now();
        Reply r = c.reply();
        r.arrayHeader(2);
        r.bulk(Bytes.longToBytes(now.getEpochSecond()));
        r.bulk(Bytes.longToBytes(now.getNano() / 1000));
    }

    // ---- COMMAND ------------------------------------------------------------------------------

    static void commandAll(Client c) {
        List<Command> all = c.engine.commands.commands();
        c.reply().arrayHeader(all.size());
        for (Command cmd : all) KeySpecReplies.commandInfo(c.reply(), cmd);
    }

    static void commandList(Client c) {
        Args a = c.args();
        List<String> names = new ArrayList<>();
        String filter = null, value = null;
        if (a.count() == 5 && a.is(2, "filterby")) {
            filter = a.string(3).toLowerCase();
            value = a.string(4);
            if (!filter.equals("module") && !filter.equals("aclcat") && !filter.equals("pattern")) {
                throw CommandError.SYNTAX;
            }
        } else if (a.count() != 2) {
            throw CommandError.SYNTAX;
        }
        for (Command cmd : c.engine.commands.commands()) {
            addListed(cmd, filter, value, names);
            for (Command sub : cmd.subcommands()) addListed(sub, filter, value, names);
        }
        c.reply().arrayHeader(names.size());
        for (String n : names) c.reply().bulk(n);
    }

    private static void addListed(Command cmd, String filter, String value, List<String> out) {
        if (filter == null) {
            out.add(cmd.name);
        } else if (filter.equals("aclcat")) {
            if (cmd.aclCategories.contains(value.toLowerCase())) out.add(cmd.name);
        } else if (filter.equals("pattern")) {
            if (Glob.match(value.getBytes(StandardCharsets.UTF_8), cmd.name.getBytes(StandardCharsets.UTF_8), true)) {
                out.add(cmd.name);
            }
        }
        // FILTERBY MODULE: no modules, nothing matches
    }

    private static Command lookupByName(CommandTable t, String name) {
        String lower = name.toLowerCase();
        int bar = lower.indexOf('|');
        if (bar < 0) return t.lookup(lower);
        Command parent = t.lookup(lower.substring(0, bar));
        return parent == null ? null : parent.subcommand(lower.substring(bar + 1));
    }

    static void commandInfo(Client c) {
        Args a = c.args();
        Reply r = c.reply();
        if (a.count() == 2) {
            commandAll(c);
            return;
        }
        r.arrayHeader(a.count() - 2);
        for (int j = 2; j < a.count(); j++) {
            Command cmd = lookupByName(c.engine.commands, a.string(j));
            // (Redis's addReplyNull: a null bulk in RESP2, _ in RESP3)
            if (cmd == null) r.nullBulk();
            else KeySpecReplies.commandInfo(r, cmd);
        }
    }

    static void commandDocs(Client c) {
        Args a = c.args();
        Reply r = c.reply();
        List<Command> list = new ArrayList<>();
        if (a.count() == 2) {
            list.addAll(c.engine.commands.commands());
        } else {
            for (int j = 2; j < a.count(); j++) {
                Command cmd = lookupByName(c.engine.commands, a.string(j));
                if (cmd != null) list.add(cmd);
            }
        }
        r.mapHeader(list.size());
        for (Command cmd : list) {
            r.bulk(cmd.name);
            KeySpecReplies.commandDocs(r, cmd);
        }
    }

    static void getKeys(Client c, boolean withFlags) {
        Args a = c.args();
        Args sub = new Args();
        for (int j = 2; j < a.count(); j++) sub.add(a.buf(j), a.off(j), a.len(j));
        Command cmd = c.engine.commands.resolve(sub);
        if (cmd == null) throw CommandError.err("Invalid command specified");
        if (cmd.keySpecs.isEmpty()) throw CommandError.err("The command has no key arguments");
        if (!cmd.arityOk(sub.count())) throw CommandError.err("Invalid number of arguments specified for command");
        IntList keys = new IntList();
        Reply r = c.reply();
        if (!cmd.keys(sub, keys)) {
            if (cmd.has(io.spinel.core.command.CommandFlags.NO_MANDATORY_KEYS)) {
                r.arrayHeader(0);
                return;
            }
            throw CommandError.err("Invalid arguments specified for command");
        }
        r.arrayHeader(keys.size());
        for (int i = 0; i < keys.size(); i++) {
            int p = keys.get(i);
            if (withFlags) {
                r.arrayHeader(2);
                r.bulk(sub.buf(p), sub.off(p), sub.len(p));
                KeySpecReplies.keyFlags(r, cmd, p, sub);
            } else {
                r.bulk(sub.buf(p), sub.off(p), sub.len(p));
            }
        }
    }

    static void commandHelp(Client c) {
        KeyCommands.helpReply(c, "COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
                "(no subcommand)",
                "    Details about all commands.",
                "COUNT",
                "    The number of commands.",
                "GETKEYS <full-command>",
                "    The keys of a full command.",
                "GETKEYSANDFLAGS <full-command>",
                "    The keys of a full command and their flags.",
                "INFO [<command-name> ...]",
                "    Details about some or all commands.",
                "LIST [FILTERBY (MODULE <module-name>|ACLCAT <category>|PATTERN <pattern>)]",
                "    The names of the commands, optionally filtered.",
                "DOCS [<command-name> ...]",
                "    Documentation details of some or all commands.");
    }

    // ---- CONFIG -------------------------------------------------------------------------------

    static void configGet(Client c) {
        Args a = c.args();
        Config config = c.engine.config;
        Map<String, Config.Option> found = new LinkedHashMap<>();
        for (int j = 2; j < a.count(); j++) {
            for (Map.Entry<String, Config.Option> e : config.matching(a.string(j)).entrySet()) {
                found.putIfAbsent(e.getKey(), e.getValue());
            }
        }
        Reply r = c.reply();
        r.mapHeader(found.size());
        for (Map.Entry<String, Config.Option> e : found.entrySet()) {
            r.bulk(e.getKey());
            r.bulkLatin1(c.engine.configValueForGet(e.getValue())); // a value's bytes (Config)
        }
    }

    static void configSet(Client c) {
        Args a = c.args();
        if ((a.count() & 1) != 0) throw CommandError.SYNTAX;
        Config config = c.engine.config;
        int n = (a.count() - 2) / 2;
        Config.Option[] opts = new Config.Option[n];
        // the name each was found by, as Redis's errors name it: an alias (slave-read-only) is a
        // parameter of its own there, so setting it beside its main name is no duplicate
        String[] found = new String[n];
        String[] values = new String[n];
        if (c.engine.loading()) {
            // before any other error, as Redis gives it precedence (clients may retry on it)
            for (int i = 0; i < n; i++) {
                Config.Option o = config.option(a.string(2 + i * 2));
                if (o != null && o.deniedWhileLoading()) throw new CommandError("LOADING Redis is loading the dataset in memory");
            }
        }
        for (int i = 0; i < n; i++) {
            String name = a.string(2 + i * 2);
            Config.Option o = config.option(name);
            if (o == null) throw CommandError.err("Unknown option or number of arguments for CONFIG SET - '" + name + "'");
            if (o.immutable()) throw setFailed(name, "can't set immutable config");
            if (o.isProtected() && !c.engine.protectedConfigAllowed(c)) throw setFailed(name, "can't set protected config");
            found[i] = name.toLowerCase(java.util.Locale.ROOT);
            for (int k = 0; k < i; k++) {
                if (opts[k] == o && found[k].equals(found[i])) throw setFailed(name, "duplicate parameter");
            }
            opts[i] = o;
        }
        String[] previous = new String[n];
        for (int i = 0; i < n; i++) {
            try {
                values[i] = config.validate(opts[i], a.string(3 + i * 2));
            } catch (Config.ConfigException e) {
                throw setFailed(found[i], e.getMessage());
            }
        }
        int tls = tlsReconfiguredBy(opts, values);
        // tls-port last: opening its listener builds the TLS context from the certificate and
        // key set by the same command, as Redis applies every value before any of them acts
        int[] order = new int[n];
        int k = 0;
        for (int i = 0; i < n; i++) if (!opts[i].name.equals("tls-port")) order[k++] = i;
        for (int i = 0; i < n; i++) if (opts[i].name.equals("tls-port")) order[k++] = i;
        int applied = 0;
        try {
            for (; applied < n; applied++) {
                int i = order[applied];
                previous[i] = opts[i].value();
                config.apply(opts[i], values[i]);
            }
            if (tls >= 0 && tlsOn(config)) {
                Tls t = c.engine.tls();
                if (t == null) throw new IllegalStateException(TLS_UPDATE_FAILED);
                t.reconfigure();
            }
        } catch (RuntimeException e) {
            // (the one that failed has kept its value: Config.apply)
            for (int j = applied - 1; j >= 0; j--) config.apply(opts[order[j]], previous[order[j]]);
            throw setFailed(applied < n ? found[order[applied]] : found[tls], e.getMessage());
        }
        c.reply().ok();
    }

    static final String TLS_UPDATE_FAILED = "Unable to update TLS configuration. Check server logs.";

    /** Whether Redis's applyTlsCfg configures TLS: a TLS listener, replication or cluster bus. */
    private static boolean tlsOn(Config config) {
        return !config.get("tls-port").equals("0") || config.getBool("tls-replication") || config.getBool("tls-cluster");
    }

    /**
     * Redis rebuilds its TLS context when a CONFIG SET changes a TLS option (its file options
     * even when unchanged: the file may have been replaced) while TLS is on; the index of the
     * first such option, which a failure names, or -1.
     */
    private static int tlsReconfiguredBy(Config.Option[] opts, String[] values) {
        for (int i = 0; i < opts.length; i++) {
            if (io.spinel.core.config.ConfigSupport.TLS_APPLIED.contains(opts[i].name)
                    && (opts[i].isVolatile() || !values[i].equals(opts[i].value()))) {
                return i;
            }
        }
        return -1;
    }

    private static CommandError setFailed(String name, String why) {
        return CommandError.err("CONFIG SET failed (possibly related to argument '" + name + "') - " + why);
    }

    static void configResetStat(Client c) {
        c.engine.resetStats();
        c.reply().ok();
    }

    static void configRewrite(Client c) {
        String err = c.engine.rewriteConfig(false);
        if (err != null) throw new CommandError(err);
        c.reply().ok();
    }

    static void configHelp(Client c) {
        KeyCommands.helpReply(c, "CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
                "GET <pattern>",
                "    The values of the options matching the glob-style <pattern>.",
                "SET <directive> <value> [<directive> <value> ...]",
                "    Set options at run time; all are applied, or none.",
                "RESETSTAT",
                "    Reset the statistics that INFO reports.",
                "REWRITE",
                "    Write the running configuration back to the configuration file.");
    }

    // ---- DEBUG --------------------------------------------------------------------------------

    static void debug(Client c) {
        Args a = c.args();
        Reply r = c.reply();
        if (a.is(1, "sleep") && a.count() == 3) {
            // read as Redis reads it, strtod's prefix with no error: "abc" sleeps 0 s
            double secs = Doubles.strtodPrefix(a.buf(2), a.off(2), a.len(2));
            // (Redis's conversion of an infinite or NaN time to microseconds gives a negative
            // one, which nanosleep refuses: no sleep)
            long nanos = Double.isFinite(secs) ? (long) (secs * 1e9) : 0;
            if (nanos > 0) {
                long end = System.nanoTime() + nanos;
                long left;
                while ((left = end - System.nanoTime()) > 0) {
                    try {
                        Thread.sleep(left / 1_000_000, (int) (left % 1_000_000));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        break;
                    }
                }
            }
            r.ok();
        } else if (a.is(1, "set-disable-deny-scripts") && a.count() == 3) {
            c.engine.scriptDenyDisabled = Bytes.atoi(a.string(2)) != 0;
            r.ok();
        } else if (a.is(1, "drop-cluster-packet-filter") && a.count() == 3) {
            long type = c.argLong(2);
            if (c.engine.cluster() != null) c.engine.cluster().dropPacketFilter = type;
            r.ok();
        } else if (a.is(1, "clusterlink") && a.count() == 5 && a.is(2, "kill")) {
            io.spinel.core.cluster.Cluster cluster = c.engine.cluster();
            if (cluster == null) throw CommandError.err("Debug option only available for cluster mode enabled setup!");
            cluster.debugKillLinks(a.string(3), a.string(4));
            r.ok();
        } else if (a.is(1, "set-active-expire") && a.count() == 3) {
            c.engine.activeExpireEnabled = Bytes.atoi(a.string(2)) != 0;
            r.ok();
        } else if (a.is(1, "object") && a.count() == 3) {
            Object e = c.db().find(a.buf(2), a.off(2), a.len(2));
            if (e == null) throw CommandError.NO_SUCH_KEY;
            Keyspace ks = c.engine.keyspace;
            r.status("Value at:0x" + Integer.toHexString(System.identityHashCode(e)) + " refcount:1 encoding:"
                    + Entries.encoding(e) + " serializedlength:" + Entries.memoryUsage(e) + " lru:" + Entries.lru(e)
                    + " lru_seconds_idle:" + ks.idleSeconds(e));
        } else if (a.is(1, "htstats") && a.count() == 3) {
            long dbid = c.argLong(2);
            if (dbid < 0 || dbid >= c.engine.keyspace.count()) throw CommandError.err("Out of range database");
            StringBuilder sb = new StringBuilder();
            c.engine.keyspace.db((int) dbid).appendHtStats(sb);
            r.verbatim(sb.toString(), "txt");
        } else if (a.is(1, "htstats-key") && a.count() == 3) {
            Object e = c.db().find(a.buf(2), a.off(2), a.len(2));
            if (e == null) throw CommandError.NO_SUCH_KEY;
            io.spinel.core.keyspace.KeyTable t = e instanceof io.spinel.core.keyspace.DbObject o ? o.hashTable() : null;
            if (t == null) throw CommandError.err("The value stored at the specified key is not represented using an hash table");
            StringBuilder sb = new StringBuilder();
            t.appendStats(sb);
            r.verbatim(sb.toString(), "txt");
        } else if (a.is(1, "digest") && a.count() == 2) {
            r.status(DebugDigest.hex(new DebugDigest().ofDataSet(c.engine.keyspace)));
        } else if (a.is(1, "digest-value")) {
            // the stored values as they are: a logically expired key still counts, as in Redis
            DebugDigest digest = new DebugDigest();
            r.arrayHeader(a.count() - 2);
            for (int j = 2; j < a.count(); j++) {
                r.status(DebugDigest.hex(digest.ofValue(c.db().find(a.buf(j), a.off(j), a.len(j)))));
            }
        } else if (a.is(1, "protocol") && a.count() == 3) {
            debugProtocol(c, a.string(2).toLowerCase(java.util.Locale.ROOT));
        } else if (a.is(1, "loadaof") && a.count() == 2) {
            debugLoad(c, c.engine.persistence()::debugLoadAof);
        } else if (a.is(1, "reload")) {
            boolean save = true, flush = true, merge = false;
            for (int j = 2; j < a.count(); j++) {
                if (a.is(j, "merge")) merge = true;
                else if (a.is(j, "noflush")) flush = false;
                else if (a.is(j, "nosave")) save = false;
                else throw CommandError.err("DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.");
            }
            // Redis saves before the load begins, serving no one meanwhile
            if (save && !c.engine.persistence().saveNow()) throw new CommandError("ERR");
            boolean flushFirst = flush, replace = merge;
            debugLoad(c, () -> c.engine.persistence().debugReload(flushFirst, replace));
        } else if (a.is(1, "populate") && a.count() >= 3 && a.count() <= 5) {
            long keys = positiveArg(c, 2);
            long valueSize = a.count() == 5 ? positiveArg(c, 4) : 0;
            // a Java array holds less than Redis's allocator would try
            if (valueSize > Integer.MAX_VALUE - 16) throw CommandError.err("value is out of range");
            // the prefix is formatted as a C string: up to its first NUL
            byte[] prefix = a.count() == 3 ? Bytes.ascii("key") : Bytes.ascii(a.cString(3));
            debugPopulate(c, keys, prefix, valueSize);
            r.ok();
        } else if (a.is(1, "quicklist-packed-threshold") && a.count() == 3) {
            // Redis puts list elements of this size or more in nodes of their own; Spinel's nodes
            // take elements of any size, so only the argument is checked (as Redis checks it)
            Long size = Config.memToLong(a.string(2));
            if (size == null || Long.compareUnsigned(size, (1L << 32) - (1 << 20)) > 0) {
                throw CommandError.err("argument must be a memory value bigger than 1 and smaller than 4gb");
            }
            r.ok();
        } else if (a.is(1, "set-skip-checksum-validation") && a.count() == 3) {
            c.engine.skipChecksumValidation = Bytes.atoi(a.string(2)) != 0;
            r.ok();
        } else if (a.is(1, "aof-flush-sleep") && a.count() == 3) {
            c.engine.persistence().aofFlushSleep((int) Bytes.atoi(a.string(2)));
            r.ok();
        } else if (a.is(1, "pause-cron") && a.count() == 3) {
            c.engine.cronPaused = Bytes.atoi(a.string(2)) != 0;
            r.ok();
        } else if (a.is(1, "config-rewrite-force-all") && a.count() == 2) {
            // CONFIG REWRITE writing every option, those at their defaults too
            String err = c.engine.rewriteConfig(true);
            if (err != null) {
                throw CommandError.err(err.startsWith("ERR CONFIG-REWRITE-FORCE-ALL") ? err.substring(4)
                        : "CONFIG-REWRITE-FORCE-ALL failed: " + err.substring(4));
            }
            r.ok();
        } else if (a.is(1, "replicate") && a.count() >= 3) {
            byte[][] argv = new byte[a.count() - 2][];
            for (int j = 2; j < a.count(); j++) argv[j - 2] = a.copy(j);
            c.engine.replication.feedRaw(argv);
            r.ok();
        } else if (a.is(1, "replybuffer") && a.count() == 4) {
            if (a.is(2, "peak-reset-time")) {
                if (a.is(3, "never")) c.engine.replyBufferPeakResetMillis = -1;
                else if (a.is(3, "reset")) c.engine.replyBufferPeakResetMillis = Engine.REPLY_BUFFER_PEAK_RESET_MILLIS;
                else c.engine.replyBufferPeakResetMillis = c.argLong(3);
            } else if (a.is(2, "resizing")) {
                c.engine.replyBufferResizing(Bytes.atoi(a.string(3)) != 0);
            } else {
                throw CommandError.subcommandSyntax(a);
            }
            r.ok();
        } else if (a.is(1, "segfault") || a.is(1, "panic")) {
            Runnable crash = c.engine.crashHandler();
            if (crash == null) throw CommandError.err("DEBUG " + a.string(1).toUpperCase(java.util.Locale.ROOT)
                    + " would end the host's process: not available in an in-process server");
            // Redis's DEBUG SEGFAULT dereferences a bad pointer and its signal handler reports the crash
            CrashReport.log(c.engine, a.is(1, "panic") ? "Guru Meditation: DEBUG PANIC called"
                    : CrashReport.crashedBySignal(11) + " (DEBUG SEGFAULT)");
            crash.run();
        } else if (a.is(1, "change-repl-id") && a.count() == 2) {
            c.engine.replication.changeReplicationId();
            r.ok();
        } else if (a.is(1, "error") && a.count() == 3) {
            // written as it is, as Redis adds it: not an error reply the statistics count
            byte[] msg = a.copy(2);
            byte[] line = new byte[msg.length + 3];
            line[0] = '-';
            for (int j = 0; j < msg.length; j++) line[j + 1] = msg[j] == '\r' || msg[j] == '\n' ? (byte) ' ' : msg[j];
            line[line.length - 2] = '\r';
            line[line.length - 1] = '\n';
            r.raw(line);
        } else if (a.is(1, "log") && a.count() == 3) {
            c.engine.log().warning("DEBUG LOG: " + a.string(2));
            r.ok();
        } else if (a.is(1, "help")) {
            KeyCommands.helpReply(c, "DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
                    "CHANGE-REPL-ID",
                    "    Start a new replication history: a new replication ID, no second one.",
                    "DIGEST",
                    "    A fingerprint of the whole data set (40 hex digits, all zeros when empty).",
                    "DIGEST-VALUE <key> [<key> ...]",
                    "    A fingerprint of each key's value.",
                    "PROTOCOL <type>",
                    "    A reply of that RESP3 type: string, integer, double, bignum, null, array, set, map,",
                    "    attrib, push, verbatim, true or false.",
                    "ERROR <message>",
                    "    Reply with <message> as an error.",
                    "LOG <message>",
                    "    Write <message> to the server log.",
                    "AOF-FLUSH-SLEEP <microseconds>",
                    "    Sleep that long before each write of the AOF buffer (0: never).",
                    "HTSTATS <dbid>",
                    "    Statistics of the database's hash tables of keys and of keys with a TTL.",
                    "HTSTATS-KEY <key>",
                    "    The same for the hash table of the key's value (hash, set or sorted set).",
                    "LOADAOF",
                    "    Write the AOF buffer to disk, empty the data set and replay the AOF files.",
                    "OBJECT <key>",
                    "    Low-level information about the key's value.",
                    "PAUSE-CRON <0|1>",
                    "    Stop or restart the server's periodic work (expiry, eviction, client checks).",
                    "POPULATE <count> [<prefix>] [<size>]",
                    "    Create <count> string keys <prefix>:0, <prefix>:1, ... (prefix \"key\") holding",
                    "    value:0, value:1, ..., cut or zero-padded to <size> bytes; existing keys are kept.",
                    "QUICKLIST-PACKED-THRESHOLD <size>",
                    "    Accepted for Redis's tests; list nodes take elements of any size here.",
                    "RELOAD [MERGE] [NOFLUSH] [NOSAVE]",
                    "    Write the RDB file, empty the data set and load the file again. NOFLUSH keeps the",
                    "    data in memory, MERGE lets loaded keys and libraries replace those of the same name,",
                    "    NOSAVE loads the file as it is on disk.",
                    "SET-DISABLE-DENY-SCRIPTS <0|1>",
                    "    Let scripts call commands that are not allowed in scripts (for tests).",
                    "REPLYBUFFER PEAK-RESET-TIME <milliseconds|NEVER|RESET>",
                    "    How often a client's reply buffer peak starts again (5000 ms unless set).",
                    "REPLYBUFFER RESIZING <0|1>",
                    "    Stop or restart shrinking reply buffers to their recent peak.",
                    "CONFIG-REWRITE-FORCE-ALL",
                    "    Like CONFIG REWRITE but writes every option, those at their defaults too.",
                    "REPLICATE <command> [<arg> ...]",
                    "    Send the command to the replicas only.",
                    "SET-ACTIVE-EXPIRE <0|1>",
                    "    Turn the active expiry cycle off or on.",
                    "SEGFAULT",
                    "    End the server's process at once, as a crash would (not in an in-process server).",
                    "PANIC",
                    "    The same, logged as a panic.",
                    "SET-SKIP-CHECKSUM-VALIDATION <0|1>",
                    "    Load RESTORE payloads and RDB files without checking their checksums.",
                    "SLEEP <seconds>",
                    "    Stop the server for <seconds> (decimals allowed).");
        } else {
            throw CommandError.subcommandSyntax(a);
        }
    }

    /** getPositiveLongFromObjectOrReply. */
    private static long positiveArg(Client c, int i) {
        CommandError error = CommandError.err("value is out of range, must be positive");
        long v = c.argLong(i, error);
        if (v < 0) throw error;
        return v;
    }

    /**
     * DEBUG RELOAD's and LOADAOF's load (null or the error to reply): from a client's own command
     * it runs after the command, serving the other clients meanwhile (Engine#loadAfterCommand);
     * inside a transaction, or from a client without a connection, within the command.
     */
    private static void debugLoad(Client c, java.util.function.Supplier<String> load) {
        if (c.engine.isNestedCall() || c.mustObey()) {
            String err = load.get();
            if (err != null) throw new CommandError(err);
            c.reply().ok();
            return;
        }
        c.engine.loadAfterCommand(c, load);
    }

    /**
     * DEBUG POPULATE: string keys "prefix:N" holding "value:N" (cut or zero-padded to valueSize
     * when it is given), skipping keys that exist. As in Redis, no notifications, no
     * propagation, no dirty count; watchers of the keys see them modified. Redis formats both
     * into a 128-byte buffer: a longer key is cut to 127 bytes.
     */
    private static void debugPopulate(Client c, long keys, byte[] prefixBytes, long valueSize) {
        io.spinel.core.keyspace.Db db = c.db();
        db.reserve(keys, 0);
        Keyspace ks = c.engine.keyspace;
        for (long j = 0; j < keys; j++) {
            byte[] number = Bytes.longToBytes(j);
            int keyLength = Math.min(prefixBytes.length + 1 + number.length, 127);
            byte[] key = new byte[keyLength];
            int n = Math.min(prefixBytes.length, keyLength);
            System.arraycopy(prefixBytes, 0, key, 0, n);
            if (n < keyLength) key[n++] = ':';
            System.arraycopy(number, 0, key, n, keyLength - n);
            if (db.lookupWrite(key, 0, key.length) != null) continue;
            byte[] text = ("value:" + j).getBytes(StandardCharsets.US_ASCII);
            byte[] value = valueSize == 0 ? text : java.util.Arrays.copyOf(text, (int) valueSize);
            db.put(key, 0, key.length, io.spinel.core.keyspace.StringEntry.createString(key, 0, key.length,
                    value, 0, value.length, -1, ks.newLru()));
            c.engine.keyModified(db, key);
        }
    }

    /** DEBUG PROTOCOL: one reply of each RESP3 type (and what RESP2 makes of it), for client tests. */
    private static void debugProtocol(Client c, String name) {
        Reply r = c.reply();
        boolean resp3 = r.protocol() == 3;
        switch (name) {
            case "string" -> r.bulk("Hello World");
            case "integer" -> r.integer(12345);
            case "double" -> r.dbl(3.141);
            case "bignum" -> {
                if (resp3) r.raw(Bytes.ascii("(1234567999999999999999999999999999999\r\n"));
                else r.bulk("1234567999999999999999999999999999999");
            }
            case "null" -> r.nullBulk();
            case "array" -> {
                r.arrayHeader(3);
                for (int j = 0; j < 3; j++) r.integer(j);
            }
            case "set" -> {
                r.setHeader(3);
                for (int j = 0; j < 3; j++) r.integer(j);
            }
            case "map" -> {
                r.mapHeader(3);
                for (int j = 0; j < 3; j++) {
                    r.integer(j);
                    r.bool(j == 1);
                }
            }
            case "attrib" -> {
                // an attribute is not a reply by itself: a real one follows it
                if (resp3) {
                    r.raw(Bytes.ascii("|1\r\n"));
                    r.bulk("key-popularity");
                    r.arrayHeader(2);
                    r.bulk("key:123");
                    r.integer(90);
                }
                r.bulk("Some real reply following the attribute");
            }
            case "push" -> {
                if (!resp3) throw CommandError.err("RESP2 is not supported by this command");
                r.beginPush();
                r.pushHeader(2);
                r.bulk("server-cpu-usage");
                r.integer(42);
                r.endPush();
                // a push is not the command's reply: a real one follows it
                r.bulk("Some real reply following the push reply");
            }
            case "true" -> r.bool(true);
            case "false" -> r.bool(false);
            case "verbatim" -> r.verbatim("This is a verbatim\nstring", "txt");
            default -> throw CommandError.err("Wrong protocol type name. Please use one of the following: "
                    + "string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|false");
        }
    }

    // ---- SHUTDOWN -----------------------------------------------------------------------------

    static void shutdown(Client c) {
        Args a = c.args();
        boolean save = false, nosave = false, now = false, force = false, abort = false;
        for (int j = 1; j < a.count(); j++) {
            if (a.is(j, "nosave")) nosave = true;
            else if (a.is(j, "save")) save = true;
            else if (a.is(j, "now")) now = true;
            else if (a.is(j, "force")) force = true;
            else if (a.is(j, "abort")) abort = true;
            else throw CommandError.SYNTAX;
        }
        if ((abort && a.count() != 2) || (save && nosave)) throw CommandError.SYNTAX;
        if (abort) {
            if (!c.engine.shutdown.abort()) throw CommandError.err("No shutdown in progress.");
            c.reply().ok();
            return;
        }
        if (!now && !c.mayBlock()) {
            throw CommandError.err("SHUTDOWN without NOW or ABORT isn't allowed for DENY BLOCKING client");
        }
        // while a slow script yields to the loop, only SHUTDOWN NOSAVE may stop the server
        if (!nosave && c.engine.busyError() != null) throw new CommandError(c.engine.busyError());
        String err = c.engine.shutdown.request(save, nosave, now, force, c);
        if (err != null) throw new CommandError(err);
        // the caller waits (blocked) while replicas catch up; its connection closes with the server
    }
}
