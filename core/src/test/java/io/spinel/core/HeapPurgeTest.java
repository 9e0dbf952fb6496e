package io.spinel.core;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.spinel.core.script.ScriptHarness;
import org.junit.jupiter.api.Test;

/** The engine's side of giving the heap back: MEMORY PURGE and the cron after a FLUSHALL. */
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
    void theCronCollectsOnceIdleAfterAFlush() throws InterruptedException {
        try (ScriptHarness h = new ScriptHarness()) {
            h.engine.setIdleHeapReturn(() -> collections++);
            String value = "x".repeat(1 << 20);
            for (int i = 0; i < 40; i++) h.call("SET", "big:" + i, value);
            h.engine.serverCron(); // sees the peak
            h.call("FLUSHALL");
            h.engine.serverCron(); // a command just ran: not yet
            assertEquals(0, collections);
            Thread.sleep(IdleHeapReturn.IDLE_MILLIS + 100);
            h.engine.serverCron();
            assertEquals(1, collections);
            h.engine.serverCron();
            assertEquals(1, collections);
        }
    }
}
