package io.spinel.server;

import io.spinel.core.keyspace.BigValues;
import io.spinel.core.util.NativeMemory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Transaction;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Protocol;

import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What happens to the native memory of big SET values (StringEntry.BIG) beyond the commands that
 * BigValueDiffTest compares with Redis: snapshots, the AOF, expiry, eviction, DUMP, clients that
 * go away in the middle of a value, and that every block is freed once nothing holds it.
 */
class BigValueTest {
    @TempDir
    Path dir;

    /** Over any single read, so received in pieces into native memory. */
    private static byte[] value(int seed) {
        byte[] v = new byte[150_000 + seed];
        for (int i = 0; i < v.length; i++) v[i] = (byte) ('a' + (i * 7 + seed) % 26);
        return v;
    }

    /**
     * The native block (what used_memory counts) of a value of n bytes: n and a 16-byte header,
     * rounded up to one of 16 equal steps between powers of two (from 32 KB to 64 MB).
     */
    private static long block(long n) {
        long b = n + 16;
        long step = Long.highestOneBit(b - 1) / 16;
        return (b + step - 1) / step * step;
    }

    private static byte[] key(String k) {
        return k.getBytes(StandardCharsets.UTF_8);
    }

    private SpinelServer start(String... options) {
        return start(SpinelServer.Transport.JDK, options);
    }

    private SpinelServer start(SpinelServer.Transport transport, String... options) {
        SpinelServer.Builder b = SpinelServer.builder().randomPort().transport(transport).option("bind", "127.0.0.1")
                .option("dir", dir.toString()).option("enable-debug-command", "yes");
        for (int i = 0; i < options.length; i += 2) b.option(options[i], options[i + 1]);
        return b.start();
    }

    private static long[] bigValues(SpinelServer s) throws Exception {
        CompletableFuture<long[]> f = new CompletableFuture<>();
        s.engine().execute(() -> {
            BigValues b = s.engine().keyspace().bigValues();
            f.complete(new long[] {b.count(), b.bytes(), b.deferredBytes()});
        });
        return f.get(5, TimeUnit.SECONDS);
    }

    /** Each transport receives big values its own way: Netty reads the socket straight into them. */
    @ParameterizedTest
    @EnumSource(SpinelServer.Transport.class)
    void overwritesAndDeletesGiveEveryBlockBack(SpinelServer.Transport transport) throws Exception {
        long blocksBefore = NativeMemory.blocksInUse();
        try (SpinelServer s = start(transport); Jedis j = new Jedis("127.0.0.1", s.port())) {
            for (int i = 0; i < 20; i++) j.set(key("k"), value(i));
            assertThat(j.get(key("k"))).isEqualTo(value(19));
            assertThat(bigValues(s)).containsExactly(1, block(value(19).length), 0);
            assertThat(NativeMemory.blocksInUse()).isEqualTo(blocksBefore + 1);
            j.set(key("k"), key("small"));
            assertThat(bigValues(s)).containsExactly(0, 0, 0);
            assertThat(NativeMemory.blocksInUse()).isEqualTo(blocksBefore);

            // a value whose SET fails is freed with its arguments
            j.set(key("k2"), key("x"));
            assertThat(j.setnx(key("k2"), value(3))).isZero();
            j.ping();
            assertThat(NativeMemory.blocksInUse()).isEqualTo(blocksBefore);
        }
        assertThat(NativeMemory.blocksInUse()).isEqualTo(blocksBefore);
    }

    /** MSET's and MSETNX's values arrive in native memory like SET's, several in one command. */
    @ParameterizedTest
    @EnumSource(SpinelServer.Transport.class)
    void msetKeepsEachBigValueWhereItArrived(SpinelServer.Transport transport) throws Exception {
        long blocksBefore = NativeMemory.blocksInUse();
        try (SpinelServer s = start(transport); Jedis j = new Jedis("127.0.0.1", s.port())) {
            j.mset(key("a"), value(1), key("small"), key("x"), key("b"), value(2), key("c"), value(3));
            assertThat(bigValues(s)[0]).isEqualTo(3);
            assertThat(NativeMemory.blocksInUse()).isEqualTo(blocksBefore + 3);
            assertThat(j.mget(key("a"), key("small"), key("b"), key("c")))
                    .containsExactly(value(1), key("x"), value(2), value(3));
            // the same key twice: the second value stays, the first is freed
            j.mset(key("d"), value(4), key("d"), value(5));
            assertThat(j.get(key("d"))).isEqualTo(value(5));
            assertThat(bigValues(s)[0]).isEqualTo(4);
            assertThat(NativeMemory.blocksInUse()).isEqualTo(blocksBefore + 4);
            // an MSETNX that stores nothing frees what it received
            assertThat(j.msetnx(key("a"), value(6), key("new"), value(7))).isZero();
            j.ping();
            assertThat(NativeMemory.blocksInUse()).isEqualTo(blocksBefore + 4);
            assertThat(j.msetnx(key("new"), value(7), key("new2"), value(8))).isEqualTo(1);
            assertThat(bigValues(s)[0]).isEqualTo(6);
            // queued by MULTI: kept as heap copies until EXEC, the received memory freed
            Transaction t = j.multi();
            t.mset(key("m"), value(9));
            t.exec();
            assertThat(j.get(key("m"))).isEqualTo(value(9));
            assertThat(NativeMemory.blocksInUse()).isEqualTo(blocksBefore + 6);
            j.del(key("a"), key("b"), key("c"), key("d"), key("new"), key("new2"));
            assertThat(bigValues(s)[0]).isZero();
            assertThat(NativeMemory.blocksInUse()).isEqualTo(blocksBefore);
        }
        assertThat(NativeMemory.blocksInUse()).isEqualTo(blocksBefore);
    }

    @ParameterizedTest
    @EnumSource(SpinelServer.Transport.class)
    void aClientLeavingInTheMiddleOfAValueLeavesNothing(SpinelServer.Transport transport) throws Exception {
        long blocksBefore = NativeMemory.blocksInUse();
        try (SpinelServer s = start(transport); Jedis j = new Jedis("127.0.0.1", s.port())) {
            try (Socket raw = new Socket("127.0.0.1", s.port())) {
                OutputStream out = raw.getOutputStream();
                out.write("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$200000\r\n".getBytes(StandardCharsets.US_ASCII));
                out.write(new byte[100_000]);
                out.flush();
                // the server has started receiving the value into native memory
                for (int i = 0; i < 100 && NativeMemory.blocksInUse() == blocksBefore; i++) Thread.sleep(10);
                assertThat(NativeMemory.blocksInUse()).isEqualTo(blocksBefore + 1);
            }
            for (int i = 0; i < 200 && NativeMemory.blocksInUse() != blocksBefore; i++) Thread.sleep(10);
            assertThat(NativeMemory.blocksInUse()).isEqualTo(blocksBefore);
            assertThat(j.exists("k")).isFalse();

            // an MSET with one value whole and the next one half-way
            try (Socket raw = new Socket("127.0.0.1", s.port())) {
                OutputStream out = raw.getOutputStream();
                out.write("*5\r\n$4\r\nMSET\r\n$2\r\nm1\r\n$100000\r\n".getBytes(StandardCharsets.US_ASCII));
                out.write(new byte[100_000]);
                out.write("\r\n$2\r\nm2\r\n$200000\r\n".getBytes(StandardCharsets.US_ASCII));
                out.write(new byte[100_000]);
                out.flush();
                for (int i = 0; i < 100 && NativeMemory.blocksInUse() < blocksBefore + 2; i++) Thread.sleep(10);
                assertThat(NativeMemory.blocksInUse()).isEqualTo(blocksBefore + 2);
            }
            for (int i = 0; i < 200 && NativeMemory.blocksInUse() != blocksBefore; i++) Thread.sleep(10);
            assertThat(NativeMemory.blocksInUse()).isEqualTo(blocksBefore);
            assertThat(j.exists("m1")).isFalse();
        }
    }

    /**
     * Replies of big values go out from the value's own memory: they must arrive whole and in
     * order among other replies, also when the socket takes only part of them (the client reads
     * nothing until the whole pipeline is answered) and when the value is freed, and its memory
     * reused, by the next commands of the same batch.
     */
    @ParameterizedTest
    @EnumSource(SpinelServer.Transport.class)
    void bigRepliesArriveWholeAndInOrder(SpinelServer.Transport transport) throws Exception {
        long blocksBefore = NativeMemory.blocksInUse();
        try (SpinelServer s = start(transport); Jedis j = new Jedis("127.0.0.1", s.port())) {
            j.set(key("a"), value(1));
            j.set(key("b"), value(2));
            j.set(key("small"), key("tiny"));
            assertThat(bigValues(s)[0]).isEqualTo(2);
            java.io.ByteArrayOutputStream request = new java.io.ByteArrayOutputStream();
            java.io.ByteArrayOutputStream expected = new java.io.ByteArrayOutputStream();
            for (int round = 0; round < 40; round++) {
                byte[] a = value(1 + 2 * round), b = value(2);
                command(request, key("PING"));
                expected.writeBytes(key("+PONG\r\n"));
                command(request, key("GET"), key("a"));
                bulk(expected, a);
                command(request, key("GET"), key("small"));
                bulk(expected, key("tiny"));
                command(request, key("MGET"), key("a"), key("b"), key("nosuch"));
                expected.writeBytes(key("*3\r\n"));
                bulk(expected, a);
                bulk(expected, b);
                expected.writeBytes(key("$-1\r\n"));
                // a's memory is freed after the DEL and most likely reused by the next value
                command(request, key("DEL"), key("a"));
                expected.writeBytes(key(":1\r\n"));
                command(request, key("SET"), key("a"), value(3 + 2 * round));
                expected.writeBytes(key("+OK\r\n"));
                command(request, key("SET"), key("a"), value(1 + 2 * (round + 1)));
                expected.writeBytes(key("+OK\r\n"));
            }
            long outBefore = netOutput(j);
            try (Socket raw = new Socket("127.0.0.1", s.port())) {
                raw.getOutputStream().write(request.toByteArray());
                raw.getOutputStream().flush();
                Thread.sleep(200); // replies pile up beyond what the socket buffers hold
                byte[] got = raw.getInputStream().readNBytes(expected.size());
                assertThat(got.length).isEqualTo(expected.size());
                assertThat(Arrays.equals(got, expected.toByteArray())).as("replies byte for byte").isTrue();
            }
            // INFO counts what went out, the values written from native memory included
            assertThat(netOutput(j) - outBefore).isGreaterThanOrEqualTo(expected.size());
            j.del(key("a"), key("b"));
        }
        assertThat(NativeMemory.blocksInUse()).isEqualTo(blocksBefore);
    }

    /**
     * A reply that leaves before the end of its batch (a native value written from where it lies,
     * a big heap value spilled as it is made) and is the batch's last: what the socket does not
     * take at once must still be sent, although nothing is left in the reply buffer to flush.
     */
    @ParameterizedTest
    @EnumSource(SpinelServer.Transport.class)
    void aBigReplyLastInItsBatchArrivesWhole(SpinelServer.Transport transport) throws Exception {
        byte[] big = new byte[6 * 1024 * 1024 + 5];
        for (int i = 0; i < big.length; i++) big[i] = (byte) (i * 13 + 1);
        try (SpinelServer s = start(transport); Jedis j = new Jedis("127.0.0.1", s.port(), 10_000)) {
            j.set(key("native"), big);
            assertThat(bigValues(s)[0]).isEqualTo(1);
            for (int round = 0; round < 3; round++) assertThat(j.get(key("native"))).isEqualTo(big);
            // APPEND moves it onto the heap: GET then spills it to the connection in slices
            j.set(key("heap"), big);
            j.append(key("heap"), key("!"));
            assertThat(j.objectEncoding("heap")).isEqualTo("raw");
            byte[] longer = Arrays.copyOf(big, big.length + 1);
            longer[big.length] = '!';
            for (int round = 0; round < 3; round++) assertThat(j.get(key("heap"))).isEqualTo(longer);
        }
    }

    private static void command(java.io.ByteArrayOutputStream out, byte[]... args) {
        out.writeBytes(key("*" + args.length + "\r\n"));
        for (byte[] a : args) bulk(out, a);
    }

    private static void bulk(java.io.ByteArrayOutputStream out, byte[] b) {
        out.writeBytes(key("$" + b.length + "\r\n"));
        out.writeBytes(b);
        out.writeBytes(key("\r\n"));
    }

    private static long netOutput(Jedis j) {
        return Long.parseLong(j.info("stats").lines().filter(l -> l.startsWith("total_net_output_bytes:"))
                .findFirst().orElseThrow().substring("total_net_output_bytes:".length()).trim());
    }

    /**
     * A freed value's block is kept for the next value of about its size (no fresh pages to
     * fault in), for 10 s at most; a synchronous FLUSHALL gives them all back at once, as Redis
     * purges its allocator then.
     */
    @Test
    void freedBlocksAreReusedAndASynchronousFlushGivesThemBack() throws Exception {
        NativeMemory.releaseKept();
        try (SpinelServer s = start(SpinelServer.Transport.NETTY); Jedis j = new Jedis("127.0.0.1", s.port())) {
            j.set(key("a"), value(1));
            j.del(key("a"));
            assertThat(NativeMemory.keptBytes()).isPositive();
            j.set(key("b"), value(2)); // one byte longer: the same size class
            assertThat(NativeMemory.keptBytes()).isZero();
            assertThat(j.get(key("b"))).isEqualTo(value(2));
            j.del(key("b"));
            assertThat(NativeMemory.keptBytes()).isPositive();
            j.flushAll();
            assertThat(NativeMemory.keptBytes()).isZero();

            j.set(key("c"), value(3));
            j.sendCommand(Protocol.Command.FLUSHALL, key("ASYNC"));
            j.ping();
            assertThat(NativeMemory.keptBytes()).isPositive(); // kept, to decay in 10 s
        }
        assertThat(NativeMemory.keptBytes()).isZero(); // a stopped server gives them back
    }

    @Test
    void aSnapshotKeepsTheValuesAFlushDroppedWhileItRuns() throws Exception {
        int n = 30;
        try (SpinelServer s = start(); Jedis j = new Jedis("127.0.0.1", s.port())) {
            for (int i = 0; i < n; i++) j.set(key("k" + i), value(i));
            // one batch: the overwrite and FLUSHDB (which, unlike FLUSHALL, lets the snapshot go on)
            // run before the snapshot writes anything
            Pipeline p = j.pipelined();
            p.sendCommand(Protocol.Command.BGSAVE, new String[0]);
            p.set(key("k0"), value(100));
            p.sendCommand(Protocol.Command.FLUSHDB, new String[0]);
            for (int i = 0; i < 5; i++) p.set(key("new" + i), value(200 + i));
            p.sync();
            for (int i = 0; i < 500 && j.info("persistence").contains("rdb_bgsave_in_progress:1"); i++) Thread.sleep(10);
            assertThat(j.info("persistence")).contains("rdb_bgsave_in_progress:0").contains("rdb_last_bgsave_status:ok");
            // the values the flush dropped were kept for the snapshot, then freed
            for (int i = 0; i < 100 && bigValues(s)[2] != 0; i++) {
                j.ping();
                Thread.sleep(10);
            }
            long bytes = 0;
            for (int i = 0; i < 5; i++) bytes += block(value(200 + i).length);
            assertThat(bigValues(s)).containsExactly(5, bytes, 0);
        }
        try (SpinelServer s = start(); Jedis j = new Jedis("127.0.0.1", s.port())) {
            assertThat(j.dbSize()).isEqualTo(n);
            for (int i = 0; i < n; i++) assertThat(j.get(key("k" + i))).isEqualTo(value(i));
        }
    }

    /**
     * Values that lived outside the heap load there again (RDB on its decoding thread, DEBUG
     * RELOAD, RESTORE, the AOF), or a data set bigger than the heap could not be loaded; keys that
     * expired in the file, a RESTORE already expired, and a server that stops give their memory
     * back.
     */
    @Test
    void loadedValuesStayOutsideTheHeap() throws Exception {
        int n = 40; // 6 MB: decoded on a thread of its own
        long blocksBefore = NativeMemory.blocksInUse();
        try (SpinelServer s = start(); Jedis j = new Jedis("127.0.0.1", s.port())) {
            for (int i = 0; i < n; i++) j.set(key("k" + i), value(i));
            j.psetex(key("soon1"), 100, value(50));
            j.psetex(key("soon2"), 100, value(51));
            j.save();
        }
        // an embedded server gives its big values back when it stops (the JVM goes on)
        assertThat(NativeMemory.blocksInUse()).isEqualTo(blocksBefore);
        Thread.sleep(150);
        try (SpinelServer s = start(); Jedis j = new Jedis("127.0.0.1", s.port())) {
            assertThat(j.dbSize()).isEqualTo(n);
            assertThat(bigValues(s)[0]).isEqualTo(n);
            assertThat(NativeMemory.blocksInUse()).isEqualTo(blocksBefore + n);
            for (int i = 0; i < n; i++) assertThat(j.get(key("k" + i))).isEqualTo(value(i));

            j.sendCommand(() -> key("DEBUG"), key("RELOAD"));
            assertThat(bigValues(s)[0]).isEqualTo(n);
            assertThat(NativeMemory.blocksInUse()).isEqualTo(blocksBefore + n);
            assertThat(j.get(key("k3"))).isEqualTo(value(3));

            byte[] dump = j.dump(key("k1"));
            j.restore(key("copy"), 0, dump);
            assertThat(bigValues(s)[0]).isEqualTo(n + 1);
            j.sendCommand(Protocol.Command.RESTORE, key("gone"), key("1"), dump, key("ABSTTL"));
            assertThat(j.exists(key("gone"))).isFalse();
            assertThat(bigValues(s)[0]).isEqualTo(n + 1);
            assertThat(NativeMemory.blocksInUse()).isEqualTo(blocksBefore + n + 1);
            assertThat(j.get(key("copy"))).isEqualTo(value(1));
        }
        assertThat(NativeMemory.blocksInUse()).isEqualTo(blocksBefore);

        try (SpinelServer s = start("appendonly", "yes", "aof-use-rdb-preamble", "no");
                Jedis j = new Jedis("127.0.0.1", s.port())) {
            j.flushAll();
            for (int i = 0; i < 5; i++) j.set(key("a" + i), value(i));
            j.append(key("a0"), key("!"));
        }
        try (SpinelServer s = start("appendonly", "yes"); Jedis j = new Jedis("127.0.0.1", s.port())) {
            // replayed SETs, and the APPEND's result on the heap
            assertThat(bigValues(s)[0]).isEqualTo(4);
            assertThat(j.get(key("a4"))).isEqualTo(value(4));
        }
        assertThat(NativeMemory.blocksInUse()).isEqualTo(blocksBefore);
    }

    @Test
    void theAofAndItsRewriteHoldTheValues() throws Exception {
        try (SpinelServer s = start("appendonly", "yes", "appendfsync", "always");
                Jedis j = new Jedis("127.0.0.1", s.port())) {
            j.set(key("a"), value(1));
            j.set(key("b"), value(2));
            j.set(key("c"), value(3));
            j.bgrewriteaof();
            for (int i = 0; i < 500 && j.info("persistence").contains("aof_rewrite_in_progress:1"); i++) Thread.sleep(10);
            j.set(key("b"), value(4)); // after the rewrite: in the incremental file
            j.append(key("c"), key("!"));
        }
        try (SpinelServer s = start("appendonly", "yes"); Jedis j = new Jedis("127.0.0.1", s.port())) {
            assertThat(j.get(key("a"))).isEqualTo(value(1));
            assertThat(j.get(key("b"))).isEqualTo(value(4));
            byte[] c = Arrays.copyOf(value(3), value(3).length + 1);
            c[c.length - 1] = '!';
            assertThat(j.get(key("c"))).isEqualTo(c);
        }
    }

    @Test
    void dumpRestoreDigestAndSlowLogSeeTheBytes() throws Exception {
        try (SpinelServer s = start("slowlog-log-slower-than", "0"); Jedis j = new Jedis("127.0.0.1", s.port())) {
            j.set(key("big"), value(7));
            // the same bytes stored through the heap (a script's arguments are never native)
            j.eval(key("redis.call('set', KEYS[1], ARGV[1])"), 1, key("heap"), value(7));
            assertThat(bigValues(s)[0]).isEqualTo(1);
            List<Object> digests = j.sendCommand(() -> key("DEBUG"), key("DIGEST-VALUE"), key("big"), key("heap")) instanceof List<?> l
                    ? List.copyOf(l) : List.of();
            assertThat(digests).hasSize(2);
            assertThat((byte[]) digests.get(0)).isEqualTo((byte[]) digests.get(1));
            byte[] dump = j.dump(key("big"));
            j.restore(key("copy"), 0, dump);
            assertThat(j.get(key("copy"))).isEqualTo(value(7));
            assertThat(dump).isEqualTo(j.dump(key("heap")));
            // the slow log read the native argument of the SET (its first bytes; the script's SET
            // of "heap" is logged too, as Redis logs the commands scripts call)
            assertThat(j.slowlogGet(100).stream().anyMatch(e -> e.getArgs().size() == 3
                    && e.getArgs().get(0).equalsIgnoreCase("set") && e.getArgs().get(1).equals("big")
                    && e.getArgs().get(2).startsWith("hovcjqx"))).isTrue();
        }
    }

    @Test
    void memoryAccountingCountsTheBlocksSizeClass() throws Exception {
        try (SpinelServer s = start(); Jedis j = new Jedis("127.0.0.1", s.port())) {
            j.set(key("big"), value(0)); // 150,000 bytes + a 16-byte header, in 8 KB steps above 128 KB: 19 x 8 KB
            long block = 19 * 8192;
            assertThat(block(value(0).length)).isEqualTo(block);
            assertThat(bigValues(s)[1]).isEqualTo(block);
            assertThat(j.memoryUsage(key("big"))).isBetween(block, block + 128);
            j.del(key("big"));
            assertThat(bigValues(s)[1]).isZero();
        }
    }

    @Test
    void expiryAndEvictionFreeTheValues() throws Exception {
        try (SpinelServer s = start("maxmemory-policy", "allkeys-lru"); Jedis j = new Jedis("127.0.0.1", s.port())) {
            j.psetex(key("short"), 30, value(1));
            j.set(key("short2"), value(2), redis.clients.jedis.params.SetParams.setParams().px(30));
            assertThat(bigValues(s)[0]).isEqualTo(2);
            for (int i = 0; i < 300 && bigValues(s)[0] != 0; i++) Thread.sleep(10);
            assertThat(bigValues(s)[0]).isZero(); // active expiry in the cron, no command since

            long used = Long.parseLong(j.info("memory").lines().filter(l -> l.startsWith("used_memory:"))
                    .findFirst().orElseThrow().substring("used_memory:".length()).trim());
            j.configSet("maxmemory", Long.toString(used + 20L * 150_000));
            for (int i = 0; i < 60; i++) j.set(key("e" + i), value(i));
            long[] b = bigValues(s);
            assertThat(b[0]).isBetween(10L, 21L);
            assertThat(j.dbSize()).isEqualTo(b[0]);
        }
    }
}
