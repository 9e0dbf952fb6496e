package io.spinel.core;

import io.spinel.core.command.Command;
import io.spinel.core.command.CommandError;
import io.spinel.core.command.CommandFlags;
import io.spinel.core.command.CommandHandler;
import io.spinel.core.command.IntList;
import io.spinel.core.protocol.Args;
import io.spinel.core.protocol.Reply;
import io.spinel.core.util.Bytes;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Client-side caching (Redis's tracking.c). In default mode the server remembers which clients
 * read which keys and sends each an "invalidate" message once when such a key changes; in BCAST
 * mode clients subscribe to key prefixes and get, once per event loop cycle, the keys under their
 * prefixes that changed. Messages go as RESP3 pushes, or for RESP2 clients to a redirect client
 * subscribed to __redis__:invalidate.
 */
final class Tracking {
    /** A client's tracking settings. */
    static final class State {
        long redirect;
        boolean bcast;
        boolean optin;
        boolean optout;
        boolean noloop;
        /** CLIENT CACHING yes/no given for the next command. */
        boolean caching;
        boolean brokenRedirect;
        final TreeMap<PubSub.Name, Boolean> prefixes = new TreeMap<>(Tracking::compareNames);
    }

    /**
     * What a client's BCAST prefixes cost it as Redis estimates them: 32 bytes per radix tree node,
     * here one node per prefix (Redis's own figure is an underestimate too).
     */
    static long prefixesMemory(State s) {
        return s.prefixes.size() * 32L;
    }

    private static int compareNames(PubSub.Name a, PubSub.Name b) {
        return Bytes.compare(a.bytes, b.bytes);
    }

    /** Per BCAST prefix: the clients subscribed and the keys changed in this cycle (key -> writer). */
    private static final class Prefix {
        final LinkedHashSet<Client> clients = new LinkedHashSet<>();
        final TreeMap<PubSub.Name, Client> keys = new TreeMap<>(Tracking::compareNames);
    }

    private static final byte[] INVALIDATE = Bytes.ascii("invalidate");
    private static final byte[] CHANNEL = Bytes.ascii("__redis__:invalidate");
    private static final byte[] MESSAGE = Bytes.ascii("message");

    private final Engine engine;
    /** Key -> ids of the clients that may have it cached. */
    private final Map<PubSub.Name, LinkedHashSet<Long>> table = new HashMap<>();
    private final TreeMap<PubSub.Name, Prefix> prefixTable = new TreeMap<>(Tracking::compareNames);
    private long totalItems;
    private int trackingClients;
    private long maxKeys;
    /** Invalidations for the client whose own command caused them, sent after its reply. */
    private final List<byte[]> pendingForCurrent = new ArrayList<>();
    private boolean pendingFlush;
    private int evictionRounds;

    Tracking(Engine engine) {
        this.engine = engine;
        engine.config.support("tracking-table-max-keys");
        engine.config.listen("tracking-table-max-keys", o -> maxKeys = Long.parseLong(o.value()));
    }

    /** The handler of each command CommandFamilies registers for this family, made when it first runs. */
    public static CommandHandler handler(String name) {
        return switch (name) {
            case "client|tracking" -> c -> c.engine.tracking.trackingCommand(c);
            case "client|caching" -> Tracking::caching;
            case "client|getredir" -> c -> c.reply().integer(c.tracking == null ? -1 : c.tracking.redirect);
            case "client|trackinginfo" -> Tracking::trackingInfo;
            default -> null;
        };
    }

    int trackingClients() {
        return trackingClients;
    }

    long totalKeys() {
        return table.size();
    }

    long totalItems() {
        return totalItems;
    }

    long totalPrefixes() {
        return prefixTable.size();
    }

    // ---- CLIENT TRACKING / CACHING / TRACKINGINFO ----------------------------------------------

    void trackingCommand(Client c) {
        Args a = c.args();
        long redir = 0;
        boolean bcast = false, optin = false, optout = false, noloop = false;
        List<byte[]> prefixes = new ArrayList<>();
        for (int j = 3; j < a.count(); j++) {
            boolean more = a.count() - 1 - j > 0;
            if (a.is(j, "redirect") && more) {
                j++;
                if (redir != 0) throw CommandError.err("A client can only redirect to a single other client");
                redir = c.argLong(j);
                if (engine.client(redir) == null) {
                    throw CommandError.err("The client ID you want redirect to does not exist");
                }
            } else if (a.is(j, "bcast")) {
                bcast = true;
            } else if (a.is(j, "optin")) {
                optin = true;
            } else if (a.is(j, "optout")) {
                optout = true;
            } else if (a.is(j, "noloop")) {
                noloop = true;
            } else if (a.is(j, "prefix") && more) {
                prefixes.add(a.copy(++j));
            } else {
                throw CommandError.SYNTAX;
            }
        }
        if (a.is(2, "on")) {
            if (!bcast && !prefixes.isEmpty()) throw CommandError.err("PREFIX option requires BCAST mode to be enabled");
            State s = c.tracking;
            if (s != null && s.bcast != bcast) {
                throw CommandError.err("You can't switch BCAST mode on/off before disabling tracking for this client, "
                        + "and then re-enabling it with a different mode.");
            }
            if (bcast && (optin || optout)) throw CommandError.err("OPTIN and OPTOUT are not compatible with BCAST");
            if (optin && optout) throw CommandError.err("You can't specify both OPTIN mode and OPTOUT mode");
            if (s != null && ((optin && s.optout) || (optout && s.optin))) {
                throw CommandError.err("You can't switch OPTIN/OPTOUT mode before disabling tracking for this "
                        + "client, and then re-enabling it with a different mode.");
            }
            if (bcast) checkPrefixCollisions(s, prefixes);
            enable(c, redir, bcast, optin, optout, noloop, prefixes);
        } else if (a.is(2, "off")) {
            disable(c);
        } else {
            throw CommandError.SYNTAX;
        }
        c.reply().ok();
    }

    private static boolean overlap(byte[] x, byte[] y) {
        int n = Math.min(x.length, y.length);
        return Arrays.equals(x, 0, n, y, 0, n);
    }

    private static void checkPrefixCollisions(State s, List<byte[]> prefixes) {
        for (int i = 0; i < prefixes.size(); i++) {
            byte[] p = prefixes.get(i);
            if (s != null) {
                for (PubSub.Name existing : s.prefixes.keySet()) {
                    if (overlap(existing.bytes, p)) {
                        throw CommandError.err("Prefix '" + Bytes.latin1(p) + "' overlaps with an existing prefix '"
                                + Bytes.latin1(existing.bytes) + "'. Prefixes for a single client must not overlap.");
                    }
                }
            }
            for (int j = i + 1; j < prefixes.size(); j++) {
                if (overlap(p, prefixes.get(j))) {
                    throw CommandError.err("Prefix '" + Bytes.latin1(p) + "' overlaps with another provided prefix '"
                            + Bytes.latin1(prefixes.get(j)) + "'. Prefixes for a single client must not overlap.");
                }
            }
        }
    }

    private void enable(Client c, long redir, boolean bcast, boolean optin, boolean optout, boolean noloop,
                        List<byte[]> prefixes) {
        if (c.tracking == null) {
            c.tracking = new State();
            trackingClients++;
        }
        State s = c.tracking;
        s.redirect = redir;
        s.brokenRedirect = false;
        s.bcast = bcast;
        s.optin = optin;
        s.optout = optout;
        s.noloop = noloop;
        if (bcast) {
            if (prefixes.isEmpty()) prefixes = List.of(Bytes.EMPTY);
            for (byte[] p : prefixes) {
                PubSub.Name n = new PubSub.Name(p);
                Prefix pf = prefixTable.computeIfAbsent(n, k -> new Prefix());
                if (pf.clients.add(c)) s.prefixes.put(n, Boolean.TRUE);
            }
        }
    }

    /** CLIENT TRACKING off, RESET, or the client left. */
    void disable(Client c) {
        State s = c.tracking;
        if (s == null) return;
        for (PubSub.Name n : s.prefixes.keySet()) {
            Prefix pf = prefixTable.get(n);
            if (pf == null) continue;
            pf.clients.remove(c);
            if (pf.clients.isEmpty()) prefixTable.remove(n);
        }
        c.tracking = null;
        trackingClients--;
    }

    static void caching(Client c) {
        State s = c.tracking;
        if (s == null) {
            throw CommandError.err("CLIENT CACHING can be called only when the client is in tracking mode with OPTIN "
                    + "or OPTOUT mode enabled");
        }
        Args a = c.args();
        if (a.is(2, "yes")) {
            if (!s.optin) throw CommandError.err("CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.");
        } else if (a.is(2, "no")) {
            if (!s.optout) throw CommandError.err("CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.");
        } else {
            throw CommandError.SYNTAX;
        }
        s.caching = true;
        c.reply().ok();
    }

    static void trackingInfo(Client c) {
        State s = c.tracking;
        Reply r = c.reply();
        r.mapHeader(3);
        r.bulk("flags");
        List<String> flags = new ArrayList<>();
        flags.add(s != null ? "on" : "off");
        if (s != null) {
            if (s.bcast) flags.add("bcast");
            if (s.optin) {
                flags.add("optin");
                if (s.caching) flags.add("caching-yes");
            }
            if (s.optout) {
                flags.add("optout");
                if (s.caching) flags.add("caching-no");
            }
            if (s.noloop) flags.add("noloop");
            if (s.brokenRedirect) flags.add("broken_redirect");
        }
        r.setHeader(flags.size());
        for (String f : flags) r.bulk(f);
        r.bulk("redirect");
        r.integer(s == null ? -1 : s.redirect);
        r.bulk("prefixes");
        if (s == null) {
            r.arrayHeader(0);
        } else {
            r.arrayHeader(s.prefixes.size());
            for (PubSub.Name n : s.prefixes.keySet()) r.bulk(n.bytes);
        }
    }

    // ---- remembering and invalidating ---------------------------------------------------------

    /** After a read-only command: remember that the caller may now cache the keys it read. */
    void afterCommand(Client c, Command cmd) {
        State s = c.tracking;
        if (s == null) return;
        // a read-only script is judged by the commands it runs (afterScriptCommand), not by itself
        if (!s.bcast && cmd.has(CommandFlags.READONLY) && !cmd.has(CommandFlags.PUBSUB) && !isReadOnlyScript(cmd)) {
            boolean skip = (s.optin && !s.caching) || (s.optout && s.caching);
            if (!skip) rememberKeys(c, cmd);
        }
        // CLIENT CACHING applies to the next command only (not counting CLIENT CACHING itself or MULTI)
        if (c.multi == null && !cmd.name.equals("client|caching")) s.caching = false;
    }

    /**
     * A script of a tracking client ran a read-only command: as Redis does, the caller may now
     * cache every key the script declared (EVAL's keys), not the keys the command itself read.
     */
    void afterScriptCommand(Client caller, Command inner) {
        State s = caller.tracking;
        Command script = caller.currentCommand();
        if (s == null || s.bcast || script == null || !inner.has(CommandFlags.READONLY) || isReadOnlyScript(inner)
                || script.has(CommandFlags.PUBSUB)) {
            return;
        }
        boolean skip = (s.optin && !s.caching) || (s.optout && s.caching);
        if (!skip) rememberKeys(caller, script);
    }

    private static boolean isReadOnlyScript(Command cmd) {
        return cmd.name.equals("eval_ro") || cmd.name.equals("evalsha_ro") || cmd.name.equals("fcall_ro");
    }

    private void rememberKeys(Client c, Command cmd) {
        IntList pos = new IntList();
        if (!cmd.keys(c.args(), pos)) return;
        Args a = c.args();
        for (int i = 0; i < pos.size(); i++) {
            int p = pos.get(i);
            PubSub.Name key = new PubSub.Name(a.copy(p));
            if (table.computeIfAbsent(key, k -> new LinkedHashSet<>()).add(c.id)) totalItems++;
        }
        limitTable();
    }

    /** tracking-table-max-keys: invalidate random keys until under the limit (more each time it fails). */
    void limitTable() {
        if (trackingClients == 0 && table.isEmpty()) return;
        if (maxKeys == 0 || table.size() <= maxKeys) {
            evictionRounds = 0;
            return;
        }
        int effort = 100 * (evictionRounds + 1);
        while (effort-- > 0 && table.size() > maxKeys) {
            Iterator<PubSub.Name> it = table.keySet().iterator();
            if (!it.hasNext()) break;
            invalidate(null, it.next().bytes, false);
        }
        evictionRounds = table.size() > maxKeys ? evictionRounds + 1 : 0;
    }

    /** A key changed (Redis's trackingInvalidateKey); writer is null for expiry and eviction. */
    void keyModified(Client writer, byte[] k, int off, int len) {
        if (trackingClients == 0) return;
        invalidate(writer, Arrays.copyOfRange(k, off, off + len), true);
    }

    private void invalidate(Client writer, byte[] key, boolean bcast) {
        if (bcast && !prefixTable.isEmpty()) {
            for (Map.Entry<PubSub.Name, Prefix> e : prefixTable.entrySet()) {
                byte[] p = e.getKey().bytes;
                if (p.length > key.length || !Arrays.equals(p, 0, p.length, key, 0, p.length)) continue;
                e.getValue().keys.put(new PubSub.Name(key), writer);
            }
        }
        LinkedHashSet<Long> ids = table.remove(new PubSub.Name(key));
        if (ids == null) return;
        totalItems -= ids.size();
        Client current = engine.trackingClient();
        for (long id : ids) {
            Client target = engine.client(id);
            if (target == null || target.tracking == null || target.tracking.bcast) continue;
            if (target.tracking.noloop && target == current) continue;
            if (target == current && engine.inCommand()) {
                pendingForCurrent.add(key);
                continue;
            }
            send(target, key);
        }
    }

    /** After the writer's reply: its own invalidations (Redis sends them after the reply). */
    void flushPendingForCurrent(Client c) {
        if (pendingForCurrent.isEmpty()) return;
        List<byte[]> keys = new ArrayList<>(pendingForCurrent);
        pendingForCurrent.clear();
        for (byte[] k : keys) {
            if (k == null) sendNull(c);
            else send(c, k);
        }
    }

    /** FLUSHDB/FLUSHALL: every tracking client drops its whole cache (a null invalidation). */
    void flushed() {
        if (trackingClients > 0) {
            for (Client c : new ArrayList<>(engine.clients())) {
                if (c.tracking == null) continue;
                if (c == engine.trackingClient() && engine.inCommand()) pendingForCurrent.add(null);
                else sendNull(c);
            }
        }
        table.clear();
        totalItems = 0;
    }

    /** Once per event loop cycle: the changed keys under each BCAST prefix, to its clients. */
    void broadcast() {
        if (prefixTable.isEmpty()) return;
        for (Prefix pf : prefixTable.values()) {
            if (pf.keys.isEmpty()) continue;
            for (Client c : new ArrayList<>(pf.clients)) {
                List<byte[]> keys = new ArrayList<>();
                for (Map.Entry<PubSub.Name, Client> e : pf.keys.entrySet()) {
                    if (c.tracking != null && c.tracking.noloop && e.getValue() == c) continue;
                    keys.add(e.getKey().bytes);
                }
                if (!keys.isEmpty()) sendMany(c, keys);
            }
            pf.keys.clear();
        }
    }

    /** Where a client's invalidations go: itself (RESP3) or its redirect client. Null: nowhere. */
    private Client destination(Client c) {
        State s = c.tracking;
        if (s.redirect != 0) {
            Client redir = engine.client(s.redirect);
            if (redir == null) {
                s.brokenRedirect = true;
                if (c.resp() > 2 && c.takesOutput()) {
                    Reply r = c.reply();
                    r.pushHeader(2);
                    r.bulk("tracking-redir-broken");
                    r.integer(s.redirect);
                    c.markPendingWrite();
                }
                return null;
            }
            if ((redir.resp() > 2 || PubSub.isSubscribed(redir)) && redir.takesOutput()) return redir;
            return null;
        }
        return c.resp() > 2 && c.takesOutput() ? c : null;
    }

    private static void header(Client to) {
        Reply r = to.reply();
        r.beginPush();
        if (to.resp() > 2) {
            r.pushHeader(2);
            r.bulk(INVALIDATE);
        } else {
            r.pushHeader(3);
            r.bulk(MESSAGE);
            r.bulk(CHANNEL);
        }
    }

    private void send(Client c, byte[] key) {
        Client to = destination(c);
        if (to == null) return;
        header(to);
        to.reply().arrayHeader(1);
        to.reply().bulk(key);
        to.reply().endPush();
        to.markPendingWrite();
    }

    private void sendMany(Client c, List<byte[]> keys) {
        Client to = destination(c);
        if (to == null) return;
        header(to);
        to.reply().arrayHeader(keys.size());
        for (byte[] k : keys) to.reply().bulk(k);
        to.reply().endPush();
        to.markPendingWrite();
    }

    private void sendNull(Client c) {
        Client to = destination(c);
        if (to == null) return;
        header(to);
        to.reply().nullBulk();
        to.reply().endPush();
        to.markPendingWrite();
    }

    void clientGone(Client c) {
        disable(c);
    }
}
