package io.spinel.server;

import io.spinel.server.testing.ServerPair;
import io.spinel.server.testing.TwinClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Pub/sub and keyspace notifications compared with redis-server: the same subscriber and
 * publisher steps run against both, and every byte a subscriber receives must be identical,
 * message order and framing included, in RESP2 and RESP3.
 */
class PubSubDiffTest {
    @RegisterExtension
    static final ServerPair servers = new ServerPair();

    private static TwinClient twin(List<String> diffs) throws IOException {
        return new TwinClient(servers.redis().port(), servers.spinel().port(), diffs);
    }

    @Test
    void channelsPatternsAndIntrospection() throws Exception {
        List<String> diffs = new ArrayList<>();
        try (TwinClient sub = twin(diffs); TwinClient pub = twin(diffs)) {
            sub.send("SUBSCRIBE", "news", "sport");
            sub.read("subscribe confirmation 1");
            sub.read("subscribe confirmation 2");
            sub.send("PSUBSCRIBE", "n*", "s?ort");
            sub.read("psubscribe confirmation 1");
            sub.read("psubscribe confirmation 2");
            pub.call("PUBLISH", "news", "hello");
            sub.read("message news");
            sub.read("pmessage n*");
            pub.call("PUBLISH", "sport", "goal");
            sub.read("message sport");
            sub.read("pmessage s?ort");
            pub.call("PUBLISH", "nobody", "x");
            sub.read("pmessage n* for nobody");
            pub.call("PUBLISH", "empty", "x");
            pub.call("PUBSUB", "NUMSUB", "news", "sport", "none");
            pub.call("PUBSUB", "NUMPAT");
            pub.call("PUBSUB", "CHANNELS", "news");
            pub.call("PUBSUB", "CHANNELS", "zz*");
            sub.call("GET", "k");
            sub.call("PING");
            sub.call("PING", "hi");
            sub.send("UNSUBSCRIBE", "news");
            sub.read("unsubscribe news");
            sub.send("PUNSUBSCRIBE", "n*", "s?ort");
            sub.read("punsubscribe 1");
            sub.read("punsubscribe 2");
            sub.send("UNSUBSCRIBE");
            sub.read("unsubscribe all");
            sub.send("UNSUBSCRIBE");
            sub.read("unsubscribe with nothing subscribed");
            sub.call("PING");
            sub.call("SSUBSCRIBE", "shard1");
            pub.call("SPUBLISH", "shard1", "sm");
            sub.read("smessage");
            pub.call("PUBSUB", "SHARDNUMSUB", "shard1");
            pub.call("PUBSUB", "SHARDCHANNELS");
            sub.call("SUNSUBSCRIBE", "shard1");
            pub.call("PUBSUB", "NOSUCH");
        }
        assertThat(diffs).isEmpty();
    }

    @Test
    void resp3PushesAndCommandsWhileSubscribed() throws Exception {
        List<String> diffs = new ArrayList<>();
        try (TwinClient sub = twin(diffs); TwinClient pub = twin(diffs)) {
            sub.r.call(TwinClient.bytes("HELLO", "3"));
            sub.s.call(TwinClient.bytes("HELLO", "3"));
            sub.call("SUBSCRIBE", "c");
            sub.call("SET", "k", "v");
            sub.call("GET", "k");
            pub.call("PUBLISH", "c", "m1");
            sub.read("push message");
            sub.call("PING");
            sub.call("UNSUBSCRIBE", "c");
        }
        assertThat(diffs).isEmpty();
    }

    @Test
    void keyspaceNotifications() throws Exception {
        List<String> diffs = new ArrayList<>();
        try (TwinClient sub = twin(diffs); TwinClient cmd = twin(diffs)) {
            cmd.call("CONFIG", "SET", "notify-keyspace-events", "KEA");
            cmd.call("CONFIG", "GET", "notify-keyspace-events");
            cmd.call("CONFIG", "SET", "notify-keyspace-events", "Q");
            sub.call("PSUBSCRIBE", "__key*__:*");
            cmd.call("SET", "k", "v");
            sub.read("keyspace set");
            sub.read("keyevent set");
            cmd.call("EXPIRE", "k", "100");
            sub.read("keyspace expire");
            sub.read("keyevent expire");
            cmd.call("DEL", "k");
            sub.read("keyspace del");
            sub.read("keyevent del");
            cmd.call("RPUSH", "l", "a", "b");
            sub.read("keyspace rpush");
            sub.read("keyevent rpush");
            cmd.call("LPOP", "l", "2");
            sub.read("keyspace lpop");
            sub.read("keyevent lpop");
            sub.read("keyspace del after lpop");
            sub.read("keyevent del after lpop");
            cmd.call("SET", "t", "v", "PX", "1");
            sub.read("set");
            sub.read("set");
            sub.read("expire");
            sub.read("expire");
            Thread.sleep(20);
            cmd.call("GET", "t");
            sub.read("keyspace expired");
            sub.read("keyevent expired");
            cmd.call("CONFIG", "SET", "notify-keyspace-events", "Egx");
            cmd.call("SET", "a", "1");
            cmd.call("RENAME", "a", "b");
            sub.read("keyevent rename_from");
            sub.read("keyevent rename_to");
            cmd.call("CONFIG", "SET", "notify-keyspace-events", "Km");
            cmd.call("GET", "missing");
            sub.read("keyspace keymiss");
            cmd.call("CONFIG", "SET", "notify-keyspace-events", "");
            cmd.call("SET", "quiet", "1");
            cmd.call("PING");
        }
        assertThat(diffs).isEmpty();
    }

    /**
     * Event channels are spelled for every event: in a database past 9, for a key far longer than
     * the usual channel and then for a short one (each must be exactly its own length), received
     * once through a pattern and once through a channel subscription.
     */
    @Test
    void keyspaceEventsOfLongAndShortKeysInAnotherDb() throws Exception {
        List<String> diffs = new ArrayList<>();
        try (TwinClient sub = twin(diffs); TwinClient cmd = twin(diffs)) {
            cmd.call("CONFIG", "SET", "notify-keyspace-events", "KEA");
            sub.send("SUBSCRIBE", "__keyevent@12__:set");
            sub.read("subscribe confirmation");
            sub.send("PSUBSCRIBE", "__keyspace@12__:*");
            sub.read("psubscribe confirmation");
            cmd.call("SELECT", "12");
            cmd.call("SET", "k".repeat(5000), "v");
            sub.read("keyspace set of the long key");
            sub.read("keyevent set of the long key");
            cmd.call("SET", "s", "v");
            sub.read("keyspace set of a short key");
            sub.read("keyevent set of a short key");
            cmd.call("DEL", "s");
            sub.read("keyspace del (no keyevent subscription)");
            cmd.call("PUBLISH", "__keyspace@12__:x", "by hand");
            sub.read("pmessage published by hand");
            cmd.call("CONFIG", "SET", "notify-keyspace-events", "");
            cmd.call("SELECT", "0");
        }
        assertThat(diffs).isEmpty();
    }

    /**
     * QUIT's +OK is the last thing its client gets: a monitor that quits is not shown its own
     * QUIT (other monitors are), as Redis adds nothing to a client that closes after its reply
     * (hiredis's async monitor test counts the replies).
     */
    @Test
    void aMonitorsOwnQuitIsNotShownToIt() throws Exception {
        List<String> diffs = new ArrayList<>();
        try (TwinClient quitting = twin(diffs); TwinClient other = twin(diffs)) {
            quitting.call("MONITOR");
            other.call("MONITOR");
            quitting.call("QUIT");
            assertThat(quitting.r.isClosedByPeer()).as("redis-server: nothing after +OK").isTrue();
            assertThat(quitting.s.isClosedByPeer()).as("spinel: nothing after +OK").isTrue();
            String seen = new String(other.s.readReply(), java.nio.charset.StandardCharsets.ISO_8859_1);
            assertThat(seen).as("the other monitor sees the QUIT").endsWith("\"QUIT\"\r\n");
        }
        assertThat(diffs).isEmpty();
    }
}
