package io.spinel.core.script;

import io.spinel.core.command.CommandFlags;

/** Script flags ("#!lua flags=..." and register_function's flags) and what they mean for commands. */
final class ScriptFlags {
    private ScriptFlags() {
    }

    static final int NO_WRITES = 1;
    static final int ALLOW_OOM = 1 << 1;
    static final int ALLOW_STALE = 1 << 2;
    static final int NO_CLUSTER = 1 << 3;
    /** An EVAL script without a shebang: old semantics, flags taken from the commands it runs. */
    static final int EVAL_COMPAT_MODE = 1 << 4;
    static final int ALLOW_CROSS_SLOT = 1 << 5;

    /** In Redis's order (FUNCTION LIST shows them so). */
    static final String[] NAMES = {"no-writes", "allow-oom", "allow-stale", "no-cluster", "allow-cross-slot-keys"};
    static final int[] BITS = {NO_WRITES, ALLOW_OOM, ALLOW_STALE, NO_CLUSTER, ALLOW_CROSS_SLOT};

    /** The flag bit of a name (exact, or ignoring case), 0 if unknown. */
    static int parse(String name, boolean ignoreCase) {
        for (int i = 0; i < NAMES.length; i++) {
            if (ignoreCase ? NAMES[i].equalsIgnoreCase(name) : NAMES[i].equals(name)) return BITS[i];
        }
        return 0;
    }

    /** Redis's scriptFlagsToCmdFlags: the flags EVAL/FCALL behave with for a script declaring flags. */
    static int toCommandFlags(int cmdFlags, int scriptFlags) {
        cmdFlags &= ~(CommandFlags.STALE | CommandFlags.DENYOOM | CommandFlags.WRITE);
        if ((scriptFlags & (ALLOW_OOM | NO_WRITES)) == 0) cmdFlags |= CommandFlags.DENYOOM;
        if ((scriptFlags & NO_WRITES) == 0) cmdFlags |= CommandFlags.WRITE;
        if ((scriptFlags & ALLOW_STALE) != 0) cmdFlags |= CommandFlags.STALE;
        return cmdFlags;
    }
}
