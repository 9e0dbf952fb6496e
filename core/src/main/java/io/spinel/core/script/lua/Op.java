package io.spinel.core.script.lua;

/**
 * Lua 5.1's instruction set and encoding (op:6 A:8 C:9 B:9, or op:6 A:8 Bx:18). Keeping the exact
 * instruction set lets error messages name variables the way Lua does, by symbolic execution of
 * the code that produced a register.
 */
final class Op {
    private Op() {
    }

    static final int MOVE = 0, LOADK = 1, LOADBOOL = 2, LOADNIL = 3, GETUPVAL = 4, GETGLOBAL = 5,
            GETTABLE = 6, SETGLOBAL = 7, SETUPVAL = 8, SETTABLE = 9, NEWTABLE = 10, SELF = 11, ADD = 12,
            SUB = 13, MUL = 14, DIV = 15, MOD = 16, POW = 17, UNM = 18, NOT = 19, LEN = 20, CONCAT = 21,
            JMP = 22, EQ = 23, LT = 24, LE = 25, TEST = 26, TESTSET = 27, CALL = 28, TAILCALL = 29,
            RETURN = 30, FORLOOP = 31, FORPREP = 32, TFORLOOP = 33, SETLIST = 34, CLOSE = 35,
            CLOSURE = 36, VARARG = 37;

    static final int MAXARG_A = 255;
    static final int MAXARG_B = 511;
    static final int MAXARG_C = 511;
    static final int MAXARG_Bx = (1 << 18) - 1;
    static final int MAXARG_sBx = MAXARG_Bx >> 1;
    static final int BITRK = 256;
    static final int MAXINDEXRK = BITRK - 1;
    static final int NO_REG = MAXARG_A;
    static final int NO_JUMP = -1;
    static final int LFIELDS_PER_FLUSH = 50;
    static final int MAXSTACK = 250;
    static final int MULTRET = -1;

    static final int ARG_N = 0, ARG_U = 1, ARG_R = 2, ARG_K = 3;
    static final int MODE_ABC = 0, MODE_ABx = 1, MODE_AsBx = 2;

    /** T, A, B mode, C mode, format for each opcode. */
    private static final int[][] MODES = {
        {0, 1, ARG_R, ARG_N, MODE_ABC}, {0, 1, ARG_K, ARG_N, MODE_ABx}, {0, 1, ARG_U, ARG_U, MODE_ABC},
        {0, 1, ARG_R, ARG_N, MODE_ABC}, {0, 1, ARG_U, ARG_N, MODE_ABC}, {0, 1, ARG_K, ARG_N, MODE_ABx},
        {0, 1, ARG_R, ARG_K, MODE_ABC}, {0, 0, ARG_K, ARG_N, MODE_ABx}, {0, 0, ARG_U, ARG_N, MODE_ABC},
        {0, 0, ARG_K, ARG_K, MODE_ABC}, {0, 1, ARG_U, ARG_U, MODE_ABC}, {0, 1, ARG_R, ARG_K, MODE_ABC},
        {0, 1, ARG_K, ARG_K, MODE_ABC}, {0, 1, ARG_K, ARG_K, MODE_ABC}, {0, 1, ARG_K, ARG_K, MODE_ABC},
        {0, 1, ARG_K, ARG_K, MODE_ABC}, {0, 1, ARG_K, ARG_K, MODE_ABC}, {0, 1, ARG_K, ARG_K, MODE_ABC},
        {0, 1, ARG_R, ARG_N, MODE_ABC}, {0, 1, ARG_R, ARG_N, MODE_ABC}, {0, 1, ARG_R, ARG_N, MODE_ABC},
        {0, 1, ARG_R, ARG_R, MODE_ABC}, {0, 0, ARG_R, ARG_N, MODE_AsBx}, {1, 0, ARG_K, ARG_K, MODE_ABC},
        {1, 0, ARG_K, ARG_K, MODE_ABC}, {1, 0, ARG_K, ARG_K, MODE_ABC}, {1, 1, ARG_R, ARG_U, MODE_ABC},
        {1, 1, ARG_R, ARG_U, MODE_ABC}, {0, 1, ARG_U, ARG_U, MODE_ABC}, {0, 1, ARG_U, ARG_U, MODE_ABC},
        {0, 0, ARG_U, ARG_N, MODE_ABC}, {0, 1, ARG_R, ARG_N, MODE_AsBx}, {0, 1, ARG_R, ARG_N, MODE_AsBx},
        {1, 0, ARG_N, ARG_U, MODE_ABC}, {0, 0, ARG_U, ARG_U, MODE_ABC}, {0, 0, ARG_N, ARG_N, MODE_ABC},
        {0, 1, ARG_U, ARG_N, MODE_ABx}, {0, 1, ARG_U, ARG_N, MODE_ABC},
    };

    static boolean testT(int op) {
        return MODES[op][0] == 1;
    }

    static boolean testA(int op) {
        return MODES[op][1] == 1;
    }

    static int bMode(int op) {
        return MODES[op][2];
    }

    static int cMode(int op) {
        return MODES[op][3];
    }

    static int mode(int op) {
        return MODES[op][4];
    }

    static int op(int i) {
        return i & 0x3F;
    }

    static int a(int i) {
        return (i >>> 6) & 0xFF;
    }

    static int b(int i) {
        return (i >>> 23) & 0x1FF;
    }

    static int c(int i) {
        return (i >>> 14) & 0x1FF;
    }

    static int bx(int i) {
        return i >>> 14;
    }

    static int sbx(int i) {
        return (i >>> 14) - MAXARG_sBx;
    }

    static int abc(int op, int a, int b, int c) {
        return op | (a << 6) | (b << 23) | (c << 14);
    }

    static int abx(int op, int a, int bx) {
        return op | (a << 6) | (bx << 14);
    }

    static int setA(int i, int a) {
        return (i & ~(0xFF << 6)) | (a << 6);
    }

    static int setB(int i, int b) {
        return (i & ~(0x1FF << 23)) | (b << 23);
    }

    static int setC(int i, int c) {
        return (i & ~(0x1FF << 14)) | (c << 14);
    }

    static int setBx(int i, int bx) {
        return (i & 0x3FFF) | (bx << 14);
    }

    static int setSbx(int i, int sbx) {
        return setBx(i, sbx + MAXARG_sBx);
    }

    static int setOp(int i, int op) {
        return (i & ~0x3F) | op;
    }

    static boolean isK(int x) {
        return (x & BITRK) != 0;
    }

    static int indexK(int x) {
        return x & ~BITRK;
    }

    static int rkAsK(int x) {
        return x | BITRK;
    }
}
