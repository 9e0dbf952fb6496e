package io.spinel.core;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The process's resident memory and CPU times from Linux's /proc/self/statm and /proc/self/stat,
 * as INFO and MEMORY report them. Each file stays open and is read again from its start (procfs
 * makes the text afresh on a read at offset 0): one pread per INFO instead of open, fstat, read
 * and close, and numbers parsed from the bytes instead of a String split by a regex.
 * Elsewhere than Linux the values are -1 and callers fall back.
 */
final class ProcSelf {
    private ProcSelf() {
    }

    private static final FileChannel STATM = open("/proc/self/statm");
    private static final FileChannel STAT = open("/proc/self/stat");
    /** Linux's page size for statm's counts and its clock tick for stat's times, as Redis assumes too. */
    private static final long PAGE = 4096;
    private static final double TICKS_PER_SECOND = 100.0;

    private static FileChannel open(String path) {
        try {
            return FileChannel.open(Path.of(path), StandardOpenOption.READ);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** Resident set size in bytes (statm's second field), or -1. */
    static long rss() {
        byte[] b = new byte[128];
        int n = read(STATM, b);
        if (n <= 0) return -1;
        int i = skipFields(b, 0, n, 1);
        long pages = number(b, i, n);
        return pages < 0 ? -1 : pages * PAGE;
    }

    /**
     * The calling thread's own stat file: opened by the thread that reads it (procfs ties
     * /proc/thread-self to the opener), kept for its life like the process's.
     */
    private static final ThreadLocal<FileChannel> THREAD_STAT = ThreadLocal.withInitial(() -> open("/proc/thread-self/stat"));

    /** {user, system} CPU seconds of the whole process (stat's utime and stime), or null. */
    static double[] cpuSeconds() {
        return cpuSeconds(STAT);
    }

    /** {user, system} CPU seconds of the calling thread (Redis's RUSAGE_THREAD), or null. */
    static double[] threadCpuSeconds() {
        return cpuSeconds(THREAD_STAT.get());
    }

    private static double[] cpuSeconds(FileChannel stat) {
        byte[] b = new byte[1024];
        int n = read(stat, b);
        if (n <= 0) return null;
        // the command name in parentheses may hold spaces: count fields after its closing one
        int close = -1;
        for (int i = n - 1; i >= 0; i--) {
            if (b[i] == ')') {
                close = i;
                break;
            }
        }
        if (close < 0 || close + 2 >= n) return null;
        // after ") " come state (field 3) ... utime (field 14) and stime (field 15)
        int i = skipFields(b, close + 2, n, 11);
        long user = number(b, i, n);
        long sys = number(b, skipFields(b, i, n, 1), n);
        if (user < 0 || sys < 0) return null;
        return new double[] {user / TICKS_PER_SECOND, sys / TICKS_PER_SECOND};
    }

    private static int read(FileChannel ch, byte[] into) {
        if (ch == null) return -1;
        try {
            synchronized (ch) {
                ByteBuffer buf = ByteBuffer.wrap(into);
                int total = 0;
                int r;
                while (buf.hasRemaining() && (r = ch.read(buf, total)) > 0) total += r;
                return total;
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** The offset after {@code count} space-separated fields from {@code i}. */
    private static int skipFields(byte[] b, int i, int end, int count) {
        for (int f = 0; f < count && i < end; f++) {
            while (i < end && b[i] != ' ') i++;
            while (i < end && b[i] == ' ') i++;
        }
        return i;
    }

    /** The decimal number at {@code i}, or -1 when there is none. */
    private static long number(byte[] b, int i, int end) {
        long v = 0;
        int start = i;
        while (i < end && b[i] >= '0' && b[i] <= '9') v = v * 10 + (b[i++] - '0');
        return i == start ? -1 : v;
    }
}
