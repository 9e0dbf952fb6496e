package io.spinel.core.type.set;

import io.spinel.core.protocol.Reply;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class SetValueTest {
    private static final int MAX = 512;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static boolean add(SetValue s, String m) {
        return add(s, m, MAX);
    }

    private static boolean add(SetValue s, String m, int max) {
        byte[] x = b(m);
        return s.add(x, 0, x.length, max);
    }

    private static boolean contains(SetValue s, String m) {
        byte[] x = b(m);
        return s.contains(x, 0, x.length);
    }

    private static boolean remove(SetValue s, String m) {
        byte[] x = b(m);
        return s.remove(x, 0, x.length);
    }

    private static List<String> members(SetValue s) {
        List<String> out = new ArrayList<>();
        s.forEachMember(m -> out.add(new String(m, StandardCharsets.ISO_8859_1)));
        return out;
    }

    @Test
    void firstMemberChoosesTheEncoding() {
        assertThat(SetValue.forFirstMember(b("12"), 0, 2).encoding()).isEqualTo("intset");
        assertThat(SetValue.forFirstMember(b("-9223372036854775808"), 0, 20).encoding()).isEqualTo("intset");
        for (String notCanonical : new String[] {"012", "+1", "-0", " 1", "1.0", "9223372036854775808", "", "a"}) {
            byte[] x = b(notCanonical);
            assertThat(SetValue.forFirstMember(x, 0, x.length).encoding()).as(notCanonical).isEqualTo("hashtable");
        }
    }

    @Test
    void intsetIteratesInNumericOrder() {
        SetValue s = SetValue.newIntset();
        for (String m : new String[] {"10", "-3", "2", "100000", "2"}) add(s, m);
        assertThat(members(s)).containsExactly("-3", "2", "10", "100000");
        assertThat(s.length()).isEqualTo(4);
        assertThat(contains(s, "010")).isFalse();
        assertThat(contains(s, "10")).isTrue();
        assertThat(remove(s, "x")).isFalse();
        assertThat(remove(s, "+2")).isFalse();
        assertThat(remove(s, "2")).isTrue();
        Reply r = new Reply();
        s.replyAll(r);
        assertThat(new String(r.buffer(), 0, r.length(), StandardCharsets.ISO_8859_1))
                .isEqualTo("$2\r\n-3\r\n$2\r\n10\r\n$6\r\n100000\r\n");
    }

    @Test
    void nonIntegerOrTooManyConverts() {
        SetValue s = SetValue.newIntset();
        add(s, "1", 3);
        add(s, "2", 3);
        add(s, "3", 3);
        assertThat(s.encoding()).isEqualTo("intset");
        assertThat(add(s, "3", 3)).isFalse();
        assertThat(s.encoding()).isEqualTo("intset");
        assertThat(add(s, "4", 3)).isTrue();
        assertThat(s.encoding()).isEqualTo("hashtable");
        assertThat(new HashSet<>(members(s))).containsExactlyInAnyOrder("1", "2", "3", "4");
        for (String m : new String[] {"1", "2", "3"}) remove(s, m);
        assertThat(s.encoding()).isEqualTo("hashtable");
        assertThat(s.containsInt(4)).isTrue();
        assertThat(s.removeInt(4)).isTrue();

        SetValue t = SetValue.newIntset();
        add(t, "5");
        assertThat(add(t, "five")).isTrue();
        assertThat(t.encoding()).isEqualTo("hashtable");
        assertThat(contains(t, "5")).isTrue();
        assertThat(t.containsInt(5)).isTrue();

        SetValue z = SetValue.newIntset();
        add(z, "1", 0);
        assertThat(z.encoding()).isEqualTo("hashtable");
    }

    @Test
    void sharedMembersAndCopies() {
        SetValue s = SetValue.newTable(1000); // a table keeps the arrays it is given
        byte[] m = b("member");
        assertThat(s.addShared(m, MAX)).isTrue();
        assertThat(s.members()[0]).isSameAs(m);
        assertThat(s.addShared(b("member"), MAX)).isFalse();
        assertThat(s.length()).isEqualTo(1);
        SetValue ints = SetValue.newIntset();
        assertThat(ints.addShared(b("77"), MAX)).isTrue();
        assertThat(ints.encoding()).isEqualTo("intset");

        SetValue c = (SetValue) s.copy();
        add(c, "other");
        assertThat(s.length()).isEqualTo(1);
        assertThat(c.length()).isEqualTo(2);
        SetValue ci = (SetValue) ints.copy();
        ci.addInt(78, MAX);
        assertThat(ints.length()).isEqualTo(1);
        assertThat(ci.encoding()).isEqualTo("intset");
    }

    @Test
    void randomOperationsMatchAJavaSet() {
        Random rnd = new Random(3);
        SetValue s = SetValue.newIntset();
        Set<String> ref = new HashSet<>();
        for (int i = 0; i < 100_000; i++) {
            String m = i < 50_000 ? Integer.toString(rnd.nextInt(500)) : (rnd.nextBoolean() ? "m" : "") + rnd.nextInt(50_000);
            if (rnd.nextInt(4) > 0) assertThat(add(s, m, 600)).isEqualTo(ref.add(m));
            else assertThat(remove(s, m)).isEqualTo(ref.remove(m));
            if (i == 20_000) assertThat(s.encoding()).isEqualTo("intset");
        }
        assertThat(s.encoding()).isEqualTo("hashtable");
        assertThat(s.length()).isEqualTo(ref.size());
        assertThat(new HashSet<>(members(s))).isEqualTo(ref);
        long before = s.memoryUsage();
        for (String m : ref) remove(s, m);
        assertThat(s.length()).isZero();
        assertThat(s.memoryUsage()).isLessThan(before / 10);
    }

    /** SRANDMEMBER and SPOP need every member equally likely; Redis's suite runs a chi-square test. */
    @Test
    void randomMembersAreUniform() {
        SplittableRandom rnd = new SplittableRandom(11);
        SetValue s = SetValue.newTable(2000);
        // a table with uneven gaps: grow it, then delete most members
        for (int i = 0; i < 2000; i++) add(s, "m" + i);
        for (int i = 10; i < 2000; i++) remove(s, "m" + i);
        int draws = 100_000;
        java.util.Map<String, Integer> counts = new java.util.HashMap<>();
        for (int i = 0; i < draws; i++) counts.merge(new String(s.randomMember(rnd), StandardCharsets.ISO_8859_1), 1, Integer::sum);
        assertThat(counts).hasSize(10);
        double expected = draws / 10.0, chi = 0;
        for (int c : counts.values()) chi += (c - expected) * (c - expected) / expected;
        assertThat(chi).isLessThan(40); // df = 9: 40 means p = 0.00001
    }

    @Test
    void memoryUsageCountsMembers() {
        SetValue s = SetValue.newIntset();
        long empty = s.memoryUsage();
        for (int i = 0; i < 100; i++) add(s, Integer.toString(i * 100_000));
        assertThat(s.memoryUsage()).isGreaterThanOrEqualTo(empty + 400); // 100 members of 4 bytes
        SetValue t = SetValue.newTable(1000);
        for (int i = 0; i < 1000; i++) add(t, "member-" + i);
        assertThat(t.memoryUsage()).isGreaterThan(1000L * (16 + 8));
    }

    @Test
    void smallSetsArePackedUntilALimitThenATable() {
        SetValue s = SetValue.forFirstMember(b("a"), 0, 1);
        for (int i = 0; i < SetValue.PACKED_MAX_ENTRIES; i++) assertThat(add(s, "m" + i)).isTrue();
        assertThat(s.isPacked()).isTrue();
        assertThat(s.encoding()).isEqualTo("hashtable"); // what Redis 7.0 says for any such set
        assertThat(add(s, "m5")).isFalse();
        assertThat(add(s, "one-more")).isTrue();
        assertThat(s.isPacked()).isFalse();
        assertThat(s.length()).isEqualTo(SetValue.PACKED_MAX_ENTRIES + 1);
        assertThat(contains(s, "one-more")).isTrue();
        assertThat(contains(s, "m127")).isTrue();

        SetValue longMember = SetValue.forFirstMember(b("a"), 0, 1);
        add(longMember, "x");
        String big = "y".repeat(SetValue.PACKED_MAX_MEMBER + 1);
        assertThat(add(longMember, "y".repeat(SetValue.PACKED_MAX_MEMBER))).isTrue();
        assertThat(longMember.isPacked()).isTrue();
        assertThat(add(longMember, big)).isTrue();
        assertThat(longMember.isPacked()).isFalse();
        assertThat(new HashSet<>(members(longMember)))
                .containsExactlyInAnyOrder("x", "y".repeat(SetValue.PACKED_MAX_MEMBER), big);

        // the largest packed set: 128 members of 64 bytes (its size header past 8 KB)
        SetValue widest = SetValue.forFirstMember(b("a"), 0, 1);
        Set<String> wide = new HashSet<>();
        for (int i = 0; i < SetValue.PACKED_MAX_ENTRIES; i++) {
            String m = String.format("%064d", i);
            wide.add(m);
            assertThat(add(widest, m)).isTrue();
        }
        assertThat(widest.isPacked()).isTrue();
        assertThat(new HashSet<>(members(widest))).isEqualTo(wide);
        assertThat(remove(widest, String.format("%064d", 0))).isTrue();
        assertThat(widest.length()).isEqualTo(SetValue.PACKED_MAX_ENTRIES - 1);
        assertThat(contains(widest, String.format("%064d", 127))).isTrue();

        // an intset that takes a string member: packed while small, a table when large
        SetValue ints = SetValue.newIntset();
        for (int i = 0; i < 10; i++) add(ints, Integer.toString(i));
        add(ints, "s");
        assertThat(ints.isPacked()).isTrue();
        assertThat(ints.containsInt(7)).isTrue();
        assertThat(ints.removeInt(7)).isTrue();
        assertThat(ints.containsInt(7)).isFalse();
        assertThat(ints.addInt(7, MAX)).isTrue();
        assertThat(ints.addInt(7, MAX)).isFalse();
        SetValue manyInts = SetValue.newIntset();
        for (int i = 0; i < 300; i++) add(manyInts, Integer.toString(i));
        add(manyInts, "s");
        assertThat(manyInts.isPacked()).isFalse();
        assertThat(manyInts.length()).isEqualTo(301);
    }

    @Test
    void packedSetsMatchAJavaSetAcrossTheLimit() {
        Random rnd = new Random(5);
        for (int round = 0; round < 20; round++) {
            SetValue s = SetValue.forFirstMember(b("x"), 0, 1);
            Set<String> ref = new HashSet<>();
            int universe = round % 2 == 0 ? 100 : 140; // the odd rounds cross the packed limit
            for (int i = 0; i < 5000; i++) {
                String m = rnd.nextInt(3) == 0 ? Integer.toString(rnd.nextInt(universe)) : "m" + rnd.nextInt(universe);
                if (rnd.nextInt(3) > 0) assertThat(add(s, m)).isEqualTo(ref.add(m));
                else assertThat(remove(s, m)).isEqualTo(ref.remove(m));
                assertThat(s.length()).isEqualTo(ref.size());
            }
            assertThat(new HashSet<>(members(s))).isEqualTo(ref);
            for (String m : ref) assertThat(contains(s, m)).isTrue();
            assertThat(contains(s, "absent")).isFalse();
            SetValue copy = (SetValue) s.copy();
            add(copy, "only-in-the-copy");
            assertThat(contains(s, "only-in-the-copy")).isFalse();
            assertThat(new HashSet<>(members(copy))).hasSize(ref.size() + 1);
            Object[] arrays = s.members();
            assertThat(arrays).hasSize(ref.size());
            Reply r = new Reply();
            s.replyAll(r);
            StringBuilder expected = new StringBuilder();
            for (String m : members(s)) expected.append('$').append(m.length()).append("\r\n").append(m).append("\r\n");
            assertThat(new String(r.buffer(), 0, r.length(), StandardCharsets.ISO_8859_1)).isEqualTo(expected.toString());
        }
    }

    @Test
    void packedSetsShrinkAndDrawUniformly() {
        SetValue s = SetValue.forFirstMember(b("x"), 0, 1);
        for (int i = 0; i < 100; i++) add(s, "member-number-" + i);
        long full = s.memoryUsage();
        for (int i = 10; i < 100; i++) remove(s, "member-number-" + i);
        assertThat(s.isPacked()).isTrue();
        assertThat(s.memoryUsage()).isLessThan(full / 2);
        SplittableRandom rnd = new SplittableRandom(13);
        java.util.Map<String, Integer> counts = new java.util.HashMap<>();
        int draws = 100_000;
        for (int i = 0; i < draws; i++) counts.merge(new String(s.randomMember(rnd), StandardCharsets.ISO_8859_1), 1, Integer::sum);
        assertThat(counts).hasSize(10);
        double expected = draws / 10.0, chi = 0;
        for (int c : counts.values()) chi += (c - expected) * (c - expected) / expected;
        assertThat(chi).isLessThan(40); // df = 9: 40 means p = 0.00001
    }
}
