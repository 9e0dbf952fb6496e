package io.spinel.server;

import io.spinel.core.Engine;
import io.spinel.core.Log;
import io.spinel.core.config.Config;
import io.spinel.core.sentinel.SentinelConfig;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Starting a Sentinel (redis-server --sentinel, or a program named redis-sentinel), as Redis's
 * main does: Sentinel's defaults before the configuration is read, a configuration file it can
 * write (it keeps its state there), then an engine that only serves Sentinel's commands, with its
 * "sentinel" lines applied.
 */
final class SentinelMode {
    /** Sentinel's default port (Redis's REDIS_SENTINEL_PORT). */
    static final int DEFAULT_PORT = 26379;

    private SentinelMode() {
    }

    /** --sentinel among the arguments, or a program name containing "redis-sentinel" (as Redis) or "spinel-sentinel". */
    static boolean requested(List<String> args, String execName) {
        if (args.contains("--sentinel")) return true;
        String name = execName.substring(execName.lastIndexOf('/') + 1);
        return name.contains("redis-sentinel") || name.contains("spinel-sentinel");
    }

    /** Redis's initSentinelConfig: its own port, and no protected mode (Sentinels must be reachable). */
    static void setDefaults(Config config, ConfigLoader loader) {
        loader.setSentinelMode();
        try {
            config.set("port", Integer.toString(DEFAULT_PORT));
            config.set("protected-mode", "no");
        } catch (Config.ConfigException e) {
            throw new IllegalStateException(e); // valid values: cannot happen
        }
    }

    /** Redis's sentinelCheckConfigFile: false (with the reason logged) when there is no file or it cannot be written. */
    static boolean configFileUsable(Path file, Log log) {
        if (file == null) {
            log.warning("Sentinel needs config file on disk to save state. Exiting...");
            return false;
        }
        if (!Files.isWritable(file)) {
            log.warning("Sentinel config file " + file + " is not writable: "
                    + (Files.exists(file) ? "Permission denied" : "No such file or directory") + ". Exiting...");
            return false;
        }
        return true;
    }

    /** The engine of a Sentinel: its command table, its "sentinel" lines applied, its state saved into {@code file}. */
    static Engine prepareEngine(Config config, Log log, List<SentinelConfig.Line> lines, Path file)
            throws SentinelConfig.LoadError {
        Engine engine = new Engine(config, log);
        engine.enableSentinel().configuration().load(lines);
        // before it starts: Sentinel saves its id at once when the file had none
        ConfigRewriter.install(engine, file);
        return engine;
    }

    /** What Redis prints for a "sentinel" line it refuses, before exiting. */
    static String report(SentinelConfig.LoadError e) {
        return "\n*** FATAL CONFIG FILE ERROR (Redis " + Engine.REDIS_VERSION + ") ***\n"
                + "Reading the configuration file, at line " + e.line.lineNumber() + "\n"
                + ">>> '" + e.line.text() + "'\n" + e.getMessage();
    }
}
