package io.spinel.server;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.params.SetParams;
import redis.clients.jedis.resps.ScanResult;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Spinel through Jedis, the most common Java client: strings, keys, expiry, pipelining, scan. */
class JedisIntegrationTest {
    private static SpinelServer server;
    private static JedisPool pool;

    @BeforeAll
    static void start() {
        server = SpinelServer.builder().randomPort().option("bind", "127.0.0.1").start();
        pool = new JedisPool("127.0.0.1", server.port());
    }

    @AfterAll
    static void stop() {
        pool.close();
        server.close();
    }

    @BeforeEach
    void flush() {
        try (Jedis j = pool.getResource()) {
            j.flushAll();
        }
    }

    @Test
    void stringsRoundTrip() {
        try (Jedis j = pool.getResource()) {
            assertThat(j.set("k", "v")).isEqualTo("OK");
            assertThat(j.get("k")).isEqualTo("v");
            assertThat(j.set("k", "w", SetParams.setParams().nx())).isNull();
            assertThat(j.setGet("k", "x")).isEqualTo("v");
            assertThat(j.append("k", "yz")).isEqualTo(3);
            assertThat(j.incr("n")).isEqualTo(1);
            assertThat(j.incrBy("n", 41)).isEqualTo(42);
            assertThat(j.incrByFloat("f", 10.5)).isEqualTo(10.5);
            assertThat(j.mget("k", "n", "missing")).containsExactly("xyz", "42", null);
            assertThat(j.strlen("k")).isEqualTo(3);
            assertThat(j.getrange("k", 1, -1)).isEqualTo("yz");
            byte[] binary = {0, (byte) 0xff, '\r', '\n', 7};
            j.set("bin".getBytes(), binary);
            assertThat(j.get("bin".getBytes())).isEqualTo(binary);
        }
    }

    @Test
    void errorsSurfaceAsJedisExceptions() {
        try (Jedis j = pool.getResource()) {
            j.set("s", "notanumber");
            assertThatThrownBy(() -> j.incr("s")).isInstanceOf(JedisDataException.class)
                    .hasMessage("ERR value is not an integer or out of range");
            assertThatThrownBy(() -> j.sendCommand(() -> "NOSUCHCOMMAND".getBytes(), "a"))
                    .hasMessageContaining("unknown command 'NOSUCHCOMMAND'");
        }
    }

    @Test
    void expiryIsVisibleAndLazy() throws InterruptedException {
        try (Jedis j = pool.getResource()) {
            j.set("t", "v", SetParams.setParams().px(100));
            assertThat(j.pttl("t")).isBetween(1L, 100L);
            Thread.sleep(150);
            assertThat(j.get("t")).isNull();
            assertThat(j.exists("t")).isFalse();
            j.set("p", "v");
            assertThat(j.expire("p", 100)).isEqualTo(1);
            assertThat(j.persist("p")).isEqualTo(1);
            assertThat(j.ttl("p")).isEqualTo(-1);
        }
    }

    @Test
    void activeExpiryRemovesKeysNobodyReads() throws InterruptedException {
        try (Jedis j = pool.getResource()) {
            for (int i = 0; i < 200; i++) j.set("vol:" + i, "v", SetParams.setParams().px(50));
            j.set("keep", "v");
            long deadline = System.currentTimeMillis() + 5000;
            while (j.dbSize() > 1 && System.currentTimeMillis() < deadline) Thread.sleep(50);
            assertThat(j.dbSize()).isEqualTo(1);
            assertThat(j.info("stats")).contains("expired_keys:200");
        }
    }

    @Test
    void pipelineOfThousandsOfCommands() {
        try (Jedis j = pool.getResource()) {
            Pipeline p = j.pipelined();
            List<Response<Long>> rs = new ArrayList<>();
            for (int i = 0; i < 10_000; i++) rs.add(p.incr("counter"));
            p.sync();
            for (int i = 0; i < rs.size(); i++) assertThat(rs.get(i).get()).isEqualTo(i + 1);
        }
    }

    @Test
    void scanVisitsEveryKeyOnce() {
        try (Jedis j = pool.getResource()) {
            for (int i = 0; i < 5000; i++) j.set("key:" + i, "v");
            Set<String> seen = new HashSet<>();
            String cursor = ScanParams.SCAN_POINTER_START;
            do {
                ScanResult<String> r = j.scan(cursor, new ScanParams().match("key:*").count(100));
                seen.addAll(r.getResult());
                cursor = r.getCursor();
            } while (!cursor.equals("0"));
            assertThat(seen).hasSize(5000);
        }
    }

    @Test
    void databasesAreSeparate() {
        try (Jedis j = pool.getResource()) {
            j.set("x", "0");
            j.select(3);
            assertThat(j.get("x")).isNull();
            j.set("x", "3");
            j.swapDB(0, 3);
            assertThat(j.get("x")).isEqualTo("0");
            j.select(0);
            assertThat(j.get("x")).isEqualTo("3");
        }
    }

    /** ACL through Jedis's own API: a user made with ACL SETUSER, then a connection that authenticates as it. */
    @Test
    void aclUsers() {
        try (Jedis admin = pool.getResource()) {
            assertThat(admin.aclSetUser("reader", "on", ">pw", "~r:*", "+@read", "+acl|whoami")).isEqualTo("OK");
            assertThat(admin.aclUsers()).contains("default", "reader");
            assertThat(admin.aclGetUser("reader").getFlags()).contains("on");
            admin.set("r:1", "v");
            try (Jedis j = new Jedis("127.0.0.1", server.port())) {
                assertThat(j.auth("reader", "pw")).isEqualTo("OK");
                assertThat(j.aclWhoAmI()).isEqualTo("reader");
                assertThat(j.get("r:1")).isEqualTo("v");
                assertThatThrownBy(() -> j.set("r:1", "x")).isInstanceOf(JedisDataException.class)
                        .hasMessageContaining("NOPERM this user has no permissions to run the 'set' command");
                assertThatThrownBy(() -> j.auth("reader", "bad")).hasMessageContaining("WRONGPASS");
            }
            assertThat(admin.aclLog()).isNotEmpty();
            assertThat(admin.aclDelUser("reader")).isEqualTo(1);
        }
    }
}
