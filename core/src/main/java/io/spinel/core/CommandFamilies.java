package io.spinel.core;

import io.spinel.core.command.CommandTable;
import io.spinel.core.keyspace.KeyCommands;
import io.spinel.core.type.list.BlockingListCommands;
import io.spinel.core.type.list.ListCommands;
import io.spinel.core.type.bitmap.BitmapCommands;
import io.spinel.core.type.hll.HllCommands;
import io.spinel.core.type.string.StringCommands;

/** Every command family, registered into the table. Add a family here when you add its file. */
final class CommandFamilies {
    private CommandFamilies() {
    }

    static void registerAll(CommandTable t) {
        ConnectionCommands.register(t);
        ServerCommands.register(t);
        InfoCommand.register(t);
        Transactions.register(t);
        KeyCommands.register(t);
        StringCommands.register(t);
        ListCommands.register(t);
        BlockingListCommands.register(t);
        HllCommands.register(t);
        BitmapCommands.register(t);
        io.spinel.core.script.Scripting.register(t);
    }
}
