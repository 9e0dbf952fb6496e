package io.spinel.server;

import io.spinel.server.testing.DiffScript;
import io.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * The differential harness: every script under src/test/resources/diff runs against Spinel and
 * redis-server 7 (Debian's) and every reply must be byte-identical. Skipped, with a message, where
 * redis-server is not installed; CI installs it.
 */
class DifferentialTest {
    private static RedisServerProcess redis;
    private static SpinelServer spinel;

    @BeforeAll
    static void start() throws Exception {
        Assumptions.assumeTrue(RedisServerProcess.available(),
                "redis-server not installed: differential tests skipped (apt-get install redis-server)");
        redis = RedisServerProcess.start();
        // its own directory: scripts may SAVE
        spinel = SpinelServer.builder().randomPort().option("bind", "127.0.0.1")
                .option("enable-debug-command", "yes")
                .option("dir", Files.createTempDirectory("spinel-diff").toString()).start();
    }

    @AfterAll
    static void stop() {
        if (spinel != null) spinel.close();
        if (redis != null) redis.close();
    }

    @TestFactory
    Stream<DynamicTest> scripts() throws IOException, URISyntaxException {
        Path dir = Path.of(DifferentialTest.class.getResource("/diff").toURI());
        List<Path> files;
        try (Stream<Path> s = Files.list(dir)) {
            files = s.filter(p -> p.toString().endsWith(".redis")).sorted().collect(Collectors.toList());
        }
        return files.stream().map(f -> DynamicTest.dynamicTest(f.getFileName().toString(), () -> runScript(f)));
    }

    static void runScript(Path f) throws IOException {
        DiffScript d = new DiffScript(redis.port(), spinel.port());
        try {
            d.reset();
            d.run(f.getFileName().toString(), Files.readString(f, StandardCharsets.UTF_8));
        } finally {
            d.close();
        }
        if (!d.mismatches().isEmpty()) {
            fail(d.mismatches().size() + " replies differ from redis-server:\n"
                    + d.mismatches().stream().map(Object::toString).collect(Collectors.joining("\n")));
        }
    }
}
