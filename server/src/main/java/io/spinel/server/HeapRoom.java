package io.spinel.server;

import com.sun.management.HotSpotDiagnosticMXBean;

import java.lang.management.ManagementFactory;

/**
 * How much free room the standalone server's heap keeps, at the two moments where the launcher's
 * steady-state sizing (MinHeapFreeRatio 10, MaxHeapFreeRatio 30: a heap close to the data) is
 * the wrong one. Both change the JVM's manageable free-ratio flags for a while and put them back;
 * only the standalone server does this, since it owns its JVM.
 *
 * <ul>
 * <li>{@link #collect()}: the idle heap return's full collection leaves only MinHeapFreeRatio's
 * room.</li>
 * <li>{@link #widenForLoading()}: while the data set is loaded at start, the heap grows ahead of
 * the data instead of a few percent at a time. With 10-30% of room, G1 finds the old generation
 * over its marking threshold after nearly every young collection of a load, so it marks the
 * whole heap again and again (4 cycles for 1M keys) and evacuates old regions in which
 * everything is live; on 2 cores that marking takes the CPU the load runs on.</li>
 * </ul>
 */
final class HeapRoom {
    /** Free room after a collection while loading: the heap grows to about 5x the live data. */
    static final int LOADING_MIN_FREE_RATIO = 80;

    /** Smaller loads are over before the heap's sizing matters. */
    static final long LOADING_MIN_BYTES = 4L << 20;

    private HeapRoom() {
    }

    /** The standalone server's {@link io.spinel.core.persist.Persistence.LoadingScope}. */
    static Runnable forLoading(long bytes) {
        return bytes < LOADING_MIN_BYTES ? null : widenForLoading()::close;
    }

    /** Puts the free ratios back as they were. */
    interface Restore extends AutoCloseable {
        @Override
        void close();
    }

    private static final Restore NOTHING = () -> { };

    /**
     * A full collection that leaves the heap only the free room MinHeapFreeRatio asks for (10% with
     * the launcher's options) instead of MaxHeapFreeRatio's (30%), for the idle heap return: after
     * a load that is the young generation and the slack G1 grew into (10k sorted sets: RSS growth
     * 27 -> 16 MB, against 24 MB with the 30% kept). MaxHeapFreeRatio is put back right after, so
     * that the heap sizing under load stays as configured.
     */
    static void collect() {
        HotSpotDiagnosticMXBean vm = vm();
        Restore restore = NOTHING;
        if (vm != null) {
            String min = option(vm, "MinHeapFreeRatio");
            String max = option(vm, "MaxHeapFreeRatio");
            if (min != null && max != null) restore = set(vm, min, min, min, max);
        }
        try {
            System.gc();
        } finally {
            restore.close();
        }
    }

    /**
     * Lets the heap grow with room to spare until the returned {@link Restore} is closed (1M keys
     * of mixed types, 48 MB of RDB: loaded in 1.6-2.1 s instead of 1.9-2.4 s here). After the
     * load the idle heap return gives back what is not used.
     */
    static Restore widenForLoading() {
        HotSpotDiagnosticMXBean vm = vm();
        if (vm == null) return NOTHING;
        String min = option(vm, "MinHeapFreeRatio");
        String max = option(vm, "MaxHeapFreeRatio");
        if (min == null || max == null || Integer.parseInt(min) >= LOADING_MIN_FREE_RATIO) return NOTHING;
        return set(vm, Integer.toString(LOADING_MIN_FREE_RATIO), "100", min, max);
    }

    /**
     * Sets the two ratios (in the order that keeps min <= max at every step) and returns what puts
     * the old ones back; nothing is changed where the JVM refuses.
     */
    private static Restore set(HotSpotDiagnosticMXBean vm, String min, String max, String oldMin, String oldMax) {
        Restore restore = () -> {
            try {
                apply(vm, oldMin, oldMax, vm.getVMOption("MaxHeapFreeRatio").getValue());
            } catch (RuntimeException ignored) {
                // it was settable a moment ago
            }
        };
        try {
            apply(vm, min, max, oldMax);
        } catch (RuntimeException refused) {
            restore.close(); // in case the first of the two was taken
            return NOTHING;
        }
        return restore;
    }

    private static void apply(HotSpotDiagnosticMXBean vm, String min, String max, String currentMax) {
        if (Integer.parseInt(min) > Integer.parseInt(currentMax)) {
            vm.setVMOption("MaxHeapFreeRatio", max);
            vm.setVMOption("MinHeapFreeRatio", min);
        } else {
            vm.setVMOption("MinHeapFreeRatio", min);
            vm.setVMOption("MaxHeapFreeRatio", max);
        }
    }

    /** Looks the management bean up once ahead of need (its first lookup loads its classes). */
    static void prepare() {
        vm();
    }

    private static HotSpotDiagnosticMXBean vm() {
        try {
            return ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        } catch (RuntimeException | LinkageError notHere) {
            return null; // a JVM without the management bean: nothing to adjust
        }
    }

    private static String option(HotSpotDiagnosticMXBean vm, String name) {
        try {
            return vm.getVMOption(name).getValue();
        } catch (RuntimeException noSuchFlag) {
            return null;
        }
    }
}
