package io.spinel.core.command;

/** Command flags, as COMMAND INFO names them (server.h CMD_*). */
public final class CommandFlags {
    private CommandFlags() {
    }

    public static final int WRITE = 1;
    public static final int READONLY = 1 << 1;
    public static final int DENYOOM = 1 << 2;
    public static final int MODULE = 1 << 3;
    public static final int ADMIN = 1 << 4;
    public static final int PUBSUB = 1 << 5;
    public static final int NOSCRIPT = 1 << 6;
    public static final int BLOCKING = 1 << 7;
    public static final int LOADING = 1 << 8;
    public static final int STALE = 1 << 9;
    public static final int SKIP_MONITOR = 1 << 10;
    public static final int SKIP_SLOWLOG = 1 << 11;
    public static final int ASKING = 1 << 12;
    public static final int FAST = 1 << 13;
    public static final int NO_AUTH = 1 << 14;
    public static final int NO_MANDATORY_KEYS = 1 << 15;
    public static final int NO_ASYNC_LOADING = 1 << 16;
    public static final int NO_MULTI = 1 << 17;
    public static final int MOVABLEKEYS = 1 << 18;
    public static final int ALLOW_BUSY = 1 << 19;
    /** Hidden in COMMAND INFO: needs enable-debug-command / enable-module-command. */
    public static final int PROTECTED = 1 << 20;

    static int parse(String name) {
        switch (name) {
            case "write": return WRITE;
            case "readonly": return READONLY;
            case "denyoom": return DENYOOM;
            case "module": return MODULE;
            case "admin": return ADMIN;
            case "pubsub": return PUBSUB;
            case "noscript": return NOSCRIPT;
            case "blocking": return BLOCKING;
            case "loading": return LOADING;
            case "stale": return STALE;
            case "skip_monitor": return SKIP_MONITOR;
            case "skip_slowlog": return SKIP_SLOWLOG;
            case "asking": return ASKING;
            case "fast": return FAST;
            case "no_auth": return NO_AUTH;
            case "no_mandatory_keys": return NO_MANDATORY_KEYS;
            case "no_async_loading": return NO_ASYNC_LOADING;
            case "no_multi": return NO_MULTI;
            case "movablekeys": return MOVABLEKEYS;
            case "allow_busy": return ALLOW_BUSY;
            default: throw new IllegalArgumentException("unknown command flag " + name);
        }
    }
}
