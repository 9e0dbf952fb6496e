package io.spinel.core.type.list;

import io.spinel.core.protocol.Reply;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class ListValueTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static List<String> contents(ListValue l) {
        List<String> out = new ArrayList<>();
        l.forEach((buf, off, len) -> out.add(new String(buf, off, len, StandardCharsets.ISO_8859_1)));
        return out;
    }

    private static void rpush(ListValue l, String... vs) {
        for (String v : vs) {
            byte[] x = b(v);
            l.pushTail(x, 0, x.length);
        }
    }

    @Test
    void entryEncodingRoundTripsAtEveryLengthClass() {
        for (int len : new int[] {0, 1, 0x7F, 0x80, 0x3FFF, 0x4000, 100_000}) {
            byte[] v = new byte[len];
            for (int i = 0; i < len; i++) v[i] = (byte) (i * 31 + 7);
            ListValue l = new ListValue(-2);
            l.pushTail(v, 0, len);
            l.pushHead(v, 0, len);
            l.pushTail(b("x"), 0, 1);
            l.verify();
            ListValue.Cursor c = l.cursor(1);
            assertThat(c.length()).isEqualTo(len);
            assertThat(c.equalTo(v, 0, len)).isTrue();
            assertThat(c.prev()).isTrue();
            assertThat(c.length()).isEqualTo(len);
            assertThat(l.pop(false)).containsExactly('x');
            assertThat(l.pop(true)).isEqualTo(v);
            assertThat(l.pop(true)).isEqualTo(v);
            assertThat(l.size()).isZero();
            l.verify();
        }
    }

    @Test
    void encodingIsAlwaysQuicklistAsInRedis70() {
        ListValue l = new ListValue(-2);
        rpush(l, "a");
        assertThat(l.encoding()).isEqualTo("quicklist");
        for (int i = 0; i < 10_000; i++) rpush(l, "element-" + i);
        assertThat(l.encoding()).isEqualTo("quicklist");
    }

    @Test
    void smallListIsOneNodeAndGrowsNodesPastTheSizeLimit() {
        ListValue l = new ListValue(-2); // 8 KB nodes
        for (int i = 0; i < 100; i++) rpush(l, "v" + i);
        assertThat(l.nodeCount()).isEqualTo(1);
        byte[] big = new byte[1000];
        for (int i = 0; i < 20; i++) l.pushTail(big, 0, big.length);
        assertThat(l.nodeCount()).isGreaterThan(1);
        l.verify();
        // never converts back: popping down to one element keeps the list usable and valid
        while (l.size() > 1) l.pop(false);
        assertThat(l.nodeCount()).isEqualTo(1);
        assertThat(contents(l)).containsExactly("v0");
        l.verify();
    }

    @Test
    void positiveFillLimitsEntriesPerNode() {
        ListValue l = new ListValue(4);
        for (int i = 0; i < 10; i++) rpush(l, Integer.toString(i));
        assertThat(l.nodeCount()).isEqualTo(3);
        for (int i = 0; i < 10; i++) {
            byte[] x = b("h" + i);
            l.pushHead(x, 0, x.length);
        }
        assertThat(l.nodeCount()).isEqualTo(6); // 4+4+2 pushed at each end
        l.verify();
        // the 8 KB safety limit still applies with a count limit
        ListValue big = new ListValue(100);
        byte[] v = new byte[5000];
        big.pushTail(v, 0, v.length);
        big.pushTail(v, 0, v.length);
        assertThat(big.nodeCount()).isEqualTo(2);
    }

    @Test
    void fillIsClampedLikeRedis() {
        assertThat(new ListValue(-100).fill()).isEqualTo(-5);
        assertThat(new ListValue(1 << 20).fill()).isEqualTo(1 << 15);
        ListValue zero = new ListValue(0);
        rpush(zero, "a", "b", "c");
        assertThat(zero.nodeCount()).isEqualTo(3);
    }

    @Test
    void insertIntoFullNodeSplitsIt() {
        ListValue l = new ListValue(4);
        rpush(l, "a", "b", "c", "d");
        assertThat(l.nodeCount()).isEqualTo(1);
        assertThat(l.insert(false, b("c"), 0, 1, b("X"), 0, 1)).isTrue();
        assertThat(contents(l)).containsExactly("a", "b", "X", "c", "d");
        assertThat(l.nodeCount()).isEqualTo(2);
        assertThat(l.insert(true, b("d"), 0, 1, b("Y"), 0, 1)).isTrue();
        assertThat(l.insert(false, b("a"), 0, 1, b("Z"), 0, 1)).isTrue();
        assertThat(l.insert(true, b("nope"), 0, 4, b("W"), 0, 1)).isFalse();
        assertThat(contents(l)).containsExactly("Z", "a", "b", "X", "c", "d", "Y");
        l.verify();
    }

    @Test
    void setReplacesInPlaceOrResizes() {
        ListValue l = new ListValue(-2);
        rpush(l, "aa", "bb", "cc");
        assertThat(l.set(1, b("XX"), 0, 2)).isTrue();
        assertThat(l.set(-1, b("a much longer value than before"), 0, 31)).isTrue();
        assertThat(l.set(0, b(""), 0, 0)).isTrue();
        assertThat(l.set(3, b("x"), 0, 1)).isFalse();
        assertThat(l.set(-4, b("x"), 0, 1)).isFalse();
        assertThat(contents(l)).containsExactly("", "XX", "a much longer value than before");
        byte[] huge = new byte[20_000];
        assertThat(l.set(1, huge, 0, huge.length)).isTrue();
        l.verify();
        assertThat(l.cursor(1).length()).isEqualTo(20_000);
        assertThat(l.size()).isEqualTo(3);
    }

    @Test
    void removeHonoursLimitAndDirection() {
        ListValue l = new ListValue(2);
        rpush(l, "a", "x", "a", "y", "a", "z", "a");
        assertThat(l.remove(b("a"), 0, 1, 2, false)).isEqualTo(2);
        assertThat(contents(l)).containsExactly("x", "y", "a", "z", "a");
        assertThat(l.remove(b("a"), 0, 1, 1, true)).isEqualTo(1);
        assertThat(contents(l)).containsExactly("x", "y", "a", "z");
        assertThat(l.remove(b("q"), 0, 1, 0, false)).isZero();
        assertThat(l.remove(b("a"), 0, 1, 0, true)).isEqualTo(1);
        assertThat(l.remove(b("x"), 0, 1, 0, true)).isEqualTo(1);
        assertThat(contents(l)).containsExactly("y", "z");
        l.verify();
        assertThat(l.remove(b("y"), 0, 1, 0, false)).isEqualTo(1);
        assertThat(l.remove(b("z"), 0, 1, 0, false)).isEqualTo(1);
        assertThat(l.size()).isZero();
        assertThat(l.nodeCount()).isZero();
    }

    @Test
    void removeKeepsTheNodesAsRedisDoes() {
        // Redis's LREM deletes entries where they are and drops emptied nodes; it merges none
        ListValue l = new ListValue(10);
        for (int i = 0; i < 100; i++) rpush(l, i < 10 ? "drop" : i % 2 == 0 ? "keep" : "drop");
        assertThat(l.nodeCount()).isEqualTo(10);
        assertThat(l.remove(b("drop"), 0, 4, 0, false)).isEqualTo(55);
        l.verify();
        assertThat(l.nodeCount()).isEqualTo(9);
        assertThat(l.size()).isEqualTo(45);
    }

    @Test
    void deleteRangeAcrossNodes() {
        ListValue l = new ListValue(3);
        for (int i = 0; i < 20; i++) rpush(l, Integer.toString(i));
        l.deleteRange(2, 10);
        l.verify();
        assertThat(contents(l)).containsExactly("0", "1", "12", "13", "14", "15", "16", "17", "18", "19");
        l.deleteRange(0, 1);
        l.deleteRange(l.size() - 2, 2);
        assertThat(contents(l)).containsExactly("1", "12", "13", "14", "15", "16", "17");
        l.deleteRange(0, l.size());
        assertThat(l.size()).isZero();
        l.verify();
    }

    @Test
    void cursorWalksBothWaysAcrossNodes() {
        ListValue l = new ListValue(2);
        for (int i = 0; i < 9; i++) rpush(l, Integer.toString(i));
        ListValue.Cursor c = l.cursor(0);
        StringBuilder sb = new StringBuilder();
        do {
            sb.append(new String(c.array(), c.offset(), c.length(), StandardCharsets.ISO_8859_1));
        } while (c.next());
        assertThat(sb.toString()).isEqualTo("012345678");
        c = l.cursor(-1);
        sb.setLength(0);
        do {
            sb.append(new String(c.array(), c.offset(), c.length(), StandardCharsets.ISO_8859_1));
        } while (c.prev());
        assertThat(sb.toString()).isEqualTo("876543210");
        assertThat(l.cursor(9)).isNull();
        assertThat(l.cursor(-10)).isNull();
        assertThat(l.cursor(Long.MIN_VALUE)).isNull();
    }

    @Test
    void replyRangeWritesBulksInEitherDirection() {
        ListValue l = new ListValue(2);
        rpush(l, "a", "bb", "ccc", "d");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Reply r = new Reply();
        r.setSink(out::write);
        l.replyRange(r, 1, 3, false);
        l.replyRange(r, 2, 3, true);
        r.drain();
        assertThat(out.toString(StandardCharsets.ISO_8859_1))
                .isEqualTo("$2\r\nbb\r\n$3\r\nccc\r\n$1\r\nd\r\n$3\r\nccc\r\n$2\r\nbb\r\n$1\r\na\r\n");
    }

    @Test
    void copyIsDeepAndMemoryUsageGrowsWithContent() {
        ListValue l = new ListValue(-2);
        rpush(l, "a", "b");
        long small = l.memoryUsage();
        ListValue c = l.copy();
        rpush(c, "c");
        assertThat(contents(l)).containsExactly("a", "b");
        assertThat(contents(c)).containsExactly("a", "b", "c");
        byte[] v = new byte[100];
        for (int i = 0; i < 10_000; i++) l.pushTail(v, 0, v.length);
        assertThat(l.memoryUsage()).isGreaterThan(small + 10_000L * 100).isLessThan(small + 10_000L * 100 * 2);
        c.verify();
        l.verify();
    }

    @Test
    void queueUsageKeepsTheArrayBounded() {
        ListValue l = new ListValue(-2);
        byte[] v = b("payload");
        for (int i = 0; i < 100_000; i++) {
            l.pushTail(v, 0, v.length);
            if (i >= 10) l.pop(true);
        }
        assertThat(l.size()).isEqualTo(10);
        assertThat(l.memoryUsage()).isLessThan(1000);
        l.verify();
    }

    /** Random operations against a plain ArrayList model, for several node limits. */
    @ParameterizedTest
    @ValueSource(ints = {-5, -2, -1, 0, 1, 3, 16})
    void randomOperationsMatchAModel(int fill) {
        Random rnd = new Random(fill * 7919L + 17);
        ListValue l = new ListValue(fill);
        List<String> m = new ArrayList<>();
        for (int step = 0; step < 20_000; step++) {
            int op = rnd.nextInt(11);
            String v = randomValue(rnd);
            byte[] x = b(v);
            switch (op) {
                case 0:
                    l.pushHead(x, 0, x.length);
                    m.add(0, v);
                    break;
                case 1:
                case 2:
                    l.pushTail(x, 0, x.length);
                    m.add(v);
                    break;
                case 3:
                    if (!m.isEmpty()) assertThat(new String(l.pop(true), StandardCharsets.ISO_8859_1)).isEqualTo(m.remove(0));
                    break;
                case 4:
                    if (!m.isEmpty()) {
                        assertThat(new String(l.pop(false), StandardCharsets.ISO_8859_1))
                                .isEqualTo(m.remove(m.size() - 1));
                    }
                    break;
                case 5: {
                    long idx = m.isEmpty() ? 0 : rnd.nextInt(m.size() * 2 + 1) - m.size();
                    boolean ok = l.set(idx, x, 0, x.length);
                    long norm = idx < 0 ? idx + m.size() : idx;
                    assertThat(ok).isEqualTo(norm >= 0 && norm < m.size());
                    if (ok) m.set((int) norm, v);
                    break;
                }
                case 6: {
                    String pivot = randomValue(rnd);
                    boolean after = rnd.nextBoolean();
                    byte[] p = b(pivot);
                    boolean ok = l.insert(after, p, 0, p.length, x, 0, x.length);
                    int at = m.indexOf(pivot);
                    assertThat(ok).isEqualTo(at >= 0);
                    if (ok) m.add(after ? at + 1 : at, v);
                    break;
                }
                case 7: {
                    long count = rnd.nextInt(5) - 2;
                    long removed = l.remove(x, 0, x.length, Math.abs(count), count < 0);
                    long expect = 0;
                    if (count >= 0) {
                        for (int i = 0; i < m.size() && (count == 0 || expect < count); ) {
                            if (m.get(i).equals(v)) {
                                m.remove(i);
                                expect++;
                            } else {
                                i++;
                            }
                        }
                    } else {
                        for (int i = m.size() - 1; i >= 0 && expect < -count; i--) {
                            if (m.get(i).equals(v)) {
                                m.remove(i);
                                expect++;
                            }
                        }
                    }
                    assertThat(removed).isEqualTo(expect);
                    break;
                }
                case 8:
                    if (!m.isEmpty() && rnd.nextInt(10) == 0) {
                        int from = rnd.nextInt(m.size());
                        int n = rnd.nextInt(m.size() - from + 1);
                        l.deleteRange(from, n);
                        m.subList(from, from + n).clear();
                    }
                    break;
                case 9:
                    if (!m.isEmpty()) {
                        int idx = rnd.nextInt(m.size());
                        ListValue.Cursor c = l.cursor(idx);
                        assertThat(new String(c.array(), c.offset(), c.length(), StandardCharsets.ISO_8859_1))
                                .isEqualTo(m.get(idx));
                    }
                    break;
                default:
                    for (int i = 0; i < 20; i++) {
                        l.pushTail(x, 0, x.length);
                        m.add(v);
                    }
                    break;
            }
            assertThat(l.size()).isEqualTo(m.size());
            if (step % 500 == 0) {
                l.verify();
                assertThat(contents(l)).isEqualTo(m);
            }
        }
        l.verify();
        assertThat(contents(l)).isEqualTo(m);
        assertThat(contents(l.copy())).isEqualTo(m);
    }

    private static String randomValue(Random rnd) {
        int kind = rnd.nextInt(20);
        if (kind == 0) return "x".repeat(130 + rnd.nextInt(300));
        if (kind == 1) return "y".repeat(3000 + rnd.nextInt(6000));
        if (kind == 2) return "";
        return Integer.toString(rnd.nextInt(12));
    }

    @Test
    void aLoadedNodeIsSizedOnceAndKeptAsSaved() {
        // five entries of 3 bytes take 5 * (3 + 2) = 25 bytes: the node made for the first is
        // sized for all of them, as an RDB load does from the quicklist node it reads
        ListValue sized = new ListValue(-2);
        ListValue grown = new ListValue(-2);
        for (int i = 0; i < 5; i++) {
            byte[] e = b("e" + i + "x");
            sized.append(e, 0, e.length, i == 0, i == 0 ? 25 : 0);
            rpush(grown, "e" + i + "x");
        }
        sized.verify();
        assertThat(sized.nodeCount()).isEqualTo(1);
        for (int i = 0; i < 5; i++) assertThat(sized.cursor(i).equalTo(b("e" + i + "x"), 0, 3)).isTrue();
        assertThat(sized.memoryUsage()).isLessThan(grown.memoryUsage()); // no doubling slack
        // the saved nodes stay as they were, past the node limit (count 2) and under it
        ListValue l = new ListValue(2);
        for (int i = 0; i < 4; i++) l.append(b("x" + i), 0, 2, i == 0, 0);
        l.append(b("y"), 0, 1, true, 0);
        l.append(b("z"), 0, 1, true, 0);
        l.verify();
        assertThat(l.nodeCount()).isEqualTo(3);
        assertThat(l.size()).isEqualTo(6);
    }
}
