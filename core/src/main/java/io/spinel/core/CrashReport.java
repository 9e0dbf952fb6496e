package io.spinel.core;

import io.spinel.core.protocol.Args;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The report a standalone server logs before its process ends on a crash (Redis's bug report of
 * debug.c: SIGABRT, DEBUG SEGFAULT, a panic): where every thread was, INFO, CLIENT LIST and the
 * client whose command was running, between Redis's START and END lines, which log scrapers and
 * Redis's own tests look for.
 */
public final class CrashReport {
    private CrashReport() {
    }

    /**
     * Logs the report. {@code headline} is the line after START (e.g. "crashed by signal: 6").
     * Off the event loop the server's state is read on the loop, if it answers within a second
     * (a loop stuck in a command cannot): the stacks are logged either way.
     */
    public static void log(Engine e, String headline) {
        Log log = e.log();
        log.raw("\n\n=== SPINEL BUG REPORT START: Cut & paste starting from here ===");
        log.warning(headline);
        log.raw(stacks());
        String state;
        if (e.inLoop()) {
            state = state(e);
        } else {
            CompletableFuture<String> f = new CompletableFuture<>();
            e.execute(() -> f.complete(state(e)));
            try {
                state = f.get(1, TimeUnit.SECONDS);
            } catch (Exception busy) {
                state = "\n------ INFO OUTPUT ------\n(left out: the event loop did not answer within a second)\n";
            }
        }
        log.raw(state);
        log.raw("\n=== SPINEL BUG REPORT END. Make sure to include from START to END. ===\n");
    }

    /** The headline of a crash by a signal, in Redis's words (log scrapers and Redis's tests look for them). */
    public static String crashedBySignal(int signal) {
        return "Spinel " + Engine.SPINEL_VERSION + " (Redis " + Engine.REDIS_VERSION + " compatible) crashed by signal: "
                + signal + ", si_code: 0";
    }

    /** Every thread's Java stack, the event loop's first (Redis's STACK TRACE section). */
    private static String stacks() {
        StringBuilder sb = new StringBuilder("\n------ STACK TRACE ------\n");
        List<Map.Entry<Thread, StackTraceElement[]>> all = new ArrayList<>(Thread.getAllStackTraces().entrySet());
        all.sort((a, b) -> Boolean.compare(!isLoop(a.getKey()), !isLoop(b.getKey())));
        for (Map.Entry<Thread, StackTraceElement[]> t : all) {
            sb.append('\n').append(t.getKey().getName()).append(" (").append(t.getKey().getState()).append(")\n");
            for (StackTraceElement frame : t.getValue()) sb.append("    at ").append(frame).append('\n');
        }
        return sb.toString();
    }

    private static boolean isLoop(Thread t) {
        return t.getName().startsWith("spinel-main");
    }

    /** INFO, CLIENT LIST and the current client, read on the event loop. */
    private static String state(Engine e) {
        StringBuilder sb = new StringBuilder("\n------ INFO OUTPUT ------\n");
        sb.append(InfoCommand.generate(e, Set.of(InfoCommand.ALL)).replace("\r\n", "\n"));
        sb.append("\n------ CLIENT LIST OUTPUT ------\n");
        for (Client c : e.clients()) sb.append(ConnectionCommands.clientInfo(c)).append('\n');
        Client current = e.currentClient();
        if (current != null) {
            sb.append("\n------ CURRENT CLIENT INFO ------\n");
            sb.append(ConnectionCommands.clientInfo(current)).append('\n');
            Args a = current.args();
            for (int i = 0; a != null && i < a.count(); i++) {
                sb.append("argv[").append(i).append("]: '").append(a.string(i)).append("'\n");
            }
        }
        return sb.toString();
    }
}
