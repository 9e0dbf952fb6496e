package io.spinel.server;

import io.spinel.core.keyspace.DbObject;
import io.spinel.core.keyspace.ValueType;
import io.spinel.core.type.zset.SetInput;
import io.spinel.server.testing.DiffScript;
import io.spinel.server.testing.RawClient;
import io.spinel.server.testing.ServerPair;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * ZUNION, ZINTER, ZDIFF (and STORE forms, ZINTERCARD) accept plain sets as inputs, each member
 * scoring 1. The sorted set commands see a set only through {@link SetInput}; this test puts a
 * minimal SetInput value into Spinel's keyspace where redis-server gets a real set from SADD, and
 * compares the replies. (When the set type lands its own value class implements SetInput and
 * these commands work on it unchanged.)
 */
class ZSetSetInputsTest {
    @RegisterExtension
    static final ServerPair servers = new ServerPair();

    /** The smallest honest SET value: members in insertion order. */
    static final class TestSet extends DbObject implements SetInput {
        final Set<String> members = new LinkedHashSet<>();

        TestSet(String... ms) {
            members.addAll(Arrays.asList(ms));
        }

        @Override
        public int type() {
            return ValueType.SET;
        }

        @Override
        public String encoding() {
            return "hashtable";
        }

        @Override
        public TestSet copy() {
            return new TestSet(members.toArray(new String[0]));
        }

        @Override
        public long memoryUsage() {
            return 64L * members.size();
        }

        @Override
        public long size() {
            return members.size();
        }

        @Override
        public boolean contains(byte[] buf, int off, int len) {
            return members.contains(new String(buf, off, len, StandardCharsets.ISO_8859_1));
        }

        @Override
        public void forEachMember(MemberVisitor visitor) {
            for (String m : members) {
                byte[] b = m.getBytes(StandardCharsets.ISO_8859_1);
                visitor.member(b, 0, b.length);
            }
        }
    }

    private static void putSet(String key, String... members) throws Exception {
        try (RawClient r = new RawClient(servers.redis().port())) {
            List<String> cmd = new ArrayList<>(List.of("SADD", key));
            cmd.addAll(Arrays.asList(members));
            r.call(cmd.toArray(new String[0]));
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        servers.spinel().engine().execute(() -> {
            byte[] k = key.getBytes(StandardCharsets.ISO_8859_1);
            servers.spinel().engine().keyspace().db(0).put(k, new TestSet(members).asEntry(k, -1, 0));
            done.complete(null);
        });
        done.get(5, TimeUnit.SECONDS);
    }

    @Test
    void setsCountAsMembersWithScoreOne() throws Exception {
        DiffScript d = new DiffScript(servers.redis().port(), servers.spinel().port());
        try {
            d.reset();
            putSet("seta", "a", "b", "c", "d");
            putSet("seti", "1", "2", "3", "10");
            putSet("setx", "x");
            d.run("set-inputs", String.join("\n",
                    "ZADD zsetb 1 b 2 c 3 d 4 e 5 1",
                    "ZUNIONSTORE out 2 seta zsetb",
                    "ZRANGE out 0 -1 WITHSCORES",
                    "ZUNIONSTORE out 2 seta zsetb WEIGHTS 2 3",
                    "ZRANGE out 0 -1 WITHSCORES",
                    "ZINTERSTORE out 2 seta zsetb WEIGHTS 2 3 AGGREGATE MAX",
                    "ZRANGE out 0 -1 WITHSCORES",
                    "ZDIFFSTORE out 2 seta zsetb",
                    "ZRANGE out 0 -1 WITHSCORES",
                    "ZDIFFSTORE out 2 zsetb seta",
                    "ZRANGE out 0 -1 WITHSCORES",
                    "ZDIFF 2 seta zsetb WITHSCORES",
                    "ZUNION 3 seta seti zsetb WITHSCORES",
                    "ZUNION 2 seta seta WITHSCORES",
                    "ZINTER 2 seti zsetb WITHSCORES",
                    "ZINTER 2 seta seta WEIGHTS 0.5 0.25 WITHSCORES",
                    "ZINTER 2 zsetb seta AGGREGATE MIN WITHSCORES",
                    "ZINTERCARD 2 seta zsetb",
                    "ZINTERCARD 2 seta zsetb LIMIT 1",
                    "ZINTERCARD 3 seta zsetb setx",
                    "ZUNIONSTORE out 1 setx",
                    "OBJECT ENCODING out",
                    "ZRANGE out 0 -1 WITHSCORES",
                    "ZDIFF 2 setx seta",
                    "ZINTERSTORE out 2 setx seta",
                    "EXISTS out",
                    "ZRANGESTORE out seta 0 -1",
                    "ZRANGE seta 0 -1",
                    "ZCARD seta",
                    "@nocompare HELLO 3",
                    "ZUNION 2 seta zsetb WITHSCORES",
                    "@nocompare HELLO 2"));
        } finally {
            d.close();
        }
        if (!d.mismatches().isEmpty()) {
            fail(d.mismatches().stream().map(Object::toString).collect(Collectors.joining("\n")));
        }
    }
}
