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
 * Seeded random generic key commands over keys of every type, run on redis-server and Spinel side
 * by side, replies compared byte for byte: the EXPIRE family with NX/XX/GT/LT, times in the past
 * and past the 64-bit range, PERSIST, RENAME/RENAMENX, COPY and MOVE between two databases,
 * DEL/UNLINK/EXISTS/TOUCH with repeated keys, DUMP and RESTORE (REPLACE, ABSTTL, IDLETIME, FREQ,
 * bad payloads), TYPE, OBJECT ENCODING and REFCOUNT (COPY's unshared small integers). Relative
 * expire times grow by 3 s each, so GT and LT decide alike on both servers; TTL and EXPIRETIME
 * are compared to the second, give or take the one a half-second boundary between the two calls
 * makes. Set -Dfuzz.seed=N to replay a run.
 */
class KeysRandomDiffTest {
    @RegisterExtension
    static final ServerPair servers = new ServerPair();

    private static final String[] KEYS = {"k0", "k1", "k2", "k3", "k4", "k5"};
    /** A fixed moment a year and more after this test was written: absolute expire times in the future. */
    private static final long FUTURE_S = 1_830_000_000L;
    private Random rnd;

    private String key() {
        return rnd.nextInt(25) == 0 ? "missing" : KEYS[rnd.nextInt(KEYS.length)];
    }

    private void create(DualRun d, String k) throws IOException {
        switch (rnd.nextInt(7)) {
            case 0:
                d.same("SET", k, rnd.nextBoolean() ? Integer.toString(rnd.nextInt(20_000)) : "v" + rnd.nextInt(100));
                break;
            case 1:
                d.same("RPUSH", k, "a", "b", Integer.toString(rnd.nextInt(100)));
                break;
            case 2:
                d.same("HSET", k, "f", "v", "g", Integer.toString(rnd.nextInt(100)));
                break;
            case 3:
                d.same("SADD", k, "1", "2", Integer.toString(rnd.nextInt(100)));
                break;
            case 4:
                d.same("SADD", k, "m", "n");
                break;
            case 5:
                d.same("ZADD", k, "1", "a", Integer.toString(rnd.nextInt(10)), "b");
                break;
            default:
                d.same("XADD", k, "1-" + (1 + rnd.nextInt(5)), "f", "v");
                break;
        }
    }

    /** Relative expire times handed out so far: each is 3 s past the one before. */
    private int relatives;

    /**
     * A relative time: mostly valid and each 3 s later than the last (so GT and LT never compare
     * two times a few milliseconds apart, which each server would order by its own clock),
     * sometimes zero, negative, non-numeric or overflowing.
     */
    private String relative(boolean millis) {
        switch (rnd.nextInt(10)) {
            case 0:
                return new String[] {"0", "-1", "-100", "x", "1.5", "", "9223372036854775807", "-9223372036854775808",
                    "9223372036854775", "92233720368547758"}[rnd.nextInt(10)];
            default:
                long s = 1000 + 3L * relatives++;
                return Long.toString(millis ? s * 1000 : s);
        }
    }

    /**
     * TTL or EXPIRETIME, where a relative expire makes the second rounded from each server's own
     * clock: equal, or one apart when the two calls fall either side of a half second.
     */
    private void sameSecond(DualRun d, String cmd, String k) throws IOException {
        byte[][] r = d.both(cmd, k);
        Object a = DualRun.decode(r[0]);
        Object b = DualRun.decode(r[1]);
        boolean ok = a instanceof Long && b instanceof Long ? Math.abs((Long) a - (Long) b) <= ((Long) a > 0 ? 1 : 0) : a.equals(b);
        if (!ok) d.fail(cmd + " " + k + "\n    redis:  " + DualRun.show(r[0]) + "\n    spinel: " + DualRun.show(r[1]));
    }

    private String absolute(boolean millis) {
        switch (rnd.nextInt(6)) {
            case 0:
                return rnd.nextBoolean() ? "1" : "0"; // long past: the key goes
            case 1:
                return new String[] {"-5", "9223372036854775807", "x"}[rnd.nextInt(3)];
            default:
                long s = FUTURE_S + rnd.nextInt(5) * 1000L;
                return Long.toString(millis ? s * 1000 : s);
        }
    }

    @Test
    void randomKeyCommands() throws IOException {
        long seed = Long.getLong("fuzz.seed", 14_2026L);
        rnd = new Random(seed);
        try (DualRun d = new DualRun(servers.redis().port(), servers.spinel().port(), "keys fuzz seed " + seed)) {
            d.both("FLUSHALL");
            try {
                for (int step = 0; step < 6000; step++) {
                    d.setStep(step);
                    one(d);
                    if (step % 1000 == 999) {
                        d.same("DBSIZE");
                        for (String k : KEYS) {
                            d.same("TYPE", k);
                            sameSecond(d, "TTL", k);
                        }
                    }
                }
            } finally {
                d.both("SELECT", "0");
                d.both("FLUSHALL");
                d.both("HELLO", "2");
            }
            if (!d.mismatches().isEmpty()) fail(d.mismatches().size() + " differences:\n" + String.join("\n", d.mismatches()));
        }
    }

    private void one(DualRun d) throws IOException {
        String k = key();
        int op = rnd.nextInt(100);
        if (op < 20) {
            create(d, k);
        } else if (op < 34) {
            expire(d, k);
        } else if (op < 40) {
            sameSecond(d, rnd.nextBoolean() ? "TTL" : "EXPIRETIME", k);
        } else if (op < 43) {
            d.same("PERSIST", k);
        } else if (op < 48) {
            d.same(rnd.nextBoolean() ? "RENAME" : "RENAMENX", k, key());
        } else if (op < 54) {
            List<Object> c = new ArrayList<>(List.of("COPY", k, key()));
            if (rnd.nextBoolean()) c.addAll(List.of("DB", rnd.nextInt(4) == 0 ? "99" : Integer.toString(rnd.nextInt(2))));
            if (rnd.nextBoolean()) c.add("REPLACE");
            d.same(c.toArray());
        } else if (op < 58) {
            d.same("MOVE", k, rnd.nextInt(5) == 0 ? "0" : "1");
        } else if (op < 61) {
            // the other database, briefly: what MOVE and COPY DB put there
            d.both("SELECT", "1");
            d.same("DBSIZE");
            String other = key();
            d.same("TYPE", other);
            sameSecond(d, "TTL", other);
            if (rnd.nextBoolean()) d.same("MOVE", other, "0");
            d.both("SELECT", "0");
        } else if (op < 67) {
            List<Object> c = new ArrayList<>(List.of(new String[] {"DEL", "UNLINK", "EXISTS", "TOUCH"}[rnd.nextInt(4)]));
            int n = 1 + rnd.nextInt(4);
            for (int i = 0; i < n; i++) c.add(key());
            d.same(c.toArray());
        } else if (op < 76) {
            dumpRestore(d, k);
        } else if (op < 81) {
            d.same("TYPE", k);
        } else if (op < 86) {
            d.same("OBJECT", "ENCODING", k);
        } else if (op < 89) {
            d.same("OBJECT", "REFCOUNT", k);
        } else if (op < 92) {
            d.same("GET", k);
        } else if (op < 95) {
            // a write on a key with an expire: some keep it (SETRANGE, APPEND), some drop it (SET)
            if (rnd.nextBoolean()) d.same("APPEND", k, "x");
            else d.same("SET", k, "s", rnd.nextBoolean() ? "KEEPTTL" : "NX");
        } else if (op < 98) {
            d.same("DBSIZE");
        } else {
            d.both("HELLO", rnd.nextBoolean() ? "3" : "2");
        }
    }

    private void expire(DualRun d, String k) throws IOException {
        List<Object> c = new ArrayList<>();
        switch (rnd.nextInt(4)) {
            case 0:
                c.addAll(List.of("EXPIRE", k, relative(false)));
                break;
            case 1:
                c.addAll(List.of("PEXPIRE", k, relative(true)));
                break;
            case 2:
                c.addAll(List.of("EXPIREAT", k, absolute(false)));
                break;
            default:
                c.addAll(List.of("PEXPIREAT", k, absolute(true)));
                break;
        }
        int flags = rnd.nextInt(4) == 0 ? 2 : rnd.nextInt(2);
        for (int i = 0; i < flags; i++) c.add(new String[] {"NX", "XX", "GT", "LT", "nx", "BOGUS"}[rnd.nextInt(6)]);
        d.same(c.toArray());
    }

    private void dumpRestore(DualRun d, String k) throws IOException {
        // a table (hashtable-encoded set or hash) is dumped in each server's own order: then both
        // restore Redis's payload
        String enc = String.valueOf(DualRun.decode(d.same("OBJECT", "ENCODING", k)));
        byte[] payload = enc.equals("hashtable") ? d.redisOnly("DUMP", k) : d.same("DUMP", k);
        String p = DualRun.decode(payload) instanceof String ? (String) DualRun.decode(payload) : null;
        String target = key();
        List<Object> c = new ArrayList<>(List.of("RESTORE", target));
        int ttl = rnd.nextInt(4);
        if (ttl == 0) c.add("0");
        else if (ttl == 1) c.add(Long.toString(1_000_000L + rnd.nextInt(5) * 1000L));
        else if (ttl == 2) c.add(Long.toString(FUTURE_S * 1000));
        else c.add(rnd.nextBoolean() ? "-1" : "x");
        if (p == null) {
            c.add("\u0000garbage");
        } else if (rnd.nextInt(8) == 0) {
            // a payload with one byte changed: a bad checksum
            char[] chars = p.toCharArray();
            int i = rnd.nextInt(chars.length);
            chars[i] = (char) (chars[i] ^ 1);
            c.add(new String(chars));
        } else {
            c.add(p);
        }
        if (rnd.nextBoolean()) c.add("REPLACE");
        if (ttl == 2 || rnd.nextInt(6) == 0) c.add("ABSTTL");
        if (rnd.nextInt(5) == 0) c.addAll(List.of("IDLETIME", rnd.nextBoolean() ? "100" : "-1"));
        if (rnd.nextInt(8) == 0) c.addAll(List.of("FREQ", rnd.nextBoolean() ? "5" : "300"));
        d.same(c.toArray());
    }
}
