package io.spinel.server;

import io.spinel.server.testing.RawClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.Response;
import redis.clients.jedis.Transaction;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * io-threads above 1 on the Netty transport: connections served by I/O threads, every command
 * still run by the engine's one thread. Whatever a client sees must be what it sees without them:
 * each connection's commands in its order, replies complete, other clients' events (pub/sub,
 * blocking pops, CLIENT KILL) delivered across the threads.
 */
class IoThreadsTest {
    private SpinelServer server;

    @BeforeEach
    void start() {
        server = SpinelServer.builder().randomPort().transport(SpinelServer.Transport.NETTY)
                .option("io-threads", "3").start();
    }

    @AfterEach
    void stop() {
        if (server != null) server.close();
    }

    private Jedis client() {
        return new Jedis("127.0.0.1", server.port(), 10_000);
    }

    @Test
    void manyPipeliningClientsEachSeeTheirOwnCommandsInOrder() throws Exception {
        int clients = 12;
        int perClient = 5_000;
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        try {
            List<Future<List<Object>>> results = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                String list = "list:" + c;
                results.add(pool.submit(() -> {
                    try (Jedis j = client()) {
                        Pipeline p = j.pipelined();
                        for (int i = 0; i < perClient; i++) {
                            p.rpush(list, Integer.toString(i));
                            p.incr("shared");
                        }
                        p.lrange(list, 0, -1);
                        return p.syncAndReturnAll();
                    }
                }));
            }
            for (int c = 0; c < clients; c++) {
                List<Object> replies = results.get(c).get(60, TimeUnit.SECONDS);
                assertThat(replies).hasSize(2 * perClient + 1);
                for (int i = 0; i < perClient; i++) assertThat(replies.get(2 * i)).isEqualTo((long) (i + 1));
                @SuppressWarnings("unchecked")
                List<String> list = (List<String>) replies.get(2 * perClient);
                assertThat(list).hasSize(perClient);
                for (int i = 0; i < perClient; i++) assertThat(list.get(i)).isEqualTo(Integer.toString(i));
            }
        } finally {
            pool.shutdownNow();
        }
        try (Jedis j = client()) {
            // every INCR ran once, on the one thread: none lost to a race
            assertThat(j.get("shared")).isEqualTo(Integer.toString(clients * perClient));
            String info = j.info();
            assertThat(info).contains("io_threads_active:1");
            assertThat(field(info, "io_threaded_reads_processed")).isPositive();
            assertThat(field(info, "io_threaded_writes_processed")).isPositive();
            assertThat(field(info, "io_threaded_reads_processed")).isEqualTo(field(info, "total_reads_processed"));
            assertThat(field(info, "io_threaded_writes_processed")).isEqualTo(field(info, "total_writes_processed"));
        }
    }

    @Test
    void bigValuesGoBothWays() {
        byte[] big = new byte[5 * 1024 * 1024 + 17];
        for (int i = 0; i < big.length; i++) big[i] = (byte) (i * 31 + 7);
        try (Jedis j = client()) {
            assertThat(j.set("big".getBytes(), big)).isEqualTo("OK");
            assertThat(j.get("big".getBytes())).isEqualTo(big);
            assertThat(j.strlen("big")).isEqualTo(big.length);
            // a big MSET value and a reply much larger than one socket write
            assertThat(j.mset("a".getBytes(), big, "b".getBytes(), "x".getBytes())).isEqualTo("OK");
            List<byte[]> both = j.mget("a".getBytes(), "big".getBytes(), "b".getBytes());
            assertThat(both.get(0)).isEqualTo(big);
            assertThat(both.get(1)).isEqualTo(big);
            assertThat(both.get(2)).isEqualTo("x".getBytes());
        }
    }

    @Test
    void pubSubAndBlockingPopsReachClientsOnOtherThreads() throws Exception {
        List<List<String>> receivedBy = new ArrayList<>();
        CountDownLatch subscribed = new CountDownLatch(3);
        CountDownLatch allReceived = new CountDownLatch(3 * 100);
        List<Jedis> subscribers = new ArrayList<>();
        List<JedisPubSub> subs = new ArrayList<>();
        List<CompletableFuture<Void>> loops = new ArrayList<>();
        for (int s = 0; s < 3; s++) {
            Jedis j = client();
            subscribers.add(j);
            List<String> received = new CopyOnWriteArrayList<>();
            receivedBy.add(received);
            JedisPubSub sub = new JedisPubSub() {
                @Override
                public void onSubscribe(String channel, int count) {
                    subscribed.countDown();
                }

                @Override
                public void onMessage(String channel, String message) {
                    received.add(message);
                    allReceived.countDown();
                }
            };
            subs.add(sub);
            loops.add(CompletableFuture.runAsync(() -> j.subscribe(sub, "news")));
        }
        try (Jedis publisher = client(); Jedis popper = client(); Jedis pusher = client()) {
            assertThat(subscribed.await(10, TimeUnit.SECONDS)).isTrue();
            for (int i = 0; i < 100; i++) assertThat(publisher.publish("news", "m" + i)).isEqualTo(3);
            assertThat(allReceived.await(10, TimeUnit.SECONDS)).isTrue();
            // each subscriber got every message, in publishing order
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < 100; i++) expected.add("m" + i);
            for (List<String> received : receivedBy) assertThat(received).isEqualTo(expected);
            CompletableFuture<List<String>> popped = CompletableFuture.supplyAsync(() -> popper.blpop(10, "queue"));
            waitForBlocked(pusher);
            pusher.rpush("queue", "job");
            assertThat(popped.get(10, TimeUnit.SECONDS)).isEqualTo(Arrays.asList("queue", "job"));
        } finally {
            subs.forEach(JedisPubSub::unsubscribe);
            for (CompletableFuture<Void> l : loops) l.get(10, TimeUnit.SECONDS);
            subscribers.forEach(Jedis::close);
        }
    }

    @Test
    void transactionsKillsQuitAndProtocolErrorsAffectOnlyTheirConnection() throws Exception {
        try (Jedis a = client(); Jedis b = client(); RawClient raw = new RawClient(server.port());
             RawClient bad = new RawClient(server.port())) {
            redis.clients.jedis.Transaction t = a.multi();
            Response<String> set = t.set("k", "v");
            Response<Long> incr = t.incr("n");
            assertThat(t.exec()).hasSize(2);
            assertThat(set.get()).isEqualTo("OK");
            assertThat(incr.get()).isEqualTo(1L);

            bad.sendRaw("*1\r\n$x\r\n");
            assertThat(new String(bad.readReply())).startsWith("-ERR Protocol error");
            assertThat(bad.isClosedByPeer()).isTrue();
            assertThat(b.get("k")).isEqualTo("v");

            b.clientSetname("victim");
            long id = b.clientId();
            assertThat(a.clientKill(new redis.clients.jedis.params.ClientKillParams().id(Long.toString(id)))).isEqualTo(1);
            assertThat(a.clientList()).doesNotContain("name=victim");

            assertThat(raw.callString("QUIT")).isEqualTo("+OK\r\n");
            assertThat(raw.isClosedByPeer()).isTrue();
            assertThat(a.get("k")).isEqualTo("v");
        }
    }

    /**
     * What waited for an I/O thread counted as its client's memory until it left, and eviction
     * counts that memory: it must stop counting once it has left, or the server keeps evicting
     * for replies long gone. Here a subscriber that never sends a command receives ten messages
     * of 4 KB at once (40 KB, under the channel's high-water mark, whose crossing would also
     * measure it): once they arrived, the clients' memory in INFO must come back to what CLIENT
     * LIST measures of them now. (The write's listener measures it at once; the clients' cron would within a second.)
     */
    @Test
    void repliesThatLeftNoLongerCount() throws Exception {
        try (Jedis c = client(); Jedis sub = client()) {
            CountDownLatch subscribed = new CountDownLatch(1);
            CountDownLatch received = new CountDownLatch(10);
            JedisPubSub listener = new JedisPubSub() {
                @Override
                public void onSubscribe(String channel, int count) {
                    subscribed.countDown();
                }

                @Override
                public void onMessage(String channel, String message) {
                    received.countDown();
                }
            };
            Thread t = new Thread(() -> sub.subscribe(listener, "news"));
            t.start();
            assertThat(subscribed.await(10, TimeUnit.SECONDS)).isTrue();
            Transaction batch = c.multi(); // one batch: each message measured with those before it waiting
            for (int i = 0; i < 10; i++) batch.publish("news", "m".repeat(4096));
            batch.exec();
            assertThat(received.await(10, TimeUnit.SECONDS)).isTrue();
            long deadline = System.currentTimeMillis() + 10_000;
            while (true) {
                Transaction tx = c.multi(); // both read at one moment
                tx.sendCommand(Protocol.Command.CLIENT, "LIST");
                tx.sendCommand(Protocol.Command.INFO, "memory");
                List<Object> both = tx.exec();
                long measuredNow = 0;
                for (String line : new String((byte[]) both.get(0), StandardCharsets.UTF_8).split("\n")) {
                    measuredNow += Long.parseLong(line.split(" tot-mem=")[1].split(" ")[0]);
                }
                long counted = field(new String((byte[]) both.get(1), StandardCharsets.UTF_8), "mem_clients_normal");
                if (Math.abs(counted - measuredNow) < 8 * 1024) break;
                assertThat(System.currentTimeMillis()).as("clients' memory counted %d, measured %d", counted, measuredNow)
                        .isLessThan(deadline);
                Thread.sleep(10);
            }
            listener.unsubscribe();
            t.join(10_000);
        }
    }

    @Test
    void everyEvictedKeyIsAnnounced() throws Exception {
        EvictionNotificationTest.everyEvictedKeyIsAnnounced(server);
    }

    @Test
    void stopsWithClientsConnected() throws Exception {
        Jedis j = client();
        j.set("k", "v");
        server.close();
        server = null;
        assertThat(j.isBroken() || !pingWorks(j)).isTrue();
        j.close();
    }

    private static boolean pingWorks(Jedis j) {
        try {
            return "PONG".equals(j.ping());
        } catch (RuntimeException e) {
            return false;
        }
    }

    private static void waitForBlocked(Jedis j) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 10_000;
        while (!j.info("clients").contains("blocked_clients:1")) {
            assertThat(System.currentTimeMillis()).isLessThan(deadline);
            Thread.sleep(10);
        }
    }

    private static long field(String info, String name) {
        for (String line : info.split("\r\n")) {
            if (line.startsWith(name + ":")) return Long.parseLong(line.substring(name.length() + 1));
        }
        throw new AssertionError("no " + name + " in INFO");
    }
}
