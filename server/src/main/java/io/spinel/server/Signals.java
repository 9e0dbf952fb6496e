package io.spinel.server;

import sun.misc.Signal;

/**
 * SIGTERM and SIGINT start a graceful shutdown (as in Redis) instead of the JVM's abrupt exit
 * with status 143/130; a second signal while stopping exits at once.
 */
final class Signals {
    private Signals() {
    }

    static void install(SpinelServer server) {
        Signal.handle(new Signal("TERM"), s -> server.signal("SIGTERM"));
        Signal.handle(new Signal("INT"), s -> server.signal("SIGINT"));
    }
}
