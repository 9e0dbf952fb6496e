package io.spinel.server;

import io.spinel.server.testing.RawClient;
import io.spinel.server.testing.ServerPair;
import io.spinel.server.testing.TwinClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Lua debugger (SCRIPT DEBUG SYNC, what redis-cli --ldb-sync-mode drives, and YES, what
 * redis-cli --ldb drives) compared with redis-server byte for byte: every stop, listing, variable
 * dump, logged command and reply, error, and the session's end (its last lines, the EVAL's reply,
 * the connection closed); after a YES session, the data set as it was before. Only HELP's
 * wording is Spinel's own.
 */
class LuaDebuggerDiffTest {
    @RegisterExtension
    static final ServerPair servers = new ServerPair();

    private static final String SCRIPT = String.join("\n",
            "local a = 1",
            "local t = {1,2,'x'}",
            "local function f(x)",
            "  redis.debug('in f', x, t)",
            "  return x * 2",
            "end",
            "redis.call('set', KEYS[1], ARGV[1])",
            "local b = f(a)",
            "redis.breakpoint()",
            "local c = redis.call('get', KEYS[1])",
            "return {a, b, c}");

    private static TwinClient twin(List<String> diffs) throws IOException {
        return new TwinClient(servers.redis().port(), servers.spinel().port(), diffs);
    }

    /** Runs the steps (each a debugger command after SCRIPT DEBUG SYNC and the EVAL) on a fresh connection to each server. */
    private static void session(List<String> diffs, String[] eval, String[]... steps) throws IOException {
        try (TwinClient d = twin(diffs)) {
            d.call("SCRIPT", "DEBUG", "SYNC");
            d.call(eval);
            for (String[] step : steps) d.call(step);
            d.read("the EVAL's reply, after the session's last lines");
            assertThat(d.r.isClosedByPeer()).as("redis-server ended the session").isTrue();
            assertThat(d.s.isClosedByPeer()).as("spinel ended the session").isTrue();
        }
    }

    private static String[] cmd(String... args) {
        return args;
    }

    @Test
    void steppingListingPrintingBreakpointsAndCommands() throws IOException {
        List<String> diffs = new ArrayList<>();
        try (TwinClient setup = twin(diffs)) {
            setup.call("DEL", "dbg:k");
        }
        session(diffs, cmd("EVAL", SCRIPT, "1", "dbg:k", "v"),
                cmd("s"), cmd("p"), cmd("s"), cmd("p", "t"), cmd("list"), cmd("b", "10"), cmd("b"), cmd("s"),
                cmd("s"), cmd("t"), cmd("r", "get", "dbg:k"), cmd("r", "lpush", "dbg:k", "x"), cmd("e", "a+1"),
                cmd("e", "syntax error here"), cmd("m", "10"), cmd("p", "t"), cmd("m", "0"), cmd("w"),
                cmd("c"), cmd("c"));
        assertThat(diffs).isEmpty();
    }

    @Test
    void loopsNestedCallsAndTraces() throws IOException {
        List<String> diffs = new ArrayList<>();
        session(diffs, cmd("EVAL", "local i = 0\nwhile i < 3 do\n  i = i + 1\nend\nreturn i", "0"),
                cmd("s"), cmd("s"), cmd("s"), cmd("s"), cmd("p"), cmd("l", "2", "1"), cmd("c"));
        session(diffs, cmd("EVAL", "local function g(n)\n  return n + 1\nend\nlocal function f(n)\n  return g(n) * 2\nend\nreturn f(1)", "0"),
                cmd("s"), cmd("s"), cmd("s"), cmd("s"), cmd("t"), cmd("p"), cmd("p", "n"), cmd("s"));
        assertThat(diffs).isEmpty();
    }

    @Test
    void valuesLimitsAndBadArguments() throws IOException {
        List<String> diffs = new ArrayList<>();
        session(diffs, cmd("EVAL", "return 1", "0"),
                cmd("p"), cmd("p", "KEYS"), cmd("p", "nope"), cmd("l", "1", "0"), cmd("l", "0"), cmd("b", "0"),
                cmd("b", "x", "-3", "99"), cmd("b", "1"), cmd("b", "-1"), cmd("e", "redis.call('ping')"),
                cmd("e", "{1,{2,{a=1}}}"), cmd("e", "local z = 5"), cmd("e", "error('boom')"), cmd("r", "nosuch"),
                cmd("r"), cmd("nosuch"), cmd("hello\0world"), cmd("\0hello"), cmd("c"));
        // a bad argument to redis.pcall is shown as raised, and so is a command's error reply
        session(diffs, cmd("EVAL", "redis.pcall('set', {})\nredis.pcall('incr', KEYS[1])\nreturn 1", "1", "dbg:str"),
                cmd("r", "set", "dbg:str", "text"), cmd("s"), cmd("s"), cmd("c"));
        session(diffs, cmd("EVAL", "local s = string.rep('x', 400)\nreturn s", "0"),
                cmd("s"), cmd("p"), cmd("p"), cmd("e", "string.rep('y', 300)"), cmd("m", "100"), cmd("p"), cmd("c"));
        assertThat(diffs).isEmpty();
    }

    @Test
    void abortErrorsBeforeTheScriptAndProtocolLimits() throws IOException {
        List<String> diffs = new ArrayList<>();
        session(diffs, cmd("EVAL", "redis.call('set', 'dbg:x', '1')\nreturn 'hello'", "0"), cmd("s"), cmd("a"));
        session(diffs, cmd("EVAL", "return 1", "5"));
        session(diffs, cmd("EVAL", "return +", "0"));
        try (TwinClient d = twin(diffs)) {
            d.call("SCRIPT", "DEBUG", "SYNC");
            d.call("EVALSHA", "a".repeat(40), "0");
            d.call("EVALSHA", "abc", "0");
            d.call("SCRIPT", "DEBUG", "NO");
            d.call("SCRIPT", "DEBUG", "MAYBE");
            d.call("EVAL", "return 1", "0");
        }
        // Redis's "lua stack overflow" test: a command of 100 arguments typed at the prompt
        try (TwinClient d = twin(diffs)) {
            d.call("SCRIPT", "DEBUG", "SYNC");
            d.call("EVAL", "return 'hello'", "0");
            String[] many = new String[101];
            many[0] = "redis";
            for (int j = 1; j < many.length; j++) many[j] = "test";
            d.call(many);
            String[] tooMany = new String[1025];
            java.util.Arrays.fill(tooMany, "x");
            d.call(tooMany);
            d.read("the EVAL's error");
            assertThat(d.r.isClosedByPeer()).isTrue();
            assertThat(d.s.isClosedByPeer()).isTrue();
        }
        // SCRIPT DEBUG after a pipelined command whose reply is not sent yet
        try (TwinClient d = twin(diffs)) {
            byte[] pipeline = (new String(RawClient.encode(TwinClient.bytes("PING")), StandardCharsets.ISO_8859_1)
                    + new String(RawClient.encode(TwinClient.bytes("SCRIPT", "DEBUG", "SYNC")), StandardCharsets.ISO_8859_1))
                    .getBytes(StandardCharsets.ISO_8859_1);
            d.r.sendRaw(pipeline);
            d.s.sendRaw(pipeline);
            d.read("PING");
            d.read("SCRIPT DEBUG in a pipeline");
        }
        assertThat(diffs).isEmpty();
    }

    /** While the script is stopped nobody else is served; what they sent runs after the session. */
    @Test
    void otherClientsWaitForTheSession() throws IOException {
        List<String> diffs = new ArrayList<>();
        try (TwinClient d = twin(diffs); TwinClient other = twin(diffs)) {
            other.call("DEL", "dbg:held");
            d.call("SCRIPT", "DEBUG", "SYNC");
            d.call("EVAL", "redis.call('set', 'dbg:held', 'by script')\nreturn 1", "0");
            // sent while the script has not run its SET yet: answered once it has
            other.send("GET", "dbg:held");
            d.call("s");
            d.call("c");
            d.read("the EVAL's reply");
            other.read("GET held during the session");
            assertThat(d.r.isClosedByPeer()).isTrue();
            assertThat(d.s.isClosedByPeer()).isTrue();
        }
        assertThat(diffs).isEmpty();
    }

    /** The client leaving a stopped script: it runs to its end without stopping again. */
    @Test
    void aDisconnectedSessionRunsToItsEnd() throws IOException {
        List<String> diffs = new ArrayList<>();
        try (TwinClient other = twin(diffs)) {
            other.call("DEL", "dbg:gone");
            try (TwinClient d = twin(diffs)) {
                d.call("SCRIPT", "DEBUG", "SYNC");
                d.call("EVAL", "redis.breakpoint()\nredis.call('set', 'dbg:gone', 'done')\nreturn 1", "0");
            }
            other.call("GET", "dbg:gone");
        }
        assertThat(diffs).isEmpty();
    }

    @Test
    void aScriptRunningPastTheTimeLimitStops() throws IOException {
        List<String> diffs = new ArrayList<>();
        try (TwinClient config = twin(diffs)) {
            config.call("CONFIG", "SET", "busy-reply-threshold", "200");
            try (TwinClient d = twin(diffs)) {
                d.call("SCRIPT", "DEBUG", "SYNC");
                d.call("EVAL", "local i = 0\nwhile true do\n  i = i + 1\nend", "0");
                d.call("c");
                d.call("a");
                d.read("the EVAL's error");
            }
            config.call("CONFIG", "SET", "busy-reply-threshold", "5000");
        }
        assertThat(diffs).isEmpty();
    }

    @Test
    void helpListsEveryCommand() throws IOException {
        try (RawClient c = new RawClient(servers.spinel().port())) {
            assertThat(c.callString("SCRIPT", "DEBUG", "SYNC")).isEqualTo("+OK\r\n");
            c.call("EVAL", "return 1", "0");
            String help = c.callString("h");
            for (String command : new String[] {"[h]elp", "[s]tep", "[n]ext", "[c]ontinue", "[l]ist", "[w]hole", "[p]rint",
                    "[b]reak", "[t]race", "[e]val", "[r]edis", "[m]axlen", "[a]bort", "redis.debug", "redis.breakpoint"}) {
                assertThat(help).contains(command);
            }
            assertThat(c.callString("c")).isEqualTo("*1\r\n+<endsession>\r\n");
            assertThat(new String(c.readReply(), StandardCharsets.ISO_8859_1)).isEqualTo(":1\r\n");
            assertThat(c.isClosedByPeer()).isTrue();
        }
    }

    /**
     * SCRIPT DEBUG YES: Redis runs the session in a fork()ed child, so whatever the script changes
     * is gone when it ends: every type of value, changes in place and new keys, other databases,
     * FLUSHDB, SWAPDB and FLUSHALL; the script is not left in the cache and no change is counted
     * for a save.
     */
    @Test
    void aForkedSessionLeavesTheDataSetAsItWas() throws IOException {
        List<String> diffs = new ArrayList<>();
        try (TwinClient setup = twin(diffs)) {
            setup.call("FLUSHALL");
            setup.call("SET", "dbg:str", "hello");
            setup.call("SET", "dbg:int", "41");
            setup.call("RPUSH", "dbg:list", "a", "b", "c");
            setup.call("HSET", "dbg:hash", "f1", "v1", "f2", "v2");
            setup.call("SADD", "dbg:set", "1", "2", "3");
            setup.call("ZADD", "dbg:zset", "1", "a", "2", "b");
            setup.call("XADD", "dbg:stream", "1-1", "f", "v");
            setup.call("XGROUP", "CREATE", "dbg:stream", "g", "0");
            setup.call("SET", "dbg:ttl", "x", "PXAT", "4102444800000");
            setup.call("HSET", "dbg:ttlhash", "f", "v");
            setup.call("PEXPIREAT", "dbg:ttlhash", "4102444800000");
            setup.call("SET", "dbg:big", "x".repeat(100_000)); // kept in native memory by Spinel
            setup.call("SELECT", "1");
            setup.call("SET", "dbg:db1", "one");
            setup.call("SELECT", "2");
            setup.call("SET", "dbg:db2", "two");
        }
        String before = dataSet(servers.redis().port()), spinelBefore = dataSet(servers.spinel().port());
        String redisChanges = changesSinceSave(servers.redis().port()), spinelChanges = changesSinceSave(servers.spinel().port());
        String script = String.join("\n",
                "redis.call('set', 'dbg:str', 'changed')",
                "redis.call('append', 'dbg:str', '!')",
                "redis.call('incr', 'dbg:int')",
                "redis.call('lpush', 'dbg:list', 'z')",
                "redis.call('hdel', 'dbg:hash', 'f1')",
                "redis.call('sadd', 'dbg:set', 'x')",
                "redis.call('zincrby', 'dbg:zset', 5, 'a')",
                "redis.call('xadd', 'dbg:stream', '2-1', 'f', 'v')",
                "redis.call('xreadgroup', 'group', 'g', 'c', 'streams', 'dbg:stream', '>')",
                "redis.call('persist', 'dbg:ttl')",
                "redis.call('expire', 'dbg:ttlhash', 100)",
                "redis.call('setrange', 'dbg:big', 0, 'y')",
                "redis.call('set', 'dbg:new', 'new')",
                "redis.call('del', 'dbg:list')",
                "redis.call('rpush', 'dbg:list', 'other')",
                "redis.call('select', 1)",
                "redis.call('flushdb')",
                "redis.call('set', 'dbg:after-flush', '1')",
                "redis.call('swapdb', 0, 2)",
                "redis.call('select', 0)",
                "redis.call('set', 'dbg:db2', 'changed in the swapped db')",
                "redis.call('flushall')",
                "redis.call('set', 'dbg:after-flushall', '1')",
                "return redis.call('dbsize')");
        try (TwinClient d = twin(diffs)) {
            d.call("SCRIPT", "DEBUG", "YES");
            d.call("EVAL", script, "0");
            d.call("s");
            d.call("s");
            d.call("r", "get", "dbg:str");
            d.call("c");
            d.read("the EVAL's reply, after the session's last lines");
            assertThat(d.r.isClosedByPeer()).as("redis-server ended the session").isTrue();
            assertThat(d.s.isClosedByPeer()).as("spinel ended the session").isTrue();
        }
        try (TwinClient after = twin(diffs)) {
            after.call("SCRIPT", "EXISTS", sha1(script));
        }
        assertThat(diffs).isEmpty();
        assertThat(dataSet(servers.redis().port())).as("redis-server's data set").isEqualTo(before);
        assertThat(dataSet(servers.spinel().port())).as("spinel's data set").isEqualTo(spinelBefore);
        assertThat(spinelBefore).as("both hold the same").isEqualTo(before);
        assertThat(changesSinceSave(servers.redis().port())).isEqualTo(redisChanges);
        assertThat(changesSinceSave(servers.spinel().port())).isEqualTo(spinelChanges);
    }

    /**
     * Nobody else hears of a forked session's changes: a WATCH stays clean, keyspace events and
     * the script's PUBLISH reach no subscriber, and others read the old values (Redis serves them
     * during the session, Spinel once it ended).
     */
    @Test
    void aForkedSessionsEffectsReachNobody() throws IOException {
        List<String> diffs = new ArrayList<>();
        try (TwinClient other = twin(diffs); TwinClient sub = twin(diffs); TwinClient watcher = twin(diffs)) {
            other.call("CONFIG", "SET", "notify-keyspace-events", "KEA");
            other.call("SET", "dbg:w", "orig");
            sub.call("SUBSCRIBE", "dbg:ch");
            sub.call("PSUBSCRIBE", "__keyspace@0__:dbg:*");
            watcher.call("WATCH", "dbg:w");
            try (TwinClient d = twin(diffs)) {
                d.call("SCRIPT", "DEBUG", "YES");
                d.call("EVAL", "redis.call('set', 'dbg:w', 'session')\nredis.call('lpush', 'dbg:l', 'x')\n"
                        + "redis.call('publish', 'dbg:ch', 'from the session')\nreturn redis.call('get', 'dbg:w')", "0");
                other.send("GET", "dbg:w");
                d.call("s");
                d.call("s");
                d.call("c");
                d.read("the EVAL's reply");
                other.read("GET during the session");
            }
            watcher.call("MULTI");
            watcher.call("SET", "dbg:w", "by the watcher");
            watcher.call("EXEC");
            other.call("PUBLISH", "dbg:ch", "after the session");
            sub.read("the watcher's SET event, the first one it gets");
            sub.read("the message after the session");
            other.call("CONFIG", "SET", "notify-keyspace-events", "");
            other.call("DEL", "dbg:w", "dbg:l");
        }
        assertThat(diffs).isEmpty();
    }

    /** As in Redis, SCRIPT DEBUG YES after SYNC leaves the session synchronous (only NO clears SYNC). */
    @Test
    void yesAfterSyncStaysSynchronous() throws IOException {
        List<String> diffs = new ArrayList<>();
        try (TwinClient other = twin(diffs)) {
            other.call("SET", "dbg:sync", "before");
            try (TwinClient d = twin(diffs)) {
                d.call("SCRIPT", "DEBUG", "SYNC");
                d.call("SCRIPT", "DEBUG", "YES");
                d.call("EVAL", "return redis.call('set', 'dbg:sync', 'kept')", "0");
                d.call("c");
                d.read("the EVAL's reply");
            }
            other.call("GET", "dbg:sync");
        }
        assertThat(diffs).isEmpty();
    }

    /** Every key of databases 0-2 with its DUMP, expire time and encoding. */
    private static String dataSet(int port) throws IOException {
        StringBuilder sb = new StringBuilder();
        try (RawClient c = new RawClient(port)) {
            for (int db = 0; db <= 2; db++) {
                c.call("SELECT", Integer.toString(db));
                String keys = c.callString("KEYS", "*");
                List<String> names = new ArrayList<>();
                String[] lines = keys.split("\r\n");
                for (int i = 2; i < lines.length; i += 2) names.add(lines[i]);
                java.util.Collections.sort(names);
                sb.append("db").append(db).append(' ').append(names).append('\n');
                for (String k : names) {
                    sb.append(k).append(' ').append(c.callString("EXPIRETIME", k).trim()).append(' ')
                            .append(c.callString("OBJECT", "ENCODING", k).trim()).append(' ')
                            .append(java.util.HexFormat.of().formatHex(c.call("DUMP", k))).append('\n');
                }
            }
        }
        return sb.toString();
    }

    /** INFO's rdb_changes_since_last_save. */
    private static String changesSinceSave(int port) throws IOException {
        try (RawClient c = new RawClient(port)) {
            String info = c.callString("INFO", "persistence");
            int at = info.indexOf("rdb_changes_since_last_save:");
            return info.substring(at, info.indexOf('\r', at));
        }
    }

    private static String sha1(String script) {
        try {
            return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-1")
                    .digest(script.getBytes(StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }
}
