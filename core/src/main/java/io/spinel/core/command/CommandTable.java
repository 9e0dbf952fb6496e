package io.spinel.core.command;

import io.spinel.core.protocol.Args;
import io.spinel.core.util.Bytes;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The command table. Metadata for every Redis 7.0 command comes from commands.tsv (name, arity,
 * flags, first/last/step, ACL categories, tips, key specs, group, since); each command family
 * registers handlers for the commands it implements. Only commands with a handler exist as far as
 * clients can tell: unknown-command errors, COMMAND COUNT/LIST/INFO all see the implemented set.
 *
 * <p>Lookup by name is case-insensitive and allocation-free: a small open-addressing table keyed
 * by the lower-cased name bytes.
 */
public final class CommandTable {
    /** Top-level commands by name, in name order (filled in the sorted order of {@link #SPECS}). */
    private final Map<String, Command> all = new LinkedHashMap<>(512);
    private final Map<String, Command> aliasesRenamed = new HashMap<>();
    // lookup index, rebuilt on the first lookup after registrations changed (null until then):
    // rebuilding at every registration made building a table quadratic, a third of start-up time
    private Command[] index;
    private byte[][] indexNames = new byte[0][];
    private int indexMask;

    public CommandTable() {
        // (a table per server, and an in-process server per test: hash maps filled in name order
        // instead of tree maps, and names split once per JVM, halved the cost of building one)
        for (Spec m : SPECS) {
            Command parent = m.parentName == null ? null : all.get(m.parentName);
            Command c = new Command(m.name, m.arity, m.flags, m.flagNames, m.firstKey, m.lastKey, m.keyStep,
                    m.aclCategories, m.tips, m.keySpecs, m.group, m.since, parent);
            if (parent != null) parent.addSubcommand(m.subName, c);
            else all.put(m.name, c);
        }
    }

    /** One line of commands.tsv, parsed; immutable, so every table (every server) shares them. */
    private record Spec(String name, int arity, int flags, List<String> flagNames, int firstKey, int lastKey,
                        int keyStep, List<String> aclCategories, List<String> tips, List<KeySpec> keySpecs,
                        String group, String since, String parentName, String subName) {
    }

    // Parsed once per JVM: reading and splitting the file was most of the cost of creating a
    // server, which a test suite starting one server per test pays every time.
    private static final List<Spec> SPECS = load();

    private static List<Spec> load() {
        InputStream in = CommandTable.class.getResourceAsStream("commands.tsv");
        if (in == null) throw new IllegalStateException("commands.tsv missing from the classpath");
        List<Spec> specs = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                if (line.isEmpty() || line.startsWith("#")) continue;
                String[] f = line.split("\t", -1);
                String name = f[0];
                List<String> flagNames = list(f[2]);
                int flags = 0;
                for (String fl : flagNames) flags |= CommandFlags.parse(fl);
                // Redis's "protected" commands (enable-debug-command / enable-module-command)
                if (name.equals("debug") || name.equals("module|load") || name.equals("module|loadex")
                        || name.equals("module|unload")) {
                    flags |= CommandFlags.PROTECTED;
                }
                List<KeySpec> keySpecs = new ArrayList<>();
                if (!f[8].equals("-")) for (String ks : f[8].split(";")) keySpecs.add(KeySpec.parse(ks));
                int bar = name.indexOf('|');
                specs.add(new Spec(name, Integer.parseInt(f[1]), flags, flagNames, Integer.parseInt(f[3]),
                        Integer.parseInt(f[4]), Integer.parseInt(f[5]), list(f[6]), list(f[7]),
                        List.copyOf(keySpecs), f[9], f[10], bar > 0 ? name.substring(0, bar) : null,
                        bar > 0 ? name.substring(bar + 1) : null));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        // name order: a container comes before its subcommands ("config" < "config|get"), and
        // the maps filled in this order iterate in it (COMMAND, INFO commandstats...)
        specs.sort(java.util.Comparator.comparing(Spec::name));
        return List.copyOf(specs);
    }

    private static List<String> list(String s) {
        return s.equals("-") ? List.of() : List.of(s.split(","));
    }

    /** Attaches the handler for a command ("get") or subcommand ("config|get"). */
    public void register(String fullName, CommandHandler handler) {
        Command c = spec(fullName);
        if (c == null) throw new IllegalArgumentException("no Redis command named " + fullName);
        c.eagerly(handler);
        index = null;
    }

    /**
     * Where a family's handlers come from when they are made on first use: the handler for a full
     * command name, or null if the family has none by that name; and, for the few commands that
     * have them, what the key specs alone cannot say (made at the same time, on first need).
     */
    public interface HandlerSource {
        CommandHandler handler(String fullName);

        /** Finds keys where the key specs cannot (Redis's getkeys_proc), or null. */
        default Command.KeysFinder keysFinder(String fullName) {
            return null;
        }

        /** The flags of the keys of a call where the key specs cannot give them, or null. */
        default Command.KeyFlags keyFlags(String fullName) {
            return null;
        }

        /** Command flags that depend on the call (EVAL and FCALL take the script's), or null. */
        default Command.DynamicFlags dynamicFlags(String fullName) {
            return null;
        }
    }

    /**
     * Registers commands whose handlers the family makes when each first runs. A handler written
     * as a lambda or method reference costs a class the JVM spins when the expression is first
     * evaluated; registering some 330 of them eagerly was a third of a server's first start in a
     * fresh JVM, for commands most servers never see. (The family's own class, too, is loaded and
     * verified only then: see CommandFamilies.)
     */
    public void registerLazily(HandlerSource family, String... fullNames) {
        for (String fullName : fullNames) {
            Command c = spec(fullName);
            if (c == null) throw new IllegalArgumentException("no Redis command named " + fullName);
            c.lazily(family);
        }
        index = null;
    }

    /** The metadata of a command or subcommand, implemented or not. */
    public Command spec(String fullName) {
        int bar = fullName.indexOf('|');
        if (bar < 0) return all.get(fullName);
        Command parent = all.get(fullName.substring(0, bar));
        return parent == null ? null : parent.subcommandSpec(fullName.substring(bar + 1));
    }

    private void rebuildIndex() {
        List<Command> implemented = new ArrayList<>();
        for (Command c : all.values()) if (c.implemented()) implemented.add(c);
        int cap = Integer.highestOneBit(Math.max(4, implemented.size() * 4) - 1) << 1;
        index = new Command[cap];
        indexNames = new byte[cap][];
        indexMask = cap - 1;
        for (Command c : implemented) {
            byte[] n = Bytes.ascii(c.name);
            int i = hashLower(n, 0, n.length) & indexMask;
            while (index[i] != null) i = (i + 1) & indexMask;
            index[i] = c;
            indexNames[i] = n;
        }
    }

    private static int hashLower(byte[] b, int off, int len) {
        int h = len;
        for (int i = 0; i < len; i++) {
            int c = b[off + i];
            if (c >= 'A' && c <= 'Z') c += 32;
            h = h * 31 + c;
        }
        return h ^ (h >>> 16);
    }

    /** The implemented top-level command with this name (any case), or null. */
    public Command lookup(byte[] b, int off, int len) {
        Command[] idx = index;
        if (idx == null) {
            rebuildIndex();
            idx = index;
        }
        int i = hashLower(b, off, len) & indexMask;
        while (true) {
            Command c = idx[i];
            if (c == null) return null;
            if (Bytes.equalsIgnoreCase(b, off, len, indexNames[i])) return c;
            i = (i + 1) & indexMask;
        }
    }

    public Command lookup(String name) {
        byte[] b = Bytes.ascii(name);
        return lookup(b, 0, b.length);
    }

    /**
     * Resolves the command of a request (Redis's lookupCommand): the top-level command, or its
     * subcommand when it is a container and there is a second argument. Returns null if unknown;
     * a container with an unknown subcommand also gives null (see {@link #isContainer}).
     */
    public Command resolve(Args args) {
        Command c = lookup(args.buf(0), args.off(0), args.len(0));
        if (c == null || !c.isContainer() || args.count() == 1) return c;
        String sub = Bytes.toLowerAscii(args.buf(1), args.off(1), args.len(1));
        return c.subcommand(sub);
    }

    public boolean isContainer(byte[] b, int off, int len) {
        Command c = lookup(b, off, len);
        return c != null && c.isContainer();
    }

    /** Implemented top-level commands, by name. */
    public List<Command> commands() {
        List<Command> out = new ArrayList<>();
        for (Command c : all.values()) if (c.implemented()) out.add(c);
        return out;
    }

    /** Every top-level command known from Redis's table, implemented or not (for coverage docs). */
    public Collection<Command> allKnown() {
        return all.values();
    }

    public void resetStats() {
        for (Command c : all.values()) c.resetStats();
    }

    @Override
    public String toString() {
        return "CommandTable" + Arrays.toString(commands().toArray());
    }
}
