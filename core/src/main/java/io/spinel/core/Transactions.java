package io.spinel.core;

import io.spinel.core.acl.Acl;
import io.spinel.core.command.Command;
import io.spinel.core.command.CommandError;
import io.spinel.core.command.CommandHandler;
import io.spinel.core.keyspace.Db;
import io.spinel.core.protocol.Args;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * MULTI/EXEC/DISCARD and WATCH (Redis's multi.c). Commands sent after MULTI are checked (unknown
 * command, arity, auth: any rejection poisons the transaction into EXECABORT) and queued; EXEC runs
 * them back to back with the clock frozen and blocking turned off, unless a WATCHed key changed,
 * in which case EXEC answers nil. Runtime errors inside EXEC do not roll anything back.
 */
final class Transactions {
    /** A client's open transaction. */
    static final class State {
        final List<Command> commands = new ArrayList<>();
        final List<byte[][]> argvs = new ArrayList<>();
        /** A command was rejected while queuing: EXEC must abort. */
        boolean dirtyExec;
        /**
         * The queued arguments' bytes and a pointer's 8 bytes per argument (Redis's
         * mstate.argv_len_sums): CLIENT LIST's multi-mem.
         */
        long argvBytes;
        /**
         * The queued commands' flags OR-ed together, and their complements (Redis's cmd_flags and
         * cmd_inv_flags): what EXEC is checked as, a script's declared flags included.
         */
        int queuedFlags;
        int queuedInvFlags;
        /** A queued command may write or replicate (Redis's mstate.cmd_flags): a WRITE pause holds the EXEC. */
        boolean mayReplicate;

        /**
         * What the queue costs (Redis's multiStateMemOverhead less the watched keys): its
         * arguments, and a 24-byte slot per queued command in an array grown by doubling from 2.
         */
        long memory() {
            int n = commands.size();
            int slots = n == 0 ? 0 : Math.max(2, Integer.highestOneBit(n - 1) << 1);
            return argvBytes + slots * 24L;
        }
    }

    /** A watched key's cost to its client as Redis counts it: a list node and a watchedKey (24 + 32 bytes). */
    static long watchedMemory(Client c) {
        return c.watching.size() * 56L;
    }

    /** One key a client watches. */
    static final class Watched {
        final Client client;
        final Blocking.KeyRef ref;
        /** The key was already logically expired when watched (its deletion then is no change). */
        boolean expired;

        Watched(Client client, Blocking.KeyRef ref, boolean expired) {
            this.client = client;
            this.ref = ref;
            this.expired = expired;
        }
    }

    private final Engine engine;
    private final Map<Blocking.KeyRef, List<Watched>> watchers = new HashMap<>();

    Transactions(Engine engine) {
        this.engine = engine;
    }

    /** The handler of each command CommandFamilies registers for this family, made when it first runs. */
    public static CommandHandler handler(String name) {
        return switch (name) {
            case "multi" -> Transactions::multi;
            case "exec" -> c -> c.engine.transactions.exec(c);
            case "discard" -> Transactions::discard;
            case "watch" -> c -> c.engine.transactions.watch(c);
            case "unwatch" -> c -> {
                c.engine.transactions.unwatchAll(c);
                c.dirtyCas = false;
                c.reply().ok();
            };
            default -> null;
        };
    }

    /** Commands that run at once even inside MULTI. */
    static boolean runsImmediately(Command cmd) {
        switch (cmd.name) {
            case "exec":
            case "discard":
            case "multi":
            case "watch":
            case "quit":
            case "reset":
                return true;
            default:
                return false;
        }
    }

    static void multi(Client c) {
        if (c.multi != null) throw CommandError.err("MULTI calls can not be nested");
        c.multi = new State();
        c.reply().ok();
    }

    static void discard(Client c) {
        if (c.multi == null) throw CommandError.err("DISCARD without MULTI");
        c.engine.transactions.discardTransaction(c);
        c.reply().ok();
    }

    /** Queues the command being processed; its arguments are copied out of the query buffer. */
    void queue(Client c, Command cmd) {
        State s = c.multi;
        if (!s.dirtyExec && !c.dirtyCas) {
            Args a = c.args();
            s.commands.add(cmd);
            s.argvs.add(a.toArrays());
            s.argvBytes += a.totalLength() + 8L * a.count();
            int flags = cmd.flags(c);
            s.queuedFlags |= flags;
            s.queuedInvFlags |= ~flags;
            if (!s.mayReplicate) s.mayReplicate = ClientPause.mayReplicate(c, cmd);
        }
        c.reply().status("QUEUED");
    }

    void discardTransaction(Client c) {
        c.multi = null;
        c.dirtyCas = false;
        unwatchAll(c);
    }

    void exec(Client c) {
        State s = c.multi;
        if (s == null) throw CommandError.err("EXEC without MULTI");
        if (watchedKeyExpired(c)) c.dirtyCas = true;
        if (s.dirtyExec) {
            discardTransaction(c);
            throw new CommandError("EXECABORT Transaction discarded because of previous errors.");
        }
        if (c.dirtyCas) {
            discardTransaction(c);
            c.reply().nullArray();
            return;
        }
        unwatchAll(c);
        c.multi = null;
        boolean wasDenied = c.denyBlocking;
        c.denyBlocking = true;
        c.inExec = true;
        engine.keyspace.freezeTime(true);
        byte[][] execArgv = c.args.toArrays();
        try {
            c.reply().arrayHeader(s.commands.size());
            for (int i = 0; i < s.commands.size(); i++) {
                c.args.set(s.argvs.get(i));
                Command cmd = s.commands.get(i);
                // permissions are checked again: they may have changed since the command was queued
                int denied = c.user.unrestricted() ? Acl.OK : engine.aclCheck(c, c.user, cmd, c.args, "multi");
                if (denied != Acl.OK) {
                    c.error("NOPERM ACLs rules changed between the moment the transaction was accumulated and the "
                            + "EXEC call. This command is no longer allowed for the following reason: " + switch (denied) {
                                case Acl.DENIED_CMD -> "no permission to execute the command or subcommand";
                                case Acl.DENIED_KEY -> "no permission to touch the specified keys";
                                default -> "no permission to access one of the channels used as arguments";
                            });
                    continue;
                }
                engine.call(c, cmd);
            }
        } finally {
            engine.keyspace.freezeTime(false);
            c.denyBlocking = wasDenied;
            c.inExec = false;
            c.args.set(execArgv);
        }
    }

    // ---- WATCH ---------------------------------------------------------------------------------

    void watch(Client c) {
        if (c.multi != null) throw CommandError.err("WATCH inside MULTI is not allowed");
        if (!c.dirtyCas) {
            Args a = c.args();
            for (int j = 1; j < a.count(); j++) {
                Blocking.KeyRef ref = new Blocking.KeyRef(c.db.id(), a.copy(j));
                if (c.watching.stream().anyMatch(w -> w.ref.equals(ref))) continue;
                Object e = c.db.find(ref.key);
                Watched w = new Watched(c, ref, e != null && c.db.isExpired(e));
                c.watching.add(w);
                watchers.computeIfAbsent(ref, k -> new ArrayList<>()).add(w);
            }
        }
        c.reply().ok();
    }

    void unwatchAll(Client c) {
        if (c.watching.isEmpty()) return;
        for (Watched w : c.watching) {
            List<Watched> list = watchers.get(w.ref);
            if (list == null) continue;
            list.remove(w);
            if (list.isEmpty()) watchers.remove(w.ref);
        }
        c.watching.clear();
    }

    /** The lookup key of {@link #keyTouched}, reused. */
    private final Blocking.KeyRef probe = new Blocking.KeyRef(0, new byte[0]);

    /** A key changed: every client watching it has its transaction fail. */
    void keyTouched(Db db, byte[] k, int off, int len) {
        if (watchers.isEmpty()) return;
        // with any key watched, every write comes here: look the key up in place, no copy
        List<Watched> list = watchers.get(probe.point(db.id(), k, off, len));
        probe.release();
        if (list == null) return;
        for (Watched w : new ArrayList<>(list)) {
            if (w.expired) {
                // the key was already expired when watched: its deletion is not a change
                if (db.find(k, off, len) == null) {
                    w.expired = false;
                    continue;
                }
            }
            w.client.dirtyCas = true;
            unwatchAll(w.client);
        }
    }

    /** FLUSHDB/FLUSHALL (emptied) or SWAPDB (contents replaced): watched keys that existed change. */
    void databaseReplaced(Db emptied, Db replacedWith) {
        if (watchers.isEmpty()) return;
        for (Iterator<Map.Entry<Blocking.KeyRef, List<Watched>>> it = watchers.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Blocking.KeyRef, List<Watched>> en = it.next();
            Blocking.KeyRef ref = en.getKey();
            if (ref.db != emptied.id()) continue;
            boolean existed = emptied.find(ref.key) != null;
            Object replacement = replacedWith == null ? null : replacedWith.find(ref.key);
            if (!existed && replacement == null) continue;
            // a key whose TTL has passed is no key, logically (Redis's touchAllWatchedKeysInDb)
            boolean expiredNow = replacement != null && replacedWith.isExpired(replacement);
            for (Watched w : en.getValue()) {
                if (w.expired) {
                    if (replacement == null) {
                        w.expired = false; // an expired key now deleted: no change
                        continue;
                    }
                    if (expiredNow) continue; // expired before, expired still
                } else if (!existed && expiredNow) {
                    w.expired = true; // no key replaced with an expired one: no change
                    continue;
                }
                w.client.dirtyCas = true;
            }
        }
    }

    private boolean watchedKeyExpired(Client c) {
        for (Watched w : c.watching) {
            if (w.expired) continue;
            Db db = engine.keyspace.db(w.ref.db);
            Object e = db.find(w.ref.key);
            if (e != null && db.isExpired(e)) return true;
        }
        return false;
    }

    /** Client going away or RESET. */
    void clientGone(Client c) {
        c.multi = null;
        c.dirtyCas = false;
        unwatchAll(c);
    }

    int watchedKeyCount() {
        return watchers.size();
    }
}
