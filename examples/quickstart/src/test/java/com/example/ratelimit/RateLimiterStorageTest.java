package com.example.ratelimit;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.spinel.junit.Spinel;
import io.spinel.junit.SpinelUri;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.JedisPooled;

import java.net.URI;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the Jedis-based limiter leaves in Redis, read back through a second client (Lettuce), on
 * a fresh server for every test method.
 */
@Spinel(lifecycle = Spinel.Lifecycle.PER_METHOD)
class RateLimiterStorageTest {
    static RedisClient lettuce;

    @SpinelUri
    String uri;

    @BeforeAll
    static void createClient() {
        lettuce = RedisClient.create();
    }

    @AfterAll
    static void shutdownClient() {
        lettuce.shutdown();
    }

    @Test
    void theCounterLivesExactlyAsLongAsTheWindow() {
        try (JedisPooled jedis = new JedisPooled(URI.create(uri))) {
            RateLimiter limiter = new RateLimiter(jedis, 10, Duration.ofSeconds(30));
            for (int i = 0; i < 3; i++) limiter.tryAcquire("alice");
        }
        try (StatefulRedisConnection<String, String> connection = lettuce.connect(io.lettuce.core.RedisURI.create(uri))) {
            RedisCommands<String, String> redis = connection.sync();
            assertEquals("3", redis.get("rate:alice"));
            long ttl = redis.pttl("rate:alice");
            assertTrue(ttl > 0 && ttl <= 30_000, "ttl " + ttl);
            assertEquals(1, redis.dbsize());
        }
    }

    @Test
    void aFreshServerHasNoCounters() {
        try (StatefulRedisConnection<String, String> connection = lettuce.connect(io.lettuce.core.RedisURI.create(uri))) {
            assertEquals(0, connection.sync().dbsize());
        }
    }
}
