package io.spinel.server;

import io.spinel.server.testing.RawClient;
import io.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * INFO lazyfreed_objects counts what Redis would free on its lazy-free thread: UNLINK (and DEL
 * with lazyfree-lazy-user-del) of values whose free effort is over 64 (list nodes, big-encoded
 * elements, stream radix nodes and groups), and every key of FLUSHALL/FLUSHDB ASYNC (or with
 * lazyfree-lazy-user-flush). The same commands run on redis-server when it is installed.
 */
class LazyFreeStatsTest {
    private static List<String[]> script() {
        List<String[]> s = new ArrayList<>();
        String[] seventy = new String[72];
        seventy[0] = "RPUSH";
        for (int i = 0; i < 70; i++) seventy[i + 2] = Integer.toString(i);
        s.add(new String[] {"CONFIG", "SET", "list-max-listpack-size", "1"});
        for (String key : new String[] {"biglist", "l2", "l3"}) {
            String[] push = seventy.clone();
            push[1] = key;
            s.add(push);
        }
        s.add(new String[] {"UNLINK", "biglist"});                 // 70 nodes: lazy, +1
        s.add(new String[] {"SADD", "smallset", "1", "2", "3"});
        s.add(new String[] {"UNLINK", "smallset"});                // intset: freed at once
        s.add(new String[] {"DEL", "l2"});                         // DEL is not lazy by default
        s.add(new String[] {"CONFIG", "SET", "lazyfree-lazy-user-del", "yes"});
        s.add(new String[] {"DEL", "l3"});                         // now it is: +1
        s.add(new String[] {"CONFIG", "SET", "lazyfree-lazy-user-del", "no"});
        s.add(new String[] {"CONFIG", "SET", "stream-node-max-entries", "5"});
        for (int i = 0; i < 400; i++) s.add(new String[] {"XADD", "stream", "*", "f", Integer.toString(i)});
        s.add(new String[] {"XGROUP", "CREATE", "stream", "g", "0"});
        s.add(new String[] {"XREADGROUP", "GROUP", "g", "alice", "COUNT", "2", "STREAMS", "stream", ">"});
        s.add(new String[] {"UNLINK", "stream"});                  // 80 nodes and a group: +1
        s.add(new String[] {"XADD", "s2", "*", "a", "b"});
        s.add(new String[] {"XGROUP", "CREATE", "s2", "g", "$"});
        s.add(new String[] {"UNLINK", "s2"});                      // one node: freed at once
        s.add(new String[] {"SET", "a", "1"});
        s.add(new String[] {"SET", "b", "2"});
        s.add(new String[] {"SET", "c", "3"});
        s.add(new String[] {"FLUSHALL", "ASYNC"});                 // +3
        s.add(new String[] {"SET", "a", "1"});
        s.add(new String[] {"FLUSHDB"});                           // sync
        s.add(new String[] {"SET", "a", "1"});
        s.add(new String[] {"CONFIG", "SET", "lazyfree-lazy-user-flush", "yes"});
        s.add(new String[] {"FLUSHDB"});                           // +1
        s.add(new String[] {"CONFIG", "SET", "lazyfree-lazy-user-flush", "no"});
        return s;
    }

    private static long lazyfreed(int port) throws IOException, InterruptedException {
        try (RawClient c = new RawClient(port)) {
            c.callString("CONFIG", "RESETSTAT");
            for (String[] cmd : script()) {
                String reply = c.callString(cmd);
                assertThat(reply).as(String.join(" ", cmd)).doesNotStartWith("-");
            }
            // Redis counts a value when its background thread has freed it
            String info = new String(c.call("INFO", "memory"), StandardCharsets.ISO_8859_1);
            for (int i = 0; i < 100 && !info.contains("lazyfree_pending_objects:0\r\n"); i++) {
                Thread.sleep(50);
                info = new String(c.call("INFO", "memory"), StandardCharsets.ISO_8859_1);
            }
            long n = Long.parseLong(info.split("lazyfreed_objects:")[1].split("\r\n")[0]);
            c.callString("CONFIG", "RESETSTAT");
            String after = new String(c.call("INFO", "memory"), StandardCharsets.ISO_8859_1);
            assertThat(after).contains("lazyfreed_objects:0\r\n");
            return n;
        }
    }

    @Test
    void countsWhatRedisFreesLazily() throws Exception {
        long spinel;
        try (SpinelServer s = SpinelServer.builder().randomPort().start()) {
            spinel = lazyfreed(s.port());
        }
        assertThat(spinel).isEqualTo(7);
        if (RedisServerProcess.available()) {
            try (RedisServerProcess r = RedisServerProcess.start()) {
                assertThat(spinel).isEqualTo(lazyfreed(r.port()));
            }
        }
    }
}
