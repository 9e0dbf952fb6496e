package com.example.ratelimit;

import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.SetParams;

import java.time.Duration;

/**
 * Allows each caller at most {@code limit} requests per window. The first request of a caller
 * opens a window (a counter key that expires with the window); later ones count in it.
 */
public final class RateLimiter {
    private final UnifiedJedis redis;
    private final int limit;
    private final Duration window;

    public RateLimiter(UnifiedJedis redis, int limit, Duration window) {
        this.redis = redis;
        this.limit = limit;
        this.window = window;
    }

    /** Counts a request from the caller; false when it is over the limit for the current window. */
    public boolean tryAcquire(String caller) {
        String key = key(caller);
        // Creating the counter with its expiry in one command means it can never outlive the window.
        redis.set(key, "0", SetParams.setParams().nx().px(window.toMillis()));
        return redis.incr(key) <= limit;
    }

    /** Requests the caller may still make in the current window. */
    public long remaining(String caller) {
        String used = redis.get(key(caller));
        return Math.max(0, limit - (used == null ? 0 : Long.parseLong(used)));
    }

    static String key(String caller) {
        return "rate:" + caller;
    }
}
