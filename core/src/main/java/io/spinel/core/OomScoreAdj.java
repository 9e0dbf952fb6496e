package io.spinel.core;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * oom-score-adj and oom-score-adj-values (Redis's setOOMScoreAdj): a standalone server writes the
 * value of its class (master or replica) to /proc/self/oom_score_adj, relative to the score the
 * process had before the server first changed it ({@code relative}, {@code yes}) or as it is
 * ({@code absolute}), and puts that score back when the option is turned off. An in-process
 * server leaves its host's score alone. Spinel has no fork child, so the third value (Redis's
 * BGSAVE child class) is accepted and unused.
 */
final class OomScoreAdj {
    private static final Path FILE = Path.of("/proc/self/oom_score_adj");

    private final Engine engine;
    private boolean enabled;
    /** Whether this server changed the score, and the score before it did. */
    private boolean adjusted;
    private int base;

    OomScoreAdj(Engine engine) {
        this.engine = engine;
    }

    /** The standalone server owns its process: from now on the options act. */
    void enable() {
        enabled = true;
        apply();
    }

    /**
     * Writes the score for the current options and role; throws (CONFIG SET then fails and rolls
     * back) when the file cannot be read or written.
     */
    void apply() {
        if (!enabled || !Files.exists(FILE)) return;
        String mode = engine.config().get("oom-score-adj");
        int value;
        try {
            if (!mode.equals("no")) {
                if (!adjusted) {
                    base = Integer.parseInt(Files.readString(FILE, StandardCharsets.US_ASCII).trim());
                    adjusted = true;
                }
                String[] values = engine.config().get("oom-score-adj-values").trim().split("\\s+");
                value = Integer.parseInt(values[engine.replication.isReplica() ? 1 : 0]);
                if (!mode.equals("absolute")) value += base;
                value = Math.max(-1000, Math.min(1000, value));
            } else if (adjusted) {
                adjusted = false;
                value = base;
            } else {
                return;
            }
            Files.writeString(FILE, value + "\n", StandardCharsets.US_ASCII);
        } catch (IOException | RuntimeException e) {
            String why = e instanceof IOException ioe ? io.spinel.core.util.IoErrors.reason(ioe) : e.toString();
            engine.log().warning("Unable to write oom_score_adj: " + why);
            throw new IllegalStateException("Failed to set current oom_score_adj. Check server logs.");
        }
    }
}
