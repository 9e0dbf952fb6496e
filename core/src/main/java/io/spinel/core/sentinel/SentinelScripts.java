package io.spinel.core.sentinel;

import io.spinel.core.Log;
import io.spinel.core.protocol.Reply;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The user's scripts (notification-script, client-reconfig-script), run as Redis's Sentinel runs
 * them: queued (at most 256, the oldest waiting one dropped), at most 16 at a time, each started
 * from the timer, retried with a doubling delay when it exits with 1 or is killed (at most 10
 * runs), killed after script-max-runtime. Owned by the engine's thread.
 */
final class SentinelScripts {
    private static final int MAX_QUEUE = 256;
    private static final int MAX_RUNNING = 16;
    private static final int MAX_RETRY = 10;

    private final Sentinel sentinel;
    private final List<Job> queue = new ArrayList<>();
    private int running;

    private static final class Job {
        final List<String> argv;
        int retryNum;
        /** When it started (running), or the earliest time to run it again (0: at once). */
        long startTime;
        Process process;

        Job(List<String> argv) {
            this.argv = argv;
        }
    }

    SentinelScripts(Sentinel sentinel) {
        this.sentinel = sentinel;
    }

    int running() {
        return running;
    }

    int queued() {
        return queue.size();
    }

    void schedule(String path, String... args) {
        List<String> argv = new ArrayList<>();
        argv.add(path);
        argv.addAll(List.of(args));
        queue.add(new Job(argv));
        if (queue.size() > MAX_QUEUE) {
            for (Iterator<Job> it = queue.iterator(); it.hasNext(); ) {
                if (it.next().process == null) {
                    it.remove();
                    break;
                }
            }
        }
    }

    /** The timer's turn: start what may start, collect what ended, kill what ran too long. */
    void tick() {
        runPending();
        collectTerminated();
        killTimedOut();
    }

    private void runPending() {
        long now = Sentinel.now();
        for (Job job : queue) {
            if (running >= MAX_RUNNING) break;
            if (job.process != null) continue;
            if (job.startTime != 0 && job.startTime > now) continue;
            job.startTime = now;
            job.retryNum++;
            try {
                job.process = start(job.argv);
                running++;
                sentinel.event(Log.DEBUG, "+script-child", null, Long.toString(job.process.pid()));
            } catch (IOException e) {
                // a script that cannot be started is reported as Redis reports a failed fork
                sentinel.event(Log.WARNING, "-script-error", null, job.argv.get(0) + " 99 0");
            }
        }
    }

    /**
     * Runs the script from "dir", where Redis has changed its working directory (a relative path
     * is relative to it); the child gets no descriptor of this process but the standard ones.
     */
    private Process start(List<String> argv) throws IOException {
        String dir = sentinel.engine.config().get("dir");
        List<String> command = new ArrayList<>(argv);
        if (!dir.isEmpty()) command.set(0, Path.of(dir).resolve(argv.get(0)).toString());
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        if (!dir.isEmpty()) pb.directory(new File(dir));
        return pb.start();
    }

    private void collectTerminated() {
        for (Iterator<Job> it = queue.iterator(); it.hasNext(); ) {
            Job job = it.next();
            if (job.process == null || job.process.isAlive()) continue;
            int status = job.process.exitValue();
            // the JVM reports a death by signal N as exit status 128 + N
            int bySignal = status > 128 ? status - 128 : 0;
            int exitCode = bySignal != 0 ? 0 : status;
            sentinel.event(Log.DEBUG, "-script-child", null, job.process.pid() + " " + exitCode + " " + bySignal);
            running--;
            job.process = null;
            if ((bySignal != 0 || exitCode == 1) && job.retryNum != MAX_RETRY) {
                job.startTime = Sentinel.now() + retryDelay(job.retryNum);
            } else {
                if (bySignal != 0 || exitCode != 0) {
                    sentinel.event(Log.WARNING, "-script-error", null, job.argv.get(0) + " " + bySignal + " " + exitCode);
                }
                it.remove();
            }
        }
    }

    /** The delay before another try: script-retry-delay, doubled for every try after the first. */
    private long retryDelay(int retryNum) {
        long delay = sentinel.timing.scriptRetryDelay;
        while (retryNum-- > 1) delay *= 2;
        return delay;
    }

    private void killTimedOut() {
        long now = Sentinel.now();
        for (Job job : queue) {
            if (job.process != null && now - job.startTime > sentinel.timing.scriptMaxRuntime) {
                sentinel.event(Log.WARNING, "-script-timeout", null, job.argv.get(0) + " " + job.process.pid());
                job.process.destroyForcibly();
            }
        }
    }

    /** SENTINEL PENDING-SCRIPTS: every queued script, running or waiting. */
    void reply(Reply r) {
        long now = Sentinel.now();
        r.arrayHeader(queue.size());
        for (Job job : queue) {
            r.mapHeader(5);
            r.bulk("argv");
            r.arrayHeader(job.argv.size());
            for (String a : job.argv) r.bulk(a);
            Map<String, Object> fields = new LinkedHashMap<>();
            fields.put("flags", job.process != null ? "running" : "scheduled");
            fields.put("pid", job.process != null ? job.process.pid() : 0L);
            if (job.process != null) fields.put("run-time", now - job.startTime);
            else fields.put("run-delay", job.startTime != 0 ? Math.max(0, job.startTime - now) : 0L);
            fields.put("retry-num", (long) job.retryNum);
            SentinelCommands.pairs(r, fields);
        }
    }

    /** Stops waiting for the scripts (the server stops); those running go on, as Redis's children do. */
    void clear() {
        queue.clear();
        running = 0;
    }
}
