package io.spinel.core.persist;

import io.spinel.core.Client;
import io.spinel.core.Notify;
import io.spinel.core.Tls;
import io.spinel.core.command.CommandError;
import io.spinel.core.command.IntList;
import io.spinel.core.keyspace.Db;
import io.spinel.core.keyspace.Entries;
import io.spinel.core.protocol.Args;
import io.spinel.core.util.Bytes;
import io.spinel.core.util.TlsChannel;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * MIGRATE host port key|"" destination-db timeout [COPY] [REPLACE] [AUTH password]
 * [AUTH2 username password] [KEYS key ...] (Redis's migrateCommand): sends the target RESTORE
 * commands carrying DUMP payloads and, unless COPY, deletes the keys it accepted. Like Redis it
 * blocks this server while it talks to the target, each step bounded by the timeout, and keeps
 * the connection for 10 s (at most 64 targets) so that a run of MIGRATEs connects once.
 */
final class Migrate {
    private Migrate() {
    }

    static final int CACHE_ITEMS = 64;
    static final long CACHE_TTL_MS = 10_000;

    /** A connection to a target, with the database last selected on it. */
    private static final class Target {
        final SocketChannel channel;
        /** With tls-cluster yes, the TLS session the target is talked to over (as Redis's MIGRATE); else null. */
        TlsChannel tls;
        final Selector selector;
        final ByteBuffer in = ByteBuffer.allocate(4096).flip();
        long lastDb = -1;
        long lastUse;

        Target() throws IOException {
            channel = SocketChannel.open();
            try {
                channel.configureBlocking(false);
                selector = Selector.open();
                channel.register(selector, 0);
            } catch (IOException | RuntimeException e) {
                channel.close();
                throw e;
            }
        }

        /**
         * Waits until the socket is ready for ops; Failure(timeout) once System.nanoTime() passes
         * {@code until} (connSyncWrite/connSyncReadLine wait the same way).
         */
        void await(int ops, long until) throws IOException, Failure {
            long left = (until - System.nanoTime()) / 1_000_000L;
            if (left <= 0) throw new Failure(true);
            channel.keyFor(selector).interestOps(ops);
            selector.select(left);
            selector.selectedKeys().clear();
        }

        /** Waits for what a TLS session that moved nothing needs: the socket writable for its ciphertext, else the peer. */
        void awaitTls(long until) throws IOException, Failure {
            await(tls.pendingOutput() ? SelectionKey.OP_WRITE : SelectionKey.OP_READ, until);
        }

        void close() {
            if (tls != null) tls.closeQuietly();
            try {
                selector.close();
            } catch (IOException ignored) {
                // closing anyway
            }
            try {
                channel.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
    }

    /** The engine's cached connections, by "host:port". */
    static final class Cache {
        private final Map<String, Target> targets = new LinkedHashMap<>();

        /** Closes connections idle for 10 s (Redis's migrateCloseTimedoutSockets, from the cron). */
        void closeIdle(long now) {
            for (Iterator<Target> it = targets.values().iterator(); it.hasNext(); ) {
                Target t = it.next();
                if (now - t.lastUse > CACHE_TTL_MS) {
                    t.close();
                    it.remove();
                }
            }
        }

        void closeAll() {
            for (Target t : targets.values()) t.close();
            targets.clear();
        }

        int size() {
            return targets.size();
        }
    }

    private static final class Failure extends Exception {
        final boolean timeout;

        Failure(boolean timeout) {
            super(null, null, false, false);
            this.timeout = timeout;
        }
    }

    /** Every key MIGRATE names is read and, unless COPY, deleted (Redis's migrateGetKeys). */
    static final List<String> KEY_FLAGS = List.of("RW", "access", "delete");

    /** Redis's migrateGetKeys: the key argument, or what follows KEYS when the key argument is empty. */
    static boolean keys(Args a, IntList out) {
        int first = 3, num = 1;
        if (a.count() > 6) {
            for (int i = 6; i < a.count(); i++) {
                if (a.is(i, "keys")) {
                    if (a.len(3) > 0) {
                        num = 0;
                    } else {
                        first = i + 1;
                        num = a.count() - first;
                    }
                    break;
                }
                if (a.is(i, "auth")) i += 1;
                else if (a.is(i, "auth2")) i += 2;
            }
        }
        for (int i = 0; i < num; i++) out.add(first + i);
        return true;
    }

    static void migrate(Client c, Cache cache) {
        Args a = c.args();
        boolean copy = false, replace = false;
        byte[] user = null, password = null;
        int firstKey = 3, numKeys = 1;
        for (int j = 6; j < a.count(); j++) {
            int more = a.count() - 1 - j;
            if (a.is(j, "copy")) {
                copy = true;
            } else if (a.is(j, "replace")) {
                replace = true;
            } else if (a.is(j, "auth")) {
                if (more < 1) throw CommandError.SYNTAX;
                password = a.copy(++j);
            } else if (a.is(j, "auth2")) {
                if (more < 2) throw CommandError.SYNTAX;
                user = a.copy(++j);
                password = a.copy(++j);
            } else if (a.is(j, "keys")) {
                if (a.len(3) != 0) {
                    throw CommandError.err("When using MIGRATE KEYS option, the key argument must be set to the empty "
                            + "string");
                }
                firstKey = j + 1;
                numKeys = a.count() - j - 1;
                break;
            } else {
                throw CommandError.SYNTAX;
            }
        }
        long timeout = c.argLong(5);
        long dbid = c.argLong(4);
        if (timeout <= 0) timeout = 1000;

        Db db = c.db();
        List<byte[]> keys = new ArrayList<>();
        List<Object> entries = new ArrayList<>();
        for (int j = 0; j < numKeys; j++) {
            int k = firstKey + j;
            Object e = db.lookupRead(a.buf(k), a.off(k), a.len(k), false);
            if (e != null) {
                keys.add(a.copy(k));
                entries.add(e);
            }
        }
        if (keys.isEmpty()) {
            c.reply().status("NOKEY");
            return;
        }
        String host = a.string(1);
        String port = a.string(2);
        boolean compress = c.engine().config().getBool("rdbcompression");
        boolean mayRetry = true;
        while (true) {
            Target t;
            try {
                // as Redis, over TLS whenever tls-cluster is yes
                Tls tls = c.engine().config().getBool("tls-cluster") ? c.engine().tls() : null;
                t = connect(cache, host, port, timeout, tls);
            } catch (Failure f) {
                // refused or reset: Redis finds out when it writes, so it says so, and tries once more
                if (mayRetry) {
                    mayRetry = false;
                    continue;
                }
                throw new CommandError("IOERR error or timeout writing to target instance");
            }
            boolean select = t.lastDb != dbid;
            RdbOut cmd = new RdbOut(256, false);
            if (password != null) {
                if (user != null) AofFormat.command(cmd, Bytes.ascii("AUTH"), user, password);
                else AofFormat.command(cmd, Bytes.ascii("AUTH"), password);
            }
            if (select) AofFormat.command(cmd, Bytes.ascii("SELECT"), Bytes.longToBytes(dbid));
            List<byte[]> sent = new ArrayList<>();
            long now = c.engine().keyspace().now();
            // in a cluster the target may be importing the slot: RESTORE-ASKING is served there
            byte[] restore = Bytes.ascii(c.engine().cluster() != null ? "RESTORE-ASKING" : "RESTORE");
            for (int j = 0; j < keys.size(); j++) {
                long expireAt = Entries.expire(entries.get(j));
                long ttl = 0;
                if (expireAt >= 0) {
                    ttl = expireAt - now;
                    if (ttl < 0) continue; // expired while we looked
                    if (ttl < 1) ttl = 1;
                }
                byte[] payload = PersistCommands.payload(entries.get(j), compress);
                if (replace) {
                    AofFormat.command(cmd, restore, keys.get(j), Bytes.longToBytes(ttl), payload,
                            Bytes.ascii("REPLACE"));
                } else {
                    AofFormat.command(cmd, restore, keys.get(j), Bytes.longToBytes(ttl), payload);
                }
                sent.add(keys.get(j));
            }
            boolean writing = true;
            try {
                write(t, cmd.toByteArray(), timeout);
                writing = false;
                String authReply = password != null ? readLine(t, timeout) : null;
                String selectReply = select ? readLine(t, timeout) : null;
                String error = null;
                List<byte[]> deleted = new ArrayList<>();
                boolean socketError = false;
                for (int j = 0; j < sent.size(); j++) {
                    String reply;
                    try {
                        reply = readLine(t, timeout);
                    } catch (Failure f) {
                        if (error == null && j == 0 && mayRetry && !f.timeout) throw f;
                        socketError = true;
                        break;
                    }
                    if ((authReply != null && authReply.startsWith("-"))
                            || (selectReply != null && selectReply.startsWith("-")) || reply.startsWith("-")) {
                        if (error == null) {
                            t.lastDb = -1;
                            String from = authReply != null && authReply.startsWith("-") ? authReply
                                    : selectReply != null && selectReply.startsWith("-") ? selectReply : reply;
                            error = "ERR Target instance replied with error: " + from.substring(1);
                        }
                    } else if (!copy) {
                        byte[] key = sent.get(j);
                        db.remove(key, 0, key.length);
                        c.engine().keyModified(db, key);
                        c.engine().notify(Notify.GENERIC, "del", db, key);
                        c.engine().dirty++;
                        deleted.add(key);
                    }
                }
                if (socketError) drop(cache, host, port);
                if (!copy && !deleted.isEmpty()) {
                    byte[][] del = new byte[deleted.size() + 1][];
                    del[0] = Bytes.ascii("DEL");
                    for (int i = 0; i < deleted.size(); i++) del[i + 1] = deleted.get(i);
                    c.propagateAs(del);
                }
                if (error == null && socketError) {
                    throw new CommandError("IOERR error or timeout reading to target instance");
                }
                if (error != null) throw new CommandError(error);
                t.lastDb = dbid;
                c.reply().ok();
                return;
            } catch (Failure f) {
                drop(cache, host, port);
                if (!f.timeout && mayRetry) {
                    mayRetry = false;
                    continue;
                }
                throw new CommandError("IOERR error or timeout " + (writing ? "writing" : "reading")
                        + " to target instance");
            }
        }
    }

    /** Redis's migrateGetSocket: a cached connection, or a new one made within the timeout. */
    private static Target connect(Cache cache, String host, String port, long timeout, Tls tls) throws Failure {
        String name = host + ":" + port;
        Target t = cache.targets.get(name);
        if (t != null) {
            t.lastUse = System.currentTimeMillis();
            return t;
        }
        if (cache.targets.size() == CACHE_ITEMS) {
            // full: drop one at random, as Redis does (here the oldest)
            Iterator<Target> it = cache.targets.values().iterator();
            it.next().close();
            it.remove();
        }
        try {
            t = new Target();
        } catch (IOException e) {
            throw new CommandError("IOERR error or timeout connecting to the client");
        }
        try {
            long until = System.nanoTime() + timeout * 1_000_000L;
            if (!t.channel.connect(new InetSocketAddress(host, Integer.parseInt(port)))) {
                while (!t.channel.finishConnect()) t.await(SelectionKey.OP_CONNECT, until);
            }
            t.channel.socket().setTcpNoDelay(true);
        } catch (Failure timedOut) {
            // only a connection that never completes is a connect error in Redis (it waits for the
            // socket to become writable); a refused one fails at the first write
            t.close();
            throw new CommandError("IOERR error or timeout connecting to the client");
        } catch (IOException | RuntimeException e) {
            t.close();
            throw new Failure(false);
        }
        if (tls != null) {
            // the handshake is part of Redis's blocking connect: its failure is a connect error
            try {
                long until = System.nanoTime() + timeout * 1_000_000L;
                t.tls = new TlsChannel(t.channel, tls.clusterBusEngine(true, null, 0));
                while (!t.tls.handshake()) t.awaitTls(until);
            } catch (Failure | IOException | RuntimeException e) {
                t.close();
                throw new CommandError("IOERR error or timeout connecting to the client");
            }
        }
        t.lastUse = System.currentTimeMillis();
        cache.targets.put(name, t);
        return t;
    }

    private static void drop(Cache cache, String host, String port) {
        Target t = cache.targets.remove(host + ":" + port);
        if (t != null) t.close();
    }

    /** Writes everything, waiting for the socket at most {@code timeout} ms at a time (connSyncWrite). */
    private static void write(Target t, byte[] bytes, long timeout) throws Failure {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        try {
            long until = System.nanoTime() + timeout * 1_000_000L;
            while (b.hasRemaining()) {
                int n = t.tls == null ? t.channel.write(b) : t.tls.write(b);
                if (n > 0) until = System.nanoTime() + timeout * 1_000_000L;
                else if (t.tls == null) t.await(SelectionKey.OP_WRITE, until);
                else t.awaitTls(until);
            }
            while (t.tls != null && !t.tls.flush()) t.await(SelectionKey.OP_WRITE, until);
        } catch (IOException e) {
            throw new Failure(false);
        }
    }

    /** Reads one reply line (without CRLF), waiting at most {@code timeout} ms (connSyncReadLine). */
    private static String readLine(Target t, long timeout) throws Failure {
        StringBuilder line = new StringBuilder();
        try {
            long until = System.nanoTime() + timeout * 1_000_000L;
            while (true) {
                while (t.in.hasRemaining()) {
                    char ch = (char) (t.in.get() & 0xff);
                    if (ch == '\n') {
                        int n = line.length();
                        if (n > 0 && line.charAt(n - 1) == '\r') line.setLength(n - 1);
                        return line.toString();
                    }
                    line.append(ch);
                }
                t.in.clear();
                int n = t.tls == null ? t.channel.read(t.in) : t.tls.read(t.in);
                t.in.flip();
                if (n < 0) throw new Failure(false);
                if (n == 0 && t.tls != null) t.awaitTls(until);
                else if (n == 0) t.await(SelectionKey.OP_READ, until);
            }
        } catch (IOException e) {
            throw new Failure(false);
        }
    }
}
