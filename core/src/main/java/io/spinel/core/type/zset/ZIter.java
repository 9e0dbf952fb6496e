package io.spinel.core.type.zset;

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
    // skiplist encoding
    private SkipList.Node node;

    ZIter(ZSet z) {
        this.z = z;
        this.packed = z.skiplist == null;
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

    ZIter atNode(SkipList.Node n) {
        node = n;
        return this;
    }

    public boolean valid() {
        return packed ? pos >= 0 : node != null;
    }

    public byte[] buf() {
        return packed ? z.packed : node.ele;
    }

    public int off() {
        return packed ? mOff : 0;
    }

    public int len() {
        return packed ? mLen : node.ele.length;
    }

    public double score() {
        return packed ? score : node.score;
    }

    /** A copy of the current member. */
    public byte[] member() {
        if (!packed) return node.ele.clone();
        byte[] m = new byte[mLen];
        System.arraycopy(z.packed, mOff, m, 0, mLen);
        return m;
    }

    public void next() {
        if (packed) atPos(Packed.next(z.packed, pos));
        else node = node.next0;
    }

    public void prev() {
        if (packed) atPos(pos == 0 ? -1 : Packed.entryStartBefore(z.packed, pos));
        else node = node.backward;
    }

    int pos() {
        return pos;
    }

    SkipList.Node node() {
        return node;
    }
}
