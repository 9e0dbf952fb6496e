package io.spinel.core.embedded;

/**
 * An error reply from Spinel. {@link #getMessage()} is Redis's error text without the leading
 * '-', e.g. {@code WRONGTYPE Operation against a key holding the wrong kind of value} or
 * {@code ERR wrong number of arguments for 'get' command}, so code that matches on Redis's
 * messages works unchanged.
 */
public class SpinelException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public SpinelException(String message) {
        super(message);
    }

    /** For errors decoded on the engine thread, where a stack trace would only show the engine. */
    SpinelException(String message, boolean stackTrace) {
        super(message, null, false, stackTrace);
    }

    /** The error code: the first word of the message ({@code ERR}, {@code WRONGTYPE}, {@code NOAUTH}...). */
    public String code() {
        String m = getMessage();
        int sp = m.indexOf(' ');
        return sp < 0 ? m : m.substring(0, sp);
    }
}
