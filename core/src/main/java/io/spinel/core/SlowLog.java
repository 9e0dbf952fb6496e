package io.spinel.core;

import io.spinel.core.command.Command;
import io.spinel.core.command.CommandError;
import io.spinel.core.command.CommandHandler;
import io.spinel.core.keyspace.KeyCommands;
import io.spinel.core.protocol.Args;
import io.spinel.core.protocol.Reply;
import io.spinel.core.util.Bytes;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * The slow log (Redis's slowlog.c): commands that ran for slowlog-log-slower-than microseconds
 * or more, newest first, at most slowlog-max-len of them. The engine already times every command
 * for INFO commandstats, so the check costs one comparison; an entry (a copy of the arguments,
 * trimmed as Redis trims them) is made only for a command that qualifies.
 */
final class SlowLog {
    /** Arguments kept per entry: the last one says how many more there were. */
    static final int MAX_ARGC = 32;
    /** Bytes kept per argument: the rest is summarized. */
    static final int MAX_STRING = 128;

    record Entry(long id, long time, long micros, byte[][] argv, String peer, String name) {
    }

    private final ArrayDeque<Entry> entries = new ArrayDeque<>();
    private long nextId;
    /** slowlog-log-slower-than in microseconds; negative disables the log. */
    long slowerThan = 10000;
    long maxLen = 128;

    /** The handler of each command CommandFamilies registers for this family, made when it first runs. */
    public static CommandHandler handler(String name) {
        return switch (name) {
            case "slowlog|get" -> SlowLog::get;
            case "slowlog|len" -> c -> c.reply().integer(c.engine.slowlog.entries.size());
            case "slowlog|reset" -> c -> {
                c.engine.slowlog.entries.clear();
                c.reply().ok();
            };
            case "slowlog|help" -> c -> KeyCommands.helpReply(c, new String[] {
                "GET [<count>]",
                "    Show the newest <count> entries (10 unless given; -1 shows them all). Each entry is",
                "    an array: id, unix time, duration in microseconds, the command and its arguments,",
                "    the client's address and port, and the client's name.",
                "LEN",
                "    Show how many entries the slow log holds.",
                "RESET",
                "    Empty the slow log."});
            default -> null;
        };
    }

    /**
     * Logs a command that ran for {@code micros} (the caller checked that it is slow enough and
     * the log is on), keeping at most slowlog-max-len entries.
     */
    void push(Client c, Command cmd, long micros) {
        if (cmd.has(io.spinel.core.command.CommandFlags.SKIP_SLOWLOG)) return;
        entries.addFirst(entry(c, micros));
        trim();
    }

    /**
     * Redis trims after every command while the log is on, so a lowered slowlog-max-len takes
     * effect with the CONFIG SET itself; trimming when an entry is added and when either option
     * changes gives the same log without work on every command.
     */
    void configChanged() {
        if (slowerThan >= 0) trim();
    }

    private void trim() {
        while (entries.size() > maxLen) entries.removeLast();
    }

    private Entry entry(Client c, long micros) {
        Args a = c.args;
        int argc = a.count();
        int n = Math.min(argc, MAX_ARGC);
        boolean[] redacted = Redaction.of(c);
        byte[][] argv = new byte[n][];
        for (int j = 0; j < n; j++) {
            if (n != argc && j == n - 1) {
                argv[j] = Bytes.ascii("... (" + (argc - n + 1) + " more arguments)");
            } else if (redacted != null && redacted[j]) {
                argv[j] = Redaction.REDACTED;
            } else if (a.len(j) > MAX_STRING) {
                byte[] tail = Bytes.ascii("... (" + (a.len(j) - MAX_STRING) + " more bytes)");
                byte[] s = new byte[MAX_STRING + tail.length];
                a.copyPrefix(j, s, MAX_STRING);
                System.arraycopy(tail, 0, s, MAX_STRING, tail.length);
                argv[j] = s;
            } else {
                argv[j] = a.copy(j);
            }
        }
        // a script's client has no peer: Redis shows "?:0"
        String peer = c.script ? "?:0" : c.connection.remoteAddress();
        return new Entry(nextId++, System.currentTimeMillis() / 1000, micros, argv, peer, c.name == null ? "" : c.name);
    }

    private static void get(Client c) {
        SlowLog log = c.engine.slowlog;
        long count = 10;
        if (c.argc() == 3) {
            CommandError range = CommandError.err("count should be greater than or equal to -1");
            count = c.argLong(2, range);
            if (count < -1) throw range;
            if (count == -1) count = log.entries.size();
        } else if (c.argc() > 3) {
            throw CommandError.subcommandSyntax(c.args());
        }
        int sent = (int) Math.min(count, log.entries.size());
        Reply r = c.reply();
        r.arrayHeader(sent);
        Iterator<Entry> it = log.entries.iterator();
        for (int i = 0; i < sent; i++) {
            Entry e = it.next();
            r.arrayHeader(6);
            r.integer(e.id);
            r.integer(e.time);
            r.integer(e.micros);
            r.arrayHeader(e.argv.length);
            for (byte[] arg : e.argv) r.bulk(arg);
            r.bulk(e.peer.getBytes(StandardCharsets.ISO_8859_1));
            r.bulk(e.name.getBytes(StandardCharsets.ISO_8859_1));
        }
    }
}
