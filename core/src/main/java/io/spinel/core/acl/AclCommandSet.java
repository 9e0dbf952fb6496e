package io.spinel.core.acl;

import io.spinel.core.command.CommandTable;

import java.util.Arrays;
import java.util.Locale;
import java.util.Set;
import java.util.function.IntPredicate;

/**
 * The commands that ACL rules can name and that categories cover, as Redis's ACL sees the command
 * table its mode made: a data server has every command of Redis 7.0's table but SENTINEL (so
 * {@code +sentinel} is an unknown command there, as in Redis), a Sentinel only its own commands
 * (SENTINEL and its subcommands among them, in @admin, @slow and @dangerous; {@code +get} is
 * unknown). ACL ids stay those of the whole table ({@link CommandTable#aclId}).
 */
public final class AclCommandSet {
    /** A data server's set: every command but Sentinel's. */
    public static final AclCommandSet DATA_SERVER = new AclCommandSet(id -> !isSentinelGroup(id));

    private final boolean[] member = new boolean[CommandTable.aclIdCount()];
    private final int[] topLevel;
    /** Each command's subcommands in the set, by ACL id (empty for commands without any). */
    private final int[][] subcommands = new int[CommandTable.aclIdCount()][];

    private AclCommandSet(IntPredicate in) {
        // (plain loops: a stream or a comparator here is a class spun at every first start)
        for (int id = 0; id < member.length; id++) member[id] = in.test(id);
        int[] table = CommandTable.aclTopLevel(); // in name order, without SENTINEL
        int sentinel = CommandTable.aclId("sentinel");
        boolean withSentinel = sentinel >= 0 && member[sentinel];
        int[] top = new int[table.length + 1];
        int n = 0;
        for (int id : table) {
            if (!member[id]) continue;
            if (withSentinel && CommandTable.aclName(id).compareTo("sentinel") > 0) {
                top[n++] = sentinel;
                withSentinel = false;
            }
            top[n++] = id;
        }
        if (withSentinel) top[n++] = sentinel;
        topLevel = Arrays.copyOf(top, n);
        for (int id = 0; id < member.length; id++) {
            int[] subs = CommandTable.aclSubcommands(id);
            int m = 0;
            int[] kept = new int[subs.length];
            for (int sub : subs) if (member[sub]) kept[m++] = sub;
            subcommands[id] = m == subs.length ? subs : Arrays.copyOf(kept, m);
        }
    }

    /** A Sentinel's set: the commands of its table (full names, "client|kill") and all of SENTINEL. */
    public static AclCommandSet sentinel(Set<String> fullNames) {
        return new AclCommandSet(id -> isSentinelGroup(id) || fullNames.contains(CommandTable.aclName(id)));
    }

    private static boolean isSentinelGroup(int id) {
        String name = CommandTable.aclName(id);
        return name.equals("sentinel") || name.startsWith("sentinel|");
    }

    /** The set's top-level commands, in name order: what categories and descriptions walk. */
    public int[] topLevel() {
        return topLevel;
    }

    /** A container's subcommands in the set, in name order (empty for other commands). */
    public int[] subcommands(int id) {
        return subcommands[id];
    }

    /**
     * The ACL id of a command of this set named as ACL rules name it ("get", "config|get"), in
     * any case, or -1 (Redis's ACLLookupCommand): one level of subcommands, and a command
     * without subcommands cannot be named with one.
     */
    int lookup(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        int bar = lower.indexOf('|');
        int id;
        if (bar < 0) {
            id = lower.isEmpty() ? -1 : CommandTable.aclId(lower);
        } else {
            if (lower.indexOf('|', bar + 1) >= 0) return -1;
            int parent = CommandTable.aclId(lower.substring(0, bar));
            if (parent < 0 || !member[parent] || CommandTable.aclParent(parent) >= 0
                    || CommandTable.aclSubcommands(parent).length == 0) {
                return -1;
            }
            id = CommandTable.aclId(lower);
        }
        return id >= 0 && member[id] ? id : -1;
    }
}
