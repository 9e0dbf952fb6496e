package com.example.ratelimit;

import io.spinel.junit.Spinel;
import io.spinel.junit.SpinelPort;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.JedisPooled;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The rate limiter against a real server: one Spinel for the class, emptied after each test. */
@Spinel
class RateLimiterTest {
    @SpinelPort
    int port;

    JedisPooled jedis;

    @BeforeEach
    void connect() {
        jedis = new JedisPooled("127.0.0.1", port);
    }

    @AfterEach
    void disconnect() {
        jedis.close();
    }

    @Test
    void allowsRequestsUpToTheLimit() {
        RateLimiter limiter = new RateLimiter(jedis, 3, Duration.ofMinutes(1));
        assertTrue(limiter.tryAcquire("alice"));
        assertTrue(limiter.tryAcquire("alice"));
        assertTrue(limiter.tryAcquire("alice"));
        assertEquals(0, limiter.remaining("alice"));
        assertFalse(limiter.tryAcquire("alice"));
    }

    @Test
    void countsEachCallerSeparately() {
        RateLimiter limiter = new RateLimiter(jedis, 1, Duration.ofMinutes(1));
        assertTrue(limiter.tryAcquire("alice"));
        assertFalse(limiter.tryAcquire("alice"));
        assertTrue(limiter.tryAcquire("bob"));
        assertEquals(1, new RateLimiter(jedis, 1, Duration.ofMinutes(1)).remaining("carol"));
    }

    @Test
    void startsANewWindowWhenTheOldOneExpires() throws InterruptedException {
        RateLimiter limiter = new RateLimiter(jedis, 1, Duration.ofMillis(100));
        assertTrue(limiter.tryAcquire("alice"));
        assertFalse(limiter.tryAcquire("alice"));
        while (jedis.exists(RateLimiter.key("alice"))) Thread.sleep(10);
        assertTrue(limiter.tryAcquire("alice"));
    }

    @Test
    void eachTestStartsWithAnEmptyServer() {
        // The other tests left counters behind; the extension flushed them.
        assertNull(jedis.get(RateLimiter.key("alice")));
        assertEquals(0, jedis.dbSize());
    }
}
