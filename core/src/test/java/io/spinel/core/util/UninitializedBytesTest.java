package io.spinel.core.util;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class UninitializedBytesTest {
    /**
     * The build opens jdk.internal.misc to the tests as the launcher does to the server, so the
     * in-process servers of the other tests receive big arguments into unzeroed arrays, the path
     * production takes; this fails when that option is lost.
     */
    @Test
    void theTestsRunWithTheLaunchersUnzeroedArrays() {
        assertThat(UninitializedBytes.available()).isTrue();
    }

    @Test
    void arraysHaveTheLengthAskedForOnEitherSideOfTheThreshold() {
        for (int n : new int[] {0, 1, 4095, 4096, 70_000}) {
            assertThat(UninitializedBytes.allocate(n)).hasSize(n);
        }
    }
}
