package io.spinel.core;

import io.spinel.core.command.Command;
import io.spinel.core.command.CommandError;
import io.spinel.core.command.CommandHandler;
import io.spinel.core.keyspace.KeyCommands;
import io.spinel.core.protocol.Reply;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The latency monitor and per-command latency histograms (Redis's latency.c and
 * latency-tracking). Events are recorded when they last latency-monitor-threshold ms or more
 * (0 turns the monitor off): "command" and "fast-command" (every command, by its fast flag),
 * "command-unblocking" (serving a blocked client), "expire-cycle" (active expiry), "eviction-cycle" (maxmemory eviction), and the AOF's
 * "aof-write" (with "aof-write-alone", "-pending-fsync" or "-active-child") and
 * "aof-fsync-always": the code paths Spinel has in common with Redis. Each event keeps its last 160 samples, one per second (the worst of
 * that second), and its all-time maximum.
 *
 * <p>With latency-tracking on, every command's duration also goes into a histogram of the
 * command with Redis's layout (an HDR histogram from 1 ns to 1 s with two significant digits),
 * so LATENCY HISTOGRAM and INFO latencystats give the same buckets and percentiles as Redis.
 */
final class LatencyMonitor {
    static final int SAMPLES = 160;

    static final class Series {
        final long[] time = new long[SAMPLES];
        final long[] latency = new long[SAMPLES];
        int idx;
        long max;

        int last() {
            return (idx + SAMPLES - 1) % SAMPLES;
        }
    }

    private final Engine engine;
    /** Events by name, in the order they first happened. */
    private final Map<String, Series> events = new LinkedHashMap<>();
    /** latency-monitor-threshold in ms; 0 is off. */
    long thresholdMs;
    /** latency-tracking. */
    boolean tracking = true;
    /** latency-tracking-info-percentiles. */
    private double[] percentiles;
    /** INFO's name of each percentile ("p50", "p99.9"), made when the option is set. */
    private String[] percentileLabels;
    /** The indexes of {@link #percentiles} in ascending order: INFO reads them in one scan. */
    private int[] ascending;

    LatencyMonitor(Engine engine) {
        this.engine = engine;
        setPercentiles(new double[] {50, 99, 99.9});
    }

    /** The handler of each command CommandFamilies registers for this family, made when it first runs. */
    public static CommandHandler handler(String name) {
        return switch (name) {
            case "latency|latest" -> c -> c.engine.latency.latest(c.reply());
            case "latency|history" -> c -> c.engine.latency.history(c);
            case "latency|reset" -> c -> c.engine.latency.reset(c);
            case "latency|graph" -> c -> c.engine.latency.graph(c);
            case "latency|doctor" -> c -> c.reply().verbatim(c.engine.latency.doctor(), "txt");
            case "latency|histogram" -> c -> c.engine.latency.histogram(c);
            case "latency|help" -> c -> KeyCommands.helpReply(c, new String[] {
                "DOCTOR",
                "    Show a report of the latency events seen, with advice.",
                "GRAPH <event>",
                "    Show a text chart of the samples of <event>.",
                "HISTORY <event>",
                "    Show the samples of <event>: pairs of unix time and milliseconds.",
                "LATEST",
                "    Show each event's latest sample and its all-time maximum.",
                "RESET [<event> ...]",
                "    Forget the samples of the events named (all events when none is named).",
                "HISTOGRAM [COMMAND ...]",
                "    Show the latency distribution of the commands named, as a cumulative histogram.",
                "    With no command named, of every command that ran."});
            default -> null;
        };
    }

    /** Records an event's duration if the monitor is on and it reached the threshold. */
    void sample(String event, long ms) {
        if (thresholdMs == 0 || ms < thresholdMs) return;
        Series s = events.get(event);
        if (s == null) {
            s = new Series();
            events.put(event, s);
        }
        long now = System.currentTimeMillis() / 1000;
        if (ms > s.max) s.max = ms;
        int prev = s.last();
        if (s.time[prev] == now) {
            if (ms > s.latency[prev]) s.latency[prev] = ms;
            return;
        }
        s.time[s.idx] = now;
        s.latency[s.idx] = ms;
        s.idx = (s.idx + 1) % SAMPLES;
    }

    private void latest(Reply r) {
        r.arrayHeader(events.size());
        for (Map.Entry<String, Series> e : events.entrySet()) {
            Series s = e.getValue();
            int last = s.last();
            r.arrayHeader(4);
            r.bulk(e.getKey());
            r.integer(s.time[last]);
            r.integer(s.latency[last]);
            r.integer(s.max);
        }
    }

    private void history(Client c) {
        Series s = events.get(c.argString(2));
        Reply r = c.reply();
        if (s == null) {
            r.arrayHeader(0);
            return;
        }
        int n = 0;
        for (long t : s.time) if (t != 0) n++;
        r.arrayHeader(n);
        for (int j = 0; j < SAMPLES; j++) {
            int i = (s.idx + j) % SAMPLES;
            if (s.time[i] == 0) continue;
            r.arrayHeader(2);
            r.integer(s.time[i]);
            r.integer(s.latency[i]);
        }
    }

    private void reset(Client c) {
        int resets = 0;
        if (c.argc() == 2) {
            resets = events.size();
            events.clear();
        } else {
            for (int j = 2; j < c.argc(); j++) {
                String name = c.argString(j);
                for (Iterator<String> it = events.keySet().iterator(); it.hasNext(); ) {
                    if (it.next().equalsIgnoreCase(name)) {
                        it.remove();
                        resets++;
                    }
                }
            }
        }
        c.reply().integer(resets);
    }

    // ---- GRAPH ----------------------------------------------------------------------------------

    /** Columns of the chart (as Redis's graph), and rows of bars. */
    private static final int COLUMNS = 80;
    private static final int ROWS = 4;
    /** Bar heights within a row, lowest first. */
    private static final char[] LEVELS = {'.', ':', '|'};

    private void graph(Client c) {
        String name = c.argString(2);
        Series s = events.get(name);
        if (s == null) throw CommandError.err("No samples available for event '" + name + "'");
        List<long[]> samples = new ArrayList<>(); // {latency, seconds ago}
        long now = System.currentTimeMillis() / 1000;
        long min = 0;
        long max = 0;
        for (int j = 0; j < SAMPLES; j++) {
            int i = (s.idx + j) % SAMPLES;
            if (s.time[i] == 0) continue;
            long v = s.latency[i];
            if (samples.isEmpty()) {
                min = max = v;
            } else {
                min = Math.min(min, v);
                max = Math.max(max, v);
            }
            samples.add(new long[] {v, now - s.time[i]});
        }
        StringBuilder sb = new StringBuilder();
        sb.append(name).append(" - high ").append(max).append(" ms, low ").append(min)
                .append(" ms (all time high ").append(s.max).append(" ms)\n");
        sb.append("-".repeat(COLUMNS)).append('\n');
        for (int from = 0; from < samples.size(); from += COLUMNS) {
            if (from != 0) sb.append('\n');
            chart(sb, samples.subList(from, Math.min(samples.size(), from + COLUMNS)), min, max);
        }
        c.reply().verbatim(sb.toString(), "txt");
    }

    /**
     * One band of the chart: ROWS rows of bars scaled between min and max (each row split in
     * LEVELS steps), then each sample's age written downwards under its bar.
     */
    private static void chart(StringBuilder sb, List<long[]> samples, long min, long max) {
        int steps = ROWS * LEVELS.length;
        double range = max - min == 0 ? 1 : max - min;
        int n = samples.size();
        int[] height = new int[n];
        String[] labels = new String[n];
        int labelRows = 0;
        for (int j = 0; j < n; j++) {
            height[j] = (int) Math.min(steps - 1, Math.max(0, (samples.get(j)[0] - min) * steps / range));
            labels[j] = age(samples.get(j)[1]);
            labelRows = Math.max(labelRows, labels[j].length());
        }
        char[] line = new char[n];
        for (int row = ROWS - 1; row >= 0; row--) {
            for (int j = 0; j < n; j++) {
                int inRow = height[j] - row * LEVELS.length;
                line[j] = inRow < 0 ? ' ' : inRow < LEVELS.length ? LEVELS[inRow] : '|';
            }
            sb.append(line).append('\n');
        }
        // a blank line between the bars and the labels
        sb.append(" ".repeat(n)).append('\n');
        for (int row = 0; row < labelRows; row++) {
            for (int j = 0; j < n; j++) line[j] = row < labels[j].length() ? labels[j].charAt(row) : ' ';
            sb.append(line).append('\n');
        }
    }

    private static String age(long seconds) {
        if (seconds < 60) return seconds + "s";
        if (seconds < 3600) return seconds / 60 + "m";
        if (seconds < 86400) return seconds / 3600 + "h";
        return seconds / 86400 + "d";
    }

    // ---- DOCTOR ---------------------------------------------------------------------------------

    private String doctor() {
        if (events.isEmpty() && thresholdMs == 0) {
            return "Latency monitoring is off in this server: nothing has been recorded. Turn it on with "
                    + "\"CONFIG SET latency-monitor-threshold <milliseconds>\"; events that take at least that "
                    + "long are then recorded.\n";
        }
        if (events.isEmpty()) {
            return "No latency event has reached the threshold of " + thresholdMs
                    + " ms since the monitor was started or reset.\n";
        }
        StringBuilder sb = new StringBuilder("Latency events recorded in this server:\n\n");
        List<String> advice = new ArrayList<>();
        int n = 0;
        long now = System.currentTimeMillis() / 1000;
        for (Map.Entry<String, Series> e : events.entrySet()) {
            Series s = e.getValue();
            String name = e.getKey();
            int samples = 0;
            long sum = 0;
            long oldest = 0;
            for (int i = 0; i < SAMPLES; i++) {
                if (s.time[i] == 0) continue;
                samples++;
                sum += s.latency[i];
                if (oldest == 0 || s.time[i] < oldest) oldest = s.time[i];
            }
            long avg = samples == 0 ? 0 : sum / samples;
            long dev = 0;
            for (int i = 0; i < SAMPLES; i++) if (s.time[i] != 0) dev += Math.abs(avg - s.latency[i]);
            if (samples > 0) dev /= samples;
            long period = samples == 0 ? 0 : Math.max(1, now - oldest);
            sb.append(++n).append(". ").append(name).append(": ").append(samples)
                    .append(" spikes, average ").append(avg).append(" ms, mean deviation ").append(dev)
                    .append(" ms, one every ")
                    .append(String.format(Locale.ROOT, "%.2f", samples == 0 ? 0.0 : (double) period / samples))
                    .append(" s on average; the worst ever took ").append(s.max).append(" ms.\n");
            switch (name) {
                case "command":
                    if (engine.slowlog.slowerThan < 0) {
                        advice.add("The slow log is off: turn it on (CONFIG SET slowlog-log-slower-than "
                                + thresholdMs * 1000 + ") to see which commands are slow.");
                    } else if (engine.slowlog.slowerThan / 1000 > thresholdMs) {
                        advice.add("The slow log only records commands slower than the latency threshold: "
                                + "CONFIG SET slowlog-log-slower-than " + thresholdMs * 1000 + " to see them all.");
                    }
                    advice.add("SLOWLOG GET shows the slow commands; commands over large values (big sets, "
                            + "sorted sets, lists) or deleting large keys are the usual cause.");
                    break;
                case "fast-command":
                    advice.add("Even O(1) commands were slow: the machine may be overloaded or the JVM may have "
                            + "paused (garbage collection, CPU starvation); check the load and the GC log.");
                    break;
                case "expire-cycle":
                    advice.add("Active expiry took long: many keys expire at the same time, or large keys "
                            + "expire; a higher hz spreads the work more evenly.");
                    break;
                case "eviction-cycle":
                    advice.add("Eviction took long: memory went far over maxmemory at once (a lowered maxmemory, "
                            + "a large write); evicting large keys is also slow.");
                    break;
                case "aof-fsync-always":
                    advice.add("With appendfsync always every write waits for the disk to confirm it; everysec "
                            + "risks at most a second of writes and does not wait.");
                    break;
                case "aof-write":
                case "aof-write-alone":
                case "aof-write-pending-fsync":
                case "aof-write-active-child":
                    advice.add("Appending to the AOF was slow: the disk is busy (other processes, a background "
                            + "save or rewrite, an fsync in progress) or remote; a local SSD helps.");
                    break;
                default:
                    break;
            }
        }
        if (!advice.isEmpty()) {
            sb.append("\nAdvice:\n\n");
            for (String a : advice) sb.append("- ").append(a).append('\n');
        }
        return sb.toString();
    }

    // ---- per-command histograms (latency-tracking) ------------------------------------------------

    /*
     * Redis's layout: hdr_histogram with lowest 1 ns, highest 1e9 ns, 2 significant digits. That
     * gives sub-buckets of 256 (half 128), 23 buckets, 3072 counters. Values below 256 ns are
     * exact; each power of two above is split in 128 equal steps.
     */
    private static final int COUNTS = 3072;
    private static final long MIN_NS = 1;
    private static final long MAX_NS = 1_000_000_000L;

    /** Adds one call of {@code cmd} that took {@code micros}. Allocates the histogram on first use. */
    void record(Command cmd, long micros) {
        long ns = micros * 1000;
        if (ns < MIN_NS) ns = MIN_NS;
        if (ns > MAX_NS) ns = MAX_NS;
        long[] h = cmd.latencyHistogram;
        if (h == null) {
            h = new long[COUNTS];
            cmd.latencyHistogram = h;
            cmd.latencyCount = 0;
        }
        h[index(ns)]++;
        cmd.latencyCount++;
    }

    static int index(long v) {
        int bucket = 64 - Long.numberOfLeadingZeros(v | 255) - 8;
        int sub = (int) (v >>> bucket);
        return ((bucket + 1) << 7) + (sub - 128);
    }

    static long valueAt(int idx) {
        int bucket = (idx >> 7) - 1;
        int sub = (idx & 127) + 128;
        if (bucket < 0) {
            sub -= 128;
            bucket = 0;
        }
        return (long) sub << bucket;
    }

    /** The highest value that falls in the same counter as v. */
    static long highestEquivalent(long v) {
        int bucket = 64 - Long.numberOfLeadingZeros(v | 255) - 8;
        long lowest = (v >>> bucket) << bucket;
        return lowest + (1L << bucket) - 1;
    }

    static long lowestEquivalent(long v) {
        int bucket = 64 - Long.numberOfLeadingZeros(v | 255) - 8;
        return (v >>> bucket) << bucket;
    }

    /**
     * hdr_value_at_percentile for several percentiles of a histogram of {@code total} calls, in
     * one scan of the counters: {@code ascending} lists the indexes of {@code percentiles} from
     * the lowest percentile up, and {@code out} receives each value (ns) at its percentile's index.
     */
    static void valuesAtPercentiles(long[] h, long total, double[] percentiles, int[] ascending, long[] out) {
        int i = -1;
        long sum = 0;
        for (int k : ascending) {
            double p = Math.min(percentiles[k], 100.0);
            long countAt = Math.max(1, (long) ((p / 100) * total + 0.5));
            // the first counter where the running sum reaches countAt (at or after the previous one's)
            while (sum < countAt && i < COUNTS - 1) sum += h[++i];
            long value = sum >= countAt ? valueAt(i) : 0;
            out[k] = percentiles[k] == 0.0 ? lowestEquivalent(value) : highestEquivalent(value);
        }
    }

    /**
     * The LATENCY HISTOGRAM buckets of a histogram: {microseconds, cumulative calls} at each
     * power of two from 1024 ns (as hdr's logarithmic iterator reports them: the top of the
     * first counter at or above each power, or of the last counter for the powers past it),
     * only where the cumulative count grew.
     */
    static List<long[]> cumulativeBuckets(long[] h) {
        List<long[]> out = new ArrayList<>();
        long cumulative = 0;
        long previous = 0;
        int i = 0;
        for (long level = 1024; i < COUNTS; level *= 2) {
            int stop = Math.min(index(level), COUNTS - 1);
            for (; i <= stop; i++) cumulative += h[i];
            // past the last counter hdr's iterator stops on that counter, and reports its top
            long top = highestEquivalent(valueAt(stop));
            if (cumulative > previous) out.add(new long[] {top / 1000, cumulative});
            previous = cumulative;
        }
        return out;
    }

    private void histogram(Client c) {
        List<Command> chosen = new ArrayList<>();
        if (c.argc() == 2) {
            for (Command cmd : engine.commands.commands()) {
                if (cmd.latencyHistogram != null) chosen.add(cmd);
                for (Command sub : cmd.subcommands()) if (sub.latencyHistogram != null) chosen.add(sub);
            }
        } else {
            for (int j = 2; j < c.argc(); j++) {
                Command cmd = lookup(c.argString(j));
                if (cmd == null) continue;
                if (cmd.latencyHistogram != null) chosen.add(cmd);
                for (Command sub : cmd.subcommands()) if (sub.latencyHistogram != null) chosen.add(sub);
            }
        }
        Reply r = c.reply();
        r.mapHeader(chosen.size());
        for (Command cmd : chosen) {
            long[] h = cmd.latencyHistogram;
            long total = 0;
            for (long n : h) total += n;
            r.bulk(cmd.name);
            r.mapHeader(2);
            r.bulk("calls");
            r.integer(total);
            r.bulk("histogram_usec");
            List<long[]> buckets = cumulativeBuckets(h);
            r.mapHeader(buckets.size());
            for (long[] b : buckets) {
                r.integer(b[0]);
                r.integer(b[1]);
            }
        }
    }

    /** A command by name, "container|sub" for a subcommand (Redis's lookupCommandBySds). */
    private Command lookup(String name) {
        int bar = name.indexOf('|');
        if (bar < 0) return engine.commands.lookup(name);
        Command parent = engine.commands.lookup(name.substring(0, bar));
        if (parent == null || name.indexOf('|', bar + 1) >= 0) return null;
        return parent.subcommand(name.substring(bar + 1).toLowerCase(Locale.ROOT));
    }

    /** INFO latencystats: each command's percentiles in microseconds. */
    void info(StringBuilder sb) {
        if (!tracking) return;
        long[] values = new long[percentiles.length];
        for (Command cmd : engine.commands.commands()) {
            infoLine(sb, cmd, values);
            for (Command sub : cmd.subcommands()) infoLine(sb, sub, values);
        }
    }

    private void infoLine(StringBuilder sb, Command cmd, long[] values) {
        long[] h = cmd.latencyHistogram;
        if (h == null) return;
        valuesAtPercentiles(h, cmd.latencyCount, percentiles, ascending, values);
        sb.append("latency_percentiles_usec_").append(cmd.name).append(':');
        for (int j = 0; j < percentiles.length; j++) {
            if (j > 0) sb.append(',');
            sb.append(percentileLabels[j]).append('=');
            appendMicros(sb, values[j]);
        }
        sb.append("\r\n");
    }

    /** Nanoseconds as microseconds with three decimals: Redis's "%.3f" of ns / 1000.0, exactly. */
    static void appendMicros(StringBuilder sb, long ns) {
        long frac = ns % 1000;
        sb.append(ns / 1000).append('.');
        if (frac < 100) sb.append('0');
        if (frac < 10) sb.append('0');
        sb.append(frac);
    }

    /** latency-tracking-info-percentiles, already parsed and checked. */
    void setPercentiles(double[] ps) {
        String[] labels = new String[ps.length];
        for (int j = 0; j < ps.length; j++) {
            // Redis prints "%f" and trims the zeros after the point, and the point if nothing is left
            String p = String.format(Locale.ROOT, "%f", ps[j]);
            if (p.indexOf('.') >= 0) {
                int end = p.length();
                while (p.charAt(end - 1) == '0') end--;
                if (p.charAt(end - 1) == '.') end--;
                p = p.substring(0, end);
            }
            labels[j] = "p" + p;
        }
        Integer[] order = new Integer[ps.length];
        for (int j = 0; j < ps.length; j++) order[j] = j;
        java.util.Arrays.sort(order, (x, y) -> Double.compare(ps[x], ps[y]));
        int[] asc = new int[ps.length];
        for (int j = 0; j < ps.length; j++) asc[j] = order[j];
        percentiles = ps;
        percentileLabels = labels;
        ascending = asc;
    }
}
