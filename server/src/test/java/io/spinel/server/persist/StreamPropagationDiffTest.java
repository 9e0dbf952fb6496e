package io.spinel.server.persist;

import io.spinel.core.protocol.SplitArgs;
import io.spinel.server.SpinelServer;
import io.spinel.server.testing.RawClient;
import io.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static io.spinel.server.persist.PersistTesting.spinel;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Stream commands reach the AOF as Redis 7.0 propagates them: XADD with its generated ID, approximate
 * trims as exact ones, XREADGROUP/XCLAIM/XAUTOCLAIM as XCLAIM ... FORCE JUSTID LASTID, NOACK reads as
 * XGROUP SETID/CREATECONSUMER. Generated IDs are shown as ID, delivery times as T.
 */
class StreamPropagationDiffTest {
    private static final String SCRIPT = String.join("\n",
            "XADD s 1-1 a 1",
            "XADD s * b 2",
            "XADD s 9999999999999-* c 3",
            "XADD s 9999999999999-* c 4",
            "XADD s MAXLEN ~ 1 9999999999999-5 d 4",
            "XADD s MINID ~ 0 9999999999999-6 d 5",
            "XADD s MAXLEN 100 LIMIT 0 9999999999999-7 d 6",
            "XTRIM s MINID ~ 1",
            "XTRIM s MAXLEN 6",
            "XTRIM s MAXLEN 100",
            "XDEL s 9999999999999-0 1-1",
            "XDEL s 1-1",
            "XGROUP CREATE s g 0",
            "XGROUP CREATE s g2 $ MKSTREAM",
            "XGROUP CREATE m g $ MKSTREAM ENTRIESREAD 3",
            "XREADGROUP GROUP g alice COUNT 2 STREAMS s >",
            "XREADGROUP GROUP g alice STREAMS s 0",
            "XREADGROUP GROUP g bob NOACK STREAMS s 0",
            "XREADGROUP GROUP g bob NOACK STREAMS s >",
            "XREADGROUP GROUP g bob STREAMS s >",
            "XADD s 9999999999999-9 e 5",
            "XREADGROUP GROUP g carol STREAMS s >",
            "XACK s g 9999999999999-9 1-1",
            "XCLAIM s g dave 0 9999999999999-2 9999999999999-3 JUSTID",
            "XCLAIM s g dave 0 9999999999999-4 TIME 1700000000000 RETRYCOUNT 5",
            "XCLAIM s g dave 0 9999999999999-6 FORCE IDLE 10",
            "XCLAIM s g dave 0 9999999999999-9 FORCE JUSTID LASTID 9999999999999-20",
            "XCLAIM s g dave 999999999 9999999999999-2",
            "XDEL s 9999999999999-2",
            "XAUTOCLAIM s g erin 0 0 COUNT 2",
            "XAUTOCLAIM s g erin 0 0 JUSTID",
            "XGROUP SETID s g 0 ENTRIESREAD 0",
            "XGROUP SETID s g $",
            "XGROUP CREATECONSUMER s g frank",
            "XGROUP CREATECONSUMER s g frank",
            "XGROUP DELCONSUMER s g frank",
            "XGROUP DELCONSUMER s g nobody",
            "XGROUP DESTROY s g2",
            "XGROUP DESTROY s g2",
            "XSETID s 99999999999999-0 ENTRIESADDED 50 MAXDELETEDID 9999999999999-2",
            "XADD s 0-1 x y",
            "MULTI",
            "XADD s * m 1",
            "XREADGROUP GROUP g zed STREAMS s >",
            "EXEC",
            "XADD s NOMKSTREAM 1-0 x y",
            "XADD nomk NOMKSTREAM * x y",
            "XTRIM s MAXLEN ~ 0",
            "DEL s m");

    @Test
    void aofHoldsWhatRedisPropagates(@TempDir Path tmp) throws Exception {
        Assumptions.assumeTrue(RedisServerProcess.available(), "redis-server not installed");
        Path rdir = Files.createDirectories(tmp.resolve("redis"));
        Path sdir = Files.createDirectories(tmp.resolve("spinel"));
        RedisServerProcess r = RedisServerProcess.start(rdir, "--appendonly", "yes", "--appendfsync", "always");
        try (RawClient c = new RawClient(r.port())) {
            run(c);
        } finally {
            r.close();
        }
        List<String> fromRedis = normalize(PropagationDiffTest.commands(rdir.resolve("appendonlydir/appendonly.aof.1.incr.aof")));
        try (SpinelServer s = spinel(sdir, "appendonly", "yes", "appendfsync", "always");
             RawClient c = new RawClient(s.port())) {
            run(c);
        }
        List<String> fromSpinel = normalize(PropagationDiffTest.commands(sdir.resolve("appendonlydir/appendonly.aof.1.incr.aof")));
        assertThat(fromSpinel).isEqualTo(fromRedis);
        assertThat(fromRedis).anyMatch(l -> l.startsWith("XCLAIM s g alice 0 "));
    }

    private static List<String> normalize(List<String> lines) {
        List<String> out = new ArrayList<>();
        for (String l : lines) out.add(l.replaceAll("\\b1\\d{12}-\\d+\\b", "ID"));
        return out;
    }

    private static void run(RawClient c) throws IOException {
        for (String line : SCRIPT.split("\n")) {
            List<byte[]> args = new ArrayList<>();
            for (String a : SplitArgs.split(line)) args.add(a.getBytes(StandardCharsets.ISO_8859_1));
            c.call(args);
        }
    }
}
