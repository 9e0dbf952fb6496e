package io.spinel.server;

import io.spinel.server.testing.RawClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Where Spinel must differ from Redis: with proto-max-bulk-len raised past 2 GB, Redis would grow a
 * string to any size, Java arrays cannot; the commands then fail with Redis's size error instead
 * of allocating, and change nothing.
 */
class BitmapLimitsTest {
    private static SpinelServer spinel;

    @BeforeAll
    static void start() {
        spinel = SpinelServer.builder().randomPort().option("bind", "127.0.0.1").start();
    }

    @AfterAll
    static void stop() {
        if (spinel != null) spinel.close();
    }

    @Test
    void offsetsPastWhatJavaCanHoldGetTheSizeError() throws Exception {
        try (RawClient c = new RawClient(spinel.port())) {
            assertThat(c.callString("CONFIG", "SET", "proto-max-bulk-len", "8gb")).isEqualTo("+OK\r\n");
            String tooBig = "-ERR string exceeds maximum allowed size (proto-max-bulk-len)\r\n";
            long offset = (1L << 31) * 8;
            assertThat(c.callString("SETBIT", "k", Long.toString(offset), "1")).isEqualTo(tooBig);
            assertThat(c.callString("BITFIELD", "k", "SET", "u8", "#" + (1L << 31), "1")).isEqualTo(tooBig);
            assertThat(c.callString("EXISTS", "k")).isEqualTo(":0\r\n");
            // reads past the end need no room: zeros, as in Redis
            assertThat(c.callString("GETBIT", "k", Long.toString(offset))).isEqualTo(":0\r\n");
            assertThat(c.callString("SET", "k", "x")).isEqualTo("+OK\r\n");
            assertThat(c.callString("BITFIELD_RO", "k", "GET", "i64", Long.toString(offset))).isEqualTo("*1\r\n:0\r\n");
            assertThat(c.callString("SETBIT", "k", Long.toString(offset), "1")).isEqualTo(tooBig);
            assertThat(c.callString("GET", "k")).isEqualTo("$1\r\nx\r\n");
            // the bit offset limit itself follows proto-max-bulk-len, as in Redis
            assertThat(c.callString("CONFIG", "SET", "proto-max-bulk-len", "1mb")).isEqualTo("+OK\r\n");
            assertThat(c.callString("SETBIT", "k", Long.toString(8L << 20), "1"))
                    .isEqualTo("-ERR bit offset is not an integer or out of range\r\n");
            assertThat(c.callString("CONFIG", "SET", "proto-max-bulk-len", "512mb")).isEqualTo("+OK\r\n");
        }
    }
}
