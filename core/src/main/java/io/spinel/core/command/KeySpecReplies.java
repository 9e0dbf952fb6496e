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

    /** The flags of the key spec that found the key at position p (GETKEYSANDFLAGS). */
    /**
     * The key flags of this very call for the commands whose spec says "variable_flags" (Redis
     * asks their getkeys procedures): SET only overwrites unless it has GET, BITFIELD only reads
     * while it has nothing but GET and OVERFLOW (a malformed call counts as a write).
     */
    static List<String> variableFlags(Command cmd, Args args) {
        int argc = args.count();
        if (cmd.name.equals("set")) {
            for (int i = 3; i < argc; i++) {
                if (args.is(i, "get")) return List.of("RW", "access", "update");
            }
            return List.of("OW", "update");
        }
        if (cmd.name.equals("bitfield")) {
            for (int i = 2; i < argc; i++) {
                int rest = argc - i - 1;
                if (args.is(i, "get") && rest >= 2) i += 2;
                else if (args.is(i, "overflow") && rest >= 1) i += 1;
                else return List.of("RW", "access", "update");
            }
            return List.of("RO", "access");
        }
        return List.of("RW", "access", "update");
    }

    public static void keyFlags(Reply r, Command cmd, int p, Args args) {
        IntList one = new IntList();
        for (KeySpec s : cmd.keySpecs) {
            one.clear();
            s.collect(args, one);
            for (int i = 0; i < one.size(); i++) {
                if (one.get(i) == p) {
                    List<String> flags = s.flags.contains("variable_flags") ? variableFlags(cmd, args) : s.flags;
                    if (cmd.keysFinder != null && flags.contains("incomplete")) {
                        // Redis asks the command's getkeys procedure then, which reports key flags only
                        flags = new java.util.ArrayList<>(flags);
                        flags.remove("incomplete");
                    }
                    r.setHeader(flags.size());
                    for (String f : flags) r.status(f);
                    return;
                }
            }
        }
        // a key no spec can locate (SORT's STORE destination): Redis's getkeys procedure gives it
        // the flags of the last spec whose start is unknown (for SORT, the one noted for STORE)
        KeySpec unknown = null;
        for (KeySpec s : cmd.keySpecs) if (s.begin == KeySpec.Begin.UNKNOWN) unknown = s;
        if (unknown != null) {
            r.setHeader(unknown.flags.size());
            for (String f : unknown.flags) r.status(f);
            return;
        }
        r.setHeader(0);
    }
}
