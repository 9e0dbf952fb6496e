package io.spinel.core.type.set;

import io.spinel.core.Client;
import io.spinel.core.Engine;
import io.spinel.core.Notify;
import io.spinel.core.command.CommandError;
import io.spinel.core.command.CommandHandler;
import io.spinel.core.keyspace.Db;
import io.spinel.core.keyspace.Entries;
import io.spinel.core.keyspace.KeyCommands;
import io.spinel.core.keyspace.ValueType;
import io.spinel.core.protocol.Args;
import io.spinel.core.protocol.Reply;
import io.spinel.core.type.zset.SetInput;
import io.spinel.core.util.Bytes;

import java.util.Arrays;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.SplittableRandom;

/** Set commands (Redis's t_set.c) over {@link SetValue}. */
public final class SetCommands {
    private SetCommands() {
    }

    private static final SplittableRandom RANDOM = new SplittableRandom();
    private static final byte[] SREM = Bytes.ascii("SREM");
    private static final byte[] DEL = Bytes.ascii("DEL");
    private static final byte[] ZERO = {'0'};
    private static final CommandError COUNT_RANGE = CommandError.err(
            "value is out of range, value must between -9223372036854775807 and 9223372036854775807");
    private static final CommandError NOT_POSITIVE = CommandError.err("value is out of range, must be positive");

    /** The handler of each command CommandFamilies registers for this family, made when it first runs. */
    public static CommandHandler handler(String name) {
        return switch (name) {
            case "sadd" -> SetCommands::sadd;
            case "srem" -> SetCommands::srem;
            case "smove" -> SetCommands::smove;
            case "sismember" -> SetCommands::sismember;
            case "smismember" -> SetCommands::smismember;
            case "scard" -> SetCommands::scard;
            case "spop" -> SetCommands::spop;
            case "srandmember" -> SetCommands::srandmember;
            case "smembers" -> c -> sinter(c, 1, c.argc() - 1, -1, false, 0);
            case "sinter" -> c -> sinter(c, 1, c.argc() - 1, -1, false, 0);
            case "sinterstore" -> c -> sinter(c, 2, c.argc() - 2, 1, false, 0);
            case "sintercard" -> SetCommands::sintercard;
            case "sunion" -> c -> unionDiff(c, 1, c.argc() - 1, -1, false);
            case "sunionstore" -> c -> unionDiff(c, 2, c.argc() - 2, 1, false);
            case "sdiff" -> c -> unionDiff(c, 1, c.argc() - 1, -1, true);
            case "sdiffstore" -> c -> unionDiff(c, 2, c.argc() - 2, 1, true);
            case "sscan" -> SetCommands::sscan;
            default -> null;
        };
    }

    // ---- helpers ------------------------------------------------------------------------------

    private static SetValue readSet(Client c, int i) {
        Args a = c.args();
        Object e = c.db().lookupRead(a.buf(i), a.off(i), a.len(i), !c.noTouch());
        return (SetValue) Entries.valueOf(e, ValueType.SET);
    }

    private static SetValue writeSet(Client c, int i) {
        Args a = c.args();
        return (SetValue) Entries.valueOf(c.db().lookupWrite(a.buf(i), a.off(i), a.len(i)), ValueType.SET);
    }

    private static int maxIntset(Client c) {
        return c.engine().encodings().setMaxIntsetEntries;
    }

    private static void signal(Client c, int keyArg) {
        Args a = c.args();
        c.engine().keyModified(c.db(), a.buf(keyArg), a.off(keyArg), a.len(keyArg));
    }

    private static void notify(Client c, int type, String event, int keyArg) {
        Args a = c.args();
        c.engine().notify(type, event, c.db(), a.buf(keyArg), a.off(keyArg), a.len(keyArg));
    }

    private static void removeKey(Client c, int keyArg) {
        Args a = c.args();
        c.db().remove(a.buf(keyArg), a.off(keyArg), a.len(keyArg));
    }

    // ---- single-key writes --------------------------------------------------------------------

    static void sadd(Client c) {
        Args a = c.args();
        SetValue s = writeSet(c, 1);
        if (s == null) {
            s = SetValue.forFirstMember(a.buf(2), a.off(2), a.len(2));
            c.db().put(a.buf(1), a.off(1), a.len(1), s.asEntry(a.copy(1), -1, c.engine().keyspace().newLru()));
        }
        int max = maxIntset(c);
        int added = 0;
        if (a.count() - 2 >= PackedIndex.MANY_LOOKUPS) {
            SetBuilder adder = new SetBuilder(s, max); // duplicate checks through an index while packed
            for (int i = 2; i < a.count(); i++) {
                if (adder.add(a.buf(i), a.off(i), a.len(i))) added++;
            }
        } else {
            for (int i = 2; i < a.count(); i++) {
                if (s.add(a.buf(i), a.off(i), a.len(i), max)) added++;
            }
        }
        if (added > 0) {
            signal(c, 1);
            notify(c, Notify.SET, "sadd", 1);
        }
        c.engine().dirty += added;
        c.reply().integer(added);
    }

    static void srem(Client c) {
        Args a = c.args();
        SetValue s = writeSet(c, 1);
        if (s == null) {
            c.reply().integer(0);
            return;
        }
        int deleted = 0;
        boolean keyRemoved = false;
        if (s.isPacked() && s.length() >= PackedIndex.MIN_MEMBERS && a.count() - 2 >= PackedIndex.MANY_LOOKUPS) {
            deleted = removePacked(s, a);
            if (s.length() == 0) {
                removeKey(c, 1);
                keyRemoved = true;
            }
        } else {
            for (int i = 2; i < a.count(); i++) {
                if (s.remove(a.buf(i), a.off(i), a.len(i))) {
                    deleted++;
                    if (s.length() == 0) {
                        removeKey(c, 1);
                        keyRemoved = true;
                        break;
                    }
                }
            }
        }
        if (deleted > 0) {
            signal(c, 1);
            notify(c, Notify.SET, "srem", 1);
            if (keyRemoved) notify(c, Notify.GENERIC, "del", 1);
            c.engine().dirty += deleted;
        }
        c.reply().integer(deleted);
    }

    /**
     * SREM of many members from a packed set: each found through an index, then all removed in one
     * pass over the array (one at a time, each removal would scan and shift it).
     */
    private static int removePacked(SetValue s, Args a) {
        PackedIndex index = new PackedIndex(s);
        int[] positions = new int[a.count() - 2];
        int n = 0;
        for (int i = 2; i < a.count(); i++) {
            int pos = index.find(a.buf(i), a.off(i), a.len(i));
            if (pos >= 0) positions[n++] = pos;
        }
        Arrays.sort(positions, 0, n);
        int distinct = 0; // a member named twice is removed once
        for (int i = 0; i < n; i++) {
            if (distinct == 0 || positions[distinct - 1] != positions[i]) positions[distinct++] = positions[i];
        }
        return s.removePackedAt(positions, distinct);
    }

    static void smove(Client c) {
        Args a = c.args();
        Db db = c.db();
        Object srcEntry = db.lookupWrite(a.buf(1), a.off(1), a.len(1));
        Object dstEntry = db.lookupWrite(a.buf(2), a.off(2), a.len(2));
        if (srcEntry == null) {
            c.reply().integer(0);
            return;
        }
        SetValue src = (SetValue) Entries.valueOf(srcEntry, ValueType.SET);
        SetValue dst = (SetValue) Entries.valueOf(dstEntry, ValueType.SET);
        if (src == dst) {
            c.reply().integer(src.contains(a.buf(3), a.off(3), a.len(3)) ? 1 : 0);
            return;
        }
        if (!src.remove(a.buf(3), a.off(3), a.len(3))) {
            c.reply().integer(0);
            return;
        }
        notify(c, Notify.SET, "srem", 1);
        if (src.length() == 0) {
            removeKey(c, 1);
            notify(c, Notify.GENERIC, "del", 1);
        }
        if (dst == null) {
            dst = SetValue.forFirstMember(a.buf(3), a.off(3), a.len(3));
            db.put(a.buf(2), a.off(2), a.len(2), dst.asEntry(a.copy(2), -1, c.engine().keyspace().newLru()));
        }
        signal(c, 1);
        Engine engine = c.engine();
        engine.dirty++;
        if (dst.add(a.buf(3), a.off(3), a.len(3), maxIntset(c))) {
            engine.dirty++;
            signal(c, 2);
            notify(c, Notify.SET, "sadd", 2);
        }
        c.reply().integer(1);
    }

    // ---- single-key reads ---------------------------------------------------------------------

    static void sismember(Client c) {
        Args a = c.args();
        SetValue s = readSet(c, 1);
        c.reply().integer(s != null && s.contains(a.buf(2), a.off(2), a.len(2)) ? 1 : 0);
    }

    static void smismember(Client c) {
        Args a = c.args();
        SetValue s = readSet(c, 1);
        Reply r = c.reply();
        r.arrayHeader(a.count() - 2);
        if (s != null && s.isPacked() && s.length() >= PackedIndex.MIN_MEMBERS && a.count() - 2 >= PackedIndex.MANY_LOOKUPS) {
            PackedIndex index = new PackedIndex(s);
            for (int i = 2; i < a.count(); i++) r.integer(index.contains(a.buf(i), a.off(i), a.len(i)) ? 1 : 0);
            return;
        }
        for (int i = 2; i < a.count(); i++) r.integer(s != null && s.contains(a.buf(i), a.off(i), a.len(i)) ? 1 : 0);
    }

    static void scard(Client c) {
        SetValue s = readSet(c, 1);
        c.reply().integer(s == null ? 0 : s.length());
    }

    // ---- SPOP ---------------------------------------------------------------------------------

    /** A uniformly random member as bytes (formatted if an integer). */
    private static byte[] randomMember(SetValue s) {
        if (s.isIntset()) return Bytes.longToBytes(s.intAt(RANDOM.nextInt(s.length())));
        return s.randomMember(RANDOM);
    }

    static void spop(Client c) {
        Args a = c.args();
        if (a.count() == 3) {
            spopWithCount(c);
            return;
        } else if (a.count() > 3) {
            throw CommandError.SYNTAX;
        }
        SetValue s = writeSet(c, 1);
        Reply r = c.reply();
        if (s == null) {
            r.nullBulk();
            return;
        }
        byte[] m = randomMember(s);
        s.remove(m, 0, m.length);
        notify(c, Notify.SET, "spop", 1);
        if (c.propagates()) c.propagateAs(SREM, a.copy(1), m);
        r.bulk(m);
        if (s.length() == 0) {
            removeKey(c, 1);
            notify(c, Notify.GENERIC, "del", 1);
        }
        signal(c, 1);
        c.engine().dirty++;
    }

    /**
     * SPOP with a count, with Redis's three strategies (their choice shows in the encoding of
     * what is left): the whole set; random pops; or, when few members remain, picking the
     * survivors into a new set and returning everything else.
     */
    private static void spopWithCount(Client c) {
        Args a = c.args();
        long count = c.argLong(2, NOT_POSITIVE);
        if (count < 0) throw NOT_POSITIVE;
        Object entry = c.db().lookupWrite(a.buf(1), a.off(1), a.len(1));
        SetValue s = (SetValue) Entries.valueOf(entry, ValueType.SET);
        Reply r = c.reply();
        if (s == null || count == 0) {
            r.setHeader(0);
            return;
        }
        long size = s.length();
        notify(c, Notify.SET, "spop", 1);
        c.engine().dirty += Math.min(count, size);
        if (count >= size) {
            replySet(r, union(new SetValue[] {s}, maxIntset(c)));
            removeKey(c, 1);
            notify(c, Notify.GENERIC, "del", 1);
            if (c.propagates()) c.propagateAs(DEL, a.copy(1));
            signal(c, 1);
            return;
        }
        r.setHeader(count);
        int n = (int) count;
        int remaining = (int) (size - count);
        byte[][] prop = new byte[2 + n][];
        prop[0] = SREM;
        prop[1] = a.copy(1);
        int np = 2;
        if (remaining * 5L > count) {
            for (int i = 0; i < n; i++) {
                byte[] m = randomMember(s);
                r.bulk(m);
                s.remove(m, 0, m.length);
                prop[np++] = m;
            }
        } else {
            int max = maxIntset(c);
            SetValue kept = null;
            for (int i = 0; i < remaining; i++) {
                byte[] m = randomMember(s);
                if (kept == null) kept = SetValue.forFirstMember(m, 0, m.length);
                kept.addShared(m, max);
                s.remove(m, 0, m.length);
            }
            final int[] at = {np};
            s.forEachMember(m -> {
                r.bulk(m);
                prop[at[0]++] = m;
            });
            s.takeMembersOf(kept);
        }
        // one SREM per member, which the engine wraps in MULTI/EXEC, as Redis propagates it
        c.preventPropagation();
        for (int i = 2; i < prop.length; i++) c.engine().propagate(c.db().id(), new byte[][] {SREM, prop[1], prop[i]});
        signal(c, 1);
    }

    // ---- SRANDMEMBER --------------------------------------------------------------------------

    static void srandmember(Client c) {
        Args a = c.args();
        if (a.count() == 3) {
            srandmemberWithCount(c);
            return;
        } else if (a.count() > 3) {
            throw CommandError.SYNTAX;
        }
        SetValue s = readSet(c, 1);
        if (s == null) c.reply().nullBulk();
        else if (s.isIntset()) c.reply().bulkLong(s.intAt(RANDOM.nextInt(s.length())));
        else s.replyRandomMember(c.reply(), RANDOM);
    }

    private static void srandmemberWithCount(Client c) {
        long l = c.argLong(2);
        if (l == Long.MIN_VALUE) throw COUNT_RANGE;
        boolean unique = l >= 0;
        long count = unique ? l : -l;
        SetValue s = readSet(c, 1);
        Reply r = c.reply();
        if (s == null || count == 0) {
            r.arrayHeader(0);
            return;
        }
        int size = s.length();
        if (!unique || count == 1) {
            r.arrayHeader(count);
            if (s.isIntset()) {
                for (long i = 0; i < count && !c.closingAsap(); i++) r.bulkLong(s.intAt(RANDOM.nextInt(size)));
            } else {
                for (long i = 0; i < count && !c.closingAsap(); i++) s.replyRandomMember(r, RANDOM);
            }
            return;
        }
        if (count >= size) {
            r.arrayHeader(size);
            s.replyAll(r);
            return;
        }
        int n = (int) count;
        r.arrayHeader(n);
        if (s.isIntset()) {
            int[] idx = new int[size];
            for (int i = 0; i < size; i++) idx[i] = i;
            for (int i = 0; i < n; i++) {
                int j = i + RANDOM.nextInt(size - i);
                int x = idx[i];
                idx[i] = idx[j];
                idx[j] = x;
                r.bulkLong(s.intAt(idx[i]));
            }
        } else if (count * 3 > size || s.isPacked()) {
            // close to the whole set (or a small packed one, whose random picks are fresh arrays
            // the identity check below cannot tell apart): shuffle a snapshot rather than retry
            // duplicate picks
            Object[] all = s.members();
            for (int i = 0; i < n; i++) {
                int j = i + RANDOM.nextInt(all.length - i);
                Object x = all[i];
                all[i] = all[j];
                all[j] = x;
                r.bulk((byte[]) all[i]);
            }
        } else {
            IdentityHashMap<Object, Boolean> seen = new IdentityHashMap<>(n * 2);
            while (seen.size() < n) {
                byte[] m = s.randomMember(RANDOM);
                if (seen.put(m, Boolean.TRUE) == null) r.bulk(m);
            }
        }
    }

    // ---- intersection -------------------------------------------------------------------------

    static void sintercard(Client c) {
        Args a = c.args();
        long numkeys = c.argLong(1, CommandError.err("numkeys should be greater than 0"));
        if (numkeys < 1) throw CommandError.err("numkeys should be greater than 0");
        if (numkeys > a.count() - 2) throw CommandError.err("Number of keys can't be greater than number of args");
        long limit = 0;
        for (int j = 2 + (int) numkeys; j < a.count(); j++) {
            if (a.is(j, "limit") && j < a.count() - 1) {
                j++;
                limit = c.argLong(j, CommandError.err("LIMIT can't be negative"));
                if (limit < 0) throw CommandError.err("LIMIT can't be negative");
            } else {
                throw CommandError.SYNTAX;
            }
        }
        sinter(c, 2, (int) numkeys, -1, true, limit);
    }

    /**
     * SINTER, SMEMBERS, SINTERSTORE (dstArg >= 0) and SINTERCARD (cardinalityOnly): Redis's
     * sinterGenericCommand. Members of the smallest set are tested against the others.
     */
    /** SMEMBERS (and SINTER of one key): straight from the encoding, without a snapshot of the members. */
    private static void members(Client c, int keyArg) {
        SetValue s = readSet(c, keyArg);
        Reply r = c.reply();
        if (s == null) {
            r.setHeader(0);
            return;
        }
        r.setHeader(s.length());
        s.replyAll(r);
    }

    static void sinter(Client c, int firstKey, int numKeys, int dstArg, boolean cardinalityOnly, long limit) {
        if (numKeys == 1 && dstArg < 0 && !cardinalityOnly) {
            members(c, firstKey);
            return;
        }
        SetValue[] sets = new SetValue[numKeys];
        boolean empty = false;
        for (int j = 0; j < numKeys; j++) {
            sets[j] = readSet(c, firstKey + j);
            if (sets[j] == null) empty = true;
        }
        Reply r = c.reply();
        if (empty) {
            if (dstArg >= 0) {
                deleteDestination(c, dstArg);
                r.integer(0);
            } else if (cardinalityOnly) {
                r.integer(0);
            } else {
                r.setHeader(0);
            }
            return;
        }
        // stable, like the merge sort behind glibc's qsort: equal sizes keep their key order
        Arrays.sort(sets, Comparator.comparingInt(SetValue::length));
        SetValue first = sets[0];
        Intersection x = new Intersection(sets, dstArg >= 0 ? new SetBuilder(maxIntset(c)) : null,
                cardinalityOnly ? null : r, limit);
        int handle = x.dst == null && !cardinalityOnly ? r.deferLength() : -1;
        if (first.isIntset()) {
            int n = first.length();
            for (int i = 0; i < n; i++) {
                if (!x.offerInt(first.intAt(i))) break;
            }
        } else if (first.isPacked()) {
            first.packedWhile(x::offer);
        } else {
            for (Object o : first.members()) {
                if (!x.offerShared((byte[]) o)) break;
            }
        }
        if (cardinalityOnly) {
            r.integer(x.cardinality);
        } else if (x.dst != null) {
            store(c, dstArg, x.dst.result(), "sinterstore");
        } else {
            r.setDeferredLength(handle, '~', x.cardinality);
        }
    }

    /**
     * What SINTER and its forms do with each member of the smallest set: keep it if every other
     * set has it, then count it, reply with it or add it to the destination.
     */
    private static final class Intersection {
        final SetValue[] sets;
        final PackedIndex.Probes probes;
        final SetBuilder dst;
        final Reply reply; // null: count only
        final long limit;
        long cardinality;

        Intersection(SetValue[] sets, SetBuilder dst, Reply reply, long limit) {
            this.sets = sets;
            this.probes = new PackedIndex.Probes(sets);
            this.dst = dst;
            this.reply = reply;
            this.limit = limit;
        }

        private boolean inAllOthers(byte[] b, int off, int len) {
            for (int j = 1; j < sets.length; j++) {
                if (sets[j] != sets[0] && !probes.contains(j, b, off, len)) return false;
            }
            return true;
        }

        /** Returns false once SINTERCARD's limit is reached. */
        boolean offer(byte[] b, int off, int len) {
            if (!inAllOthers(b, off, len)) return true;
            if (reply == null && dst == null) return ++cardinality != limit;
            if (dst != null) dst.add(b, off, len);
            else {
                reply.bulk(b, off, len);
                cardinality++;
            }
            return true;
        }

        boolean offerShared(byte[] m) {
            if (dst == null) return offer(m, 0, m.length);
            if (inAllOthers(m, 0, m.length)) dst.addShared(m);
            return true;
        }

        boolean offerInt(long v) {
            for (int j = 1; j < sets.length; j++) {
                if (sets[j] != sets[0] && !sets[j].containsInt(v)) return true;
            }
            if (reply == null && dst == null) return ++cardinality != limit;
            if (dst != null) dst.addInt(v);
            else {
                reply.bulkLong(v);
                cardinality++;
            }
            return true;
        }
    }

    /** Replaces the destination with the result, or deletes it when the result is empty. */
    private static void store(Client c, int dstArg, SetValue result, String event) {
        Args a = c.args();
        Reply r = c.reply();
        if (result.length() > 0) {
            c.db().put(a.buf(dstArg), a.off(dstArg), a.len(dstArg),
                    result.asEntry(a.copy(dstArg), -1, c.engine().keyspace().newLru()));
            signal(c, dstArg);
            r.integer(result.length());
            notify(c, Notify.SET, event, dstArg);
            c.engine().dirty++;
        } else {
            r.integer(0);
            deleteDestination(c, dstArg);
        }
    }

    private static void deleteDestination(Client c, int dstArg) {
        Args a = c.args();
        if (c.db().remove(a.buf(dstArg), a.off(dstArg), a.len(dstArg)) != null) {
            signal(c, dstArg);
            notify(c, Notify.GENERIC, "del", dstArg);
            c.engine().dirty++;
        }
    }

    // ---- union and difference -----------------------------------------------------------------

    /** The union, built as Redis builds it: an intset that converts as members come in. */
    private static SetValue union(SetValue[] sets, int max) {
        SetBuilder dst = new SetBuilder(max);
        for (SetValue s : sets) {
            if (s != null) dst.addAll(s);
        }
        return dst.result();
    }

    /**
     * SUNION, SDIFF and their STORE forms: Redis's sunionDiffGenericCommand, including its choice
     * between two difference algorithms, which decides the encoding of the result.
     */
    static void unionDiff(Client c, int firstKey, int numKeys, int dstArg, boolean diff) {
        SetValue[] sets = new SetValue[numKeys];
        boolean sameSet = false;
        for (int j = 0; j < numKeys; j++) {
            sets[j] = readSet(c, firstKey + j);
            if (j > 0 && sets[j] != null && sets[j] == sets[0]) sameSet = true;
        }
        int max = maxIntset(c);
        SetValue dst;
        if (!diff) {
            dst = union(sets, max);
        } else {
            SetBuilder b = new SetBuilder(max);
            if (sets[0] != null && !sameSet) difference(sets, b);
            dst = b.result();
        }
        if (dstArg < 0) {
            replySet(c.reply(), dst);
        } else {
            store(c, dstArg, dst, diff ? "sdiffstore" : "sunionstore");
        }
    }

    private static void difference(SetValue[] sets, SetBuilder dst) {
        long algoOne = 0, algoTwo = 0;
        for (SetValue s : sets) {
            if (s == null) continue;
            algoOne += sets[0].length();
            algoTwo += s.length();
        }
        // the first algorithm has better constants and stops early on common members
        algoOne /= 2;
        if (algoOne <= algoTwo) {
            if (sets.length > 1) {
                // subtracting the largest sets first finds the common members sooner
                Arrays.sort(sets, 1, sets.length,
                        Comparator.comparingInt((SetValue s) -> s == null ? 0 : s.length()).reversed());
            }
            SetValue first = sets[0];
            PackedIndex.Probes probes = new PackedIndex.Probes(sets);
            if (first.isIntset()) {
                int n = first.length();
                for (int i = 0; i < n; i++) {
                    long v = first.intAt(i);
                    if (!inAnyOther(sets, v)) dst.addInt(v);
                }
            } else if (first.isPacked()) {
                first.packedWhile((b, off, len) -> {
                    if (!inAnyOther(probes, sets.length, b, off, len)) dst.add(b, off, len);
                    return true;
                });
            } else {
                for (Object o : first.members()) {
                    byte[] m = (byte[]) o;
                    if (!inAnyOther(probes, sets.length, m, 0, m.length)) dst.addShared(m);
                }
            }
            return;
        }
        // second algorithm: everything in the first set, minus each member of the others
        dst.addAll(sets[0]);
        for (int j = 1; j < sets.length && dst.length() > 0; j++) {
            SetValue s = sets[j];
            if (s == null) continue;
            if (s.isIntset()) {
                int n = s.length();
                for (int i = 0; i < n; i++) dst.removeInt(s.intAt(i));
            } else {
                for (Object o : s.members()) {
                    byte[] m = (byte[]) o;
                    dst.remove(m, 0, m.length);
                }
            }
        }
    }

    private static boolean inAnyOther(SetValue[] sets, long v) {
        for (int j = 1; j < sets.length; j++) {
            if (sets[j] != null && sets[j].containsInt(v)) return true;
        }
        return false;
    }

    private static boolean inAnyOther(PackedIndex.Probes probes, int n, byte[] b, int off, int len) {
        for (int j = 1; j < n; j++) {
            if (probes.contains(j, b, off, len)) return true;
        }
        return false;
    }

    private static void replySet(Reply r, SetValue s) {
        r.setHeader(s.length());
        s.replyAll(r);
    }

    // ---- SSCAN --------------------------------------------------------------------------------

    /** SSCAN's writer of a small set's matching members (one per engine thread, see sscan). */
    private static final class ScanReplier implements SetInput.MemberVisitor {
        Reply r;
        KeyCommands.ScanOptions o;
        long written;

        @Override
        public void member(byte[] b, int off, int len) {
            if (!o.matches(b, off, len)) return;
            r.bulk(b, off, len);
            written++;
        }
    }

    private static final ThreadLocal<ScanReplier> SCAN_REPLIER = ThreadLocal.withInitial(ScanReplier::new);

    static void sscan(Client c) {
        long cursor = KeyCommands.parseCursor(c, 2);
        SetValue s = readSet(c, 1);
        Reply r = c.reply();
        if (s == null) {
            KeyCommands.replyEmptyScan(r);
            return;
        }
        KeyCommands.ScanOptions o = KeyCommands.parseScanOptions(c, 3, false);
        if (s.isIntset() || s.isPacked()) {
            // small encodings are returned whole, with cursor 0, as Redis does; the count of
            // matches is filled in afterwards
            KeyCommands.replyCursor(r, 0);
            int count = r.deferLength();
            ScanReplier w = SCAN_REPLIER.get();
            w.r = r;
            w.o = o;
            w.written = 0;
            s.forEachMember(w);
            r.setDeferredLength(count, '*', w.written);
            w.r = null;
            return;
        }
        long maxIterations = o.count > Long.MAX_VALUE / 10 ? Long.MAX_VALUE : o.count * 10;
        KeyCommands.ScanBuffer found = KeyCommands.scanBuffer();
        MemberTable t = s.table();
        do {
            cursor = t.scan(cursor, found);
        } while (cursor != 0 && maxIterations-- > 0 && found.size() < o.count);
        int matched = 0;
        for (int i = 0; i < found.size(); i++) {
            byte[] m = (byte[]) found.get(i);
            if (o.matches(m, 0, m.length)) found.set(matched++, m);
        }
        KeyCommands.replyCursor(r, cursor);
        r.arrayHeader(matched);
        for (int i = 0; i < matched; i++) r.bulk((byte[]) found.get(i));
        found.clear();
    }
}
