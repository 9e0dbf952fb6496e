package io.spinel.core.script.lua;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The interpreter on its own (base, table, string and math libraries): Lua 5.1 semantics where
 * scripts can observe them, and suspension of a running script by the hook.
 */
class InterpTest {
    private static Interp state() {
        Interp L = new Interp();
        LuaTable g = new LuaTable(0, 2);
        L.setGlobals(g);
        BaseLib.open(L, g);
        TableLib.open(L, g);
        StringLib.open(L, g);
        MathLib.open(L, g);
        return L;
    }

    private static Object run(Interp L, String code) {
        LuaClosure f = L.load(code.getBytes(StandardCharsets.ISO_8859_1), "@test");
        assertThat(L.start(f)).isEqualTo(Interp.EXEC_DONE);
        return L.result();
    }

    private static String str(Object v) {
        return v.toString();
    }

    @Test
    void lengthAndIterationOrderFollowLuas() {
        Interp L = state();
        assertThat(run(L, "local t = {1,2,nil,4} return #t")).isEqualTo(4.0);
        assertThat(run(L, "local t = {nil,nil,3} return #t")).isEqualTo(3.0);
        assertThat(run(L, "local t = {} t[1]=1 t[2]=2 t[4]=4 return #t")).isEqualTo(4.0);
        assertThat(str(run(L, "local t = {10,20,30,nil,50} local s='' for k,v in pairs(t) do s=s..k..':'..v..' ' end return s")))
                .isEqualTo("1:10 2:20 3:30 5:50 ");
        // recorded from redis-server 7.0.15
        assertThat(str(run(L, "local t = {} t.x=1 t.y=2 t.z=3 t[1]=1 t[3]=3 t[2.5]=4 t[true]=5 t[false]=6 "
                + "t['long key name here']=7 local s = '' for k,v in pairs(t) do s = s .. tostring(k) .. '=' .. v .. ',' end return s")))
                .isEqualTo("1=1,y=2,x=1,2.5=4,z=3,false=6,long key name here=7,true=5,3=3,");
    }

    @Test
    void numbersFormatLikeCPrintf() {
        assertThat(Num.fmt14g(0.1)).isEqualTo("0.1");
        assertThat(Num.fmt14g(1e100)).isEqualTo("1e+100");
        assertThat(Num.fmt14g(-0.0)).isEqualTo("-0");
        assertThat(Num.fmt14g(Math.pow(2, 53))).isEqualTo("9.007199254741e+15");
        assertThat(Num.fmt14g(1.0 / 3)).isEqualTo("0.33333333333333");
        assertThat(Num.fmt14g(Double.NEGATIVE_INFINITY)).isEqualTo("-inf");
        assertThat(Num.fmt17g(0.1)).isEqualTo("0.10000000000000001");
        assertThat(Num.cLong(1e30)).isEqualTo(Long.MIN_VALUE);
        assertThat(Num.cLong(-3.99)).isEqualTo(-3);
    }

    @Test
    void runtimeErrorsNameTheVariable() {
        Interp L = state();
        assertThatThrownBy(() -> run(L, "local t = {} return t.a.b"))
                .isInstanceOf(LuaError.class).hasMessage("test:1: attempt to index field 'a' (a nil value)");
        L.reset();
        assertThatThrownBy(() -> run(L, "local x\nreturn x + 1"))
                .isInstanceOf(LuaError.class).hasMessage("test:2: attempt to perform arithmetic on local 'x' (a nil value)");
        L.reset();
        assertThatThrownBy(() -> L.load("return +".getBytes(StandardCharsets.ISO_8859_1), "@test"))
                .isInstanceOf(LuaError.class).hasMessage("test:1: unexpected symbol near '+'");
    }

    @Test
    void aSuspendedScriptResumesWhereItStopped() {
        String code = "local function fib(n) if n < 2 then return n end return fib(n-1) + fib(n-2) end "
                + "local co = coroutine.wrap(function() for i = 1, 3 do coroutine.yield(fib(18 + i)) end end) "
                + "local ok, v = pcall(function() local s = 0 for i = 1, 200000 do s = s + i % 7 end return s end) "
                + "return table.concat({co(), co(), co(), tostring(ok), v, fib(20)}, ',')";
        Interp plain = state();
        Object expected = run(plain, code);
        assertThat(str(expected)).isEqualTo("4181,6765,10946,true,599997,6765");

        Interp L = state();
        int[] hooks = {0};
        L.setHook(I -> {
            hooks[0]++;
            return true;
        }, 1000);
        L.setSuspendable(true);
        LuaClosure f = L.load(code.getBytes(StandardCharsets.ISO_8859_1), "@test");
        int r = L.start(f);
        int suspensions = 0;
        while (r == Interp.EXEC_SUSPEND) {
            suspensions++;
            r = L.resume();
        }
        assertThat(r).isEqualTo(Interp.EXEC_DONE);
        assertThat(suspensions).isGreaterThan(10);
        assertThat(L.result()).isEqualTo(expected);
    }

    @Test
    void conditionalBackJumpsReachTheHook() {
        // repeat/until and while loops jump back through comparisons, not through OP_JMP alone
        for (String code : new String[] {"local i = 0 repeat i = i + 1 until i == 100000 return i",
                "local i = 0 while i < 100000 do i = i + 1 end return i",
                "local i, t = 0, true repeat i = i + 1 t = i < 100000 until not t return i"}) {
            Interp L = state();
            int[] hooks = {0};
            L.setHook(I -> ++hooks[0] > 0, 1000);
            L.setSuspendable(true);
            int r = L.start(L.load(code.getBytes(StandardCharsets.ISO_8859_1), "@test"));
            int suspensions = 0;
            while (r == Interp.EXEC_SUSPEND) {
                suspensions++;
                r = L.resume();
            }
            assertThat(L.result()).as(code).isEqualTo(100000.0);
            assertThat(suspensions).as(code).isGreaterThanOrEqualTo(50);
        }
    }
}
