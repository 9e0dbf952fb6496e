package io.spinel.core;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.spinel.core.script.ScriptHarness;
import org.junit.jupiter.api.Test;

/** The engine's side of giving the heap back: MEMORY PURGE, a synchronous flush, and the cron after an asynchronous one. */
class HeapPurgeTest {
    private int collections;

    @Test
    void memoryPurgeCollectsOnlyWhereTheServerOwnsTheHeap() {
        try (ScriptHarness h = new ScriptHarness()) {
            assertEquals("+OK\r\n", h.call("MEMORY", "PURGE")); // embedded: nothing to run
            h.engine.setIdleHeapReturn(() -> collections++);
            assertEquals("+OK\r\n", h.call("MEMORY", "PURGE"));
            assertEquals(1, collections);
        }
    }

    @Test
    void aSynchronousFlushCollectsAtOnceAndTheCronNotAgain() throws InterruptedException {
        try (ScriptHarness h = new ScriptHarness()) {
            h.engine.setIdleHeapReturn(() -> collections++);
            fill(h, "big:", 40);
            h.call("FLUSHALL");
            assertEquals(1, collections);
            Thread.sleep(IdleHeapReturn.IDLE_MILLIS + 100);
            h.engine.serverCron();
            assertEquals(1, collections);

            fill(h, "big:", 40);
            h.call("FLUSHDB", "SYNC");
            assertEquals(2, collections);
        }
    }

    @Test
    void theCronCollectsOnceIdleAfterAnAsynchronousFlush() throws InterruptedException {
        try (ScriptHarness h = new ScriptHarness()) {
            h.engine.setIdleHeapReturn(() -> collections++);
            fill(h, "big:", 40);
            h.engine.serverCron(); // sees the peak
            h.call("FLUSHALL", "ASYNC"); // as Redis, which purges only after a synchronous flush
            h.engine.serverCron(); // a command just ran: not yet
            assertEquals(0, collections);
            Thread.sleep(IdleHeapReturn.IDLE_MILLIS + 100);
            h.engine.serverCron();
            assertEquals(1, collections);
            h.engine.serverCron();
            assertEquals(1, collections);
        }
    }

    @Test
    void aFlushThatLeavesMoreThanItDropsOrDropsLittleDoesNotCollect() {
        try (ScriptHarness h = new ScriptHarness()) {
            h.engine.setIdleHeapReturn(() -> collections++);
            fill(h, "kept:", 40);
            assertEquals("+OK\r\n", h.call("SELECT", "1"));
            fill(h, "dropped:", 20);
            h.call("FLUSHDB"); // 20 MB dropped, 40 MB left in db 0
            assertEquals(0, collections);
            fill(h, "small:", 4);
            h.call("FLUSHALL"); // 44 MB dropped: collected
            assertEquals(1, collections);
            fill(h, "small:", 4);
            h.call("FLUSHALL"); // 4 MB: not worth a pause
            assertEquals(1, collections);
        }
    }

    /** n values of 1 MB in the selected database. */
    private static void fill(ScriptHarness h, String prefix, int n) {
        String value = "x".repeat(1 << 20);
        for (int i = 0; i < n; i++) h.call("SET", prefix + i, value);
    }
}
