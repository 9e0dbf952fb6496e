package io.spinel.junit;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.spinel.core.embedded.ManualClock;
import io.spinel.core.embedded.SpinelClient;
import io.spinel.server.SpinelServer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Events;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.testkit.engine.EventConditions.event;
import static org.junit.platform.testkit.engine.EventConditions.finishedWithFailure;
import static org.junit.platform.testkit.engine.TestExecutionResultConditions.instanceOf;
import static org.junit.platform.testkit.engine.TestExecutionResultConditions.message;

/**
 * Runs small test classes (the static nested fixtures below, which Surefire does not run on its
 * own) through the JUnit engine and checks what they saw and what happened to their servers.
 */
class SpinelExtensionTest {
    /** What the fixtures observed, by fixture and test; each test of this class uses its own keys. */
    static final Map<String, List<Integer>> PORTS = new ConcurrentHashMap<>();

    static void record(String key, int port) {
        PORTS.computeIfAbsent(key, k -> Collections.synchronizedList(new ArrayList<>())).add(port);
    }

    private static EngineExecutionResults run(Class<?>... classes) {
        return run(Map.of(), classes);
    }

    private static EngineExecutionResults run(Map<String, String> params, Class<?>... classes) {
        var request = EngineTestKit.engine("junit-jupiter").configurationParameters(params);
        for (Class<?> c : classes) request = request.selectors(selectClass(c));
        return request.execute();
    }

    private static void assertAllPassed(EngineExecutionResults results, int tests) {
        Events failed = results.allEvents().failed();
        assertThat(failed.list()).as("failures: %s", failed.list()).isEmpty();
        results.testEvents().assertStatistics(s -> s.started(tests).succeeded(tests).failed(0));
    }

    private static boolean listening(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    // ---- field and parameter injection ----------------------------------------------------------

    @Spinel
    static class FieldFixture {
        @SpinelPort static int staticPort;
        @SpinelPort int port;
        @SpinelPort Integer boxedPort;
        @SpinelHost String host;
        @SpinelUri String uri;
        @SpinelUri URI uriObject;
        @SpinelInstance SpinelServer server;
        @SpinelInstance SpinelClient client;

        @Test
        void everyFieldDescribesTheSameServer() {
            assertThat(port).isPositive().isEqualTo(staticPort).isEqualTo(boxedPort).isEqualTo(server.port());
            assertThat(host).isEqualTo("127.0.0.1");
            assertThat(uri).isEqualTo("redis://127.0.0.1:" + port);
            assertThat(uriObject).isEqualTo(URI.create(uri));
            try (Jedis jedis = new Jedis(host, port)) {
                jedis.set("written", "over tcp");
            }
            // The in-process client sees the same keyspace.
            assertThat(client.get("written")).isEqualTo("over tcp");
            record("field", port);
        }
    }

    @Test
    void injectsFields() {
        assertAllPassed(run(FieldFixture.class), 1);
        assertThat(PORTS.get("field")).hasSize(1);
    }

    @Spinel
    static class ParameterFixture {
        static int beforeAllPort;
        final int constructorPort;

        ParameterFixture(@SpinelPort int port) {
            constructorPort = port;
        }

        @BeforeAll
        static void beforeAll(@SpinelPort int port, SpinelClient client) {
            beforeAllPort = port;
            assertThat(client.ping()).isEqualTo("PONG");
        }

        @Test
        void parametersOfEveryKind(@SpinelPort int port, @SpinelHost String host, @SpinelUri String uri,
                                   @SpinelUri URI uriObject, SpinelServer server, SpinelClient client,
                                   @SpinelInstance SpinelClient annotated) {
            assertThat(port).isEqualTo(beforeAllPort).isEqualTo(constructorPort).isEqualTo(server.port());
            assertThat(host).isEqualTo("127.0.0.1");
            assertThat(uriObject.toString()).isEqualTo(uri).isEqualTo("redis://127.0.0.1:" + port);
            client.set("k", "v");
            assertThat(annotated.get("k")).isEqualTo("v");
        }
    }

    @Test
    void resolvesParameters() {
        assertAllPassed(run(ParameterFixture.class), 1);
    }

    @Spinel
    static class WrongTypeFixture {
        @SpinelPort String port;

        @Test
        void neverRuns() {
        }
    }

    @Spinel(lifecycle = Spinel.Lifecycle.PER_METHOD)
    static class StaticPerMethodFixture {
        @SpinelPort static int port;

        @Test
        void neverRuns() {
        }
    }

    @Test
    void misuseFailsWithTheReason() {
        run(WrongTypeFixture.class).allEvents().assertThatEvents().haveExactly(1, event(finishedWithFailure(
                instanceOf(ExtensionConfigurationException.class),
                message("@SpinelPort field port must be an int or Integer"))));
        run(StaticPerMethodFixture.class).allEvents().assertThatEvents().haveExactly(1, event(finishedWithFailure(
                instanceOf(ExtensionConfigurationException.class),
                message(m -> m.contains("Lifecycle.PER_METHOD")))));
    }

    // ---- lifecycles -----------------------------------------------------------------------------

    @Spinel
    @TestMethodOrder(MethodOrderer.OrderAnnotation.class)
    static class PerClassFixture {
        @SpinelPort int port;

        @Test
        @Order(1)
        void first() {
            record("perClass", port);
            try (Jedis jedis = new Jedis("127.0.0.1", port)) {
                jedis.set("left", "behind");
            }
        }

        @Test
        @Order(2)
        void secondSeesTheSameServerEmptied() {
            record("perClass", port);
            try (Jedis jedis = new Jedis("127.0.0.1", port)) {
                assertThat(jedis.dbSize()).isZero();
                // The connection that flushed is gone: this test sees only its own.
                assertThat(jedis.clientList().lines()).hasSize(1);
            }
        }
    }

    @Test
    void perClassSharesOneServerFlushedBetweenTestsAndStoppedAfter() {
        assertAllPassed(run(PerClassFixture.class), 2);
        List<Integer> ports = PORTS.get("perClass");
        assertThat(ports).hasSize(2);
        assertThat(ports.get(0)).isEqualTo(ports.get(1));
        assertThat(listening(ports.get(0))).isFalse();
    }

    @Spinel(flushAfterEach = false)
    @TestMethodOrder(MethodOrderer.OrderAnnotation.class)
    static class NoFlushFixture {
        @SpinelInstance SpinelClient client;

        @Test
        @Order(1)
        void first() {
            client.rpush("steps", "one");
        }

        @Test
        @Order(2)
        void secondSeesTheFirstOnesData() {
            assertThat(client.lrange("steps", 0, -1)).containsExactly("one");
        }
    }

    @Test
    void flushingCanBeTurnedOff() {
        assertAllPassed(run(NoFlushFixture.class), 2);
    }

    @Spinel(lifecycle = Spinel.Lifecycle.PER_METHOD)
    @TestMethodOrder(MethodOrderer.OrderAnnotation.class)
    static class PerMethodFixture {
        @SpinelPort int port;

        @Test
        @Order(1)
        void first() {
            record("perMethod", port);
            try (Jedis jedis = new Jedis("127.0.0.1", port)) {
                jedis.set("mine", "1");
            }
        }

        @Test
        @Order(2)
        void secondGetsAFreshServer(@SpinelPort int parameterPort) {
            assertThat(parameterPort).isEqualTo(port);
            record("perMethod", port);
            assertThat(listening(PORTS.get("perMethod").get(0))).isFalse();
            try (Jedis jedis = new Jedis("127.0.0.1", port)) {
                assertThat(jedis.exists("mine")).isFalse();
            }
        }
    }

    @Test
    void perMethodStartsAServerForEachTest() {
        assertAllPassed(run(PerMethodFixture.class), 2);
        List<Integer> ports = PORTS.get("perMethod");
        assertThat(ports).hasSize(2);
        assertThat(ports.get(0)).isNotEqualTo(ports.get(1));
        assertThat(listening(ports.get(1))).isFalse();
    }

    @Spinel
    static class NestedFixture {
        @SpinelPort int outerPort;

        @Test
        void outer() {
            record("nested.outer", outerPort);
        }

        @Nested
        class Shares {
            @SpinelPort int port;

            @Test
            void inner() {
                assertThat(port).isEqualTo(outerPort);
                record("nested.shares", port);
            }
        }

        @Nested
        @Spinel(config = "databases 1")
        class OwnServer {
            @SpinelPort int port;
            @SpinelInstance SpinelClient client;

            @Test
            void inner() {
                assertThat(port).isNotEqualTo(outerPort);
                assertThatThrownBy(() -> client.select(1)).hasMessage("ERR DB index is out of range");
                record("nested.own", port);
            }
        }
    }

    @Test
    void nestedClassesShareTheEnclosingServerUnlessAnnotated() {
        assertAllPassed(run(NestedFixture.class), 3);
        int outer = PORTS.get("nested.outer").get(0);
        assertThat(PORTS.get("nested.shares")).containsExactly(outer);
        assertThat(PORTS.get("nested.own").get(0)).isNotEqualTo(outer);
        assertThat(listening(outer)).isFalse();
        assertThat(listening(PORTS.get("nested.own").get(0))).isFalse();
    }

    // ---- configuration --------------------------------------------------------------------------

    @Spinel(config = {"requirepass \"s3cret word\"", "databases 2"})
    static class PasswordFixture {
        @SpinelPort int port;
        @SpinelUri String uri;
        @SpinelInstance SpinelClient client;

        @Test
        void clientsMustAuthenticate() {
            try (Jedis anonymous = new Jedis("127.0.0.1", port)) {
                assertThatThrownBy(anonymous::ping).isInstanceOf(JedisDataException.class)
                        .hasMessageContaining("NOAUTH");
            }
            assertThat(uri).isEqualTo("redis://:s3cret%20word@127.0.0.1:" + port);
            try (Jedis jedis = new Jedis(URI.create(uri))) {
                jedis.set("k", "v");
            }
            // The injected in-process client is already authenticated.
            assertThat(client.get("k")).isEqualTo("v");
            assertThat(client.configGet("databases")).isEqualTo("2");
        }

        @Test
        void lettuceTakesTheUriAsIs() {
            RedisClient lettuce = RedisClient.create(uri);
            try (StatefulRedisConnection<String, String> c = lettuce.connect()) {
                assertThat(c.sync().ping()).isEqualTo("PONG");
            } finally {
                lettuce.shutdown();
            }
        }
    }

    @Test
    void configurationIsApplied() {
        assertAllPassed(run(PasswordFixture.class), 2);
    }

    @Spinel(config = "hz often")
    static class BadConfigFixture {
        @Test
        void neverRuns() {
        }
    }

    @Test
    void badConfigurationFailsTheClassWithTheReason() {
        run(BadConfigFixture.class).allEvents().assertThatEvents().haveExactly(1, event(finishedWithFailure(
                instanceOf(ExtensionConfigurationException.class),
                message("Spinel configuration: Invalid option 'hz' value 'often': argument couldn't be parsed "
                        + "into an integer"))));
    }

    // ---- a clock the tests move ------------------------------------------------------------------

    @Spinel(manualClock = true)
    @TestMethodOrder(MethodOrderer.OrderAnnotation.class)
    static class ManualClockFixture {
        @SpinelPort int port;
        @SpinelInstance ManualClock clock;

        @Test
        @Order(1)
        void keysExpireWhenTheClockIsMovedPastTheirTtl() throws InterruptedException {
            try (Jedis jedis = new Jedis("127.0.0.1", port)) {
                jedis.setex("session", 3600, "data");
                jedis.set("kept", "v");
                assertThat(jedis.ttl("session")).isEqualTo(3600L);
                clock.advance(java.time.Duration.ofMinutes(59));
                assertThat(jedis.ttl("session")).isEqualTo(60L);
                assertThat(jedis.get("session")).isEqualTo("data");
                clock.advance(java.time.Duration.ofSeconds(61));
                assertThat(jedis.get("session")).isNull(); // lazy expiry, an hour later in a moment
                jedis.pexpire("kept", 500);
                clock.advanceMillis(501);
                // the active cycle (hz 10) reclaims it without an access
                long deadline = System.currentTimeMillis() + 5000;
                while (jedis.dbSize() != 0 && System.currentTimeMillis() < deadline) Thread.sleep(20);
                assertThat(jedis.dbSize()).isZero();
            }
        }

        @Test
        @Order(2)
        void theSameClockIsAParameterToo(ManualClock parameter) {
            assertThat(parameter).isSameAs(clock);
        }
    }

    @Spinel
    static class NoManualClockFixture {
        @Test
        void asksForAClock(ManualClock clock) {
        }
    }

    @Test
    void aManualClockMovesTheServersTime() {
        assertAllPassed(run(ManualClockFixture.class), 2);
        run(NoManualClockFixture.class).allEvents().assertThatEvents().haveExactly(1, event(finishedWithFailure(
                message(m -> m.contains("@Spinel(manualClock = true)")))));
    }

    static class RegisteredFixture {
        @RegisterExtension
        static SpinelExtension spinel = SpinelExtension.builder()
                .lifecycle(Spinel.Lifecycle.PER_METHOD)
                .config("databases", "3")
                .build();

        @Test
        void usesTheBuilderSettings(SpinelClient client) {
            assertThat(client.configGet("databases")).isEqualTo("3");
        }
    }

    @Test
    void extensionCanBeRegisteredWithSettingsInCode() {
        assertAllPassed(run(RegisteredFixture.class), 1);
    }

    // ---- parallel execution ---------------------------------------------------------------------

    abstract static class ParallelBase {
        @SpinelPort int port;
        @SpinelInstance SpinelClient client;

        @BeforeEach
        void startsEmpty() {
            assertThat(client.dbSize()).isZero();
        }

        void work(String name) throws InterruptedException {
            record("parallel", port);
            try (Jedis jedis = new Jedis("127.0.0.1", port)) {
                for (int i = 0; i < 200; i++) jedis.incr(name);
                Thread.sleep(20); // overlap with the other classes
                assertThat(jedis.keys("*")).containsExactly(name);
                assertThat(jedis.get(name)).isEqualTo("200");
            }
        }

        @Test
        void a() throws InterruptedException {
            work(getClass().getSimpleName() + ".a");
        }

        @Test
        void b() throws InterruptedException {
            work(getClass().getSimpleName() + ".b");
        }
    }

    @Spinel
    static class Parallel1 extends ParallelBase {
    }

    @Spinel
    static class Parallel2 extends ParallelBase {
    }

    @Spinel
    static class Parallel3 extends ParallelBase {
    }

    @Spinel(lifecycle = Spinel.Lifecycle.PER_METHOD)
    @Execution(ExecutionMode.CONCURRENT)
    static class ParallelMethods extends ParallelBase {
        @Test
        void c() throws InterruptedException {
            work("c");
        }
    }

    @Test
    void parallelClassesAndMethodsEachGetTheirOwnServer() {
        EngineExecutionResults results = run(Map.of(
                "junit.jupiter.execution.parallel.enabled", "true",
                "junit.jupiter.execution.parallel.mode.default", "same_thread",
                "junit.jupiter.execution.parallel.mode.classes.default", "concurrent",
                "junit.jupiter.execution.parallel.config.strategy", "fixed",
                "junit.jupiter.execution.parallel.config.fixed.parallelism", "4"),
                Parallel1.class, Parallel2.class, Parallel3.class, ParallelMethods.class);
        assertAllPassed(results, 9);
        List<Integer> ports = new ArrayList<>(PORTS.get("parallel"));
        Set<Integer> distinct = new HashSet<>(ports);
        // Three per-class servers plus one per method of ParallelMethods.
        assertThat(distinct).hasSize(3 + 3);
        for (int p : distinct) assertThat(listening(p)).isFalse();
    }
}
