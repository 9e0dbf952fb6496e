package io.spinel.server;

import io.netty.util.internal.PlatformDependent;

import java.util.Queue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What the I/O threads hand to the engine's thread when {@code io-threads} is above 1: a
 * connection opened, bytes read, its output drained below a water mark, the connection closed.
 * One queue for all connections, so each connection's events run in the order its I/O thread saw
 * them, and the engine's thread takes many at a time: one wake-up per batch instead of one task
 * per read, and the flush that {@link io.spinel.core.Engine#flushSoon()} queues runs after the
 * batch, as it runs after a read batch when the engine's loop reads the sockets itself.
 */
final class EngineInbox {
    /** Events run per turn before the engine's loop gets to its other tasks (the replies' flush). */
    private static final int MAX_PER_TURN = 1024;

    private final Queue<Runnable> events = PlatformDependent.newMpscQueue();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final Executor engineLoop;
    private final Runnable drainTask = this::drainScheduled;

    EngineInbox(Executor engineLoop) {
        this.engineLoop = engineLoop;
    }

    /** From an I/O thread: runs event on the engine's thread, after the events posted before it. */
    void post(Runnable event) {
        events.offer(event);
        if (!scheduled.get() && scheduled.compareAndSet(false, true)) engineLoop.execute(drainTask);
    }

    private void drainScheduled() {
        // cleared first: an event posted while this runs schedules another turn rather than be missed
        scheduled.set(false);
        try {
            drain();
        } finally {
            if (!events.isEmpty() && scheduled.compareAndSet(false, true)) engineLoop.execute(drainTask);
        }
    }

    /** On the engine's thread (its loop, or the poller of a load at start): runs what is waiting. */
    void drain() {
        for (int i = 0; i < MAX_PER_TURN; i++) {
            Runnable e = events.poll();
            if (e == null) return;
            e.run();
        }
    }
}
