package io.spinel.core.command;

import java.util.ArrayList;
import java.util.List;

/**
 * rename-command directives (a config file, the command line, an in-process builder), each
 * checked as it comes, with Redis's messages, against the ones before it; applied to the server's
 * command table once that is made.
 */
public final class CommandRenames {
    private final List<String[]> directives = new ArrayList<>();
    /** The directives so far, applied to a table of their own. */
    private final CommandTable checked = new CommandTable();

    /** Adds one; throws IllegalArgumentException with Redis's message, and keeps nothing, if it is bad. */
    public void add(String name, String newName) {
        checked.rename(name, newName);
        directives.add(new String[] {name, newName});
    }

    /** Renames in table what the directives rename, in their order. */
    public void applyTo(CommandTable table) {
        for (String[] d : directives) table.rename(d[0], d[1]);
    }
}
