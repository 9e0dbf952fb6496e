package io.spinel.core.type.zset;

import io.spinel.core.keyspace.KeyHash;
import io.spinel.core.keyspace.KeyTable;
import io.spinel.core.util.Bytes;

import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The large sorted set encoding ("skiplist"): a skip list with spans, ordered by (score, member
 * bytes), for O(log n) rank and range operations, plus a hash index from member to node for O(1)
 * score lookups (Redis's zskiplist + dict).
 *
 * <p>Memory and cache misses: 15 of 16 nodes have at most two levels, so levels 0 and 1 live in
 * the node itself ({@link Node#next0}, whose span is always 1, and {@link Node#next1}); taller
 * nodes ({@link Tall}) hold levels 2-5 in fields too, and only the rare taller ones carry arrays. The index stores the nodes themselves (the member is in the node), one reference and one
 * tag byte per slot.
 */
final class SkipList {
    static final int MAX_LEVEL = 32;

    /**
     * One element. Levels 0 and 1 are fields ({@link #next1} is {@link #NONE} in a node without
     * level 1); a node of three levels or more is a {@link Tall}, with levels 2 to 5 in fields
     * as well. Walking a level through an array cost a cache miss for the array on top of the
     * one for the node, on the levels every search crosses; only nodes above level 6 (one in
     * 4,096) and the header keep arrays, and those few nodes stay in cache.
     */
    static class Node {
        /** The next1 of single-level nodes. */
        static final Node NONE = new Node(null, 0);

        final byte[] ele;
        double score;
        Node backward;
        Node next0;
        Node next1;
        int span1;

        Node(byte[] ele, double score) {
            this.ele = ele;
            this.score = score;
        }

        static Node create(byte[] ele, double score, int level) {
            if (level > 2) return new Tall(ele, score, level);
            Node n = new Node(ele, score);
            if (level == 1) n.next1 = NONE;
            return n;
        }

        int level() {
            if (next1 == NONE) return 1;
            return this instanceof Tall ? ((Tall) this).level : 2;
        }

        final Node forward(int i) {
            return i == 0 ? next0 : i == 1 ? next1 : ((Tall) this).tallForward(i);
        }

        final void setForward(int i, Node n) {
            if (i == 0) next0 = n;
            else if (i == 1) next1 = n;
            else ((Tall) this).setTallForward(i, n);
        }

        final int span(int i) {
            return i == 0 ? 1 : i == 1 ? span1 : ((Tall) this).tallSpan(i);
        }

        final void setSpan(int i, int s) {
            if (i == 1) span1 = s;
            else if (i > 1) ((Tall) this).setTallSpan(i, s);
        }

        /** Heap bytes of this node, its level arrays and its member (compressed references). */
        long heapSize() {
            return 40 + align(16L + ele.length);
        }
    }

    /** A node of three levels or more: levels 2-5 in fields, 6 and up in arrays. */
    static final class Tall extends Node {
        private static final int INLINE_TOP = 5;
        final int level;
        private Node next2, next3, next4, next5;
        private int span2, span3, span4, span5;
        private final Node[] up;
        private final int[] upSpan;

        Tall(byte[] ele, double score, int level) {
            super(ele, score);
            this.level = level;
            if (level > INLINE_TOP + 1) {
                up = new Node[level - INLINE_TOP - 1];
                upSpan = new int[level - INLINE_TOP - 1];
            } else {
                up = null;
                upSpan = null;
            }
        }

        Node tallForward(int i) {
            switch (i) {
                case 2: return next2;
                case 3: return next3;
                case 4: return next4;
                case 5: return next5;
                default: return up[i - INLINE_TOP - 1];
            }
        }

        void setTallForward(int i, Node n) {
            switch (i) {
                case 2: next2 = n; break;
                case 3: next3 = n; break;
                case 4: next4 = n; break;
                case 5: next5 = n; break;
                default: up[i - INLINE_TOP - 1] = n;
            }
        }

        int tallSpan(int i) {
            switch (i) {
                case 2: return span2;
                case 3: return span3;
                case 4: return span4;
                case 5: return span5;
                default: return upSpan[i - INLINE_TOP - 1];
            }
        }

        void setTallSpan(int i, int s) {
            switch (i) {
                case 2: span2 = s; break;
                case 3: span3 = s; break;
                case 4: span4 = s; break;
                case 5: span5 = s; break;
                default: upSpan[i - INLINE_TOP - 1] = s;
            }
        }

        @Override
        long heapSize() {
            long n = 88 + align(16L + (ele == null ? 0 : ele.length));
            if (up != null) n += 2 * align(16L + 4L * up.length);
            return n;
        }
    }

    static long align(long n) {
        return (n + 7) & ~7L;
    }

    /** member -> node. */
    static final class Index extends KeyTable {
        @Override
        protected boolean matches(Object e, byte[] k, int off, int len) {
            byte[] m = ((Node) e).ele;
            return m.length == len && Arrays.equals(m, 0, len, k, off, off + len);
        }

        @Override
        protected long hashOf(Object e) {
            return KeyHash.of(((Node) e).ele);
        }
    }

    /** Scratch paths for insert and delete; the executor is one thread, tests may be others. */
    private static final ThreadLocal<Object[]> SCRATCH =
            ThreadLocal.withInitial(() -> new Object[] {new Node[MAX_LEVEL], new long[MAX_LEVEL]});

    final Node header = Node.create(null, 0, MAX_LEVEL);
    Node tail;
    int length;
    int level = 1;
    final Index index = new Index();
    /** Sum of {@link Node#heapSize()} over the elements, for MEMORY USAGE. */
    long nodeBytes;

    // ---- comparisons -----------------------------------------------------------------------------

    /** Whether node n sorts before (score, member). */
    private static boolean before(Node n, double score, byte[] m, int off, int len) {
        return n.score < score
                || (n.score == score && Arrays.compareUnsigned(n.ele, 0, n.ele.length, m, off, off + len) < 0);
    }

    private static boolean beforeOrSame(Node n, double score, byte[] m, int off, int len) {
        return n.score < score
                || (n.score == score && Arrays.compareUnsigned(n.ele, 0, n.ele.length, m, off, off + len) <= 0);
    }

    static int randomLevel() {
        // each extra level with probability 1/4, like Redis's ZSKIPLIST_P
        int r = ThreadLocalRandom.current().nextInt();
        int lvl = 1 + Integer.numberOfTrailingZeros(r | (1 << 30)) / 2;
        return Math.min(lvl, MAX_LEVEL);
    }

    // ---- lookups -------------------------------------------------------------------------------

    Node find(byte[] m, int off, int len) {
        return (Node) index.get(KeyHash.of(m, off, len), m, off, len);
    }

    Node first() {
        return header.next0;
    }

    /** 1-based rank of the element, 0 if absent. */
    long rank(double score, byte[] m, int off, int len) {
        Node x = header;
        long rank = 0;
        for (int i = level - 1; i >= 0; i--) {
            Node f;
            while ((f = x.forward(i)) != null && beforeOrSame(f, score, m, off, len)) {
                rank += x.span(i);
                x = f;
            }
            if (x != header && x.score == score && Bytes.equals(x.ele, 0, x.ele.length, m, off, len)) {
                return rank;
            }
        }
        return 0;
    }

    long rank(Node n) {
        return rank(n.score, n.ele, 0, n.ele.length);
    }

    /** The node at a 1-based rank, or null. */
    Node byRank(long rank) {
        Node x = header;
        long traversed = 0;
        for (int i = level - 1; i >= 0; i--) {
            Node f;
            while ((f = x.forward(i)) != null && traversed + x.span(i) <= rank) {
                traversed += x.span(i);
                x = f;
            }
            if (traversed == rank) return x == header ? null : x;
        }
        return null;
    }

    // ---- insert / delete -------------------------------------------------------------------------

    /** Adds a member known to be absent; the member array is kept. */
    Node insert(double score, byte[] member) {
        Node x = Node.create(member, score, randomLevel());
        link(x);
        index.put(KeyHash.of(member), x, member, 0, member.length);
        nodeBytes += x.heapSize();
        return x;
    }

    /** Links node x (with its level arrays in place) at the position of its score and member. */
    private void link(Node x) {
        Object[] scratch = SCRATCH.get();
        Node[] update = (Node[]) scratch[0];
        long[] rank = (long[]) scratch[1];
        double score = x.score;
        byte[] m = x.ele;
        Node p = header;
        for (int i = level - 1; i >= 0; i--) {
            rank[i] = i == level - 1 ? 0 : rank[i + 1];
            Node f;
            while ((f = p.forward(i)) != null && before(f, score, m, 0, m.length)) {
                rank[i] += p.span(i);
                p = f;
            }
            update[i] = p;
        }
        int lvl = x.level();
        if (lvl > level) {
            for (int i = level; i < lvl; i++) {
                rank[i] = 0;
                update[i] = header;
                header.setSpan(i, length);
            }
            level = lvl;
        }
        for (int i = 0; i < lvl; i++) {
            Node u = update[i];
            x.setForward(i, u.forward(i));
            u.setForward(i, x);
            if (i > 0) {
                x.setSpan(i, (int) (u.span(i) - (rank[0] - rank[i])));
                u.setSpan(i, (int) (rank[0] - rank[i]) + 1);
            }
        }
        for (int i = lvl; i < level; i++) update[i].setSpan(i, update[i].span(i) + 1);
        x.backward = update[0] == header ? null : update[0];
        if (x.next0 != null) x.next0.backward = x;
        else tail = x;
        length++;
        Arrays.fill(update, 0, level, null);
    }

    /** Fills update[] with the last node before x on every level. */
    private void pathTo(Node x, Node[] update) {
        double score = x.score;
        byte[] m = x.ele;
        Node p = header;
        for (int i = level - 1; i >= 0; i--) {
            Node f;
            while ((f = p.forward(i)) != null && before(f, score, m, 0, m.length)) p = f;
            update[i] = p;
        }
    }

    private void unlink(Node x, Node[] update) {
        for (int i = 0; i < level; i++) {
            Node u = update[i];
            if (u.forward(i) == x) {
                if (i > 0) u.setSpan(i, u.span(i) + x.span(i) - 1);
                u.setForward(i, x.forward(i));
            } else if (i > 0) {
                u.setSpan(i, u.span(i) - 1);
            }
        }
        if (x.next0 != null) x.next0.backward = x.backward;
        else tail = x.backward;
        while (level > 1 && header.forward(level - 1) == null) level--;
        length--;
    }

    /** Removes node x (from the list and the index). */
    void delete(Node x) {
        Node[] update = (Node[]) SCRATCH.get()[0];
        pathTo(x, update);
        unlink(x, update);
        Arrays.fill(update, 0, MAX_LEVEL, null);
        index.remove(KeyHash.of(x.ele), x.ele, 0, x.ele.length);
        nodeBytes -= x.heapSize();
    }

    /** Removes the member; returns whether it was there. */
    boolean delete(byte[] m, int off, int len) {
        Node x = find(m, off, len);
        if (x == null) return false;
        delete(x);
        return true;
    }

    /** Moves node x to a new score, in place when its neighbours allow (Redis's zslUpdateScore). */
    void updateScore(Node x, double newScore) {
        if ((x.backward == null || x.backward.score < newScore)
                && (x.next0 == null || x.next0.score > newScore)) {
            x.score = newScore;
            return;
        }
        Node[] update = (Node[]) SCRATCH.get()[0];
        pathTo(x, update);
        unlink(x, update);
        Arrays.fill(update, 0, MAX_LEVEL, null);
        x.score = newScore;
        x.backward = null;
        for (int i = 0; i < x.level(); i++) {
            x.setForward(i, null);
            x.setSpan(i, 0);
        }
        link(x);
    }

    // ---- ranges --------------------------------------------------------------------------------

    /** The first node with score in range, or null. */
    Node firstInRange(ScoreRange r) {
        if (!isInRange(r)) return null;
        Node x = header;
        for (int i = level - 1; i >= 0; i--) {
            Node f;
            while ((f = x.forward(i)) != null && !r.gteMin(f.score)) x = f;
        }
        x = x.next0;
        return x != null && r.lteMax(x.score) ? x : null;
    }

    Node lastInRange(ScoreRange r) {
        if (!isInRange(r)) return null;
        Node x = header;
        for (int i = level - 1; i >= 0; i--) {
            Node f;
            while ((f = x.forward(i)) != null && r.lteMax(f.score)) x = f;
        }
        return x != header && r.gteMin(x.score) ? x : null;
    }

    private boolean isInRange(ScoreRange r) {
        if (r.isEmpty()) return false;
        return tail != null && r.gteMin(tail.score) && r.lteMax(header.next0.score);
    }

    Node firstInLexRange(LexRange r) {
        if (!isInLexRange(r)) return null;
        Node x = header;
        for (int i = level - 1; i >= 0; i--) {
            Node f;
            while ((f = x.forward(i)) != null && !r.gteMin(f.ele, 0, f.ele.length)) x = f;
        }
        x = x.next0;
        return x != null && r.lteMax(x.ele, 0, x.ele.length) ? x : null;
    }

    Node lastInLexRange(LexRange r) {
        if (!isInLexRange(r)) return null;
        Node x = header;
        for (int i = level - 1; i >= 0; i--) {
            Node f;
            while ((f = x.forward(i)) != null && r.lteMax(f.ele, 0, f.ele.length)) x = f;
        }
        return x != header && r.gteMin(x.ele, 0, x.ele.length) ? x : null;
    }

    private boolean isInLexRange(LexRange r) {
        if (r.isEmpty()) return false;
        return tail != null && r.gteMin(tail.ele, 0, tail.ele.length)
                && r.lteMax(header.next0.ele, 0, header.next0.ele.length);
    }

    /**
     * Deletes the run of nodes that starts after update[0] while they pass the test. update[]
     * stays the predecessor path of the next node after each unlink, so the run costs O(k).
     */
    private long deleteRun(Node[] update, java.util.function.Predicate<Node> inRange) {
        long removed = 0;
        Node x = update[0].next0;
        while (x != null && inRange.test(x)) {
            Node next = x.next0;
            unlink(x, update);
            index.remove(KeyHash.of(x.ele), x.ele, 0, x.ele.length);
            nodeBytes -= x.heapSize();
            removed++;
            x = next;
        }
        Arrays.fill(update, 0, MAX_LEVEL, null);
        return removed;
    }

    long deleteRangeByScore(ScoreRange r) {
        Node[] update = (Node[]) SCRATCH.get()[0];
        Node x = header;
        for (int i = level - 1; i >= 0; i--) {
            Node f;
            while ((f = x.forward(i)) != null && !r.gteMin(f.score)) x = f;
            update[i] = x;
        }
        return deleteRun(update, n -> r.lteMax(n.score));
    }

    long deleteRangeByLex(LexRange r) {
        Node[] update = (Node[]) SCRATCH.get()[0];
        Node x = header;
        for (int i = level - 1; i >= 0; i--) {
            Node f;
            while ((f = x.forward(i)) != null && !r.gteMin(f.ele, 0, f.ele.length)) x = f;
            update[i] = x;
        }
        return deleteRun(update, n -> r.lteMax(n.ele, 0, n.ele.length));
    }

    /** Deletes 1-based ranks start..end inclusive. */
    long deleteRangeByRank(long start, long end) {
        Node[] update = (Node[]) SCRATCH.get()[0];
        Node x = header;
        long traversed = 0;
        for (int i = level - 1; i >= 0; i--) {
            Node f;
            while ((f = x.forward(i)) != null && traversed + x.span(i) < start) {
                traversed += x.span(i);
                x = f;
            }
            update[i] = x;
        }
        long[] rank = {traversed + 1};
        return deleteRun(update, n -> rank[0]++ <= end);
    }

    long heapSize() {
        // this object, the header node with its full-height arrays, the index arrays
        return 40 + header.heapSize() + 64 + 5L * index.capacity() + nodeBytes;
    }
}
