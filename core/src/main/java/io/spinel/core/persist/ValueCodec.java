package io.spinel.core.persist;

import io.spinel.core.keyspace.DbObject;
import io.spinel.core.keyspace.EncodingConfig;
import io.spinel.core.keyspace.KeySet;
import io.spinel.core.keyspace.StringEntry;
import io.spinel.core.keyspace.Value;
import io.spinel.core.keyspace.ValueType;
import io.spinel.core.type.hash.HashValue;
import io.spinel.core.type.list.ListValue;
import io.spinel.core.type.set.IntSet;
import io.spinel.core.type.set.SetValue;
import io.spinel.core.type.zset.SetInput;
import io.spinel.core.type.zset.ZIter;
import io.spinel.core.type.zset.ZSet;
import io.spinel.core.util.Bytes;
import io.spinel.core.util.Doubles;


/**
 * Values in RDB form, both ways (Redis's rdbSaveObjectType/rdbSaveObject and rdbLoadObject).
 * Writing produces exactly the types Redis 7.0 writes for the same encodings (strings, quicklist
 * of listpacks, intset or hashtable sets, listpack or skiplist sorted sets, listpack or
 * hashtable hashes). Reading accepts every type Redis 7.0 reads, older encodings included
 * (ziplist, zipmap, quicklist of ziplists, text doubles), and picks encodings as Redis does on
 * load. Shared by RDB files, AOF bases and DUMP/RESTORE.
 */
final class ValueCodec {
    private ValueCodec() {
    }

    // ---- writing ------------------------------------------------------------------------------

    /** The RDB type byte of a keyspace entry. */
    static int typeOf(Object e) {
        if (e instanceof byte[]) return Rdb.TYPE_STRING;
        Value v = (DbObject) e;
        switch (v.type()) {
            case ValueType.LIST:
                return Rdb.TYPE_LIST_QUICKLIST_2;
            case ValueType.SET:
                return ((SetValue) v).isIntset() ? Rdb.TYPE_SET_INTSET : Rdb.TYPE_SET;
            case ValueType.ZSET:
                return ((ZSet) v).isPacked() ? Rdb.TYPE_ZSET_LISTPACK : Rdb.TYPE_ZSET_2;
            case ValueType.HASH:
                return ((HashValue) v).isListpack() ? Rdb.TYPE_HASH_LISTPACK : Rdb.TYPE_HASH;
            case ValueType.STREAM:
                return Rdb.TYPE_STREAM_LISTPACKS_2;
            default:
                throw new IllegalStateException("no RDB form for values of type " + ValueType.name(v.type()));
        }
    }

    /** The entry's key as an RDB string. */
    static void writeKey(RdbOut out, Object e) {
        if (e instanceof byte[]) {
            byte[] s = (byte[]) e;
            out.writeString(s, StringEntry.keyOffset(s), StringEntry.keyLength(s));
        } else {
            out.writeString(((DbObject) e).key());
        }
    }

    /** The entry's value in the form its {@link #typeOf} type announces. */
    static void writeValue(RdbOut out, Object e) {
        if (e instanceof byte[]) {
            byte[] s = (byte[]) e;
            if (StringEntry.isInt(s)) out.writeLongAsString(StringEntry.intValue(s));
            else if (StringEntry.isBig(s)) out.writeString(StringEntry.value(s));
            else out.writeString(s, StringEntry.valueOffset(s), StringEntry.valueLength(s));
            return;
        }
        Value v = (DbObject) e;
        switch (v.type()) {
            case ValueType.LIST:
                writeList(out, (ListValue) v);
                break;
            case ValueType.SET:
                writeSet(out, (SetValue) v);
                break;
            case ValueType.ZSET:
                writeZSet(out, (ZSet) v);
                break;
            case ValueType.HASH:
                writeHash(out, (HashValue) v);
                break;
            case ValueType.STREAM:
                StreamCodec.write(out, (io.spinel.core.type.stream.StreamValue) v);
                break;
            default:
                throw new IllegalStateException("no RDB form for values of type " + ValueType.name(v.type()));
        }
    }

    private static void writeList(RdbOut out, ListValue l) {
        out.writeLen(l.nodeCount());
        ListNodes nodes = out.listNodes;
        nodes.out = out;
        l.forEachNode(nodes, nodes);
        nodes.end();
    }

    /** Writes a list's nodes as listpacks through the output's one builder (nothing allocated per list). */
    static final class ListNodes implements java.util.function.IntConsumer, ListValue.ElementVisitor {
        private RdbOut out;
        private Listpack.Builder lp;

        @Override
        public void accept(int count) {
            if (lp != null) writeNode(out, lp);
            lp = out.listpack();
        }

        @Override
        public void accept(byte[] buf, int off, int len) {
            lp.add(buf, off, len);
        }

        void end() {
            if (lp != null) writeNode(out, lp);
            lp = null;
            out = null;
        }
    }

    /** Writes a hash's pairs, into a listpack or as plain strings, without allocating per hash. */
    static final class HashPairs implements HashValue.PairVisitor {
        private RdbOut out;
        private Listpack.Builder lp;

        @Override
        public void accept(byte[] fb, int fo, int fl, byte[] vb, int vo, int vl) {
            if (lp != null) {
                lp.add(fb, fo, fl);
                lp.add(vb, vo, vl);
            } else {
                out.writeString(fb, fo, fl);
                out.writeString(vb, vo, vl);
            }
        }
    }

    private static void writeNode(RdbOut out, Listpack.Builder lp) {
        out.writeLen(Rdb.CONTAINER_PACKED);
        byte[] b = lp.finish();
        out.writeString(b, 0, lp.length());
    }

    private static void writeSet(RdbOut out, SetValue s) {
        if (s.isIntset()) {
            byte[] blob = s.intsetBlob();
            out.writeString(blob, 0, IntSet.blobLength(blob));
            return;
        }
        out.writeLen(s.length());
        s.forEachMember((SetInput.MemberVisitor) out::writeString);
    }

    private static void writeZSet(RdbOut out, ZSet z) {
        if (z.isPacked()) {
            Listpack.Builder lp = out.listpack();
            for (ZIter it = z.first(); it.valid(); it.next()) {
                lp.add(it.buf(), it.off(), it.len());
                double score = it.score();
                if (isLongDouble(score)) {
                    lp.addLong((long) score);
                } else {
                    byte[] t = Doubles.format17gBytes(score);
                    lp.addString(t, 0, t.length);
                }
            }
            byte[] b = lp.finish();
            out.writeString(b, 0, lp.length());
            return;
        }
        out.writeLen(z.size());
        // greatest first, Redis's order (each insert at the head of its skip list); the tree's
        // leaves come out full from a load in either order
        for (ZIter it = z.last(); it.valid(); it.prev()) {
            out.writeString(it.buf(), it.off(), it.len());
            out.writeBinaryDouble(it.score());
        }
    }

    /** Redis's double2ll: an integral double well inside the long range, stored as an integer. */
    static boolean isLongDouble(double d) {
        if (d < (double) (-Long.MAX_VALUE / 2) || d > (double) (Long.MAX_VALUE / 2)) return false;
        return (long) d == d;
    }

    private static void writeHash(RdbOut out, HashValue h) {
        HashPairs pairs = out.hashPairs;
        pairs.out = out;
        if (h.isListpack()) {
            Listpack.Builder lp = out.listpack();
            pairs.lp = lp;
            h.forEachPairInPlace(pairs);
            pairs.lp = null;
            byte[] b = lp.finish();
            out.writeString(b, 0, lp.length());
            return;
        }
        out.writeLen(h.length());
        pairs.lp = null;
        h.forEachPairInPlace(pairs);
    }

    // ---- reading ------------------------------------------------------------------------------

    /** Thrown for a value that loads as an empty collection: Redis skips such keys. */
    static final class EmptyKey extends RuntimeException {
        EmptyKey() {
            super(null, null, false, false);
        }
    }

    private static final EmptyKey EMPTY = new EmptyKey();

    /**
     * Reads a value of RDB type {@code type} into a keyspace entry for key (a packed string or a
     * {@link DbObject}) with the given expire and LRU/LFU field.
     *
     * @throws EmptyKey for an empty collection
     * @throws RdbException for malformed data or a type Spinel cannot hold
     */
    static Object read(int type, RdbIn in, byte[] key, long expire, int lru, EncodingConfig cfg) {
        if (type == Rdb.TYPE_STRING) { // the entry is a copy: the value is read into a reused buffer
            byte[] v = in.readTransient();
            int off = in.transientOffset(), len = in.transientLength();
            // where a SET of it would have kept it; the caller owns the memory until the entry is stored
            if (StringEntry.loadsAsBig(len)) return StringEntry.copyToBig(key, 0, key.length, v, off, len, expire, lru);
            return StringEntry.create(key, 0, key.length, v, off, len, expire, lru);
        }
        DbObject v;
        switch (type) {
            case Rdb.TYPE_LIST:
                v = readPlainList(in, cfg);
                break;
            case Rdb.TYPE_LIST_QUICKLIST:
            case Rdb.TYPE_LIST_QUICKLIST_2:
                v = readQuicklist(in, cfg, type == Rdb.TYPE_LIST_QUICKLIST_2);
                break;
            case Rdb.TYPE_LIST_ZIPLIST:
                v = readListFrom(ziplist(in, "List ziplist"), cfg);
                break;
            case Rdb.TYPE_SET:
                v = readPlainSet(in, cfg);
                break;
            case Rdb.TYPE_SET_INTSET:
                v = readIntset(in, cfg);
                break;
            case Rdb.TYPE_ZSET:
            case Rdb.TYPE_ZSET_2:
                v = readPlainZSet(in, cfg, type == Rdb.TYPE_ZSET_2);
                break;
            case Rdb.TYPE_ZSET_ZIPLIST:
                v = readPackedZSet(ziplist(in, "Zset ziplist"), cfg);
                break;
            case Rdb.TYPE_ZSET_LISTPACK:
                v = readPackedZSet(listpack(in), cfg);
                break;
            case Rdb.TYPE_HASH:
                v = readPlainHash(in, cfg);
                break;
            case Rdb.TYPE_HASH_ZIPMAP:
                v = readPackedHash(zipmap(in), cfg, true, in.transientLength());
                break;
            case Rdb.TYPE_HASH_ZIPLIST:
                v = readPackedHash(ziplist(in, "Hash ziplist"), cfg, false, in.transientLength());
                break;
            case Rdb.TYPE_HASH_LISTPACK:
                v = readPackedHash(listpack(in), cfg, false, in.transientLength());
                break;
            case Rdb.TYPE_STREAM_LISTPACKS:
            case Rdb.TYPE_STREAM_LISTPACKS_2:
                v = StreamCodec.read(in, type == Rdb.TYPE_STREAM_LISTPACKS_2);
                break;
            case Rdb.TYPE_MODULE:
            case Rdb.TYPE_MODULE_2:
                throw new RdbException("the value of key '" + Bytes.latin1(key)
                        + "' belongs to a module type, and Spinel has no modules");
            default:
                throw new RdbException("Unknown RDB encoding type " + type);
        }
        return v.asEntry(key, expire, lru);
    }

    // The packed blobs are read into the stream's reusable buffer: every collection read from
    // them copies what it keeps into its own encoding before the next read.

    private static Ziplist ziplist(RdbIn in, String what) {
        byte[] b = in.readTransient();
        return new Ziplist(b, in.transientOffset(), in.transientLength(), what);
    }

    private static Listpack.Reader listpack(RdbIn in) {
        return in.transientListpack();
    }

    private static Zipmap zipmap(RdbIn in) {
        byte[] b = in.readTransient();
        return new Zipmap(b, in.transientOffset(), in.transientLength());
    }

    /**
     * An element count: one of 2^63 or more (a 64-bit length, read as negative) is corrupt, not
     * an empty collection (Redis fails to size its table for it).
     */
    private static long count(RdbIn in) {
        long n = in.readLen();
        if (n < 0) throw new RdbException("Length out of range: " + Long.toUnsignedString(n));
        return n;
    }

    private static ListValue readPlainList(RdbIn in, EncodingConfig cfg) {
        long n = count(in);
        if (n == 0) throw EMPTY;
        ListValue l = new ListValue(cfg.listMaxListpackSize);
        for (long i = 0; i < n; i++) {
            byte[] e = in.readString();
            l.pushTail(e, 0, e.length);
        }
        return l;
    }

    private static ListValue readQuicklist(RdbIn in, EncodingConfig cfg, boolean v2) {
        long nodes = count(in);
        if (nodes == 0) throw EMPTY;
        ListValue l = new ListValue(cfg.listMaxListpackSize);
        for (long i = 0; i < nodes; i++) {
            long container = Rdb.CONTAINER_PACKED;
            if (v2) {
                container = in.readLen();
                if (container != Rdb.CONTAINER_PACKED && container != Rdb.CONTAINER_PLAIN) {
                    throw new RdbException("Quicklist integrity check failed.");
                }
            }
            if (container == Rdb.CONTAINER_PLAIN) { // one big element, a node of its own
                byte[] data = in.readString();
                if (data.length == 0) throw new RdbException("Quicklist integrity check failed.");
                l.append(data, 0, data.length, true, 0);
                continue;
            }
            byte[] data = in.readTransient();
            int off = in.transientOffset();
            int length = in.transientLength();
            if (length == 0) throw new RdbException("Quicklist integrity check failed.");
            Elements el = v2 ? in.listpackOf(data, off, length) : new Ziplist(data, off, length, "Ziplist");
            // each saved node stays a node, as Redis keeps it (DUMP and RDB then give its bytes
            // back). A list node's entries take what a listpack's strings do (length, bytes,
            // back length): the node is sized once for all of them, less the listpack's header
            // and terminator
            int room = v2 ? length - 7 : 0;
            boolean first = true;
            while (el.next()) {
                if (el.isInt()) {
                    byte[] t = Bytes.longToBytes(el.intValue());
                    l.append(t, 0, t.length, first, room);
                } else {
                    l.append(el.buf, el.off, el.len, first, room);
                }
                first = false;
            }
        }
        if (l.size() == 0) throw EMPTY;
        return l;
    }

    private static ListValue readListFrom(Elements el, EncodingConfig cfg) {
        ListValue l = new ListValue(cfg.listMaxListpackSize);
        while (el.next()) {
            if (el.isInt()) {
                byte[] t = Bytes.longToBytes(el.intValue());
                l.pushTail(t, 0, t.length);
            } else {
                l.pushTail(el.buf, el.off, el.len);
            }
        }
        if (l.size() == 0) throw EMPTY;
        return l;
    }

    private static SetValue readPlainSet(RdbIn in, EncodingConfig cfg) {
        long n = count(in);
        if (n == 0) throw EMPTY;
        int maxIntset = Math.min(cfg.setMaxIntsetEntries, 1 << 30);
        SetValue s = n > maxIntset ? SetValue.newTable(n) : SetValue.newIntset();
        for (long i = 0; i < n; i++) {
            byte[] m = in.readTransient(); // add copies what it keeps
            if (!s.add(m, in.transientOffset(), in.transientLength(), Integer.MAX_VALUE)) {
                throw new RdbException("Duplicate set members detected");
            }
        }
        return s;
    }

    private static SetValue readIntset(RdbIn in, EncodingConfig cfg) {
        byte[] b = in.readString();
        SetValue s = SetValue.fromIntsetBlob(b);
        if (s == null) throw new RdbException("Intset integrity check failed.");
        if (s.length() > cfg.setMaxIntsetEntries) s.toHashtable();
        return s;
    }

    private static ZSet readPlainZSet(RdbIn in, EncodingConfig cfg, boolean binary) {
        long n = count(in);
        if (n == 0) throw EMPTY;
        ZSet z = ZSet.newSkiplist();
        long maxLen = 0, total = 0;
        for (long i = 0; i < n; i++) {
            byte[] m = in.readString();
            double score = binary ? in.readBinaryDouble() : in.readTextDouble();
            if (Double.isNaN(score)) throw new RdbException("Zset with NAN score detected");
            if (z.contains(m, 0, m.length)) throw new RdbException("Duplicate zset fields detected");
            z.insertLoaded(score, m, 0, m.length);
            maxLen = Math.max(maxLen, m.length);
            total += m.length;
        }
        z.convertToPackedIfNeeded(cfg, maxLen, total);
        return z;
    }

    private static ZSet readPackedZSet(Elements el, EncodingConfig cfg) {
        ZSet z = ZSet.newPacked();
        KeySet seen = null;
        Slice member = new Slice();
        while (el.next()) {
            member.of(el);
            if (!el.next()) throw new RdbException("Zset listpack integrity check failed.");
            double score;
            if (el.isInt()) {
                score = el.intValue();
            } else {
                score = Doubles.parseOrNaN(el.buf, el.off, el.len);
                if (Double.isNaN(score)) throw new RdbException("Zset listpack integrity check failed.");
            }
            boolean isNew;
            if (z.isPacked() && z.size() >= LINEAR_DUP_CHECK) {
                if (seen == null) seen = membersOf(z);
                isNew = seen.add(member.copy());
            } else {
                isNew = !z.contains(member.buf, member.off, member.len);
            }
            if (!isNew) throw new RdbException("Zset listpack integrity check failed.");
            z.insertLoaded(score, member.buf, member.off, member.len);
        }
        if (z.size() == 0) throw EMPTY;
        if (z.size() > cfg.zsetMaxListpackEntries) z.toSkiplist();
        return z;
    }

    private static KeySet membersOf(ZSet z) {
        KeySet set = new KeySet();
        for (ZIter it = z.first(); it.valid(); it.next()) set.add(it.member());
        return set;
    }

    private static HashValue readPlainHash(RdbIn in, EncodingConfig cfg) {
        long n = count(in);
        if (n == 0) throw EMPTY;
        HashValue h = new HashValue();
        if (n > cfg.hashMaxListpackEntries) h.toHashtable();
        for (long i = 0; i < n; i++) {
            byte[] f = in.readString();
            byte[] v = in.readString();
            if (!h.set(f, 0, f.length, v, 0, v.length, Integer.MAX_VALUE, cfg.hashMaxListpackValue)) {
                throw new RdbException("Duplicate hash fields detected");
            }
        }
        return h;
    }

    /**
     * blobLength sizes the hash's array at once: a field or value takes one byte less in it than in
     * a listpack (a length prefix instead of an encoding byte and a back length), so the blob's
     * length covers the strings of a listpack; integers stored as text may ask for a little more.
     */
    private static HashValue readPackedHash(Elements el, EncodingConfig cfg, boolean zipmap, int blobLength) {
        HashValue h = new HashValue();
        h.reserve(blobLength);
        KeySet seen = null;
        int maxLen = 0;
        Slice field = new Slice();
        Slice value = new Slice();
        while (el.next()) {
            field.of(el);
            if (!el.next()) throw new RdbException("Hash listpack integrity check failed.");
            value.of(el);
            boolean isNew;
            if (h.length() >= LINEAR_DUP_CHECK) {
                if (seen == null) seen = fieldsOf(h);
                isNew = seen.add(field.copy());
            } else {
                isNew = !h.exists(field.buf, field.off, field.len);
            }
            if (!isNew) throw new RdbException("Hash listpack integrity check failed.");
            maxLen = Math.max(maxLen, Math.max(field.len, value.len));
            h.appendLoaded(field.buf, field.off, field.len, value.buf, value.off, value.len);
        }
        if (h.length() == 0) throw EMPTY;
        if (h.length() > cfg.hashMaxListpackEntries || (zipmap && maxLen > cfg.hashMaxListpackValue)) h.toHashtable();
        return h;
    }

    private static KeySet fieldsOf(HashValue h) {
        KeySet set = new KeySet();
        h.forEachPair(p -> set.add(p[0]));
        return set;
    }

    /**
     * An element of a packed blob as bytes: a string where it lies in the blob (which stays put
     * while the cursor moves on, so a field is still readable next to its value), an integer as
     * its decimal text.
     */
    private static final class Slice {
        byte[] buf;
        int off;
        int len;

        void of(Elements el) {
            if (el.isInt()) {
                buf = Bytes.longToBytes(el.intValue());
                off = 0;
                len = buf.length;
            } else {
                buf = el.buf;
                off = el.off;
                len = el.len;
            }
        }

        byte[] copy() {
            return Bytes.copy(buf, off, len);
        }
    }

    /**
     * Duplicates in a packed collection being loaded are looked for by a scan of what it holds so
     * far (no allocation per member) while it is shorter than this; past it, in a set of copies.
     */
    private static final int LINEAR_DUP_CHECK = 256;
}
