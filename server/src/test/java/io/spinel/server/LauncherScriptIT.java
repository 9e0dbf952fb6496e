package io.spinel.server;

import io.spinel.server.testing.RawClient;
import io.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code ./spinel-server} script itself, as a user runs it, once the package phase has built
 * the jar it starts (hence an integration test: LauncherTest starts {@code Main} directly). The
 * script does its own arithmetic and JDK probing in bash before the JVM starts; a mistake there
 * shows only as stray shell errors on the terminal or a wrong JVM option, so both are checked.
 */
class LauncherScriptIT {
    /** A server log line ("pid:role date # text"); anything else on the terminal came from the shell. */
    private static final Pattern LOG_LINE = Pattern.compile("^\\d+:[CMXS] \\d\\d \\w{3} \\d{4} .*");
    private static final Pattern MAX_HEAP = Pattern.compile("max heap (\\d+) MB");

    private static Path script() {
        Path s = Path.of("").toAbsolutePath().getParent().resolve("spinel-server");
        assertThat(s).exists();
        return s;
    }

    private static Process run(Path log, String... args) throws IOException {
        return run(script(), log, args);
    }

    /** The launcher started as {@code script} (the script itself, or a link to it). */
    private static Process run(Path script, Path log, String... args) throws IOException {
        List<String> cmd = new java.util.ArrayList<>(List.of("bash", script.toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().remove("SPINEL_JAVA_OPTS"); // the launcher's own defaults
        return pb.start();
    }

    @Test
    void versionPrintsOnlyTheVersion(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("v.log");
        Process p = run(log, "--version");
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isZero();
        List<String> lines = Files.readAllLines(log);
        assertThat(lines).hasSize(1);
        assertThat(lines.get(0)).startsWith("Spinel server v=");
    }

    /**
     * Started through a link to the script (from a bin directory, say), the launcher finds the
     * project, and the process title names the server as it was started, with its address
     * (Redis's default proc-title-template), instead of the JVM's command line.
     */
    @Test
    void aLinkToTheScriptStartsTheServerTitledAsStarted(@TempDir Path dir) throws Exception {
        Path link = Files.createDirectories(dir.resolve("bin")).resolve("spinel-server");
        Files.createSymbolicLink(link, script());
        int port = RedisServerProcess.freePort();
        Path log = dir.resolve("out.log");
        Process p = run(link, log, "--port", Integer.toString(port), "--save", "", "--dir", dir.toString());
        try {
            waitForPing(port, p);
            String cmdline = Files.readString(Path.of("/proc/" + p.pid() + "/cmdline"), java.nio.charset.StandardCharsets.UTF_8);
            assertThat(cmdline).startsWith(link + " *:" + port + "\0");
            try (RawClient c = new RawClient(port)) {
                assertThat(c.callString("INFO", "server")).contains("\r\nexecutable:" + link + "\r\n");
            }
            p.destroy();
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).isZero();
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    void startsWithTheHeapCapAndStopsOnSigterm(@TempDir Path dir) throws Exception {
        int port = RedisServerProcess.freePort();
        Path log = dir.resolve("out.log");
        Process p = run(log, "--port", Integer.toString(port), "--save", "", "--dir", dir.toString());
        try {
            waitForPing(port, p);
            p.destroy(); // SIGTERM: the script exec'd the JVM, so this is the server
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).isZero();
            List<String> lines = Files.readAllLines(log);
            assertThat(lines).isNotEmpty().allSatisfy(l -> assertThat(l).matches(LOG_LINE));
            String out = String.join("\n", lines);
            // 75% of the machine, or 31 GB where that would turn compressed references off
            boolean capped = out.contains(" -Xmx31g ");
            assertThat(capped || out.contains(" -XX:MaxRAMPercentage=75 ")).as(out).isTrue();
            Matcher m = MAX_HEAP.matcher(out);
            assertThat(m.find()).isTrue();
            long maxHeapMb = Long.parseLong(m.group(1));
            long memMb = physicalOrContainerMemoryMb();
            if (capped) {
                assertThat(memMb * 3 / 4).isGreaterThan(31 * 1024);
                assertThat(maxHeapMb).isBetween(30L * 1024, 31L * 1024);
            } else {
                assertThat(memMb * 3 / 4).isLessThanOrEqualTo(31 * 1024);
                assertThat(maxHeapMb).isBetween(memMb * 65 / 100, memMb * 76 / 100); // whole regions
            }
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    void theClassArchiveIsMadeAgainWhenALibraryJarChanges(@TempDir Path dir) throws Exception {
        // a build that changes only spinel-core leaves the server jar as it was: the archive of
        // classes (JDK 25's AOT cache, 19-24's shared archive) must still be made again, or the
        // old copies of the classes it holds are what runs
        Path target = Path.of("").toAbsolutePath().resolve("target");
        startAndStop(dir);
        Path archive = archive(target);
        org.junit.jupiter.api.Assumptions.assumeTrue(archive != null, "a JDK without class archives (17-18)");
        Path core;
        try (var libs = Files.list(target.resolve("lib"))) {
            core = libs.filter(f -> f.getFileName().toString().startsWith("spinel-core")).findFirst().orElseThrow();
        }
        // a core jar written after the archive (whole seconds apart, whatever the clock's grain)
        Thread.sleep(1_100);
        java.nio.file.attribute.FileTime newer = java.nio.file.attribute.FileTime.from(java.time.Instant.now());
        Files.setLastModifiedTime(core, newer);
        Thread.sleep(1_100);
        startAndStop(dir);
        Path again = archive(target);
        assertThat(again).isNotNull();
        assertThat(Files.getLastModifiedTime(again).compareTo(newer)).as("archive made again").isPositive();
    }

    private static Path archive(Path target) throws IOException {
        try (var files = Files.list(target)) {
            return files.filter(f -> f.getFileName().toString().matches("spinel-jdk-.*\\.(aot|jsa)"))
                    .findFirst().orElse(null);
        }
    }

    private static void startAndStop(Path dir) throws Exception {
        int port = RedisServerProcess.freePort();
        Process p = run(dir.resolve("start.log"), "--port", Integer.toString(port), "--save", "", "--dir", dir.toString());
        try {
            waitForPing(port, p);
            p.destroy();
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        } finally {
            p.destroyForcibly();
        }
    }

    /** MemTotal, or the cgroup's limit where that is lower, as the script reads them. */
    private static long physicalOrContainerMemoryMb() throws IOException {
        long bytes = Long.MAX_VALUE;
        for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
            if (line.startsWith("MemTotal:")) bytes = Long.parseLong(line.replaceAll("\\D", "")) * 1024;
        }
        for (String f : List.of("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes")) {
            Path p = Path.of(f);
            if (!Files.isReadable(p)) continue;
            String v = Files.readString(p).trim();
            if (v.matches("\\d+")) bytes = Math.min(bytes, Long.parseLong(v));
        }
        return bytes / (1024 * 1024);
    }

    private static void waitForPing(int port, Process p) throws Exception {
        // the first start after a build also trains the JDK 25 AOT cache (a few seconds)
        long deadline = System.currentTimeMillis() + 120_000;
        while (System.currentTimeMillis() < deadline) {
            assertThat(p.isAlive()).as("launcher exited with %s", p.isAlive() ? "" : p.exitValue()).isTrue();
            try (RawClient c = new RawClient(port)) {
                if (c.callString("PING").startsWith("+PONG")) return;
            } catch (IOException e) {
                Thread.sleep(200);
            }
        }
        throw new AssertionError("server did not answer PING on port " + port);
    }
}
