package io.spinel.core.type.set;

import io.spinel.core.embedded.EmbeddedSpinel;
import io.spinel.core.embedded.SpinelClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * SINTER, SUNION, SDIFF and their STORE and CARD forms on sets whose sizes straddle the packed
 * form's limits (12 members, where lookups go through a {@link PackedIndex}; 128, where a set
 * becomes a table), checked against Java's own sets. The differential tests cover the replies'
 * shape against redis-server with small sets; this one covers the sizes where the algorithms
 * change.
 */
class SetAlgebraTest {
    private static final int[] SIZES = {0, 1, 5, 11, 12, 13, 40, 100, 127, 128, 129, 200};
    private EmbeddedSpinel spinel;
    private SpinelClient redis;
    private final Random rnd = new Random(7);

    @BeforeEach
    void start() {
        spinel = EmbeddedSpinel.start();
        redis = spinel.client();
    }

    @AfterEach
    void stop() {
        spinel.close();
    }

    /** Members from a universe of 300 strings and 300 integers; intsOnly keeps a set an intset. */
    private Set<String> fill(String key, int size, boolean intsOnly) {
        Set<String> members = new HashSet<>();
        while (members.size() < size) {
            int i = rnd.nextInt(300);
            members.add(intsOnly || rnd.nextInt(4) == 0 ? Integer.toString(i) : "member:" + i);
        }
        redis.execute("DEL", key);
        for (String m : members) redis.execute("SADD", key, m);
        return members;
    }

    private static Set<String> strings(Object reply) {
        Set<String> out = new HashSet<>();
        for (Object o : (List<?>) reply) out.add(o instanceof byte[] b ? new String(b) : String.valueOf(o));
        return out;
    }

    private static String expectedEncoding(Set<String> members) {
        for (String m : members) {
            if (!m.matches("-?(0|[1-9][0-9]*)")) return "hashtable";
        }
        return members.size() <= 512 ? "intset" : "hashtable";
    }

    private void checkStored(String key, Set<String> expected, Object count) {
        assertThat(count).isEqualTo((long) expected.size());
        assertThat(strings(redis.execute("SMEMBERS", key))).isEqualTo(expected);
        if (!expected.isEmpty()) {
            assertThat(redis.execute("OBJECT", "ENCODING", key)).isEqualTo(expectedEncoding(expected));
        }
        assertThat(redis.execute("SCARD", key)).isEqualTo((long) expected.size());
    }

    @Test
    void operationsMatchJavaSetsAcrossTheEncodings() {
        for (int trial = 0; trial < 150; trial++) {
            boolean ints = trial % 5 == 0;
            Set<String> a = fill("a", SIZES[rnd.nextInt(SIZES.length)], ints);
            Set<String> b = fill("b", SIZES[rnd.nextInt(SIZES.length)], ints && rnd.nextBoolean());
            Set<String> c = fill("c", SIZES[rnd.nextInt(SIZES.length)], false);
            String sizes = a.size() + "/" + b.size() + "/" + c.size();

            Set<String> inter = new HashSet<>(a);
            inter.retainAll(b);
            inter.retainAll(c);
            Set<String> union = new HashSet<>(a);
            union.addAll(b);
            union.addAll(c);
            Set<String> diff = new HashSet<>(a);
            diff.removeAll(b);
            diff.removeAll(c);
            Set<String> interAb = new HashSet<>(a);
            interAb.retainAll(b);

            assertThat(strings(redis.execute("SINTER", "a", "b", "c"))).as("SINTER " + sizes).isEqualTo(inter);
            assertThat(strings(redis.execute("SINTER", "a", "b"))).as("SINTER a b " + sizes).isEqualTo(interAb);
            assertThat(strings(redis.execute("SUNION", "a", "b", "c"))).as("SUNION " + sizes).isEqualTo(union);
            assertThat(strings(redis.execute("SDIFF", "a", "b", "c"))).as("SDIFF " + sizes).isEqualTo(diff);
            assertThat(redis.execute("SINTERCARD", "2", "a", "b")).isEqualTo((long) interAb.size());
            long limit = 1 + rnd.nextInt(20);
            assertThat(redis.execute("SINTERCARD", "2", "a", "b", "LIMIT", Long.toString(limit)))
                    .isEqualTo(Math.min(limit, interAb.size()));

            checkStored("i", inter, redis.execute("SINTERSTORE", "i", "a", "b", "c"));
            checkStored("u", union, redis.execute("SUNIONSTORE", "u", "a", "b", "c"));
            checkStored("d", diff, redis.execute("SDIFFSTORE", "d", "a", "b", "c"));
            // the stored results take further members as any set does
            redis.execute("SADD", "u", "extra", "member:1");
            Set<String> more = new HashSet<>(union);
            more.add("extra");
            more.add("member:1");
            assertThat(strings(redis.execute("SMEMBERS", "u"))).isEqualTo(more);
            assertThat(redis.execute("SISMEMBER", "u", "extra")).isEqualTo(1L);
        }
    }

    @Test
    void manyMembersAtOnceMatchJavaSets() {
        // SADD, SREM and SMISMEMBER with many members (an index while the set is packed), repeated
        // names included, on sets that cross the packed limits and intsets that convert
        for (int trial = 0; trial < 300; trial++) {
            boolean ints = trial % 4 == 0;
            Set<String> expected = fill("s", SIZES[rnd.nextInt(SIZES.length)], ints);
            List<String> args = new ArrayList<>();
            int n = 1 + rnd.nextInt(60);
            for (int i = 0; i < n; i++) {
                int x = rnd.nextInt(300);
                args.add(ints && rnd.nextInt(3) > 0 ? Integer.toString(x) : "member:" + x);
            }
            if (!args.isEmpty() && rnd.nextBoolean()) args.add(args.get(0)); // named twice
            List<Object> cmd = new ArrayList<>(List.of("SMISMEMBER", "s"));
            cmd.addAll(args);
            List<?> flags = (List<?>) redis.execute(cmd.stream().map(String::valueOf).toArray(String[]::new));
            for (int i = 0; i < args.size(); i++) {
                assertThat(flags.get(i)).as("SMISMEMBER " + args.get(i)).isEqualTo(expected.contains(args.get(i)) ? 1L : 0L);
            }
            boolean remove = rnd.nextBoolean();
            // a set that held a string stays a hashtable when only integers are left, as in Redis
            boolean wasTable = expectedEncoding(expected).equals("hashtable");
            Set<String> distinct = new HashSet<>(args);
            long changed = 0;
            for (String m : distinct) {
                if (remove ? expected.remove(m) : expected.add(m)) changed++;
            }
            cmd.set(0, remove ? "SREM" : "SADD");
            Object reply = redis.execute(cmd.stream().map(String::valueOf).toArray(String[]::new));
            assertThat(reply).as(cmd.get(0) + " of " + args.size()).isEqualTo(changed);
            if (expected.isEmpty()) {
                assertThat(redis.execute("EXISTS", "s")).isEqualTo(0L);
            } else {
                assertThat(strings(redis.execute("SMEMBERS", "s"))).isEqualTo(expected);
                assertThat(redis.execute("SCARD", "s")).isEqualTo((long) expected.size());
                assertThat(redis.execute("OBJECT", "ENCODING", "s"))
                        .isEqualTo(wasTable ? "hashtable" : expectedEncoding(expected));
            }
        }
    }

    @Test
    void aUnionOfOverlappingPackedSetsHoldsEachMemberOnce() {
        redis.execute("DEL", "a", "b");
        for (int i = 0; i < 50; i++) redis.execute("SADD", "a", "member:" + i);
        for (int i = 25; i < 75; i++) redis.execute("SADD", "b", "member:" + i);
        Set<String> expected = new HashSet<>();
        for (int i = 0; i < 75; i++) expected.add("member:" + i);
        assertThat((List<?>) redis.execute("SUNION", "a", "b", "a")).hasSize(75);
        checkStored("u", expected, redis.execute("SUNIONSTORE", "u", "b", "a", "b"));
    }

    @Test
    void aDifferenceThatRemovesFromItsResultStaysRight() {
        // SDIFF's second algorithm (the first set small against the others' total): copy, then remove
        List<String> big = new ArrayList<>();
        for (int i = 0; i < 100; i++) big.add("member:" + i);
        redis.execute("DEL", "a", "b");
        for (int i = 0; i < 60; i++) redis.execute("SADD", "a", "member:" + (i * 2));
        for (String m : big) redis.execute("SADD", "b", m);
        Set<String> expected = new HashSet<>();
        for (int i = 0; i < 60; i++) if (i * 2 >= 100) expected.add("member:" + (i * 2));
        assertThat(strings(redis.execute("SDIFF", "a", "b", "b", "b"))).isEqualTo(expected);
        checkStored("d", expected, redis.execute("SDIFFSTORE", "d", "a", "b", "b", "b"));
    }
}
