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
    private static final long BYTE_ARRAY_BASE;
    /** Blocks allocated and not yet freed, in this JVM (what a leak would show). */
    private static final java.util.concurrent.atomic.AtomicLong BLOCKS = new java.util.concurrent.atomic.AtomicLong();

    static {
        MethodHandle allocate = null, free = null, copy = null;
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
        BYTE_ARRAY_BASE = base;
    }

    /** Whether native memory can be used here (the JDK's internals are open to this code). */
    public static boolean available() {
        return ALLOCATE != null;
    }

    /** The address of {@code bytes} new bytes, contents undefined; OutOfMemoryError when none. */
    public static long allocate(long bytes) {
        try {
            long address = (long) ALLOCATE.invokeExact(bytes);
            BLOCKS.incrementAndGet();
            return address;
        } catch (Throwable t) {
            throw unchecked(t);
        }
    }

    /** Frees what {@link #allocate} returned; nothing may use the address afterwards. */
    public static void free(long address) {
        try {
            FREE.invokeExact(address);
            BLOCKS.decrementAndGet();
        } catch (Throwable t) {
            throw unchecked(t);
        }
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
