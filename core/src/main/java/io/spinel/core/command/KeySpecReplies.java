package io.spinel.core.command;

import io.spinel.core.protocol.Args;
import io.spinel.core.protocol.Reply;

import java.util.List;

/** COMMAND INFO / COMMAND DOCS / GETKEYSANDFLAGS replies, shaped as Redis 7.0 shapes them. */
public final class KeySpecReplies {
    private KeySpecReplies() {
    }

    /** One command's COMMAND INFO entry (10 elements). */
    public static void commandInfo(Reply r, Command cmd) {
        r.arrayHeader(10);
        r.bulk(cmd.name);
        r.integer(cmd.arity);
        r.setHeader(cmd.flagNames.size());
        for (String f : cmd.flagNames) r.status(f);
        r.integer(cmd.firstKey);
        r.integer(cmd.lastKey);
        r.integer(cmd.keyStep);
        r.setHeader(cmd.aclCategories.size());
        for (String cat : cmd.aclCategories) r.status("@" + cat);
        r.setHeader(cmd.tips.size());
        for (String t : cmd.tips) r.bulk(t);
        r.setHeader(cmd.keySpecs.size());
        for (KeySpec s : cmd.keySpecs) keySpec(r, s);
        java.util.List<Command> subs = cmd.subcommands();
        // no subcommands: an empty set, as Redis writes it (an array when there are some)
        if (subs.isEmpty()) r.setHeader(0);
        else r.arrayHeader(subs.size());
        for (Command sub : subs) commandInfo(r, sub);
    }

    private static void keySpec(Reply r, KeySpec s) {
        r.mapHeader(3);
        r.bulk("flags");
        r.setHeader(s.flags.size());
        for (String f : s.flags) r.status(f);
        r.bulk("begin_search");
        r.mapHeader(2);
        r.bulk("type");
        switch (s.begin) {
            case INDEX:
                r.bulk("index");
                r.bulk("spec");
                r.mapHeader(1);
                r.bulk("index");
                r.integer(s.index);
                break;
            case KEYWORD:
                r.bulk("keyword");
                r.bulk("spec");
                r.mapHeader(2);
                r.bulk("keyword");
                r.bulk(s.keyword);
                r.bulk("startfrom");
                r.integer(s.startFrom);
                break;
            default:
                r.bulk("unknown");
                r.bulk("spec");
                r.mapHeader(0);
                break;
        }
        r.bulk("find_keys");
        r.mapHeader(2);
        r.bulk("type");
        switch (s.find) {
            case RANGE:
                r.bulk("range");
                r.bulk("spec");
                r.mapHeader(3);
                r.bulk("lastkey");
                r.integer(s.lastKey);
                r.bulk("keystep");
                r.integer(s.keyStep);
                r.bulk("limit");
                r.integer(s.limit);
                break;
            case KEYNUM:
                r.bulk("keynum");
                r.bulk("spec");
                r.mapHeader(3);
                r.bulk("keynumidx");
                r.integer(s.keyNumIdx);
                r.bulk("firstkey");
                r.integer(s.firstKey);
                r.bulk("keystep");
                r.integer(s.keyStep);
                break;
            default:
                r.bulk("unknown");
                r.bulk("spec");
                r.mapHeader(0);
                break;
        }
    }

    /** COMMAND DOCS entry: the facts Spinel carries (no prose: summaries are Redis's own text). */
    public static void commandDocs(Reply r, Command cmd) {
        java.util.List<Command> subs = cmd.subcommands();
        r.mapHeader(subs.isEmpty() ? 2 : 3);
        r.bulk("since");
        r.bulk(cmd.since);
        r.bulk("group");
        r.bulk(cmd.group);
        if (!subs.isEmpty()) {
            r.bulk("subcommands");
            r.mapHeader(subs.size());
            for (Command sub : subs) {
                r.bulk(sub.name);
                commandDocs(r, sub);
            }
        }
    }

    /**
     * The flags of the key at position p (GETKEYSANDFLAGS): what the command says for this call
     * when its flags vary, otherwise those of the key spec that found the key.
     */
    public static void keyFlags(Reply r, Command cmd, int p, Args args) {
        List<String> flags = flagsOf(cmd, p, args);
        r.setHeader(flags.size());
        for (String f : flags) r.status(f);
    }

    /** The flags ("RW", "access", ...) of the key at argument position p of this call. */
    public static List<String> flagsOf(Command cmd, int p, Args args) {
        return cmd.keyFlags() != null ? cmd.keyFlags().of(args, p) : specFlags(cmd, p, args);
    }

    private static List<String> specFlags(Command cmd, int p, Args args) {
        IntList found = new IntList();
        for (KeySpec s : cmd.keySpecs) {
            found.clear();
            s.collect(args, found);
            for (int i = 0; i < found.size(); i++) if (found.get(i) == p) return s.flags;
        }
        return List.of();
    }
}
