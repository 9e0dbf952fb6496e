package io.spinel.core;

import io.spinel.core.command.CommandError;
import io.spinel.core.command.CommandHandler;
import io.spinel.core.keyspace.KeyCommands;
import io.spinel.core.protocol.Args;
import io.spinel.core.protocol.Reply;
import io.spinel.core.util.Bytes;
import io.spinel.core.util.Glob;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Publish/subscribe (Redis's pubsub.c) and keyspace notifications (notify.c): channels, patterns
 * and shard channels, message delivery into subscribers' reply buffers as RESP2 arrays or RESP3
 * pushes, PUBSUB introspection, and the __keyspace@db__ / __keyevent@db__ events. A subscriber that
 * stops reading is disconnected by the pubsub output buffer limit, never slowing the publisher.
 */
final class PubSub {
    /** A channel or pattern name, hashable by content. */
    static final class Name {
        final byte[] bytes;
        private final int hash;

        Name(byte[] bytes) {
            this.bytes = bytes;
            this.hash = Arrays.hashCode(bytes);
        }

        @Override
        public boolean equals(Object o) {
            if (o instanceof Name) return Arrays.equals(((Name) o).bytes, bytes);
            return o instanceof Probe && ((Probe) o).matches(this);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    /**
     * A channel name in place (in the query buffer or a scratch array) that finds its {@link Name}
     * in a registry without being copied: PUBLISH and keyspace events look up a channel per call.
     */
    static final class Probe {
        private byte[] buf;
        private int off, len, hash;

        Probe of(byte[] buf, int off, int len) {
            this.buf = buf;
            this.off = off;
            this.len = len;
            int h = 1; // Arrays.hashCode's, as Name keeps it
            for (int i = off; i < off + len; i++) h = 31 * h + buf[i];
            this.hash = h;
            return this;
        }

        boolean matches(Name n) {
            return Arrays.equals(n.bytes, 0, n.bytes.length, buf, off, off + len);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Name && matches((Name) o);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    /** A client's subscriptions. */
    static final class Subscriptions {
        final LinkedHashSet<Name> channels = new LinkedHashSet<>();
        final LinkedHashSet<Name> patterns = new LinkedHashSet<>();
        final LinkedHashSet<Name> shardChannels = new LinkedHashSet<>();

        int count() {
            return channels.size() + patterns.size();
        }

        boolean any() {
            return !channels.isEmpty() || !patterns.isEmpty() || !shardChannels.isEmpty();
        }

        /**
         * What the subscriptions cost their client as Redis counts it (pubsubMemOverhead): a list
         * node (24 bytes) per pattern, and per channel table an entry (24) per channel and a
         * pointer (8) per slot of a hash table sized to the next power of two.
         */
        long memory() {
            return patterns.size() * 24L + dictMemory(channels.size()) + dictMemory(shardChannels.size());
        }

        private static long dictMemory(int entries) {
            if (entries == 0) return 0;
            int slots = Math.max(4, Integer.highestOneBit(entries - 1) << 1);
            return entries * 24L + slots * 8L;
        }
    }

    private static final byte[] MESSAGE = Bytes.ascii("message");
    private static final byte[] PMESSAGE = Bytes.ascii("pmessage");
    private static final byte[] SMESSAGE = Bytes.ascii("smessage");

    private final Engine engine;
    private final Map<Name, LinkedHashSet<Client>> channels = new HashMap<>();
    private final LinkedHashMap<Name, LinkedHashSet<Client>> patterns = new LinkedHashMap<>();
    private final Map<Name, LinkedHashSet<Client>> shardChannels = new HashMap<>();

    PubSub(Engine engine) {
        this.engine = engine;
        engine.config.support("client-output-buffer-limit");
    }

    /** The handler of each command CommandFamilies registers for this family, made when it first runs. */
    public static CommandHandler handler(String name) {
        return switch (name) {
            case "subscribe" -> c -> c.engine.pubsub.subscribe(c, Kind.CHANNEL);
            case "psubscribe" -> c -> c.engine.pubsub.subscribe(c, Kind.PATTERN);
            case "ssubscribe" -> c -> c.engine.pubsub.subscribe(c, Kind.SHARD);
            case "unsubscribe" -> c -> c.engine.pubsub.unsubscribe(c, Kind.CHANNEL);
            case "punsubscribe" -> c -> c.engine.pubsub.unsubscribe(c, Kind.PATTERN);
            case "sunsubscribe" -> c -> c.engine.pubsub.unsubscribe(c, Kind.SHARD);
            case "publish" -> c -> publishCommand(c, false);
            case "spublish" -> c -> publishCommand(c, true);
            case "pubsub|channels" -> c -> c.engine.pubsub.listChannels(c, false);
            case "pubsub|shardchannels" -> c -> c.engine.pubsub.listChannels(c, true);
            case "pubsub|numsub" -> c -> c.engine.pubsub.numsub(c, false);
            case "pubsub|shardnumsub" -> c -> c.engine.pubsub.numsub(c, true);
            case "pubsub|numpat" -> c -> c.reply().integer(c.engine.pubsub.patterns.size());
            case "pubsub|help" -> c -> KeyCommands.helpReply(c,
                    "PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
                    "CHANNELS [<pattern>]",
                    "    The active channels, optionally only those matching <pattern>.",
                    "NUMPAT",
                    "    The number of patterns subscribed to.",
                    "NUMSUB [<channel> ...]",
                    "    The number of subscribers of each channel, not counting",
                    "    pattern subscribers (default: no channels).",
                    "SHARDCHANNELS [<pattern>]",
                    "    The active shard channels, optionally only those matching <pattern>.",
                    "SHARDNUMSUB [<shardchannel> ...]",
                    "    The number of subscribers of each shard channel.");
            default -> null;
        };
    }

    enum Kind {
        CHANNEL("subscribe", "unsubscribe"),
        PATTERN("psubscribe", "punsubscribe"),
        SHARD("ssubscribe", "sunsubscribe");

        final byte[] subscribeMsg;
        final byte[] unsubscribeMsg;

        Kind(String sub, String unsub) {
            this.subscribeMsg = Bytes.ascii(sub);
            this.unsubscribeMsg = Bytes.ascii(unsub);
        }
    }

    private Map<Name, LinkedHashSet<Client>> registry(Kind k) {
        return k == Kind.CHANNEL ? channels : k == Kind.PATTERN ? patterns : shardChannels;
    }

    private static Set<Name> own(Client c, Kind k) {
        Subscriptions s = c.subscriptions;
        return k == Kind.CHANNEL ? s.channels : k == Kind.PATTERN ? s.patterns : s.shardChannels;
    }

    private static int count(Client c, Kind k) {
        return k == Kind.SHARD ? c.subscriptions.shardChannels.size() : c.subscriptions.count();
    }

    private void confirm(Client c, Kind k, byte[] name, boolean subscribe) {
        Reply r = c.reply();
        r.beginPush();
        r.pushHeader(3);
        r.bulk(subscribe ? k.subscribeMsg : k.unsubscribeMsg);
        if (name == null) r.nullBulk();
        else r.bulk(name);
        r.integer(count(c, k));
        r.endPush();
    }

    void subscribe(Client c, Kind k) {
        if (c.denyBlocking && !c.inExec) {
            // a script expects exactly one reply per command, which subscriptions cannot give
            throw CommandError.err(new String(k.subscribeMsg).toUpperCase() + " isn't allowed for a DENY BLOCKING client");
        }
        if (c.subscriptions == null) c.subscriptions = new Subscriptions();
        Args a = c.args();
        for (int j = 1; j < a.count(); j++) {
            Name n = new Name(a.copy(j));
            if (own(c, k).add(n)) registry(k).computeIfAbsent(n, x -> new LinkedHashSet<>()).add(c);
            confirm(c, k, n.bytes, true);
        }
    }

    void unsubscribe(Client c, Kind k) {
        Args a = c.args();
        if (c.subscriptions == null) c.subscriptions = new Subscriptions();
        if (a.count() == 1) {
            unsubscribeAll(c, k, true);
            return;
        }
        for (int j = 1; j < a.count(); j++) {
            Name n = new Name(a.copy(j));
            remove(c, k, n);
            confirm(c, k, n.bytes, false);
        }
    }

    private void remove(Client c, Kind k, Name n) {
        if (c.subscriptions == null || !own(c, k).remove(n)) return;
        LinkedHashSet<Client> set = registry(k).get(n);
        if (set != null) {
            set.remove(c);
            if (set.isEmpty()) registry(k).remove(n);
        }
    }

    /** Drops every subscription of one kind, confirming each (or once with nil if there were none). */
    void unsubscribeAll(Client c, Kind k, boolean reply) {
        List<Name> names = c.subscriptions == null ? List.of() : new ArrayList<>(own(c, k));
        if (names.isEmpty()) {
            if (reply) {
                if (c.subscriptions == null) c.subscriptions = new Subscriptions();
                confirm(c, k, null, false);
            }
            return;
        }
        for (Name n : names) {
            remove(c, k, n);
            if (reply) confirm(c, k, n.bytes, false);
        }
    }

    /** The client left or was RESET: silently drop all subscriptions. */
    void clientGone(Client c) {
        if (c.subscriptions == null) return;
        unsubscribeAll(c, Kind.CHANNEL, false);
        unsubscribeAll(c, Kind.PATTERN, false);
        unsubscribeAll(c, Kind.SHARD, false);
        c.subscriptions = null;
    }

    static boolean isSubscribed(Client c) {
        return c.subscriptions != null && c.subscriptions.any();
    }

    private final Probe probe = new Probe();
    /**
     * The receivers of the message being delivered, gathered before any is written to (a delivery
     * may disconnect a subscriber over its output limit, which changes the sets), reused from one
     * PUBLISH to the next; a delivery inside a delivery gets arrays of its own.
     */
    private Client[] receivers = new Client[16];
    private Name[] receiverPatterns = new Name[16];
    private boolean delivering;

    /**
     * PUBLISH / SPUBLISH: delivered here; a standalone server's replicas get the command, a
     * cluster's other nodes (SPUBLISH: the shard's) get the message over the bus instead.
     */
    private static void publishCommand(Client c, boolean shard) {
        c.reply().integer(c.engine.pubsub.publish(c.args(), shard));
        io.spinel.core.cluster.Cluster cluster = c.engine.cluster();
        if (cluster == null) {
            c.forceReplicaPropagation();
        } else if (!c.engine.discardingEffects()) {
            Args a = c.args();
            cluster.propagatePublish(a.copy(1), a.copy(2), shard);
        }
    }

    /** PUBLISH / SPUBLISH channel message, from the arguments in place. */
    long publish(Args a, boolean shard) {
        return publish(a.buf(1), a.off(1), a.len(1), a.buf(2), a.off(2), a.len(2), shard);
    }

    /** Delivers a message; returns how many subscriptions received it. */
    private long publish(byte[] ch, int chOff, int chLen, byte[] msg, int msgOff, int msgLen, boolean shard) {
        LinkedHashSet<Client> direct = (shard ? shardChannels : channels).get(probe.of(ch, chOff, chLen));
        boolean patternsToo = !shard && !patterns.isEmpty();
        if (direct == null && !patternsToo) return 0;
        boolean nested = delivering;
        Client[] to = nested ? new Client[16] : receivers;
        Name[] via = nested ? new Name[16] : receiverPatterns;
        int n = 0;
        if (direct != null) {
            for (Client c : direct) {
                if (n == to.length) to = Arrays.copyOf(to, n * 2);
                to[n++] = c;
            }
        }
        int directCount = n;
        if (patternsToo) {
            for (Map.Entry<Name, LinkedHashSet<Client>> e : patterns.entrySet()) {
                byte[] p = e.getKey().bytes;
                if (!Glob.match(p, 0, p.length, ch, chOff, chLen, false)) continue;
                for (Client c : e.getValue()) {
                    if (n == to.length) to = Arrays.copyOf(to, n * 2);
                    if (n >= via.length) via = Arrays.copyOf(via, to.length);
                    via[n] = e.getKey();
                    to[n++] = c;
                }
            }
        }
        if (!nested) {
            receivers = to;
            receiverPatterns = via;
        }
        if (engine.discardingEffects()) {
            // a forked debugging session publishes to the fork's copies of the subscribers
            Arrays.fill(to, 0, n, null);
            Arrays.fill(via, 0, Math.min(n, via.length), null);
            return n;
        }
        delivering = true;
        try {
            for (int i = 0; i < n; i++) {
                Client c = to[i];
                to[i] = null; // the arrays outlive the call: hold no client past it
                if (!c.takesOutput()) { // counted, as Redis counts it, but sent nothing
                    if (i >= directCount) via[i] = null;
                    continue;
                }
                Reply r = c.reply();
                r.beginPush();
                if (i < directCount) {
                    r.pushHeader(3);
                    r.bulk(shard ? SMESSAGE : MESSAGE);
                } else {
                    byte[] p = via[i].bytes;
                    via[i] = null;
                    r.pushHeader(4);
                    r.bulk(PMESSAGE);
                    r.bulk(p);
                }
                r.bulk(ch, chOff, chLen);
                r.bulk(msg, msgOff, msgLen);
                r.endPush();
                delivered(c);
            }
        } finally {
            delivering = nested;
        }
        return n;
    }

    /** A message from another cluster node (the bus): delivered here, not propagated again. */
    long publish(byte[] ch, byte[] msg, boolean shard) {
        return publish(ch, 0, ch.length, msg, 0, msg.length, shard);
    }

    /**
     * Cluster mode: this node no longer serves the slot, so the subscribers of its shard channels
     * are unsubscribed from them, each told so (Redis's removeChannelsInSlot).
     */
    void unsubscribeShardSlot(int slot) {
        if (shardChannels.isEmpty()) return;
        for (Name n : new ArrayList<>(shardChannels.keySet())) {
            if (io.spinel.core.cluster.KeySlot.slot(n.bytes, 0, n.bytes.length) != slot) continue;
            for (Client c : new ArrayList<>(shardChannels.get(n))) {
                remove(c, Kind.SHARD, n);
                confirm(c, Kind.SHARD, n.bytes, false);
                delivered(c);
            }
        }
    }

    /** After a push: schedule the write, count the subscriber's grown output, apply its output limit. */
    private void delivered(Client c) {
        c.markPendingWrite();
        engine.updateClientMemory(c);
    }

    void listChannels(Client c, boolean shard) {
        Args a = c.args();
        if (a.count() > 3) throw CommandError.subcommandSyntax(a);
        byte[] pat = a.count() == 3 ? a.copy(2) : null;
        List<byte[]> out = new ArrayList<>();
        for (Name n : (shard ? shardChannels : channels).keySet()) {
            if (pat == null || Glob.match(pat, n.bytes, false)) out.add(n.bytes);
        }
        c.reply().arrayHeader(out.size());
        for (byte[] b : out) c.reply().bulk(b);
    }

    void numsub(Client c, boolean shard) {
        Args a = c.args();
        Reply r = c.reply();
        r.arrayHeader((a.count() - 2) * 2L);
        for (int j = 2; j < a.count(); j++) {
            LinkedHashSet<Client> s = (shard ? shardChannels : channels).get(new Name(a.copy(j)));
            r.bulk(a.buf(j), a.off(j), a.len(j));
            r.integer(s == null ? 0 : s.size());
        }
    }

    long channelCount() {
        return channels.size();
    }

    long patternCount() {
        return patterns.size();
    }

    long shardChannelCount() {
        return shardChannels.size();
    }

    // ---- keyspace notifications ---------------------------------------------------------------

    private static final byte[] KEYSPACE_PREFIX = Bytes.ascii("__keyspace@");
    private static final byte[] KEYEVENT_PREFIX = Bytes.ascii("__keyevent@");

    /** Event names as bytes, made once per name (the names are constants of the commands). */
    private final HashMap<String, byte[]> eventNames = new HashMap<>();
    /** Where the event channels are spelled, reused (a nested event spells into its own). */
    private byte[] channelScratch = new byte[64];
    private boolean spelling;

    /** Publishes one keyspace event on the channels notify-keyspace-events asks for. */
    void notifyEvent(int flags, String event, int db, byte[] k, int off, int len) {
        byte[] ev = eventNames.computeIfAbsent(event, Bytes::ascii);
        boolean nested = spelling;
        spelling = true;
        try {
            if ((flags & Notify.KEYSPACE) != 0) {
                byte[] b = channelRoom(nested, KEYSPACE_PREFIX.length + 20 + 3 + len);
                int n = spellChannel(b, KEYSPACE_PREFIX, db, k, off, len);
                publish(b, 0, n, ev, 0, ev.length, false);
            }
            if ((flags & Notify.KEYEVENT) != 0) {
                byte[] b = channelRoom(nested, KEYEVENT_PREFIX.length + 20 + 3 + ev.length);
                int n = spellChannel(b, KEYEVENT_PREFIX, db, ev, 0, ev.length);
                publish(b, 0, n, k, off, len, false);
            }
        } finally {
            spelling = nested;
        }
    }

    private byte[] channelRoom(boolean nested, int size) {
        // a nested event, or a long key's channel that the scratch should not keep growing for
        if (nested || size > 4096) return new byte[size];
        if (channelScratch.length < size) channelScratch = new byte[Math.max(size, channelScratch.length * 2)];
        return channelScratch;
    }

    /** prefix, the db number, "__:", then the name: __keyspace@0__:key or __keyevent@0__:set. */
    private static int spellChannel(byte[] b, byte[] prefix, int db, byte[] name, int off, int len) {
        System.arraycopy(prefix, 0, b, 0, prefix.length);
        int p = Bytes.writeLong(b, prefix.length, db);
        b[p++] = '_';
        b[p++] = '_';
        b[p++] = ':';
        System.arraycopy(name, off, b, p, len);
        return p + len;
    }
}
