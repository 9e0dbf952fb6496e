package io.spinel.server;

import com.sun.management.HotSpotDiagnosticMXBean;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The standalone server changes the heap's free ratios for a while (its idle heap return's
 * collection, the load at start) and must put them back: left lowered, every later collection
 * would shrink the heap that hard and the heap would keep regrowing under load; left widened, the
 * heap would keep growing to several times the data.
 */
class HeapRoomTest {
    private final HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);

    @Test
    void theFreeRatioIsPutBackAfterTheCollection() {
        String before = option("MaxHeapFreeRatio");
        String min = option("MinHeapFreeRatio");
        assertThat(before).isNotEqualTo(min); // otherwise this test could not tell
        long collectionsBefore = collections();
        HeapRoom.collect();
        assertThat(option("MaxHeapFreeRatio")).isEqualTo(before);
        assertThat(option("MinHeapFreeRatio")).isEqualTo(min);
        assertThat(collections()).isGreaterThan(collectionsBefore);
    }

    @Test
    void loadingWidensBothRatiosUntilClosed() {
        String min = option("MinHeapFreeRatio");
        String max = option("MaxHeapFreeRatio");
        assertThat(Integer.parseInt(min)).isLessThan(HeapRoom.LOADING_MIN_FREE_RATIO); // else nothing to widen
        try (HeapRoom.Restore r = HeapRoom.widenForLoading()) {
            assertThat(option("MinHeapFreeRatio")).isEqualTo(Integer.toString(HeapRoom.LOADING_MIN_FREE_RATIO));
            assertThat(option("MaxHeapFreeRatio")).isEqualTo("100");
        }
        assertThat(option("MinHeapFreeRatio")).isEqualTo(min);
        assertThat(option("MaxHeapFreeRatio")).isEqualTo(max);
    }

    private String option(String name) {
        return vm.getVMOption(name).getValue();
    }

    private static long collections() {
        long n = 0;
        for (var gc : ManagementFactory.getGarbageCollectorMXBeans()) n += Math.max(0, gc.getCollectionCount());
        return n;
    }
}
