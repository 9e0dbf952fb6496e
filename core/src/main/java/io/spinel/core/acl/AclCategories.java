package io.spinel.core.acl;

import io.spinel.core.command.CommandTable;

/**
 * The ACL categories (Redis's ACLCommandCategories, in its order, which ACL CAT and the
 * description of a user's rules follow) and each command's categories as a bit mask, for every
 * command of Redis's table by its ACL id.
 */
public final class AclCategories {
    private AclCategories() {
    }

    public static final String[] NAMES = {
            "keyspace", "read", "write", "set", "sortedset", "list", "hash", "string", "bitmap",
            "hyperloglog", "geo", "stream", "pubsub", "admin", "fast", "slow", "blocking", "dangerous",
            "connection", "transaction", "scripting"
    };

    private static final long[] MASKS = new long[CommandTable.aclIdCount()];

    static {
        for (int id = 0; id < MASKS.length; id++) {
            for (String c : CommandTable.aclCategories(id)) MASKS[id] |= byName(c);
        }
    }

    /** The category's bit (1 << its index in NAMES), any case; 0 if there is no such category. */
    public static long byName(String name) {
        for (int j = 0; j < NAMES.length; j++) if (NAMES[j].equalsIgnoreCase(name)) return 1L << j;
        return 0;
    }

    /** The categories of the command with this ACL id. */
    public static long of(int id) {
        return MASKS[id];
    }
}
