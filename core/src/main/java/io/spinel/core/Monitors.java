package io.spinel.core;

import io.spinel.core.command.CommandError;
import io.spinel.core.command.CommandHandler;
import io.spinel.core.protocol.Args;
import io.spinel.core.util.Bytes;

import java.time.Instant;
import java.util.ArrayList;

/**
 * MONITOR (Redis's monitorCommand and replicationFeedMonitors): a client in monitor mode
 * receives, as a status line, every command the server runs for others, stamped with the time,
 * the database and who ran it ({@code +1700000000.123456 [0 127.0.0.1:50000] "set" "k" "v"},
 * {@code [0 lua]} for a script's commands, {@code [0 unix:/path]} for unix socket clients),
 * arguments quoted like Redis's sdscatrepr. Administrative and skip-monitor commands are not
 * shown; passwords are redacted as Redis redacts them. With no monitor connected the dispatch
 * path pays one int comparison.
 */
final class Monitors {
    private final Engine engine;
    private final ArrayList<Client> monitors = new ArrayList<>();
    /** How many clients are monitoring: the only thing the dispatch path looks at. */
    int count;

    Monitors(Engine engine) {
        this.engine = engine;
    }

    /** The handler of each command CommandFamilies registers for this family, made when it first runs. */
    public static CommandHandler handler(String name) {
        return switch (name) {
            case "monitor" -> Monitors::monitorCommand;
            default -> null;
        };
    }

    private static void monitorCommand(Client c) {
        // a client that expects one reply per command (inside MULTI/EXEC) cannot turn into a stream
        if (c.denyBlocking) throw CommandError.err("MONITOR isn't allowed for DENY BLOCKING client");
        if (c.monitor) return; // already monitoring: Redis ignores it, without a reply
        c.monitor = true;
        Monitors m = c.engine.monitors;
        m.monitors.add(c);
        m.count = m.monitors.size();
        c.reply().ok();
    }

    /** EVAL and FCALL are shown before the commands their script runs, not after. */
    static boolean feedsFirst(io.spinel.core.command.Command cmd) {
        switch (cmd.name) {
            case "eval":
            case "evalsha":
            case "eval_ro":
            case "evalsha_ro":
            case "fcall":
            case "fcall_ro":
                return true;
            default:
                return false;
        }
    }

    /** The client left monitor mode (RESET) or went away. */
    void clientGone(Client c) {
        if (!c.monitor) return;
        c.monitor = false;
        monitors.remove(c);
        count = monitors.size();
    }

    /** Sends the command in c's arguments to every monitor. Call only when {@link #count} is not 0. */
    void feed(Client c) {
        if (engine.loading()) return;
        Args a = c.args;
        Instant now = Instant.now();
        StringBuilder sb = new StringBuilder(64 + 16 * a.count());
        sb.append(now.getEpochSecond()).append('.');
        String us = Integer.toString(now.getNano() / 1000);
        for (int i = us.length(); i < 6; i++) sb.append('0');
        sb.append(us).append(" [").append(c.db.id()).append(' ');
        if (c.script) sb.append("lua");
        else if (c.connection.isUnixSocket()) sb.append("unix:").append(engine.config.get("unixsocket"));
        else sb.append(c.connection.remoteAddress());
        sb.append("] ");
        boolean[] redacted = Redaction.of(c);
        for (int i = 0; i < a.count(); i++) {
            if (i > 0) sb.append(' ');
            if (redacted != null && redacted[i]) Bytes.appendRepr(sb, Redaction.REDACTED, 0, Redaction.REDACTED.length);
            else Bytes.appendRepr(sb, a.buf(i), a.off(i), a.len(i));
        }
        String line = sb.toString();
        for (Client m : monitors) {
            if (!m.takesOutput()) continue; // (a monitor's own QUIT is not shown to it)
            m.reply.status(line);
            m.markPendingWrite();
            engine.updateClientMemory(m);
        }
    }
}
