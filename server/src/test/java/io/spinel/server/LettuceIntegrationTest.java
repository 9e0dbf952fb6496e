package io.spinel.server;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Spinel through Lettuce 7, which opens every connection with HELLO 3 (RESP3). */
class LettuceIntegrationTest {
    private static SpinelServer server;
    private static RedisClient client;

    @BeforeAll
    static void start() {
        server = SpinelServer.builder().randomPort().option("bind", "127.0.0.1").start();
        client = RedisClient.create("redis://127.0.0.1:" + server.port());
    }

    @AfterAll
    static void stop() {
        client.shutdown();
        server.close();
    }

    @Test
    void resp3ConnectionAndCommands() {
        try (StatefulRedisConnection<String, String> conn = client.connect()) {
            RedisCommands<String, String> r = conn.sync();
            assertThat(r.ping()).isEqualTo("PONG");
            assertThat(r.set("k", "v", SetArgs.Builder.ex(100))).isEqualTo("OK");
            assertThat(r.get("k")).isEqualTo("v");
            assertThat(r.ttl("k")).isBetween(99L, 100L);
            assertThat(r.incrbyfloat("f", 0.1)).isEqualTo(0.1);
            assertThat(r.clientGetname()).isNull();
            r.clientSetname("lettuce-test");
            assertThat(r.clientGetname()).isEqualTo("lettuce-test");
            assertThat(r.clientList()).contains("name=lettuce-test").contains("resp=3");
            assertThat(r.info("server")).contains("redis_version:7.0.15");
        }
    }

    /** A user in the URI: Lettuce authenticates with HELLO 3 AUTH user password. */
    @Test
    void aclUserThroughTheUri() {
        try (StatefulRedisConnection<String, String> admin = client.connect()) {
            assertThat(admin.sync().aclSetuser("app", io.lettuce.core.AclSetuserArgs.Builder.on().addPassword("s3cret")
                    .keyPattern("app:*").addCommand(io.lettuce.core.protocol.CommandType.GET)
                    .addCommand(io.lettuce.core.protocol.CommandType.SET))).isEqualTo("OK");
        }
        RedisClient asApp = RedisClient.create(io.lettuce.core.RedisURI.builder().withHost("127.0.0.1")
                .withPort(server.port()).withAuthentication("app", "s3cret").build());
        try (StatefulRedisConnection<String, String> conn = asApp.connect()) {
            RedisCommands<String, String> r = conn.sync();
            assertThat(r.set("app:1", "v")).isEqualTo("OK");
            assertThat(r.get("app:1")).isEqualTo("v");
            assertThatThrownBy(() -> r.get("other")).hasMessageContaining(
                    "NOPERM this user has no permissions to access one of the keys used as arguments");
            assertThatThrownBy(() -> r.del("app:1")).hasMessageContaining(
                    "NOPERM this user has no permissions to run the 'del' command");
        } finally {
            asApp.shutdown();
        }
        RedisClient wrong = RedisClient.create(io.lettuce.core.RedisURI.builder().withHost("127.0.0.1")
                .withPort(server.port()).withAuthentication("app", "wrong").build());
        try {
            assertThatThrownBy(wrong::connect).hasStackTraceContaining("WRONGPASS");
        } finally {
            wrong.shutdown();
        }
    }

    @Test
    void asyncPipelining() throws Exception {
        try (StatefulRedisConnection<String, String> conn = client.connect()) {
            RedisAsyncCommands<String, String> a = conn.async();
            conn.setAutoFlushCommands(false);
            List<RedisFuture<Long>> futures = new ArrayList<>();
            for (int i = 0; i < 5000; i++) futures.add(a.incr("pipelined"));
            conn.flushCommands();
            for (int i = 0; i < futures.size(); i++) {
                assertThat(futures.get(i).get(5, TimeUnit.SECONDS)).isEqualTo(i + 1);
            }
            conn.setAutoFlushCommands(true);
        }
    }
}
