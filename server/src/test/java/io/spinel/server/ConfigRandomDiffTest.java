package io.spinel.server;

import io.spinel.server.testing.DualRun;
import io.spinel.server.testing.ServerPair;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Seeded random CONFIG SET of every parameter Redis lists, with values of every shape (booleans
 * in any case, numbers with and without memory units and percents, out-of-range and overflowing
 * numbers, enum words, flag strings, garbage), one or several parameters at a time, run on
 * redis-server and Spinel side by side: the replies (Redis's exact error texts) and what CONFIG
 * GET then shows must be the same bytes. The parameters that would cut the test's own connection
 * or reach outside the servers (ports, files, passwords, limits on clients) are left alone. Set
 * -Dfuzz.seed=N to replay a run.
 */
class ConfigRandomDiffTest {
    @RegisterExtension
    static final ServerPair servers = new ServerPair();

    /** Parameters not set here: the connection, files and processes of the test's own servers. */
    private static final Set<String> LEFT_ALONE = Set.of("bind", "port", "tls-port", "unixsocket", "unixsocketperm",
            "dir", "dbfilename", "logfile", "pidfile", "requirepass", "masterauth", "masteruser", "replicaof",
            "daemonize", "supervised", "io-threads", "io-threads-do-reads", "aclfile", "maxclients", "timeout",
            "maxmemory-clients", "client-output-buffer-limit", "oom-score-adj", "oom-score-adj-values",
            "appendonly", "appenddirname", "appendfilename", "watchdog-period", "protected-mode", "bind-source-addr",
            "enable-debug-command", "enable-module-command", "enable-protected-configs", "unixsocketgroup",
            "cluster-config-file", "syslog-ident", "ignore-warnings", "locale-collate");

    private static final String[] NUMBERS = {"0", "1", "-1", "2", "5", "10", "100", "1000", "65536", "1k", "1kb", "1K",
        "2mb", "1gb", "1g", "3tb", "10%", "100%", "-5%", "1.5", "1e3", "9223372036854775807", "9223372036854775808",
        "2147483647", "2147483648", "-2147483649", "4294967296", " 5", "5 ", "0x10", "", "abc", "12abc"};
    private static final String[] BOOLS = {"yes", "no", "YES", "No", "1", "0", "true", "maybe", ""};
    private static final String[] WORDS = {"everysec", "always", "no", "allkeys-lru", "volatile-ttl", "noeviction",
        "allkeys-random", "warning", "notice", "debug", "verbose", "nothing", "KEA", "Ex", "Kg$", "AKE", "xyz", "g$lshzxetd",
        "3600 1 300 100", "", "\"\"", "900 1", "900", "default", "local", "localhost", "auto", "systemd", "yes", "no",
        "nosave", "now", "force", "save", "dmlh", "nosave now", "now force nosave", "50 99.9", "99 ", "101", "0 100",
        "900 1 ", " 900 1", "60 10000 300 10", "{title} {port}", "{{x", "{nope}", "{title}", "a-b.c", "a_b"};
    private Random rnd;

    @Test
    void randomConfigSets() throws IOException {
        long seed = Long.getLong("fuzz.seed", 15_2026L);
        rnd = new Random(seed);
        try (DualRun d = new DualRun(servers.redis().port(), servers.spinel().port(), "config fuzz seed " + seed)) {
            Map<String, String> redisAll = config(d.redisOnly("CONFIG", "GET", "*"));
            Map<String, String> spinelAll = config(d.spinelOnly("CONFIG", "GET", "*"));
            assertThat(spinelAll.keySet()).as("CONFIG GET * names").isEqualTo(redisAll.keySet());
            // both from Redis's values (the test servers start with options of their own)
            List<String> names = new ArrayList<>();
            for (String n : redisAll.keySet()) {
                if (LEFT_ALONE.contains(n)) continue;
                if (!redisAll.get(n).equals(spinelAll.get(n))) d.spinelOnly("CONFIG", "SET", n, redisAll.get(n));
                String now = config(d.spinelOnly("CONFIG", "GET", n)).get(n);
                assertThat(now).as("Spinel's " + n + " set to Redis's value").isEqualTo(redisAll.get(n));
                names.add(n);
            }
            try {
                for (int step = 0; step < 3000; step++) {
                    d.setStep(step);
                    List<Object> c = new ArrayList<>(List.of("CONFIG", "SET"));
                    int n = rnd.nextInt(6) == 0 ? 2 + rnd.nextInt(2) : 1;
                    List<String> set = new ArrayList<>();
                    for (int i = 0; i < n; i++) {
                        String name = rnd.nextInt(8) == 0 ? set.isEmpty() ? "no-such-parameter" : set.get(0) : names.get(rnd.nextInt(names.size()));
                        set.add(name);
                        c.add(rnd.nextInt(10) == 0 ? name.toUpperCase() : name);
                        c.add(value(redisAll.getOrDefault(name, "")));
                    }
                    d.same(c.toArray());
                    for (String name : set) d.same("CONFIG", "GET", name);
                }
            } finally {
                // back to where both started
                for (String n : names) d.both("CONFIG", "SET", n, redisAll.get(n));
            }
            if (!d.mismatches().isEmpty()) fail(d.mismatches().size() + " differences:\n" + String.join("\n", d.mismatches()));
        }
    }

    /**
     * Values are bytes: a Latin-1 byte that is no UTF-8, UTF-8 itself and control bytes come back
     * from CONFIG GET as sent (and in the errors that quote them), and a password so set is the
     * one AUTH takes. Spinel re-encoded them as UTF-8 on the way out, which also locked clients out
     * of a non-ASCII requirepass.
     */
    @Test
    void valuesAreTheirBytes() throws IOException {
        byte[][] values = {bytes(0x63, 0x61, 0x66, 0xE9), bytes(0x70, 0xC3, 0xA4, 0x73, 0x73), bytes(0xFF, 0x01, 0x7F, 0x80),
            bytes(0x7B, 0x74, 0x69, 0x74, 0x6C, 0x65, 0x7D, 0x20, 0xC3, 0xA9)};
        String[] options = {"requirepass", "masteruser", "masterauth", "proc-title-template", "cluster-announce-ip",
            "replica-announce-ip", "notify-keyspace-events", "dbfilename", "save", "hz"};
        try (DualRun d = new DualRun(servers.redis().port(), servers.spinel().port(), "config bytes")) {
            Map<String, String> start = new TreeMap<>();
            for (String o : options) start.put(o, config(d.redisOnly("CONFIG", "GET", o)).get(o));
            try {
                for (String o : options) {
                    for (byte[] v : values) {
                        d.same("CONFIG", "SET", o, v);
                        d.same("CONFIG", "GET", o);
                    }
                }
                d.same("CONFIG", "SET", "requirepass", values[1]);
                d.same("AUTH", values[1]);
                d.same("AUTH", "default", values[1]);
                d.same("AUTH", bytes(0x70, 0xE4, 0x73, 0x73)); // the same text in Latin-1: other bytes
                d.same("AUTH", values[1]);
            } finally {
                for (Map.Entry<String, String> e : start.entrySet()) d.both("CONFIG", "SET", e.getKey(), e.getValue());
            }
            if (!d.mismatches().isEmpty()) fail(d.mismatches().size() + " differences:\n" + String.join("\n", d.mismatches()));
        }
    }

    private static byte[] bytes(int... b) {
        byte[] out = new byte[b.length];
        for (int i = 0; i < b.length; i++) out[i] = (byte) b[i];
        return out;
    }

    /** A value shaped by the parameter's starting value, now and then one of another shape. */
    private String value(String start) {
        if (rnd.nextInt(6) == 0) {
            String[][] all = {NUMBERS, BOOLS, WORDS};
            String[] any = all[rnd.nextInt(all.length)];
            return any[rnd.nextInt(any.length)];
        }
        if (start.equals("yes") || start.equals("no")) return BOOLS[rnd.nextInt(BOOLS.length)];
        if (start.matches("-?[0-9]+")) {
            if (rnd.nextInt(3) == 0) return Long.toString(Long.parseLong(start) + rnd.nextInt(5) - 2);
            return NUMBERS[rnd.nextInt(NUMBERS.length)];
        }
        if (rnd.nextInt(4) == 0) return start;
        return WORDS[rnd.nextInt(WORDS.length)];
    }

    private static Map<String, String> config(byte[] reply) {
        List<Object> l = DualRun.list(reply);
        Map<String, String> m = new TreeMap<>();
        for (int i = 0; i + 1 < l.size(); i += 2) m.put((String) l.get(i), (String) l.get(i + 1));
        return m;
    }
}
