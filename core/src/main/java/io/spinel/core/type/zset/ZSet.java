package io.spinel.core.type.zset;

import io.spinel.core.keyspace.DbObject;
import io.spinel.core.keyspace.EncodingConfig;
import io.spinel.core.keyspace.ValueType;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * A sorted set value (Redis's OBJ_ZSET) in one of Redis's two encodings:
 *
 * <ul>
 *   <li><b>listpack</b>: one packed byte array of (member, score) entries in score order (layout in
 *       {@link Packed}); lookups scan it, which is cheap while it stays under
 *       zset-max-listpack-entries entries of at most zset-max-listpack-value bytes.</li>
 *   <li><b>skiplist</b> (the name Redis reports): a {@link ScoreTree}, a B+tree that counts the
 *       elements under each child, plus a member index, for O(log n) rank and range operations
 *       and O(1) score lookups.</li>
 * </ul>
 *
 * <p>The set converts from listpack to skiplist exactly when Redis 7.0 does (an insert that would
 * exceed either threshold) and back only where Redis does (results of the *STORE commands). Ties
 * in score are ordered by member bytes, unsigned (memcmp).
 *
 * <p>This class is the API other families use too (GEO commands, SORT, persistence): it knows
 * nothing about clients or replies.
 */
public final class ZSet extends DbObject {
    /** Input flags of {@link #add}. */
    public static final int IN_NX = 1, IN_XX = 2, IN_GT = 4, IN_LT = 8, IN_INCR = 16;
    /** Output flags of {@link #add}. */
    public static final int OUT_NAN = 1, OUT_ADDED = 2, OUT_UPDATED = 4, OUT_NOP = 8;

    /** listpack's safety limit on its total size: past it Redis converts regardless of thresholds. */
    private static final int PACKED_SAFETY_LIMIT = 1 << 30;

    // listpack encoding (tree == null)
    byte[] packed;
    int used;
    int count;
    // skiplist encoding (Redis's name for it; here a counted B+tree)
    ScoreTree tree;

    @Override
    public io.spinel.core.keyspace.KeyTable hashTable() {
        return tree == null ? null : tree.index; // the members' index, Redis's zset dict
    }

    private ZSet() {
    }

    /** An empty set in the listpack encoding. */
    public static ZSet newPacked() {
        ZSet z = new ZSet();
        z.packed = new byte[32];
        return z;
    }

    /** An empty set in the skiplist encoding. */
    public static ZSet newSkiplist() {
        ZSet z = new ZSet();
        z.tree = new ScoreTree();
        return z;
    }

    /**
     * The empty set ZADD creates for a new key: listpack unless the thresholds rule it out for
     * the first member already (Redis decides on the first member only).
     */
    public static ZSet newFor(EncodingConfig cfg, int firstMemberLen) {
        if (cfg.zsetMaxListpackEntries == 0 || cfg.zsetMaxListpackValue < firstMemberLen) return newSkiplist();
        return newPacked();
    }

    // ---- Value -------------------------------------------------------------------------------------

    @Override
    public int type() {
        return ValueType.ZSET;
    }

    @Override
    public String encoding() {
        return tree == null ? "listpack" : "skiplist";
    }

    @Override
    public long size() {
        return tree == null ? count : tree.length;
    }

    public boolean isPacked() {
        return tree == null;
    }

    @Override
    public long memoryUsage() {
        long self = 48; // this object with its entry fields (compact headers)
        if (tree == null) return self + ScoreTree.align(16L + packed.length);
        return self + tree.heapSize();
    }

    @Override
    public ZSet copy() {
        ZSet z = new ZSet();
        if (tree == null) {
            z.packed = Arrays.copyOf(packed, Math.max(used, 16));
            z.used = used;
            z.count = count;
        } else {
            // in order: every insert appends to the last leaf, which fills its leaves
            ScoreTree t = new ScoreTree();
            for (ZIter it = first(); it.valid(); it.next()) t.insert(it.score(), it.buf(), it.off(), it.len());
            z.tree = t;
        }
        return z;
    }

    // ---- lookups -----------------------------------------------------------------------------------

    /** The member's score, or NaN when absent (scores are never NaN). */
    public double score(byte[] m, int off, int len) {
        if (tree != null) {
            byte[] e = tree.find(m, off, len);
            return e == null ? Double.NaN : ScoreTree.score(e);
        }
        int p = packedFind(m, off, len);
        return p < 0 ? Double.NaN : Packed.scoreAt(packed, p);
    }

    public boolean contains(byte[] m, int off, int len) {
        return tree != null ? tree.find(m, off, len) != null : packedFind(m, off, len) >= 0;
    }

    /** 0-based rank of the member (from the highest score when reverse), -1 when absent. */
    public long rank(byte[] m, int off, int len, boolean reverse) {
        long size = size();
        long r1; // 1-based
        if (tree != null) {
            byte[] e = tree.find(m, off, len);
            if (e == null) return -1;
            r1 = tree.rank(e) + 1;
        } else {
            byte[] b = packed;
            int p = 0;
            r1 = 0;
            boolean found = false;
            while (p < used) {
                r1++;
                int mlen = Packed.memberLen(b, p);
                int mo = Packed.memberOff(b, p, mlen);
                if (mlen == len && Arrays.equals(b, mo, mo + mlen, m, off, off + len)) {
                    found = true;
                    break;
                }
                p = Packed.next(b, p);
            }
            if (!found) return -1;
        }
        return reverse ? size - r1 : r1 - 1;
    }

    // ---- iteration ---------------------------------------------------------------------------------

    /** The element at a 0-based rank from the lowest score (invalid iterator when out of range). */
    public ZIter atRank(long rank) {
        ZIter it = new ZIter(this);
        long size = size();
        if (rank < 0 || rank >= size) return tree == null ? it.atPos(-1) : it.atLeaf(null, 0);
        if (tree != null) {
            if (rank == 0) return it.atLeaf(tree.head, 0);
            if (rank == size - 1) return it.atLeaf(tree.tail, tree.tail.n - 1);
            tree.seekRank(rank, it);
            return it;
        }
        byte[] b = packed;
        int p;
        if (rank <= size / 2) {
            p = 0;
            for (long i = 0; i < rank; i++) p = Packed.next(b, p);
        } else {
            p = used;
            for (long i = size; i > rank; i--) p = Packed.entryStartBefore(b, p);
        }
        return it.atPos(p);
    }

    public ZIter first() {
        return atRank(0);
    }

    public ZIter last() {
        return atRank(size() - 1);
    }

    /**
     * Whether the listpack may hold elements of the range: not an empty range, last element not
     * below min, first not above max (Redis's zzlIsInRange; with lex ranges over unequal scores
     * these checks decide results, so they are kept exactly).
     */
    private boolean packedMayHave(ScoreRange r) {
        if (r.isEmpty() || used == 0) return false;
        return r.gteMin(Packed.scoreAt(packed, Packed.entryStartBefore(packed, used))) && r.lteMax(Packed.scoreAt(packed, 0));
    }

    private boolean packedMayHave(LexRange r) {
        if (r.isEmpty() || used == 0) return false;
        ZIter last = new ZIter(this).atPos(Packed.entryStartBefore(packed, used));
        if (!r.gteMin(last.buf(), last.off(), last.len())) return false;
        ZIter first = new ZIter(this).atPos(0);
        return r.lteMax(first.buf(), first.off(), first.len());
    }

    /** The lowest element in the score range, or an invalid iterator. */
    public ZIter firstInRange(ScoreRange r) {
        ZIter it = new ZIter(this);
        if (tree != null) {
            tree.seekFirst(r, it);
            return it;
        }
        if (!packedMayHave(r)) return it.atPos(-1);
        for (it.atPos(0); it.valid(); it.next()) {
            if (r.gteMin(it.score())) return r.lteMax(it.score()) ? it : it.atPos(-1);
        }
        return it;
    }

    /** The highest element in the score range, or an invalid iterator. */
    public ZIter lastInRange(ScoreRange r) {
        ZIter it = new ZIter(this);
        if (tree != null) {
            tree.seekLast(r, it);
            return it;
        }
        if (!packedMayHave(r)) return it.atPos(-1);
        for (it.atPos(Packed.entryStartBefore(packed, used)); it.valid(); it.prev()) {
            if (r.lteMax(it.score())) return r.gteMin(it.score()) ? it : it.atPos(-1);
        }
        return it;
    }

    public ZIter firstInLexRange(LexRange r) {
        ZIter it = new ZIter(this);
        if (tree != null) {
            tree.seekFirst(r, it);
            return it;
        }
        if (!packedMayHave(r)) return it.atPos(-1);
        for (it.atPos(0); it.valid(); it.next()) {
            if (r.gteMin(it.buf(), it.off(), it.len())) {
                return r.lteMax(it.buf(), it.off(), it.len()) ? it : it.atPos(-1);
            }
        }
        return it;
    }

    public ZIter lastInLexRange(LexRange r) {
        ZIter it = new ZIter(this);
        if (tree != null) {
            tree.seekLast(r, it);
            return it;
        }
        if (!packedMayHave(r)) return it.atPos(-1);
        for (it.atPos(Packed.entryStartBefore(packed, used)); it.valid(); it.prev()) {
            if (r.lteMax(it.buf(), it.off(), it.len())) {
                return r.gteMin(it.buf(), it.off(), it.len()) ? it : it.atPos(-1);
            }
        }
        return it;
    }

    /** Number of elements in the score range (ZCOUNT): O(log n) in the skiplist encoding. */
    public long count(ScoreRange r) {
        if (tree != null) {
            ZIter it = new ZIter(this);
            long first = tree.seekFirst(r, it);
            return first < 0 ? 0 : countFromRanks(first, tree.seekLast(r, it));
        }
        ZIter first = firstInRange(r);
        if (!first.valid()) return 0;
        long n = 0;
        for (ZIter it = first; it.valid() && r.lteMax(it.score()); it.next()) n++;
        return n;
    }

    /** Number of elements in the lex range (ZLEXCOUNT). */
    public long lexCount(LexRange r) {
        if (tree != null) {
            ZIter it = new ZIter(this);
            long first = tree.seekFirst(r, it);
            return first < 0 ? 0 : countFromRanks(first, tree.seekLast(r, it));
        }
        ZIter first = firstInLexRange(r);
        if (!first.valid()) return 0;
        long n = 0;
        for (ZIter it = first; it.valid() && r.lteMax(it.buf(), it.off(), it.len()); it.next()) n++;
        return n;
    }

    /**
     * Redis's rank arithmetic for ZCOUNT/ZLEXCOUNT from 0-based ranks (a missing last element,
     * -1, leaves the count open-ended).
     */
    private long countFromRanks(long first, long last) {
        long length = tree.length;
        long count = length - first;
        if (last >= 0) count -= length - 1 - last;
        return count;
    }

    /** A uniformly random element (the set must not be empty). */
    public ZIter random(SplittableRandom rnd) {
        // a random rank is uniform in both encodings (and O(log n) in the skiplist)
        return atRank(rnd.nextLong(size()));
    }

    /**
     * One step of a stateless scan over the skiplist encoding's member index (ZSCAN); the visitor
     * gets the index's items, read with {@link ZIter#atItem}. Returns the next cursor, 0 at the end.
     */
    long scanItems(long cursor, Consumer<Object> visitor) {
        return tree.index.scan(cursor, visitor);
    }

    // ---- writes ------------------------------------------------------------------------------------

    /**
     * Adds or updates a member (Redis's zsetAdd) with the IN_* flags. Returns OUT_* flags; the
     * resulting score goes to {@code newScore[0]} unless the call was a no-op. May convert the
     * encoding to skiplist.
     */
    public int add(double score, byte[] m, int off, int len, int flags, EncodingConfig cfg, double[] newScore) {
        boolean incr = (flags & IN_INCR) != 0;
        boolean nx = (flags & IN_NX) != 0;
        boolean xx = (flags & IN_XX) != 0;
        boolean gt = (flags & IN_GT) != 0;
        boolean lt = (flags & IN_LT) != 0;
        if (Double.isNaN(score)) return OUT_NAN;
        if (tree == null) {
            int p = packedFind(m, off, len);
            if (p >= 0) {
                if (nx) return OUT_NOP;
                double cur = Packed.scoreAt(packed, p);
                if (incr) {
                    score += cur;
                    if (Double.isNaN(score)) return OUT_NAN;
                }
                if ((lt && score >= cur) || (gt && score <= cur)) return OUT_NOP;
                newScore[0] = score;
                if (score != cur) {
                    packedDelete(p);
                    packedInsert(score, m, off, len);
                    return OUT_UPDATED;
                }
                return 0;
            }
            if (xx) return OUT_NOP;
            if (count + 1 > cfg.zsetMaxListpackEntries || len > cfg.zsetMaxListpackValue
                    || (long) used + len > PACKED_SAFETY_LIMIT) {
                toSkiplist();
            } else {
                packedInsert(score, m, off, len);
                newScore[0] = score;
                return OUT_ADDED;
            }
        }
        byte[] e = tree.find(m, off, len);
        if (e != null) {
            if (nx) return OUT_NOP;
            double cur = ScoreTree.score(e);
            if (incr) {
                score += cur;
                if (Double.isNaN(score)) return OUT_NAN;
            }
            if ((lt && score >= cur) || (gt && score <= cur)) return OUT_NOP;
            newScore[0] = score;
            if (score != cur) {
                tree.updateScore(e, score);
                return OUT_UPDATED;
            }
            return 0;
        }
        if (xx) return OUT_NOP;
        tree.insert(score, m, off, len);
        newScore[0] = score;
        return OUT_ADDED;
    }

    /** Inserts a member known to be absent, converting to skiplist past the thresholds. */
    public void insertNew(double score, byte[] m, int off, int len, EncodingConfig cfg) {
        if (tree == null) {
            if (count + 1 > cfg.zsetMaxListpackEntries || len > cfg.zsetMaxListpackValue
                    || (long) used + len > PACKED_SAFETY_LIMIT) {
                toSkiplist();
            } else {
                packedInsert(score, m, off, len);
                return;
            }
        }
        tree.insert(score, m, off, len);
    }

    /**
     * Loading (RDB, RESTORE): inserts a member known to be absent into the current encoding
     * without applying the thresholds, because Redis keeps a loaded listpack as it is while it
     * has few enough entries.
     */
    public void insertLoaded(double score, byte[] m, int off, int len) {
        if (tree == null) packedInsert(score, m, off, len);
        else tree.insert(score, m, off, len);
    }

    /** Removes the member; returns whether it was there. */
    public boolean remove(byte[] m, int off, int len) {
        if (tree != null) return tree.delete(m, off, len);
        int p = packedFind(m, off, len);
        if (p < 0) return false;
        packedDelete(p);
        return true;
    }

    /** Removes the element the iterator is on; the iterator is invalid afterwards. */
    public void remove(ZIter it) {
        if (tree != null) tree.delete(it.item());
        else packedDelete(it.pos());
    }

    public long removeRangeByScore(ScoreRange r) {
        if (tree != null) return tree.deleteRange(r);
        ZIter it = firstInRange(r);
        if (!it.valid()) return 0;
        int from = it.pos();
        long n = 0;
        while (it.valid() && r.lteMax(it.score())) {
            n++;
            it.next();
        }
        packedDeleteRange(from, it.valid() ? it.pos() : used, n);
        return n;
    }

    public long removeRangeByLex(LexRange r) {
        if (tree != null) return tree.deleteRange(r);
        ZIter it = firstInLexRange(r);
        if (!it.valid()) return 0;
        int from = it.pos();
        long n = 0;
        while (it.valid() && r.lteMax(it.buf(), it.off(), it.len())) {
            n++;
            it.next();
        }
        packedDeleteRange(from, it.valid() ? it.pos() : used, n);
        return n;
    }

    /** Removes 0-based ranks start..end inclusive (already clamped to the set). */
    public long removeRangeByRank(long start, long end) {
        if (tree != null) return tree.deleteRank(start, end - start + 1);
        int from = atRank(start).pos();
        int p = from;
        for (long i = start; i <= end; i++) p = Packed.next(packed, p);
        packedDeleteRange(from, p, end - start + 1);
        return end - start + 1;
    }

    // ---- encoding conversions -----------------------------------------------------------------------

    /** Converts listpack to skiplist (Redis's zsetConvert). */
    public void toSkiplist() {
        if (tree != null) return;
        ScoreTree s = new ScoreTree();
        byte[] b = packed;
        for (int p = 0; p < used; p = Packed.next(b, p)) {
            int mlen = Packed.memberLen(b, p);
            int mo = Packed.memberOff(b, p, mlen);
            s.insert(Packed.getScore(b, mo + mlen), b, mo, mlen);
        }
        tree = s;
        packed = null;
        used = 0;
        count = 0;
    }

    /** Converts skiplist to listpack. */
    void toPacked() {
        if (tree == null) return;
        long total = 0;
        for (ZIter it = first(); it.valid(); it.next()) total += Packed.entrySize(it.len(), it.score());
        byte[] b = new byte[(int) Math.max(total, 16)];
        int p = 0;
        int c = 0;
        for (ZIter it = first(); it.valid(); it.next()) {
            p = Packed.putEntry(b, p, it.buf(), it.off(), it.len(), it.score());
            c++;
        }
        packed = b;
        used = p;
        count = c;
        tree = null;
    }

    /**
     * Redis's zsetConvertToListpackIfNeeded: a skiplist result of a *STORE command goes back to
     * listpack when it is within the thresholds.
     */
    public void convertToPackedIfNeeded(EncodingConfig cfg, long maxMemberLen, long totalMemberLen) {
        if (tree == null) return;
        if (tree.length <= cfg.zsetMaxListpackEntries && maxMemberLen <= cfg.zsetMaxListpackValue
                && totalMemberLen <= PACKED_SAFETY_LIMIT) {
            toPacked();
        }
    }

    // ---- listpack internals ---------------------------------------------------------------------------

    private int packedFind(byte[] m, int off, int len) {
        byte[] b = packed;
        int p = 0;
        int end = used;
        while (p < end) {
            int mlen = Packed.memberLen(b, p);
            int mo = Packed.memberOff(b, p, mlen);
            if (mlen == len && Arrays.equals(b, mo, mo + mlen, m, off, off + len)) return p;
            int s = mo + mlen;
            int body = s + Packed.scoreFieldSize(b, s) - p;
            p += body + Packed.varintSize(body);
        }
        return -1;
    }

    /** Whether the entry at p sorts after (score, m). */
    private boolean after(int p, double score, byte[] m, int off, int len) {
        byte[] b = packed;
        int mlen = Packed.memberLen(b, p);
        int mo = Packed.memberOff(b, p, mlen);
        double s = Packed.getScore(b, mo + mlen);
        return s > score || (s == score && Arrays.compareUnsigned(b, mo, mo + mlen, m, off, off + len) > 0);
    }

    private void packedInsert(double score, byte[] m, int off, int len) {
        int at;
        if (used == 0 || !after(Packed.entryStartBefore(packed, used), score, m, off, len)) {
            at = used; // appending in order: the common case of building from sorted input
        } else if (after(0, score, m, off, len)) {
            at = 0;
        } else {
            at = 0;
            while (at < used && !after(at, score, m, off, len)) at = Packed.next(packed, at);
        }
        int size = Packed.entrySize(len, score);
        ensureCapacity(used + size);
        System.arraycopy(packed, at, packed, at + size, used - at);
        Packed.putEntry(packed, at, m, off, len, score);
        used += size;
        count++;
    }

    private void ensureCapacity(int need) {
        if (need <= packed.length) return;
        int cap = need + (need >> 3) + 16;
        packed = Arrays.copyOf(packed, cap);
    }

    private void packedDelete(int p) {
        int end = Packed.next(packed, p);
        packedDeleteRange(p, end, 1);
    }

    private void packedDeleteRange(int from, int to, long n) {
        System.arraycopy(packed, to, packed, from, used - to);
        used -= to - from;
        count -= (int) n;
        if (packed.length > 64 && packed.length > 2 * used + 32) {
            packed = Arrays.copyOf(packed, used + (used >> 3) + 16);
        }
    }
}
