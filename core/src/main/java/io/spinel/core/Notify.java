package io.spinel.core;

/** Keyspace notification classes (notify-keyspace-events letters), Redis's NOTIFY_* bits. */
public final class Notify {
    private Notify() {
    }

    public static final int KEYSPACE = 1;      // K
    public static final int KEYEVENT = 1 << 1; // E
    public static final int GENERIC = 1 << 2;  // g
    public static final int STRING = 1 << 3;   // $
    public static final int LIST = 1 << 4;     // l
    public static final int SET = 1 << 5;      // s
    public static final int HASH = 1 << 6;     // h
    public static final int ZSET = 1 << 7;     // z
    public static final int EXPIRED = 1 << 8;  // x
    public static final int EVICTED = 1 << 9;  // e
    public static final int STREAM = 1 << 10; // t
    public static final int KEY_MISS = 1 << 11; // m
    public static final int LOADED = 1 << 12;  // module only
    public static final int MODULE = 1 << 13;  // d
    public static final int NEW = 1 << 14;     // n
    /** A: g$lshzxetd */
    public static final int ALL = GENERIC | STRING | LIST | SET | HASH | ZSET | EXPIRED | EVICTED | STREAM | MODULE;
}
