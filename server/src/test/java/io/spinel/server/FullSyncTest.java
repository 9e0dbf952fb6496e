package io.spinel.server;

import io.spinel.core.persist.Crc64;
import io.spinel.server.testing.RawClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A full synchronization as the replica's socket sees it, byte for byte (the test plays the
 * replica): with repl-diskless-sync (Redis 7.0's default) the RDB streams between EOF marks and
 * the stream written meanwhile waits for the replica's first REPLCONF ACK; several replicas
 * asking within repl-diskless-sync-delay share one snapshot; a replica that stops reading is
 * dropped and its snapshot stopped; without diskless, a replica asking while a snapshot for
 * another is being written to disk shares it. ReplicationTest checks the same paths with
 * redis-server's own replica code.
 */
class FullSyncTest {
    private SpinelServer master;
    private final List<FakeReplica> replicas = new ArrayList<>();

    @AfterEach
    void stop() throws IOException {
        for (FakeReplica r : replicas) r.close();
        if (master != null) master.close();
    }

    private RawClient start(String... options) throws IOException {
        SpinelServer.Builder b = SpinelServer.builder().randomPort().option("bind", "127.0.0.1")
                .option("dir", Files.createTempDirectory("spinel").toString());
        for (int i = 0; i < options.length; i += 2) b.option(options[i], options[i + 1]);
        master = b.start();
        return new RawClient(master.port());
    }

    private FakeReplica replica(boolean eof) throws IOException {
        FakeReplica r = new FakeReplica(master.port(), eof);
        replicas.add(r);
        return r;
    }

    private static String info(RawClient c, String section) throws IOException {
        return new String(c.call("INFO", section), StandardCharsets.ISO_8859_1);
    }

    /** Waits until INFO's section contains the text. */
    private static void await(RawClient c, String section, String text) throws Exception {
        long deadline = System.currentTimeMillis() + 20_000;
        while (!info(c, section).contains(text)) {
            assertThat(System.currentTimeMillis()).as(text + " in " + info(c, section)).isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    /** The RDB format and its CRC-64 trailer over everything before it. */
    private static void assertRdb(byte[] rdb) {
        assertThat(new String(rdb, 0, 9, StandardCharsets.ISO_8859_1)).isEqualTo("REDIS0010");
        assertThat(rdb[rdb.length - 9]).as("EOF opcode").isEqualTo((byte) 0xff);
        long trailer = 0;
        for (int i = 0; i < 8; i++) trailer |= (rdb[rdb.length - 8 + i] & 0xffL) << (8 * i);
        assertThat(trailer).isEqualTo(Crc64.of(rdb, 0, rdb.length - 8));
    }

    @Test
    void theRdbStreamsBetweenEofMarksAndTheStreamWaitsForTheFirstAck() throws Exception {
        // a directory no one may write to (root included): a snapshot file could not be written
        Path unwritable = Path.of("/proc");
        assertThatThrownBy(() -> Files.createFile(unwritable.resolve("spinel-test"))).isInstanceOf(IOException.class);
        try (RawClient m = start("repl-diskless-sync-delay", "0", "dir", unwritable.toString())) {
            m.call("EVAL", "for i = 1, 2000 do redis.call('set', 'k' .. i, string.rep('v', 500)) end", "0");
            FakeReplica r = replica(true);
            String fullResync = r.psync();
            assertThat(fullResync).matches("\\+FULLRESYNC [0-9a-f]{40} \\d+");
            String header = r.line();
            assertThat(header).matches("\\$EOF:[0-9a-f]{40}");
            byte[] rdb = r.untilMark(header.substring(5).getBytes(StandardCharsets.ISO_8859_1));
            assertRdb(rdb);
            assertThat(rdb.length).as("2000 keys, compressed values").isGreaterThan(2000 * 20);
            await(m, "replication", "state=online");
            // the replica loads what it got: the master keeps the stream for it until it says so
            m.call("SET", "after", "1");
            assertThatThrownBy(() -> r.read(1, 300)).isInstanceOf(SocketTimeoutException.class);
            r.send("REPLCONF", "ACK", "0");
            assertThat(r.command()).containsExactly("SELECT", "0");
            assertThat(r.command()).containsExactly("SET", "after", "1");
            // and from then on it flows as it is written
            m.call("SET", "later", "2");
            assertThat(r.command()).containsExactly("SET", "later", "2");
            assertThat(info(m, "persistence")).contains("rdb_bgsave_in_progress:0");
        }
    }

    @Test
    void replicasArrivingWithinTheDelayShareOneSnapshot() throws Exception {
        // a long delay, cut short once two replicas wait
        try (RawClient m = start("repl-diskless-sync-delay", "600", "repl-diskless-sync-max-replicas", "2")) {
            m.call("SET", "k", "v");
            FakeReplica a = replica(true);
            a.sendPsync();
            await(m, "replication", "slave0:ip=127.0.0.1,port=" + a.port + ",state=wait_bgsave");
            a.onlyKeepAlives(1500);
            assertThat(info(m, "persistence")).contains("rdb_bgsave_in_progress:0");
            FakeReplica b = replica(true);
            String fullB = b.psync();
            assertThat(a.nonEmptyLine()).isEqualTo(fullB);
            String header = a.line();
            assertThat(b.line()).isEqualTo(header);
            byte[] mark = header.substring(5).getBytes(StandardCharsets.ISO_8859_1);
            byte[] rdbA = a.untilMark(mark);
            assertThat(b.untilMark(mark)).isEqualTo(rdbA);
            assertRdb(rdbA);
            // a third replica, alone now: waits for the delay again (or a second one)
            FakeReplica c = replica(true);
            c.sendPsync();
            await(m, "replication", "state=wait_bgsave");
            c.onlyKeepAlives(1500);
            assertThat(info(m, "persistence")).contains("rdb_bgsave_in_progress:0");
        }
    }

    @Test
    void aReplicaThatStopsReadingIsDroppedAndItsSnapshotStopped() throws Exception {
        try (RawClient m = start("repl-diskless-sync-delay", "0", "repl-timeout", "2", "rdbcompression", "no")) {
            // 40 MB (uncompressed): far more than the socket buffers take
            m.call("EVAL", "for i = 1, 400 do redis.call('set', 'big' .. i, string.rep('x', 100000)) end", "0");
            FakeReplica r = replica(true);
            r.psync();
            await(m, "persistence", "rdb_bgsave_in_progress:1");
            // it reads nothing more: the master waits repl-timeout, then lets it go
            await(m, "replication", "connected_slaves:0");
            await(m, "persistence", "rdb_bgsave_in_progress:0");
            assertThat(m.callString("SET", "still", "serving")).isEqualTo("+OK\r\n");
        }
    }

    @Test
    void withoutDisklessAReplicaJoinsTheSnapshotBeingWrittenForAnother() throws Exception {
        // one key a second: the snapshot lasts while the second replica arrives
        try (RawClient m = start("repl-diskless-sync", "no", "rdb-key-save-delay", "1000000")) {
            for (int i = 0; i < 5; i++) m.call("SET", "k" + i, "v");
            FakeReplica a = replica(true);
            String fullA = a.psync();
            m.call("SET", "during", "1");
            FakeReplica b = replica(false);
            assertThat(b.psync()).isEqualTo(fullA);
            m.call("CONFIG", "SET", "rdb-key-save-delay", "0");
            byte[] rdbA = a.bulk();
            assertThat(b.bulk()).isEqualTo(rdbA);
            assertRdb(rdbA);
            // what was written meanwhile follows the RDB at once (no acknowledgement awaited)
            for (FakeReplica r : List.of(a, b)) {
                assertThat(r.command()).containsExactly("SELECT", "0");
                assertThat(r.command()).containsExactly("SET", "during", "1");
            }
        }
    }

    @Test
    void aReplicaWithoutEofSupportGetsAFileEvenWithDisklessSync() throws Exception {
        try (RawClient m = start("repl-diskless-sync-delay", "600")) {
            m.call("SET", "k", "v");
            FakeReplica r = replica(false);
            r.psync(); // at once: no other replica to wait for, since none could share a streamed one
            assertRdb(r.bulk());
        }
    }

    /** The replica's side of the handshake and of what the master sends, on a plain socket. */
    /**
     * A replica's link carries the stream, never replies: a replica that sends a command answered
     * with anything (an error too) is dropped with Redis's log lines, the answer unsent; PSYNC
     * with an offset that is no number is refused and logged.
     */
    @Test
    void aReplicaThatSendsACommandIsDroppedUnanswered() throws Exception {
        java.io.ByteArrayOutputStream log = new java.io.ByteArrayOutputStream();
        // the snapshot goes to a file, a second a key: the replicas get +FULLRESYNC and then nothing for a while
        master = SpinelServer.builder().randomPort().option("bind", "127.0.0.1").option("repl-diskless-sync", "no")
                .option("rdb-key-save-delay", "1000000").option("enable-debug-command", "yes")
                .option("dir", Files.createTempDirectory("spinel").toString())
                .log(new io.spinel.core.Log(new java.io.PrintStream(log, true))).start();
        try (RawClient m = new RawClient(master.port())) {
            m.call("DEBUG", "POPULATE", "10");
            FakeReplica r = replica(false);
            assertThat(r.psync()).startsWith("+FULLRESYNC");
            r.send("GET", "foo");
            assertClosedWithOnlyKeepAlives(r);
            FakeReplica old = replica(false);
            old.send("SYNC");
            old.send("PING");
            assertClosedWithOnlyKeepAlives(old);
            assertThat(m.callString("PING")).isEqualTo("+PONG\r\n");
            assertThat(m.callString("PSYNC", "replicationid", "offset_str")).isEqualTo("-ERR value is not an integer or out of range\r\n");
            String text = log.toString();
            assertThat(text).contains("Replica generated a reply to command 'get', disconnecting it: id=",
                    "== CRITICAL == This master is sending an error to its replica: 'Replica can't interact with the keyspace' "
                            + "after processing the command 'get'",
                    "Replica generated a reply to command 'ping', disconnecting it: id=",
                    "asks for synchronization but with a wrong offset");
            assertThat(info(m, "stats")).contains("unexpected_error_replies:1\r\n");
        }
    }

    private static void assertClosedWithOnlyKeepAlives(FakeReplica r) throws IOException {
        long deadline = System.currentTimeMillis() + 10_000;
        while (true) {
            int c = r.in.read();
            if (c < 0) return;
            assertThat((char) c).as("nothing but keep-alives before the close").isEqualTo('\n');
            assertThat(System.currentTimeMillis()).as("closed").isLessThan(deadline);
        }
    }

    private static boolean contains(byte[] haystack, String needle) {
        byte[] n = needle.getBytes(StandardCharsets.ISO_8859_1);
        outer:
        for (int i = 0; i + n.length <= haystack.length; i++) {
            for (int j = 0; j < n.length; j++) if (haystack[i + j] != n[j]) continue outer;
            return true;
        }
        return false;
    }

    /**
     * redis-cli --functions-rdb: REPLCONF rdb-filter-only functions makes a snapshot of the
     * function libraries alone, on the socket even without diskless sync; "" leaves them out too;
     * a replica that cannot take an EOF-marked RDB is refused one.
     */
    @Test
    void aFilteredSnapshotHoldsOnlyWhatTheFilterNames() throws Exception {
        try (RawClient m = start("repl-diskless-sync", "no")) {
            String library = "#!lua name=filtered\nredis.register_function('fn1', function() return 1 end)";
            m.call("FUNCTION", "LOAD", library);
            m.call("SET", "some-key-name", "some-value");
            FakeReplica functionsOnly = replica(true);
            functionsOnly.send("REPLCONF", "rdb-only", "1", "rdb-filter-only", "functions");
            assertThat(functionsOnly.line()).isEqualTo("+OK");
            functionsOnly.send("SYNC");
            String header = functionsOnly.nonEmptyLine();
            assertThat(header).matches("\\$EOF:[0-9a-f]{40}");
            byte[] rdb = functionsOnly.untilMark(header.substring(5).getBytes(StandardCharsets.ISO_8859_1));
            assertRdb(rdb);
            assertThat(contains(rdb, "register_function")).isTrue();
            assertThat(contains(rdb, "some-key-name")).isFalse();
            // rdb-only: the snapshot and nothing after it, the connection closed
            m.call("SET", "after-the-snapshot", "1");
            assertThatThrownBy(() -> functionsOnly.line()).isInstanceOf(IOException.class).hasMessageContaining("closed");
            assertThat(info(m, "replication")).contains("connected_slaves:0");

            FakeReplica nothing = replica(true);
            nothing.send("REPLCONF", "rdb-filter-only", "");
            assertThat(nothing.line()).isEqualTo("+OK");
            nothing.send("SYNC");
            String h2 = nothing.nonEmptyLine();
            byte[] empty = nothing.untilMark(h2.substring(5).getBytes(StandardCharsets.ISO_8859_1));
            assertRdb(empty);
            assertThat(contains(empty, "register_function")).isFalse();
            assertThat(contains(empty, "some-key-name")).isFalse();

            FakeReplica noEof = replica(false);
            noEof.send("REPLCONF", "rdb-filter-only", "functions keys");
            assertThat(noEof.line()).isEqualTo("-ERR Unsupported rdb-filter-only option: keys");
            noEof.send("REPLCONF", "rdb-filter-only", "functions");
            assertThat(noEof.line()).isEqualTo("+OK");
            noEof.send("SYNC");
            assertThat(noEof.line()).isEqualTo("-ERR Filtered replica requires EOF capability");
        }
    }

    private static final class FakeReplica implements AutoCloseable {
        final Socket socket;
        final InputStream in;
        final OutputStream out;
        final int port = 40000 + (int) (Math.random() * 10000);

        FakeReplica(int masterPort, boolean eof) throws IOException {
            socket = new Socket("127.0.0.1", masterPort);
            socket.setSoTimeout(20_000);
            in = new BufferedInputStream(socket.getInputStream());
            out = socket.getOutputStream();
            send("REPLCONF", "listening-port", Integer.toString(port));
            assertThat(line()).isEqualTo("+OK");
            if (eof) send("REPLCONF", "capa", "eof", "capa", "psync2");
            else send("REPLCONF", "capa", "psync2");
            assertThat(line()).isEqualTo("+OK");
        }

        void send(String... args) throws IOException {
            List<byte[]> a = new ArrayList<>();
            for (String s : args) a.add(s.getBytes(StandardCharsets.ISO_8859_1));
            out.write(RawClient.encode(a));
            out.flush();
        }

        void sendPsync() throws IOException {
            send("PSYNC", "?", "-1");
        }

        /** PSYNC ? -1 and the first line of the answer (keep-alive newlines skipped). */
        String psync() throws IOException {
            sendPsync();
            return nonEmptyLine();
        }

        String nonEmptyLine() throws IOException {
            long deadline = System.currentTimeMillis() + 20_000;
            String l;
            do {
                l = line();
                assertThat(System.currentTimeMillis()).as("more than keep-alives").isLessThan(deadline);
            } while (l.isEmpty());
            return l;
        }

        String line() throws IOException {
            StringBuilder sb = new StringBuilder();
            int c;
            while ((c = in.read()) != '\n') {
                if (c < 0) throw new IOException("closed by the master");
                if (c != '\r') sb.append((char) c);
            }
            return sb.toString();
        }

        byte[] read(int n, int timeoutMillis) throws IOException {
            socket.setSoTimeout(timeoutMillis);
            try {
                byte[] b = in.readNBytes(n);
                if (b.length < n) throw new IOException("closed by the master");
                return b;
            } finally {
                socket.setSoTimeout(20_000);
            }
        }

        /** An EOF-marked RDB: everything up to the mark, which must end what the master sent so far. */
        byte[] untilMark(byte[] mark) throws IOException {
            byte[] b = new byte[1 << 16];
            int len = 0;
            while (true) {
                int c = in.read();
                if (c < 0) throw new IOException("closed by the master");
                if (len == b.length) b = Arrays.copyOf(b, len * 2);
                b[len++] = (byte) c;
                if (len >= mark.length && c == (mark[mark.length - 1] & 0xff)
                        && Arrays.equals(b, len - mark.length, len, mark, 0, mark.length)) {
                    return Arrays.copyOf(b, len - mark.length);
                }
            }
        }

        /** Reads for a while: nothing may come but the newlines that keep a waiting replica's link alive. */
        void onlyKeepAlives(int millis) throws IOException {
            long end = System.currentTimeMillis() + millis;
            while (System.currentTimeMillis() < end) {
                try {
                    assertThat(read(1, 100)[0]).as("a keep-alive newline").isEqualTo((byte) '\n');
                } catch (SocketTimeoutException expected) {
                    // nothing: as it should be
                }
            }
        }

        /** A "$length" RDB (keep-alive newlines before it skipped). */
        byte[] bulk() throws IOException {
            String header = nonEmptyLine();
            assertThat(header).startsWith("$");
            return in.readNBytes(Integer.parseInt(header.substring(1)));
        }

        /** The next command of the stream, the master's PINGs (every repl-ping-replica-period) skipped. */
        List<String> command() throws IOException {
            List<String> c;
            do {
                c = anyCommand();
            } while (c.equals(List.of("PING")));
            return c;
        }

        private List<String> anyCommand() throws IOException {
            String head = line();
            assertThat(head).startsWith("*");
            List<String> args = new ArrayList<>();
            for (int i = Integer.parseInt(head.substring(1)); i > 0; i--) {
                int len = Integer.parseInt(line().substring(1));
                byte[] arg = in.readNBytes(len + 2);
                args.add(new String(arg, 0, len, StandardCharsets.ISO_8859_1));
            }
            return args;
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
