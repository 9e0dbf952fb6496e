package io.spinel.core.util;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Objects;

/**
 * Memory outside the Java heap, allocated and freed by hand (malloc and free), for big string
 * values (see {@code StringEntry.BIG}): the garbage collector never copies what it never sees,
 * and a value received from the socket can be written once, where it stays.
 *
 * <p>Uses the JDK's internal {@code Unsafe} (what {@code ByteBuffer.allocateDirect} uses), reachable
 * when {@code java.base/jdk.internal.misc} is opened to this code, as the launcher does; where it
 * is not, e.g. embedded in an application started without that option, {@link #available()} is
 * false and values stay on the heap. Every copy checks the heap array's bounds; the native side
 * is the caller's responsibility (an address and the length it was allocated with).
 */
public final class NativeMemory {
    private NativeMemory() {
    }

    private static final MethodHandle ALLOCATE;
    private static final MethodHandle FREE;
    /** Unsafe.copyMemory(Object srcBase, long srcOffset, Object destBase, long destOffset, long bytes). */
    private static final MethodHandle COPY;
    private static final MethodHandle GET_LONG;
    private static final MethodHandle PUT_LONG;
    private static final long BYTE_ARRAY_BASE;
    /**
     * Bytes before each block's address: its size, so that a freed block can be kept for reuse
     * ({@link NativeBlocks}); 16 keeps the address as aligned as malloc's.
     */
    private static final long HEADER = 16;
    /** Blocks allocated and not yet freed, in this JVM (what a leak would show). */
    private static final java.util.concurrent.atomic.AtomicLong BLOCKS = new java.util.concurrent.atomic.AtomicLong();

    static {
        MethodHandle allocate = null, free = null, copy = null, getLong = null, putLong = null;
        long base = 0;
        try {
            Class<?> unsafeClass = Class.forName("jdk.internal.misc.Unsafe");
            Object unsafe = unsafeClass.getMethod("getUnsafe").invoke(null);
            MethodHandles.Lookup l = MethodHandles.lookup();
            allocate = l.findVirtual(unsafeClass, "allocateMemory", MethodType.methodType(long.class, long.class))
                    .bindTo(unsafe);
            free = l.findVirtual(unsafeClass, "freeMemory", MethodType.methodType(void.class, long.class))
                    .bindTo(unsafe);
            copy = l.findVirtual(unsafeClass, "copyMemory", MethodType.methodType(void.class, Object.class,
                    long.class, Object.class, long.class, long.class)).bindTo(unsafe);
            getLong = l.findVirtual(unsafeClass, "getLong", MethodType.methodType(long.class, long.class)).bindTo(unsafe);
            putLong = l.findVirtual(unsafeClass, "putLong", MethodType.methodType(void.class, long.class, long.class))
                    .bindTo(unsafe);
            base = ((Number) unsafeClass.getField("ARRAY_BYTE_BASE_OFFSET").get(null)).longValue();
            // a round trip proves the package is open and the methods are the ones expected
            byte[] probe = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
            byte[] back = new byte[16];
            long a = (long) allocate.invokeExact(16L);
            copy.invokeExact((Object) probe, base, (Object) null, a, 16L);
            copy.invokeExact((Object) null, a, (Object) back, base, 16L);
            free.invokeExact(a);
            if (!java.util.Arrays.equals(probe, back)) allocate = null;
        } catch (Throwable notOpen) {
            allocate = null;
        }
        ALLOCATE = allocate;
        FREE = free;
        COPY = copy;
        GET_LONG = getLong;
        PUT_LONG = putLong;
        BYTE_ARRAY_BASE = base;
    }

    /** Whether native memory can be used here (the JDK's internals are open to this code). */
    public static boolean available() {
        return ALLOCATE != null;
    }

    /**
     * The address of at least {@code bytes} new bytes, contents undefined; OutOfMemoryError when
     * none. A block freed recently of the same size class is reused ({@link NativeBlocks}).
     */
    public static long allocate(long bytes) {
        try {
            long size = NativeBlocks.sizeFor(bytes + HEADER);
            long base = NativeBlocks.take(size);
            if (base == 0) base = (long) ALLOCATE.invokeExact(size);
            PUT_LONG.invokeExact(base, size);
            BLOCKS.incrementAndGet();
            return base + HEADER;
        } catch (Throwable t) {
            throw unchecked(t);
        }
    }

    /**
     * What a block for {@code bytes} takes: the size class {@link #allocate} rounds it up to and
     * its size header. Memory accounting counts this, as Redis counts jemalloc's size classes.
     */
    public static long footprint(long bytes) {
        return NativeBlocks.sizeFor(bytes + HEADER);
    }

    /**
     * Frees what {@link #allocate} returned; nothing may use the address afterwards. A block of
     * a cached size goes back to malloc only once unused for a while ({@link #decay}).
     */
    public static void free(long address) {
        try {
            long base = address - HEADER;
            long size = (long) GET_LONG.invokeExact(base);
            BLOCKS.decrementAndGet();
            if (!NativeBlocks.keep(base, size, System.nanoTime())) FREE.invokeExact(base);
        } catch (Throwable t) {
            throw unchecked(t);
        }
    }

    /** Gives malloc back the kept blocks unused for {@link NativeBlocks#KEEP_NANOS} (a cron's call). */
    public static void decay() {
        decay(System.nanoTime());
    }

    static void decay(long now) {
        freeKept(NativeBlocks.expired(now, false));
    }

    /** Gives malloc back every kept block (a server that stops). */
    public static void releaseKept() {
        freeKept(NativeBlocks.expired(System.nanoTime(), true));
    }

    private static void freeKept(long[] bases) {
        if (bases == null) return;
        try {
            for (long base : bases) {
                if (base != 0) FREE.invokeExact(base);
            }
        } catch (Throwable t) {
            throw unchecked(t);
        }
    }

    /** Bytes of freed blocks kept for reuse. */
    public static long keptBytes() {
        return NativeBlocks.keptBytes();
    }

    /** Blocks allocated and not freed yet, by every user in this JVM. */
    public static long blocksInUse() {
        return BLOCKS.get();
    }

    /** Copies len bytes of the array from off to the address. */
    public static void copyFrom(byte[] src, int off, long address, int len) {
        Objects.checkFromIndexSize(off, len, src.length);
        copy(src, BYTE_ARRAY_BASE + off, null, address, len);
    }

    /** Copies len bytes at the address into the array at off. */
    public static void copyTo(long address, byte[] dst, int off, int len) {
        Objects.checkFromIndexSize(off, len, dst.length);
        copy(null, address, dst, BYTE_ARRAY_BASE + off, len);
    }

    /** Copies len bytes between two native addresses. */
    public static void copy(long from, long to, int len) {
        copy(null, from, null, to, len);
    }

    private static void copy(Object srcBase, long src, Object dstBase, long dst, long len) {
        try {
            COPY.invokeExact(srcBase, src, dstBase, dst, len);
        } catch (Throwable t) {
            throw unchecked(t);
        }
    }

    /** What a method handle threw, as it was when unchecked (the JDK methods declare nothing). */
    private static RuntimeException unchecked(Throwable t) {
        if (t instanceof RuntimeException) return (RuntimeException) t;
        if (t instanceof Error) throw (Error) t;
        return new IllegalStateException(t);
    }
}
