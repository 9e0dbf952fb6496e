package io.spinel.core.type.zset;

import java.util.Arrays;

/**
 * A position in a sorted set, in either encoding, moving in score order. The member is exposed as
 * a slice ({@link #buf()}, {@link #off()}, {@link #len()}) of the set's own storage so replies can
 * be written without copies; it is valid until the set changes.
 */
public final class ZIter {
    private final ZSet z;
    private final boolean packed;
    // packed encoding: the entry's start (-1 when past either end) and its decoded fields
    private int pos = -1;
    private int mOff;
    private int mLen;
    private double score;
    // tree encoding: the leaf and slot (leaf null for an iterator on a lone item, see atItem)
    private ScoreTree.Leaf leaf;
    private int slot;
    /** The element's item: member bytes, then the score (see {@link ScoreTree#item}). */
    private byte[] item;

    ZIter(ZSet z) {
        this.z = z;
        this.packed = z.tree == null;
    }

    private ZIter() {
        this.z = null;
        this.packed = false;
    }

    /** An iterator for the tree's own searches (no set attached). */
    static ZIter forTree() {
        return new ZIter();
    }

    /** Positions on the packed entry starting at p (or past the end when p is -1 or at the end). */
    ZIter atPos(int p) {
        if (p < 0 || p >= z.used) {
            pos = -1;
            return this;
        }
        byte[] b = z.packed;
        pos = p;
        mLen = Packed.memberLen(b, p);
        mOff = Packed.memberOff(b, p, mLen);
        score = Packed.getScore(b, mOff + mLen);
        return this;
    }

    /** Positions on a slot of a tree leaf (or past either end when the leaf is null). */
    ZIter atLeaf(ScoreTree.Leaf l, int i) {
        leaf = l;
        slot = i;
        item = l == null ? null : l.items[i];
        return this;
    }

    /** Positions on an item without its place in the tree: it cannot move (ZSCAN's results). */
    ZIter atItem(byte[] e) {
        leaf = null;
        item = e;
        return this;
    }

    public boolean valid() {
        return packed ? pos >= 0 : item != null;
    }

    public byte[] buf() {
        return packed ? z.packed : item;
    }

    public int off() {
        return packed ? mOff : 0;
    }

    public int len() {
        return packed ? mLen : ScoreTree.memberLength(item);
    }

    public double score() {
        return packed ? score : ScoreTree.score(item);
    }

    /** A copy of the current member. */
    public byte[] member() {
        if (!packed) return Arrays.copyOf(item, ScoreTree.memberLength(item));
        byte[] m = new byte[mLen];
        System.arraycopy(z.packed, mOff, m, 0, mLen);
        return m;
    }

    public void next() {
        if (packed) atPos(Packed.next(z.packed, pos));
        else if (++slot < leaf.n) item = leaf.items[slot];
        else atLeaf(leaf.next, 0);
    }

    public void prev() {
        if (packed) atPos(pos == 0 ? -1 : Packed.entryStartBefore(z.packed, pos));
        else if (--slot >= 0) item = leaf.items[slot];
        else atLeaf(leaf.prev, leaf.prev == null ? 0 : leaf.prev.n - 1);
    }

    int pos() {
        return pos;
    }

    byte[] item() {
        return item;
    }
}
