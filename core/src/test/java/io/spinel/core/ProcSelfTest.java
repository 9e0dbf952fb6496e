package io.spinel.core;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** INFO's resident memory and CPU times, read through the kept-open /proc files, agree with a fresh read. */
class ProcSelfTest {

    @Test
    void residentMemoryAndCpuTimesMatchTheProcFiles() throws Exception {
        assumeTrue(Files.exists(Path.of("/proc/self/stat")), "Linux only");
        for (int round = 0; round < 3; round++) { // again and again: each read starts the file afresh
            long pages = Long.parseLong(Files.readString(Path.of("/proc/self/statm")).trim().split("\\s+")[1]);
            long rss = ProcSelf.rss();
            assertThat(rss % 4096).isZero();
            assertThat(rss / 4096).isBetween(pages - 2560, pages + 2560); // within 10 MB of drift between the reads

            String stat = Files.readString(Path.of("/proc/self/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            double user = Long.parseLong(f[11]) / 100.0;
            double sys = Long.parseLong(f[12]) / 100.0;
            double[] times = ProcSelf.cpuSeconds();
            assertThat(times).isNotNull();
            assertThat(times[0]).isBetween(user, user + 5);
            assertThat(times[1]).isBetween(sys, sys + 5);
            byte[] burn = new byte[1 << 20];
            for (int i = 0; i < 200; i++) java.util.Arrays.fill(burn, (byte) i); // some CPU between rounds
        }
    }

    @Test
    void threadCpuTimesAreTheCallingThreadsOwn() throws Exception {
        assumeTrue(Files.exists(Path.of("/proc/thread-self/stat")), "Linux only");
        double[][] seen = new double[2][];
        long[] jvmNanos = new long[2];
        java.lang.management.ThreadMXBean clocks = java.lang.management.ManagementFactory.getThreadMXBean();
        Thread busy = new Thread(() -> {
            seen[0] = ProcSelf.threadCpuSeconds();
            jvmNanos[0] = clocks.getCurrentThreadCpuTime();
            long x = 0;
            // spin until this thread has had 0.4 s of CPU by the JVM's own clock, however busy the machine
            while (clocks.getCurrentThreadCpuTime() - jvmNanos[0] < 400_000_000L) x += Long.numberOfTrailingZeros(x + 1);
            jvmNanos[1] = clocks.getCurrentThreadCpuTime();
            seen[1] = ProcSelf.threadCpuSeconds();
            if (x == 42) System.out.print(""); // keep the loop
        });
        busy.start();
        busy.join();
        assertThat(seen[0]).isNotNull();
        assertThat(seen[0][0] + seen[0][1]).isLessThan(0.1); // a new thread: next to nothing yet
        double procDelta = seen[1][0] + seen[1][1] - seen[0][0] - seen[0][1];
        double jvmDelta = (jvmNanos[1] - jvmNanos[0]) / 1e9;
        assertThat(procDelta).isCloseTo(jvmDelta, org.assertj.core.data.Offset.offset(0.05)); // stat counts 10 ms ticks
        double[] process = ProcSelf.cpuSeconds();
        double[] mine = ProcSelf.threadCpuSeconds();
        assertThat(mine[0] + mine[1]).isLessThanOrEqualTo(process[0] + process[1]);
    }
}
