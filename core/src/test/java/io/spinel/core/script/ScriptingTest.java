package io.spinel.core.script;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * EVAL through an engine: the expected replies are what redis-server 7.0.15 answers to the same
 * commands (recorded byte for byte).
 */
class ScriptingTest {
    private final ScriptHarness h = new ScriptHarness();

    @AfterEach
    void close() {
        h.close();
    }

    private String eval(String body, String... keysAndArgs) {
        String[] a = new String[keysAndArgs.length + 2];
        a[0] = "EVAL";
        a[1] = body;
        System.arraycopy(keysAndArgs, 0, a, 2, keysAndArgs.length);
        if (keysAndArgs.length == 0) {
            a = new String[] {"EVAL", body, "0"};
        }
        return h.call(a);
    }

    @Test
    void convertsLuaValuesToResp2() {
        assertThat(eval("return {1, 2, 3, 'ciao', {1, 2}}")).isEqualTo("*5\r\n:1\r\n:2\r\n:3\r\n$4\r\nciao\r\n*2\r\n:1\r\n:2\r\n");
        assertThat(eval("return {KEYS[1], KEYS[2], ARGV[1], ARGV[2], #KEYS, #ARGV}", "2", "k1", "k2", "a1", "a2"))
                .isEqualTo("*6\r\n$2\r\nk1\r\n$2\r\nk2\r\n$2\r\na1\r\n$2\r\na2\r\n:2\r\n:2\r\n");
        assertThat(eval("return 3.99")).isEqualTo(":3\r\n");
        assertThat(eval("return -3.99")).isEqualTo(":-3\r\n");
        assertThat(eval("return {1, nil, 3}")).isEqualTo("*1\r\n:1\r\n");
        assertThat(eval("return {1, false, 3}")).isEqualTo("*3\r\n:1\r\n$-1\r\n:3\r\n");
        assertThat(eval("return true")).isEqualTo(":1\r\n");
        assertThat(eval("return false")).isEqualTo("$-1\r\n");
        assertThat(eval("return {ok='fine'}")).isEqualTo("+fine\r\n");
        assertThat(eval("return {err='MY code'}")).isEqualTo("-MY code\r\n");
        assertThat(eval("return {double = 3.5}")).isEqualTo("$3\r\n3.5\r\n");
    }

    @Test
    void convertsLuaValuesToResp3() {
        h.call("HELLO", "3");
        assertThat(eval("return {map = {a = 1}, double = 1}")).isEqualTo(",1\r\n");
        assertThat(eval("return {double = 3.5}")).isEqualTo(",3.5\r\n");
        assertThat(eval("return {big_number = '123456789012345678901234567890'}"))
                .isEqualTo("(123456789012345678901234567890\r\n");
        assertThat(eval("return {verbatim_string = {format = 'txt', string = 'abc'}}")).isEqualTo("=7\r\ntxt:abc\r\n");
        assertThat(eval("return {map = {a = 1}}")).isEqualTo("%1\r\n$1\r\na\r\n:1\r\n");
        assertThat(eval("return {set = {a = true}}")).isEqualTo("~1\r\n$1\r\na\r\n");
        assertThat(eval("return true")).isEqualTo(":1\r\n");
        assertThat(eval("redis.setresp(3) return true")).isEqualTo("#t\r\n");
        assertThat(eval("redis.setresp(3) return false")).isEqualTo("#f\r\n");
        assertThat(eval("return nil")).isEqualTo("_\r\n");
    }

    @Test
    void deeplyNestedRepliesStopAtTheLuaStackLimit() {
        String r = eval("local a = {}; local b = {a}; a[1] = b; return a");
        String[] parts = r.split("\r\n");
        assertThat(parts).hasSize(7996);
        assertThat(parts[7994]).isEqualTo("*1");
        assertThat(parts[7995]).isEqualTo("-ERR reached lua stack limit");
        assertThat(h.call("PING")).isEqualTo("+PONG\r\n");
    }

    @Test
    void tableIterationOrderIsRedisLua() {
        assertThat(eval("local t = {} for i=1,100 do t['k'..i] = i end for i=1,100,3 do t['k'..i] = nil end "
                + "for i=1,50 do t['n'..i] = i end local s = '' for k,v in pairs(t) do s = s .. k .. ',' end return s"))
                .startsWith("$449\r\nk35,n32,k32,k71,n16,k75,k39,k56,n31,n39,k96,k72,k98,n10,k9,n18,n34,n9,k90,n23,k18,");
    }

    @Test
    void numbersPrintAsLuaWithGlibc() {
        assertThat(eval("return tostring(0.1) .. ' ' .. tostring(1e100) .. ' ' .. tostring(-0.0) .. ' ' .. tostring(1/0) "
                + ".. ' ' .. tostring(2^53) .. ' ' .. tostring(1/3) .. ' ' .. tostring(-1e-300) .. ' ' .. tostring(0/0)"))
                .isEqualTo("$67\r\n0.1 1e+100 -0 -inf 9.007199254741e+15 0.33333333333333 -1e-300 -nan\r\n");
        assertThat(eval("return string.format('%.17g|%5.2f|%-8.3e|%g|%x', 0.1, 3.14159, 12345.6789, 1e20, 255)"))
                .isEqualTo("$44\r\n0.10000000000000001| 3.14|1.235e+04|1e+20|ff\r\n");
    }

    @Test
    void errorRepliesNameTheScriptAndLine() {
        assertThat(eval("local t = {} return t.a.b")).isEqualTo("-ERR user_script:1: attempt to index field 'a' "
                + "(a nil value) script: 42326c67aad50f3282f524d2107872e4a105501a, on @user_script:1.\r\n");
        assertThat(eval("return redis.call('nosuch')")).isEqualTo("-ERR Unknown Redis command called from script "
                + "script: 206396248e12c6e742fd7296250433c8d7343b74, on @user_script:1.\r\n");
        assertThat(eval("return redis.call('get')")).isEqualTo("-ERR Wrong number of args calling Redis command from "
                + "script script: f187dee77f607f7cff00bbabc9df38507582c78d, on @user_script:1.\r\n");
        assertThat(eval("return redis.call('get', {})")).isEqualTo("-ERR Lua redis lib command arguments must be "
                + "strings or integers script: 4368e88f98d93af9caf358186e5fbf273374ee91, on @user_script:1.\r\n");
        assertThat(eval("x = 1")).isEqualTo("-ERR user_script:1: Attempt to modify a readonly table "
                + "script: 34bce5f775de97f557a34088509c8bfe1ea17e52, on @user_script:1.\r\n");
        assertThat(eval("return undefined_global")).isEqualTo("-ERR user_script:1: Script attempted to access "
                + "nonexistent global variable 'undefined_global' script: 66079c13a0dbe54bee8cb53ac72311504271983b, "
                + "on @user_script:1.\r\n");
        assertThat(eval("return redis.call('blpop', 'nolist', 0)")).isEqualTo("-ERR This Redis command is not "
                + "allowed from script script: a3cef14236376ebb82ffd8a751bf777e73a8e89c, on @user_script:1.\r\n");
        assertThat(eval("return +")).startsWith("-ERR Error compiling script (new function): user_script:1: "
                + "unexpected symbol near '+'");
    }

    @Test
    void deepLuaRecursionHitsLuasStackLimitNotJavas() {
        String f = "local function f(n) if n == 0 then return 0 end return 1 + f(n - 1) end ";
        assertThat(eval(f + "return f(15000)")).isEqualTo(":15000\r\n");
        assertThat(eval(f + "return f(100000)")).isEqualTo("-ERR user_script:1: stack overflow "
                + "script: 1f9fad34292d0550320d147432dcf727cec1109c, on @user_script:1.\r\n");
    }

    @Test
    void librariesAreLoaded() {
        assertThat(eval("return cjson.encode({a = {1, 2, 3}})")).isEqualTo("$13\r\n{\"a\":[1,2,3]}\r\n");
        assertThat(eval("return cmsgpack.unpack(cmsgpack.pack({1, 'two', 3.5}))")).isEqualTo("*3\r\n:1\r\n$3\r\ntwo\r\n:3\r\n");
        assertThat(eval("return struct.unpack('>I2', '\\1\\2')")).isEqualTo(":258\r\n");
        assertThat(eval("return bit.bxor(5, 3) + bit.lshift(1, 4)")).isEqualTo(":22\r\n");
        assertThat(eval("return table.concat({unpack({1, 2, 3})}, '-') .. table.getn({1, 2}) .. table.maxn({1, [7] = 2})"))
                .isEqualTo("$7\r\n1-2-327\r\n");
    }

    @Test
    void scriptsAreCachedBySha() {
        EvalScripts cache = Scripting.of(h.engine).eval;
        assertThat(eval("return 'cached'")).isEqualTo("$6\r\ncached\r\n");
        long compiled = cache.compilations;
        assertThat(h.call("EVALSHA", "952f49ffc8f7b098d8ab5da45d3164ca36ed18b1", "0")).isEqualTo("$6\r\ncached\r\n");
        assertThat(h.call("EVALSHA", "952F49FFC8F7B098D8AB5DA45D3164CA36ED18B1", "0")).isEqualTo("$6\r\ncached\r\n");
        assertThat(eval("return 'cached'")).isEqualTo("$6\r\ncached\r\n");
        assertThat(cache.compilations).isEqualTo(compiled);
        assertThat(h.call("SCRIPT", "FLUSH")).isEqualTo("+OK\r\n");
        assertThat(h.call("EVALSHA", "952f49ffc8f7b098d8ab5da45d3164ca36ed18b1", "0"))
                .isEqualTo("-NOSCRIPT No matching script. Please use EVAL.\r\n");
        assertThat(h.call("SCRIPT", "LOAD", "return 'cached'")).isEqualTo("$40\r\n952f49ffc8f7b098d8ab5da45d3164ca36ed18b1\r\n");
        assertThat(h.call("SCRIPT", "EXISTS", "952f49ffc8f7b098d8ab5da45d3164ca36ed18b1", "00")).isEqualTo("*2\r\n:1\r\n:0\r\n");
    }

    @Test
    void timeIsFrozenForExpiryDuringAScript() {
        assertThat(eval("redis.call('set','fk','v','px',1) local t = redis.call('time') local s = t[1]*1000000+t[2] "
                + "repeat local n = redis.call('time') until (n[1]*1000000+n[2]) - s > 20000 "
                + "return {redis.call('exists','fk'), redis.call('get','fk')}"))
                .isEqualTo("*2\r\n:1\r\n$1\r\nv\r\n");
        assertThat(h.call("EXISTS", "fk")).isEqualTo(":0\r\n");
    }

    @Test
    void readOnlyScriptsAndFlags() {
        assertThat(h.call("EVAL_RO", "return redis.call('set','x','y')", "1", "x")).isEqualTo("-ERR Write commands are "
                + "not allowed from read-only scripts. script: 71e6319f97b0fe8bdfa1c5df3ce4489946dda479, on @user_script:1.\r\n");
        assertThat(eval("#!lua flags=no-writes\nreturn redis.call('set','x','y')", "1", "x")).startsWith(
                "-ERR Write commands are not allowed from read-only scripts.");
        assertThat(eval("#!lua flags=bogus\nreturn 1")).isEqualTo("-ERR Unexpected flag in script shebang: bogus\r\n");
        assertThat(eval("#!lua\nreturn redis.call('set','x','y')", "1", "x")).isEqualTo("+OK\r\n");
        assertThat(h.call("CONFIG", "SET", "min-replicas-to-write", "1")).isEqualTo("+OK\r\n");
        assertThat(eval("#!lua\nreturn 1")).isEqualTo("-NOREPLICAS Not enough good replicas to write.\r\n");
        assertThat(eval("#!lua flags=no-writes\nreturn 1")).isEqualTo(":1\r\n");
        assertThat(eval("return redis.call('set','x','y')")).startsWith("-NOREPLICAS Not enough good replicas to write.");
        assertThat(h.call("SET", "x", "z")).isEqualTo("-NOREPLICAS Not enough good replicas to write.\r\n");
    }
}
