package io.spinel.core.eviction;

import io.spinel.core.embedded.EmbeddedSpinel;
import io.spinel.core.embedded.ManualClock;
import io.spinel.core.embedded.SpinelClient;
import io.spinel.core.embedded.SpinelException;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * maxmemory with each eviction policy: which keys go, which stay, the OOM error when nothing may
 * go and WATCH invalidation (evicted events: server module's EvictionNotificationTest). A manual clock makes LRU idle times deterministic.
 */
class EvictionTest {
    private static final String VALUE = "x".repeat(100);

    private static long used(SpinelClient c) {
        return info(c, "memory", "used_memory");
    }

    /** A number of one INFO section. */
    private static long info(SpinelClient c, String section, String field) {
        String info = (String) c.execute("INFO", section);
        for (String line : info.split("\r\n")) {
            if (line.startsWith(field + ":")) return Long.parseLong(line.substring(field.length() + 1));
        }
        throw new AssertionError("no " + field);
    }

    private static EmbeddedSpinel server(ManualClock clock) {
        return EmbeddedSpinel.builder().clock(clock).option("maxmemory-samples", "10").start();
    }

    /** Sets the limit a little above what is used now, so that adding more data must evict. */
    private static long limitAboveCurrent(SpinelClient c, long headroom) {
        long limit = used(c) + headroom;
        c.execute("CONFIG", "SET", "maxmemory", Long.toString(limit));
        return limit;
    }

    @Test
    void noevictionRefusesWritesButServesReads() {
        try (EmbeddedSpinel s = server(new ManualClock())) {
            SpinelClient c = s.client();
            c.execute("SET", "keep", "v");
            c.execute("CONFIG", "SET", "maxmemory-policy", "noeviction");
            limitAboveCurrent(c, 2000);
            assertThatThrownBy(() -> {
                for (int i = 0; i < 1000; i++) c.execute("SET", "k" + i, VALUE);
            }).isInstanceOf(SpinelException.class)
                    .hasMessage("OOM command not allowed when used memory > 'maxmemory'.");
            assertThat(c.execute("GET", "keep")).isEqualTo("v");
            assertThat(c.execute("DEL", "keep")).isEqualTo(1L); // DEL is not denyoom
        }
    }


    /** INFO's eviction_exceeded_time fields: how long used memory stays over maxmemory, as Redis times it. */
    @Test
    void timeOverTheLimitIsCounted() throws Exception {
        try (EmbeddedSpinel s = server(new ManualClock())) {
            SpinelClient c = s.client();
            c.execute("CONFIG", "SET", "maxmemory-policy", "noeviction");
            assertThat(info(c, "stats", "total_eviction_exceeded_time")).isZero();
            limitAboveCurrent(c, 2000);
            assertThatThrownBy(() -> {
                for (int i = 0; i < 1000; i++) c.execute("SET", "k" + i, VALUE);
            }).hasMessageStartingWith("OOM"); // over the limit from then on
            Thread.sleep(50);
            assertThat(info(c, "stats", "current_eviction_exceeded_time")).isGreaterThanOrEqualTo(50);
            c.execute("FLUSHALL");
            c.execute("PING"); // an eviction check finds memory under the limit
            assertThat(info(c, "stats", "current_eviction_exceeded_time")).isZero();
            assertThat(info(c, "stats", "total_eviction_exceeded_time")).isGreaterThanOrEqualTo(50);
            c.execute("CONFIG", "RESETSTAT");
            assertThat(info(c, "stats", "total_eviction_exceeded_time")).isZero();
        }
    }

    @Test
    void allkeysLruKeepsRecentlyUsedKeys() {
        ManualClock clock = new ManualClock();
        try (EmbeddedSpinel s = server(clock)) {
            SpinelClient c = s.client();
            c.execute("CONFIG", "SET", "maxmemory-policy", "allkeys-lru");
            for (int i = 0; i < 200; i++) c.execute("SET", "old" + i, VALUE);
            clock.advanceMillis(100_000);
            for (int i = 0; i < 20; i++) c.execute("SET", "hot" + i, VALUE);
            long limit = limitAboveCurrent(c, 0);
            for (int i = 0; i < 100; i++) c.execute("SET", "new" + i, VALUE);
            assertThat(used(c)).isLessThanOrEqualTo(limit);
            for (int i = 0; i < 20; i++) assertThat(c.execute("EXISTS", "hot" + i)).as("hot" + i).isEqualTo(1L);
            int oldLeft = 0;
            for (int i = 0; i < 200; i++) oldLeft += ((Long) c.execute("EXISTS", "old" + i)).intValue();
            assertThat(oldLeft).isLessThan(200);
            assertThat((String) c.execute("INFO", "stats")).contains("evicted_keys:" + (200 - oldLeft));
        }
    }

    @Test
    void allkeysLfuKeepsFrequentlyUsedKeys() {
        try (EmbeddedSpinel s = server(new ManualClock())) {
            SpinelClient c = s.client();
            c.execute("CONFIG", "SET", "maxmemory-policy", "allkeys-lfu");
            for (int i = 0; i < 200; i++) c.execute("SET", "rare" + i, VALUE);
            for (int i = 0; i < 10; i++) {
                c.execute("SET", "freq" + i, VALUE);
                for (int j = 0; j < 300; j++) c.execute("GET", "freq" + i);
            }
            assertThat((Long) c.execute("OBJECT", "FREQ", "freq0")).isGreaterThan(5L);
            limitAboveCurrent(c, 0);
            for (int i = 0; i < 100; i++) c.execute("SET", "new" + i, VALUE);
            for (int i = 0; i < 10; i++) assertThat(c.execute("EXISTS", "freq" + i)).as("freq" + i).isEqualTo(1L);
        }
    }

    @Test
    void randomPoliciesStayUnderTheLimit() {
        for (String policy : new String[] {"allkeys-random", "volatile-random"}) {
            try (EmbeddedSpinel s = server(new ManualClock())) {
                SpinelClient c = s.client();
                c.execute("CONFIG", "SET", "maxmemory-policy", policy);
                for (int i = 0; i < 300; i++) c.execute("SET", "k" + i, VALUE, "EX", "1000");
                long limit = limitAboveCurrent(c, 0);
                for (int i = 0; i < 100; i++) c.execute("SET", "n" + i, VALUE, "EX", "1000");
                assertThat(used(c)).as(policy).isLessThanOrEqualTo(limit);
                assertThat((Long) c.execute("DBSIZE")).as(policy).isLessThan(400L);
            }
        }
    }

    @Test
    void volatilePoliciesOnlyEvictKeysWithTtlThenRefuse() {
        for (String policy : new String[] {"volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl"}) {
            try (EmbeddedSpinel s = server(new ManualClock())) {
                SpinelClient c = s.client();
                c.execute("CONFIG", "SET", "maxmemory-policy", policy);
                for (int i = 0; i < 100; i++) c.execute("SET", "persistent" + i, VALUE);
                for (int i = 0; i < 50; i++) c.execute("SET", "volatile" + i, VALUE, "EX", Integer.toString(1000 + i));
                limitAboveCurrent(c, 0);
                List<Throwable> errors = new ArrayList<>();
                for (int i = 0; i < 100; i++) {
                    try {
                        c.execute("SET", "p2_" + i, VALUE);
                    } catch (SpinelException e) {
                        errors.add(e);
                    }
                }
                for (int i = 0; i < 100; i++) {
                    assertThat(c.execute("EXISTS", "persistent" + i)).as(policy + " persistent" + i).isEqualTo(1L);
                }
                // once every volatile key is gone, nothing may be evicted: writes are refused
                assertThat(errors).as(policy).isNotEmpty();
                assertThat(errors.get(0)).hasMessageContaining("OOM");
            }
        }
    }

    @Test
    void volatileTtlEvictsTheSoonestToExpireFirst() {
        try (EmbeddedSpinel s = server(new ManualClock())) {
            SpinelClient c = s.client();
            c.execute("CONFIG", "SET", "maxmemory-policy", "volatile-ttl");
            for (int i = 0; i < 100; i++) c.execute("SET", "ttl" + i, VALUE, "EX", Integer.toString(100 + i * 100));
            limitAboveCurrent(c, 0);
            for (int i = 0; i < 30; i++) c.execute("SET", "filler" + i, VALUE);
            // eviction samples keys, so which ones go is not fixed, but they must be the short-lived
            // ones: many of the first half, hardly any of the second, never the longest-lived
            int goneShort = 0, goneLong = 0;
            for (int i = 0; i < 100; i++) {
                if (c.execute("EXISTS", "ttl" + i).equals(0L)) {
                    if (i < 50) goneShort++;
                    else goneLong++;
                }
            }
            assertThat(goneShort).isGreaterThan(5);
            assertThat(goneLong).isLessThan(goneShort / 4 + 1);
            assertThat(c.execute("EXISTS", "ttl99")).isEqualTo(1L);
        }
    }

    @Test
    void evictionBreaksWatch() {
        try (EmbeddedSpinel s = server(new ManualClock())) {
            SpinelClient c = s.client();
            SpinelClient watcher = s.newClient();
            c.execute("CONFIG", "SET", "maxmemory-policy", "allkeys-random");
            for (int i = 0; i < 50; i++) c.execute("SET", "w" + i, VALUE);
            for (int i = 0; i < 50; i++) watcher.execute("WATCH", "w" + i);
            limitAboveCurrent(c, 0);
            for (int i = 0; i < 30; i++) c.execute("SET", "more" + i, VALUE);
            assertThat((String) c.execute("INFO", "stats")).doesNotContain("evicted_keys:0\r\n");
            watcher.execute("MULTI");
            watcher.execute("PING");
            assertThat(watcher.execute("EXEC")).isNull();
        }
    }

    @Test
    void overwritingKeepsTheLfuCounterAsRedisDoes() {
        try (EmbeddedSpinel s = server(new ManualClock())) {
            SpinelClient c = s.client();
            c.execute("CONFIG", "SET", "maxmemory-policy", "allkeys-lfu");
            c.execute("SET", "hot", "v1");
            c.execute("HSET", "hoth", "f", "v");
            for (int i = 0; i < 300; i++) {
                c.execute("GET", "hot");
                c.execute("HGET", "hoth", "f");
            }
            long before = (Long) c.execute("OBJECT", "FREQ", "hot");
            assertThat(before).isGreaterThan(8);
            c.execute("SET", "hot", "v2");
            c.execute("SET", "hoth", "now a string");
            assertThat((Long) c.execute("OBJECT", "FREQ", "hot")).isGreaterThanOrEqualTo(before);
            assertThat((Long) c.execute("OBJECT", "FREQ", "hoth")).isGreaterThan(8);
            // a key made anew (after DEL) starts again at LFU_INIT_VAL
            c.execute("DEL", "hot");
            c.execute("SET", "hot", "v3");
            assertThat(c.execute("OBJECT", "FREQ", "hot")).isEqualTo(5L);
        }
    }

    @Test
    void configResetstatClearsEvictedKeys() {
        try (EmbeddedSpinel s = server(new ManualClock())) {
            SpinelClient c = s.client();
            c.execute("CONFIG", "SET", "maxmemory-policy", "allkeys-random");
            for (int i = 0; i < 50; i++) c.execute("SET", "r" + i, VALUE);
            limitAboveCurrent(c, 0);
            for (int i = 0; i < 20; i++) c.execute("SET", "more" + i, VALUE);
            assertThat((String) c.execute("INFO", "stats")).doesNotContain("evicted_keys:0\r\n");
            c.execute("CONFIG", "SET", "maxmemory", "0");
            c.execute("CONFIG", "RESETSTAT");
            assertThat((String) c.execute("INFO", "stats")).contains("evicted_keys:0\r\n");
        }
    }
}
