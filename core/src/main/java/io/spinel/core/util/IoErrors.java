package io.spinel.core.util;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;

/** The C library's words (strerror) for an I/O exception, as Redis's replies and logs show them. */
public final class IoErrors {
    private IoErrors() {
    }

    public static String reason(IOException e) {
        if (e instanceof NoSuchFileException) return "No such file or directory";
        if (e instanceof AccessDeniedException) return "Permission denied";
        if (e instanceof FileAlreadyExistsException) return "File exists";
        if (e instanceof NotDirectoryException) return "Not a directory";
        if (e instanceof DirectoryNotEmptyException) return "Directory not empty";
        if (e instanceof FileSystemException && ((FileSystemException) e).getReason() != null) {
            return ((FileSystemException) e).getReason();
        }
        return e.getMessage() == null ? e.toString() : e.getMessage();
    }
}
