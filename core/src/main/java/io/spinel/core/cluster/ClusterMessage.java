package io.spinel.core.cluster;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One message of the Redis Cluster bus, in the binary layout redis-server 7.0 writes on its
 * cluster port: a fixed header of {@link #HEADER_SIZE} bytes (signature "RCmb", total length,
 * protocol version 1, the sender's identity, epochs and slot bitmap), then a body whose shape
 * depends on the type. Multi-byte integers travel in network byte order, except a MODULE
 * message's module id, which Redis copies as it is in memory (see {@link #moduleId}).
 *
 * <p>A reader frames the stream as Redis does: 8 bytes first, then {@link #frameLength} (Redis
 * closes the link when it fails), then the rest. {@link #decode} refuses what redis-server 7.0
 * drops as malformed while keeping the link (a protocol version other than 1, a total length that
 * disagrees with what the type's fields say), and a few things Redis lets through only to misread
 * them later (an extension shorter than its own header, a hostname without its terminating zero,
 * channel and message lengths whose sum wraps around 32 bits). Types it does not know decode with
 * their body kept raw, as Redis accepts them (and then ignores them).
 */
public final class ClusterMessage {
    public static final int PING = 0, PONG = 1, MEET = 2, FAIL = 3, PUBLISH = 4, FAILOVER_AUTH_REQUEST = 5,
            FAILOVER_AUTH_ACK = 6, UPDATE = 7, MFSTART = 8, MODULE = 9, PUBLISHSHARD = 10;

    /** Node flags, in a header's flags field and in gossip entries. */
    public static final int NODE_MASTER = 1, NODE_SLAVE = 2, NODE_PFAIL = 4, NODE_FAIL = 8, NODE_MYSELF = 16,
            NODE_HANDSHAKE = 32, NODE_NOADDR = 64, NODE_MEET = 128, NODE_MIGRATE_TO = 256, NODE_NOFAILOVER = 512;

    /** Bits of mflags[0]. EXT_DATA is managed by {@link #encode}: set exactly when extensions follow the gossip. */
    public static final int MFLAG0_PAUSED = 1, MFLAG0_FORCEACK = 2, MFLAG0_EXT_DATA = 4;

    /** Cluster state in the header. */
    public static final int STATE_OK = 0, STATE_FAIL = 1;

    /** Ping extension types; 7.0 defines only the hostname. */
    public static final int EXT_HOSTNAME = 0;

    public static final int PROTOCOL_VERSION = 1;
    public static final int NAME_LENGTH = 40;
    public static final int SLOTS = 16384;
    public static final int SLOT_BITMAP_SIZE = SLOTS / 8;
    /** Room for an address in the header and in gossip entries: INET6_ADDRSTRLEN, its last byte always zero. */
    public static final int IP_FIELD_SIZE = 46;

    // Header offsets (the header is the fixed part every message has).
    static final int OFF_SIGNATURE = 0, OFF_TOTLEN = 4, OFF_VERSION = 8, OFF_PORT = 10, OFF_TYPE = 12, OFF_COUNT = 14,
            OFF_CURRENT_EPOCH = 16, OFF_CONFIG_EPOCH = 24, OFF_OFFSET = 32, OFF_SENDER = 40, OFF_SLOTS = 80,
            OFF_REPLICA_OF = 2128, OFF_IP = 2168, OFF_EXTENSIONS = 2214, OFF_RESERVED = 2216, OFF_PPORT = 2246,
            OFF_CPORT = 2248, OFF_FLAGS = 2250, OFF_STATE = 2252, OFF_MFLAGS = 2253;
    /** Bytes before the body; also the shortest message a receiver reads past its first 8 bytes. */
    public static final int HEADER_SIZE = 2256;

    /** A gossip entry: name 40, ping_sent 4, pong_received 4, ip 46, port, cport, flags, pport and 2 unused, 2 each. */
    public static final int GOSSIP_SIZE = 104;
    /** An extension's own header: length (4, counting this header and the padding), type (2), 2 unused. */
    public static final int EXTENSION_HEADER_SIZE = 8;
    public static final int FAIL_BODY_SIZE = NAME_LENGTH;
    /** channel_len and message_len before the channel and message bytes. */
    public static final int PUBLISH_BODY_HEADER_SIZE = 8;
    /** configEpoch 8, node name 40, slot bitmap 2048. */
    public static final int UPDATE_BODY_SIZE = 8 + NAME_LENGTH + SLOT_BITMAP_SIZE;
    /** module id 8, payload length 4, module message type 1. */
    public static final int MODULE_BODY_HEADER_SIZE = 13;

    private static final byte[] SIGNATURE = {'R', 'C', 'm', 'b'};

    public int type;
    /** The sender's client port, bus port, and plaintext port (non-zero only when the client port is TLS). */
    public int port, cport, pport;
    /** Unsigned 64-bit values. A replica sends its master's configEpoch. */
    public long currentEpoch, configEpoch, offset;
    /** The sender's node name: 40 characters, hex for every node Redis creates. */
    public String sender;
    /** Slots the sender (or, for a replica, its master) serves: slot s is bit (s & 7) of byte s >> 3. */
    public byte[] slots = new byte[SLOT_BITMAP_SIZE];
    /** The master's name when the sender is a replica; null for a master (40 zero bytes on the wire). */
    public String replicaOf;
    /** The address the sender announces; "" leaves it to the receiver, which then takes the connection's peer address. */
    public String ip = "";
    public int flags, state;
    /** mflags[0] holds the MFLAG0_* bits; the other two bytes are unused by 7.0. */
    public byte[] mflags = new byte[3];

    // PING, PONG, MEET
    public List<Gossip> gossip = new ArrayList<>();
    /** The hostname extension's value; null when the message has none (Redis then forgets the sender's hostname). */
    public String hostname;
    /** Extensions of other types, kept so that re-encoding loses nothing. Written after the hostname. */
    public List<Extension> otherExtensions = new ArrayList<>();

    // FAIL
    public String failing;

    // PUBLISH, PUBLISHSHARD
    public byte[] channel, message;

    // UPDATE
    public long updateConfigEpoch;
    public String updateNode;
    public byte[] updateSlots;

    // MODULE
    /**
     * Redis copies the id into the message without byte swapping, so it travels in the sender's
     * native order; this field holds it read least significant byte first, the order of the
     * little-endian machines Redis runs on (equal to the id Redis's module API computes there).
     */
    public long moduleId;
    public int moduleType;
    public byte[] payload;

    /** The body of a message of a type this codec does not know, everything after the header. */
    public byte[] rawBody;

    /**
     * What one node tells about another. The times are Unix seconds (Redis keeps milliseconds
     * and divides by 1000 for the wire), 0 when no ping is pending / no pong was ever received.
     */
    public record Gossip(String name, long pingSentSeconds, long pongReceivedSeconds, String ip, int port, int cport,
            int flags, int pport) {
    }

    /** A ping extension of a type other than the hostname: its payload is everything after its 8-byte header, padding included. */
    public record Extension(int type, byte[] data) {
    }

    public ClusterMessage() {
    }

    public ClusterMessage(int type) {
        this.type = type;
    }

    public static boolean isPingLike(int type) {
        return type == PING || type == PONG || type == MEET;
    }

    /** True if the sender serves the slot according to the header's bitmap. */
    public static boolean testSlot(byte[] bitmap, int slot) {
        return (bitmap[slot >> 3] & (1 << (slot & 7))) != 0;
    }

    public static void setSlot(byte[] bitmap, int slot) {
        bitmap[slot >> 3] |= (byte) (1 << (slot & 7));
    }

    /** The slots set in a bitmap, ascending. */
    public static List<Integer> slotList(byte[] bitmap) {
        List<Integer> l = new ArrayList<>();
        for (int s = 0; s < SLOTS; s++) {
            if (testSlot(bitmap, s)) l.add(s);
        }
        return l;
    }

    /** Bytes an encoded hostname extension takes: header, the name and its zero, padded to a multiple of 8. */
    public static int hostnameExtensionSize(String hostname) {
        return EXTENSION_HEADER_SIZE + align8(hostname.getBytes(StandardCharsets.ISO_8859_1).length + 1);
    }

    private static int align8(int n) {
        return (n + 7) & ~7;
    }

    /** The length the encoded message will have (its totlen). */
    public int encodedLength() {
        long n = switch (type) {
            case PING, PONG, MEET -> {
                long len = HEADER_SIZE + (long) GOSSIP_SIZE * gossip.size();
                if (hostname != null) len += hostnameExtensionSize(hostname);
                for (Extension e : otherExtensions) len += EXTENSION_HEADER_SIZE + e.data.length;
                yield len;
            }
            case FAIL -> HEADER_SIZE + FAIL_BODY_SIZE;
            case PUBLISH, PUBLISHSHARD -> HEADER_SIZE + PUBLISH_BODY_HEADER_SIZE
                    + (long) Objects.requireNonNull(channel, "channel").length + Objects.requireNonNull(message, "message").length;
            case FAILOVER_AUTH_REQUEST, FAILOVER_AUTH_ACK, MFSTART -> HEADER_SIZE;
            case UPDATE -> HEADER_SIZE + UPDATE_BODY_SIZE;
            case MODULE -> HEADER_SIZE + MODULE_BODY_HEADER_SIZE + (long) Objects.requireNonNull(payload, "payload").length;
            default -> HEADER_SIZE + (long) (rawBody == null ? 0 : rawBody.length);
        };
        if (n > Integer.MAX_VALUE - 8) throw new IllegalArgumentException("message too long: " + n + " bytes");
        return (int) n;
    }

    /** The whole message, totlen, count and the extension count filled in; every byte Redis leaves unused is zero. */
    public byte[] encode() {
        checkUnsigned16("type", type);
        checkUnsigned16("port", port);
        checkUnsigned16("cport", cport);
        checkUnsigned16("pport", pport);
        checkUnsigned16("flags", flags);
        if (state < 0 || state > 255) throw new IllegalArgumentException("state out of range: " + state);
        if (slots == null || slots.length != SLOT_BITMAP_SIZE) throw new IllegalArgumentException("slots must be " + SLOT_BITMAP_SIZE + " bytes");
        if (mflags == null || mflags.length != 3) throw new IllegalArgumentException("mflags must be 3 bytes");
        int totlen = encodedLength();
        ByteBuffer b = ByteBuffer.allocate(totlen).order(ByteOrder.BIG_ENDIAN);
        b.put(SIGNATURE);
        b.putInt(OFF_TOTLEN, totlen);
        b.putShort(OFF_VERSION, (short) PROTOCOL_VERSION);
        b.putShort(OFF_PORT, (short) port);
        b.putShort(OFF_TYPE, (short) type);
        b.putLong(OFF_CURRENT_EPOCH, currentEpoch);
        b.putLong(OFF_CONFIG_EPOCH, configEpoch);
        b.putLong(OFF_OFFSET, offset);
        putName(b, OFF_SENDER, "sender", sender);
        b.put(OFF_SLOTS, slots);
        if (replicaOf != null) putName(b, OFF_REPLICA_OF, "replicaOf", replicaOf);
        putIp(b, OFF_IP, ip == null ? "" : ip);
        b.putShort(OFF_PPORT, (short) pport);
        b.putShort(OFF_CPORT, (short) cport);
        b.putShort(OFF_FLAGS, (short) flags);
        b.put(OFF_STATE, (byte) state);
        b.put(OFF_MFLAGS, mflags);
        byte mflags0 = (byte) (mflags[0] & ~MFLAG0_EXT_DATA);
        int at = HEADER_SIZE;
        switch (type) {
            case PING, PONG, MEET -> {
                if (gossip.size() > 0xFFFF) throw new IllegalArgumentException("too many gossip entries: " + gossip.size());
                b.putShort(OFF_COUNT, (short) gossip.size());
                for (Gossip g : gossip) {
                    putName(b, at, "gossip name", g.name);
                    b.putInt(at + 40, (int) checkUnsigned32("pingSentSeconds", g.pingSentSeconds));
                    b.putInt(at + 44, (int) checkUnsigned32("pongReceivedSeconds", g.pongReceivedSeconds));
                    putIp(b, at + 48, g.ip == null ? "" : g.ip);
                    b.putShort(at + 94, (short) checkUnsigned16("gossip port", g.port));
                    b.putShort(at + 96, (short) checkUnsigned16("gossip cport", g.cport));
                    b.putShort(at + 98, (short) checkUnsigned16("gossip flags", g.flags));
                    b.putShort(at + 100, (short) checkUnsigned16("gossip pport", g.pport));
                    at += GOSSIP_SIZE;
                }
                int extensions = 0;
                if (hostname != null) {
                    byte[] h = hostname.getBytes(StandardCharsets.ISO_8859_1);
                    if (indexOfZero(h, 0, h.length) >= 0) throw new IllegalArgumentException("hostname contains a zero byte");
                    int size = hostnameExtensionSize(hostname);
                    b.putInt(at, size);
                    b.putShort(at + 4, (short) EXT_HOSTNAME);
                    b.put(at + EXTENSION_HEADER_SIZE, h);
                    at += size;
                    extensions++;
                }
                for (Extension e : otherExtensions) {
                    checkUnsigned16("extension type", e.type);
                    if (e.data.length % 8 != 0) throw new IllegalArgumentException("extension data must be padded to 8 bytes");
                    b.putInt(at, EXTENSION_HEADER_SIZE + e.data.length);
                    b.putShort(at + 4, (short) e.type);
                    b.put(at + EXTENSION_HEADER_SIZE, e.data);
                    at += EXTENSION_HEADER_SIZE + e.data.length;
                    extensions++;
                }
                b.putShort(OFF_EXTENSIONS, (short) extensions);
                if (extensions > 0) mflags0 |= MFLAG0_EXT_DATA;
            }
            case FAIL -> putName(b, at, "failing", failing);
            case PUBLISH, PUBLISHSHARD -> {
                b.putInt(at, channel.length);
                b.putInt(at + 4, message.length);
                b.put(at + PUBLISH_BODY_HEADER_SIZE, channel);
                b.put(at + PUBLISH_BODY_HEADER_SIZE + channel.length, message);
            }
            case FAILOVER_AUTH_REQUEST, FAILOVER_AUTH_ACK, MFSTART -> {
            }
            case UPDATE -> {
                if (updateSlots == null || updateSlots.length != SLOT_BITMAP_SIZE) {
                    throw new IllegalArgumentException("updateSlots must be " + SLOT_BITMAP_SIZE + " bytes");
                }
                b.putLong(at, updateConfigEpoch);
                putName(b, at + 8, "updateNode", updateNode);
                b.put(at + 8 + NAME_LENGTH, updateSlots);
            }
            case MODULE -> {
                if (moduleType < 0 || moduleType > 255) throw new IllegalArgumentException("moduleType out of range: " + moduleType);
                b.order(ByteOrder.LITTLE_ENDIAN).putLong(at, moduleId).order(ByteOrder.BIG_ENDIAN);
                b.putInt(at + 8, payload.length);
                b.put(at + 12, (byte) moduleType);
                b.put(at + MODULE_BODY_HEADER_SIZE, payload);
            }
            default -> {
                if (rawBody != null) b.put(at, rawBody);
            }
        }
        b.put(OFF_MFLAGS, mflags0);
        return b.array();
    }

    /**
     * The total length of the message that starts at buf[off], from its first 8 bytes (signature
     * and totlen), the check Redis's reader makes before it reads the rest: -1 when the signature
     * is not "RCmb", the length is below {@link #HEADER_SIZE}, or it does not fit a Java array.
     */
    public static int frameLength(byte[] buf, int off) {
        if (off < 0 || buf.length - off < 8) throw new IllegalArgumentException("the first 8 bytes of a message are needed");
        for (int i = 0; i < 4; i++) {
            if (buf[off + i] != SIGNATURE[i]) return -1;
        }
        long totlen = Integer.toUnsignedLong(ByteBuffer.wrap(buf, off + 4, 4).getInt());
        if (totlen < HEADER_SIZE || totlen > Integer.MAX_VALUE - 8) return -1;
        return (int) totlen;
    }

    public static ClusterMessage decode(byte[] buf) {
        return decode(buf, 0, buf.length);
    }

    /** Decodes exactly one message occupying buf[off, off + len). */
    public static ClusterMessage decode(byte[] buf, int off, int len) {
        if (off < 0 || len < 0 || off > buf.length - len) throw new IndexOutOfBoundsException("off " + off + " len " + len);
        if (len < 8) throw new IllegalArgumentException("truncated: " + len + " bytes, a message starts with 8");
        ByteBuffer b = ByteBuffer.wrap(buf, off, len).slice().order(ByteOrder.BIG_ENDIAN);
        for (int i = 0; i < 4; i++) {
            if (b.get(i) != SIGNATURE[i]) throw new IllegalArgumentException("bad signature, not RCmb");
        }
        long totlen = Integer.toUnsignedLong(b.getInt(OFF_TOTLEN));
        if (totlen < HEADER_SIZE) throw new IllegalArgumentException("totlen " + totlen + " below the header's " + HEADER_SIZE);
        if (len < totlen) throw new IllegalArgumentException("truncated: totlen " + totlen + " but " + len + " bytes");
        if (len > totlen) throw new IllegalArgumentException("totlen " + totlen + " but " + len + " bytes given");
        int version = u16(b, OFF_VERSION);
        if (version != PROTOCOL_VERSION) throw new IllegalArgumentException("protocol version " + version + ", not " + PROTOCOL_VERSION);

        ClusterMessage m = new ClusterMessage(u16(b, OFF_TYPE));
        m.port = u16(b, OFF_PORT);
        m.currentEpoch = b.getLong(OFF_CURRENT_EPOCH);
        m.configEpoch = b.getLong(OFF_CONFIG_EPOCH);
        m.offset = b.getLong(OFF_OFFSET);
        m.sender = name(b, OFF_SENDER);
        b.get(OFF_SLOTS, m.slots);
        m.replicaOf = isZero(b, OFF_REPLICA_OF, NAME_LENGTH) ? null : name(b, OFF_REPLICA_OF);
        m.ip = cString(b, OFF_IP, IP_FIELD_SIZE - 1);
        m.pport = u16(b, OFF_PPORT);
        m.cport = u16(b, OFF_CPORT);
        m.flags = u16(b, OFF_FLAGS);
        m.state = b.get(OFF_STATE) & 0xFF;
        b.get(OFF_MFLAGS, m.mflags);

        int at = HEADER_SIZE;
        switch (m.type) {
            case PING, PONG, MEET -> {
                int count = u16(b, OFF_COUNT);
                long expected = HEADER_SIZE + (long) GOSSIP_SIZE * count;
                if (expected > totlen) {
                    throw new IllegalArgumentException("totlen " + totlen + " too short for " + count + " gossip entries");
                }
                for (int i = 0; i < count; i++, at += GOSSIP_SIZE) {
                    m.gossip.add(new Gossip(name(b, at), Integer.toUnsignedLong(b.getInt(at + 40)),
                            Integer.toUnsignedLong(b.getInt(at + 44)), cString(b, at + 48, IP_FIELD_SIZE - 1),
                            u16(b, at + 94), u16(b, at + 96), u16(b, at + 98), u16(b, at + 100)));
                }
                // Redis reads extensions only when the flag says there are some; without it the count is not looked at.
                if ((m.mflags[0] & MFLAG0_EXT_DATA) != 0) {
                    int extensions = u16(b, OFF_EXTENSIONS);
                    for (int i = 0; i < extensions; i++) {
                        if (totlen - at < EXTENSION_HEADER_SIZE) {
                            throw new IllegalArgumentException("extension " + i + " header past totlen " + totlen);
                        }
                        long extlen = Integer.toUnsignedLong(b.getInt(at));
                        if (extlen % 8 != 0) throw new IllegalArgumentException("extension length " + extlen + " not padded to 8");
                        if (extlen < EXTENSION_HEADER_SIZE) throw new IllegalArgumentException("extension length " + extlen + " below its header's 8");
                        if (extlen > totlen - at) throw new IllegalArgumentException("extension length " + extlen + " past totlen " + totlen);
                        int extType = u16(b, at + 4);
                        int dataAt = at + EXTENSION_HEADER_SIZE, dataLen = (int) extlen - EXTENSION_HEADER_SIZE;
                        if (extType == EXT_HOSTNAME) {
                            int zero = indexOfZero(b, dataAt, dataLen);
                            if (zero < 0) throw new IllegalArgumentException("hostname extension without its terminating zero");
                            byte[] h = new byte[zero - dataAt];
                            b.get(dataAt, h);
                            m.hostname = new String(h, StandardCharsets.ISO_8859_1);
                        } else {
                            byte[] data = new byte[dataLen];
                            b.get(dataAt, data);
                            m.otherExtensions.add(new Extension(extType, data));
                        }
                        at += (int) extlen;
                    }
                }
                if (at != totlen) {
                    throw new IllegalArgumentException("totlen " + totlen + " but " + count + " gossip entries and the extensions take " + at);
                }
            }
            case FAIL -> {
                expectLength(m.type, totlen, HEADER_SIZE + FAIL_BODY_SIZE);
                m.failing = name(b, at);
            }
            case PUBLISH, PUBLISHSHARD -> {
                if (totlen < HEADER_SIZE + PUBLISH_BODY_HEADER_SIZE) {
                    throw new IllegalArgumentException("totlen " + totlen + " too short for a publish message");
                }
                long channelLen = Integer.toUnsignedLong(b.getInt(at));
                long messageLen = Integer.toUnsignedLong(b.getInt(at + 4));
                // Summed in 64 bits: Redis sums in 32 and would let lengths that wrap around pass.
                expectLength(m.type, totlen, HEADER_SIZE + PUBLISH_BODY_HEADER_SIZE + channelLen + messageLen);
                m.channel = new byte[(int) channelLen];
                m.message = new byte[(int) messageLen];
                b.get(at + PUBLISH_BODY_HEADER_SIZE, m.channel);
                b.get(at + PUBLISH_BODY_HEADER_SIZE + (int) channelLen, m.message);
            }
            case FAILOVER_AUTH_REQUEST, FAILOVER_AUTH_ACK, MFSTART -> expectLength(m.type, totlen, HEADER_SIZE);
            case UPDATE -> {
                expectLength(m.type, totlen, HEADER_SIZE + UPDATE_BODY_SIZE);
                m.updateConfigEpoch = b.getLong(at);
                m.updateNode = name(b, at + 8);
                m.updateSlots = new byte[SLOT_BITMAP_SIZE];
                b.get(at + 8 + NAME_LENGTH, m.updateSlots);
            }
            case MODULE -> {
                if (totlen < HEADER_SIZE + MODULE_BODY_HEADER_SIZE) {
                    throw new IllegalArgumentException("totlen " + totlen + " too short for a module message");
                }
                long payloadLen = Integer.toUnsignedLong(b.getInt(at + 8));
                expectLength(m.type, totlen, HEADER_SIZE + MODULE_BODY_HEADER_SIZE + payloadLen);
                m.moduleId = b.order(ByteOrder.LITTLE_ENDIAN).getLong(at);
                b.order(ByteOrder.BIG_ENDIAN);
                m.moduleType = b.get(at + 12) & 0xFF;
                m.payload = new byte[(int) payloadLen];
                b.get(at + MODULE_BODY_HEADER_SIZE, m.payload);
            }
            default -> {
                m.rawBody = new byte[(int) totlen - HEADER_SIZE];
                b.get(HEADER_SIZE, m.rawBody);
            }
        }
        return m;
    }

    private static void expectLength(int type, long totlen, long expected) {
        if (totlen != expected) {
            throw new IllegalArgumentException("totlen " + totlen + " but a message of type " + type + " with these fields takes " + expected);
        }
    }

    private static int u16(ByteBuffer b, int at) {
        return b.getShort(at) & 0xFFFF;
    }

    private static String name(ByteBuffer b, int at) {
        byte[] n = new byte[NAME_LENGTH];
        b.get(at, n);
        return new String(n, StandardCharsets.ISO_8859_1);
    }

    /** The bytes up to the first zero, or max bytes (Redis forces the field's last byte to zero). */
    private static String cString(ByteBuffer b, int at, int max) {
        int n = 0;
        while (n < max && b.get(at + n) != 0) n++;
        byte[] s = new byte[n];
        b.get(at, s);
        return new String(s, StandardCharsets.ISO_8859_1);
    }

    private static boolean isZero(ByteBuffer b, int at, int n) {
        for (int i = 0; i < n; i++) {
            if (b.get(at + i) != 0) return false;
        }
        return true;
    }

    private static int indexOfZero(ByteBuffer b, int at, int n) {
        for (int i = at; i < at + n; i++) {
            if (b.get(i) == 0) return i;
        }
        return -1;
    }

    private static int indexOfZero(byte[] a, int at, int n) {
        for (int i = at; i < at + n; i++) {
            if (a[i] == 0) return i;
        }
        return -1;
    }

    private static void putName(ByteBuffer b, int at, String what, String name) {
        if (name == null || name.length() != NAME_LENGTH) {
            throw new IllegalArgumentException(what + " must be " + NAME_LENGTH + " characters: " + name);
        }
        b.put(at, name.getBytes(StandardCharsets.ISO_8859_1));
    }

    private static void putIp(ByteBuffer b, int at, String ip) {
        byte[] s = ip.getBytes(StandardCharsets.ISO_8859_1);
        if (s.length > IP_FIELD_SIZE - 1) throw new IllegalArgumentException("ip longer than " + (IP_FIELD_SIZE - 1) + " bytes: " + ip);
        b.put(at, s);
    }

    private static int checkUnsigned16(String what, int v) {
        if (v < 0 || v > 0xFFFF) throw new IllegalArgumentException(what + " out of range: " + v);
        return v;
    }

    private static long checkUnsigned32(String what, long v) {
        if (v < 0 || v > 0xFFFFFFFFL) throw new IllegalArgumentException(what + " out of range: " + v);
        return v;
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("ClusterMessage{type=").append(type).append(" sender=").append(sender)
                .append(" port=").append(port).append(" cport=").append(cport).append(" flags=").append(flags)
                .append(" currentEpoch=").append(Long.toUnsignedString(currentEpoch))
                .append(" configEpoch=").append(Long.toUnsignedString(configEpoch))
                .append(" slots=").append(slotList(slots).size());
        if (isPingLike(type)) s.append(" gossip=").append(gossip.size()).append(" hostname=").append(hostname);
        if (type == UPDATE) s.append(" updateNode=").append(updateNode).append(" updateSlots=").append(slotList(updateSlots).size());
        return s.append('}').toString();
    }
}
