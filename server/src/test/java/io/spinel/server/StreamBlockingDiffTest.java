package io.spinel.server;

import io.spinel.server.testing.ServerPair;
import io.spinel.server.testing.TwinClient;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Blocking XREAD and XREADGROUP, and stream keyspace notifications, compared with redis-server:
 * clients block on both servers, another client writes, and what the blocked clients receive
 * (data, timeouts, errors for deleted keys and destroyed groups, CLIENT UNBLOCK) must be identical.
 */
class StreamBlockingDiffTest {
    @RegisterExtension
    static final ServerPair servers = new ServerPair();

    private final List<String> diffs = new ArrayList<>();

    private TwinClient twin() throws IOException {
        TwinClient t = new TwinClient(servers.redis().port(), servers.spinel().port(), diffs);
        t.r.setTimeout(3000);
        t.s.setTimeout(3000);
        return t;
    }

    @BeforeEach
    void flush() throws IOException {
        try (TwinClient c = twin()) {
            c.call("FLUSHALL");
        }
    }

    @Test
    void xreadIsServedByAWriteFromAnotherClient() throws Exception {
        try (TwinClient b1 = twin(); TwinClient b2 = twin(); TwinClient w = twin()) {
            w.call("XADD", "s", "1-0", "old", "entry");
            b1.send("XREAD", "BLOCK", "0", "STREAMS", "s", "$");
            b2.send("XREAD", "COUNT", "1", "BLOCK", "5000", "STREAMS", "other", "s", "$", "$");
            w.call("PING");
            w.call("XADD", "s", "2-0", "new", "1");
            b1.read("XREAD $ served");
            b2.read("XREAD two keys served");
            // several writes in one transaction: served once, with all of them
            b1.send("XREAD", "BLOCK", "0", "STREAMS", "s", "2-0");
            w.call("PING");
            w.call("MULTI");
            w.call("XADD", "s", "3-0", "a", "1");
            w.call("XADD", "s", "4-0", "b", "2");
            w.call("EXEC");
            b1.read("XREAD after EXEC");
            // two streams written in one transaction: the answer holds the first one written only
            b1.send("XREAD", "BLOCK", "0", "STREAMS", "t1", "t2", "s", "$", "$", "$");
            w.call("PING");
            w.call("MULTI");
            w.call("XADD", "t2", "1-0", "a", "1");
            w.call("XADD", "t1", "1-0", "b", "2");
            w.call("XADD", "s", "99-0", "c", "3");
            w.call("EXEC");
            b1.read("XREAD of three streams after EXEC");
            b1.call("XREAD", "STREAMS", "t1", "t2", "s", "0", "0", "98");
            // a write that adds nothing newer leaves it blocked; the next one serves it
            b1.send("XREAD", "BLOCK", "0", "STREAMS", "s", "100-0");
            w.call("PING");
            w.call("XADD", "s", "100-0", "c", "3");
            w.call("XADD", "s", "101-0", "d", "4");
            b1.read("XREAD after an entry above its ID");
            // RESP3: a map of streams
            // (the client ids in HELLO's reply differ between the servers)
            b1.r.call("HELLO", "3");
            b1.s.call("HELLO", "3");
            b1.send("XREAD", "BLOCK", "0", "STREAMS", "s", "$");
            w.call("PING");
            w.call("XADD", "s", "102-0", "e", "5");
            b1.read("XREAD RESP3");
            b1.r.call("HELLO", "2");
            b1.s.call("HELLO", "2");
        }
        assertThat(diffs).isEmpty();
    }

    @Test
    void timeoutsUnblockAndMulti() throws Exception {
        try (TwinClient b = twin(); TwinClient w = twin()) {
            b.send("XREAD", "BLOCK", "50", "STREAMS", "s", "$");
            Thread.sleep(200);
            b.read("XREAD timeout");
            b.send("XREADGROUP", "GROUP", "g", "c", "BLOCK", "50", "STREAMS", "s", ">");
            b.read("XREADGROUP without group");
            w.call("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM");
            b.send("XREADGROUP", "GROUP", "g", "c", "BLOCK", "50", "STREAMS", "s", ">");
            Thread.sleep(200);
            b.read("XREADGROUP timeout");
            String[] ids = b.ids();
            b.send("XREAD", "BLOCK", "0", "STREAMS", "s", "$");
            w.call("PING");
            compare(w, "CLIENT UNBLOCK", w.r.call("CLIENT", "UNBLOCK", ids[0]), w.s.call("CLIENT", "UNBLOCK", ids[1]));
            b.read("unblocked with a timeout reply");
            b.send("XREAD", "BLOCK", "0", "STREAMS", "s", "$");
            w.call("PING");
            compare(w, "CLIENT UNBLOCK ERROR", w.r.call("CLIENT", "UNBLOCK", ids[0], "ERROR"),
                    w.s.call("CLIENT", "UNBLOCK", ids[1], "ERROR"));
            b.read("unblocked with an error");
            b.call("MULTI");
            b.call("XREAD", "BLOCK", "0", "STREAMS", "s", "$");
            b.call("XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "s", ">");
            b.call("EXEC");
            b.call("EVAL", "return redis.pcall('XREAD', 'BLOCK', '0', 'STREAMS', KEYS[1], '$')", "1", "s");
        }
        assertThat(diffs).isEmpty();
    }

    @Test
    void xreadgroupServesConsumersInOrderAndLearnsOfDeletions() throws Exception {
        try (TwinClient c1 = twin(); TwinClient c2 = twin(); TwinClient w = twin()) {
            w.call("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM");
            c1.send("XREADGROUP", "GROUP", "g", "alice", "BLOCK", "0", "STREAMS", "s", ">");
            c2.send("XREADGROUP", "GROUP", "g", "bob", "BLOCK", "0", "STREAMS", "s", ">");
            w.call("PING");
            w.call("XADD", "s", "1-0", "f", "1");
            c1.read("first consumer served");
            w.call("XADD", "s", "2-0", "f", "2");
            c2.read("second consumer served next");
            w.call("XPENDING", "s", "g");
            // NOACK while blocked
            c1.send("XREADGROUP", "GROUP", "g", "carol", "NOACK", "BLOCK", "0", "STREAMS", "s", ">");
            w.call("PING");
            w.call("XADD", "s", "3-0", "f", "3");
            c1.read("NOACK consumer served");
            w.call("XPENDING", "s", "g");
            w.call("XINFO", "GROUPS", "s");
            // the group goes away
            c1.send("XREADGROUP", "GROUP", "g", "alice", "BLOCK", "0", "STREAMS", "s", ">");
            w.call("PING");
            w.call("XGROUP", "DESTROY", "s", "g");
            c1.read("group destroyed");
            // the key goes away (DEL, SET over it, FLUSHDB)
            w.call("XGROUP", "CREATE", "s", "g", "$");
            c1.send("XREADGROUP", "GROUP", "g", "alice", "BLOCK", "0", "STREAMS", "s", ">");
            c2.send("XREAD", "BLOCK", "300", "STREAMS", "s", "$");
            w.call("PING");
            w.call("DEL", "s");
            c1.read("key deleted");
            Thread.sleep(400);
            c2.read("plain XREAD keeps waiting until its timeout");
            w.call("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM");
            c1.send("XREADGROUP", "GROUP", "g", "alice", "BLOCK", "0", "STREAMS", "s", ">");
            w.call("PING");
            w.call("SET", "s", "now a string");
            c1.read("key type changed");
            w.call("DEL", "s");
            w.call("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM");
            c1.send("XREADGROUP", "GROUP", "g", "alice", "BLOCK", "0", "STREAMS", "s", ">");
            w.call("PING");
            w.call("FLUSHDB");
            c1.read("database flushed");
        }
        assertThat(diffs).isEmpty();
    }

    @Test
    void streamCommandsNotifyAsRedisDoes() throws Exception {
        try (TwinClient sub = twin(); TwinClient w = twin()) {
            w.call("CONFIG", "SET", "notify-keyspace-events", "KEA");
            try {
                sub.call("PSUBSCRIBE", "__keyevent@0__:*");
                String[][] steps = {
                    {"XADD", "n", "1-0", "a", "1"},
                    {"XADD", "n", "MAXLEN", "1", "2-0", "a", "2"},
                    {"XADD", "n", "MAXLEN", "5", "3-0", "a", "3"},
                    {"XDEL", "n", "2-0", "9-0"},
                    {"XDEL", "n", "9-0"},
                    {"XSETID", "n", "5-0"},
                    {"XGROUP", "CREATE", "n", "g", "$"},
                    {"XGROUP", "CREATECONSUMER", "n", "g", "c"},
                    {"XGROUP", "CREATECONSUMER", "n", "g", "c"},
                    {"XGROUP", "SETID", "n", "g", "0"},
                    {"XGROUP", "DELCONSUMER", "n", "g", "c"},
                    {"XGROUP", "DESTROY", "n", "g"},
                    {"XADD", "n", "6-0", "a", "b"},
                    {"XGROUP", "CREATE", "n", "g2", "0"},
                    {"XREADGROUP", "GROUP", "g2", "newc", "STREAMS", "n", ">"},
                    {"XCLAIM", "n", "g2", "other", "0", "6-0"},
                    {"XAUTOCLAIM", "n", "g2", "third", "0", "0"},
                    {"XTRIM", "n", "MAXLEN", "0"},
                    {"XTRIM", "n", "MAXLEN", "0"},
                    {"DEL", "n"},
                    {"XGROUP", "CREATE", "n2", "g", "$", "MKSTREAM"},
                };
                for (String[] s : steps) w.call(s);
                w.call("PUBLISH", "__keyevent@0__:end", "end");
                for (int i = 0; i < 19; i++) sub.read("event " + i);
                sub.read("end marker");
            } finally {
                w.call("CONFIG", "SET", "notify-keyspace-events", "");
            }
        }
        assertThat(diffs).isEmpty();
    }

    private void compare(TwinClient w, String what, byte[] a, byte[] b) {
        String sa = new String(a, java.nio.charset.StandardCharsets.ISO_8859_1);
        String sb = new String(b, java.nio.charset.StandardCharsets.ISO_8859_1);
        if (!sa.equals(sb)) diffs.add(what + "\n  redis:  " + sa + "\n  spinel: " + sb);
    }
}
