package io.spinel.core;

import io.spinel.core.command.CommandTable;

/** SLOWLOG, LATENCY, MONITOR and CLIENT PAUSE/UNPAUSE: what operators use to watch and steer the server. */
final class ServerDiagnostics {
    private ServerDiagnostics() {
    }

    static void register(CommandTable t) {
        SlowLog.register(t);
        LatencyMonitor.register(t);
        Monitors.register(t);
        ClientPause.register(t);
    }
}
