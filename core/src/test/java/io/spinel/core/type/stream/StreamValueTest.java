package io.spinel.core.type.stream;

import io.spinel.core.util.Bytes;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StreamValueTest {
    private static StreamValue.Fields fields(String... kv) {
        byte[][] b = new byte[kv.length][];
        for (int i = 0; i < kv.length; i++) b[i] = Bytes.ascii(kv[i]);
        return new StreamValue.Fields() {
            public int count() {
                return b.length;
            }

            public byte[] buf(int i) {
                return b[i];
            }

            public int off(int i) {
                return 0;
            }

            public int len(int i) {
                return b[i].length;
            }
        };
    }

    private static StreamId add(StreamValue s, long ms, long seq, int maxEntries, String... kv) {
        return s.append(fields(kv), new StreamId(ms, seq), true, 0, 4096, maxEntries, new int[1]);
    }

    /** The entries as "id:f=v,..." strings, in the given direction. */
    private static List<String> dump(StreamValue s, StreamId from, StreamId to, boolean rev) {
        List<String> out = new ArrayList<>();
        StreamValue.Iter it = s.iter(from, to, rev);
        while (it.next()) {
            StringBuilder sb = new StringBuilder(it.id().toString()).append(':');
            it.forEachField((f, v) -> sb.append(Bytes.latin1(f.bytes())).append('=').append(Bytes.latin1(v.bytes())).append(','));
            out.add(sb.toString());
        }
        return out;
    }

    @Test
    void idsMustGrowAndAutoSequencePicksTheNextOne() {
        StreamValue s = new StreamValue();
        assertNotNull(add(s, 5, 0, 100, "a", "1"));
        int[] err = new int[1];
        assertNull(s.append(fields("a", "1"), new StreamId(5, 0), true, 0, 4096, 100, err));
        assertEquals(StreamValue.APPEND_NOT_GREATER, err[0]);
        assertEquals(new StreamId(5, 1), s.append(fields("a", "1"), new StreamId(5, 0), false, 0, 4096, 100, err));
        assertEquals(new StreamId(7, 0), s.append(fields("a", "1"), new StreamId(7, 0), false, 0, 4096, 100, err));
        // the clock going backwards still gives increasing IDs
        assertEquals(new StreamId(7, 1), s.append(fields("a", "1"), null, true, 3, 4096, 100, err));
        assertEquals(4, s.length());
        assertEquals(new StreamId(5, 0), s.firstId());
        assertEquals(new StreamId(7, 1), s.lastId());
    }

    @Test
    void unsignedIdsOrderAsRedisDoes() {
        StreamValue s = new StreamValue();
        add(s, 1, 0, 100, "a", "1");
        add(s, Long.MIN_VALUE, 0, 100, "a", "2"); // 2^63: bigger than any positive long
        add(s, -1L, -1L, 100, "a", "3");
        assertEquals(List.of("1-0:a=1,", "9223372036854775808-0:a=2,", "18446744073709551615-18446744073709551615:a=3,"),
                dump(s, null, null, false));
        assertNull(StreamId.MAX.incr());
        assertNull(StreamId.ZERO.decr());
    }

    @Test
    void nodesSplitByEntriesAndBytesAndIterateBothWays() {
        StreamValue s = new StreamValue();
        for (int i = 1; i <= 25; i++) add(s, i, 0, 10, "f", "v" + i, "g", Integer.toString(i));
        assertEquals(3, s.nodeCount());
        List<String> fwd = dump(s, null, null, false);
        List<String> rev = dump(s, null, null, true);
        assertEquals(25, fwd.size());
        assertEquals("1-0:f=v1,g=1,", fwd.get(0));
        for (int i = 0; i < 25; i++) assertEquals(fwd.get(i), rev.get(24 - i));
        assertEquals(List.of("10-0:f=v10,g=10,", "11-0:f=v11,g=11,", "12-0:f=v12,g=12,"),
                dump(s, new StreamId(10, 0), new StreamId(12, 0), false));
        assertEquals(List.of("12-0:f=v12,g=12,", "11-0:f=v11,g=11,", "10-0:f=v10,g=10,"),
                dump(s, new StreamId(10, 0), new StreamId(12, 0), true));
        StreamValue big = new StreamValue();
        String v = "x".repeat(1000);
        for (int i = 1; i <= 10; i++) add(big, i, 0, 100, "f", v);
        assertTrue(big.nodeCount() >= 3, "4096-byte nodes hold at most 4 values of 1000 bytes");
        for (StreamValue.Node n : big.nodes()) assertTrue(n.length() < 4096 + 1100);
    }

    @Test
    void entriesWithOtherFieldsThanTheMasterKeepTheirOwn() {
        StreamValue s = new StreamValue();
        add(s, 1, 0, 100, "a", "1", "b", "2");
        add(s, 2, 0, 100, "b", "1", "a", "2");
        add(s, 3, 0, 100, "a", "-17", "b", "12345678901234567890");
        add(s, 4, 0, 100, "only", "");
        assertEquals(List.of("1-0:a=1,b=2,", "2-0:b=1,a=2,", "3-0:a=-17,b=12345678901234567890,", "4-0:only=,"),
                dump(s, null, null, false));
    }

    @Test
    void deletesMarkEntriesAndDropEmptiedNodes() {
        StreamValue s = new StreamValue();
        for (int i = 1; i <= 20; i++) add(s, i, 0, 10, "f", Integer.toString(i));
        assertTrue(s.delete(new StreamId(5, 0)));
        assertFalse(s.delete(new StreamId(5, 0)));
        assertFalse(s.delete(new StreamId(50, 0)));
        assertEquals(19, s.length());
        for (int i = 1; i <= 10; i++) s.delete(new StreamId(i, 0));
        assertEquals(1, s.nodeCount());
        assertEquals(10, s.length());
        assertEquals(new StreamId(11, 0), s.edgeId(true));
        assertEquals(new StreamId(20, 0), s.lastValidId());
        assertEquals(10, dump(s, null, null, true).size());
    }

    @Test
    void exactTrimMarksEntriesApproximateTrimOnlyDropsWholeNodes() {
        StreamValue s = new StreamValue();
        for (int i = 1; i <= 35; i++) add(s, i, 0, 10, "f", Integer.toString(i));
        assertEquals(0, s.trim(StreamValue.TRIM_MAXLEN, 28, null, true, 0), "dropping a whole node would go under 28");
        assertEquals(10, s.trim(StreamValue.TRIM_MAXLEN, 20, null, true, 0));
        assertEquals(25, s.length());
        assertEquals(3, s.trim(StreamValue.TRIM_MAXLEN, 22, null, false, 0));
        assertEquals(new StreamId(14, 0), s.firstId());
        assertEquals(4, s.trim(StreamValue.TRIM_MINID, 0, new StreamId(18, 0), false, 0));
        assertEquals(new StreamId(18, 0), s.firstId());
        assertEquals(0, s.trim(StreamValue.TRIM_MINID, 0, new StreamId(25, 0), true, 2),
                "the head node holds 3 live entries: over the limit of 2");
        assertEquals(3, s.trim(StreamValue.TRIM_MINID, 0, new StreamId(25, 0), true, 10),
                "the head node goes; the next one (10 entries) would pass the limit");
        assertEquals(5, s.trim(StreamValue.TRIM_MINID, 0, new StreamId(26, 0), false, 0));
        assertEquals(10, s.length());
        assertEquals(10, s.trim(StreamValue.TRIM_MAXLEN, 0, null, false, 0));
        assertEquals(0, s.length());
        assertEquals(0, s.nodeCount());
        assertEquals(StreamId.ZERO, s.firstId());
    }

    @Test
    void memoryPerEntryStaysSmallAndCountsGroups() {
        StreamValue s = new StreamValue();
        for (int i = 1; i <= 10_000; i++) add(s, 1_700_000_000_000L + i, 0, 100, "temperature", Integer.toString(i % 50));
        long perEntry = s.memoryUsage() / 10_000;
        assertTrue(perEntry < 16, "entries sharing the master fields cost a few bytes each, got " + perEntry);
        long before = s.memoryUsage();
        StreamValue.Group g = s.createGroup(Bytes.ascii("g"), StreamId.ZERO, 0);
        StreamValue.Consumer c = g.createConsumer(Bytes.ascii("c"), 0);
        for (int i = 1; i <= 100; i++) {
            StreamValue.Nack n = new StreamValue.Nack(0, 1, c);
            StreamId id = new StreamId(1_700_000_000_000L + i, 0);
            g.pel.put(id, n);
            c.pel.put(id, n);
        }
        assertTrue(s.memoryUsage() > before + 100 * 64, "pending entries are counted");
        assertEquals(s.memoryUsage() - before > 0, s.copy().memoryUsage() - before > 0);
    }

    @Test
    void randomOperationsMatchAModel() {
        SplittableRandom rnd = new SplittableRandom(42);
        for (int round = 0; round < 20; round++) {
            StreamValue s = new StreamValue();
            TreeMap<StreamId, String> model = new TreeMap<>();
            int maxEntries = 1 + rnd.nextInt(12);
            long ms = 0;
            for (int op = 0; op < 600; op++) {
                int r = rnd.nextInt(10);
                if (r < 6) {
                    ms += 1 + rnd.nextInt(3);
                    String v = "v" + rnd.nextInt(1000);
                    String field = rnd.nextBoolean() ? "f" : "g";
                    StreamId id = add(s, ms, rnd.nextInt(3), maxEntries, field, v);
                    model.put(id, id + ":" + field + "=" + v + ",");
                } else if (r < 8 && !model.isEmpty()) {
                    StreamId victim = rnd.nextBoolean() ? model.firstKey() : new StreamId(1 + rnd.nextLong(ms + 1), rnd.nextInt(3));
                    assertEquals(model.remove(victim) != null, s.delete(victim));
                } else if (r == 8) {
                    long maxlen = rnd.nextInt(40);
                    long removed = s.trim(StreamValue.TRIM_MAXLEN, maxlen, null, false, 0);
                    long expect = Math.max(0, model.size() - maxlen);
                    assertEquals(expect, removed);
                    while (model.size() > maxlen) model.pollFirstEntry();
                } else {
                    long before = model.size();
                    long removed = s.trim(StreamValue.TRIM_MAXLEN, rnd.nextInt(40), null, true, 0);
                    for (long i = 0; i < removed; i++) model.pollFirstEntry();
                    assertEquals(before - removed, s.length());
                }
                assertEquals(model.size(), s.length());
            }
            assertEquals(new ArrayList<>(model.values()), dump(s, null, null, false));
            List<String> rev = new ArrayList<>(model.descendingMap().values());
            assertEquals(rev, dump(s, null, null, true));
            StreamValue copy = s.copy();
            assertEquals(dump(s, null, null, false), dump(copy, null, null, false));
            assertTrue(s.memoryUsage() > 0);
        }
    }
}
