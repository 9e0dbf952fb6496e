package io.spinel.core;

import java.io.PrintStream;
import java.util.TimeZone;

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
    private static final String[] MONTHS = {
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    };
    /**
     * The local time zone, read with the first line written (as Redis reads it once). Timestamps
     * are formatted by hand: java.time's pattern formatter loaded the CLDR locale data for the
     * month names, 40-90 ms of the first log line and of every server's start.
     */
    private static final class Zone {
        static final TimeZone LOCAL = TimeZone.getDefault();
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
        String line = pid + ":" + role + " " + timestamp(System.currentTimeMillis(), Zone.LOCAL) + " " + MARKS[lvl] + " " + msg;
        PrintStream o = out;
        synchronized (this) {
            o.println(line);
            o.flush();
        }
    }

    /** {@code dd Mon yyyy HH:mm:ss.SSS} in the given zone, as Redis's log lines have it. */
    static String timestamp(long epochMillis, TimeZone zone) {
        long local = epochMillis + zone.getOffset(epochMillis);
        long days = Math.floorDiv(local, 86_400_000L);
        int msOfDay = (int) Math.floorMod(local, 86_400_000L);
        // the civil date of a day number (days since 1970-01-01), in 400-year eras from March 1st
        long z = days + 719_468;
        long era = Math.floorDiv(z, 146_097);
        int dayOfEra = (int) (z - era * 146_097);
        int yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365;
        int dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100);
        int mp = (5 * dayOfYear + 2) / 153;
        int day = dayOfYear - (153 * mp + 2) / 5 + 1;
        int month = mp < 10 ? mp + 3 : mp - 9;
        long year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
        StringBuilder sb = new StringBuilder(24);
        two(sb, day).append(' ').append(MONTHS[month - 1]).append(' ').append(year).append(' ');
        two(sb, msOfDay / 3_600_000).append(':');
        two(sb, msOfDay / 60_000 % 60).append(':');
        two(sb, msOfDay / 1000 % 60).append('.');
        int millis = msOfDay % 1000;
        if (millis < 100) sb.append('0');
        return two(sb, millis).toString();
    }

    private static StringBuilder two(StringBuilder sb, int v) {
        if (v < 10) sb.append('0');
        return sb.append(v);
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
