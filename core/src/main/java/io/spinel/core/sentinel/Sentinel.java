package io.spinel.core.sentinel;

import io.spinel.core.Engine;
import io.spinel.core.Log;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Sentinel mode (redis-server --sentinel, Redis's sentinel.c): the masters this Sentinel monitors,
 * their replicas and the other Sentinels, and the timer that watches them. Everything here runs on
 * the engine's thread, which owns this state as it owns the data set; the connections to the
 * instances ({@link RespConnection}) hand their replies back to it.
 *
 * <p>The failover itself is in {@link SentinelFailover}, hello messages in {@link SentinelHello},
 * what INFO replies say in {@link SentinelInfo}, scripts in {@link SentinelScripts}, the
 * configuration lines in {@link SentinelConfig}, the SENTINEL command in {@link SentinelCommands}.
 */
public final class Sentinel {
    static final String HELLO_CHANNEL = "__sentinel__:hello";
    static final int MAX_PENDING_COMMANDS = 100;
    static final int MAX_DESYNC = 1000;
    static final int RUN_ID_SIZE = 40;

    final Engine engine;
    final Log log;
    final Timing timing = new Timing();
    final SentinelFailover failover = new SentinelFailover(this);
    final SentinelConfig config = new SentinelConfig(this);
    final SentinelScripts scripts = new SentinelScripts(this);
    final SentinelHello hello = new SentinelHello(this);

    String myId = "";
    long currentEpoch;
    final Map<String, SentinelInstance> masters = new LinkedHashMap<>();
    boolean tilt;
    long tiltStartTime;
    long previousTime = now();
    String announceIp;
    int announcePort;
    boolean denyScriptsReconfig = true;
    String sentinelAuthPass;
    String sentinelAuthUser;
    boolean resolveHostnames;
    boolean announceHostnames;
    int simulateFailureFlags;
    static final int SIMFAILURE_CRASH_AFTER_ELECTION = 1;
    static final int SIMFAILURE_CRASH_AFTER_PROMOTION = 2;

    private boolean stopped;

    /** The periods Redis's SENTINEL DEBUG shows and sets (ms). */
    static final class Timing {
        long infoPeriod = 10000;
        long pingPeriod = 1000;
        long askPeriod = 1000;
        long publishPeriod = 2000;
        long defaultDownAfter = 30000;
        long tiltTrigger = 2000;
        long tiltPeriod = 30000;
        long slaveReconfTimeout = 10000;
        long minLinkReconnectPeriod = 15000;
        long electionTimeout = 10000;
        long scriptMaxRuntime = 60000;
        long scriptRetryDelay = 30000;
        long defaultFailoverTimeout = 180000;
    }

    public Sentinel(Engine engine) {
        this.engine = engine;
        this.log = engine.log();
    }

    public static long now() {
        return System.currentTimeMillis();
    }

    /** The configuration's "sentinel ..." lines, applied in Redis's order; see {@link SentinelConfig}. */
    public SentinelConfig configuration() {
        return config;
    }

    /**
     * Starts watching (Redis's sentinelIsRunning): picks an id if the file had none and saves it,
     * logs it, emits +monitor for every master, and starts the timer. On the engine's thread.
     */
    public void start() {
        if (myId.isEmpty()) {
            myId = randomHex(RUN_ID_SIZE);
            flushConfig();
        }
        log.warning("Sentinel ID is " + myId);
        for (SentinelInstance m : masters.values()) event(Log.WARNING, "+monitor", m, "%@ quorum " + m.quorum);
        scheduleTimer();
    }

    public void stop() {
        stopped = true;
        scripts.clear();
        for (SentinelInstance m : masters.values()) releaseAll(m);
    }

    private void releaseAll(SentinelInstance m) {
        m.link.closeAll();
        for (SentinelInstance s : m.slaves.values()) s.link.closeAll();
        for (SentinelInstance s : m.sentinels.values()) s.link.closeAll();
    }

    /**
     * A Sentinel known under several masters is one process: its instances share one link
     * (Redis's sentinelTryConnectionSharing), so it gets one connection and one PING a second.
     */
    void shareConnection(SentinelInstance si) {
        if (si.runId == null || si.link.refcount > 1) return;
        for (SentinelInstance m : masters.values()) {
            if (m == si.master) continue;
            SentinelInstance match = findByAddrAndRunId(m.sentinels, null, 0, si.runId);
            if (match == null || match == si) continue;
            if (--si.link.refcount == 0) si.link.closeAll();
            si.link = match.link;
            match.link.refcount++;
            return;
        }
    }

    static String randomHex(int n) {
        byte[] b = new byte[n / 2];
        new SecureRandom().nextBytes(b);
        StringBuilder sb = new StringBuilder(n);
        for (byte x : b) sb.append(Character.forDigit((x >> 4) & 0xF, 16)).append(Character.forDigit(x & 0xF, 16));
        return sb.toString();
    }

    // ---- the timer ------------------------------------------------------------------------------

    /**
     * Redis runs the Sentinel timer from its cron with hz changed at random between 10 and 19 after
     * each run, so that Sentinels started together do not keep asking for votes at the same time.
     */
    private void scheduleTimer() {
        if (stopped) return;
        long delay = 1000 / (10 + ThreadLocalRandom.current().nextInt(10));
        engine.loop().schedule(() -> {
            try {
                timer();
            } catch (RuntimeException e) {
                log.warning("Sentinel timer failed: " + e);
            }
            scheduleTimer();
        }, delay, TimeUnit.MILLISECONDS);
    }

    void timer() {
        if (stopped) return;
        checkTilt();
        handleInstances(new ArrayList<>(masters.values()));
        scripts.tick();
    }

    private void checkTilt() {
        long now = now();
        long delta = now - previousTime;
        if (delta < 0 || delta > timing.tiltTrigger) {
            tilt = true;
            tiltStartTime = now;
            event(Log.WARNING, "+tilt", null, "#tilt mode entered");
        }
        previousTime = now;
    }

    private void handleInstances(List<SentinelInstance> instances) {
        SentinelInstance switchToPromoted = null;
        for (SentinelInstance ri : instances) {
            handleInstance(ri);
            if (ri.is(SentinelInstance.MASTER)) {
                handleInstances(new ArrayList<>(ri.slaves.values()));
                handleInstances(new ArrayList<>(ri.sentinels.values()));
                if (ri.failoverState == SentinelInstance.FailoverState.UPDATE_CONFIG) switchToPromoted = ri;
            }
        }
        if (switchToPromoted != null) failover.switchToPromotedSlave(switchToPromoted);
    }

    private void handleInstance(SentinelInstance ri) {
        reconnect(ri);
        sendPeriodicCommands(ri);
        if (tilt) {
            if (now() - tiltStartTime < timing.tiltPeriod) return;
            tilt = false;
            event(Log.WARNING, "-tilt", null, "#tilt mode exited");
        }
        checkSubjectivelyDown(ri);
        if (ri.is(SentinelInstance.MASTER)) {
            checkObjectivelyDown(ri);
            if (failover.startIfNeeded(ri)) failover.askOtherSentinels(ri, true);
            failover.stateMachine(ri);
            failover.askOtherSentinels(ri, false);
        }
    }

    // ---- connections ----------------------------------------------------------------------------

    private void reconnect(SentinelInstance ri) {
        InstanceLink link = ri.link;
        if (!link.disconnected || ri.addr.port() == 0) return;
        long now = now();
        if (now - link.lastReconnectAttempt < timing.pingPeriod) return;
        link.lastReconnectAttempt = now;
        String host = ri.addr.ip().isEmpty() ? ri.addr.hostname() : ri.addr.ip();
        if (link.commands == null) {
            if (resolveHostnames) {
                try {
                    ri.addr = SentinelAddr.create(ri.addr.hostname(), ri.addr.port(), true, false);
                    host = ri.addr.ip();
                } catch (SentinelAddr.Invalid ignored) {
                    // keep the old address until the name resolves
                }
            }
            RespConnection cc = new RespConnection(host, ri.addr.port(), connectionOptions(), engine::execute,
                    linkListener(ri), "spinel-sentinel-cmd");
            link.commands = cc;
            link.pendingCommands = 0;
            link.commandsConnectedAt = now();
            cc.start();
            sendAuthIfNeeded(ri, cc);
            setClientName(ri, cc, "cmd");
            sendPing(ri);
        }
        if (ri.is(SentinelInstance.MASTER | SentinelInstance.SLAVE) && link.pubsub == null) {
            RespConnection pc = new RespConnection(host, ri.addr.port(), connectionOptions(), engine::execute,
                    linkListener(ri), "spinel-sentinel-pubsub");
            link.pubsub = pc;
            link.pubsubConnectedAt = now();
            pc.expectPushes();
            pc.start();
            sendAuthIfNeeded(ri, pc);
            setClientName(ri, pc, "pubsub");
            pc.send(r -> {
                // refused (a password this Sentinel does not have): the connection is of no use,
                // and the instance shows as disconnected until it is accepted
                if (r instanceof RespConnection.Error) link.close(pc);
                else link.pubsubLastActivity = now();
            }, ri.command("SUBSCRIBE"), HELLO_CHANNEL);
        }
        if (link.commands != null && (ri.is(SentinelInstance.SENTINEL) || link.pubsub != null)) link.disconnected = false;
    }

    /** As Redis's Sentinel: TLS with tls-replication yes, from bind-source-addr when set. */
    private RespConnection.Options connectionOptions() {
        return new RespConnection.Options(engine.config().getBool("tls-replication") ? engine.tls() : null,
                engine.config().get("bind-source-addr"));
    }

    private RespConnection.Listener linkListener(SentinelInstance ri) {
        return new RespConnection.Listener() {
            @Override
            public void pushed(RespConnection connection, Object message) {
                if (connection == ri.link.pubsub) hello.receive(ri, message);
            }

            @Override
            public void closed(RespConnection connection, String why) {
                InstanceLink link = ri.link;
                if (connection == link.commands) {
                    link.commands = null;
                    link.pendingCommands = 0;
                    link.disconnected = true;
                } else if (connection == link.pubsub) {
                    link.pubsub = null;
                    link.disconnected = true;
                }
            }
        };
    }

    /** Sends a command on the instance's command connection, counting it as pending until it is answered. */
    boolean send(SentinelInstance ri, java.util.function.Consumer<Object> onReply, String... args) {
        InstanceLink link = ri.link;
        RespConnection cc = link.commands;
        if (cc == null || cc.isClosed()) return false;
        link.pendingCommands++;
        cc.send(reply -> {
            if (ri.link.commands == cc) ri.link.pendingCommands--;
            if (onReply != null) onReply.accept(reply);
        }, args);
        return true;
    }

    private void sendAuthIfNeeded(SentinelInstance ri, RespConnection c) {
        String pass = null;
        String user = null;
        if (ri.is(SentinelInstance.MASTER)) {
            pass = ri.authPass;
            user = ri.authUser;
        } else if (ri.is(SentinelInstance.SLAVE)) {
            pass = ri.master.authPass;
            user = ri.master.authUser;
        } else if (ri.is(SentinelInstance.SENTINEL)) {
            if (sentinelAuthPass != null) {
                pass = sentinelAuthPass;
                user = sentinelAuthUser;
            } else {
                // as older configurations: requirepass authenticates both ways between Sentinels
                String requirepass = engine.config().get("requirepass");
                pass = requirepass == null || requirepass.isEmpty() ? null : requirepass;
            }
        }
        if (pass == null) return;
        if (c == ri.link.commands) ri.link.pendingCommands++;
        java.util.function.Consumer<Object> done = r -> {
            if (c == ri.link.commands) ri.link.pendingCommands--;
        };
        if (user == null) c.send(done, ri.command("AUTH"), pass);
        else c.send(done, ri.command("AUTH"), user, pass);
    }

    private void setClientName(SentinelInstance ri, RespConnection c, String type) {
        String name = "sentinel-" + myId.substring(0, Math.min(8, myId.length())) + "-" + type;
        if (c == ri.link.commands) ri.link.pendingCommands++;
        c.send(r -> {
            if (c == ri.link.commands) ri.link.pendingCommands--;
        }, ri.command("CLIENT"), "SETNAME", name);
    }

    // ---- periodic commands ----------------------------------------------------------------------

    private void sendPeriodicCommands(SentinelInstance ri) {
        InstanceLink link = ri.link;
        if (link.disconnected) return;
        if (link.pendingCommands >= MAX_PENDING_COMMANDS * link.refcount) return;
        long now = now();
        long infoPeriod = ri.is(SentinelInstance.SLAVE)
                && (ri.master.is(SentinelInstance.O_DOWN | SentinelInstance.FAILOVER_IN_PROGRESS) || ri.masterLinkDownTime != 0)
                ? 1000 : timing.infoPeriod;
        long pingPeriod = Math.min(ri.downAfter, timing.pingPeriod);
        if (!ri.is(SentinelInstance.SENTINEL) && (ri.infoRefresh == 0 || now - ri.infoRefresh > infoPeriod)) {
            send(ri, reply -> {
                if (reply instanceof String s) SentinelInfo.refresh(this, ri, s);
            }, ri.command("INFO"));
        }
        if (now - link.lastPong > pingPeriod && now - link.lastPingSent > pingPeriod / 2) sendPing(ri);
        if (now - ri.lastPublished > timing.publishPeriod) hello.send(ri);
    }

    void sendPing(SentinelInstance ri) {
        boolean sent = send(ri, reply -> pingReply(ri, reply), ri.command("PING"));
        if (!sent) return;
        InstanceLink link = ri.link;
        link.lastPingSent = now();
        if (link.activePingSent == 0) link.activePingSent = link.lastPingSent;
    }

    private void pingReply(SentinelInstance ri, Object reply) {
        InstanceLink link = ri.link;
        String text = reply instanceof String s ? s : reply instanceof RespConnection.Error e ? e.message() : null;
        if (text != null) {
            if (text.startsWith("PONG") || text.startsWith("LOADING") || text.startsWith("MASTERDOWN")) {
                link.lastAvailable = now();
                link.activePingSent = 0;
                if (ri.is(SentinelInstance.MASTER_REBOOT) && text.startsWith("PONG")) ri.flags &= ~SentinelInstance.MASTER_REBOOT;
            } else if (text.startsWith("BUSY") && ri.is(SentinelInstance.S_DOWN) && !ri.is(SentinelInstance.SCRIPT_KILL_SENT)) {
                // a script keeps the instance busy: kill it rather than fail over
                send(ri, null, ri.command("SCRIPT"), "KILL");
                ri.flags |= SentinelInstance.SCRIPT_KILL_SENT;
            }
        }
        link.lastPong = now();
    }

    // ---- failure detection ----------------------------------------------------------------------

    private void checkSubjectivelyDown(SentinelInstance ri) {
        InstanceLink link = ri.link;
        long now = now();
        long elapsed = 0;
        if (link.activePingSent != 0) elapsed = now - link.activePingSent;
        else if (link.disconnected) elapsed = now - link.lastAvailable;
        // a connection that looks up but answers nothing for long is dropped and made again
        if (link.commands != null && now - link.commandsConnectedAt > timing.minLinkReconnectPeriod
                && link.activePingSent != 0 && now - link.activePingSent > ri.downAfter / 2
                && now - link.lastPong > ri.downAfter / 2) {
            link.close(link.commands);
        }
        if (link.pubsub != null && now - link.pubsubConnectedAt > timing.minLinkReconnectPeriod
                && now - link.pubsubLastActivity > timing.publishPeriod * 3) {
            link.close(link.pubsub);
        }
        if (elapsed > ri.downAfter
                || (ri.is(SentinelInstance.MASTER) && ri.roleReported == SentinelInstance.SLAVE
                    && now - ri.roleReportedTime > ri.downAfter + timing.infoPeriod * 2)
                || (ri.is(SentinelInstance.MASTER_REBOOT) && now - ri.masterRebootSince > ri.masterRebootDownAfter)) {
            if (!ri.is(SentinelInstance.S_DOWN)) {
                event(Log.WARNING, "+sdown", ri, "%@");
                ri.sDownSince = now;
                ri.flags |= SentinelInstance.S_DOWN;
            }
        } else if (ri.is(SentinelInstance.S_DOWN)) {
            event(Log.WARNING, "-sdown", ri, "%@");
            ri.flags &= ~(SentinelInstance.S_DOWN | SentinelInstance.SCRIPT_KILL_SENT);
        }
    }

    private void checkObjectivelyDown(SentinelInstance master) {
        int quorum = 0;
        boolean odown = false;
        if (master.is(SentinelInstance.S_DOWN)) {
            quorum = 1;
            for (SentinelInstance s : master.sentinels.values()) if (s.is(SentinelInstance.MASTER_DOWN)) quorum++;
            if (quorum >= master.quorum) odown = true;
        }
        if (odown) {
            if (!master.is(SentinelInstance.O_DOWN)) {
                event(Log.WARNING, "+odown", master, "%@ #quorum " + quorum + "/" + master.quorum);
                master.flags |= SentinelInstance.O_DOWN;
                master.oDownSince = now();
            }
        } else if (master.is(SentinelInstance.O_DOWN)) {
            event(Log.WARNING, "-odown", master, "%@");
            master.flags &= ~SentinelInstance.O_DOWN;
        }
    }

    boolean noDownFor(SentinelInstance ri, long ms) {
        long mostRecent = Math.max(ri.sDownSince, ri.oDownSince);
        return mostRecent == 0 || now() - mostRecent > ms;
    }

    boolean masterLooksSane(SentinelInstance master) {
        return master.is(SentinelInstance.MASTER) && master.roleReported == SentinelInstance.MASTER
                && !master.is(SentinelInstance.S_DOWN | SentinelInstance.O_DOWN)
                && now() - master.infoRefresh < timing.infoPeriod * 2;
    }

    // ---- instances ------------------------------------------------------------------------------

    /** Why an instance could not be made, with Redis's messages. */
    static final class CreateError extends Exception {
        CreateError(String message) {
            super(message, null, false, false);
        }
    }

    /** As {@link #createInstanceOrThrow}, null on failure. */
    SentinelInstance createInstance(String name, int flags, String host, int port, int quorum, SentinelInstance master) {
        try {
            return createInstanceOrThrow(name, flags, host, port, quorum, master);
        } catch (CreateError e) {
            return null;
        }
    }

    /**
     * Makes a master (added to the masters), replica or Sentinel of {@code master} (added to its
     * tables); a replica's name is its "ip:port". Fails for a bad address or a duplicate.
     */
    SentinelInstance createInstanceOrThrow(String name, int flags, String host, int port, int quorum,
                                           SentinelInstance master) throws CreateError {
        SentinelAddr addr;
        try {
            addr = SentinelAddr.create(host, port, resolveHostnames, true);
        } catch (SentinelAddr.Invalid e) {
            if (!e.badPort) log.warning("Failed to resolve hostname '" + host + "'");
            throw new CreateError(e.badPort ? "Invalid port number." : "Can't resolve instance hostname.");
        }
        String key = (flags & SentinelInstance.SLAVE) != 0 ? addr.announcedWithPort(announceHostnames) : name;
        Map<String, SentinelInstance> table = (flags & SentinelInstance.MASTER) != 0 ? masters
                : (flags & SentinelInstance.SLAVE) != 0 ? master.slaves : master.sentinels;
        if (table.containsKey(key)) {
            throw new CreateError((flags & SentinelInstance.MASTER) != 0 ? "Duplicate master name."
                    : (flags & SentinelInstance.SLAVE) != 0 ? "Duplicate hostname and port for replica."
                    : "Duplicate runid for sentinel.");
        }
        SentinelInstance ri = new SentinelInstance(key, flags, addr, quorum, master, now(), timing.defaultDownAfter,
                timing.defaultFailoverTimeout);
        table.put(key, ri);
        return ri;
    }

    SentinelInstance lookupSlave(SentinelInstance master, String host, int port) {
        try {
            SentinelAddr a = SentinelAddr.create(host, port, resolveHostnames, false);
            return master.slaves.get(a.announcedWithPort(announceHostnames));
        } catch (SentinelAddr.Invalid e) {
            return null;
        }
    }

    SentinelInstance findByAddrAndRunId(Map<String, SentinelInstance> instances, String host, int port, String runId) {
        SentinelAddr a = null;
        if (host != null) {
            try {
                a = SentinelAddr.create(host, port, resolveHostnames, true);
            } catch (SentinelAddr.Invalid e) {
                return null;
            }
        }
        for (SentinelInstance ri : instances.values()) {
            if (runId != null && ri.runId == null) continue;
            if ((runId == null || ri.runId.equals(runId)) && (a == null || ri.addr.sameAs(a))) return ri;
        }
        return null;
    }

    int removeSentinel(SentinelInstance master, String runId) {
        if (runId == null) return 0;
        int removed = 0;
        var it = master.sentinels.values().iterator();
        while (it.hasNext()) {
            SentinelInstance ri = it.next();
            if (runId.equals(ri.runId)) {
                release(ri);
                it.remove();
                removed++;
            }
        }
        return removed;
    }

    void release(SentinelInstance ri) {
        for (SentinelInstance s : ri.slaves.values()) release(s);
        for (SentinelInstance s : ri.sentinels.values()) release(s);
        // a link shared with the same Sentinel under other masters stays for them
        if (--ri.link.refcount == 0) ri.link.closeAll();
        if (ri.is(SentinelInstance.SLAVE) && ri.is(SentinelInstance.PROMOTED) && ri.master != null) {
            ri.master.promotedSlave = null;
        }
    }

    /** The master's address, or the promoted replica's once it took over (what clients are told). */
    SentinelAddr currentMasterAddress(SentinelInstance master) {
        if (master.is(SentinelInstance.FAILOVER_IN_PROGRESS) && master.promotedSlave != null
                && master.failoverState.ordinal() >= SentinelInstance.FailoverState.RECONF_SLAVES.ordinal()) {
            return master.promotedSlave.addr;
        }
        return master.addr;
    }

    static final int RESET_NO_SENTINELS = 1;

    void resetMaster(SentinelInstance ri, int flags, boolean generateEvent) {
        for (SentinelInstance s : ri.slaves.values()) release(s);
        ri.slaves.clear();
        if ((flags & RESET_NO_SENTINELS) == 0) {
            for (SentinelInstance s : ri.sentinels.values()) release(s);
            ri.sentinels.clear();
        }
        ri.link.closeAll();
        ri.flags &= SentinelInstance.MASTER;
        ri.leader = null;
        ri.failoverState = SentinelInstance.FailoverState.NONE;
        ri.failoverStateChangeTime = 0;
        ri.failoverStartTime = 0;
        ri.promotedSlave = null;
        ri.runId = null;
        ri.slaveMasterHost = null;
        long now = now();
        ri.link.activePingSent = now;
        ri.link.lastPingSent = 0;
        ri.link.lastAvailable = now;
        ri.link.lastPong = now;
        ri.roleReportedTime = now;
        ri.roleReported = SentinelInstance.MASTER;
        if (generateEvent) event(Log.WARNING, "+reset-master", ri, "%@");
    }

    int resetMastersByPattern(String pattern) {
        int reset = 0;
        for (SentinelInstance ri : masters.values()) {
            if (io.spinel.core.util.Glob.match(pattern.getBytes(StandardCharsets.ISO_8859_1),
                    ri.name.getBytes(StandardCharsets.ISO_8859_1), false)) {
                resetMaster(ri, 0, true);
                reset++;
            }
        }
        return reset;
    }

    /**
     * The master moved (+switch-master): reset it at its new address, and keep its replicas (the
     * old master among them, to reconfigure it when it comes back) but the one it became.
     */
    boolean resetMasterAndChangeAddress(SentinelInstance master, String host, int port) {
        SentinelAddr newAddr;
        try {
            newAddr = SentinelAddr.create(host, port, resolveHostnames, false);
        } catch (SentinelAddr.Invalid e) {
            return false;
        }
        List<SentinelAddr> keep = new ArrayList<>();
        for (SentinelInstance s : master.slaves.values()) if (!s.addr.sameAs(newAddr)) keep.add(s.addr);
        if (!newAddr.sameAs(master.addr)) keep.add(master.addr);
        resetMaster(master, RESET_NO_SENTINELS, false);
        master.addr = newAddr;
        master.oDownSince = 0;
        master.sDownSince = 0;
        for (SentinelAddr a : keep) {
            SentinelInstance slave = createInstance(null, SentinelInstance.SLAVE, a.hostname(), a.port(), master.quorum, master);
            if (slave != null) event(Log.NOTICE, "+slave", slave, "%@");
        }
        flushConfig();
        return true;
    }

    void propagateDownAfter(SentinelInstance master) {
        for (SentinelInstance s : master.slaves.values()) s.downAfter = master.downAfter;
        for (SentinelInstance s : master.sentinels.values()) s.downAfter = master.downAfter;
    }

    /** Drops every connection to other Sentinels (new credentials); returns how many were up. */
    int dropSentinelConnections() {
        int dropped = 0;
        for (SentinelInstance m : masters.values()) {
            for (SentinelInstance s : m.sentinels.values()) {
                if (!s.link.disconnected) {
                    s.link.closeAll();
                    dropped++;
                }
            }
        }
        return dropped;
    }

    void dropInstanceConnections(SentinelInstance master) {
        master.link.closeAll();
        for (SentinelInstance s : master.slaves.values()) s.link.closeAll();
    }

    // ---- events, configuration ------------------------------------------------------------------

    /**
     * Logs an event and publishes it on the channel named by its type (Redis's sentinelEvent). A
     * format starting with "%@" is prefixed with the instance ("master name ip port", and for
     * others "@ master-name master-ip master-port" after their own).
     */
    void event(int level, String type, SentinelInstance ri, String format) {
        StringBuilder msg = new StringBuilder();
        String rest = format;
        if (format.startsWith("%@")) {
            SentinelInstance master = ri.is(SentinelInstance.MASTER) ? null : ri.master;
            msg.append(ri.typeName()).append(' ').append(ri.name).append(' ')
                    .append(ri.addr.announced(announceHostnames)).append(' ').append(ri.addr.port());
            if (master != null) {
                msg.append(" @ ").append(master.name).append(' ').append(master.addr.announced(announceHostnames))
                        .append(' ').append(master.addr.port());
            }
            rest = format.substring(2);
        }
        msg.append(rest);
        String text = msg.toString();
        switch (level) {
            case Log.DEBUG -> log.debug(type + " " + text);
            case Log.VERBOSE -> log.verbose(type + " " + text);
            case Log.NOTICE -> log.notice(type + " " + text);
            default -> log.warning(type + " " + text);
        }
        if (level != Log.DEBUG) {
            engine.publish(type.getBytes(StandardCharsets.ISO_8859_1), text.getBytes(StandardCharsets.ISO_8859_1));
        }
        if (level == Log.WARNING && ri != null) {
            SentinelInstance master = ri.is(SentinelInstance.MASTER) ? ri : ri.master;
            if (master != null && master.notificationScript != null) scripts.schedule(master.notificationScript, type, text);
        }
    }

    /**
     * The client-reconfig-script of a failover: "master-name leader|observer start from-ip
     * from-port to-ip to-port".
     */
    void callClientReconfigScript(SentinelInstance master, boolean leader, SentinelAddr from, SentinelAddr to) {
        if (master.clientReconfigScript == null) return;
        scripts.schedule(master.clientReconfigScript, master.name, leader ? "leader" : "observer", "start",
                from.announced(announceHostnames), Integer.toString(from.port()), to.announced(announceHostnames),
                Integer.toString(to.port()));
    }

    /** Saves this Sentinel's state into its configuration file (Redis's sentinelFlushConfig). */
    boolean flushConfig() {
        String err = engine.rewriteConfigFile();
        if (err == null) {
            log.notice("Sentinel new configuration saved on disk");
            return true;
        }
        log.warning("WARNING: Sentinel was not able to save the new configuration on disk!!!: " + err);
        return false;
    }

    /**
     * Whether a script is there to run (Redis's access(X_OK)); a relative path is taken from the
     * "dir" option, where Redis has changed its working directory to.
     */
    boolean scriptExecutable(String path) {
        String dir = engine.config().get("dir");
        return java.nio.file.Files.isExecutable(dir.isEmpty() ? java.nio.file.Path.of(path) : java.nio.file.Path.of(dir).resolve(path));
    }

    void crash() {
        log.warning("Sentinel CRASH because of SENTINEL simulate-failure");
        // exits with 99 as Redis (an in-process Sentinel, whose JVM is not its own, throws instead)
        engine.exitProcess(99);
    }

    static int atoi(String s) {
        int i = 0;
        int n = s.length();
        while (i < n && Character.isWhitespace(s.charAt(i))) i++;
        boolean neg = false;
        if (i < n && (s.charAt(i) == '-' || s.charAt(i) == '+')) neg = s.charAt(i++) == '-';
        long v = 0;
        while (i < n && Character.isDigit(s.charAt(i)) && v < Integer.MAX_VALUE) v = v * 10 + (s.charAt(i++) - '0');
        return (int) (neg ? -v : v);
    }

    /** strtoull: the leading digits, 0 without. */
    static long parseUnsigned(String s) {
        int i = 0;
        while (i < s.length() && Character.isDigit(s.charAt(i))) i++;
        if (i == 0) return 0;
        try {
            return Long.parseUnsignedLong(s.substring(0, i));
        } catch (NumberFormatException e) {
            return -1; // ULLONG_MAX
        }
    }
}
