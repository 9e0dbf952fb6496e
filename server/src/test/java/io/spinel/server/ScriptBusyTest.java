package io.spinel.server;

import io.spinel.server.testing.RawClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Scripts that run past busy-reply-threshold: the server keeps serving other clients (with BUSY
 * for everything but SCRIPT/FUNCTION KILL and SHUTDOWN NOSAVE), SCRIPT KILL stops a script that
 * has not written, a script that wrote is unkillable, and the server is normal afterwards.
 */
class ScriptBusyTest {
    private static SpinelServer server;

    @BeforeAll
    static void start() {
        server = SpinelServer.builder().randomPort().option("bind", "127.0.0.1")
                .option("busy-reply-threshold", "50").start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static String reply(RawClient c) throws Exception {
        return new String(c.readReply(), StandardCharsets.ISO_8859_1);
    }

    /** Polls with PING until the server answers BUSY (the script passed the threshold). */
    private static void awaitBusy(RawClient other) throws Exception {
        for (int i = 0; i < 200; i++) {
            String r = other.callString("PING");
            if (r.startsWith("-BUSY")) return;
            Thread.sleep(10);
        }
        throw new AssertionError("server never became busy");
    }

    @Test
    void scriptKillStopsAReadOnlyScript() throws Exception {
        try (RawClient runner = new RawClient(server.port()); RawClient other = new RawClient(server.port())) {
            runner.send(java.util.List.of("EVAL".getBytes(), "local i = 0 while true do i = i + 1 end".getBytes(), "0".getBytes()));
            awaitBusy(other);
            assertThat(other.callString("GET", "x")).isEqualTo("-BUSY Redis is busy running a script. You can only "
                    + "call SCRIPT KILL or SHUTDOWN NOSAVE.\r\n");
            assertThat(other.callString("FUNCTION", "KILL")).isEqualTo("-BUSY Redis is busy running a script. You can "
                    + "only call SCRIPT KILL or SHUTDOWN NOSAVE.\r\n");
            assertThat(other.callString("SCRIPT", "KILL")).isEqualTo("+OK\r\n");
            assertThat(reply(runner)).isEqualTo("-ERR Script killed by user with SCRIPT KILL... "
                    + "script: 3fcf51a9b854b8f66cb8685600b0d7df968f4398, on @user_script:1.\r\n");
            assertThat(other.callString("PING")).isEqualTo("+PONG\r\n");
            assertThat(runner.callString("PING")).isEqualTo("+PONG\r\n");
            assertThat(other.callString("SCRIPT", "KILL")).isEqualTo("-NOTBUSY No scripts in execution right now.\r\n");
        }
    }

    @Test
    void aScriptThatWroteIsUnkillableAndFinishes() throws Exception {
        try (RawClient runner = new RawClient(server.port()); RawClient other = new RawClient(server.port())) {
            String body = "redis.call('set', 'w', '1') local t = redis.call('time') local s = t[1] * 1000000 + t[2] "
                    + "repeat local n = redis.call('time') until (n[1] * 1000000 + n[2]) - s > 400000 "
                    + "return redis.call('incr', 'w')";
            runner.send(java.util.List.of("EVAL".getBytes(), body.getBytes(), "0".getBytes()));
            awaitBusy(other);
            assertThat(other.callString("SCRIPT", "KILL")).isEqualTo("-UNKILLABLE Sorry the script already executed "
                    + "write commands against the dataset. You can either wait the script termination or kill the "
                    + "server in a hard way using the SHUTDOWN NOSAVE command.\r\n");
            assertThat(reply(runner)).isEqualTo(":2\r\n");
            assertThat(other.callString("GET", "w")).isEqualTo("$1\r\n2\r\n");
        }
    }

    @Test
    void functionKillStopsAFunction() throws Exception {
        try (RawClient runner = new RawClient(server.port()); RawClient other = new RawClient(server.port())) {
            assertThat(runner.callString("FUNCTION", "LOAD", "REPLACE", "#!lua name=spin\n"
                    + "redis.register_function{function_name='spin', callback=function() while true do end end, "
                    + "flags={'no-writes'}}")).isEqualTo("$4\r\nspin\r\n");
            runner.send(java.util.List.of("FCALL".getBytes(), "spin".getBytes(), "0".getBytes()));
            awaitBusy(other);
            assertThat(other.callString("SET", "x", "1")).isEqualTo("-BUSY Redis is busy running a script. You can "
                    + "only call FUNCTION KILL or SHUTDOWN NOSAVE.\r\n");
            assertThat(other.callString("SCRIPT", "KILL")).isEqualTo("-BUSY Redis is busy running a script. You "
                    + "can only call FUNCTION KILL or SHUTDOWN NOSAVE.\r\n");
            assertThat(other.callString("FUNCTION", "KILL")).isEqualTo("+OK\r\n");
            assertThat(reply(runner)).isEqualTo("-ERR Script killed by user with SCRIPT KILL... "
                    + "script: spin, on @user_function:2.\r\n");
            assertThat(other.callString("PING")).isEqualTo("+PONG\r\n");
        }
    }
}
