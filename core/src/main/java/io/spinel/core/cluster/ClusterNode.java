package io.spinel.core.cluster;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One node of the cluster as this node knows it (Redis's clusterNode): its name, address, role,
 * the slots it claims, its configuration epoch, and what the failure detector knows of it. Only
 * the engine's thread touches it.
 */
final class ClusterNode {
    // flags: the bits the bus carries (so a gossip entry's flags are these)
    static final int MASTER = ClusterMessage.NODE_MASTER;
    static final int REPLICA = ClusterMessage.NODE_SLAVE;
    static final int PFAIL = ClusterMessage.NODE_PFAIL;
    static final int FAIL = ClusterMessage.NODE_FAIL;
    static final int MYSELF = ClusterMessage.NODE_MYSELF;
    static final int HANDSHAKE = ClusterMessage.NODE_HANDSHAKE;
    static final int NOADDR = ClusterMessage.NODE_NOADDR;
    static final int MEET = ClusterMessage.NODE_MEET;
    static final int MIGRATE_TO = ClusterMessage.NODE_MIGRATE_TO;
    static final int NOFAILOVER = ClusterMessage.NODE_NOFAILOVER;

    static final int NAME_LENGTH = ClusterMessage.NAME_LENGTH;

    String name;
    final long ctime;
    int flags;
    long configEpoch;
    final byte[] slots = new byte[KeySlot.SLOTS / 8];
    int numSlots;
    final List<ClusterNode> replicas = new ArrayList<>();
    /** The master it replicates (null for a master, or a replica whose master this node does not know). */
    ClusterNode replicaOf;
    /** The number of the last PING whose gossip section carried this node. */
    long lastInPingGossip;
    long pingSent;
    long pongReceived;
    long dataReceived;
    long failTime;
    long votedTime;
    long replOffsetTime;
    long orphanedTime;
    long replOffset;
    String ip = "";
    String hostname = "";
    int port;
    int cport;
    int pport;
    /** The connection this node opened to it, and the one it accepted from it. */
    BusLink link;
    BusLink inboundLink;
    /** Masters that said this node is failing, and when they last said so. */
    final Map<ClusterNode, Long> failReports = new LinkedHashMap<>();

    ClusterNode(String name, int flags, long now) {
        this.name = name;
        this.flags = flags;
        this.ctime = now;
    }

    boolean has(int flag) {
        return (flags & flag) != 0;
    }

    boolean isMaster() {
        return has(MASTER);
    }

    boolean isReplica() {
        return has(REPLICA);
    }

    boolean inHandshake() {
        return has(HANDSHAKE);
    }

    boolean hasAddress() {
        return !has(NOADDR);
    }

    boolean timedOut() {
        return has(PFAIL);
    }

    boolean failed() {
        return has(FAIL);
    }

    boolean ownsSlot(int slot) {
        return (slots[slot >> 3] & (1 << (slot & 7))) != 0;
    }

    /** Sets the slot's bit; returns whether it was set before. */
    boolean setSlot(int slot) {
        boolean old = ownsSlot(slot);
        if (!old) {
            slots[slot >> 3] |= (byte) (1 << (slot & 7));
            numSlots++;
        }
        return old;
    }

    boolean clearSlot(int slot) {
        boolean old = ownsSlot(slot);
        if (old) {
            slots[slot >> 3] &= (byte) ~(1 << (slot & 7));
            numSlots--;
        }
        return old;
    }

    void addReplica(ClusterNode r) {
        if (!replicas.contains(r)) replicas.add(r);
        flags |= MIGRATE_TO; // a master that has or had replicas
    }

    void removeReplica(ClusterNode r) {
        replicas.remove(r);
        if (replicas.isEmpty()) flags &= ~MIGRATE_TO;
    }

    int nonFailingReplicas() {
        int n = 0;
        for (ClusterNode r : replicas) if (!r.failed()) n++;
        return n;
    }

    @Override
    public String toString() {
        return name;
    }
}
