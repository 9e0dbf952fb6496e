package io.spinel.core;

import io.spinel.core.keyspace.Db;
import io.spinel.core.keyspace.Entries;
import io.spinel.core.keyspace.Keyspace;
import io.spinel.core.keyspace.StringEntry;
import io.spinel.core.keyspace.ValueType;
import io.spinel.core.type.hash.HashValue;
import io.spinel.core.type.list.ListValue;
import io.spinel.core.type.set.SetValue;
import io.spinel.core.type.stream.StreamValue;
import io.spinel.core.type.zset.ZIter;
import io.spinel.core.type.zset.ZSet;
import io.spinel.core.util.Doubles;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * DEBUG DIGEST and DIGEST-VALUE: a SHA1-based fingerprint of the data set or of single values,
 * computed as Redis 7.0 computes it, so that equal data gives the same 40 hex digits on both
 * servers (tests compare a data set before and after a reload or a restart this way).
 *
 * <p>Two ways of adding bytes to a 20-byte digest: <i>xor</i> (xor in the SHA1 of the bytes:
 * order does not matter, used for set members, hash pairs, sorted-set pairs and keys) and
 * <i>mix</i> (xor, then replace the digest by its own SHA1: order matters, used for list
 * elements, stream entries and the parts of one pair). A value's digest starts with its type
 * number; a key with a TTL adds the text {@code !!expire!!} (not the time, which differs between
 * two servers loading the same data).
 */
final class DebugDigest {
    private static final byte[] EXPIRE_MARK = "!!expire!!".getBytes(StandardCharsets.US_ASCII);

    private final MessageDigest sha1;

    DebugDigest() {
        try {
            sha1 = MessageDigest.getInstance("SHA-1");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is missing from this JDK", e);
        }
    }

    /** The digest of every database, 20 zero bytes for an empty data set. */
    byte[] ofDataSet(Keyspace ks) {
        byte[] total = new byte[20];
        for (int j = 0; j < ks.count(); j++) {
            Db db = ks.db(j);
            if (db.size() == 0) continue;
            // the database number, so that the same data in another database digests differently
            mix(total, int32(j));
            db.forEach(e -> {
                byte[] d = new byte[20];
                byte[] key = Entries.key(e);
                mix(d, key, 0, key.length);
                addValue(d, e);
                xor(total, d, 0, 20);
            });
        }
        return total;
    }

    /** The digest of one entry's value (its key not included); 20 zero bytes for none. */
    byte[] ofValue(Object entry) {
        byte[] d = new byte[20];
        if (entry != null) addValue(d, entry);
        return d;
    }

    static String hex(byte[] d) {
        StringBuilder sb = new StringBuilder(40);
        for (byte b : d) sb.append(Character.forDigit((b >> 4) & 15, 16)).append(Character.forDigit(b & 15, 16));
        return sb.toString();
    }

    private void addValue(byte[] d, Object e) {
        int type = Entries.type(e);
        mix(d, int32(type));
        switch (type) {
            case ValueType.STRING -> {
                byte[] v = StringEntry.value((byte[]) e);
                mix(d, v, 0, v.length);
            }
            case ValueType.LIST -> ((ListValue) Entries.valueOf(e, type)).forEach((b, off, len) -> mix(d, b, off, len));
            case ValueType.SET -> ((SetValue) Entries.valueOf(e, type)).forEachMember(m -> xor(d, m, 0, m.length));
            case ValueType.ZSET -> {
                for (ZIter it = ((ZSet) Entries.valueOf(e, type)).first(); it.valid(); it.next()) {
                    byte[] pair = new byte[20];
                    byte[] m = it.member();
                    mix(pair, m, 0, m.length);
                    byte[] score = Doubles.format17g(it.score()).getBytes(StandardCharsets.US_ASCII);
                    mix(pair, score, 0, score.length);
                    xor(d, pair, 0, 20);
                }
            }
            case ValueType.HASH -> ((HashValue) Entries.valueOf(e, type)).forEachPairInPlace((fb, fo, fl, vb, vo, vl) -> {
                byte[] pair = new byte[20];
                mix(pair, fb, fo, fl);
                mix(pair, vb, vo, vl);
                xor(d, pair, 0, 20);
            });
            case ValueType.STREAM -> ((StreamValue) Entries.valueOf(e, type)).forEachEntry((id, fieldsAndValues) -> {
                byte[] idText = (Long.toUnsignedString(id.ms()) + "." + Long.toUnsignedString(id.seq()))
                        .getBytes(StandardCharsets.US_ASCII);
                mix(d, idText, 0, idText.length);
                for (byte[] x : fieldsAndValues) mix(d, x, 0, x.length);
            });
            default -> throw new IllegalStateException("no digest for value type " + type);
        }
        if (Entries.expire(e) >= 0) xor(d, EXPIRE_MARK, 0, EXPIRE_MARK.length);
    }

    private void xor(byte[] d, byte[] b, int off, int len) {
        sha1.update(b, off, len);
        byte[] h = sha1.digest();
        for (int i = 0; i < 20; i++) d[i] ^= h[i];
    }

    private void mix(byte[] d, byte[] b, int off, int len) {
        xor(d, b, off, len);
        sha1.update(d, 0, 20);
        System.arraycopy(sha1.digest(), 0, d, 0, 20);
    }

    private void mix(byte[] d, byte[] b) {
        mix(d, b, 0, b.length);
    }

    /** A 32-bit number in network byte order, as Redis mixes type and database numbers. */
    private static byte[] int32(int v) {
        return new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
    }
}
