package io.spinel.core.protocol;

import io.spinel.core.util.Bytes;
import io.spinel.core.util.Doubles;
import io.spinel.core.util.NativeMemory;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A client's output buffer and RESP encoder (Redis's addReply* family). Replies are encoded straight
 * into one growable byte array; the transport drains it once per read batch, so a pipeline of any
 * depth costs one write. Past {@link #SPILL_THRESHOLD} bytes the buffer is handed to the
 * {@link Sink} mid-command, so a huge reply (KEYS *, LRANGE of millions) streams out instead of
 * growing one array without bound.
 *
 * <p>Everything here is allocation-free except the growth of the array itself.
 */
public final class Reply {
    /** Where encoded bytes go when the buffer is drained. */
    public interface Sink {
        /** Takes a copy of {@code len} bytes (the array is reused afterwards). */
        void write(byte[] buf, int off, int len);

        /** Whether {@link #writeNative} may be called. */
        default boolean takesNative() {
            return false;
        }

        /**
         * Takes {@code buf[off, off + len)}, then {@code n} bytes at {@code address}, then
         * {@code tail}, in that order, as {@link #write} would take them in one array. Done with
         * the native bytes when it returns (sent, or copied): the memory may be freed right after.
         */
        default void writeNative(byte[] buf, int off, int len, long address, int n, byte[] tail) {
            throw new UnsupportedOperationException();
        }
    }

    public static final int SPILL_THRESHOLD = 64 * 1024;
    private static final int INITIAL = 1024;
    /** A buffer that grew past this is shrunk back when drained, so idle clients stay small. */
    private static final int SHRINK_ABOVE = 256 * 1024;
    /** A drained buffer longer than shrinkAbove is replaced by one of shrinkTo bytes (see {@link #holdSize}). */
    private int shrinkAbove = SHRINK_ABOVE, shrinkTo = INITIAL;

    private static final byte[] CRLF = {'\r', '\n'};
    private static final byte[] OK = Bytes.ascii("+OK\r\n");
    private static final byte[] NULL_BULK = Bytes.ascii("$-1\r\n");
    private static final byte[] NULL_ARRAY = Bytes.ascii("*-1\r\n");
    private static final byte[] NULL3 = Bytes.ascii("_\r\n");
    private static final byte[] ZERO = Bytes.ascii(":0\r\n");
    private static final byte[] ONE = Bytes.ascii(":1\r\n");
    private static final byte[] EMPTY_ARRAY = Bytes.ascii("*0\r\n");
    private static final byte[] TRUE3 = Bytes.ascii("#t\r\n");
    private static final byte[] FALSE3 = Bytes.ascii("#f\r\n");

    private byte[] buf = new byte[INITIAL];
    private int len;
    /** The most the buffer held since the peak was last reset (Redis's buf_peak, CLIENT LIST's rbp). */
    private int peak;
    private long peakResetMillis;
    private int protocol = 2;
    private Sink sink;
    /** Bytes written since the client connected, for INFO/CLIENT LIST accounting. */
    private long totalBytes;
    /** CLIENT REPLY OFF/SKIP: encoding still happens but the bytes are dropped. */
    private boolean discarding;
    private int discardMark;

    public void setSink(Sink sink) {
        this.sink = sink;
    }

    /**
     * Asked before a reply leaves in the middle of a command (a spill of a big reply), for
     * clients with an output buffer limit: Redis writes nothing before the batch's end and closes
     * a client whose output passes its hard limit, so such a client's reply is held (kept in the
     * buffer) until it either ends or passes the limit, and then nothing of it is sent.
     */
    public interface SpillGuard {
        int WRITE = 0;
        int HOLD = 1;
        int DROP = 2;

        int spill();
    }

    private SpillGuard spillGuard;

    public void setSpillGuard(SpillGuard guard) {
        this.spillGuard = guard;
    }

    /** Whether a spill may go now; if the client is past its limit, the reply is dropped and so is all that follows it. */
    private boolean spillAllowed() {
        if (spillGuard == null) return true;
        int verdict = spillGuard.spill();
        if (verdict == SpillGuard.DROP) {
            len = 0;
            startDiscarding();
        }
        return verdict == SpillGuard.WRITE;
    }

    public int protocol() {
        return protocol;
    }

    public void setProtocol(int protocol) {
        this.protocol = protocol;
    }

    public boolean resp3() {
        return protocol == 3;
    }

    /** Drops what was written after {@link #mark()} returned mark (still in the buffer: len >= mark). */
    public void truncate(int mark) {
        if (mark < 0 || mark > len) throw new IllegalArgumentException("mark " + mark + " past " + len);
        len = mark;
    }

    public int length() {
        return len;
    }

    public byte[] buffer() {
        return buf;
    }

    public long totalBytes() {
        return totalBytes;
    }

    /** Starts dropping everything encoded until {@link #stopDiscarding()}. */
    public void startDiscarding() {
        discarding = true;
        discardMark = len;
    }

    public void stopDiscarding() {
        if (discarding) {
            len = discardMark;
            discarding = false;
        }
    }

    /**
     * Starts a push (pub/sub message or confirmation, invalidation): pushes reach the client even
     * under CLIENT REPLY OFF/SKIP, as in Redis, so they must not be dropped with the discarded reply.
     */
    public void beginPush() {
        if (discarding) len = discardMark;
    }

    /** Ends a push: what follows is discarded again if the reply is off. */
    public void endPush() {
        if (discarding) discardMark = len;
    }

    /** Hands all buffered bytes to the sink; returns how many went. */
    public int drain() {
        int n = len;
        if (n > 0 && !discarding) {
            sink.write(buf, 0, n);
            drained(n);
        }
        return n;
    }

    private void drained(long n) {
        totalBytes += n;
        if (len > peak) peak = len;
        // a reply bigger than the buffer that went out past it (a spill, a native value) filled
        // it as far as Redis's accounting goes: there it fills c->buf and the rest takes list nodes
        if (n > len && peak < buf.length) peak = (int) Math.min(n, buf.length);
        len = 0;
        if (buf.length > shrinkAbove) buf = new byte[shrinkTo];
    }

    /**
     * Keeps the buffer at its present size (DEBUG REPLYBUFFER RESIZING 0, Redis's fixed reply
     * buffer): what a reply grows it by is given back once drained, as Redis frees the reply list
     * nodes that took what did not fit; false goes back to shrinking only buffers grown past 256 KB.
     */
    public void holdSize(boolean hold) {
        shrinkAbove = hold ? buf.length : smallAfterBursts ? EXPAND_BELOW / 2 : SHRINK_ABOVE;
        shrinkTo = hold ? buf.length : INITIAL;
    }

    /** A replica's buffer ({@link #keepSmallAfterBursts}). */
    private boolean smallAfterBursts;

    /**
     * A replica's buffer: the replication stream passes through it to the transport, so one
     * grown past 16 KB by a burst is given back once drained (Redis's replicas keep at most a
     * 16 KB buffer, their stream waiting in the shared replication buffer), rather than staying
     * as memory that maxmemory counts until the cron shrinks it.
     */
    public void keepSmallAfterBursts() {
        smallAfterBursts = true;
        shrinkAbove = EXPAND_BELOW / 2;
        shrinkTo = INITIAL;
    }

    /** The most the buffer held since the peak was last reset (CLIENT LIST's rbp). */
    public int peak() {
        return Math.max(peak, len);
    }

    /** What {@link #resizeToPeak} did: nothing, or the buffer shrank or grew (INFO reply_buffer_shrinks / _expands). */
    public static final int KEPT = 0, SHRUNK = 1, EXPANDED = 2;
    /** The cron grows a buffer whose peak filled it while it is below this (Redis's 2 * PROTO_REPLY_CHUNK_BYTES). */
    private static final int EXPAND_BELOW = 32 * 1024;

    /**
     * Redis's clientsCronResizeOutputBuffer, from the clients' cron: a buffer whose recent peak
     * used less than half of it shrinks to that peak (1 KB at least) once nothing waits in it,
     * so a client that once got a big reply does not keep its buffer; one whose peak filled it
     * doubles, up to 16 KB, so a client busy with replies that do not fit gets a larger one. The
     * peak starts again every {@code peakResetMillis} (negative: never).
     */
    public int resizeToPeak(long nowMillis, long peakResetAfterMillis) {
        int recent = peak();
        int done = KEPT;
        if (len == 0 && buf.length / 2 >= INITIAL && recent < buf.length / 2) {
            buf = new byte[Math.max(INITIAL, recent + 1)];
            done = SHRUNK;
        } else if (buf.length * 2 < EXPAND_BELOW && recent >= buf.length) {
            buf = Arrays.copyOf(buf, buf.length * 2);
            done = EXPANDED;
        }
        if (peakResetAfterMillis >= 0 && nowMillis - peakResetMillis >= peakResetAfterMillis) {
            peak = len;
            peakResetMillis = nowMillis;
        }
        return done;
    }

    public boolean hasPending() {
        return len > 0 && !discarding;
    }

    /** Drops everything not yet drained (e.g. a client being closed). */
    public void clear() {
        len = 0;
    }

    /** Position marker, for replies whose length is only known at the end (deferred lengths). */
    public int mark() {
        return len;
    }

    private void ensure(int extra) {
        if (len + extra > buf.length) grow(extra);
    }

    private void grow(int extra) {
        if (len >= SPILL_THRESHOLD && sink != null && !discarding && deferredDepth == 0 && spillAllowed()) {
            drain();
            if (extra <= buf.length) return;
        }
        if (discarding && deferredDepth == 0 && len - discardMark >= SPILL_THRESHOLD) {
            len = discardMark; // dropped anyway: a big reply nobody gets does not grow the buffer
            if (len + extra <= buf.length) return;
        }
        long need = (long) len + extra;
        long cap = Math.max(need, (long) buf.length * 2);
        if (cap > Integer.MAX_VALUE - 8) cap = Math.max(need, Integer.MAX_VALUE - 8);
        buf = Arrays.copyOf(buf, (int) cap);
    }

    /** Open deferred headers; the buffer must not drain while one is open (it is patched later). */
    private int deferredDepth;

    // ---- raw ------------------------------------------------------------------------------------

    public void raw(byte[] b) {
        raw(b, 0, b.length);
    }

    public void raw(byte[] b, int off, int n) {
        if (n > SPILL_THRESHOLD && len + n > buf.length && sink != null && !discarding && deferredDepth == 0
                && spillAllowed()) {
            drain();
            sink.write(b, off, n);
            totalBytes += n;
            peak = Math.max(peak, buf.length); // it went past a full buffer, as far as the cron's rule goes
            return;
        }
        ensure(n);
        System.arraycopy(b, off, buf, len, n);
        len += n;
    }

    private void putByte(int c) {
        buf[len++] = (byte) c;
    }

    private void crlf() {
        buf[len++] = '\r';
        buf[len++] = '\n';
    }

    private void prefixed(char prefix, long n) {
        ensure(24);
        buf[len++] = (byte) prefix;
        len = Bytes.writeLong(buf, len, n);
        crlf();
    }

    // ---- simple types ---------------------------------------------------------------------------

    public void ok() {
        raw(OK);
    }

    /** +status\r\n; the text must not contain CR or LF. */
    public void status(String s) {
        int n = s.length();
        ensure(n + 3);
        putByte('+');
        for (int i = 0; i < n; i++) buf[len++] = (byte) s.charAt(i);
        crlf();
    }

    /**
     * -ERR message\r\n. The message is the whole error including its code ("ERR ...",
     * "WRONGTYPE ..."); newlines are replaced by spaces as Redis does, since they would break the
     * protocol.
     */
    public void error(String msg) {
        // an error quotes what the client sent (an unknown command's name and arguments), which
        // arrived as bytes and became chars 0-255: those go back as the same bytes
        byte[] b = msg.getBytes(isLatin1(msg) ? StandardCharsets.ISO_8859_1 : StandardCharsets.UTF_8);
        ensure(b.length + 4);
        putByte('-');
        for (byte c : b) buf[len++] = (c == '\r' || c == '\n') ? (byte) ' ' : c;
        crlf();
    }

    private static boolean isLatin1(String s) {
        for (int i = 0; i < s.length(); i++) if (s.charAt(i) > 0xFF) return false;
        return true;
    }

    public void integer(long v) {
        if (v == 0) {
            raw(ZERO);
        } else if (v == 1) {
            raw(ONE);
        } else {
            prefixed(':', v);
        }
    }

    public void bool(boolean v) {
        if (protocol == 3) raw(v ? TRUE3 : FALSE3);
        else raw(v ? ONE : ZERO);
    }

    // ---- bulk strings ---------------------------------------------------------------------------

    public void bulk(byte[] b) {
        bulk(b, 0, b.length);
    }

    public void bulk(byte[] b, int off, int n) {
        if (n > SPILL_THRESHOLD) {
            prefixed('$', n);
            raw(b, off, n);
            ensure(2);
            crlf();
            return;
        }
        ensure(n + 16);
        buf[len++] = '$';
        len = Bytes.writeLong(buf, len, n);
        crlf();
        System.arraycopy(b, off, buf, len, n);
        len += n;
        crlf();
    }

    /** A bulk string of n bytes in native memory (a BIG string value). */
    public void bulkNative(long address, int n) {
        prefixed('$', n);
        if (sink != null && sink.takesNative() && !discarding && deferredDepth == 0 && spillAllowed()) {
            // the sink reads the value where it lies (to the socket, as Redis writes it from its
            // reply buffer), instead of it being copied here first and out again when drained
            int head = len;
            sink.writeNative(buf, 0, head, address, n, CRLF);
            drained((long) head + n + CRLF.length);
            return;
        }
        // in slices, so that a huge value streams through the buffer as raw() lets heap bytes do
        for (int done = 0; done < n; ) {
            int chunk = Math.min(n - done, SPILL_THRESHOLD);
            ensure(chunk);
            NativeMemory.copyTo(address + done, buf, len, chunk);
            len += chunk;
            done += chunk;
        }
        ensure(2);
        crlf();
    }

    /** A bulk string of a Java string in UTF-8; an ASCII one is written without encoding it first. */
    public void bulk(String s) {
        int n = s.length();
        if (n > SPILL_THRESHOLD) {
            bulk(s.getBytes(StandardCharsets.UTF_8));
            return;
        }
        for (int i = 0; i < n; i++) {
            if (s.charAt(i) >= 0x80) {
                bulk(s.getBytes(StandardCharsets.UTF_8));
                return;
            }
        }
        bulkLatin1(s);
    }

    /** A bulk string of a string of bytes, one char each (a config value, an argument's copy). */
    public void bulkLatin1(String s) {
        int n = s.length();
        if (n > SPILL_THRESHOLD) {
            bulk(s.getBytes(StandardCharsets.ISO_8859_1));
            return;
        }
        ensure(n + 16);
        buf[len++] = '$';
        len = Bytes.writeLong(buf, len, n);
        crlf();
        for (int i = 0; i < n; i++) buf[len++] = (byte) s.charAt(i);
        crlf();
    }

    /** A long as a bulk string ("$3\r\n123\r\n"), as GET of an int-encoded value replies. */
    public void bulkLong(long v) {
        int n = Bytes.decimalLength(v);
        ensure(n + 8);
        buf[len++] = '$';
        len = Bytes.writeLong(buf, len, n);
        crlf();
        len = Bytes.writeLong(buf, len, v);
        crlf();
    }

    /**
     * A bulk string of two unsigned 64-bit numbers in decimal joined by a dash, written in place:
     * a stream entry ID ("1700000000000-0"), which a range reply writes once per entry.
     */
    public void bulkDashed(long hi, long lo) {
        int n = unsignedLength(hi) + 1 + unsignedLength(lo);
        ensure(n + 8);
        buf[len++] = '$';
        len = Bytes.writeLong(buf, len, n);
        crlf();
        writeUnsigned(hi);
        buf[len++] = '-';
        writeUnsigned(lo);
        crlf();
    }

    private static int unsignedLength(long v) {
        // (past 2^63: the number without its last digit is a positive long, then one digit)
        return v >= 0 ? Bytes.decimalLength(v) : Bytes.decimalLength(Long.divideUnsigned(v, 10)) + 1;
    }

    private void writeUnsigned(long v) {
        if (v >= 0) {
            len = Bytes.writeLong(buf, len, v);
        } else {
            long q = Long.divideUnsigned(v, 10);
            len = Bytes.writeLong(buf, len, q);
            buf[len++] = (byte) ('0' + (v - q * 10));
        }
    }

    public void nullBulk() {
        raw(protocol == 3 ? NULL3 : NULL_BULK);
    }

    public void nullArray() {
        raw(protocol == 3 ? NULL3 : NULL_ARRAY);
    }

    /** RESP3 null or the RESP2 null bulk: Redis's addReplyNull. */
    public void nil() {
        nullBulk();
    }

    /** A double: RESP3 ",1.5", RESP2 bulk "1.5", formatted %.17g. */
    public void dbl(double d) {
        if (!printsAsLong(d)) {
            dblText(Doubles.format17g(d));
        } else if (protocol == 3) {
            prefixed(',', (long) d);
        } else {
            bulkLong((long) d);
        }
    }

    /** A double as %.17g in a bulk string whatever the protocol (ZSCAN's scores, as Redis 7.0 sends them). */
    public void bulkDouble(double d) {
        if (printsAsLong(d)) bulkLong((long) d);
        else bulk(Doubles.format17g(d));
    }

    /**
     * Whether %.17g prints d as its integer digits (a whole number below 1e17, -0 aside), which are
     * then written without a String (scores are often counts, ranks or timestamps).
     */
    private static boolean printsAsLong(double d) {
        return d == Math.rint(d) && Math.abs(d) < 1e17 && !(d == 0 && 1 / d < 0);
    }

    /** A float already formatted by the caller, as RESP3 double or RESP2 bulk (addReplyHumanLongDouble). */
    public void dblText(String s) {
        if (protocol == 3) {
            int n = s.length();
            ensure(n + 3);
            putByte(',');
            for (int i = 0; i < n; i++) buf[len++] = (byte) s.charAt(i);
            crlf();
        } else {
            bulk(s);
        }
    }

    /** RESP3 verbatim string (=len\r\ntxt:...) or RESP2 bulk, as INFO and CLIENT LIST reply. */
    public void verbatim(String text, String format) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        if (protocol == 3) {
            prefixed('=', b.length + 4);
            raw(Bytes.ascii(format));
            raw(new byte[] {':'});
            raw(b);
            ensure(2);
            crlf();
        } else {
            bulk(b);
        }
    }

    // ---- aggregates -----------------------------------------------------------------------------

    public void arrayHeader(long n) {
        if (n == 0) raw(EMPTY_ARRAY);
        else prefixed('*', n);
    }

    /** RESP3 map of n pairs, or a flat RESP2 array of 2n elements. */
    public void mapHeader(long n) {
        if (protocol == 3) prefixed('%', n);
        else arrayHeader(n * 2);
    }

    public void setHeader(long n) {
        if (protocol == 3) prefixed('~', n);
        else arrayHeader(n);
    }

    /** RESP3 push (>n), or a plain array in RESP2 (pub/sub messages). */
    public void pushHeader(long n) {
        if (protocol == 3) prefixed('>', n);
        else arrayHeader(n);
    }

    /** RESP3 attribute-free "array of pairs" in Redis's own words: map in RESP3, array of arrays in 2. */
    public void emptyArray() {
        raw(EMPTY_ARRAY);
    }

    // ---- deferred lengths -----------------------------------------------------------------------

    /**
     * Reserves room for an aggregate header whose count is not known yet; returns a handle for
     * {@link #setDeferredLength}. The buffer does not drain while a deferred header is open.
     */
    public int deferLength() {
        deferredDepth++;
        ensure(24);
        int at = len;
        len += 24;
        return at;
    }

    /** Writes the header reserved at {@code handle} and closes the gap left in front of the payload. */
    public void setDeferredLength(int handle, char type, long n) {
        char t = type;
        if (protocol == 2 && t == '%') {
            t = '*';
            n *= 2;
        } else if (protocol == 2 && (t == '~' || t == '>')) {
            t = '*';
        }
        // the payload moves down first to where the header ends, then the header is written in
        // front of it: no scratch array for the header
        int h = 1 + Bytes.decimalLength(n) + 2;
        int payloadStart = handle + 24;
        int payloadLen = len - payloadStart;
        System.arraycopy(buf, payloadStart, buf, handle + h, payloadLen);
        buf[handle] = (byte) t;
        int at = Bytes.writeLong(buf, handle + 1, n);
        buf[at] = '\r';
        buf[at + 1] = '\n';
        len = handle + h + payloadLen;
        deferredDepth--;
    }
}
