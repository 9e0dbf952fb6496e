package io.spinel.core.persist;

import io.spinel.core.util.Bytes;

/**
 * The LZF compression format RDB uses for strings (liblzf's stream format): a control byte
 * below 32 starts a run of that many plus one literal bytes; any other control byte is a back
 * reference whose top three bits are the length minus two (7 meaning "add the next byte") and
 * whose low five bits with the following byte are the distance minus one (up to 8 KB back).
 */
public final class Lzf {
    private Lzf() {
    }

    /** Redis builds liblzf with HLOG 16 and VERY_FAST: the output below is that build's, byte for byte. */
    private static final int HLOG = 16;
    private static final int MAX_LIT = 1 << 5;
    private static final int MAX_OFF = 1 << 13;
    private static final int MAX_REF = (1 << 8) + (1 << 3);

    /**
     * A thread's hash table: the last position seen per slot, stored as {@code base} plus the
     * offset in the input. Each call starts past the last call's values, so what an earlier call
     * left reads as an empty slot, as in liblzf's fresh table, without clearing 256 KB per call.
     */
    private static final class Table {
        final int[] slots = new int[1 << HLOG];
        int base = 1;
    }

    private static final ThreadLocal<Table> TABLE = ThreadLocal.withInitial(Table::new);
    private static final java.lang.invoke.VarHandle INT_BE =
            java.lang.invoke.MethodHandles.byteArrayViewVarHandle(int[].class, java.nio.ByteOrder.BIG_ENDIAN);

    /**
     * liblzf's slot for the hash value h: the last four bytes read, the newest lowest (three
     * at the input's start and where indexing restarts after a match).
     */
    private static int slot(int h) {
        return ((h >>> (3 * 8 - HLOG)) - h * 5) & ((1 << HLOG) - 1);
    }

    /**
     * Compresses in[inOff, inOff+inLen) into out[outOff, outOff+outLen) exactly as Redis's
     * liblzf does, so that DUMP payloads and RDB files hold Redis's bytes: the same hash of the
     * same bytes, the same table updates after a match (the two positions before the next one),
     * the same match lengths (a match stops two bytes short of the input's end unless liblzf's
     * unrolled comparison reaches them) and the same point of giving up. liblzf rolls its hash
     * value a byte at a time; here each position reads its four bytes as one big-endian word and
     * the three-byte check is one comparison (a 2 KB listpack 2.1 us against 2.4 with bytes one
     * by one), and matches are extended eight bytes at a time.
     *
     * @return the compressed length, or 0 if it would not fit in outLen bytes
     */
    public static int compress(byte[] in, int inOff, int inLen, byte[] out, int outOff, int outLen) {
        if (inLen == 0 || outLen == 0) return 0;
        Table t = TABLE.get();
        int[] htab = t.slots;
        if (t.base > Integer.MAX_VALUE - inLen) {
            java.util.Arrays.fill(htab, 0);
            t.base = 1;
        }
        int bias = t.base - inOff; // a slot holds position + bias; below inOff when it is not this call's
        t.base += inLen;
        int ip = inOff;
        int end = inOff + inLen;
        int op = outOff;
        int outEnd = outOff + outLen;
        int lit = 0;
        op++; // the first run's control byte
        while (ip < end - 2) {
            // liblzf's running hash value: the four bytes before ip+3, the newest lowest (only three at the start)
            int hval = ip > inOff ? (int) INT_BE.get(in, ip - 1) : (in[ip] & 0xff) << 16 | (in[ip + 1] & 0xff) << 8 | (in[ip + 2] & 0xff);
            int h = slot(hval);
            int ref = htab[h] - bias;
            htab[h] = ip + bias;
            int off = ip - ref - 1;
            // off in [0, MAX_OFF) in one test; hval's low three bytes are in[ip..ip+2]
            if ((off & -MAX_OFF) == 0 && ref > inOff && (int) INT_BE.get(in, ref) >>> 8 == (hval & 0xFFFFFF)) {
                if (op + 4 >= outEnd && op - (lit == 0 ? 1 : 0) + 4 >= outEnd) return 0;
                out[op - lit - 1] = (byte) (lit - 1); // ends the literal run
                if (lit == 0) op--; // an empty run has no control byte
                int len = matchLength(in, ref, ip, Math.min(end - ip - 2, MAX_REF));
                int code = len - 2;
                if (code < 7) {
                    out[op++] = (byte) ((off >> 8) + (code << 5));
                } else {
                    out[op++] = (byte) ((off >> 8) + (7 << 5));
                    out[op++] = (byte) (code - 7);
                }
                out[op++] = (byte) off;
                lit = 0;
                op++;
                ip += len;
                if (ip >= end - 2) break;
                // liblzf (VERY_FAST) indexes the two positions before the next one, the first by
                // three bytes only (its hash value starts again there)
                int p = ip - 2;
                htab[slot((int) INT_BE.get(in, p) >>> 8)] = p + bias;
                htab[slot((int) INT_BE.get(in, p))] = p + 1 + bias;
            } else {
                if (op >= outEnd) return 0;
                lit++;
                out[op++] = in[ip++];
                if (lit == MAX_LIT) {
                    out[op - lit - 1] = (byte) (lit - 1);
                    lit = 0;
                    op++;
                }
            }
        }
        if (op + 3 > outEnd) return 0;
        while (ip < end) { // at most two bytes
            lit++;
            out[op++] = in[ip++];
            if (lit == MAX_LIT) {
                out[op - lit - 1] = (byte) (lit - 1);
                lit = 0;
                op++;
            }
        }
        out[op - lit - 1] = (byte) (lit - 1);
        if (lit == 0) op--;
        return op - outOff;
    }

    /**
     * liblzf's length of the match at ip with ref (whose first three bytes are equal): the equal
     * bytes up to maxlen, at least 3; where maxlen is above 16, liblzf first compares 16 bytes
     * without looking at maxlen, so a match may reach 19 bytes there (maxlen 17 or 18 is at
     * most two bytes short of the input's end, so those bytes exist). Compared a word at a time.
     */
    private static int matchLength(byte[] in, int ref, int ip, int maxlen) {
        int cap = maxlen > 16 ? Math.max(maxlen, 19) : Math.max(maxlen, 3);
        int len = 3;
        while (len + 8 <= cap) {
            long x = Bytes.getLongLE(in, ref + len) ^ Bytes.getLongLE(in, ip + len);
            if (x != 0) return len + (Long.numberOfTrailingZeros(x) >>> 3);
            len += 8;
        }
        while (len < cap && in[ref + len] == in[ip + len]) len++;
        return len;
    }

    /**
     * The most one compressed byte can stand for: a long back reference, 3 bytes, copies
     * 7 + 255 + 2 = 264 bytes.
     */
    private static final int MAX_EXPANSION = 264 / 3;

    /** Whether clen compressed bytes can expand to ulen: lets a reader refuse a length before allocating it. */
    public static boolean canExpandTo(long clen, long ulen) {
        return ulen >= 0 && clen >= 0 && ulen <= clen * MAX_EXPANSION;
    }

    /**
     * Decompresses in[inOff, inOff+inLen) into exactly outLen bytes at out[outOff].
     *
     * @throws IllegalArgumentException if the data is not a valid stream of that length
     */
    public static void decompress(byte[] in, int inOff, int inLen, byte[] out, int outOff, int outLen) {
        int ip = inOff;
        int end = inOff + inLen;
        int op = outOff;
        int outEnd = outOff + outLen;
        while (ip < end) {
            int ctrl = in[ip++] & 0xff;
            if (ctrl < 32) {
                int n = ctrl + 1;
                if (ip + n > end || op + n > outEnd) throw new IllegalArgumentException("Invalid LZF compressed string");
                System.arraycopy(in, ip, out, op, n);
                ip += n;
                op += n;
            } else {
                int len = ctrl >>> 5;
                if (len == 7) {
                    if (ip >= end) throw new IllegalArgumentException("Invalid LZF compressed string");
                    len += in[ip++] & 0xff;
                }
                if (ip >= end) throw new IllegalArgumentException("Invalid LZF compressed string");
                int ref = op - ((ctrl & 0x1f) << 8) - 1 - (in[ip++] & 0xff);
                len += 2;
                if (ref < outOff || op + len > outEnd) throw new IllegalArgumentException("Invalid LZF compressed string");
                for (int k = 0; k < len; k++) out[op++] = out[ref++];
            }
        }
        if (op != outEnd) throw new IllegalArgumentException("Invalid LZF compressed string");
    }
}
