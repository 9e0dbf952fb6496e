package io.spinel.core.type.list;

import io.spinel.core.Client;
import io.spinel.core.command.CommandError;
import io.spinel.core.command.CommandHandler;
import io.spinel.core.keyspace.ValueType;
import io.spinel.core.protocol.Args;
import io.spinel.core.util.Bytes;

import java.util.ArrayList;
import java.util.List;

/**
 * The blocking list commands (BLPOP, BRPOP, BLMPOP, BLMOVE, BRPOPLPUSH): a non-blocking attempt
 * first, exactly as the plain command would do it; if every list is empty the client blocks
 * (see Client.block) and this same code runs again when a list gets elements. Inside MULTI/EXEC or
 * a script they do not block: they answer as a timeout would.
 */
public final class BlockingListCommands {
    private BlockingListCommands() {
    }

    private static final byte[] LPOP = Bytes.ascii("LPOP");
    private static final byte[] RPOP = Bytes.ascii("RPOP");
    private static final byte[] LMOVE = Bytes.ascii("LMOVE");
    private static final byte[] RPOPLPUSH = Bytes.ascii("RPOPLPUSH");

    /** The handler of each command CommandFamilies registers for this family, made when it first runs. */
    public static CommandHandler handler(String name) {
        return switch (name) {
            case "blpop" -> c -> blockingPop(c, true);
            case "brpop" -> c -> blockingPop(c, false);
            case "blmpop" -> BlockingListCommands::blmpop;
            case "blmove" -> BlockingListCommands::blmove;
            case "brpoplpush" -> BlockingListCommands::brpoplpush;
            default -> null;
        };
    }

    /** BLPOP|BRPOP key [key ...] timeout */
    static void blockingPop(Client c, boolean head) {
        Args a = c.args();
        long deadline = c.argTimeout(a.count() - 1);
        popOrBlock(c, 1, a.count() - 1, head, -1, deadline);
    }

    /** BLMPOP timeout numkeys key [key ...] LEFT|RIGHT [COUNT count] */
    static void blmpop(Client c) {
        Args a = c.args();
        int argc = a.count();
        long numkeys = ListCommands.rangeArg(c, 2, 1, Long.MAX_VALUE, "numkeys should be greater than 0");
        long whereIdx = 2 + numkeys + 1;
        if (whereIdx >= argc) throw CommandError.SYNTAX;
        boolean head = ListCommands.side(c, (int) whereIdx);
        long count = -1;
        for (int j = (int) whereIdx + 1; j < argc; j++) {
            if (count == -1 && a.is(j, "count") && j < argc - 1) {
                count = ListCommands.rangeArg(c, ++j, 1, Long.MAX_VALUE, "count should be greater than 0");
            } else {
                throw CommandError.SYNTAX;
            }
        }
        if (count == -1) count = 1;
        long deadline = c.argTimeout(1);
        popOrBlock(c, 3, (int) whereIdx, head, count, deadline);
    }

    /** Pops from the first non-empty list among key arguments [from, to), or blocks on them all. */
    private static void popOrBlock(Client c, int from, int to, boolean head, long count, long deadline) {
        Args a = c.args();
        for (int k = from; k < to; k++) {
            ListValue l = ListCommands.writeList(c, k);
            if (l == null || l.size() == 0) continue;
            if (count != -1) {
                long n = ListCommands.popRangeWithKeyAndReply(c, c.db(), a.buf(k), a.off(k), a.len(k), l, head, count);
                if (c.propagates()) c.propagateAs(head ? LPOP : RPOP, a.copy(k), Bytes.longToBytes(n));
            } else {
                ListCommands.popWithKeyAndReply(c, c.db(), a.buf(k), a.off(k), a.len(k), l, head);
                if (c.propagates()) c.propagateAs(head ? LPOP : RPOP, a.copy(k));
            }
            return;
        }
        if (!c.mayBlock()) {
            c.reply().nullArray();
            return;
        }
        List<byte[]> keys = new ArrayList<>(to - from);
        for (int k = from; k < to; k++) keys.add(a.copy(k));
        c.block(ValueType.LIST, keys, deadline, r -> r.nullArray());
    }

    /** BLMOVE source destination LEFT|RIGHT LEFT|RIGHT timeout */
    static void blmove(Client c) {
        boolean fromHead = ListCommands.side(c, 3);
        boolean toHead = ListCommands.side(c, 4);
        long deadline = c.argTimeout(5);
        moveOrBlock(c, fromHead, toHead, deadline, true);
    }

    /** BRPOPLPUSH source destination timeout */
    static void brpoplpush(Client c) {
        long deadline = c.argTimeout(3);
        moveOrBlock(c, false, true, deadline, false);
    }

    private static void moveOrBlock(Client c, boolean fromHead, boolean toHead, long deadline, boolean lmove) {
        Args a = c.args();
        ListValue from = ListCommands.writeList(c, 1);
        if (from == null || from.size() == 0) {
            if (!c.mayBlock()) {
                c.reply().nullBulk();
                return;
            }
            List<byte[]> keys = new ArrayList<>(1);
            keys.add(a.copy(1));
            // Redis 7.0 answers a timed-out (or CLIENT UNBLOCKed) BLMOVE/BRPOPLPUSH as every
            // blocked list pop, with a null array (*-1 in RESP2), though the command's own empty
            // reply, in MULTI above, is a null bulk
            c.block(ValueType.LIST, keys, deadline, r -> r.nullArray());
            return;
        }
        ListValue to = ListCommands.writeList(c, 2);
        ListCommands.moveAndReply(c, c.db(), a.buf(1), a.off(1), a.len(1), from, a.buf(2), a.off(2), a.len(2), to,
                fromHead, toHead);
        if (!c.propagates()) return;
        if (lmove) c.propagateAs(LMOVE, a.copy(1), a.copy(2), a.copy(3), a.copy(4));
        else c.propagateAs(RPOPLPUSH, a.copy(1), a.copy(2));
    }
}
