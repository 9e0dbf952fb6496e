package io.spinel.core.keyspace;

/** Redis's object types, with Redis's numbering (OBJ_STRING ... OBJ_STREAM) and TYPE names. */
public final class ValueType {
    private ValueType() {
    }

    public static final int STRING = 0;
    public static final int LIST = 1;
    public static final int SET = 2;
    public static final int ZSET = 3;
    public static final int HASH = 4;
    public static final int MODULE = 5;
    public static final int STREAM = 6;

    private static final String[] NAMES = {"string", "list", "set", "zset", "hash", "module", "stream"};

    public static String name(int type) {
        return NAMES[type];
    }

    /** The type for a TYPE-style name (SCAN ... TYPE), or -1. */
    public static int forName(String name) {
        for (int i = 0; i < NAMES.length; i++) {
            if (NAMES[i].equalsIgnoreCase(name) && i != MODULE) return i;
        }
        return -1;
    }
}
