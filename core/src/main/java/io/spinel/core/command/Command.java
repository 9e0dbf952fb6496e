package io.spinel.core.command;

import io.spinel.core.protocol.Args;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A command of the table: its Redis metadata (from {@link CommandRows}: arity, flags, key specs, ACL
 * categories), the handler that runs it, its subcommands if it is a container (CONFIG, CLIENT...),
 * and its INFO commandstats counters.
 */
public final class Command {
    /** Full name, lower case: "get", or "config|get" for a subcommand. */
    public final String name;
    /** Name as the user sees it in errors: "get" or "config|get". */
    public final int arity;
    public final int flags;
    public final List<String> flagNames;
    public final int firstKey;
    public final int lastKey;
    public final int keyStep;
    public final List<String> aclCategories;
    public final List<String> tips;
    public final List<KeySpec> keySpecs;
    public final String group;
    public final String since;
    public final Command parent;
    /** The command's index in Redis's table, which ACL permission bitmaps use ({@link CommandTable#aclIdCount}). */
    public final int aclId;
    /** Subcommands in name order (see CommandTable), with their short names; empty for most commands. */
    private Command[] subcommands = NONE;
    private String[] subcommandNames = NO_NAMES;
    private static final Command[] NONE = new Command[0];
    private static final String[] NO_NAMES = new String[0];

    /** The handler; null until first needed when registered lazily (see {@link #resolve}). */
    private CommandHandler handler;
    /** Makes the handler and its companions below on first need, for commands registered lazily; null otherwise. */
    private CommandTable.HandlerSource handlerSource;
    /** Finds keys where the key specs cannot (Redis's getkeys_proc), or null. */
    private KeysFinder keysFinder;
    /** The flags of the keys of this call where the key specs cannot give them, or null. */
    private KeyFlags keyFlags;
    /** Flags that depend on the arguments, or null. */
    private DynamicFlags dynamicFlags;

    /**
     * Key flags that depend on the call (Redis's getkeys procedures report them): SET overwrites
     * unless it has GET, SORT's STORE destination is written, MIGRATE deletes what it moves.
     */
    @FunctionalInterface
    public interface KeyFlags {
        /** The flags of the key at argument position pos. */
        java.util.List<String> of(Args args, int pos);
    }

    /** A command-specific key finder (SORT's STORE, MIGRATE's KEYS...). */
    @FunctionalInterface
    public interface KeysFinder {
        /** Adds key positions to out; returns false when the arguments are invalid. */
        boolean find(Args args, IntList out);
    }

    // INFO commandstats
    public long calls;
    /** Time spent in the command, in nanoseconds (INFO shows microseconds; summing truncated
     * microseconds per call would count a sub-microsecond command as taking no time at all). */
    public long nanos;
    public long rejectedCalls;
    public long failedCalls;
    /** LATENCY HISTOGRAM / INFO latencystats counters (latency-tracking), null until first recorded. */
    public long[] latencyHistogram;
    /** The calls counted in {@link #latencyHistogram} (INFO's percentiles need the total). */
    public long latencyCount;

    Command(String name, int arity, int flags, List<String> flagNames, int firstKey, int lastKey, int keyStep,
            List<String> aclCategories, List<String> tips, List<KeySpec> keySpecs, String group, String since,
            Command parent, int aclId) {
        this.name = name;
        this.aclId = aclId;
        this.arity = arity;
        this.flags = flags;
        this.flagNames = flagNames;
        this.firstKey = firstKey;
        this.lastKey = lastKey;
        this.keyStep = keyStep;
        this.aclCategories = aclCategories;
        this.tips = tips;
        this.keySpecs = keySpecs;
        this.group = group;
        this.since = since;
        this.parent = parent;
    }

    public boolean has(int flag) {
        return (flags & flag) != 0;
    }

    /** Flags that depend on the arguments (Redis's getCommandFlags: EVAL/FCALL take the script's). */
    public interface DynamicFlags {
        int flags(io.spinel.core.Client c, int staticFlags);
    }

    /** The flags for this invocation (the static flags unless the command declares dynamic ones). */
    public int flags(io.spinel.core.Client c) {
        if (handlerSource != null) resolve();
        return dynamicFlags == null ? flags : dynamicFlags.flags(c, flags);
    }

    public boolean isContainer() {
        return subcommands.length > 0;
    }

    public CommandHandler handler() {
        if (handlerSource != null) resolve();
        return handler;
    }

    /** The flags of the keys of this call where the key specs cannot give them, or null. */
    public KeyFlags keyFlags() {
        if (handlerSource != null) resolve();
        return keyFlags;
    }

    void lazily(CommandTable.HandlerSource source) {
        handler = null;
        handlerSource = source;
    }

    void eagerly(CommandHandler h) {
        handler = h;
        handlerSource = null;
    }

    /** Makes the handler and its companions from the family's source (all on the engine's thread). */
    private void resolve() {
        CommandTable.HandlerSource source = handlerSource;
        CommandHandler h = source.handler(name);
        if (h == null) throw new IllegalStateException("command " + name + " was registered without a handler");
        keysFinder = source.keysFinder(name);
        keyFlags = source.keyFlags(name);
        dynamicFlags = source.dynamicFlags(name);
        handler = h;
        handlerSource = null;
    }

    public boolean implemented() {
        if (handler != null || handlerSource != null) return true;
        for (Command c : subcommands) if (c.implemented()) return true;
        return false;
    }

    /** Implemented subcommands, by name. */
    public List<Command> subcommands() {
        List<Command> out = new ArrayList<>();
        for (Command c : subcommands) if (c.implemented()) out.add(c);
        return Collections.unmodifiableList(out);
    }

    /** Sets the subcommands (CommandTable gives them in name order, with their short names). */
    void setSubcommands(Command[] subs, String[] shortNames) {
        subcommands = subs;
        subcommandNames = shortNames;
    }

    /** The subcommand's metadata, implemented or not. */
    Command subcommandSpec(String name) {
        int i = java.util.Arrays.binarySearch(subcommandNames, name);
        return i >= 0 ? subcommands[i] : null;
    }

    public Command subcommand(String lowerName) {
        Command c = subcommandSpec(lowerName);
        return c != null && c.implemented() ? c : null;
    }

    /**
     * The implemented subcommand named by a request's argument, in any case, without making a
     * String of it (OBJECT ENCODING, CLIENT ID... are resolved on every call): a binary search of
     * the sorted names, comparing the argument lower-cased on the fly.
     */
    public Command subcommand(byte[] b, int off, int len) {
        int lo = 0, hi = subcommandNames.length - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int cmp = compareLowered(subcommandNames[mid], b, off, len);
            if (cmp < 0) {
                lo = mid + 1;
            } else if (cmp > 0) {
                hi = mid - 1;
            } else {
                Command c = subcommands[mid];
                return c.implemented() ? c : null;
            }
        }
        return null;
    }

    /** String.compareTo of a lower-case name with the ASCII-lower-cased slice. */
    private static int compareLowered(String name, byte[] b, int off, int len) {
        int n = Math.min(name.length(), len);
        for (int i = 0; i < n; i++) {
            int c = b[off + i] & 0xff;
            if (c >= 'A' && c <= 'Z') c += 32;
            int d = name.charAt(i) - c;
            if (d != 0) return d;
        }
        return name.length() - len;
    }

    /** The part after the container's name ("get" for "config|get"). */
    public String shortName() {
        int bar = name.indexOf('|');
        return bar < 0 ? name : name.substring(bar + 1);
    }

    /** Whether the argument count fits the arity. */
    public boolean arityOk(int argc) {
        return arity > 0 ? argc == arity : argc >= -arity;
    }

    /**
     * Positions of the key arguments (COMMAND GETKEYS, WATCH-style features), from the key specs.
     * Returns false when the arguments do not fit the specs.
     */
    public boolean keys(Args args, IntList out) {
        out.clear();
        for (KeySpec s : keySpecs) {
            if (!s.collect(args, out)) {
                out.clear();
                if (handlerSource != null) resolve();
                return keysFinder != null && keysFinder.find(args, out);
            }
        }
        return true;
    }

    public void resetStats() {
        calls = nanos = rejectedCalls = failedCalls = 0;
        latencyHistogram = null;
        latencyCount = 0;
        for (Command c : subcommands) c.resetStats();
    }

    @Override
    public String toString() {
        return name;
    }
}
