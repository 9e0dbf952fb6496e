package io.spinel.core.protocol;

import io.spinel.core.util.Bytes;
import io.spinel.core.util.NativeMemory;
import io.spinel.core.util.UninitializedBytes;

import java.util.Arrays;

/**
 * A client's query buffer and the request parser (Redis's processMultibulkBuffer and
 * processInlineBuffer). The transport copies received bytes in with {@link #writable(int)} and
 * {@link #commit(int)}; {@link #next} then yields one command at a time as slices of this buffer.
 * Parsing keeps its state between reads, so a huge argument arriving in many packets is scanned
 * once, and the bytes of a command stay put until the command has run.
 *
 * <p>A client with nothing pending has no buffer of its own: a read goes into the engine's
 * {@link SharedQueryBuffer}, the commands in it run, and {@link #detach} then copies any part of a
 * command left over into an array of the client's own, which it keeps until it has been idle for
 * a while ({@link #releaseIfEmpty}).
 *
 * <p>A bulk argument of {@link #BIG_ARG} bytes or more that has not fully arrived gets an array of
 * its own, as Redis gives such an argument a query buffer of its exact size and then keeps that
 * buffer as the value: the transport copies the bytes straight into it ({@link #maxWrite} says
 * how many it may), the argument is the whole array ({@link Args#owned}), and a {@link BigArgLayout}
 * may leave room in front so that a command can turn the array into its entry without a copy.
 * A transport that can write native memory ({@link #receiveBigValuesNatively}) gets such an
 * argument, when the layout says its command keeps it (the values of SET and MSET), in native
 * memory instead ({@link #nativeTarget}): it never becomes garbage for the collector to copy, and
 * the command stores it as it is ({@code StringEntry.BIG}).
 *
 * <p>Error texts and the points where they are raised follow Redis 7.0 exactly, quirks included
 * (the count line ends at the first CR; the two bytes after a bulk are skipped, not checked).
 */
public final class RespReader {
    public static final int NEED_MORE = 0;
    public static final int COMMAND = 1;
    public static final int EMPTY = 2;
    public static final int ERROR = 3;

    /** Longest inline request or count line without a newline (PROTO_INLINE_MAX_SIZE). */
    public static final int INLINE_MAX = 64 * 1024;
    /** Bulk arguments from this size get their own array (PROTO_MBULK_BIG_ARG). */
    public static final int BIG_ARG = 32 * 1024;
    /** Most room a {@link BigArgLayout} may ask for. */
    private static final int MAX_HEADROOM = 4096;
    /**
     * The longest bulk argument this reader can hold (one Java array or native block of an int's
     * size, with its CRLF and headroom). A longer one, even within proto-max-bulk-len, is refused
     * as one over that limit: its length must never be narrowed to an int, which would take part
     * of the bulk as the argument and read the rest as commands.
     */
    public static final long MAX_BULK = Integer.MAX_VALUE - 8 - 2 - MAX_HEADROOM;

    /**
     * Room to leave in front of a big argument in its own array, so that the command it belongs
     * to can use the array as stored data. Called when the argument's length is known.
     */
    @FunctionalInterface
    public interface BigArgLayout {
        /**
         * @param parsed the arguments before this one
         * @param argc   the command's argument count
         * @param length the big argument's length
         */
        int headroom(Args parsed, int argc, int length);

        /**
         * Whether the command stores this argument as a value as it is (a value of SET or MSET),
         * so that it may be received into native memory (see {@link #receiveBigValuesNatively}).
         */
        default boolean keepsAsValue(Args parsed, int argc) {
            return false;
        }
    }
    /** A client's own query buffer starts at this size (PROTO_IOBUF_LEN). */
    static final int INITIAL = 16 * 1024;
    private static final int TYPE_UNKNOWN = 0, TYPE_INLINE = 1, TYPE_MULTIBULK = 2;

    /** The client's own buffer, the shared one while {@link #onShared()}, or empty. */
    private byte[] buf = Bytes.EMPTY;
    private SharedQueryBuffer shared;
    /** Start of the command being parsed: bytes before it are consumed. */
    private int start;
    /** Parse position. */
    private int pos;
    /** End of received data. */
    private int end;

    private int reqType;
    private int multibulkLen;
    private long bulkLen = -1;
    private String error;

    private final Args args;
    private BigArgLayout layout = (parsed, argc, length) -> 0;

    /** The big argument being received into its own array, or null; then {@link #end} == {@link #pos}. */
    private byte[] big;
    /** Where the argument starts in {@link #big}. */
    private int bigHead;
    /**
     * The native memory the big argument is received into, or 0; then {@link #big} is only the
     * {@link #NATIVE} marker.
     */
    private long bigAddress;
    /** A big value bound for native memory began since {@link #takeBigValueBegan} last asked. */
    private boolean bigValueBegan;
    private static final byte[] NATIVE = new byte[0];
    private boolean nativeBig;
    /** Bytes received of the argument and its CRLF, and how many that will be. */
    private int bigFill, bigNeed;
    /** Scratch bytes for inline arguments, which are unquoted and so cannot be slices. */
    private byte[] inlineScratch = new byte[64];

    public RespReader(Args args) {
        this.args = args;
    }

    public void layout(BigArgLayout layout) {
        this.layout = layout;
    }

    /**
     * The transport writes big arguments through {@link #nativeTarget} when there is one: values
     * that a command keeps go to native memory. Ignored where native memory is unavailable.
     */
    public void receiveBigValuesNatively(boolean on) {
        nativeBig = on && NativeMemory.available();
    }

    /**
     * Where the next received bytes go while a big argument arrives into native memory (at most
     * {@link #maxWrite} of them, then {@link #commit}), else 0: use {@link #writable}.
     */
    public long nativeTarget() {
        return bigAddress != 0 && bigFill < bigNeed ? bigAddress + bigFill : 0;
    }

    /**
     * Whether a big value bound for native memory began since this was last asked (and forgets
     * it). A client that sent one likely sends another next: a transport that reads into
     * {@link #nativeTarget} then reads only a little first, the next command's header, so that
     * the rest of its value goes straight from the socket to its memory (as Redis reads 16 KB and
     * then the rest of a big argument into the string it becomes) instead of arriving in a read
     * buffer and being copied there.
     */
    public boolean takeBigValueBegan() {
        boolean began = bigValueBegan;
        bigValueBegan = false;
        return began;
    }

    /** Reads go into this buffer while the client has none of its own. */
    public void share(SharedQueryBuffer shared) {
        this.shared = shared;
    }

    /** buf is the shared buffer's array, lent to this reader until {@link #detach}. */
    private boolean onShared() {
        return shared != null && shared.holder == this;
    }

    private boolean receivingBig() {
        return big != null && bigFill < bigNeed;
    }

    /**
     * The most bytes the next {@link #writable} should ask for: while a big argument is arriving,
     * what it still lacks, so that it fills its own array and nothing else does. Writing more at
     * once is allowed but copies the argument back into the query buffer.
     */
    public int maxWrite() {
        return receivingBig() ? bigNeed - bigFill : Integer.MAX_VALUE;
    }

    /** Room for at least {@code n} more bytes at {@link #writeOffset()}; returns the array. */
    public byte[] writable(int n) {
        if (receivingBig()) {
            if (n <= bigNeed - bigFill && bigAddress == 0) return big;
            unbig();
        }
        if (buf.length == 0 && shared != null && shared.available(n)) {
            buf = shared.lend(this, n);
            start = pos = end = 0;
            return buf;
        }
        if (end + n > buf.length) makeRoom(n);
        return buf;
    }

    /** How many bytes fit at {@link #writeOffset()} without moving or growing the buffer. */
    public int room() {
        return receivingBig() ? bigNeed - bigFill : buf.length - end;
    }

    public int writeOffset() {
        return receivingBig() ? bigHead + bigFill : end;
    }

    public void commit(int n) {
        if (receivingBig()) bigFill += n;
        else end += n;
    }

    /** Bytes received and not yet consumed by a complete command (the client's qbuf). */
    public int pending() {
        return end - start + (big != null ? bigFill : 0);
    }

    /**
     * Received bytes not yet parsed into arguments (Redis's query buffer once a read's parsed part
     * is trimmed off): the rest of the buffer and what arrived of a big argument.
     */
    public int unparsed() {
        return end - pos + (big != null ? bigFill : 0);
    }

    private int bigSize() {
        return big == null ? 0 : bigAddress != 0 ? bigNeed : big.length;
    }

    /** The buffer bytes the client reads into now, the shared buffer included (CLIENT LIST's qbuf + qbuf-free). */
    public int capacity() {
        return buf.length + bigSize();
    }

    /** The buffer bytes the client holds of its own (its memory). */
    public int allocated() {
        return (onShared() ? 0 : buf.length) + bigSize();
    }

    /**
     * Gives the shared buffer back after the commands of a read have run: what is left of a
     * command still arriving moves into an array of the client's own, with the arguments already
     * parsed from it.
     */
    public void detach() {
        if (!onShared()) return;
        int live = end - start;
        byte[] from = buf;
        shared.holder = null;
        if (live == 0 && reqType == TYPE_UNKNOWN) {
            buf = Bytes.EMPTY;
            start = pos = end = 0;
            return;
        }
        buf = new byte[Math.max(INITIAL, live)];
        System.arraycopy(from, start, buf, 0, live);
        args.relocate(from, buf, start);
        pos -= start;
        end -= start;
        start = 0;
    }

    public boolean hasUnparsed() {
        return pos < end || (big != null && bigFill == bigNeed);
    }

    /** Starts receiving the bulk of n bytes at pos, of which end - pos are here, into its own array. */
    private void startBig(int n) {
        int argc = args.count() + multibulkLen;
        bigNeed = n + 2;
        bigFill = end - pos;
        if (nativeBig && layout.keepsAsValue(args, argc)) {
            bigHead = 0;
            big = NATIVE;
            bigAddress = NativeMemory.allocate(bigNeed);
            NativeMemory.copyFrom(buf, pos, bigAddress, bigFill);
            bigValueBegan = true;
            end = pos;
            return;
        }
        int head = layout.headroom(args, argc, n);
        if (head < 0 || head > MAX_HEADROOM) head = 0;
        bigHead = head;
        // every byte of it is received before the command runs, and the head is written by the
        // command that adopts the array (StringEntry.adoptRaw) or never read
        big = UninitializedBytes.allocate(head + bigNeed);
        System.arraycopy(buf, pos, big, head, bigFill);
        end = pos;
    }

    /** A writer gave more than the big argument lacks: back to receiving it in the query buffer. */
    private void unbig() {
        byte[] b = big;
        int fill = bigFill;
        big = null;
        if (end + fill > buf.length) makeRoom(fill);
        if (bigAddress != 0) {
            NativeMemory.copyTo(bigAddress, buf, end, fill);
            freeBig();
        } else {
            System.arraycopy(b, bigHead, buf, end, fill);
        }
        end += fill;
    }

    private void freeBig() {
        NativeMemory.free(bigAddress);
        bigAddress = 0;
    }

    /** The protocol error message after {@link #next} returned {@link #ERROR}. */
    public String error() {
        return error;
    }

    /**
     * Gives the buffer back when nothing is pending (Redis frees an idle client's query buffer
     * after 2 s): an idle connection then holds no 16 KB array. Returns whether it did.
     */
    public boolean releaseIfEmpty() {
        if (start != end || reqType != TYPE_UNKNOWN || buf.length == 0 || onShared()) return false;
        start = pos = end = 0;
        buf = Bytes.EMPTY;
        return true;
    }

    private void makeRoom(int n) {
        int live = end - start;
        byte[] target = buf;
        boolean leavesShared = false;
        if ((long) live + n > buf.length) {
            // (leaving the shared buffer, whose size says nothing about this client's needs)
            leavesShared = onShared();
            long cap = Math.max((long) live + n, leavesShared ? INITIAL : Math.max((long) buf.length * 2, INITIAL));
            if (cap > Integer.MAX_VALUE - 8) cap = Integer.MAX_VALUE - 8;
            target = new byte[(int) cap];
        }
        System.arraycopy(buf, start, target, 0, live);
        args.relocate(buf, target, start);
        if (leavesShared) shared.holder = null;
        buf = target;
        pos -= start;
        end -= start;
        start = 0;
    }

    /**
     * Parses the next command into the args. Returns {@link #COMMAND} (args hold it),
     * {@link #EMPTY} (a blank line or a zero count: nothing to run), {@link #NEED_MORE}, or
     * {@link #ERROR} (a protocol error: reply {@link #error()} and close the connection).
     *
     * @param authRequired the client must authenticate first: argument counts and sizes are capped
     * @param maxBulkLen   proto-max-bulk-len
     */
    public int next(boolean authRequired, long maxBulkLen) {
        if (!hasUnparsed()) return NEED_MORE;
        if (reqType == TYPE_UNKNOWN) {
            start = pos;
            args.clear();
            reqType = buf[pos] == '*' ? TYPE_MULTIBULK : TYPE_INLINE;
        }
        int r = reqType == TYPE_INLINE ? parseInline() : parseMultibulk(authRequired, maxBulkLen);
        if (r == COMMAND || r == EMPTY) reqType = TYPE_UNKNOWN;
        return r;
    }

    /** Call after the parsed command has run: its bytes are free to reuse. */
    public void consumed() {
        start = pos;
        if (start == end && reqType == TYPE_UNKNOWN) {
            start = pos = end = 0;
            // a buffer a big command grew is not kept: the next read goes to the shared one
            if (buf.length > 4 * INITIAL && !onShared()) {
                buf = shared != null ? Bytes.EMPTY : new byte[INITIAL];
            }
        }
    }

    private int indexOf(byte c, int from) {
        for (int i = from; i < end; i++) if (buf[i] == c) return i;
        return -1;
    }

    private int fail(String msg) {
        error = msg;
        return ERROR;
    }

    private int parseMultibulk(boolean authRequired, long maxBulkLen) {
        if (multibulkLen == 0) {
            int cr = indexOf((byte) '\r', pos);
            if (cr < 0) {
                if (end - pos > INLINE_MAX) return fail("Protocol error: too big mbulk count string");
                return NEED_MORE;
            }
            if (cr + 1 >= end) return NEED_MORE; // the \n must be there too
            long n;
            try {
                n = Bytes.parseLong(buf, pos + 1, cr - pos - 1);
            } catch (NumberFormatException e) {
                return fail("Protocol error: invalid multibulk length");
            }
            if (n > Integer.MAX_VALUE) return fail("Protocol error: invalid multibulk length");
            if (n > 10 && authRequired) return fail("Protocol error: unauthenticated multibulk length");
            pos = cr + 2;
            if (n <= 0) return EMPTY;
            multibulkLen = (int) n;
            args.ensureCapacity((int) Math.min(n, 1024));
        }
        while (multibulkLen > 0) {
            if (bulkLen == -1) {
                int cr = indexOf((byte) '\r', pos);
                if (cr < 0) {
                    if (end - pos > INLINE_MAX) return fail("Protocol error: too big bulk count string");
                    return NEED_MORE;
                }
                if (cr + 1 >= end) return NEED_MORE;
                if (buf[pos] != '$') {
                    return fail("Protocol error: expected '$', got '" + (char) (buf[pos] & 0xff) + "'");
                }
                long n;
                try {
                    n = Bytes.parseLong(buf, pos + 1, cr - pos - 1);
                } catch (NumberFormatException e) {
                    return fail("Protocol error: invalid bulk length");
                }
                if (n < 0 || n > maxBulkLen || n > MAX_BULK) return fail("Protocol error: invalid bulk length");
                if (n > 16384 && authRequired) return fail("Protocol error: unauthenticated bulk length");
                pos = cr + 2;
                bulkLen = n;
                if (n >= BIG_ARG && end - pos < n + 2) startBig((int) n);
                else if (n + 2 > buf.length - pos) makeRoom((int) (n + 2 - (end - pos)));
            }
            if (big != null) {
                if (bigFill < bigNeed) return NEED_MORE;
                if (bigAddress != 0) {
                    args.addNative(bigAddress, (int) bulkLen); // the args own it now
                    bigAddress = 0;
                } else {
                    args.addOwned(big, bigHead, (int) bulkLen);
                }
                big = null;
                bulkLen = -1;
                multibulkLen--;
                continue;
            }
            if (end - pos < bulkLen + 2) return NEED_MORE;
            args.add(buf, pos, (int) bulkLen);
            pos += (int) bulkLen + 2;
            bulkLen = -1;
            multibulkLen--;
        }
        return COMMAND;
    }

    private int parseInline() {
        int nl = indexOf((byte) '\n', pos);
        if (nl < 0) {
            if (end - pos > INLINE_MAX) return fail("Protocol error: too big inline request");
            return NEED_MORE;
        }
        int lineEnd = nl;
        if (nl != pos && buf[nl - 1] == '\r') lineEnd--;
        if (!splitArgs(pos, lineEnd)) return fail("Protocol error: unbalanced quotes in request");
        pos = nl + 1;
        return args.count() == 0 ? EMPTY : COMMAND;
    }

    /** Splits buf[from, to) into the args (inline commands); false on unbalanced quotes. */
    private boolean splitArgs(int from, int to) {
        if (inlineScratch.length < to - from) {
            inlineScratch = new byte[Math.max(to - from, inlineScratch.length * 2)];
        }
        return SplitArgs.split(buf, from, to, inlineScratch, args);
    }

    /** Drops everything (the connection is going away). */
    public void reset() {
        start = pos = end = 0;
        reqType = TYPE_UNKNOWN;
        multibulkLen = 0;
        bulkLen = -1;
        big = null;
        if (bigAddress != 0) freeBig();
        bigFill = bigNeed = 0;
        args.clear();
        if (onShared()) shared.holder = null;
        buf = Bytes.EMPTY;
    }

    @Override
    public String toString() {
        return "RespReader[" + new String(Arrays.copyOfRange(buf, start, Math.min(end, start + 64))) + "]";
    }
}
