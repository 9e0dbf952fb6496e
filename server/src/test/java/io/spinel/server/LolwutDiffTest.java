package io.spinel.server;

import io.spinel.server.testing.DualRun;
import io.spinel.server.testing.ServerPair;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * LOLWUT against redis-server, in RESP2 and RESP3 (a verbatim string there): the version line,
 * argument errors and clamps byte for byte, and the drawings as far as they are not random:
 * Schotter with one or two rows of squares (drawn without random numbers) byte for byte at many
 * sizes; with more rows and for the skyline, the same lines of the same lengths and the captions.
 */
class LolwutDiffTest {
    @RegisterExtension
    static final ServerPair servers = new ServerPair();

    @Test
    void versionLinesErrorsAndTheDrawingsWithoutChance() throws IOException {
        try (DualRun d = new DualRun(servers.redis().port(), servers.spinel().port(), "lolwut")) {
            for (String protocol : new String[] {"2", "3"}) {
                d.both("HELLO", protocol);
                d.same("LOLWUT");
                d.same("lolwut", "foo", "bar");
                d.same("LOLWUT", "VERSION");
                for (String v : new String[] {"7", "4", "0", "-1", "50", "abc", "1.5", "9223372036854775808", "4294967303"}) {
                    d.same("LOLWUT", "VERSION", v);
                }
                d.same("LOLWUT", "VERSION", "5", "abc");
                d.same("LOLWUT", "VERSION", "5", "10", "x");
                d.same("LOLWUT", "VERSION", "5", "10", "2", "1.0");
                d.same("LOLWUT", "VERSION", "6", "x");
                d.same("LOLWUT", "VERSION", "6", "10", "-");
                d.same("LOLWUT", "VERSION", "7", "x", "y");
            }
            d.both("HELLO", "2");
            for (int cols : new int[] {-3, 0, 1, 2, 3, 4, 5, 7, 13, 40, 66, 101, 2000}) {
                for (int perRow : new int[] {-1, 1, 3, 8, 17, 300}) {
                    for (int perCol : new int[] {0, 1, 2}) {
                        d.same("LOLWUT", "VERSION", "5", cols, perRow, perCol);
                    }
                }
            }
            for (Object[] args : new Object[][] {{"5"}, {"5", "30"}, {"5", "80", "10", "20"}, {"5", "3", "1", "200"},
                {"4294967301", "20", "4", "6"}, {"6"}, {"6", "1", "1"}, {"6", "33", "7"}, {"6", "0", "-4"}, {"6", "2000", "3"}}) {
                Object[] call = new Object[args.length + 2];
                call[0] = "LOLWUT";
                call[1] = "VERSION";
                System.arraycopy(args, 0, call, 2, args.length);
                for (int round = 0; round < 3; round++) {
                    byte[][] r = d.both(call);
                    String redis = new String(r[0], StandardCharsets.UTF_8);
                    String spinel = new String(r[1], StandardCharsets.UTF_8);
                    String what = DualRun.describe(call);
                    assertThat(shape(spinel)).as(what).isEqualTo(shape(redis));
                    assertThat(spinel.substring(spinel.lastIndexOf("\n", spinel.length() - 4)))
                            .as(what).isEqualTo(redis.substring(redis.lastIndexOf("\n", redis.length() - 4)));
                }
            }
            if (!d.mismatches().isEmpty()) fail(d.mismatches().size() + " differences:\n" + String.join("\n", d.mismatches()));
        }
    }

    /** The reply's lines with their lengths in characters, escape sequences left out, and its first line. */
    private static String shape(String reply) {
        String[] lines = reply.replaceAll("\033\\[[0-9;]*m", "").split("\n", -1);
        StringBuilder sb = new StringBuilder(lines.length + " lines:");
        for (String l : lines) sb.append(' ').append(l.length());
        return sb.toString();
    }
}
