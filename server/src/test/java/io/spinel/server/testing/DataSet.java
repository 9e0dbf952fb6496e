package io.spinel.server.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;

/**
 * A data set for persistence tests that holds every type in every encoding Redis 7.0 has (int,
 * embstr and raw strings, HyperLogLogs sparse and dense, bitmaps, quicklists of one and many
 * nodes, listpack and hashtable hashes, intsets of each width and hashtable sets, listpack and
 * skiplist sorted sets with special scores), small and big values, compressible and random
 * bytes, binary key names, expires, in several databases; and a reader that renders a whole
 * server's keyspace for comparison.
 */
public final class DataSet {
    private DataSet() {
    }

    private static void call(RawClient c, Object... args) throws IOException {
        List<byte[]> l = new ArrayList<>();
        for (Object a : args) l.add(a instanceof byte[] ? (byte[]) a : a.toString().getBytes(StandardCharsets.ISO_8859_1));
        byte[] r = c.call(l);
        if (r[0] == '-') throw new IOException("error from " + args[0] + ": " + new String(r, StandardCharsets.ISO_8859_1));
    }

    private static String rnd(Random r, int n) {
        StringBuilder sb = new StringBuilder(n);
        for (int i = 0; i < n; i++) sb.append((char) r.nextInt(256));
        return sb.toString();
    }

    /** Fills databases 0, 1 and 5 (about 60 keys plus {@code bulk} small strings in db 1). */
    public static void populate(RawClient c, long seed, int bulk) throws IOException {
        Random r = new Random(seed);
        long future = System.currentTimeMillis() + 3_600_000;
        call(c, "SELECT", 0);
        call(c, "SET", "s:int", 12345);
        call(c, "SET", "s:neg", -42);
        call(c, "SET", "s:max", Long.MAX_VALUE);
        call(c, "SET", "s:embstr", "hello world");
        call(c, "SET", "s:raw", "a".repeat(100));
        call(c, "SET", "s:random", rnd(r, 300));
        call(c, "SET", "s:huge", "0123456789abcdef".repeat(20_000));
        call(c, "SET", "s:empty", "");
        call(c, "SET", "s:float", "3.14");
        call(c, "SET", "s:zero-prefixed", "007");
        call(c, "SET", "s:ttl", "expiring", "EX", 5000);
        call(c, "SET", "s:pxat", "at", "PXAT", future);
        call(c, "APPEND", "s:appended", "x");
        call(c, "APPEND", "s:appended", "y");
        call(c, "SETBIT", "bits", 100_000, 1);
        call(c, "PFADD", "hll:sparse", "a", "b", "c");
        List<Object> hll = new ArrayList<>(List.of("PFADD", "hll:dense"));
        for (int i = 0; i < 3000; i++) hll.add("e" + i);
        call(c, hll.toArray());
        call(c, "PFCOUNT", "hll:dense");
        call(c, "RPUSH", "l:small", "a", "b", "c");
        call(c, "RPUSH", "l:ints", 0, 127, -1, 4095, -4096, 32767, -32768, 8388607, -8388608, 2147483647L,
                -2147483648L, Long.MAX_VALUE, Long.MIN_VALUE, "12a", "");
        List<Object> big = new ArrayList<>(List.of("RPUSH", "l:big"));
        for (int i = 0; i < 2000; i++) big.add(i % 3 == 0 ? Integer.toString(i) : "item-" + i + "-" + rnd(r, r.nextInt(20)));
        call(c, big.toArray());
        call(c, "RPUSH", "l:large-element", "z".repeat(10_000), "small", rnd(r, 5000));
        call(c, "LPUSH", "l:ttl", "v");
        call(c, "PEXPIREAT", "l:ttl", future + 1);
        call(c, "HSET", "h:small", "f1", "v1", "f2", 2, "f3", "");
        call(c, "HSET", "h:longvalue", "f", "v".repeat(100));
        List<Object> hbig = new ArrayList<>(List.of("HSET", "h:big"));
        for (int i = 0; i < 600; i++) {
            hbig.add("field:" + i);
            hbig.add(i % 2 == 0 ? Integer.toString(i * 7) : rnd(r, 10));
        }
        call(c, hbig.toArray());
        call(c, "HSET", "h:ttl", "a", "b");
        call(c, "EXPIRE", "h:ttl", 9000);
        call(c, "SADD", "set:int16", 1, 2, 3, -100);
        call(c, "SADD", "set:int32", 1, 70000, -70000);
        call(c, "SADD", "set:int64", 1, 5_000_000_000L, Long.MIN_VALUE);
        call(c, "SADD", "set:str", "a", "b", "c", "10");
        List<Object> sbig = new ArrayList<>(List.of("SADD", "set:manyints"));
        for (int i = 0; i < 600; i++) sbig.add(i * 3);
        call(c, sbig.toArray());
        call(c, "ZADD", "z:small", 1, "a", 2.5, "b", -3, "c", "inf", "d", "-inf", "e", 1e100, "f", 0, "g", -0.0, "h",
                "0.1", "i", 123456789012L, "j");
        List<Object> zbig = new ArrayList<>(List.of("ZADD", "z:big"));
        for (int i = 0; i < 300; i++) {
            zbig.add(r.nextInt(1000) / 7.0);
            zbig.add("member-" + i);
        }
        call(c, zbig.toArray());
        call(c, "ZADD", "z:longmember", 1, "m".repeat(100));
        call(c, "ZADD", "z:ttl", 5, "x");
        call(c, "PEXPIRE", "z:ttl", 7_000_000);
        call(c, "XADD", "x:small", "1-1", "a", 1, "b", 2);
        call(c, "XADD", "x:small", "1-2", "a", 3, "b", 4);
        call(c, "XADD", "x:small", "2-0", "c", rnd(r, 20));
        for (int i = 1; i <= 250; i++) call(c, "XADD", "x:big", i + "-0", "f", i, "g", i % 7 == 0 ? rnd(r, 30) : "v" + i);
        for (int i = 3; i <= 250; i += 11) call(c, "XDEL", "x:big", i + "-0");
        call(c, "XGROUP", "CREATE", "x:big", "g1", 0);
        call(c, "XREADGROUP", "GROUP", "g1", "alice", "COUNT", 30, "STREAMS", "x:big", ">");
        // delivery times fixed, so that the same data set on two servers compares equal
        List<Object> claim = new ArrayList<>(List.of("XCLAIM", "x:big", "g1", "alice", 0));
        for (int i = 1; i <= 33; i++) if ((i - 3) % 11 != 0) claim.add(i + "-0");
        claim.addAll(List.of("TIME", 1_700_000_000_000L, "RETRYCOUNT", 1, "JUSTID"));
        call(c, claim.toArray());
        call(c, "XACK", "x:big", "g1", "1-0", "2-0");
        call(c, "XGROUP", "CREATECONSUMER", "x:big", "g1", "bob");
        call(c, "XGROUP", "CREATE", "x:big", "g2", "$");
        call(c, "XADD", "x:emptied", "1-1", "a", "b");
        call(c, "XDEL", "x:emptied", "1-1");
        call(c, "XGROUP", "CREATE", "x:groupsonly", "g", "$", "MKSTREAM");
        call(c, "XADD", "x:ttl", "5-5", "k", "v");
        call(c, "PEXPIREAT", "x:ttl", future + 2);

        call(c, "SELECT", 1);
        for (int i = 0; i < bulk; i++) call(c, "SET", "k:" + i, i % 5 == 0 ? Integer.toString(i) : "value-" + i);
        call(c, "SET", "k:ttl", "v", "PX", 60_000_000);
        call(c, "RPUSH", "k:list", 1, 2, 3);

        call(c, "SELECT", 5);
        call(c, "SET", "123", "numeric key name");
        call(c, "SET", "", "empty key name");
        call(c, "SET", new byte[] {0, 1, '\r', '\n', (byte) 0xff}, "binary key name");
        call(c, "HSET", "h", "\u0000\u00ff", "\r\n");
        call(c, "SELECT", 0);
    }

    /**
     * Changes the data set of {@link #populate} with commands that Redis propagates rewritten
     * (relative expires, INCRBYFLOAT, SPOP, GETEX, RESTORE...) or that touch several keys or
     * databases (MULTI/EXEC, RENAME, MOVE, SWAPDB, FLUSHDB), plus a lazily expired key.
     */
    public static void mutate(RawClient c) throws IOException {
        call(c, "SELECT", 0);
        call(c, "SET", "m:ex", "v", "EX", 1000);
        call(c, "SET", "m:short", "v", "PX", 1);
        call(c, "EXPIRE", "s:int", 100000);
        call(c, "PERSIST", "s:ttl");
        call(c, "INCRBYFLOAT", "m:float", "1.25");
        call(c, "INCRBYFLOAT", "m:float", "1e2");
        call(c, "HINCRBYFLOAT", "h:small", "f2", "0.5");
        call(c, "SPOP", "set:str");
        call(c, "SPOP", "set:manyints", 5);
        call(c, "GETEX", "s:embstr", "PX", 500000);
        call(c, "GETDEL", "s:neg");
        call(c, "SET", "s:float", "2.5", "GET");
        call(c, "INCR", "s:int");
        call(c, "APPEND", "s:raw", "tail");
        call(c, "SETRANGE", "s:embstr", 3, "LO");
        call(c, "SETBIT", "bits", 7, 1);
        call(c, "PFADD", "hll:sparse", "d");
        call(c, "PFMERGE", "hll:merged", "hll:sparse", "hll:dense");
        call(c, "LPOP", "l:small");
        call(c, "RPOPLPUSH", "l:ints", "l:small");
        call(c, "LMOVE", "l:big", "l:small", "LEFT", "RIGHT");
        call(c, "LSET", "l:big", 10, "changed");
        call(c, "LINSERT", "l:big", "BEFORE", "changed", "inserted");
        call(c, "LREM", "l:big", 0, "3");
        call(c, "LTRIM", "l:big", 0, 1500);
        call(c, "LMPOP", 1, "l:big", "RIGHT", "COUNT", 3);
        call(c, "HDEL", "h:big", "field:1", "field:2");
        call(c, "HINCRBY", "h:small", "counter", 5);
        call(c, "SREM", "set:int16", 2);
        call(c, "SMOVE", "set:int32", "set:int16", 70000);
        call(c, "ZINCRBY", "z:big", 2.5, "member-3");
        call(c, "ZREM", "z:small", "a");
        call(c, "ZPOPMIN", "z:big", 2);
        call(c, "ZMPOP", 1, "z:big", "MAX", "COUNT", 2);
        call(c, "ZUNIONSTORE", "z:union", 2, "z:small", "z:longmember");
        call(c, "XADD", "x:small", "*", "auto", "id");
        call(c, "XADD", "x:small", "MAXLEN", "~", 2, "9999999999999-*", "d", 6);
        call(c, "XCLAIM", "x:big", "g1", "bob", 0, "10-0", "12-0");
        call(c, "XTRIM", "x:big", "MAXLEN", "~", 130);
        call(c, "XDEL", "x:big", "150-0");
        // only NOACK reads propagate the group's read counter (XGROUP SETID ... ENTRIESREAD)
        call(c, "XREADGROUP", "GROUP", "g2", "dave", "NOACK", "STREAMS", "x:big", "0");
        call(c, "XADD", "x:big", "300-0", "late", "entry");
        call(c, "XREADGROUP", "GROUP", "g2", "dave", "NOACK", "STREAMS", "x:big", ">");
        call(c, "XAUTOCLAIM", "x:big", "g1", "erin", 0, "0", "COUNT", 2);
        // pending entries of trimmed entries do not survive an AOF rewrite (XCLAIM skips them, in Redis
        // too): claim them all away
        call(c, "XAUTOCLAIM", "x:big", "g1", "erin", 0, "0", "COUNT", 100, "JUSTID");
        call(c, "XGROUP", "SETID", "x:groupsonly", "g", "0");
        call(c, "XSETID", "x:emptied", "7-7", "ENTRIESADDED", 9, "MAXDELETEDID", "5-0");
        call(c, "SUNIONSTORE", "set:union", "set:int16", "set:str");
        call(c, "COPY", "h:small", "h:copy");
        call(c, "RENAME", "l:ttl", "l:renamed");
        call(c, "MOVE", "s:zero-prefixed", 1);
        call(c, "MULTI");
        call(c, "INCR", "m:tx");
        call(c, "RPUSH", "m:txlist", "a");
        call(c, "EXEC");
        call(c, "SELECT", 7);
        call(c, "SET", "gone", "1");
        call(c, "FLUSHDB");
        call(c, "SET", "seven", "7");
        call(c, "SWAPDB", 7, 8);
        call(c, "SELECT", 0);
        call(c, "DEL", "s:huge");
        byte[] dump = c.call("DUMP", "z:small");
        int nl = indexOfCrlf(dump);
        byte[] payload = java.util.Arrays.copyOfRange(dump, nl + 2, dump.length - 2);
        call(c, "RESTORE", "m:restored", 100000, payload);
        call(c, "RESTORE", "m:restored-abs", System.currentTimeMillis() + 200000, payload, "ABSTTL");
        sleep(5);
        call(c, "GET", "m:short"); // lazily expired: propagated as a DEL
    }

    private static int indexOfCrlf(byte[] b) {
        for (int i = 0; i + 1 < b.length; i++) if (b[i] == '\r' && b[i + 1] == '\n') return i;
        return -1;
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Every key of databases 0..dbs-1 as "db/key" to "type encoding expire value" (expire absolute
     * in ms or -1; value canonical: aggregates as lists, sets and hashes sorted).
     */
    public static TreeMap<String, String> read(RawClient c, int dbs, boolean encodings) throws IOException {
        TreeMap<String, String> out = new TreeMap<>();
        for (int db = 0; db < dbs; db++) {
            c.call("SELECT", Integer.toString(db));
            List<Object> keys = DualRun.list(c.call("KEYS", "*"));
            for (Object k : keys) {
                String key = (String) k;
                byte[] kb = key.getBytes(StandardCharsets.ISO_8859_1);
                String type = str(c, "TYPE", kb);
                String enc = encodings ? str(c, "OBJECT", "ENCODING", kb) : "";
                String expire = str(c, "PEXPIRETIME", kb);
                String value;
                switch (type) {
                    case "string":
                        value = str(c, "GET", kb);
                        break;
                    case "list":
                        value = str(c, "LRANGE", kb, "0", "-1");
                        break;
                    case "hash": {
                        List<Object> flat = DualRun.list(call2(c, "HGETALL", kb));
                        List<String> pairs = new ArrayList<>();
                        for (int i = 0; i < flat.size(); i += 2) pairs.add(flat.get(i) + "=" + flat.get(i + 1));
                        Collections.sort(pairs);
                        value = pairs.toString();
                        break;
                    }
                    case "set": {
                        List<String> m = new ArrayList<>();
                        for (Object o : DualRun.list(call2(c, "SMEMBERS", kb))) m.add((String) o);
                        Collections.sort(m);
                        value = m.toString();
                        break;
                    }
                    case "zset":
                        value = str(c, "ZRANGE", kb, "0", "-1", "WITHSCORES");
                        break;
                    case "stream":
                        // node counts depend on history (a rewritten AOF has no deleted entries), and
                        // consumers' seen-time is not kept by the AOF (in Redis neither)
                        value = (str(c, "XRANGE", kb, "-", "+") + " " + str(c, "XINFO", "STREAM", kb, "FULL", "COUNT", "0"))
                                .replaceAll("radix-tree-(keys|nodes), \\d+", "radix-tree-$1")
                                .replaceAll("seen-time, \\d+", "seen-time");
                        break;
                    default:
                        value = "?";
                }
                // a short string edited in place (raw) loads back as embstr, in Redis too
                if (enc.equals("raw") && value.length() <= 44) enc = "embstr";
                out.put(db + "/" + key, type + " " + enc + " " + expire + " " + value);
            }
        }
        c.call("SELECT", "0");
        return out;
    }

    /** Fails listing the keys that differ (values cut short), if any. */
    public static void assertSame(java.util.Map<String, String> expected, java.util.Map<String, String> actual) {
        java.util.List<String> diffs = new java.util.ArrayList<>();
        java.util.TreeSet<String> keys = new java.util.TreeSet<>(expected.keySet());
        keys.addAll(actual.keySet());
        for (String k : keys) {
            String e = expected.get(k);
            String a = actual.get(k);
            if (!java.util.Objects.equals(e, a)) diffs.add(k + "\n    expected: " + cut(e) + "\n    actual:   " + cut(a));
        }
        if (!diffs.isEmpty()) {
            throw new AssertionError(diffs.size() + " of " + keys.size() + " keys differ:\n" + String.join("\n", diffs));
        }
    }

    private static String cut(String s) {
        return s == null ? "(missing)" : s.length() > 300 ? s.substring(0, 300) + "...(" + s.length() + " chars)" : s;
    }

    private static byte[] call2(RawClient c, Object... args) throws IOException {
        List<byte[]> l = new ArrayList<>();
        for (Object a : args) l.add(a instanceof byte[] ? (byte[]) a : a.toString().getBytes(StandardCharsets.ISO_8859_1));
        return c.call(l);
    }

    private static String str(RawClient c, Object... args) throws IOException {
        return String.valueOf(DualRun.decode(call2(c, args)));
    }
}
