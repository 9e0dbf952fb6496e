package io.spinel.core.persist;

import io.spinel.core.embedded.EmbeddedSpinel;
import io.spinel.core.embedded.SpinelClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** An embedded instance persists when configured to: RDB and AOF survive a restart; nothing is read or written otherwise. */
class EmbeddedPersistenceTest {
    @Test
    void rdbAndAofSurviveARestart(@TempDir Path dir) {
        try (EmbeddedSpinel s = EmbeddedSpinel.builder().option("dir", dir.toString()).start()) {
            SpinelClient c = s.client();
            c.execute("SET", "a", "1");
            c.execute("RPUSH", "l", "x", "y");
            assertThat(c.execute("SAVE")).isEqualTo("OK");
        }
        try (EmbeddedSpinel s = EmbeddedSpinel.builder().option("dir", dir.toString()).option("appendonly", "yes").start()) {
            SpinelClient c = s.client();
            // appendonly yes reads the AOF only: there is none yet, so the data set starts empty
            assertThat(c.execute("DBSIZE")).isEqualTo(0L);
            c.execute("SET", "b", "2");
        }
        try (EmbeddedSpinel s = EmbeddedSpinel.builder().option("dir", dir.toString()).option("appendonly", "yes").start()) {
            assertThat(s.client().execute("GET", "b")).isEqualTo("2");
        }
        try (EmbeddedSpinel s = EmbeddedSpinel.builder().option("dir", dir.toString()).start()) {
            assertThat(s.client().execute("LRANGE", "l", "0", "-1")).isEqualTo(java.util.List.of("x", "y"));
        }
    }

    @Test
    void withoutSavePointsNothingIsSavedAtClose() {
        Path cwdDump = Path.of(System.getProperty("user.dir"), "dump.rdb");
        boolean existed = Files.exists(cwdDump);
        try (EmbeddedSpinel s = EmbeddedSpinel.builder().start()) {
            assertThat(s.client().execute("CONFIG", "GET", "save")).isEqualTo(java.util.List.of("save", ""));
            s.client().execute("SET", "a", "1");
        }
        assertThat(Files.exists(cwdDump)).isEqualTo(existed);
    }
}
