package io.spinel.core.util;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/** Freed big blocks are kept by size class and reused, and go back to malloc once unused for long. */
class NativeBlocksTest {
    @Test
    void sizesRoundUpToSixteenClassesPerDoublingAndMapOneToOne() {
        assertThat(NativeBlocks.sizeFor(1000)).isEqualTo(1000); // small: as asked
        assertThat(NativeBlocks.sizeFor(65536)).isEqualTo(65536);
        assertThat(NativeBlocks.sizeFor(65536 + 18)).isEqualTo(65536 + 4096);
        assertThat(NativeBlocks.sizeFor(NativeBlocks.MAX + 1)).isEqualTo(NativeBlocks.MAX + 1); // huge: as asked
        int previousClass = -1;
        long previousSize = 0;
        for (long bytes = NativeBlocks.MIN; bytes <= NativeBlocks.MAX; bytes += bytes / 37 + 1) {
            long size = NativeBlocks.sizeFor(bytes);
            assertThat(size).isBetween(bytes, bytes + bytes / 16);
            assertThat(NativeBlocks.sizeFor(size)).isEqualTo(size);
            int c = NativeBlocks.classOf(size);
            // classes grow with sizes, one class per size
            if (size == previousSize) assertThat(c).isEqualTo(previousClass);
            else assertThat(c).isGreaterThan(previousClass);
            previousClass = c;
            previousSize = size;
        }
        assertThat(NativeBlocks.classOf(NativeBlocks.MIN)).isNotNegative().isLessThan(NativeBlocks.classOf(NativeBlocks.MAX));
    }

    @Test
    void aFreedBlockIsReusedForAValueOfAboutItsSizeAndDecaysToMalloc() {
        assumeThat(NativeMemory.available()).as("java.base/jdk.internal.misc opened (surefire's argLine)").isTrue();
        NativeMemory.releaseKept();
        long blocks = NativeMemory.blocksInUse();
        long a = NativeMemory.allocate(65536 + 2);
        byte[] v = new byte[65538];
        v[65537] = 7;
        NativeMemory.copyFrom(v, 0, a, v.length); // the whole size asked for is usable
        NativeMemory.free(a);
        assertThat(NativeMemory.blocksInUse()).isEqualTo(blocks);
        assertThat(NativeMemory.keptBytes()).isEqualTo(65536 + 4096);

        long b = NativeMemory.allocate(65536 + 100); // same class
        assertThat(b).isEqualTo(a);
        assertThat(NativeMemory.keptBytes()).isZero();
        long c = NativeMemory.allocate(200_000); // another class: a new block
        assertThat(c).isNotEqualTo(a);
        NativeMemory.free(b);
        NativeMemory.free(c);
        assertThat(NativeMemory.keptBytes()).isPositive();

        NativeMemory.decay(); // freed just now: still kept
        assertThat(NativeMemory.keptBytes()).isPositive();
        NativeMemory.decay(System.nanoTime() + NativeBlocks.KEEP_NANOS + 1);
        assertThat(NativeMemory.keptBytes()).isZero();
        NativeMemory.releaseKept();
        assertThat(NativeMemory.keptBytes()).isZero();
        assertThat(NativeMemory.blocksInUse()).isEqualTo(blocks);
    }
}
