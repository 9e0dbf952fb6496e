package io.spinel.core.persist;

import io.spinel.core.type.stream.StreamId;
import io.spinel.core.type.stream.StreamValue;
import io.spinel.core.util.Bytes;

import java.util.Map;

/**
 * Streams in RDB form (rdbSaveObject/rdbLoadObject for RDB_TYPE_STREAM_LISTPACKS and _2): the
 * listpack nodes as they are, each under its 128-bit big-endian master ID, then length, last,
 * first and max-deleted IDs, entries added, and the consumer groups with their pending entries
 * and consumers. Type 15 (Redis 5/6) lacks the 7.0 counters, which are derived as Redis does.
 */
final class StreamCodec {
    private StreamCodec() {
    }

    /** rdbSaveLen of a 64-bit unsigned value. */
    private static void writeULen(RdbOut out, long v) {
        if (v >= 0) {
            out.writeLen(v);
            return;
        }
        out.writeByte(Rdb.LEN_64BIT);
        for (int s = 56; s >= 0; s -= 8) out.writeByte((int) (v >>> s) & 0xff);
    }

    static void write(RdbOut out, StreamValue s) {
        out.writeLen(s.nodeCount());
        byte[] key = new byte[16];
        for (StreamValue.Node n : s.nodes()) {
            StreamId.encode(key, 0, n.masterMs(), n.masterSeq());
            out.writeString(key, 0, 16);
            out.writeString(n.listpack(), 0, n.length());
        }
        writeULen(out, s.length());
        writeULen(out, s.lastId().ms());
        writeULen(out, s.lastId().seq());
        writeULen(out, s.firstId().ms());
        writeULen(out, s.firstId().seq());
        writeULen(out, s.maxDeletedId().ms());
        writeULen(out, s.maxDeletedId().seq());
        writeULen(out, s.entriesAdded());
        out.writeLen(s.groupCount());
        for (Map.Entry<byte[], StreamValue.Group> ge : s.groups().entrySet()) {
            StreamValue.Group g = ge.getValue();
            out.writeString(ge.getKey());
            writeULen(out, g.lastId.ms());
            writeULen(out, g.lastId.seq());
            writeULen(out, g.entriesRead);
            out.writeLen(g.pel.size());
            for (Map.Entry<StreamId, StreamValue.Nack> pe : g.pel.entrySet()) {
                StreamId.encode(key, 0, pe.getKey().ms(), pe.getKey().seq());
                out.write(key, 0, 16);
                out.writeMillis(pe.getValue().deliveryTime);
                writeULen(out, pe.getValue().deliveryCount);
            }
            out.writeLen(g.consumers.size());
            for (StreamValue.Consumer c : g.consumers.values()) {
                out.writeString(c.name);
                out.writeMillis(c.seenTime);
                out.writeLen(c.pel.size());
                for (StreamId id : c.pel.keySet()) {
                    StreamId.encode(key, 0, id.ms(), id.seq());
                    out.write(key, 0, 16);
                }
            }
        }
    }

    static StreamValue read(RdbIn in, boolean v2) {
        StreamValue s = new StreamValue();
        long listpacks = in.readLen();
        StreamId prev = null;
        while (listpacks-- > 0) {
            byte[] nodeKey = in.readString();
            if (nodeKey.length != 16) throw new RdbException("Stream node key entry is not the size of a stream ID");
            byte[] lp = in.readString();
            int elements = 0;
            Listpack.Reader r;
            try {
                r = new Listpack.Reader(lp, 0, lp.length).ignoringDeclaredCount();
                while (r.next()) elements++;
            } catch (RdbException e) {
                throw new RdbException("Stream listpack integrity check failed.");
            }
            if (StreamValue.validateNode(lp, lp.length) < 0) {
                if (elements == 0) throw new RdbException("Empty listpack inside stream");
                throw new RdbException("Stream listpack integrity check failed.");
            }
            StreamId master = StreamId.decode(nodeKey, 0);
            if (prev != null && master.compareTo(prev) <= 0) throw new RdbException("Listpack re-added with existing key");
            prev = master;
            s.addLoadedNode(master, lp, lp.length, elements);
        }
        // Redis reads these without checking for a length error (RdbIn.readLenUnchecked)
        s.setLength(in.readLenUnchecked());
        s.setLastId(new StreamId(in.readLenUnchecked(), in.readLenUnchecked()));
        if (v2) {
            s.setFirstId(new StreamId(in.readLenUnchecked(), in.readLenUnchecked()));
            s.setMaxDeletedId(new StreamId(in.readLenUnchecked(), in.readLenUnchecked()));
            s.setEntriesAdded(in.readLenUnchecked());
        } else {
            s.setMaxDeletedId(StreamId.ZERO);
            s.setEntriesAdded(s.length());
            StreamId first = s.edgeId(true);
            s.setFirstId(s.length() == 0 ? StreamId.MAX : first);
        }
        if (s.length() != 0 && s.nodeCount() == 0) throw new RdbException("Stream length inconsistent with rax entries");
        long groups = in.readLen();
        while (groups-- > 0) {
            byte[] name = in.readString();
            StreamId last = new StreamId(in.readLenUnchecked(), in.readLenUnchecked());
            long entriesRead = v2 ? in.readLenUnchecked() : s.estimateDistanceFromFirstEverEntry(last);
            StreamValue.Group g = s.createGroup(name, last, entriesRead);
            if (g == null) throw new RdbException("Duplicated consumer group name " + Bytes.latin1(name));
            long pel = in.readLen();
            byte[] raw = new byte[16];
            while (pel-- > 0) {
                in.readFully(raw, 0, 16);
                StreamId id = StreamId.decode(raw, 0);
                long time = in.readLongLE();
                long count = in.readLenUnchecked();
                if (g.pel.putIfAbsent(id, new StreamValue.Nack(time, count, null)) != null) {
                    throw new RdbException("Duplicated global PEL entry loading stream consumer group");
                }
            }
            long consumers = in.readLen();
            while (consumers-- > 0) {
                byte[] cname = in.readString();
                StreamValue.Consumer c = g.createConsumer(cname, 0);
                if (c == null) throw new RdbException("Duplicate stream consumer detected.");
                c.seenTime = in.readLongLE();
                long n = in.readLen();
                while (n-- > 0) {
                    in.readFully(raw, 0, 16);
                    StreamId id = StreamId.decode(raw, 0);
                    StreamValue.Nack nack = g.pel.get(id);
                    if (nack == null) throw new RdbException("Consumer entry not found in group global PEL");
                    nack.consumer = c;
                    if (c.pel.putIfAbsent(id, nack) != null) {
                        throw new RdbException("Duplicated consumer PEL entry  loading a stream consumer group");
                    }
                }
            }
            for (StreamValue.Nack nack : g.pel.values()) {
                if (nack.consumer == null) throw new RdbException("Stream CG PEL entry without consumer");
            }
        }
        return s;
    }
}
