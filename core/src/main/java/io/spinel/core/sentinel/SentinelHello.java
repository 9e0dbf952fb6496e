package io.spinel.core.sentinel;

import io.spinel.core.Log;

import java.util.List;

/**
 * Hello messages (Redis's sentinelSendHello and sentinelProcessHelloMessage): how Sentinels find
 * each other and spread configurations. Every 2 s each Sentinel publishes on every master and
 * replica it watches (and PUBLISHes to every Sentinel it knows) "ip,port,runid,current_epoch,
 * master_name,master_ip,master_port,master_config_epoch"; what it hears adds Sentinels, raises
 * its epoch, and switches a master whose configuration epoch is newer than its own.
 */
final class SentinelHello {
    private final Sentinel sentinel;

    SentinelHello(Sentinel sentinel) {
        this.sentinel = sentinel;
    }

    /**
     * Announces this Sentinel and its view of the master on the instance (a master, a replica,
     * or another Sentinel, whose PUBLISH takes it): "ip,port,runid,current_epoch,master_name,
     * master_ip,master_port,master_config_epoch".
     */
    boolean send(SentinelInstance ri) {
        SentinelInstance master = ri.is(SentinelInstance.MASTER) ? ri : ri.master;
        SentinelAddr masterAddr = sentinel.currentMasterAddress(master);
        if (ri.link.disconnected) return false;
        String ip = sentinel.announceIp;
        if (ip == null) {
            ip = ri.link.commands == null ? null : ri.link.commands.localIp();
            if (ip == null) return false;
        }
        int tlsPort = sentinel.engine.config().getInt("tls-port");
        int port = sentinel.announcePort != 0 ? sentinel.announcePort
                : sentinel.engine.config().getBool("tls-replication") && tlsPort != 0 ? tlsPort : sentinel.engine.port();
        String payload = ip + "," + port + "," + sentinel.myId + "," + Long.toUnsignedString(sentinel.currentEpoch) + ","
                + master.name + "," + masterAddr.announced(sentinel.announceHostnames) + "," + masterAddr.port() + ","
                + Long.toUnsignedString(master.configEpoch);
        return sentinel.send(ri, reply -> {
            if (!(reply instanceof RespConnection.Error)) ri.lastPublished = Sentinel.now();
        }, ri.command("PUBLISH"), Sentinel.HELLO_CHANNEL, payload);
    }

    void receive(SentinelInstance ri, Object message) {
        ri.link.pubsubLastActivity = Sentinel.now();
        if (!(message instanceof List<?> l) || l.size() != 3 || !"message".equals(l.get(0))
                || !(l.get(2) instanceof String hello)) {
            return;
        }
        if (hello.contains(sentinel.myId)) return; // our own
        process(hello);
    }

    /** A hello message, from a master's or replica's channel or PUBLISHed to us by another Sentinel. */
    void process(String hello) {
        String[] token = hello.split(",", -1);
        if (token.length != 8) return;
        SentinelInstance master = sentinel.masters.get(token[4]);
        if (master == null) return;
        int port = Sentinel.atoi(token[1]);
        int masterPort = Sentinel.atoi(token[6]);
        long helloEpoch = Sentinel.parseUnsigned(token[3]);
        long masterConfigEpoch = Sentinel.parseUnsigned(token[7]);
        SentinelInstance si = sentinel.findByAddrAndRunId(master.sentinels, token[0], port, token[2]);
        if (si == null) {
            int removed = sentinel.removeSentinel(master, token[2]);
            if (removed > 0) {
                sentinel.event(Log.NOTICE, "+sentinel-address-switch", master, "%@ ip " + token[0] + " port " + port
                        + " for " + token[2]);
            } else {
                SentinelInstance other = sentinel.findByAddrAndRunId(master.sentinels, token[0], port, null);
                if (other != null) {
                    sentinel.event(Log.NOTICE, "+sentinel-invalid-addr", other, "%@");
                    String obsolete = other.runId;
                    for (SentinelInstance m : sentinel.masters.values()) sentinel.removeSentinel(m, obsolete);
                }
            }
            si = sentinel.createInstance(token[2], SentinelInstance.SENTINEL, token[0], port, master.quorum, master);
            if (si != null) {
                if (removed == 0) sentinel.event(Log.NOTICE, "+sentinel", si, "%@");
                si.runId = token[2];
                sentinel.shareConnection(si);
                if (removed > 0) updateSentinelAddressInAllMasters(si);
                sentinel.flushConfig();
            }
        }
        if (Long.compareUnsigned(helloEpoch, sentinel.currentEpoch) > 0) {
            sentinel.currentEpoch = helloEpoch;
            sentinel.flushConfig();
            sentinel.event(Log.WARNING, "+new-epoch", master, Long.toUnsignedString(sentinel.currentEpoch));
        }
        if (si != null && Long.compareUnsigned(master.configEpoch, masterConfigEpoch) < 0) {
            master.configEpoch = masterConfigEpoch;
            if (masterPort != master.addr.port() || !master.addr.matchesHost(token[5], sentinel.resolveHostnames)) {
                sentinel.event(Log.WARNING, "+config-update-from", si, "%@");
                sentinel.event(Log.WARNING, "+switch-master", master, master.name + " "
                        + master.addr.announced(sentinel.announceHostnames) + " " + master.addr.port() + " " + token[5]
                        + " " + masterPort);
                SentinelAddr oldAddr = master.addr;
                if (sentinel.resetMasterAndChangeAddress(master, token[5], masterPort)) {
                    sentinel.callClientReconfigScript(master, false, oldAddr, master.addr);
                }
            }
        }
        if (si != null) si.lastHello = Sentinel.now();
    }

    private void updateSentinelAddressInAllMasters(SentinelInstance ri) {
        int reconfigured = 0;
        for (SentinelInstance m : sentinel.masters.values()) {
            SentinelInstance match = sentinel.findByAddrAndRunId(m.sentinels, null, 0, ri.runId);
            if (match == null) continue;
            match.link.closeAll();
            if (match == ri) continue;
            match.addr = ri.addr;
            reconfigured++;
        }
        if (reconfigured > 0) {
            sentinel.event(Log.NOTICE, "+sentinel-address-update", ri, "%@ " + reconfigured + " additional matching instances");
        }
    }

    /** Makes the next timer run send hello messages for this master everywhere (a new configuration). */
    void forceUpdate(SentinelInstance master) {
        long back = sentinel.timing.publishPeriod + 1;
        if (master.lastPublished >= back) master.lastPublished -= back;
        for (SentinelInstance s : master.sentinels.values()) if (s.lastPublished >= back) s.lastPublished -= back;
        for (SentinelInstance s : master.slaves.values()) if (s.lastPublished >= back) s.lastPublished -= back;
    }
}
