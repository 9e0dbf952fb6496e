package io.spinel.core.keyspace;

import io.spinel.core.Client;
import io.spinel.core.Engine;
import io.spinel.core.Notify;
import io.spinel.core.command.Command;
import io.spinel.core.command.CommandError;
import io.spinel.core.command.CommandHandler;
import io.spinel.core.protocol.Args;
import io.spinel.core.protocol.Reply;
import io.spinel.core.type.hash.HashValue;
import io.spinel.core.type.list.ListValue;
import io.spinel.core.type.set.SetValue;
import io.spinel.core.type.zset.ZIter;
import io.spinel.core.type.zset.ZSet;
import io.spinel.core.util.Bytes;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * SORT and SORT_RO (Redis's sort.c): sorts a list, set or sorted set numerically or lexically,
 * optionally by external keys (BY pattern, with "->field" for hash fields, or "nosort"), returns
 * or stores the elements or external values (GET pattern, "#" for the element itself), with LIMIT.
 */
public final class SortCommand {
    private SortCommand() {
    }

    private static final byte[] SORTSTORE = Bytes.ascii("sortstore");

    /** The handler of each command CommandFamilies registers for this family, made when it first runs. */
    public static CommandHandler handler(String name) {
        return switch (name) {
            case "sort" -> c -> sort(c, false);
            case "sort_ro" -> c -> sort(c, true);
            default -> null;
        };
    }

    private static final java.util.List<String> READ = java.util.List.of("RO", "access");
    private static final java.util.List<String> STORE = java.util.List.of("OW", "update");

    /**
     * SORT's keys beyond its first (the STORE destination), for CommandFamilies; SORT_RO's are its
     * first argument only, as Redis's sortROGetKeys (a STORE there is a syntax error, which a
     * cluster node must answer rather than CROSSSLOT).
     */
    public static Command.KeysFinder keysFinder(String name) {
        return name.equals("sort_ro") ? SortCommand::firstKeyOnly : SortCommand::keys;
    }

    private static boolean firstKeyOnly(Args a, io.spinel.core.command.IntList out) {
        out.add(1);
        return true;
    }

    /** The sorted key is read, the STORE destination written (Redis's sortGetKeys); null for SORT_RO. */
    public static Command.KeyFlags keyFlags(String name) {
        return name.equals("sort") ? SortCommand::keyFlags : null;
    }

    private static List<String> keyFlags(Args a, int pos) {
        return pos == 1 ? READ : STORE;
    }

    /** The sorted key and, if given, the last STORE destination (skipping LIMIT/GET/BY arguments). */
    static boolean keys(Args a, io.spinel.core.command.IntList out) {
        out.add(1);
        int store = -1;
        for (int i = 2; i < a.count(); i++) {
            if (a.is(i, "limit")) i += 2;
            else if (a.is(i, "get") || a.is(i, "by")) i += 1;
            else if (a.is(i, "store") && i + 1 < a.count()) store = i + 1;
        }
        if (store > 0) out.add(store);
        return true;
    }

    private static final class Item {
        final byte[] element;
        double score;
        byte[] cmp;

        Item(byte[] element) {
            this.element = element;
        }
    }

    static void sort(Client c, boolean readonly) {
        Args a = c.args();
        boolean desc = false, alpha = false, dontsort = false;
        long limitStart = 0, limitCount = -1;
        byte[] sortBy = null, storeKey = null;
        List<byte[]> gets = new ArrayList<>();
        for (int j = 2; j < a.count(); j++) {
            int left = a.count() - j - 1;
            if (a.is(j, "asc")) {
                desc = false;
            } else if (a.is(j, "desc")) {
                desc = true;
            } else if (a.is(j, "alpha")) {
                alpha = true;
            } else if (a.is(j, "limit") && left >= 2) {
                limitStart = c.argLong(j + 1);
                limitCount = c.argLong(j + 2);
                j += 2;
            } else if (!readonly && a.is(j, "store") && left >= 1) {
                storeKey = a.copy(++j);
            } else if (a.is(j, "by") && left >= 1) {
                sortBy = a.copy(++j);
                if (indexOf(sortBy, (byte) '*') < 0) {
                    dontsort = true;
                } else if (!c.engine().mayReadEveryKey(c)) {
                    // a pattern reads keys the command does not name: only for who may read them all
                    throw CommandError.err("BY option of SORT denied due to insufficient ACL permissions.");
                }
            } else if (a.is(j, "get") && left >= 1) {
                if (!c.engine().mayReadEveryKey(c)) {
                    throw CommandError.err("GET option of SORT denied due to insufficient ACL permissions.");
                }
                gets.add(a.copy(++j));
            } else {
                throw CommandError.SYNTAX;
            }
        }
        Db db = c.db();
        Object e = db.lookupRead(a.buf(1), a.off(1), a.len(1), !c.noTouch());
        int type = e == null ? ValueType.LIST : Entries.type(e);
        if (type != ValueType.LIST && type != ValueType.SET && type != ValueType.ZSET) throw CommandError.WRONGTYPE;
        Value v = e == null ? null : (DbObject) e;
        if (dontsort && type == ValueType.SET && (storeKey != null || c.fromScript())) {
            // set order is not defined: make stored and scripted results deterministic
            dontsort = false;
            alpha = true;
            sortBy = null;
        }
        int vectorLen = v == null ? 0 : (int) v.size();
        long start = Math.min(Math.max(limitStart, 0), vectorLen);
        long count = Math.min(Math.max(limitCount, -1), vectorLen);
        long end = count < 0 ? vectorLen - 1 : start + count - 1;
        if (start >= vectorLen) {
            start = vectorLen - 1;
            end = vectorLen - 2;
        }
        if (end >= vectorLen) end = vectorLen - 1;

        List<Item> items = new ArrayList<>(Math.max(0, vectorLen));
        if (v instanceof ListValue) {
            ListValue l = (ListValue) v;
            if (dontsort) {
                if (end >= start) collectListRange(l, desc, start, end - start + 1, items);
                end -= start;
                start = 0;
            } else {
                l.forEach((buf, off, len) -> items.add(new Item(Arrays.copyOfRange(buf, off, off + len))));
            }
        } else if (v instanceof SetValue) {
            ((SetValue) v).forEachMember(m -> items.add(new Item(m)));
        } else if (v instanceof ZSet) {
            ZSet z = (ZSet) v;
            if (dontsort) {
                long n = end - start + 1;
                if (n > 0) {
                    ZIter it = desc ? z.atRank(z.size() - 1 - start) : z.atRank(start);
                    for (long i = 0; i < n && it.valid(); i++) {
                        items.add(new Item(it.member()));
                        if (desc) it.prev();
                        else it.next();
                    }
                }
                end -= start;
                start = 0;
            } else {
                for (ZIter it = z.first(); it.valid(); it.next()) items.add(new Item(it.member()));
            }
        }

        boolean conversionError = false;
        if (!dontsort) {
            for (Item it : items) {
                byte[] byval;
                if (sortBy != null) {
                    byval = lookupByPattern(c, db, sortBy, it.element);
                    if (byval == null) continue;
                } else {
                    byval = it.element;
                }
                if (alpha) {
                    if (sortBy != null) it.cmp = byval;
                } else {
                    double d = strtod(byval);
                    if (Double.isNaN(d)) conversionError = true;
                    else it.score = d;
                }
            }
            Comparator<Item> cmp = comparator(alpha, sortBy != null);
            if (desc) cmp = cmp.reversed();
            items.sort(cmp);
        }

        long outputLen = gets.isEmpty() ? end - start + 1 : gets.size() * (end - start + 1);
        if (outputLen < 0) outputLen = 0;
        if (conversionError) throw CommandError.err("One or more scores can't be converted into double");
        Reply r = c.reply();
        if (storeKey == null) {
            r.arrayHeader(outputLen);
            for (long j = start; j <= end; j++) {
                Item it = items.get((int) j);
                if (gets.isEmpty()) r.bulk(it.element);
                for (byte[] g : gets) {
                    byte[] val = lookupByPattern(c, db, g, it.element);
                    if (val == null) r.nullBulk();
                    else r.bulk(val);
                }
            }
            return;
        }
        ListValue out = new ListValue(c.engine().encodings().listMaxListpackSize);
        for (long j = start; j <= end; j++) {
            Item it = items.get((int) j);
            if (gets.isEmpty()) {
                out.pushTail(it.element, 0, it.element.length);
            } else {
                for (byte[] g : gets) {
                    byte[] val = lookupByPattern(c, db, g, it.element);
                    if (val == null) val = Bytes.EMPTY;
                    out.pushTail(val, 0, val.length);
                }
            }
        }
        Engine engine = c.engine();
        if (outputLen > 0) {
            db.put(storeKey, out.asEntry(storeKey, -1, engine.keyspace().newLru()));
            engine.keyModified(db, storeKey);
            engine.notify(Notify.LIST, "sortstore", db, storeKey);
            engine.dirty += outputLen;
        } else if (db.remove(storeKey) != null) {
            engine.keyModified(db, storeKey);
            engine.notify(Notify.GENERIC, "del", db, storeKey);
            engine.dirty++;
        }
        r.integer(outputLen);
    }

    private static void collectListRange(ListValue l, boolean desc, long start, long n, List<Item> items) {
        long size = l.size();
        long first = desc ? size - start - 1 : start;
        ListValue.Cursor cur = l.cursor(first);
        for (long i = 0; i < n; i++) {
            items.add(new Item(Arrays.copyOfRange(cur.array(), cur.offset(), cur.offset() + cur.length())));
            boolean more = desc ? cur.prev() : cur.next();
            if (!more) break;
        }
    }

    private static Comparator<Item> comparator(boolean alpha, boolean byPattern) {
        if (!alpha) {
            return (x, y) -> {
                if (x.score > y.score) return 1;
                if (x.score < y.score) return -1;
                return Bytes.compare(x.element, y.element);
            };
        }
        if (byPattern) {
            return (x, y) -> {
                if (x.cmp == null || y.cmp == null) {
                    if (x.cmp == y.cmp) return 0;
                    return x.cmp == null ? -1 : 1;
                }
                return Bytes.compare(x.cmp, y.cmp);
            };
        }
        return (x, y) -> Bytes.compare(x.element, y.element);
    }

    /**
     * strtod over the whole value as SORT parses scores: NaN on trailing garbage, overflow or NaN.
     * Leading blanks are C's isspace (space, \t, \n, \v, \f, \r), which strtod skips; read in
     * place, since SORT BY parses one value per element.
     */
    private static double strtod(byte[] b) {
        if (b.length == 0) return 0; // strtod consumes nothing and leaves no trailing characters
        int i = 0;
        while (i < b.length && isCSpace(b[i])) i++;
        if (i == b.length) return Double.NaN; // only blanks: nothing converted, blanks left over
        return io.spinel.core.util.Doubles.parseOrNaN(b, i, b.length - i);
    }

    private static boolean isCSpace(byte c) {
        return c == ' ' || (c >= '\t' && c <= '\r');
    }

    private static int indexOf(byte[] b, byte c) {
        for (int i = 0; i < b.length; i++) if (b[i] == c) return i;
        return -1;
    }

    private static int indexOf(byte[] b, int from, byte[] needle) {
        outer:
        for (int i = from; i <= b.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) if (b[i + j] != needle[j]) continue outer;
            return i;
        }
        return -1;
    }

    private static final byte[] ARROW = {'-', '>'};

    /**
     * Redis's lookupKeyByPattern: "#" is the element itself; otherwise the first '*' is replaced by
     * the element and the key read (a string), or with "->field" the field of the hash at the key.
     */
    static byte[] lookupByPattern(Client c, Db db, byte[] pattern, byte[] element) {
        if (pattern.length == 1 && pattern[0] == '#') return element;
        int star = indexOf(pattern, (byte) '*');
        if (star < 0) return null;
        int arrow = indexOf(pattern, star + 1, ARROW);
        byte[] field = null;
        int fieldLen = 0;
        if (arrow >= 0 && arrow + 2 < pattern.length) {
            field = Arrays.copyOfRange(pattern, arrow + 2, pattern.length);
            fieldLen = field.length;
        }
        int postfix = pattern.length - (star + 1) - (fieldLen > 0 ? fieldLen + 2 : 0);
        byte[] key = new byte[star + element.length + postfix];
        System.arraycopy(pattern, 0, key, 0, star);
        System.arraycopy(element, 0, key, star, element.length);
        System.arraycopy(pattern, star + 1, key, star + element.length, postfix);
        Object e = db.lookupRead(key, 0, key.length, true);
        if (e == null) return null;
        if (field != null) {
            if (Entries.type(e) != ValueType.HASH) return null;
            return ((HashValue) e).get(field, 0, field.length);
        }
        if (!(e instanceof byte[])) return null;
        return StringEntry.value((byte[]) e);
    }
}
