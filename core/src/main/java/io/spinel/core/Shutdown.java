package io.spinel.core;

import java.util.ArrayList;
import java.util.List;

/**
 * The shutdown sequence of Redis 7.0 (server.c's prepareForShutdown, isReadyToShutdown,
 * finishShutdown, abortShutdown): unless NOW is given or shutdown-timeout is 0, a master whose
 * replicas have not acknowledged the whole stream first asks them where they are (REPLCONF
 * GETACK), holds writes, and waits up to shutdown-timeout seconds for them; the callers of
 * SHUTDOWN are blocked meanwhile (INFO blocked_clients, shutdown_in_milliseconds). Then the
 * lagging replicas are logged and the server's {@link Engine.ShutdownHandler} saves and stops;
 * if that fails, or SHUTDOWN ABORT comes, the server goes on and the blocked callers get
 * "Errors trying to SHUTDOWN. Check logs.".
 */
final class Shutdown {
    static final String ERROR = "ERR Errors trying to SHUTDOWN. Check logs.";

    private final Engine engine;
    /** When the wait for replicas ends, in unix ms; 0 while no shutdown is initiated (Redis's shutdown_mstime). */
    private volatile long deadline;
    private boolean save, nosave, force;
    /** SHUTDOWN's callers, blocked until the server stops (no reply) or the shutdown fails. */
    private final List<Client> callers = new ArrayList<>();

    Shutdown(Engine engine) {
        this.engine = engine;
    }

    /** Whether the server waits for its replicas before stopping (readable from a signal's thread). */
    boolean initiated() {
        return deadline != 0;
    }

    /** Milliseconds left of the wait (INFO shutdown_in_milliseconds), -1 when none is going on. */
    long remainingMillis() {
        long d = deadline;
        return d == 0 ? -1 : Math.max(0, d - System.currentTimeMillis());
    }

    /**
     * SHUTDOWN (caller: its client) or a signal (caller null): stops the server, or starts the
     * wait for replicas. Returns the error for the caller when the shutdown failed at once.
     */
    String request(boolean save, boolean nosave, boolean now, boolean force, Client caller) {
        // a Sentinel has no data set to save
        if (engine.sentinel() != null) {
            save = false;
            nosave = true;
        }
        if (initiated()) { // one more caller waits for the same end
            if (caller != null) block(caller);
            return null;
        }
        Engine.ShutdownHandler handler = engine.shutdownHandler();
        engine.log().warning("User requested shutdown...");
        this.save = save;
        this.nosave = nosave;
        this.force = force;
        long timeout = engine.config().getLong("shutdown-timeout");
        if (!now && timeout != 0 && !engine.loading() && !engine.replication.replicasCaughtUp()) {
            deadline = System.currentTimeMillis() + timeout * 1000;
            if (!engine.pause.active()) engine.replication.askForAcks();
            engine.pause.shutdownPause(true);
            engine.log().notice("Waiting for replicas before shutting down.");
            if (caller != null) block(caller);
            return null;
        }
        engine.replication.logShutdownLag();
        String err = handler.shutdown(save, nosave, now, force);
        if (err != null) cancel();
        return err;
    }

    /**
     * A signal asked for a shutdown (Redis's shutdown_asap): the next cron tick starts it, with
     * shutdown-on-sigterm's or shutdown-on-sigint's flags; until then SHUTDOWN ABORT (or DEBUG
     * PAUSE-CRON holding the cron) keeps the server running. Set from the signal's thread.
     */
    private volatile String signalled;

    /** A signal's handler: the shutdown is for the cron to start. */
    void bySignal(String name) {
        signalled = name;
    }

    /** Whether a signal's shutdown is asked for or under way (a second SIGINT then exits at once). */
    boolean signalled() {
        return signalled != null;
    }

    /** Every cron tick: a signal's shutdown starts; once the replicas caught up or the time is up, the shutdown finishes. */
    void cron() {
        String sig = signalled;
        if (sig != null && !initiated()) {
            String[] flags = engine.config().get(sig.equals("SIGINT") ? "shutdown-on-sigint" : "shutdown-on-sigterm").split(" ");
            List<String> f = List.of(flags);
            // stops the process, starts the wait for replicas, or fails (logged) and the server goes on
            if (request(f.contains("save"), f.contains("nosave"), f.contains("now"), f.contains("force"), null) != null) {
                signalled = null;
            }
            return;
        }
        if (!initiated()) return;
        if (System.currentTimeMillis() < deadline && !engine.replication.replicasCaughtUp()) return;
        engine.replication.logShutdownLag();
        if (engine.shutdownHandler().shutdown(save, nosave, true, force) != null) cancel();
    }

    /** SHUTDOWN ABORT: false when no shutdown is going on or asked for. */
    boolean abort() {
        if (initiated()) cancel();
        else if (signalled != null) signalled = null;
        else return false;
        engine.log().notice("Shutdown manually aborted.");
        return true;
    }

    /** The server goes on: writes flow again, the callers get the error (Redis's cancelShutdown). */
    private void cancel() {
        deadline = 0;
        signalled = null;
        save = nosave = force = false;
        engine.pause.shutdownPause(false);
        for (Client c : callers) engine.blocking.unblock(c, false);
        callers.clear();
    }

    private void block(Client c) {
        callers.add(c);
        engine.blocking.block(c, -1, List.of(), 0, r -> r.error(ERROR));
    }

    /** A caller went away while it waited. */
    void disconnected(Client c) {
        callers.remove(c);
    }
}
