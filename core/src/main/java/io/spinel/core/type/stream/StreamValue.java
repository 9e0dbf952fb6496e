package io.spinel.core.type.stream;

import io.spinel.core.keyspace.DbObject;
import io.spinel.core.keyspace.ValueType;
import io.spinel.core.persist.Listpack;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A stream (Redis's stream.h): entries in nodes ordered by their master ID, each node a listpack
 * laid out exactly as Redis lays it out (a master entry with live and deleted counts and the
 * fields of the node's first entry, then entries as flags, ID deltas, fields or only values when
 * they match the master fields, and an element count for walking backwards). Deleting marks an
 * entry; a node goes when its last live entry does. Consumer groups hang off the stream.
 */
public final class StreamValue extends DbObject {
    static final int FLAG_DELETED = 1;
    static final int FLAG_SAMEFIELDS = 2;
    /** Listpacks never grow past this (STREAM_LISTPACK_MAX_SIZE). */
    static final long LISTPACK_MAX_SIZE = 1L << 30;

    /** One listpack of entries. */
    public static final class Node {
        final long ms;
        final long seq;
        byte[] lp;
        int used;
        int elements;

        Node(long ms, long seq, byte[] lp, int used, int elements) {
            this.ms = ms;
            this.seq = seq;
            this.lp = lp;
            this.used = used;
            this.elements = elements;
        }

        public long masterMs() {
            return ms;
        }

        public long masterSeq() {
            return seq;
        }

        /** The listpack bytes: [0, {@link #length()}). */
        public byte[] listpack() {
            return lp;
        }

        public int length() {
            return used;
        }

        void ensure(int extra) {
            if (used + extra > lp.length) lp = Arrays.copyOf(lp, Math.max(used + extra, Math.min(lp.length * 2, used + extra + 4096)));
        }

        void shrink() {
            if (lp.length != used) lp = Arrays.copyOf(lp, used);
        }

        void syncHeader() {
            Listpack.writeHeader(lp, used, elements);
        }

        /** Replaces the integer element at p by v, moving what follows if its size changes. */
        int replaceInt(Lp lpc, int p, long v) {
            int oldEnd = lpc.skip(lp, p);
            int oldSize = oldEnd - p;
            int newSize = Lp.intSize(v);
            if (newSize != oldSize) {
                ensure(newSize - oldSize);
                System.arraycopy(lp, oldEnd, lp, p + newSize, used - oldEnd);
                used += newSize - oldSize;
            }
            Listpack.writeInt(lp, p, v);
            syncHeader();
            return p + newSize;
        }
    }

    /** A pending entry: delivered to a consumer, not acknowledged. */
    public static final class Nack {
        public long deliveryTime;
        public long deliveryCount;
        public Consumer consumer;

        public Nack(long deliveryTime, long deliveryCount, Consumer consumer) {
            this.deliveryTime = deliveryTime;
            this.deliveryCount = deliveryCount;
            this.consumer = consumer;
        }
    }

    public static final class Consumer {
        public final byte[] name;
        public long seenTime;
        public final TreeMap<StreamId, Nack> pel = new TreeMap<>();

        public Consumer(byte[] name, long seenTime) {
            this.name = name;
            this.seenTime = seenTime;
        }
    }

    public static final class Group {
        public StreamId lastId;
        /** -1: not known (SCG_INVALID_ENTRIES_READ). */
        public long entriesRead;
        public final TreeMap<StreamId, Nack> pel = new TreeMap<>();
        public final TreeMap<byte[], Consumer> consumers = new TreeMap<>(Arrays::compareUnsigned);

        public Group(StreamId lastId, long entriesRead) {
            this.lastId = lastId;
            this.entriesRead = entriesRead;
        }

        public Consumer consumer(byte[] name) {
            return consumers.get(name);
        }

        public Consumer createConsumer(byte[] name, long now) {
            if (consumers.containsKey(name)) return null;
            Consumer c = new Consumer(name, now);
            consumers.put(name, c);
            return c;
        }

        public void deleteConsumer(Consumer c) {
            for (StreamId id : c.pel.keySet()) pel.remove(id);
            consumers.remove(c.name);
        }
    }

    final TreeMap<StreamId, Node> nodes = new TreeMap<>();
    long length;
    StreamId lastId = StreamId.ZERO;
    StreamId firstId = StreamId.ZERO;
    StreamId maxDeletedId = StreamId.ZERO;
    long entriesAdded;
    /** By name, in byte order; null until the first group. */
    TreeMap<byte[], Group> groups;
    /** Heap bytes of the listpacks' capacity, kept current for memoryUsage. */
    private long lpBytes;
    private final Lp cur = new Lp();

    // ---- facts ------------------------------------------------------------------------------------

    public long length() {
        return length;
    }

    public StreamId lastId() {
        return lastId;
    }

    public StreamId firstId() {
        return firstId;
    }

    public StreamId maxDeletedId() {
        return maxDeletedId;
    }

    public long entriesAdded() {
        return entriesAdded;
    }

    public void setLastId(StreamId id) {
        lastId = id;
    }

    public void setEntriesAdded(long n) {
        entriesAdded = n;
    }

    public void setMaxDeletedId(StreamId id) {
        maxDeletedId = id;
    }

    public void setFirstId(StreamId id) {
        firstId = id;
    }

    public int nodeCount() {
        return nodes.size();
    }

    public Iterable<Node> nodes() {
        return nodes.values();
    }

    public Map<byte[], Group> groups() {
        return groups == null ? java.util.Collections.emptyMap() : groups;
    }

    public int groupCount() {
        return groups == null ? 0 : groups.size();
    }

    public Group group(byte[] name) {
        return groups == null ? null : groups.get(name);
    }

    /** Adds a group; null if one of that name exists. */
    public Group createGroup(byte[] name, StreamId last, long entriesRead) {
        if (groups == null) groups = new TreeMap<>(Arrays::compareUnsigned);
        if (groups.containsKey(name)) return null;
        Group g = new Group(last, entriesRead);
        groups.put(name, g);
        return g;
    }

    public boolean destroyGroup(byte[] name) {
        return groups != null && groups.remove(name) != null;
    }

    @Override
    public int type() {
        return ValueType.STREAM;
    }

    @Override
    public String encoding() {
        return "stream";
    }

    @Override
    public long size() {
        return length;
    }

    @Override
    public long memoryUsage() {
        // this object with its entry fields, the node map (an entry, a key and a node object per
        // listpack), the listpacks
        long m = 88 + nodes.size() * (40L + 32 + 40) + lpBytes;
        if (groups != null) {
            for (Map.Entry<byte[], Group> e : groups.entrySet()) {
                Group g = e.getValue();
                m += 40 + 16 + e.getKey().length + 64 + g.pel.size() * (40L + 32 + 32);
                for (Consumer c : g.consumers.values()) m += 40 + 16 + c.name.length + 48 + c.pel.size() * 40L;
            }
        }
        return m;
    }

    @Override
    public StreamValue copy() {
        StreamValue s = new StreamValue();
        for (Map.Entry<StreamId, Node> e : nodes.entrySet()) {
            Node n = e.getValue();
            s.nodes.put(e.getKey(), new Node(n.ms, n.seq, Arrays.copyOf(n.lp, n.used), n.used, n.elements));
            s.lpBytes += n.used + 16;
        }
        s.length = length;
        s.lastId = lastId;
        s.firstId = firstId;
        s.maxDeletedId = maxDeletedId;
        s.entriesAdded = entriesAdded;
        if (groups != null) {
            for (Map.Entry<byte[], Group> e : groups.entrySet()) {
                Group g = e.getValue();
                Group ng = s.createGroup(e.getKey(), g.lastId, g.entriesRead);
                for (Consumer c : g.consumers.values()) {
                    Consumer nc = ng.createConsumer(c.name, c.seenTime);
                    for (Map.Entry<StreamId, Nack> pe : c.pel.entrySet()) {
                        Nack n = pe.getValue();
                        Nack nn = new Nack(n.deliveryTime, n.deliveryCount, nc);
                        nc.pel.put(pe.getKey(), nn);
                        ng.pel.put(pe.getKey(), nn);
                    }
                }
            }
        }
        return s;
    }

    // ---- appending --------------------------------------------------------------------------------

    /** The fields and values of an entry being added: pairs in argument slices. */
    public interface Fields {
        int count();

        byte[] buf(int i);

        int off(int i);

        int len(int i);
    }

    /** Result of {@link #append}: the ID, or null with the reason in {@link #appendError}. */
    public static final int APPEND_OK = 0;
    public static final int APPEND_NOT_GREATER = 1;
    public static final int APPEND_TOO_LARGE = 2;

    /**
     * Appends an entry (streamAppendItem). useId null: the next ID from the clock; seqGiven false:
     * the sequence of useId is picked. Returns the new ID, or null with {@code error[0]} set.
     */
    public StreamId append(Fields f, StreamId useId, boolean seqGiven, long nowMs, int nodeMaxBytes, int nodeMaxEntries,
                           int[] error) {
        StreamId id;
        if (useId != null) {
            if (seqGiven) {
                id = useId;
            } else if (lastId.ms() == useId.ms()) {
                if (lastId.seq() == -1L) {
                    // Redis fails here without setting errno to EDOM, so it reports the other error
                    error[0] = APPEND_TOO_LARGE;
                    return null;
                }
                id = new StreamId(lastId.ms(), lastId.seq() + 1);
            } else {
                id = useId;
            }
        } else {
            if (Long.compareUnsigned(nowMs, lastId.ms()) > 0) id = new StreamId(nowMs, 0);
            else {
                id = lastId.incr();
                if (id == null) id = StreamId.ZERO;
            }
        }
        if (id.compareTo(lastId) <= 0) {
            error[0] = APPEND_NOT_GREATER;
            return null;
        }
        int n = f.count();
        long total = 0;
        for (int i = 0; i < n; i++) total += f.len(i);
        if (total > LISTPACK_MAX_SIZE) {
            error[0] = APPEND_TOO_LARGE;
            return null;
        }
        int numFields = n / 2;
        // (lastKey and get: lastEntry makes an entry object for every call)
        Node node = nodes.isEmpty() ? null : nodes.get(nodes.lastKey());
        if (node != null) {
            long maxBytes = nodeMaxBytes;
            if (maxBytes == 0 || maxBytes > LISTPACK_MAX_SIZE) maxBytes = LISTPACK_MAX_SIZE;
            boolean full = false;
            if (node.used + total >= maxBytes) {
                full = true;
            } else if (nodeMaxEntries != 0) {
                long count = cur.intAt(node.lp, Lp.HEADER);
                long deleted = cur.intAt(node.lp, cur.next);
                if (count + deleted >= nodeMaxEntries) full = true;
            }
            if (full) {
                lpBytes -= node.lp.length;
                node.shrink();
                lpBytes += node.lp.length;
                node = null;
            }
        }
        int flags = 0;
        if (node == null) {
            int size = Lp.HEADER + 1 + Lp.intSize(1) + Lp.intSize(0) + Lp.intSize(numFields) + Lp.intSize(0);
            for (int i = 0; i < numFields; i++) size += Lp.size(f.buf(2 * i), f.off(2 * i), f.len(2 * i));
            // room for the master entry and the first entries; the node grows by doubling after that
            // and is trimmed to size once full
            byte[] b = new byte[size + (int) Math.min(2 * total + 64, 4096)];
            int p = Lp.HEADER;
            p = Listpack.writeInt(b, p, 1);
            p = Listpack.writeInt(b, p, 0);
            p = Listpack.writeInt(b, p, numFields);
            for (int i = 0; i < numFields; i++) p = Listpack.writeElement(b, p, f.buf(2 * i), f.off(2 * i), f.len(2 * i));
            p = Listpack.writeInt(b, p, 0);
            b[p++] = (byte) Lp.EOF;
            node = new Node(id.ms(), id.seq(), b, p, 4 + numFields);
            node.syncHeader();
            nodes.put(id, node);
            lpBytes += b.length + 16;
            flags = FLAG_SAMEFIELDS;
        } else {
            long count = cur.intAt(node.lp, Lp.HEADER);
            int oldCap = node.lp.length;
            int p = node.replaceInt(cur, Lp.HEADER, count + 1);
            p = cur.skip(node.lp, p); // deleted
            long masterFields = cur.intAt(node.lp, p);
            p = cur.next;
            if (masterFields == numFields) {
                int i;
                for (i = 0; i < numFields; i++) {
                    cur.decode(node.lp, p);
                    if (!cur.equalsBytes(f.buf(2 * i), f.off(2 * i), f.len(2 * i))) break;
                    p = cur.next;
                }
                if (i == numFields) flags = FLAG_SAMEFIELDS;
            }
            lpBytes += node.lp.length - oldCap;
        }
        boolean same = (flags & FLAG_SAMEFIELDS) != 0;
        int need = Lp.intSize(flags) + Lp.intSize(id.ms() - node.ms) + Lp.intSize(id.seq() - node.seq) + 12;
        if (!same) need += Lp.intSize(numFields);
        for (int i = 0; i < n; i++) {
            if (same && (i & 1) == 0) continue;
            need += Lp.size(f.buf(i), f.off(i), f.len(i));
        }
        int oldCap = node.lp.length;
        node.ensure(need);
        byte[] b = node.lp;
        int p = node.used - 1; // over the terminator
        p = Listpack.writeInt(b, p, flags);
        p = Listpack.writeInt(b, p, id.ms() - node.ms);
        p = Listpack.writeInt(b, p, id.seq() - node.seq);
        int elements = 4;
        if (!same) {
            p = Listpack.writeInt(b, p, numFields);
            elements++;
        }
        for (int i = 0; i < n; i++) {
            if (same && (i & 1) == 0) continue;
            p = Listpack.writeElement(b, p, f.buf(i), f.off(i), f.len(i));
            elements++;
        }
        long lpCount = numFields + 3;
        if (!same) lpCount += numFields + 1;
        p = Listpack.writeInt(b, p, lpCount);
        b[p++] = (byte) Lp.EOF;
        node.used = p;
        node.elements += elements;
        node.syncHeader();
        lpBytes += node.lp.length - oldCap;
        length++;
        entriesAdded++;
        lastId = id;
        if (length == 1) firstId = id;
        return id;
    }

    /** Adds a node read from an RDB file (already validated) at the end. */
    public void addLoadedNode(StreamId master, byte[] lp, int len, int elements) {
        nodes.put(master, new Node(master.ms(), master.seq(), lp, len, elements));
        lpBytes += lp.length + 16;
    }

    /**
     * Checks the stream structure of a listpack read from a file or a DUMP payload (after its
     * listpack format was checked): master entry, entries whose element counts agree, and live and
     * deleted counts that match the flags. Returns the number of live entries, -1 if malformed.
     */
    public static long validateNode(byte[] lp, int len) {
        Lp e = new Lp();
        try {
            int end = len - 1;
            int p = Lp.HEADER;
            if (p >= end) return -1;
            long count = e.intAt(lp, p);
            p = e.next;
            long deleted = e.intAt(lp, p);
            p = e.next;
            long mf = e.intAt(lp, p);
            p = e.next;
            if (count < 0 || deleted < 0 || mf < 0) return -1;
            for (long i = 0; i < mf; i++) {
                if (p >= end) return -1;
                p = e.skip(lp, p);
            }
            if (p >= end || e.intAt(lp, p) != 0) return -1;
            p = e.next;
            long live = 0, dead = 0;
            while (p < end) {
                int fl = (int) e.intAt(lp, p);
                p = e.next;
                if (p >= end) return -1;
                e.intAt(lp, p);
                p = e.next;
                if (p >= end) return -1;
                e.intAt(lp, p);
                p = e.next;
                long elements = 3;
                long toSkip;
                if ((fl & FLAG_SAMEFIELDS) != 0) {
                    toSkip = mf;
                } else {
                    if (p >= end) return -1;
                    long nf = e.intAt(lp, p);
                    p = e.next;
                    if (nf < 0) return -1;
                    toSkip = nf * 2;
                    elements++;
                }
                for (long i = 0; i < toSkip; i++) {
                    if (p >= end) return -1;
                    p = e.skip(lp, p);
                }
                elements += toSkip;
                if (p >= end) return -1;
                long lpCount = e.intAt(lp, p);
                p = e.next;
                if (lpCount != elements) return -1;
                if ((fl & FLAG_DELETED) != 0) dead++;
                else live++;
            }
            if (p != end || live != count || dead != deleted || live + dead == 0) return -1;
            return live;
        } catch (RuntimeException ex) {
            return -1;
        }
    }

    /** Sets the length after loading (the master counts summed by the loader). */
    public void setLength(long n) {
        length = n;
    }

    // ---- iteration --------------------------------------------------------------------------------

    /**
     * Walks entries between two IDs (inclusive) in either direction, skipping deleted ones
     * (streamIterator). After {@link #next()} the entry's ID is in {@link #ms}/{@link #seq} and its
     * field-value pairs can be read with {@link #field(int)}/{@link #value(int)} style walking via
     * {@link #forEachField}.
     */
    public final class Iter {
        private StreamId start;
        private StreamId end;
        private boolean rev;
        /**
         * The key of the node opened last, from which the next is found (higherKey / lowerKey: no
         * map views or iterators to allocate, and a node removed meanwhile is no obstacle).
         */
        private StreamId nodeKey;
        private boolean nodesStarted;
        private Node node;
        /** Forward: position of the next entry; reverse: the end of the entry to read next. */
        private int p;
        /** Where the current node's first entry starts (after the master entry). */
        private int firstEntryPos;
        private final Lp e = new Lp();
        private final Lp fe = new Lp();
        /** Fields of the current node's master entry. */
        private int masterFields;
        public long ms;
        public long seq;
        public int numFields;
        boolean same;
        int flags;
        int entryPos;
        int fieldsPos;
        int masterFieldsPos;
        boolean includeDeleted;
        private boolean done;

        Iter(StreamId start, StreamId end, boolean rev) {
            reset(start, end, rev);
        }

        /** Starts over on another range of the same stream (a reply of many single-entry ranges reuses one). */
        public void reset(StreamId start, StreamId end, boolean rev) {
            this.start = start == null ? StreamId.ZERO : start;
            this.end = end == null ? StreamId.MAX : end;
            this.rev = rev;
            nodeKey = null;
            nodesStarted = false;
            node = null;
            done = false;
        }

        /** The next node to read (forward: from the one that may hold start; reverse: from end's), or null. */
        private Node nextNode() {
            StreamId k;
            if (!nodesStarted) {
                nodesStarted = true;
                k = nodes.floorKey(rev ? end : start);
                if (k == null && !rev && !nodes.isEmpty()) k = nodes.firstKey();
            } else {
                k = nodeKey == null ? null : rev ? nodes.lowerKey(nodeKey) : nodes.higherKey(nodeKey);
            }
            nodeKey = k;
            return k == null ? null : nodes.get(k);
        }

        private boolean openNode() {
            while (true) {
                node = nextNode();
                if (node == null) return false;
                byte[] b = node.lp;
                int q = e.skip(b, Lp.HEADER); // count
                q = e.skip(b, q); // deleted
                long mf = e.intAt(b, q);
                q = e.next;
                masterFields = (int) mf;
                masterFieldsPos = q;
                for (long i = 0; i < mf; i++) q = e.skip(b, q);
                q = e.skip(b, q); // master terminator
                firstEntryPos = q;
                p = rev ? node.used - 1 : q;
                return true;
            }
        }

        /** Reads the entry at q; returns the position after it. */
        private int readEntry(byte[] b, int q) {
            entryPos = q;
            flags = (int) e.intAt(b, q);
            long dms = e.intAt(b, e.next);
            long dseq = e.intAt(b, e.next);
            q = e.next;
            ms = node.ms + dms;
            seq = node.seq + dseq;
            same = (flags & FLAG_SAMEFIELDS) != 0;
            if (same) {
                numFields = masterFields;
            } else {
                numFields = (int) e.intAt(b, q);
                q = e.next;
            }
            fieldsPos = q;
            int per = same ? 1 : 2;
            for (long i = 0; i < (long) numFields * per; i++) q = e.skip(b, q);
            return e.skip(b, q);
        }

        public boolean next() {
            if (done) return false;
            while (true) {
                if (node == null && !openNode()) {
                    done = true;
                    return false;
                }
                byte[] b = node.lp;
                if (!rev) {
                    if (p >= node.used - 1) {
                        node = null;
                        continue;
                    }
                    p = readEntry(b, p);
                    int c = StreamId.compare(ms, seq, start.ms(), start.seq());
                    if (c < 0) continue;
                    if (StreamId.compare(ms, seq, end.ms(), end.seq()) > 0) {
                        done = true;
                        return false;
                    }
                    if ((flags & FLAG_DELETED) != 0 && !includeDeleted) continue;
                    return true;
                } else {
                    if (p <= firstEntryPos) {
                        node = null;
                        continue;
                    }
                    // each entry ends with the count of its other elements (lp-count, checked when
                    // a node is loaded): back over it and them, as Redis's reverse iterator does
                    int q = Lp.prev(b, p);
                    long elements = e.intAt(b, q);
                    for (long i = 0; i < elements; i++) q = Lp.prev(b, q);
                    readEntry(b, q);
                    p = q;
                    if (StreamId.compare(ms, seq, end.ms(), end.seq()) > 0) continue;
                    if (StreamId.compare(ms, seq, start.ms(), start.seq()) < 0) {
                        done = true;
                        return false;
                    }
                    if ((flags & FLAG_DELETED) != 0 && !includeDeleted) continue;
                    return true;
                }
            }
        }

        public StreamId id() {
            return new StreamId(ms, seq);
        }

        /** Where {@link #nextField} reads the current entry's next field and value. */
        private int fieldCursor;
        private int masterFieldCursor;

        /** Starts reading the current entry's fields and values with {@link #nextField}. */
        public void rewindFields() {
            fieldCursor = fieldsPos;
            masterFieldCursor = masterFieldsPos;
        }

        /**
         * Decodes the current entry's next field and value (at most {@link #numFields} times after
         * {@link #rewindFields}) into {@link #field()} and {@link #value()}, in place: nothing allocated.
         */
        public void nextField() {
            byte[] b = node.lp;
            if (same) {
                fe.decode(b, masterFieldCursor);
                masterFieldCursor = fe.next;
            } else {
                fe.decode(b, fieldCursor);
                fieldCursor = fe.next;
            }
            e.decode(b, fieldCursor);
            fieldCursor = e.next;
        }

        public Lp field() {
            return fe;
        }

        public Lp value() {
            return e;
        }

        /** Calls the visitor with each field and value of the current entry (elements decoded in place). */
        public void forEachField(FieldVisitor v) {
            rewindFields();
            for (int i = 0; i < numFields; i++) {
                nextField();
                v.visit(fe, e);
            }
        }

        /** Marks the current entry deleted (streamIteratorRemoveEntry); the iterator must not go on in this node. */
        void removeCurrent() {
            byte[] b = node.lp;
            long count = e.intAt(b, Lp.HEADER);
            StreamId key = new StreamId(node.ms, node.seq);
            if (count == 1) {
                lpBytes -= node.lp.length + 16;
                nodes.remove(key);
            } else {
                int oldCap = node.lp.length;
                node.replaceInt(e, entryPos, flags | FLAG_DELETED);
                int q = node.replaceInt(e, Lp.HEADER, count - 1);
                long deleted = e.intAt(node.lp, q);
                node.replaceInt(e, q, deleted + 1);
                lpBytes += node.lp.length - oldCap;
            }
            length--;
        }
    }

    public interface FieldVisitor {
        void visit(Lp field, Lp value);
    }

    /** Receives each live entry with its fields and values (copies), for the AOF rewrite. */
    public interface EntryConsumer {
        void entry(StreamId id, byte[][] fieldsAndValues);
    }

    public void forEachEntry(EntryConsumer consumer) {
        Iter it = new Iter(null, null, false);
        while (it.next()) {
            byte[][] fv = new byte[it.numFields * 2][];
            int[] i = {0};
            it.forEachField((f, v) -> {
                fv[i[0]++] = f.bytes();
                fv[i[0]++] = v.bytes();
            });
            consumer.entry(it.id(), fv);
        }
    }

    public Iter iter(StreamId start, StreamId end, boolean rev) {
        return new Iter(start, end, rev);
    }

    /** First or last live entry's ID; MAX/ZERO when none (streamGetEdgeID with tombstones skipped). */
    public StreamId edgeId(boolean first) {
        Iter it = new Iter(null, null, !first);
        if (it.next()) return it.id();
        return first ? StreamId.MAX : StreamId.ZERO;
    }

    /** First or last entry's ID counting deleted ones too. */
    StreamId edgeIdWithTombstones(boolean first) {
        Iter it = new Iter(null, null, !first);
        it.includeDeleted = true;
        if (it.next()) return it.id();
        return first ? StreamId.MAX : StreamId.ZERO;
    }

    /** The last live entry's ID (streamLastValidID); ZERO if empty. */
    public StreamId lastValidId() {
        return edgeId(false);
    }

    public boolean exists(StreamId id) {
        Iter it = new Iter(id, id, false);
        return it.next();
    }

    /** Deletes one entry (streamDeleteItem); false if it was not there. */
    public boolean delete(StreamId id) {
        Iter it = new Iter(id, id, false);
        if (!it.next()) return false;
        it.removeCurrent();
        return true;
    }

    // ---- trimming ---------------------------------------------------------------------------------

    public static final int TRIM_NONE = 0;
    public static final int TRIM_MAXLEN = 1;
    public static final int TRIM_MINID = 2;

    /** streamTrim: returns the number of entries removed. limit 0: no limit. */
    public long trim(int strategy, long maxlen, StreamId minId, boolean approx, long limit) {
        if (strategy == TRIM_NONE) return 0;
        long deleted = 0;
        Lp e = cur;
        while (!nodes.isEmpty()) {
            if (strategy == TRIM_MAXLEN && length <= maxlen) break;
            Map.Entry<StreamId, Node> first = nodes.firstEntry();
            Node node = first.getValue();
            byte[] b = node.lp;
            long entries = e.intAt(b, Lp.HEADER);
            if (limit != 0 && deleted + entries > limit) break;
            boolean removeNode;
            if (strategy == TRIM_MAXLEN) {
                removeNode = length - entries >= maxlen;
            } else {
                StreamId last = lastEntryId(node);
                removeNode = last.compareTo(minId) < 0;
            }
            if (removeNode) {
                lpBytes -= node.lp.length + 16;
                nodes.remove(first.getKey());
                length -= entries;
                deleted += entries;
                continue;
            }
            if (approx) break;
            long deletedHere = 0;
            int q = e.skip(b, Lp.HEADER);
            q = e.skip(b, q);
            long mf = e.intAt(b, q);
            q = e.next;
            for (long j = 0; j < mf; j++) q = e.skip(b, q);
            q = e.skip(b, q);
            int oldCap = node.lp.length;
            while (q < node.used - 1) {
                b = node.lp;
                int flagsPos = q;
                int fl = (int) e.intAt(b, q);
                long dms = e.intAt(b, e.next);
                long dseq = e.intAt(b, e.next);
                q = e.next;
                boolean stop;
                if (strategy == TRIM_MAXLEN) {
                    stop = length <= maxlen;
                } else {
                    stop = StreamId.compare(node.ms + dms, node.seq + dseq, minId.ms(), minId.seq()) >= 0;
                }
                if (stop) break;
                long toSkip;
                if ((fl & FLAG_SAMEFIELDS) != 0) {
                    toSkip = mf;
                } else {
                    toSkip = e.intAt(b, q) * 2;
                    q = e.next;
                }
                for (long j = 0; j < toSkip; j++) q = e.skip(b, q);
                q = e.skip(b, q);
                if ((fl & FLAG_DELETED) == 0) {
                    // flags stay one byte (values 0..3): marking never moves the entries
                    Listpack.writeInt(b, flagsPos, fl | FLAG_DELETED);
                    deletedHere++;
                    length--;
                }
            }
            deleted += deletedHere;
            int p = node.replaceInt(e, Lp.HEADER, entries - deletedHere);
            long markedDeleted = e.intAt(node.lp, p);
            node.replaceInt(e, p, markedDeleted + deletedHere);
            lpBytes += node.lp.length - oldCap;
            break;
        }
        if (length == 0) firstId = StreamId.ZERO;
        else if (deleted != 0) firstId = edgeId(true);
        return deleted;
    }

    /** The ID of a node's last entry, deleted or not (lpGetEdgeStreamID). */
    private StreamId lastEntryId(Node node) {
        byte[] b = node.lp;
        Lp e = cur;
        int end = node.used - 1;
        int lpCountPos = Lp.prev(b, end);
        long lpCount = e.intAt(b, lpCountPos);
        int q = lpCountPos;
        for (long i = 0; i < lpCount; i++) q = Lp.prev(b, q);
        // q is at the entry's flags
        e.intAt(b, q);
        long dms = e.intAt(b, e.next);
        long dseq = e.intAt(b, e.next);
        return new StreamId(node.ms + dms, node.seq + dseq);
    }

    // ---- consumer group helpers (t_stream.c) ------------------------------------------------------

    /** Whether [start, end] (null: open) may hold a deleted entry (streamRangeHasTombstones). */
    public boolean rangeHasTombstones(StreamId start, StreamId end) {
        if (length == 0 || maxDeletedId.isZero()) return false;
        if (firstId.compareTo(maxDeletedId) > 0) return false;
        StreamId s = start == null ? StreamId.ZERO : start;
        StreamId e = end == null ? StreamId.MAX : end;
        return s.compareTo(maxDeletedId) <= 0 && maxDeletedId.compareTo(e) <= 0;
    }

    /** streamEstimateDistanceFromFirstEverEntry; -1 when unknown. */
    public long estimateDistanceFromFirstEverEntry(StreamId id) {
        if (entriesAdded == 0) return 0;
        if (length == 0 && id.compareTo(lastId) < 1) return entriesAdded;
        int cmpLast = id.compareTo(lastId);
        if (cmpLast == 0) return entriesAdded;
        if (cmpLast > 0) return -1;
        int cmpFirst = id.compareTo(firstId);
        int cmpXdelFirst = maxDeletedId.compareTo(firstId);
        if (maxDeletedId.isZero() || cmpXdelFirst < 0) {
            if (cmpFirst < 0) return entriesAdded - length;
            if (cmpFirst == 0) return entriesAdded - length + 1;
        }
        return -1;
    }

    /** The group's lag, or null-as-Long when it cannot be known (streamReplyWithCGLag). */
    public Long lag(Group g) {
        if (entriesAdded == 0) return 0L;
        if (g.entriesRead != -1 && !rangeHasTombstones(g.lastId, null)) return entriesAdded - g.entriesRead;
        long read = estimateDistanceFromFirstEverEntry(g.lastId);
        if (read != -1) return entriesAdded - read;
        return null;
    }

    /** Number of radix tree nodes Redis's rax would have for the node keys (XINFO radix-tree-nodes). */
    public long raxNodes() {
        if (nodes.isEmpty()) return 1;
        List<byte[]> keys = new ArrayList<>(nodes.size());
        for (StreamId k : nodes.keySet()) keys.add(k.encoded());
        return raxCount(keys, 0, keys.size(), 0);
    }

    private static long raxCount(List<byte[]> keys, int from, int to, int depth) {
        if (depth == 16) return 1;
        // common prefix of the range from depth on
        byte[] a = keys.get(from);
        byte[] z = keys.get(to - 1);
        int d = depth;
        while (d < 16 && a[d] == z[d]) d++;
        if (d > depth) return 1 + raxCount(keys, from, to, d);
        long n = 1;
        int i = from;
        while (i < to) {
            int j = i + 1;
            while (j < to && keys.get(j)[depth] == keys.get(i)[depth]) j++;
            n += raxCount(keys, i, j, depth + 1) - 0;
            i = j;
        }
        return n;
    }
}
