package io.spinel.core.command;

/**
 * A command failed with an error reply. Thrown from command code and turned into {@code -<message>}
 * by the dispatcher; the message includes the error code ("ERR ...", "WRONGTYPE ..."). Errors are
 * user input, not bugs, so no stack trace is captured.
 */
public class CommandError extends RuntimeException {
    public CommandError(String message) {
        super(message, null, false, false);
    }

    // The replies Redis shares (shared.* in server.c), word for word.
    public static final CommandError WRONGTYPE =
            new CommandError("WRONGTYPE Operation against a key holding the wrong kind of value");
    public static final CommandError SYNTAX = new CommandError("ERR syntax error");
    public static final CommandError NOT_INTEGER = new CommandError("ERR value is not an integer or out of range");
    public static final CommandError NOT_FLOAT = new CommandError("ERR value is not a valid float");
    public static final CommandError NO_SUCH_KEY = new CommandError("ERR no such key");
    public static final CommandError OUT_OF_RANGE = new CommandError("ERR index out of range");
    public static final CommandError OVERFLOW = new CommandError("ERR increment or decrement would overflow");
    public static final CommandError NOAUTH = new CommandError("NOAUTH Authentication required.");
    public static final CommandError DB_INDEX = new CommandError("ERR DB index is out of range");

    public static CommandError err(String message) {
        return new CommandError("ERR " + message);
    }

    /**
     * Redis's addReplySubcommandSyntaxError: a subcommand unknown, or known with the wrong
     * number of arguments. The subcommand is quoted as printf's %.128s quotes it (up to 128
     * bytes and its first NUL).
     */
    public static CommandError subcommandSyntax(io.spinel.core.protocol.Args a) {
        String sub = a.cString(1);
        if (sub.length() > 128) sub = sub.substring(0, 128);
        return err("unknown subcommand or wrong number of arguments for '" + sub + "'. Try "
                + a.cString(0).toUpperCase(java.util.Locale.ROOT) + " HELP.");
    }
}
