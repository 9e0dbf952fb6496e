package io.spinel.core.persist;

import io.spinel.core.keyspace.DbObject;
import io.spinel.core.keyspace.StringEntry;
import io.spinel.core.keyspace.ValueType;
import io.spinel.core.type.hash.HashValue;
import io.spinel.core.type.list.ListValue;
import io.spinel.core.type.set.SetValue;
import io.spinel.core.type.zset.SetInput;
import io.spinel.core.type.zset.ZIter;
import io.spinel.core.type.zset.ZSet;
import io.spinel.core.util.Bytes;
import io.spinel.core.util.Doubles;

/**
 * Commands in the AOF's RESP form (also the replication stream's and what a replica sends its
 * master), and the commands that rebuild a key (Redis's rewrite: SET, RPUSH, SADD, ZADD, HMSET
 * with at most 64 elements per command).
 */
public final class AofFormat {
    private AofFormat() {
    }

    static final byte[] SELECT = Bytes.ascii("SELECT");
    static final byte[] SET = Bytes.ascii("SET");
    static final byte[] RPUSH = Bytes.ascii("RPUSH");
    static final byte[] SADD = Bytes.ascii("SADD");
    static final byte[] ZADD = Bytes.ascii("ZADD");
    static final byte[] HMSET = Bytes.ascii("HMSET");
    static final byte[] PEXPIREAT = Bytes.ascii("PEXPIREAT");
    static final byte[] FUNCTION = Bytes.ascii("FUNCTION");
    static final byte[] LOAD = Bytes.ascii("LOAD");

    static void arrayHeader(RdbOut out, long n) {
        out.writeByte('*');
        writeDecimal(out, n);
    }

    private static void writeDecimal(RdbOut out, long n) {
        out.writeDecimal(n);
        out.writeByte('\r');
        out.writeByte('\n');
    }

    static void bulk(RdbOut out, byte[] b, int off, int len) {
        out.writeByte('$');
        writeDecimal(out, len);
        out.write(b, off, len);
        out.writeByte('\r');
        out.writeByte('\n');
    }

    static void bulk(RdbOut out, byte[] b) {
        bulk(out, b, 0, b.length);
    }

    static void bulkLong(RdbOut out, long v) {
        byte[] t = Bytes.longToBytes(v);
        bulk(out, t, 0, t.length);
    }

    /** A command as a RESP array of bulk strings. */
    public static void command(RdbOut out, byte[]... argv) {
        arrayHeader(out, argv.length);
        for (byte[] a : argv) bulk(out, a);
    }

    /** The commands that recreate entry e (without its expire). */
    static void rebuild(RdbOut out, Object e, int perCommand) {
        if (e instanceof byte[]) {
            byte[] s = (byte[]) e;
            arrayHeader(out, 3);
            bulk(out, SET);
            bulk(out, s, StringEntry.keyOffset(s), StringEntry.keyLength(s));
            if (StringEntry.isInt(s)) bulkLong(out, StringEntry.intValue(s));
            else if (StringEntry.isBig(s)) bulk(out, StringEntry.value(s), 0, StringEntry.bigLength(s));
            else bulk(out, s, StringEntry.valueOffset(s), StringEntry.valueLength(s));
            return;
        }
        DbObject v = (DbObject) e;
        byte[] key = v.key();
        Batches b = new Batches(out, key, v.size(), perCommand);
        switch (v.type()) {
            case ValueType.LIST:
                b.name = RPUSH;
                ((ListValue) v).forEach((buf, off, len) -> {
                    b.next(1);
                    bulk(out, buf, off, len);
                });
                break;
            case ValueType.SET: {
                b.name = SADD;
                SetValue s = (SetValue) v;
                if (s.isIntset()) {
                    for (int i = 0; i < s.length(); i++) {
                        b.next(1);
                        bulkLong(out, s.intAt(i));
                    }
                } else {
                    s.forEachMember((SetInput.MemberVisitor) (m, off, len) -> {
                        b.next(1);
                        bulk(out, m, off, len);
                    });
                }
                break;
            }
            case ValueType.ZSET:
                b.name = ZADD;
                for (ZIter it = ((ZSet) v).first(); it.valid(); it.next()) {
                    b.next(2);
                    bulk(out, Doubles.format17gBytes(it.score()));
                    bulk(out, it.buf(), it.off(), it.len());
                }
                break;
            case ValueType.HASH:
                b.name = HMSET;
                ((HashValue) v).forEachPairInPlace((fb, fo, fl, vb, vo, vl) -> {
                    b.next(2);
                    bulk(out, fb, fo, fl);
                    bulk(out, vb, vo, vl);
                });
                break;
            case ValueType.STREAM:
                rebuildStream(out, key, (io.spinel.core.type.stream.StreamValue) v);
                break;
            default:
                throw new IllegalStateException("no AOF form for values of type " + ValueType.name(v.type()));
        }
    }

    private static final byte[] XADD = Bytes.ascii("XADD");
    private static final byte[] XSETID = Bytes.ascii("XSETID");
    private static final byte[] XGROUP = Bytes.ascii("XGROUP");
    private static final byte[] XCLAIM = Bytes.ascii("XCLAIM");

    /** Redis's rewriteStreamObject: XADDs (or an emptied one-entry stream), XSETID, groups, XCLAIMs. */
    private static void rebuildStream(RdbOut out, byte[] key, io.spinel.core.type.stream.StreamValue s) {
        if (s.length() != 0) {
            s.forEachEntry((id, fv) -> {
                arrayHeader(out, 3 + fv.length);
                bulk(out, XADD);
                bulk(out, key);
                bulk(out, id.toBytes());
                for (byte[] x : fv) bulk(out, x);
            });
        } else {
            command(out, XADD, key, Bytes.ascii("MAXLEN"), Bytes.ascii("0"), Bytes.ascii("0-1"), Bytes.ascii("x"),
                    Bytes.ascii("y"));
        }
        command(out, XSETID, key, s.lastId().toBytes(), Bytes.ascii("ENTRIESADDED"), Bytes.longToBytes(s.entriesAdded()),
                Bytes.ascii("MAXDELETEDID"), s.maxDeletedId().toBytes());
        for (java.util.Map.Entry<byte[], io.spinel.core.type.stream.StreamValue.Group> ge : s.groups().entrySet()) {
            io.spinel.core.type.stream.StreamValue.Group g = ge.getValue();
            command(out, XGROUP, Bytes.ascii("CREATE"), key, ge.getKey(), g.lastId.toBytes(), Bytes.ascii("ENTRIESREAD"),
                    Bytes.longToBytes(g.entriesRead));
            for (io.spinel.core.type.stream.StreamValue.Consumer c : g.consumers.values()) {
                if (c.pel.isEmpty()) {
                    command(out, XGROUP, Bytes.ascii("CREATECONSUMER"), key, ge.getKey(), c.name);
                    continue;
                }
                for (java.util.Map.Entry<io.spinel.core.type.stream.StreamId, io.spinel.core.type.stream.StreamValue.Nack> pe
                        : c.pel.entrySet()) {
                    command(out, XCLAIM, key, ge.getKey(), c.name, Bytes.ascii("0"), pe.getKey().toBytes(),
                            Bytes.ascii("TIME"), Bytes.longToBytes(pe.getValue().deliveryTime), Bytes.ascii("RETRYCOUNT"),
                            Bytes.longToBytes(pe.getValue().deliveryCount), Bytes.ascii("JUSTID"), Bytes.ascii("FORCE"));
                }
            }
        }
    }

    /** Starts a new variadic command every perCommand elements. */
    private static final class Batches {
        private final RdbOut out;
        private final byte[] key;
        private final int perCommand;
        private long remaining;
        private int inCommand;
        byte[] name;

        Batches(RdbOut out, byte[] key, long total, int perCommand) {
            this.out = out;
            this.key = key;
            this.remaining = total;
            this.perCommand = perCommand;
        }

        /** Before each element; width is the arguments per element (2 for ZADD and HMSET). */
        void next(int width) {
            if (inCommand == 0) {
                long items = Math.min(remaining, perCommand);
                arrayHeader(out, 2 + items * width);
                bulk(out, name);
                bulk(out, key);
            }
            if (++inCommand == perCommand) inCommand = 0;
            remaining--;
        }
    }
}
