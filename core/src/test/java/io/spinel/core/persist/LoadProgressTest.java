package io.spinel.core.persist;

import io.spinel.core.Engine;
import io.spinel.core.Log;
import io.spinel.core.config.Config;
import io.spinel.core.embedded.EmbeddedSpinel;
import io.spinel.core.util.TaskLoop;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** RDB and AOF loads log their progress while they run (Redis's "Loading ...: x%" lines), and none after they end. */
class LoadProgressTest {
    private static final Pattern PROGRESS = Pattern.compile("Loading RDB: ([0-9.]+)%, ([0-9]+) keys, [0-9]+ keys/s");

    @Test
    void progressLinesComeDuringTheLoadAndStopBeforeItsLastLine(@TempDir Path dir) throws Exception {
        int keys = 20_000;
        try (EmbeddedSpinel s = EmbeddedSpinel.builder().option("dir", dir.toString()).start()) {
            for (int i = 0; i < keys; i += 1000) {
                List<String> mset = new ArrayList<>();
                mset.add("MSET");
                for (int j = i; j < i + 1000; j++) {
                    mset.add("key:" + j);
                    mset.add("value:" + j);
                }
                s.client().execute(mset.toArray(new String[0]));
            }
            s.client().execute("SAVE");
        }
        long saved = LoadProgress.intervalNanos;
        LoadProgress.intervalNanos = 100_000; // every 0.1 ms instead of every second
        List<String> lines;
        try {
            lines = loadLogging(dir);
        } finally {
            LoadProgress.intervalNanos = saved;
        }
        int done = -1;
        List<Long> counts = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains("Done loading RDB, keys loaded: " + keys)) done = i;
            Matcher m = PROGRESS.matcher(lines.get(i));
            if (m.find()) {
                assertThat(done).as("a progress line after the load's last line").isEqualTo(-1);
                assertThat(Double.parseDouble(m.group(1))).isBetween(0.0, 100.0);
                counts.add(Long.parseLong(m.group(2)));
            }
        }
        assertThat(done).isGreaterThanOrEqualTo(0);
        assertThat(counts).isNotEmpty().isSorted();
        // the decoding loop publishes every 1024 keys
        assertThat(counts).allSatisfy(n -> assertThat(n % 1024).isZero()).allSatisfy(n -> assertThat(n).isBetween(1024L, (long) keys));
    }

    @Test
    void anAofLoadLogsItsProgressBeforeItsLastLine(@TempDir Path dir) throws Exception {
        int keys = 5_000;
        try (EmbeddedSpinel s = EmbeddedSpinel.builder().option("dir", dir.toString()).option("appendonly", "yes").start()) {
            for (int i = 0; i < keys; i++) s.client().execute("SET", "key:" + i, "value:" + i);
        }
        long saved = LoadProgress.intervalNanos;
        LoadProgress.intervalNanos = 100_000;
        List<String> lines;
        try {
            lines = loadLogging(dir, true, keys);
        } finally {
            LoadProgress.intervalNanos = saved;
        }
        Pattern aofProgress = Pattern.compile("Loading AOF \\S+: ([0-9.]+)%");
        int done = -1;
        int progressLines = 0;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains("DB loaded from append only file")) done = i;
            Matcher m = aofProgress.matcher(lines.get(i));
            if (m.find()) {
                assertThat(done).as("a progress line after the load's last line").isEqualTo(-1);
                assertThat(Double.parseDouble(m.group(1))).isBetween(0.0, 100.0);
                progressLines++;
            }
        }
        assertThat(done).isGreaterThanOrEqualTo(0);
        assertThat(progressLines).isPositive();
    }

    private static List<String> loadLogging(Path dir) throws Exception {
        return loadLogging(dir, false, 20_000);
    }

    /** Starts an engine on dir that loads its data set, logging at notice level: the lines logged. */
    private static List<String> loadLogging(Path dir, boolean aof, int expectedKeys) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Log log = new Log(new PrintStream(out, true, StandardCharsets.UTF_8));
        TaskLoop loop = new TaskLoop("load-progress-test");
        loop.start();
        try {
            CompletableFuture<Integer> f = new CompletableFuture<>();
            loop.execute(() -> {
                try {
                    Config c = new Config();
                    c.set("dir", dir.toString());
                    c.set("save", "");
                    if (aof) c.set("appendonly", "yes");
                    Engine e = new Engine(c, loop, loop::inLoop, log);
                    e.persistence().startUp(true);
                    int n = e.keyspace().db(0).size();
                    e.persistence().stop();
                    f.complete(n);
                } catch (Throwable t) {
                    f.completeExceptionally(t);
                }
            });
            assertThat(f.get(60, TimeUnit.SECONDS)).isEqualTo(expectedKeys);
        } finally {
            loop.shutdown();
        }
        return List.of(out.toString(StandardCharsets.UTF_8).split("\n"));
    }
}
