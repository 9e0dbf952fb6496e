package io.spinel.core.persist;

import io.spinel.core.util.Bytes;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The byte-level codecs of the RDB format: CRC-64, LZF, lengths and strings, listpack, ziplist, zipmap. */
class CodecTest {
    @Test
    void crc64IsRedisJonesCrc() {
        byte[] b = "123456789".getBytes(StandardCharsets.US_ASCII);
        assertThat(Crc64.of(b, 0, b.length)).isEqualTo(0xe9c6d914c4b8d9caL);
        // the sliced path agrees with byte-at-a-time updates on lengths around its 16-byte step,
        // at offsets that are not a multiple of 8
        Random r = new Random(1);
        for (int len = 0; len < 70; len++) {
            for (int off = 0; off < 3; off++) {
                byte[] d = new byte[off + len];
                r.nextBytes(d);
                long step = 0;
                for (int i = off; i < off + len; i++) step = Crc64.update(step, d, i, 1);
                assertThat(Crc64.of(d, off, len)).isEqualTo(step);
            }
        }
    }

    @Test
    void lzfRoundTripsAndRefusesWhatDoesNotShrink() {
        Random r = new Random(7);
        String[] words = {"spinel ", "redis ", "rdb ", "\u00ff\u0000\u0001 "};
        for (int n = 60; n < 70_000; n = n * 3 / 2) {
            StringBuilder sb = new StringBuilder();
            while (sb.length() < n) sb.append(words[r.nextInt(words.length)]);
            byte[] in = sb.substring(0, n).getBytes(StandardCharsets.ISO_8859_1);
            byte[] out = new byte[n - 4];
            int c = Lzf.compress(in, 0, n, out, 0, out.length);
            assertThat(c).isPositive();
            byte[] back = new byte[n];
            Lzf.decompress(out, 0, c, back, 0, n);
            assertThat(back).isEqualTo(in);
        }
        byte[] noise = new byte[1000];
        r.nextBytes(noise);
        assertThat(Lzf.compress(noise, 0, noise.length, new byte[996], 0, 996)).isZero();
        // a back reference before the start of the output is corrupt
        assertThatThrownBy(() -> Lzf.decompress(new byte[] {(byte) 0x20, 5}, 0, 2, new byte[10], 0, 10))
                .isInstanceOf(IllegalArgumentException.class);
        // a stream that yields fewer bytes than announced is corrupt
        assertThatThrownBy(() -> Lzf.decompress(new byte[] {1, 'a', 'b'}, 0, 3, new byte[3], 0, 3))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void lengthsAndStringsUseRedisEncodings() {
        RdbOut out = new RdbOut(16, true);
        long[] lens = {0, 63, 64, 16383, 16384, 0xFFFFFFFFL, 0x100000000L};
        for (long l : lens) out.writeLen(l);
        String[] strings = {"", "0", "-1", "127", "-128", "128", "32767", "-32768", "2147483647", "-2147483648",
            "2147483648", "12345678901", "007", "1.5", "hello", "x".repeat(100)};
        for (String s : strings) out.writeString(Bytes.ascii(s));
        out.writeLongAsString(Long.MIN_VALUE);
        out.writeBinaryDouble(-2.5);
        byte[] b = out.toByteArray();
        // 6-bit, 14-bit, 32-bit and 64-bit length forms
        assertThat(b[0]).isEqualTo((byte) 0);
        assertThat(b[1]).isEqualTo((byte) 63);
        assertThat(new byte[] {b[2], b[3]}).isEqualTo(new byte[] {0x40, 64});
        RdbIn in = new RdbIn(b, 0, b.length);
        for (long l : lens) assertThat(in.readLen()).isEqualTo(l);
        for (String s : strings) assertThat(new String(in.readString(), StandardCharsets.US_ASCII)).isEqualTo(s);
        assertThat(new String(in.readString(), StandardCharsets.US_ASCII)).isEqualTo(Long.toString(Long.MIN_VALUE));
        assertThat(in.readBinaryDouble()).isEqualTo(-2.5);
        assertThat(in.atEnd()).isTrue();
        // integers are stored in 2, 3 or 5 bytes; the 100 x's are compressed
        RdbOut small = new RdbOut(16, true);
        small.writeString(Bytes.ascii("-32768"));
        assertThat(small.toByteArray()).containsExactly(0xC1 - 256, 0x00, 0x80 - 256);
        RdbOut lzf = new RdbOut(16, true);
        lzf.writeString(Bytes.ascii("x".repeat(100)));
        assertThat(lzf.toByteArray()[0]).isEqualTo((byte) 0xC3);
        assertThat(lzf.size()).isLessThan(20);
        RdbOut plain = new RdbOut(16, false);
        plain.writeString(Bytes.ascii("x".repeat(100)));
        assertThat(plain.size()).isEqualTo(102);
    }

    @Test
    void lzfLengthBeyondWhatTheDataCanExpandToIsRefusedBeforeAllocating() {
        // the densest stream: a 1-byte literal, then back references copying 264 bytes each
        int refs = 100;
        byte[] dense = new byte[2 + 3 * refs];
        dense[0] = 0;
        dense[1] = 'a';
        for (int i = 0; i < refs; i++) {
            dense[2 + 3 * i] = (byte) 0xE0;
            dense[3 + 3 * i] = (byte) 0xFF;
        }
        int ulen = 1 + 264 * refs;
        assertThat(Lzf.canExpandTo(dense.length, ulen)).isTrue();
        byte[] back = new byte[ulen];
        Lzf.decompress(dense, 0, dense.length, back, 0, ulen);
        assertThat(back).containsOnly('a');
        assertThat(Lzf.canExpandTo(dense.length, 88L * dense.length + 1)).isFalse();

        // an LZF string of 5 bytes claiming 2 GB expanded: refused without taking the 2 GB
        byte[] claim = {(byte) 0xC3, 5, (byte) 0x80, 0x7F, (byte) 0xFF, (byte) 0xFF, (byte) 0xEF, 0, 'a', (byte) 0xE0, (byte) 0xFF, 0};
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long self = Thread.currentThread().getId();
        for (boolean transientRead : new boolean[] {false, true}) {
            long before = threads.getThreadAllocatedBytes(self);
            RdbIn in = new RdbIn(claim, 0, claim.length);
            assertThatThrownBy(transientRead ? in::readTransient : in::readString)
                    .isInstanceOf(RdbException.class).hasMessage("Invalid LZF compressed string");
            assertThat(threads.getThreadAllocatedBytes(self) - before).isLessThan(1 << 20);
        }
    }

    @Test
    void truncatedInputIsAnRdbException() {
        RdbOut out = new RdbOut(16, false);
        out.writeString(Bytes.ascii("hello world"));
        byte[] b = out.toByteArray();
        assertThatThrownBy(() -> new RdbIn(b, 0, b.length - 1).readString()).isInstanceOf(RdbException.class);
    }

    private static List<Object> elements(Elements e) {
        List<Object> out = new ArrayList<>();
        while (e.next()) out.add(e.isInt() ? (Object) e.intValue() : new String(e.bytes(), StandardCharsets.ISO_8859_1));
        return out;
    }

    @Test
    void listpackRoundTripsEveryEncoding() {
        long[] ints = {0, 127, 128, -1, 4095, -4096, 4096, 32767, -32768, 32768, 8388607, -8388608, 8388608,
            2147483647L, -2147483648L, 2147483648L, Long.MAX_VALUE, Long.MIN_VALUE};
        String[] strings = {"", "a", "x".repeat(63), "y".repeat(64), "z".repeat(4095), "w".repeat(4096), "007", "1e3"};
        Listpack.Builder b = new Listpack.Builder(8);
        List<Object> expected = new ArrayList<>();
        for (long v : ints) {
            b.addLong(v);
            expected.add(v);
        }
        for (String s : strings) {
            byte[] x = s.getBytes(StandardCharsets.ISO_8859_1);
            b.add(x, 0, x.length);
            expected.add(s);
        }
        byte[] numeric = Bytes.ascii("-42");
        b.add(numeric, 0, numeric.length); // canonical integers become integer entries, as lpAppend does
        expected.add(-42L);
        byte[] blob = b.finish();
        assertThat(elements(new Listpack.Reader(blob, 0, b.length()))).isEqualTo(expected);
        assertThat(Bytes.getIntLE(blob, 0)).isEqualTo(b.length());
        // a corrupt backlen or header is detected
        byte[] bad = java.util.Arrays.copyOf(blob, b.length());
        bad[7] ^= 0x40;
        assertThatThrownBy(() -> elements(new Listpack.Reader(bad, 0, bad.length))).isInstanceOf(RdbException.class);
        byte[] badTotal = java.util.Arrays.copyOf(blob, b.length());
        badTotal[0]++;
        assertThatThrownBy(() -> new Listpack.Reader(badTotal, 0, badTotal.length)).isInstanceOf(RdbException.class);
    }

    /** An RDB value of the given packed type holding these elements (numbers become integer entries). */
    private static Object loadPacked(int type, List<String> elements) {
        Listpack.Builder b = new Listpack.Builder(16);
        for (String e : elements) {
            byte[] x = e.getBytes(StandardCharsets.ISO_8859_1);
            b.add(x, 0, x.length);
        }
        byte[] blob = java.util.Arrays.copyOf(b.finish(), b.length());
        RdbOut out = new RdbOut(16, false);
        out.writeString(blob);
        byte[] payload = out.toByteArray();
        io.spinel.core.keyspace.EncodingConfig cfg =
                new io.spinel.core.keyspace.EncodingConfig(new io.spinel.core.config.Config());
        return ValueCodec.read(type, new RdbIn(payload, 0, payload.length), Bytes.ascii("k"), -1, 0, cfg);
    }

    private static List<String> pairs(int n, java.util.function.IntFunction<String> first,
                                      java.util.function.IntFunction<String> second) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(first.apply(i));
            out.add(second.apply(i));
        }
        return out;
    }

    @Test
    void packedHashesAndZsetsLoadInPlaceAndRefuseDuplicates() {
        // fields and members are read in place from the blob (strings) or as digits (integers)
        var h = (io.spinel.core.keyspace.DbObject) loadPacked(Rdb.TYPE_HASH_LISTPACK,
                List.of("f", "v", "12", "34", "-7", "x", "g", "5"));
        var hash = (io.spinel.core.type.hash.HashValue) h;
        assertThat(hash.length()).isEqualTo(4);
        assertThat(hash.encoding()).isEqualTo("listpack");
        assertThat(hash.get(Bytes.ascii("12"), 0, 2)).isEqualTo(Bytes.ascii("34"));
        assertThat(hash.get(Bytes.ascii("-7"), 0, 2)).isEqualTo(Bytes.ascii("x"));
        assertThat(hash.get(Bytes.ascii("g"), 0, 1)).isEqualTo(Bytes.ascii("5"));
        var z = (io.spinel.core.keyspace.DbObject) loadPacked(Rdb.TYPE_ZSET_LISTPACK,
                List.of("a", "1", "42", "2.5", "b", "3"));
        var zset = (io.spinel.core.type.zset.ZSet) z;
        assertThat(zset.size()).isEqualTo(3);
        assertThat(zset.score(Bytes.ascii("42"), 0, 2)).isEqualTo(2.5);

        // a repeated field or member, as a string or as an integer, among few or past the scan limit
        for (int n : new int[] {3, 300, 600}) {
            List<String> dupField = pairs(n, i -> "f" + i, i -> "v");
            dupField.add("f" + (n - 2));
            dupField.add("again");
            assertThatThrownBy(() -> loadPacked(Rdb.TYPE_HASH_LISTPACK, dupField))
                    .isInstanceOf(RdbException.class).hasMessageContaining("Hash listpack integrity check failed");
            List<String> dupIntField = pairs(n, Integer::toString, i -> "v");
            dupIntField.add("1");
            dupIntField.add("again");
            assertThatThrownBy(() -> loadPacked(Rdb.TYPE_HASH_LISTPACK, dupIntField))
                    .isInstanceOf(RdbException.class).hasMessageContaining("Hash listpack integrity check failed");
            List<String> dupMember = pairs(n, i -> "m" + i, Integer::toString);
            dupMember.add("m0");
            dupMember.add("9");
            assertThatThrownBy(() -> loadPacked(Rdb.TYPE_ZSET_LISTPACK, dupMember))
                    .isInstanceOf(RdbException.class).hasMessageContaining("Zset listpack integrity check failed");
            // without the repeat, all of them load (past 512 fields a hashtable, past 128 members a skiplist)
            dupField.subList(dupField.size() - 2, dupField.size()).clear();
            var loaded = (io.spinel.core.type.hash.HashValue) loadPacked(Rdb.TYPE_HASH_LISTPACK, dupField);
            assertThat(loaded.length()).isEqualTo(n);
            assertThat(loaded.encoding()).isEqualTo(n > 512 ? "hashtable" : "listpack");
            dupMember.subList(dupMember.size() - 2, dupMember.size()).clear();
            var members = (io.spinel.core.type.zset.ZSet) loadPacked(Rdb.TYPE_ZSET_LISTPACK, dupMember);
            assertThat(members.size()).isEqualTo(n);
            assertThat(members.encoding()).isEqualTo(n > 128 ? "skiplist" : "listpack");
        }
    }

    /** Redis's "dict init to huge size" fuzzer finding: a count of 2^63 or more is corrupt, not an empty set. */
    @Test
    void aCountPastTwoToTheSixtyThirdIsCorrupt() {
        io.spinel.core.keyspace.EncodingConfig cfg =
                new io.spinel.core.keyspace.EncodingConfig(new io.spinel.core.config.Config());
        byte[] hugeCount = {(byte) 0x81, (byte) 0xC0, 0x00, 0x02, 0x5F, 0x31, (byte) 0xC0, 0x02, 0x09, 0x00};
        for (int type : new int[] {Rdb.TYPE_SET, Rdb.TYPE_LIST, Rdb.TYPE_HASH, Rdb.TYPE_ZSET_2}) {
            assertThatThrownBy(() -> ValueCodec.read(type, new RdbIn(hugeCount, 0, hugeCount.length), Bytes.ascii("k"), -1, 0, cfg))
                    .as("type " + type).isInstanceOf(RdbException.class).hasMessageStartingWith("Length out of range: 1383");
        }
    }

    @Test
    void ziplistAndZipmapAreRead() {
        byte[] zl = OldEncodings.ziplist("hello", 5L, -1L, 12L, 13L, 300L, -70000L, 1L << 40, "x".repeat(70), "y".repeat(20000));
        assertThat(elements(new Ziplist(zl, 0, zl.length, "Ziplist")))
                .containsExactly("hello", 5L, -1L, 12L, 13L, 300L, -70000L, 1L << 40, "x".repeat(70), "y".repeat(20000));
        byte[] zm = OldEncodings.zipmap("f1", "v1", "field2", "z".repeat(300));
        assertThat(elements(new Zipmap(zm, 0, zm.length))).containsExactly("f1", "v1", "field2", "z".repeat(300));
        byte[] broken = java.util.Arrays.copyOf(zl, zl.length - 1);
        // the error names the blob as Redis's does for each type
        assertThatThrownBy(() -> new Ziplist(broken, 0, broken.length, "Zset ziplist")).isInstanceOf(RdbException.class)
                .hasMessage("Zset ziplist integrity check failed.");
        // an empty zipmap, and one whose count byte is wrong, are corrupt (Redis's zipmapValidateIntegrity)
        byte[] empty = {0, (byte) 0xFF};
        assertThatThrownBy(() -> elements(new Zipmap(empty, 0, empty.length))).hasMessage("Zipmap integrity check failed.");
        byte[] miscounted = zm.clone();
        miscounted[0] = 3;
        assertThatThrownBy(() -> elements(new Zipmap(miscounted, 0, miscounted.length))).hasMessage("Zipmap integrity check failed.");
    }

    @Test
    void manifestFormatsAndParsesRedisSyntax() throws Exception {
        AofManifest m = new AofManifest();
        m.newBase("appendonly.aof", true);
        m.newIncr("appendonly.aof");
        m.newIncr("appendonly.aof");
        assertThat(m.format()).isEqualTo("file appendonly.aof.1.base.rdb seq 1 type b\n"
                + "file appendonly.aof.1.incr.aof seq 1 type i\nfile appendonly.aof.2.incr.aof seq 2 type i\n");
        m.newBase("appendonly.aof", false);
        m.markRewrittenIncrsAsHistory(true);
        assertThat(m.format()).isEqualTo("file appendonly.aof.2.base.aof seq 2 type b\n"
                + "file appendonly.aof.1.incr.aof seq 1 type h\nfile appendonly.aof.1.base.rdb seq 1 type h\n"
                + "file appendonly.aof.2.incr.aof seq 2 type i\n");
        assertThat(AofManifest.repr("my aof")).isEqualTo("\"my aof\"");
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("manifest");
        java.nio.file.Path f = dir.resolve("x.manifest");
        java.nio.file.Files.writeString(f, "# comment\nfile \"a b.1.base.rdb\" seq 1 type b\nfile a.3.incr.aof seq 3 type i\n");
        AofManifest p = AofManifest.parse(f);
        assertThat(p.base.name()).isEqualTo("a b.1.base.rdb");
        assertThat(p.incrSeq).isEqualTo(3);
        java.nio.file.Files.writeString(f, "file a.2.incr.aof seq 2 type i\nfile a.1.incr.aof seq 1 type i\n");
        assertThatThrownBy(() -> AofManifest.parse(f)).hasMessageContaining("Found a non-monotonic sequence number");
        java.nio.file.Files.writeString(f, "file a.1.base.rdb seq 1 type b\n\nfile a.1.incr.aof seq 1 type i\n");
        assertThatThrownBy(() -> AofManifest.parse(f)).hasMessageContaining("Invalid AOF manifest file format");
        java.nio.file.Files.writeString(f, "file a.1.base.rdb seq 1 type x\n");
        assertThatThrownBy(() -> AofManifest.parse(f)).hasMessageContaining("Unknown AOF file type");
        java.nio.file.Files.writeString(f, "");
        assertThatThrownBy(() -> AofManifest.parse(f)).hasMessageContaining("Found an empty AOF manifest");
        java.nio.file.Files.writeString(f, "file a.1.base.rdb seq 1 type b");
        assertThatThrownBy(() -> AofManifest.parse(f)).hasMessageContaining("too long line");
    }
}
