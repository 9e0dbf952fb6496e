package io.spinel.server;

import io.spinel.core.config.Config;
import io.spinel.core.protocol.SplitArgs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
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

        /** The report redis-server prints before exiting. */
        public String report(String version) {
            return "\n*** FATAL CONFIG FILE ERROR (Spinel " + version + ") ***\n"
                    + "Reading the configuration file, at line " + lineNumber + "\n"
                    + ">>> '" + line + "'\n"
                    + reason;
        }
    }

    private final Config config;
    /** rename-command directives: original lower-case name to new name ("" disables). */
    private final Map<String, String> renames = new LinkedHashMap<>();
    private final Set<String> multiArgSeen = new HashSet<>();

    public ConfigLoader(Config config) {
        this.config = config;
    }

    public Map<String, String> renames() {
        return renames;
    }

    /**
     * Turns command-line options ({@code --port 7000 --save ""}) into config lines, quoting each
     * argument as Redis does so spaces and empty strings survive.
     */
    public static String optionsToConfig(List<String> args) throws ConfigError {
        StringBuilder sb = new StringBuilder();
        boolean haveOption = false;
        for (String a : args) {
            if (a.startsWith("--") && a.length() > 2) {
                if (haveOption) sb.append('\n');
                sb.append(a.substring(2));
                haveOption = true;
            } else {
                if (!haveOption) throw new ConfigError(0, a, "Invalid option: arguments must follow a --name option");
                sb.append(' ').append(quote(a));
            }
        }
        if (haveOption) sb.append('\n');
        return sb.toString();
    }

    /** Quotes like sdscatrepr: printable chars as is, the rest escaped, inside double quotes. */
    static String quote(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            switch (c) {
                case '\\': sb.append("\\\\"); break;
                case '"': sb.append("\\\""); break;
                case '\n': sb.append("\\n"); break;
                case '\r': sb.append("\\r"); break;
                case '\t': sb.append("\\t"); break;
                case 7: sb.append("\\a"); break;
                case '\b': sb.append("\\b"); break;
                default:
                    if (c >= 0x20 && c < 0x7f) sb.append((char) c);
                    else sb.append(String.format("\\x%02x", c));
            }
        }
        return sb.append('"').toString();
    }

    /** Loads a file (with its includes). */
    public void loadFile(Path file) throws ConfigError, IOException {
        load(Files.readString(file, StandardCharsets.UTF_8), file.getParent());
    }

    /** Parses config text; {@code base} resolves relative include paths (may be null). */
    public void load(String text, Path base) throws ConfigError {
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String raw = lines[i];
            String line = raw.trim();
            if (line.isEmpty() || line.startsWith("#")) continue;
            List<String> argv = SplitArgs.split(line);
            if (argv == null) throw new ConfigError(i + 1, raw, "Unbalanced quotes in configuration line");
            if (argv.isEmpty()) continue;
            String name = argv.get(0).toLowerCase(Locale.ROOT);
            List<String> values = argv.subList(1, argv.size());
            try {
                apply(name, values, base);
            } catch (Config.ConfigException e) {
                throw new ConfigError(i + 1, raw, e.getMessage());
            }
        }
    }

    private void apply(String name, List<String> values, Path base) throws Config.ConfigException, ConfigError {
        switch (name) {
            case "include":
                if (values.size() != 1) throw new Config.ConfigException("Bad directive or wrong number of arguments");
                Path p = Path.of(values.get(0));
                if (!p.isAbsolute() && base != null) p = base.resolve(p);
                try {
                    loadFile(p);
                } catch (IOException e) {
                    throw new Config.ConfigException("Fatal error, can't open config file '" + values.get(0) + "': "
                            + e.getMessage());
                }
                return;
            case "rename-command":
                if (values.size() != 2) throw new Config.ConfigException("Bad directive or wrong number of arguments");
                renames.put(values.get(0).toLowerCase(Locale.ROOT), values.get(1));
                return;
            case "loadmodule":
            case "user":
            case "sentinel":
                throw new Config.ConfigException("'" + name + "' is not supported by Spinel yet");
            default:
                break;
        }
        Config.Option o = config.option(name);
        if (o == null || values.isEmpty() || (!o.multiArg() && values.size() != 1)) {
            throw new Config.ConfigException("Bad directive or wrong number of arguments");
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
}
