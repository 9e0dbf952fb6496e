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
     * Per argument, the native memory holding its bytes (a big value of SET or MSET that the
     * reader received there, see RespReader), or 0. Such an argument's slot in {@link #bufs} stays
     * null until something asks for its bytes on the heap; SET and MSET take the memory itself
     * ({@link #adoptNative}). Sized with {@link #bufs}, and only looked at while
     * {@link #nativeCount} is not 0.
     */
    private long[] nativeAddrs = new long[8];
    /** Per argument: a command took its native memory, which is no longer this object's to free. */
    private boolean[] nativeAdopted = new boolean[8];
    /** How many arguments have native memory (adopted or not). */
    private int nativeCount;

    public int count() {
        return argc;
    }

    public byte[] buf(int i) {
        byte[] b = bufs[i];
        return b != null ? b : heapCopyOfNative(i);
    }

    private byte[] heapCopyOfNative(int i) {
        if (nativeCount == 0 || nativeAddrs[i] == 0) throw new IllegalStateException("argument " + i + " has no bytes");
        byte[] b = new byte[lens[i]];
        NativeMemory.copyTo(nativeAddrs[i], b, 0, b.length);
        bufs[i] = b;
        offs[i] = 0;
        return b;
    }

    /** Adds an argument of len bytes at address, which this object frees unless a command adopts it. */
    void addNative(long address, int len) {
        int i = argc;
        add(null, 0, len);
        nativeAddrs[i] = address;
        nativeAdopted[i] = false;
        nativeCount++;
    }

    /** Whether argument i is in native memory that a command may still adopt. */
    public boolean isNative(int i) {
        return nativeCount != 0 && nativeAddrs[i] != 0 && !nativeAdopted[i];
    }

    /**
     * Takes argument i's native memory (after {@link #isNative} said yes): the caller owns it from
     * now on. Its bytes can still be read through {@link #buf} until the command ends.
     */
    public long adoptNative(int i) {
        if (!isNative(i)) throw new IllegalStateException("argument " + i + " is not native");
        nativeAdopted[i] = true;
        return nativeAddrs[i];
    }

    /** Frees the native memory of every argument no command adopted. */
    private void releaseNative() {
        for (int i = 0; i < argc && nativeCount > 0; i++) releaseNative(i);
    }

    private void releaseNative(int i) {
        if (nativeAddrs[i] == 0) return;
        if (!nativeAdopted[i]) NativeMemory.free(nativeAddrs[i]);
        nativeAddrs[i] = 0;
        nativeAdopted[i] = false;
        nativeCount--;
    }

    public int off(int i) {
        return offs[i];
    }

    public int len(int i) {
        return lens[i];
    }

    /**
     * Copies the first n bytes of argument i to dst[0, n): from native memory where the argument
     * is there, without a heap copy of the whole of it (the slow log keeps 128 bytes of a 64 KB value).
     */
    public void copyPrefix(int i, byte[] dst, int n) {
        if (bufs[i] == null && nativeCount != 0 && nativeAddrs[i] != 0) NativeMemory.copyTo(nativeAddrs[i], dst, 0, n);
        else System.arraycopy(buf(i), offs[i], dst, 0, n);
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

    /**
     * Argument i as a C string: up to its first NUL, as Redis's error texts quote an argument
     * (printf's %s); one char per byte.
     */
    public String cString(int i) {
        String s = string(i);
        int nul = s.indexOf('\0');
        return nul < 0 ? s : s.substring(0, nul);
    }

    public boolean is(int i, String lowerToken) {
        return Bytes.equalsIgnoreCase(buf(i), offs[i], lens[i], lowerToken);
    }

    public boolean equals(int i, int j) {
        return Bytes.equals(buf(i), offs[i], lens[i], buf(j), offs[j], lens[j]);
    }

    public void clear() {
        if (nativeCount != 0) releaseNative();
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
        if (nativeCount != 0) releaseNative(i);
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
        nativeAddrs = Arrays.copyOf(nativeAddrs, cap);
        nativeAdopted = Arrays.copyOf(nativeAdopted, cap);
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
