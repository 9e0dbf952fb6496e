package io.spinel.core.protocol;

import io.spinel.core.util.Bytes;

import java.util.Arrays;

/**
 * The arguments of the command being executed (Redis's argv), as slices. Arguments parsed from the
 * network point straight into the client's query buffer; arguments of queued (MULTI), scripted or
 * embedded calls point into their own arrays. Either way nothing is copied on the hot path.
 */
public final class Args {
    private byte[][] bufs = new byte[8][];
    private int[] offs = new int[8];
    private int[] lens = new int[8];
    private int argc;
    /**
     * Bit i set: argument i is the whole content of an array that only it refers to (a big
     * argument the reader read into its own array), which a command may keep as a value.
     */
    private long owned;

    public int count() {
        return argc;
    }

    public byte[] buf(int i) {
        return bufs[i];
    }

    public int off(int i) {
        return offs[i];
    }

    public int len(int i) {
        return lens[i];
    }

    /** A copy of argument i (for the cases that keep it, e.g. a new key). */
    public byte[] copy(int i) {
        return Arrays.copyOfRange(bufs[i], offs[i], offs[i] + lens[i]);
    }

    /** Argument i decoded one char per byte (binary safe); for option names and messages. */
    public String string(int i) {
        return Bytes.latin1(bufs[i], offs[i], lens[i]);
    }

    public boolean is(int i, String lowerToken) {
        return Bytes.equalsIgnoreCase(bufs[i], offs[i], lens[i], lowerToken);
    }

    public boolean equals(int i, int j) {
        return Bytes.equals(bufs[i], offs[i], lens[i], bufs[j], offs[j], lens[j]);
    }

    public void clear() {
        // drop references so a large query buffer or value can be collected
        Arrays.fill(bufs, 0, argc, null);
        argc = 0;
        owned = 0;
    }

    /** Adds an argument that is the only user of its array (see {@link #owned}). */
    void addOwned(byte[] buf, int off, int len) {
        if (argc < 64) owned |= 1L << argc;
        add(buf, off, len);
    }

    /**
     * Whether argument i's array belongs to it alone, so a command may keep the array (with
     * {@link #disown}) instead of copying the bytes.
     */
    public boolean owned(int i) {
        return i < 64 && (owned & (1L << i)) != 0;
    }

    /** A command kept argument i's array: nothing else may. */
    public void disown(int i) {
        if (i < 64) owned &= ~(1L << i);
    }

    public void add(byte[] buf, int off, int len) {
        if (argc == bufs.length) grow(argc + 1);
        bufs[argc] = buf;
        offs[argc] = off;
        lens[argc] = len;
        argc++;
    }

    public void add(byte[] whole) {
        add(whole, 0, whole.length);
    }

    /** Sets the arguments to whole arrays (queued commands, scripts, the embedded API). */
    public void set(byte[][] argv) {
        clear();
        ensureCapacity(argv.length);
        for (byte[] a : argv) add(a, 0, a.length);
    }

    /** Replaces argument i (Redis's rewriteClientCommandArgument, e.g. for propagation). */
    public void replace(int i, byte[] whole) {
        disown(i);
        bufs[i] = whole;
        offs[i] = 0;
        lens[i] = whole.length;
    }

    public void ensureCapacity(int n) {
        if (n > bufs.length) grow(n);
    }

    private void grow(int min) {
        int cap = Math.max(min, bufs.length * 2);
        bufs = Arrays.copyOf(bufs, cap);
        offs = Arrays.copyOf(offs, cap);
        lens = Arrays.copyOf(lens, cap);
    }

    /** Rebase the slices that point into {@code from} after the query buffer moved. */
    void relocate(byte[] from, byte[] to, int shift) {
        for (int i = 0; i < argc; i++) {
            if (bufs[i] == from) {
                bufs[i] = to;
                offs[i] -= shift;
            }
        }
    }

    /** Copies of all arguments, e.g. to queue the command. */
    public byte[][] toArrays() {
        byte[][] out = new byte[argc][];
        for (int i = 0; i < argc; i++) out[i] = copy(i);
        return out;
    }

    /** Total bytes of all arguments (CLIENT LIST argv-mem). */
    public long totalLength() {
        long n = 0;
        for (int i = 0; i < argc; i++) n += lens[i];
        return n;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < argc; i++) {
            if (i > 0) sb.append(' ');
            sb.append(string(i));
        }
        return sb.toString();
    }
}
