package io.spinel.core.script.lua;

import java.io.ByteArrayOutputStream;

/**
 * lua_struct ("struct"), as bundled with Redis, with the sizes and alignment of x86-64 Linux
 * (little endian, long = 8 bytes, maximum alignment 8).
 */
public final class StructLib {
    private StructLib() {
    }

    private static final int BIG = 0;
    private static final int LITTLE = 1;
    private static final int NATIVE = LITTLE;
    private static final int MAXINTSIZE = 32;
    private static final int MAXALIGN = 8;

    public static LuaTable open(Interp L, LuaTable g) {
        LuaTable t = new LuaTable(0, 3);
        g.rawset("struct", t);
        t.rawset("pack", Builtin.of("pack", StructLib::pack));
        t.rawset("unpack", Builtin.of("unpack", StructLib::unpack));
        t.rawset("size", Builtin.of("size", StructLib::size));
        return t;
    }

    /** Format reader state. */
    private static final class Fmt {
        final byte[] f;
        int i;
        int endian = NATIVE;
        int align = 1;

        Fmt(LuaString s) {
            byte[] b = s.bytes;
            int n = 0;
            while (n < b.length && b[n] != 0) n++;
            f = java.util.Arrays.copyOf(b, n);
        }

        boolean more() {
            return i < f.length;
        }

        int peek() {
            return i < f.length ? f[i] & 0xFF : 0;
        }
    }

    private static int getnum(Interp I, Coroutine th, Fmt fmt, int df) {
        if (!LuaPattern.isdigit(fmt.peek())) return df;
        int a = 0;
        do {
            int d = fmt.peek() - '0';
            if (a > Integer.MAX_VALUE / 10 || a * 10 > Integer.MAX_VALUE - d) throw I.error(th, "integral size overflow");
            a = a * 10 + d;
            fmt.i++;
        } while (LuaPattern.isdigit(fmt.peek()));
        return a;
    }

    private static int optsize(Interp I, Coroutine th, int opt, Fmt fmt) {
        switch (opt) {
            case 'B':
            case 'b':
                return 1;
            case 'H':
            case 'h':
                return 2;
            case 'L':
            case 'l':
            case 'T':
                return 8;
            case 'f':
                return 4;
            case 'd':
                return 8;
            case 'x':
                return 1;
            case 'c':
                return getnum(I, th, fmt, 1);
            case 'i':
            case 'I': {
                int sz = getnum(I, th, fmt, 4);
                if (sz > MAXINTSIZE) throw I.error(th, "integral size " + sz + " is larger than limit of " + MAXINTSIZE);
                return sz;
            }
            default:
                return 0;
        }
    }

    private static int toAlign(long len, Fmt h, int opt, int size) {
        if (size == 0 || opt == 'c') return 0;
        if (size > h.align) size = h.align;
        return (int) ((size - (len & (size - 1))) & (size - 1));
    }

    private static void controlOptions(Interp I, Coroutine th, int opt, Fmt fmt) {
        switch (opt) {
            case ' ':
                return;
            case '>':
                fmt.endian = BIG;
                return;
            case '<':
                fmt.endian = LITTLE;
                return;
            case '!': {
                int a = getnum(I, th, fmt, MAXALIGN);
                if (!(a > 0 && (a & (a - 1)) == 0)) throw I.error(th, "alignment " + a + " is not a power of 2");
                fmt.align = a;
                return;
            }
            default:
                throw I.argError(th, 1, "invalid format option '" + (char) opt + "'");
        }
    }

    private static void putInteger(ByteArrayOutputStream b, double n, int endian, int size) {
        long value = n < 0 ? Num.cLong(n) : Num.cULong(n);
        byte[] buff = new byte[size];
        if (endian == LITTLE) {
            for (int i = 0; i < size; i++) {
                buff[i] = (byte) value;
                value = i < 7 ? value >>> 8 : 0;
            }
        } else {
            for (int i = size - 1, k = 0; i >= 0; i--, k++) {
                buff[i] = (byte) value;
                value = k < 7 ? value >>> 8 : 0;
            }
        }
        b.write(buff, 0, size);
    }

    private static int pack(Interp I, Coroutine th, int base, int n) {
        Fmt fmt = new Fmt(I.checkString(th, base, n, 1));
        // struct.pack pushes a nil right after its arguments: a missing argument reads as nil
        th.ensure(base + n + 1);
        th.stack()[base + n] = null;
        n++;
        int arg = 2;
        long total = 0;
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        while (fmt.more()) {
            int opt = fmt.f[fmt.i++] & 0xFF;
            int size = optsize(I, th, opt, fmt);
            int toalign = toAlign(total, fmt, opt, size);
            total += toalign;
            while (toalign-- > 0) b.write(0);
            switch (opt) {
                case 'b':
                case 'B':
                case 'h':
                case 'H':
                case 'l':
                case 'L':
                case 'T':
                case 'i':
                case 'I':
                    putInteger(b, I.checkNumber(th, base, n, arg++), fmt.endian, size);
                    break;
                case 'x':
                    b.write(0);
                    break;
                case 'f': {
                    int bits = Float.floatToRawIntBits((float) I.checkNumber(th, base, n, arg++));
                    for (int i = 0; i < 4; i++) {
                        int shift = fmt.endian == LITTLE ? i * 8 : (3 - i) * 8;
                        b.write(bits >>> shift);
                    }
                    break;
                }
                case 'd': {
                    long bits = Double.doubleToRawLongBits(I.checkNumber(th, base, n, arg++));
                    for (int i = 0; i < 8; i++) {
                        int shift = fmt.endian == LITTLE ? i * 8 : (7 - i) * 8;
                        b.write((int) (bits >>> shift));
                    }
                    break;
                }
                case 'c':
                case 's': {
                    LuaString s = I.checkString(th, base, n, arg++);
                    int l = s.length();
                    if (size == 0) size = l;
                    if (!(l >= size)) throw I.argError(th, arg, "string too short");
                    b.write(s.bytes, 0, size);
                    if (opt == 's') {
                        b.write(0);
                        size++;
                    }
                    break;
                }
                default:
                    controlOptions(I, th, opt, fmt);
            }
            total += size;
        }
        th.stack[base] = LuaString.wrap(b.toByteArray());
        return 1;
    }

    private static double getInteger(byte[] buff, int off, int endian, boolean signed, int size) {
        long l = 0;
        if (endian == BIG) {
            for (int i = 0; i < size; i++) {
                l <<= 8;
                l |= buff[off + i] & 0xFF;
            }
        } else {
            for (int i = size - 1; i >= 0; i--) {
                l <<= 8;
                l |= buff[off + i] & 0xFF;
            }
        }
        if (!signed) return Num.unsignedToDouble(l);
        long mask = -1L << (size * 8 - 1);
        if ((l & mask) != 0) l |= mask;
        return (double) l;
    }

    private static int unpack(Interp I, Coroutine th, int base, int n) {
        Fmt fmt = new Fmt(I.checkString(th, base, n, 1));
        LuaString dataStr = I.checkString(th, base, n, 2);
        byte[] data = dataStr.bytes;
        long ld = data.length;
        long pos = I.arg(th, base, n, 3) == null ? 1 : I.checkInteger(th, base, n, 3);
        if (pos == 0) throw I.argError(th, 3, "offset must be 1 or greater");
        pos--;
        java.util.ArrayList<Object> out = new java.util.ArrayList<>();
        while (fmt.more()) {
            int opt = fmt.f[fmt.i++] & 0xFF;
            long size = optsize(I, th, opt, fmt);
            pos += toAlign(pos, fmt, opt, (int) size);
            if (!(Long.compareUnsigned(size, ld) <= 0 && Long.compareUnsigned(pos, ld - size) <= 0)) {
                throw I.argError(th, 2, "data string too short");
            }
            if (out.size() + 2 + n > Interp.MAXCSTACK) throw I.error(th, "stack overflow (too many results)");
            switch (opt) {
                case 'b':
                case 'B':
                case 'h':
                case 'H':
                case 'l':
                case 'L':
                case 'T':
                case 'i':
                case 'I':
                    out.add(LuaValues.num(getInteger(data, (int) pos, fmt.endian, LuaPattern.islower(opt), (int) size)));
                    break;
                case 'x':
                    break;
                case 'f': {
                    int bits = 0;
                    for (int i = 0; i < 4; i++) {
                        int shift = fmt.endian == LITTLE ? i * 8 : (3 - i) * 8;
                        bits |= (data[(int) pos + i] & 0xFF) << shift;
                    }
                    out.add(LuaValues.num(Float.intBitsToFloat(bits)));
                    break;
                }
                case 'd': {
                    long bits = 0;
                    for (int i = 0; i < 8; i++) {
                        int shift = fmt.endian == LITTLE ? i * 8 : (7 - i) * 8;
                        bits |= (long) (data[(int) pos + i] & 0xFF) << shift;
                    }
                    out.add(LuaValues.num(Double.longBitsToDouble(bits)));
                    break;
                }
                case 'c': {
                    if (size == 0) {
                        if (out.isEmpty() || !(out.get(out.size() - 1) instanceof Double)) {
                            throw I.error(th, "format 'c0' needs a previous size");
                        }
                        size = Num.cULong((Double) out.remove(out.size() - 1));
                        if (!(Long.compareUnsigned(size, ld) <= 0 && Long.compareUnsigned(pos, ld - size) <= 0)) {
                            throw I.argError(th, 2, "data string too short");
                        }
                    }
                    out.add(LuaString.copyOf(data, (int) pos, (int) size));
                    break;
                }
                case 's': {
                    int e = (int) pos;
                    while (e < data.length && data[e] != 0) e++;
                    if (e >= data.length) throw I.error(th, "unfinished string in data");
                    size = (e - pos) + 1;
                    out.add(LuaString.copyOf(data, (int) pos, (int) size - 1));
                    break;
                }
                default:
                    controlOptions(I, th, opt, fmt);
            }
            pos += size;
        }
        out.add(LuaValues.num((double) (pos + 1)));
        return I.ret(th, base, out.toArray());
    }

    private static int size(Interp I, Coroutine th, int base, int n) {
        Fmt fmt = new Fmt(I.checkString(th, base, n, 1));
        long pos = 0;
        while (fmt.more()) {
            int opt = fmt.f[fmt.i++] & 0xFF;
            int size = optsize(I, th, opt, fmt);
            pos += toAlign(pos, fmt, opt, size);
            if (opt == 's') throw I.argError(th, 1, "option 's' has no fixed size");
            else if (opt == 'c' && size == 0) throw I.argError(th, 1, "option 'c0' has no fixed size");
            if (!(LuaPattern.isalpha(opt) || LuaPattern.isdigit(opt))) controlOptions(I, th, opt, fmt);
            pos += size;
        }
        th.stack[base] = LuaValues.num((double) pos);
        return 1;
    }
}
