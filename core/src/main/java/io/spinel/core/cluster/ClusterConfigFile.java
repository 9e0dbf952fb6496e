package io.spinel.core.cluster;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * nodes.conf (cluster-config-file): what CLUSTER NODES shows, without nodes in handshake, and a
 * last line "vars currentEpoch N lastVoteEpoch N". Read once at start; rewritten whenever the
 * configuration changes, in place (the new content padded with newlines to the old length,
 * then truncated), so that a crash mid-write leaves a file whose start is whole, and so that the
 * lock this node holds on the file (no two nodes may share one) stays on the same file.
 */
final class ClusterConfigFile implements AutoCloseable {
    private final FileChannel channel;
    private final FileLock lock;

    private ClusterConfigFile(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /** Opens (creating) and locks the file; throws with Redis's words when another node holds it. */
    static ClusterConfigFile open(Path path) throws IOException {
        FileChannel ch = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE,
                StandardOpenOption.CREATE);
        FileLock lock;
        try {
            lock = ch.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null;
        }
        if (lock == null) {
            ch.close();
            throw new IOException("Sorry, the cluster configuration file " + path + " is already used by a "
                    + "different Redis Cluster node. Please make sure that different nodes use different cluster "
                    + "configuration files.");
        }
        return new ClusterConfigFile(ch, lock);
    }

    /** The file's lines, or null when it is empty (a new node writes it then). */
    List<String> readLines() throws IOException {
        long size = channel.size();
        if (size == 0) return null;
        ByteBuffer b = ByteBuffer.allocate((int) size);
        channel.position(0);
        while (b.hasRemaining() && channel.read(b) > 0) {
            // read it all
        }
        String text = new String(b.array(), 0, b.position(), StandardCharsets.ISO_8859_1);
        List<String> lines = new ArrayList<>();
        for (String line : text.split("\n", -1)) lines.add(line);
        return lines;
    }

    void write(String content, boolean fsync) throws IOException {
        byte[] bytes = content.getBytes(StandardCharsets.ISO_8859_1);
        long old = channel.size();
        byte[] padded = bytes;
        if (old > bytes.length) {
            padded = java.util.Arrays.copyOf(bytes, (int) old);
            java.util.Arrays.fill(padded, bytes.length, padded.length, (byte) '\n');
        }
        ByteBuffer b = ByteBuffer.wrap(padded);
        long pos = 0;
        while (b.hasRemaining()) pos += channel.write(b, pos);
        if (fsync) channel.force(true);
        if (padded.length != bytes.length) channel.truncate(bytes.length);
    }

    @Override
    public void close() {
        try {
            lock.release();
        } catch (IOException ignored) {
            // the channel's close releases it too
        }
        try {
            channel.close();
        } catch (IOException ignored) {
            // nothing left to do
        }
    }
}
