package io.spinel.server;

import io.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A replica's acknowledgements must never hold up its engine: here a master (a socket played by
 * the test) completes the handshake, then sends REPLCONF GETACK after GETACK and never reads
 * what the replica answers. Once the socket's buffers are full, an acknowledgement written on
 * the engine's thread would block it; the replica must go on serving its own clients.
 */
class ReplicaAckTest {
    /** An RDB of version 10 holding nothing, its checksum left out (0), as rdbchecksum no writes it. */
    private static final byte[] EMPTY_RDB = "REDIS0010\u00ff\0\0\0\0\0\0\0\0".getBytes(StandardCharsets.ISO_8859_1);
    private static final byte[] GETACK = "*3\r\n$8\r\nREPLCONF\r\n$6\r\nGETACK\r\n$1\r\n*\r\n".getBytes(StandardCharsets.US_ASCII);

    @Test
    void aMasterThatStopsReadingDoesNotStallTheReplica() throws Exception {
        try (ServerSocket master = new ServerSocket(0);
             SpinelServer replica = SpinelServer.builder().randomPort()
                     .option("dir", Files.createTempDirectory("spinel").toString()).start()) {
            AtomicReference<Socket> link = new AtomicReference<>();
            CompletableFuture<Void> flood = CompletableFuture.runAsync(() -> playMaster(master, link));
            try (RawClient c = new RawClient(replica.port())) {
                c.call("REPLICAOF", "127.0.0.1", Integer.toString(master.getLocalPort()));
                c.setTimeout(10_000);
                // the flood is 16 MB of GETACKs: far more acknowledgements than the socket buffers hold
                long deadline = System.currentTimeMillis() + 60_000;
                while (!flood.isDone()) {
                    assertThat(c.callString("PING")).isEqualTo("+PONG\r\n");
                    assertThat(System.currentTimeMillis()).isLessThan(deadline);
                    Thread.sleep(50);
                }
                flood.get(1, TimeUnit.SECONDS);
                assertThat(c.callString("PING")).isEqualTo("+PONG\r\n");
                assertThat(c.callString("INFO", "replication")).contains("master_link_status:up");
            } finally {
                Socket s = link.get();
                if (s != null) s.close();
            }
        }
    }

    /**
     * A master that accepts the connection and then says nothing: after repl-timeout the replica
     * gives up with Redis's words for a handshake that timed out, and connects again.
     */
    @Test
    void aSilentMasterTimesTheHandshakeOut() throws Exception {
        java.io.ByteArrayOutputStream log = new java.io.ByteArrayOutputStream();
        try (ServerSocket master = new ServerSocket(0);
             SpinelServer replica = SpinelServer.builder().randomPort().option("repl-timeout", "1")
                     .option("dir", Files.createTempDirectory("spinel").toString())
                     .log(new io.spinel.core.Log(new java.io.PrintStream(log, true))).start();
             RawClient c = new RawClient(replica.port())) {
            c.call("REPLICAOF", "127.0.0.1", Integer.toString(master.getLocalPort()));
            try (Socket first = master.accept()) {
                master.setSoTimeout(20_000);
                // the replica drops the silent connection and comes back
                try (Socket second = master.accept()) {
                    assertThat(second.isConnected()).isTrue();
                }
            }
            assertThat(log.toString(StandardCharsets.ISO_8859_1)).contains("# Timeout connecting to the MASTER...");
            c.call("REPLICAOF", "NO", "ONE");
        }
    }

    /** Handshake (PING, REPLCONF..., PSYNC answered with a full synchronization of nothing), then the flood. */
    private static void playMaster(ServerSocket master, AtomicReference<Socket> link) {
        try {
            Socket s = master.accept();
            link.set(s); // left open: a closed link would end the test's point
            InputStream in = new BufferedInputStream(s.getInputStream());
            OutputStream out = s.getOutputStream();
            while (true) {
                String command = readCommandName(in);
                if (command.equalsIgnoreCase("PING")) {
                    out.write("+PONG\r\n".getBytes(StandardCharsets.US_ASCII));
                } else if (command.equalsIgnoreCase("REPLCONF")) {
                    out.write("+OK\r\n".getBytes(StandardCharsets.US_ASCII));
                } else if (command.equalsIgnoreCase("PSYNC")) {
                    out.write(("+FULLRESYNC " + "a".repeat(40) + " 0\r\n$" + EMPTY_RDB.length + "\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
                    out.write(EMPTY_RDB);
                    out.flush();
                    break;
                } else {
                    throw new IOException("unexpected " + command);
                }
                out.flush();
            }
            // from here on nothing is read: the replica's acknowledgements pile up
            byte[] batch = new byte[GETACK.length * 1024];
            for (int i = 0; i < 1024; i++) System.arraycopy(GETACK, 0, batch, i * GETACK.length, GETACK.length);
            for (int i = 0; i < 16 * 1024 * 1024 / batch.length; i++) out.write(batch);
            out.flush();
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
    }

    /** Reads one RESP array command and returns its first argument. */
    private static String readCommandName(InputStream in) throws IOException {
        int argc = Integer.parseInt(readLine(in).substring(1));
        String name = null;
        for (int i = 0; i < argc; i++) {
            int len = Integer.parseInt(readLine(in).substring(1));
            byte[] arg = in.readNBytes(len + 2);
            if (i == 0) name = new String(arg, 0, len, StandardCharsets.ISO_8859_1);
        }
        return name;
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder();
        int c;
        while ((c = in.read()) != '\n') {
            if (c < 0) throw new IOException("closed");
            if (c != '\r') sb.append((char) c);
        }
        return sb.toString();
    }
}
