package io.spinel.core.script.lua;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;

/** lua-cmsgpack 0.4.0 ("cmsgpack") as bundled with Redis. */
public final class CmsgpackLib {
    private CmsgpackLib() {
    }

    private static final int MAX_NESTING = 16;

    public static LuaTable open(Interp L, LuaTable g) {
        LuaTable m = new LuaTable();
        m.rawset("pack", Builtin.of("pack", CmsgpackLib::pack));
        m.rawset("unpack", Builtin.of("unpack", (I, th, base, n) -> unpackFull(I, th, base, n, 0, 0)));
        m.rawset("unpack_one", Builtin.of("unpack_one", (I, th, base, n) -> {
            long offset = I.arg(th, base, n, 2) == null ? 0 : I.checkInteger(th, base, n, 2);
            return unpackFull(I, th, base, Math.min(n, 1), 1, offset);
        }));
        m.rawset("unpack_limit", Builtin.of("unpack_limit", (I, th, base, n) -> {
            long limit = I.checkInteger(th, base, n, 2);
            long offset = I.arg(th, base, n, 3) == null ? 0 : I.checkInteger(th, base, n, 3);
            return unpackFull(I, th, base, Math.min(n, 1), limit, offset);
        }));
        m.rawset("_NAME", LuaString.valueOf("cmsgpack"));
        m.rawset("_VERSION", LuaString.valueOf("lua-cmsgpack 0.4.0"));
        m.rawset("_COPYRIGHT", LuaString.valueOf("Copyright (C) 2012, Salvatore Sanfilippo"));
        m.rawset("_DESCRIPTION", LuaString.valueOf("MessagePack C implementation for Lua"));
        g.rawset("cmsgpack", m);
        return m;
    }

    // ---- encoding -----------------------------------------------------------------------------

    private static void encodeBytes(ByteArrayOutputStream b, byte[] s) {
        int len = s.length;
        if (len < 32) {
            b.write(0xa0 | (len & 0xff));
        } else if (len <= 0xff) {
            b.write(0xd9);
            b.write(len);
        } else if (len <= 0xffff) {
            b.write(0xda);
            b.write(len >> 8);
            b.write(len);
        } else {
            b.write(0xdb);
            b.write(len >>> 24);
            b.write(len >> 16);
            b.write(len >> 8);
            b.write(len);
        }
        b.write(s, 0, len);
    }

    private static void encodeDouble(ByteArrayOutputStream b, double d) {
        float f = (float) d;
        if (d == (double) f) {
            b.write(0xca);
            int bits = Float.floatToRawIntBits(f);
            for (int i = 3; i >= 0; i--) b.write(bits >>> (i * 8));
        } else {
            b.write(0xcb);
            long bits = Double.doubleToRawLongBits(d);
            for (int i = 7; i >= 0; i--) b.write((int) (bits >>> (i * 8)));
        }
    }

    private static void be(ByteArrayOutputStream b, long v, int bytes) {
        for (int i = bytes - 1; i >= 0; i--) b.write((int) (v >>> (i * 8)));
    }

    private static void encodeInt(ByteArrayOutputStream b, long n) {
        if (n >= 0) {
            if (n <= 127) {
                b.write((int) n & 0x7f);
            } else if (n <= 0xff) {
                b.write(0xcc);
                b.write((int) n);
            } else if (n <= 0xffff) {
                b.write(0xcd);
                be(b, n, 2);
            } else if (n <= 0xffffffffL) {
                b.write(0xce);
                be(b, n, 4);
            } else {
                b.write(0xcf);
                be(b, n, 8);
            }
        } else {
            if (n >= -32) {
                b.write((int) n);
            } else if (n >= -128) {
                b.write(0xd0);
                b.write((int) n);
            } else if (n >= -32768) {
                b.write(0xd1);
                be(b, n, 2);
            } else if (n >= -2147483648L) {
                b.write(0xd2);
                be(b, n, 4);
            } else {
                b.write(0xd3);
                be(b, n, 8);
            }
        }
    }

    private static void encodeArrayHeader(ByteArrayOutputStream b, long n) {
        if (n <= 15) {
            b.write(0x90 | ((int) n & 0xf));
        } else if (n <= 65535) {
            b.write(0xdc);
            be(b, n, 2);
        } else {
            b.write(0xdd);
            be(b, n, 4);
        }
    }

    private static void encodeMapHeader(ByteArrayOutputStream b, long n) {
        if (n <= 15) {
            b.write(0x80 | ((int) n & 0xf));
        } else if (n <= 65535) {
            b.write(0xde);
            be(b, n, 2);
        } else {
            b.write(0xdf);
            be(b, n, 4);
        }
    }

    private static boolean isArray(LuaTable t) {
        int count = 0;
        double max = 0;
        for (int s = t.nextSlot(0); s >= 0; s = t.nextSlot(s + 1)) {
            Object k = t.slotKey(s);
            if (!(k instanceof Double)) return false;
            double n = (Double) k;
            if (n <= 0 || Double.isInfinite(n) || Num.cInt(n) != n) return false;
            if (n > max) max = n;
            count++;
        }
        return max == count;
    }

    private static void encode(Interp I, Coroutine th, ByteArrayOutputStream b, Object v, int level) {
        if (v instanceof LuaTable && level == MAX_NESTING) v = null;
        if (v instanceof LuaString) {
            encodeBytes(b, ((LuaString) v).bytes);
        } else if (v instanceof Boolean) {
            b.write((Boolean) v ? 0xc3 : 0xc2);
        } else if (v instanceof Double) {
            double n = (Double) v;
            if (!Double.isInfinite(n) && Num.cLong(n) == n) encodeInt(b, Num.cLong(n));
            else encodeDouble(b, n);
        } else if (v instanceof LuaTable) {
            LuaTable t = (LuaTable) v;
            if (isArray(t)) {
                int len = t.length();
                encodeArrayHeader(b, len);
                for (int j = 1; j <= len; j++) encode(I, th, b, I.index(th, t, LuaValues.num(j), -1), level + 1);
            } else {
                long len = 0;
                for (int s = t.nextSlot(0); s >= 0; s = t.nextSlot(s + 1)) len++;
                encodeMapHeader(b, len);
                for (int s = t.nextSlot(0); s >= 0; s = t.nextSlot(s + 1)) {
                    encode(I, th, b, t.slotKey(s), level + 1);
                    encode(I, th, b, t.slotValue(s), level + 1);
                }
            }
        } else {
            b.write(0xc0);
        }
    }

    private static int pack(Interp I, Coroutine th, int base, int n) {
        if (n == 0) throw I.argError(th, 0, "MessagePack pack needs input.");
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int i = 0; i < n; i++) encode(I, th, b, th.stack[base + i], 0);
        th.stack[base] = LuaString.wrap(b.toByteArray());
        return 1;
    }

    // ---- decoding -----------------------------------------------------------------------------

    /** Raised inside the decoder: 1 = missing bytes, 2 = bad format. */
    private static final class DecodeError extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final int kind;

        DecodeError(int kind) {
            super(null, null, false, false);
            this.kind = kind;
        }
    }

    private static final class Cursor {
        final Interp I;
        final Coroutine th;
        final byte[] b;
        int p;
        int left;
        int stackUse;

        Cursor(Interp I, Coroutine th, byte[] b, int p, int left) {
            this.I = I;
            this.th = th;
            this.b = b;
            this.p = p;
            this.left = left;
        }

        void need(long n) {
            if (left < n) throw new DecodeError(1);
        }

        void consume(int n) {
            p += n;
            left -= n;
        }

        int u8(int i) {
            return b[p + i] & 0xFF;
        }

        long be(int from, int n) {
            long v = 0;
            for (int i = 0; i < n; i++) v = (v << 8) | u8(from + i);
            return v;
        }

        Object decode() {
            need(1);
            if (stackUse + 1 > Interp.MAXCSTACK) {
                throw I.error(th, "stack overflow (too many return values at once; use unpack_one or unpack_limit instead.)");
            }
            int c = u8(0);
            switch (c) {
                case 0xcc:
                    need(2);
                    try {
                        return LuaValues.num(u8(1));
                    } finally {
                        consume(2);
                    }
                case 0xd0:
                    need(2);
                    try {
                        return LuaValues.num((byte) u8(1));
                    } finally {
                        consume(2);
                    }
                case 0xcd:
                    need(3);
                    try {
                        return LuaValues.num((double) be(1, 2));
                    } finally {
                        consume(3);
                    }
                case 0xd1:
                    need(3);
                    try {
                        return LuaValues.num((double) (short) be(1, 2));
                    } finally {
                        consume(3);
                    }
                case 0xce:
                    need(5);
                    try {
                        return LuaValues.num((double) be(1, 4));
                    } finally {
                        consume(5);
                    }
                case 0xd2:
                    need(5);
                    try {
                        return LuaValues.num((double) (int) be(1, 4));
                    } finally {
                        consume(5);
                    }
                case 0xcf:
                case 0xd3:
                    need(9);
                    try {
                        return LuaValues.num((double) be(1, 8));
                    } finally {
                        consume(9);
                    }
                case 0xc0:
                    consume(1);
                    return null;
                case 0xc3:
                    consume(1);
                    return Boolean.TRUE;
                case 0xc2:
                    consume(1);
                    return Boolean.FALSE;
                case 0xca:
                    need(5);
                    try {
                        return LuaValues.num(Float.intBitsToFloat((int) be(1, 4)));
                    } finally {
                        consume(5);
                    }
                case 0xcb:
                    need(9);
                    try {
                        return LuaValues.num(Double.longBitsToDouble(be(1, 8)));
                    } finally {
                        consume(9);
                    }
                case 0xd9: {
                    need(2);
                    int l = u8(1);
                    need(2L + l);
                    LuaString s = LuaString.copyOf(b, p + 2, l);
                    consume(2 + l);
                    return s;
                }
                case 0xda: {
                    need(3);
                    int l = (int) be(1, 2);
                    need(3L + l);
                    LuaString s = LuaString.copyOf(b, p + 3, l);
                    consume(3 + l);
                    return s;
                }
                case 0xdb: {
                    need(5);
                    long l = be(1, 4);
                    consume(5);
                    need(l);
                    LuaString s = LuaString.copyOf(b, p, (int) l);
                    consume((int) l);
                    return s;
                }
                case 0xdc: {
                    need(3);
                    long l = be(1, 2);
                    consume(3);
                    return array(l);
                }
                case 0xdd: {
                    need(5);
                    long l = be(1, 4);
                    consume(5);
                    return array(l);
                }
                case 0xde: {
                    need(3);
                    long l = be(1, 2);
                    consume(3);
                    return map(l);
                }
                case 0xdf: {
                    need(5);
                    long l = be(1, 4);
                    consume(5);
                    return map(l);
                }
                default:
                    if ((c & 0x80) == 0) {
                        consume(1);
                        return LuaValues.num(c);
                    } else if ((c & 0xe0) == 0xe0) {
                        consume(1);
                        return LuaValues.num((byte) c);
                    } else if ((c & 0xe0) == 0xa0) {
                        int l = c & 0x1f;
                        need(1L + l);
                        LuaString s = LuaString.copyOf(b, p + 1, l);
                        consume(1 + l);
                        return s;
                    } else if ((c & 0xf0) == 0x90) {
                        consume(1);
                        return array(c & 0xf);
                    } else if ((c & 0xf0) == 0x80) {
                        consume(1);
                        return map(c & 0xf);
                    }
                    throw new DecodeError(2);
            }
        }

        LuaTable array(long len) {
            LuaTable t = new LuaTable();
            stackUse += 2;
            int index = 1;
            while (len-- > 0) {
                Object v = decode();
                t.rawset(LuaValues.num(index++), v);
            }
            stackUse -= 2;
            return t;
        }

        LuaTable map(long len) {
            LuaTable t = new LuaTable();
            stackUse += 3;
            while (len-- > 0) {
                Object k = decode();
                Object v = decode();
                if (k == null) throw LuaError.runtime("table index is nil");
                t.rawset(k, v);
            }
            stackUse -= 3;
            return t;
        }
    }

    private static int unpackFull(Interp I, Coroutine th, int base, int n, long limit, long offset) {
        LuaString s = I.checkString(th, base, n, 1);
        int len = s.length();
        boolean decodeAll = limit == 0 && offset == 0;
        if (offset < 0 || limit < 0) {
            throw I.error(th, "Invalid request to unpack with offset of " + (int) offset + " and limit of " + len + ".");
        } else if (offset > len) {
            throw I.error(th, "Start offset " + (int) offset + " greater than input length " + len + ".");
        }
        if (decodeAll) limit = Integer.MAX_VALUE;
        Cursor c = new Cursor(I, th, s.bytes, (int) offset, len - (int) offset);
        ArrayList<Object> out = new ArrayList<>();
        try {
            for (long cnt = 0; c.left > 0 && cnt < limit; cnt++) {
                c.stackUse = n + out.size();
                out.add(c.decode());
            }
        } catch (DecodeError e) {
            throw I.error(th, e.kind == 1 ? "Missing bytes in input." : "Bad data format in input.");
        }
        if (!decodeAll) {
            long newOffset = len - c.left;
            out.add(0, LuaValues.num(c.left == 0 ? -1 : (double) newOffset));
        }
        return I.ret(th, base, out.toArray());
    }
}
