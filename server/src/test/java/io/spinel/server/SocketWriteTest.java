package io.spinel.server;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.Jedis;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Replies are sent straight to the socket while nothing is queued ahead of them, and queued on the
 * channel when the socket does not take them all (see NettyConnection, JdkConnection): whatever the
 * split, a client must receive every reply whole and in order, including one that reads slowly.
 */
class SocketWriteTest {
    private SpinelServer server;
    private Jedis r;

    private void start(SpinelServer.Transport transport) {
        server = SpinelServer.builder().randomPort().transport(transport).start();
        r = new Jedis("127.0.0.1", server.port());
    }

    @AfterEach
    void stop() {
        r.close();
        server.close();
    }

    @ParameterizedTest
    @EnumSource(SpinelServer.Transport.class)
    void repliesBiggerThanTheSocketBufferArriveWholeAndInOrderToASlowReader(SpinelServer.Transport transport) throws Exception {
        start(transport);
        byte[] big = new byte[6 * 1024 * 1024];
        new Random(7).nextBytes(big);
        r.set("big".getBytes(StandardCharsets.US_ASCII), big);
        r.set("small", "tail");
        try (Socket s = new Socket("127.0.0.1", server.port())) {
            s.setSoTimeout(20_000);
            // 18 MB of replies, more than the loopback socket buffers hold: the first reply fills the
            // socket, the rest queue behind it
            String pipeline = "GET big\r\nPING\r\nGET big\r\nGET small\r\nGET big\r\nECHO last\r\n";
            s.getOutputStream().write(pipeline.getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            Thread.sleep(300); // the server meets a full socket before the client reads anything
            // while the server still has queued replies, a command sent now must come after them
            s.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            InputStream in = s.getInputStream();
            byte[] bulkHeader = ("$" + big.length + "\r\n").getBytes(StandardCharsets.US_ASCII);
            ByteArrayOutputStream expected = new ByteArrayOutputStream();
            for (String reply : new String[] {"big", "+PONG\r\n", "big", "$4\r\ntail\r\n", "big", "$4\r\nlast\r\n", "+PONG\r\n"}) {
                if (reply.equals("big")) {
                    expected.write(bulkHeader);
                    expected.write(big);
                    expected.write('\r');
                    expected.write('\n');
                } else {
                    expected.write(reply.getBytes(StandardCharsets.US_ASCII));
                }
            }
            byte[] want = expected.toByteArray();
            byte[] got = readSlowly(in, want.length);
            assertThat(got.length).isEqualTo(want.length);
            assertThat(Arrays.mismatch(got, want)).as("offset of the first wrong byte").isEqualTo(-1);
        }
        // the server is still fine for everyone else
        assertThat(r.ping()).isEqualTo("PONG");
    }

    /** Reads n bytes in small steps with pauses at first, as a slow consumer does. */
    private static byte[] readSlowly(InputStream in, int n) throws IOException, InterruptedException {
        byte[] out = new byte[n];
        int got = 0;
        int step = 0;
        while (got < n) {
            int k = in.read(out, got, Math.min(n - got, step < 50 ? 1024 : 64 * 1024));
            if (k < 0) break;
            got += k;
            if (step++ < 50) Thread.sleep(2);
        }
        return Arrays.copyOf(out, got);
    }
}
