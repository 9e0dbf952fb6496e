package io.spinel.core.util;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Delayed;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A single-threaded {@link ScheduledExecutorService} for an engine: tasks run in the order they
 * were queued, timers by deadline, all on one thread, borrowed from a
 * JVM-wide pool for as long as the loop runs.
 *
 * <p>Why not a {@link java.util.concurrent.ScheduledThreadPoolExecutor}: its worker is a new
 * platform thread per executor, and starting one (the stack, its first TLAB, NIO's per-thread
 * buffer cache on its first socket read) cost about a millisecond of an in-process server's
 * start and first connection here, a quarter of the whole; a test suite that starts a server per
 * test paid it every time. Pooled threads stay 30 s after their last loop.
 *
 * <p>How the thread waits for work is the subclass's: by default it parks; the JDK transport
 * waits in its selector (and serves the sockets that are ready) instead.
 *
 * <p>Shutdown is as {@code ScheduledThreadPoolExecutor}'s with
 * {@code setExecuteExistingDelayedTasksAfterShutdownPolicy(false)}: tasks queued before
 * {@link #shutdown()} still run, timers are dropped, later submissions are rejected.
 */
public class TaskLoop extends AbstractExecutorService implements ScheduledExecutorService {
    private static final String IDLE_NAME = "spinel-loop-idle";
    private static final ThreadPoolExecutor THREADS = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS,
            new SynchronousQueue<>(), r -> {
                Thread t = new Thread(r, IDLE_NAME);
                t.setDaemon(true);
                return t;
            });

    /** Most tasks run in one turn before the loop waits again (without blocking) for I/O. */
    private static final int TASKS_PER_TURN = 1024;

    private static final int NEW = 0, RUNNING = 1, SHUTDOWN = 2, STOP = 3, TERMINATED = 4;

    private final String name;
    private volatile int state = NEW;
    private volatile Thread thread;
    private final CountDownLatch terminated = new CountDownLatch(1);
    /** Tasks in the order they were queued, by the loop itself or by other threads. */
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    /** Timers by deadline: a binary heap that knows each timer's index, so a cancel removes it at once. */
    private Timer<?>[] heap = new Timer<?>[16];
    private int heapSize;
    private long timerSequence;

    public TaskLoop(String name) {
        this.name = name;
    }

    /** Starts the loop on a pooled thread. */
    public void start() {
        synchronized (this) {
            if (state != NEW) throw new IllegalStateException("already started");
            state = RUNNING;
        }
        THREADS.execute(this::run);
    }

    /** Whether the caller is the loop's thread. */
    public final boolean inLoop() {
        return Thread.currentThread() == thread;
    }

    // ---- what a subclass may change ---------------------------------------------------------

    /**
     * Waits for work: at most timeoutNanos (0: not at all, just look; negative: until woken).
     * Returns early when {@link #wakeUp()} is called, or spuriously.
     */
    protected void await(long timeoutNanos) {
        if (timeoutNanos < 0) LockSupport.park(this);
        else if (timeoutNanos > 0) LockSupport.parkNanos(this, timeoutNanos);
    }

    /** Whether tasks are queued (for an {@link #await} that polls before it blocks). */
    protected final boolean hasTasks() {
        return !tasks.isEmpty();
    }

    /** Ends an {@link #await} in progress (or the next one) early: called by other threads. */
    protected void wakeUp() {
        Thread t = thread;
        if (t != null) LockSupport.unpark(t);
    }

    /** On the loop's thread after its last task, before awaitTermination returns. */
    protected void terminated() {
    }

    /** A task threw: the loop goes on with the next. */
    protected void taskFailed(Throwable t) {
        t.printStackTrace();
    }

    // ---- the loop ------------------------------------------------------------------------------

    private void run() {
        Thread me = Thread.currentThread();
        me.setName(name);
        thread = me;
        try {
            while (true) {
                runTasks();
                runDueTimers();
                int s = state;
                if (s == STOP) break;
                if (s == SHUTDOWN) {
                    if (tasks.isEmpty()) break;
                    continue;
                }
                try {
                    await(!tasks.isEmpty() ? 0 : nanosToNextTimer());
                } catch (Throwable t) {
                    taskFailed(t); // whatever escaped serving one socket, the loop goes on serving the others
                }
            }
        } finally {
            synchronized (this) {
                if (state < STOP) state = STOP;
            }
            for (int i = 0; i < heapSize; i++) {
                heap[i].heapIndex = -1;
                heap[i].cancelQuietly();
                heap[i] = null;
            }
            heapSize = 0;
            try {
                terminated();
            } finally {
                synchronized (this) {
                    thread = null; // from now on shutdownNow interrupts nothing: the thread may run another loop
                }
                Thread.interrupted(); // and an interrupt it sent before must not reach that loop
                me.setName(IDLE_NAME);
                state = TERMINATED;
                terminated.countDown();
            }
        }
    }

    private void runTasks() {
        runQueuedTasks(TASKS_PER_TURN);
    }

    /**
     * From a task on the loop (a load serving its clients): runs up to {@code max} of the tasks
     * queued meanwhile, in order; timers wait for the loop's next turn.
     */
    protected final void runQueuedTasks(int max) {
        for (int i = 0; i < max && state != STOP; i++) {
            Runnable task = tasks.poll();
            if (task == null) return;
            runSafely(task);
        }
    }

    private void runSafely(Runnable task) {
        try {
            task.run();
        } catch (Throwable t) {
            taskFailed(t);
        }
    }

    private void runDueTimers() {
        if (heapSize == 0 || state != RUNNING) return; // a loop shutting down drops its timers
        long now = System.nanoTime();
        // at most the timers there are now: a periodic timer late by several periods runs once per turn
        for (int n = heapSize; n > 0 && heapSize > 0 && heap[0].deadline - now <= 0 && state == RUNNING; n--) {
            Timer<?> t = removeAt(0);
            runSafely(t);
        }
    }

    /** Nanoseconds until the first timer is due (0 if it is), -1 if there is none. */
    private long nanosToNextTimer() {
        if (heapSize == 0) return -1;
        return Math.max(0, heap[0].deadline - System.nanoTime());
    }

    // ---- queuing -------------------------------------------------------------------------------

    @Override
    public void execute(Runnable task) {
        Objects.requireNonNull(task);
        if (inLoop()) {
            if (state != RUNNING) throw rejected(task);
            tasks.add(task);
            return;
        }
        if (state > RUNNING) throw rejected(task);
        tasks.add(task);
        // the loop may have drained its queue for the last time just before this add
        if (state > RUNNING && tasks.remove(task)) throw rejected(task);
        wakeUp();
    }

    private RejectedExecutionException rejected(Object task) {
        return new RejectedExecutionException("Task " + task + " rejected: " + name + " is shut down");
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        return addTimer(new Timer<Void>(Objects.requireNonNull(command), null, deadline(delay, unit), 0));
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        return addTimer(new Timer<>(Objects.requireNonNull(callable), deadline(delay, unit), 0));
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
        if (period <= 0) throw new IllegalArgumentException("period must be positive");
        return addTimer(new Timer<Void>(Objects.requireNonNull(command), null, deadline(initialDelay, unit),
                unit.toNanos(period)));
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
        if (delay <= 0) throw new IllegalArgumentException("delay must be positive");
        return addTimer(new Timer<Void>(Objects.requireNonNull(command), null, deadline(initialDelay, unit),
                -unit.toNanos(delay)));
    }

    private static long deadline(long delay, TimeUnit unit) {
        long nanos = unit.toNanos(Math.max(0, delay));
        return System.nanoTime() + Math.min(nanos, Long.MAX_VALUE >> 1); // no overflow comparing deadlines
    }

    private <T extends Timer<?>> T addTimer(T t) {
        if (inLoop()) {
            if (state != RUNNING) throw rejected(t);
            insert(t);
        } else {
            execute(() -> {
                if (!t.isCancelled()) insert(t);
            });
        }
        return t;
    }

    // ---- the timer heap (loop thread only) ------------------------------------------------------

    /** Timers waiting (tests: a cancelled one must not stay until its deadline). Loop thread only. */
    int timersQueued() {
        return heapSize;
    }

    private void insert(Timer<?> t) {
        t.sequence = timerSequence++;
        if (heapSize == heap.length) heap = Arrays.copyOf(heap, heapSize * 2);
        siftUp(heapSize++, t);
    }

    private Timer<?> removeAt(int i) {
        Timer<?> removed = heap[i];
        removed.heapIndex = -1;
        Timer<?> last = heap[--heapSize];
        heap[heapSize] = null;
        if (i != heapSize) {
            siftDown(i, last);
            if (heap[i] == last) siftUp(i, last);
        }
        return removed;
    }

    private void siftUp(int i, Timer<?> t) {
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            Timer<?> p = heap[parent];
            if (t.compareTo(p) >= 0) break;
            heap[i] = p;
            p.heapIndex = i;
            i = parent;
        }
        heap[i] = t;
        t.heapIndex = i;
    }

    private void siftDown(int i, Timer<?> t) {
        int half = heapSize >>> 1;
        while (i < half) {
            int child = 2 * i + 1;
            Timer<?> c = heap[child];
            int right = child + 1;
            if (right < heapSize && c.compareTo(heap[right]) > 0) c = heap[child = right];
            if (t.compareTo(c) <= 0) break;
            heap[i] = c;
            c.heapIndex = i;
            i = child;
        }
        heap[i] = t;
        t.heapIndex = i;
    }

    /** A timer: one-shot (period 0), at a fixed rate (period > 0) or with a fixed delay (period < 0). */
    private final class Timer<V> extends FutureTask<V> implements RunnableScheduledFuture<V> {
        long deadline;
        final long period;
        long sequence;
        int heapIndex = -1;

        Timer(Runnable r, V result, long deadline, long period) {
            super(r, result);
            this.deadline = deadline;
            this.period = period;
        }

        Timer(Callable<V> c, long deadline, long period) {
            super(c);
            this.deadline = deadline;
            this.period = period;
        }

        @Override
        public boolean isPeriodic() {
            return period != 0;
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
        }

        @Override
        public int compareTo(Delayed other) {
            if (other == this) return 0;
            if (other instanceof Timer) {
                Timer<?> o = (Timer<?>) other;
                long d = deadline - o.deadline;
                if (d != 0) return d < 0 ? -1 : 1;
                return Long.compare(sequence, o.sequence);
            }
            return Long.compare(getDelay(TimeUnit.NANOSECONDS), other.getDelay(TimeUnit.NANOSECONDS));
        }

        @Override
        public void run() {
            if (!isPeriodic()) {
                super.run();
            } else if (runAndReset() && state == RUNNING) {
                deadline = period > 0 ? deadline + period : System.nanoTime() - period;
                insert(this);
            }
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            boolean cancelled = super.cancel(false); // never interrupt the loop (see newTaskFor)
            if (cancelled) {
                if (inLoop()) {
                    if (heapIndex >= 0) removeAt(heapIndex);
                } else if (state == RUNNING) {
                    try {
                        execute(() -> {
                            if (heapIndex >= 0) removeAt(heapIndex);
                        });
                    } catch (RejectedExecutionException stopping) {
                        // the loop drops its timers as it stops
                    }
                }
            }
            return cancelled;
        }

        void cancelQuietly() {
            super.cancel(false);
        }
    }

    // The loop's thread serves every client: cancelling one task must not interrupt it (an
    // interrupt would also close any FileChannel it uses next, the AOF's among them).
    @Override
    protected <T> java.util.concurrent.RunnableFuture<T> newTaskFor(Runnable runnable, T value) {
        return new NonInterrupting<>(runnable, value);
    }

    @Override
    protected <T> java.util.concurrent.RunnableFuture<T> newTaskFor(Callable<T> callable) {
        return new NonInterrupting<>(callable);
    }

    private static final class NonInterrupting<T> extends FutureTask<T> {
        NonInterrupting(Runnable r, T value) {
            super(r, value);
        }

        NonInterrupting(Callable<T> c) {
            super(c);
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            return super.cancel(false);
        }
    }

    // ---- lifecycle -----------------------------------------------------------------------------

    @Override
    public void shutdown() {
        if (advance(SHUTDOWN)) wakeUp();
    }

    @Override
    public List<Runnable> shutdownNow() {
        List<Runnable> pending = new ArrayList<>();
        if (advance(STOP)) {
            for (Runnable r; (r = tasks.poll()) != null; ) pending.add(r);
            synchronized (this) { // not once the thread has left for the pool (see run)
                Thread t = thread;
                if (t != null) t.interrupt();
            }
            wakeUp();
        }
        return pending;
    }

    /** Moves to the given state unless already there or past it; a loop never started ends here. */
    private boolean advance(int to) {
        boolean neverStarted;
        synchronized (this) {
            if (state >= to) return false;
            neverStarted = state == NEW;
            state = neverStarted ? TERMINATED : to;
        }
        if (neverStarted) {
            try {
                terminated();
            } finally {
                terminated.countDown();
            }
            return false;
        }
        return true;
    }

    @Override
    public boolean isShutdown() {
        return state >= SHUTDOWN;
    }

    @Override
    public boolean isTerminated() {
        return state == TERMINATED;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        return terminated.await(timeout, unit);
    }

    @Override
    public String toString() {
        return name + (state == RUNNING ? " (running)" : state >= SHUTDOWN ? " (shut down)" : " (not started)");
    }
}
