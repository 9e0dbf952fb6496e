package io.spinel.core.protocol;

/**
 * The query buffer that clients without one of their own read into, one at a time (Redis 7.4's
 * reusable query buffer). Nearly every read holds whole commands, which run before the next
 * client's read, so a connection needs a buffer of its own only while part of a command waits
 * for the rest. Without this, each connection kept a 16 KB array from its first request on: with
 * 5,000 clients connecting at once that was 80 MB that the collector copied into the old
 * generation and later had to mark and reclaim when they went away.
 *
 * <p>Owned by the engine's thread, like every reader that borrows it: a reader borrows it in
 * {@link RespReader#writable} and gives it back in {@link RespReader#detach}, which copies what
 * is left unparsed into a buffer of the reader's own.
 */
public final class SharedQueryBuffer {
    /** What one read asks for at most (Netty reads up to 64 KB at a time by default). */
    static final int MAX = 1 << 20;

    byte[] buf = new byte[RespReader.INITIAL];
    /** The reader that has it now, or null. */
    RespReader holder;

    /** The array, grown to hold at least n bytes, for a reader that takes it. */
    byte[] lend(RespReader reader, int n) {
        if (buf.length < n) buf = new byte[Math.max(n, buf.length * 2)];
        holder = reader;
        return buf;
    }

    /** Whether a read of n bytes can go here now. */
    boolean available(int n) {
        return holder == null && n <= MAX;
    }
}
