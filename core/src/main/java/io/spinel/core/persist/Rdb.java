package io.spinel.core.persist;

/** RDB format constants (Redis 7.0's rdb.h): version, value types, opcodes, length encodings. */
public final class Rdb {
    private Rdb() {
    }

    /** The version Redis 7.0 writes; files up to it are read. */
    public static final int VERSION = 10;

    public static final int TYPE_STRING = 0;
    public static final int TYPE_LIST = 1;
    public static final int TYPE_SET = 2;
    public static final int TYPE_ZSET = 3;
    public static final int TYPE_HASH = 4;
    public static final int TYPE_ZSET_2 = 5;
    public static final int TYPE_MODULE = 6;
    public static final int TYPE_MODULE_2 = 7;
    public static final int TYPE_HASH_ZIPMAP = 9;
    public static final int TYPE_LIST_ZIPLIST = 10;
    public static final int TYPE_SET_INTSET = 11;
    public static final int TYPE_ZSET_ZIPLIST = 12;
    public static final int TYPE_HASH_ZIPLIST = 13;
    public static final int TYPE_LIST_QUICKLIST = 14;
    public static final int TYPE_STREAM_LISTPACKS = 15;
    public static final int TYPE_HASH_LISTPACK = 16;
    public static final int TYPE_ZSET_LISTPACK = 17;
    public static final int TYPE_LIST_QUICKLIST_2 = 18;
    public static final int TYPE_STREAM_LISTPACKS_2 = 19;

    public static final int OPCODE_FUNCTION2 = 245;
    public static final int OPCODE_FUNCTION = 246;
    public static final int OPCODE_MODULE_AUX = 247;
    public static final int OPCODE_IDLE = 248;
    public static final int OPCODE_FREQ = 249;
    public static final int OPCODE_AUX = 250;
    public static final int OPCODE_RESIZEDB = 251;
    public static final int OPCODE_EXPIRETIME_MS = 252;
    public static final int OPCODE_EXPIRETIME = 253;
    public static final int OPCODE_SELECTDB = 254;
    public static final int OPCODE_EOF = 255;

    static final int LEN_32BIT = 0x80;
    static final int LEN_64BIT = 0x81;
    static final int ENC_INT8 = 0;
    static final int ENC_INT16 = 1;
    static final int ENC_INT32 = 2;
    static final int ENC_LZF = 3;

    /** quicklist node containers (RDB_TYPE_LIST_QUICKLIST_2). */
    static final int CONTAINER_PLAIN = 1;
    static final int CONTAINER_PACKED = 2;

    /** Whether t is a value type byte (rdbIsObjectType). */
    static boolean isObjectType(int t) {
        return (t >= 0 && t <= 7) || (t >= 9 && t <= 19);
    }
}
