package io.spinel.core;

/**
 * Redis's software watchdog (watchdog-period, debug.c): when the cron has not run for that many
 * milliseconds, the event loop is stuck in one piece of work (a command, a load, a slow script),
 * and the log gets "--- WATCHDOG TIMER EXPIRED ---" with where the loop's thread is, once per
 * stall. Redis arms a SIGALRM at every cron tick; here a thread of its own, running only while
 * the period is set, compares the last tick's time with the clock.
 */
final class Watchdog {
    private final Engine engine;
    /** The period in ms, 0 when off (the thread then ends). */
    private volatile long periodMillis;
    /** When the cron last ran (System.nanoTime), and on which thread. */
    private volatile long lastTickNanos = System.nanoTime();
    private volatile Thread loopThread;
    /** The tick the last report was about: one report per stall. */
    private long reportedTick = -1;
    private Thread thread;

    Watchdog(Engine engine) {
        this.engine = engine;
    }

    /** Each cron tick, on the loop's thread (Redis's watchdogScheduleSignal in serverCron). */
    void tick() {
        if (periodMillis == 0) return;
        loopThread = Thread.currentThread();
        lastTickNanos = System.nanoTime();
    }

    /**
     * CONFIG SET watchdog-period: 0 stops it; a period under two cron intervals is raised to that
     * (Redis's applyWatchdogPeriod). Returns the period in effect, which the option then holds.
     */
    synchronized long setPeriod(long millis, int hz) {
        long min = 2L * (1000 / Math.max(1, hz));
        long period = millis == 0 ? 0 : Math.max(millis, min);
        periodMillis = period;
        if (engine.inLoop()) loopThread = Thread.currentThread(); // CONFIG SET: before the next tick
        if (period > 0 && thread == null) {
            lastTickNanos = System.nanoTime();
            thread = new Thread(this::watch, "spinel-watchdog");
            thread.setDaemon(true);
            thread.start();
        }
        return period;
    }

    private void watch() {
        while (true) {
            long period = periodMillis;
            if (period == 0) {
                synchronized (this) {
                    if (periodMillis == 0) {
                        thread = null;
                        return;
                    }
                }
                continue;
            }
            try {
                Thread.sleep(Math.max(1, period / 4));
            } catch (InterruptedException e) {
                return;
            }
            long tick = lastTickNanos;
            if (tick != reportedTick && System.nanoTime() - tick >= period * 1_000_000L) {
                reportedTick = tick;
                report();
            }
        }
    }

    private void report() {
        StringBuilder sb = new StringBuilder("\n--- WATCHDOG TIMER EXPIRED ---\n");
        Thread t = loopThread;
        if (t == null) {
            sb.append("(the event loop has not run its cron yet)\n");
        } else {
            sb.append("Java stack of the event loop (").append(t.getName()).append("):\n");
            for (StackTraceElement e : t.getStackTrace()) sb.append("    at ").append(e).append('\n');
        }
        sb.append("--------\n");
        engine.log().warning(sb.toString());
    }
}
