package io.spinel.core.type.hll;

import io.spinel.core.util.Bytes;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The HyperLogLog representation Redis stores in a string value, reproduced bit for bit so that the
 * same bytes move between Redis and Spinel (GET/SET, DUMP/RESTORE, RDB) and give the same counts.
 *
 * <pre>
 *  header (16 bytes)  "HYLL", encoding (0 dense, 1 sparse), 3 unused bytes,
 *                     cached cardinality: 8 bytes little endian; bit 7 of the last byte set = stale
 *  dense              16384 registers of 6 bits, packed from the low bits of each byte upwards
 *  sparse             run-length opcodes over the registers:
 *                       00xxxxxx           ZERO:  1..64 registers at 0
 *                       01xxxxxx yyyyyyyy  XZERO: 1..16384 registers at 0 (14-bit length - 1)
 *                       1vvvvvxx           VAL:   1..4 registers at value 1..32
 * </pre>
 *
 * Elements hash with MurmurHash64A (seed 0xadc83b19): the low 14 bits pick the register, the
 * position of the lowest set bit of the rest (plus one) is the run length it records. The estimate
 * is Ertl's improved raw estimator over the register histogram, as in Redis 5+.
 *
 * <p>A sparse HLL is corrupted unless its opcodes cover exactly the 16384 registers; an opcode
 * running past the last register makes it corrupted at once. That is the reference server's
 * behaviour (Debian's 7.0.15 carries the CVE-2025-32023 fix, which added the check for every
 * opcode), and it keeps a long run of opcodes from wrapping the register index around.
 *
 * <p>Everything here works on a slice of a larger array (the value inside a string entry): {@code v}
 * is the offset of the header. The sparse editing that may grow the value is in {@link HllValue}.
 */
public final class Hll {
    private Hll() {
    }

    public static final int P = 14;
    /** Bits of the hash left for the run length. */
    public static final int Q = 64 - P;
    public static final int REGISTERS = 1 << P;
    static final int P_MASK = REGISTERS - 1;
    static final int REGISTER_MAX = 63;
    public static final int HDR = 16;
    public static final int DENSE_SIZE = HDR + (REGISTERS * 6 + 7) / 8;
    public static final int DENSE = 0;
    public static final int SPARSE = 1;
    static final int SPARSE_VAL_MAX_VALUE = 32;
    static final int SPARSE_VAL_MAX_LEN = 4;
    static final int SPARSE_ZERO_MAX_LEN = 64;
    static final int SPARSE_XZERO_MAX_LEN = 16384;
    /** An empty sparse HLL: the header and one XZERO covering every register. */
    public static final int EMPTY_SPARSE_SIZE = HDR + 2;

    private static final long SEED = 0xadc83b19L;
    private static final long M = 0xc6a4a7935bd1e995L;
    private static final double ALPHA_INF = 0.721347520444481703680; // 0.5 / ln(2)

    private static final VarHandle LONG_LE =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    // ---- header ---------------------------------------------------------------------------------

    /** Whether the slice is a string Redis accepts as an HLL (isHLLObjectOrReply's checks). */
    public static boolean isValid(byte[] a, int v, int len) {
        if (len < HDR) return false;
        if (a[v] != 'H' || a[v + 1] != 'Y' || a[v + 2] != 'L' || a[v + 3] != 'L') return false;
        int enc = a[v + 4] & 0xff;
        if (enc > SPARSE) return false;
        return enc != DENSE || len == DENSE_SIZE;
    }

    public static int encoding(byte[] a, int v) {
        return a[v + 4] & 0xff;
    }

    public static boolean cacheValid(byte[] a, int v) {
        return (a[v + 15] & 0x80) == 0;
    }

    public static void invalidateCache(byte[] a, int v) {
        a[v + 15] |= (byte) 0x80;
    }

    public static long cachedCardinality(byte[] a, int v) {
        return Bytes.getLongLE(a, v + 8);
    }

    public static void setCachedCardinality(byte[] a, int v, long card) {
        Bytes.putLongLE(a, v + 8, card);
    }

    /** Writes an empty sparse HLL (EMPTY_SPARSE_SIZE bytes) at v. */
    public static void writeEmptySparse(byte[] a, int v) {
        a[v] = 'H';
        a[v + 1] = 'Y';
        a[v + 2] = 'L';
        a[v + 3] = 'L';
        a[v + 4] = SPARSE;
        for (int i = 5; i < HDR; i++) a[v + i] = 0;
        int l = REGISTERS - 1;
        a[v + HDR] = (byte) (0x40 | (l >>> 8));
        a[v + HDR + 1] = (byte) l;
    }

    // ---- hashing ----------------------------------------------------------------------------------

    /** MurmurHash64A as Redis computes it (little-endian words whatever the platform). */
    public static long hash(byte[] b, int off, int len) {
        long h = SEED ^ (len * M);
        int end = off + (len & ~7);
        for (int i = off; i < end; i += 8) {
            long k = (long) LONG_LE.get(b, i);
            k *= M;
            k ^= k >>> 47;
            k *= M;
            h ^= k;
            h *= M;
        }
        int rest = len & 7;
        if (rest != 0) {
            for (int i = rest - 1; i >= 0; i--) h ^= (b[end + i] & 0xffL) << (8 * i);
            h *= M;
        }
        h ^= h >>> 47;
        h *= M;
        h ^= h >>> 47;
        return h;
    }

    /** The register an element with this hash updates. */
    public static int registerOf(long hash) {
        return (int) (hash & P_MASK);
    }

    /** The run length (1..Q+1) an element with this hash records: position of the first 1 bit after the index. */
    public static int runOf(long hash) {
        return Long.numberOfTrailingZeros((hash >>> P) | (1L << Q)) + 1;
    }

    // ---- dense ------------------------------------------------------------------------------------

    /** Register i of dense registers starting at r. */
    public static int denseGet(byte[] a, int r, int i) {
        int bit = i * 6;
        int p = r + (bit >>> 3);
        int fb = bit & 7;
        int x = (a[p] & 0xff) >>> fb;
        if (fb > 2) x |= (a[p + 1] & 0xff) << (8 - fb);
        return x & REGISTER_MAX;
    }

    public static void denseSet(byte[] a, int r, int i, int value) {
        int bit = i * 6;
        int p = r + (bit >>> 3);
        int fb = bit & 7;
        a[p] = (byte) ((a[p] & ~(REGISTER_MAX << fb)) | (value << fb));
        if (fb > 2) {
            int sh = 8 - fb;
            a[p + 1] = (byte) ((a[p + 1] & ~(REGISTER_MAX >>> sh)) | (value >>> sh));
        }
    }

    /** Raises register i to count if it is lower; returns 1 if it changed, 0 otherwise. */
    public static int denseUpdate(byte[] a, int r, int i, int count) {
        if (count > denseGet(a, r, i)) {
            denseSet(a, r, i, count);
            return 1;
        }
        return 0;
    }

    /** Adds the register values of dense registers at r to the histogram. */
    static void denseHistogram(byte[] a, int r, int[] histo) {
        // four registers per three bytes
        for (int p = r, end = r + REGISTERS * 6 / 8; p < end; p += 3) {
            int b0 = a[p] & 0xff, b1 = a[p + 1] & 0xff, b2 = a[p + 2] & 0xff;
            histo[b0 & 63]++;
            histo[(b0 >>> 6 | b1 << 2) & 63]++;
            histo[(b1 >>> 4 | b2 << 4) & 63]++;
            histo[b2 >>> 2]++;
        }
    }

    // ---- sparse -----------------------------------------------------------------------------------

    static boolean isZero(int op) {
        return (op & 0xc0) == 0;
    }

    static boolean isXZero(int op) {
        return (op & 0xc0) == 0x40;
    }

    static boolean isVal(int op) {
        return (op & 0x80) != 0;
    }

    static int zeroLen(int op) {
        return (op & 0x3f) + 1;
    }

    /** XZERO run length; a second byte past the end reads as 0, as the NUL after an sds does. */
    static int xzeroLen(byte[] a, int p, int end) {
        int lo = p + 1 < end ? a[p + 1] & 0xff : 0;
        return ((a[p] & 0x3f) << 8 | lo) + 1;
    }

    static int valValue(int op) {
        return ((op >>> 2) & 0x1f) + 1;
    }

    static int valLen(int op) {
        return (op & 3) + 1;
    }

    static byte valOp(int value, int len) {
        return (byte) (0x80 | (value - 1) << 2 | (len - 1));
    }

    /**
     * Adds the register values of the sparse opcodes in [p, end) to the histogram; returns whether
     * they cover exactly the 16384 registers.
     */
    static boolean sparseHistogram(byte[] a, int p, int end, int[] histo) {
        int idx = 0;
        while (p < end) {
            int op = a[p] & 0xff;
            int run;
            if (isZero(op)) {
                run = zeroLen(op);
                if (run + idx > REGISTERS) return false;
                histo[0] += run;
                p++;
            } else if (isXZero(op)) {
                run = xzeroLen(a, p, end);
                if (run + idx > REGISTERS) return false;
                histo[0] += run;
                p += 2;
            } else {
                run = valLen(op);
                if (run + idx > REGISTERS) return false;
                histo[valValue(op)] += run;
                p++;
            }
            idx += run;
        }
        return idx == REGISTERS;
    }

    /**
     * Decodes sparse opcodes in [p, end) into one byte per register, keeping the larger value where
     * {@code max} already holds one (merging). Returns false if the opcodes do not cover exactly the
     * registers (corrupted), possibly after updating part of {@code max}.
     */
    static boolean sparseMax(byte[] a, int p, int end, byte[] max) {
        int i = 0;
        while (p < end) {
            int op = a[p] & 0xff;
            if (isZero(op)) {
                int run = zeroLen(op);
                if (run + i > REGISTERS) return false;
                i += run;
                p++;
            } else if (isXZero(op)) {
                int run = xzeroLen(a, p, end);
                if (run + i > REGISTERS) return false;
                i += run;
                p += 2;
            } else {
                int run = valLen(op);
                int val = valValue(op);
                if (run + i > REGISTERS) return false;
                for (int k = 0; k < run; k++, i++) {
                    if (val > max[i]) max[i] = (byte) val;
                }
                p++;
            }
        }
        return i == REGISTERS;
    }

    /**
     * Decodes the sparse HLL at v into the dense registers at {@code out[r..]} (which must be zero).
     * Returns false if it is corrupted.
     */
    static boolean sparseToDense(byte[] a, int v, int len, byte[] out, int r) {
        int p = v + HDR, end = v + len;
        int idx = 0;
        while (p < end) {
            int op = a[p] & 0xff;
            if (isZero(op)) {
                int run = zeroLen(op);
                if (run + idx > REGISTERS) return false;
                idx += run;
                p++;
            } else if (isXZero(op)) {
                int run = xzeroLen(a, p, end);
                if (run + idx > REGISTERS) return false;
                idx += run;
                p += 2;
            } else {
                int run = valLen(op);
                int val = valValue(op);
                if (run + idx > REGISTERS) return false;
                for (int k = 0; k < run; k++) denseSet(out, r, idx++, val);
                p++;
            }
        }
        return idx == REGISTERS;
    }

    // ---- counting ---------------------------------------------------------------------------------

    /**
     * The register histogram of the HLL at v (64 slots, zeroed by the caller); false if a sparse
     * HLL is corrupted.
     */
    public static boolean histogram(byte[] a, int v, int len, int[] histo) {
        if (encoding(a, v) == DENSE) {
            denseHistogram(a, v + HDR, histo);
            return true;
        }
        return sparseHistogram(a, v + HDR, v + len, histo);
    }

    /** The histogram of registers held one per byte (values up to 63). */
    public static void rawHistogram(byte[] regs, int[] histo) {
        for (int i = 0; i < REGISTERS; i++) histo[regs[i]]++;
    }

    /** The cardinality estimate from a register histogram (Ertl, arXiv:1702.01284), as Redis computes it. */
    public static long estimate(int[] histo) {
        double m = REGISTERS;
        double z = m * tau((m - histo[Q + 1]) / m);
        for (int j = Q; j >= 1; j--) {
            z += histo[j];
            z *= 0.5;
        }
        z += m * sigma(histo[0] / m);
        return Math.round(ALPHA_INF * m * m / z);
    }

    private static double sigma(double x) {
        if (x == 1.0) return Double.POSITIVE_INFINITY;
        double y = 1, z = x, prev;
        do {
            x *= x;
            prev = z;
            z += x * y;
            y += y;
        } while (prev != z);
        return z;
    }

    private static double tau(double x) {
        if (x == 0.0 || x == 1.0) return 0.0;
        double y = 1.0, z = 1 - x, prev;
        do {
            x = Math.sqrt(x);
            prev = z;
            y *= 0.5;
            double d = 1 - x;
            z -= d * d * y;
        } while (prev != z);
        return z / 3;
    }

    /**
     * Raises {@code max[i]} (one byte per register) to the registers of the HLL at v; false if a
     * sparse HLL is corrupted.
     */
    public static boolean mergeInto(byte[] max, byte[] a, int v, int len) {
        if (encoding(a, v) == DENSE) {
            // four registers per three bytes, as in denseHistogram
            for (int p = v + HDR, i = 0; i < REGISTERS; p += 3, i += 4) {
                int b0 = a[p] & 0xff, b1 = a[p + 1] & 0xff, b2 = a[p + 2] & 0xff;
                int r0 = b0 & 63, r1 = (b0 >>> 6 | b1 << 2) & 63, r2 = (b1 >>> 4 | b2 << 4) & 63, r3 = b2 >>> 2;
                if (r0 > max[i]) max[i] = (byte) r0;
                if (r1 > max[i + 1]) max[i + 1] = (byte) r1;
                if (r2 > max[i + 2]) max[i + 2] = (byte) r2;
                if (r3 > max[i + 3]) max[i + 3] = (byte) r3;
            }
            return true;
        }
        return sparseMax(a, v + HDR, v + len, max);
    }

    /** Writes every register (each 0..63) as the dense registers at r, three bytes per four. */
    public static void denseWriteAll(byte[] a, int r, byte[] registers) {
        for (int p = r, i = 0; i < REGISTERS; p += 3, i += 4) {
            int r0 = registers[i], r1 = registers[i + 1], r2 = registers[i + 2], r3 = registers[i + 3];
            a[p] = (byte) (r0 | r1 << 6);
            a[p + 1] = (byte) (r1 >>> 2 | r2 << 4);
            a[p + 2] = (byte) (r2 >>> 4 | r3 << 2);
        }
    }

    /** PFDEBUG DECODE's text for a sparse HLL: "Z:n" "z:n" "v:value,len" separated by spaces. */
    public static String decode(byte[] a, int v, int len) {
        StringBuilder sb = new StringBuilder();
        int p = v + HDR, end = v + len;
        while (p < end) {
            int op = a[p] & 0xff;
            if (sb.length() > 0) sb.append(' ');
            if (isZero(op)) {
                sb.append("z:").append(zeroLen(op));
                p++;
            } else if (isXZero(op)) {
                sb.append("Z:").append(xzeroLen(a, p, end));
                p += 2;
            } else {
                sb.append("v:").append(valValue(op)).append(',').append(valLen(op));
                p++;
            }
        }
        return sb.toString();
    }
}
