package io.spinel.core.type.zset;

import io.spinel.core.Client;
import io.spinel.core.command.CommandHandler;
import io.spinel.core.keyspace.ValueType;
import io.spinel.core.protocol.Args;

import java.util.ArrayList;
import java.util.List;

/**
 * BZPOPMIN, BZPOPMAX and BZMPOP: pop like ZPOPMIN/ZPOPMAX/ZMPOP from the first non-empty sorted set,
 * or block until one of the keys gets members (see Client.block). They do not block inside
 * MULTI/EXEC or scripts, answering nil as a timeout would.
 */
public final class BlockingZSetCommands {
    private BlockingZSetCommands() {
    }

    /** The handler of each command CommandFamilies registers for this family, made when it first runs. */
    public static CommandHandler handler(String name) {
        return switch (name) {
            case "bzpopmin" -> c -> bzpop(c, false);
            case "bzpopmax" -> c -> bzpop(c, true);
            case "bzmpop" -> BlockingZSetCommands::bzmpop;
            default -> null;
        };
    }

    /** BZPOPMIN|BZPOPMAX key [key ...] timeout */
    static void bzpop(Client c, boolean max) {
        Args a = c.args();
        long deadline = c.argTimeout(a.count() - 1);
        popOrBlock(c, 1, a.count() - 2, max, -1, ZSetCommands.POP_KEY_FLAT, deadline);
    }

    /** BZMPOP timeout numkeys key [key ...] MIN|MAX [COUNT count] */
    static void bzmpop(Client c) {
        ZSetCommands.MpopArgs m = ZSetCommands.parseMpopArgs(c, 2);
        long deadline = c.argTimeout(1);
        popOrBlock(c, m.firstKey(), m.numKeys(), m.max(), m.count(), ZSetCommands.POP_KEY_NESTED, deadline);
    }

    private static void popOrBlock(Client c, int first, int n, boolean max, long count, int shape, long deadline) {
        Args a = c.args();
        for (int k = first; k < first + n; k++) {
            ZSet z = ZSetCommands.write(c, k);
            if (z == null || z.size() == 0) continue;
            long popped = ZSetCommands.popAndReply(c, a.buf(k), a.off(k), a.len(k), z, max, count < 0 ? 1 : count,
                    shape);
            ZSetCommands.propagatePop(c, a.copy(k), max, count < 0 ? -1 : popped);
            return;
        }
        if (!c.mayBlock()) {
            c.reply().nullArray();
            return;
        }
        List<byte[]> keys = new ArrayList<>(n);
        for (int k = first; k < first + n; k++) keys.add(a.copy(k));
        c.block(ValueType.ZSET, keys, deadline, r -> r.nullArray());
    }
}
