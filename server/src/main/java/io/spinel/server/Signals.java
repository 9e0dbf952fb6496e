package io.spinel.server;

import io.spinel.core.CrashReport;
import sun.misc.Signal;

/**
 * SIGTERM and SIGINT start a graceful shutdown (as in Redis) instead of the JVM's abrupt exit
 * with status 143/130; a second signal while stopping exits at once. SIGABRT logs a crash report
 * before the process ends as by the signal (Redis's sigsegvHandler; the JVM keeps SIGSEGV, SIGBUS,
 * SIGFPE and SIGILL for itself).
 */
final class Signals {
    private Signals() {
    }

    /**
     * Before the server runs, while its data set loads: SIGTERM and SIGINT stop the load at its
     * next poll and the process exits with status 0, saving nothing (Redis's whileBlockedCron);
     * a signal that came before the load began stops it at its first poll, or the server once
     * it runs.
     */
    static void installForLoading(io.spinel.core.Engine engine) {
        for (String name : new String[] {"TERM", "INT"}) {
            Signal.handle(new Signal(name), s -> {
                engine.log().warning("Received shutdown signal during loading, scheduling shutdown.");
                engine.shutdownWhileLoading();
            });
        }
    }

    static void install(SpinelServer server) {
        Signal.handle(new Signal("TERM"), s -> server.signal("SIGTERM"));
        Signal.handle(new Signal("INT"), s -> server.signal("SIGINT"));
        // a signal between the end of the load and now
        if (server.engine().shutdownWhileLoadingAsked()) server.signal("SIGTERM");
        Signal.handle(new Signal("ABRT"), s -> {
            CrashReport.log(server.engine(), CrashReport.crashedBySignal(s.getNumber()));
            Runtime.getRuntime().halt(128 + s.getNumber());
        });
    }
}
