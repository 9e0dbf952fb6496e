package io.spinel.server.testing;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The reference: Debian's redis-server 7.0 started on a free port for differential tests, or
 * null when it is not installed (tests then skip with a message; CI installs it).
 */
public final class RedisServerProcess implements AutoCloseable {
    private final Process process;
    private final int port;
    private final Path dir;

    private RedisServerProcess(Process process, int port, Path dir) {
        this.process = process;
        this.port = port;
        this.dir = dir;
    }

    public static String binary() {
        for (String p : new String[] {"/usr/bin/redis-server", "/usr/local/bin/redis-server"}) {
            if (new File(p).canExecute()) return p;
        }
        return null;
    }

    public static boolean available() {
        return binary() != null;
    }

    /**
     * A port nothing listens on, for a server a test starts later. Not one the OS hands out
     * (ServerSocket(0) draws from the ephemeral range, 32768-60999 on Linux): every outgoing
     * connection also takes a local port from that range, and one made between the choice and
     * the bind (a client polling another server, say) can hold the port and fail the bind with
     * EADDRINUSE. Below that range only listeners compete, and this JVM never hands a port out twice.
     */
    public static int freePort() throws IOException {
        for (int tries = 0; tries < 1000; tries++) {
            int port = LOW_PORT + Math.floorMod(NEXT_PORT.getAndIncrement(), LOW_PORT_COUNT);
            try (ServerSocket s = new ServerSocket()) {
                s.bind(new java.net.InetSocketAddress(port));
                return port;
            } catch (IOException taken) {
                // someone listens there, or a socket still holds it: the next one
            }
        }
        throw new IOException("no free port in " + LOW_PORT + "-" + (LOW_PORT + LOW_PORT_COUNT - 1));
    }

    private static final int LOW_PORT = 20000;
    private static final int LOW_PORT_COUNT = 12000;
    /** Starts at a random offset so that two test JVMs at once seldom walk the same ports. */
    private static final java.util.concurrent.atomic.AtomicInteger NEXT_PORT =
            new java.util.concurrent.atomic.AtomicInteger(new java.util.Random().nextInt(LOW_PORT_COUNT));

    /** Starts redis-server with persistence off and the given extra options. */
    public static RedisServerProcess start(String... extra) throws IOException, InterruptedException {
        return start(Files.createTempDirectory("redis-ref"), extra);
    }

    /**
     * Starts redis-server working in dir (its RDB and AOF files live there; later options such
     * as "--appendonly yes" override the defaults above).
     */
    public static RedisServerProcess start(Path dir, String... extra) throws IOException, InterruptedException {
        String bin = binary();
        if (bin == null) return null;
        int port = freePort();
        List<String> cmd = new ArrayList<>(Arrays.asList(bin, "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--dir", dir.toString(), "--daemonize", "no",
                "--enable-debug-command", "yes", "--loglevel", "warning"));
        cmd.addAll(Arrays.asList(extra));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(dir.resolve("redis.log").toFile()).start();
        long deadline = System.currentTimeMillis() + 10_000;
        while (System.currentTimeMillis() < deadline) {
            try (RawClient c = new RawClient(port)) {
                if (new String(c.call("PING")).startsWith("+PONG")) return new RedisServerProcess(p, port, dir);
            } catch (IOException e) {
                Thread.sleep(50);
            }
        }
        p.destroyForcibly();
        throw new IOException("redis-server did not start on port " + port);
    }

    /**
     * Starts redis-server with exactly these arguments (a config file, then options), working in
     * {@code workDir} (where its log goes too), and waits for it on {@code port}, which the
     * arguments must name.
     */
    public static RedisServerProcess startExactly(Path workDir, int port, String... args)
            throws IOException, InterruptedException {
        String bin = binary();
        if (bin == null) return null;
        List<String> cmd = new ArrayList<>();
        cmd.add(bin);
        cmd.addAll(Arrays.asList(args));
        Process p = new ProcessBuilder(cmd).directory(workDir.toFile()).redirectErrorStream(true)
                .redirectOutput(workDir.resolve("redis.log").toFile()).start();
        long deadline = System.currentTimeMillis() + 10_000;
        while (System.currentTimeMillis() < deadline && p.isAlive()) {
            try (RawClient c = new RawClient(port)) {
                String pong = new String(c.call("PING"));
                if (pong.startsWith("+PONG") || pong.startsWith("-NOAUTH")) return new RedisServerProcess(p, port, workDir);
            } catch (IOException e) {
                Thread.sleep(50);
            }
        }
        p.destroyForcibly();
        throw new IOException("redis-server did not start on port " + port + ": "
                + Files.readString(workDir.resolve("redis.log")));
    }

    public int port() {
        return port;
    }

    public Path dir() {
        return dir;
    }

    /** Waits for the process to end (after SHUTDOWN); true if it did within the time. */
    public boolean awaitExit(long millis) throws InterruptedException {
        return process.waitFor(millis, java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    /** Ends the process at once (SIGKILL), as a crash would. */
    public void kill() {
        process.destroyForcibly();
        try {
            process.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            process.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
