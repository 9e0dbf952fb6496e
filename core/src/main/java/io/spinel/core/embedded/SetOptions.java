package io.spinel.core.embedded;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The options of SET: an expiry (EX, PX, EXAT, PXAT, KEEPTTL) and a condition (NX, XX).
 * <pre>
 *   client.set("session:1", token, SetOptions.ttl(Duration.ofMinutes(30)).nx());
 * </pre>
 */
public final class SetOptions {
    private String expiry;
    private long expiryValue;
    private String condition;

    private SetOptions() {
    }

    /** No options yet; add them with the instance methods. */
    public static SetOptions none() {
        return new SetOptions();
    }

    /** Expire after the duration (PX, millisecond precision). */
    public static SetOptions ttl(Duration ttl) {
        return new SetOptions().px(ttl.toMillis());
    }

    /** Expire at the instant (PXAT). */
    public static SetOptions expireAt(Instant at) {
        return new SetOptions().pxAt(at.toEpochMilli());
    }

    /** Only set when the key does not exist (NX). */
    public static SetOptions ifAbsent() {
        return new SetOptions().nx();
    }

    /** Only set when the key exists (XX). */
    public static SetOptions ifPresent() {
        return new SetOptions().xx();
    }

    public SetOptions ex(long seconds) {
        return expiry("EX", seconds);
    }

    public SetOptions px(long millis) {
        return expiry("PX", millis);
    }

    public SetOptions exAt(long unixSeconds) {
        return expiry("EXAT", unixSeconds);
    }

    public SetOptions pxAt(long unixMillis) {
        return expiry("PXAT", unixMillis);
    }

    /** Keep the key's current TTL (KEEPTTL). */
    public SetOptions keepTtl() {
        return expiry("KEEPTTL", 0);
    }

    public SetOptions nx() {
        condition = "NX";
        return this;
    }

    public SetOptions xx() {
        condition = "XX";
        return this;
    }

    private SetOptions expiry(String kind, long value) {
        expiry = kind;
        expiryValue = value;
        return this;
    }

    void appendTo(List<String> args) {
        if (expiry != null) {
            args.add(expiry);
            if (!expiry.equals("KEEPTTL")) args.add(Long.toString(expiryValue));
        }
        if (condition != null) args.add(condition);
    }

    @Override
    public String toString() {
        List<String> l = new ArrayList<>();
        appendTo(l);
        return String.join(" ", l);
    }
}
