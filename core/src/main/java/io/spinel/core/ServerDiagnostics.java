package io.spinel.core;

/** SLOWLOG, LATENCY, MONITOR and CLIENT PAUSE/UNPAUSE: what operators use to watch and steer the server. */
final class ServerDiagnostics {
    private ServerDiagnostics() {
    }

}
