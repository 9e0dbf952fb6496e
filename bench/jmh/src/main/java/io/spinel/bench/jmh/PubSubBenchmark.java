package io.spinel.bench.jmh;

import io.spinel.core.Client;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Message fan-out: PUBLISH to a channel with 10 subscribers (the side-by-side PUBLISH table's
 * shape), and a SET that raises keyspace notifications (notify-keyspace-events KEA) that one
 * pattern subscriber receives, as a cache invalidating on key changes would.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class PubSubBenchmark {
    private static final int SUBSCRIBERS = 10;

    private InProcessServer server;
    private InProcessServer notifying;
    private Client[] subscribers;
    private Client eventSubscriber;
    private byte[] publish;
    private byte[] set;

    @Setup
    public void setUp() {
        server = new InProcessServer();
        subscribers = new Client[SUBSCRIBERS];
        for (int i = 0; i < SUBSCRIBERS; i++) {
            subscribers[i] = server.connectOther();
            server.feed(subscribers[i], InProcessServer.encode("SUBSCRIBE", "news"));
        }
        publish = InProcessServer.encode("PUBLISH", "news", "hello");
        server.expect(publish, ":" + SUBSCRIBERS + "\r\n");
        String delivered = ((InProcessServer.ReplyCapture) subscribers[SUBSCRIBERS - 1].connection()).text();
        if (!delivered.endsWith("*3\r\n$7\r\nmessage\r\n$4\r\nnews\r\n$5\r\nhello\r\n")) {
            throw new IllegalStateException("the subscriber got " + delivered);
        }

        notifying = new InProcessServer();
        String configured = notifying.call("CONFIG", "SET", "notify-keyspace-events", "KEA");
        if (!configured.equals("+OK\r\n")) throw new IllegalStateException("CONFIG SET replied " + configured);
        eventSubscriber = notifying.connectOther();
        notifying.feed(eventSubscriber, InProcessServer.encode("PSUBSCRIBE", "__key*__:*"));
        set = InProcessServer.encode("SET", "key", "value");
        notifying.expect(set, "+OK\r\n");
        String events = ((InProcessServer.ReplyCapture) eventSubscriber.connection()).text();
        if (!events.endsWith("$10\r\n__key*__:*\r\n$18\r\n__keyevent@0__:set\r\n$3\r\nkey\r\n")) {
            throw new IllegalStateException("the event subscriber got " + events);
        }
    }

    @TearDown
    public void tearDown() {
        server.close();
        notifying.close();
    }

    @Benchmark
    public long publishTo10() {
        server.feed(publish);
        return server.connection.bytes;
    }

    @Benchmark
    public long setWithKeyspaceEvents() {
        notifying.feed(set);
        return notifying.connection.bytes;
    }
}
