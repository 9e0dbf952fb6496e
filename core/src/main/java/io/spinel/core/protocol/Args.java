package io.spinel.core.protocol;

import io.spinel.core.util.Bytes;
import io.spinel.core.util.NativeMemory;

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
    /**
     * The argument whose bytes are in native memory (a big SET value the reader received there,
     * see RespReader), or -1. Its slot in {@link #bufs} stays null until something asks for its
     * bytes on the heap; SET takes the memory itself ({@link #adoptNative}).
     */
    private int nativeArg = -1;
    private long nativeAddress;
    /** A command took the native memory: it is no longer this object's to free. */
    private boolean nativeAdopted;

    public int count() {
        return argc;
    }

    public byte[] buf(int i) {
        byte[] b = bufs[i];
        return b != null ? b : heapCopyOfNative(i);
    }

    private byte[] heapCopyOfNative(int i) {
        if (i != nativeArg) throw new IllegalStateException("argument " + i + " has no bytes");
        byte[] b = new byte[lens[i]];
        NativeMemory.copyTo(nativeAddress, b, 0, b.length);
        bufs[i] = b;
        offs[i] = 0;
        return b;
    }

    /** Adds an argument of len bytes at address, which this object frees unless a command adopts it. */
    void addNative(long address, int len) {
        releaseNative();
        nativeArg = argc;
        nativeAddress = address;
        nativeAdopted = false;
        add(null, 0, len);
    }

    /** Whether argument i is in native memory that a command may still adopt. */
    public boolean isNative(int i) {
        return i == nativeArg && !nativeAdopted;
    }

    /**
     * Takes argument i's native memory (after {@link #isNative} said yes): the caller owns it from
     * now on. Its bytes can still be read through {@link #buf} until the command ends.
     */
    public long adoptNative(int i) {
        if (!isNative(i)) throw new IllegalStateException("argument " + i + " is not native");
        nativeAdopted = true;
        return nativeAddress;
    }

    private void releaseNative() {
        if (nativeArg >= 0 && !nativeAdopted) NativeMemory.free(nativeAddress);
        nativeArg = -1;
        nativeAdopted = false;
    }

    public int off(int i) {
        return offs[i];
    }

    public int len(int i) {
        return lens[i];
    }

    /** A copy of argument i (for the cases that keep it, e.g. a new key). */
    public byte[] copy(int i) {
        byte[] b = buf(i);
        return Arrays.copyOfRange(b, offs[i], offs[i] + lens[i]);
    }

    /** Argument i decoded one char per byte (binary safe); for option names and messages. */
    public String string(int i) {
        return Bytes.latin1(buf(i), offs[i], lens[i]);
    }

    public boolean is(int i, String lowerToken) {
        return Bytes.equalsIgnoreCase(buf(i), offs[i], lens[i], lowerToken);
    }

    public boolean equals(int i, int j) {
        return Bytes.equals(buf(i), offs[i], lens[i], buf(j), offs[j], lens[j]);
    }

    public void clear() {
        releaseNative();
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
        if (i == nativeArg) releaseNative();
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
