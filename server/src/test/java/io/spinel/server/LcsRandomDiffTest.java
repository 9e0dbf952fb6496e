package io.spinel.server;

import io.spinel.server.testing.DualRun;
import io.spinel.server.testing.ServerPair;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Seeded random LCS calls on redis-server and Spinel side by side, every reply byte for byte:
 * strings of 0 to 300 bytes over small alphabets (long common runs) and large ones (few), one
 * after another in sizes that go up and down, so that Spinel's table, reused from call to call,
 * is checked with a smaller one after a larger (its first row and column must read as zero), with
 * LEN, IDX, MINMATCHLEN and WITHMATCHLEN. Set -Dfuzz.seed=N to replay a run.
 */
class LcsRandomDiffTest {
    @RegisterExtension
    static final ServerPair servers = new ServerPair();

    private Random rnd;

    private String text() {
        int len = rnd.nextInt(8) == 0 ? 0 : rnd.nextInt(rnd.nextBoolean() ? 20 : 300);
        int alphabet = new int[] {2, 4, 26, 90}[rnd.nextInt(4)];
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < len; i++) sb.append((char) (' ' + rnd.nextInt(alphabet)));
        return sb.toString();
    }

    @Test
    void randomLcsCalls() throws IOException {
        long seed = Long.getLong("fuzz.seed", 2026_1206L);
        rnd = new Random(seed);
        try (DualRun d = new DualRun(servers.redis().port(), servers.spinel().port(), "lcs seed " + seed)) {
            d.both("FLUSHALL");
            for (int step = 0; step < 600; step++) {
                d.setStep(step);
                if (rnd.nextInt(3) == 0) d.same("SET", "a", text());
                if (rnd.nextInt(3) == 0) d.same("SET", "b", text());
                String a = rnd.nextInt(20) == 0 ? "missing" : "a";
                switch (rnd.nextInt(5)) {
                    case 0 -> d.same("LCS", a, "b");
                    case 1 -> d.same("LCS", a, "b", "LEN");
                    case 2 -> d.same("LCS", "b", a, "IDX");
                    case 3 -> d.same("LCS", a, "b", "IDX", "MINMATCHLEN", Integer.toString(rnd.nextInt(6)));
                    default -> d.same("LCS", a, "b", "IDX", "WITHMATCHLEN", "MINMATCHLEN", Integer.toString(rnd.nextInt(4)));
                }
            }
            if (!d.mismatches().isEmpty()) {
                fail(d.mismatches().size() + " differences:\n" + String.join("\n", d.mismatches()));
            }
        }
    }
}
