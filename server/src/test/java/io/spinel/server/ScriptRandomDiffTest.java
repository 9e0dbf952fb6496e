package io.spinel.server;

import io.spinel.server.testing.RawClient;
import io.spinel.server.testing.ServerPair;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Seeded random Lua scripts run through EVAL on Spinel and redis-server side by side; every reply
 * must be byte-identical. Each script evaluates random expressions (arithmetic and comparison on
 * numbers and numeric strings, concatenation, string and table library calls, table
 * constructors with holes, redis.call/pcall on a small key space) under pcall, and returns what
 * they produced (or their error messages) rendered as text, or as raw values so that Lua-to-RESP
 * conversion (RESP2 and RESP3, redis.setresp) is exercised too.
 */
class ScriptRandomDiffTest {
    private static final int SCRIPTS = 250;
    /** Renders values without addresses (tables by their contents in pairs order; tostring hides them too). */
    private static final String PRELUDE = "local tostring = function(v) local t = type(v) if t == 'table' or t == 'function' then return t end "
            + "return _G.tostring(v) end local function show(v, d) local t = type(v) "
            + "if t == 'table' then if (d or 0) > 3 then return '{...}' end local s = '{' "
            + "for k, x in pairs(v) do s = s .. show(k, 9) .. '=' .. show(x, (d or 0) + 1) .. ',' end "
            + "return s .. '#' .. #v .. '}' "
            + "elseif t == 'string' then return 's:' .. v elseif t == 'number' then return 'n:' .. tostring(v) "
            + "elseif t == 'boolean' or t == 'nil' then return tostring(v) else return t end end "
            + "local r = {} local function add(ok, ...) local n = select('#', ...) local s = tostring(ok) .. '/' .. n "
            + "for i = 1, n do s = s .. ' ' .. show((select(i, ...))) end r[#r + 1] = s end ";

    /** The keys' types and contents. */
    private static final String STATE = "local o = {} for _, k in ipairs(KEYS) do local t = redis.call('type', k).ok "
            + "o[#o + 1] = t if t == 'string' then o[#o + 1] = redis.call('get', k) elseif t == 'list' then "
            + "o[#o + 1] = table.concat(redis.call('lrange', k, 0, -1), '|') end end return o";

    @RegisterExtension
    static final ServerPair servers = new ServerPair();

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6})
    void randomScriptsMatchRedis(long seed) throws IOException {
        try (RawClient r = new RawClient(servers.redis().port()); RawClient s = new RawClient(servers.spinel().port())) {
            for (RawClient c : new RawClient[] {r, s}) {
                c.call("FLUSHALL");
                c.call("SCRIPT", "FLUSH");
            }
            Random rnd = new Random(seed);
            for (int i = 0; i < SCRIPTS; i++) {
                if (i == SCRIPTS / 2) {
                    r.call("HELLO", "3");
                    s.call("HELLO", "3");
                }
                List<String> cmd = new ArrayList<>();
                cmd.add(rnd.nextInt(10) == 0 ? "EVAL_RO" : "EVAL");
                cmd.add(new Gen(rnd).script());
                cmd.add("2");
                cmd.add("k1");
                cmd.add("k2");
                cmd.add(Gen.pick(rnd, "10", "3.5", "abc", "-7", " 12 ", "0x10", "1e3", ""));
                cmd.add(Gen.pick(rnd, "2", "0", "-0.5", "x y", "9007199254740993"));
                List<byte[]> args = new ArrayList<>();
                for (String a : cmd) args.add(a.getBytes(StandardCharsets.ISO_8859_1));
                byte[] expected = r.call(args);
                byte[] actual = s.call(args);
                if (!Arrays.equals(expected, actual)) {
                    fail("seed " + seed + ", script #" + i + ":\n" + cmd.get(1) + "\nARGV " + cmd.subList(5, 7)
                            + "\n  redis:  " + text(expected) + "\n  spinel: " + text(actual));
                }
                expected = r.call("EVAL", STATE, "3", "k1", "k2", "k3");
                actual = s.call("EVAL", STATE, "3", "k1", "k2", "k3");
                if (!Arrays.equals(expected, actual)) {
                    fail("seed " + seed + ", after script #" + i + ":\n" + cmd.get(1) + "\nARGV " + cmd.subList(5, 7)
                            + "\n  the keys differ: redis:  " + text(expected) + "\n  spinel: " + text(actual));
                }
            }
            for (String k : new String[] {"k1", "k2", "k3"}) {
                byte[] expected = r.call("TYPE", k);
                byte[] actual = s.call("TYPE", k);
                if (!Arrays.equals(expected, actual)) fail("seed " + seed + ": type of " + k + " differs at the end");
            }
        }
    }

    private static String text(byte[] b) {
        String s = new String(b, StandardCharsets.ISO_8859_1).replace("\r\n", "\\r\\n");
        return s.length() > 2000 ? s.substring(0, 2000) + "..." : s;
    }

    /** Random script text. */
    private static final class Gen {
        private final Random rnd;
        private final StringBuilder sb = new StringBuilder();

        Gen(Random rnd) {
            this.rnd = rnd;
        }

        static String pick(Random rnd, String... options) {
            return options[rnd.nextInt(options.length)];
        }

        private String pick(String... options) {
            return pick(rnd, options);
        }

        String script() {
            if (rnd.nextInt(6) == 0) sb.append("redis.setresp(3) ");
            sb.append(PRELUDE);
            int n = 1 + rnd.nextInt(6);
            for (int i = 0; i < n; i++) {
                if (rnd.nextInt(5) == 0) {
                    sb.append("local t").append(i).append(" = ").append(table(2)).append(' ');
                    sb.append("add(pcall(function() return t").append(i).append(", #t").append(i).append(" end)) ");
                } else {
                    sb.append("add(pcall(function() return ").append(expr(3)).append(" end)) ");
                }
            }
            switch (rnd.nextInt(5)) {
                case 0:
                    sb.append("return {").append(expr(2)).append(", ").append(expr(2)).append(", ").append(expr(1))
                            .append('}');
                    break;
                case 1:
                    sb.append("return ").append(expr(2));
                    break;
                default:
                    sb.append("return r");
                    break;
            }
            return sb.toString();
        }

        private String table(int depth) {
            StringBuilder t = new StringBuilder("{");
            int n = rnd.nextInt(6);
            for (int i = 0; i < n; i++) {
                if (i > 0) t.append(", ");
                switch (rnd.nextInt(6)) {
                    case 0:
                        t.append("nil");
                        break;
                    case 1:
                        t.append(pick("a", "b", "x", "ok", "err", "double")).append(" = ").append(expr(depth - 1));
                        break;
                    case 2:
                        t.append('[').append(rnd.nextInt(8)).append("] = ").append(expr(depth - 1));
                        break;
                    default:
                        t.append(expr(depth - 1));
                        break;
                }
            }
            return t.append('}').toString();
        }

        private String number() {
            switch (rnd.nextInt(8)) {
                case 0:
                    return pick("0.1", "1.5", "-2.25", "1e20", "3.14159", "1e-5", "123456789012", "2^53", "0.5");
                case 1:
                    return pick("(1/0)", "(-1/0)", "(0/0)", "(-0)", "2^63", "-2^63");
                default:
                    return Integer.toString(rnd.nextInt(41) - 20);
            }
        }

        private String string() {
            return pick("'a'", "'abc'", "'10'", "' 5 '", "'0x1F'", "'1e3'", "''", "'a%d'", "'x.y'", "'-3'",
                    "'%'", "'A b C'", "'\\0z'", "'12.50'");
        }

        private String key() {
            return pick("KEYS[1]", "KEYS[2]", "'k3'");
        }

        private String redisCall() {
            String f = rnd.nextInt(3) == 0 ? "redis.call" : "redis.pcall";
            switch (rnd.nextInt(12)) {
                case 0:
                    return f + "('set', " + key() + ", " + expr(1) + ")";
                case 1:
                    return f + "('get', " + key() + ")";
                case 2:
                    return f + "('incr', " + key() + ")";
                case 3:
                    return f + "('incrbyfloat', " + key() + ", " + expr(1) + ")";
                case 4:
                    return f + "('rpush', " + key() + ", " + expr(1) + ", " + expr(1) + ")";
                case 5:
                    return f + "('lrange', " + key() + ", 0, -1)";
                case 6:
                    return f + "('del', " + key() + ")";
                case 7:
                    return f + "('append', " + key() + ", " + expr(1) + ")";
                case 8:
                    return f + "('exists', " + key() + ", " + key() + ")";
                case 9:
                    return f + "('type', " + key() + ")";
                case 10:
                    return f + "('" + pick("nosuch", "ping", "echo", "get", "strlen") + "'" + (rnd.nextBoolean() ? ", " + expr(1) : "") + ")";
                default:
                    return f + "('getrange', " + key() + ", " + expr(0) + ", " + expr(0) + ")";
            }
        }

        String expr(int depth) {
            if (depth <= 0) {
                switch (rnd.nextInt(7)) {
                    case 0:
                    case 1:
                    case 2:
                        return number();
                    case 3:
                    case 4:
                        return string();
                    case 5:
                        return pick("ARGV[1]", "ARGV[2]", "KEYS[1]", "#ARGV", "true", "false", "nil");
                    default:
                        return pick("r", "{}", "{1, 2, 3}");
                }
            }
            int d = depth - 1;
            switch (rnd.nextInt(24)) {
                case 0:
                case 1:
                    return "(" + expr(d) + " " + pick("+", "-", "*", "/", "%", "^", "..", "..") + " " + expr(d) + ")";
                case 2:
                    return "(" + expr(d) + " " + pick("==", "~=", "<", "<=", ">", ">=", "and", "or") + " " + expr(d) + ")";
                case 3:
                    return pick("-", "not ", "#") + "(" + expr(d) + ")";
                case 4:
                    return pick("tostring", "tonumber", "type", "math.floor", "math.ceil", "math.abs", "string.len",
                            "string.upper", "string.lower", "string.reverse", "math.sqrt") + "(" + expr(d) + ")";
                case 5:
                    if (rnd.nextInt(6) == 0) return "string.rep(" + expr(d) + ", " + (rnd.nextInt(8) - 2) + ")";
                    return pick("math.max", "math.min", "math.fmod", "tonumber", "string.byte", "select")
                            + "(" + expr(d) + ", " + expr(d) + ")";
                case 6:
                    return "string.format('" + pick("%d", "%5.2f", "%s", "%g", "%x", "%q", "%-6s|", "%.3e", "%c", "%o",
                            "%i", "%%", "%5.1s") + "', " + expr(d) + ")";
                case 7:
                    return "string.sub(" + expr(d) + ", " + expr(0) + (rnd.nextBoolean() ? ", " + expr(0) : "") + ")";
                case 8:
                    return "string." + pick("find", "match", "gsub", "gmatch") + "(" + expr(d) + ", '"
                            + pick("%d+", "a", "(%a)(%a)", "^%s*(.-)%s*$", "[%.x]", "b", "%", "(", "%w+") + "'"
                            + (rnd.nextBoolean() ? ", " + pick("'-'", "'%1'", "2", "{a = 'A'}", "string.upper") : "") + ")";
                case 9:
                    return "table.concat(" + table(d) + (rnd.nextBoolean() ? ", '" + pick(",", "-", "") + "'" : "") + ")";
                case 10:
                    return "select('#', " + expr(d) + ", " + expr(d) + ")";
                case 11:
                case 12:
                    return redisCall();
                case 13:
                    return table(d);
                case 14:
                    return pick("cjson.encode", "cjson.decode", "cmsgpack.pack", "bit.tobit", "bit.bnot", "bit.tohex")
                            + "(" + expr(d) + ")";
                case 16:
                    return "(function() local t = " + table(d) + " table." + pick("sort", "insert", "remove", "sort")
                            + "(t" + (rnd.nextBoolean() ? ", " + expr(0) : "") + ") return t end)()";
                case 17:
                    return "cjson.decode(" + pick("'[1,2,{\"a\":null}]'", "'{\"a\":[1e2,-0,\"x\"]}'", "'\"\\u00e9\"'",
                            "'[1,'", "'true'", "'1e400'", "'[0.1, 100000000000000000000]'", "'{\"b\":1,\"a\":2,\"c\":{}}'",
                            "' [ ] '", "'\"x\\ty\"'") + ")";
                case 18:
                    return pick("cmsgpack.unpack(cmsgpack.pack(", "cjson.decode(cjson.encode(", "struct.unpack('>d', struct.pack('>d', ",
                            "struct.unpack('<i4', struct.pack('<i4', ") + expr(d) + "))";
                case 19:
                    return "setmetatable({}, {__index = function(t, k) return " + expr(0) + " end, __call = function(self, x) "
                            + "return x end, __concat = function(a, b) return 'cc' end})" + pick("[" + expr(d) + "]",
                            "(" + expr(d) + ")", " .. " + expr(d), ".x");
                case 20:
                    return "coroutine.wrap(function(a) local b = coroutine.yield(a) return " + expr(d) + " end)(" + expr(d) + ")";
                case 21:
                    return "(" + string() + "):" + pick("upper()", "len()", "rep(2)", "byte(1, -1)", "sub(2)", "format(1, 2)");
                case 22:
                    return "string.format('" + pick("%5.3g|%-+8d", "%08.3f %s", "% d %#x", "%3c%-3c", "%.0e %G") + "', "
                            + expr(d) + ", " + expr(d) + ")";
                default:
                    return "unpack(" + table(d) + ")";
            }
        }
    }
}
