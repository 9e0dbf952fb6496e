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
 * The Lua debugger (SCRIPT DEBUG SYNC, what redis-cli --ldb-sync-mode drives) compared with
 * redis-server byte for byte: every stop, listing, variable dump, logged command and reply, error,
 * and the session's end (its last lines, the EVAL's reply, the connection closed). Only HELP's
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
    void helpListsEveryCommandAndYesIsRefused() throws IOException {
        try (RawClient c = new RawClient(servers.spinel().port())) {
            String refused = c.callString("SCRIPT", "DEBUG", "YES");
            assertThat(refused).startsWith("-ERR SCRIPT DEBUG YES").contains("SCRIPT DEBUG SYNC");
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
}
