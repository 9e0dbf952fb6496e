package io.spinel.core;

import io.spinel.core.command.CommandTable;
import io.spinel.core.keyspace.KeyCommands;
import io.spinel.core.type.hash.HashCommands;
import io.spinel.core.type.set.SetCommands;
import io.spinel.core.type.string.StringCommands;

/** Every command family, registered into the table. Add a family here when you add its file. */
final class CommandFamilies {
    private CommandFamilies() {
    }

    static void registerAll(CommandTable t) {
        ConnectionCommands.register(t);
        ServerCommands.register(t);
        InfoCommand.register(t);
        KeyCommands.register(t);
        StringCommands.register(t);
        HashCommands.register(t);
        SetCommands.register(t);
    }
}
