package io.spinel.core.util;

import java.util.concurrent.TimeUnit;

/**
 * Freed blocks of {@link NativeMemory} kept for reuse for a while, as jemalloc keeps Redis's freed
 * pages and purges them over 10 s: a value stored where one was freed moments ago (an overwrite,
 * a key deleted and another set, a FLUSHALL and the next writes) then needs no fresh pages, each
 * of which the kernel faults in and zeroes, and malloc's arenas are not walked. Blocks unused for
 * {@link #KEEP_NANOS} go back to malloc, and from there the JVM's periodic trim returns them to
 * the system.
 *
 * <p>Only sizes from 32 KB to 64 MB are kept, rounded up to one of 16 sizes per doubling (at most
 * 6.25% more than asked, where jemalloc's 4 sizes per doubling give up to 25%), so that a value
 * of about the same size finds a block. Thread-safe: values are received and loaded on several
 * threads.
 */
final class NativeBlocks {
    private NativeBlocks() {
    }

    static final long MIN = 32 * 1024;
    static final long MAX = 64L << 20;
    private static final int STEPS = 16;
    private static final int LOG_MIN = Long.numberOfTrailingZeros(MIN);
    static final long KEEP_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** Kept bytes past which a freed block goes straight back to malloc. */
    static final long MAX_KEPT = 4L << 30;

    /** Per size class: kept blocks, oldest first, in a ring. */
    private static final long[][] BASES = new long[classOf(MAX) + 1][];
    private static final long[][] FREED_AT = new long[BASES.length][];
    private static final int[] HEAD = new int[BASES.length];
    private static final int[] COUNT = new int[BASES.length];
    private static long kept;

    /** The size to allocate for a request of {@code bytes}: rounded up to its class where kept. */
    static long sizeFor(long bytes) {
        if (bytes < MIN || bytes > MAX) return bytes;
        long step = Long.highestOneBit(bytes - 1) / STEPS;
        return (bytes + step - 1) / step * step;
    }

    /** The class of a size that {@link #sizeFor} returned, MIN..MAX. */
    static int classOf(long size) {
        long base = Long.highestOneBit(size - 1);
        long step = base / STEPS;
        int k = (int) (size / step) - STEPS; // 1..STEPS
        return (Long.numberOfTrailingZeros(base) - (LOG_MIN - 1)) * STEPS + k - 1;
    }

    private static boolean kept(long size) {
        return size >= MIN && size <= MAX && sizeFor(size) == size;
    }

    /** A kept block of exactly {@code size} bytes (most recently freed first), or 0. */
    static synchronized long take(long size) {
        if (kept == 0 || !kept(size)) return 0;
        int c = classOf(size);
        int n = COUNT[c];
        if (n == 0) return 0;
        long[] ring = BASES[c];
        int last = (HEAD[c] + n - 1) % ring.length;
        long base = ring[last];
        COUNT[c] = n - 1;
        kept -= size;
        return base;
    }

    /** Keeps a freed block of {@code size} bytes for reuse; false if it is for malloc now. */
    static synchronized boolean keep(long base, long size, long now) {
        if (!kept(size) || kept + size > MAX_KEPT) return false;
        int c = classOf(size);
        long[] ring = BASES[c];
        int n = COUNT[c];
        if (ring == null || n == ring.length) {
            int cap = ring == null ? 16 : ring.length * 2;
            long[] bases = new long[cap];
            long[] times = new long[cap];
            for (int i = 0; i < n; i++) {
                bases[i] = ring[(HEAD[c] + i) % ring.length];
                times[i] = FREED_AT[c][(HEAD[c] + i) % ring.length];
            }
            BASES[c] = ring = bases;
            FREED_AT[c] = times;
            HEAD[c] = 0;
        }
        int slot = (HEAD[c] + n) % ring.length;
        ring[slot] = base;
        FREED_AT[c][slot] = now;
        COUNT[c] = n + 1;
        kept += size;
        return true;
    }

    /**
     * Takes out the blocks kept longer than {@link #KEEP_NANOS} (all of them if {@code all}), for
     * the caller to free; null when there are none.
     */
    static synchronized long[] expired(long now, boolean all) {
        if (kept == 0) return null;
        long[] out = null;
        int found = 0;
        for (int c = 0; c < BASES.length; c++) {
            long[] ring = BASES[c];
            while (COUNT[c] > 0 && (all || now - FREED_AT[c][HEAD[c]] > KEEP_NANOS)) {
                if (out == null) out = new long[16];
                else if (found == out.length) out = java.util.Arrays.copyOf(out, found * 2);
                out[found++] = ring[HEAD[c]];
                kept -= sizeOfClass(c);
                HEAD[c] = (HEAD[c] + 1) % ring.length;
                COUNT[c]--;
            }
        }
        return out;
    }

    private static long sizeOfClass(int c) {
        long base = 1L << (c / STEPS + LOG_MIN - 1);
        return base + (c % STEPS + 1) * (base / STEPS);
    }

    static synchronized long keptBytes() {
        return kept;
    }
}
