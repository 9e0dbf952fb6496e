package io.spinel.core.sentinel;

/**
 * The connections to one monitored instance and what failure detection measures on them (Redis's
 * instanceLink): a command connection for PING, INFO, PUBLISH and the failover's commands, and
 * for masters and replicas a pub/sub connection subscribed to the hello channel. Times are in
 * milliseconds. The instances of one Sentinel known under several masters share one link (see
 * {@link Sentinel#shareConnection}).
 */
final class InstanceLink {
    /** How many instances use this link (several for a Sentinel known under several masters). */
    int refcount = 1;
    RespConnection commands;
    RespConnection pubsub;
    /** Either connection is missing: the timer reconnects it. */
    boolean disconnected = true;
    int pendingCommands;
    long commandsConnectedAt;
    long pubsubConnectedAt;
    long pubsubLastActivity;
    /** Last time the instance answered PING acceptably. */
    long lastAvailable;
    /** When the oldest unanswered PING was sent; 0 once answered. */
    long activePingSent;
    long lastPingSent;
    /** Last time the instance answered PING, whatever the answer. */
    long lastPong;
    long lastReconnectAttempt;

    InstanceLink(long now) {
        lastAvailable = now;
        activePingSent = 0;
        lastPong = now;
    }

    /** Closes one of the two connections (Redis's instanceLinkCloseConnection): the timer reconnects it. */
    void close(RespConnection c) {
        if (c == null) return;
        c.close();
        if (c == commands) {
            commands = null;
            pendingCommands = 0;
            disconnected = true;
        }
        if (c == pubsub) {
            pubsub = null;
            disconnected = true;
        }
    }

    void closeAll() {
        close(commands);
        close(pubsub);
    }
}
