package io.spinel.server.persist;

import io.spinel.server.SpinelServer;
import io.spinel.server.testing.DataSet;
import io.spinel.server.testing.RawClient;
import io.spinel.core.protocol.SplitArgs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

import static io.spinel.server.persist.PersistTesting.await;
import static io.spinel.server.persist.PersistTesting.info;
import static io.spinel.server.persist.PersistTesting.spinel;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * BGSAVE without fork is a point-in-time snapshot: while it runs (slowed down with
 * rdb-key-save-delay) clients change every type of value in every way it can be changed in
 * place, delete, rename, move, swap and flush databases; the file must still hold exactly the
 * data as it was when BGSAVE started.
 */
class PointInTimeTest {
    /** In-place changes of every family, on the keys of {@link DataSet#populate}. */
    private static final String[] MUTATIONS = {
        // strings: same-length overwrite (in place), counters, edits, bits, HyperLogLogs, expires
        "SET s:embstr HELLO-WORLD", "INCR s:int", "INCRBY s:max -5", "INCRBYFLOAT s:float 1", "APPEND s:raw zz",
        "SETRANGE s:appended 0 Q", "SETBIT bits 5 1", "BITFIELD bits SET u8 0 255", "PFADD hll:sparse x y z",
        "PFADD hll:dense new-element", "PFCOUNT hll:dense", "PFMERGE hll:sparse hll:dense", "EXPIRE s:int 1000",
        "PERSIST s:ttl", "GETEX s:embstr PX 123456", "SET s:pxat replaced KEEPTTL", "GETDEL s:neg",
        // lists
        "LPUSH l:small front", "RPUSH l:big back", "LPOP l:ints", "RPOP l:big 3", "LSET l:big 5 set",
        "LINSERT l:big AFTER set inserted", "LREM l:big 0 3", "LTRIM l:large-element 0 0",
        "LMOVE l:small l:ints LEFT RIGHT", "BLPOP l:ttl 0",
        // hashes
        "HSET h:small f1 changed", "HSET h:small new v", "HDEL h:big field:0 field:3", "HINCRBY h:big field:2 1",
        "HINCRBYFLOAT h:small f2 0.5", "HSETNX h:longvalue g g", "HSET h:longvalue f short",
        // sets
        "SADD set:int16 99", "SREM set:int64 1", "SPOP set:str", "SMOVE set:int32 set:int16 1",
        "SADD set:manyints hello", "SINTERSTORE set:int32 set:int16 set:int16",
        // sorted sets
        "ZADD z:small 100 a", "ZINCRBY z:big 5 member-1", "ZREM z:big member-2", "ZPOPMIN z:small",
        "ZREMRANGEBYSCORE z:big 0 10", "ZUNIONSTORE z:longmember 1 z:small", "ZADD z:ttl XX 9 x",
        // keys: delete, rename, move, copy, restore over, expire in the past
        "DEL s:huge", "UNLINK s:random", "RENAME h:ttl h:renamed", "MOVE s:zero-prefixed 2",
        "COPY z:small l:renamed-target", "COPY h:small h:big REPLACE", "PEXPIRE z:ttl 0",
        "SET brand-new key", "SELECT 1", "SET k:1 overwritten", "DEL k:2", "APPEND k:3 x", "SWAPDB 1 2",
        "SELECT 5", "FLUSHDB", "SET fresh 1", "SELECT 0",
    };

    @Test
    void bgsaveHoldsTheDataAsItWasWhenItStarted(@TempDir Path tmp) throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("a"));
        TreeMap<String, String> before;
        try (SpinelServer s = spinel(dir, "rdb-key-save-delay", "3000"); RawClient c = new RawClient(s.port())) {
            DataSet.populate(c, 11, 150);
            before = DataSet.read(c, 16, true);
            assertThat(c.callString("BGSAVE")).isEqualTo("+Background saving started\r\n");
            for (String m : MUTATIONS) {
                List<byte[]> args = new ArrayList<>();
                for (String a : SplitArgs.split(m)) args.add(a.getBytes(StandardCharsets.ISO_8859_1));
                byte[] reply = c.call(args);
                assertThat(reply[0]).as("%s -> %s", m, new String(reply, StandardCharsets.ISO_8859_1)).isNotEqualTo((byte) '-');
            }
            // the changes above happened while the snapshot was being written
            assertThat(info(c, "rdb_bgsave_in_progress")).isEqualTo("1");
            long done = Long.parseLong(info(c, "current_save_keys_processed"));
            assertThat(done).isLessThan(before.size());
            assertThat(c.callString("BGSAVE")).isEqualTo("-ERR Background save already in progress\r\n");
            await(c, "rdb_bgsave_in_progress", "0");
            assertThat(info(c, "rdb_last_bgsave_status")).isEqualTo("ok");
            // the counter keeps what changed after the snapshot started
            assertThat(Long.parseLong(info(c, "rdb_changes_since_last_save"))).isPositive();
        }
        if (PersistTesting.toolAvailable("redis-check-rdb")) {
            assertThat(PersistTesting.run("/usr/bin/redis-check-rdb", dir.resolve("dump.rdb").toString()).exit()).isZero();
        }
        Path copy = Files.createDirectories(tmp.resolve("b"));
        Files.copy(dir.resolve("dump.rdb"), copy.resolve("dump.rdb"));
        try (SpinelServer s = spinel(copy); RawClient c = new RawClient(s.port())) {
            DataSet.assertSame(before, DataSet.read(c, 16, true));
        }
    }
}
