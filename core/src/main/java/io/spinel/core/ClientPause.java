package io.spinel.core;

import io.spinel.core.command.Command;
import io.spinel.core.command.CommandError;
import io.spinel.core.command.CommandFlags;
import io.spinel.core.command.CommandHandler;

import java.util.ArrayList;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * CLIENT PAUSE / CLIENT UNPAUSE (Redis's pauseClients in networking.c). While a pause is on,
 * the commands it covers are held, not refused: the client is postponed with its command, and
 * when the pause ends (UNPAUSE, or its deadline) the postponed clients run again in the order
 * they were held. A WRITE pause holds only commands that may change data or be propagated
 * (Redis's write and may-replicate flags, EVAL/FCALL unless the script says no-writes); an ALL
 * pause holds everything. The data set stays still meanwhile: nothing expires (actively or on
 * access) and nothing is evicted.
 */
final class ClientPause {
    static final int OFF = 0;
    static final int WRITE = 1;
    static final int ALL = 2;

    private final Engine engine;
    /** CLIENT PAUSE's pause (OFF, WRITE or ALL) and its end in unix ms. */
    private int type;
    private long end;
    /** FAILOVER holds writes until it ends, whatever CLIENT PAUSE/UNPAUSE do (Redis's PAUSE_DURING_FAILOVER). */
    private boolean failover;
    /** A shutdown waiting for replicas holds writes until it ends or fails (Redis's PAUSE_DURING_SHUTDOWN). */
    private boolean shutdown;
    private boolean scriptDebug;
    /** Held clients, in the order they were held. */
    private final ArrayList<Client> postponed = new ArrayList<>();
    private ScheduledFuture<?> timer;

    ClientPause(Engine engine) {
        this.engine = engine;
    }

    /** The handler of each command CommandFamilies registers for this family, made when it first runs. */
    public static CommandHandler handler(String name) {
        return switch (name) {
            case "client|pause" -> ClientPause::pauseCommand;
            case "client|unpause" -> c -> {
                c.engine.pause.unpause();
                c.reply().ok();
            };
            default -> null;
        };
    }

    private static void pauseCommand(Client c) {
        int type = ALL;
        if (c.argc() > 4) {
            throw CommandError.subcommandSyntax(c.args());
        }
        if (c.argc() == 4) {
            if (c.argIs(3, "write")) type = WRITE;
            else if (!c.argIs(3, "all")) throw CommandError.err("CLIENT PAUSE mode must be WRITE or ALL");
        }
        long ms = c.argLong(2, CommandError.err("timeout is not an integer or out of range"));
        if (ms < 0) throw CommandError.err("timeout is negative");
        // as in Redis, a timeout so large that the end time overflows wraps around into the past:
        // such a pause is over at once
        long end = ms == 0 ? 0 : ms + System.currentTimeMillis();
        c.engine.pause.pause(end, type);
        c.reply().ok();
    }

    /**
     * Starts a pause or extends the one in force: the end is the later of the two and the type
     * the stricter one, so a shorter or milder CLIENT PAUSE never cuts an ongoing pause short.
     */
    void pause(long until, int newType) {
        int old = effective();
        if (type == OFF) {
            type = newType;
            end = until;
        } else {
            type = Math.max(type, newType);
            end = Math.max(end, until);
        }
        refresh(old);
    }

    void unpause() {
        if (type == OFF) return;
        int old = effective();
        type = OFF;
        end = 0;
        refresh(old);
    }

    /** FAILOVER's own pause of writes: on while it waits for a replica and hands over, then off. */
    void failoverPause(boolean on) {
        if (failover == on) return;
        int old = effective();
        failover = on;
        refresh(old);
    }

    /** A shutdown's own pause of writes, while it waits for the replicas. */
    void shutdownPause(boolean on) {
        if (shutdown == on) return;
        int old = effective();
        shutdown = on;
        refresh(old);
    }

    /**
     * A synchronous Lua debugging session (SCRIPT DEBUG SYNC): Redis's server does nothing else
     * while its debugger waits for the user, so every other client's commands wait.
     */
    void scriptDebugPause(boolean on) {
        if (scriptDebug == on) return;
        int old = effective();
        scriptDebug = on;
        refresh(old);
    }

    /** The pause in force: CLIENT PAUSE's, or at least WRITE during a FAILOVER or a shutdown's wait. */
    private int effective() {
        if (scriptDebug) return ALL;
        return failover || shutdown ? Math.max(type, WRITE) : type;
    }

    /** Whether a pause is in force now; ends one whose time is up. */
    boolean active() {
        if (type != OFF && end < System.currentTimeMillis()) {
            int old = effective();
            type = OFF;
            refresh(old);
        }
        return effective() != OFF;
    }

    /** Applies the current state: the keyspace's expiry switch, the end timer, held clients. */
    private void refresh(int oldType) {
        if (type != OFF && end < System.currentTimeMillis()) type = OFF;
        engine.keyspace.setExpiryPaused(effective() != OFF);
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
        if (type != OFF) {
            long delay = Math.max(0, end - System.currentTimeMillis() + 1);
            timer = engine.loop().schedule(() -> {
                timer = null;
                if (!active()) engine.flushPending();
                else refresh(effective());
            }, delay, TimeUnit.MILLISECONDS);
        }
        // a pause that ended or became milder: every held client tries again (and may be held
        // again), once the running command is over
        if (effective() < oldType && (!postponed.isEmpty() || engine.replication.holdsMasterCommands()) && !releaseScheduled) {
            releaseScheduled = true;
            engine.loop().execute(this::releaseAll);
        }
    }

    private boolean releaseScheduled;

    /**
     * Whether the pause in force holds this command (Redis's processCommand: everything under
     * ALL; under WRITE, what may write or replicate, EXEC judged by what it queued).
     */
    boolean holds(Client c, Command cmd) {
        if (!active()) return false;
        if (effective() == ALL) return true;
        if (mayReplicate(c, cmd)) return true;
        return cmd.name.equals("exec") && c.multi != null && c.multi.mayReplicate;
    }

    /**
     * Redis's CMD_WRITE | CMD_MAY_REPLICATE for this call. MAY_REPLICATE (not a COMMAND INFO flag)
     * belongs to EVAL, EVALSHA, FCALL, PUBLISH, SPUBLISH and PFCOUNT; a script that declares its
     * flags says itself whether it writes, and then only that counts.
     */
    static boolean mayReplicate(Client c, Command cmd) {
        int flags = cmd.flags(c);
        if ((flags & CommandFlags.WRITE) != 0) return true;
        if (!staticallyMayReplicate(cmd)) return false;
        // a script with declared flags loses MAY_REPLICATE; its dynamic flags then differ from the
        // static ones (no-writes drops WRITE... and the static flags of EVAL/FCALL have no WRITE)
        if (cmd.name.startsWith("eval") || cmd.name.startsWith("fcall")) return flags == cmd.flags;
        return true;
    }

    private static boolean staticallyMayReplicate(Command cmd) {
        switch (cmd.name) {
            case "eval":
            case "evalsha":
            case "fcall":
            case "publish":
            case "spublish":
            case "pfcount":
                return true;
            default:
                return false;
        }
    }

    /**
     * Holds the client's current command until the pause ends: the arguments are kept (the query
     * buffer moves on) and the client reads nothing more meanwhile.
     */
    void postpone(Client c) {
        c.postponed = c.args.toArrays();
        c.paused = true;
        postponed.add(c);
    }

    int postponedCount() {
        return postponed.size();
    }

    /** The client went away while held: it leaves no trace. */
    void disconnected(Client c) {
        if (c.postponed != null) {
            postponed.remove(c);
            c.postponed = null;
        }
    }

    /** Runs every held client's command again, in the order they were held. */
    private void releaseAll() {
        releaseScheduled = false;
        engine.replication.pauseEnded(); // the master's stream first: it was held before any client
        if (postponed.isEmpty()) return;
        ArrayList<Client> list = new ArrayList<>(postponed);
        postponed.clear();
        for (Client c : list) {
            byte[][] argv = c.postponed;
            c.postponed = null;
            if (c.closed || argv == null) continue;
            c.paused = false;
            c.args.set(argv);
            engine.processCommand(c);
            engine.updateClientMemory(c);
            if (c.paused) continue; // held again, or blocked
            c.markPendingWrite();
            if (c.reader().hasUnparsed()) engine.processInput(c);
        }
        engine.flushPending();
    }
}
