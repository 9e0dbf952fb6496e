package io.spinel.server;

import io.spinel.server.testing.DualRun;
import io.spinel.server.testing.ServerPair;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Seeded random INCRBYFLOAT and HINCRBYFLOAT chains, run on redis-server and Spinel side by side:
 * every reply byte for byte, so Spinel's 80-bit long double arithmetic (Float80, with LongDouble's
 * BigDecimal emulation behind it for exponents and long strings) prints what x87 arithmetic in
 * Redis prints, for small and large values, cancellations, integers and errors.
 * Set -Dfuzz.seed=N to replay a run.
 */
class FloatIncrDiffTest {
    @RegisterExtension
    static final ServerPair servers = new ServerPair();

    private Random rnd;

    private String digits(int n) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) sb.append((char) ('0' + rnd.nextInt(10)));
        return sb.toString();
    }

    private String operand() {
        String sign = rnd.nextInt(3) == 0 ? "-" : "";
        switch (rnd.nextInt(12)) {
            case 0: return sign + digits(1 + rnd.nextInt(18));
            case 1: return sign + (1 + rnd.nextInt(99)) + "e" + (rnd.nextInt(40) - 20);
            case 2: return sign + digits(1 + rnd.nextInt(6)) + "." + digits(20 + rnd.nextInt(10));
            case 3: return new String[] {"0.1", "-0.1", "1.5", "0.3", "1e308", "-1e308", "abc", "inf", "1e4933",
                "0x10", "  1", "3.0e-4950", "1.", ".5"}[rnd.nextInt(14)];
            case 4: return sign + digits(1 + rnd.nextInt(12)) + "." + digits(1 + rnd.nextInt(8));
            default: return sign + rnd.nextInt(1000) + "." + digits(1 + rnd.nextInt(3));
        }
    }

    @Test
    void randomFloatIncrements() throws IOException {
        long seed = Long.getLong("fuzz.seed", 80_2026L);
        rnd = new Random(seed);
        try (DualRun d = new DualRun(servers.redis().port(), servers.spinel().port(), "float incr seed " + seed)) {
            d.both("FLUSHALL");
            for (int step = 0; step < 3000; step++) {
                d.setStep(step);
                int op = rnd.nextInt(10);
                String key = "k" + rnd.nextInt(4);
                if (op < 5) {
                    d.same("INCRBYFLOAT", key, operand());
                } else if (op < 9) {
                    d.same("HINCRBYFLOAT", "h", key, operand());
                } else if (op == 9) {
                    // a fresh start: a plain value, or an integer-encoded one
                    if (rnd.nextBoolean()) d.same("SET", key, operand());
                    else d.same("SET", key, Long.toString(rnd.nextLong() >> rnd.nextInt(64)));
                    d.same("HSET", "h", key, operand());
                }
                if (step % 50 == 0) d.same("GET", key);
            }
            if (!d.mismatches().isEmpty()) {
                fail(d.mismatches().size() + " differences:\n" + String.join("\n", d.mismatches()));
            }
        }
    }
}
