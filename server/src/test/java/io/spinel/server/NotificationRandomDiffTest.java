package io.spinel.server;

import io.spinel.server.testing.DualRun;
import io.spinel.server.testing.RawClient;
import io.spinel.server.testing.ServerPair;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Seeded random writes of every type with every keyspace event class on (notify-keyspace-events
 * KEAnm: keyspace and keyevent channels, new keys and misses too), on redis-server and Spinel side
 * by side: the replies, and the events a pattern subscriber receives for each command, in order,
 * must be the same bytes. After each command a PUBLISH on a channel of its own marks where that
 * command's events end. Set -Dfuzz.seed=N to replay a run.
 */
class NotificationRandomDiffTest {
    @RegisterExtension
    static final ServerPair servers = new ServerPair();

    private static final String[] KEYS = {"n0", "n1", "n2", "n3"};
    private Random rnd;
    /** XADD's ids: each past every earlier one, whatever key the stream is under by then. */
    private int streamIds;

    private String key() {
        return KEYS[rnd.nextInt(KEYS.length)];
    }

    private String num() {
        return Integer.toString(rnd.nextInt(5));
    }

    @Test
    void randomWritesRaiseRedisEvents() throws IOException {
        long seed = Long.getLong("fuzz.seed", 19_2026L);
        rnd = new Random(seed);
        int redisPort = servers.redis().port();
        int spinelPort = servers.spinel().port();
        List<String> differences = new ArrayList<>();
        try (DualRun d = new DualRun(redisPort, spinelPort, "notification fuzz seed " + seed);
             RawClient rs = new RawClient(redisPort); RawClient ss = new RawClient(spinelPort)) {
            d.both("FLUSHALL");
            d.same("CONFIG", "SET", "notify-keyspace-events", "KEAnm");
            for (RawClient sub : new RawClient[] {rs, ss}) {
                sub.setTimeout(5000);
                sub.call("PSUBSCRIBE", "__key*@*__:*");
                sub.call("SUBSCRIBE", "mark");
            }
            try {
                for (int step = 0; step < 1500 && differences.size() < 20; step++) {
                    d.setStep(step);
                    Object[] cmd = command();
                    d.same(cmd);
                    d.both("PUBLISH", "mark", Integer.toString(step));
                    String r = eventsUntilMark(rs, step);
                    String s = eventsUntilMark(ss, step);
                    if (!r.equals(s)) {
                        differences.add("step " + step + ": " + DualRun.describe(cmd) + "\n    redis:  " + r + "\n    spinel: " + s);
                    }
                }
            } finally {
                d.both("CONFIG", "SET", "notify-keyspace-events", "");
            }
            differences.addAll(d.mismatches());
            if (!differences.isEmpty()) fail(differences.size() + " differences:\n" + String.join("\n", differences));
        }
    }

    /** The channel and payload of each event up to the mark of this step. */
    private static String eventsUntilMark(RawClient sub, int step) throws IOException {
        StringBuilder sb = new StringBuilder();
        while (true) {
            List<Object> m = DualRun.list(sub.readReply());
            if (m.get(0).equals("message") && m.get(1).equals("mark")) {
                if (!m.get(2).equals(Integer.toString(step))) sb.append("[mark ").append(m.get(2)).append("] ");
                return sb.toString();
            }
            // pmessage, pattern, channel, payload
            sb.append(m.get(2)).append('=').append(m.get(3)).append(' ');
        }
    }

    private Object[] command() {
        String k = key();
        switch (rnd.nextInt(40)) {
            case 0: return new Object[] {"SET", k, "v" + num()};
            case 1: return new Object[] {"SETRANGE", k, num(), "ab"};
            case 2: return new Object[] {"APPEND", k, "x"};
            case 3: return new Object[] {"INCRBY", k, num()};
            case 4: return new Object[] {"INCRBYFLOAT", k, "1.5"};
            case 5: return new Object[] {rnd.nextBoolean() ? "DEL" : "UNLINK", k, key()};
            case 6: return new Object[] {"EXPIRE", k, rnd.nextInt(5) == 0 ? "-1" : "1000"};
            case 7: return new Object[] {"PERSIST", k};
            case 8: return new Object[] {"RENAME", k, key()};
            case 9: return new Object[] {"COPY", k, key(), "REPLACE"};
            case 10: return new Object[] {"MOVE", k, "1"};
            case 11: return new Object[] {rnd.nextBoolean() ? "LPUSH" : "RPUSH", k, "a", num()};
            case 12: return new Object[] {rnd.nextBoolean() ? "LPOP" : "RPOP", k};
            case 13: return new Object[] {"LINSERT", k, "BEFORE", "a", "z"};
            case 14: return new Object[] {"LSET", k, "0", "q"};
            case 15: return new Object[] {"LREM", k, "0", "a"};
            case 16: return new Object[] {"LTRIM", k, "1", "-1"};
            case 17: return new Object[] {"LMOVE", k, key(), "LEFT", "RIGHT"};
            case 18: return new Object[] {"HSET", k, "f" + num(), "v"};
            case 19: return new Object[] {"HDEL", k, "f" + num()};
            case 20: return new Object[] {rnd.nextBoolean() ? "HINCRBY" : "HINCRBYFLOAT", k, "f" + num(), "2"};
            case 21: return new Object[] {"SADD", k, num(), "m"};
            case 22: return new Object[] {"SREM", k, num()};
            case 23: return new Object[] {"SMOVE", k, key(), num()};
            case 24: return new Object[] {rnd.nextBoolean() ? "SINTERSTORE" : "SUNIONSTORE", k, key(), key()};
            case 25: return new Object[] {"ZADD", k, num(), "m" + num()};
            case 26: return new Object[] {"ZINCRBY", k, "1", "m" + num()};
            case 27: return new Object[] {"ZREM", k, "m" + num()};
            case 28: return new Object[] {"ZREMRANGEBYSCORE", k, "0", num()};
            case 29: return new Object[] {rnd.nextBoolean() ? "ZPOPMIN" : "ZPOPMAX", k};
            case 30: return new Object[] {"ZUNIONSTORE", k, "2", key(), key()};
            case 31: return new Object[] {"XADD", k, "MAXLEN", "3", "1-" + (++streamIds), "f", "v"};
            case 32: return new Object[] {"XTRIM", k, "MAXLEN", "1"};
            case 33: return new Object[] {"XGROUP", "CREATE", k, "g", "$", "MKSTREAM"};
            case 34: return rnd.nextBoolean() ? new Object[] {"GET", k} : new Object[] {"GETDEL", k};
            case 35: return rnd.nextBoolean() ? new Object[] {"GETEX", k, "EX", "500"} : new Object[] {"GETEX", k, "PERSIST"};
            case 36: return new Object[] {"SETBIT", k, num(), "1"};
            case 37: return new Object[] {"PFADD", k, "a", num()};
            case 38: return new Object[] {"SORT", k, "ALPHA", "STORE", key()};
            default: return new Object[] {"BITOP", "OR", k, key(), key()};
        }
    }
}
