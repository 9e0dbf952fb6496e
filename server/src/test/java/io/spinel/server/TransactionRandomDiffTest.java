package io.spinel.server;

import io.spinel.server.testing.DualRun;
import io.spinel.server.testing.ServerPair;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Seeded random transactions on redis-server and Spinel side by side, replies compared byte for
 * byte: MULTI (nested too), commands queued with and without errors (unknown names, wrong
 * arity and syntax, which abort EXEC; wrong types, which fail inside it), commands a transaction
 * refuses (WATCH inside MULTI), EXEC and DISCARD with and without MULTI, WATCH and UNWATCH, and
 * a second connection that writes the watched keys (SET, DEL, EXPIRE, FLUSHDB, a no-op write)
 * between WATCH and EXEC, in both protocols. Set -Dfuzz.seed=N to replay a run.
 */
class TransactionRandomDiffTest {
    @RegisterExtension
    static final ServerPair servers = new ServerPair();

    private static final String[] KEYS = {"t0", "t1", "t2", "t3"};
    private Random rnd;
    private boolean inMulti;

    private String key() {
        return KEYS[rnd.nextInt(KEYS.length)];
    }

    @Test
    void randomTransactions() throws IOException {
        long seed = Long.getLong("fuzz.seed", 16_2026L);
        rnd = new Random(seed);
        int redis = servers.redis().port();
        int spinel = servers.spinel().port();
        try (DualRun a = new DualRun(redis, spinel, "tx fuzz seed " + seed + " client A");
             DualRun b = new DualRun(redis, spinel, "tx fuzz seed " + seed + " client B")) {
            a.both("FLUSHALL");
            try {
                for (int step = 0; step < 5000; step++) {
                    a.setStep(step);
                    b.setStep(step);
                    one(a, b);
                }
            } finally {
                a.both("DISCARD");
                a.both("UNWATCH");
                a.both("HELLO", "2");
            }
            List<String> all = new ArrayList<>(a.mismatches());
            all.addAll(b.mismatches());
            if (!all.isEmpty()) fail(all.size() + " differences:\n" + String.join("\n", all));
        }
    }

    private void one(DualRun a, DualRun b) throws IOException {
        int op = rnd.nextInt(100);
        if (op < 12) {
            a.same("MULTI");
            inMulti = true;
        } else if (op < 45) {
            queued(a);
        } else if (op < 55) {
            a.same("EXEC");
            inMulti = false;
        } else if (op < 59) {
            a.same("DISCARD");
            inMulti = false;
        } else if (op < 69) {
            List<Object> c = new ArrayList<>(List.of("WATCH"));
            int n = rnd.nextInt(6) == 0 ? 0 : 1 + rnd.nextInt(2);
            for (int i = 0; i < n; i++) c.add(key());
            a.same(c.toArray());
        } else if (op < 72) {
            a.same("UNWATCH");
        } else if (op < 92) {
            interfere(b);
        } else if (op < 96) {
            // what the transactions left, read by the other connection
            String k = key();
            b.same("TYPE", k);
            b.same("DUMP", k);
        } else if (!inMulti) {
            a.both("HELLO", rnd.nextBoolean() ? "3" : "2");
        }
    }

    /** A command for client A: queued inside MULTI, run at once outside it. */
    private void queued(DualRun a) throws IOException {
        String k = key();
        switch (rnd.nextInt(14)) {
            case 0:
            case 1:
                a.same("SET", k, "v" + rnd.nextInt(10));
                break;
            case 2:
            case 3:
                a.same("INCR", k);
                break;
            case 4:
                a.same("LPUSH", k, "x");
                break;
            case 5:
                a.same("GET", k);
                break;
            case 6:
                a.same("NOSUCHCOMMAND", k); // aborts EXEC
                break;
            case 7:
                a.same("GET"); // wrong arity: aborts EXEC
                break;
            case 8:
                a.same("SET", k, "v", "EX", "notanumber"); // fails inside EXEC, the rest still runs
                break;
            case 9:
                a.same("WATCH", k); // not allowed inside MULTI
                break;
            case 10:
                a.same("MULTI"); // nested
                inMulti = true;
                break;
            case 11:
                a.same("EXPIRE", k, "1000");
                break;
            case 12:
                a.same("HSET", k, "f", "v");
                break;
            default:
                a.same("DEL", k, key());
                break;
        }
    }

    /** Client B touches a key: most of these make a WATCH on it fail EXEC. */
    private void interfere(DualRun b) throws IOException {
        String k = key();
        switch (rnd.nextInt(8)) {
            case 0:
            case 1:
                b.same("SET", k, "b");
                break;
            case 2:
                b.same("DEL", k);
                break;
            case 3:
                b.same("EXPIRE", k, "5000");
                break;
            case 4:
                b.same("PERSIST", k); // a write only when there was an expire
                break;
            case 5:
                b.same("GET", k); // a read changes nothing
                break;
            case 6:
                if (rnd.nextInt(4) == 0) b.same("FLUSHDB");
                else b.same("RENAME", k, key());
                break;
            default:
                b.same("INCRBY", k, "0"); // a write of the same value still touches the key
                break;
        }
    }
}
