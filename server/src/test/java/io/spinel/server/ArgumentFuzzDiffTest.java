package io.spinel.server;

import io.spinel.server.testing.DualRun;
import io.spinel.server.testing.ServerPair;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Every command Redis lists (COMMAND LIST), called with random arguments drawn from a pool of
 * keys of every type, numbers good and bad, option words and garbage, on redis-server and Spinel
 * side by side: the replies, mostly Redis's error texts for wrong arity, syntax, types and
 * ranges, Lua's compile errors for EVAL and FUNCTION LOAD, must be the same bytes (as a multiset
 * where the reply's order is a table's; of a HELP reply only its usage line, the rest being
 * Spinel's own words). Left out: commands that block, leave the connection in another mode, reach
 * other servers or the disk, stop or stall the server, or answer with clocks, idle times and
 * random picks; COMMAND's whole-table replies; ACL, which AclDiffTest covers; and CLUSTER, which
 * answers as a Redis without cluster mode (docs/COMMANDS.md). Set -Dfuzz.seed=N to replay a run,
 * and -Dfuzz.trace=true to print each step's command (in the test's output file).
 */
class ArgumentFuzzDiffTest {
    @RegisterExtension
    static final ServerPair servers = new ServerPair();

    private static final Set<String> LEFT_OUT = Set.of(
            // block or change the connection's mode
            "blpop", "brpop", "brpoplpush", "blmove", "blmpop", "bzpopmin", "bzpopmax", "bzmpop", "xread", "xreadgroup",
            "wait", "subscribe", "psubscribe", "ssubscribe", "unsubscribe", "punsubscribe", "sunsubscribe", "monitor",
            "multi", "exec", "discard", "watch", "unwatch", "quit", "reset", "hello", "select", "auth", "client",
            // other servers, the disk, stopping or stalling the server
            "replicaof", "slaveof", "sync", "psync", "replconf", "failover", "migrate", "save", "bgsave",
            "bgrewriteaof", "shutdown", "debug", "module", "swapdb", "flushall", "flushdb", "config",
            // clocks, random picks, the server's own state
            "time", "lastsave", "info", "randomkey", "spop", "srandmember", "hrandfield", "zrandmember", "memory",
            "object|idletime", "command|docs", "command|list", "command|count", "command|info", "command", "latency", "slowlog", "lolwut", "scan", "sscan", "hscan", "zscan",
            "dump", "pfselftest", "xinfo", "xpending", "xadd", "xsetid",
            // not implemented
            "acl", "cluster", "readonly", "readwrite", "asking");

    private static final String[] TOKENS = {"str", "int", "list", "hash", "set", "zset", "stream", "geo", "missing",
        "0", "1", "-1", "2", "10", "-100", "1.5", "inf", "-inf", "+inf", "nan", "9223372036854775807",
        "9223372036854775808", "-9223372036854775808", "abc", "", "*", "(1", "[a", "-", "+", "$", "0-1", "1-0",
        "EX", "PX", "NX", "XX", "GT", "LT", "CH", "INCR", "WITHSCORES", "LIMIT", "COUNT", "MATCH", "TYPE", "BY",
        "BYSCORE", "BYLEX", "REV", "STORE", "GET", "KEEPTTL", "LEFT", "RIGHT", "BEFORE", "AFTER", "RANK", "MAXLEN",
        "WEIGHTS", "AGGREGATE", "SUM", "MIN", "MAX", "ASC", "DESC", "ALPHA", "WITHCOORD", "WITHDIST", "WITHHASH",
        "FROMMEMBER", "FROMLONLAT", "BYRADIUS", "BYBOX", "km", "m", "mi", "ft", "AND", "OR", "XOR", "NOT", "BIT",
        "BYTE", "OVERFLOW", "WRAP", "SAT", "FAIL", "u8", "i16", "#1", "LEN", "IDX", "MINMATCHLEN", "WITHMATCHLEN",
        "REPLACE", "DB", "ABSTTL", "IDLETIME", "FREQ", "channel", "f", "m1", "a", "b", "13.36", "38.11", "90", "200",
        // bytes past ASCII (a string is sent one byte per char): Latin-1, UTF-8, and a NUL
        "\u00e9", "caf\u00c3\u00a9", "\u00ff\u0000x", "return '\u00e9'", "return \u00e9", "error('\u00e9')"};

    private Random rnd;

    @Test
    void randomArgumentsToEveryCommand() throws IOException {
        fuzz(Long.getLong("fuzz.seed", 18_2026L), 2);
    }

    /** The same in RESP3, whose replies carry types of their own: maps, sets, doubles, nulls. */
    @Test
    void randomArgumentsToEveryCommandInResp3() throws IOException {
        fuzz(Long.getLong("fuzz.seed", 6_12_2026L), 3);
    }

    private void fuzz(long seed, int protocol) throws IOException {
        rnd = new Random(seed);
        try (DualRun d = new DualRun(servers.redis().port(), servers.spinel().port(), "argument fuzz RESP" + protocol + " seed " + seed)) {
            d.both("HELLO", String.valueOf(protocol));
            List<String> commands = new ArrayList<>();
            // subcommands come as "xgroup|create": called as XGROUP CREATE
            for (Object o : DualRun.list(d.redisOnly("COMMAND", "LIST"))) {
                String name = (String) o;
                if (!LEFT_OUT.contains(name.split("\\|")[0]) && !LEFT_OUT.contains(name)) commands.add(name);
            }
            java.util.Collections.sort(commands);
            org.assertj.core.api.Assertions.assertThat(commands).as("commands from COMMAND LIST").hasSizeGreaterThan(150);
            for (int step = 0; step < 20000; step++) {
                d.setStep(step);
                if (step % 200 == 0) fill(d);
                List<Object> c = new ArrayList<>(List.of(commands.get(rnd.nextInt(commands.size())).split("\\|")));
                int n = rnd.nextInt(6);
                for (int i = 0; i < n; i++) c.add(TOKENS[rnd.nextInt(TOKENS.length)]);
                if (Boolean.getBoolean("fuzz.trace")) System.out.println("step " + step + ": " + c);
                byte[][] r = d.both(c.toArray());
                if (r[0][0] != '-' && setsMillisecondTtl(c)) {
                    // a TTL of 1, 2 or 10 ms ends on each server at its own instant: let it pass on both
                    // before the next command, or a key read at that moment is there on one only
                    sleepMillis(12);
                }
                if (c.size() > 1 && "help".equals(c.get(1)) && r[0][0] == '*') {
                    // HELP texts are Spinel's own words (docs/COMMANDS.md): only their first line, the usage, is Redis's
                    Object redisFirst = DualRun.list(r[0]).get(0);
                    Object spinelFirst = r[1][0] == '*' ? DualRun.list(r[1]).get(0) : DualRun.show(r[1]);
                    if (!redisFirst.equals(spinelFirst)) d.fail(DualRun.describe(c.toArray()) + ": " + redisFirst + " against Spinel's " + spinelFirst);
                    continue;
                }
                if (!java.util.Arrays.equals(r[0], r[1]) && !io.spinel.server.testing.Resp.sameUnordered(r[0], r[1])) {
                    d.fail(DualRun.describe(c.toArray()) + "\n    redis:  " + DualRun.show(r[0]) + "\n    spinel: " + DualRun.show(r[1]));
                }
            }
            d.both("FLUSHALL");
            if (!d.mismatches().isEmpty()) fail(d.mismatches().size() + " differences:\n" + String.join("\n", d.mismatches()));
        }
    }

    /** PSETEX, PEXPIRE, or a PX option (SET, GETEX): a TTL short enough to end within the test's steps. */
    private static boolean setsMillisecondTtl(List<Object> c) {
        String name = (String) c.get(0);
        if (name.equals("psetex") || name.equals("pexpire")) return true;
        for (Object o : c) if ("PX".equals(o)) return true;
        return false;
    }

    private static void sleepMillis(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The keys the tokens name, one of each type, made again now and then. */
    private static void fill(DualRun d) throws IOException {
        d.both("FLUSHALL");
        d.both("SET", "str", "hello");
        d.both("SET", "int", "10");
        d.both("RPUSH", "list", "a", "b", "1");
        d.both("HSET", "hash", "f", "1", "a", "b");
        d.both("SADD", "set", "a", "b", "1");
        d.both("ZADD", "zset", "1", "a", "2", "b");
        d.both("XADD", "stream", "1-1", "f", "v");
        d.both("GEOADD", "geo", "13.36", "38.11", "m1");
    }
}
