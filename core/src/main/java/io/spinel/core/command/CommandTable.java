package io.spinel.core.command;

import io.spinel.core.protocol.Args;
import io.spinel.core.util.Bytes;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The command table. Metadata for every Redis 7.0 command comes from {@link CommandRows} (name, arity,
 * flags, first/last/step, ACL categories, tips, key specs, group, since); each command family
 * registers handlers for the commands it implements. Only commands with a handler exist as far as
 * clients can tell: unknown-command errors, COMMAND COUNT/LIST/INFO all see the implemented set.
 *
 * <p>Lookup by name is case-insensitive and allocation-free: a small open-addressing table keyed
 * by the lower-cased name bytes.
 */
public final class CommandTable {
    /**
     * This table's commands, one per row of {@link CommandRows} in name order (subcommands included, at
     * the index of their {@link Spec}), made on first need: a server that runs a few commands
     * makes a few. Everything that only depends on Redis's table (the name index, which commands
     * are containers of which) is built once per JVM and shared: a table per server, and an
     * in-process server per test, made building 368 commands, their hash maps and a lookup index
     * a fifth of a warm start.
     */
    private final Command[] commands = new Command[SPECS.length];
    /** What was registered for a command not made yet: its CommandHandler or HandlerSource. */
    private final Object[] registered = new Object[SPECS.length];
    /**
     * rename-command: the top-level commands no longer found by their own name (by index in
     * SPECS), and the new names they are found by instead (lower case, with their SPECS index).
     * Null and empty until a rename, so that lookups pay one null test.
     */
    private boolean[] renamedAway;
    private byte[][] newNames = new byte[0][];
    private int[] newNameSpecs = new int[0];

    public CommandTable() {
    }

    /** The command at index i of SPECS, made (with its container and siblings) if it was not yet. */
    private Command command(int i) {
        Command c = commands[i];
        if (c != null) return c;
        int parent = SPECS[i].parent;
        if (parent >= 0) {
            command(parent); // makes its subcommands, i among them
            return commands[i];
        }
        c = make(i, null);
        int container = Arrays.binarySearch(CONTAINERS, i);
        if (container >= 0) {
            int[] subs = SUBCOMMANDS[container];
            Command[] sub = new Command[subs.length];
            for (int k = 0; k < subs.length; k++) sub[k] = make(subs[k], c);
            c.setSubcommands(sub, SUBCOMMAND_NAMES[container]);
        }
        return c;
    }

    private Command make(int i, Command parent) {
        Spec m = SPECS[i];
        Command c = new Command(m.name, m.arity, m.flags, m.flagNames, m.firstKey, m.lastKey, m.keyStep,
                m.aclCategories, m.tips, m.keySpecs, m.group, m.since, parent, i);
        Object r = registered[i];
        if (r instanceof HandlerSource) c.lazily((HandlerSource) r);
        else if (r != null) c.eagerly((CommandHandler) r);
        registered[i] = null;
        commands[i] = c;
        return c;
    }

    /** Whether the command at index i (or one of its subcommands) has a handler, without making it. */
    private boolean implemented(int i) {
        Command c = commands[i];
        if (c != null) return c.implemented();
        if (registered[i] != null) return true;
        int container = Arrays.binarySearch(CONTAINERS, i);
        if (container >= 0) for (int sub : SUBCOMMANDS[container]) if (implemented(sub)) return true;
        return false;
    }

    private int indexOf(String fullName) {
        Integer i = BY_NAME.get(fullName);
        if (i == null) throw new IllegalArgumentException("no Redis command named " + fullName);
        return i;
    }

    /** One row of {@link CommandRows}, parsed; immutable, so every table (every server) shares them. */
    private record Spec(String name, int arity, int flags, List<String> flagNames, int firstKey, int lastKey,
                        int keyStep, List<String> aclCategories, List<String> tips, List<KeySpec> keySpecs,
                        String group, String since, String parentName, String subName, int parent) {
    }

    // Parsed once per JVM: reading and splitting the file was most of the cost of creating a
    // server, which a test suite starting one server per test pays every time.
    private static final Spec[] SPECS = load();
    /** Full name ("get", "config|get") to index in {@link #SPECS}. */
    private static final Map<String, Integer> BY_NAME = new HashMap<>(SPECS.length * 2);
    /** Indexes of the top-level commands, in name order. */
    private static final int[] TOP_LEVEL;
    /** Indexes of the containers, and for each its subcommands' indexes and short names, in name order. */
    private static final int[] CONTAINERS;
    private static final int[][] SUBCOMMANDS;
    private static final String[][] SUBCOMMAND_NAMES;
    // Lookup of top-level names in any case without allocating: open addressing on the
    // lower-cased name bytes, giving the index in SPECS (-1: empty slot).
    private static final int[] INDEX;
    private static final byte[][] INDEX_NAMES;
    private static final int INDEX_MASK;

    static {
        // (plain loops: a lambda or stream here is a class spun at every first start)
        int tops = 0, containers = 0;
        int[] childCount = new int[SPECS.length];
        for (int i = 0; i < SPECS.length; i++) {
            Spec m = SPECS[i];
            BY_NAME.put(m.name, i);
            if (m.parent < 0) {
                tops++;
            } else if (childCount[m.parent]++ == 0) {
                containers++;
            }
        }
        TOP_LEVEL = new int[tops];
        CONTAINERS = new int[containers];
        SUBCOMMANDS = new int[containers][];
        SUBCOMMAND_NAMES = new String[containers][];
        int t = 0, c = -1;
        for (int i = 0; i < SPECS.length; i++) {
            Spec m = SPECS[i];
            if (m.parent < 0) {
                TOP_LEVEL[t++] = i;
                continue;
            }
            // in name order a container's subcommands are contiguous (they share the prefix "name|")
            if (c < 0 || CONTAINERS[c] != m.parent) {
                c++;
                CONTAINERS[c] = m.parent;
                SUBCOMMANDS[c] = new int[childCount[m.parent]];
                SUBCOMMAND_NAMES[c] = new String[childCount[m.parent]];
                childCount[m.parent] = 0;
            }
            int k = childCount[m.parent]++;
            SUBCOMMANDS[c][k] = i;
            SUBCOMMAND_NAMES[c][k] = m.subName;
        }
        int cap = Integer.highestOneBit(Math.max(4, TOP_LEVEL.length * 4) - 1) << 1;
        INDEX = new int[cap];
        Arrays.fill(INDEX, -1);
        INDEX_NAMES = new byte[cap][];
        INDEX_MASK = cap - 1;
        for (int top : TOP_LEVEL) {
            byte[] n = Bytes.ascii(SPECS[top].name);
            int i = hashLower(n, 0, n.length) & INDEX_MASK;
            while (INDEX[i] >= 0) i = (i + 1) & INDEX_MASK;
            INDEX[i] = top;
            INDEX_NAMES[i] = n;
        }
    }

    private static Spec[] load() {
        List<Spec> specs = new ArrayList<>(CommandRows.ROWS.length);
        for (String[] f : CommandRows.ROWS) {
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
                    bar > 0 ? name.substring(bar + 1) : null, -1));
        }
        // name order: a container comes before its subcommands ("config" < "config|get"), and
        // tables list them in it (COMMAND, INFO commandstats...)
        specs.sort(java.util.Comparator.comparing(Spec::name));
        Map<String, Integer> topIndex = new HashMap<>();
        Spec[] out = new Spec[specs.size()];
        for (int i = 0; i < out.length; i++) {
            Spec m = specs.get(i);
            if (m.parentName == null) {
                topIndex.put(m.name, i);
            } else {
                Integer parent = topIndex.get(m.parentName);
                if (parent == null) throw new IllegalStateException("CommandRows: " + m.name + " without its container");
                m = new Spec(m.name, m.arity, m.flags, m.flagNames, m.firstKey, m.lastKey, m.keyStep, m.aclCategories,
                        m.tips, m.keySpecs, m.group, m.since, m.parentName, m.subName, parent);
            }
            out[i] = m;
        }
        return out;
    }

    private static List<String> list(String s) {
        return s.equals("-") ? List.of() : List.of(s.split(","));
    }

    /** Attaches the handler for a command ("get") or subcommand ("config|get"). */
    public void register(String fullName, CommandHandler handler) {
        int i = indexOf(fullName);
        if (commands[i] != null) commands[i].eagerly(handler);
        else registered[i] = handler;
    }

    /**
     * Keeps only the commands named (full names, "client|kill"): the others no longer exist for
     * clients (Sentinel mode serves its own short table). Call before any command is made.
     */
    public void retainOnly(java.util.Set<String> fullNames) {
        for (int i = 0; i < SPECS.length; i++) {
            if (!fullNames.contains(SPECS[i].name)) registered[i] = null;
        }
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
            int i = indexOf(fullName);
            if (commands[i] != null) commands[i].lazily(family);
            else registered[i] = family;
        }
    }

    /** The metadata of a command or subcommand, implemented or not. */
    public Command spec(String fullName) {
        Integer i = BY_NAME.get(fullName);
        return i == null ? null : command(i);
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
        return implementedAt(specNamed(b, off, len, false));
    }

    /**
     * The implemented top-level command with this name or, when rename-command gave it another,
     * the name it had (Redis's lookupCommandOrOriginal): what the server itself wrote, such as the
     * commands of its AOF, is found whatever the configuration renamed since.
     */
    public Command lookupOrOriginal(byte[] b, int off, int len) {
        Command c = lookup(b, off, len);
        return c != null || renamedAway == null ? c : implementedAt(specNamed(b, off, len, true));
    }

    private Command implementedAt(int spec) {
        if (spec < 0) return null;
        Command c = command(spec);
        return c.implemented() ? c : null;
    }

    /**
     * The SPECS index of the top-level command with this name (any case), implemented or not; -1
     * if none. Renamed commands are found by their new name, and by their own only if original.
     */
    private int specNamed(byte[] b, int off, int len, boolean original) {
        int i = hashLower(b, off, len) & INDEX_MASK;
        while (true) {
            int spec = INDEX[i];
            if (spec < 0) break;
            if (Bytes.equalsIgnoreCase(b, off, len, INDEX_NAMES[i])) {
                if (original || renamedAway == null || !renamedAway[spec]) return spec;
                break;
            }
            i = (i + 1) & INDEX_MASK;
        }
        if (original) return -1;
        for (int k = 0; k < newNames.length; k++) {
            if (Bytes.equalsIgnoreCase(b, off, len, newNames[k])) return newNameSpecs[k];
        }
        return -1;
    }

    /**
     * rename-command: the top-level command now called {@code name} is called {@code newName}
     * instead, or with an empty newName is no longer there for clients (scripts and
     * transactions included). Throws with Redis's message, changing nothing, when there is no
     * command by that name or another command has the new name.
     */
    public void rename(String name, String newName) {
        byte[] from = Bytes.ascii(name);
        int spec = specNamed(from, 0, from.length, false);
        if (spec < 0) throw new IllegalArgumentException("No such command in rename-command");
        byte[] to = newName.isEmpty() ? null : Bytes.ascii(newName.toLowerCase(java.util.Locale.ROOT));
        if (to != null) {
            // (its own name is no other's: renaming a command to the name it has changes nothing)
            int taken = specNamed(to, 0, to.length, false);
            if (taken >= 0 && taken != spec) throw new IllegalArgumentException("Target command name already exists");
        }
        if (renamedAway == null) renamedAway = new boolean[SPECS.length];
        renamedAway[spec] = true;
        // a command renamed before is found by its new name: that name goes
        for (int k = 0; k < newNames.length; k++) {
            if (Bytes.equalsIgnoreCase(from, 0, from.length, newNames[k])) {
                newNames = remove(newNames, k);
                int[] specs = new int[newNameSpecs.length - 1];
                System.arraycopy(newNameSpecs, 0, specs, 0, k);
                System.arraycopy(newNameSpecs, k + 1, specs, k, specs.length - k);
                newNameSpecs = specs;
                break;
            }
        }
        if (to == null) return;
        newNames = Arrays.copyOf(newNames, newNames.length + 1);
        newNames[newNames.length - 1] = to;
        newNameSpecs = Arrays.copyOf(newNameSpecs, newNameSpecs.length + 1);
        newNameSpecs[newNameSpecs.length - 1] = spec;
    }

    private static byte[][] remove(byte[][] a, int k) {
        byte[][] out = new byte[a.length - 1][];
        System.arraycopy(a, 0, out, 0, k);
        System.arraycopy(a, k + 1, out, k, out.length - k);
        return out;
    }

    /** Whether clients can reach the top-level command at SPECS index t (by its name or a new one). */
    private boolean reachable(int t) {
        if (renamedAway == null || !renamedAway[t]) return true;
        for (int s : newNameSpecs) if (s == t) return true;
        return false;
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
        return subcommandOf(lookup(args.buf(0), args.off(0), args.len(0)), args);
    }

    /** {@link #resolve}, finding a renamed command by its original name too ({@link #lookupOrOriginal}). */
    public Command resolveOrOriginal(Args args) {
        return subcommandOf(lookupOrOriginal(args.buf(0), args.off(0), args.len(0)), args);
    }

    private static Command subcommandOf(Command c, Args args) {
        if (c == null || !c.isContainer() || args.count() == 1) return c;
        return c.subcommand(args.buf(1), args.off(1), args.len(1));
    }

    public boolean isContainer(byte[] b, int off, int len) {
        Command c = lookup(b, off, len);
        return c != null && c.isContainer();
    }

    /** Implemented top-level commands that clients can reach (a renamed one too), by name. */
    public List<Command> commands() {
        List<Command> out = new ArrayList<>();
        for (int t : TOP_LEVEL) if (implemented(t) && reachable(t)) out.add(command(t));
        return out;
    }

    /** Every top-level command known from Redis's table, implemented or not (for coverage docs). */
    public Collection<Command> allKnown() {
        List<Command> out = new ArrayList<>(TOP_LEVEL.length);
        for (int t : TOP_LEVEL) out.add(command(t));
        return out;
    }

    // ---- the ACL's view: every command of Redis's table, implemented or not, by id --------------

    /**
     * How many commands and subcommands Redis's table has: ACL ids run from 0 to this (exclusive).
     * ACL rules name commands from the whole table, as Redis's do (its original command table,
     * which rename-command does not change), whether Spinel implements them or not.
     */
    public static int aclIdCount() {
        return SPECS.length;
    }

    /** The full name ("get", "config|get") of the command with this ACL id. */
    public static String aclName(int id) {
        return SPECS[id].name;
    }

    /** The ACL categories of the command with this ACL id. */
    public static List<String> aclCategories(int id) {
        return SPECS[id].aclCategories;
    }

    /** The ACL ids of a container's subcommands (empty for other commands), in name order. */
    public static int[] aclSubcommands(int id) {
        int container = Arrays.binarySearch(CONTAINERS, id);
        return container >= 0 ? SUBCOMMANDS[container] : new int[0];
    }

    /** The ACL id of the container of a subcommand, or -1 for a top-level command. */
    public static int aclParent(int id) {
        return SPECS[id].parent;
    }

    /**
     * The ACL ids of the top-level commands but SENTINEL, in name order: what a data server's
     * and a Sentinel's ACL views are made of ({@link io.spinel.core.acl.AclCommandSet}).
     */
    public static int[] aclTopLevel() {
        return ACL_TOP_LEVEL.clone();
    }

    private static final int[] ACL_TOP_LEVEL = withoutSentinel(TOP_LEVEL);

    // (a plain loop: a stream here is a class spun at every first start)
    private static int[] withoutSentinel(int[] ids) {
        int n = 0;
        int[] out = new int[ids.length];
        for (int i : ids) if (!SPECS[i].group.equals("sentinel")) out[n++] = i;
        return Arrays.copyOf(out, n);
    }

    /** The ACL id of a command by its full lower-case name ("config|get"), or -1. */
    public static int aclId(String lowerFullName) {
        Integer i = BY_NAME.get(lowerFullName);
        return i == null ? -1 : i;
    }

    public void resetStats() {
        for (int t : TOP_LEVEL) if (commands[t] != null) commands[t].resetStats(); // (unmade: no stats yet)
    }

    @Override
    public String toString() {
        return "CommandTable" + Arrays.toString(commands().toArray());
    }
}
