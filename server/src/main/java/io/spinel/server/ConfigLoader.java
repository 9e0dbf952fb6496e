package io.spinel.server;

import io.spinel.core.acl.Acl;
import io.spinel.core.command.CommandRenames;
import io.spinel.core.config.Config;
import io.spinel.core.protocol.SplitArgs;
import io.spinel.core.sentinel.SentinelConfig;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Reads configuration the way redis-server does: a redis.conf-style file, then {@code --name value}
 * overrides appended as further lines, all parsed by one loop. The first bad line stops start-up
 * with Redis's "FATAL CONFIG FILE ERROR" report naming the line.
 */
public final class ConfigLoader {
    /** A configuration error, with the line it is about. */
    public static final class ConfigError extends Exception {
        final int lineNumber;
        final String line;
        final String reason;

        ConfigError(int lineNumber, String line, String reason) {
            super("line " + lineNumber + " '" + line + "': " + reason);
            this.lineNumber = lineNumber;
            this.line = line;
            this.reason = reason;
        }

        /** An error of the whole configuration, found once every line was read (no line to name). */
        ConfigError(String reason) {
            super(reason);
            this.lineNumber = 0;
            this.line = null;
            this.reason = reason;
        }

        /** The report redis-server prints before exiting. */
        public String report(String version) {
            return "\n*** FATAL CONFIG FILE ERROR (Spinel " + version + ") ***\n"
                    + (line == null ? "" : "Reading the configuration file, at line " + lineNumber + "\n"
                    + ">>> '" + line + "'\n")
                    + reason;
        }
    }

    private final Config config;
    /** rename-command directives, each checked at its line. */
    private final CommandRenames renames = new CommandRenames();
    private final Set<String> multiArgSeen = new HashSet<>();
    /** The "user" lines: each the user's name then its rules (selectors merged), applied at start. */
    private final List<List<String>> users = new ArrayList<>();

    public ConfigLoader(Config config) {
        this.config = config;
    }

    /** Sentinel mode (--sentinel): "sentinel ..." lines are kept for Sentinel instead of refused. */
    private boolean sentinelMode;
    private final List<SentinelConfig.Line> sentinelLines = new ArrayList<>();

    public void setSentinelMode() {
        sentinelMode = true;
    }

    /** The "sentinel ..." lines read, in order (Sentinel mode). */
    public List<SentinelConfig.Line> sentinelLines() {
        return sentinelLines;
    }

    /** The rename-command directives, for the server's command table. */
    public CommandRenames renames() {
        return renames;
    }

    /**
     * Turns command-line options ({@code --port 7000 --save ""}) into config lines, quoting each
     * argument as Redis does so spaces and empty strings survive.
     */
    public static String optionsToConfig(List<String> args) throws ConfigError {
        StringBuilder sb = new StringBuilder();
        boolean haveOption = false;
        // as Redis 7.0: right after a bare option name, the next argument is its value even when
        // it starts with "--" (--port --loglevel verbose sets port to "--loglevel verbose");
        // --save and --sentinel followed by an option, or last, have no value
        boolean lastHasValue = true;
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (lastHasValue && a.startsWith("--") && a.length() > 2) {
                if (haveOption) sb.append('\n');
                sb.append(a.substring(2));
                haveOption = true;
                List<String> words = io.spinel.core.protocol.SplitArgs.split(a);
                lastHasValue = words != null && words.size() > 1; // "--port 6380" as one argument
                if (!lastHasValue) {
                    boolean optionNext = i + 1 < args.size() && args.get(i + 1).startsWith("--");
                    boolean last = i + 1 == args.size();
                    if (a.equalsIgnoreCase("--save") && (optionNext || last)) {
                        sb.append(" \"\"");
                        lastHasValue = optionNext;
                    } else if (a.equalsIgnoreCase("--sentinel") && optionNext) {
                        lastHasValue = true;
                    }
                }
            } else {
                lastHasValue = true;
                // before any option name, as Redis: the words start a line of their own
                // ("loglevel verbose --port 7000" sets loglevel)
                if (!haveOption) {
                    sb.append(quote(Config.valueOfFileName(a)));
                    haveOption = true;
                    continue;
                }
                sb.append(' ').append(quote(Config.valueOfFileName(a))); // the argument's bytes
            }
        }
        if (haveOption) sb.append('\n');
        return sb.toString();
    }

    /** Quotes a value's bytes like sdscatrepr: printable chars as is, the rest escaped, inside double quotes. */
    static String quote(String s) {
        return io.spinel.core.util.Repr.quote(s);
    }

    /** Loads a file (with its includes). */
    public void loadFile(Path file) throws ConfigError, IOException {
        // one char per byte: values are the file's bytes (Config)
        load(new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1), file.getParent());
    }

    /** Parses config text; {@code base} resolves relative include paths (may be null). */
    public void load(String text, Path base) throws ConfigError {
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            // trimmed of spaces, tabs, CR and LF only, and quoted so in an error, as Redis does
            String line = trimBlanks(lines[i]);
            if (line.isEmpty() || line.startsWith("#")) continue;
            List<String> argv = SplitArgs.split(line);
            if (argv == null) throw new ConfigError(i + 1, line, "Unbalanced quotes in configuration line");
            if (argv.isEmpty()) continue;
            String name = argv.get(0).toLowerCase(Locale.ROOT);
            argv.set(0, name); // as Redis lowers it before the directive runs (its errors name it so)
            List<String> values = argv.subList(1, argv.size());
            if (name.equals("user") && !values.isEmpty()) {
                declareUser(i + 1, line, argv);
                continue;
            }
            if (sentinelMode && name.equals("sentinel") && !values.isEmpty()) {
                // read by Sentinel once the whole configuration is (Redis queues them too)
                sentinelLines.add(new SentinelConfig.Line(List.copyOf(values), i + 1, line));
                continue;
            }
            try {
                apply(name, values, base);
            } catch (Config.ConfigException e) {
                throw new ConfigError(i + 1, line, e.getMessage());
            }
            if (moduleConfigLine < 0) {
                moduleConfigLine = i + 1;
                moduleConfigText = line;
            }
        }
    }

    /** sdstrim(line, " \t\r\n"): other control characters stay (String.trim would take them too). */
    static String trimBlanks(String s) {
        int a = 0;
        int e = s.length();
        while (a < e && " \t\r\n".indexOf(s.charAt(a)) >= 0) a++;
        while (e > a && " \t\r\n".indexOf(s.charAt(e - 1)) >= 0) e--;
        return s.substring(a, e);
    }

    /**
     * A "user NAME rules..." line, checked as Redis checks it while reading (a name defined twice,
     * a rule that cannot be right); rules naming unknown commands stop the start later, as in
     * Redis. {@code argv} is the whole line.
     */
    private void declareUser(int lineNumber, String raw, List<String> argv) throws ConfigError {
        String name = argv.get(1);
        for (List<String> u : users) {
            if (u.get(0).equals(name)) {
                throw new ConfigError(lineNumber, raw, "Error in user declaration '" + name
                        + "': Duplicate user found. A user can only be defined once in config files");
            }
        }
        List<String> rules = new ArrayList<>();
        String error = Acl.checkConfigUser(argv, rules);
        if (error != null) throw new ConfigError(lineNumber, raw, error);
        rules.add(0, name);
        users.add(List.copyOf(rules));
    }

    /** The users the configuration declares, each its name and rules, for {@link Acl#loadAtStartup}. */
    public List<List<String>> users() {
        return users;
    }

    /**
     * What can only be checked once every line is read: a replica in cluster mode (cluster nodes
     * choose their masters themselves), a module's option with no module to take it (Redis stops
     * at both).
     */
    public void checkAfterLoading() throws ConfigError {
        if (config.getBool("cluster-enabled") && !config.get("replicaof").isBlank()) {
            throw new ConfigError("replicaof directive not allowed in cluster mode");
        }
        if (moduleConfigLine > 0) {
            throw new ConfigError(moduleConfigLine, moduleConfigText,
                    "Module Configuration detected without loadmodule directive or no ApplyConfig call: aborting");
        }
    }

    /**
     * One directive, in Redis's order (loadServerConfigFromString): a known option first (one
     * value unless it takes several), then the deprecated options Redis ignores, then the other
     * directives, each with the argument count it needs, else "Bad directive".
     */
    private void apply(String name, List<String> values, Path base) throws Config.ConfigException, ConfigError {
        Config.Option o = config.option(name);
        if (o != null) {
            if (!o.multiArg() && values.size() != 1) throw new Config.ConfigException("wrong number of arguments");
            applyOption(o, values);
            return;
        }
        if (DEPRECATED_IGNORED.contains(name) && values.size() == 1) return;
        switch (values.size() == 1 && name.equals("include") ? "include"
                : values.size() == 2 && name.equals("rename-command") ? "rename-command"
                : !values.isEmpty() && name.equals("loadmodule") ? "loadmodule"
                : name.indexOf('.') >= 0 ? "module-config"
                : name.equals("sentinel") ? "sentinel" : "") {
            case "include":
                Path p = Path.of(Config.fileName(values.get(0)));
                if (!p.isAbsolute() && base != null) p = base.resolve(p);
                try {
                    loadFile(p);
                } catch (IOException e) {
                    throw new Config.ConfigException("Fatal error, can't open config file '" + values.get(0) + "': "
                            + e.getMessage());
                }
                return;
            case "rename-command":
                try {
                    renames.add(values.get(0), values.get(1));
                } catch (IllegalArgumentException e) {
                    throw new Config.ConfigException(e.getMessage());
                }
                return;
            case "loadmodule":
                throw new Config.ConfigException("'loadmodule' is not supported by Spinel yet");
            case "module-config":
                // a module's option: Redis queues it for the module, and with no module loaded
                // stops once the file is read
                if (values.isEmpty()) throw new Config.ConfigException("Module config specified without value");
                if (moduleConfigLine == 0) moduleConfigLine = -1;
                return;
            case "sentinel":
                // alone, the line is ignored (sentinel mode comes from the command line)
                if (!values.isEmpty()) throw new Config.ConfigException("sentinel directive while not in sentinel mode");
                return;
            default:
                throw new Config.ConfigException("Bad directive or wrong number of arguments");
        }
    }

    /** Options Redis 7.0 still reads and ignores (deprecatedConfig), with one value. */
    private static final Set<String> DEPRECATED_IGNORED = Set.of("list-max-ziplist-entries", "list-max-ziplist-value",
            "lua-replicate-commands");

    /** The first line that set a module's option (-1 while being read, 0 if none): no module can take it. */
    private int moduleConfigLine;
    private String moduleConfigText;

    private void applyOption(Config.Option o, List<String> values) throws Config.ConfigException {
        if (o.multiArg() && values.size() == 1 && !values.get(0).isEmpty()) {
            // one argument to an option of several is split at its spaces (save "900 1"); one
            // that does not split (unbalanced quotes) counts as none, as in Redis
            List<String> split = SplitArgs.split(values.get(0));
            values = split == null ? List.of() : split;
        }
        if (o.name.equals("replicaof")) {
            checkReplicaOf(values);
            boolean noOne = values.get(0).equalsIgnoreCase("no") && values.get(1).equalsIgnoreCase("one");
            // (the port as strtol read it: "+7000" or " 7000" are 7000, "" is 0)
            String port = values.get(1).trim();
            if (port.startsWith("+")) port = port.substring(1);
            config.apply(o, noOne ? "" : values.get(0) + " " + (port.isEmpty() ? 0 : Long.parseLong(port)));
            return;
        }
        String value;
        if (o.multiArg()) {
            // Repeated multi-argument directives (save, client-output-buffer-limit) accumulate.
            String joined = String.join(" ", values);
            if (multiArgSeen.add(o.name) || o.name.equals("bind") || o.name.equals("replicaof")
                    || joined.isEmpty()) {
                value = joined;
            } else {
                value = (o.value() + " " + joined).trim();
            }
        } else {
            value = values.get(0);
        }
        config.apply(o, config.validate(o, value));
    }

    /**
     * replicaof (slaveof): checked as Redis checks it, a host and a port of 0..65535 that strtol
     * reads whole, or "no one".
     */
    private static void checkReplicaOf(List<String> values) throws Config.ConfigException {
        if (values.size() != 2) throw new Config.ConfigException("wrong number of arguments");
        if (values.get(0).equalsIgnoreCase("no") && values.get(1).equalsIgnoreCase("one")) return;
        if (!strtolWhole(values.get(1), 0, 65535)) throw new Config.ConfigException("Invalid master port");
    }

    /** Whether C's strtol(s, &end, 10) reads all of s (leading blanks and a sign allowed; "" reads as 0) into [min, max]. */
    static boolean strtolWhole(String s, long min, long max) {
        int i = 0;
        int n = s.length();
        while (i < n && (s.charAt(i) == ' ' || (s.charAt(i) >= '\t' && s.charAt(i) <= '\r'))) i++;
        boolean negative = false;
        if (i < n && (s.charAt(i) == '+' || s.charAt(i) == '-')) negative = s.charAt(i++) == '-';
        int digits = i;
        long v = 0;
        while (i < n && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
            v = v * 10 + (s.charAt(i++) - '0');
            if (v > 1_000_000_000L) v = 1_000_000_000L; // far past any bound asked for
        }
        if (i == digits) return n == 0; // no digits: strtol stops at the start, so only "" is read whole
        if (i != n) return false;
        if (negative) v = -v;
        return v >= min && v <= max;
    }
}
