package io.spinel.server;

import io.netty.channel.SelectStrategy;
import io.netty.util.IntSupplier;

/**
 * The event loop's choice before it waits for sockets: right after a turn that did work, it polls
 * the sockets without blocking for a few microseconds before it goes to sleep in epoll_wait.
 *
 * <p>At one request per round trip, each turn ends with the replies written and, often, no
 * request back yet: the loop sleeps and the next request pays for waking it up (a context
 * switch and, on a virtual machine, an inter-processor interrupt), which on a small machine
 * costs more than serving the request. Polling for the short time a client takes to answer
 * keeps the loop awake while requests keep coming; an idle server only ever spins once, for
 * {@link #spinNanos}, after its last request.
 */
final class SpinBeforeSleep implements SelectStrategy {
    /** A loop that last came here longer ago than this had been asleep: it is idle, do not spin. */
    private static final long ACTIVE_NANOS = 1_000_000;

    private final long spinNanos;
    /** When the loop last came to choose with no task waiting (the end of an ordinary turn). */
    private long lastTurn;

    SpinBeforeSleep(long spinNanos) {
        this.spinNanos = spinNanos;
    }

    @Override
    public int calculateStrategy(IntSupplier selectNow, boolean hasTasks) throws Exception {
        if (hasTasks) return selectNow.get();
        long now = System.nanoTime();
        boolean active = now - lastTurn < ACTIVE_NANOS;
        lastTurn = now;
        if (active) {
            long deadline = now + spinNanos;
            do {
                int ready = selectNow.get();
                if (ready > 0) return ready;
                Thread.onSpinWait();
            } while (System.nanoTime() - deadline < 0);
        }
        return SelectStrategy.SELECT;
    }
}
