package io.spinel.core.config;

import io.spinel.core.util.Glob;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Every configuration option of Redis 7.0 ({@link ConfigRows}: name, alias, kind, flags, limits, default),
 * with Redis's validation and error texts, and the values Spinel runs with.
 *
 * <p>Options fall into three groups. <b>Supported</b> ones are read by the engine, which registers
 * a listener to apply changes. <b>Harmless</b> ones (tuning knobs, features whose absence no
 * client can observe) are accepted and noted in the log. Any other option is accepted only at its
 * default value: setting it to something else would make Spinel silently behave unlike the
 * configuration asks, so it is refused with a message naming the option.
 *
 * <p>Values are byte strings, one char per byte (ISO-8859-1), as Redis keeps them: what CONFIG SET
 * receives, what a config file holds and what CONFIG GET, CONFIG REWRITE and AUTH compare or write
 * back are the same bytes. A value that names a file is turned into the file system's string by
 * {@link #fileName} where the file is opened.
 */
public final class Config {
    /** A rejected value; the message is Redis's reason ("argument must be 'yes' or 'no'"). */
    public static final class ConfigException extends Exception {
        public ConfigException(String message) {
            super(message, null, false, false);
        }
    }

    /** One option. */
    public static final class Option {
        public final String name;
        public final String alias;
        public final String kind;
        final Set<String> flags;
        final String extra;
        public String defaultValue;
        String value;
        boolean supported;
        boolean harmless;
        Validator validator;
        final List<Consumer<Option>> listeners = new ArrayList<>();

        Option(String name, String alias, String kind, Set<String> flags, String extra, String defaultValue) {
            this.name = name;
            this.alias = alias;
            this.kind = kind;
            this.flags = flags;
            this.extra = extra;
            this.defaultValue = defaultValue;
            this.value = defaultValue;
        }

        public String value() {
            return value;
        }

        public boolean immutable() {
            return flags.contains("IMMUTABLE_CONFIG");
        }

        public boolean multiArg() {
            return flags.contains("MULTI_ARG_CONFIG");
        }

        public boolean hidden() {
            return flags.contains("HIDDEN_CONFIG");
        }

        public boolean sensitive() {
            return flags.contains("SENSITIVE_CONFIG");
        }

        /** CONFIG SET refuses it while the data set loads (appendonly, dir, repl-diskless-load). */
        public boolean deniedWhileLoading() {
            return flags.contains("DENY_LOADING_CONFIG");
        }

        public boolean isProtected() {
            return flags.contains("PROTECTED_CONFIG");
        }

        /** Redis applies it even when set to the value it has (its file options: certificates). */
        public boolean isVolatile() {
            return flags.contains("VOLATILE_CONFIG");
        }

        public boolean supported() {
            return supported;
        }

        /** A numeric option that takes memory units (written back as 10mb, 1gb...). */
        public boolean isMemory() {
            return extra.contains("MEMORY_CONFIG");
        }

        /** A numeric option that also takes a percentage ("10%"). */
        public boolean isPercent() {
            return extra.contains("PERCENT_CONFIG");
        }

        /** A numeric option written in octal (unixsocketperm). */
        public boolean isOctal() {
            return extra.contains("OCTAL_CONFIG");
        }

        /** A string option for which "" means unset (such options vanish from a rewritten file). */
        public boolean emptyIsUnset() {
            return extra.equals("EMPTY_STRING_IS_NULL");
        }
    }

    /** Extra validation and normalisation for special options; returns the canonical value. */
    public interface Validator {
        /** @param current the value now in force (multi-part options merge into it) */
        String validate(String value, String current) throws ConfigException;
    }

    private final Map<String, Option> byName = new LinkedHashMap<>();
    private final List<Option> options = new ArrayList<>();
    /** Options accepted at a non-default value although Spinel ignores them (for the log). */
    private final Set<String> ignoredInUse = new HashSet<>();

    public Config() {
        for (Row row : ROWS) {
            String[] f = row.fields;
            Option o = new Option(f[0], f[1].equals("-") ? null : f[1], f[2], row.flags, f[4],
                    f[5].equals("\\N") ? "" : f[5]);
            options.add(o);
            byName.put(o.name, o);
            if (o.alias != null) byName.put(o.alias, o);
        }
        ConfigSupport.install(this);
    }

    // the rows with their flags, once per JVM (reading them from a resource file was a third of
    // creating a server, which test suites that start a server per test pay every time)
    private static final List<Row> ROWS = readRows();

    private record Row(String[] fields, Set<String> flags) {
    }

    private static List<Row> readRows() {
        List<Row> rows = new ArrayList<>(ConfigRows.ROWS.length);
        for (String[] f : ConfigRows.ROWS) rows.add(new Row(f, Set.copyOf(Arrays.asList(f[3].split("\\|")))));
        return List.copyOf(rows);
    }

    /**
     * A trimmed value split at runs of whitespace, as {@code split("\\s+")} splits it ("" gives
     * one empty word), without compiling a regular expression at every call: config values are
     * validated at every server start, and an in-process server starts once per test.
     */
    public static String[] words(String trimmed) {
        if (trimmed.isEmpty()) return new String[] {""};
        List<String> out = new ArrayList<>();
        int i = 0;
        int n = trimmed.length();
        while (i < n) {
            while (i < n && isSpace(trimmed.charAt(i))) i++;
            int start = i;
            while (i < n && !isSpace(trimmed.charAt(i))) i++;
            if (i > start) out.add(trimmed.substring(start, i));
        }
        return out.toArray(new String[0]);
    }

    /** The regex class \s: space, tab, newline, vertical tab, form feed, carriage return. */
    private static boolean isSpace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == 0x0B || c == '\f' || c == '\r';
    }

    public Option option(String name) {
        return byName.get(name.toLowerCase(Locale.ROOT));
    }

    public Collection<Option> options() {
        return options;
    }

    /** Marks an option as implemented by Spinel, optionally with a special validator. */
    public void support(String name, Validator validator) {
        Option o = require(name);
        o.supported = true;
        o.validator = validator;
    }

    /** Sets the validator of an option without declaring it implemented. */
    public void normalizer(String name, Validator validator) {
        require(name).validator = validator;
    }

    public void support(String... names) {
        for (String n : names) require(n).supported = true;
    }

    /** Marks options whose value Spinel can ignore without any client noticing. */
    public void tolerate(String... names) {
        for (String n : names) require(n).harmless = true;
    }

    /** Calls the listener whenever the option's value changes (and once now with the current value). */
    public void listen(String name, Consumer<Option> listener) {
        Option o = require(name);
        o.listeners.add(listener);
        listener.accept(o);
    }

    /** Sets the default (and current) value, where Spinel's default differs from Redis's. */
    public void overrideDefault(String name, String value) {
        Option o = require(name);
        o.defaultValue = value;
        o.value = value;
    }

    private Option require(String name) {
        Option o = option(name);
        if (o == null) throw new IllegalArgumentException("no config option " + name);
        return o;
    }

    public String get(String name) {
        return require(name).value;
    }

    /** The file system's charset: how the JVM turns file names into the bytes the kernel sees. */
    private static final java.nio.charset.Charset FILE_NAMES = fileNameCharset();

    private static java.nio.charset.Charset fileNameCharset() {
        try {
            return java.nio.charset.Charset.forName(System.getProperty("sun.jnu.encoding", "UTF-8"));
        } catch (RuntimeException e) {
            return StandardCharsets.UTF_8;
        }
    }

    /** A value's bytes as a file name the JVM opens with those bytes (where the file system's charset can say them). */
    public static String fileName(String value) {
        for (int i = 0; i < value.length(); i++) {
            if (value.charAt(i) >= 0x80) return new String(value.getBytes(StandardCharsets.ISO_8859_1), FILE_NAMES);
        }
        return value;
    }

    /**
     * The reverse of {@link #fileName}: a file name (a canonical path), or a command-line argument
     * (the JVM decodes both with the same charset), as a value's bytes.
     */
    public static String valueOfFileName(String fileName) {
        for (int i = 0; i < fileName.length(); i++) {
            if (fileName.charAt(i) >= 0x80) return new String(fileName.getBytes(FILE_NAMES), StandardCharsets.ISO_8859_1);
        }
        return fileName;
    }

    public long getLong(String name) {
        String v = get(name);
        if (v.endsWith("%")) return -Long.parseLong(v.substring(0, v.length() - 1));
        // an unsigned value past Long.MAX_VALUE (maxmemory 16eb) is as good as unlimited
        if (v.length() >= 19 && !v.startsWith("-") && Long.compareUnsigned(Long.parseUnsignedLong(v), Long.MAX_VALUE) > 0) {
            return Long.MAX_VALUE;
        }
        return Long.parseLong(v);
    }

    public int getInt(String name) {
        return (int) getLong(name);
    }

    public boolean getBool(String name) {
        return get(name).equals("yes");
    }

    /** Names of ignored options that were set to a non-default value. */
    public Set<String> ignoredInUse() {
        return ignoredInUse;
    }

    /** Options matching a CONFIG GET pattern (names and aliases; hidden ones only by exact name). */
    public Map<String, Option> matching(String pattern) {
        Map<String, Option> out = new LinkedHashMap<>();
        String lower = pattern.toLowerCase(Locale.ROOT);
        boolean isGlob = lower.indexOf('*') >= 0 || lower.indexOf('?') >= 0 || lower.indexOf('[') >= 0;
        if (!isGlob) {
            Option o = byName.get(lower);
            if (o != null) out.put(lower, o);
            return out;
        }
        byte[] p = lower.getBytes(StandardCharsets.UTF_8);
        for (Map.Entry<String, Option> e : byName.entrySet()) {
            if (e.getValue().hidden()) continue;
            if (Glob.match(p, e.getKey().getBytes(StandardCharsets.UTF_8), true)) out.put(e.getKey(), e.getValue());
        }
        return out;
    }

    // ---- setting ------------------------------------------------------------------------------

    /**
     * Validates a value and returns its canonical form without storing it. For multi-argument
     * options the value is the arguments joined by spaces.
     */
    public String validate(Option o, String raw) throws ConfigException {
        String v = normalise(o, raw);
        if (o.validator != null) v = o.validator.validate(v, o.value);
        if (!o.supported && !o.harmless && !v.equals(o.defaultValue) && !v.equals(o.value)) {
            throw new ConfigException("Spinel does not implement '" + o.name + "' yet; only its default value ("
                    + (o.defaultValue.isEmpty() ? "empty" : "'" + o.defaultValue + "'") + ") is accepted");
        }
        return v;
    }

    /** Stores a validated value and tells the listeners. */
    public void apply(Option o, String canonical) {
        boolean changed = !canonical.equals(o.value);
        String old = o.value;
        o.value = canonical;
        if (!o.supported && o.harmless) {
            if (!canonical.equals(o.defaultValue)) ignoredInUse.add(o.name);
            else ignoredInUse.remove(o.name);
        }
        try {
            if (changed) for (Consumer<Option> l : o.listeners) l.accept(o);
        } catch (RuntimeException e) {
            // the change could not be applied (e.g. a port already in use): the option keeps its value
            o.value = old;
            throw e;
        }
    }

    public void set(String name, String value) throws ConfigException {
        Option o = option(name);
        if (o == null) throw new ConfigException("Unknown option '" + name + "'");
        apply(o, validate(o, value));
    }

    private String normalise(Option o, String v) throws ConfigException {
        switch (o.kind) {
            case "bool": {
                String l = v.toLowerCase(Locale.ROOT);
                if (!l.equals("yes") && !l.equals("no")) throw new ConfigException("argument must be 'yes' or 'no'");
                return l;
            }
            case "enum": {
                String[] choices = o.extra.split("\\|");
                if (o.multiArg()) {
                    String canonical = flagNames(choices, v);
                    if (canonical != null) return canonical;
                } else {
                    for (String c : choices) if (c.equalsIgnoreCase(v)) return c;
                }
                throw new ConfigException("argument(s) must be one of the following: " + String.join(", ", choices));
            }
            case "string":
            case "sds":
            case "special":
                return v;
            default: {
                long n = parseNumeric(o, v);
                // an unsigned option (maxmemory) holds values past Long.MAX_VALUE, printed as such
                if (n < 0 && isUnsigned(o)) return Long.toUnsignedString(n);
                return Long.toString(n).replaceFirst("^-(\\d+)$", o.extra.contains("PERCENT_CONFIG") ? "$1%" : "-$1");
            }
        }
    }

    /**
     * A multi-argument enum (shutdown-on-sigterm) is a set of flags after a first "no flags"
     * choice: Redis prints the flags given in the order of its list, or the first choice when
     * none is set. Null when a word is not a choice.
     */
    private static String flagNames(String[] choices, String v) {
        String t = v.trim();
        if (t.isEmpty()) return null;
        boolean[] set = new boolean[choices.length];
        for (String word : words(t)) {
            int found = -1;
            for (int i = 0; i < choices.length; i++) if (choices[i].equalsIgnoreCase(word)) found = i;
            if (found < 0) return null;
            set[found] = true;
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 1; i < choices.length; i++) {
            if (!set[i]) continue;
            if (sb.length() > 0) sb.append(' ');
            sb.append(choices[i]);
        }
        return sb.length() == 0 ? choices[0] : sb.toString();
    }

    private static long parseNumeric(Option o, String v) throws ConfigException {
        String[] p = o.extra.split(":");
        String numType = p[2];
        boolean memory = numType.contains("MEMORY_CONFIG");
        boolean percent = numType.contains("PERCENT_CONFIG");
        boolean octal = numType.contains("OCTAL_CONFIG");
        Long parsed = null;
        if (memory) parsed = memToLong(v);
        if (parsed == null && percent && v.length() > 1 && v.endsWith("%")) {
            Long n = strictLong(v.substring(0, v.length() - 1));
            if (n != null && n >= 0) parsed = -n;
        }
        if (parsed == null && octal) {
            try {
                parsed = Long.parseLong(v, 8);
            } catch (NumberFormatException ignored) {
                // fall through to the error below
            }
        }
        if (parsed == null && !memory && !percent && !octal) parsed = strictLong(v);
        if (parsed == null) {
            if (memory && percent) throw new ConfigException("argument must be a memory or percent value");
            if (memory) throw new ConfigException("argument must be a memory value");
            if (octal) throw new ConfigException("argument couldn't be parsed as an octal number");
            throw new ConfigException("argument couldn't be parsed into an integer");
        }
        long val = parsed;
        long min = bound(p[0]);
        long max = bound(p[1]);
        boolean unsigned = isUnsigned(o);
        if (percent && val < 0) {
            if (val < min) throw new ConfigException("percentage argument must be less or equal to " + (-min));
        } else if (unsigned ? Long.compareUnsigned(val, max) > 0 || Long.compareUnsigned(val, min) < 0
                : val > max || val < min) {
            if (octal) {
                throw new ConfigException("argument must be between " + Long.toOctalString(min) + " and "
                        + Long.toOctalString(max) + " inclusive");
            }
            throw new ConfigException("argument must be between " + (unsigned ? Long.toUnsignedString(min) : min)
                    + " and " + (unsigned ? Long.toUnsignedString(max) : max) + " inclusive");
        }
        return val;
    }

    private static boolean isUnsigned(Option o) {
        return o.kind.startsWith("u") || o.kind.equals("sizet");
    }

    private static Long strictLong(String s) {
        byte[] b = s.getBytes(StandardCharsets.ISO_8859_1);
        try {
            return io.spinel.core.util.Bytes.parseLong(b, 0, b.length);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** Redis's memtoull: digits with an optional unit (b, k, kb, m, mb, g, gb), no sign. */
    public static Long memToLong(String v) {
        int i = 0;
        if (v.startsWith("-")) return null;
        while (i < v.length() && Character.isDigit(v.charAt(i))) i++;
        String unit = v.substring(i).toLowerCase(Locale.ROOT);
        long mul;
        switch (unit) {
            case "":
            case "b": mul = 1; break;
            case "k": mul = 1000; break;
            case "kb": mul = 1024; break;
            case "m": mul = 1000L * 1000; break;
            case "mb": mul = 1024L * 1024; break;
            case "g": mul = 1000L * 1000 * 1000; break;
            case "gb": mul = 1024L * 1024 * 1024; break;
            default: return null;
        }
        // no digits at all ("", "mb") is 0, as strtoull gives Redis
        if (i == 0) return 0L;
        try {
            return Math.multiplyExact(Long.parseUnsignedLong(v.substring(0, i)), mul);
        } catch (NumberFormatException | ArithmeticException e) {
            return null;
        }
    }

    private static long bound(String s) {
        switch (s) {
            case "INT_MAX": return Integer.MAX_VALUE;
            case "INT_MIN": return Integer.MIN_VALUE;
            case "UINT_MAX": return 0xFFFFFFFFL;
            case "LONG_MAX":
            case "LLONG_MAX":
            case "SSIZE_MAX": return Long.MAX_VALUE;
            case "LONG_MIN":
            case "LLONG_MIN": return Long.MIN_VALUE;
            case "ULONG_MAX":
            case "ULLONG_MAX":
            case "SIZE_MAX": return -1L; // all ones, compared unsigned
            default:
                break;
        }
        long r = 1;
        for (String part : s.split("\\*")) {
            String t = part.trim().replace("(", "").replace(")", "").replaceAll("[LU]+$", "");
            if (t.startsWith("-")) {
                r = -r;
                t = t.substring(1);
            }
            r *= t.startsWith("0") && t.length() > 1 ? Long.parseLong(t, 8) : Long.parseLong(t);
        }
        return r;
    }
}
