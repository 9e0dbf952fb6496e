package io.spinel.core.acl;

import io.spinel.core.command.CommandTable;
import io.spinel.core.util.Glob;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One set of permissions of a user (Redis's aclSelector): the commands it may run (a bit per
 * command of Redis's table, plus the first arguments allowed of commands otherwise denied), the
 * key patterns with their read/write access, and the channel patterns. Every user has a root
 * selector; rules in parentheses add more, and a command may run when any selector allows it.
 * Names and patterns are byte strings held one char per byte (ISO-8859-1).
 */
final class AclSelector {
    static final int ROOT = 1;
    static final int ALL_KEYS = 2;
    static final int ALL_CHANNELS = 4;
    static final int ALL_COMMANDS = 8;

    /** Key pattern access, as Redis's ACL_READ_PERMISSION / ACL_WRITE_PERMISSION. */
    static final int READ = 1;
    static final int WRITE = 2;
    static final int READ_WRITE = READ | WRITE;

    /** Errors of {@link #apply}, as ACLSetSelector's errno values (messages in {@link AclUser#errorMessage}). */
    static final int OK = 0;
    static final int SYNTAX = 1;            // EINVAL
    static final int UNKNOWN_COMMAND = 2;   // ENOENT
    static final int KEYS_AFTER_ALL = 3;    // EEXIST
    static final int CHANNELS_AFTER_ALL = 4; // EISDIR
    static final int FIRST_ARG_OF_SUB = 5;  // ECHILD

    /** The bit past the last command's: set only by +@all, it says the selector allows commands added later. */
    static final int FUTURE_COMMANDS = CommandTable.aclIdCount();
    private static final int WORDS = (FUTURE_COMMANDS + 1 + 63) / 64;

    int flags;
    final long[] allowed = new long[WORDS];
    /** Allowed first arguments of commands whose bit is clear, by command id; null until one is added. */
    Map<Integer, List<String>> firstArgs;
    final List<KeyPattern> patterns = new ArrayList<>();
    final List<String> channels = new ArrayList<>();

    /** A key pattern and its access (READ, WRITE or both). */
    static final class KeyPattern {
        final String pattern;
        /** The pattern's bytes, which every key check matches against. */
        final byte[] bytes;
        int access;

        KeyPattern(String pattern, int access) {
            this.pattern = pattern;
            this.bytes = pattern.getBytes(StandardCharsets.ISO_8859_1);
            this.access = access;
        }

        /** "~pat", "%R~pat" or "%W~pat", as ACL rules write it. */
        String describe() {
            return (access == READ_WRITE ? "~" : access == READ ? "%R~" : "%W~") + pattern;
        }
    }

    /** The commands its rules can name and its categories cover (a data server's or a Sentinel's). */
    AclCommandSet commands;

    AclSelector(int flags, AclCommandSet commands) {
        this.flags = flags;
        this.commands = commands;
    }

    AclSelector copy() {
        AclSelector s = new AclSelector(flags, commands);
        System.arraycopy(allowed, 0, s.allowed, 0, WORDS);
        if (firstArgs != null) {
            s.firstArgs = new LinkedHashMap<>();
            firstArgs.forEach((id, args) -> s.firstArgs.put(id, new ArrayList<>(args)));
        }
        for (KeyPattern p : patterns) s.patterns.add(new KeyPattern(p.pattern, p.access));
        s.channels.addAll(channels);
        return s;
    }

    // ---- command bits ----------------------------------------------------------------------------

    boolean bit(int id) {
        return (allowed[id >>> 6] & (1L << id)) != 0;
    }

    /** Sets or clears a command's bit; clearing one means the selector no longer allows every command. */
    void setBit(int id, boolean value) {
        if (value) {
            allowed[id >>> 6] |= 1L << id;
        } else {
            allowed[id >>> 6] &= ~(1L << id);
            flags &= ~ALL_COMMANDS;
        }
    }

    /** Allows or denies a command and, for a container, all its subcommands (ACLChangeSelectorPerm). */
    void changePermission(int id, boolean allow) {
        setBit(id, allow);
        if (firstArgs != null) firstArgs.remove(id);
        for (int sub : commands.subcommands(id)) setBit(sub, allow);
    }

    /** +@category / -@category: every command in it (a container's subcommands with it), then matching subcommands. */
    void changeCategory(long category, boolean allow) {
        for (int id : commands.topLevel()) {
            if ((AclCategories.of(id) & category) != 0) changePermission(id, allow);
            for (int sub : commands.subcommands(id)) {
                if ((AclCategories.of(sub) & category) != 0) changePermission(sub, allow);
            }
        }
    }

    private void allCommands(boolean allow) {
        java.util.Arrays.fill(allowed, allow ? -1L : 0L);
        if (allow) flags |= ALL_COMMANDS;
        else flags &= ~ALL_COMMANDS;
        firstArgs = null;
    }

    private void addFirstArg(int id, String arg) {
        if (firstArgs == null) firstArgs = new LinkedHashMap<>();
        List<String> args = firstArgs.computeIfAbsent(id, k -> new ArrayList<>());
        for (String a : args) if (a.equalsIgnoreCase(arg)) return;
        args.add(arg);
    }

    // ---- rules --------------------------------------------------------------------------------

    /** Applies one selector rule (Redis's ACLSetSelector); returns OK or the error. */
    int apply(String op) {
        String lower = op.toLowerCase(Locale.ROOT);
        if (lower.equals("allkeys") || op.equals("~*")) {
            flags |= ALL_KEYS;
            patterns.clear();
        } else if (lower.equals("resetkeys")) {
            flags &= ~ALL_KEYS;
            patterns.clear();
        } else if (lower.equals("allchannels") || op.equals("&*")) {
            flags |= ALL_CHANNELS;
            channels.clear();
        } else if (lower.equals("resetchannels")) {
            flags &= ~ALL_CHANNELS;
            channels.clear();
        } else if (lower.equals("allcommands") || lower.equals("+@all")) {
            allCommands(true);
        } else if (lower.equals("nocommands") || lower.equals("-@all")) {
            allCommands(false);
        } else if (op.startsWith("~") || op.startsWith("%")) {
            return addKeyPattern(op);
        } else if (op.startsWith("&")) {
            if ((flags & ALL_CHANNELS) != 0) return CHANNELS_AFTER_ALL;
            String pattern = op.substring(1);
            if (hasSpaces(pattern)) return SYNTAX;
            if (!channels.contains(pattern)) channels.add(pattern);
            flags &= ~ALL_CHANNELS;
        } else if (op.startsWith("+") && !op.startsWith("+@")) {
            return allowCommand(op.substring(1));
        } else if (op.startsWith("-") && !op.startsWith("-@")) {
            int id = commands.lookup(op.substring(1));
            if (id < 0) return UNKNOWN_COMMAND;
            changePermission(id, false);
        } else if (op.startsWith("+@") || op.startsWith("-@")) {
            long category = AclCategories.byName(op.substring(2));
            if (category == 0) return UNKNOWN_COMMAND;
            changeCategory(category, op.charAt(0) == '+');
        } else {
            return SYNTAX;
        }
        return OK;
    }

    /** "~pattern", "%R~pattern", "%W~pattern", "%RW~pattern". */
    private int addKeyPattern(String op) {
        if ((flags & ALL_KEYS) != 0) return KEYS_AFTER_ALL;
        int access = 0;
        int offset = 1;
        if (op.charAt(0) == '%') {
            for (; offset < op.length(); offset++) {
                char ch = Character.toUpperCase(op.charAt(offset));
                if (ch == 'R' && (access & READ) == 0) {
                    access |= READ;
                } else if (ch == 'W' && (access & WRITE) == 0) {
                    access |= WRITE;
                } else if (ch == '~') {
                    offset++;
                    break;
                } else {
                    return SYNTAX;
                }
            }
            // "%~pattern" grants nothing; Redis 7.0 accepts it and then cannot describe the user
            // (it stops on an assertion), so it is a syntax error here
            if (access == 0) return SYNTAX;
        } else {
            access = READ_WRITE;
        }
        String pattern = op.substring(Math.min(offset, op.length()));
        if (hasSpaces(pattern)) return SYNTAX;
        boolean merged = false;
        for (KeyPattern p : patterns) {
            if (p.pattern.equals(pattern)) {
                p.access |= access;
                merged = true;
                break;
            }
        }
        if (!merged) patterns.add(new KeyPattern(pattern, access));
        flags &= ~ALL_KEYS;
        return OK;
    }

    /** "+command", "+container|subcommand", or "+command|first-arg". */
    private int allowCommand(String name) {
        int bar = name.lastIndexOf('|');
        if (bar < 0) {
            int id = commands.lookup(name);
            if (id < 0) return UNKNOWN_COMMAND;
            changePermission(id, true);
            return OK;
        }
        String command = name.substring(0, bar);
        String sub = name.substring(bar + 1);
        int id = commands.lookup(command);
        if (id < 0) return UNKNOWN_COMMAND;
        if (CommandTable.aclParent(id) >= 0) return FIRST_ARG_OF_SUB;
        if (sub.isEmpty()) return SYNTAX;
        if (CommandTable.aclSubcommands(id).length > 0) {
            int subId = commands.lookup(name);
            if (subId < 0) return UNKNOWN_COMMAND;
            changePermission(subId, true);
        } else {
            // a first argument of a command without subcommands (SELECT|0): allowed, deprecated
            addFirstArg(id, sub);
        }
        return OK;
    }

    /** Redis's ACLStringHasSpaces: names and patterns may not hold white space or NUL. */
    static boolean hasSpaces(String s) {
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            if (ch == ' ' || (ch >= '\t' && ch <= '\r') || ch == 0) return true;
        }
        return false;
    }

    // ---- checks -------------------------------------------------------------------------------

    /** Whether the selector allows this command with these arguments, before keys and channels. */
    boolean allowsCommand(int id, boolean noAuth, io.spinel.core.protocol.Args args, boolean subcommand) {
        if ((flags & ALL_COMMANDS) != 0 || noAuth || bit(id)) return true;
        List<String> allowedArgs = firstArgs == null ? null : firstArgs.get(id);
        if (args.count() < 2 || allowedArgs == null) return false;
        int idx = subcommand ? 2 : 1;
        if (idx >= args.count()) return false;
        String arg = args.string(idx);
        for (String a : allowedArgs) if (a.equalsIgnoreCase(arg)) return true;
        return false;
    }

    /** Whether a key with this access need (READ, WRITE, both or none) matches a pattern with that access. */
    boolean allowsKey(byte[] key, int off, int len, int need) {
        if ((flags & ALL_KEYS) != 0) return true;
        for (KeyPattern p : patterns) {
            if ((p.access & need) != need) continue;
            if (Glob.match(p.bytes, 0, p.bytes.length, key, off, len, false)) return true;
        }
        return false;
    }

    /** Whether the selector grants this access to every key ('~*' or '%R~*' for reads...). */
    boolean allowsEveryKey(int need) {
        if ((flags & ALL_KEYS) != 0) return true;
        for (KeyPattern p : patterns) if ((p.access & need) == need && p.pattern.equals("*")) return true;
        return false;
    }

    /**
     * Whether a channel is allowed by a list of channel patterns: a channel matches them as
     * patterns, a pattern (PSUBSCRIBE's) only one that is the same text.
     */
    static boolean channelAllowed(List<String> list, byte[] ch, int off, int len, boolean isPattern) {
        for (String p : list) {
            byte[] pat = p.getBytes(StandardCharsets.ISO_8859_1);
            if (isPattern ? java.util.Arrays.equals(pat, 0, pat.length, ch, off, off + len)
                    : Glob.match(pat, 0, pat.length, ch, off, len, false)) {
                return true;
            }
        }
        return false;
    }

    // ---- description ----------------------------------------------------------------------------

    /** Keys, channels and commands as rules (ACLDescribeSelector). */
    String describe() {
        StringBuilder sb = new StringBuilder();
        if ((flags & ALL_KEYS) != 0) {
            sb.append("~* ");
        } else {
            for (KeyPattern p : patterns) sb.append(p.describe()).append(' ');
        }
        if ((flags & ALL_CHANNELS) != 0) {
            sb.append("&* ");
        } else {
            sb.append("resetchannels ");
            for (String ch : channels) sb.append('&').append(ch).append(' ');
        }
        sb.append(describeCommands());
        return sb.toString();
    }

    /** ACL GETUSER's "keys": "~*", or the patterns separated by spaces. */
    String describeKeys() {
        if ((flags & ALL_KEYS) != 0) return "~*";
        StringBuilder sb = new StringBuilder();
        for (KeyPattern p : patterns) {
            if (sb.length() > 0) sb.append(' ');
            sb.append(p.describe());
        }
        return sb.toString();
    }

    /** ACL GETUSER's "channels": "&*", or the patterns separated by spaces. */
    String describeChannels() {
        if ((flags & ALL_CHANNELS) != 0) return "&*";
        StringBuilder sb = new StringBuilder();
        for (String ch : channels) {
            if (sb.length() > 0) sb.append(' ');
            sb.append('&').append(ch);
        }
        return sb.toString();
    }

    /**
     * The command rules that rebuild this selector's bits (ACLDescribeSelectorCommandRules):
     * "+@all" or "-@all", then the categories that fit best, one at a time, then the single
     * commands still different, and the allowed first arguments. Redis lists the single
     * commands in its command dictionary's order, which its random hash seed decides; Spinel
     * lists them in name order.
     */
    String describeCommands() {
        StringBuilder rules = new StringBuilder();
        AclSelector fake = new AclSelector(0, commands);
        boolean additive = !bit(FUTURE_COMMANDS);
        rules.append(additive ? "-@all " : "+@all ");
        fake.apply(additive ? "-@all" : "+@all");
        AclSelector temp = new AclSelector(0, commands);
        System.arraycopy(allowed, 0, temp.allowed, 0, WORDS);
        boolean[] applied = new boolean[AclCategories.NAMES.length];
        while (true) {
            int best = -1;
            long minDiff = Integer.MAX_VALUE, maxSame = 0;
            for (int j = 0; j < AclCategories.NAMES.length; j++) {
                if (applied[j]) continue;
                long[] onOff = temp.countCategory(1L << j);
                long diff = additive ? onOff[1] : onOff[0];
                long same = additive ? onOff[0] : onOff[1];
                if (same > diff && (diff < minDiff || (diff == minDiff && same > maxSame))) {
                    best = j;
                    minDiff = diff;
                    maxSame = same;
                }
            }
            if (best < 0) break;
            String name = AclCategories.NAMES[best];
            fake.changeCategory(1L << best, additive);
            temp.changeCategory(1L << best, !additive);
            rules.append(additive ? "+@" : "-@").append(name).append(' ');
            applied[best] = true;
        }
        for (int id : commands.topLevel()) {
            singleCommand(id, fake, rules);
        }
        if (rules.length() > 0) rules.setLength(rules.length() - 1);
        return rules.toString();
    }

    private void singleCommand(int id, AclSelector fake, StringBuilder rules) {
        boolean userBit = bit(id);
        if (userBit != fake.bit(id)) {
            rules.append(userBit ? '+' : '-').append(CommandTable.aclName(id)).append(' ');
            fake.changePermission(id, userBit);
        }
        for (int sub : commands.subcommands(id)) singleCommand(sub, fake, rules);
        List<String> args = firstArgs == null ? null : firstArgs.get(id);
        if (!userBit && args != null) {
            for (String a : args) rules.append('+').append(CommandTable.aclName(id)).append('|').append(a).append(' ');
        }
    }

    /** How many commands of the category this selector allows and denies (subcommands counted too). */
    private long[] countCategory(long category) {
        long on = 0, off = 0;
        for (int id : commands.topLevel()) {
            if ((AclCategories.of(id) & category) != 0) {
                if (bit(id)) on++;
                else off++;
            }
            for (int sub : commands.subcommands(id)) {
                if ((AclCategories.of(sub) & category) != 0) {
                    if (bit(sub)) on++;
                    else off++;
                }
            }
        }
        return new long[] {on, off};
    }
}
