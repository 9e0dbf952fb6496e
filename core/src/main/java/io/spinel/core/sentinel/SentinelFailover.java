package io.spinel.core.sentinel;

import io.spinel.core.Log;

import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Agreement and failover (the second half of Redis's sentinel.c): asking the other Sentinels
 * whether the master is down, voting and counting votes for a leader per epoch, and the leader's
 * failover: pick the best replica, promote it with REPLICAOF NO ONE, point the other replicas at
 * it a few at a time (parallel-syncs), and switch the master's address when done.
 */
final class SentinelFailover {
    private static final DateTimeFormatter CTIME = DateTimeFormatter.ofPattern("EEE MMM ppd HH:mm:ss yyyy", Locale.ROOT);

    private final Sentinel sentinel;

    SentinelFailover(Sentinel sentinel) {
        this.sentinel = sentinel;
    }

    // ---- asking the others ----------------------------------------------------------------------

    /**
     * While we think the master is down, asks every other Sentinel (about once per ask-period, or
     * at once when {@code forced}) with SENTINEL IS-MASTER-DOWN-BY-ADDR, asking for its vote too
     * once a failover began.
     */
    void askOtherSentinels(SentinelInstance master, boolean forced) {
        long now = Sentinel.now();
        for (SentinelInstance ri : master.sentinels.values()) {
            long elapsed = now - ri.lastMasterDownReply;
            if (elapsed > sentinel.timing.askPeriod * 5) {
                ri.flags &= ~SentinelInstance.MASTER_DOWN;
                ri.leader = null;
            }
            if (!master.is(SentinelInstance.S_DOWN)) continue;
            if (ri.link.disconnected) continue;
            if (!forced && now - ri.lastMasterDownReply < sentinel.timing.askPeriod) continue;
            sentinel.send(ri, reply -> isMasterDownReply(ri, reply), ri.command("SENTINEL"), "is-master-down-by-addr",
                    master.addr.announced(sentinel.announceHostnames), Integer.toString(master.addr.port()),
                    Long.toUnsignedString(sentinel.currentEpoch),
                    master.failoverState != SentinelInstance.FailoverState.NONE ? sentinel.myId : "*");
        }
    }

    private void isMasterDownReply(SentinelInstance ri, Object reply) {
        if (!(reply instanceof List<?> r) || r.size() != 3 || !(r.get(0) instanceof Long down)
                || !(r.get(1) instanceof String leader) || !(r.get(2) instanceof Long epoch)) {
            return;
        }
        ri.lastMasterDownReply = Sentinel.now();
        if (down == 1) ri.flags |= SentinelInstance.MASTER_DOWN;
        else ri.flags &= ~SentinelInstance.MASTER_DOWN;
        if (!leader.equals("*")) {
            if (ri.leaderEpoch != epoch) {
                sentinel.log.warning(ri.name + " voted for " + leader + " " + Long.toUnsignedString(epoch));
            }
            ri.leader = leader;
            ri.leaderEpoch = epoch;
        }
    }

    // ---- votes ----------------------------------------------------------------------------------

    /**
     * Votes for {@code runId} as the leader of {@code epoch} unless this Sentinel already voted in
     * that epoch or a later one; returns the vote it holds (null if none) and its epoch in
     * {@code epochOut[0]}.
     */
    String voteLeader(SentinelInstance master, long reqEpoch, String runId, long[] epochOut) {
        if (Long.compareUnsigned(reqEpoch, sentinel.currentEpoch) > 0) {
            sentinel.currentEpoch = reqEpoch;
            sentinel.flushConfig();
            sentinel.event(Log.WARNING, "+new-epoch", master, Long.toUnsignedString(sentinel.currentEpoch));
        }
        if (Long.compareUnsigned(master.leaderEpoch, reqEpoch) < 0
                && Long.compareUnsigned(sentinel.currentEpoch, reqEpoch) <= 0) {
            master.leader = runId;
            master.leaderEpoch = sentinel.currentEpoch;
            sentinel.flushConfig();
            sentinel.event(Log.WARNING, "+vote-for-leader", master, master.leader + " "
                    + Long.toUnsignedString(master.leaderEpoch));
            // having voted for another, wait before trying a failover of our own
            if (!master.leader.equalsIgnoreCase(sentinel.myId)) {
                master.failoverStartTime = Sentinel.now() + ThreadLocalRandom.current().nextInt(Sentinel.MAX_DESYNC);
            }
        }
        epochOut[0] = master.leaderEpoch;
        return master.leader;
    }

    /**
     * The leader of the epoch, if any: the Sentinel with the most votes, provided it has a
     * majority of all the Sentinels known and at least the quorum. This Sentinel votes too, for
     * the most voted one or else for itself.
     */
    String leader(SentinelInstance master, long epoch) {
        Map<String, Integer> counters = new HashMap<>();
        int voters = master.sentinels.size() + 1;
        for (SentinelInstance ri : master.sentinels.values()) {
            if (ri.leader != null && ri.leaderEpoch == sentinel.currentEpoch) counters.merge(ri.leader, 1, Integer::sum);
        }
        String winner = null;
        int maxVotes = 0;
        for (Map.Entry<String, Integer> e : counters.entrySet()) {
            if (e.getValue() > maxVotes) {
                maxVotes = e.getValue();
                winner = e.getKey();
            }
        }
        long[] leaderEpoch = new long[1];
        String myVote = voteLeader(master, epoch, winner != null ? winner : sentinel.myId, leaderEpoch);
        if (myVote != null && leaderEpoch[0] == epoch) {
            int votes = counters.merge(myVote, 1, Integer::sum);
            if (votes > maxVotes) {
                maxVotes = votes;
                winner = myVote;
            }
        }
        int votersQuorum = voters / 2 + 1;
        if (winner != null && (maxVotes < votersQuorum || maxVotes < master.quorum)) winner = null;
        return winner;
    }

    // ---- starting -------------------------------------------------------------------------------

    void start(SentinelInstance master) {
        master.failoverState = SentinelInstance.FailoverState.WAIT_START;
        master.flags |= SentinelInstance.FAILOVER_IN_PROGRESS;
        master.failoverEpoch = ++sentinel.currentEpoch;
        sentinel.event(Log.WARNING, "+new-epoch", master, Long.toUnsignedString(sentinel.currentEpoch));
        sentinel.event(Log.WARNING, "+try-failover", master, "%@");
        master.failoverStartTime = Sentinel.now() + ThreadLocalRandom.current().nextInt(Sentinel.MAX_DESYNC);
        master.failoverStateChangeTime = Sentinel.now();
    }

    /** Starts a failover of an ODOWN master unless one runs, or one began less than twice failover-timeout ago. */
    boolean startIfNeeded(SentinelInstance master) {
        if (!master.is(SentinelInstance.O_DOWN)) return false;
        if (master.is(SentinelInstance.FAILOVER_IN_PROGRESS)) return false;
        if (Sentinel.now() - master.failoverStartTime < master.failoverTimeout * 2) {
            if (master.failoverDelayLogged != master.failoverStartTime) {
                master.failoverDelayLogged = master.failoverStartTime;
                // as C's ctime: "Mon Dec  7 14:52:37 2026"
                String when = CTIME.format(java.time.Instant.ofEpochMilli(master.failoverStartTime
                        + master.failoverTimeout * 2).atZone(java.time.ZoneId.systemDefault()));
                sentinel.log.warning("Next failover delay: I will not start a failover before " + when);
            }
            return false;
        }
        start(master);
        return true;
    }

    /**
     * The replica to promote: reachable, recently seen, priority not 0, not disconnected from the
     * master for too long; the best by lowest priority, then largest replication offset, then
     * smallest run id.
     */
    SentinelInstance selectReplica(SentinelInstance master) {
        long now = Sentinel.now();
        long maxMasterDownTime = 0;
        if (master.is(SentinelInstance.S_DOWN)) maxMasterDownTime += now - master.sDownSince;
        maxMasterDownTime += master.downAfter * 10;
        List<SentinelInstance> candidates = new ArrayList<>();
        for (SentinelInstance slave : master.slaves.values()) {
            if (slave.is(SentinelInstance.S_DOWN | SentinelInstance.O_DOWN)) continue;
            if (slave.link.disconnected) continue;
            if (now - slave.link.lastAvailable > sentinel.timing.pingPeriod * 5) continue;
            if (slave.slavePriority == 0) continue;
            long infoValidity = master.is(SentinelInstance.S_DOWN) ? sentinel.timing.pingPeriod * 5
                    : sentinel.timing.infoPeriod * 3;
            if (now - slave.infoRefresh > infoValidity) continue;
            if (slave.masterLinkDownTime > maxMasterDownTime) continue;
            candidates.add(slave);
        }
        candidates.sort(SentinelFailover::compareForPromotion);
        return candidates.isEmpty() ? null : candidates.get(0);
    }

    private static int compareForPromotion(SentinelInstance a, SentinelInstance b) {
        if (a.slavePriority != b.slavePriority) return Integer.compare(a.slavePriority, b.slavePriority);
        if (a.slaveReplOffset != b.slaveReplOffset) return Long.compareUnsigned(b.slaveReplOffset, a.slaveReplOffset);
        if (a.runId == null && b.runId == null) return 0;
        if (a.runId == null) return 1;
        if (b.runId == null) return -1;
        return a.runId.compareToIgnoreCase(b.runId);
    }

    // ---- the state machine ----------------------------------------------------------------------

    void stateMachine(SentinelInstance master) {
        if (!master.is(SentinelInstance.FAILOVER_IN_PROGRESS)) return;
        switch (master.failoverState) {
            case WAIT_START -> waitStart(master);
            case SELECT_SLAVE -> selectSlave(master);
            case SEND_SLAVEOF_NOONE -> sendReplicaOfNoOne(master);
            case WAIT_PROMOTION -> waitPromotion(master);
            case RECONF_SLAVES -> reconfigureNextReplicas(master);
            default -> { }
        }
    }

    private void waitStart(SentinelInstance master) {
        String leader = leader(master, master.failoverEpoch);
        boolean isLeader = leader != null && leader.equalsIgnoreCase(sentinel.myId);
        if (!isLeader && !master.is(SentinelInstance.FORCE_FAILOVER)) {
            long electionTimeout = Math.min(sentinel.timing.electionTimeout, master.failoverTimeout);
            if (Sentinel.now() - master.failoverStartTime > electionTimeout) {
                sentinel.event(Log.WARNING, "-failover-abort-not-elected", master, "%@");
                abort(master);
            }
            return;
        }
        sentinel.event(Log.WARNING, "+elected-leader", master, "%@");
        if ((sentinel.simulateFailureFlags & Sentinel.SIMFAILURE_CRASH_AFTER_ELECTION) != 0) sentinel.crash();
        master.failoverState = SentinelInstance.FailoverState.SELECT_SLAVE;
        master.failoverStateChangeTime = Sentinel.now();
        sentinel.event(Log.WARNING, "+failover-state-select-slave", master, "%@");
    }

    private void selectSlave(SentinelInstance master) {
        SentinelInstance slave = selectReplica(master);
        if (slave == null) {
            sentinel.event(Log.WARNING, "-failover-abort-no-good-slave", master, "%@");
            abort(master);
            return;
        }
        sentinel.event(Log.WARNING, "+selected-slave", slave, "%@");
        slave.flags |= SentinelInstance.PROMOTED;
        master.promotedSlave = slave;
        master.failoverState = SentinelInstance.FailoverState.SEND_SLAVEOF_NOONE;
        master.failoverStateChangeTime = Sentinel.now();
        sentinel.event(Log.NOTICE, "+failover-state-send-slaveof-noone", slave, "%@");
    }

    private void sendReplicaOfNoOne(SentinelInstance master) {
        if (master.promotedSlave.link.disconnected) {
            if (Sentinel.now() - master.failoverStateChangeTime > master.failoverTimeout) {
                sentinel.event(Log.WARNING, "-failover-abort-slave-timeout", master, "%@");
                abort(master);
            }
            return;
        }
        if (!sendReplicaOf(master.promotedSlave, null)) return;
        sentinel.event(Log.NOTICE, "+failover-state-wait-promotion", master.promotedSlave, "%@");
        master.failoverState = SentinelInstance.FailoverState.WAIT_PROMOTION;
        master.failoverStateChangeTime = Sentinel.now();
    }

    /** The promotion shows in the replica's INFO ({@link SentinelInfo}); here only its timeout. */
    private void waitPromotion(SentinelInstance master) {
        if (Sentinel.now() - master.failoverStateChangeTime > master.failoverTimeout) {
            sentinel.event(Log.WARNING, "-failover-abort-slave-timeout", master, "%@");
            abort(master);
        }
    }

    private void reconfigureNextReplicas(SentinelInstance master) {
        int inProgress = 0;
        for (SentinelInstance s : master.slaves.values()) {
            if (s.is(SentinelInstance.RECONF_SENT | SentinelInstance.RECONF_INPROG)) inProgress++;
        }
        for (SentinelInstance slave : master.slaves.values()) {
            if (inProgress >= master.parallelSyncs) break;
            if (slave.is(SentinelInstance.PROMOTED | SentinelInstance.RECONF_DONE)) continue;
            // a replica that does not move on in time counts as done: it is fixed later
            if (slave.is(SentinelInstance.RECONF_SENT)
                    && Sentinel.now() - slave.slaveReconfSentTime > sentinel.timing.slaveReconfTimeout) {
                sentinel.event(Log.NOTICE, "-slave-reconf-sent-timeout", slave, "%@");
                slave.flags &= ~SentinelInstance.RECONF_SENT;
                slave.flags |= SentinelInstance.RECONF_DONE;
            }
            if (slave.is(SentinelInstance.RECONF_SENT | SentinelInstance.RECONF_INPROG)) continue;
            if (slave.link.disconnected) continue;
            if (sendReplicaOf(slave, master.promotedSlave.addr)) {
                slave.flags |= SentinelInstance.RECONF_SENT;
                slave.slaveReconfSentTime = Sentinel.now();
                sentinel.event(Log.NOTICE, "+slave-reconf-sent", slave, "%@");
                inProgress++;
            }
        }
        detectEnd(master);
    }

    private void detectEnd(SentinelInstance master) {
        if (master.promotedSlave == null || master.promotedSlave.is(SentinelInstance.S_DOWN)) return;
        int notReconfigured = 0;
        for (SentinelInstance s : master.slaves.values()) {
            if (s.is(SentinelInstance.PROMOTED | SentinelInstance.RECONF_DONE)) continue;
            if (s.is(SentinelInstance.S_DOWN)) continue;
            notReconfigured++;
        }
        boolean timeout = false;
        if (Sentinel.now() - master.failoverStateChangeTime > master.failoverTimeout) {
            notReconfigured = 0;
            timeout = true;
            sentinel.event(Log.WARNING, "+failover-end-for-timeout", master, "%@");
        }
        if (notReconfigured == 0) {
            sentinel.event(Log.WARNING, "+failover-end", master, "%@");
            master.failoverState = SentinelInstance.FailoverState.UPDATE_CONFIG;
            master.failoverStateChangeTime = Sentinel.now();
        }
        if (timeout) {
            // best effort: point the replicas still not done at the new master
            for (SentinelInstance s : master.slaves.values()) {
                if (s.is(SentinelInstance.PROMOTED | SentinelInstance.RECONF_DONE | SentinelInstance.RECONF_SENT)) continue;
                if (s.link.disconnected) continue;
                if (sendReplicaOf(s, master.promotedSlave.addr)) {
                    sentinel.event(Log.NOTICE, "+slave-reconf-sent-be", s, "%@");
                    s.flags |= SentinelInstance.RECONF_SENT;
                }
            }
        }
    }

    /** The failover ended: the master is now the promoted replica (or stays, without one). */
    void switchToPromotedSlave(SentinelInstance master) {
        SentinelInstance ref = master.promotedSlave != null ? master.promotedSlave : master;
        sentinel.event(Log.WARNING, "+switch-master", master, master.name + " "
                + master.addr.announced(sentinel.announceHostnames) + " " + master.addr.port() + " "
                + ref.addr.announced(sentinel.announceHostnames) + " " + ref.addr.port());
        sentinel.resetMasterAndChangeAddress(master, ref.addr.hostname(), ref.addr.port());
    }

    void abort(SentinelInstance master) {
        master.flags &= ~(SentinelInstance.FAILOVER_IN_PROGRESS | SentinelInstance.FORCE_FAILOVER);
        master.failoverState = SentinelInstance.FailoverState.NONE;
        master.failoverStateChangeTime = Sentinel.now();
        if (master.promotedSlave != null) {
            master.promotedSlave.flags &= ~SentinelInstance.PROMOTED;
            master.promotedSlave = null;
        }
    }

    /**
     * Points an instance at a master (null: REPLICAOF NO ONE) the way Redis's Sentinel does, in a
     * transaction that also rewrites the instance's configuration file and disconnects its normal
     * and pub/sub clients, so that they ask a Sentinel again where the master is. The replies are
     * not looked at: the next INFO shows the effect.
     */
    boolean sendReplicaOf(SentinelInstance ri, SentinelAddr addr) {
        String host = addr == null ? "NO" : addr.announced(sentinel.announceHostnames);
        String port = addr == null ? "ONE" : Integer.toString(addr.port());
        if (!sentinel.send(ri, null, ri.command("MULTI"))) return false;
        sentinel.send(ri, null, ri.command("SLAVEOF"), host, port);
        sentinel.send(ri, null, ri.command("CONFIG"), "REWRITE");
        sentinel.send(ri, null, ri.command("CLIENT"), "KILL", "TYPE", "normal");
        sentinel.send(ri, null, ri.command("CLIENT"), "KILL", "TYPE", "pubsub");
        sentinel.send(ri, null, ri.command("EXEC"));
        return true;
    }
}
