package io.spinel.core.type.bitmap;

import io.spinel.core.Client;
import io.spinel.core.Engine;
import io.spinel.core.Notify;
import io.spinel.core.command.Command;
import io.spinel.core.command.CommandError;
import io.spinel.core.command.CommandHandler;
import io.spinel.core.keyspace.Db;
import io.spinel.core.keyspace.StringEntry;
import io.spinel.core.protocol.Args;
import io.spinel.core.protocol.Reply;
import io.spinel.core.util.Bytes;

import java.util.Arrays;
import java.util.List;

/**
 * Bitmap commands (Redis's bitops.c): SETBIT, GETBIT, BITCOUNT, BITPOS, BITOP, BITFIELD and
 * BITFIELD_RO over string values. Writes edit the bytes inside the key's {@link StringEntry} (made
 * RAW first, as Redis unshares the string), growing it zero-padded as SETRANGE does.
 *
 * <p>Offsets go up to proto-max-bulk-len bytes as in Redis; past what a Java array can hold (just
 * under 2 GB) the command fails with Redis's "string exceeds maximum allowed size" instead.
 */
public final class BitmapCommands {
    private BitmapCommands() {
    }

    private static final CommandError BAD_OFFSET = CommandError.err("bit offset is not an integer or out of range");
    private static final CommandError BAD_BIT = CommandError.err("bit is not an integer or out of range");
    private static final CommandError TOO_BIG =
            CommandError.err("string exceeds maximum allowed size (proto-max-bulk-len)");
    private static final CommandError BAD_TYPE = CommandError.err(
            "Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.");

    /** The handler of each command CommandFamilies registers for this family, made when it first runs. */
    public static CommandHandler handler(String name) {
        return switch (name) {
            case "setbit" -> BitmapCommands::setbit;
            case "getbit" -> BitmapCommands::getbit;
            case "bitcount" -> BitmapCommands::bitcount;
            case "bitpos" -> BitmapCommands::bitpos;
            case "bitop" -> BitmapCommands::bitop;
            case "bitfield" -> c -> bitfield(c, false);
            case "bitfield_ro" -> c -> bitfield(c, true);
            default -> null;
        };
    }

    // ---- helpers ------------------------------------------------------------------------------------

    /**
     * A bit offset argument (getBitOffsetFromArgument): a non-negative integer whose byte is below
     * proto-max-bulk-len; with {@code bits} &gt; 0 also "#N", meaning N * bits.
     */
    private static long bitOffset(Client c, int i, int bits) {
        Args a = c.args();
        byte[] b = a.buf(i);
        int off = a.off(i), len = a.len(i);
        boolean hash = bits > 0 && len > 0 && b[off] == '#';
        long offset;
        try {
            offset = hash ? Bytes.parseLong(b, off + 1, len - 1) : Bytes.parseLong(b, off, len);
        } catch (NumberFormatException e) {
            throw BAD_OFFSET;
        }
        if (hash) offset *= bits;
        if (offset < 0 || (offset >> 3) >= c.engine().protoMaxBulkLen()) throw BAD_OFFSET;
        return offset;
    }

    /** The string bytes of a readable entry: a slice of the entry, or the decimal text of an INT. */
    private static final class Slice {
        byte[] buf;
        int off;
        int len;

        Slice of(byte[] e) {
            if (StringEntry.isInt(e)) {
                buf = Bytes.longToBytes(StringEntry.intValue(e));
                off = 0;
                len = buf.length;
            } else {
                buf = e;
                off = StringEntry.valueOffset(e);
                len = StringEntry.valueLength(e);
            }
            return this;
        }
    }

    private static byte[] readString(Client c, int i) {
        Args a = c.args();
        Object o = c.db().lookupRead(a.buf(i), a.off(i), a.len(i), !c.noTouch());
        if (o != null && !(o instanceof byte[])) throw CommandError.WRONGTYPE;
        return (byte[]) o;
    }

    /**
     * Redis's lookupStringForBitCommand: the key's string as a RAW entry at least {@code bytes}
     * long, created or zero-padded as needed (and stored). {@code o} is the result of lookupWrite.
     */
    private static byte[] stringForWrite(Client c, Object o, long bytes) {
        if (o != null && !(o instanceof byte[])) throw CommandError.WRONGTYPE;
        Args a = c.args();
        if (bytes > StringEntry.maxValueLength(a.len(1))) throw TOO_BIG;
        int need = (int) bytes;
        byte[] e;
        if (o == null) {
            e = StringEntry.createRaw(a.buf(1), a.off(1), a.len(1), Bytes.EMPTY, 0, 0, need, -1,
                    c.engine().keyspace().newLru());
            e = StringEntry.resizeRaw(e, need, 0);
        } else {
            byte[] old = (byte[]) o;
            e = StringEntry.toRaw(old);
            int len = StringEntry.valueLength(e);
            if (need > len) {
                byte[] n = StringEntry.resizeRaw(e, need, len);
                // room reused in place may hold old bytes
                if (n == e) Arrays.fill(n, StringEntry.valueOffset(n) + len, StringEntry.valueOffset(n) + need, (byte) 0);
                e = n;
            }
            if (e == old) return e;
        }
        c.db().put(a.buf(1), a.off(1), a.len(1), e);
        return e;
    }

    private static void modified(Client c, String event, int changes) {
        Args a = c.args();
        Engine engine = c.engine();
        engine.keyModified(c.db(), a.buf(1), a.off(1), a.len(1));
        engine.notify(Notify.STRING, event, c.db(), a.buf(1), a.off(1), a.len(1));
        engine.dirty += changes;
    }

    // ---- SETBIT / GETBIT ----------------------------------------------------------------------------

    static void setbit(Client c) {
        long offset = bitOffset(c, 2, 0);
        long on = c.argLong(3, BAD_BIT);
        if ((on & ~1L) != 0) throw BAD_BIT;
        Args a = c.args();
        Object o = c.db().lookupWrite(a.buf(1), a.off(1), a.len(1));
        long need = (offset >>> 3) + 1;
        boolean grown = o == null || (o instanceof byte[] && StringEntry.valueLength((byte[]) o) < need);
        byte[] e = stringForWrite(c, o, need);
        int p = StringEntry.valueOffset(e) + (int) (offset >>> 3);
        int bit = 7 - (int) (offset & 7);
        int old = (e[p] >>> bit) & 1;
        if (grown || old != on) {
            e[p] = (byte) ((e[p] & ~(1 << bit)) | ((int) on << bit));
            modified(c, "setbit", 1);
        }
        c.reply().integer(old);
    }

    static void getbit(Client c) {
        long offset = bitOffset(c, 2, 0);
        byte[] e = readString(c, 1);
        int bitval = 0;
        if (e != null) {
            Slice s = new Slice().of(e);
            long byteIndex = offset >>> 3;
            if (byteIndex < s.len) bitval = (s.buf[s.off + (int) byteIndex] >>> (7 - (int) (offset & 7))) & 1;
        }
        c.reply().integer(bitval);
    }

    // ---- BITCOUNT / BITPOS ----------------------------------------------------------------------------

    static void bitcount(Client c) {
        byte[] e = readString(c, 1);
        Reply r = c.reply();
        if (e == null) {
            r.integer(0);
            return;
        }
        Slice s = new Slice().of(e);
        Args a = c.args();
        int argc = a.count();
        long start, end;
        if (argc == 4 || argc == 5) {
            start = c.argLong(2);
            end = c.argLong(3);
            if (start < 0 && end < 0 && start > end) {
                r.integer(0);
                return;
            }
            boolean isBit = false;
            if (argc == 5) {
                if (a.is(4, "bit")) isBit = true;
                else if (!a.is(4, "byte")) throw CommandError.SYNTAX;
            }
            long total = isBit ? (long) s.len << 3 : s.len;
            if (start < 0) start += total;
            if (end < 0) end += total;
            if (start < 0) start = 0;
            if (end < 0) end = 0;
            if (end >= total) end = total - 1;
            if (start > end) {
                r.integer(0);
                return;
            }
            if (isBit) {
                r.integer(countBits(s, start, end));
                return;
            }
        } else if (argc == 2) {
            start = 0;
            end = s.len - 1;
        } else {
            throw CommandError.SYNTAX;
        }
        r.integer(start > end ? 0 : Bits.popcount(s.buf, s.off + (int) start, (int) (end - start + 1)));
    }

    /** Bits set between bit positions start and end inclusive (both within the string). */
    private static long countBits(Slice s, long start, long end) {
        int first = (int) (start >>> 3), last = (int) (end >>> 3);
        long n = Bits.popcount(s.buf, s.off + first, last - first + 1);
        // take back the bits of the edge bytes that lie outside the range
        n -= Integer.bitCount((s.buf[s.off + first] & 0xff) >>> (8 - (start & 7)));
        n -= Integer.bitCount(s.buf[s.off + last] & ((1 << (7 - (end & 7))) - 1));
        return n;
    }

    static void bitpos(Client c) {
        long bit = c.argLong(2);
        if (bit != 0 && bit != 1) throw CommandError.err("The bit argument must be 1 or 0.");
        byte[] e = readString(c, 1);
        Reply r = c.reply();
        if (e == null) {
            r.integer(bit == 1 ? -1 : 0);
            return;
        }
        Slice s = new Slice().of(e);
        Args a = c.args();
        int argc = a.count();
        long start, end;
        boolean isBit = false, endGiven = false;
        if (argc >= 4 && argc <= 6) {
            start = c.argLong(3);
            if (argc == 6) {
                if (a.is(5, "bit")) isBit = true;
                else if (!a.is(5, "byte")) throw CommandError.SYNTAX;
            }
            if (argc >= 5) {
                end = c.argLong(4);
                endGiven = true;
            } else {
                end = s.len - 1;
            }
            long total = isBit ? (long) s.len << 3 : s.len;
            if (start < 0) start += total;
            if (end < 0) end += total;
            if (start < 0) start = 0;
            if (end < 0) end = 0;
            if (end >= total) end = total - 1;
        } else if (argc == 3) {
            start = 0;
            end = s.len - 1;
        } else {
            throw CommandError.SYNTAX;
        }
        if (start > end) {
            r.integer(-1);
            return;
        }
        long fromBit = isBit ? start : start << 3;
        long toBit = isBit ? end : (end << 3) + 7;
        long pos = Bits.find(s.buf, s.off, fromBit, toBit, (int) bit);
        if (pos < 0 && bit == 0 && !endGiven) {
            // without an explicit end the string counts as padded with zeros on the right
            pos = toBit + 1;
        }
        r.integer(pos);
    }

    // ---- BITOP ----------------------------------------------------------------------------------------

    private static final int AND = 0, OR = 1, XOR = 2, NOT = 3;

    static void bitop(Client c) {
        Args a = c.args();
        int op;
        if (a.is(1, "and")) op = AND;
        else if (a.is(1, "or")) op = OR;
        else if (a.is(1, "xor")) op = XOR;
        else if (a.is(1, "not")) op = NOT;
        else throw CommandError.SYNTAX;
        int argc = a.count();
        if (op == NOT && argc != 4) throw CommandError.err("BITOP NOT must be called with a single source key.");
        int n = argc - 3;
        Slice[] src = new Slice[n];
        long maxLen = 0;
        for (int j = 0; j < n; j++) {
            byte[] e = readString(c, j + 3);
            if (e != null) {
                src[j] = new Slice().of(e);
                maxLen = Math.max(maxLen, src[j].len);
            }
        }
        Db db = c.db();
        Engine engine = c.engine();
        if (maxLen == 0) {
            if (db.remove(a.buf(2), a.off(2), a.len(2)) != null) {
                engine.keyModified(db, a.buf(2), a.off(2), a.len(2));
                engine.notify(Notify.GENERIC, "del", db, a.buf(2), a.off(2), a.len(2));
                engine.dirty++;
            }
            c.reply().integer(0);
            return;
        }
        if (maxLen > StringEntry.maxValueLength(a.len(2))) throw TOO_BIG;
        int len = (int) maxLen;
        byte[] e = StringEntry.createRaw(a.buf(2), a.off(2), a.len(2), Bytes.EMPTY, 0, 0, len, -1,
                engine.keyspace().newLru());
        e = StringEntry.resizeRaw(e, len, 0);
        int ro = StringEntry.valueOffset(e);
        Slice first = src[0];
        if (first != null) System.arraycopy(first.buf, first.off, e, ro, first.len);
        if (op == NOT) {
            not(e, ro, len);
        } else {
            for (int j = 1; j < n; j++) combine(op, e, ro, len, src[j]);
        }
        // a fresh value replaces the old one, TTL included (setKey)
        db.lookupWrite(a.buf(2), a.off(2), a.len(2));
        db.put(a.buf(2), a.off(2), a.len(2), e);
        engine.keyModified(db, a.buf(2), a.off(2), a.len(2));
        engine.notify(Notify.STRING, "set", db, a.buf(2), a.off(2), a.len(2));
        engine.dirty++;
        c.reply().integer(len);
    }

    private static void not(byte[] r, int ro, int len) {
        int i = 0;
        for (; i + 8 <= len; i += 8) Bits.setLongBE(r, ro + i, ~Bits.getLongBE(r, ro + i));
        for (; i < len; i++) r[ro + i] = (byte) ~r[ro + i];
    }

    /** r = r OP s over len bytes, a missing or shorter s reading as zeros. */
    private static void combine(int op, byte[] r, int ro, int len, Slice s) {
        int sl = s == null ? 0 : s.len;
        int i = 0;
        if (sl > 0) {
            byte[] sb = s.buf;
            int so = s.off;
            for (; i + 8 <= sl; i += 8) {
                long x = Bits.getLongBE(r, ro + i), y = Bits.getLongBE(sb, so + i);
                Bits.setLongBE(r, ro + i, op == AND ? x & y : op == OR ? x | y : x ^ y);
            }
            for (; i < sl; i++) {
                int x = r[ro + i], y = sb[so + i];
                r[ro + i] = (byte) (op == AND ? x & y : op == OR ? x | y : x ^ y);
            }
        }
        if (op == AND && sl < len) Arrays.fill(r, ro + sl, ro + len, (byte) 0);
    }

    // ---- BITFIELD -------------------------------------------------------------------------------------

    private static final int GET = 0, SET = 1, INCRBY = 2;

    /**
     * BITFIELD only reads while it has nothing but GET and OVERFLOW; a SET, an INCRBY or a
     * malformed call makes it a write (Redis's bitfieldGetKeys).
     */
    /** BITFIELD's key flags (read-only without SET or INCRBY), for CommandFamilies; null for the others. */
    public static Command.KeyFlags keyFlags(String name) {
        return name.equals("bitfield") ? BitmapCommands::bitfieldKeyFlags : null;
    }

    static List<String> bitfieldKeyFlags(Args a, int pos) {
        int argc = a.count();
        for (int i = 2; i < argc; i++) {
            int rest = argc - i - 1;
            if (a.is(i, "get") && rest >= 2) i += 2;
            else if (a.is(i, "overflow") && rest >= 1) i += 1;
            else return List.of("RW", "access", "update");
        }
        return List.of("RO", "access");
    }

    static void bitfield(Client c, boolean readOnlyCommand) {
        Args a = c.args();
        int argc = a.count();
        // parsed operations: offset, value, and opcode | owtype << 2 | sign << 4 | bits << 8
        long[] offsets = new long[(argc - 2) / 3 + 1];
        long[] values = new long[offsets.length];
        int[] kinds = new int[offsets.length];
        int ops = 0;
        int owtype = Bits.WRAP;
        boolean readonly = true;
        long highestWrite = 0;
        for (int j = 2; j < argc; j++) {
            int remaining = argc - j - 1;
            int opcode;
            if (a.is(j, "get") && remaining >= 2) {
                opcode = GET;
            } else if (a.is(j, "set") && remaining >= 3) {
                opcode = SET;
            } else if (a.is(j, "incrby") && remaining >= 3) {
                opcode = INCRBY;
            } else if (a.is(j, "overflow") && remaining >= 1) {
                j++;
                if (a.is(j, "wrap")) owtype = Bits.WRAP;
                else if (a.is(j, "sat")) owtype = Bits.SAT;
                else if (a.is(j, "fail")) owtype = Bits.FAIL;
                else throw CommandError.err("Invalid OVERFLOW type specified");
                continue;
            } else {
                throw CommandError.SYNTAX;
            }
            int type = bitfieldType(a, j + 1);
            int bits = type & 0x7f;
            long offset = bitOffset(c, j + 2, bits);
            long value = 0;
            if (opcode != GET) {
                readonly = false;
                highestWrite = Math.max(highestWrite, offset + bits - 1);
                value = c.argLong(j + 3);
            }
            offsets[ops] = offset;
            values[ops] = value;
            kinds[ops] = opcode | owtype << 2 | type << 8;
            ops++;
            j += opcode == GET ? 2 : 3;
        }

        Db db = c.db();
        byte[] e;
        boolean grown = false;
        if (readonly) {
            e = readString(c, 1);
        } else {
            if (readOnlyCommand) throw CommandError.err("BITFIELD_RO only supports the GET subcommand");
            Object o = db.lookupWrite(a.buf(1), a.off(1), a.len(1));
            long need = (highestWrite >>> 3) + 1;
            grown = o == null || (o instanceof byte[] && StringEntry.valueLength((byte[]) o) < need);
            e = stringForWrite(c, o, need);
        }

        Reply r = c.reply();
        r.arrayHeader(ops);
        Slice s = e == null ? null : new Slice().of(e);
        long[] limit = new long[1];
        int changes = 0;
        for (int j = 0; j < ops; j++) {
            int kind = kinds[j];
            int opcode = kind & 3;
            int ow = (kind >>> 2) & 3;
            int type = kind >>> 8;
            int bits = type & 0x7f;
            boolean signed = (type & 0x80) != 0;
            long offset = offsets[j];
            if (opcode == GET) {
                if (s == null) r.integer(0);
                else if (signed) r.integer(Bits.getSigned(s.buf, s.off, s.len, offset, bits));
                else r.integer(Bits.getUnsigned(s.buf, s.off, s.len, offset, bits));
                continue;
            }
            long oldval = signed ? Bits.getSigned(s.buf, s.off, s.len, offset, bits)
                    : Bits.getUnsigned(s.buf, s.off, s.len, offset, bits);
            long newval, retval;
            int overflow;
            if (opcode == INCRBY) {
                overflow = signed ? Bits.checkSigned(oldval, values[j], bits, ow, limit)
                        : Bits.checkUnsigned(oldval, values[j], bits, ow, limit);
                newval = overflow != 0 ? limit[0] : oldval + values[j];
                retval = newval;
            } else {
                newval = values[j];
                overflow = signed ? Bits.checkSigned(newval, 0, bits, ow, limit)
                        : Bits.checkUnsigned(newval, 0, bits, ow, limit);
                if (overflow != 0) newval = limit[0];
                retval = oldval;
            }
            if (overflow != 0 && ow == Bits.FAIL) {
                r.nullBulk();
                continue;
            }
            r.integer(retval);
            Bits.set(s.buf, s.off, offset, bits, newval);
            if (grown || oldval != newval) changes++;
        }
        if (changes > 0) modified(c, "setbit", changes);
    }

    /**
     * A BITFIELD type "iN" (N 1..64) or "uN" (N 1..63): bits | 0x80 when signed. The digits end at
     * the first NUL byte, as Redis reads them with strlen.
     */
    private static int bitfieldType(Args a, int i) {
        byte[] b = a.buf(i);
        int off = a.off(i), len = a.len(i);
        if (len == 0) throw BAD_TYPE;
        boolean signed;
        if (b[off] == 'i') signed = true;
        else if (b[off] == 'u') signed = false;
        else throw BAD_TYPE;
        int digits = 0;
        while (1 + digits < len && b[off + 1 + digits] != 0) digits++;
        long n;
        try {
            n = Bytes.parseLong(b, off + 1, digits);
        } catch (NumberFormatException e) {
            throw BAD_TYPE;
        }
        if (n < 1 || (signed && n > 64) || (!signed && n > 63)) throw BAD_TYPE;
        return (int) n | (signed ? 0x80 : 0);
    }
}
