package io.spinel.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class IdleHeapReturnTest {
    private static final long MB = 1 << 20;
    private int collections;
    /** The committed heap the policy sees; 0 keeps the growth rule out of the tests of the drop rule. */
    private long heap;
    private final IdleHeapReturn policy = new IdleHeapReturn(() -> collections++, () -> heap);

    @Test
    void collectsOnceAfterTheDataHalvedAndTheServerWentIdle() {
        assertFalse(policy.tick(200 * MB, 1, 0));
        assertFalse(policy.tick(50 * MB, 2, 100)); // FLUSH-like drop, but a command just ran
        assertFalse(policy.tick(50 * MB, 2, 900)); // idle for 800 ms only
        assertTrue(policy.tick(50 * MB, 2, 1100));
        assertFalse(policy.tick(50 * MB, 2, 5000)); // once per drop
        assertEquals(1, collections);
    }

    @Test
    void aSmallOrPartialDropIsNotWorthAPause() {
        policy.tick(40 * MB, 1, 0);
        assertFalse(policy.tick(10 * MB, 1, 2000)); // 30 MB: below the minimum drop
        policy.tick(300 * MB, 2, 3000);
        assertFalse(policy.tick(200 * MB, 2, 9000)); // a third of the peak
        assertEquals(0, collections);
    }

    @Test
    void neverPausesWithMuchDataLeft() {
        policy.tick(2000 * MB, 1, 0);
        assertFalse(policy.tick(600 * MB, 1, 5000)); // halved, but 600 MB would take long to collect
        assertFalse(policy.tick(200 * MB, 2, 5000)); // more deleted, by a command
        assertTrue(policy.tick(200 * MB, 2, 7000));
        assertEquals(1, collections);
    }

    @Test
    void growthAfterAReturnStartsANewPeak() {
        policy.tick(100 * MB, 1, 0);
        assertTrue(policy.tick(10 * MB, 1, 2000));
        policy.tick(80 * MB, 2, 3000);
        assertTrue(policy.tick(5 * MB, 2, 5000));
        assertEquals(2, collections);
    }

    @Test
    void collectsOnceWhenIdleAfterALoadLeftRoomInTheHeap() {
        heap = 60 * MB;
        assertFalse(policy.tick(5 * MB, 1, 0));
        assertFalse(policy.tick(25 * MB, 2, 500)); // loading
        assertFalse(policy.tick(25 * MB, 2, 1200)); // 700 ms idle only
        assertTrue(policy.tick(25 * MB, 2, 1600)); // 20 MB more data, 35 MB of heap beyond it
        heap = 30 * MB;
        assertFalse(policy.tick(25 * MB, 2, 5000)); // once per growth
        assertFalse(policy.tick(26 * MB, 3, 6000));
        assertFalse(policy.tick(26 * MB, 3, 9000)); // grew by 1 MB only
        assertEquals(1, collections);
    }

    @Test
    void aLoadThatFilledTheHeapOrReadsAloneAreNotWorthAPause() {
        heap = 40 * MB;
        policy.tick(5 * MB, 1, 0);
        assertFalse(policy.tick(30 * MB, 1, 5000)); // grew 25 MB, but only 10 MB of heap to give back
        heap = 100 * MB;
        policy.tick(8 * MB, 2, 6000); // deleted a little, then only reads: no growth since the start
        assertFalse(policy.tick(8 * MB, 3, 9000));
        assertFalse(policy.tick(8 * MB, 3, 12000));
        assertEquals(0, collections);
    }

    @Test
    void neverPausesForALoadOfMuchData() {
        heap = 1000 * MB;
        policy.tick(5 * MB, 1, 0);
        assertFalse(policy.tick(600 * MB, 1, 5000));
        assertEquals(0, collections);
    }

    @Test
    void aSynchronousFlushCollectsAtOnceWhenItDroppedMoreThanItLeft() {
        assertTrue(policy.afterFlush(30 * MB, 0));
        assertTrue(policy.afterFlush(100 * MB, 40 * MB));
        assertFalse(policy.afterFlush(100 * MB, 60 * MB)); // more left than dropped
        assertFalse(policy.afterFlush(7 * MB, 0)); // too little dropped
        assertFalse(policy.afterFlush(1000 * MB, IdleHeapReturn.MAX_LIVE + MB)); // a pause too long
        assertEquals(2, collections);
        // the return counts as the cron's: the same drop is not collected again once idle
        assertFalse(policy.tick(40 * MB, 1, 0));
        assertFalse(policy.tick(40 * MB, 1, 5000));
        assertEquals(2, collections);
    }
}
