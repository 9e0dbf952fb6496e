package io.spinel.core.persist;

/** Malformed or truncated RDB data (a file, an AOF base or a DUMP payload). */
public final class RdbException extends RuntimeException {
    public RdbException(String message) {
        super(message);
    }

    public RdbException(String message, Throwable cause) {
        super(message, cause);
    }
}
