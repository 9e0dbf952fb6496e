package io.spinel.core.cluster;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

import static io.spinel.core.cluster.ClusterMessage.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The bus codec against the layout of redis-server 7.0's cluster messages: a PONG captured from
 * a real 7.0.15 node (ClusterBusWireTest talks to a live one), the offset of every header and
 * gossip field, the extension framing, every type's round trip, and the malformed messages a
 * receiver must drop.
 */
class ClusterMessageTest {
    private static final String A = "a".repeat(39) + "1", B = "0123456789abcdef0123456789abcdef01234567",
            C = "fedcba9876543210fedcba9876543210fedcba98";

    /**
     * A PONG that redis-server 7.0.15 (client port 36101, bus port 36102, cluster-announce-hostname
     * redis-bus-test, slots 0 1 100 16383, configEpoch 10) sent to a node in its cluster,
     * gossiping about another node (127.0.0.1:36120@36121): offset and hex of each non-zero run,
     * every other byte of its 2384 is zero.
     */
    private static final Object[] REDIS_PONG = {
            0, "52436d62" + "00000950" + "0001" + "8d05" + "0001" + "0001", // sig, totlen, ver, port, type, count
            16, "000000000000000a" + "000000000000000a", // currentEpoch, configEpoch
            40, hex("dc717b15b3e844a41c42274d03ed04283bba4040"), // sender
            80, "03", 92, "10", 2127, "80", // slot bitmap: 0 and 1, 100, 16383
            2214, "0001", // extensions
            2246, "0000" + "8d06" + "0011" + "01" + "04", // pport, cport, flags MASTER|MYSELF, state FAIL, mflags EXT_DATA
            2256, hex("b".repeat(40)), // gossip: name
            2296, "00000000" + "6b1670b9" + hex("127.0.0.1"), // ping_sent, pong_received, ip
            2350, "8d18" + "8d19" + "0001" + "0000", // port, cport, flags, pport
            2360, "00000018" + "0000" + "0000" + hex("redis-bus-test"), // extension: length 24, type hostname, name
    };

    private static byte[] sparse(int length, Object... runs) {
        byte[] b = new byte[length];
        for (int i = 0; i < runs.length; i += 2) {
            String h = (String) runs[i + 1];
            for (int j = 0; j < h.length() / 2; j++) {
                b[(Integer) runs[i] + j] = (byte) Integer.parseInt(h.substring(2 * j, 2 * j + 2), 16);
            }
        }
        return b;
    }

    private static String hex(String ascii) {
        StringBuilder s = new StringBuilder();
        for (byte c : ascii.getBytes(StandardCharsets.US_ASCII)) s.append(String.format("%02x", c));
        return s.toString();
    }

    @Test
    void decodesAPongCapturedFromRedis7AndEncodesItBackByteForByte() {
        byte[] wire = sparse(2384, REDIS_PONG);
        assertThat(frameLength(wire, 0)).isEqualTo(2384);

        ClusterMessage m = decode(wire);
        assertThat(m.type).isEqualTo(PONG);
        assertThat(m.sender).isEqualTo("dc717b15b3e844a41c42274d03ed04283bba4040");
        assertThat(m.port).isEqualTo(36101);
        assertThat(m.cport).isEqualTo(36102);
        assertThat(m.pport).isZero();
        assertThat(m.flags).isEqualTo(NODE_MASTER | NODE_MYSELF);
        assertThat(m.currentEpoch).isEqualTo(10);
        assertThat(m.configEpoch).isEqualTo(10);
        assertThat(m.offset).isZero();
        assertThat(slotList(m.slots)).containsExactly(0, 1, 100, 16383);
        assertThat(m.replicaOf).isNull();
        assertThat(m.ip).isEmpty();
        assertThat(m.state).isEqualTo(STATE_FAIL);
        assertThat(m.mflags).containsExactly(MFLAG0_EXT_DATA, 0, 0);
        assertThat(m.gossip).containsExactly(
                new Gossip("b".repeat(40), 0, 0x6b1670b9L, "127.0.0.1", 36120, 36121, NODE_MASTER, 0));
        assertThat(m.hostname).isEqualTo("redis-bus-test");
        assertThat(m.otherExtensions).isEmpty();

        assertThat(m.encode()).isEqualTo(wire);
    }

    /** A PING with a distinct value in every field, two gossip entries and a hostname. */
    private static ClusterMessage samplePing() {
        ClusterMessage m = new ClusterMessage(PING);
        m.port = 0x1234;
        m.cport = 0x5678;
        m.pport = 0x9abc;
        m.currentEpoch = 0x0102030405060708L;
        m.configEpoch = 0x1112131415161718L;
        m.offset = 0x2122232425262728L;
        m.sender = A;
        setSlot(m.slots, 0);
        setSlot(m.slots, 9);
        setSlot(m.slots, 5000);
        setSlot(m.slots, 16383);
        m.replicaOf = B;
        m.ip = "10.1.2.3";
        m.flags = NODE_SLAVE | NODE_NOFAILOVER;
        m.state = STATE_OK;
        m.mflags[0] = MFLAG0_PAUSED;
        m.gossip.add(new Gossip(B, 0xfedcba98L, 7, "192.168.0.1", 7001, 17001, NODE_MASTER | NODE_PFAIL, 0));
        m.gossip.add(new Gossip(C, 0, 0, "::1", 7000, 17000, NODE_SLAVE, 7001));
        m.hostname = "node-1.example"; // 14 bytes and a zero: 16 after padding
        return m;
    }

    @Test
    void headerFieldsSitAtRedisOffsetsInNetworkByteOrder() {
        byte[] w = samplePing().encode();
        ByteBuffer b = ByteBuffer.wrap(w);
        int totlen = 2256 + 2 * 104 + 8 + 16;
        assertThat(w).hasSize(totlen);
        assertThat(Arrays.copyOfRange(w, 0, 4)).isEqualTo("RCmb".getBytes(StandardCharsets.US_ASCII));
        assertThat(b.getInt(4)).isEqualTo(totlen);
        assertThat(b.getShort(8)).isEqualTo((short) 1); // version
        assertThat(Arrays.copyOfRange(w, 10, 12)).containsExactly(0x12, 0x34); // port, big-endian
        assertThat(b.getShort(12)).isEqualTo((short) PING);
        assertThat(b.getShort(14)).isEqualTo((short) 2); // count: gossip entries
        assertThat(Arrays.copyOfRange(w, 16, 24)).containsExactly(1, 2, 3, 4, 5, 6, 7, 8); // currentEpoch
        assertThat(b.getLong(24)).isEqualTo(0x1112131415161718L);
        assertThat(b.getLong(32)).isEqualTo(0x2122232425262728L);
        assertThat(new String(w, 40, 40, StandardCharsets.US_ASCII)).isEqualTo(A);
        // Slot s is bit s % 8 (least significant first) of byte s / 8 of the bitmap at 80.
        assertThat(w[80]).isEqualTo((byte) 0x01);
        assertThat(w[81]).isEqualTo((byte) 0x02);
        assertThat(w[80 + 625]).isEqualTo((byte) 0x01); // 5000 = 625 * 8
        assertThat(w[80 + 2047]).isEqualTo((byte) 0x80);
        assertThat(new String(w, 2128, 40, StandardCharsets.US_ASCII)).isEqualTo(B);
        assertThat(new String(w, 2168, 8, StandardCharsets.US_ASCII)).isEqualTo("10.1.2.3");
        assertThat(Arrays.copyOfRange(w, 2176, 2214)).containsOnly(0); // the rest of the 46-byte ip
        assertThat(b.getShort(2214)).isEqualTo((short) 1); // extensions
        assertThat(Arrays.copyOfRange(w, 2216, 2246)).containsOnly(0); // 30 reserved bytes
        assertThat(Arrays.copyOfRange(w, 2246, 2252)).containsExactly(0x9a, 0xbc, 0x56, 0x78, 0x02, 0x02); // pport, cport, flags
        assertThat(b.getShort(2250)).isEqualTo((short) (NODE_SLAVE | NODE_NOFAILOVER));
        assertThat(w[2252]).isEqualTo((byte) STATE_OK);
        assertThat(Arrays.copyOfRange(w, 2253, 2256)).containsExactly(MFLAG0_PAUSED | MFLAG0_EXT_DATA, 0, 0);

        // Gossip entries, 104 bytes each, from 2256.
        int g = 2256;
        assertThat(new String(w, g, 40, StandardCharsets.US_ASCII)).isEqualTo(B);
        assertThat(Arrays.copyOfRange(w, g + 40, g + 48)).containsExactly(0xfe, 0xdc, 0xba, 0x98, 0, 0, 0, 7);
        assertThat(new String(w, g + 48, 11, StandardCharsets.US_ASCII)).isEqualTo("192.168.0.1");
        assertThat(Arrays.copyOfRange(w, g + 59, g + 94)).containsOnly(0);
        assertThat(b.getShort(g + 94)).isEqualTo((short) 7001);
        assertThat(b.getShort(g + 96)).isEqualTo((short) 17001);
        assertThat(b.getShort(g + 98)).isEqualTo((short) (NODE_MASTER | NODE_PFAIL));
        assertThat(b.getShort(g + 100)).isEqualTo((short) 0);
        assertThat(b.getShort(g + 102)).isEqualTo((short) 0);
        g += 104;
        assertThat(new String(w, g, 40, StandardCharsets.US_ASCII)).isEqualTo(C);
        assertThat(b.getShort(g + 100)).isEqualTo((short) 7001);

        // The hostname extension after the last entry: length (header and padding included), type, unused, name, zeros.
        int e = 2256 + 208;
        assertThat(b.getInt(e)).isEqualTo(24);
        assertThat(b.getShort(e + 4)).isEqualTo((short) EXT_HOSTNAME);
        assertThat(b.getShort(e + 6)).isEqualTo((short) 0);
        assertThat(new String(w, e + 8, 14, StandardCharsets.US_ASCII)).isEqualTo("node-1.example");
        assertThat(Arrays.copyOfRange(w, e + 22, e + 24)).containsOnly(0);
    }

    @Test
    void hostnameExtensionPadsNameAndZeroToEightBytes() {
        for (int len = 0; len <= 17; len++) {
            ClusterMessage m = new ClusterMessage(PONG);
            m.sender = A;
            m.hostname = "h".repeat(len);
            byte[] w = m.encode();
            int ext = 8 + (len + 1 + 7) / 8 * 8;
            assertThat(hostnameExtensionSize(m.hostname)).isEqualTo(ext);
            assertThat(w).hasSize(HEADER_SIZE + ext);
            assertThat(ByteBuffer.wrap(w).getInt(HEADER_SIZE)).isEqualTo(ext);
            assertThat(Arrays.copyOfRange(w, HEADER_SIZE + 8 + len, w.length)).containsOnly(0);
            assertThat(decode(w).hostname).isEqualTo(m.hostname);
        }
        ClusterMessage none = new ClusterMessage(PONG);
        none.sender = A;
        none.mflags[0] = MFLAG0_EXT_DATA; // no extension: encode clears the flag as Redis leaves it clear
        byte[] w = none.encode();
        assertThat(w).hasSize(HEADER_SIZE);
        assertThat(w[2253]).isZero();
        assertThat(ByteBuffer.wrap(w).getShort(2214)).isZero();
        assertThat(decode(w).hostname).isNull();
    }

    @Test
    void slotBitmapUsesRedisBitOrder() {
        byte[] bitmap = new byte[SLOT_BITMAP_SIZE];
        setSlot(bitmap, 7);
        setSlot(bitmap, 8);
        setSlot(bitmap, 16383);
        assertThat(bitmap[0]).isEqualTo((byte) 0x80);
        assertThat(bitmap[1]).isEqualTo((byte) 0x01);
        assertThat(bitmap[2047]).isEqualTo((byte) 0x80);
        assertThat(slotList(bitmap)).containsExactly(7, 8, 16383);
        assertThat(testSlot(bitmap, 6)).isFalse();
    }

    private static void assertSameHeader(ClusterMessage d, ClusterMessage m) {
        assertThat(d.type).isEqualTo(m.type);
        assertThat(d.port).isEqualTo(m.port);
        assertThat(d.cport).isEqualTo(m.cport);
        assertThat(d.pport).isEqualTo(m.pport);
        assertThat(d.currentEpoch).isEqualTo(m.currentEpoch);
        assertThat(d.configEpoch).isEqualTo(m.configEpoch);
        assertThat(d.offset).isEqualTo(m.offset);
        assertThat(d.sender).isEqualTo(m.sender);
        assertThat(d.slots).isEqualTo(m.slots);
        assertThat(d.replicaOf).isEqualTo(m.replicaOf);
        assertThat(d.ip).isEqualTo(m.ip);
        assertThat(d.flags).isEqualTo(m.flags);
        assertThat(d.state).isEqualTo(m.state);
    }

    private static ClusterMessage header(int type) {
        ClusterMessage m = new ClusterMessage(type);
        m.port = 7000;
        m.cport = 17000;
        m.currentEpoch = -1; // unsigned 2^64 - 1
        m.configEpoch = 42;
        m.offset = 123456789L;
        m.sender = C;
        setSlot(m.slots, 1234);
        m.ip = "127.0.0.1";
        m.flags = NODE_MASTER;
        m.state = STATE_FAIL;
        return m;
    }

    private static ClusterMessage roundTrip(ClusterMessage m, int expectedLength) {
        byte[] w = m.encode();
        assertThat(w).hasSize(expectedLength);
        assertThat(m.encodedLength()).isEqualTo(expectedLength);
        assertThat(frameLength(w, 0)).isEqualTo(expectedLength);
        ClusterMessage d = decode(w);
        assertSameHeader(d, m);
        assertThat(d.encode()).isEqualTo(w);
        return d;
    }

    @Test
    void pingPongAndMeetRoundTrip() {
        for (int type : new int[] {PING, PONG, MEET}) {
            ClusterMessage m = samplePing();
            m.type = type;
            m.otherExtensions.add(new Extension(7, new byte[] {1, 2, 3, 4, 5, 6, 7, 8}));
            ClusterMessage d = roundTrip(m, 2256 + 208 + 24 + 16);
            assertThat(d.gossip).isEqualTo(m.gossip);
            assertThat(d.hostname).isEqualTo("node-1.example");
            assertThat(d.otherExtensions).hasSize(1);
            assertThat(d.otherExtensions.get(0).type()).isEqualTo(7);
            assertThat(d.otherExtensions.get(0).data()).containsExactly(1, 2, 3, 4, 5, 6, 7, 8);
            assertThat(d.mflags).containsExactly(MFLAG0_PAUSED | MFLAG0_EXT_DATA, 0, 0);
            assertThat(ByteBuffer.wrap(d.encode()).getShort(2214)).isEqualTo((short) 2);
        }
        ClusterMessage bare = header(PING); // no gossip, no extension: just the header
        ClusterMessage d = roundTrip(bare, HEADER_SIZE);
        assertThat(d.gossip).isEmpty();
        assertThat(d.hostname).isNull();
        assertThat(d.replicaOf).isNull();
    }

    @Test
    void failRoundTrip() {
        ClusterMessage m = header(FAIL);
        m.failing = B;
        assertThat(roundTrip(m, 2296).failing).isEqualTo(B);
    }

    @Test
    void publishAndPublishShardRoundTrip() {
        for (int type : new int[] {PUBLISH, PUBLISHSHARD}) {
            ClusterMessage m = header(type);
            m.channel = "news".getBytes(StandardCharsets.US_ASCII);
            m.message = new byte[] {0, '\r', '\n', (byte) 0xff, 'x'};
            byte[] w = m.encode();
            assertThat(ByteBuffer.wrap(w).getInt(2256)).isEqualTo(4);
            assertThat(ByteBuffer.wrap(w).getInt(2260)).isEqualTo(5);
            assertThat(new String(w, 2264, 4, StandardCharsets.US_ASCII)).isEqualTo("news");
            ClusterMessage d = roundTrip(m, 2256 + 8 + 4 + 5);
            assertThat(d.channel).isEqualTo(m.channel);
            assertThat(d.message).isEqualTo(m.message);
        }
        ClusterMessage empty = header(PUBLISH);
        empty.channel = new byte[0];
        empty.message = new byte[0];
        assertThat(roundTrip(empty, 2264).message).isEmpty();
    }

    @Test
    void headerOnlyTypesRoundTrip() {
        for (int type : new int[] {FAILOVER_AUTH_REQUEST, FAILOVER_AUTH_ACK, MFSTART}) {
            ClusterMessage m = header(type);
            m.mflags[0] = MFLAG0_FORCEACK;
            ClusterMessage d = roundTrip(m, HEADER_SIZE);
            assertThat(d.mflags).containsExactly(MFLAG0_FORCEACK, 0, 0);
        }
    }

    @Test
    void updateRoundTrip() {
        ClusterMessage m = header(UPDATE);
        m.updateConfigEpoch = 0x0a0b0c0d0e0f1011L;
        m.updateNode = B;
        m.updateSlots = new byte[SLOT_BITMAP_SIZE];
        setSlot(m.updateSlots, 5000);
        setSlot(m.updateSlots, 16383);
        byte[] w = m.encode();
        assertThat(ByteBuffer.wrap(w).getLong(2256)).isEqualTo(0x0a0b0c0d0e0f1011L);
        assertThat(new String(w, 2264, 40, StandardCharsets.US_ASCII)).isEqualTo(B);
        assertThat(w[2304 + 625]).isEqualTo((byte) 1);
        ClusterMessage d = roundTrip(m, 4352);
        assertThat(d.updateConfigEpoch).isEqualTo(m.updateConfigEpoch);
        assertThat(d.updateNode).isEqualTo(B);
        assertThat(slotList(d.updateSlots)).containsExactly(5000, 16383);
    }

    @Test
    void moduleRoundTripKeepsTheIdInTheSendersByteOrder() {
        ClusterMessage m = header(MODULE);
        m.moduleId = 0x0807060504030201L;
        m.moduleType = 200;
        m.payload = "hello".getBytes(StandardCharsets.US_ASCII);
        byte[] w = m.encode();
        assertThat(Arrays.copyOfRange(w, 2256, 2264)).containsExactly(1, 2, 3, 4, 5, 6, 7, 8);
        assertThat(ByteBuffer.wrap(w).getInt(2264)).isEqualTo(5);
        assertThat(w[2268] & 0xff).isEqualTo(200);
        ClusterMessage d = roundTrip(m, 2256 + 13 + 5);
        assertThat(d.moduleId).isEqualTo(m.moduleId);
        assertThat(d.moduleType).isEqualTo(200);
        assertThat(d.payload).isEqualTo(m.payload);
    }

    @Test
    void unknownTypeIsAcceptedWithItsBodyRaw() {
        ClusterMessage m = header(42);
        m.rawBody = new byte[] {9, 8, 7};
        ClusterMessage d = roundTrip(m, HEADER_SIZE + 3);
        assertThat(d.rawBody).containsExactly(9, 8, 7);
    }

    // --- what a receiver drops

    private static byte[] patched(ClusterMessage m, Consumer<ByteBuffer> patch) {
        byte[] w = m.encode();
        patch.accept(ByteBuffer.wrap(w));
        return w;
    }

    private static void assertRejected(byte[] w, String reason) {
        assertThatThrownBy(() -> decode(w)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(reason);
    }

    @Test
    void framingRejectsBadSignatureAndShortLength() {
        byte[] good = samplePing().encode();
        assertThat(frameLength(good, 0)).isEqualTo(good.length);
        byte[] shifted = new byte[good.length + 3];
        System.arraycopy(good, 0, shifted, 3, good.length);
        assertThat(frameLength(shifted, 3)).isEqualTo(good.length);
        assertThat(decode(shifted, 3, good.length).sender).isEqualTo(A);

        byte[] badSig = patched(samplePing(), b -> b.put(3, (byte) 'B'));
        assertThat(frameLength(badSig, 0)).isEqualTo(-1);
        assertRejected(badSig, "signature");

        byte[] shortLen = patched(samplePing(), b -> b.putInt(4, HEADER_SIZE - 1));
        assertThat(frameLength(shortLen, 0)).isEqualTo(-1);
        assertRejected(shortLen, "below the header");

        byte[] huge = patched(samplePing(), b -> b.putInt(4, -1)); // 4 GiB - 1 as unsigned
        assertThat(frameLength(huge, 0)).isEqualTo(-1);

        assertThatThrownBy(() -> frameLength(new byte[7], 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void rejectsWrongVersionAndTruncation() {
        assertRejected(patched(samplePing(), b -> b.putShort(8, (short) 2)), "version 2");
        assertRejected(patched(samplePing(), b -> b.putShort(8, (short) 0)), "version 0");

        byte[] w = samplePing().encode();
        assertRejected(Arrays.copyOf(w, w.length - 1), "truncated");
        assertRejected(Arrays.copyOf(w, 5), "truncated");
        assertRejected(Arrays.copyOf(w, w.length + 1), "bytes given");
    }

    @Test
    void rejectsTotlenThatDisagreesWithGossipCount() {
        ClusterMessage plain = samplePing();
        plain.hostname = null; // no extension: totlen must be exactly header + count * 104
        assertThat(decode(plain.encode()).gossip).hasSize(2);
        assertRejected(patched(plain, b -> b.putShort(14, (short) 3)), "too short for 3 gossip entries");
        assertRejected(patched(plain, b -> b.putShort(14, (short) 1)), "1 gossip entries");
        // A message one entry longer than its count says.
        byte[] longer = Arrays.copyOf(plain.encode(), HEADER_SIZE + 3 * GOSSIP_SIZE);
        ByteBuffer.wrap(longer).putInt(4, longer.length);
        assertRejected(longer, "2 gossip entries");
    }

    @Test
    void rejectsMalformedExtensions() {
        int ext = HEADER_SIZE + 2 * GOSSIP_SIZE; // where samplePing's hostname extension starts
        assertRejected(patched(samplePing(), b -> b.putInt(ext, 20)), "not padded");
        assertRejected(patched(samplePing(), b -> b.putInt(ext, 32)), "past totlen");
        assertRejected(patched(samplePing(), b -> b.putInt(ext, 0)), "below its header");
        assertRejected(patched(samplePing(), b -> b.putShort(2214, (short) 2)), "extension 1 header past totlen");
        // Without the EXT_DATA flag the extension bytes are not counted: the length no longer adds up.
        assertRejected(patched(samplePing(), b -> b.put(2253, (byte) MFLAG0_PAUSED)), "2 gossip entries");
        // A hostname filling its whole payload leaves no terminating zero.
        assertRejected(patched(samplePing(), b -> b.put(ext + 8 + 14, (byte) 'x').put(ext + 8 + 15, (byte) 'y')),
                "terminating zero");
        // With the flag and a zero extension count, nothing may follow the gossip.
        assertRejected(patched(samplePing(), b -> b.putShort(2214, (short) 0)), "2 gossip entries");
    }

    @Test
    void rejectsLengthMismatchesOfFixedSizeTypes() {
        ClusterMessage fail = header(FAIL);
        fail.failing = B;
        byte[] w = Arrays.copyOf(fail.encode(), 2297);
        ByteBuffer.wrap(w).putInt(4, 2297);
        assertRejected(w, "takes 2296");

        ClusterMessage ack = header(FAILOVER_AUTH_ACK);
        byte[] a = Arrays.copyOf(ack.encode(), HEADER_SIZE + 8);
        ByteBuffer.wrap(a).putInt(4, a.length);
        assertRejected(a, "takes 2256");

        ClusterMessage update = header(UPDATE);
        update.updateNode = B;
        update.updateSlots = new byte[SLOT_BITMAP_SIZE];
        byte[] u = Arrays.copyOf(update.encode(), 4351);
        ByteBuffer.wrap(u).putInt(4, 4351);
        assertRejected(u, "takes 4352");
    }

    @Test
    void rejectsPublishAndModuleLengthsThatDisagreeOrOverflow() {
        ClusterMessage m = header(PUBLISH);
        m.channel = "a".getBytes(StandardCharsets.US_ASCII);
        m.message = "b".getBytes(StandardCharsets.US_ASCII);
        assertRejected(patched(m, b -> b.putInt(2256, 2)), "takes 2267");
        assertRejected(patched(m, b -> b.putInt(2260, 0)), "takes 2265");
        // 0xffffffff + 3 wraps to 2 in 32 bits, which is what the message holds: still refused.
        assertRejected(patched(m, b -> b.putInt(2256, -1).putInt(2260, 3)), "takes");
        byte[] tooShort = Arrays.copyOf(m.encode(), HEADER_SIZE + 4);
        ByteBuffer.wrap(tooShort).putInt(4, tooShort.length);
        assertRejected(tooShort, "too short for a publish");

        ClusterMessage mod = header(MODULE);
        mod.payload = new byte[] {1, 2, 3};
        assertRejected(patched(mod, b -> b.putInt(2264, 4)), "takes 2273");
        assertRejected(patched(mod, b -> b.putInt(2264, -1)), "takes");
    }

    @Test
    void encodeRefusesFieldsTheLayoutCannotHold() {
        ClusterMessage m = header(PING);
        m.sender = "abc";
        assertThatThrownBy(m::encode).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("sender");
        ClusterMessage ip = header(PING);
        ip.ip = "x".repeat(46);
        assertThatThrownBy(ip::encode).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ip");
        ClusterMessage port = header(PING);
        port.port = 70000;
        assertThatThrownBy(port::encode).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("port");
        ClusterMessage g = header(PONG);
        g.gossip = List.of(new Gossip(B, 0, 0, "1.2.3.4", 1, 2, 0, 0), new Gossip("short", 0, 0, "", 1, 2, 0, 0));
        assertThatThrownBy(g::encode).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("gossip name");
    }
}
