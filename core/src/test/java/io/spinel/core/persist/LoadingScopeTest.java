package io.spinel.core.persist;

import io.spinel.core.Engine;
import io.spinel.core.Log;
import io.spinel.core.config.Config;
import io.spinel.core.embedded.EmbeddedSpinel;
import io.spinel.core.util.TaskLoop;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** The host's loading scope wraps the load at start: entered with the bytes to load, left after it. */
class LoadingScopeTest {
    @Test
    void anRdbLoadRunsInsideTheScope(@TempDir Path dir) throws Exception {
        try (EmbeddedSpinel s = EmbeddedSpinel.builder().option("dir", dir.toString()).start()) {
            s.client().execute("SET", "a", "1");
            s.client().execute("SAVE");
        }
        List<String> events = startWithScope(dir, false);
        assertThat(events).containsExactly("enter " + Files.size(dir.resolve("dump.rdb")), "after", "keys 1");
    }

    @Test
    void anAofLoadRunsInsideTheScope(@TempDir Path dir) throws Exception {
        try (EmbeddedSpinel s = EmbeddedSpinel.builder().option("dir", dir.toString()).option("appendonly", "yes").start()) {
            s.client().execute("SET", "a", "1");
            s.client().execute("SET", "b", "2");
        }
        long bytes;
        try (Stream<Path> files = Files.list(dir.resolve("appendonlydir"))) {
            bytes = files.filter(p -> !p.toString().endsWith(".manifest")).mapToLong(p -> p.toFile().length()).sum();
        }
        List<String> events = startWithScope(dir, true);
        assertThat(events).containsExactly("enter " + bytes, "after", "keys 2");
    }

    @Test
    void nothingToLoadEntersNoScope(@TempDir Path dir) throws Exception {
        assertThat(startWithScope(dir, false)).containsExactly("keys 0");
    }

    /** Starts an engine on dir with a recording scope: what the scope saw, then the key count after start-up. */
    private static List<String> startWithScope(Path dir, boolean aof) throws Exception {
        TaskLoop loop = new TaskLoop("loading-scope-test");
        loop.start();
        try {
            CompletableFuture<List<String>> f = new CompletableFuture<>();
            loop.execute(() -> {
                try {
                    Config c = new Config();
                    c.set("dir", dir.toString());
                    c.set("save", "");
                    if (aof) c.set("appendonly", "yes");
                    Engine e = new Engine(c, loop, loop::inLoop, Log.silent());
                    List<String> events = new ArrayList<>();
                    e.persistence().setLoadingScope(bytes -> {
                        events.add("enter " + bytes);
                        return () -> events.add("after");
                    });
                    e.persistence().startUp(true);
                    events.add("keys " + e.keyspace().db(0).size());
                    e.persistence().stop();
                    f.complete(events);
                } catch (Throwable t) {
                    f.completeExceptionally(t);
                }
            });
            return f.get(30, TimeUnit.SECONDS);
        } finally {
            loop.shutdown();
        }
    }
}
