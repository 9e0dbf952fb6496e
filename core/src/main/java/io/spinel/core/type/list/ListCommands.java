package io.spinel.core.type.list;

import io.spinel.core.Client;
import io.spinel.core.Engine;
import io.spinel.core.Notify;
import io.spinel.core.command.CommandError;
import io.spinel.core.command.CommandHandler;
import io.spinel.core.keyspace.Db;
import io.spinel.core.keyspace.Entries;
import io.spinel.core.keyspace.ValueType;
import io.spinel.core.protocol.Args;
import io.spinel.core.protocol.Reply;
import io.spinel.core.util.Bytes;

/**
 * List commands (Redis's t_list.c), except the blocking ones.
 *
 * <p>The pop and move steps are public static methods taking the client to reply to, the database
 * and the key, so that the blocking commands (BLPOP, BRPOP, BLMPOP, BLMOVE, BRPOPLPUSH) can serve a
 * waiting client with exactly the behaviour of the non-blocking ones:
 * {@link #popAndReply}, {@link #popWithKeyAndReply}, {@link #popRangeWithKeyAndReply} and
 * {@link #moveAndReply}. Each one does the events, the deletion of an emptied list, the
 * modified-key signal and the dirty count; propagation is left to the caller.
 */
public final class ListCommands {
    private ListCommands() {
    }

    private static final byte[] LPOP = Bytes.ascii("LPOP");
    private static final byte[] RPOP = Bytes.ascii("RPOP");

    /** The handler of each command CommandFamilies registers for this family, made when it first runs. */
    public static CommandHandler handler(String name) {
        return switch (name) {
            case "lpush" -> c -> push(c, true, false);
            case "rpush" -> c -> push(c, false, false);
            case "lpushx" -> c -> push(c, true, true);
            case "rpushx" -> c -> push(c, false, true);
            case "linsert" -> ListCommands::linsert;
            case "llen" -> ListCommands::llen;
            case "lindex" -> ListCommands::lindex;
            case "lset" -> ListCommands::lset;
            case "lpop" -> c -> pop(c, true);
            case "rpop" -> c -> pop(c, false);
            case "lmpop" -> ListCommands::lmpop;
            case "lrange" -> ListCommands::lrange;
            case "ltrim" -> ListCommands::ltrim;
            case "lpos" -> ListCommands::lpos;
            case "lrem" -> ListCommands::lrem;
            case "lmove" -> ListCommands::lmove;
            case "rpoplpush" -> c -> move(c, false, true);
            default -> null;
        };
    }

    // ---- helpers ------------------------------------------------------------------------------

    /** The list at key argument i for reading, null if missing; WRONGTYPE if not a list. */
    private static ListValue readList(Client c, int i) {
        Args a = c.args();
        return (ListValue) Entries.valueOf(c.db().lookupRead(a.buf(i), a.off(i), a.len(i), !c.noTouch()),
                ValueType.LIST);
    }

    /** The list at key argument i for writing, null if missing; WRONGTYPE if not a list. */
    static ListValue writeList(Client c, int i) {
        Args a = c.args();
        return (ListValue) Entries.valueOf(c.db().lookupWrite(a.buf(i), a.off(i), a.len(i)), ValueType.LIST);
    }

    /** A new empty list stored under the key (the caller fills it before replying). */
    private static ListValue create(Client c, Db db, byte[] k, int off, int len) {
        ListValue l = new ListValue(c.engine().encodings().listMaxListpackSize);
        db.put(k, off, len, l.asEntry(Bytes.copy(k, off, len), -1, c.engine().keyspace().newLru()));
        return l;
    }

    private static void signal(Client c, Db db, int keyArg, String event) {
        Args a = c.args();
        Engine e = c.engine();
        e.keyModified(db, a.buf(keyArg), a.off(keyArg), a.len(keyArg));
        e.notify(Notify.LIST, event, db, a.buf(keyArg), a.off(keyArg), a.len(keyArg));
    }

    /** Deletes the key if its list is now empty, with the "del" event. Returns whether it did. */
    private static boolean deleteIfEmpty(Client c, Db db, ListValue l, byte[] k, int off, int len) {
        if (l.size() != 0) return false;
        db.remove(k, off, len);
        c.engine().notify(Notify.GENERIC, "del", db, k, off, len);
        return true;
    }

    /** Redis's getPositiveLongFromObjectOrReply / getRangeLongFromObjectOrReply with a message. */
    static long rangeArg(Client c, int i, long min, long max, String msg) {
        Args a = c.args();
        long v;
        try {
            v = Bytes.parseLong(a.buf(i), a.off(i), a.len(i));
        } catch (NumberFormatException e) {
            throw CommandError.err(msg);
        }
        if (v < min || v > max) throw CommandError.err(msg);
        return v;
    }

    /** LEFT / RIGHT: true for the head. */
    static boolean side(Client c, int i) {
        if (c.argIs(i, "left")) return true;
        if (c.argIs(i, "right")) return false;
        throw CommandError.SYNTAX;
    }

    /**
     * Housekeeping after elements were popped (Redis's listElementsRemoved): the lpop/rpop event,
     * deletion of an emptied list, the modified-key signal and the dirty count. Returns whether the
     * key was deleted.
     */
    private static boolean elementsRemoved(Client c, Db db, byte[] k, int off, int len, ListValue l,
                                           boolean head, long count) {
        Engine e = c.engine();
        e.notify(Notify.LIST, head ? "lpop" : "rpop", db, k, off, len);
        boolean deleted = deleteIfEmpty(c, db, l, k, off, len);
        e.keyModified(db, k, off, len);
        e.dirty += count;
        return deleted;
    }

    // ---- reusable pop and move steps (also for the blocking commands) -----------------------------

    /**
     * Pops one element from the head or tail of a non-empty list and replies with it as a bulk
     * string (LPOP/RPOP without a count). Returns whether the key was deleted because it emptied.
     */
    public static boolean popAndReply(Client c, Db db, byte[] k, int off, int len, ListValue l, boolean head) {
        l.popTo(head, c.reply());
        return elementsRemoved(c, db, k, off, len, l, head, 1);
    }

    /**
     * Pops one element from a non-empty list and replies {@code [key, element]} (BLPOP/BRPOP).
     * Returns whether the key was deleted because it emptied.
     */
    public static boolean popWithKeyAndReply(Client c, Db db, byte[] k, int off, int len, ListValue l,
                                             boolean head) {
        Reply r = c.reply();
        r.arrayHeader(2);
        r.bulk(k, off, len);
        l.popTo(head, r);
        return elementsRemoved(c, db, k, off, len, l, head, 1);
    }

    /**
     * Pops up to {@code count} (&gt; 0) elements from a non-empty list and replies
     * {@code [key, [elements...]]} (LMPOP/BLMPOP), elements in pop order. Returns how many were
     * popped: the count to propagate as {@code LPOP|RPOP key n}.
     */
    public static long popRangeWithKeyAndReply(Client c, Db db, byte[] k, int off, int len, ListValue l,
                                               boolean head, long count) {
        Reply r = c.reply();
        r.arrayHeader(2);
        r.bulk(k, off, len);
        long n = popRange(r, l, head, count);
        elementsRemoved(c, db, k, off, len, l, head, n);
        return n;
    }

    /** Replies with the array of up to count popped elements and removes them. */
    private static long popRange(Reply r, ListValue l, boolean head, long count) {
        long n = Math.min(count, l.size());
        r.arrayHeader(n);
        if (head) {
            l.replyRange(r, 0, n, false);
            l.deleteRange(0, n);
        } else {
            l.replyRange(r, l.size() - 1, n, true);
            l.deleteRange(l.size() - n, n);
        }
        return n;
    }

    /** Elements up to this size cross from list to list through a reused array. */
    private static final int MOVE_BUFFER_MAX = 64 * 1024;
    /** The reused array of {@link #moveAndReply}, per engine thread (it runs nothing else meanwhile). */
    private static final ThreadLocal<byte[][]> MOVE_BUFFER = ThreadLocal.withInitial(() -> new byte[][] {new byte[64]});

    private static byte[] moveBuffer(int len) {
        if (len > MOVE_BUFFER_MAX) return new byte[len];
        byte[][] holder = MOVE_BUFFER.get();
        if (holder[0].length < len) holder[0] = new byte[Math.max(len, Math.min(holder[0].length * 2, MOVE_BUFFER_MAX))];
        return holder[0];
    }

    /**
     * LMOVE's step: pops from the non-empty source list and pushes onto the destination (dst null:
     * created), replying with the element. The caller has checked that dst is a list or missing;
     * source and destination may be the same key. Returns whether the source key was deleted.
     */
    public static boolean moveAndReply(Client c, Db db, byte[] src, int srcOff, int srcLen, ListValue from,
                                       byte[] dst, int dstOff, int dstLen, ListValue to,
                                       boolean fromHead, boolean toHead) {
        Engine e = c.engine();
        int len = from.endLength(fromHead);
        byte[] v = moveBuffer(len);
        from.popInto(fromHead, v);
        if (to == null) to = create(c, db, dst, dstOff, dstLen);
        e.keyModified(db, dst, dstOff, dstLen);
        to.push(toHead, v, 0, len);
        e.notify(Notify.LIST, toHead ? "lpush" : "rpush", db, dst, dstOff, dstLen);
        c.reply().bulk(v, 0, len);
        e.notify(Notify.LIST, fromHead ? "lpop" : "rpop", db, src, srcOff, srcLen);
        boolean deleted = deleteIfEmpty(c, db, from, src, srcOff, srcLen);
        e.keyModified(db, src, srcOff, srcLen);
        e.dirty++;
        return deleted;
    }

    // ---- commands -----------------------------------------------------------------------------

    /** LPUSH / RPUSH / LPUSHX / RPUSHX key element [element ...] */
    static void push(Client c, boolean head, boolean onlyExisting) {
        Args a = c.args();
        Db db = c.db();
        ListValue l = writeList(c, 1);
        if (l == null) {
            if (onlyExisting) {
                c.reply().integer(0);
                return;
            }
            l = create(c, db, a.buf(1), a.off(1), a.len(1));
        }
        int argc = a.count();
        for (int j = 2; j < argc; j++) l.push(head, a.buf(j), a.off(j), a.len(j));
        c.engine().dirty += argc - 2;
        c.reply().integer(l.size());
        signal(c, db, 1, head ? "lpush" : "rpush");
    }

    /** LINSERT key BEFORE|AFTER pivot element */
    static void linsert(Client c) {
        boolean after;
        if (c.argIs(2, "after")) after = true;
        else if (c.argIs(2, "before")) after = false;
        else throw CommandError.SYNTAX;
        ListValue l = writeList(c, 1);
        if (l == null) {
            c.reply().integer(0);
            return;
        }
        Args a = c.args();
        if (!l.insert(after, a.buf(3), a.off(3), a.len(3), a.buf(4), a.off(4), a.len(4))) {
            c.reply().integer(-1);
            return;
        }
        signal(c, c.db(), 1, "linsert");
        c.engine().dirty++;
        c.reply().integer(l.size());
    }

    /** LLEN key */
    static void llen(Client c) {
        ListValue l = readList(c, 1);
        c.reply().integer(l == null ? 0 : l.size());
    }

    /** LINDEX key index */
    static void lindex(Client c) {
        ListValue l = readList(c, 1);
        if (l == null) {
            c.reply().nullBulk();
            return;
        }
        ListValue.Cursor cur = l.cursor(c.argLong(2));
        if (cur == null) c.reply().nullBulk();
        else c.reply().bulk(cur.array(), cur.offset(), cur.length());
    }

    /** LSET key index element */
    static void lset(Client c) {
        ListValue l = writeList(c, 1);
        if (l == null) throw CommandError.NO_SUCH_KEY;
        long index = c.argLong(2);
        Args a = c.args();
        if (!l.set(index, a.buf(3), a.off(3), a.len(3))) throw CommandError.OUT_OF_RANGE;
        c.reply().ok();
        signal(c, c.db(), 1, "lset");
        c.engine().dirty++;
    }

    /** LPOP / RPOP key [count] */
    static void pop(Client c, boolean head) {
        Args a = c.args();
        if (a.count() > 3) {
            throw new CommandError("ERR wrong number of arguments for '" + c.argString(0).toLowerCase() + "' command");
        }
        boolean hasCount = a.count() == 3;
        long count = hasCount ? rangeArg(c, 2, 0, Long.MAX_VALUE, "value is out of range, must be positive") : 0;
        ListValue l = writeList(c, 1);
        Reply r = c.reply();
        if (l == null) {
            if (hasCount) r.nullArray();
            else r.nullBulk();
            return;
        }
        if (hasCount && count == 0) {
            r.emptyArray();
            return;
        }
        Db db = c.db();
        if (!hasCount) {
            popAndReply(c, db, a.buf(1), a.off(1), a.len(1), l, head);
        } else {
            long n = popRange(r, l, head, count);
            elementsRemoved(c, db, a.buf(1), a.off(1), a.len(1), l, head, n);
        }
    }

    /** LMPOP numkeys key [key ...] LEFT|RIGHT [COUNT count] */
    static void lmpop(Client c) {
        Args a = c.args();
        int argc = a.count();
        long numkeys = rangeArg(c, 1, 1, Long.MAX_VALUE, "numkeys should be greater than 0");
        if (numkeys >= argc - 2) throw CommandError.SYNTAX; // LEFT|RIGHT would lie past the end
        int whereIdx = (int) numkeys + 2;
        boolean head = side(c, whereIdx);
        long count = -1;
        for (int j = whereIdx + 1; j < argc; j++) {
            if (count == -1 && a.is(j, "count") && j < argc - 1) {
                count = rangeArg(c, ++j, 1, Long.MAX_VALUE, "count should be greater than 0");
            } else {
                throw CommandError.SYNTAX;
            }
        }
        if (count == -1) count = 1;
        Db db = c.db();
        for (int k = 2; k < whereIdx; k++) {
            ListValue l = writeList(c, k);
            if (l == null || l.size() == 0) continue;
            long n = popRangeWithKeyAndReply(c, db, a.buf(k), a.off(k), a.len(k), l, head, count);
            if (c.propagates()) c.propagateAs(head ? LPOP : RPOP, a.copy(k), Bytes.longToBytes(n));
            return;
        }
        c.reply().nullArray();
    }

    /** LRANGE key start stop */
    static void lrange(Client c) {
        long start = c.argLong(2);
        long end = c.argLong(3);
        ListValue l = readList(c, 1);
        Reply r = c.reply();
        if (l == null) {
            r.emptyArray();
            return;
        }
        long llen = l.size();
        if (start < 0) start += llen;
        if (end < 0) end += llen;
        if (start < 0) start = 0;
        if (start > end || start >= llen) {
            r.emptyArray();
            return;
        }
        if (end >= llen) end = llen - 1;
        long n = end - start + 1;
        r.arrayHeader(n);
        l.replyRange(r, start, n, false);
    }

    /** LTRIM key start stop */
    static void ltrim(Client c) {
        long start = c.argLong(2);
        long end = c.argLong(3);
        ListValue l = writeList(c, 1);
        if (l == null) {
            c.reply().ok();
            return;
        }
        long llen = l.size();
        if (start < 0) start += llen;
        if (end < 0) end += llen;
        if (start < 0) start = 0;
        long ltrim;
        long rtrim;
        if (start > end || start >= llen) {
            ltrim = llen;
            rtrim = 0;
        } else {
            if (end >= llen) end = llen - 1;
            ltrim = start;
            rtrim = llen - end - 1;
        }
        l.deleteRange(0, ltrim);
        l.deleteRange(l.size() - rtrim, rtrim);
        Args a = c.args();
        Db db = c.db();
        Engine e = c.engine();
        e.notify(Notify.LIST, "ltrim", db, a.buf(1), a.off(1), a.len(1));
        deleteIfEmpty(c, db, l, a.buf(1), a.off(1), a.len(1));
        e.keyModified(db, a.buf(1), a.off(1), a.len(1));
        e.dirty += ltrim + rtrim;
        c.reply().ok();
    }

    /** LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len] */
    static void lpos(Client c) {
        Args a = c.args();
        int argc = a.count();
        long rank = 1;
        long count = -1;
        long maxlen = 0;
        for (int j = 3; j < argc; j++) {
            boolean more = j < argc - 1;
            if (a.is(j, "rank") && more) {
                rank = c.argLong(++j);
                if (rank == 0) {
                    throw CommandError.err("RANK can't be zero: use 1 to start from the first match, 2 from the "
                            + "second ... or use negative to start from the end of the list");
                }
            } else if (a.is(j, "count") && more) {
                count = rangeArg(c, ++j, 0, Long.MAX_VALUE, "COUNT can't be negative");
            } else if (a.is(j, "maxlen") && more) {
                maxlen = rangeArg(c, ++j, 0, Long.MAX_VALUE, "MAXLEN can't be negative");
            } else {
                throw CommandError.SYNTAX;
            }
        }
        boolean fromTail = rank < 0;
        // -LONG_MIN stays negative, as in Redis (two's complement): every match then counts as ranked
        if (fromTail) rank = -rank;
        Reply r = c.reply();
        ListValue l = (ListValue) Entries.valueOf(c.db().lookupRead(a.buf(1), a.off(1), a.len(1), !c.noTouch()),
                ValueType.LIST);
        if (l == null) {
            if (count != -1) r.emptyArray();
            else r.nullBulk();
            return;
        }
        int handle = count != -1 ? r.deferLength() : -1;
        long llen = l.size();
        long index = 0;
        long matches = 0;
        long matchIndex = -1;
        long arrayLen = 0;
        ListValue.Cursor cur = l.cursor(fromTail ? -1 : 0);
        byte[] ele = a.buf(2);
        int eOff = a.off(2);
        int eLen = a.len(2);
        boolean more = cur != null;
        while (more && (maxlen == 0 || index < maxlen)) {
            if (cur.equalTo(ele, eOff, eLen)) {
                matches++;
                matchIndex = fromTail ? llen - index - 1 : index;
                if (matches >= rank) {
                    if (handle >= 0) {
                        arrayLen++;
                        r.integer(matchIndex);
                        if (count != 0 && matches - rank + 1 >= count) break;
                    } else {
                        break;
                    }
                }
            }
            index++;
            matchIndex = -1;
            more = fromTail ? cur.prev() : cur.next();
        }
        if (handle >= 0) {
            r.setDeferredLength(handle, '*', arrayLen);
        } else if (matchIndex != -1) {
            r.integer(matchIndex);
        } else {
            r.nullBulk();
        }
    }

    /** LREM key count element */
    static void lrem(Client c) {
        long toRemove = c.argLong(2);
        ListValue l = writeList(c, 1);
        if (l == null) {
            c.reply().integer(0);
            return;
        }
        Args a = c.args();
        boolean fromTail = toRemove < 0;
        // |LONG_MIN| does not fit: like Redis, it then means "no limit"
        long limit = fromTail ? -toRemove : toRemove;
        long removed = l.remove(a.buf(3), a.off(3), a.len(3), limit, fromTail);
        Db db = c.db();
        if (removed > 0) {
            c.engine().dirty += removed;
            signal(c, db, 1, "lrem");
        }
        deleteIfEmpty(c, db, l, a.buf(1), a.off(1), a.len(1));
        c.reply().integer(removed);
    }

    /** LMOVE source destination LEFT|RIGHT LEFT|RIGHT */
    static void lmove(Client c) {
        boolean fromHead = side(c, 3);
        boolean toHead = side(c, 4);
        move(c, fromHead, toHead);
    }

    /** LMOVE / RPOPLPUSH after the sides are known (Redis's lmoveGenericCommand). */
    static void move(Client c, boolean fromHead, boolean toHead) {
        ListValue from = writeList(c, 1);
        if (from == null || from.size() == 0) {
            c.reply().nullBulk();
            return;
        }
        ListValue to = writeList(c, 2);
        Args a = c.args();
        moveAndReply(c, c.db(), a.buf(1), a.off(1), a.len(1), from, a.buf(2), a.off(2), a.len(2), to,
                fromHead, toHead);
    }
}
