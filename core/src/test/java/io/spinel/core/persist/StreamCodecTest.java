package io.spinel.core.persist;

import io.spinel.core.type.stream.StreamId;
import io.spinel.core.type.stream.StreamValue;
import io.spinel.core.util.Bytes;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

class StreamCodecTest {
    private static StreamValue.Fields fields(String... kv) {
        return new StreamValue.Fields() {
            public int count() {
                return kv.length;
            }

            public byte[] buf(int i) {
                return Bytes.ascii(kv[i]);
            }

            public int off(int i) {
                return 0;
            }

            public int len(int i) {
                return kv[i].length();
            }
        };
    }

    private static StreamValue sample() {
        StreamValue s = new StreamValue();
        for (int i = 1; i <= 30; i++) {
            s.append(fields("f", "v" + i, "n", Integer.toString(i * 1000)), new StreamId(i, 0), true, 0, 4096, 7, new int[1]);
        }
        s.delete(new StreamId(3, 0));
        s.setMaxDeletedId(new StreamId(3, 0));
        StreamValue.Group g = s.createGroup(Bytes.ascii("grp"), new StreamId(10, 0), 9);
        StreamValue.Consumer alice = g.createConsumer(Bytes.ascii("alice"), 1_700_000_000_123L);
        g.createConsumer(Bytes.ascii("idle"), 1_700_000_000_456L);
        for (int i = 4; i <= 6; i++) {
            StreamValue.Nack n = new StreamValue.Nack(1_700_000_000_000L + i, i, alice);
            g.pel.put(new StreamId(i, 0), n);
            alice.pel.put(new StreamId(i, 0), n);
        }
        s.createGroup(Bytes.ascii("empty"), StreamId.ZERO, -1);
        return s;
    }

    private static List<String> entries(StreamValue s) {
        List<String> out = new ArrayList<>();
        s.forEachEntry((id, fv) -> {
            StringBuilder sb = new StringBuilder(id.toString());
            for (byte[] x : fv) sb.append(' ').append(Bytes.latin1(x));
            out.add(sb.toString());
        });
        return out;
    }

    private static byte[] write(StreamValue s) {
        RdbOut out = new RdbOut(256, false);
        StreamCodec.write(out, s);
        return out.toByteArray();
    }

    @Test
    void type19RoundTripsEverything() {
        StreamValue s = sample();
        byte[] b = write(s);
        StreamValue r = StreamCodec.read(new RdbIn(b, 0, b.length), true);
        assertEquals(entries(s), entries(r));
        assertEquals(s.length(), r.length());
        assertEquals(s.lastId(), r.lastId());
        assertEquals(s.firstId(), r.firstId());
        assertEquals(s.maxDeletedId(), r.maxDeletedId());
        assertEquals(s.entriesAdded(), r.entriesAdded());
        assertEquals(s.nodeCount(), r.nodeCount());
        StreamValue.Group g = r.group(Bytes.ascii("grp"));
        assertEquals(new StreamId(10, 0), g.lastId);
        assertEquals(9, g.entriesRead);
        assertEquals(3, g.pel.size());
        StreamValue.Consumer alice = g.consumer(Bytes.ascii("alice"));
        assertEquals(1_700_000_000_123L, alice.seenTime);
        assertSame(alice, g.pel.get(new StreamId(5, 0)).consumer);
        assertSame(g.pel.get(new StreamId(5, 0)), alice.pel.get(new StreamId(5, 0)));
        assertEquals(5, g.pel.get(new StreamId(5, 0)).deliveryCount);
        assertEquals(-1, r.group(Bytes.ascii("empty")).entriesRead);
        // written again, the bytes are the same
        assertArrayEquals(b, write(r));
        // and the result keeps working: appends go to the loaded last node
        r.append(fields("f", "x", "n", "1"), new StreamId(31, 0), true, 0, 4096, 7, new int[1]);
        assertEquals(s.length() + 1, r.length());
    }

    @Test
    void type15DerivesTheSevenZeroCounters() {
        StreamValue s = sample();
        RdbOut out = new RdbOut(256, false);
        out.writeLen(s.nodeCount());
        byte[] key = new byte[16];
        for (StreamValue.Node n : s.nodes()) {
            StreamId.encode(key, 0, n.masterMs(), n.masterSeq());
            out.writeString(key, 0, 16);
            out.writeString(n.listpack(), 0, n.length());
        }
        out.writeLen(s.length());
        out.writeLen(s.lastId().ms());
        out.writeLen(s.lastId().seq());
        out.writeLen(1);
        out.writeString(Bytes.ascii("old"));
        out.writeLen(0); // last id 0-0
        out.writeLen(0);
        out.writeLen(0); // no pending entries
        out.writeLen(0); // no consumers
        byte[] b = out.toByteArray();
        StreamValue r = StreamCodec.read(new RdbIn(b, 0, b.length), false);
        assertEquals(entries(s), entries(r));
        assertEquals(r.length(), r.entriesAdded());
        assertEquals(StreamId.ZERO, r.maxDeletedId());
        assertEquals(new StreamId(1, 0), r.firstId());
        // a group at 0-0 before the first entry: its read counter is estimated (entries_added - length)
        assertEquals(0, r.group(Bytes.ascii("old")).entriesRead);
    }

    @Test
    void malformedNodesAreRefused() {
        StreamValue s = sample();
        byte[] good = write(s);
        // flip a byte inside the first listpack's entries (after the 2-byte lengths and the 16-byte key)
        byte[] bad = good.clone();
        bad[1 + 1 + 16 + 2 + 20] ^= 0x7f;
        assertThrows(RdbException.class, () -> StreamCodec.read(new RdbIn(bad, 0, bad.length), true));
        // a node key that is not 16 bytes
        RdbOut out = new RdbOut(64, false);
        out.writeLen(1);
        out.writeString(Bytes.ascii("short"));
        byte[] b = out.toByteArray();
        assertThrows(RdbException.class, () -> StreamCodec.read(new RdbIn(b, 0, b.length), true));
    }
}
