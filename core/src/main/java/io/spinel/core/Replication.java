package io.spinel.core;

import io.spinel.core.command.CommandError;
import io.spinel.core.command.CommandHandler;
import io.spinel.core.keyspace.Keyspace;
import io.spinel.core.persist.AofFormat;
import io.spinel.core.persist.RdbOut;
import io.spinel.core.protocol.Args;
import io.spinel.core.protocol.Reply;
import io.spinel.core.util.Bytes;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;

/**
 * Replication (Redis's replication.c). The master side: replicas connect as clients and ask
 * with PSYNC (or SYNC) for the data set; a partial resynchronization sends what they missed from
 * the backlog, a full one an RDB snapshot (taken in slices, without fork, as BGSAVE's) followed
 * by the commands written meanwhile; from then on every write goes to them as Redis streams it
 * (SELECT when the database changes, MULTI/EXEC around what one command propagates), and they
 * acknowledge the offset they processed (REPLCONF ACK), which WAIT, ROLE, INFO and
 * min-replicas-to-write read.
 *
 * <p>The replica side (REPLICAOF, replicaof): a {@link ReplicaLink} connects to the master and
 * hands what it receives to this thread: the RDB of a full synchronization replaces the data
 * set, the stream's commands run through a client of the master's, unchecked and unanswered,
 * and the offset they reach is acknowledged. The stream is passed on byte for byte to this
 * server's own backlog and replicas (a replica of a replica sees its master's history), and
 * clients may only read (replica-read-only), expired keys being hidden until the master deletes
 * them.
 *
 * <p>Nothing of this costs a server without replicas: the backlog, and the propagation listener
 * that feeds it, exist from the first synchronization on (as Redis creates its backlog then), and
 * go after repl-backlog-ttl seconds without replicas.
 */
final class Replication implements Engine.PropagationListener {
    /** A replica's state, as Redis's SLAVE_STATE_*. */
    enum State {
        WAIT_BGSAVE_START("wait_bgsave"), WAIT_BGSAVE_END("wait_bgsave"), SEND_BULK("send_bulk"), ONLINE("online");

        final String infoName;

        State(String infoName) {
            this.infoName = infoName;
        }
    }

    /** A client that became a replica. */
    static final class Replica {
        final Client client;
        State state;
        /** The replica's own port and address, from REPLCONF listening-port / ip-address. */
        /** SYNC, not PSYNC: no +FULLRESYNC line before the RDB. */
        boolean prePsync;
        long ackOffset;
        long ackTimeSeconds;
        /**
         * What was written while its snapshot was being made and sent: goes right after the RDB
         * (after a streamed one, once the replica's first REPLCONF ACK says it loaded it).
         */
        ByteArrayOutputStream pending;
        /** The offset its +FULLRESYNC named (for a replica attaching to the same snapshot). */
        long initialOffset;
        /** When it asked for a full synchronization, in seconds (repl-diskless-sync-delay counts from there). */
        long waitingSince;
        /** The snapshot streamed to its socket, while it is (repl-diskless-sync). */
        SocketTransfer transfer;
        /** Its streamed snapshot is sent: the stream starts at its first REPLCONF ACK. */
        boolean streamOnAck;
        /** Bytes its socket had taken at the last cron, and since when that has not changed. */
        long transferWritten;
        long transferStalledSince;
        /** The snapshot being sent to it, and how much of it was. */
        Bulk bulk;
        long bulkSent;

        Replica(Client client) {
            this.client = client;
        }

        String ip() {
            return ipOf(client);
        }

        /** Its own port, from REPLCONF listening-port (0 if it never said). */
        int port() {
            return client.replicaListeningPort;
        }
    }

    /** REPLCONF rdb-filter-only: the snapshot leaves out the keys, or the function libraries. */
    static final int EXCLUDE_DATA = 1;
    static final int EXCLUDE_FUNCTIONS = 2;

    private static final byte[] NEWLINE = {'\n'};
    private static final byte[][] PING = {Bytes.ascii("PING")};
    private static final byte[][] GETACK = {Bytes.ascii("REPLCONF"), Bytes.ascii("GETACK"), Bytes.ascii("*")};

    private final Engine engine;
    private String replid = newReplid();
    private String replid2 = "0000000000000000000000000000000000000000";
    private long secondReplidOffset = -1;
    private long masterReplOffset;
    /** The backlog, a ring of repl-backlog-size bytes; null until the first replica. */
    private byte[] backlog;
    private int backlogWrite;
    private long backlogHistlen;
    private long backlogOffset;
    /** The database the stream last SELECTed, -1 to SELECT again before the next command. */
    private int streamDb = -1;
    private final List<Replica> replicas = new ArrayList<>();
    /** A snapshot for replicas is being made. */
    private boolean snapshotRunning;
    /** When the last replica went (for repl-backlog-ttl), in seconds; 0 while replicas are there. */
    private long noReplicasSince;
    private long cronTicks;
    /** Clients blocked in WAIT: each waits for so many replicas to acknowledge an offset. */
    private final List<Waiting> waiting = new ArrayList<>();
    private boolean getAckPending;
    long syncFull;
    long syncPartialOk;
    long syncPartialErr;

    private record Waiting(Client client, long offset, long replicas) {
    }

    Replication(Engine engine) {
        this.engine = engine;
    }

    private static String newReplid() {
        byte[] b = new byte[20];
        new SecureRandom().nextBytes(b);
        StringBuilder sb = new StringBuilder(40);
        for (byte x : b) sb.append(Character.forDigit((x >> 4) & 0xf, 16)).append(Character.forDigit(x & 0xf, 16));
        return sb.toString();
    }

    static CommandHandler handler(String name) {
        return switch (name) {
            case "sync", "psync" -> c -> c.engine.replication.sync(c);
            case "replconf" -> c -> c.engine.replication.replconf(c);
            case "replicaof", "slaveof" -> c -> c.engine.replication.replicaof(c);
            case "failover" -> c -> c.engine.replication.failover(c);
            default -> null;
        };
    }

    // ---- SYNC / PSYNC -------------------------------------------------------------------------

    private void sync(Client c) {
        if (c.replica != null) return; // already a replica: ignored, as Redis does
        Args a = c.args();
        boolean psync = a.is(0, "psync");
        if (psync && a.count() > 3 && a.is(3, "failover")) {
            // our master hands over (its FAILOVER): this server becomes the master
            engine.log().warning("Failover request received for replid " + a.string(1) + ".");
            if (link == null) throw CommandError.err("PSYNC FAILOVER can't be sent to a master.");
            if (!a.string(1).equalsIgnoreCase(replid)) throw CommandError.err("PSYNC FAILOVER replid must match my replid.");
            unsetMaster();
            engine.log().notice("MASTER MODE enabled (failover request from '" + ConnectionCommands.clientInfo(c) + "')");
        }
        if (failoverState != Failover.NONE) {
            throw new CommandError("NOMASTERLINK Can't SYNC while failing over");
        }
        if (link != null && link.state != ReplicaLink.State.CONNECTED) {
            throw new CommandError("NOMASTERLINK Can't SYNC while not connected with my master");
        }
        if (c.reply().length() > 0) throw CommandError.err("SYNC and PSYNC are invalid with pending output");
        // a filtered snapshot is made for its replica alone, on its socket
        if (c.replicaReq != 0 && !c.replicaCapaEof) throw CommandError.err("Filtered replica requires EOF capability");
        engine.log().notice("Replica " + name(c) + " asks for synchronization");
        Replica r = new Replica(c);
        if (psync) {
            long offset;
            try {
                offset = c.argLong(2);
            } catch (CommandError e) {
                engine.log().warning("Replica " + name(c) + " asks for synchronization but with a wrong offset");
                throw e;
            }
            if (tryPartial(r, a.string(1), offset)) {
                syncPartialOk++;
                return;
            }
            if (!a.is(1, "?")) syncPartialErr++;
        } else {
            r.prePsync = true;
        }
        syncFull++;
        c.replica = r;
        c.reply.keepSmallAfterBursts();
        replicas.add(r);
        noReplicasSince = 0;
        r.state = State.WAIT_BGSAVE_START;
        r.ackTimeSeconds = nowSeconds();
        r.waitingSince = r.ackTimeSeconds;
        createBacklog();
        if (snapshotRunning && transfer == null) {
            attachToSnapshot(r);
        } else if (snapshotRunning) {
            engine.log().notice("Current BGSAVE has socket target. Waiting for next BGSAVE for SYNC");
        } else if (disklessFor(c) && engine.config().getLong("repl-diskless-sync-delay") > 0) {
            engine.log().notice("Delay next BGSAVE for diskless SYNC");
        }
        startSnapshotIfNeeded();
    }

    /** With repl-diskless-sync, a replica that takes an EOF-marked RDB gets it on its socket. */
    private boolean disklessFor(Client c) {
        return engine.config().getBool("repl-diskless-sync") && c.replicaCapaEof;
    }

    /**
     * A snapshot to a file for other replicas is being made: this one can have it too, with the
     * stream they keep for after it (Redis's copyReplicaOutputBuffer); otherwise it waits for
     * the next.
     */
    private void attachToSnapshot(Replica r) {
        for (Replica other : replicas) {
            if (other == r || other.state != State.WAIT_BGSAVE_END || other.client.replicaReq != r.client.replicaReq) continue;
            r.state = State.WAIT_BGSAVE_END;
            r.initialOffset = other.initialOffset;
            r.pending = new ByteArrayOutputStream();
            r.pending.writeBytes(other.pending.toByteArray());
            if (!r.prePsync) send(r, Bytes.ascii("+FULLRESYNC " + replid + " " + r.initialOffset + "\r\n"));
            engine.log().notice("Waiting for end of BGSAVE for SYNC");
            return;
        }
        engine.log().notice("Can't attach the replica to the current BGSAVE. Waiting for next BGSAVE for SYNC");
    }

    /** Redis's masterTryPartialResynchronization: +CONTINUE and the missing bytes, or false. */
    private boolean tryPartial(Replica r, String askedReplid, long offset) {
        boolean sameHistory = askedReplid.equalsIgnoreCase(replid)
                || (askedReplid.equalsIgnoreCase(replid2) && offset <= secondReplidOffset);
        if (!sameHistory) {
            if (!askedReplid.equals("?")) {
                engine.log().notice("Partial resynchronization not accepted: Replication ID mismatch (Replica asked for '"
                        + askedReplid + "', my replication IDs are '" + replid + "' and '" + replid2 + "')");
            } else {
                engine.log().notice("Full resync requested by replica " + name(r.client));
            }
            return false;
        }
        if (backlog == null || offset < backlogOffset || offset > backlogOffset + backlogHistlen) {
            engine.log().notice("Unable to partial resync with replica " + name(r.client)
                    + " for lack of backlog (Replica request was: " + offset + ").");
            return false;
        }
        Client c = r.client;
        c.replica = r;
        c.reply.keepSmallAfterBursts();
        replicas.add(r);
        noReplicasSince = 0;
        r.state = State.ONLINE;
        r.ackTimeSeconds = nowSeconds();
        send(r, Bytes.ascii(r.client.replicaCapaPsync2 ? "+CONTINUE " + replid + "\r\n" : "+CONTINUE\r\n"));
        int skip = (int) (offset - backlogOffset);
        int len = (int) (backlogHistlen - skip);
        byte[] missing = new byte[len];
        int start = Math.floorMod(backlogWrite - (int) backlogHistlen + skip, backlog.length);
        int first = Math.min(len, backlog.length - start);
        System.arraycopy(backlog, start, missing, 0, first);
        System.arraycopy(backlog, 0, missing, first, len - first);
        send(r, missing);
        engine.log().notice("Partial resynchronization request from " + name(c) + " accepted. Sending " + len
                + " bytes of backlog starting from offset " + offset + ".");
        return true;
    }

    /** The ring's size for repl-backlog-size: at least 16 KB, as Redis's. */
    private int backlogSize() {
        return (int) Math.min(Integer.MAX_VALUE - 8, Math.max(16 * 1024, engine.config().getLong("repl-backlog-size")));
    }

    /**
     * CONFIG SET repl-backlog-size (Redis's resizeReplicationBacklog): the ring takes the new
     * size at once, keeping its newest bytes, so a smaller backlog no longer serves a partial
     * resynchronization from before them.
     */
    void resizeBacklog() {
        if (backlog == null) return;
        int size = backlogSize();
        if (size == backlog.length) return;
        int keep = (int) Math.min(backlogHistlen, size);
        byte[] ring = new byte[size];
        int start = Math.floorMod(backlogWrite - keep, backlog.length);
        int first = Math.min(keep, backlog.length - start);
        System.arraycopy(backlog, start, ring, 0, first);
        System.arraycopy(backlog, 0, ring, first, keep - first);
        backlog = ring;
        backlogWrite = keep % size;
        backlogHistlen = keep;
        backlogOffset = masterReplOffset - backlogHistlen + 1;
    }

    private void createBacklog() {
        if (backlog != null) return;
        backlog = new byte[backlogSize()];
        backlogWrite = 0;
        backlogHistlen = 0;
        backlogOffset = masterReplOffset + 1;
        streamDb = -1;
        engine.addPropagationListener(this);
    }

    /**
     * Starts a snapshot for the replicas waiting for one, unless one is being made or cannot start
     * now (Redis's shouldStartChildReplication): streamed to their sockets when all of them take
     * an EOF-marked RDB and repl-diskless-sync is on, once the first has waited
     * repl-diskless-sync-delay seconds (for others to join) or repl-diskless-sync-max-replicas
     * are waiting; else to a file, at once.
     */
    private void startSnapshotIfNeeded() {
        if (snapshotRunning) return;
        long now = nowSeconds();
        int waitingReplicas = 0;
        long maxIdle = 0;
        boolean allEof = true;
        // one snapshot serves the replicas that asked for the same filter (the first waiting one's)
        int req = -1;
        for (Replica r : replicas) {
            if (r.state != State.WAIT_BGSAVE_START) continue;
            if (req == -1) req = r.client.replicaReq;
            if (r.client.replicaReq != req) continue;
            waitingReplicas++;
            maxIdle = Math.max(maxIdle, now - r.waitingSince);
            allEof &= r.client.replicaCapaEof;
        }
        if (waitingReplicas == 0) return;
        boolean diskless = engine.config().getBool("repl-diskless-sync");
        // a filtered snapshot always goes to the socket, never to a file others could take
        boolean toSockets = (diskless || req != 0) && allEof;
        long maxReplicas = engine.config().getLong("repl-diskless-sync-max-replicas");
        if (diskless && toSockets && maxIdle < engine.config().getLong("repl-diskless-sync-delay")
                && !(maxReplicas > 0 && waitingReplicas >= maxReplicas)) {
            return; // checked again by the cron
        }
        long offset = masterReplOffset;
        SocketTransfer t = toSockets ? new SocketTransfer() : null;
        boolean started = engine.persistence().startReplicationSnapshot(t, this::snapshotDone,
                (req & EXCLUDE_DATA) != 0, (req & EXCLUDE_FUNCTIONS) != 0);
        if (!started) return; // another BGSAVE or AOF rewrite runs: retried from the cron
        engine.log().notice("Starting BGSAVE for SYNC with target: " + (toSockets ? "replicas sockets" : "disk"));
        snapshotRunning = true;
        transfer = t;
        // what is written from now on is not in the snapshot: SELECT again, and keep it for them
        streamDb = -1;
        for (Replica r : replicas) {
            if (r.state != State.WAIT_BGSAVE_START || r.client.replicaReq != req) continue;
            r.state = State.WAIT_BGSAVE_END;
            r.pending = new ByteArrayOutputStream();
            r.initialOffset = offset;
            if (!r.prePsync) send(r, Bytes.ascii("+FULLRESYNC " + replid + " " + offset + "\r\n"));
            if (t != null) t.add(r);
        }
        if (t != null) t.open();
    }

    /** The snapshot streamed to replicas' sockets now, if any (Redis's rdb_pipe_conns). */
    private SocketTransfer transfer;

    /**
     * A snapshot streamed to its replicas' sockets: "$EOF:<mark>", the RDB as the executor
     * serializes it, then the mark (Redis's rdbSaveRioWithEOFMark); serialization waits for the
     * slowest replica's socket.
     */
    private final class SocketTransfer implements io.spinel.core.persist.Persistence.SocketTarget {
        final List<Replica> targets = new ArrayList<>();
        final byte[] mark = Bytes.ascii(newReplid());
        /** Chunks serialized before the replicas had their headers (none unless the functions are huge). */
        private List<byte[]> early = new ArrayList<>();

        void add(Replica r) {
            targets.add(r);
            r.transfer = this;
            r.transferWritten = written(r.client);
            r.transferStalledSince = nowSeconds();
            send(r, Bytes.ascii("$EOF:" + new String(mark, java.nio.charset.StandardCharsets.ISO_8859_1) + "\r\n"));
        }

        /** The replicas have their headers: the RDB follows. */
        void open() {
            List<byte[]> e = early;
            early = null;
            for (byte[] b : e) write(b, b.length);
        }

        @Override
        public void write(byte[] b, int len) {
            if (early != null) {
                early.add(java.util.Arrays.copyOf(b, len));
                return;
            }
            for (Replica r : targets) {
                r.client.reply().raw(b, 0, len);
                r.client.markPendingWrite();
            }
        }

        @Override
        public long backlog() {
            long most = 0;
            for (Replica r : targets) {
                most = Math.max(most, r.client.reply().length() + r.client.connection().pendingBytes());
            }
            return most;
        }

        @Override
        public void flush() {
            engine.flushPending();
        }
    }

    /** Bytes of a client's output its socket has taken. */
    private static long written(Client c) {
        return c.reply().totalBytes() - c.connection().pendingBytes();
    }

    /**
     * The snapshot is written (file, or the error; a streamed one's file is null): the replicas
     * waiting for a file get it, a chunk at a time as their sockets take it ({@link #pumpBulk}),
     * then what was written meanwhile; those it was streamed to get the closing mark and are
     * online, their stream held until they acknowledge.
     */
    private void snapshotDone(Path file, Throwable error) {
        snapshotRunning = false;
        SocketTransfer streamed = transfer;
        transfer = null;
        if (streamed != null) {
            streamedSnapshotDone(streamed, error);
            startSnapshotIfNeeded();
            engine.flushPending();
            return;
        }
        long size = -1;
        if (error == null) {
            try {
                size = Files.size(file);
            } catch (IOException e) {
                error = e;
            }
        }
        Bulk bulk = null;
        for (Replica r : new ArrayList<>(replicas)) {
            if (r.state != State.WAIT_BGSAVE_END) continue;
            if (error != null) {
                engine.log().warning("BGSAVE for replication failed: " + error);
                dropReplica(r);
                engine.closeClient(r.client);
                continue;
            }
            if (bulk == null) bulk = new Bulk(file, size);
            bulk.users++;
            r.bulk = bulk;
            r.bulkSent = 0;
            r.state = State.SEND_BULK;
            send(r, Bytes.ascii("$" + size + "\r\n"));
        }
        if (bulk == null && file != null) deleteQuietly(file);
        if (bulk != null) pumpBulk();
        startSnapshotIfNeeded();
        engine.flushPending();
    }

    private void streamedSnapshotDone(SocketTransfer t, Throwable error) {
        if (error == null) {
            engine.log().notice("Diskless rdb transfer, done reading from pipe, " + t.targets.size()
                    + " replicas still up.");
        }
        for (Replica r : new ArrayList<>(t.targets)) {
            r.transfer = null;
            if (error != null) {
                engine.log().warning("SYNC failed. BGSAVE child returned an error");
                dropReplica(r);
                engine.closeClient(r.client);
                continue;
            }
            send(r, t.mark);
            if (rdbOnlyDone(r)) continue;
            r.state = State.ONLINE;
            r.streamOnAck = true;
            r.ackTimeSeconds = nowSeconds();
            engine.log().notice("Streamed RDB transfer with replica " + name(r.client) + " succeeded (socket). "
                    + "Waiting for REPLCONF ACK from slave to enable streaming");
            engine.log().notice("Synchronization with replica " + name(r.client) + " succeeded");
        }
        t.targets.clear();
    }

    /** A snapshot file being sent to replicas; deleted when the last is done with it. */
    static final class Bulk {
        final Path file;
        final long size;
        int users;

        Bulk(Path file, long size) {
            this.file = file;
            this.size = size;
        }
    }

    private static final int BULK_CHUNK = 256 * 1024;
    /** How much may wait in a replica's socket before more of the snapshot is read for it. */
    private static final long BULK_BACKLOG = 4L * 1024 * 1024;
    private boolean pumpScheduled;

    /** Sends each replica the next chunks of its snapshot while its socket keeps up (Redis's sendBulkToSlave). */
    private void pumpBulk() {
        pumpScheduled = false;
        boolean more = false;
        for (Replica r : new ArrayList<>(replicas)) {
            if (r.state != State.SEND_BULK) continue;
            try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(r.bulk.file)) {
                // (what the socket has yet to take; not the stream kept for after the snapshot)
                while (r.bulkSent < r.bulk.size
                        && r.client.reply().length() + r.client.connection().pendingBytes() < BULK_BACKLOG) {
                    java.nio.ByteBuffer buf = java.nio.ByteBuffer.allocate((int) Math.min(BULK_CHUNK, r.bulk.size - r.bulkSent));
                    while (buf.hasRemaining()) {
                        if (ch.read(buf, r.bulkSent + buf.position()) < 0) throw new IOException("the snapshot file is short");
                    }
                    r.client.reply().raw(buf.array());
                    r.client.markPendingWrite();
                    r.bulkSent += buf.capacity();
                }
            } catch (IOException e) {
                engine.log().warning("Failed sending the snapshot to replica " + name(r.client) + ": " + e.getMessage());
                doneWithBulk(r);
                dropReplica(r);
                engine.closeClient(r.client);
                continue;
            }
            if (r.bulkSent < r.bulk.size) {
                more = true;
                continue;
            }
            doneWithBulk(r);
            if (rdbOnlyDone(r)) continue;
            send(r, r.pending.toByteArray());
            r.pending = null;
            r.state = State.ONLINE;
            r.ackTimeSeconds = nowSeconds();
            engine.log().notice("Synchronization with replica " + name(r.client) + " succeeded");
        }
        engine.flushPending();
        if (more && !pumpScheduled) {
            pumpScheduled = true;
            engine.loop().schedule(this::pumpBulk, 1, java.util.concurrent.TimeUnit.MILLISECONDS);
        }
    }

    private void doneWithBulk(Replica r) {
        Bulk b = r.bulk;
        if (b == null) return;
        r.bulk = null;
        if (--b.users == 0) deleteQuietly(b.file);
    }

    // ---- REPLCONF -----------------------------------------------------------------------------

    private void replconf(Client c) {
        Args a = c.args();
        if (a.count() % 2 == 0) throw CommandError.SYNTAX;
        for (int j = 1; j < a.count(); j += 2) {
            if (a.is(j, "listening-port")) {
                c.replicaListeningPort = (int) c.argLong(j + 1);
            } else if (a.is(j, "ip-address")) {
                String ip = a.string(j + 1);
                if (ip.length() >= 46) {
                    throw CommandError.err("REPLCONF ip-address provided by replica instance is too long: "
                            + ip.length() + " bytes");
                }
                c.replicaAnnouncedIp = ip;
            } else if (a.is(j, "capa")) {
                if (a.is(j + 1, "psync2")) c.replicaCapaPsync2 = true;
                else if (a.is(j + 1, "eof")) c.replicaCapaEof = true;
            } else if (a.is(j, "ack")) {
                Replica r = c.replica;
                if (r == null) return;
                long offset;
                try {
                    offset = Bytes.parseLong(a.buf(j + 1), a.off(j + 1), a.len(j + 1));
                } catch (NumberFormatException e) {
                    return;
                }
                if (offset > r.ackOffset) r.ackOffset = offset;
                r.ackTimeSeconds = nowSeconds();
                if (r.streamOnAck) {
                    // it loaded the streamed snapshot: what was written meanwhile follows
                    r.streamOnAck = false;
                    send(r, r.pending.toByteArray());
                    r.pending = null;
                }
                releaseWaiting();
                updateFailover();
                return; // no reply
            } else if (a.is(j, "getack")) {
                // the master asks where the stream is: the offset before this command
                if (c == masterClient && link != null) link.sendAck(masterReplOffset);
                return;
            } else if (a.is(j, "rdb-only")) {
                long v = c.argLong(j + 1);
                if (v < 0 || v > 1) throw CommandError.err("value is out of range, must be positive");
                c.replicaRdbOnly = v == 1;
            } else if (a.is(j, "rdb-filter-only")) {
                List<String> filters = io.spinel.core.protocol.SplitArgs.split(a.string(j + 1));
                if (filters == null) throw CommandError.err("Missing rdb-filter-only values");
                // everything is left out but what the filters name ("" leaves an empty RDB)
                c.replicaReq = EXCLUDE_DATA | EXCLUDE_FUNCTIONS;
                for (String f : filters) {
                    if (!f.equalsIgnoreCase("functions")) {
                        throw CommandError.err("Unsupported rdb-filter-only option: " + f);
                    }
                    c.replicaReq &= ~EXCLUDE_FUNCTIONS;
                }
            } else {
                throw CommandError.err("Unrecognized REPLCONF option: " + a.cString(j));
            }
        }
        c.reply().ok();
    }

    // ---- the stream -----------------------------------------------------------------------------

    @Override
    public void propagate(int db, byte[][] argv) {
        feed(db, argv);
    }

    /** A master with a backlog takes what goes to replicas; a replica passes on its master's stream only. */
    @Override
    public int target() {
        return link == null ? Engine.PROPAGATE_REPL : 0;
    }

    /** DEBUG REPLICATE: a command into the stream only (not the AOF), in the stream's current database. */
    void feedRaw(byte[][] argv) {
        feed(-1, argv);
    }

    /** DEBUG CHANGE-REPL-ID (Redis's changeReplicationId and clearReplicationId2). */
    void changeReplicationId() {
        engine.log().warning("Changing replication IDs after receiving DEBUG change-repl-id");
        replid = newReplid();
        replid2 = "0000000000000000000000000000000000000000";
        secondReplidOffset = -1;
    }

    /** Appends a command to the stream (backlog and replicas), SELECTing its database first if needed. */
    private void feed(int db, byte[][] argv) {
        // a replica passes its master's stream on as it came (applyFromMaster), never its own
        if (backlog == null || link != null) return;
        stream.clear();
        if (db >= 0 && db != streamDb) {
            AofFormat.command(stream, SELECT, Bytes.longToBytes(db));
            streamDb = db;
        }
        AofFormat.command(stream, argv);
        distribute(stream.array(), stream.size());
    }

    /** Stream bytes into the backlog and to each replica (kept for after its snapshot while it gets one). */
    private void distribute(byte[] bytes, int length) {
        appendBacklog(bytes, length);
        for (Replica r : replicas) {
            if (r.pending != null) {
                r.pending.write(bytes, 0, length);
                engine.checkOutputBufferLimits(r.client);
            } else if (r.state == State.ONLINE) {
                r.client.reply().raw(bytes, 0, length);
                r.client.markPendingWrite();
                engine.checkOutputBufferLimits(r.client);
            }
        }
    }

    private static final byte[] SELECT = Bytes.ascii("SELECT");
    /** Where a command is encoded for the stream, reused from one to the next (no garbage per write). */
    private final RdbOut stream = new RdbOut(256, false);

    private void appendBacklog(byte[] b, int length) {
        masterReplOffset += length;
        int n = length;
        int from = 0;
        if (n > backlog.length) { // only the last backlog's worth can stay
            from = n - backlog.length;
            n = backlog.length;
        }
        int first = Math.min(n, backlog.length - backlogWrite);
        System.arraycopy(b, from, backlog, backlogWrite, first);
        System.arraycopy(b, from + first, backlog, 0, n - first);
        backlogWrite = (backlogWrite + n) % backlog.length;
        backlogHistlen = Math.min(backlog.length, backlogHistlen + length);
        backlogOffset = masterReplOffset - backlogHistlen + 1;
    }

    private void send(Replica r, byte[] b) {
        if (b.length == 0) return;
        r.client.reply().raw(b);
        r.client.markPendingWrite();
        engine.checkOutputBufferLimits(r.client); // client-output-buffer-limit replica
    }

    // ---- replicas going, the cron, WAIT ----------------------------------------------------------

    /** The client went away (or was closed): if it was a replica, it is one no more. */
    void clientGone(Client c) {
        if (c.replica != null) dropReplica(c.replica);
        waiting.removeIf(w -> w.client == c);
    }

    /** Closes every replica's connection: they reconnect and ask again (PSYNC). */
    private void dropAllReplicas() {
        for (Replica r : new ArrayList<>(replicas)) {
            dropReplica(r);
            engine.closeClient(r.client);
        }
    }

    /**
     * A replica that asked for the snapshot only (REPLCONF rdb-only 1) has it: it is no replica
     * after that, and its connection closes once the snapshot has left (Redis's replicaPutOnline).
     */
    private boolean rdbOnlyDone(Replica r) {
        if (!r.client.replicaRdbOnly) return false;
        engine.log().notice("RDB transfer completed, rdb only replica (" + name(r.client) + ") should be disconnected asap");
        r.pending = null;
        dropReplica(r);
        r.client.closeAfterReply();
        return true;
    }

    private void dropReplica(Replica r) {
        if (!replicas.remove(r)) return;
        doneWithBulk(r);
        SocketTransfer t = r.transfer;
        if (t != null) {
            r.transfer = null;
            t.targets.remove(r);
            if (t.targets.isEmpty() && t == transfer) {
                engine.log().warning("Diskless rdb transfer, last replica dropped, killing fork child.");
                engine.persistence().killReplicationSnapshot();
            }
        }
        r.client.replica = null;
        engine.log().notice("Connection with replica " + name(r.client) + " lost.");
        if (replicas.isEmpty()) noReplicasSince = nowSeconds();
    }

    /** Once a second: pings in the stream, keep-alives before the RDB, timeouts, the backlog's time to live. */
    void cron() {
        cronTicks++;
        long now = nowSeconds();
        long pingPeriod = Math.max(1, engine.config().getLong("repl-ping-replica-period"));
        if (!replicas.isEmpty() && cronTicks % pingPeriod == 0 && !engine.pause.active()) feed(streamDb, PING);
        if (link != null) link.sendAck(masterReplOffset);
        long timeout = engine.config().getLong("repl-timeout");
        for (Replica r : new ArrayList<>(replicas)) {
            if (r.transfer != null) {
                // a streamed snapshot waits for the slowest socket: one that takes nothing is dropped
                long w = written(r.client);
                if (w != r.transferWritten || r.client.connection().pendingBytes() + r.client.reply().length() == 0) {
                    r.transferWritten = w;
                    r.transferStalledSince = now;
                } else if (now - r.transferStalledSince > timeout) {
                    engine.log().warning("Disconnecting timedout replica (full sync): " + name(r.client));
                    dropReplica(r);
                    engine.closeClient(r.client);
                }
                continue;
            }
            if (r.state == State.WAIT_BGSAVE_START || r.state == State.WAIT_BGSAVE_END) {
                send(r, NEWLINE); // before the RDB's first byte a replica reads newlines as keep-alives
                continue;
            }
            if (r.state != State.ONLINE) continue;
            if (!r.prePsync && now - r.ackTimeSeconds > timeout) {
                engine.log().warning("Disconnecting timedout replica (streaming sync): " + name(r.client));
                dropReplica(r);
                engine.closeClient(r.client);
            }
        }
        startSnapshotIfNeeded();
        updateFailover();
        long ttl = engine.config().getLong("repl-backlog-ttl");
        // (a replica keeps its backlog: it may be promoted)
        if (backlog != null && link == null && replicas.isEmpty() && noReplicasSince > 0 && ttl > 0
                && now - noReplicasSince > ttl) {
            // a new history: no replica could continue the old one from this backlog anyway
            engine.removePropagationListener(this);
            backlog = null;
            replid = newReplid();
            replid2 = "0000000000000000000000000000000000000000";
            secondReplidOffset = -1;
            engine.log().notice("Replication backlog freed after " + ttl + " seconds without connected replicas.");
        }
    }

    /** Asks the replicas for their offsets when someone waits (once per batch, as Redis's beforeSleep). */
    void beforeReplies() {
        // (not during a pause: the stream stays still, as FAILOVER needs to see a replica catch up)
        if (!getAckPending || engine.pause.active()) return;
        getAckPending = false;
        feed(streamDb, GETACK);
    }

    /** REPLCONF GETACK into the stream now: a shutdown learns where its replicas are (Redis's sendGetackToReplicas). */
    void askForAcks() {
        if (backlog != null && link == null && !replicas.isEmpty()) feed(streamDb, GETACK);
    }

    /** Whether every replica acknowledged the whole stream (Redis's isReadyToShutdown). */
    boolean replicasCaughtUp() {
        for (Replica r : replicas) if (r.ackOffset != masterReplOffset) return false;
        return true;
    }

    /** Before the server stops: the replicas still behind it, and how many are in sync (Redis's finishShutdown). */
    void logShutdownLag() {
        if (replicas.isEmpty()) return;
        int lagging = 0;
        long now = nowSeconds();
        for (Replica r : replicas) {
            if (r.ackOffset == masterReplOffset) continue;
            lagging++;
            engine.log().warning("Lagging replica " + name(r.client) + " reported offset "
                    + (masterReplOffset - r.ackOffset) + " behind master, lag="
                    + (r.state == State.ONLINE ? now - r.ackTimeSeconds : 0) + ", state=" + r.state.infoName + ".");
        }
        engine.log().notice((replicas.size() - lagging) + " of " + replicas.size()
                + " replicas are in sync when shutting down.");
    }

    /** The replication offset: how many bytes of stream this server's history holds. */
    long offset() {
        return masterReplOffset;
    }

    /**
     * The offset a cluster replica announces on the bus and ranks itself by (Redis's
     * replicationGetSlaveOffset): what it applied of its master's stream, but 0 from the moment
     * the master answered FULLRESYNC until the new data set is loaded, as Redis has dropped its
     * cached master by then. Other nodes then leave it out of CLUSTER SLOTS and SHARDS (a replica
     * with offset 0 has no data to serve yet).
     */
    long announcedOffset() {
        ReplicaLink l = link;
        if (l != null && l.state == ReplicaLink.State.SYNC) return 0;
        return masterReplOffset;
    }

    /** WAIT numreplicas timeout: the replicas that acknowledged the client's last write (Redis's waitCommand). */
    void waitReplicas(Client c, long wanted, long deadline) {
        if (link != null) {
            throw CommandError.err("WAIT cannot be used with replica instances. Please also note that since Redis 4.0 "
                    + "if a replica is configured to be writable (which is not the default) writes to replicas are just "
                    + "local and are not propagated.");
        }
        long offset = c.replWriteOffset;
        long acked = acknowledged(offset);
        if (acked >= wanted || c.inExec || c.inMulti()) {
            c.reply().integer(acked);
            return;
        }
        waiting.add(new Waiting(c, offset, wanted));
        getAckPending = true;
        engine.blocking.block(c, -1, List.of(), deadline, r -> {
            waiting.removeIf(w -> w.client == c);
            r.integer(acknowledged(offset));
        });
    }

    private long acknowledged(long offset) {
        long n = 0;
        for (Replica r : replicas) if (r.state == State.ONLINE && r.ackOffset >= offset) n++;
        return n;
    }

    private void releaseWaiting() {
        for (Waiting w : new ArrayList<>(waiting)) {
            if (acknowledged(w.offset) >= w.replicas) engine.blocking.unblock(w.client, false);
        }
    }

    /** min-replicas-to-write: replicas online whose last acknowledgement is at most max-lag seconds old. */
    int goodReplicas(long maxLagSeconds) {
        long now = nowSeconds();
        int n = 0;
        for (Replica r : replicas) if (r.state == State.ONLINE && now - r.ackTimeSeconds <= maxLagSeconds) n++;
        return n;
    }

    private static long nowSeconds() {
        return System.currentTimeMillis() / 1000;
    }

    /** The address a replica is known by: the one it announced (REPLCONF ip-address), else its connection's. */
    private static String ipOf(Client c) {
        return c.replicaAnnouncedIp != null ? c.replicaAnnouncedIp : host(c.connection().remoteAddress());
    }

    /** How the log names a replica (Redis's replicationGetSlaveName). */
    private static String name(Client c) {
        int port = c.replicaListeningPort;
        return ipOf(c) + ":" + (port > 0 ? Integer.toString(port) : "<unknown-replica-port>");
    }

    private static String host(String addr) {
        int colon = addr.lastIndexOf(':');
        return colon > 0 ? addr.substring(0, colon) : addr;
    }

    // ---- the replica's side ---------------------------------------------------------------------

    /** The link to the master while this server is a replica, else null. */
    private ReplicaLink link;
    /** Runs the master's stream (Redis's server.master): no checks, no replies. */
    private Client masterClient;
    /** When the link went down (seconds), for INFO; 0 while up or never connected. */
    private long linkDownSince;
    private boolean masterLinkUp;

    boolean isReplica() {
        return link != null;
    }

    /** Whether clients may not write here: a replica with replica-read-only yes. */
    boolean readOnlyReplica() {
        return link != null && engine.config().getBool("replica-read-only");
    }

    /** A replica whose link is down with replica-serve-stale-data no: only some commands are served. */
    boolean staleDenied() {
        return link != null && !masterLinkUp && !engine.config().getBool("replica-serve-stale-data");
    }

    /** The master's client while the link is up (CLIENT LIST shows it, flags=M), else null. */
    Client connectedMasterClient() {
        return link != null && masterLinkUp ? masterClient : null;
    }

    /** CLIENT KILL of the master's client: the link drops and comes back (a partial resynchronization, as in Redis). */
    void dropMasterLink() {
        if (link == null) return;
        // down from now, as Redis frees its master's client at once: the link's own report comes
        // later (after a DEBUG SLEEP in the same transaction, say) and would date it from then
        ReplicaLink l = link;
        l.dropConnection();
        linkLost(l, null);
    }

    boolean isMasterClient(Client c) {
        return c == masterClient && c != null;
    }

    long timeoutSeconds() {
        return engine.config().getLong("repl-timeout");
    }

    /** bind-source-addr: the local address the link connects from ("" for any). */
    String bindSourceAddress() {
        return engine.config().get("bind-source-addr");
    }

    /** masterauth (and masteruser, or null), or null without a password. */
    String[] masterAuth() {
        String pass = engine.config().get("masterauth");
        if (pass.isEmpty()) return null;
        String user = engine.config().get("masteruser");
        return new String[] {user.isEmpty() ? null : user, pass};
    }

    /**
     * What PSYNC asks for: this server's history (its id, and the offset after what it has), and
     * FAILOVER when this server hands its role over to that replica.
     */
    String[] psyncArguments() {
        // (on this thread, after the commands the link queued before it lost the connection: an
        // offset read while some still waited would make the master send them again)
        String[] a = {replid, Long.toString(masterReplOffset + 1)};
        return failoverState == Failover.IN_PROGRESS ? new String[] {a[0], a[1], "FAILOVER"} : a;
    }

    /** Starts replicating from the master the configuration names (replicaof), at start. */
    void startUp() {
        String[] saved = engine.persistence().takeLoadedReplicationInfo();
        List<Object[]> expiredAtLoad = engine.persistence().takeExpiredAtLoad();
        String v = engine.config().get("replicaof").trim();
        if (v.isEmpty() && engine.cluster() != null && !engine.cluster().isMaster()) {
            // a cluster replica (nodes.conf says so) restarted on its own RDB: its master's history
            // is the cached one, and the cluster's cron follows the master with it (Redis's
            // loadDataFromDisk when !iAmMaster)
            if (saved != null) adoptSavedHistory(saved);
            engine.keyspace().setReplica(true); // its keys expire when its master says so, from the start
            return;
        }
        if (v.isEmpty()) {
            if (saved != null) continueAsMaster(saved, expiredAtLoad);
            return;
        }
        String[] hp = v.split("\\s+");
        // a replica restarted on its own RDB continues where it stopped (Redis's loadDataFromDisk
        // with the RDB's repl-id, repl-offset and repl-stream-db)
        int streamDbSaved = saved != null ? adoptSavedHistory(saved) : -1;
        setMaster(hp[0], Integer.parseInt(hp[1]));
        if (streamDbSaved >= 0) masterClient.db = engine.keyspace().db(streamDbSaved);
    }

    /**
     * The RDB's repl-id and repl-offset become this replica's, to continue from with PSYNC;
     * returns the saved stream database, or -1 when the fields are not Redis's (a full
     * synchronization then, as without them).
     */
    private int adoptSavedHistory(String[] saved) {
        try {
            long offset = Long.parseLong(saved[2]);
            int db = Integer.parseInt(saved[0]);
            if (saved[1].length() == 40 && offset != -1 && db >= 0 && db < engine.keyspace().count()) {
                replid = saved[1];
                masterReplOffset = offset;
                return db;
            }
        } catch (NumberFormatException ignored) {
            // not Redis's fields
        }
        return -1;
    }

    /**
     * A master restarted on an RDB that records its replication (Redis's loadDataFromDisk): the
     * saved id becomes the second id, valid up to the saved offset, and a backlog starts there
     * with the deletions of the keys the load found expired, so that its replicas continue with a
     * partial resynchronization (unless those deletions were too many for the backlog).
     */
    private void continueAsMaster(String[] saved, List<Object[]> expiredAtLoad) {
        long offset;
        try {
            offset = Long.parseLong(saved[2]);
            if (Integer.parseInt(saved[0]) < 0 || offset < 0 || saved[1].length() != 40) return;
        } catch (NumberFormatException e) {
            return;
        }
        if (expiredAtLoad == null) return;
        masterReplOffset = offset;
        createBacklog();
        replid2 = saved[1];
        secondReplidOffset = offset + 1;
        byte[][] del = {Bytes.ascii(engine.config().getBool("lazyfree-lazy-expire") ? "UNLINK" : "DEL"), null};
        for (Object[] k : expiredAtLoad) {
            del[1] = (byte[]) k[1];
            feed((Integer) k[0], del);
        }
        noReplicasSince = nowSeconds();
    }

    /**
     * What an RDB saved now records of replication (Redis's rdbPopulateSaveInfo): the stream's
     * database, the id and the offset, as {repl-stream-db, repl-id, repl-offset}; null when this
     * server is in no replication chain (a master without a backlog).
     */
    String[] rdbSaveInfo() {
        int db;
        if (link == null) {
            if (backlog == null) return null;
            db = streamDb == -1 ? 0 : streamDb; // (the next write SELECTs anyway)
        } else if (masterClient != null) {
            db = masterClient.db.id();
        } else {
            return null;
        }
        return new String[] {Integer.toString(db), replid, Long.toString(masterReplOffset)};
    }

    void stop() {
        if (link != null) link.stop();
    }

    /** REPLICAOF host port | NO ONE (Redis's replicaofCommand). */
    private void replicaof(Client c) {
        if (engine.cluster() != null) throw CommandError.err("REPLICAOF not allowed in cluster mode.");
        Args a = c.args();
        if (a.is(1, "no") && a.is(2, "one")) {
            if (failoverState != Failover.NONE) throw CommandError.err("REPLICAOF not allowed while failing over.");
            if (link != null) {
                unsetMaster();
                engine.log().notice("MASTER MODE enabled (user request from '" + ConnectionCommands.clientInfo(c) + "')");
            }
            c.reply().ok();
            return;
        }
        if (c.replica != null) throw CommandError.err("Command is not valid when client is a replica.");
        if (failoverState != Failover.NONE) throw CommandError.err("REPLICAOF not allowed while failing over.");
        long port = c.argLong(2);
        String host = a.string(1);
        if (link != null && link.host.equalsIgnoreCase(host) && link.port == port) {
            engine.log().notice("REPLICAOF would result into synchronization with the master we are already connected "
                    + "with. No operation performed.");
            c.reply().status("OK Already connected to specified master");
            return;
        }
        setMaster(host, (int) port);
        engine.log().notice("REPLICAOF " + host + ":" + port + " enabled (user request from '"
                + ConnectionCommands.clientInfo(c) + "')");
        c.reply().ok();
    }

    /**
     * Redis's replicationSetMaster: follow this master from now on. This server's replicas stay:
     * they go on if the new master continues this history, and are dropped when it does not (a
     * full synchronization, or +CONTINUE with another id).
     */
    private void setMaster(String host, int port) {
        boolean wasMaster = link == null;
        if (link != null) link.stop();
        engine.blocking.disconnectAll(); // clients blocked while a master (or on the old master's stream)
        // the master's client: what it runs MONITOR shows as coming from the master's address
        String address = host + ":" + port;
        masterClient = engine.internalClient(new Client.Unconnected() {
            @Override
            public void write(byte[] buf, int off, int len) {
                // a master gets no replies
            }

            @Override
            public String remoteAddress() {
                return address;
            }

            @Override
            public String localAddress() {
                ReplicaLink l = link;
                String local = l == null ? null : l.localAddress();
                return local != null ? local : super.localAddress();
            }
        });
        masterLinkUp = false;
        linkDownSince = 0;
        engine.keyspace().setReplica(true);
        engine.config().apply(engine.config().option("replicaof"), host + " " + port);
        dropHeldCommands();
        link = new ReplicaLink(engine, this, host, port);
        engine.roleChanged();
        if (wasMaster) engine.log().notice("Before turning into a replica, using my own master parameters to "
                + "synthesize a cached master: I may be able to synchronize with the new master with just a partial "
                + "transfer.");
        link.start();
    }

    /** Cluster mode: follow this master (CLUSTER REPLICATE, a failover elsewhere); nothing when already following it. */
    void clusterSetMaster(String host, int port) {
        if (replicatesFrom(host, port)) return;
        setMaster(host, port);
    }

    /** Whether the link to a master (up or not) goes to that address. */
    boolean replicatesFrom(String host, int port) {
        return link != null && link.host.equalsIgnoreCase(host) && link.port == port;
    }

    /** Cluster mode: this replica became a master (a won election, CLUSTER RESET). */
    void clusterUnsetMaster() {
        if (link != null) {
            unsetMaster();
            engine.log().notice("MASTER MODE enabled");
        }
    }

    /** How old a replica's data is (ms): since its master last spoke, or since the link went down. */
    long masterDataAgeMillis() {
        long now = System.currentTimeMillis();
        if (link != null && masterLinkUp) return now - link.lastIoMillis;
        if (linkDownSince == 0) return now;
        return now - linkDownSince * 1000;
    }

    /** Redis's replicationUnsetMaster: a master again, with a new history whose past is the old one's. */
    private void unsetMaster() {
        link.stop();
        link = null;
        dropHeldCommands();
        engine.roleChanged();
        masterLinkUp = false;
        engine.keyspace().setReplica(false);
        engine.config().apply(engine.config().option("replicaof"), "");
        // replicas of the old master's history may continue with this server up to here
        replid2 = replid;
        secondReplidOffset = masterReplOffset + 1;
        replid = newReplid();
        streamDb = -1;
        // replicas learn the new id when they reconnect, and continue from the backlog
        dropAllReplicas();
        engine.log().notice("Setting secondary replication ID to " + replid2 + ", valid up to offset: "
                + secondReplidOffset + ". New replication ID is " + replid);
        if (masterClient != null && masterClient.multi != null) engine.transactions.discardTransaction(masterClient);
    }

    /** The master sent the data set: it replaces this server's (Redis's readSyncBulkPayload). */
    void fullSync(ReplicaLink from, String masterReplid, long offset, Path rdb) {
        if (from != link) {
            deleteQuietly(rdb);
            return;
        }
        try {
            runSyncLoad(from, () -> engine.persistence().loadFromMaster(rdb));
        } finally {
            deleteQuietly(rdb);
        }
        if (from == link) followNewMaster(masterReplid, offset);
    }

    /**
     * repl-diskless-load: the master's RDB loaded from the link as it arrives (see
     * Persistence#loadFromMasterSocket); {@code size} -1 when an EOF mark ends it.
     */
    void fullSyncFromSocket(ReplicaLink from, String masterReplid, long offset, java.io.InputStream rdb, long size,
            byte[] eofMark) {
        if (from != link) return;
        boolean swapdb = engine.config().get("repl-diskless-load").equals("swapdb");
        // the same history as the data set held (Redis compares its replid with the master's):
        // the old data is a point in time of what arrives, and clients may go on reading it
        boolean async = swapdb && masterReplid.equals(replid);
        runSyncLoad(from, () -> engine.persistence().loadFromMasterSocket(rdb, size, eofMark, swapdb, async));
        if (from == link) followNewMaster(masterReplid, offset);
    }

    /** Whether the next full synchronization loads from the link (Redis's useDisklessLoad). */
    boolean usesDisklessLoad() {
        String mode = engine.config().get("repl-diskless-load");
        return mode.equals("swapdb") || mode.equals("on-empty-db") && engine.keyspace().totalKeys() == 0;
    }

    private interface Load {
        void run() throws IOException;
    }

    /**
     * Runs a full synchronization's load; when it fails (logged by it), the link starts again
     * from the handshake; SHUTDOWN or a signal during it stops the server, saving nothing.
     */
    private void runSyncLoad(ReplicaLink from, Load load) {
        dropHeldCommands();
        // the master's data set replaces this one: a forked debugging session running on it ends
        // first, or undoing its changes at its end would undo part of the load
        engine.killDiscardedSession();
        try {
            load.run();
        } catch (io.spinel.core.persist.ShutdownWhileLoading e) {
            // SHUTDOWN or a signal while the clients were served during the load: the server
            // stops without saving the half-loaded data set (Redis's whileBlockedCron)
            from.stop();
            link = null;
            engine.shutdownHandler().shutdown(false, true, true, false);
        } catch (IOException | RuntimeException e) {
            from.stop();
            link = null;
            setMaster(from.host, from.port); // try again from the start
        }
    }

    /** After a full synchronization: this server's history is the master's from its offset on. */
    private void followNewMaster(String masterReplid, long offset) {
        replid = masterReplid;
        replid2 = "0000000000000000000000000000000000000000";
        secondReplidOffset = -1;
        masterReplOffset = offset;
        // a replica keeps a backlog, for its own replicas and for when it is promoted (as Redis's)
        if (backlog == null) createBacklog();
        else resetBacklog();
        // this server's replicas hold the old data set: they synchronize again, from the new one
        dropAllReplicas();
        if (masterClient.multi != null) engine.transactions.discardTransaction(masterClient);
        masterClient.db = engine.keyspace().db(0);
        linkUp();
        if (failoverState == Failover.IN_PROGRESS) endFailover();
        engine.log().notice("MASTER <-> REPLICA sync: Finished with success");
    }

    /** The master continues where this server stopped; a new id means it took another's history. */
    void partialSync(ReplicaLink from, String newReplid) {
        if (from != link) return;
        if (newReplid != null && !newReplid.isEmpty() && !newReplid.equals(replid)) {
            replid2 = replid;
            secondReplidOffset = masterReplOffset + 1;
            replid = newReplid;
            // this server's replicas must continue under the new id: they resynchronize
            dropAllReplicas();
        }
        if (backlog == null) createBacklog();
        engine.log().notice("MASTER <-> REPLICA sync: Master accepted a Partial Resynchronization.");
        linkUp();
        if (failoverState == Failover.IN_PROGRESS) endFailover();
    }

    private void linkUp() {
        masterLinkUp = true;
        linkDownSince = 0;
        engine.flushPending();
    }

    /** The link broke; reason (null when the link already logged why) is logged unless the link was up. */
    void linkLost(ReplicaLink from, String reason) {
        if (from != link) return;
        dropHeldCommands();
        if (failoverState == Failover.IN_PROGRESS) {
            abortFailover("Failover target rejected psync request");
            return;
        }
        if (masterLinkUp) engine.log().notice("Connection with master lost.");
        else if (reason != null) engine.log().warning("Error condition on socket for SYNC: " + reason);
        if (masterLinkUp || linkDownSince == 0) linkDownSince = nowSeconds();
        masterLinkUp = false;
    }

    /**
     * The master's commands read but held by a pause (CLIENT PAUSE, FAILOVER, a shutdown's wait):
     * as Redis postpones its master's client, the stream stops being applied (slave_repl_offset
     * stays while slave_read_repl_offset moves on) and goes on in order when the pause ends.
     */
    private final ArrayList<byte[][]> heldCommands = new ArrayList<>();
    private final ArrayList<byte[]> heldRaw = new ArrayList<>();
    private long heldBytes;

    /** Commands of the master's stream: run, counted in the offset, passed on as they came. */
    void applyFromMaster(ReplicaLink from, List<byte[][]> commands, List<byte[]> raw) {
        if (from != link) return;
        Keyspace ks = engine.keyspace();
        for (int i = 0; i < commands.size(); i++) {
            byte[][] argv = commands.get(i);
            // (and while a DEBUG RELOAD or LOADAOF loads, serving clients: the load would meet
            // the keys the master's commands wrote, see Engine#loadAfterCommand)
            if (!heldCommands.isEmpty() || heldByPause(argv) || engine.loadingAfterCommand()) {
                heldCommands.add(argv);
                heldRaw.add(raw.get(i));
                heldBytes += raw.get(i).length;
                continue;
            }
            ks.setApplyingMaster(true);
            try {
                String error = argv.length > 0 ? engine.runFromMaster(masterClient, argv) : null;
                if (error != null) masterSentWhatFailed(error, argv[0]);
            } finally {
                ks.setApplyingMaster(false);
            }
            byte[] bytes = raw.get(i);
            if (backlog != null) {
                distribute(bytes, bytes.length);
            } else {
                masterReplOffset += bytes.length;
            }
        }
        releaseWaiting();
        engine.flushPending();
    }

    private boolean heldByPause(byte[][] argv) {
        if (argv.length == 0 || !engine.pause.active()) return false;
        io.spinel.core.command.Command cmd = engine.commands().lookup(argv[0], 0, argv[0].length);
        return cmd != null && engine.pause.holds(masterClient, cmd);
    }

    /** Whether commands of the master wait for a pause to end. */
    boolean holdsMasterCommands() {
        return !heldCommands.isEmpty();
    }

    /** A load that served clients ended: the master's commands held meanwhile run in order. */
    void releaseHeldCommands() {
        pauseEnded();
    }

    /** A pause ended or became milder: the master's held commands run in order (until one is held again). */
    void pauseEnded() {
        if (heldCommands.isEmpty()) return;
        List<byte[][]> commands = new ArrayList<>(heldCommands);
        List<byte[]> raw = new ArrayList<>(heldRaw);
        dropHeldCommands();
        applyFromMaster(link, commands, raw);
    }

    /** The link that read them is gone: the master sends them again from the offset applied. */
    private void dropHeldCommands() {
        heldCommands.clear();
        heldRaw.clear();
        heldBytes = 0;
    }

    /**
     * A command of the master's stream answered an error (Redis's afterErrorReply for its master's
     * client): the data sets may have diverged. Logged; with propagation-error-behavior panic
     * (or panic-on-replicas) a read-only replica stops at once rather than serve diverged data.
     */
    private void masterSentWhatFailed(String error, byte[] name) {
        if (error.startsWith("ERR ")) error = error.substring(4); // (Redis logs its text, without the code it adds)
        if (error.length() > 4096) error = error.substring(0, 4096);
        io.spinel.core.command.Command cmd = engine.commands().lookup(new String(name, java.nio.charset.StandardCharsets.ISO_8859_1));
        engine.log().warning("== CRITICAL == This replica is sending an error to its master: '" + error
                + "' after processing the command '" + (cmd != null ? cmd.name : "<unknown>") + "'");
        if (backlog != null && backlogHistlen > 0) {
            engine.log().warning("Latest backlog is: '" + latestBacklog() + "'");
        }
        String behavior = engine.config().get("propagation-error-behavior");
        if (!behavior.equals("ignore") && engine.config().getBool("replica-read-only")) {
            engine.crash("Replica was unable to apply a command from its master (propagation-error-behavior "
                    + behavior + ")");
        }
    }

    /** The last 128 bytes of the backlog, escaped as Redis's showLatestBacklog prints them. */
    private String latestBacklog() {
        int n = (int) Math.min(128, backlogHistlen);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            int b = backlog[Math.floorMod(backlogWrite - n + i, backlog.length)] & 0xff;
            if (b == '\\' || b == '"') sb.append('\\').append((char) b);
            else if (b == '\n') sb.append("\\n");
            else if (b == '\r') sb.append("\\r");
            else if (b >= 32 && b < 127) sb.append((char) b);
            else sb.append(String.format("\\x%02x", b));
        }
        return sb.toString();
    }

    /** After a full synchronization the backlog holds nothing of the new history. */
    private void resetBacklog() {
        if (backlog == null) return;
        backlogWrite = 0;
        backlogHistlen = 0;
        backlogOffset = masterReplOffset + 1;
    }

    private static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException ignored) {
            // a temporary file left behind is all that happens
        }
    }

    // ---- FAILOVER ---------------------------------------------------------------------------------

    /** Redis's failover_state. */
    enum Failover {
        NONE("no-failover"), WAIT_FOR_SYNC("waiting-for-sync"), IN_PROGRESS("failover-in-progress");

        final String infoName;

        Failover(String infoName) {
            this.infoName = infoName;
        }
    }

    private Failover failoverState = Failover.NONE;
    private String failoverHost;
    private int failoverPort;
    private long failoverEndMillis;
    private boolean failoverForce;

    /**
     * FAILOVER [TO host port [FORCE]] [ABORT] [TIMEOUT ms] (Redis's failoverCommand): writes are
     * held, and once a replica (that one) has acknowledged the whole stream this server becomes
     * its replica, asking it with PSYNC ... FAILOVER to become the master; held writes then get
     * -READONLY. Without a replica catching up before the timeout it is abandoned (or, with
     * FORCE, done anyway).
     */
    private void failover(Client c) {
        if (engine.cluster() != null) {
            throw CommandError.err("FAILOVER not allowed in cluster mode. Use CLUSTER FAILOVER command instead.");
        }
        Args a = c.args();
        if (a.count() == 2 && a.is(1, "abort")) {
            if (failoverState == Failover.NONE) throw CommandError.err("No failover in progress.");
            abortFailover("Failover manually aborted");
            c.reply().ok();
            return;
        }
        long timeout = 0;
        boolean force = false;
        String host = null;
        long port = 0;
        for (int j = 1; j < a.count(); j++) {
            if (a.is(j, "timeout") && j + 1 < a.count() && timeout == 0) {
                timeout = c.argLong(j + 1);
                if (timeout <= 0) throw CommandError.err("FAILOVER timeout must be greater than 0");
                j++;
            } else if (a.is(j, "to") && j + 2 < a.count() && host == null) {
                port = c.argLong(j + 2);
                host = a.string(j + 1);
                j += 2;
            } else if (a.is(j, "force") && !force) {
                force = true;
            } else {
                throw CommandError.SYNTAX;
            }
        }
        if (failoverState != Failover.NONE) throw CommandError.err("FAILOVER already in progress.");
        if (link != null) throw CommandError.err("FAILOVER is not valid when server is a replica.");
        if (replicas.isEmpty()) throw CommandError.err("FAILOVER requires connected replicas.");
        if (force && (timeout == 0 || host == null)) {
            throw CommandError.err("FAILOVER with force option requires both a timeout and target HOST and IP.");
        }
        if (host != null) {
            Replica target = findReplica(host, port);
            if (target == null) throw CommandError.err("FAILOVER target HOST and PORT is not a replica.");
            if (target.state != State.ONLINE) throw CommandError.err("FAILOVER target replica is not online.");
            failoverHost = host;
            failoverPort = (int) port;
            engine.log().notice("FAILOVER requested to " + host + ":" + port + ".");
        } else {
            engine.log().notice("FAILOVER requested to any replica.");
        }
        failoverEndMillis = timeout > 0 ? System.currentTimeMillis() + timeout : 0;
        failoverForce = force;
        failoverState = Failover.WAIT_FOR_SYNC;
        engine.pause.failoverPause(true);
        c.reply().ok();
    }

    private Replica findReplica(String host, long port) {
        for (Replica r : replicas) {
            if (r.ip().equalsIgnoreCase(host) && r.port() == port) return r;
        }
        return null;
    }

    /** Between the once-a-second crons: a FAILOVER waiting for a replica checks its timeout. */
    void failoverTick() {
        if (failoverState == Failover.WAIT_FOR_SYNC) updateFailover();
    }

    /** Redis's updateFailoverStatus: the timeout, or a replica that caught up, hands over. */
    private void updateFailover() {
        if (failoverState != Failover.WAIT_FOR_SYNC) return;
        if (failoverEndMillis > 0 && failoverEndMillis <= System.currentTimeMillis()) {
            if (failoverForce) {
                engine.log().notice("FAILOVER to " + failoverHost + ":" + failoverPort + " time out exceeded, failing over.");
                failoverState = Failover.IN_PROGRESS;
                setMaster(failoverHost, failoverPort);
            } else {
                abortFailover("Replica never caught up before timeout");
            }
            return;
        }
        Replica ready = null;
        if (failoverHost != null) {
            Replica r = findReplica(failoverHost, failoverPort);
            if (r != null && r.ackOffset == masterReplOffset) ready = r;
        } else {
            for (Replica r : replicas) {
                if (r.ackOffset == masterReplOffset) {
                    ready = r;
                    failoverHost = r.ip();
                    failoverPort = r.port();
                    break;
                }
            }
        }
        if (ready == null) return; // (replicas acknowledge every second)
        failoverState = Failover.IN_PROGRESS;
        engine.log().notice("Failover target " + failoverHost + ":" + failoverPort + " is synced, failing over.");
        setMaster(failoverHost, failoverPort);
    }

    private void abortFailover(String why) {
        if (failoverState == Failover.NONE) return;
        engine.log().notice(failoverHost != null ? "FAILOVER to " + failoverHost + ":" + failoverPort + " aborted: " + why
                : "FAILOVER to any replica aborted: " + why);
        if (failoverState == Failover.IN_PROGRESS) unsetMaster();
        endFailover();
    }

    /** Redis's clearFailoverState: writes go again (to a replica now, if it worked: -READONLY). */
    private void endFailover() {
        failoverState = Failover.NONE;
        failoverHost = null;
        failoverPort = 0;
        failoverEndMillis = 0;
        failoverForce = false;
        engine.pause.failoverPause(false);
    }

    // ---- what ROLE and INFO show ------------------------------------------------------------------

    void role(Reply r) {
        if (link != null) {
            r.arrayHeader(5);
            r.bulk("slave");
            r.bulkLatin1(link.host);
            r.integer(link.port);
            r.bulk(switch (link.state) {
                case CONNECT -> "connect";
                case CONNECTING -> "connecting";
                case HANDSHAKE -> "handshake";
                case SYNC -> "sync";
                case CONNECTED -> masterLinkUp ? "connected" : "sync";
            });
            r.integer(masterLinkUp ? masterReplOffset : -1);
            return;
        }
        r.arrayHeader(3);
        r.bulk("master");
        r.integer(masterReplOffset);
        List<Replica> online = new ArrayList<>();
        for (Replica x : replicas) if (x.state == State.ONLINE) online.add(x);
        r.arrayHeader(online.size());
        for (Replica x : online) {
            r.arrayHeader(3);
            r.bulk(x.ip());
            r.bulk(Integer.toString(x.port()));
            r.bulk(Long.toString(x.ackOffset));
        }
    }

    void info(StringBuilder sb) {
        sb.append("# Replication\r\n");
        long now = nowSeconds();
        if (link != null) {
            InfoCommand.field(sb, "role", "slave");
            InfoCommand.field(sb, "master_host", link.host);
            InfoCommand.field(sb, "master_port", link.port);
            // (down as soon as the link's thread found it broken, before the engine heard of it)
            boolean up = masterLinkUp && !link.broken;
            InfoCommand.field(sb, "master_link_status", up ? "up" : "down");
            InfoCommand.field(sb, "master_last_io_seconds_ago", up
                    ? (System.currentTimeMillis() - link.lastIoMillis) / 1000 : -1);
            boolean syncing = link.state == ReplicaLink.State.SYNC;
            InfoCommand.field(sb, "master_sync_in_progress", syncing ? 1 : 0);
            InfoCommand.field(sb, "slave_read_repl_offset", masterReplOffset + heldBytes);
            InfoCommand.field(sb, "slave_repl_offset", masterReplOffset);
            if (syncing) {
                long total = link.syncTotalBytes;
                long read = link.syncReadBytes;
                InfoCommand.field(sb, "master_sync_total_bytes", total);
                InfoCommand.field(sb, "master_sync_read_bytes", read);
                InfoCommand.field(sb, "master_sync_left_bytes", total - read);
                InfoCommand.field(sb, "master_sync_perc", io.spinel.core.util.Doubles.fixed(
                        total != 0 ? read * 100.0 / total : 0, 2)); // (negative for an EOF-marked RDB, as Redis shows it)
                InfoCommand.field(sb, "master_sync_last_io_seconds_ago", (System.currentTimeMillis() - link.lastIoMillis) / 1000);
            }
            if (!up) {
                // (0 while only the link's thread knows: it broke just now)
                long downFor = linkDownSince > 0 ? now - linkDownSince : masterLinkUp ? 0 : -1;
                InfoCommand.field(sb, "master_link_down_since_seconds", downFor);
            }
            InfoCommand.field(sb, "slave_priority", engine.config().get("replica-priority"));
            InfoCommand.field(sb, "slave_read_only", engine.config().getBool("replica-read-only") ? 1 : 0);
            InfoCommand.field(sb, "replica_announced", engine.config().getBool("replica-announced") ? 1 : 0);
        } else {
            InfoCommand.field(sb, "role", "master");
        }
        InfoCommand.field(sb, "connected_slaves", replicas.size());
        int i = 0;
        for (Replica r : replicas) {
            sb.append("slave").append(i++).append(":ip=").append(r.ip()).append(",port=").append(r.port())
                    .append(",state=").append(r.state.infoName).append(",offset=").append(r.ackOffset)
                    .append(",lag=").append(now - r.ackTimeSeconds).append("\r\n");
        }
        InfoCommand.field(sb, "master_failover_state", failoverState.infoName);
        InfoCommand.field(sb, "master_replid", replid);
        InfoCommand.field(sb, "master_replid2", replid2);
        InfoCommand.field(sb, "master_repl_offset", masterReplOffset);
        InfoCommand.field(sb, "second_repl_offset", secondReplidOffset);
        InfoCommand.field(sb, "repl_backlog_active", backlog != null ? 1 : 0);
        InfoCommand.field(sb, "repl_backlog_size", engine.config().get("repl-backlog-size"));
        InfoCommand.field(sb, "repl_backlog_first_byte_offset", backlog != null ? backlogOffset : 0);
        InfoCommand.field(sb, "repl_backlog_histlen", backlogHistlen);
    }

    /** INFO memory's mem_replication_backlog. */
    long backlogBytes() {
        return backlog == null ? 0 : backlog.length;
    }

    /**
     * What the replication holds besides its clients' buffers (in used_memory): the backlog, and
     * the stream kept for the replicas still getting a snapshot.
     */
    long bufferMemory() {
        long m = backlogBytes();
        for (int i = 0; i < replicas.size(); i++) {
            ByteArrayOutputStream p = replicas.get(i).pending;
            if (p != null) m += p.size();
        }
        return m;
    }

    /**
     * The replicas' output not sent yet (Redis 7.0's replication buffer beyond the backlog):
     * maxmemory does not count it (INFO mem_not_counted_for_evict), or a replica slow to read
     * would make the master evict its data.
     */
    long replicasOutputMemory() {
        long m = 0;
        for (int i = 0; i < replicas.size(); i++) m += Engine.outputBufferMemory(replicas.get(i).client);
        return m;
    }

    /** The replicas' memory (INFO mem_clients_slaves): their connections and the stream kept for those loading a snapshot. */
    long replicasMemory() {
        return replicasConnectionMemory() + bufferMemory() - backlogBytes();
    }

    /** What the replicas' connections take of clients' memory, as last measured. */
    long replicasConnectionMemory() {
        long m = 0;
        for (int i = 0; i < replicas.size(); i++) m += replicas.get(i).client.memUsage;
        return m;
    }

    int replicaCount() {
        return replicas.size();
    }
}
