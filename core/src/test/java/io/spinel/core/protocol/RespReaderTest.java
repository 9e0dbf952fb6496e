package io.spinel.core.protocol;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class RespReaderTest {
    private final Args args = new Args();
    private final RespReader reader = new RespReader(args);

    private void feed(String s) {
        byte[] b = s.getBytes(StandardCharsets.ISO_8859_1);
        feed(b);
    }

    private void feed(byte[] b) {
        byte[] dst = reader.writable(b.length);
        System.arraycopy(b, 0, dst, reader.writeOffset(), b.length);
        reader.commit(b.length);
    }

    private List<String> argList() {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < args.count(); i++) out.add(args.string(i));
        return out;
    }

    @Test
    void multibulkInOnePiece() {
        feed("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nhello\r\n");
        assertThat(reader.next(false, 512L << 20)).isEqualTo(RespReader.COMMAND);
        assertThat(argList()).containsExactly("SET", "k", "hello");
        reader.consumed();
        assertThat(reader.next(false, 512L << 20)).isEqualTo(RespReader.NEED_MORE);
    }

    /** An idle client's query buffer is given back, never while part of a command is pending. */
    @Test
    void emptyBufferIsReleasedAndGrowsBackOnTheNextRead() {
        feed("*2\r\n$4\r\nECHO\r\n$5\r\nhel");
        assertThat(reader.next(false, 512L << 20)).isEqualTo(RespReader.NEED_MORE);
        assertThat(reader.releaseIfEmpty()).isFalse();
        feed("lo\r\n");
        assertThat(reader.next(false, 512L << 20)).isEqualTo(RespReader.COMMAND);
        assertThat(argList()).containsExactly("ECHO", "hello");
        assertThat(reader.releaseIfEmpty()).isFalse(); // the command has not run yet
        reader.consumed();
        assertThat(reader.releaseIfEmpty()).isTrue();
        assertThat(reader.capacity()).isZero();
        assertThat(reader.releaseIfEmpty()).isFalse();
        feed("PING\r\n");
        assertThat(reader.capacity()).isGreaterThanOrEqualTo(16 * 1024);
        assertThat(reader.next(false, 512L << 20)).isEqualTo(RespReader.COMMAND);
        assertThat(argList()).containsExactly("PING");
    }

    @Test
    void multibulkByteByByteKeepsStateAcrossReads() {
        String cmd = "*2\r\n$4\r\nECHO\r\n$11\r\nhello world\r\n";
        for (int i = 0; i < cmd.length() - 1; i++) {
            feed(cmd.substring(i, i + 1));
            assertThat(reader.next(false, 512L << 20)).isEqualTo(RespReader.NEED_MORE);
        }
        feed(cmd.substring(cmd.length() - 1));
        assertThat(reader.next(false, 512L << 20)).isEqualTo(RespReader.COMMAND);
        assertThat(argList()).containsExactly("ECHO", "hello world");
    }

    @Test
    void pipelinedCommandsAndBufferCompaction() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 5000; i++) sb.append("*2\r\n$3\r\nGET\r\n$").append(Integer.toString(i).length())
                .append("\r\n").append(i).append("\r\n");
        byte[] all = sb.toString().getBytes(StandardCharsets.ISO_8859_1);
        int n = 0;
        for (int off = 0; off < all.length; off += 1000) {
            byte[] part = java.util.Arrays.copyOfRange(all, off, Math.min(all.length, off + 1000));
            feed(part);
            while (reader.next(false, 512L << 20) == RespReader.COMMAND) {
                assertThat(args.string(1)).isEqualTo(Integer.toString(n));
                n++;
                reader.consumed();
            }
        }
        assertThat(n).isEqualTo(5000);
    }

    @Test
    void bigArgumentArrivingInChunks() {
        int size = 3_000_000;
        feed("*2\r\n$3\r\nSET\r\n$" + size + "\r\n");
        byte[] chunk = new byte[64 * 1024];
        java.util.Arrays.fill(chunk, (byte) 'x');
        int sent = 0;
        while (sent < size) {
            int n = Math.min(chunk.length, size - sent);
            feed(java.util.Arrays.copyOf(chunk, n));
            sent += n;
            assertThat(reader.next(false, 512L << 20)).isEqualTo(RespReader.NEED_MORE);
        }
        feed("\r\n");
        assertThat(reader.next(false, 512L << 20)).isEqualTo(RespReader.COMMAND);
        assertThat(args.len(1)).isEqualTo(size);
    }

    /** The transport's way: never more than {@link RespReader#maxWrite} at once. */
    private void feedInSteps(byte[] b) {
        int off = 0;
        while (off < b.length) {
            int n = Math.min(b.length - off, reader.maxWrite());
            byte[] dst = reader.writable(n);
            System.arraycopy(b, off, dst, reader.writeOffset(), n);
            reader.commit(n);
            off += n;
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static byte[] concat(byte[]... parts) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (byte[] p : parts) out.writeBytes(p);
        return out.toByteArray();
    }

    private static byte[] pattern(int n) {
        byte[] v = new byte[n];
        for (int i = 0; i < n; i++) v[i] = (byte) ('a' + i % 26);
        return v;
    }

    /**
     * A big argument still arriving goes into an array of its own, with the room the layout asks
     * for in front; the argument owns that array, and what follows it goes to the query buffer.
     */
    @Test
    void bigArgumentIsReadIntoItsOwnArrayWithTheLayoutsRoom() {
        reader.layout((parsed, argc, length) -> argc == 3 && parsed.is(0, "set") ? 10 : 0);
        int size = 40_000;
        byte[] value = pattern(size);
        feed("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$" + size + "\r\n");
        feed(java.util.Arrays.copyOf(value, 1000));
        assertThat(reader.next(false, 512L << 20)).isEqualTo(RespReader.NEED_MORE);
        assertThat(reader.maxWrite()).isEqualTo(size + 2 - 1000);
        assertThat(reader.pending()).isGreaterThan(1000);
        feedInSteps(concat(java.util.Arrays.copyOfRange(value, 1000, size), bytes("\r\n*1\r\n$4\r\nPING\r\n")));
        assertThat(reader.maxWrite()).isEqualTo(Integer.MAX_VALUE);
        assertThat(reader.hasUnparsed()).isTrue();
        assertThat(reader.next(false, 512L << 20)).isEqualTo(RespReader.COMMAND);
        assertThat(argList().subList(0, 2)).containsExactly("SET", "k");
        assertThat(args.owned(1)).isFalse();
        assertThat(args.owned(2)).isTrue();
        assertThat(args.off(2)).isEqualTo(10);
        assertThat(args.len(2)).isEqualTo(size);
        assertThat(args.buf(2)).hasSize(10 + size + 2);
        assertThat(java.util.Arrays.copyOfRange(args.buf(2), 10, 10 + size)).isEqualTo(value);
        reader.consumed();
        assertThat(reader.next(false, 512L << 20)).isEqualTo(RespReader.COMMAND);
        assertThat(argList()).containsExactly("PING");
        assertThat(args.owned(0)).isFalse();
    }

    /** A writer that hands over more than the big argument lacks gets the plain query buffer path. */
    @Test
    void writingPastABigArgumentFallsBackToTheQueryBuffer() {
        int size = 50_000;
        byte[] value = pattern(size);
        feed("*2\r\n$4\r\nECHO\r\n$" + size + "\r\n");
        feed(java.util.Arrays.copyOf(value, 7));
        assertThat(reader.next(false, 512L << 20)).isEqualTo(RespReader.NEED_MORE);
        feed(concat(java.util.Arrays.copyOfRange(value, 7, size), bytes("\r\nPING\r\n")));
        assertThat(reader.next(false, 512L << 20)).isEqualTo(RespReader.COMMAND);
        assertThat(args.owned(1)).isFalse();
        assertThat(args.copy(1)).isEqualTo(value);
        reader.consumed();
        assertThat(reader.next(false, 512L << 20)).isEqualTo(RespReader.COMMAND);
        assertThat(argList()).containsExactly("PING");
    }

    /** A big argument that has fully arrived with its header is a slice, as small ones are. */
    @Test
    void bigArgumentAlreadyHereIsASlice() {
        int size = 40_000;
        feed(concat(bytes("*2\r\n$4\r\nECHO\r\n$" + size + "\r\n"), pattern(size), bytes("\r\n")));
        assertThat(reader.next(false, 512L << 20)).isEqualTo(RespReader.COMMAND);
        assertThat(args.owned(1)).isFalse();
        assertThat(args.copy(1)).isEqualTo(pattern(size));
    }

    @Test
    void inlineCommandsWithQuotes() {
        feed("SET \"a b\" 'c\\'d' \"\\x41\\n\"\r\n");
        assertThat(reader.next(false, 512L << 20)).isEqualTo(RespReader.COMMAND);
        assertThat(argList()).containsExactly("SET", "a b", "c'd", "A\n");
        reader.consumed();
        feed("\r\n");
        assertThat(reader.next(false, 512L << 20)).isEqualTo(RespReader.EMPTY);
    }

    @Test
    void protocolErrorsAsRedisWordsThem() {
        assertError("*abc\r\n", false, "Protocol error: invalid multibulk length");
        assertError("*1\r\n$abc\r\n", false, "Protocol error: invalid bulk length");
        assertError("*1\r\nfoo\r\n", false, "Protocol error: expected '$', got 'f'");
        assertError("*20\r\n", true, "Protocol error: unauthenticated multibulk length");
        assertError("*1\r\n$20000\r\n", true, "Protocol error: unauthenticated bulk length");
        assertError("SET \"a\r\n", false, "Protocol error: unbalanced quotes in request");
        assertError("x".repeat(70_000), false, "Protocol error: too big inline request");
        assertError("*" + "1".repeat(70_000), false, "Protocol error: too big mbulk count string");
        assertError("*1\r\n$" + "1".repeat(70_000), false, "Protocol error: too big bulk count string");
    }

    /**
     * With proto-max-bulk-len raised past what one array can hold (Redis's own suite sets 10 GB),
     * a longer bulk is refused, never narrowed to an int: $4294967299 was taken as 3 bytes (where
     * the header ended a read, the command ran on them and the rest of the bulk was read as
     * commands of their own; here, with more bytes in the buffer, the copy overran its array).
     */
    @Test
    void aBulkLongerThanAnArrayCanHoldIsRefusedWhateverTheLimit() {
        long tenGb = 10_000_000_000L;
        for (long n : new long[] {4_294_967_299L, 5_000_000_000L, 4_294_967_295L, Integer.MAX_VALUE,
                                  RespReader.MAX_BULK + 1}) {
            Args a = new Args();
            RespReader r = new RespReader(a);
            feed(r, "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$" + n + "\r\nabc\r\n*1\r\n$8\r\nFLUSHALL\r\n");
            assertThat(r.next(false, tenGb)).as("$%d", n).isEqualTo(RespReader.ERROR);
            assertThat(r.error()).isEqualTo("Protocol error: invalid bulk length");
        }
    }

    private static void feed(RespReader r, String s) {
        byte[] b = s.getBytes(StandardCharsets.ISO_8859_1);
        System.arraycopy(b, 0, r.writable(b.length), r.writeOffset(), b.length);
        r.commit(b.length);
    }

    private static RespReader sharing(SharedQueryBuffer shared, Args a) {
        RespReader r = new RespReader(a);
        r.share(shared);
        return r;
    }

    private static List<String> strings(Args a) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < a.count(); i++) out.add(a.string(i));
        return out;
    }

    /** Whole commands are read and run in the shared buffer: the client holds no buffer of its own. */
    @Test
    void wholeCommandsLeaveNoBufferOfTheClientsOwn() {
        SharedQueryBuffer shared = new SharedQueryBuffer();
        Args a = new Args();
        RespReader r = sharing(shared, a);
        feed(r, "*1\r\n$4\r\nPING\r\n*2\r\n$4\r\nECHO\r\n$2\r\nhi\r\n");
        assertThat(r.allocated()).isZero();
        assertThat(r.capacity()).isGreaterThanOrEqualTo(16 * 1024); // reading into the shared one
        assertThat(r.next(false, 512L << 20)).isEqualTo(RespReader.COMMAND);
        assertThat(strings(a)).containsExactly("PING");
        r.consumed();
        assertThat(r.next(false, 512L << 20)).isEqualTo(RespReader.COMMAND);
        assertThat(strings(a)).containsExactly("ECHO", "hi");
        r.consumed();
        r.detach();
        assertThat(r.allocated()).isZero();
        assertThat(r.capacity()).isZero();
        assertThat(r.pending()).isZero();
    }

    /**
     * Part of a command left at the end of a read moves into a buffer of the client's own, with the
     * arguments already parsed, and the shared buffer is free for the next client at once.
     */
    @Test
    void aPartialCommandMovesOutOfTheSharedBuffer() {
        SharedQueryBuffer shared = new SharedQueryBuffer();
        Args a = new Args();
        RespReader r = sharing(shared, a);
        feed(r, "*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nva");
        assertThat(r.next(false, 512L << 20)).isEqualTo(RespReader.NEED_MORE);
        r.detach();
        assertThat(r.allocated()).isGreaterThanOrEqualTo(16 * 1024);
        assertThat(r.pending()).isEqualTo(28);

        // another client reads into the shared buffer meanwhile, overwriting what was there
        Args other = new Args();
        RespReader o = sharing(shared, other);
        feed(o, "*2\r\n$3\r\nGET\r\n$3\r\nzzz\r\n");
        assertThat(o.allocated()).isZero();
        assertThat(o.next(false, 512L << 20)).isEqualTo(RespReader.COMMAND);
        assertThat(strings(other)).containsExactly("GET", "zzz");
        o.consumed();
        o.detach();

        feed(r, "lue\r\n");
        assertThat(r.next(false, 512L << 20)).isEqualTo(RespReader.COMMAND);
        assertThat(strings(a)).containsExactly("SET", "key", "value");
        r.consumed();
        r.detach();
        // the client keeps its own buffer until it has been idle (as Redis does)
        assertThat(r.allocated()).isGreaterThanOrEqualTo(16 * 1024);
        assertThat(r.releaseIfEmpty()).isTrue();
        assertThat(r.allocated()).isZero();
    }

    /** While one client has the shared buffer, another one's read goes into a buffer of its own. */
    @Test
    void aSecondReaderDoesNotTakeTheLentBuffer() {
        SharedQueryBuffer shared = new SharedQueryBuffer();
        RespReader first = sharing(shared, new Args());
        Args a = new Args();
        RespReader second = sharing(shared, a);
        feed(first, "*1\r\n$4\r\nPING\r\n");
        feed(second, "*2\r\n$4\r\nECHO\r\n$1\r\nx\r\n");
        assertThat(second.allocated()).isGreaterThanOrEqualTo(16 * 1024);
        assertThat(second.next(false, 512L << 20)).isEqualTo(RespReader.COMMAND);
        assertThat(strings(a)).containsExactly("ECHO", "x");
        assertThat(first.next(false, 512L << 20)).isEqualTo(RespReader.COMMAND);
        first.consumed();
        first.detach();
        assertThat(first.capacity()).isZero();
    }

    /**
     * A bulk longer than the shared buffer holds (but under the big-argument size) moves the
     * command into a buffer of the client's own, sized for it, and frees the shared one.
     */
    @Test
    void aBulkLongerThanTheSharedBufferMovesOut() {
        SharedQueryBuffer shared = new SharedQueryBuffer();
        Args a = new Args();
        RespReader r = sharing(shared, a);
        String value = "w".repeat(20_000);
        feed(r, "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$20000\r\n" + value.substring(0, 1000));
        assertThat(r.next(false, 512L << 20)).isEqualTo(RespReader.NEED_MORE);
        assertThat(r.allocated()).isBetween(20_000, 32 * 1024 - 1);
        RespReader o = sharing(shared, new Args());
        feed(o, "*1\r\n$4\r\nPING\r\n");
        assertThat(o.allocated()).isZero(); // the shared buffer was free for it
        feed(r, value.substring(1000) + "\r\n");
        assertThat(r.next(false, 512L << 20)).isEqualTo(RespReader.COMMAND);
        assertThat(strings(a)).containsExactly("SET", "k", value);
    }

    /** A big argument that starts in the shared buffer keeps the arguments before it. */
    @Test
    void aBigArgumentStartedInTheSharedBuffer() {
        SharedQueryBuffer shared = new SharedQueryBuffer();
        Args a = new Args();
        RespReader r = sharing(shared, a);
        String big = "v".repeat(RespReader.BIG_ARG + 10);
        String whole = "*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$" + big.length() + "\r\n" + big + "\r\n";
        feed(r, whole.substring(0, 100));
        assertThat(r.next(false, 512L << 20)).isEqualTo(RespReader.NEED_MORE);
        r.detach();
        // the other client's read overwrites the shared buffer
        RespReader o = sharing(shared, new Args());
        feed(o, "x".repeat(200));
        o.detach();
        String rest = whole.substring(100);
        while (!rest.isEmpty()) {
            int n = Math.min(rest.length(), r.maxWrite() == Integer.MAX_VALUE ? 1000 : Math.min(r.maxWrite(), 1000));
            feed(r, rest.substring(0, n));
            rest = rest.substring(n);
        }
        assertThat(r.next(false, 512L << 20)).isEqualTo(RespReader.COMMAND);
        assertThat(strings(a)).containsExactly("SET", "key", big);
    }

    private void assertError(String input, boolean auth, String message) {
        Args a = new Args();
        RespReader r = new RespReader(a);
        byte[] b = input.getBytes(StandardCharsets.ISO_8859_1);
        System.arraycopy(b, 0, r.writable(b.length), r.writeOffset(), b.length);
        r.commit(b.length);
        assertThat(r.next(auth, 512L << 20)).isEqualTo(RespReader.ERROR);
        assertThat(r.error()).isEqualTo(message);
    }
}
