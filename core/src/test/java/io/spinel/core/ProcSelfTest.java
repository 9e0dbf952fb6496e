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
}
