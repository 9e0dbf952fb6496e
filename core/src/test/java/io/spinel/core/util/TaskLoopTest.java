package io.spinel.core.util;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The engine's executor: order, timers, cancellation, shutdown, and its pooled thread. */
class TaskLoopTest {
    private final List<TaskLoop> loops = new ArrayList<>();

    private TaskLoop started(String name) {
        TaskLoop l = new TaskLoop(name);
        loops.add(l);
        l.start();
        return l;
    }

    @AfterEach
    void stopAll() throws InterruptedException {
        for (TaskLoop l : loops) {
            l.shutdownNow();
            assertThat(l.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
        }
    }

    /** Runs r on the loop and waits for it. */
    private static <T> T on(TaskLoop l, java.util.concurrent.Callable<T> r) throws Exception {
        return l.submit(r).get(5, TimeUnit.SECONDS);
    }

    @Test
    void tasksRunInOrderOnOneThreadThatKnowsItIsTheLoop() throws Exception {
        TaskLoop l = started("loop-order");
        List<Integer> seen = Collections.synchronizedList(new ArrayList<>());
        AtomicReference<String> threadName = new AtomicReference<>();
        for (int i = 0; i < 2000; i++) {
            int n = i;
            l.execute(() -> seen.add(n));
        }
        assertThat(on(l, () -> {
            threadName.set(Thread.currentThread().getName());
            return l.inLoop();
        })).isTrue();
        assertThat(l.inLoop()).isFalse();
        assertThat(threadName.get()).isEqualTo("loop-order");
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < 2000; i++) expected.add(i);
        assertThat(seen).isEqualTo(expected);
    }

    @Test
    void tasksQueuedByTheLoopItselfRunAfterTheCurrentOneInOrder() throws Exception {
        TaskLoop l = started("loop-local");
        List<String> seen = new ArrayList<>();
        on(l, () -> {
            l.execute(() -> seen.add("a"));
            l.execute(() -> {
                seen.add("b");
                l.execute(() -> seen.add("d"));
            });
            l.execute(() -> seen.add("c"));
            seen.add("first");
            return null;
        });
        on(l, () -> null); // a second round trip: what the first queued has run
        on(l, () -> null);
        assertThat(seen).containsExactly("first", "a", "b", "c", "d");
    }

    @Test
    void timersRunByDeadlineNotBySubmission() throws Exception {
        TaskLoop l = started("loop-timers");
        List<Integer> seen = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch done = new CountDownLatch(4);
        for (int delay : new int[] {80, 20, 60, 40}) {
            l.schedule(() -> {
                seen.add(delay);
                done.countDown();
            }, delay, TimeUnit.MILLISECONDS);
        }
        long t0 = System.nanoTime();
        assertThat(done.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)).isGreaterThanOrEqualTo(70);
        assertThat(seen).containsExactly(20, 40, 60, 80);
        ScheduledFuture<String> f = l.schedule(() -> "value", 10, TimeUnit.MILLISECONDS);
        assertThat(f.get(5, TimeUnit.SECONDS)).isEqualTo("value");
    }

    @Test
    void aCancelledTimerNeverRunsAndLeavesTheQueue() throws Exception {
        TaskLoop l = started("loop-cancel");
        AtomicInteger runs = new AtomicInteger();
        // many cancelled from the loop thread and from outside: none runs, the heap stays ordered
        List<ScheduledFuture<?>> timers = new ArrayList<>();
        for (int i = 0; i < 500; i++) timers.add(l.schedule(runs::incrementAndGet, 50 + i % 50, TimeUnit.MILLISECONDS));
        for (int i = 0; i < 500; i += 2) assertThat(timers.get(i).cancel(false)).isTrue();
        on(l, () -> {
            for (int i = 1; i < 500; i += 4) timers.get(i).cancel(false);
            return null;
        });
        assertThat(on(l, l::timersQueued)).isEqualTo(125); // gone at once, not at their deadline
        CountDownLatch last = new CountDownLatch(1);
        l.schedule(last::countDown, 150, TimeUnit.MILLISECONDS);
        assertThat(last.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(runs.get()).isEqualTo(500 - 250 - 125);
        for (int i = 0; i < 500; i += 2) assertThat(timers.get(i).isCancelled()).isTrue();
    }

    @Test
    void periodicTimersRepeatUntilCancelled() throws Exception {
        TaskLoop l = started("loop-periodic");
        AtomicInteger rate = new AtomicInteger();
        AtomicInteger delay = new AtomicInteger();
        CountDownLatch enough = new CountDownLatch(5);
        ScheduledFuture<?> r = l.scheduleAtFixedRate(() -> {
            rate.incrementAndGet();
            enough.countDown();
        }, 0, 5, TimeUnit.MILLISECONDS);
        ScheduledFuture<?> d = l.scheduleWithFixedDelay(delay::incrementAndGet, 0, 5, TimeUnit.MILLISECONDS);
        assertThat(enough.await(5, TimeUnit.SECONDS)).isTrue();
        r.cancel(false);
        d.cancel(false);
        int afterCancel = on(l, rate::get);
        Thread.sleep(50);
        assertThat(on(l, rate::get)).isEqualTo(afterCancel);
        assertThat(delay.get()).isPositive();
        assertThat(r.isCancelled()).isTrue();
    }

    @Test
    void aFailingTaskDoesNotStopTheLoop() throws Exception {
        List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
        TaskLoop l = new TaskLoop("loop-failing") {
            @Override
            protected void taskFailed(Throwable t) {
                failures.add(t);
            }
        };
        loops.add(l);
        l.start();
        l.execute(() -> {
            throw new IllegalStateException("boom");
        });
        assertThat(on(l, () -> "still here")).isEqualTo("still here");
        assertThat(failures).singleElement().satisfies(t -> assertThat(t).hasMessage("boom"));
        // a submitted task's failure belongs to its future, not to the loop
        assertThatThrownBy(() -> l.submit(() -> {
            throw new IllegalArgumentException("mine");
        }).get()).isInstanceOf(ExecutionException.class).hasCauseInstanceOf(IllegalArgumentException.class);
        assertThat(failures).hasSize(1);
    }

    @Test
    void shutdownRunsWhatWasQueuedDropsTimersAndRejectsTheRest() throws Exception {
        TaskLoop l = started("loop-shutdown");
        CyclicBarrier inTask = new CyclicBarrier(2);
        CountDownLatch release = new CountDownLatch(1);
        List<String> seen = Collections.synchronizedList(new ArrayList<>());
        l.execute(() -> {
            try {
                inTask.await();
                release.await();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        inTask.await(5, TimeUnit.SECONDS);
        l.execute(() -> seen.add("queued before shutdown"));
        ScheduledFuture<?> timer = l.schedule(() -> seen.add("timer"), 10, TimeUnit.MILLISECONDS);
        AtomicReference<Throwable> fromInside = new AtomicReference<>();
        l.execute(() -> {
            try {
                l.execute(() -> seen.add("queued during shutdown"));
            } catch (RejectedExecutionException e) {
                fromInside.set(e);
            }
        });
        l.shutdown();
        assertThat(l.isShutdown()).isTrue();
        assertThatThrownBy(() -> l.execute(() -> seen.add("late"))).isInstanceOf(RejectedExecutionException.class);
        assertThatThrownBy(() -> l.schedule(() -> { }, 1, TimeUnit.MILLISECONDS))
                .isInstanceOf(RejectedExecutionException.class);
        release.countDown();
        assertThat(l.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
        assertThat(l.isTerminated()).isTrue();
        assertThat(seen).containsExactly("queued before shutdown");
        assertThat(fromInside.get()).isInstanceOf(RejectedExecutionException.class);
        assertThat(timer.isCancelled()).isTrue();
    }

    @Test
    void shutdownNowReturnsWhatHadNotRunAndInterruptsTheRunningTask() throws Exception {
        TaskLoop l = started("loop-now");
        CountDownLatch running = new CountDownLatch(1);
        AtomicReference<Boolean> interrupted = new AtomicReference<>();
        l.execute(() -> {
            running.countDown();
            try {
                Thread.sleep(10_000);
                interrupted.set(false);
            } catch (InterruptedException e) {
                interrupted.set(true);
            }
        });
        assertThat(running.await(5, TimeUnit.SECONDS)).isTrue();
        Runnable never = () -> { };
        l.execute(never);
        assertThat(l.shutdownNow()).containsExactly(never);
        assertThat(l.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
        assertThat(interrupted.get()).isTrue();
    }

    @Test
    void theThreadIsReusedAndForgetsTheLoopItRan() throws Exception {
        TaskLoop first = started("loop-first");
        Thread t1 = on(first, Thread::currentThread);
        first.shutdownNow(); // with an interrupt: the next loop on that thread must not see it
        assertThat(first.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
        TaskLoop second = started("loop-second");
        Thread t2 = on(second, Thread::currentThread);
        // an idle pooled thread is taken when there is one (another test may have taken it first)
        if (t2 == t1) {
            assertThat(on(second, first::inLoop)).isFalse();
            assertThat(on(second, () -> Thread.currentThread().isInterrupted())).isFalse();
        }
        assertThat(on(second, () -> Thread.currentThread().getName())).isEqualTo("loop-second");
        assertThat(t2.isDaemon()).isTrue();
    }

    @Test
    void aLoopNeverStartedTerminatesOnShutdown() throws Exception {
        AtomicInteger terminatedCalls = new AtomicInteger();
        TaskLoop l = new TaskLoop("loop-unstarted") {
            @Override
            protected void terminated() {
                terminatedCalls.incrementAndGet();
            }
        };
        l.shutdown();
        assertThat(l.awaitTermination(1, TimeUnit.SECONDS)).isTrue();
        assertThat(terminatedCalls.get()).isEqualTo(1);
        assertThatThrownBy(l::start).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void cancellingARunningTaskNeverInterruptsTheLoop() throws Exception {
        TaskLoop l = started("loop-cancel-running");
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<Boolean> interrupted = new AtomicReference<>();
        java.util.concurrent.Future<?> f = l.submit(() -> {
            running.countDown();
            try {
                release.await(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                interrupted.set(true);
                return;
            }
            interrupted.set(Thread.currentThread().isInterrupted());
        });
        assertThat(running.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(f.cancel(true)).isTrue();
        release.countDown();
        assertThat(on(l, () -> "still serving")).isEqualTo("still serving");
        assertThat(interrupted.get()).isFalse();
    }
}
