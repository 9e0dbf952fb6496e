package io.spinel.core.acl;

import io.spinel.core.command.Command;
import io.spinel.core.command.CommandFlags;
import io.spinel.core.command.IntList;
import io.spinel.core.command.KeySpecReplies;
import io.spinel.core.protocol.Args;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * The ACL users and their checks (Redis's acl.c): users by name (in byte order, as Redis's radix
 * tree lists them), the default user every connection starts as, the permission check a command
 * passes before it runs, the ACL log, and ACL files.
 */
public final class Acl {
    /** Results of {@link #check}, as Redis's ACL_OK / ACL_DENIED_* (the larger wins among selectors). */
    public static final int OK = 0;
    public static final int DENIED_CMD = 1;
    public static final int DENIED_KEY = 2;
    public static final int DENIED_AUTH = 3;
    public static final int DENIED_CHANNEL = 4;

    /** What the ACL asks of the server: disconnecting the clients of a user who is gone or lost channels. */
    public interface Hooks {
        /** The user was deleted (or replaced by ACL LOAD): its clients go back to the default user, unauthenticated, and are closed. */
        void userRemoved(AclUser u);

        /**
         * The user's channel permissions shrank: its subscribed clients whose channels or patterns
         * the new list does not allow are closed (Redis's ACLKillPubsubClientsIfNeeded).
         */
        void channelsRevoked(AclUser u, List<String> allowed);
    }

    private final TreeMap<String, AclUser> users = new TreeMap<>();
    private final AclUser defaultUser;
    private final BooleanSupplier channelsByDefault;
    private final LongSupplier logMaxLen;
    private Hooks hooks;
    private final Deque<LogEntry> log = new ArrayDeque<>();
    /** The argument position of the key or channel the last denied {@link #check} found. */
    private int deniedPos;

    /** The commands rules can name: a data server's until {@link #useCommands} says otherwise. */
    private AclCommandSet commands = AclCommandSet.DATA_SERVER;

    public Acl(BooleanSupplier channelsByDefault, LongSupplier logMaxLen) {
        this.channelsByDefault = channelsByDefault;
        this.logMaxLen = logMaxLen;
        defaultUser = newDefaultUser();
        users.put("default", defaultUser);
    }

    /**
     * The server runs as a Sentinel (called before its users are loaded): rules name the
     * Sentinel's commands, and categories cover those only, as in Redis's sentinel mode.
     */
    public void useCommands(AclCommandSet set) {
        commands = set;
        for (AclUser u : users.values()) u.useCommands(set);
    }

    /** The commands rules can name (ACL CAT lists a category's from them). */
    public AclCommandSet commands() {
        return commands;
    }

    public void setHooks(Hooks hooks) {
        this.hooks = hooks;
    }

    private AclUser newDefaultUser() {
        AclUser u = new AclUser("default", channelsByDefault.getAsBoolean(), commands);
        for (String r : new String[] {"+@all", "~*", "&*", "on", "nopass"}) u.apply(r, false);
        return u;
    }

    /** Whether a user name is one Redis refuses: white space or NUL in it. */
    public static boolean badUserName(String name) {
        return AclSelector.hasSpaces(name);
    }

    public AclUser defaultUser() {
        return defaultUser;
    }

    public AclUser user(String name) {
        return users.get(name);
    }

    /** The users in name (byte) order. */
    public Collection<AclUser> users() {
        return users.values();
    }

    /** requirepass: the default user's only password, or nopass when empty (ACLUpdateDefaultUserPassword). */
    public void updateDefaultUserPassword(String password) {
        defaultUser.apply("resetpass", false);
        defaultUser.apply(password.isEmpty() ? "nopass" : ">" + password, false);
    }

    /** The user if the password opens it (enabled, nopass or one of its passwords), else null. */
    public AclUser authenticate(String name, byte[] password) {
        AclUser u = users.get(name);
        return u != null && u.accepts(password) ? u : null;
    }

    // ---- ACL SETUSER / DELUSER ------------------------------------------------------------------

    /**
     * Creates or changes a user with rules (Redis's ACLStringSetUser): all of them are applied to
     * a copy first, so a bad one changes nothing. Returns null, or Redis's error text.
     */
    public String setUser(String name, List<String> rules) {
        int[] bad = new int[1];
        List<String> ops = AclUser.mergeSelectors(rules, bad);
        if (ops == null) return "Unmatched parenthesis in acl selector starting at '" + rules.get(bad[0]) + "'.";
        AclUser existing = users.get(name);
        AclUser staged = existing != null ? existing.copyAs(name) : new AclUser(name, channelsByDefault.getAsBoolean(), commands);
        boolean channels = channelsByDefault.getAsBoolean();
        for (String op : ops) {
            int err = staged.apply(op, channels);
            if (err != AclSelector.OK) {
                return "Error in ACL SETUSER modifier '" + op + "': " + AclUser.errorMessage(err);
            }
        }
        if (existing != null) {
            List<String> allowed = revokedChannels(staged, existing);
            if (allowed != null && hooks != null) hooks.channelsRevoked(existing, allowed);
            existing.copyFrom(staged);
        } else {
            users.put(name, staged);
        }
        return null;
    }

    /**
     * The channel patterns the new rules allow, when some channel the old ones allowed may be lost
     * (then subscribers are checked); null when none can be (a selector with all channels, or
     * every old pattern still there).
     */
    private static List<String> revokedChannels(AclUser next, AclUser old) {
        for (AclSelector s : next.selectors) if ((s.flags & AclSelector.ALL_CHANNELS) != 0) return null;
        List<String> upcoming = new ArrayList<>();
        for (AclSelector s : next.selectors) upcoming.addAll(s.channels);
        for (AclSelector s : old.selectors) {
            if ((s.flags & AclSelector.ALL_CHANNELS) != 0) return upcoming;
            for (String ch : s.channels) if (!upcoming.contains(ch)) return upcoming;
        }
        return null;
    }

    /** Whether a subscribed channel (or pattern) is in a list {@link Hooks#channelsRevoked} gave. */
    public static boolean channelAllowed(List<String> allowed, byte[] channel, boolean isPattern) {
        return AclSelector.channelAllowed(allowed, channel, 0, channel.length, isPattern);
    }

    /** Deletes a user (not the default one), closing its clients; false if there is none. */
    public boolean deleteUser(String name) {
        AclUser u = users.remove(name);
        if (u == null) return false;
        if (hooks != null) hooks.userRemoved(u);
        return true;
    }

    // ---- permission checks ----------------------------------------------------------------------

    /**
     * Whether the user may run the command with these arguments (args[0] its name): OK, or the
     * denial that Redis's ACLCheckAllUserCommandPerm picks (no selector allows the command; else
     * the key or channel, the last position no selector allowed), its position then in
     * {@link #deniedPos()}.
     */
    public int check(AclUser u, Command cmd, Args args) {
        if (u.unrestricted()) return OK;
        int relevant = DENIED_CMD;
        int lastPos = 0;
        Keys[] keys = new Keys[1];
        for (AclSelector s : u.selectors) {
            int r = checkSelector(s, cmd, args, keys);
            if (r == OK) return OK;
            if (r > relevant || (r == relevant && selectorDeniedPos > lastPos)) {
                relevant = r;
                lastPos = selectorDeniedPos;
            }
        }
        deniedPos = lastPos;
        return relevant;
    }

    /** Where {@link #checkSelector} found the key or channel it denies. */
    private int selectorDeniedPos;

    /**
     * One selector's verdict (Redis's ACLSelectorCheckCmd): the command, then each key with the
     * access its flags need, then the channels; the call's keys are found once for all selectors.
     */
    private int checkSelector(AclSelector s, Command cmd, Args args, Keys[] keys) {
        selectorDeniedPos = 0;
        if (!s.allowsCommand(cmd.aclId, cmd.has(CommandFlags.NO_AUTH), args, cmd.parent != null)) return DENIED_CMD;
        if ((s.flags & AclSelector.ALL_KEYS) == 0 && hasKeys(cmd)) {
            if (keys[0] == null) keys[0] = keysOf(cmd, args);
            Keys k = keys[0];
            for (int j = 0; j < k.positions.size(); j++) {
                int p = k.positions.get(j);
                if (!s.allowsKey(args.buf(p), args.off(p), args.len(p), k.access[j])) {
                    selectorDeniedPos = p;
                    return DENIED_KEY;
                }
            }
        }
        if ((s.flags & AclSelector.ALL_CHANNELS) == 0) {
            int end = channelArgs(cmd, args.count());
            boolean pattern = cmd.name.equals("psubscribe");
            for (int p = 1; p < end; p++) {
                if (!AclSelector.channelAllowed(s.channels, args.buf(p), args.off(p), args.len(p), pattern)) {
                    selectorDeniedPos = p;
                    return DENIED_CHANNEL;
                }
            }
        }
        return OK;
    }

    /** The argument position of the key or channel the last denied {@link #check} names. */
    public int deniedPos() {
        return deniedPos;
    }

    /**
     * Whether the user may run the command and read (or write) every key with one selector
     * (ACLUserCheckCmdWithUnrestrictedKeyAccess): SORT's BY and GET patterns need it.
     */
    public boolean checkWithEveryKey(AclUser u, Command cmd, Args args, boolean write) {
        if (u.unrestricted()) return true;
        int need = write ? AclSelector.WRITE : AclSelector.READ;
        Keys[] keys = new Keys[1];
        for (AclSelector s : u.selectors) {
            if (checkSelector(s, cmd, args, keys) == OK && s.allowsEveryKey(need)) return true;
        }
        return false;
    }

    /** The end (exclusive) of the channel arguments of a command that publishes or subscribes; 1 (none) for others. */
    private static int channelArgs(Command cmd, int argc) {
        return switch (cmd.name) {
            case "subscribe", "ssubscribe", "psubscribe" -> argc;
            case "publish", "spublish" -> Math.min(2, argc);
            default -> 1;
        };
    }

    /** Redis's doesCommandHaveKeys: a key spec that finds keys, or a procedure that does. */
    private static boolean hasKeys(Command cmd) {
        for (io.spinel.core.command.KeySpec k : cmd.keySpecs) if (!k.notKey()) return true;
        return false;
    }

    private record Keys(IntList positions, int[] access) {
    }

    private static Keys keysOf(Command cmd, Args args) {
        IntList positions = new IntList();
        if (!cmd.keys(args, positions)) positions.clear();
        int[] access = new int[positions.size()];
        for (int j = 0; j < positions.size(); j++) {
            int a = 0;
            for (String f : KeySpecReplies.flagsOf(cmd, positions.get(j), args)) {
                if (f.equalsIgnoreCase("access")) a |= AclSelector.READ;
                else if (f.equalsIgnoreCase("insert") || f.equalsIgnoreCase("delete") || f.equalsIgnoreCase("update")) {
                    a |= AclSelector.WRITE;
                }
            }
            access[j] = a;
        }
        return new Keys(positions, access);
    }

    // ---- the ACL log ----------------------------------------------------------------------------

    /** One ACL LOG entry; similar denials within a minute are counted on one. */
    public static final class LogEntry {
        public long count = 1;
        public final int reason;
        public final String context;
        public final byte[] object;
        public final String username;
        public long createdMillis;
        public String clientInfo;

        LogEntry(int reason, String context, byte[] object, String username, long now, String clientInfo) {
            this.reason = reason;
            this.context = context;
            this.object = object;
            this.username = username;
            this.createdMillis = now;
            this.clientInfo = clientInfo;
        }

        public String reasonName() {
            return switch (reason) {
                case DENIED_CMD -> "command";
                case DENIED_KEY -> "key";
                case DENIED_CHANNEL -> "channel";
                case DENIED_AUTH -> "auth";
                default -> "unknown";
            };
        }
    }

    /**
     * Logs a denial (Redis's addACLLogEntry): an entry like one of the ten newest (same reason,
     * context, object and user, within a minute) is counted on it and moves to the front.
     */
    public void log(int reason, String context, byte[] object, String username, String clientInfo) {
        long now = System.currentTimeMillis();
        int scanned = 0;
        for (Iterator<LogEntry> it = log.iterator(); it.hasNext() && scanned < 10; scanned++) {
            LogEntry e = it.next();
            if (e.reason == reason && e.context.equals(context) && Math.abs(e.createdMillis - now) <= 60000
                    && java.util.Arrays.equals(e.object, object) && e.username.equals(username)) {
                it.remove();
                e.count++;
                e.createdMillis = now;
                e.clientInfo = clientInfo;
                log.addFirst(e);
                return;
            }
        }
        log.addFirst(new LogEntry(reason, context, object, username, now, clientInfo));
        long max = logMaxLen.getAsLong();
        while (log.size() > max) log.removeLast();
    }

    /** The entries, newest first. */
    public Collection<LogEntry> logEntries() {
        return log;
    }

    public void resetLog() {
        log.clear();
    }

    // ---- ACL files ----------------------------------------------------------------------------

    /**
     * Replaces every user with those of an ACL file (Redis's ACLLoadFromFile): lines "user NAME
     * rules...", blank lines allowed. Nothing changes when any line is bad; returns null, or
     * every problem found in one line of text.
     */
    public String loadFile(Path file, String shownName) {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            return "Error loading ACLs, opening file '" + shownName + "': " + io.spinel.core.util.IoErrors.reason(e);
        }
        String text = new String(bytes, StandardCharsets.ISO_8859_1);
        int nul = text.indexOf('\0');
        if (nul >= 0) text = text.substring(0, nul); // Redis reads the file as a C string
        StringBuilder errors = new StringBuilder();
        TreeMap<String, AclUser> loaded = new TreeMap<>();
        boolean channels = channelsByDefault.getAsBoolean();
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            int lineNumber = i + 1;
            String line = trim(lines[i], " \t\r\n");
            if (line.isEmpty()) continue;
            List<String> argv = splitOnSpaces(line);
            if (argv.isEmpty()) continue;
            if (!argv.get(0).equals("user") || argv.size() < 2) {
                errors.append(shownName).append(':').append(lineNumber)
                        .append(" should start with user keyword followed by the username. ");
                continue;
            }
            String name = argv.get(1);
            if (AclSelector.hasSpaces(name)) {
                errors.append("'").append(shownName).append(':').append(lineNumber).append(": username '").append(name)
                        .append("' contains invalid characters. ");
                continue;
            }
            if (loaded.containsKey(name)) {
                errors.append("WARNING: Duplicate user '").append(name).append("' found on line ").append(lineNumber)
                        .append(". ");
                continue;
            }
            AclUser u = new AclUser(name, channels, commands);
            loaded.put(name, u);
            List<String> ops = AclUser.mergeSelectors(argv.subList(2, argv.size()), null);
            if (ops == null) {
                errors.append(shownName).append(':').append(lineNumber)
                        .append(": Unmatched parenthesis in selector definition.");
                continue;
            }
            boolean syntaxError = false;
            for (String op : ops) {
                String rule = trim(op, "\t\r\n");
                int err = u.apply(rule, channels);
                if (err == AclSelector.UNKNOWN_COMMAND) {
                    errors.append(shownName).append(':').append(lineNumber).append(": Error in applying operation '")
                            .append(rule).append("': ").append(AclUser.errorMessage(err)).append(". ");
                } else if (err != AclSelector.OK && !syntaxError) {
                    errors.append(shownName).append(':').append(lineNumber).append(": ")
                            .append(AclUser.errorMessage(err)).append(". ");
                    syntaxError = true;
                }
            }
        }
        if (errors.length() > 0) {
            return errors.append("WARNING: ACL errors detected, no change to the previously active ACL rules was performed")
                    .toString();
        }
        // the default user object stays (every connection refers to it): it takes the file's rules
        AclUser newDefault = loaded.remove("default");
        defaultUser.copyFrom(newDefault != null ? newDefault : newDefaultUser());
        List<AclUser> old = new ArrayList<>(users.values());
        users.clear();
        users.put("default", defaultUser);
        users.putAll(loaded);
        for (AclUser u : old) if (u != defaultUser && hooks != null) hooks.userRemoved(u);
        return null;
    }

    /** The users as an ACL file's lines ("user NAME rules", in name order). */
    public String fileText() {
        StringBuilder sb = new StringBuilder();
        for (AclUser u : users.values()) sb.append("user ").append(u.name).append(' ').append(u.describe()).append('\n');
        return sb.toString();
    }

    /** ACL SAVE: the users written to a temporary file renamed over the ACL file. */
    public void saveFile(Path file) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp-" + ProcessHandle.current().pid() + "-"
                + System.currentTimeMillis());
        try {
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE, StandardOpenOption.CREATE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                ch.write(java.nio.ByteBuffer.wrap(fileText().getBytes(StandardCharsets.ISO_8859_1)));
            }
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /**
     * The users at start (Redis's ACLLoadUsersAtStartup): those of the configuration's "user"
     * lines (each a list: name, rules...), or those of the ACL file, never both. Throws with the
     * message Redis logs before it exits.
     */
    public void loadAtStartup(List<List<String>> configured, Path aclFile, String aclFileName) {
        if (aclFile != null && !configured.isEmpty()) {
            throw new IllegalStateException("Configuring Redis with users defined in redis.conf and at the same "
                    + "setting an ACL file path is invalid. This setup is very likely to lead to configuration errors "
                    + "and security holes, please define either an ACL file or declare users directly in your "
                    + "redis.conf, but not both.");
        }
        boolean channels = channelsByDefault.getAsBoolean();
        for (List<String> def : configured) {
            String name = def.get(0);
            if (AclSelector.hasSpaces(name)) throw new IllegalStateException("Spaces not allowed in ACL usernames");
            AclUser u = users.get(name);
            if (u == null) {
                u = new AclUser(name, channels, commands);
                users.put(name, u);
            } else {
                u.apply("reset", channels); // only "default" can be there already
            }
            for (String rule : def.subList(1, def.size())) {
                int err = u.apply(rule, channels);
                if (err != AclSelector.OK) {
                    throw new IllegalStateException("Error loading ACL rule '" + rule + "' for the user named '" + name
                            + "': " + AclUser.errorMessage(err) + "\nCritical error while loading ACLs. Exiting.");
                }
            }
        }
        if (aclFile != null) {
            String errors = loadFile(aclFile, aclFileName);
            if (errors != null) throw new IllegalStateException("Aborting Redis startup because of ACL errors: " + errors);
        }
    }

    /**
     * Checks a configuration file's "user NAME rules..." line as Redis does while reading it
     * (ACLAppendUserForLoading): null, or the error text; unknown commands are only found at
     * start, when the line is applied. Returns the rules with selectors merged in {@code merged}.
     */
    public static String checkConfigUser(List<String> argv, List<String> merged) {
        int[] bad = new int[1];
        List<String> ops = AclUser.mergeSelectors(argv.subList(2, argv.size()), bad);
        if (ops == null) {
            // Redis names the argument at the bad index of the whole line, and its reason is whatever errno held
            return "Error in user declaration '" + argv.get(bad[0]) + "': Wrong format";
        }
        // (unknown commands are only reported when the line is applied: either set will do)
        AclUser fake = new AclUser("__fakeuser:0__", false, AclCommandSet.DATA_SERVER);
        for (int j = 0; j < ops.size(); j++) {
            int err = fake.apply(ops.get(j), false);
            if (err != AclSelector.OK && err != AclSelector.UNKNOWN_COMMAND) {
                // (Redis's index counts the rules but indexes the whole line: it names the token j places in)
                return "Error in user declaration '" + argv.get(j) + "': " + AclUser.errorMessage(err);
            }
        }
        merged.addAll(ops);
        return null;
    }

    /** Redis's sdstrim: drops the given characters from both ends. */
    private static String trim(String s, String chars) {
        int a = 0, e = s.length();
        while (a < e && chars.indexOf(s.charAt(a)) >= 0) a++;
        while (e > a && chars.indexOf(s.charAt(e - 1)) >= 0) e--;
        return s.substring(a, e);
    }

    /** Redis's sdssplitlen on single spaces: empty arguments between two spaces kept. */
    private static List<String> splitOnSpaces(String line) {
        List<String> out = new ArrayList<>();
        int start = 0;
        for (int i = 0; i <= line.length(); i++) {
            if (i == line.length() || line.charAt(i) == ' ') {
                out.add(line.substring(start, i));
                start = i + 1;
            }
        }
        return out;
    }

}
