package io.spinel.server;

import io.spinel.core.config.Config;
import io.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Seeded random config files, each read by redis-server and by Spinel's loader: the line a file
 * fails at, the line as the report quotes it and the reason must be Redis's. Every file ends
 * with a directive that exists in neither server, so a file whose other lines are all good fails
 * there on both, and redis-server exits at once instead of starting. Lines mix every option
 * (aliases, case), values of every shape, Redis's quoting (double quotes with escapes, single
 * quotes, unbalanced quotes, text glued to a closing quote), blank lines, comments, tabs and
 * carriage returns. Options that reach outside the file's own parsing (includes, log and pid
 * files, modules, daemonizing) are left out. Set -Dfuzz.seed=N to replay a run.
 */
class ConfigFileDiffTest {
    private static final String END = "spinel-test-end-of-file";
    private static final String[] LEFT_OUT = {"include", "logfile", "pidfile", "loadmodule", "daemonize",
        "supervised", "unixsocket", "aclfile", "syslog-enabled"};
    private static final List<String> MULTI_ARG = List.of("save", "client-output-buffer-limit", "oom-score-adj-values",
            "bind", "replicaof", "slaveof", "latency-tracking-info-percentiles", "shutdown-on-sigint", "shutdown-on-sigterm");
    private static final String[] VALUES = {"yes", "no", "YES", "0", "1", "-1", "100", "1k", "2mb", "1gb", "10%", "1.5",
        "abc", "", "900 1", "900", "allkeys-lru", "noeviction", "everysec", "KEA", "notice", "debug", "9223372036854775808",
        "-2147483649", "3600 1 300 100", "normal 0 0 0", "pubsub 32mb 8mb 60", "relative", "0 200 800", "nosave", "local",
        "a\u00e9", "\u00c3\u00a9", "alice on >pw ~* +@all", "bob #abc", "carol (+get", "dan on &* ~x", "eve +nosuch",
        "default on nopass ~* &* +@all", "fay on (~a +get) %R~r"};
    private static final String[] EXTRA_NAMES = {"rename-command", "slaveof", "replicaof", "save",
        "client-output-buffer-limit", "oom-score-adj-values", "bind", "no-such-option", "notify-keyspace-events",
        "SAVE", "Maxmemory", "slave-read-only", "list-max-ziplist-size", "hash-max-ziplist-entries", "tls-port",
        "requirepass", "masterauth", "dir", "sentinel", "user", "USER"};

    @Test
    void randomConfigFilesFailWhereRedisFailsWithRedisReasons(@TempDir Path dir) throws Exception {
        Assumptions.assumeTrue(RedisServerProcess.available(), "redis-server (Debian's redis-server package) is needed");
        long seed = Long.getLong("fuzz.seed", 8_12_2026L);
        Random rnd = new Random(seed);
        List<String> names = new ArrayList<>();
        for (Config.Option o : new Config().options()) {
            if (!List.of(LEFT_OUT).contains(o.name)) names.add(o.name);
        }
        names.addAll(List.of(EXTRA_NAMES));
        List<String> differences = new ArrayList<>();
        for (int run = 0; run < 120; run++) {
            StringBuilder text = new StringBuilder();
            int lines = 1 + rnd.nextInt(4);
            for (int i = 0; i < lines; i++) text.append(line(rnd, names)).append(rnd.nextInt(10) == 0 ? "\r\n" : "\n");
            text.append(END).append('\n');
            byte[] bytes = text.toString().getBytes(StandardCharsets.ISO_8859_1);
            Path file = dir.resolve("run" + run + ".conf");
            Files.write(file, bytes);
            String redis = redisReport(file, dir);
            String spinel = spinelReport(text.toString(), dir);
            if (redis == null) continue; // redis-server failed after reading the file (not the file's fault)
            // an option Spinel lacks is refused at a value other than its default (docs/COMMANDS.md)
            if (spinel.contains("Spinel does not implement") && !redis.equals(spinel)) continue;
            if (!redis.equals(spinel)) {
                differences.add("seed " + seed + " run " + run + ":\n" + text + "  redis:  " + redis.replace("\n", " | ")
                        + "\n  spinel: " + String.valueOf(spinel).replace("\n", " | "));
            }
        }
        if (!differences.isEmpty()) fail(differences.size() + " differences:\n" + String.join("\n", differences));
    }

    private static String line(Random rnd, List<String> names) {
        switch (rnd.nextInt(12)) {
            case 0:
                return "";
            case 1:
                return "# " + VALUES[rnd.nextInt(VALUES.length)];
            default:
                break;
        }
        StringBuilder sb = new StringBuilder();
        if (rnd.nextInt(6) == 0) sb.append(rnd.nextBoolean() ? "  " : "\t");
        String name = names.get(rnd.nextInt(names.size()));
        sb.append(rnd.nextInt(8) == 0 ? name.toUpperCase() : name);
        int args = rnd.nextInt(8) == 0 ? 0 : 1 + (rnd.nextInt(5) == 0 ? rnd.nextInt(4) : 0);
        for (int i = 0; i < args; i++) {
            String v = VALUES[rnd.nextInt(VALUES.length)];
            // one of several arguments to an option that takes several holds no space: Spinel
            // joins them at spaces for its validators (a known difference, docs/COMMANDS.md)
            if (args > 1 && MULTI_ARG.contains(name.toLowerCase())) v = v.replace(' ', '-');
            sb.append(rnd.nextInt(8) == 0 ? "\t" : " ").append(quoted(rnd, v));
        }
        if (rnd.nextInt(10) == 0) sb.append(' ');
        return sb.toString();
    }

    /** A value as a config file may write it. */
    private static String quoted(Random rnd, String v) {
        switch (rnd.nextInt(10)) {
            case 0:
                return "\"" + v + "\"";
            case 1:
                return "'" + v + "'";
            case 2:
                return "\"" + v.replace("a", "\\x61").replace("1", "\\x31") + "\\n\"";
            case 3:
                return "\"" + v; // unbalanced
            case 4:
                return "\"" + v + "\"x"; // text glued to the closing quote
            case 5:
                return "'" + v + "\\'s'";
            default:
                return v.isEmpty() ? "\"\"" : v;
        }
    }

    /** What redis-server reports about the file after its header line, or null when it failed otherwise. */
    private static String redisReport(Path file, Path dir) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(RedisServerProcess.binary(), file.toString(), "--port", "0")
                .directory(dir.toFile()).redirectErrorStream(true).start();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (var in = p.getInputStream()) {
            in.transferTo(out);
        }
        if (!p.waitFor(10, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("redis-server did not stop on " + Files.readString(file, StandardCharsets.ISO_8859_1));
        }
        String s = out.toString(StandardCharsets.ISO_8859_1);
        int at = s.indexOf("*** FATAL CONFIG FILE ERROR");
        if (at < 0) return null;
        return s.substring(s.indexOf('\n', at) + 1).stripTrailing();
    }

    /** What Spinel's loader reports about the same text (as Main does: the file, then its user lines). */
    private static String spinelReport(String text, Path dir) {
        ConfigLoader loader = new ConfigLoader(new Config());
        try {
            loader.load(text, dir);
            loader.checkAfterLoading();
            return "(loaded)";
        } catch (ConfigLoader.ConfigError e) {
            String r = e.report("x");
            return r.substring(r.indexOf("***\n") + 4).stripTrailing();
        }
    }

    /** Checks of the whole file, after its last line: the report names no line. */
    @Test
    void aReplicaInClusterModeIsRefusedAfterTheLastLine(@TempDir Path dir) throws Exception {
        Assumptions.assumeTrue(RedisServerProcess.available(), "redis-server (Debian's redis-server package) is needed");
        for (String text : List.of("cluster-enabled yes\nreplicaof 127.0.0.1 7001\n", "slaveof 127.0.0.1 7001\ncluster-enabled yes\n")) {
            Path file = dir.resolve("cluster-replica.conf");
            Files.writeString(file, text);
            String redis = redisReport(file, dir);
            assertEquals("replicaof directive not allowed in cluster mode", redis);
            assertEquals(redis, spinelReport(text, dir));
        }
    }

    @Test
    void theEndMarkerIsUnknownToBoth(@TempDir Path dir) throws Exception {
        Assumptions.assumeTrue(RedisServerProcess.available(), "redis-server (Debian's redis-server package) is needed");
        Path file = dir.resolve("end.conf");
        Files.writeString(file, END + "\n");
        assertThat(redisReport(file, dir)).isEqualTo(spinelReport(END + "\n", dir))
                .contains("Bad directive or wrong number of arguments");
    }
}
