package io.spinel.core.type.list;

import io.spinel.core.keyspace.DbObject;
import io.spinel.core.keyspace.ValueType;
import io.spinel.core.persist.Listpack;
import io.spinel.core.protocol.Reply;
import io.spinel.core.util.Bytes;

/**
 * A list value (Redis's quicklist): a doubly linked list of packed {@link Node}s. A small list is a
 * single node, i.e. one packed {@code byte[]}; past the node size limit set by
 * list-max-listpack-size the list grows more nodes, so pushes and pops at both ends stay O(1) and
 * positions near either end are reached without touching the middle.
 *
 * <p>OBJECT ENCODING says "quicklist" whatever the size: Redis 7.0 has no other list encoding
 * (the "listpack" list encoding arrived in 7.2), and replies must match 7.0.
 *
 * <p>The node limit is fixed when the list is created, as Redis does: a later CONFIG SET of
 * list-max-listpack-size applies to new lists only. list-compress-depth is not applied (it only
 * trades CPU for memory).
 *
 * <p>Elements are binary-safe byte strings; integers are kept as their decimal text, which Redis's
 * integer entries always reproduce exactly, so comparisons are plain byte comparisons.
 */
public final class ListValue extends DbObject {
    /** Node byte limits for list-max-listpack-size -1 .. -5. */
    private static final int[] SIZE_LEVELS = {4096, 8192, 16384, 32768, 65536};
    /** With a count limit (positive fill), a node never grows past this many bytes either. */
    private static final int SAFETY_LIMIT = 8192;
    /** A listpack's header (total bytes, count) and terminator: a node's size is its entries' plus these. */
    private static final int LP_HEADER_AND_END = 7;
    /** What Redis's insert check adds to a node's size and the element's length (SIZE_ESTIMATE_OVERHEAD). */
    private static final int INSERT_ESTIMATE = 8;
    /** What Redis's merge check takes off the two nodes' sizes (one header and terminator, and 4). */
    private static final int MERGE_SAVING = 11;
    private static final int FILL_MAX = 1 << 15;

    private Node head;
    private Node tail;
    private long size;
    private int nodes;
    /**
     * Heap bytes of the linked nodes, kept current as nodes are linked, unlinked or resized, so
     * that {@link #memoryUsage()} (asked after every write) is O(1) however long the list is.
     */
    private long nodeHeap;
    private final int fill;

    /** An empty list whose nodes follow list-max-listpack-size {@code fill}. */
    public ListValue(int fill) {
        this.fill = fill > FILL_MAX ? FILL_MAX : Math.max(fill, -SIZE_LEVELS.length);
    }

    @Override
    public int type() {
        return ValueType.LIST;
    }

    @Override
    public String encoding() {
        return "quicklist";
    }

    @Override
    public long size() {
        return size;
    }

    /** Number of nodes (for tests and DEBUG-style introspection). */
    public int nodeCount() {
        return nodes;
    }

    /** The list-max-listpack-size in force for this list (after clamping). */
    public int fill() {
        return fill;
    }

    // ---- node limits ----------------------------------------------------------------------------

    private boolean fits(long bytes, long entries) {
        if (fill < 0) return bytes <= SIZE_LEVELS[-fill - 1];
        return bytes <= SAFETY_LIMIT && entries <= fill;
    }

    /** Redis's _quicklistNodeAllowInsert: the node's listpack size plus the element's length, estimated. */
    private boolean allowInsert(Node n, int len) {
        if (n == null) return false;
        return fits((long) n.lp + LP_HEADER_AND_END + len + INSERT_ESTIMATE, n.count + 1L);
    }

    /** Redis's _quicklistNodeAllowMerge. */
    private boolean allowMerge(Node a, Node b) {
        if (a == null || b == null) return false;
        return fits(2L * LP_HEADER_AND_END + a.lp + b.lp - MERGE_SAVING, (long) a.count + b.count);
    }

    // ---- linking --------------------------------------------------------------------------------

    /** Takes n into this list's memory figure. */
    private void adopt(Node n) {
        nodeHeap += n.memoryUsage();
        nodes++;
    }

    void arrayResized(int oldLength, int newLength) {
        nodeHeap += Node.arrayHeap(newLength) - Node.arrayHeap(oldLength);
    }

    /** Makes n the only node of an empty list. */
    private void linkOnly(Node n) {
        head = tail = n;
        adopt(n);
    }

    private void linkAfter(Node at, Node n) {
        n.prev = at;
        n.next = at.next;
        if (at.next != null) at.next.prev = n;
        else tail = n;
        at.next = n;
        adopt(n);
    }

    private void linkBefore(Node at, Node n) {
        n.next = at;
        n.prev = at.prev;
        if (at.prev != null) at.prev.next = n;
        else head = n;
        at.prev = n;
        adopt(n);
    }

    private void unlink(Node n) {
        if (n.prev != null) n.prev.next = n.next;
        else head = n.next;
        if (n.next != null) n.next.prev = n.prev;
        else tail = n.prev;
        n.prev = n.next = null;
        nodes--;
        nodeHeap -= n.memoryUsage();
    }

    /** Folds b (a's successor) into a. */
    private void merge(Node a, Node b) {
        if (a.buf.length - a.end >= b.bytes()) {
            System.arraycopy(b.buf, b.start, a.buf, a.end, b.bytes());
            a.end += b.bytes();
        } else {
            byte[] nb = new byte[a.bytes() + b.bytes()];
            System.arraycopy(a.buf, a.start, nb, 0, a.bytes());
            System.arraycopy(b.buf, b.start, nb, a.bytes(), b.bytes());
            a.setBuf(this, nb);
            a.start = 0;
            a.end = nb.length;
        }
        a.count += b.count;
        a.lp += b.lp;
        unlink(b);
    }

    /**
     * Redis's _quicklistMergeNodes after a node split for an insert: the two nodes before center
     * and the two after it merge where they fit, then center with the node before it, then the
     * result with the node after it.
     */
    private void mergeAround(Node center) {
        Node prev = center.prev;
        Node prevPrev = prev == null ? null : prev.prev;
        Node next = center.next;
        Node nextNext = next == null ? null : next.next;
        if (allowMerge(prevPrev, prev)) merge(prevPrev, prev);
        if (allowMerge(next, nextNext)) merge(next, nextNext);
        Node target = center;
        if (allowMerge(center.prev, center)) {
            target = center.prev;
            merge(target, center);
        }
        if (allowMerge(target, target.next)) merge(target, target.next);
    }

    // ---- pushes and pops ------------------------------------------------------------------------

    public void pushHead(byte[] b, int off, int len) {
        Node h = head;
        if (h == null) {
            linkOnly(Node.of(b, off, len));
        } else if (allowInsert(h, len)) {
            h.pushHead(this, b, off, len);
        } else {
            h.trim(this);
            linkBefore(h, Node.of(b, off, len));
        }
        size++;
    }

    public void pushTail(byte[] b, int off, int len) {
        Node t = tail;
        append(b, off, len, t != null && !allowInsert(t, len), 0);
    }

    /**
     * Appends an element: {@code newNode} starts a node (with room for {@code room} bytes of
     * entries), otherwise the element joins the last node whatever its limit. {@link #pushTail}
     * decides by the node limit; an RDB load by the saved nodes, which Redis keeps as they were.
     */
    public void append(byte[] b, int off, int len, boolean newNode, int room) {
        Node t = tail;
        if (t == null) {
            linkOnly(Node.of(b, off, len, room));
        } else if (newNode) {
            t.trim(this);
            linkAfter(t, Node.of(b, off, len, room));
        } else {
            t.pushTail(this, b, off, len);
        }
        size++;
    }

    public void push(boolean atHead, byte[] b, int off, int len) {
        if (atHead) pushHead(b, off, len);
        else pushTail(b, off, len);
    }

    /** Replies with the first (atHead) or last element as a bulk string and removes it. The list must not be empty. */
    public void popTo(boolean atHead, Reply r) {
        Node n = atHead ? head : tail;
        if (atHead) {
            int len = Node.lengthAt(n.buf, n.start);
            r.bulk(n.buf, n.start + Node.headerSize(len), len);
            n.lp -= Listpack.elementSize(n.buf, n.start + Node.headerSize(len), len);
            n.start += Node.entrySize(len);
        } else {
            int len = Node.lengthBefore(n.buf, n.end);
            int es = Node.entrySize(len);
            r.bulk(n.buf, n.end - es + Node.headerSize(len), len);
            n.lp -= Listpack.elementSize(n.buf, n.end - es + Node.headerSize(len), len);
            n.end -= es;
        }
        afterPop(n);
    }

    /** Removes and returns the first (atHead) or last element. The list must not be empty. */
    public byte[] pop(boolean atHead) {
        byte[] v = new byte[endLength(atHead)];
        popInto(atHead, v);
        return v;
    }

    /** The length of the element at one end of a non-empty list. */
    public int endLength(boolean atHead) {
        return atHead ? Node.lengthAt(head.buf, head.start) : Node.lengthBefore(tail.buf, tail.end);
    }

    /** Pops the element at one end into dst[0, {@link #endLength}) instead of a new array. */
    public void popInto(boolean atHead, byte[] dst) {
        Node n = atHead ? head : tail;
        if (atHead) {
            int len = Node.lengthAt(n.buf, n.start);
            System.arraycopy(n.buf, n.start + Node.headerSize(len), dst, 0, len);
            n.lp -= Listpack.elementSize(dst, 0, len);
            n.start += Node.entrySize(len);
        } else {
            int len = Node.lengthBefore(n.buf, n.end);
            int es = Node.entrySize(len);
            System.arraycopy(n.buf, n.end - es + Node.headerSize(len), dst, 0, len);
            n.lp -= Listpack.elementSize(dst, 0, len);
            n.end -= es;
        }
        afterPop(n);
    }

    private void afterPop(Node n) {
        n.count--;
        size--;
        if (n.count == 0) unlink(n);
        else n.shrinkIfSparse(this);
    }

    // ---- positional access ----------------------------------------------------------------------

    /**
     * A position in the list, for reading elements in place: {@link #array()}, {@link #offset()} and
     * {@link #length()} describe the current element. Invalid once the list is modified.
     */
    public static final class Cursor {
        Node node;
        int pos;
        int idx;
        int len;

        void set(Node n, int pos, int idx) {
            this.node = n;
            this.pos = pos;
            this.idx = idx;
            this.len = Node.lengthAt(n.buf, pos);
        }

        public byte[] array() {
            return node.buf;
        }

        public int offset() {
            return pos + Node.headerSize(len);
        }

        public int length() {
            return len;
        }

        public boolean equalTo(byte[] b, int off, int blen) {
            return blen == len && Bytes.equals(node.buf, offset(), len, b, off, blen);
        }

        /** Moves towards the tail; false (and the cursor unusable) past the last element. */
        public boolean next() {
            pos += Node.entrySize(len);
            idx++;
            if (idx >= node.count) {
                node = node.next;
                if (node == null) return false;
                pos = node.start;
                idx = 0;
            }
            len = Node.lengthAt(node.buf, pos);
            return true;
        }

        /** Moves towards the head; false (and the cursor unusable) before the first element. */
        public boolean prev() {
            if (idx == 0) {
                node = node.prev;
                if (node == null) return false;
                idx = node.count - 1;
                pos = node.end;
            } else {
                idx--;
            }
            pos -= Node.entrySize(Node.lengthBefore(node.buf, pos));
            len = Node.lengthAt(node.buf, pos);
            return true;
        }
    }

    /** The node holding element {@code index} (0 &lt;= index &lt; size); its index within the node goes to c.idx. */
    private Node locate(long index, Cursor c) {
        Node n;
        if (index < size / 2) {
            n = head;
            while (index >= n.count) {
                index -= n.count;
                n = n.next;
            }
        } else {
            long fromTail = size - 1 - index;
            n = tail;
            while (fromTail >= n.count) {
                fromTail -= n.count;
                n = n.prev;
            }
            index = n.count - 1 - fromTail;
        }
        c.node = n;
        c.idx = (int) index;
        return n;
    }

    /**
     * A cursor on element {@code index} (negative counts from the tail, -1 being the last), or null
     * when out of range.
     */
    public Cursor cursor(long index) {
        if (index < 0) index += size;
        if (index < 0 || index >= size) return null;
        Cursor c = new Cursor();
        Node n = locate(index, c);
        c.set(n, n.offsetOf(c.idx), c.idx);
        return c;
    }

    /** Writes elements [from, from + n) as bulks (from the highest index down when reversed, starting at from). */
    public void replyRange(Reply r, long from, long n, boolean reverse) {
        if (n <= 0) return;
        Cursor c = cursor(from);
        for (long k = 0; ; ) {
            r.bulk(c.node.buf, c.offset(), c.len);
            if (++k == n) break;
            if (reverse) c.prev();
            else c.next();
        }
    }

    /** Calls the visitor for every element, head to tail. */
    public void forEach(ElementVisitor visitor) {
        for (Node n = head; n != null; n = n.next) {
            byte[] buf = n.buf;
            int p = n.start;
            for (int i = 0; i < n.count; i++) {
                int len = Node.lengthAt(buf, p);
                int h = Node.headerSize(len);
                visitor.accept(buf, p + h, len);
                p += len + 2 * h;
            }
        }
    }

    /**
     * Calls the visitor once per node, head to tail, with the node's element count, then the
     * element visitor for each of its elements. Persistence writes one listpack per node, as
     * Redis writes one per quicklist node.
     */
    public void forEachNode(java.util.function.IntConsumer nodeStart, ElementVisitor visitor) {
        for (Node n = head; n != null; n = n.next) {
            nodeStart.accept(n.count);
            byte[] buf = n.buf;
            int p = n.start;
            for (int i = 0; i < n.count; i++) {
                int len = Node.lengthAt(buf, p);
                int h = Node.headerSize(len);
                visitor.accept(buf, p + h, len);
                p += len + 2 * h;
            }
        }
    }

    /** Receives elements in place (valid only during the call). */
    @FunctionalInterface
    public interface ElementVisitor {
        void accept(byte[] buf, int off, int len);
    }

    // ---- updates in the middle ------------------------------------------------------------------

    /**
     * Inserts an element next to entry {@code idx} of node n (at byte offset pos, pivotLen bytes),
     * as Redis's _quicklistInsert places it: in the node while it has room; else at the head of
     * the next node or the tail of the previous one when the pivot ends its node and that node
     * has room; else in a node of its own there; else the node is split at the pivot, the element
     * joins the part on its side, and the nodes around merge where they fit.
     */
    private void insertNextTo(Node n, int idx, int pos, int pivotLen, boolean after, byte[] b, int off, int len) {
        boolean full = !allowInsert(n, len);
        boolean atTail = after && idx == n.count - 1;
        boolean atHead = !after && idx == 0;
        if (!full) {
            n.insertAt(this, after ? pos + Node.entrySize(pivotLen) : pos, b, off, len);
        } else if (atTail && allowInsert(n.next, len)) {
            n.next.pushHead(this, b, off, len);
        } else if (atHead && allowInsert(n.prev, len)) {
            n.prev.pushTail(this, b, off, len);
        } else if (atTail) {
            linkAfter(n, Node.of(b, off, len));
        } else if (atHead) {
            linkBefore(n, Node.of(b, off, len));
        } else if (after) {
            // n keeps the pivot and what precedes it; the element leads the rest
            Node right = n.splitAt(this, idx + 1);
            linkAfter(n, right);
            right.pushHead(this, b, off, len);
            mergeAround(n);
        } else {
            // the element ends what precedes the pivot; the pivot leads the rest
            Node right = n.splitAt(this, idx);
            linkAfter(n, right);
            n.pushTail(this, b, off, len);
            mergeAround(right);
        }
        size++;
    }

    /**
     * LINSERT: inserts the element before or after the first occurrence of the pivot, searching from
     * the head. Returns false when the pivot is absent.
     */
    public boolean insert(boolean after, byte[] pivot, int pOff, int pLen, byte[] b, int off, int len) {
        if (size == 0) return false;
        Cursor c = cursor(0);
        do {
            if (c.equalTo(pivot, pOff, pLen)) {
                Node n = c.node;
                insertNextTo(n, c.idx, c.pos, c.len, after, b, off, len);
                return true;
            }
        } while (c.next());
        return false;
    }

    /** LSET: replaces element {@code index} (negative from the tail); false when out of range. */
    public boolean set(long index, byte[] b, int off, int len) {
        Cursor c = cursor(index);
        if (c == null) return false;
        Node n = c.node;
        int oldSize = Node.entrySize(c.len);
        if (oldSize == Node.entrySize(len)) {
            n.lp += Listpack.elementSize(b, off, len) - n.lpAt(c.pos);
            Node.write(n.buf, c.pos, b, off, len);
            return true;
        }
        // as Redis 7.0's LSET (lpReplace): the element stays in its node whatever the node's size
        // limit, so that the nodes, and DUMP and RDB with them, are Redis's
        int p = n.removeBytes(c.pos, c.pos + oldSize, 1);
        n.insertAt(this, p, b, off, len);
        n.shrinkIfSparse(this);
        return true;
    }

    /** Deletes {@code n} elements from index {@code from} on (0 &lt;= from, from + n &lt;= size). */
    public void deleteRange(long from, long n) {
        if (n <= 0) return;
        Cursor c = new Cursor();
        Node node = locate(from, c);
        int i = c.idx;
        while (n > 0) {
            Node next = node.next;
            int k = (int) Math.min(n, node.count - i);
            if (i == 0 && k == node.count) unlink(node);
            else node.deleteRange(this, i, k);
            n -= k;
            size -= k;
            i = 0;
            node = next;
        }
    }

    /**
     * LREM: removes up to {@code limit} elements equal to the given one (0: all), scanning from the
     * tail when {@code fromTail}. Each node is compacted in one pass. Returns how many went.
     */
    public long remove(byte[] b, int off, int len, long limit, boolean fromTail) {
        if (limit <= 0) limit = Long.MAX_VALUE;
        long removed = 0;
        Node n = fromTail ? tail : head;
        while (n != null && removed < limit) {
            Node following = fromTail ? n.prev : n.next;
            long here = fromTail ? filterBackward(n, b, off, len, limit - removed)
                    : filterForward(n, b, off, len, limit - removed);
            removed += here;
            // as Redis's LREM: a node left empty goes, the others stay as they are (no merging),
            // so that DUMP and RDB hold Redis's nodes
            if (n.count == 0) unlink(n);
            else if (here > 0) n.shrinkIfSparse(this);
            n = following;
        }
        size -= removed;
        return removed;
    }

    private static long filterForward(Node n, byte[] b, int off, int len, long limit) {
        byte[] buf = n.buf;
        int r = n.start;
        int w = r;
        int end = n.end;
        long removed = 0;
        while (r < end) {
            int l = Node.lengthAt(buf, r);
            int h = Node.headerSize(l);
            int es = l + 2 * h;
            if (l == len && Bytes.equals(buf, r + h, l, b, off, len)) {
                removed++;
                n.lp -= Listpack.elementSize(buf, r + h, l);
                r += es;
                if (removed == limit) break;
            } else {
                if (w != r) System.arraycopy(buf, r, buf, w, es);
                w += es;
                r += es;
            }
        }
        if (removed > 0) {
            if (r < end && w != r) System.arraycopy(buf, r, buf, w, end - r);
            n.end = w + (end - r);
            n.count -= (int) removed;
        }
        return removed;
    }

    private static long filterBackward(Node n, byte[] b, int off, int len, long limit) {
        byte[] buf = n.buf;
        int r = n.end;
        int w = r;
        int start = n.start;
        long removed = 0;
        while (r > start) {
            int l = Node.lengthBefore(buf, r);
            int h = Node.headerSize(l);
            int es = l + 2 * h;
            int p = r - es;
            if (l == len && Bytes.equals(buf, p + h, l, b, off, len)) {
                removed++;
                n.lp -= Listpack.elementSize(buf, p + h, l);
                r = p;
                if (removed == limit) break;
            } else {
                if (w != r) System.arraycopy(buf, p, buf, w - es, es);
                w -= es;
                r = p;
            }
        }
        if (removed > 0) {
            if (r > start && w != r) System.arraycopy(buf, start, buf, w - (r - start), r - start);
            n.start = w - (r - start);
            n.count -= (int) removed;
        }
        return removed;
    }

    // ---- Value ----------------------------------------------------------------------------------

    @Override
    public ListValue copy() {
        ListValue l = new ListValue(fill);
        for (Node n = head; n != null; n = n.next) {
            Node c = n.copy();
            l.nodeHeap += c.memoryUsage();
            if (l.tail == null) {
                l.head = l.tail = c;
            } else {
                c.prev = l.tail;
                l.tail.next = c;
                l.tail = c;
            }
        }
        l.size = size;
        l.nodes = nodes;
        return l;
    }

    @Override
    public long memoryUsage() {
        return 64 + nodeHeap; // this object with its entry fields (compact headers), the nodes
    }

    /** Checks the structure's invariants (tests). */
    void verify() {
        long total = 0;
        long heap = 0;
        int k = 0;
        Node prev = null;
        for (Node n = head; n != null; n = n.next) {
            if (n.prev != prev) throw new IllegalStateException("bad prev link at node " + k);
            if (n.count <= 0) throw new IllegalStateException("empty node " + k);
            int p = n.start;
            for (int i = 0; i < n.count; i++) {
                int len = Node.lengthAt(n.buf, p);
                int q = p + Node.entrySize(len);
                if (Node.lengthBefore(n.buf, q) != len) throw new IllegalStateException("bad trailer in node " + k);
                p = q;
            }
            if (p != n.end) throw new IllegalStateException("node " + k + " entries end at " + p + " not " + n.end);
            if (n.lp != n.lpOf(n.start, n.end)) throw new IllegalStateException("node " + k + " listpack size " + n.lp + " != " + n.lpOf(n.start, n.end));
            heap += n.memoryUsage();
            total += n.count;
            prev = n;
            k++;
        }
        if (heap != nodeHeap) throw new IllegalStateException("node heap " + nodeHeap + " != " + heap);
        if (prev != tail) throw new IllegalStateException("tail mismatch");
        if (k != nodes) throw new IllegalStateException("node count " + k + " != " + nodes);
        if (total != size) throw new IllegalStateException("size " + total + " != " + size);
    }
}
