package io.spinel.server;

import io.spinel.core.Log;
import io.spinel.core.config.Config;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.assertj.core.api.Assertions.assertThat;

/** The text CONFIG REWRITE produces, option by option (the differential test compares it with Redis's). */
class ConfigRewriterTest {
    @TempDir
    Path dir;
    private Config config;
    private String dirLine;

    @BeforeEach
    void setUp() throws Exception {
        config = new Config();
        config.set("dir", dir.toString());
        dirLine = "dir \"" + config.get("dir") + "\"";
    }

    /** What every rewrite appends at the defaults: save points, dir, percentiles and the default user. */
    private String defaultTail() {
        return dirLine + "\n"
                + "save 3600 1\nsave 300 100\nsave 60 10000\n"
                + "latency-tracking-info-percentiles 50 99 99.9\n"
                + "user default on nopass ~* &* +@all\n";
    }

    private String render(String old) {
        return ConfigRewriter.render(old, config, userLines());
    }

    /** The users an engine with this configuration has: the default user, with requirepass as its password. */
    private java.util.List<String> userLines() {
        io.spinel.core.acl.Acl acl = new io.spinel.core.acl.Acl(() -> false, () -> 128);
        acl.updateDefaultUserPassword(config.get("requirepass"));
        java.util.List<String> out = new java.util.ArrayList<>();
        for (io.spinel.core.acl.AclUser u : acl.users()) out.add("user " + u.name + " " + u.describe());
        return out;
    }

    @Test
    void memoryValuesUseTheLargestWholeUnit() {
        assertThat(ConfigRewriter.formatMemory(0)).isEqualTo("0");
        assertThat(ConfigRewriter.formatMemory(64)).isEqualTo("64");
        assertThat(ConfigRewriter.formatMemory(1023)).isEqualTo("1023");
        assertThat(ConfigRewriter.formatMemory(1024)).isEqualTo("1kb");
        assertThat(ConfigRewriter.formatMemory(1536)).isEqualTo("1536");
        assertThat(ConfigRewriter.formatMemory(1025 * 1024)).isEqualTo("1025kb");
        assertThat(ConfigRewriter.formatMemory(10L * 1024 * 1024)).isEqualTo("10mb");
        assertThat(ConfigRewriter.formatMemory(1536L * 1024 * 1024)).isEqualTo("1536mb");
        assertThat(ConfigRewriter.formatMemory(1024L * 1024 * 1024)).isEqualTo("1gb");
        assertThat(ConfigRewriter.formatMemory(3L << 40)).isEqualTo("3072gb");
        assertThat(ConfigRewriter.formatMemory(-1)).isEqualTo("-1"); // ULLONG_MAX, as Redis's %lld shows it
    }

    @Test
    void stringsAreQuotedWithRedisEscapes() {
        assertThat(ConfigRewriter.repr("dump.rdb")).isEqualTo("\"dump.rdb\"");
        assertThat(ConfigRewriter.repr("")).isEqualTo("\"\"");
        assertThat(ConfigRewriter.repr("a b\"c\\d")).isEqualTo("\"a b\\\"c\\\\d\"");
        assertThat(ConfigRewriter.repr("\n\r\t\u0007\b\u0001\u007f")).isEqualTo("\"\\n\\r\\t\\a\\b\\x01\\x7f\"");
        // values are bytes, one char each: UTF-8's two bytes of é, and Latin-1's one
        assertThat(ConfigRewriter.repr("\u00c3\u00a9")).isEqualTo("\"\\xc3\\xa9\"");
        assertThat(ConfigRewriter.repr("\u00e9")).isEqualTo("\"\\xe9\"");
    }

    @Test
    void emptyFileGetsTheSignatureAndNonDefaults() {
        assertThat(render("")).isEqualTo(ConfigRewriter.SIGNATURE + "\n" + defaultTail());
    }

    @Test
    void commentsStayAndDuplicatesAreBlanked() throws Exception {
        config.set("maxmemory", "1gb");
        String old = "# top comment\n"
                + "   # indented comment\n"
                + "maxmemory 10mb\n"
                + "\n"
                + "\n"
                + "maxmemory 20mb\n"
                + "databases 16\r\n"
                + "hash-max-ziplist-entries 100\n"
                + "# last comment";
        assertThat(render(old)).isEqualTo("# top comment\n"
                + "# indented comment\n"
                + "maxmemory 1gb\n"
                + "\n"
                + "databases 16\n" // at its default but present: it stays, with the current value
                + "hash-max-listpack-entries 512\n"
                + "# last comment\n"
                + ConfigRewriter.SIGNATURE + "\n" + defaultTail());
    }

    @Test
    void unknownAndUnparsableLinesBecomeComments() {
        String out = render("no-such-option 1\nappendfilename \"unbalanced\n");
        assertThat(out).startsWith("# ??? no-such-option 1\n# ??? appendfilename \"unbalanced\n\n"
                + ConfigRewriter.SIGNATURE + "\n");
    }

    @Test
    void directivesTheRewriteDoesNotManageStay() {
        String out = render("include /etc/other.conf\nrename-command FLUSHALL \"\"\nsentinel monitor m 1 2 3\n"
                + "loadmodule /x.so\nuser alice on >p ~* +@all\nuser bob off\n");
        assertThat(out).isEqualTo("include /etc/other.conf\nrename-command FLUSHALL \"\"\nsentinel monitor m 1 2 3\n"
                + "\n" // no module is loaded: the loadmodule line goes
                + "user default on nopass ~* &* +@all\n" // users are rewritten in place of the old ones
                + "\n"
                + ConfigRewriter.SIGNATURE + "\n" + defaultTail().replace("user default on nopass ~* &* +@all\n", ""));
    }

    @Test
    void anExistingSignatureIsNotRepeated() throws Exception {
        config.set("timeout", "30");
        String first = render("databases 16\n");
        assertThat(first).isEqualTo("databases 16\n\n" + ConfigRewriter.SIGNATURE + "\n"
                + "timeout 30\n" + defaultTail());
        config.set("tcp-keepalive", "60");
        // the old text ended with a newline, so its last "line" is empty: the new option comes after it
        assertThat(render(first)).isEqualTo(first + "\ntcp-keepalive 60\n");
    }

    @Test
    void optionsAtTheirDefaultDisappearOnlyWhenUnset() throws Exception {
        String old = "requirepass secret\nbind * -::*\nnotify-keyspace-events KEA\nunixsocket /tmp/s.sock\n"
                + "logfile \"\"\npidfile /tmp/p.pid\n";
        // the running values: requirepass and pidfile unset, notifications off, bind and logfile at default
        String out = render(old);
        assertThat(out).startsWith("\n" // requirepass unset and bind at its default: both lines go
                + "notify-keyspace-events \"\"\n" // present in the file: kept, with the current (default) value
                + "\n" // unixsocket unset: gone
                + "logfile \"\"\n" // "" is a value for logfile: kept
                + "\n" // pidfile unset: gone
                + ConfigRewriter.SIGNATURE + "\n");
    }

    @Test
    void numbersInTheirOwnNotation() throws Exception {
        config.set("unixsocketperm", "700");
        config.set("list-max-listpack-size", "-3");
        config.set("hash-max-listpack-value", "2048");
        config.set("proto-max-bulk-len", "512mb"); // the default: not written
        config.apply(config.option("maxmemory-clients"), "10%");
        assertThat(render("")).isEqualTo(ConfigRewriter.SIGNATURE + "\n"
                + "list-max-listpack-size -3\n"
                + "unixsocketperm 700\n"
                + "hash-max-listpack-value 2kb\n"
                + "maxmemory-clients 10%\n"
                + defaultTail());
    }

    @Test
    void specialOptions() throws Exception {
        config.set("save", "");
        config.set("client-output-buffer-limit", "pubsub 64mb 16mb 90 replica 256mb 64mb 60");
        config.set("notify-keyspace-events", "Ex");
        config.set("bind", "127.0.0.1 ::1");
        config.set("requirepass", "foo bar");
        config.set("oom-score-adj-values", "0 100 900");
        config.set("latency-tracking-info-percentiles", "");
        // the first client-output-buffer-limit line is reused by the first class (normal), as in Redis
        String out = render("client-output-buffer-limit pubsub 32mb 8mb 60\nsave 900 1\nsave 300 10\n");
        assertThat(out).isEqualTo("client-output-buffer-limit normal 0 0 0\n"
                + "save \"\"\n"
                + "\n"
                + ConfigRewriter.SIGNATURE + "\n"
                + "requirepass \"foo bar\"\n"
                + dirLine + "\n"
                + "client-output-buffer-limit pubsub 64mb 16mb 90\n"
                + "oom-score-adj-values 0 100 900\n"
                + "notify-keyspace-events \"xE\"\n"
                + "bind 127.0.0.1 ::1\n"
                + "latency-tracking-info-percentiles \"\"\n"
                + "user default on #fbc1a9f858ea9e177916964bd88c3d37b91a1e84412765e29950777f265c4b75 ~* &* +@all\n");
    }

    @Test
    void enumsAndBooleansInCanonicalText() throws Exception {
        config.set("shutdown-on-sigterm", "force NOW");
        config.set("appendfsync", "ALWAYS");
        config.set("activerehashing", "NO");
        String out = render("appendfsync no\nACTIVEREHASHING yes\n");
        assertThat(out).startsWith("appendfsync always\nactiverehashing no\n\n" + ConfigRewriter.SIGNATURE + "\n"
                + "shutdown-on-sigterm now force\n");
    }

    /**
     * DEBUG CONFIG-REWRITE-FORCE-ALL: every option gets a line, those at their defaults too, and
     * the file loads back into the same values (Redis's TCL "CONFIG REWRITE sanity" restarts on it).
     */
    @Test
    void forceAllWritesEveryOptionAndLoadsBack() throws Exception {
        config.set("maxmemory", "10mb");
        String out = ConfigRewriter.render("", config, userLines(), true, null);
        assertThat(out).contains("\nmaxmemory 10mb\n", "\nhz 10\n", "\nappendonly no\n", "\ndbfilename \"dump.rdb\"\n");
        assertThat(render("")).doesNotContain("\nhz 10\n");
        Config again = new Config();
        new ConfigLoader(again).load(out, dir);
        for (Config.Option o : config.options()) {
            assertThat(again.get(o.name)).as(o.name).isEqualTo(config.get(o.name));
        }
    }

    @Test
    void fileIsReplacedAtomicallyAndReadable() throws Exception {
        Path file = dir.resolve("redis.conf");
        Files.writeString(file, "# mine\ndatabases 16\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        ConfigRewriter r = new ConfigRewriter(config, file, Log.silent(), this::userLines);
        assertThat(r.rewriteForCommand(false)).isNull();
        assertThat(Files.readString(file)).startsWith("# mine\ndatabases 16\n\n" + ConfigRewriter.SIGNATURE + "\n");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-r--r--");
        try (var s = Files.list(dir)) {
            assertThat(s.map(p -> p.getFileName().toString())).containsExactly("redis.conf"); // no temp file left
        }
        // a deleted file is written anew
        Files.delete(file);
        assertThat(r.rewriteForCommand(false)).isNull();
        assertThat(Files.readString(file, StandardCharsets.ISO_8859_1))
                .isEqualTo(ConfigRewriter.SIGNATURE + "\n" + defaultTail());
        // a file that cannot be read: Redis's error, and nothing written
        Files.delete(file);
        Files.createDirectory(file);
        assertThat(r.rewriteForCommand(false)).isEqualTo("ERR Rewriting config file: Is a directory");
        try (var s = Files.list(dir)) {
            assertThat(s.count()).isEqualTo(1);
        }
    }

    @Test
    void bytesOfLinesItDoesNotManageComeBackUnchanged() {
        String latin1 = new String(new byte[] {'#', ' ', (byte) 0xe9, (byte) 0xff, 0x01}, StandardCharsets.ISO_8859_1);
        assertThat(render(latin1 + "\n")).startsWith(latin1 + "\n");
    }
}
