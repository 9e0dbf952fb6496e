package io.spinel.server;

import io.spinel.server.testing.RedisServerProcess;
import io.spinel.server.testing.TwinClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * rename-command compared with redis-server started with the same directives: renamed commands
 * answer to their new name only (scripts and transactions included), removed ones to none, a
 * renamed container keeps its subcommands, COMMAND INFO finds a command by its new name and shows
 * its own.
 */
class RenameCommandDiffTest {
    private static final String[][] RENAMES = {
            {"get", "fetch"}, {"FLUSHALL", ""}, {"config", "cfg"}, {"del", "remove"}, {"remove", "erase"},
            {"set", "put"}, {"keys", "set"},
    };

    private static RedisServerProcess redis;
    private static SpinelServer spinel;

    @BeforeAll
    static void start() throws Exception {
        Assumptions.assumeTrue(RedisServerProcess.available(),
                "redis-server not installed: differential tests skipped (apt-get install redis-server)");
        List<String> args = new ArrayList<>();
        SpinelServer.Builder b = SpinelServer.builder().randomPort().option("bind", "127.0.0.1");
        for (String[] r : RENAMES) {
            args.add("--rename-command");
            args.add(r[0]);
            args.add(r[1]);
            b.renameCommand(r[0], r[1]);
        }
        redis = RedisServerProcess.start(args.toArray(new String[0]));
        spinel = b.start();
    }

    @AfterAll
    static void stop() {
        if (spinel != null) spinel.close();
        if (redis != null) redis.close();
    }

    @Test
    void clientsScriptsAndTransactionsSeeTheNewNames() throws Exception {
        List<String> diffs = new ArrayList<>();
        try (TwinClient c = new TwinClient(redis.port(), spinel.port(), diffs)) {
            c.call("PUT", "k", "v");
            c.call("FETCH", "k");
            c.call("fetch", "k");
            c.call("GET", "k");
            c.call("SET", "k", "other");
            c.call("SET", "*");
            c.call("FLUSHALL");
            c.call("DEL", "k");
            c.call("REMOVE", "k");
            c.call("ERASE", "nosuch");
            c.call("CFG", "GET", "maxmemory-policy");
            c.call("CFG", "NOSUCH");
            c.call("CONFIG", "GET", "maxmemory-policy");
            c.call("MULTI");
            c.call("PUT", "t", "1");
            c.call("GET", "t");
            c.call("EXEC");
            c.call("MULTI");
            c.call("PUT", "t", "2");
            c.call("FETCH", "t");
            c.call("EXEC");
            c.call("EVAL", "return redis.call('put', KEYS[1], 'x')", "1", "s");
            c.call("EVAL", "return redis.call('fetch', KEYS[1])", "1", "s");
            c.call("EVAL", "return redis.pcall('get', KEYS[1])", "1", "s");
            // (not a container: Redis lists a container's subcommands in its hash table's order)
            c.call("COMMAND", "INFO", "fetch", "get", "flushall", "set", "erase", "del", "cfg|get");
            c.call("COMMAND", "GETKEYS", "PUT", "a", "b");
            c.call("COMMAND", "LIST", "FILTERBY", "PATTERN", "fl*");
            c.call("COMMAND", "LIST", "FILTERBY", "PATTERN", "cfg*");
            c.call("ERASE", "k", "t", "s");
        }
        assertThat(diffs).isEmpty();
    }

    /** COMMAND COUNT and the command list lose what was removed and keep what was renamed. */
    @Test
    void theRemovedCommandLeavesTheTable() throws Exception {
        try (io.spinel.server.testing.RawClient r = new io.spinel.server.testing.RawClient(redis.port());
             io.spinel.server.testing.RawClient s = new io.spinel.server.testing.RawClient(spinel.port());
             SpinelServer plain = SpinelServer.builder().randomPort().start();
             io.spinel.server.testing.RawClient p = new io.spinel.server.testing.RawClient(plain.port())) {
            long spinelCount = Long.parseLong(s.callString("COMMAND", "COUNT").substring(1).trim());
            long plainCount = Long.parseLong(p.callString("COMMAND", "COUNT").substring(1).trim());
            assertThat(spinelCount).isEqualTo(plainCount - 1); // FLUSHALL
            assertThat(s.callString("COMMAND", "LIST")).doesNotContain("flushall").contains("$3\r\nget\r\n");
            assertThat(r.callString("COMMAND", "LIST")).doesNotContain("flushall").contains("$3\r\nget\r\n");
        }
    }

    @Test
    void badDirectivesGetRedisMessages() {
        assertThatThrownBy(() -> SpinelServer.builder().renameCommand("nosuch", "x"))
                .hasMessage("No such command in rename-command");
        assertThatThrownBy(() -> SpinelServer.builder().renameCommand("get", "SET"))
                .hasMessage("Target command name already exists");
        assertThatThrownBy(() -> SpinelServer.builder().renameCommand("get", "x").renameCommand("get", "y"))
                .hasMessage("No such command in rename-command");
        assertThatThrownBy(() -> SpinelServer.builder().renameCommand("config|get", "x"))
                .hasMessage("No such command in rename-command");
        // a command may keep its name (Redis deletes, then adds it back)
        SpinelServer.builder().renameCommand("get", "GET");
        // a refused directive changes nothing: GET still has its name for the next one
        SpinelServer.Builder b = SpinelServer.builder();
        assertThatThrownBy(() -> b.renameCommand("get", "set")).hasMessage("Target command name already exists");
        b.renameCommand("get", "fetch");
    }
}
