package io.spinel.core.sentinel;

import io.spinel.core.Client;
import io.spinel.core.Log;
import io.spinel.core.command.CommandError;
import io.spinel.core.command.CommandHandler;
import io.spinel.core.protocol.Args;
import io.spinel.core.protocol.Reply;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The commands Sentinel mode has of its own: SENTINEL and its subcommands, and Sentinel's
 * versions of PUBLISH (which only takes hello messages), ROLE and the INFO "sentinel" section.
 * Replies have Redis's fields in Redis's order, and its errors.
 */
public final class SentinelCommands {
    private SentinelCommands() {
    }

    /** Every SENTINEL subcommand runs here. */
    public static CommandHandler handler(String name) {
        return name.startsWith("sentinel|") ? SentinelCommands::sentinel : null;
    }

    private static Sentinel sentinelOf(Client c) {
        return c.engine().sentinel();
    }

    static void sentinel(Client c) {
        Sentinel s = sentinelOf(c);
        Args a = c.args();
        Reply r = c.reply();
        String sub = a.string(1).toLowerCase(Locale.ROOT);
        switch (sub) {
            case "help" -> help(c);
            case "masters" -> instances(c, s, s.masters.values());
            case "master" -> instance(c, s, master(c, s, 2));
            case "slaves", "replicas" -> instances(c, s, master(c, s, 2).slaves.values());
            case "sentinels" -> instances(c, s, master(c, s, 2).sentinels.values());
            case "myid" -> r.bulk(s.myId);
            case "is-master-down-by-addr" -> isMasterDownByAddr(c, s);
            case "reset" -> r.integer(s.resetMastersByPattern(a.string(2)));
            case "get-master-addr-by-name" -> {
                SentinelInstance m = s.masters.get(a.string(2));
                if (m == null) {
                    r.nullArray();
                } else {
                    SentinelAddr addr = s.currentMasterAddress(m);
                    r.arrayHeader(2);
                    r.bulk(addr.announced(s.announceHostnames));
                    r.bulkLong(addr.port());
                }
            }
            case "failover" -> {
                SentinelInstance m = master(c, s, 2);
                if (m.is(SentinelInstance.FAILOVER_IN_PROGRESS)) throw new CommandError("INPROG Failover already in progress");
                if (s.failover.selectReplica(m) == null) throw new CommandError("NOGOODSLAVE No suitable replica to promote");
                s.log.warning("Executing user requested FAILOVER of '" + m.name + "'");
                s.failover.start(m);
                m.flags |= SentinelInstance.FORCE_FAILOVER;
                r.ok();
            }
            case "pending-scripts" -> s.scripts.reply(r);
            case "monitor" -> monitor(c, s);
            case "flushconfig" -> flushConfigAndReply(c, s);
            case "remove" -> {
                SentinelInstance m = master(c, s, 2);
                s.event(Log.WARNING, "-monitor", m, "%@");
                s.masters.remove(m.name);
                s.release(m);
                flushConfigAndReply(c, s);
            }
            case "ckquorum" -> ckquorum(c, s, master(c, s, 2));
            case "set" -> SentinelSet.set(c, s);
            case "config" -> config(c, s);
            case "info-cache" -> infoCache(c, s);
            case "simulate-failure" -> simulateFailure(c, s);
            case "debug" -> SentinelSet.debug(c, s);
            default -> throw CommandError.subcommandSyntax(a);
        }
    }

    private static SentinelInstance master(Client c, Sentinel s, int arg) {
        SentinelInstance m = s.masters.get(c.args().string(arg));
        if (m == null) throw CommandError.err("No such master with that name");
        return m;
    }

    private static void help(Client c) {
        io.spinel.core.keyspace.KeyCommands.helpReply(c, "SENTINEL <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
                "CKQUORUM <master-name>",
                "    Whether the Sentinels known can reach the quorum and the majority needed to",
                "    fail this master over.",
                "CONFIG SET <param> <value>",
                "    Set a global Sentinel parameter.",
                "CONFIG GET <param>",
                "    Get global Sentinel parameters matching a pattern.",
                "DEBUG [<param> <value> ...]",
                "    Show the timing parameters (milliseconds), or change some of them.",
                "GET-MASTER-ADDR-BY-NAME <master-name>",
                "    The ip and port of the master with that name.",
                "FAILOVER <master-name>",
                "    Fail the master over now, without the agreement of other Sentinels.",
                "FLUSHCONFIG",
                "    Save the configuration and this Sentinel's state to the config file.",
                "INFO-CACHE <master-name>",
                "    The last INFO replies of the master and its replicas.",
                "IS-MASTER-DOWN-BY-ADDR <ip> <port> <current-epoch> <runid>",
                "    Whether this Sentinel sees the master at ip:port as down (and its vote).",
                "MASTER <master-name>",
                "    State of the master.",
                "MASTERS",
                "    The masters monitored and their state.",
                "MONITOR <name> <ip> <port> <quorum>",
                "    Start monitoring a new master.",
                "MYID",
                "    The ID of this Sentinel.",
                "PENDING-SCRIPTS",
                "    Scripts waiting to run.",
                "REMOVE <master-name>",
                "    Stop monitoring a master.",
                "REPLICAS <master-name>",
                "    The replicas of the master and their state.",
                "RESET <pattern>",
                "    Reset the masters whose names match the pattern.",
                "SENTINELS <master-name>",
                "    The other Sentinels monitoring the master and their state.",
                "SET <master-name> <option> <value> [<option> <value> ...]",
                "    Change parameters of a master.",
                "SIMULATE-FAILURE [CRASH-AFTER-ELECTION] [CRASH-AFTER-PROMOTION] [HELP]",
                "    Make this Sentinel crash at a given point of a failover.");
    }

    // ---- instances ------------------------------------------------------------------------------

    private static void instances(Client c, Sentinel s, Collection<SentinelInstance> all) {
        List<SentinelInstance> shown = new ArrayList<>();
        for (SentinelInstance ri : all) if (!ri.is(SentinelInstance.SLAVE) || ri.replicaAnnounced != 0) shown.add(ri);
        c.reply().arrayHeader(shown.size());
        for (SentinelInstance ri : shown) instance(c, s, ri);
    }

    /** An instance's fields (Redis's addReplySentinelRedisInstance), as a map. */
    static void instance(Client c, Sentinel s, SentinelInstance ri) {
        long now = Sentinel.now();
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("name", ri.name);
        f.put("ip", ri.addr.announced(s.announceHostnames));
        f.put("port", (long) ri.addr.port());
        f.put("runid", ri.runId == null ? "" : ri.runId);
        f.put("flags", flags(ri));
        f.put("link-pending-commands", (long) ri.link.pendingCommands);
        f.put("link-refcount", (long) ri.link.refcount);
        if (ri.is(SentinelInstance.FAILOVER_IN_PROGRESS)) f.put("failover-state", ri.failoverState.text);
        f.put("last-ping-sent", ri.link.activePingSent != 0 ? now - ri.link.activePingSent : 0L);
        f.put("last-ok-ping-reply", now - ri.link.lastAvailable);
        f.put("last-ping-reply", now - ri.link.lastPong);
        if (ri.is(SentinelInstance.S_DOWN)) f.put("s-down-time", now - ri.sDownSince);
        if (ri.is(SentinelInstance.O_DOWN)) f.put("o-down-time", now - ri.oDownSince);
        f.put("down-after-milliseconds", ri.downAfter);
        if (ri.is(SentinelInstance.MASTER | SentinelInstance.SLAVE)) {
            f.put("info-refresh", ri.infoRefresh != 0 ? now - ri.infoRefresh : 0L);
            f.put("role-reported", ri.roleReported == SentinelInstance.MASTER ? "master" : "slave");
            f.put("role-reported-time", now - ri.roleReportedTime);
        }
        if (ri.is(SentinelInstance.MASTER)) {
            f.put("config-epoch", ri.configEpoch);
            f.put("num-slaves", (long) ri.slaves.size());
            f.put("num-other-sentinels", (long) ri.sentinels.size());
            f.put("quorum", (long) ri.quorum);
            f.put("failover-timeout", ri.failoverTimeout);
            f.put("parallel-syncs", (long) ri.parallelSyncs);
            if (ri.notificationScript != null) f.put("notification-script", ri.notificationScript);
            if (ri.clientReconfigScript != null) f.put("client-reconfig-script", ri.clientReconfigScript);
        }
        if (ri.is(SentinelInstance.SLAVE)) {
            f.put("master-link-down-time", ri.masterLinkDownTime);
            f.put("master-link-status", ri.slaveMasterLinkUp ? "ok" : "err");
            f.put("master-host", ri.slaveMasterHost != null ? ri.slaveMasterHost : "?");
            f.put("master-port", (long) ri.slaveMasterPort);
            f.put("slave-priority", (long) ri.slavePriority);
            f.put("slave-repl-offset", ri.slaveReplOffset);
            f.put("replica-announced", (long) ri.replicaAnnounced);
        }
        if (ri.is(SentinelInstance.SENTINEL)) {
            f.put("last-hello-message", now - ri.lastHello);
            f.put("voted-leader", ri.leader != null ? ri.leader : "?");
            f.put("voted-leader-epoch", ri.leaderEpoch);
        }
        map(c.reply(), f);
    }

    /** A map reply of bulk strings, numbers as their decimal text (Redis's addReplyBulkLongLong). */
    static void map(Reply r, Map<String, ?> fields) {
        r.mapHeader(fields.size());
        pairs(r, fields);
    }

    /** A map's entries without its header (a map with more before them). */
    static void pairs(Reply r, Map<String, ?> fields) {
        for (Map.Entry<String, ?> e : fields.entrySet()) {
            r.bulk(e.getKey());
            if (e.getValue() instanceof Long v) r.bulkLong(v);
            else r.bulk((String) e.getValue());
        }
    }

    private static String flags(SentinelInstance ri) {
        StringBuilder sb = new StringBuilder();
        if (ri.is(SentinelInstance.S_DOWN)) sb.append("s_down,");
        if (ri.is(SentinelInstance.O_DOWN)) sb.append("o_down,");
        if (ri.is(SentinelInstance.MASTER)) sb.append("master,");
        if (ri.is(SentinelInstance.SLAVE)) sb.append("slave,");
        if (ri.is(SentinelInstance.SENTINEL)) sb.append("sentinel,");
        if (ri.link.disconnected) sb.append("disconnected,");
        if (ri.is(SentinelInstance.MASTER_DOWN)) sb.append("master_down,");
        if (ri.is(SentinelInstance.FAILOVER_IN_PROGRESS)) sb.append("failover_in_progress,");
        if (ri.is(SentinelInstance.PROMOTED)) sb.append("promoted,");
        if (ri.is(SentinelInstance.RECONF_SENT)) sb.append("reconf_sent,");
        if (ri.is(SentinelInstance.RECONF_INPROG)) sb.append("reconf_inprog,");
        if (ri.is(SentinelInstance.RECONF_DONE)) sb.append("reconf_done,");
        if (ri.is(SentinelInstance.FORCE_FAILOVER)) sb.append("force_failover,");
        if (ri.is(SentinelInstance.SCRIPT_KILL_SENT)) sb.append("script_kill_sent,");
        if (sb.length() > 0) sb.setLength(sb.length() - 1);
        return sb.toString();
    }

    // ---- the other subcommands ------------------------------------------------------------------

    private static void isMasterDownByAddr(Client c, Sentinel s) {
        Args a = c.args();
        long port = c.argLong(3);
        long reqEpoch = c.argLong(4);
        SentinelInstance ri = s.findByAddrAndRunId(s.masters, a.string(2), (int) port, null);
        boolean down = !s.tilt && ri != null && ri.is(SentinelInstance.S_DOWN) && ri.is(SentinelInstance.MASTER);
        String leader = null;
        long[] leaderEpoch = new long[1];
        if (ri != null && ri.is(SentinelInstance.MASTER) && !a.string(5).equals("*")) {
            leader = s.failover.voteLeader(ri, reqEpoch, a.string(5), leaderEpoch);
        }
        Reply r = c.reply();
        r.arrayHeader(3);
        r.integer(down ? 1 : 0);
        r.bulk(leader != null ? leader : "*");
        r.integer(leaderEpoch[0]);
    }

    private static void monitor(Client c, Sentinel s) {
        Args a = c.args();
        long quorum = c.argLong(5, CommandError.err("Invalid quorum"));
        long port = c.argLong(4, CommandError.err("Invalid port"));
        if (quorum <= 0) throw CommandError.err("Quorum must be 1 or greater.");
        if (SentinelAddr.resolve(a.string(3), s.resolveHostnames) == null) {
            throw CommandError.err("Invalid IP address or hostname specified");
        }
        SentinelInstance ri;
        try {
            ri = s.createInstanceOrThrow(a.string(2), SentinelInstance.MASTER, a.string(3), (int) port, (int) quorum, null);
        } catch (Sentinel.CreateError e) {
            throw CommandError.err(e.getMessage());
        }
        flushConfigAndReply(c, s);
        s.event(Log.WARNING, "+monitor", ri, "%@ quorum " + ri.quorum);
    }

    static void flushConfigAndReply(Client c, Sentinel s) {
        if (!s.flushConfig()) throw CommandError.err("Failed to save config file. Check server logs.");
        c.reply().ok();
    }

    private static void ckquorum(Client c, Sentinel s, SentinelInstance m) {
        int usable = 1;
        int voters = m.sentinels.size() + 1;
        for (SentinelInstance ri : m.sentinels.values()) if (!ri.is(SentinelInstance.S_DOWN | SentinelInstance.O_DOWN)) usable++;
        boolean noQuorum = usable < m.quorum;
        boolean noAuth = usable < voters / 2 + 1;
        if (!noQuorum && !noAuth) {
            c.reply().status("OK " + usable + " usable Sentinels. Quorum and failover authorization can be reached");
            return;
        }
        StringBuilder e = new StringBuilder("NOQUORUM " + usable + " usable Sentinels. ");
        if (noQuorum) e.append("Not enough available Sentinels to reach the specified quorum for this master");
        if (noAuth) {
            if (noQuorum) e.append(". ");
            e.append("Not enough available Sentinels to reach the majority and authorize a failover");
        }
        throw new CommandError(e.toString());
    }

    private static void config(Client c, Sentinel s) {
        Args a = c.args();
        if (a.count() == 5 && a.is(2, "set")) {
            SentinelSet.configSet(c, s);
        } else if (a.count() == 4 && a.is(2, "get")) {
            configGet(c, s, a.string(3));
        } else {
            throw CommandError.err("Only SENTINEL CONFIG GET <option> / SET <option> <value> are supported.");
        }
    }

    private static void configGet(Client c, Sentinel s, String pattern) {
        Map<String, Object> values = new LinkedHashMap<>();
        values.put("resolve-hostnames", s.resolveHostnames ? "yes" : "no");
        values.put("announce-hostnames", s.announceHostnames ? "yes" : "no");
        values.put("announce-ip", s.announceIp != null ? s.announceIp : "");
        values.put("announce-port", (long) s.announcePort);
        values.put("sentinel-user", s.sentinelAuthUser != null ? s.sentinelAuthUser : "");
        values.put("sentinel-pass", s.sentinelAuthPass != null ? s.sentinelAuthPass : "");
        byte[] p = pattern.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        values.keySet().removeIf(k -> !io.spinel.core.util.Glob.match(p, k.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1), true));
        map(c.reply(), values);
    }

    private static void infoCache(Client c, Sentinel s) {
        Args a = c.args();
        List<SentinelInstance> chosen = new ArrayList<>();
        if (a.count() > 2) {
            for (int i = 2; i < a.count(); i++) {
                SentinelInstance m = s.masters.get(a.string(i));
                if (m != null && !chosen.contains(m)) chosen.add(m);
            }
        } else {
            chosen.addAll(s.masters.values());
        }
        long now = Sentinel.now();
        Reply r = c.reply();
        r.arrayHeader(chosen.size() * 2L);
        for (SentinelInstance m : chosen) {
            r.bulk(m.name);
            r.arrayHeader(m.slaves.size() + 1L);
            cachedInfo(r, m.infoRefresh != 0 ? now - m.infoRefresh : 0, m.info);
            // (as Redis: a replica's age is 0 whenever the master never answered INFO)
            for (SentinelInstance sl : m.slaves.values()) cachedInfo(r, m.infoRefresh != 0 ? now - sl.infoRefresh : 0, sl.info);
        }
    }

    private static void cachedInfo(Reply r, long age, String info) {
        r.arrayHeader(2);
        r.integer(age);
        if (info != null) r.bulkLatin1(info);
        else r.nil();
    }

    private static void simulateFailure(Client c, Sentinel s) {
        Args a = c.args();
        s.simulateFailureFlags = 0;
        for (int j = 2; j < a.count(); j++) {
            if (a.is(j, "crash-after-election")) {
                s.simulateFailureFlags |= Sentinel.SIMFAILURE_CRASH_AFTER_ELECTION;
                s.log.warning("Failure simulation: this Sentinel will crash after being successfully elected as failover leader");
            } else if (a.is(j, "crash-after-promotion")) {
                s.simulateFailureFlags |= Sentinel.SIMFAILURE_CRASH_AFTER_PROMOTION;
                s.log.warning("Failure simulation: this Sentinel will crash after promoting the selected replica to master");
            } else if (a.is(j, "help")) {
                c.reply().arrayHeader(2);
                c.reply().bulk("crash-after-election");
                c.reply().bulk("crash-after-promotion");
                return;
            } else {
                throw CommandError.err("Unknown failure simulation specified");
            }
        }
        c.reply().ok();
    }

    // ---- Sentinel's PUBLISH, ROLE and INFO ------------------------------------------------------

    /** PUBLISH in Sentinel mode: only hello messages, which it processes as if heard on a master. */
    public static void publish(Client c) {
        if (!c.args().string(1).equals(Sentinel.HELLO_CHANNEL)) {
            throw CommandError.err("Only HELLO messages are accepted by Sentinel instances.");
        }
        sentinelOf(c).hello.process(c.args().string(2));
        c.reply().integer(1);
    }

    /** ROLE in Sentinel mode: "sentinel" and the names of the masters. */
    public static void role(Client c) {
        Sentinel s = sentinelOf(c);
        Reply r = c.reply();
        r.arrayHeader(2);
        r.bulk("sentinel");
        r.arrayHeader(s.masters.size());
        for (SentinelInstance m : s.masters.values()) r.bulk(m.name);
    }

    /** The "# Sentinel" section of INFO. */
    public static void infoSection(Sentinel s, StringBuilder sb) {
        sb.append("# Sentinel\r\n");
        sb.append("sentinel_masters:").append(s.masters.size()).append("\r\n");
        sb.append("sentinel_tilt:").append(s.tilt ? 1 : 0).append("\r\n");
        sb.append("sentinel_tilt_since_seconds:").append(s.tilt ? (Sentinel.now() - s.tiltStartTime) / 1000 : -1).append("\r\n");
        sb.append("sentinel_running_scripts:").append(s.scripts.running()).append("\r\n");
        sb.append("sentinel_scripts_queue_length:").append(s.scripts.queued()).append("\r\n");
        sb.append("sentinel_simulate_failure_flags:").append(s.simulateFailureFlags).append("\r\n");
        int id = 0;
        for (SentinelInstance m : s.masters.values()) {
            String status = m.is(SentinelInstance.O_DOWN) ? "odown" : m.is(SentinelInstance.S_DOWN) ? "sdown" : "ok";
            sb.append("master").append(id++).append(":name=").append(m.name).append(",status=").append(status)
                    .append(",address=").append(m.addr.announced(s.announceHostnames)).append(':').append(m.addr.port())
                    .append(",slaves=").append(m.slaves.size()).append(",sentinels=").append(m.sentinels.size() + 1)
                    .append("\r\n");
        }
    }
}
