package io.spinel.server;

import io.spinel.core.command.CommandRenames;
import io.spinel.core.config.Config;
import io.spinel.core.protocol.SplitArgs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashSet;
import java.util.LinkedHashSet;
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

        /** The report redis-server prints before exiting. */
        public String report(String version) {
            return "\n*** FATAL CONFIG FILE ERROR (Spinel " + version + ") ***\n"
                    + "Reading the configuration file, at line " + lineNumber + "\n"
                    + ">>> '" + line + "'\n"
                    + reason;
        }
    }

    private final Config config;
    /** rename-command directives, each checked at its line. */
    private final CommandRenames renames = new CommandRenames();
    private final Set<String> multiArgSeen = new HashSet<>();
    /** The "user default ..." line, checked against requirepass once everything is loaded. */
    private DefaultUserLine defaultUser;
    /** The payload flag of the default user, as ACL rules name it ("" when no user line set one). */
    private String defaultUserPayloadFlag = "";

    private static final class DefaultUserLine {
        final int lineNumber;
        final String line;
        final List<String> rules;

        DefaultUserLine(int lineNumber, String line, List<String> rules) {
            this.lineNumber = lineNumber;
            this.line = line;
            this.rules = rules;
        }
    }

    public ConfigLoader(Config config) {
        this.config = config;
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
        for (String a : args) {
            if (a.startsWith("--") && a.length() > 2) {
                if (haveOption) sb.append('\n');
                sb.append(a.substring(2));
                haveOption = true;
            } else {
                if (!haveOption) throw new ConfigError(0, a, "Invalid option: arguments must follow a --name option");
                sb.append(' ').append(quote(Config.valueOfFileName(a))); // the argument's bytes
            }
        }
        if (haveOption) sb.append('\n');
        return sb.toString();
    }

    /** Quotes a value's bytes like sdscatrepr: printable chars as is, the rest escaped, inside double quotes. */
    static String quote(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (byte b : s.getBytes(StandardCharsets.ISO_8859_1)) {
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
        // one char per byte: values are the file's bytes (Config)
        load(new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1), file.getParent());
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
            if (name.equals("user") && !values.isEmpty()) {
                declareUser(i + 1, raw, values);
                continue;
            }
            try {
                apply(name, values, base);
            } catch (Config.ConfigException e) {
                throw new ConfigError(i + 1, raw, e.getMessage());
            }
        }
    }

    /**
     * Spinel has one user, "default", whose password is requirepass. A "user default" line (as
     * CONFIG REWRITE writes it, in Redis and in Spinel) is accepted when it describes that user;
     * whether it agrees with requirepass is checked by {@link #checkUsers()} once all lines are
     * read, since either may come first.
     */
    private void declareUser(int lineNumber, String raw, List<String> values) throws ConfigError {
        if (!values.get(0).equals("default")) {
            throw new ConfigError(lineNumber, raw, "Spinel has only the default user: ACL users ('user "
                    + values.get(0) + "') are not supported yet");
        }
        if (defaultUser != null) {
            throw new ConfigError(lineNumber, raw, "Error in user declaration 'default': Duplicate user found. "
                    + "A user can only be defined once in config files");
        }
        defaultUser = new DefaultUserLine(lineNumber, raw, List.copyOf(values.subList(1, values.size())));
    }

    /**
     * Applies the rules of the "user default" line, as Redis does on a reset user, and checks the
     * result is what Spinel's single user can be: on, all keys, all channels, all commands, and
     * no password when requirepass is empty, else requirepass as its only password.
     */
    public void checkUsers() throws ConfigError {
        if (defaultUser == null) return;
        DefaultUserLine u = defaultUser;
        // a user line starts from a reset user: off, no password, no access, sanitize-payload
        boolean channelsByDefault = config.get("acl-pubsub-default").equals("allchannels");
        boolean on = false;
        boolean nopass = false;
        boolean allKeys = false;
        boolean allChannels = channelsByDefault;
        boolean allCommands = false;
        String payloadFlag = "sanitize-payload";
        Set<String> hashes = new LinkedHashSet<>();
        for (String rule : u.rules) {
            String r = rule.toLowerCase(Locale.ROOT);
            if (r.equals("reset")) {
                on = nopass = allKeys = allCommands = false;
                allChannels = channelsByDefault;
                payloadFlag = "sanitize-payload";
                hashes.clear();
            } else if (r.equals("sanitize-payload") || r.equals("skip-sanitize-payload")) {
                payloadFlag = r;
            } else if (r.equals("on") || r.equals("off")) {
                on = r.equals("on");
            } else if (r.equals("nopass")) {
                nopass = true;
                hashes.clear();
            } else if (r.equals("resetpass")) {
                nopass = false;
                hashes.clear();
            } else if (rule.startsWith(">") || rule.startsWith("<")) {
                String h = sha256Hex(rule.substring(1));
                if (rule.charAt(0) == '>') {
                    hashes.add(h);
                    nopass = false;
                } else {
                    hashes.remove(h);
                }
            } else if (rule.startsWith("#") || rule.startsWith("!")) {
                String h = rule.substring(1);
                if (!h.matches("[0-9a-f]{64}")) {
                    throw new ConfigError(u.lineNumber, u.line, "Error in user declaration '" + rule + "': The password "
                            + "hash must be exactly 64 characters and contain only lowercase hexadecimal characters");
                }
                if (rule.charAt(0) == '#') {
                    hashes.add(h);
                    nopass = false;
                } else {
                    hashes.remove(h);
                }
            } else if (r.equals("~*") || r.equals("allkeys") || r.equals("resetkeys")) {
                allKeys = !r.equals("resetkeys");
            } else if (r.equals("&*") || r.equals("allchannels") || r.equals("resetchannels")) {
                allChannels = !r.equals("resetchannels");
            } else if (r.equals("+@all") || r.equals("allcommands") || r.equals("-@all") || r.equals("nocommands")) {
                allCommands = r.equals("+@all") || r.equals("allcommands");
            } else {
                throw new ConfigError(u.lineNumber, u.line, "ACL rule '" + rule + "' is not supported by Spinel: "
                        + "its only user is 'default', with full access ('on ~* &* +@all')");
            }
        }
        if (!on || !allKeys || !allChannels || !allCommands) {
            throw new ConfigError(u.lineNumber, u.line, "Spinel's only user is 'default', with full access: "
                    + "its rules must give 'on ~* &* +@all'");
        }
        String requirepass = config.get("requirepass");
        boolean agrees = requirepass.isEmpty() ? nopass && hashes.isEmpty()
                : !nopass && hashes.equals(Set.of(sha256Hex(requirepass)));
        if (!agrees) {
            throw new ConfigError(u.lineNumber, u.line, (requirepass.isEmpty()
                    ? "the default user must be 'nopass' as requirepass is not set"
                    : "the default user's only password must be the requirepass one")
                    + ": Spinel keeps the default user's password in requirepass");
        }
        defaultUserPayloadFlag = payloadFlag;
    }

    /**
     * "sanitize-payload" or "skip-sanitize-payload" when a user line gave the default user that
     * flag, else "": Redis's description of the user (and so CONFIG REWRITE's user line) shows it.
     */
    public String defaultUserPayloadFlag() {
        return defaultUserPayloadFlag;
    }

    /** The lower-case hex SHA-256 of a password, as ACL rules name it ("#..."). */
    static String sha256Hex(String password) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(password.getBytes(StandardCharsets.ISO_8859_1));
            StringBuilder sb = new StringBuilder(64);
            for (byte b : d) sb.append(Character.forDigit((b >> 4) & 0xf, 16)).append(Character.forDigit(b & 0xf, 16));
            return sb.toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    private void apply(String name, List<String> values, Path base) throws Config.ConfigException, ConfigError {
        switch (name) {
            case "include":
                if (values.size() != 1) throw new Config.ConfigException("Bad directive or wrong number of arguments");
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
                if (values.size() != 2) throw new Config.ConfigException("Bad directive or wrong number of arguments");
                try {
                    renames.add(values.get(0), values.get(1));
                } catch (IllegalArgumentException e) {
                    throw new Config.ConfigException(e.getMessage());
                }
                return;
            case "loadmodule":
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
