package io.spinel.core.script.lua;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A Lua string: an immutable byte sequence (Lua strings, like Redis values, are binary). The hash
 * is the one Redis's Lua computes (every byte mixed in, seeded with the length), cached, because it
 * decides where a key lands in a table and so the order in which {@code next}/{@code pairs} visit
 * keys, which scripts can observe.
 */
public final class LuaString implements Comparable<LuaString> {
    public static final LuaString EMPTY = new LuaString(new byte[0]);

    final byte[] bytes;
    private int hash;
    private boolean hashed;

    private LuaString(byte[] bytes) {
        this.bytes = bytes;
    }

    /** Wraps the array without copying: the caller must not change it afterwards. */
    public static LuaString wrap(byte[] b) {
        return b.length == 0 ? EMPTY : new LuaString(b);
    }

    public static LuaString copyOf(byte[] b, int off, int len) {
        return len == 0 ? EMPTY : new LuaString(Arrays.copyOfRange(b, off, off + len));
    }

    /** A Java string whose chars are all below 256 (ASCII/Latin-1), one byte per char. */
    public static LuaString valueOf(String s) {
        return wrap(s.getBytes(StandardCharsets.ISO_8859_1));
    }

    public int length() {
        return bytes.length;
    }

    public byte byteAt(int i) {
        return bytes[i];
    }

    /** The bytes; callers must not modify them. */
    public byte[] bytes() {
        return bytes;
    }

    public LuaString substring(int from, int to) {
        if (from == 0 && to == bytes.length) return this;
        return copyOf(bytes, from, to - from);
    }

    public boolean equals(LuaString o) {
        if (o == this) return true;
        if (o.bytes.length != bytes.length) return false;
        if (hashed && o.hashed && hash != o.hash) return false;
        return Arrays.equals(bytes, o.bytes);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LuaString && equals((LuaString) o);
    }

    /** Lua 5.1's string hash as Redis builds it (step 1: all bytes). */
    public int luaHash() {
        if (!hashed) {
            int l = bytes.length;
            int h = l;
            for (int l1 = l; l1 >= 1; l1--) {
                h = h ^ ((h << 5) + (h >>> 2) + (bytes[l1 - 1] & 0xFF));
            }
            hash = h;
            hashed = true;
        }
        return hash;
    }

    @Override
    public int hashCode() {
        return luaHash();
    }

    /** Byte-wise comparison, unsigned (strcoll in the C locale). */
    @Override
    public int compareTo(LuaString o) {
        return Arrays.compareUnsigned(bytes, o.bytes);
    }

    public boolean startsWith(String prefix) {
        if (bytes.length < prefix.length()) return false;
        for (int i = 0; i < prefix.length(); i++) if (bytes[i] != (byte) prefix.charAt(i)) return false;
        return true;
    }

    /** The bytes as Latin-1 chars (round-trips any byte). */
    @Override
    public String toString() {
        return new String(bytes, StandardCharsets.ISO_8859_1);
    }

    /** The bytes decoded as UTF-8 (for text that leaves as a Java string, e.g. log lines). */
    public String toUtf8() {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    public static LuaString concat(LuaString a, LuaString b) {
        if (a.bytes.length == 0) return b;
        if (b.bytes.length == 0) return a;
        byte[] r = Arrays.copyOf(a.bytes, a.bytes.length + b.bytes.length);
        System.arraycopy(b.bytes, 0, r, a.bytes.length, b.bytes.length);
        return new LuaString(r);
    }
}
