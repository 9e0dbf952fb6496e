package io.spinel.core;

import io.spinel.core.command.CommandTable;
import io.spinel.core.keyspace.KeyCommands;
import io.spinel.core.keyspace.SortCommand;
import io.spinel.core.persist.PersistCommands;
import io.spinel.core.protocol.RespReader;
import io.spinel.core.type.list.BlockingListCommands;
import io.spinel.core.type.list.ListCommands;
import io.spinel.core.type.bitmap.BitmapCommands;
import io.spinel.core.type.geo.GeoCommands;
import io.spinel.core.type.hll.HllCommands;
import io.spinel.core.type.hash.HashCommands;
import io.spinel.core.type.set.SetCommands;
import io.spinel.core.type.string.StringCommands;
import io.spinel.core.type.zset.BlockingZSetCommands;
import io.spinel.core.type.zset.ZSetCommands;

/** Every command family, registered into the table. Add a family here when you add its file. */
final class CommandFamilies {
    private CommandFamilies() {
    }

    /** Which big arguments the query buffer reads with room for a command to keep them (SET's value). */
    static final RespReader.BigArgLayout BIG_ARG_LAYOUT = StringCommands.BIG_VALUE_LAYOUT;

    static void registerAll(CommandTable t) {
        ConnectionCommands.register(t);
        ServerCommands.register(t);
        ServerDiagnostics.register(t);
        InfoCommand.register(t);
        Transactions.register(t);
        PubSub.register(t);
        Tracking.register(t);
        MemoryCommand.register(t);
        KeyCommands.register(t);
        SortCommand.register(t);
        StringCommands.register(t);
        ListCommands.register(t);
        BlockingListCommands.register(t);
        HllCommands.register(t);
        BitmapCommands.register(t);
        ZSetCommands.register(t);
        BlockingZSetCommands.register(t);
        HashCommands.register(t);
        SetCommands.register(t);
        GeoCommands.register(t);
        io.spinel.core.type.stream.StreamCommands.register(t);
        PersistCommands.register(t);
        io.spinel.core.script.Scripting.register(t);
    }
}
