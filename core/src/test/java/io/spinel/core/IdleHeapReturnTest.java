package io.spinel.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class IdleHeapReturnTest {
    private static final long MB = 1 << 20;
    private int collections;
    private final IdleHeapReturn policy = new IdleHeapReturn(() -> collections++);

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
}
