package io.spinel.core.config;

import io.spinel.core.Notify;
import io.spinel.core.util.Doubles;

import java.io.File;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * Which Redis options Spinel implements, which it may ignore without anyone noticing, and the
 * validation of the special ones. Everything not listed is accepted only at its default value.
 * Extend these lists as features land (and say so in docs/COMMANDS.md).
 */
public final class ConfigSupport {
    private ConfigSupport() {
    }

    /** Options the engine or the server reads and honours. */
    static final String[] SUPPORTED = {
        "port", "bind", "unixsocket", "unixsocketperm", "dir", "databases", "requirepass", "maxclients",
        "timeout", "tcp-keepalive", "tcp-backlog", "loglevel", "logfile", "protected-mode", "pidfile", "daemonize",
        "hz", "proto-max-bulk-len", "client-query-buffer-limit", "enable-debug-command", "enable-protected-configs",
        "enable-module-command", "activerehashing", "always-show-logo", "lfu-log-factor", "lfu-decay-time",
        "maxmemory-clients",
        "shutdown-on-sigterm", "shutdown-on-sigint", "io-threads", "supervised", "maxmemory-policy", "maxmemory", "list-max-listpack-size",
        "hll-sparse-max-bytes", "zset-max-listpack-entries", "zset-max-listpack-value",
        "hash-max-listpack-entries", "hash-max-listpack-value", "set-max-intset-entries",
        "stream-node-max-entries", "stream-node-max-bytes",
        // persistence (the persist package)
        "save", "dbfilename", "rdbcompression", "rdbchecksum", "stop-writes-on-bgsave-error", "rdb-key-save-delay",
        "key-load-delay",
        "appendonly", "appendfilename", "appenddirname", "appendfsync", "auto-aof-rewrite-percentage",
        "auto-aof-rewrite-min-size", "aof-load-truncated", "aof-use-rdb-preamble", "aof-timestamp-enabled",
        "aof-disable-auto-gc", "lazyfree-lazy-expire", "lazyfree-lazy-eviction", "lazyfree-lazy-user-del",
        "lazyfree-lazy-user-flush",
        // scripting
        "busy-reply-threshold", "min-replicas-to-write",
        // pub/sub: listed here, not only where the engine reads them, so a config file may set them
        "notify-keyspace-events", "client-output-buffer-limit",
        // slow log and latency monitor (SlowLog, LatencyMonitor)
        "slowlog-log-slower-than", "slowlog-max-len", "latency-monitor-threshold", "latency-tracking",
        "latency-tracking-info-percentiles",
        // ACL (the acl package)
        "aclfile", "acllog-max-len", "acl-pubsub-default",
        // replication, the master's side (Replication)
        "repl-backlog-size", "repl-backlog-ttl", "repl-ping-replica-period", "repl-timeout", "min-replicas-max-lag",
        "repl-diskless-sync", "repl-diskless-sync-delay", "repl-diskless-sync-max-replicas",
        // and the replica's (Replication, ReplicaLink)
        "replicaof", "masterauth", "masteruser", "replica-read-only", "replica-serve-stale-data",
        "replica-ignore-maxmemory", "replica-priority", "replica-announced", "replica-announce-ip",
        "replica-announce-port", "propagation-error-behavior", "bind-source-addr", "repl-diskless-load",
        "rdb-del-sync-files",
        // the process (Shutdown, OomScoreAdj)
        "shutdown-timeout", "oom-score-adj", "oom-score-adj-values",
        // the software watchdog (Watchdog)
        "watchdog-period",
        // TLS (the server module's TlsContexts)
        "tls-port", "tls-auth-clients", "tls-cert-file", "tls-key-file", "tls-key-file-pass",
        "tls-client-cert-file", "tls-client-key-file", "tls-client-key-file-pass", "tls-ca-cert-file",
        "tls-ca-cert-dir", "tls-protocols", "tls-ciphers", "tls-ciphersuites", "tls-prefer-server-ciphers",
        "tls-session-cache-size", "tls-session-cache-timeout", "tls-replication", "tls-cluster",
        // cluster mode (the cluster package)
        "cluster-enabled", "cluster-config-file", "cluster-require-full-coverage", "cluster-replica-no-failover",
        "cluster-allow-reads-when-down", "cluster-allow-pubsubshard-when-down", "cluster-allow-replica-migration",
        "cluster-announce-ip", "cluster-announce-hostname", "cluster-preferred-endpoint-type",
        "cluster-replica-validity-factor", "cluster-migration-barrier", "cluster-port", "cluster-announce-bus-port",
        "cluster-announce-port", "cluster-announce-tls-port", "cluster-node-timeout", "cluster-link-sendbuf-limit",
    };

    /**
     * Options whose value changes nothing a client can observe in Spinel (tuning knobs of
     * mechanisms Spinel does differently, settings of features that are off), so any valid value
     * is accepted; the log lists the ones set away from their default.
     */
    static final String[] HARMLESS = {
        "dynamic-hz", "active-expire-effort",
        "lazyfree-lazy-server-del",
        "io-threads-do-reads", "jemalloc-bg-thread", "activedefrag", "active-defrag-cycle-min",
        "active-defrag-cycle-max", "active-defrag-threshold-lower", "active-defrag-threshold-upper",
        "active-defrag-ignore-bytes", "active-defrag-max-scan-fields", "set-proc-title", "proc-title-template",
        "crash-log-enabled", "crash-memcheck-enabled", "use-exit-on-panic", "disable-thp", "syslog-enabled", "syslog-ident", "syslog-facility",
        "server_cpulist", "bio_cpulist", "aof_rewrite_cpulist", "bgsave_cpulist", "ignore-warnings",
        "hash-max-listpack-entries",
        "hash-max-listpack-value", "set-max-intset-entries", "zset-max-listpack-entries",
        "zset-max-listpack-value", "list-compress-depth", "tracking-table-max-keys", "rdb-save-incremental-fsync",
        "no-appendfsync-on-rewrite", "aof-rewrite-incremental-fsync", "sanitize-dump-payload",
        "loading-process-events-interval-bytes",
        "socket-mark-id", "maxmemory-samples",
        "maxmemory-eviction-tenacity",
        "repl-disable-tcp-nodelay", "replica-lazy-flush",
        "replica-ignore-disk-write-errors",
        // the JDK negotiates its own Diffie-Hellman groups (RFC 7919); a parameters file is not read
        "tls-dh-params-file",
        // the JDK cannot turn session resumption off for one context: "no" is logged, not applied
        "tls-session-caching",
    };

    /** Applies Spinel's support levels, its own defaults and the special validators to a Config. */
    public static void install(Config config) {
        config.support(SUPPORTED);
        config.overrideDefault("dir", Config.valueOfFileName(new File(System.getProperty("user.dir")).getAbsolutePath()));
        config.tolerate(HARMLESS);
        for (String name : CHECKED) config.support(name, new Check(name));
        config.support("unixsocketperm", null);
        for (String name : NORMALIZED) config.normalizer(name, new Check(name));
    }

    /**
     * Redis's check of a process title template: its {variables} must be known ({{ is a brace),
     * and what it expands to, with an empty title and trimmed of spaces, must not be empty.
     * {listen-addr}, {port}, {tls-port} and {config-file} always expand to something; {title},
     * {server-mode} (standalone) and {unixsocket} may not.
     */
    static boolean validProcTitleTemplate(String t) {
        String out = expandProcTitle(t, name -> switch (name) {
            case "title", "server-mode", "unixsocket" -> "";
            case "listen-addr", "config-file", "port", "tls-port" -> "x";
            default -> null;
        });
        return out != null && !out.isEmpty();
    }

    /**
     * A process title from its template (Redis's sdstemplate, then trimmed of spaces): each
     * {name} is replaced by what {@code variables} gives for it ({{ is a brace); null when a
     * variable is unknown (the function gives null) or a brace is not closed.
     */
    public static String expandProcTitle(String t, java.util.function.Function<String, String> variables) {
        StringBuilder out = new StringBuilder();
        int p = 0;
        while (p < t.length()) {
            int sv = t.indexOf('{', p);
            if (sv < 0) {
                out.append(t, p, t.length());
                break;
            }
            out.append(t, p, sv);
            sv++;
            if (sv == t.length()) return null;
            if (t.charAt(sv) == '{') {
                out.append('{');
                p = sv + 1;
                continue;
            }
            int ev = t.indexOf('}', sv);
            if (ev < 0) return null;
            String value = variables.apply(t.substring(sv, ev));
            if (value == null) return null;
            out.append(value);
            p = ev + 1;
        }
        int from = 0, to = out.length();
        while (from < to && out.charAt(from) == ' ') from++;
        while (to > from && out.charAt(to - 1) == ' ') to--;
        return out.substring(from, to);
    }

    /** Supported options with a validator of Spinel's own (see {@link Check}). */
    private static final String[] CHECKED = {
        "dbfilename", "appendfilename", "appenddirname", "dir", "bind", "notify-keyspace-events",
    };

    /** Options whose values are checked and normalized, whether or not Spinel acts on them. */
    private static final String[] NORMALIZED = {
        "client-output-buffer-limit", "save", "oom-score-adj", "oom-score-adj-values",
        "latency-tracking-info-percentiles", "shutdown-on-sigint", "shutdown-on-sigterm",
        "hz", "repl-backlog-size", "activedefrag", "proc-title-template", "cluster-announce-hostname",
    };

    /**
     * The options whose change Redis applies by reconfiguring TLS (applyTlsCfg): CONFIG SET of one
     * of them, while TLS is on, builds the TLS context again (and fails when it cannot).
     */
    public static final java.util.Set<String> TLS_APPLIED = java.util.Set.of("tls-session-cache-size",
            "tls-session-cache-timeout", "tls-cluster", "tls-replication", "tls-prefer-server-ciphers",
            "tls-session-caching", "tls-cert-file", "tls-key-file", "tls-key-file-pass", "tls-client-cert-file",
            "tls-client-key-file", "tls-client-key-file-pass", "tls-dh-params-file", "tls-ca-cert-file",
            "tls-ca-cert-dir", "tls-protocols", "tls-ciphers", "tls-ciphersuites");

    /**
     * The special validators, one class for all: a lambda each was a class the JVM spins on a
     * server's first start in a fresh JVM (~0.3 ms apiece here).
     */
    private static final class Check implements Config.Validator {
        private final String option;

        Check(String option) {
            this.option = option;
        }

        @Override
        public String validate(String v, String current) throws Config.ConfigException {
            switch (option) {
                case "hz": {
                    // Redis takes any value and caps it to 1..500 (updateHZ)
                    long hz = Long.parseLong(v);
                    return Long.toString(Math.max(1, Math.min(500, hz)));
                }
                case "repl-backlog-size":
                    // Redis's resizeReplicationBacklog raises it to its 16 KB minimum
                    return Long.toString(Math.max(16 * 1024, Long.parseLong(v)));
                case "activedefrag":
                    if (v.equals("yes")) {
                        throw new Config.ConfigException("Active defragmentation cannot be enabled: it requires a Redis "
                                + "server compiled with a modified Jemalloc like the one shipped by default with the "
                                + "Redis source distribution");
                    }
                    return v;
                case "proc-title-template":
                    if (!validProcTitleTemplate(v)) {
                        throw new Config.ConfigException("template format is invalid or contains unknown variables");
                    }
                    return v;
                case "cluster-announce-hostname":
                    if (v.length() >= 256) throw new Config.ConfigException("Hostnames must be less than 256 characters");
                    for (int i = 0; i < v.length(); i++) {
                        char ch = v.charAt(i);
                        if (!(ch >= 'A' && ch <= 'Z' || ch >= 'a' && ch <= 'z' || ch >= '0' && ch <= '9' || ch == '-' || ch == '.')) {
                            throw new Config.ConfigException("Hostnames may only contain alphanumeric characters, hyphens or dots");
                        }
                    }
                    return v;
                case "dbfilename":
                    return baseName(v, "dbfilename can't be a path, just a filename", null);
                case "appendfilename":
                    return baseName(v, "appendfilename can't be a path, just a filename", "appendfilename can't be empty");
                case "appenddirname":
                    return baseName(v, "appenddirname can't be a path, just a dirname", "appenddirname can't be empty");
                case "dir":
                    return validateDir(v);
                case "bind": {
                    // no address at all: no TCP listener (Redis listens on the unix socket only)
                    String t = v.trim();
                    return t.isEmpty() ? "" : String.join(" ", Config.words(t));
                }
                case "notify-keyspace-events": {
                    int flags = Notify.parse(v);
                    if (flags < 0) throw new Config.ConfigException("Invalid event class character. Use 'Ag$lshzxeKEtmdn'.");
                    return Notify.toLosslessLetters(flags);
                }
                case "client-output-buffer-limit":
                    return validateOutputBufferLimit(v, current);
                case "save":
                    return validateSave(v, current);
                case "oom-score-adj": // "relative" is another name of "yes"; Redis shows the first name of a value
                    return v.equals("relative") ? "yes" : v;
                case "oom-score-adj-values":
                    return validateOomScoreAdjValues(v, current);
                case "latency-tracking-info-percentiles":
                    return validatePercentiles(v, current);
                case "shutdown-on-sigint":
                case "shutdown-on-sigterm":
                    return validateShutdownFlags(v, current);
                default:
                    throw new IllegalStateException("no validator for " + option);
            }
        }
    }

    private static String validateShutdownFlags(String v, String current) throws Config.ConfigException {
        List<String> flags = Arrays.asList(v.split(" "));
        if (flags.contains("save") && flags.contains("nosave")) {
            throw new Config.ConfigException("shutdown options SAVE and NOSAVE can't be used simultaneously");
        }
        return v;
    }

    /** Three integers in [-2000, 2000], printed as integers. */
    static String validateOomScoreAdjValues(String v, String current) throws Config.ConfigException {
        String[] f = Config.words(v.trim());
        if (f.length != 3) throw new Config.ConfigException("wrong number of arguments");
        StringBuilder sb = new StringBuilder();
        for (String s : f) {
            // strtoll syntax: an optional sign and decimal digits (leading zeros allowed)
            if (!s.matches("[+-]?0*[0-9]{1,5}") || Math.abs(Integer.parseInt(s)) > 2000) {
                throw new Config.ConfigException("Invalid oom-score-adj-values, elements must be between -2000 and 2000.");
            }
            if (sb.length() > 0) sb.append(' ');
            sb.append(Integer.parseInt(s));
        }
        return sb.toString();
    }

    /**
     * Percentiles between 0 and 100 ("" for none), shown as C's "%f" without trailing zeros
     * ("50.0" reads back as "50").
     */
    static String validatePercentiles(String v, String current) throws Config.ConfigException {
        if (v.isEmpty()) return "";
        StringBuilder sb = new StringBuilder();
        // split on each single space, as Redis splits a multi-argument value: "5 " holds an empty word
        for (String s : v.split(" ", -1)) {
            byte[] b = s.getBytes(StandardCharsets.ISO_8859_1);
            double d;
            try {
                d = Doubles.parse(b, 0, b.length);
            } catch (NumberFormatException e) {
                throw new Config.ConfigException("Invalid latency-tracking-info-percentiles parameters");
            }
            if (d > 100.0 || d < 0.0) {
                throw new Config.ConfigException("latency-tracking-info-percentiles parameters should sit between [0.0,100.0]");
            }
            if (sb.length() > 0) sb.append(' ');
            sb.append(fixedSixTrimmed(d));
        }
        return sb.toString();
    }

    /** C's printf("%f") (six decimals, exact binary value rounded half-even) without trailing zeros. */
    static String fixedSixTrimmed(double d) {
        String s = new BigDecimal(d).setScale(6, RoundingMode.HALF_EVEN).toPlainString();
        if (s.indexOf('.') >= 0) {
            int end = s.length();
            while (s.charAt(end - 1) == '0') end--;
            if (s.charAt(end - 1) == '.') end--;
            s = s.substring(0, end);
        }
        return s.equals("-0") ? "0" : s;
    }

    /**
     * "class hard soft seconds" triples (normal, replica/slave, pubsub), merged into the current
     * limits and printed in Redis's canonical form (bytes, "slave" for replicas).
     */
    static String validateOutputBufferLimit(String v, String current) throws Config.ConfigException {
        if (v.trim().isEmpty()) return current; // no class named: nothing changes, as in Redis
        String[] cur = current.split(" ");
        java.util.Map<String, String[]> classes = new java.util.LinkedHashMap<>();
        for (int i = 0; i + 3 < cur.length; i += 4) {
            classes.put(cur[i], new String[] {cur[i + 1], cur[i + 2], cur[i + 3]});
        }
        String[] f = Config.words(v.trim());
        if (f.length % 4 != 0) throw new Config.ConfigException("Wrong number of arguments in buffer limit configuration.");
        for (int i = 0; i < f.length; i += 4) {
            String cls = f[i].toLowerCase();
            if (cls.equals("replica")) cls = "slave";
            if (!classes.containsKey(cls)) throw new Config.ConfigException("Invalid client class specified in buffer limit configuration.");
            Long hard = Config.memToLong(f[i + 1]);
            Long soft = Config.memToLong(f[i + 2]);
            long secs;
            try {
                secs = Long.parseLong(f[i + 3]);
            } catch (NumberFormatException e) {
                secs = -1;
            }
            if (hard == null || soft == null || secs < 0) {
                throw new Config.ConfigException("Error in hard, soft or soft_seconds setting in buffer limit configuration.");
            }
            classes.put(cls, new String[] {hard.toString(), soft.toString(), Long.toString(secs)});
        }
        StringBuilder sb = new StringBuilder();
        for (java.util.Map.Entry<String, String[]> e : classes.entrySet()) {
            if (sb.length() > 0) sb.append(' ');
            sb.append(e.getKey()).append(' ').append(String.join(" ", e.getValue()));
        }
        return sb.toString();
    }

    /** Redis's pathIsBaseName check of file options. */
    private static String baseName(String v, String notBase, String empty) throws Config.ConfigException {
        if (empty != null && v.isEmpty()) throw new Config.ConfigException(empty);
        if (v.contains("/")) throw new Config.ConfigException(notBase);
        return v;
    }

    /** Pairs of "seconds changes" (seconds at least 1); "" disables. */
    static String validateSave(String v, String current) throws Config.ConfigException {
        if (v.isEmpty()) return "";
        // split on each single space, as Redis splits a multi-argument value ("900 1 " is three words)
        String[] f = v.split(" ", -1);
        if (f.length % 2 != 0) throw new Config.ConfigException("Invalid save parameters");
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < f.length; i++) {
            Long n = strtoll(f[i]);
            if (n == null || n < ((i & 1) == 0 ? 1 : 0)) throw new Config.ConfigException("Invalid save parameters");
            if (i > 0) out.append(' ');
            out.append((i & 1) == 0 ? (long) n : (long) (int) (long) n); // the change count is a C int
        }
        return out.toString();
    }

    /**
     * C's strtoll over a whole word, as Redis's save parser uses it: leading blanks, a sign, digits
     * (clamped to the 64-bit range); "" is 0; null when anything else is left over.
     */
    private static Long strtoll(String w) {
        int i = 0;
        int n = w.length();
        while (i < n && " \t\n\u000b\f\r".indexOf(w.charAt(i)) >= 0) i++;
        boolean negative = false;
        if (i < n && (w.charAt(i) == '+' || w.charAt(i) == '-')) negative = w.charAt(i++) == '-';
        int digits = i;
        java.math.BigInteger v = java.math.BigInteger.ZERO;
        while (i < n && w.charAt(i) >= '0' && w.charAt(i) <= '9') v = v.multiply(java.math.BigInteger.TEN).add(java.math.BigInteger.valueOf(w.charAt(i++) - '0'));
        if (i == digits) return w.isEmpty() ? 0L : null; // no number: the end pointer stays at the word's start
        if (i != n) return null;
        if (negative) v = v.negate();
        if (v.bitLength() > 63) return negative ? Long.MIN_VALUE : Long.MAX_VALUE;
        return v.longValue();
    }

    private static String validateDir(String v) throws Config.ConfigException {
        File f = new File(Config.fileName(v));
        if (!f.isDirectory()) throw new Config.ConfigException("No such file or directory");
        try {
            return Config.valueOfFileName(f.getCanonicalPath());
        } catch (java.io.IOException e) {
            throw new Config.ConfigException(e.getMessage());
        }
    }
}
