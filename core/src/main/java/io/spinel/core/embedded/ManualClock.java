package io.spinel.core.embedded;

import io.spinel.core.keyspace.Keyspace;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock that moves only when told to, for tests of expiry: give it to
 * {@link EmbeddedSpinel.Builder#clock(Keyspace.Clock)}, set a TTL, {@link #advance(Duration)} past it,
 * and the key is gone on its next access (lazy expiry) or after the next active expiry cycle.
 * Safe to move from any thread.
 */
public final class ManualClock implements Keyspace.Clock {
    private final AtomicLong millis;

    /** Starts at the current wall-clock time, so absolute times (EXPIREAT, PXAT) stay realistic. */
    public ManualClock() {
        this(System.currentTimeMillis());
    }

    public ManualClock(long startMillis) {
        this.millis = new AtomicLong(startMillis);
    }

    @Override
    public long millis() {
        return millis.get();
    }

    public void advance(Duration d) {
        millis.addAndGet(d.toMillis());
    }

    public void advanceMillis(long ms) {
        millis.addAndGet(ms);
    }

    public void set(long epochMillis) {
        millis.set(epochMillis);
    }
}
