package io.spinel.core.sentinel;

import io.spinel.core.Log;

/**
 * What a master's or replica's INFO reply tells Sentinel (Redis's sentinelRefreshInstanceInfo):
 * its run id, its replicas, its role and replication state; then what Sentinel does about it:
 * follow a promotion, turn back into a replica an instance that should be one, fix a replica that
 * follows the wrong master, and track replicas being reconfigured during a failover.
 */
final class SentinelInfo {
    private SentinelInfo() {
    }

    static void refresh(Sentinel sentinel, SentinelInstance ri, String info) {
        ri.info = info;
        ri.masterLinkDownTime = 0;
        int role = 0;
        for (String l : info.split("\r\n")) {
            if (l.length() >= 47 && l.startsWith("run_id:")) {
                String id = l.substring(7, 47);
                if (ri.runId == null) {
                    ri.runId = id;
                } else if (!ri.runId.equals(id)) {
                    sentinel.event(Log.NOTICE, "+reboot", ri, "%@");
                    if (ri.is(SentinelInstance.MASTER) && ri.masterRebootDownAfter != 0) {
                        ri.flags |= SentinelInstance.MASTER_REBOOT;
                        ri.masterRebootSince = Sentinel.now();
                    }
                    ri.runId = id;
                }
            }
            if (ri.is(SentinelInstance.MASTER) && l.length() >= 7 && l.startsWith("slave")
                    && Character.isDigit(l.charAt(5))) {
                discoverReplica(sentinel, ri, l);
            }
            if (l.length() >= 32 && l.startsWith("master_link_down_since_seconds")) {
                ri.masterLinkDownTime = Sentinel.atoi(l.substring(31)) * 1000L;
            }
            if (l.startsWith("role:master")) role = SentinelInstance.MASTER;
            else if (l.startsWith("role:slave")) role = SentinelInstance.SLAVE;
            if (role == SentinelInstance.SLAVE) {
                if (l.startsWith("master_host:")) {
                    String host = l.substring(12);
                    if (ri.slaveMasterHost == null || !host.equalsIgnoreCase(ri.slaveMasterHost)) {
                        ri.slaveMasterHost = host;
                        ri.slaveConfChangeTime = Sentinel.now();
                    }
                }
                if (l.startsWith("master_port:")) {
                    int port = Sentinel.atoi(l.substring(12));
                    if (ri.slaveMasterPort != port) {
                        ri.slaveMasterPort = port;
                        ri.slaveConfChangeTime = Sentinel.now();
                    }
                }
                if (l.startsWith("master_link_status:")) ri.slaveMasterLinkUp = l.substring(19).equalsIgnoreCase("up");
                if (l.startsWith("slave_priority:")) ri.slavePriority = Sentinel.atoi(l.substring(15));
                if (l.startsWith("slave_repl_offset:")) ri.slaveReplOffset = Sentinel.parseUnsigned(l.substring(18));
                if (l.startsWith("replica_announced:")) ri.replicaAnnounced = Sentinel.atoi(l.substring(18));
            }
        }
        ri.infoRefresh = Sentinel.now();
        act(sentinel, ri, role);
    }

    /** "slave0:ip=...,port=...,..." (or the old "slave0:ip,port,state"): a replica we may not know yet. */
    private static void discoverReplica(Sentinel sentinel, SentinelInstance master, String line) {
        String ip;
        String port;
        if (!line.contains("ip=")) {
            int colon = line.indexOf(':');
            if (colon < 0) return;
            String[] parts = line.substring(colon + 1).split(",");
            if (parts.length < 3) return;
            ip = parts[0];
            port = parts[1];
        } else {
            int i = line.indexOf("ip=");
            int p = line.indexOf("port=");
            if (p < 0) return;
            ip = untilComma(line.substring(i + 3));
            port = untilComma(line.substring(p + 5));
        }
        int portNumber = Sentinel.atoi(port);
        if (sentinel.lookupSlave(master, ip, portNumber) != null) return;
        SentinelInstance slave = sentinel.createInstance(null, SentinelInstance.SLAVE, ip, portNumber, master.quorum, master);
        if (slave != null) {
            sentinel.event(Log.NOTICE, "+slave", slave, "%@");
            sentinel.flushConfig();
        }
    }

    private static String untilComma(String s) {
        int c = s.indexOf(',');
        return c < 0 ? s : s.substring(0, c);
    }

    private static void act(Sentinel sentinel, SentinelInstance ri, int role) {
        long now = Sentinel.now();
        if (role != ri.roleReported) {
            ri.roleReportedTime = now;
            ri.roleReported = role;
            if (role == SentinelInstance.SLAVE) ri.slaveConfChangeTime = now;
            sentinel.event(Log.VERBOSE, (ri.flags & (SentinelInstance.MASTER | SentinelInstance.SLAVE)) == role
                    ? "+role-change" : "-role-change", ri, "%@ new reported role is "
                    + (role == SentinelInstance.MASTER ? "master" : "slave"));
        }
        if (sentinel.tilt) return;
        // (a master that says it is a replica is left alone: it counts as down, and is failed over)
        if (ri.is(SentinelInstance.SLAVE) && role == SentinelInstance.MASTER) {
            SentinelInstance master = ri.master;
            if (ri.is(SentinelInstance.PROMOTED) && master.is(SentinelInstance.FAILOVER_IN_PROGRESS)
                    && master.failoverState == SentinelInstance.FailoverState.WAIT_PROMOTION) {
                // the promotion worked: the new configuration takes our election's epoch, which
                // makes the other Sentinels take it from our hello messages
                master.configEpoch = master.failoverEpoch;
                master.failoverState = SentinelInstance.FailoverState.RECONF_SLAVES;
                master.failoverStateChangeTime = now;
                sentinel.flushConfig();
                sentinel.event(Log.WARNING, "+promoted-slave", ri, "%@");
                if ((sentinel.simulateFailureFlags & Sentinel.SIMFAILURE_CRASH_AFTER_PROMOTION) != 0) sentinel.crash();
                sentinel.event(Log.WARNING, "+failover-state-reconf-slaves", master, "%@");
                sentinel.callClientReconfigScript(master, true, master.addr, ri.addr);
                sentinel.hello.forceUpdate(master);
            } else {
                // a replica turned master by someone else: after a while without news of a
                // failover, make it a replica again
                long wait = sentinel.timing.publishPeriod * 4;
                if (!ri.is(SentinelInstance.PROMOTED) && sentinel.masterLooksSane(master)
                        && sentinel.noDownFor(ri, wait) && now - ri.roleReportedTime > wait) {
                    if (sentinel.failover.sendReplicaOf(ri, master.addr)) {
                        sentinel.event(Log.NOTICE, "+convert-to-slave", ri, "%@");
                    }
                }
            }
        }
        if (ri.is(SentinelInstance.SLAVE) && role == SentinelInstance.SLAVE
                && (ri.slaveMasterPort != ri.master.addr.port()
                    || !ri.master.addr.matchesHost(ri.slaveMasterHost, sentinel.resolveHostnames))) {
            long wait = ri.master.failoverTimeout;
            if (sentinel.masterLooksSane(ri.master) && sentinel.noDownFor(ri, wait)
                    && now - ri.slaveConfChangeTime > wait) {
                if (sentinel.failover.sendReplicaOf(ri, ri.master.addr)) {
                    sentinel.event(Log.NOTICE, "+fix-slave-config", ri, "%@");
                }
            }
        }
        if (ri.is(SentinelInstance.SLAVE) && role == SentinelInstance.SLAVE
                && ri.is(SentinelInstance.RECONF_SENT | SentinelInstance.RECONF_INPROG)) {
            SentinelInstance promoted = ri.master.promotedSlave;
            if (ri.is(SentinelInstance.RECONF_SENT) && ri.slaveMasterHost != null && promoted != null
                    && promoted.addr.matchesHost(ri.slaveMasterHost, sentinel.resolveHostnames)
                    && ri.slaveMasterPort == promoted.addr.port()) {
                ri.flags &= ~SentinelInstance.RECONF_SENT;
                ri.flags |= SentinelInstance.RECONF_INPROG;
                sentinel.event(Log.NOTICE, "+slave-reconf-inprog", ri, "%@");
            }
            if (ri.is(SentinelInstance.RECONF_INPROG) && ri.slaveMasterLinkUp) {
                ri.flags &= ~SentinelInstance.RECONF_INPROG;
                ri.flags |= SentinelInstance.RECONF_DONE;
                sentinel.event(Log.NOTICE, "+slave-reconf-done", ri, "%@");
            }
        }
    }
}
