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

    static void install(SpinelServer server) {
        Signal.handle(new Signal("TERM"), s -> server.signal("SIGTERM"));
        Signal.handle(new Signal("INT"), s -> server.signal("SIGINT"));
        Signal.handle(new Signal("ABRT"), s -> {
            CrashReport.log(server.engine(), CrashReport.crashedBySignal(s.getNumber()));
            Runtime.getRuntime().halt(128 + s.getNumber());
        });
    }
}
