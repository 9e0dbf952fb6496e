package io.spinel.core.embedded;

import io.spinel.core.Client;
import io.spinel.core.Engine;
import io.spinel.core.protocol.RespReader;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;

/**
 * An in-process connection to a Spinel engine: commands go in as RESP, exactly as over a socket,
 * and replies come back decoded into Java values, with no network in between.
 *
 * <p>Thread-safe: every call is handed to the engine's thread, and replies are matched to calls
 * in order. Connection state (the database chosen by SELECT, the protocol chosen by HELLO,
 * authentication, and later MULTI and WATCH) belongs to this connection, so threads that need
 * their own state should each take their own client ({@link EmbeddedSpinel#newClient()}).
 *
 * <p>Replies are decoded as: simple strings to {@code String}; bulk strings to {@code byte[]}
 * from {@link #execute(byte[]...)} and to UTF-8 {@code String} from {@link #execute(String...)};
 * integers to {@code Long}; arrays to {@code List}; null replies to {@code null}; RESP3 maps,
 * sets, doubles, booleans and big numbers to {@code Map}, {@code Set}, {@code Double},
 * {@code Boolean} and {@code BigInteger}. An error reply is thrown as a {@link SpinelException}
 * carrying Redis's message; inside an array (EXEC) it is an element of that type.
 */
public final class SpinelClient implements AutoCloseable {
    private final Engine engine;
    private final MemoryConnection connection = new MemoryConnection();
    private volatile boolean closed;

    private volatile Consumer<List<Object>> pushListener;

    /** Set on the engine thread once the engine accepted the connection. */
    private volatile Client client;

    // Touched only on the engine thread.
    private final ArrayDeque<Pending> pending = new ArrayDeque<>();
    private final Resp.Decoder decoder = new Resp.Decoder();
    private byte[] in = new byte[256];
    private int inStart;
    private int inEnd;

    private record Pending(CompletableFuture<Object> future, boolean strings) {
    }

    private SpinelClient(Engine engine) {
        this.engine = engine;
    }

    /**
     * Opens an in-process connection to an engine, which may also be serving network clients
     * (a server's {@code engine()}). Not callable from the engine's own thread.
     */
    public static SpinelClient connect(Engine engine) {
        SpinelClient sc = new SpinelClient(engine);
        if (engine.inLoop()) throw new IllegalStateException("cannot connect from the engine's own thread");
        CompletableFuture<Client> f = new CompletableFuture<>();
        try {
            engine.loop().execute(() -> {
                try {
                    Client c = engine.connect(sc.connection);
                    sc.client = c;
                    f.complete(c);
                } catch (RuntimeException e) {
                    f.completeExceptionally(e);
                }
            });
        } catch (RejectedExecutionException e) {
            throw new IllegalStateException("the engine has stopped", e);
        }
        Client c = join(f);
        if (c == null) {
            // The engine refused the connection (maxclients) and wrote the reason as an error reply.
            String text = new String(sc.in, sc.inStart, sc.inEnd - sc.inStart, StandardCharsets.UTF_8).trim();
            sc.closed = true;
            throw new SpinelException(text.startsWith("-") ? text.substring(1) : "ERR connection refused");
        }
        return sc;
    }

    /**
     * How long a blocking call polls for its reply before it parks, in nanoseconds
     * ({@code -Dspinel.embedded.spinMicros}, default 20). A simple command's reply is back within a
     * few microseconds, and parking and being woken costs as much again on a busy machine. Not on
     * a single CPU, where polling would only hold up the engine thread.
     */
    private static final long SPIN_NANOS = Runtime.getRuntime().availableProcessors() > 1
            ? Long.getLong("spinel.embedded.spinMicros", 20) * 1000 : 0;

    private static <T> T join(CompletableFuture<T> f) {
        if (SPIN_NANOS > 0 && !f.isDone()) {
            long deadline = System.nanoTime() + SPIN_NANOS;
            while (!f.isDone() && System.nanoTime() - deadline < 0) Thread.onSpinWait();
        }
        try {
            return f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the engine", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof SpinelException) throw new SpinelException(cause.getMessage());
            if (cause instanceof IllegalStateException) throw new IllegalStateException(cause.getMessage(), cause);
            throw new IllegalStateException(String.valueOf(cause), cause);
        }
    }

    /**
     * Receives RESP3 push data (after HELLO 3), such as client-side caching invalidations, which
     * is not the reply to any call. It runs on the engine's thread: hand work off, never block.
     * Without a listener pushes are dropped.
     */
    public void onPush(Consumer<List<Object>> listener) {
        this.pushListener = listener;
    }

    /** The connection id (CLIENT ID). */
    public long id() {
        return client.id();
    }

    public boolean isClosed() {
        return closed;
    }

    // ---- generic commands -----------------------------------------------------------------------

    /** Runs a command and waits for its reply; bulk strings come back as {@code byte[]}. */
    public Object execute(byte[]... args) {
        checkNotOnEngineThread();
        return join(submit(args, false));
    }

    /** Runs a command (arguments as UTF-8) and waits for its reply; bulk strings come back as {@code String}. */
    public Object execute(String... args) {
        checkNotOnEngineThread();
        return join(submit(utf8(args), true));
    }

    /**
     * Sends a command without waiting; the future completes with the reply (or a
     * {@link SpinelException}). Calls made one after another are pipelined and answered in order.
     * Stages chained without an executor run on the engine thread: keep them short and never
     * block there.
     */
    public CompletableFuture<Object> executeAsync(byte[]... args) {
        return submit(args, false);
    }

    /** As {@link #executeAsync(byte[]...)}, with UTF-8 arguments and bulk strings decoded as {@code String}. */
    public CompletableFuture<Object> executeAsync(String... args) {
        return submit(utf8(args), true);
    }

    private static byte[][] utf8(String... args) {
        byte[][] b = new byte[args.length][];
        for (int i = 0; i < args.length; i++) b[i] = args[i].getBytes(StandardCharsets.UTF_8);
        return b;
    }

    private void checkNotOnEngineThread() {
        if (engine.inLoop()) {
            throw new IllegalStateException("a blocking call on the engine's own thread would wait forever; "
                    + "use executeAsync there");
        }
    }

    private CompletableFuture<Object> submit(byte[][] args, boolean strings) {
        if (args.length == 0) throw new IllegalArgumentException("a command needs at least its name");
        if (args.length >= 2 && is(args[0], "client") && is(args[1], "reply")) {
            // Replies are how calls learn they are done: a connection that asks for none would hang.
            throw new UnsupportedOperationException("CLIENT REPLY is not available to in-process clients");
        }
        for (String streaming : STREAMING) {
            if (is(args[0], streaming)) {
                // These answer one call with any number of replies, which cannot be matched to calls.
                throw new UnsupportedOperationException(streaming.toUpperCase(java.util.Locale.ROOT)
                        + " is not available to in-process clients; use a network client");
            }
        }
        CompletableFuture<Object> f = new CompletableFuture<>();
        if (closed) {
            f.completeExceptionally(closedError());
            return f;
        }
        byte[] command = Resp.encode(args);
        try {
            // Always queued, even from the engine thread: running inline could re-enter the
            // engine in the middle of flushing replies.
            engine.loop().execute(() -> run(command, f, strings));
        } catch (RejectedExecutionException e) {
            closed = true;
            f.completeExceptionally(closedError());
        }
        return f;
    }

    private static final String[] STREAMING = {
        "subscribe", "psubscribe", "ssubscribe", "unsubscribe", "punsubscribe", "sunsubscribe", "monitor",
    };

    private static boolean is(byte[] arg, String token) {
        return new String(arg, StandardCharsets.ISO_8859_1).equalsIgnoreCase(token);
    }

    private static IllegalStateException closedError() {
        return new IllegalStateException("the connection is closed");
    }

    /** On the engine thread: feed one command and run what is complete. */
    private void run(byte[] command, CompletableFuture<Object> f, boolean strings) {
        if (client.isClosed()) {
            f.completeExceptionally(closedError());
            return;
        }
        pending.add(new Pending(f, strings));
        RespReader reader = client.reader();
        byte[] dst = reader.writable(command.length);
        System.arraycopy(command, 0, dst, reader.writeOffset(), command.length);
        reader.commit(command.length);
        engine.stats().netInputBytes += command.length;
        engine.stats().readsProcessed++;
        engine.processInput(client);
        engine.flushPending();
    }

    /** On the engine thread: decode every whole reply received and complete its call. */
    private void deliver() {
        try {
            decoder.reset(in, inStart, inEnd);
            while (decoder.pos < inEnd) {
                Pending p = pending.peek();
                Object v = decoder.next(p == null || p.strings());
                if (v == Resp.INCOMPLETE) break;
                if (v instanceof Resp.Push) {
                    Consumer<List<Object>> l = pushListener;
                    if (l != null) {
                        try {
                            l.accept(((Resp.Push) v).items());
                        } catch (RuntimeException e) {
                            engine.log().warning("Push listener of an in-process client failed: " + e);
                        }
                    }
                    continue;
                }
                if (p == null) continue; // nothing asked for it
                pending.poll();
                if (v instanceof SpinelException) p.future().completeExceptionally((SpinelException) v);
                else p.future().complete(v);
            }
            inStart = decoder.pos;
        } catch (RuntimeException e) {
            // Bytes that are not RESP cannot be matched to calls any more.
            failPending(new IllegalStateException("cannot decode a reply: " + e, e));
            inStart = inEnd;
        }
        if (inStart == inEnd) inStart = inEnd = 0;
    }

    private void failPending(Throwable t) {
        Pending p;
        while ((p = pending.poll()) != null) p.future().completeExceptionally(t);
    }

    /** Closes the connection; calls still waiting fail. */
    @Override
    public void close() {
        if (closed) return;
        closed = true;
        try {
            engine.loop().execute(() -> {
                if (client != null) engine.closeClient(client);
            });
        } catch (RejectedExecutionException e) {
            // The engine is already gone, and this connection with it.
        }
    }

    /** The transport side: reply bytes are kept in memory and decoded at each flush. */
    private final class MemoryConnection implements Client.Connection {
        @Override
        public void write(byte[] buf, int off, int len) {
            if (inEnd + len > in.length) {
                int live = inEnd - inStart;
                byte[] target = live + len > in.length ? new byte[Math.max(live + len, in.length * 2)] : in;
                System.arraycopy(in, inStart, target, 0, live);
                in = target;
                inStart = 0;
                inEnd = live;
            }
            System.arraycopy(buf, off, in, inEnd, len);
            inEnd += len;
        }

        @Override
        public void flush() {
            // Before the engine accepted the connection, what it writes is the reason it refused it.
            if (client != null) deliver();
        }

        @Override
        public void close() {
            closed = true;
            if (client != null) deliver();
            failPending(closedError());
        }

        @Override
        public String remoteAddress() {
            return "embedded:0";
        }

        @Override
        public String localAddress() {
            return "embedded:0";
        }




        /** Reply bytes not yet decoded (output buffer limits count them as unsent). */
        public long pendingBytes() {
            return inEnd - inStart;
        }
    }

    // ---- connection and server ------------------------------------------------------------------

    public String ping() {
        return str(execute("PING"));
    }

    public void auth(String password) {
        execute("AUTH", password);
    }

    public void auth(String user, String password) {
        execute("AUTH", user, password);
    }

    public void select(int db) {
        execute("SELECT", Integer.toString(db));
    }

    public long dbSize() {
        return lng(execute("DBSIZE"));
    }

    public void flushAll() {
        execute("FLUSHALL");
    }

    public void flushDb() {
        execute("FLUSHDB");
    }

    /** CONFIG SET, validated and applied as over the network. */
    public void configSet(String name, String value) {
        execute("CONFIG", "SET", name, value);
    }

    /** The value of one option, or null when there is no such option. */
    public String configGet(String name) {
        Map<String, String> m = map(execute("CONFIG", "GET", name));
        return m.get(name.toLowerCase(java.util.Locale.ROOT));
    }

    // ---- keys -----------------------------------------------------------------------------------

    public long del(String... keys) {
        return lng(execute(prepend("DEL", keys)));
    }

    public long exists(String... keys) {
        return lng(execute(prepend("EXISTS", keys)));
    }

    /** The type name (string, list, hash, set, zset, stream) or "none". */
    public String type(String key) {
        return str(execute("TYPE", key));
    }

    public List<String> keys(String pattern) {
        return strings(execute("KEYS", pattern));
    }

    /** Sets a TTL in seconds; false when the key does not exist. */
    public boolean expire(String key, long seconds) {
        return bool(execute("EXPIRE", key, Long.toString(seconds)));
    }

    /** Sets a TTL with millisecond precision (PEXPIRE); false when the key does not exist. */
    public boolean expire(String key, Duration ttl) {
        return bool(execute("PEXPIRE", key, Long.toString(ttl.toMillis())));
    }

    /** Sets an absolute expiry (PEXPIREAT); false when the key does not exist. */
    public boolean expireAt(String key, Instant at) {
        return bool(execute("PEXPIREAT", key, Long.toString(at.toEpochMilli())));
    }

    /** Seconds to live, -1 without a TTL, -2 when the key does not exist. */
    public long ttl(String key) {
        return lng(execute("TTL", key));
    }

    /** Milliseconds to live, -1 without a TTL, -2 when the key does not exist. */
    public long pttl(String key) {
        return lng(execute("PTTL", key));
    }

    public boolean persist(String key) {
        return bool(execute("PERSIST", key));
    }

    // ---- strings --------------------------------------------------------------------------------

    public String get(String key) {
        return str(execute("GET", key));
    }

    public byte[] get(byte[] key) {
        return (byte[]) execute(new byte[][] {ascii("GET"), key});
    }

    public void set(String key, String value) {
        execute("SET", key, value);
    }

    public void set(byte[] key, byte[] value) {
        execute(new byte[][] {ascii("SET"), key, value});
    }

    /** SET with options; false when an NX or XX condition kept the value from being set. */
    public boolean set(String key, String value, SetOptions options) {
        List<String> args = new ArrayList<>(List.of("SET", key, value));
        options.appendTo(args);
        return execute(args.toArray(new String[0])) != null;
    }

    /** SET ... GET: sets (subject to the options) and returns the old value, or null. */
    public String setAndGet(String key, String value, SetOptions options) {
        List<String> args = new ArrayList<>(List.of("SET", key, value));
        options.appendTo(args);
        args.add("GET");
        return str(execute(args.toArray(new String[0])));
    }

    public List<String> mget(String... keys) {
        return strings(execute(prepend("MGET", keys)));
    }

    /** MSET of the map's entries, in its iteration order. */
    public void mset(Map<String, String> entries) {
        execute(prepend("MSET", flatten(entries)));
    }

    /** MSET key value [key value ...]. */
    public void mset(String... keysAndValues) {
        execute(prepend("MSET", keysAndValues));
    }

    public long incr(String key) {
        return lng(execute("INCR", key));
    }

    public long incrBy(String key, long delta) {
        return lng(execute("INCRBY", key, Long.toString(delta)));
    }

    public long decr(String key) {
        return lng(execute("DECR", key));
    }

    public long decrBy(String key, long delta) {
        return lng(execute("DECRBY", key, Long.toString(delta)));
    }

    public double incrByFloat(String key, double delta) {
        return dbl(execute("INCRBYFLOAT", key, number(delta)));
    }

    public long append(String key, String value) {
        return lng(execute("APPEND", key, value));
    }

    public long strlen(String key) {
        return lng(execute("STRLEN", key));
    }

    // ---- hashes ---------------------------------------------------------------------------------

    /** Returns how many fields were added (not updated). */
    public long hset(String key, String field, String value) {
        return lng(execute("HSET", key, field, value));
    }

    public long hset(String key, Map<String, String> fields) {
        return lng(execute(prepend2("HSET", key, flatten(fields))));
    }

    public String hget(String key, String field) {
        return str(execute("HGET", key, field));
    }

    public List<String> hmget(String key, String... fields) {
        return strings(execute(prepend2("HMGET", key, fields)));
    }

    public Map<String, String> hgetAll(String key) {
        return map(execute("HGETALL", key));
    }

    public long hdel(String key, String... fields) {
        return lng(execute(prepend2("HDEL", key, fields)));
    }

    public boolean hexists(String key, String field) {
        return bool(execute("HEXISTS", key, field));
    }

    public long hlen(String key) {
        return lng(execute("HLEN", key));
    }

    public long hincrBy(String key, String field, long delta) {
        return lng(execute("HINCRBY", key, field, Long.toString(delta)));
    }

    public List<String> hkeys(String key) {
        return strings(execute("HKEYS", key));
    }

    public List<String> hvals(String key) {
        return strings(execute("HVALS", key));
    }

    // ---- lists ----------------------------------------------------------------------------------

    /** Returns the length of the list after the push. */
    public long lpush(String key, String... values) {
        return lng(execute(prepend2("LPUSH", key, values)));
    }

    public long rpush(String key, String... values) {
        return lng(execute(prepend2("RPUSH", key, values)));
    }

    public String lpop(String key) {
        return str(execute("LPOP", key));
    }

    public String rpop(String key) {
        return str(execute("RPOP", key));
    }

    public List<String> lrange(String key, long start, long stop) {
        return strings(execute("LRANGE", key, Long.toString(start), Long.toString(stop)));
    }

    public long llen(String key) {
        return lng(execute("LLEN", key));
    }

    public String lindex(String key, long index) {
        return str(execute("LINDEX", key, Long.toString(index)));
    }

    public void lset(String key, long index, String value) {
        execute("LSET", key, Long.toString(index), value);
    }

    public void ltrim(String key, long start, long stop) {
        execute("LTRIM", key, Long.toString(start), Long.toString(stop));
    }

    /** Removes up to |count| occurrences (all when 0; from the tail when negative). */
    public long lrem(String key, long count, String value) {
        return lng(execute("LREM", key, Long.toString(count), value));
    }

    // ---- sets -----------------------------------------------------------------------------------

    public long sadd(String key, String... members) {
        return lng(execute(prepend2("SADD", key, members)));
    }

    public long srem(String key, String... members) {
        return lng(execute(prepend2("SREM", key, members)));
    }

    public Set<String> smembers(String key) {
        return new LinkedHashSet<>(strings(execute("SMEMBERS", key)));
    }

    public boolean sismember(String key, String member) {
        return bool(execute("SISMEMBER", key, member));
    }

    public long scard(String key) {
        return lng(execute("SCARD", key));
    }

    // ---- sorted sets ----------------------------------------------------------------------------

    /** Returns how many members were added (not updated). */
    public long zadd(String key, double score, String member) {
        return lng(execute("ZADD", key, number(score), member));
    }

    public long zadd(String key, Map<String, Double> scores) {
        List<String> args = new ArrayList<>(List.of("ZADD", key));
        for (Map.Entry<String, Double> e : scores.entrySet()) {
            args.add(number(e.getValue()));
            args.add(e.getKey());
        }
        return lng(execute(args.toArray(new String[0])));
    }

    /** The member's score, or null when it (or the key) does not exist. */
    public Double zscore(String key, String member) {
        Object v = execute("ZSCORE", key, member);
        return v == null ? null : dbl(v);
    }

    public double zincrBy(String key, double delta, String member) {
        return dbl(execute("ZINCRBY", key, number(delta), member));
    }

    public long zrem(String key, String... members) {
        return lng(execute(prepend2("ZREM", key, members)));
    }

    public long zcard(String key) {
        return lng(execute("ZCARD", key));
    }

    /** The member's rank by ascending score, or null when it does not exist. */
    public Long zrank(String key, String member) {
        return (Long) execute("ZRANK", key, member);
    }

    /** Members by rank, ascending score. */
    public List<String> zrange(String key, long start, long stop) {
        return strings(execute("ZRANGE", key, Long.toString(start), Long.toString(stop)));
    }

    public List<ScoredMember> zrangeWithScores(String key, long start, long stop) {
        Object reply = execute("ZRANGE", key, Long.toString(start), Long.toString(stop), "WITHSCORES");
        List<ScoredMember> out = new ArrayList<>();
        List<?> l = (List<?>) reply;
        if (!l.isEmpty() && l.get(0) instanceof List) {
            // RESP3: [member, score] pairs
            for (Object o : l) {
                List<?> pair = (List<?>) o;
                out.add(new ScoredMember(str(pair.get(0)), dbl(pair.get(1))));
            }
        } else {
            for (int i = 0; i + 1 < l.size(); i += 2) out.add(new ScoredMember(str(l.get(i)), dbl(l.get(i + 1))));
        }
        return out;
    }

    /** Members with min &lt;= score &lt;= max, ascending. */
    public List<String> zrangeByScore(String key, double min, double max) {
        return strings(execute("ZRANGEBYSCORE", key, number(min), number(max)));
    }

    // ---- conversions ----------------------------------------------------------------------------

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static String[] prepend(String command, String... rest) {
        String[] out = new String[rest.length + 1];
        out[0] = command;
        System.arraycopy(rest, 0, out, 1, rest.length);
        return out;
    }

    private static String[] prepend2(String command, String key, String... rest) {
        String[] out = new String[rest.length + 2];
        out[0] = command;
        out[1] = key;
        System.arraycopy(rest, 0, out, 2, rest.length);
        return out;
    }

    private static String[] flatten(Map<String, String> m) {
        String[] out = new String[m.size() * 2];
        int i = 0;
        for (Map.Entry<String, String> e : m.entrySet()) {
            out[i++] = e.getKey();
            out[i++] = e.getValue();
        }
        return out;
    }

    /** A double as Redis parses it: integers without a fraction, infinities as inf. */
    static String number(double d) {
        if (d == Double.POSITIVE_INFINITY) return "+inf";
        if (d == Double.NEGATIVE_INFINITY) return "-inf";
        if (d == Math.rint(d) && Math.abs(d) < 1e15) return Long.toString((long) d);
        return Double.toString(d);
    }

    private static String str(Object o) {
        if (o == null) return null;
        if (o instanceof byte[]) return new String((byte[]) o, StandardCharsets.UTF_8);
        return o.toString();
    }

    private static long lng(Object o) {
        if (o instanceof Long) return (Long) o;
        throw unexpected("an integer", o);
    }

    private static boolean bool(Object o) {
        if (o instanceof Boolean) return (Boolean) o;
        return lng(o) != 0;
    }

    private static double dbl(Object o) {
        if (o instanceof Double) return (Double) o;
        String s = str(o);
        if (s == null) throw unexpected("a number", null);
        switch (s) {
            case "inf":
            case "+inf":
                return Double.POSITIVE_INFINITY;
            case "-inf":
                return Double.NEGATIVE_INFINITY;
            default:
                return Double.parseDouble(s);
        }
    }

    private static List<String> strings(Object o) {
        if (!(o instanceof Collection)) throw unexpected("an array", o);
        List<String> out = new ArrayList<>(((Collection<?>) o).size());
        for (Object e : (Collection<?>) o) out.add(str(e));
        return out;
    }

    /** A RESP3 map, or the flat field/value array RESP2 uses for the same reply. */
    private static Map<String, String> map(Object o) {
        Map<String, String> out = new LinkedHashMap<>();
        if (o instanceof Map) {
            for (Map.Entry<?, ?> e : ((Map<?, ?>) o).entrySet()) out.put(str(e.getKey()), str(e.getValue()));
            return out;
        }
        if (!(o instanceof List)) throw unexpected("a map", o);
        Iterator<?> it = ((List<?>) o).iterator();
        while (it.hasNext()) {
            String k = str(it.next());
            out.put(k, it.hasNext() ? str(it.next()) : null);
        }
        return out;
    }

    private static IllegalStateException unexpected(String wanted, Object got) {
        String shown = got instanceof byte[] ? Arrays.toString((byte[]) got) : String.valueOf(got);
        return new IllegalStateException("expected " + wanted + " reply, got " + shown);
    }
}
