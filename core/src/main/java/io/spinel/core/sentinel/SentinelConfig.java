package io.spinel.core.sentinel;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * The "sentinel ..." lines of the configuration file: read at start-up (after the whole file, in
 * Redis's order: the global settings first, then the monitored masters, then what refers to
 * them), and written back by every rewrite with this Sentinel's state (its id, epochs, the
 * replicas and Sentinels it found), which is how a Sentinel remembers them across restarts.
 */
public final class SentinelConfig {
    /** One "sentinel" line: its words after "sentinel", where it was, and the line itself. */
    public record Line(List<String> args, int lineNumber, String text) {
    }

    /** A line Sentinel refused, with Redis's reason. */
    public static final class LoadError extends Exception {
        public final Line line;

        LoadError(Line line, String reason) {
            super(reason, null, false, false);
            this.line = line;
        }
    }

    /** Read before the masters (Redis's preMonitorCfgName): they change how the rest is read. */
    private static final Set<String> PRE_MONITOR = Set.of("announce-ip", "announce-port", "deny-scripts-reconfig",
            "sentinel-user", "sentinel-pass", "current-epoch", "myid", "resolve-hostnames", "announce-hostnames");

    private final Sentinel sentinel;

    SentinelConfig(Sentinel sentinel) {
        this.sentinel = sentinel;
    }

    /** Applies the lines: the global settings, then "monitor", then the rest. */
    public void load(List<Line> lines) throws LoadError {
        List<Line> pre = new ArrayList<>();
        List<Line> monitor = new ArrayList<>();
        List<Line> post = new ArrayList<>();
        for (Line l : lines) {
            String what = l.args().get(0).toLowerCase(Locale.ROOT);
            if (what.equals("monitor")) monitor.add(l);
            else if (PRE_MONITOR.contains(what)) pre.add(l);
            else post.add(l);
        }
        for (List<Line> group : List.of(pre, monitor, post)) {
            for (Line l : group) {
                String err = apply(l.args());
                if (err != null) throw new LoadError(l, err);
            }
        }
    }

    /** One line's effect; Redis's error text, or null. */
    private String apply(List<String> argv) {
        String what = argv.get(0).toLowerCase(Locale.ROOT);
        int argc = argv.size();
        SentinelInstance ri;
        switch (what + "/" + argc) {
            case "monitor/5": {
                int quorum = Sentinel.atoi(argv.get(4));
                if (quorum <= 0) return "Quorum must be 1 or greater.";
                try {
                    sentinel.createInstanceOrThrow(argv.get(1), SentinelInstance.MASTER, argv.get(2),
                            Sentinel.atoi(argv.get(3)), quorum, null);
                } catch (Sentinel.CreateError e) {
                    return e.getMessage();
                }
                return null;
            }
            case "down-after-milliseconds/3":
                if ((ri = master(argv)) == null) return NO_MASTER;
                ri.downAfter = Sentinel.atoi(argv.get(2));
                if (ri.downAfter <= 0) return "negative or zero time parameter.";
                sentinel.propagateDownAfter(ri);
                return null;
            case "failover-timeout/3":
                if ((ri = master(argv)) == null) return NO_MASTER;
                ri.failoverTimeout = Sentinel.atoi(argv.get(2));
                if (ri.failoverTimeout <= 0) return "negative or zero time parameter.";
                return null;
            case "parallel-syncs/3":
                if ((ri = master(argv)) == null) return NO_MASTER;
                ri.parallelSyncs = Sentinel.atoi(argv.get(2));
                return null;
            case "notification-script/3":
                if ((ri = master(argv)) == null) return NO_MASTER;
                if (!sentinel.scriptExecutable(argv.get(2))) return "Notification script seems non existing or non executable.";
                ri.notificationScript = argv.get(2);
                return null;
            case "client-reconfig-script/3":
                if ((ri = master(argv)) == null) return NO_MASTER;
                if (!sentinel.scriptExecutable(argv.get(2))) {
                    return "Client reconfiguration script seems non existing or non executable.";
                }
                ri.clientReconfigScript = argv.get(2);
                return null;
            case "auth-pass/3":
                if ((ri = master(argv)) == null) return NO_MASTER;
                ri.authPass = argv.get(2);
                return null;
            case "auth-user/3":
                if ((ri = master(argv)) == null) return NO_MASTER;
                ri.authUser = argv.get(2);
                return null;
            case "current-epoch/2": {
                long epoch = Sentinel.parseUnsigned(argv.get(1));
                if (Long.compareUnsigned(epoch, sentinel.currentEpoch) > 0) sentinel.currentEpoch = epoch;
                return null;
            }
            case "myid/2":
                if (argv.get(1).length() != Sentinel.RUN_ID_SIZE) return "Malformed Sentinel id in myid option.";
                sentinel.myId = argv.get(1);
                return null;
            case "config-epoch/3":
                if ((ri = master(argv)) == null) return NO_MASTER;
                ri.configEpoch = Sentinel.parseUnsigned(argv.get(2));
                if (Long.compareUnsigned(ri.configEpoch, sentinel.currentEpoch) > 0) sentinel.currentEpoch = ri.configEpoch;
                return null;
            case "leader-epoch/3":
                if ((ri = master(argv)) == null) return NO_MASTER;
                ri.leaderEpoch = Sentinel.parseUnsigned(argv.get(2));
                return null;
            case "known-slave/4":
            case "known-replica/4":
                if ((ri = master(argv)) == null) return NO_MASTER;
                try {
                    sentinel.createInstanceOrThrow(null, SentinelInstance.SLAVE, argv.get(2), Sentinel.atoi(argv.get(3)),
                            ri.quorum, ri);
                } catch (Sentinel.CreateError e) {
                    return e.getMessage();
                }
                return null;
            case "known-sentinel/4":
                return null; // the old form without a run id is ignored
            case "known-sentinel/5": {
                if ((ri = master(argv)) == null) return NO_MASTER;
                try {
                    SentinelInstance si = sentinel.createInstanceOrThrow(argv.get(4), SentinelInstance.SENTINEL,
                            argv.get(2), Sentinel.atoi(argv.get(3)), ri.quorum, ri);
                    si.runId = argv.get(4);
                    sentinel.shareConnection(si);
                } catch (Sentinel.CreateError e) {
                    return e.getMessage();
                }
                return null;
            }
            case "rename-command/4": {
                if ((ri = master(argv)) == null) return NO_MASTER;
                String old = argv.get(2).toLowerCase(Locale.ROOT);
                if (ri.renamedCommands.containsKey(old)) return "Same command renamed multiple times with rename-command.";
                ri.renamedCommands.put(old, argv.get(3));
                return null;
            }
            case "announce-ip/2":
                if (!argv.get(1).isEmpty()) sentinel.announceIp = argv.get(1);
                return null;
            case "announce-port/2":
                sentinel.announcePort = Sentinel.atoi(argv.get(1));
                return null;
            case "deny-scripts-reconfig/2": {
                Boolean b = yesNo(argv.get(1));
                if (b == null) return "Please specify yes or no for the deny-scripts-reconfig options.";
                sentinel.denyScriptsReconfig = b;
                return null;
            }
            case "sentinel-user/2":
                if (!argv.get(1).isEmpty()) sentinel.sentinelAuthUser = argv.get(1);
                return null;
            case "sentinel-pass/2":
                if (!argv.get(1).isEmpty()) sentinel.sentinelAuthPass = argv.get(1);
                return null;
            case "resolve-hostnames/2": {
                Boolean b = yesNo(argv.get(1));
                if (b == null) return "Please specify yes or no for the resolve-hostnames option.";
                sentinel.resolveHostnames = b;
                return null;
            }
            case "announce-hostnames/2": {
                Boolean b = yesNo(argv.get(1));
                if (b == null) return "Please specify yes or no for the announce-hostnames option.";
                sentinel.announceHostnames = b;
                return null;
            }
            case "master-reboot-down-after-period/3":
                if ((ri = master(argv)) == null) return NO_MASTER;
                ri.masterRebootDownAfter = Sentinel.atoi(argv.get(2));
                if (ri.masterRebootDownAfter < 0) return "negative time parameter.";
                return null;
            default:
                return "Unrecognized sentinel configuration statement.";
        }
    }

    private static final String NO_MASTER = "No such master with specified name.";

    private SentinelInstance master(List<String> argv) {
        return sentinel.masters.get(argv.get(1));
    }

    static Boolean yesNo(String s) {
        if (s.equalsIgnoreCase("yes")) return Boolean.TRUE;
        if (s.equalsIgnoreCase("no")) return Boolean.FALSE;
        return null;
    }

    /** The option keys (as a rewrite names old lines: "sentinel " and the word after it) Sentinel manages. */
    private static final List<String> PER_MASTER = List.of("monitor", "down-after-milliseconds", "failover-timeout",
            "parallel-syncs", "notification-script", "client-reconfig-script", "auth-pass", "auth-user", "config-epoch",
            "leader-epoch", "known-replica", "known-sentinel", "rename-command", "master-reboot-down-after-period");

    /**
     * Writes this Sentinel's state into a configuration rewrite (Redis's
     * rewriteConfigSentinelOption): {@code rewrite} takes an option key ("sentinel myid"), the
     * line, and whether it must be written even where the file had no such line;
     * {@code processed} marks a key whose old lines no line replaced, to drop them.
     */
    public void rewrite(Rewrite rewrite, Consumer<String> processed) {
        Sentinel s = sentinel;
        rewrite.line("sentinel myid", "sentinel myid " + s.myId, true);
        rewrite.line("sentinel deny-scripts-reconfig", "sentinel deny-scripts-reconfig " + (s.denyScriptsReconfig ? "yes" : "no"),
                !s.denyScriptsReconfig);
        rewrite.line("sentinel resolve-hostnames", "sentinel resolve-hostnames " + (s.resolveHostnames ? "yes" : "no"),
                s.resolveHostnames);
        rewrite.line("sentinel announce-hostnames", "sentinel announce-hostnames " + (s.announceHostnames ? "yes" : "no"),
                s.announceHostnames);
        boolean names = s.announceHostnames;
        for (SentinelInstance m : s.masters.values()) {
            SentinelAddr addr = s.currentMasterAddress(m);
            BiConsumer<String, String> line = (key, value) -> rewrite.line("sentinel " + key,
                    "sentinel " + key + " " + m.name + " " + value, true);
            line.accept("monitor", addr.announced(names) + " " + addr.port() + " " + m.quorum);
            if (m.downAfter != s.timing.defaultDownAfter) line.accept("down-after-milliseconds", Long.toString(m.downAfter));
            if (m.failoverTimeout != s.timing.defaultFailoverTimeout) line.accept("failover-timeout", Long.toString(m.failoverTimeout));
            if (m.parallelSyncs != 1) line.accept("parallel-syncs", Integer.toString(m.parallelSyncs));
            if (m.notificationScript != null) line.accept("notification-script", m.notificationScript);
            if (m.clientReconfigScript != null) line.accept("client-reconfig-script", m.clientReconfigScript);
            if (m.authPass != null) line.accept("auth-pass", m.authPass);
            if (m.authUser != null) line.accept("auth-user", m.authUser);
            if (m.masterRebootDownAfter != 0) line.accept("master-reboot-down-after-period", Long.toString(m.masterRebootDownAfter));
            line.accept("config-epoch", Long.toUnsignedString(m.configEpoch));
            line.accept("leader-epoch", Long.toUnsignedString(m.leaderEpoch));
            for (SentinelInstance r : m.slaves.values()) {
                // the promoted replica of a failover under way is the master now: the old
                // master's address stands in for it
                SentinelAddr ra = r.addr.sameAs(addr) ? m.addr : r.addr;
                line.accept("known-replica", ra.announced(names) + " " + ra.port());
            }
            for (SentinelInstance si : m.sentinels.values()) {
                if (si.runId == null) continue;
                line.accept("known-sentinel", si.addr.announced(names) + " " + si.addr.port() + " " + si.runId);
            }
            for (Map.Entry<String, String> e : m.renamedCommands.entrySet()) {
                line.accept("rename-command", e.getKey() + " " + e.getValue());
            }
        }
        rewrite.line("sentinel current-epoch", "sentinel current-epoch " + Long.toUnsignedString(s.currentEpoch), true);
        if (s.announceIp != null) {
            rewrite.line("sentinel announce-ip", "sentinel announce-ip " + io.spinel.core.util.Repr.quote(s.announceIp), true);
        } else {
            processed.accept("sentinel announce-ip");
        }
        if (s.announcePort != 0) rewrite.line("sentinel announce-port", "sentinel announce-port " + s.announcePort, true);
        else processed.accept("sentinel announce-port");
        if (s.sentinelAuthUser != null) rewrite.line("sentinel sentinel-user", "sentinel sentinel-user " + s.sentinelAuthUser, true);
        else processed.accept("sentinel sentinel-user");
        if (s.sentinelAuthPass != null) rewrite.line("sentinel sentinel-pass", "sentinel sentinel-pass " + s.sentinelAuthPass, true);
        else processed.accept("sentinel sentinel-pass");
        for (String key : PER_MASTER) processed.accept("sentinel " + key);
    }

    /** Where {@link #rewrite} puts each line. */
    public interface Rewrite {
        void line(String option, String line, boolean force);
    }
}
