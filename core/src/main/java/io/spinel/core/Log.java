package io.spinel.core;

import java.io.PrintStream;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * Log lines in Redis's format: {@code pid:role dd Mon yyyy HH:mm:ss.SSS level message}, with the
 * level marks Redis uses ({@code .} debug, {@code -} verbose, {@code *} notice, {@code #} warning).
 */
public final class Log {
    public static final int DEBUG = 0;
    public static final int VERBOSE = 1;
    public static final int NOTICE = 2;
    public static final int WARNING = 3;
    private static final char[] MARKS = {'.', '-', '*', '#'};
    /** Made with the first line written: an embedded server that logs nothing never loads java.time's formatters. */
    private static final class Time {
        static final DateTimeFormatter FORMAT = DateTimeFormatter.ofPattern("dd MMM yyyy HH:mm:ss.SSS", Locale.ENGLISH);
    }

    private volatile PrintStream out;
    private volatile int level = NOTICE;
    /** Asked with the first line written: ProcessHandle sets up its own executor when first used. */
    private long pid = -1;
    private volatile char role = 'M';

    public Log(PrintStream out) {
        this.out = out;
    }

    /** A log that drops everything (embedded use where the host has its own logging). */
    public static Log silent() {
        Log l = new Log(null);
        l.level = Integer.MAX_VALUE;
        return l;
    }

    public void setOutput(PrintStream out) {
        this.out = out;
    }

    public void setLevel(int level) {
        this.level = level;
    }

    public static int parseLevel(String name) {
        switch (name) {
            case "debug": return DEBUG;
            case "verbose": return VERBOSE;
            case "warning": return WARNING;
            default: return NOTICE;
        }
    }

    public void setRole(char role) {
        this.role = role;
    }

    public boolean enabled(int lvl) {
        return lvl >= level && out != null;
    }

    public void log(int lvl, String msg) {
        if (!enabled(lvl)) return;
        if (pid < 0) pid = ProcessHandle.current().pid();
        String line = pid + ":" + role + " " + Time.FORMAT.format(LocalDateTime.now()) + " " + MARKS[lvl] + " " + msg;
        PrintStream o = out;
        synchronized (this) {
            o.println(line);
            o.flush();
        }
    }

    /** A line without the prefix (Redis's LL_RAW, e.g. the start-up banner). */
    public void raw(String msg) {
        PrintStream o = out;
        if (o == null || level == Integer.MAX_VALUE) return;
        synchronized (this) {
            o.println(msg);
            o.flush();
        }
    }

    public void debug(String msg) {
        log(DEBUG, msg);
    }

    public void verbose(String msg) {
        log(VERBOSE, msg);
    }

    public void notice(String msg) {
        log(NOTICE, msg);
    }

    public void warning(String msg) {
        log(WARNING, msg);
    }
}
