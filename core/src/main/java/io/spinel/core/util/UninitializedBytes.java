package io.spinel.core.util;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Byte arrays that the JVM does not zero, for buffers the caller fills completely before anything
 * reads them. An array too big for the thread's allocation buffer is zeroed with a memset before
 * the caller overwrites it: for a 64 KB value received from the socket that was 5% of the
 * server's samples (as much as the copy that fills it).
 *
 * <p>Uses the JDK's internal {@code Unsafe.allocateUninitializedArray} (what the JDK's own string
 * concatenation uses), reachable when {@code java.base/jdk.internal.misc} is opened to this code,
 * as the launcher does; otherwise, e.g. embedded in an application started without that option,
 * a plain {@code new byte[n]}.
 */
public final class UninitializedBytes {
    private UninitializedBytes() {
    }

    /** Below this size the allocation buffer's inline zeroing costs next to nothing. */
    private static final int MIN_LENGTH = 4096;

    private static final MethodHandle ALLOCATE = find();

    private static MethodHandle find() {
        try {
            Class<?> unsafeClass = Class.forName("jdk.internal.misc.Unsafe");
            java.lang.reflect.Method getUnsafe = unsafeClass.getMethod("getUnsafe");
            Object unsafe = getUnsafe.invoke(null);
            MethodHandle allocate = MethodHandles.lookup()
                    .findVirtual(unsafeClass, "allocateUninitializedArray",
                            MethodType.methodType(Object.class, Class.class, int.class))
                    .bindTo(unsafe);
            byte[] probe = (byte[]) (Object) allocate.invoke(byte.class, 16);
            return probe.length == 16 ? allocate : null;
        } catch (Throwable notOpen) {
            return null;
        }
    }

    /** Whether arrays come unzeroed here (the JDK's internals are open to this code). */
    public static boolean available() {
        return ALLOCATE != null;
    }

    /**
     * A byte array of {@code length} whose contents are undefined: the caller must write every
     * byte that is ever read.
     */
    public static byte[] allocate(int length) {
        if (ALLOCATE == null || length < MIN_LENGTH) return new byte[length];
        try {
            return (byte[]) (Object) ALLOCATE.invokeExact(byte.class, length);
        } catch (Throwable t) {
            return new byte[length];
        }
    }
}
