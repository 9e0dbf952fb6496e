package io.spinel.core;

import io.spinel.core.persist.AofFormat;
import io.spinel.core.persist.RdbOut;
import io.spinel.core.util.Bytes;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.RejectedExecutionException;

/**
 * A replica's link to its master (Redis's syncWithMaster and readSyncBulkPayload, on a thread of
 * its own with a blocking socket): connects, PINGs, authenticates (masterauth, masteruser),
 * announces its port and capabilities, asks with PSYNC to continue where it stopped, receives
 * the RDB of a full synchronization (with a length or EOF-marked) into a temporary file, then
 * reads the stream of commands. Everything that touches data is handed to the engine's thread
 * in order ({@link Replication}); the link reconnects a second after it is lost, until stopped.
 */
final class ReplicaLink implements Runnable {
    /** The state ROLE and INFO show, as Redis's repl_state. */
    enum State { CONNECT, CONNECTING, HANDSHAKE, SYNC, CONNECTED }

    private final Engine engine;
    private final Replication replication;
    final String host;
    final int port;
    private final Thread thread;
    private volatile boolean stopped;
    private volatile Socket socket;
    private OutputStream out;
    volatile State state = State.CONNECT;
    /** When anything last came from the master (ms). */
    volatile long lastIoMillis;
    /** While an RDB arrives: its size (-1 when EOF-marked) and what was read so far. */
    volatile long syncTotalBytes;
    volatile long syncReadBytes;

    /**
     * Writes the acknowledgements, so that the engine's thread never waits on the socket: a
     * master that stops reading fills it, and only this thread then blocks (until the reader's
     * timeout closes the socket). Offsets asked meanwhile are merged into the latest.
     */
    private final Thread ackWriter;
    private final Object ackLock = new Object();
    /** The offset to acknowledge next, -1 when none is waiting; guarded by ackLock. */
    private long ackToSend = -1;

    ReplicaLink(Engine engine, Replication replication, String host, int port) {
        this.engine = engine;
        this.replication = replication;
        this.host = host;
        this.port = port;
        this.thread = new Thread(this, "spinel-replica-link");
        thread.setDaemon(true);
        this.ackWriter = new Thread(this::writeAcks, "spinel-replica-ack");
        ackWriter.setDaemon(true);
    }

    void start() {
        thread.start();
        ackWriter.start();
    }

    /** Stops the link (REPLICAOF another master or NO ONE, shutdown): the thread ends without touching data again. */
    void stop() {
        stopped = true;
        closeSocket();
        thread.interrupt();
        ackWriter.interrupt();
    }

    /**
     * Closes the current connection only: the link finds it lost and connects again (CLIENT KILL
     * TYPE master). On the engine's thread. What the connection brought that the engine has not
     * applied yet (read while the engine was busy, as during DEBUG SLEEP) is dropped with it, as
     * Redis frees its master's client with the unprocessed query buffer: the offset stays where
     * the engine stopped, and the next PSYNC asks from there.
     */
    void dropConnection() {
        droppedConnection = connection;
        broken = true;
        closeSocket();
    }

    /** Counts this link's connections (written by the link's thread at the start of each). */
    private volatile int connection;
    /** The connection CLIENT KILL dropped, whose queued stream is not applied; -1 none. */
    private volatile int droppedConnection = -1;

    /** This side's address of the connection, "ip:port", or null without one. */
    String localAddress() {
        Socket s = socket;
        if (s == null || !s.isBound()) return null;
        return io.spinel.core.util.SocketAddresses.format((InetSocketAddress) s.getLocalSocketAddress());
    }

    private void closeSocket() {
        Socket s = socket;
        if (s != null) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing is all that is left to do
            }
        }
    }

    @Override
    public void run() {
        while (!stopped) {
            try {
                session();
            } catch (java.net.SocketTimeoutException e) {
                broken = true;
                // nothing for repl-timeout seconds: Redis's replicationCron words, by state
                String why = switch (state) {
                    case CONNECT, CONNECTING, HANDSHAKE -> "Timeout connecting to the MASTER...";
                    case SYNC -> "Timeout receiving bulk data from MASTER... If the problem persists try to set the "
                            + "'repl-timeout' parameter in redis.conf to a larger value.";
                    case CONNECTED -> "MASTER timeout: no data nor PING received...";
                };
                if (!stopped) onEngine(() -> {
                    engine.log().warning(why);
                    replication.linkLost(this, null);
                });
            } catch (IOException | RuntimeException e) {
                broken = true;
                // (a connection CLIENT KILL dropped was reported lost by the engine already)
                if (!stopped && droppedConnection != connection) {
                    onEngine(() -> replication.linkLost(this, e.getMessage() == null ? e.toString() : e.getMessage()));
                }
            } finally {
                closeSocket();
                state = State.CONNECT;
            }
            try {
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /**
     * Computes a value on the engine's thread, after the tasks this link queued before (the stream
     * it read last may still be waiting there, as while the engine runs DEBUG SLEEP), and waits.
     */
    private <T> T onEngineAndWait(java.util.function.Supplier<T> task) throws IOException {
        java.util.concurrent.CompletableFuture<T> result = new java.util.concurrent.CompletableFuture<>();
        if (!onEngine(() -> result.complete(task.get()))) throw new IOException("the server is stopping");
        try {
            return result.get(Math.max(1, replication.timeoutSeconds()), java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted");
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IOException("the server did not answer: " + e);
        }
    }

    /** Runs a task on the engine's thread and waits for its end, however long; false when the server stops. */
    private boolean onEngineUntilDone(Runnable task) throws IOException {
        java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
        boolean queued = submit(() -> {
            try {
                if (!stopped) task.run();
            } finally {
                done.countDown();
            }
        });
        if (!queued) return false;
        try {
            while (!done.await(100, java.util.concurrent.TimeUnit.MILLISECONDS)) {
                if (engine.loop().isShutdown()) return false;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted");
        }
        return true;
    }

    /** Runs a task on the engine's thread, in order with the others; false when the server stops. */
    private boolean onEngine(Runnable task) {
        return submit(() -> {
            if (!stopped) task.run();
        });
    }

    /** Queues on the engine's loop; false (and the link stopped) when the server stops. */
    private boolean submit(Runnable r) {
        try {
            engine.loop().execute(r);
            return true;
        } catch (RejectedExecutionException e) {
            stopped = true;
            return false;
        }
    }

    /**
     * Set by this thread the moment it finds the link broken, before the engine hears of it: INFO
     * says the link is down from then on (a client that saw the master drop the link and asks the
     * replica at once must not find it still up, as a single-threaded Redis never shows it).
     */
    volatile boolean broken;

    /** One connection: handshake, synchronization, then the stream until the link breaks. */
    private void session() throws IOException {
        connection++;
        broken = false;
        state = State.CONNECTING;
        onEngine(() -> engine.log().notice("Connecting to MASTER " + host + ":" + port));
        Socket s = new Socket();
        socket = s;
        if (stopped) return;
        int timeoutMs = (int) Math.min(Integer.MAX_VALUE, Math.max(1, replication.timeoutSeconds()) * 1000);
        String source = replication.bindSourceAddress();
        if (!source.isEmpty()) s.bind(new InetSocketAddress(source, 0)); // bind-source-addr, as Redis's connection to its master
        s.connect(new InetSocketAddress(host, port), timeoutMs);
        s.setSoTimeout(timeoutMs);
        s.setTcpNoDelay(true);
        if (engine.config().getBool("tls-replication")) {
            Tls tls = engine.tls();
            if (tls == null) throw new IOException("tls-replication needs TLS, which this server does not have");
            s = tls.overTls(s, host, port);
            socket = s;
            if (stopped) return;
        }
        InputStream in = new BufferedInputStream(new CountingInput(s.getInputStream(), engine.stats().netReplInputBytes), 1 << 16);
        out = s.getOutputStream();
        lastIoMillis = System.currentTimeMillis();
        onEngine(() -> engine.log().notice("MASTER <-> REPLICA sync started"));
        state = State.HANDSHAKE;
        String pong = call(in, "PING");
        if (pong.startsWith("-") && !pong.startsWith("-NOAUTH") && !pong.startsWith("-NOPERM")
                && !pong.startsWith("-ERR operation not permitted")) {
            throw new IOException("Error reply to PING from master: '" + pong.substring(1) + "'");
        }
        String[] auth = replication.masterAuth();
        if (auth != null) {
            String reply = auth[0] != null ? call(in, "AUTH", auth[0], auth[1]) : call(in, "AUTH", auth[1]);
            if (reply.startsWith("-")) throw new IOException("Unable to AUTH to MASTER: " + reply.substring(1));
        }
        String announcePort = engine.config().get("replica-announce-port");
        // where the master's INFO says this replica listens: its TLS port when it replicates over TLS
        String tlsPort = engine.config().get("tls-port");
        String listening = !announcePort.equals("0") ? announcePort
                : engine.config().getBool("tls-replication") && !tlsPort.equals("0") ? tlsPort : Integer.toString(engine.port());
        call(in, "REPLCONF", "listening-port", listening);
        String announceIp = engine.config().get("replica-announce-ip");
        if (!announceIp.isEmpty()) call(in, "REPLCONF", "ip-address", announceIp);
        call(in, "REPLCONF", "capa", "eof", "capa", "psync2");
        String[] psync = onEngineAndWait(replication::psyncArguments);
        String[] command = new String[psync.length + 1];
        command[0] = "PSYNC";
        System.arraycopy(psync, 0, command, 1, psync.length);
        String reply = call(in, command);
        long loadedOffset = -1;
        if (reply.startsWith("+FULLRESYNC")) {
            String[] f = reply.split(" ");
            if (f.length < 3) throw new IOException("Master replied with wrong +FULLRESYNC syntax.");
            String replid = f[1];
            long offset = Long.parseLong(f[2]);
            state = State.SYNC;
            String header = readRdbHeader(in);
            // the stream is read only after the load: the clients served while it runs must not
            // find the master's next commands queued on the loop before it ends
            if (onEngineAndWait(replication::usesDisklessLoad)) {
                onEngine(engine::replicaLoadStarts);
                if (!loadFromLink(in, header, replid, offset)) return;
            } else {
                Path rdb = receiveRdb(in, header);
                onEngine(engine::replicaLoadStarts);
                if (!onEngineUntilDone(() -> replication.fullSync(this, replid, offset, rdb))) return;
            }
            if (stopped) return;
            loadedOffset = offset;
        } else if (reply.startsWith("+CONTINUE")) {
            String newReplid = reply.length() > 10 ? reply.substring(10).trim() : null;
            if (!onEngine(() -> replication.partialSync(this, newReplid))) return;
        } else {
            throw new IOException("Unexpected reply to PSYNC from master: " + reply);
        }
        state = State.CONNECTED;
        // a master that streamed the RDB (diskless) holds the stream until this first acknowledgement
        if (loadedOffset >= 0) sendAck(loadedOffset);
        stream(in);
    }

    /** Sends a command and reads its one-line reply (newlines the master sends to keep us waiting skipped). */
    private String call(InputStream in, String... args) throws IOException {
        byte[][] argv = new byte[args.length][];
        for (int i = 0; i < args.length; i++) argv[i] = args[i].getBytes(StandardCharsets.ISO_8859_1);
        write(encode(argv));
        String line;
        do {
            line = readLine(in);
        } while (line.isEmpty());
        return line;
    }

    /** A command as RESP, as the AOF and the replication stream write one. */
    private static byte[] encode(byte[]... argv) {
        RdbOut out = new RdbOut(64, false);
        AofFormat.command(out, argv);
        return out.toByteArray();
    }

    /** Writes to the master: the handshake from this thread, acknowledgements from the ack writer. */
    synchronized void write(byte[] b) throws IOException {
        OutputStream o = out;
        if (o == null) throw new IOException("not connected");
        o.write(b);
        o.flush();
    }

    /** REPLCONF ACK offset, from the engine's thread: handed to the ack writer, never waited for. */
    void sendAck(long offset) {
        if (state != State.CONNECTED) return;
        synchronized (ackLock) {
            ackToSend = offset;
            ackLock.notify();
        }
    }

    private void writeAcks() {
        while (!stopped) {
            long offset;
            synchronized (ackLock) {
                while (ackToSend < 0) {
                    try {
                        ackLock.wait();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                offset = ackToSend;
                ackToSend = -1;
            }
            // an offset asked for on a link since lost is not for the next one's handshake
            if (state != State.CONNECTED) continue;
            try {
                write(encode(Bytes.ascii("REPLCONF"), Bytes.ascii("ACK"), Bytes.longToBytes(offset)));
            } catch (IOException ignored) {
                // the reading thread sees the same failure and reconnects
            }
        }
    }

    private String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        while (true) {
            int c = in.read();
            if (c < 0) throw new EOFException("the master closed the connection");
            if (c == '\n') break;
            b.write(c);
            if (b.size() > 64 * 1024) throw new IOException("a line from the master is too long");
        }
        lastIoMillis = System.currentTimeMillis();
        byte[] l = b.toByteArray();
        int n = l.length > 0 && l[l.length - 1] == '\r' ? l.length - 1 : l.length;
        return new String(l, 0, n, StandardCharsets.ISO_8859_1);
    }

    /** The line before a full synchronization's RDB: "$<length>", or "$EOF:<mark>" when a mark ends it. */
    private String readRdbHeader(InputStream in) throws IOException {
        String header;
        do {
            header = readLine(in);
        } while (header.isEmpty());
        if (header.startsWith("-")) throw new IOException("MASTER aborted replication with an error: " + header.substring(1));
        if (!header.startsWith("$")) throw new IOException("Bad protocol from MASTER, the first byte is not '$' (we "
                + "received '" + header + "'), are you sure the host and port are right?");
        if (header.startsWith("$EOF:") && header.length() - 5 != 40) throw new IOException("bad EOF mark from the master");
        return header;
    }

    /** How long a read of the link waits during a diskless load before the engine serves its clients. */
    private static final int LOAD_POLL_MILLIS = 10;

    /**
     * repl-diskless-load: the engine's thread loads the RDB from the link itself (Redis's rioConn),
     * this thread waiting; reads that find no byte yet let it serve its clients. False when the
     * server stops.
     */
    private boolean loadFromLink(InputStream in, String header, String replid, long offset) throws IOException {
        byte[] mark = header.startsWith("$EOF:") ? header.substring(5).getBytes(StandardCharsets.ISO_8859_1) : null;
        long size = mark != null ? -1 : Long.parseLong(header.substring(1));
        syncTotalBytes = size;
        syncReadBytes = 0;
        onEngine(() -> engine.log().notice(mark != null
                ? "MASTER <-> REPLICA sync: receiving streamed RDB from master with EOF to parser"
                : "MASTER <-> REPLICA sync: receiving " + size + " bytes from master to parser"));
        Socket s = socket;
        int timeoutMs = s.getSoTimeout();
        LinkRdbStream rdb = new LinkRdbStream(in, size, timeoutMs);
        s.setSoTimeout(LOAD_POLL_MILLIS);
        try {
            if (!onEngineUntilDone(() -> replication.fullSyncFromSocket(this, replid, offset, rdb, size, mark))) return false;
        } finally {
            if (!s.isClosed()) s.setSoTimeout(timeoutMs);
        }
        // whatever of the announced length the RDB did not use is not the stream
        if (!stopped) rdb.skipRest();
        return true;
    }

    /**
     * The RDB of a diskless load as the loader reads it from the link: at most the announced
     * length, or everything up to the mark (the master sends nothing after it before the first
     * acknowledgement); a read that times out lets the engine serve its clients when it is the
     * engine's thread reading, and fails once nothing came for repl-timeout.
     */
    private final class LinkRdbStream extends InputStream {
        private final InputStream in;
        private final long timeoutMs;
        /** Bytes of the announced length not yet read; -1 with a mark. */
        private long left;

        LinkRdbStream(InputStream in, long size, long timeoutMs) {
            this.in = in;
            this.left = size;
            this.timeoutMs = timeoutMs;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (left == 0) return -1;
            if (left > 0) len = (int) Math.min(len, left);
            while (true) {
                int n;
                try {
                    n = in.read(b, off, len);
                } catch (java.net.SocketTimeoutException e) {
                    if (stopped) throw new IOException("the link was closed");
                    if (System.currentTimeMillis() - lastIoMillis >= timeoutMs) {
                        throw new java.net.SocketTimeoutException("Timeout receiving bulk data from MASTER");
                    }
                    if (engine.inLoop()) engine.processEventsWhileLoading();
                    continue;
                }
                if (n < 0) throw new EOFException("the master closed the connection during the RDB transfer");
                lastIoMillis = System.currentTimeMillis();
                syncReadBytes += n;
                if (left > 0) left -= n;
                return n;
            }
        }

        void skipRest() throws IOException {
            byte[] buf = new byte[8192];
            while (left > 0) read(buf, 0, buf.length);
        }
    }

    /** The RDB of a full synchronization to a file: its bytes after the header, up to its length or its mark. */
    private Path receiveRdb(InputStream in, String header) throws IOException {
        Path file = Path.of(engine.workingDirectory()).resolve("temp-" + ProcessHandle.current().pid() + "."
                + System.currentTimeMillis() + ".rdb");
        byte[] buf = new byte[1 << 16];
        syncReadBytes = 0;
        try (OutputStream f = Files.newOutputStream(file)) {
            if (header.startsWith("$EOF:")) {
                byte[] mark = header.substring(5).getBytes(StandardCharsets.ISO_8859_1);
                syncTotalBytes = -1;
                onEngine(() -> engine.log().notice("MASTER <-> REPLICA sync: receiving streamed RDB from master with "
                        + "EOF to disk"));
                // everything but the last 40 bytes read is the RDB; the end is where those are the mark
                byte[] tail = new byte[0];
                while (true) {
                    int n = in.read(buf);
                    if (n < 0) throw new EOFException("the master closed the connection during the RDB transfer");
                    lastIoMillis = System.currentTimeMillis();
                    syncReadBytes += n;
                    byte[] all = Arrays.copyOf(tail, tail.length + n);
                    System.arraycopy(buf, 0, all, tail.length, n);
                    if (all.length >= 40 && Arrays.equals(all, all.length - 40, all.length, mark, 0, 40)) {
                        f.write(all, 0, all.length - 40);
                        break;
                    }
                    int keep = Math.min(40, all.length);
                    f.write(all, 0, all.length - keep);
                    tail = Arrays.copyOfRange(all, all.length - keep, all.length);
                }
            } else {
                long size = Long.parseLong(header.substring(1));
                syncTotalBytes = size;
                onEngine(() -> engine.log().notice("MASTER <-> REPLICA sync: receiving " + size
                        + " bytes from master to disk"));
                long left = size;
                while (left > 0) {
                    int n = in.read(buf, 0, (int) Math.min(buf.length, left));
                    if (n < 0) throw new EOFException("the master closed the connection during the RDB transfer");
                    lastIoMillis = System.currentTimeMillis();
                    f.write(buf, 0, n);
                    left -= n;
                    syncReadBytes += n;
                }
            }
            f.flush();
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(file);
            throw e;
        }
        // it becomes the RDB file (Redis syncs it before the rename)
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(file, java.nio.file.StandardOpenOption.WRITE)) {
            ch.force(true);
        }
        return file;
    }

    /** The stream: each command with its size in bytes, handed to the engine a batch at a time. */
    private void stream(InputStream in) throws IOException {
        List<byte[][]> batch = new ArrayList<>();
        List<byte[]> raw = new ArrayList<>();
        ByteArrayOutputStream cmd = new ByteArrayOutputStream();
        int current = connection;
        while (!stopped) {
            cmd.reset();
            byte[][] argv = readCommand(in, cmd);
            batch.add(argv);
            raw.add(cmd.toByteArray());
            if (in.available() == 0 || batch.size() >= 1024) {
                List<byte[][]> b = batch;
                List<byte[]> r = raw;
                if (!onEngine(() -> {
                    if (droppedConnection != current) replication.applyFromMaster(this, b, r);
                })) return;
                batch = new ArrayList<>();
                raw = new ArrayList<>();
            }
        }
    }

    /** One command of the stream (an array of bulk strings); its bytes as received go to {@code raw}. */
    private byte[][] readCommand(InputStream in, ByteArrayOutputStream raw) throws IOException {
        String head = readLineCopy(in, raw);
        if (head.isEmpty()) return readCommand(in, raw); // (a newline: nothing to run, but counted)
        if (head.charAt(0) != '*') throw new IOException("Protocol error from master: expected '*', got '" + head + "'");
        int n = Integer.parseInt(head.substring(1));
        byte[][] argv = new byte[n][];
        for (int i = 0; i < n; i++) {
            String len = readLineCopy(in, raw);
            if (len.isEmpty() || len.charAt(0) != '$') throw new IOException("Protocol error from master: expected '$'");
            int l = Integer.parseInt(len.substring(1));
            byte[] arg = in.readNBytes(l + 2);
            if (arg.length < l + 2) throw new EOFException("the master closed the connection");
            raw.write(arg, 0, arg.length);
            argv[i] = Arrays.copyOf(arg, l);
        }
        lastIoMillis = System.currentTimeMillis();
        return argv;
    }

    private final ByteArrayOutputStream line = new ByteArrayOutputStream();

    private String readLineCopy(InputStream in, ByteArrayOutputStream raw) throws IOException {
        line.reset();
        while (true) {
            int c = in.read();
            if (c < 0) throw new EOFException("the master closed the connection");
            line.write(c);
            if (c == '\n') break;
            if (line.size() > 64 * 1024) throw new IOException("a line from the master is too long");
        }
        byte[] l = line.toByteArray();
        raw.write(l, 0, l.length);
        int end = l.length - 1;
        if (end > 0 && l[end - 1] == '\r') end--;
        return new String(l, 0, end, StandardCharsets.ISO_8859_1);
    }

    /** Counts what is read from the master (INFO total_net_repl_input_bytes): each socket read, under the buffering. */
    private static final class CountingInput extends FilterInputStream {
        private final AtomicLong count;

        CountingInput(InputStream in, AtomicLong count) {
            super(in);
            this.count = count;
        }

        @Override
        public int read() throws IOException {
            int b = in.read();
            if (b >= 0) count.incrementAndGet();
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = in.read(b, off, len);
            if (n > 0) count.addAndGet(n);
            return n;
        }
    }
}
