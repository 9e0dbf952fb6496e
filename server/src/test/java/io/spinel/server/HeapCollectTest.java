package io.spinel.server;

import com.sun.management.HotSpotDiagnosticMXBean;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The standalone server's idle heap return lowers MaxHeapFreeRatio for its one full collection
 * (so that G1 shrinks the heap to the data) and must put it back: left lowered, every later
 * collection would shrink the heap that hard and the heap would keep regrowing under load.
 */
class HeapCollectTest {
    @Test
    void theFreeRatioIsPutBackAfterTheCollection() {
        HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        String before = vm.getVMOption("MaxHeapFreeRatio").getValue();
        String min = vm.getVMOption("MinHeapFreeRatio").getValue();
        assertThat(before).isNotEqualTo(min); // otherwise this test could not tell
        long collectionsBefore = collections();
        SpinelServer.collectHeap();
        assertThat(vm.getVMOption("MaxHeapFreeRatio").getValue()).isEqualTo(before);
        assertThat(collections()).isGreaterThan(collectionsBefore);
    }

    private static long collections() {
        long n = 0;
        for (var gc : ManagementFactory.getGarbageCollectorMXBeans()) n += Math.max(0, gc.getCollectionCount());
        return n;
    }
}
