package io.spinel.core;

import io.spinel.core.command.Command;
import io.spinel.core.command.CommandError;
import io.spinel.core.keyspace.Db;
import io.spinel.core.protocol.Args;
import io.spinel.core.protocol.Reply;
import io.spinel.core.protocol.RespReader;
import io.spinel.core.util.Bytes;
import io.spinel.core.util.Doubles;

/**
 * Per-connection state (Redis's client struct): the query buffer and current arguments, the reply
 * buffer, the selected database, protocol version, name, authentication and the flags commands
 * consult. Owned by the executor thread; the transport only feeds bytes in and drains replies out
 * through {@link Connection}.
 */
public final class Client {
    /** The transport side of a client, implemented by the network layer (or the embedded API). */
    public interface Connection extends Reply.Sink {
        /** Queues bytes for the peer (copied; the array is reused). */
        void write(byte[] buf, int off, int len);

        /** Pushes queued bytes to the peer. */
        void flush();

        /** Closes the connection once what was queued has been written. */
        void close();

        /** "ip:port" of the peer, or a path for unix sockets. */
        String remoteAddress();

        String localAddress();

        /** Whether the peer connected over a unix socket or from a loopback address (in-process: yes). */
        default boolean isLocal() {
            return true;
        }

        /** Whether this is a unix domain socket connection (CLIENT LIST flag U). */
        default boolean isUnixSocket() {
            return false;
        }

        /**
         * Whether the peer is on a socket without TLS (TCP or unix): in a TLS cluster such a
         * client is told the nodes' plain ports, as Redis tells a connection that is not of its
         * TLS type. TLS connections, and the server's own clients, which have no socket, say no.
         */
        default boolean isPlainSocket() {
            return false;
        }

        /** Bytes written to the connection but not yet sent to the peer (output buffer limits). */
        default long pendingBytes() {
            return 0;
        }

        /** A file-descriptor-like number for CLIENT LIST (fd=); -1 where there is no socket. */
        default int fd() {
            return -1;
        }

        /**
         * Closes the connection at once, dropping what was not sent yet (client eviction, output
         * buffer limits: waiting for a peer that does not read would keep its buffers forever).
         */
        default void closeNow() {
            close();
        }

        /** How many separate buffers {@link #pendingBytes()} is made of (CLIENT LIST oll). */
        default int pendingChunks() {
            return 0;
        }
    }

    /**
     * A connection to nothing, for the server's own clients (AOF replay, scripts): no peer, no
     * socket, nothing ever pending. Subclasses decide what happens to written bytes.
     */
    public abstract static class Unconnected implements Connection {
        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }

        @Override
        public String remoteAddress() {
            return "";
        }

        @Override
        public String localAddress() {
            return "";
        }
    }

    final long id;
    final Engine engine;
    final Connection connection;
    final Args args = new Args();
    final RespReader reader = new RespReader(args);
    final Reply reply = new Reply();

    Db db;
    String name;
    String libName;
    String libVersion;
    boolean authenticated;
    /** The ACL user the connection runs as (the default user until AUTH or HELLO names another). */
    io.spinel.core.acl.AclUser user;
    final long createdAt;
    long lastInteraction;
    Command lastCommand;
    Command currentCommand;

    // flags
    boolean closeAfterReply;
    boolean closed;
    boolean noEvict;
    boolean noTouch;
    /** CLIENT REPLY: 0 on, 1 off, 2 skip next. */
    int replyMode;
    boolean skipThisReply;
    boolean pendingWrite;
    /** The client must not run more input (blocked in BLPOP and the like). */
    boolean paused;
    /** What the client is blocked on, or null. */
    Blocking.Waiter blocked;
    /** Set when the running command blocked (or stayed blocked): it is counted once, when served. */
    boolean blockedInCall;
    /** The command held by CLIENT PAUSE until the pause ends, or null (see ClientPause). */
    byte[][] postponed;
    /** In MONITOR mode: receives every command others run (see Monitors). */
    boolean monitor;
    /** The replication offset right after the last of its commands that propagated anything (WAIT waits for it). */
    long replWriteOffset;
    /** Set once the client asked for the data set (SYNC/PSYNC): a replica of this server. */
    Replication.Replica replica;
    /** What REPLCONF told before PSYNC: the replica's port, address and psync2 capability. */
    int replicaListeningPort;
    String replicaAnnouncedIp;
    boolean replicaCapaPsync2;
    /** REPLCONF capa eof: it takes an RDB of unknown length, "$EOF:<mark>" ... mark (diskless synchronization). */
    boolean replicaCapaEof;
    /**
     * What a replica asked to leave out of its snapshot (REPLCONF rdb-filter-only, Redis's
     * slave_req): {@link Replication#EXCLUDE_DATA}, {@link Replication#EXCLUDE_FUNCTIONS}.
     */
    int replicaReq;
    /** REPLCONF rdb-only 1: a replica that wants the snapshot and nothing after it (redis-cli --rdb). */
    boolean replicaRdbOnly;
    /** Client-side caching settings, or null when tracking is off. */
    Tracking.State tracking;
    /** Pub/sub subscriptions, or null if the client never subscribed. */
    PubSub.Subscriptions subscriptions;
    /** Since when the output buffer has been over the soft limit (0: it is not). */
    long softLimitSince;
    /** Whether this client's memory is part of the engine's totals (connected clients, not internal ones). */
    boolean memTracked;
    /** The memory this client last added to the engine's totals (see Engine#updateClientMemory). */
    long memUsage;
    /** Whether {@link #memUsage} was added to the total of evictable clients too. */
    boolean memEvictable;
    /** Over its output buffer limit: being closed (Redis's CLIENT_CLOSE_ASAP). */
    boolean closeAsap;
    /** Running the commands of EXEC. */
    boolean inExec;
    /** The open MULTI transaction, or null. */
    Transactions.State multi;
    /** A WATCHed key changed: the next EXEC fails. */
    boolean dirtyCas;
    final java.util.List<Transactions.Watched> watching = new java.util.ArrayList<>(0);
    /** The reply's total bytes already added to INFO's total_net_output_bytes. */
    long outputCounted;
    /** Blocking commands must not block (inside MULTI/EXEC and scripts): they act as if timed out. */
    boolean denyBlocking;
    /** Cluster mode: ASKING was sent (the next command may use an importing slot). */
    public boolean clusterAsking;
    /** Cluster mode: READONLY was sent (reads may be served by a replica of the slot's master). */
    public boolean clusterReadonly;
    /** Cluster mode: the slot of the keys of the command being run, -1 without keys (a script's keys must stay in it). */
    public int clusterSlot = -1;

    Client(long id, Engine engine, Connection connection, Db db, long now) {
        this.id = id;
        this.engine = engine;
        this.connection = connection;
        this.db = db;
        this.createdAt = now;
        this.lastInteraction = now;
        reader.layout(CommandFamilies.BIG_ARG_LAYOUT);
        reader.share(engine.sharedQueryBuffer());
        reply.setSink(connection);
    }

    public long id() {
        return id;
    }

    /** See {@link Connection#isPlainSocket()}. */
    public boolean onPlainSocket() {
        return connection.isPlainSocket();
    }

    public Engine engine() {
        return engine;
    }

    public Args args() {
        return args;
    }

    public Reply reply() {
        return reply;
    }

    public Db db() {
        return db;
    }

    public RespReader reader() {
        return reader;
    }

    public Connection connection() {
        return connection;
    }

    public int resp() {
        return reply.protocol();
    }

    public String name() {
        return name;
    }

    public boolean noTouch() {
        return noTouch;
    }

    /**
     * Over its output buffer limit and about to be closed: nothing more reaches it, so a command
     * producing a huge reply (HRANDFIELD with a huge negative count) stops early, as Redis's do.
     */
    public boolean closingAsap() {
        return closeAsap;
    }

    /**
     * Whether output for it may still be added: not once it is closed or to be closed (after the
     * reply it is getting, QUIT; or at once, over its output limit), as Redis's
     * prepareClientToWrite refuses then. Pushes from elsewhere (MONITOR lines, messages,
     * invalidations) check it; its own command's reply is written regardless.
     */
    boolean takesOutput() {
        return !closed && !closeAfterReply && !closeAsap;
    }

    public boolean isClosed() {
        return closed;
    }

    /** Selects the database this client works on (scripts run in their caller's database). */
    public void setDb(Db db) {
        this.db = db;
    }

    /** Blocking commands act as if timed out for this client (scripts). */
    public void setDenyBlocking(boolean deny) {
        this.denyBlocking = deny;
    }

    /** Whether the client is inside MULTI (its commands are being queued). */
    public boolean inMulti() {
        return multi != null;
    }

    /** Whether the client is running the commands of an EXEC. */
    public boolean inExec() {
        return inExec;
    }

    /**
     * Takes this client's commands instead of the command table while a Lua debugging session
     * waits for them (SCRIPT DEBUG: the session reads the debugger's commands from its client).
     */
    public interface InputTaker {
        /** A command arrived (in {@link #args()}). */
        void take(Client c);

        /** The client sent something that is not a command (the reader's error text). */
        void protocolError(Client c, String error);

        /** The client is gone. */
        void disconnected(Client c);
    }

    InputTaker inputTaker;
    /** SCRIPT DEBUG: 0 off, {@link #LUA_DEBUG_YES} or {@link #LUA_DEBUG_SYNC} (Redis's CLIENT_LUA_DEBUG flags). */
    private int luaDebug;
    public static final int LUA_DEBUG_YES = 1;
    public static final int LUA_DEBUG_SYNC = 2;

    public int luaDebug() {
        return luaDebug;
    }

    public void setLuaDebug(int mode) {
        luaDebug = mode;
    }

    /** Routes this client's commands to t (null: back to the command table). */
    public void takeInput(InputTaker t) {
        inputTaker = t;
    }

    /** The command being executed (EVAL while its script runs). */
    public Command currentCommand() {
        return currentCommand;
    }

    /**
     * Stops reading further commands from this client until {@link #resumeInput()}: its command
     * (a script that yields to the event loop) has not produced its reply yet.
     */
    public void pauseInput() {
        paused = true;
    }

    /** The paused command has replied: send it and run whatever the client pipelined behind it. */
    public void resumeInput() {
        paused = false;
        markPendingWrite();
        if (reader.hasUnparsed()) {
            engine.loop().execute(() -> {
                engine.processInput(this);
                engine.flushPending();
            });
        } else {
            engine.loop().execute(engine::flushPending);
        }
    }

    // ---- argument helpers for command code ------------------------------------------------------

    public int argc() {
        return args.count();
    }

    /** Whether argument i is the token (case-insensitive). */
    public boolean argIs(int i, String lowerToken) {
        return args.is(i, lowerToken);
    }

    public byte[] argBytes(int i) {
        return args.copy(i);
    }

    public String argString(int i) {
        return args.string(i);
    }

    /** Argument i as a long, or ERR value is not an integer or out of range. */
    public long argLong(int i) {
        try {
            return Bytes.parseLong(args.buf(i), args.off(i), args.len(i));
        } catch (NumberFormatException e) {
            throw CommandError.NOT_INTEGER;
        }
    }

    /** Argument i as a long, or the given error. */
    public long argLong(int i, CommandError error) {
        try {
            return Bytes.parseLong(args.buf(i), args.off(i), args.len(i));
        } catch (NumberFormatException e) {
            throw error;
        }
    }

    /**
     * A blocking command's timeout argument in seconds (decimals allowed) as an absolute deadline
     * in ms, 0 for "forever"; Redis's errors for bad values.
     */
    public long argTimeout(int i) {
        java.math.BigDecimal v;
        try {
            v = io.spinel.core.util.LongDouble.parse(args.buf(i), args.off(i), args.len(i));
        } catch (NumberFormatException e) {
            throw CommandError.err("timeout is not a float or out of range");
        }
        if (v == null) throw CommandError.err("timeout is not a float or out of range");
        java.math.BigDecimal ms = v.multiply(java.math.BigDecimal.valueOf(1000))
                .setScale(0, java.math.RoundingMode.CEILING);
        if (ms.signum() < 0) throw CommandError.err("timeout is negative");
        if (ms.signum() == 0) return 0;
        long now = engine.keyspace().clock().millis();
        if (ms.compareTo(java.math.BigDecimal.valueOf(Long.MAX_VALUE - now)) > 0) return Long.MAX_VALUE;
        return ms.longValue() + now;
    }

    /** Set on the client that runs commands for a Lua script. */
    boolean script;

    /** Whether this client runs commands on behalf of a script (Redis's CLIENT_SCRIPT). */
    public boolean fromScript() {
        return script;
    }

    /** Whether a blocking command may block this client now (not inside MULTI/EXEC or a script). */
    public boolean mayBlock() {
        return !denyBlocking;
    }

    /**
     * Blocks this client until one of the keys holds a value of {@code valueType} (the command then
     * runs again) or the deadline passes ({@code onTimeout} writes the reply). See {@link Blocking}.
     */
    public void block(int valueType, java.util.List<byte[]> keys, long deadlineMs,
                      java.util.function.Consumer<Reply> onTimeout) {
        engine.blocking.block(this, valueType, keys, deadlineMs, onTimeout);
    }

    /**
     * Blocks as above, running {@code argv} (not the arguments as sent) when served, and answering
     * with {@code onKeyGone} if a key is deleted or changes type meanwhile (XREAD, XREADGROUP).
     */
    public void block(int valueType, java.util.List<byte[]> keys, long deadlineMs,
                      java.util.function.Consumer<Reply> onTimeout, byte[][] argv,
                      java.util.function.Consumer<Reply> onKeyGone) {
        engine.blocking.block(this, valueType, keys, deadlineMs, onTimeout, argv, onKeyGone);
    }

    /** Whether the running command is a blocked command tried again after a write to its keys. */
    public boolean retryingBlocked() {
        return engine.blocking.isRetrying(this);
    }

    /**
     * The key whose write is serving this blocked command, null when the command is not running
     * again for a write: XREAD on several streams answers for that one stream, as Redis does.
     */
    public byte[] retryingKey() {
        return engine.blocking.retryKey(this);
    }

    /** Whether this client replays the AOF (Redis's mustObeyClient: no limits on what it asks). */
    public boolean mustObey() {
        return connection instanceof Unconnected && !script;
    }

    /** Argument i as a double, or ERR value is not a valid float. */
    public double argDouble(int i) {
        try {
            return Doubles.parse(args.buf(i), args.off(i), args.len(i));
        } catch (NumberFormatException e) {
            throw CommandError.NOT_FLOAT;
        }
    }

    // ---- propagation --------------------------------------------------------------------------

    /** The command as it must be replayed (AOF, replicas) when it differs from what was sent. */
    byte[][] propagateAs;
    static final int FORCE_PROPAGATION = 1;
    static final int PREVENT_PROPAGATION = 2;
    static final int FORCE_REPLICA_PROPAGATION = 3;
    /** 0, or FORCE_PROPAGATION / PREVENT_PROPAGATION / FORCE_REPLICA_PROPAGATION for the running command. */
    int propagation;
    /**
     * Where this client's commands may propagate (Engine.PROPAGATE_*): both, but for a script's
     * client what redis.set_repl chose (Redis's CMD_CALL_PROPAGATE_AOF/REPL call flags).
     */
    int propagationTargets = Engine.PROPAGATE_AOF | Engine.PROPAGATE_REPL;

    /** A script's client: where the commands it runs next propagate (redis.set_repl). */
    public void setPropagationTargets(int targets) {
        propagationTargets = targets;
    }

    /**
     * Propagates this command even if it changed nothing (Redis's forceCommandPropagation: FLUSHDB
     * on an empty database still reaches the AOF and replicas).
     */
    public void forcePropagation() {
        propagation = FORCE_PROPAGATION;
    }

    /**
     * Propagates this command to the replicas (not the AOF) even if it changed nothing (Redis's
     * forceCommandPropagation with PROPAGATE_REPL): PUBLISH reaches the replicas' subscribers.
     */
    public void forceReplicaPropagation() {
        propagation = FORCE_REPLICA_PROPAGATION;
    }

    /**
     * Propagates nothing for this command itself (Redis's preventCommandPropagation): for
     * commands that propagate their effects with {@link Engine#propagate} instead (scripts).
     */
    public void preventPropagation() {
        propagation = PREVENT_PROPAGATION;
    }

    /**
     * Records that this command must be propagated as the given arguments instead of its own
     * (Redis's rewriteClientCommandVector): relative expires become absolute, INCRBYFLOAT a SET.
     */
    public void propagateAs(byte[]... argv) {
        propagateAs = argv;
    }

    /**
     * Whether anything receives propagated commands (the AOF is on). Commands test it before
     * building the rewritten arguments for {@link #propagateAs}, which nothing reads otherwise:
     * SET with EX or EXPIRE would copy their arguments on every call for nothing.
     */
    public boolean propagates() {
        return engine.propagates();
    }

    // ---- replies ------------------------------------------------------------------------------

    /** Replies with an error and counts it in INFO errorstats. */
    public void error(String message) {
        engine.countError(message);
        reply.error(message);
    }

    /** Marks the client to be flushed at the end of the current batch. */
    public void markPendingWrite() {
        if (!pendingWrite && !closed) {
            pendingWrite = true;
            engine.pendingWrites.add(this);
        }
    }

    /** Closes the connection after the replies produced so far are written (QUIT, protocol errors). */
    public void closeAfterReply() {
        closeAfterReply = true;
        markPendingWrite();
    }

    @Override
    public String toString() {
        return "client#" + id;
    }
}
