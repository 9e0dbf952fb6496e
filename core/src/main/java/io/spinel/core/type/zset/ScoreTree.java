package io.spinel.core.type.zset;

import io.spinel.core.keyspace.KeyTable;
import io.spinel.core.util.Bytes;

import java.util.Arrays;

/**
 * The large sorted set encoding (what Redis calls "skiplist", and OBJECT ENCODING still reports):
 * a B+tree ordered by (score, member bytes unsigned) whose inner nodes count the elements under
 * each child, for O(log n) rank and range operations, plus a hash index of the elements for O(1)
 * score lookups (Redis's zskiplist + dict).
 *
 * <p>Why not a skip list: a search in a 100k-element skip list visits about 30 nodes, each a
 * cache miss, and a changed score needs two searches (Redis's zslUpdateScore). Here a search
 * reads two or three nodes whose scores sit in one {@code double[]} each, so most of it is a
 * binary search inside arrays that are already in cache.
 *
 * <p>An element is one array, its "item": the member's bytes, then the score's 8 bytes (the index
 * finds items by member, leaves point to them). Leaves hold the scores ({@code double[]}, a copy
 * the searches read) and the items side by side and are linked both ways for iteration; inner
 * nodes hold, for every child but the first, a separator key (the
 * child's first key when the separator was made) and every child's element count. Separators are
 * only made by splits and rebalancing; a delete may leave one below its child's current first key,
 * which keeps the invariant every search relies on: all keys of child j are at or above
 * separator j and below separator j+1. Scores compare as C doubles ({@code -0.0 == 0.0}); NaN never
 * gets in.
 */
final class ScoreTree {
    /** Most elements in a leaf (its arrays start smaller while the tree is a single leaf). */
    static final int LEAF_CAP = 64;
    /** Most children of an inner node. */
    static final int INNER_CAP = 64;
    /** Enough levels for 2^31 elements at the minimum fill of the smallest nodes tests use. */
    private static final int MAX_HEIGHT = 40;

    // The node sizes are per tree so that tests can make small nodes and deep trees.
    private final int leafCap;
    private final int innerCap;
    /** Below these a node takes elements from a sibling or merges with it. */
    private final int leafMin;
    private final int innerMin;
    private final long innerBytes;

    /** An element's array: its member followed by the score's raw bits, little endian. */
    static byte[] item(byte[] m, int off, int len, double score) {
        byte[] item = Arrays.copyOfRange(m, off, off + len + 8);
        setScore(item, score);
        return item;
    }

    static int memberLength(byte[] item) {
        return item.length - 8;
    }

    static double score(byte[] item) {
        return Double.longBitsToDouble(Bytes.getLongLE(item, item.length - 8));
    }

    static void setScore(byte[] item, double score) {
        Bytes.putLongLE(item, item.length - 8, Double.doubleToRawLongBits(score));
    }

    static final class Leaf {
        int n;
        double[] scores;
        byte[][] items;
        Leaf prev;
        Leaf next;

        Leaf(int capacity) {
            scores = new double[capacity];
            items = new byte[capacity][];
        }
    }

    static final class Inner {
        int n;
        /** sepScore[j], sepEle[j] (an item): the lowest key child j may hold, for j >= 1. */
        final double[] sepScore;
        final byte[][] sepEle;
        final Object[] kids;
        final int[] counts;

        Inner(int capacity) {
            sepScore = new double[capacity];
            sepEle = new byte[capacity][];
            kids = new Object[capacity];
            counts = new int[capacity];
        }
    }

    /** member -> item. */
    static final class Index extends KeyTable {
        @Override
        protected boolean matches(Object e, byte[] k, int off, int len) {
            byte[] item = (byte[]) e;
            return memberLength(item) == len && Arrays.equals(item, 0, len, k, off, off + len);
        }

        @Override
        protected long hashOf(Object e) {
            byte[] item = (byte[]) e;
            return hash(item, 0, memberLength(item));
        }
    }

    /** The path of the last descent: inner nodes from the root and the child taken in each. */
    private static final class Path {
        final Inner[] nodes = new Inner[MAX_HEIGHT];
        final int[] slots = new int[MAX_HEIGHT];
        /** The leaf (and slot) that {@link #locate} or {@link #seek} found. */
        Leaf leaf;
        int slot;

        void clear() {
            Arrays.fill(nodes, null);
            leaf = null;
        }
    }

    /** The executor is one thread; tests may use others. */
    private static final ThreadLocal<Path> PATH = ThreadLocal.withInitial(Path::new);

    /** A leaf or an inner node; {@link #height} inner levels above the leaves. */
    private Object root = new Leaf(4);
    private int height;
    Leaf head = (Leaf) root;
    Leaf tail = head;
    int length;
    final Index index = new Index();
    /** Heap bytes of the nodes and items, kept as they change (MEMORY USAGE). */
    private long bytes = leafBytes(4);

    ScoreTree() {
        this(LEAF_CAP, INNER_CAP);
    }

    ScoreTree(int leafCap, int innerCap) {
        this.leafCap = leafCap;
        this.innerCap = innerCap;
        this.leafMin = leafCap / 3;
        this.innerMin = Math.max(2, innerCap / 3);
        this.innerBytes = 24 + align(16L + 8L * innerCap) + 3 * align(16L + 4L * innerCap);
    }

    // ---- sizes (compact references; 12-byte headers, arrays 16) ---------------------------------

    static long align(long n) {
        return (n + 7) & ~7L;
    }

    private static long leafBytes(int capacity) {
        return 32 + align(16L + 8L * capacity) + align(16L + 4L * capacity);
    }

    private static long itemBytes(byte[] item) {
        return align(16L + item.length);
    }

    long heapSize() {
        return 48 + 72 + 5L * index.capacity() + bytes;
    }

    // ---- comparisons ------------------------------------------------------------------------------

    /** Whether item a's key sorts before (s2, m2[off, off+len)). */
    private static boolean keyBelow(double s1, byte[] a, double s2, byte[] m2, int off, int len) {
        return s1 < s2 || (s1 == s2 && below(a, m2, off, len));
    }

    /** Whether item a's member sorts before b[off, off+len) (memcmp order). */
    private static boolean below(byte[] a, byte[] b, int off, int len) {
        return Arrays.compareUnsigned(a, 0, memberLength(a), b, off, off + len) < 0;
    }

    /** In an inner node, the child whose key range holds (s, m): the last j with sep[j] <= key. */
    private static int childFor(Inner in, double s, byte[] m, int off, int len) {
        int lo = 1;
        int hi = in.n;
        double[] seps = in.sepScore;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            double sep = seps[mid];
            if (s < sep || (s == sep && Arrays.compareUnsigned(m, off, off + len, in.sepEle[mid], 0, memberLength(in.sepEle[mid])) < 0)) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return lo - 1;
    }

    /**
     * In a leaf, the first slot whose key is at or above (s, m). The item (a cache miss) is only
     * read on a tie of scores.
     */
    private static int lowerBound(Leaf leaf, double s, byte[] m, int off, int len) {
        double[] scores = leaf.scores;
        int lo = 0;
        int hi = leaf.n;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            double sc = scores[mid];
            if (sc < s || (sc == s && below(leaf.items[mid], m, off, len))) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** In a leaf, the first slot whose score is at or above s (no member compares). */
    private static int firstScoreAtLeast(Leaf leaf, double s) {
        double[] scores = leaf.scores;
        int lo = 0;
        int hi = leaf.n;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (scores[mid] < s) lo = mid + 1;
            else hi = mid;
        }
        return lo;
    }

    /** Descends to the leaf for (s, m), filling the path. */
    private Leaf descend(double s, byte[] m, int off, int len, Path path) {
        Object node = root;
        for (int d = 0; d < height; d++) {
            Inner in = (Inner) node;
            int j = childFor(in, s, m, off, len);
            path.nodes[d] = in;
            path.slots[d] = j;
            node = in.kids[j];
        }
        return (Leaf) node;
    }

    // ---- lookups ----------------------------------------------------------------------------------

    /** The member's item, or null. */
    byte[] find(byte[] m, int off, int len) {
        return (byte[]) index.get(index.hash(m, off, len), m, off, len);
    }

    /**
     * Positions the iterator on the element at a 0-based rank (invalid when out of range) and
     * returns the rank.
     */
    long seekRank(long rank, ZIter it) {
        if (rank < 0 || rank >= length) return none(it);
        Path path = PATH.get();
        Leaf leaf = descendToRank(rank, path);
        it.atLeaf(leaf, path.slot);
        path.clear();
        return rank;
    }

    /** Descends to the leaf holding a 0-based rank, filling the path; the slot goes to path.slot. */
    private Leaf descendToRank(long rank, Path path) {
        long left = rank;
        Object node = root;
        for (int d = 0; d < height; d++) {
            Inner in = (Inner) node;
            int j = 0;
            while (left >= in.counts[j]) left -= in.counts[j++];
            path.nodes[d] = in;
            path.slots[d] = j;
            node = in.kids[j];
        }
        path.slot = (int) left;
        return (Leaf) node;
    }

    /** 0-based rank of the element with this key, -1 when absent. */
    long rank(double s, byte[] m, int off, int len) {
        long rank = 0;
        Object node = root;
        for (int d = 0; d < height; d++) {
            Inner in = (Inner) node;
            int j = childFor(in, s, m, off, len);
            for (int k = 0; k < j; k++) rank += in.counts[k];
            node = in.kids[j];
        }
        Leaf leaf = (Leaf) node;
        int i = lowerBound(leaf, s, m, off, len);
        if (i == leaf.n || leaf.scores[i] != s || !Arrays.equals(leaf.items[i], 0, memberLength(leaf.items[i]), m, off, off + len)) {
            return -1;
        }
        return rank + i;
    }

    long rank(byte[] item) {
        return rank(score(item), item, 0, memberLength(item));
    }

    // ---- score and lex ranges ---------------------------------------------------------------------
    // Redis first checks the range against both ends (zslIsInRange), then searches with the range's
    // bound as a predicate. With lex ranges over unequal scores the predicate is not monotone and
    // the answer depends on the structure searched: Redis documents those results as unspecified.

    private boolean mayHave(ScoreRange r) {
        return !r.isEmpty() && length > 0 && r.gteMin(tail.scores[tail.n - 1]) && r.lteMax(head.scores[0]);
    }

    private boolean mayHave(LexRange r) {
        if (r.isEmpty() || length == 0) return false;
        byte[] last = tail.items[tail.n - 1];
        byte[] first = head.items[0];
        return r.gteMin(last, 0, memberLength(last)) && r.lteMax(first, 0, memberLength(first));
    }

    /** Positions the iterator on the lowest element in range; returns its 0-based rank or -1. */
    long seekFirst(ScoreRange r, ZIter it) {
        return mayHave(r) ? first(r, MIN_SCORE, it) : none(it);
    }

    /** Positions the iterator on the highest element in range; returns its 0-based rank or -1. */
    long seekLast(ScoreRange r, ZIter it) {
        return mayHave(r) ? last(r, MIN_SCORE, it) : none(it);
    }

    long seekFirst(LexRange r, ZIter it) {
        return mayHave(r) ? first(r, MIN_LEX, it) : none(it);
    }

    long seekLast(LexRange r, ZIter it) {
        return mayHave(r) ? last(r, MIN_LEX, it) : none(it);
    }

    /**
     * The two bounds of a range as tests over keys in order, each false up to some key and true
     * from there on: at or past the minimum (MIN_*), past the maximum (MIN_* + 1).
     */
    private static final int MIN_SCORE = 0, MIN_LEX = 2;

    /** The test on a key; item is only read by the lex tests. */
    private static boolean reached(Object range, int kind, double score, byte[] item) {
        switch (kind) {
            case MIN_SCORE: return ((ScoreRange) range).gteMin(score);
            case MIN_SCORE + 1: return !((ScoreRange) range).lteMax(score);
            case MIN_LEX: return ((LexRange) range).gteMin(item, 0, memberLength(item));
            default: return !((LexRange) range).lteMax(item, 0, memberLength(item));
        }
    }

    /** The test on a leaf slot; a score bound never loads the item. */
    private static boolean reached(Object range, int kind, Leaf leaf, int i) {
        return reached(range, kind, leaf.scores[i], kind < MIN_LEX ? null : leaf.items[i]);
    }

    /**
     * Descends to the first slot where the test holds, summing the ranks before it; the slot
     * (leaf.n when the test holds nowhere in that leaf) and its leaf are left in the path. For an
     * inner node the test on separator j decides: keys under children before the last separator
     * that fails it all fail it too.
     */
    private long seek(Object range, int kind, Path path) {
        long rank = 0;
        Object node = root;
        for (int d = 0; d < height; d++) {
            Inner in = (Inner) node;
            int lo = 1;
            int hi = in.n;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (reached(range, kind, in.sepScore[mid], in.sepEle[mid])) hi = mid;
                else lo = mid + 1;
            }
            for (int k = 0; k < lo - 1; k++) rank += in.counts[k];
            node = in.kids[lo - 1];
        }
        Leaf leaf = (Leaf) node;
        int lo = 0;
        int hi = leaf.n;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (reached(range, kind, leaf, mid)) hi = mid;
            else lo = mid + 1;
        }
        path.leaf = leaf;
        path.slot = lo;
        return rank + lo;
    }

    /** The first element at or past the minimum, if it is not past the maximum. */
    private long first(Object range, int minKind, ZIter it) {
        Path path = PATH.get();
        long rank = seek(range, minKind, path);
        Leaf leaf = path.leaf;
        path.leaf = null;
        if (path.slot < leaf.n) it.atLeaf(leaf, path.slot);
        else it.atLeaf(leaf.next, 0); // the next leaf's first: the rank stays exact
        return it.valid() && !reached(range, minKind + 1, it.score(), it.item()) ? rank : none(it);
    }

    /** The element before the first one past the maximum, if it is at or past the minimum. */
    private long last(Object range, int minKind, ZIter it) {
        Path path = PATH.get();
        long rank = seek(range, minKind + 1, path) - 1;
        Leaf leaf = path.leaf;
        path.leaf = null;
        if (path.slot > 0) it.atLeaf(leaf, path.slot - 1);
        else it.atLeaf(leaf.prev, leaf.prev == null ? 0 : leaf.prev.n - 1);
        return it.valid() && reached(range, minKind, it.score(), it.item()) ? rank : none(it);
    }

    private static long none(ZIter it) {
        it.atLeaf(null, 0);
        return -1;
    }

    // ---- insert -----------------------------------------------------------------------------------

    /** Adds a member known to be absent, copying its bytes into a new item. */
    byte[] insert(double score, byte[] m, int off, int len) {
        return insertItem(item(m, off, len, score));
    }

    /** Adds an item made by {@link #item} (its score set) whose member is known to be absent; the array is kept. */
    byte[] insertItem(byte[] item) {
        int len = memberLength(item);
        link(item, score(item));
        index.put(index.hash(item, 0, len), item, item, 0, len);
        bytes += itemBytes(item);
        return item;
    }

    /** Puts the item into the tree at the place of its key (score given, as it is already in the item). */
    private void link(byte[] e, double score) {
        Path path = PATH.get();
        int len = memberLength(e);
        Leaf leaf = descend(score, e, 0, len, path);
        int i = lowerBound(leaf, score, e, 0, len);
        for (int d = 0; d < height; d++) path.nodes[d].counts[path.slots[d]]++;
        length++;
        if (leaf.n < leaf.scores.length) {
            putAt(leaf, i, e, score);
        } else if (leaf.scores.length < leafCap) {
            growLeaf(leaf, Math.min(leafCap, leaf.scores.length * 2));
            putAt(leaf, i, e, score);
        } else {
            splitLeaf(leaf, i, e, score, path);
        }
        path.clear();
    }

    private static void putAt(Leaf leaf, int i, byte[] e, double score) {
        int move = leaf.n - i;
        System.arraycopy(leaf.scores, i, leaf.scores, i + 1, move);
        System.arraycopy(leaf.items, i, leaf.items, i + 1, move);
        leaf.scores[i] = score;
        leaf.items[i] = e;
        leaf.n++;
    }

    private void growLeaf(Leaf leaf, int capacity) {
        bytes += leafBytes(capacity) - leafBytes(leaf.scores.length);
        leaf.scores = Arrays.copyOf(leaf.scores, capacity);
        leaf.items = Arrays.copyOf(leaf.items, capacity);
    }

    /**
     * Splits a full leaf around an insert at slot i. Appending past the last leaf's end or before
     * the first leaf's start (a load in order, either way) leaves the old elements together in a
     * full leaf and the new one alone, so loads in order fill their leaves; only those two edge
     * leaves can be under the minimum fill. Otherwise the halves are even.
     */
    private void splitLeaf(Leaf leaf, int i, byte[] e, double score, Path path) {
        int n = leaf.n;
        int keep;
        if (i == n && leaf.next == null) keep = n;
        else if (i == 0 && leaf.prev == null) keep = 1;
        else keep = (n + 1) / 2;
        Leaf right = new Leaf(leafCap);
        bytes += leafBytes(leafCap);
        // the n + 1 keys in order are leaf[0, i), e, leaf[i, n); the first `keep` stay left
        if (i < keep) {
            int moved = n - (keep - 1);
            System.arraycopy(leaf.scores, keep - 1, right.scores, 0, moved);
            System.arraycopy(leaf.items, keep - 1, right.items, 0, moved);
            Arrays.fill(leaf.items, keep - 1, n, null);
            right.n = moved;
            leaf.n = keep - 1;
            putAt(leaf, i, e, score);
        } else {
            int moved = n - keep;
            System.arraycopy(leaf.scores, keep, right.scores, 0, moved);
            System.arraycopy(leaf.items, keep, right.items, 0, moved);
            Arrays.fill(leaf.items, keep, n, null);
            right.n = moved;
            leaf.n = keep;
            putAt(right, i - keep, e, score);
        }
        right.next = leaf.next;
        right.prev = leaf;
        if (leaf.next != null) leaf.next.prev = right;
        else tail = right;
        leaf.next = right;
        addChild(height - 1, leaf, right, right.n, right.scores[0], right.items[0], path);
    }

    /**
     * After node `left` (the child taken at path level d) split off `right` holding `rightCount`
     * elements, links right in the parent (a new root when d < 0), splitting upwards as needed.
     */
    private void addChild(int d, Object left, Object right, int rightCount, double sepScore, byte[] sepEle, Path path) {
        if (d < 0) {
            Inner r = new Inner(innerCap);
            bytes += innerBytes;
            r.n = 2;
            r.kids[0] = left;
            r.kids[1] = right;
            r.counts[0] = length - rightCount;
            r.counts[1] = rightCount;
            r.sepScore[1] = sepScore;
            r.sepEle[1] = sepEle;
            root = r;
            height++;
            return;
        }
        Inner p = path.nodes[d];
        int j = path.slots[d];
        p.counts[j] -= rightCount;
        if (p.n < innerCap) {
            insertChild(p, j + 1, right, rightCount, sepScore, sepEle);
            return;
        }
        // split p: the upper half moves to a new inner node, then the child goes to its side
        Inner q = new Inner(innerCap);
        bytes += innerBytes;
        int keep = innerCap / 2;
        int moved = p.n - keep;
        copyChildren(p, keep, q, 0, moved);
        Arrays.fill(p.kids, keep, p.n, null);
        Arrays.fill(p.sepEle, keep, p.n, null);
        q.n = moved;
        p.n = keep;
        if (j + 1 <= keep) insertChild(p, j + 1, right, rightCount, sepScore, sepEle);
        else insertChild(q, j + 1 - keep, right, rightCount, sepScore, sepEle);
        int qCount = 0;
        for (int k = 0; k < q.n; k++) qCount += q.counts[k];
        // the grandparent's count for p still covers q too: the call moves q's share over
        addChild(d - 1, p, q, qCount, q.sepScore[0], q.sepEle[0], path);
    }

    /** Moves n children with their counts and separators (overlapping ranges of one node too). */
    private static void copyChildren(Inner from, int fromPos, Inner to, int toPos, int n) {
        System.arraycopy(from.kids, fromPos, to.kids, toPos, n);
        System.arraycopy(from.counts, fromPos, to.counts, toPos, n);
        System.arraycopy(from.sepScore, fromPos, to.sepScore, toPos, n);
        System.arraycopy(from.sepEle, fromPos, to.sepEle, toPos, n);
    }

    private static void insertChild(Inner p, int j, Object child, int count, double sepScore, byte[] sepEle) {
        int move = p.n - j;
        copyChildren(p, j, p, j + 1, move);
        p.kids[j] = child;
        p.counts[j] = count;
        p.sepScore[j] = sepScore;
        p.sepEle[j] = sepEle;
        p.n++;
    }

    // ---- delete -----------------------------------------------------------------------------------

    /** Finds the item's leaf (into path.leaf) and slot by its key; fills the path. Returns the slot. */
    private int locate(byte[] e, Path path) {
        double score = score(e);
        Leaf leaf = descend(score, e, 0, memberLength(e), path);
        int i = firstScoreAtLeast(leaf, score);
        while (leaf.items[i] != e) i++; // equal scores: the item itself is in this run
        path.leaf = leaf;
        return i;
    }

    /** Removes the item (from the tree and the index). */
    void delete(byte[] e) {
        Path path = PATH.get();
        int i = locate(e, path);
        removeRun(path.leaf, i, 1, path);
        index.remove(index.hash(e, 0, memberLength(e)), e, 0, memberLength(e));
        bytes -= itemBytes(e);
    }

    /** Removes the member; returns whether it was there. */
    boolean delete(byte[] m, int off, int len) {
        byte[] e = find(m, off, len);
        if (e == null) return false;
        delete(e);
        return true;
    }

    /**
     * Removes slots [i, i + k) of the leaf reached by the path, fixes the counts above it and
     * rebalances. The items stay in the index.
     */
    private void removeRun(Leaf leaf, int i, int k, Path path) {
        int n = leaf.n;
        System.arraycopy(leaf.scores, i + k, leaf.scores, i, n - i - k);
        System.arraycopy(leaf.items, i + k, leaf.items, i, n - i - k);
        Arrays.fill(leaf.items, n - k, n, null);
        leaf.n = n - k;
        length -= k;
        for (int d = 0; d < height; d++) path.nodes[d].counts[path.slots[d]] -= k;
        if (height > 0 && leaf.n < leafMin) rebalanceLeaf(leaf, path);
        path.clear();
    }

    /**
     * A leaf under its minimum merges with a sibling under the same parent, or the two even out
     * their elements. The pair is children b - 1 and b of the parent: the leaf and its left
     * sibling, or for a first child the leaf and its right one.
     */
    private void rebalanceLeaf(Leaf leaf, Path path) {
        int d = height - 1;
        Inner p = path.nodes[d];
        int b = Math.max(path.slots[d], 1);
        Leaf left = (Leaf) p.kids[b - 1];
        Leaf right = (Leaf) p.kids[b];
        if (left.n + right.n <= leafCap) {
            mergeLeaves(left, right);
            removeChild(p, b, path, d);
            return;
        }
        int toRight = (left.n - right.n) / 2; // negative: elements move left
        if (toRight > 0) shiftLeafRight(left, right, toRight);
        else shiftLeafLeft(left, right, -toRight);
        evenedOut(p, b, toRight, right.scores[0], right.items[0]);
    }

    /**
     * After `moved` elements went from child b - 1 to child b (negative: the other way), the
     * parent's counts follow and child b's separator becomes its new first key.
     */
    private static void evenedOut(Inner p, int b, int moved, double sepScore, byte[] sepEle) {
        p.counts[b - 1] -= moved;
        p.counts[b] += moved;
        p.sepScore[b] = sepScore;
        p.sepEle[b] = sepEle;
    }

    /** Appends right's elements to left and unlinks right from the leaf chain. */
    private void mergeLeaves(Leaf left, Leaf right) {
        if (left.scores.length < left.n + right.n) growLeaf(left, leafCap);
        System.arraycopy(right.scores, 0, left.scores, left.n, right.n);
        System.arraycopy(right.items, 0, left.items, left.n, right.n);
        left.n += right.n;
        left.next = right.next;
        if (right.next != null) right.next.prev = left;
        else tail = left;
        bytes -= leafBytes(right.scores.length);
    }

    /** Moves the last k elements of left to the front of right. */
    private static void shiftLeafRight(Leaf left, Leaf right, int k) {
        System.arraycopy(right.scores, 0, right.scores, k, right.n);
        System.arraycopy(right.items, 0, right.items, k, right.n);
        System.arraycopy(left.scores, left.n - k, right.scores, 0, k);
        System.arraycopy(left.items, left.n - k, right.items, 0, k);
        Arrays.fill(left.items, left.n - k, left.n, null);
        left.n -= k;
        right.n += k;
    }

    /** Moves the first k elements of right to the end of left. */
    private static void shiftLeafLeft(Leaf left, Leaf right, int k) {
        System.arraycopy(right.scores, 0, left.scores, left.n, k);
        System.arraycopy(right.items, 0, left.items, left.n, k);
        System.arraycopy(right.scores, k, right.scores, 0, right.n - k);
        System.arraycopy(right.items, k, right.items, 0, right.n - k);
        Arrays.fill(right.items, right.n - k, right.n, null);
        left.n += k;
        right.n -= k;
    }

    /**
     * Removes child j (already merged into child j - 1) from inner node p at path level d, then
     * rebalances p or shrinks the root.
     */
    private void removeChild(Inner p, int j, Path path, int d) {
        p.counts[j - 1] += p.counts[j];
        int move = p.n - j - 1;
        copyChildren(p, j + 1, p, j, move);
        p.n--;
        p.kids[p.n] = null;
        p.sepEle[p.n] = null;
        if (d == 0) {
            if (p.n == 1) {
                root = p.kids[0];
                height--;
                bytes -= innerBytes;
            }
            return;
        }
        if (p.n >= innerMin) return;
        // as rebalanceLeaf, one level up
        Inner g = path.nodes[d - 1];
        int b = Math.max(path.slots[d - 1], 1);
        Inner left = (Inner) g.kids[b - 1];
        Inner right = (Inner) g.kids[b];
        if (left.n + right.n <= innerCap) {
            mergeInners(left, right, g.sepScore[b], g.sepEle[b]);
            removeChild(g, b, path, d - 1);
            return;
        }
        int toRight = (left.n - right.n) / 2;
        int moved = toRight > 0 ? shiftInnerRight(left, right, toRight, g.sepScore[b], g.sepEle[b])
                : -shiftInnerLeft(left, right, -toRight, g.sepScore[b], g.sepEle[b]);
        evenedOut(g, b, moved, right.sepScore[0], right.sepEle[0]);
    }

    /** Appends right's children to left; the parent's separator for right bounds right's first child. */
    private void mergeInners(Inner left, Inner right, double sepScore, byte[] sepEle) {
        right.sepScore[0] = sepScore;
        right.sepEle[0] = sepEle;
        copyChildren(right, 0, left, left.n, right.n);
        left.n += right.n;
        bytes -= innerBytes;
    }

    /**
     * Moves left's last k children to the front of right; right's old first child gets the
     * parent's separator, and right.sep[0] is left as the new lower bound of right. Returns the
     * elements moved.
     */
    private static int shiftInnerRight(Inner left, Inner right, int k, double sepScore, byte[] sepEle) {
        right.sepScore[0] = sepScore;
        right.sepEle[0] = sepEle;
        copyChildren(right, 0, right, k, right.n);
        int from = left.n - k;
        copyChildren(left, from, right, 0, k);
        int moved = 0;
        for (int i = 0; i < k; i++) moved += right.counts[i];
        Arrays.fill(left.kids, from, left.n, null);
        Arrays.fill(left.sepEle, from, left.n, null);
        left.n = from;
        right.n += k;
        return moved;
    }

    /** Moves right's first k children to the end of left. Returns the elements moved. */
    private static int shiftInnerLeft(Inner left, Inner right, int k, double sepScore, byte[] sepEle) {
        right.sepScore[0] = sepScore;
        right.sepEle[0] = sepEle;
        copyChildren(right, 0, left, left.n, k);
        int moved = 0;
        for (int i = 0; i < k; i++) moved += right.counts[i];
        int rest = right.n - k;
        copyChildren(right, k, right, 0, rest);
        Arrays.fill(right.kids, rest, right.n, null);
        Arrays.fill(right.sepEle, rest, right.n, null);
        left.n += k;
        right.n = rest;
        return moved;
    }

    // ---- score updates ----------------------------------------------------------------------------

    /**
     * Moves an item to a new score: in place when it stays strictly between its neighbours in
     * its leaf (Redis's zslUpdateScore does the same with the list's neighbours), otherwise out
     * and back in at the new place.
     */
    void updateScore(byte[] e, double newScore) {
        Path path = PATH.get();
        int i = locate(e, path);
        Leaf leaf = path.leaf;
        double old = score(e);
        // at a leaf's first slot a lower key could fall below the separator, at its last a higher
        // key above the next one: there only moves toward the leaf's inside stay in place
        boolean lowOk = i > 0 ? leaf.scores[i - 1] < newScore : newScore > old;
        boolean highOk = i < leaf.n - 1 ? leaf.scores[i + 1] > newScore : newScore < old;
        if (lowOk && highOk) {
            leaf.scores[i] = newScore;
            setScore(e, newScore);
            path.clear();
            return;
        }
        removeRun(leaf, i, 1, path);
        setScore(e, newScore);
        link(e, newScore);
    }

    // ---- range deletes ----------------------------------------------------------------------------

    /** Deletes k elements from 0-based rank `from` on, a leaf's run at a time. */
    long deleteRank(long from, long k) {
        long left = k;
        Path path = PATH.get();
        while (left > 0) {
            Leaf leaf = descendToRank(from, path);
            int i = path.slot;
            int run = (int) Math.min(left, leaf.n - i);
            for (int s = i; s < i + run; s++) {
                byte[] e = leaf.items[s];
                index.remove(index.hash(e, 0, memberLength(e)), e, 0, memberLength(e));
                bytes -= itemBytes(e);
            }
            removeRun(leaf, i, run, path);
            left -= run;
        }
        return k;
    }

    long deleteRange(ScoreRange r) {
        return mayHave(r) ? deleteBetween(r, MIN_SCORE) : 0;
    }

    long deleteRange(LexRange r) {
        return mayHave(r) ? deleteBetween(r, MIN_LEX) : 0;
    }

    private long deleteBetween(Object range, int minKind) {
        ZIter it = ZIter.forTree();
        long first = first(range, minKind, it);
        if (first < 0) return 0;
        long last = last(range, minKind, it);
        return last < first ? 0 : deleteRank(first, last - first + 1);
    }

    // ---- checks for tests ---------------------------------------------------------------------------

    /**
     * Walks the whole tree and throws when an invariant is broken: key order, separators bounding
     * their children, counts, fill, leaf links, the index, the byte count.
     */
    void check() {
        long[] b = {0};
        Leaf[] prevLeaf = {null};
        long n = checkNode(root, 0, 0, null, 0, null, true, prevLeaf, b);
        if (n != length) throw new IllegalStateException("length " + length + " but " + n + " elements");
        if (prevLeaf[0] != tail) throw new IllegalStateException("tail");
        if (index.size() != length) throw new IllegalStateException("index size " + index.size());
        for (Leaf l = head; l != null; l = l.next) {
            for (int i = 0; i < l.n; i++) {
                byte[] e = l.items[i];
                if (Double.doubleToRawLongBits(l.scores[i]) != Double.doubleToRawLongBits(score(e))) throw new IllegalStateException("score bits");
                if (find(e, 0, memberLength(e)) != e) throw new IllegalStateException("index");
            }
        }
        if (b[0] != bytes) throw new IllegalStateException("bytes " + bytes + " counted " + b[0]);
    }

    /** lowKey and highKey: the separators' scores and items bounding this node, or null. */
    private long checkNode(Object node, int depth, double lowScore, byte[] lowKey, double highScore, byte[] highKey,
                           boolean isRoot, Leaf[] prevLeaf, long[] b) {
        if (depth == height) {
            Leaf l = (Leaf) node;
            boolean edge = l == head || l == tail; // see splitLeaf
            if (!isRoot && ((l.n < leafMin && !(edge && l.n > 0)) || l.n > leafCap)) {
                throw new IllegalStateException("leaf fill " + l.n);
            }
            if (l.prev != prevLeaf[0]) throw new IllegalStateException("leaf prev link");
            if (prevLeaf[0] == null ? head != l : prevLeaf[0].next != l) throw new IllegalStateException("leaf next link");
            prevLeaf[0] = l;
            b[0] += leafBytes(l.scores.length);
            for (int i = 0; i < l.n; i++) {
                byte[] e = l.items[i];
                double sc = l.scores[i];
                int len = memberLength(e);
                b[0] += itemBytes(e);
                if (i > 0 && !keyBelow(l.scores[i - 1], l.items[i - 1], sc, e, 0, len)) {
                    throw new IllegalStateException("leaf order");
                }
                if (lowKey != null && keyBelow(sc, e, lowScore, lowKey, 0, memberLength(lowKey))) {
                    throw new IllegalStateException("below separator");
                }
                if (highKey != null && !keyBelow(sc, e, highScore, highKey, 0, memberLength(highKey))) {
                    throw new IllegalStateException("not below next separator");
                }
            }
            for (int i = l.n; i < l.items.length; i++) {
                if (l.items[i] != null) throw new IllegalStateException("stale slot");
            }
            return l.n;
        }
        Inner in = (Inner) node;
        if (in.n < (isRoot ? 2 : innerMin) || in.n > innerCap) throw new IllegalStateException("inner fill " + in.n);
        b[0] += innerBytes;
        long sum = 0;
        for (int j = 0; j < in.n; j++) {
            double loScore = j == 0 ? lowScore : in.sepScore[j];
            byte[] lo = j == 0 ? lowKey : in.sepEle[j];
            double hiScore = j + 1 < in.n ? in.sepScore[j + 1] : highScore;
            byte[] hi = j + 1 < in.n ? in.sepEle[j + 1] : highKey;
            long c = checkNode(in.kids[j], depth + 1, loScore, lo, hiScore, hi, false, prevLeaf, b);
            if (c != in.counts[j]) throw new IllegalStateException("count " + in.counts[j] + " but " + c);
            sum += c;
        }
        for (int j = in.n; j < in.kids.length; j++) {
            if (in.kids[j] != null || in.sepEle[j] != null) throw new IllegalStateException("stale child slot");
        }
        return sum;
    }
}
