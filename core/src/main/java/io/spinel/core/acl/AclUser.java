package io.spinel.core.acl;

import io.spinel.core.protocol.SplitArgs;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * An ACL user (Redis's user): its name, flags (on/off, nopass, payload sanitizing), the SHA-256
 * of its passwords, and its selectors, the root one first. Rules change it one at a time
 * ({@link #apply}, Redis's ACLSetUser); ACL SETUSER applies a whole list to a copy first so that
 * a bad rule changes nothing.
 */
public final class AclUser {
    /** Errors of {@link #apply} beyond the selector's (messages in {@link #errorMessage}). */
    static final int NO_SUCH_PASSWORD = 10; // ENODEV
    static final int BAD_HASH = 11;         // EBADMSG

    public final String name;
    boolean enabled;
    boolean nopass;
    /** 0: neither flag shown; else SANITIZE or SKIP_SANITIZE (the last rule that set one). */
    int payloadFlag;
    static final int SANITIZE = 1;
    static final int SKIP_SANITIZE = 2;
    final List<String> passwords = new ArrayList<>();
    final List<AclSelector> selectors = new ArrayList<>();
    /** Whether every check passes without looking (on one selector: all commands, keys and channels). */
    private boolean unrestricted;
    /** The description ACL LIST shows, made on first need after a change. */
    private String description;

    /** The commands its rules can name (a data server's or a Sentinel's). */
    private AclCommandSet commands;

    AclUser(String name, boolean channelsByDefault, AclCommandSet commands) {
        this.name = name;
        this.commands = commands;
        selectors.add(new AclSelector(AclSelector.ROOT | (channelsByDefault ? AclSelector.ALL_CHANNELS : 0), commands));
    }

    /** The server became a Sentinel: rules name its commands from now on (see {@link Acl#useCommands}). */
    void useCommands(AclCommandSet set) {
        commands = set;
        for (AclSelector s : selectors) s.commands = set;
        description = null;
    }

    /** A copy with another name (ACL SETUSER stages its changes on one). */
    AclUser copyAs(String newName) {
        AclUser u = new AclUser(newName, false, commands);
        u.copyFrom(this);
        return u;
    }

    /** Takes every rule of another user (Redis's ACLCopyUser); the name stays. */
    void copyFrom(AclUser o) {
        enabled = o.enabled;
        nopass = o.nopass;
        payloadFlag = o.payloadFlag;
        passwords.clear();
        passwords.addAll(o.passwords);
        selectors.clear();
        for (AclSelector s : o.selectors) selectors.add(s.copy());
        changed();
    }

    public boolean enabled() {
        return enabled;
    }

    public boolean nopass() {
        return nopass;
    }

    /** Whether this user may run anything without checks (the default user, as it starts). */
    public boolean unrestricted() {
        return unrestricted;
    }

    AclSelector root() {
        return selectors.get(0);
    }

    private void changed() {
        description = null;
        AclSelector r = root();
        int all = AclSelector.ALL_COMMANDS | AclSelector.ALL_KEYS | AclSelector.ALL_CHANNELS;
        unrestricted = selectors.size() == 1 && (r.flags & all) == all;
    }

    // ---- rules --------------------------------------------------------------------------------

    /**
     * Applies one rule (Redis's ACLSetUser); returns AclSelector.OK or an error code. An empty
     * rule does nothing. {@code channelsByDefault} is acl-pubsub-default's "allchannels", which
     * a new selector and "reset" start from.
     */
    int apply(String op, boolean channelsByDefault) {
        try {
            return applyRule(op, channelsByDefault);
        } finally {
            changed();
        }
    }

    private int applyRule(String op, boolean channelsByDefault) {
        if (op.isEmpty()) return AclSelector.OK;
        String lower = op.toLowerCase(Locale.ROOT);
        switch (lower) {
            case "on" -> enabled = true;
            case "off" -> enabled = false;
            case "skip-sanitize-payload" -> payloadFlag = SKIP_SANITIZE;
            case "sanitize-payload" -> payloadFlag = SANITIZE;
            case "nopass" -> {
                nopass = true;
                passwords.clear();
            }
            case "resetpass" -> {
                nopass = false;
                passwords.clear();
            }
            case "clearselectors" -> {
                AclSelector root = root();
                selectors.clear();
                selectors.add(root);
            }
            case "reset" -> {
                applyRule("resetpass", channelsByDefault);
                applyRule("resetkeys", channelsByDefault);
                applyRule("resetchannels", channelsByDefault);
                if (channelsByDefault) applyRule("allchannels", channelsByDefault);
                applyRule("off", channelsByDefault);
                applyRule("sanitize-payload", channelsByDefault);
                applyRule("clearselectors", channelsByDefault);
                applyRule("-@all", channelsByDefault);
            }
            default -> {
                char first = op.charAt(0);
                if (first == '>' || first == '#' || first == '<' || first == '!') {
                    String hash = first == '>' || first == '<' ? sha256Hex(op.substring(1)) : op.substring(1);
                    if (!validHash(hash)) return BAD_HASH;
                    if (first == '>' || first == '#') {
                        if (!passwords.contains(hash)) passwords.add(hash);
                        nopass = false;
                    } else if (!passwords.remove(hash)) {
                        return NO_SUCH_PASSWORD;
                    }
                } else if (first == '(' && op.charAt(op.length() - 1) == ')') {
                    AclSelector s = new AclSelector(channelsByDefault ? AclSelector.ALL_CHANNELS : 0, commands);
                    List<String> ops = SplitArgs.split(op.substring(1, op.length() - 1));
                    // (unbalanced quotes inside: Redis's split gives nothing, so an empty selector)
                    if (ops != null) {
                        for (String o : ops) {
                            int err = s.apply(o);
                            if (err != AclSelector.OK) return err;
                        }
                    }
                    selectors.add(s);
                } else {
                    return root().apply(op);
                }
            }
        }
        return AclSelector.OK;
    }

    private static boolean validHash(String h) {
        if (h.length() != 64) return false;
        for (int i = 0; i < 64; i++) {
            char c = h.charAt(i);
            if ((c < 'a' || c > 'f') && (c < '0' || c > '9')) return false;
        }
        return true;
    }

    /** Redis's ACLSetUserStringError for an error code of {@link #apply}. */
    static String errorMessage(int code) {
        return switch (code) {
            case AclSelector.UNKNOWN_COMMAND -> "Unknown command or category name in ACL";
            case AclSelector.SYNTAX -> "Syntax error";
            case AclSelector.KEYS_AFTER_ALL -> "Adding a pattern after the * pattern (or the 'allkeys' flag) is not "
                    + "valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns";
            case AclSelector.CHANNELS_AFTER_ALL -> "Adding a pattern after the * pattern (or the 'allchannels' flag) "
                    + "is not valid and does not have any effect. Try 'resetchannels' to start with an empty list of "
                    + "channels";
            case NO_SUCH_PASSWORD -> "The password you are trying to remove from the user does not exist";
            case BAD_HASH -> "The password hash must be exactly 64 characters and contain only lowercase hexadecimal "
                    + "characters";
            case AclSelector.FIRST_ARG_OF_SUB -> "Allowing first-arg of a subcommand is not supported";
            default -> "Wrong format";
        };
    }

    /**
     * Rules as one argument each, with a selector spread over several arguments joined again
     * ("(~a" "+get)" is "(~a +get)"), as Redis's ACLMergeSelectorArguments; null when a
     * parenthesis is not closed, with the index of the argument that opened it in {@code badIndex[0]}.
     */
    static List<String> mergeSelectors(List<String> args, int[] badIndex) {
        List<String> out = new ArrayList<>();
        StringBuilder selector = null;
        int openedAt = -1;
        for (int j = 0; j < args.size(); j++) {
            String op = args.get(j);
            if (op.startsWith("(") && !op.endsWith(")")) {
                selector = new StringBuilder(op);
                openedAt = j;
                continue;
            }
            if (openedAt >= 0) {
                selector.append(' ').append(op);
                if (op.endsWith(")")) {
                    openedAt = -1;
                    out.add(selector.toString());
                }
                continue;
            }
            out.add(op);
        }
        if (openedAt >= 0) {
            if (badIndex != null) badIndex[0] = openedAt;
            return null;
        }
        return out;
    }

    // ---- description ----------------------------------------------------------------------------

    /** The user's rules in the form ACL LIST and ACL files show (Redis's ACLDescribeUser). */
    public String describe() {
        String d = description;
        if (d != null) return d;
        StringBuilder sb = new StringBuilder();
        sb.append(enabled ? "on " : "off ");
        if (nopass) sb.append("nopass ");
        if (payloadFlag == SKIP_SANITIZE) sb.append("skip-sanitize-payload ");
        if (payloadFlag == SANITIZE) sb.append("sanitize-payload ");
        for (String p : passwords) sb.append('#').append(p).append(' ');
        sb.append(root().describe());
        for (int i = 1; i < selectors.size(); i++) sb.append(" (").append(selectors.get(i).describe()).append(')');
        description = d = sb.toString();
        return d;
    }

    /**
     * What ACL GETUSER shows: flags in Redis's order, password hashes, and for each selector (the
     * root first) its command rules, key patterns and channel patterns.
     */
    public record Details(List<String> flags, List<String> passwords, List<String[]> selectors) {
    }

    public Details details() {
        List<String> flags = new ArrayList<>();
        flags.add(enabled ? "on" : "off");
        if (nopass) flags.add("nopass");
        if (payloadFlag == SKIP_SANITIZE) flags.add("skip-sanitize-payload");
        if (payloadFlag == SANITIZE) flags.add("sanitize-payload");
        List<String[]> sel = new ArrayList<>();
        for (AclSelector s : selectors) sel.add(new String[] {s.describeCommands(), s.describeKeys(), s.describeChannels()});
        return new Details(flags, List.copyOf(passwords), sel);
    }

    // ---- passwords ----------------------------------------------------------------------------

    /** Whether the password opens this user (any password for a nopass user); never for a disabled one. */
    boolean accepts(byte[] password) {
        if (!enabled) return false;
        if (nopass) return true;
        byte[] given = sha256Hex(password).getBytes(StandardCharsets.ISO_8859_1);
        boolean ok = false;
        // every hash compared in constant time, as Redis's time_independent_strcmp
        for (String p : passwords) ok |= MessageDigest.isEqual(given, p.getBytes(StandardCharsets.ISO_8859_1));
        return ok;
    }

    /** The lower-case hex SHA-256 of a password given as a byte string (one char per byte). */
    public static String sha256Hex(String password) {
        return sha256Hex(password.getBytes(StandardCharsets.ISO_8859_1));
    }

    static String sha256Hex(byte[] password) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(password);
            StringBuilder sb = new StringBuilder(64);
            for (byte b : d) sb.append(Character.forDigit((b >> 4) & 0xf, 16)).append(Character.forDigit(b & 0xf, 16));
            return sb.toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }
}
