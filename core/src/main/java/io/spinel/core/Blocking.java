package io.spinel.core;

import io.spinel.core.command.Command;
import io.spinel.core.keyspace.Db;
import io.spinel.core.keyspace.Entries;
import io.spinel.core.protocol.Reply;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Clients blocked on keys (Redis's blocked.c): BLPOP, BLMOVE, BZPOPMIN and friends. A blocked client
 * stops reading further commands; a write to one of its keys marks the key ready, and once the
 * writing command (or MULTI/EXEC, or script) has finished, the clients waiting on that key are
 * served in the order they blocked by running their command again. A client whose command would
 * still block keeps its place. Timeouts fire from the event loop at the deadline.
 */
final class Blocking {
    /** A key of a database: the unit clients wait on. */
    static final class KeyRef {
        // Final in spirit: only a probe (see point) ever changes, and a probe is never stored. For
        // every stored ref, key is the whole key.
        int db;
        byte[] key;
        private int off;
        private int len;
        private int hash;

        KeyRef(int db, byte[] key) {
            point(db, key, 0, key.length);
        }

        /**
         * Makes this ref a lookup key for a slice (of the query buffer, say), so that a write can
         * ask "is anyone waiting on / watching this key?" without copying the key. Only for a
         * probe owned by the executor thread that is {@link #release released} after the lookup.
         */
        KeyRef point(int db, byte[] k, int off, int len) {
            this.db = db;
            this.key = k;
            this.off = off;
            this.len = len;
            int h = 1; // as Arrays.hashCode over the slice
            for (int i = off, end = off + len; i < end; i++) h = 31 * h + k[i];
            this.hash = 31 * db + h;
            return this;
        }

        /** Drops a probe's reference to the buffer it pointed into. */
        void release() {
            key = null;
        }

        /** A ref with its own copy of the key, fit to be stored. */
        KeyRef copy() {
            return new KeyRef(db, Arrays.copyOfRange(key, off, off + len));
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof KeyRef)) return false;
            KeyRef r = (KeyRef) o;
            return r.db == db && Arrays.equals(r.key, r.off, r.off + r.len, key, off, off + len);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    /** What a blocked client waits for. */
    static final class Waiter {
        final Client client;
        final Command command;
        final byte[][] argv;
        final int valueType;
        final List<KeyRef> keys;
        final Consumer<Reply> onTimeout;
        /** XREADGROUP: answers when a key it waits on is deleted or no longer of valueType; null otherwise. */
        final Consumer<Reply> onKeyGone;
        ScheduledFuture<?> timer;

        Waiter(Client client, Command command, byte[][] argv, int valueType, List<KeyRef> keys,
               Consumer<Reply> onTimeout, Consumer<Reply> onKeyGone) {
            this.client = client;
            this.command = command;
            this.argv = argv;
            this.valueType = valueType;
            this.keys = keys;
            this.onTimeout = onTimeout;
            this.onKeyGone = onKeyGone;
        }
    }

    private final Engine engine;
    private final Map<KeyRef, ArrayDeque<Waiter>> byKey = new HashMap<>();
    private final LinkedHashSet<KeyRef> ready = new LinkedHashSet<>();
    private int blockedClients;
    /** Set while a waiter's command runs again; block() then only notes that it still waits. */
    private Waiter retrying;
    private boolean retryBlockedAgain;

    Blocking(Engine engine) {
        this.engine = engine;
    }

    /** Blocked clients with a timeout (INFO clients_in_timeout_table, Redis's timeout table). */
    private int clientsWithTimeout;

    int clientsWithTimeout() {
        return clientsWithTimeout;
    }

    int blockedClients() {
        return blockedClients;
    }

    boolean hasReady() {
        return !ready.isEmpty();
    }

    /**
     * Blocks the client running {@code command} on the keys, until one of them holds a value of
     * {@code valueType} or the deadline (absolute ms, 0 = never) passes.
     */
    void block(Client c, int valueType, List<byte[]> keys, long deadlineMs, Consumer<Reply> onTimeout) {
        block(c, valueType, keys, deadlineMs, onTimeout, null, null);
    }

    /**
     * As above, with the arguments the command runs with again when served ({@code argv}, null:
     * as sent; XREAD replaces '$' by the ID it waits after) and, for XREADGROUP, the reply given
     * when a key is deleted or changes type while the client waits ({@code onKeyGone}).
     */
    void block(Client c, int valueType, List<byte[]> keys, long deadlineMs, Consumer<Reply> onTimeout,
               byte[][] argv, Consumer<Reply> onKeyGone) {
        c.blockedInCall = true;
        if (retrying != null && retrying.client == c) {
            retryBlockedAgain = true;
            return;
        }
        Command cmd = c.currentCommand;
        List<KeyRef> refs = new ArrayList<>(keys.size());
        for (byte[] k : keys) {
            KeyRef ref = new KeyRef(c.db.id(), k);
            if (refs.contains(ref)) continue;
            refs.add(ref);
        }
        Waiter w = new Waiter(c, cmd, argv != null ? argv : c.args.toArrays(), valueType, refs, onTimeout, onKeyGone);
        for (KeyRef ref : refs) byKey.computeIfAbsent(ref, k -> new ArrayDeque<>()).add(w);
        c.blocked = w;
        c.paused = true;
        blockedClients++;
        if (deadlineMs > 0) {
            long delay = Math.max(0, deadlineMs - engine.keyspace.clock().millis());
            w.timer = engine.loop().schedule(() -> timeout(w), delay, TimeUnit.MILLISECONDS);
            clientsWithTimeout++;
        }
    }

    /** A key was written: if anyone waits on it, serve them after the current command. */
    void keyTouched(Db db, byte[] k, int off, int len) {
        if (byKey.isEmpty()) return;
        // with any client blocked, every write comes here: look the key up in place, copy it only
        // when someone waits on it
        KeyRef ref = probe.point(db.id(), k, off, len);
        if (byKey.containsKey(ref) && !ready.contains(ref)) ready.add(ref.copy());
        ref.release();
    }

    /** The lookup key of {@link #keyTouched}, reused. */
    private final KeyRef probe = new KeyRef(0, new byte[0]);

    /** Every waited-on key of these databases may have changed (SWAPDB, FLUSHALL). */
    void databasesChanged(int a, int b) {
        for (KeyRef ref : byKey.keySet()) {
            if (ref.db == a || ref.db == b || a < 0) ready.add(ref);
        }
    }

    private boolean serving;

    /** Serves clients waiting on ready keys; runs until no key is left ready. */
    void serveReady() {
        if (serving) return;
        serving = true;
        try {
            serveReadyKeys();
        } finally {
            serving = false;
        }
    }

    private void serveReadyKeys() {
        while (!ready.isEmpty()) {
            KeyRef ref = ready.iterator().next();
            ready.remove(ref);
            ArrayDeque<Waiter> queue = byKey.get(ref);
            if (queue == null) continue;
            for (Waiter w : new ArrayList<>(queue)) {
                if (w.client.blocked != w) continue;
                Db db = engine.keyspace.db(ref.db);
                // as Redis's lookup there: a key whose TTL has passed is deleted now (DEL propagated)
                Object e = db.exists(ref.key, 0, ref.key.length) ? db.find(ref.key) : null;
                if (e == null || Entries.type(e) != w.valueType) {
                    if (w.onKeyGone != null) {
                        remove(w);
                        w.command.calls++;
                        w.command.failedCalls++;
                        w.onKeyGone.accept(w.client.reply);
                        resume(w.client);
                    }
                    continue;
                }
                retry(w, ref);
            }
        }
    }

    private void retry(Waiter w, KeyRef ref) {
        Client c = w.client;
        Db saved = c.db;
        c.db = engine.keyspace.db(w.keys.get(0).db);
        c.args.set(w.argv);
        retrying = w;
        retryKey = ref.key;
        retryBlockedAgain = false;
        try {
            engine.call(c, w.command);
        } finally {
            retrying = null;
            retryKey = null;
            c.db = saved;
        }
        if (!retryBlockedAgain) {
            remove(w);
            // served at last: the slow log and latency histogram see it now (not when it blocked)
            engine.commandUnblocked(c, w.command, engine.lastCallMicros);
            resume(c);
        }
    }

    /** Whether c's blocking command is running again because a key it waits on was written. */
    boolean isRetrying(Client c) {
        return retrying != null && retrying.client == c;
    }

    /** The key whose write runs c's blocking command again, null if it is not running again. */
    byte[] retryKey(Client c) {
        return isRetrying(c) ? retryKey : null;
    }

    /** The ready key being served (the key of {@link #retrying}'s run). */
    private byte[] retryKey;

    private void timeout(Waiter w) {
        if (w.client.blocked != w) return;
        remove(w);
        w.command.calls++;
        w.onTimeout.accept(w.client.reply);
        resume(w.client);
    }

    /** CLIENT UNBLOCK: returns false if the client was not blocked. */
    boolean unblock(Client c, boolean withError) {
        Waiter w = c.blocked;
        if (w == null) return false;
        remove(w);
        w.command.calls++;
        if (withError) {
            w.command.failedCalls++;
            c.error("UNBLOCKED client unblocked via CLIENT UNBLOCK");
        }
        else w.onTimeout.accept(c.reply);
        resume(c);
        return true;
    }

    /**
     * A master turned replica (Redis's disconnectAllBlockedClients): what its blocked clients wait
     * for would come from its master's stream now, so each gets an error and is closed after it.
     */
    void disconnectAll() {
        for (Client c : new ArrayList<>(engine.clients.values())) {
            Waiter w = c.blocked;
            if (w == null) continue;
            remove(w);
            c.error("UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)");
            c.closeAfterReply();
            resume(c);
        }
    }

    /**
     * Cluster mode (Redis's clusterRedirectBlockedClientIfNeeded, from the clients' cron): a
     * client blocked on a key whose slot this node no longer serves, or while the cluster is
     * down, gets the redirection or the error instead of waiting on.
     */
    void redirectIfNeeded(Client c, io.spinel.core.cluster.Cluster cluster) {
        Waiter w = c.blocked;
        if (w == null || w.keys.isEmpty()) return;
        KeyRef first = w.keys.get(0);
        byte[] key = Arrays.copyOfRange(first.key, first.off, first.off + first.len);
        String error = io.spinel.core.cluster.ClusterCommands.redirectBlocked(c, cluster, key,
                (w.command.flags & io.spinel.core.command.CommandFlags.WRITE) != 0);
        if (error == null) return;
        remove(w);
        w.command.calls++;
        w.command.failedCalls++;
        c.error(error);
        resume(c);
    }

    /** The client went away while blocked: forget it. */
    void disconnected(Client c) {
        if (c.blocked != null) remove(c.blocked);
    }

    private void remove(Waiter w) {
        for (KeyRef ref : w.keys) {
            ArrayDeque<Waiter> q = byKey.get(ref);
            if (q == null) continue;
            q.remove(w);
            if (q.isEmpty()) byKey.remove(ref);
        }
        if (w.timer != null) w.timer.cancel(false);
        if (w.client.blocked == w) {
            w.client.blocked = null;
            blockedClients--;
            if (w.timer != null) clientsWithTimeout--;
        }
    }

    /** The client's reply goes out and the commands it pipelined behind the blocking one run. */
    private void resume(Client c) {
        c.paused = false;
        c.markPendingWrite();
        if (c.reader().hasUnparsed()) engine.loop().execute(() -> {
            engine.processInput(c);
            engine.flushPending();
        });
        else engine.loop().execute(engine::flushPending);
    }
}
