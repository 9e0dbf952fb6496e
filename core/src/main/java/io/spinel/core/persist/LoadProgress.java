package io.spinel.core.persist;

import io.spinel.core.Log;

import java.util.concurrent.locks.LockSupport;

/**
 * Logs a load's progress once a second from a thread of its own, as Redis logs it from its RDB
 * and AOF loading loops. The loading loop only {@link #publish publishes} where it is, every so
 * many items: a clock check in that loop is a branch the JIT sees taken only after a second, and
 * the first time it was taken threw the loop's compiled code away (a deoptimization, then ~0.1 s
 * more of C2 compiling the loop again, in the middle of every load longer than a second).
 */
abstract class LoadProgress implements Runnable {
    /** How often progress is logged (tests shorten it). */
    static volatile long intervalNanos = 1_000_000_000L;

    private final Log log;
    private final long start = System.nanoTime();
    private volatile long bytes;
    private volatile long items;
    private volatile boolean stopped;
    private Thread thread;

    LoadProgress(Log log) {
        this.log = log;
    }

    /** The progress line for bytes read and items loaded so far, seconds after the start. */
    abstract String line(long bytes, long items, double seconds);

    /** On the loading thread; the reporting thread starts at the first call (small loads never call it). */
    final void publish(long bytesSoFar, long itemsSoFar) {
        bytes = bytesSoFar;
        items = itemsSoFar;
        if (thread == null) {
            thread = new Thread(this, "spinel-load-progress");
            thread.setDaemon(true);
            thread.start();
        }
    }

    /** Stops the reporting and waits for it, so that no progress line follows the load's last line. */
    final void stop() {
        stopped = true;
        if (thread == null) return;
        thread.interrupt();
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public final void run() {
        long interval = intervalNanos;
        long next = start + interval;
        while (!stopped) {
            long wait = next - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
                continue;
            }
            next += interval;
            if (stopped) return;
            log.notice(line(bytes, items, (System.nanoTime() - start) / 1e9));
        }
    }
}
