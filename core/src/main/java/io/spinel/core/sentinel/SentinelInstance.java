package io.spinel.core.sentinel;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A master, replica or other Sentinel as this Sentinel sees it (Redis's sentinelRedisInstance).
 * Masters own their replicas and the Sentinels that monitor them too. Owned by the engine's thread.
 */
final class SentinelInstance {
    // flags, as Redis's SRI_* (the order of the names SENTINEL MASTER lists is Redis's)
    static final int MASTER = 1;
    static final int SLAVE = 1 << 1;
    static final int SENTINEL = 1 << 2;
    static final int S_DOWN = 1 << 3;
    static final int O_DOWN = 1 << 4;
    static final int MASTER_DOWN = 1 << 5;
    static final int FAILOVER_IN_PROGRESS = 1 << 6;
    static final int PROMOTED = 1 << 7;
    static final int RECONF_SENT = 1 << 8;
    static final int RECONF_INPROG = 1 << 9;
    static final int RECONF_DONE = 1 << 10;
    static final int FORCE_FAILOVER = 1 << 11;
    static final int SCRIPT_KILL_SENT = 1 << 12;
    static final int MASTER_REBOOT = 1 << 13;

    int flags;
    /** The master's name; for a replica "ip:port"; for a Sentinel its run id. */
    final String name;
    String runId;
    long configEpoch;
    SentinelAddr addr;
    InstanceLink link;
    long lastPublished;
    long lastHello;
    long lastMasterDownReply;
    long sDownSince;
    long oDownSince;
    long downAfter;
    long masterRebootDownAfter;
    long masterRebootSince;
    long infoRefresh;
    /** rename-command: a command's name (lower case) to the name the instance knows it by. */
    final Map<String, String> renamedCommands = new LinkedHashMap<>();
    /** MASTER or SLAVE as the instance's INFO last said, and since when. */
    int roleReported;
    long roleReportedTime;
    long slaveConfChangeTime;

    // masters
    final Map<String, SentinelInstance> sentinels = new LinkedHashMap<>();
    final Map<String, SentinelInstance> slaves = new LinkedHashMap<>();
    int quorum;
    int parallelSyncs = 1;
    String authPass;
    String authUser;

    // replicas
    long masterLinkDownTime;
    int slavePriority = 100;
    int replicaAnnounced = 1;
    long slaveReconfSentTime;
    final SentinelInstance master;
    String slaveMasterHost;
    int slaveMasterPort;
    boolean slaveMasterLinkUp;
    long slaveReplOffset;

    // failover (for a Sentinel: its vote)
    String leader;
    long leaderEpoch;
    long failoverEpoch;
    FailoverState failoverState = FailoverState.NONE;
    long failoverStateChangeTime;
    long failoverStartTime;
    long failoverTimeout;
    long failoverDelayLogged;
    SentinelInstance promotedSlave;
    String notificationScript;
    String clientReconfigScript;
    /** The last INFO reply (SENTINEL INFO-CACHE). */
    String info;

    /** The failover's steps, named as SENTINEL MASTER shows them. */
    enum FailoverState {
        NONE("none"), WAIT_START("wait_start"), SELECT_SLAVE("select_slave"),
        SEND_SLAVEOF_NOONE("send_slaveof_noone"), WAIT_PROMOTION("wait_promotion"),
        RECONF_SLAVES("reconf_slaves"), UPDATE_CONFIG("update_config");

        final String text;

        FailoverState(String text) {
            this.text = text;
        }
    }

    SentinelInstance(String name, int flags, SentinelAddr addr, int quorum, SentinelInstance master,
                     long now, long defaultDownAfter, long defaultFailoverTimeout) {
        this.name = name;
        this.flags = flags;
        this.addr = addr;
        this.quorum = quorum;
        this.master = master;
        this.link = new InstanceLink(now);
        this.lastPublished = now;
        this.lastHello = now;
        this.lastMasterDownReply = now;
        this.downAfter = master != null ? master.downAfter : defaultDownAfter;
        this.failoverTimeout = defaultFailoverTimeout;
        this.roleReported = flags & (MASTER | SLAVE);
        this.roleReportedTime = now;
        this.slaveConfChangeTime = now;
    }

    boolean is(int flag) {
        return (flags & flag) != 0;
    }

    String typeName() {
        if (is(MASTER)) return "master";
        if (is(SLAVE)) return "slave";
        if (is(SENTINEL)) return "sentinel";
        return "unknown";
    }

    /** The name to send for a command, after the master's rename-command entries. */
    String command(String name) {
        SentinelInstance m = master != null ? master : this;
        return m.renamedCommands.getOrDefault(name.toLowerCase(java.util.Locale.ROOT), name);
    }
}
