package io.spinel.core.persist;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Writes a snapshot to a temporary file and, once complete, makes it durable: the RDB trailer
 * (CRC-64, or zeros with rdbchecksum no), fsync, then an atomic rename over the target and an
 * fsync of the directory. A crash at any point leaves the previous target intact.
 *
 * <p>Synchronous sinks (SAVE, shutdown) write on the caller's thread. Background sinks hand the
 * chunks to their own thread through a queue, so the executor only serializes; the completion
 * callback runs on that thread.
 */
final class FileSink implements JobSink {
    private static final Object FINISH = new Object();
    private static final Object ABORT = new Object();

    private final Path temp;
    private final Path target;
    private final boolean rdbTrailer;
    private final boolean checksum;
    private final FileChannel channel;
    private long crc;
    // background mode
    private final LinkedBlockingQueue<Object> queue;
    private final AtomicLong backlog = new AtomicLong();
    private Thread thread;

    private record Chunk(byte[] b, int len) {
    }

    /**
     * @param target where the finished file goes, or null to leave it at temp (the caller moves it)
     * @param rdbTrailer append the 8-byte checksum trailer of RDB files
     */
    FileSink(Path temp, Path target, boolean rdbTrailer, boolean checksum, boolean background) throws IOException {
        this.temp = temp;
        this.target = target;
        this.rdbTrailer = rdbTrailer;
        this.checksum = checksum;
        this.channel = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING);
        this.queue = background ? new LinkedBlockingQueue<>() : null;
    }

    @Override
    public void write(byte[] b, int len) throws IOException {
        if (queue == null) {
            writeNow(b, len);
            spare.offer(b);
        } else {
            backlog.addAndGet(len);
            queue.add(new Chunk(b, len));
        }
    }

    @Override
    public long backlog() {
        return backlog.get();
    }

    /** Written chunks handed back to the serializer, a few at most. */
    private final java.util.concurrent.ArrayBlockingQueue<byte[]> spare = new java.util.concurrent.ArrayBlockingQueue<>(4);

    @Override
    public byte[] spareChunk() {
        return spare.poll();
    }

    private void writeNow(byte[] b, int len) throws IOException {
        if (rdbTrailer && checksum) crc = Crc64.update(crc, b, 0, len);
        ByteBuffer bb = ByteBuffer.wrap(b, 0, len);
        while (bb.hasRemaining()) channel.write(bb);
    }

    /** Synchronous mode: completes the file (trailer, fsync, rename). Cleans up and rethrows on failure. */
    void finish() throws IOException {
        try {
            complete();
        } catch (IOException | RuntimeException e) {
            discard();
            throw e;
        }
    }

    private void complete() throws IOException {
        if (rdbTrailer) {
            byte[] t = new byte[8];
            io.spinel.core.util.Bytes.putLongLE(t, 0, checksum ? crc : 0);
            ByteBuffer bb = ByteBuffer.wrap(t);
            while (bb.hasRemaining()) channel.write(bb);
        }
        channel.force(true);
        channel.close();
        if (target != null) {
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            fsyncDirectory(target.toAbsolutePath().getParent());
        }
    }

    /** Closes and deletes the temporary file. */
    @Override
    public void discard() {
        try {
            channel.close();
        } catch (IOException ignored) {
            // deleting matters more
        }
        try {
            Files.deleteIfExists(temp);
        } catch (IOException ignored) {
            // nothing more to do
        }
    }

    /** Background mode: starts the writer thread; done gets null on success or the failure. */
    @Override
    public void startBackground(String name, Consumer<Throwable> done) {
        thread = new Thread(() -> run(done), name);
        thread.setDaemon(true);
        thread.start();
    }

    private void run(Consumer<Throwable> done) {
        try {
            while (true) {
                Object o = queue.take();
                if (o == FINISH) {
                    complete();
                    done.accept(null);
                    return;
                }
                if (o == ABORT) {
                    discard();
                    return;
                }
                Chunk c = (Chunk) o;
                writeNow(c.b, c.len);
                backlog.addAndGet(-c.len);
                spare.offer(c.b); // dropped when the queue is full
            }
        } catch (Throwable t) {
            discard();
            queue.clear();
            done.accept(t);
        }
    }

    /** Background mode: everything has been queued; the thread completes the file. */
    @Override
    public void finishBackground() {
        queue.add(FINISH);
    }

    /** Background mode: stop and delete the temporary file. */
    @Override
    public void abortBackground() {
        queue.add(ABORT);
    }

    /** Waits for the background thread (shutdown). */
    @Override
    public void join(long millis) {
        if (thread == null) return;
        try {
            thread.join(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static void fsyncDirectory(Path dir) {
        if (dir == null) return;
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException ignored) {
            // not every platform lets a directory be opened; the rename itself is still atomic
        }
    }
}
