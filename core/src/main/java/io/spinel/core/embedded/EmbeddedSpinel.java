package io.spinel.core.embedded;

import io.spinel.core.Engine;
import io.spinel.core.Log;
import io.spinel.core.config.Config;
import io.spinel.core.keyspace.Keyspace;
import io.spinel.core.util.TaskLoop;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Spinel in the current JVM with no network: an engine on its own thread, used through
 * {@link SpinelClient}s that speak RESP in memory. Every command behaves as it does over a
 * socket (same replies, same errors), including expiry, both lazy and by the periodic cycle.
 *
 * <pre>
 *   try (EmbeddedSpinel spinel = EmbeddedSpinel.builder().option("databases", "4").start()) {
 *       SpinelClient redis = spinel.client();
 *       redis.set("greeting", "hello");
 *       String v = redis.get("greeting");
 *   }
 * </pre>
 *
 * Instances are independent: each has its own thread, keyspace and configuration.
 */
public final class EmbeddedSpinel implements AutoCloseable {
    private static final AtomicInteger THREADS = new AtomicInteger();

    private final TaskLoop loop;
    private final Engine engine;
    private final Keyspace.Clock clock;
    private final SpinelClient client;
    private volatile boolean closed;

    private EmbeddedSpinel(Config config, Keyspace.Clock clock, Log log, boolean loadData) {
        this.loop = new TaskLoop("spinel-embedded-" + THREADS.incrementAndGet());
        loop.start();
        // The engine is built on its own thread, so everything it sets up is owned by that thread.
        CompletableFuture<Engine> f = new CompletableFuture<>();
        loop.execute(() -> {
            try {
                Engine e = new Engine(config, loop, loop::inLoop, log);
                if (clock != null) e.keyspace().setClock(clock);
                e.setHostInfo("embedded", "", "");
                // the ACL file's users (aclfile), as a server loads them at start
                e.acl().loadAtStartup(java.util.List.of(), e.aclFile(), config.get("aclfile"));
                e.persistence().startUp(loadData);
                e.start();
                f.complete(e);
            } catch (RuntimeException | Error e) {
                f.completeExceptionally(e);
            }
        });
        try {
            this.engine = f.get();
        } catch (InterruptedException e) {
            loop.shutdownNow();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting Spinel", e);
        } catch (ExecutionException e) {
            loop.shutdownNow();
            throw new IllegalStateException("cannot start Spinel: " + e.getCause(), e.getCause());
        }
        this.clock = clock != null ? clock : System::currentTimeMillis;
        this.client = SpinelClient.connect(engine);
    }

    private boolean onLoopThread() {
        return loop.inLoop();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Starts an instance with the default configuration. */
    public static EmbeddedSpinel start() {
        return builder().start();
    }

    /** Configuration of an embedded instance. */
    public static final class Builder {
        private final Config config = new Config();
        private final List<String[]> options = new ArrayList<>();
        private Keyspace.Clock clock;
        private Log log = Log.silent();

        private Builder() {
        }

        /**
         * Sets a configuration option as redis.conf or CONFIG SET would ("maxmemory", "100mb";
         * "databases", "4"; "requirepass", "secret"; "dir", "/tmp/data"; ...). Values are checked
         * at {@link #start()}, which fails with the reason for a bad one. A value stands for its
         * UTF-8 bytes, as a client sending the same string would set it.
         *
         * <p>Persistence is opt-in: there are no save points unless "save" is set, and the RDB or
         * AOF of a previous run is read only when "dir" (or "appendonly yes") is given.
         */
        public Builder option(String name, String value) {
            options.add(new String[] {name, value});
            return this;
        }

        /**
         * The clock the keyspace reads for expiry, e.g. a {@link ManualClock} that a test moves
         * forward to make keys expire without waiting.
         */
        public Builder clock(Keyspace.Clock clock) {
            this.clock = clock;
            return this;
        }

        /** Where the engine logs (silent by default). */
        public Builder log(Log log) {
            this.log = log;
            return this;
        }

        public EmbeddedSpinel start() {
            boolean load = false;
            try {
                config.set("save", "");
            } catch (Config.ConfigException e) {
                throw new IllegalStateException(e);
            }
            for (String[] o : options) {
                if (o[0].equalsIgnoreCase("dir") || (o[0].equalsIgnoreCase("appendonly") && o[1].equalsIgnoreCase("yes"))) {
                    load = true;
                }
                try {
                    config.set(o[0], io.spinel.core.util.Bytes.latin1(io.spinel.core.util.Bytes.utf8(o[1])));
                } catch (Config.ConfigException e) {
                    throw new IllegalArgumentException("Invalid option '" + o[0] + "' value '" + o[1] + "': "
                            + e.getMessage(), e);
                }
            }
            return new EmbeddedSpinel(config, clock, log, load);
        }
    }

    /**
     * The instance's own connection, opened at start. It may be shared by threads; those that
     * change connection state (SELECT, HELLO, MULTI) should use {@link #newClient()}.
     */
    public SpinelClient client() {
        return client;
    }

    /** Opens another in-process connection, with its own database selection and protocol. */
    public SpinelClient newClient() {
        if (closed) throw new IllegalStateException("Spinel is closed");
        return SpinelClient.connect(engine);
    }

    /** The clock the keyspace reads. */
    public Keyspace.Clock clock() {
        return clock;
    }

    /**
     * Runs one active expiry cycle now, as the periodic cron does hz times a second: keys whose
     * TTL has passed are removed without being accessed. Useful with a {@link ManualClock}.
     */
    public void runActiveExpireCycle() {
        onEngine(() -> engine.keyspace().activeExpireCycle(TimeUnit.MILLISECONDS.toNanos(25)));
    }

    private void onEngine(Runnable task) {
        if (onLoopThread()) throw new IllegalStateException("cannot wait on the engine's own thread");
        CompletableFuture<Void> f = new CompletableFuture<>();
        try {
            loop.execute(() -> {
                try {
                    task.run();
                    f.complete(null);
                } catch (RuntimeException e) {
                    f.completeExceptionally(e);
                }
            });
            f.get();
        } catch (RejectedExecutionException e) {
            throw new IllegalStateException("Spinel is closed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause().getMessage(), e.getCause());
        }
    }

    /** Stops the engine: connections close, calls still waiting fail, the thread ends. */
    @Override
    public void close() {
        if (closed) return;
        closed = true;
        try {
            onEngine(() -> {
                engine.persistence().shutdown(false, false, true);
                engine.stop();
                for (io.spinel.core.Client c : new ArrayList<>(engine.clients())) engine.closeClient(c);
            });
        } catch (IllegalStateException e) {
            // Already stopping; the executor shutdown below finishes the job.
        }
        loop.shutdown();
        try {
            if (!loop.awaitTermination(5, TimeUnit.SECONDS)) loop.shutdownNow();
        } catch (InterruptedException e) {
            loop.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
