package io.spinel.core.persist;

/**
 * A persistence failure that must stop start-up (corrupt or unreadable RDB/AOF, a bad manifest):
 * the message says what and where, and the server exits with status 1 rather than start empty.
 */
public final class PersistenceException extends RuntimeException {
    public PersistenceException(String message) {
        super(message);
    }

    public PersistenceException(String message, Throwable cause) {
        super(message, cause);
    }
}
