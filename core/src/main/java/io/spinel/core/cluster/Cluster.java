package io.spinel.core.cluster;

import io.spinel.core.Engine;
import io.spinel.core.Log;
import io.spinel.core.Tls;
import io.spinel.core.config.Config;

import java.io.IOException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Redis Cluster mode (cluster-enabled yes; Redis's cluster.c): this node's view of the cluster
 * (the nodes, who serves each of the 16384 hash slots, the epochs), kept current by the bus
 * protocol Redis 7.0 speaks, so that Spinel and Redis nodes form one cluster: the handshake
 * (MEET, then PING/PONG, each carrying gossip about a few other nodes), failure detection
 * (PFAIL when a node stops answering, FAIL once a majority of masters report it, spread by a FAIL
 * message), slot ownership decided by configuration epochs (the claim under the higher epoch
 * wins; UPDATE messages correct a node that claims an old configuration), replicas electing a
 * new master when theirs fails (FAILOVER_AUTH_REQUEST/ACK, a majority of masters voting once per
 * epoch), manual failover, and Pub/Sub across the cluster. Everything here runs on the engine's
 * thread; the sockets are {@link ClusterBus}'s.
 */
public final class Cluster implements ClusterBus.Events {
    static final int PORT_INCR = 10000;
    static final int STATE_OK = 0;
    static final int STATE_FAIL = 1;
    private static final int BLACKLIST_TTL_SECONDS = 60;
    private static final long FAIL_REPORT_VALIDITY_MULT = 2;
    private static final long FAIL_UNDO_TIME_MULT = 2;
    private static final long MF_TIMEOUT = 5000;
    private static final long MF_PAUSE_MULT = 2;
    private static final long MAX_REJOIN_DELAY = 5000;
    private static final long MIN_REJOIN_DELAY = 500;
    private static final long WRITABLE_DELAY = 2000;
    private static final long REPLICA_MIGRATION_DELAY = 5000;
    private static final int CANT_FAILOVER_NONE = 0;
    private static final int CANT_FAILOVER_DATA_AGE = 1;
    private static final int CANT_FAILOVER_WAITING_DELAY = 2;
    private static final int CANT_FAILOVER_EXPIRED = 3;
    private static final int CANT_FAILOVER_WAITING_VOTES = 4;
    private static final long CANT_FAILOVER_RELOG_SECONDS = 10;
    private static final String[] MESSAGE_NAMES = {"ping", "pong", "meet", "fail", "publish", "auth-req",
            "auth-ack", "update", "mfstart", "module", "publishshard"};

    final Engine engine;
    private final Config config;
    private final Log log;
    private final ClusterConfigFile configFile;

    ClusterNode myself;
    long currentEpoch;
    long lastVoteEpoch;
    int state = STATE_FAIL;
    /** Masters that serve at least one slot: the electorate. */
    int size = 1;
    /** Every node known, by name, this node included. */
    final Map<String, ClusterNode> nodes = new LinkedHashMap<>();
    /** Nodes CLUSTER FORGET removed, by name, with the time (s) until which gossip may not bring them back. */
    private final Map<String, Long> blacklist = new LinkedHashMap<>();
    final ClusterNode[] slots = new ClusterNode[KeySlot.SLOTS];
    final ClusterNode[] migratingTo = new ClusterNode[KeySlot.SLOTS];
    final ClusterNode[] importingFrom = new ClusterNode[KeySlot.SLOTS];
    /** Slots whose owner no longer claims them (kept bound until another node does). */
    private final BitSet ownerNotClaiming = new BitSet(KeySlot.SLOTS);
    final long[] messagesSent = new long[MESSAGE_NAMES.length];
    final long[] messagesReceived = new long[MESSAGE_NAMES.length];
    private int pfailNodes;
    long linksBufferLimitExceeded;

    // work left for the end of the current turn (Redis's clusterDoBeforeSleep)
    private boolean todoSave;
    private boolean todoFsync;
    private boolean todoUpdateState;
    private boolean todoHandleFailover;
    private boolean todoManualFailover;

    // a replica's election
    private long failoverAuthTime;
    private int failoverAuthCount;
    private boolean failoverAuthSent;
    private int failoverAuthRank;
    private long failoverAuthEpoch;
    private int cantFailoverReason = CANT_FAILOVER_NONE;
    private long cantFailoverLoggedAt;

    // a manual failover (CLUSTER FAILOVER): on the replica and on its master
    long mfEnd;
    private boolean mfCanStart;
    private ClusterNode mfReplica;
    private long mfMasterOffset = -1;

    private ClusterBus bus;
    private ScheduledFuture<?> cron;
    private long iteration;
    private long pingsSent;
    private long firstUpdateStateCall;
    private long amongMinorityTime;
    private final SecureRandom random = new SecureRandom();

    /**
     * Loads nodes.conf (or creates this node with a fresh name and writes it), before the data
     * set loads. Throws with Redis's words when the file is locked by another node or corrupt.
     */
    public Cluster(Engine engine) throws IOException {
        this.engine = engine;
        this.config = engine.config();
        this.log = engine.log();
        Path path = Path.of(engine.workingDirectory()).resolve(Config.fileName(config.get("cluster-config-file")));
        configFile = ClusterConfigFile.open(path);
        boolean loaded;
        try {
            loaded = load();
        } catch (IOException | RuntimeException e) {
            configFile.close();
            throw e;
        }
        if (!loaded) {
            myself = new ClusterNode(randomName(), ClusterNode.MYSELF | ClusterNode.MASTER, now());
            log.notice("No cluster configuration found, I'm " + myself.name);
            addNode(myself);
            saveOrDie(true);
        }
        updateMyselfFlags();
        updateMyselfHostname();
        announcedIp = config.get("cluster-announce-ip");
        if (!announcedIp.isEmpty()) myself.ip = announcedIp;
    }

    /** cluster-announce-ip as last applied. */
    private String announcedIp;

    static long now() {
        return System.currentTimeMillis();
    }

    private String randomName() {
        byte[] b = new byte[20];
        random.nextBytes(b);
        StringBuilder sb = new StringBuilder(40);
        for (byte x : b) sb.append(Character.forDigit((x >> 4) & 15, 16)).append(Character.forDigit(x & 15, 16));
        return sb.toString();
    }

    // ---- start and stop -----------------------------------------------------------------------

    /**
     * tls-cluster as last applied: the bus's new links are TLS, and clients on plain sockets are
     * told the nodes' plain ports (Redis's use_pport).
     */
    boolean tlsCluster;

    /**
     * Opens the bus port (cluster-port, or the client port + 10000: the TLS port's with
     * tls-cluster yes, as Redis's) and starts its thread. A
     * server whose clients are served while its data set loads opens it before the load, as
     * Redis's clusterInit does: the engine's loading polls run the bus's events with the clients'
     * (its cron waits for the load's end, as Redis's), so the other nodes see this node answer.
     */
    public void listen(String bindSpec, int clientPort) throws IOException {
        if (bus != null) return;
        tlsCluster = config.getBool("tls-cluster");
        Tls tls = engine.tls();
        if (tlsCluster && tls == null) throw new IOException("tls-cluster yes needs TLS, which this server does not have");
        deriveAnnouncedPorts(clientPort);
        int port = tlsCluster ? config.getInt("tls-port") : clientPort;
        int busPort = config.getInt("cluster-port") != 0 ? config.getInt("cluster-port") : port + PORT_INCR;
        if (config.getInt("cluster-port") == 0 && port > 65535 - PORT_INCR) {
            throw new IOException("Redis port number too high. Cluster communication port is 10,000 port numbers "
                    + "higher than your Redis port. Your Redis port number must be 55535 or less.");
        }
        if (bindSpec.isBlank()) throw new IOException("No bind address is configured, but it is required for the Cluster bus.");
        ClusterBus opened = new ClusterBus(this, engine::execute);
        opened.useTls(tlsCluster ? tls : null);
        try {
            opened.listen(bindSpec, busPort, config.getInt("tcp-backlog"));
            opened.start();
        } catch (IOException e) {
            throw new IOException("Failed listening on port " + busPort + " (cluster), aborting.", e);
        }
        bus = opened;
    }

    /**
     * After the data set loaded: checks it against the slots (Redis's verifyClusterConfigWithData),
     * opens the bus port if {@link #listen} did not yet, and starts the cron (ten times a second,
     * as Redis's clusterCron).
     */
    public void start(String bindSpec, int clientPort) throws IOException {
        for (int db = 1; db < engine.keyspace().count(); db++) {
            if (engine.keyspace().db(db).size() != 0) {
                throw new IOException("You can't have keys in a DB different than DB 0 when in Cluster mode. Exiting.");
            }
        }
        verifyConfigWithData();
        listen(bindSpec, clientPort);
        cron = engine.loop().scheduleAtFixedRate(this::cronSafely, 100, 100, TimeUnit.MILLISECONDS);
        // options that change what this node announces
        config.listen("cluster-announce-port", o -> deriveAnnouncedPorts(engine.port()));
        config.listen("cluster-announce-bus-port", o -> deriveAnnouncedPorts(engine.port()));
        config.listen("cluster-announce-tls-port", o -> deriveAnnouncedPorts(engine.port()));
        config.listen("tls-cluster", o -> {
            // new links only, as in Redis (the bus port stays where it was opened); a CONFIG SET
            // that finds no TLS to use is undone by the TLS configuration's failure
            tlsCluster = config.getBool("tls-cluster");
            bus.useTls(tlsCluster ? engine.tls() : null);
            deriveAnnouncedPorts(engine.port());
        });
        config.listen("cluster-announce-ip", o -> {
            // (a change only: at start the address nodes.conf gave stays until a MEET says otherwise)
            if (o.value().equals(announcedIp)) return;
            announcedIp = o.value();
            myself.ip = announcedIp;
        });
        config.listen("cluster-announce-hostname", o -> updateMyselfHostname());
        config.listen("cluster-replica-no-failover", o -> updateMyselfFlags());
    }

    public void stop() {
        if (cron != null) cron.cancel(false);
        cron = null;
        if (bus != null) bus.stop();
        bus = null;
        if (todoSave) save(todoFsync);
        configFile.close();
    }

    /**
     * The ports this node announces (Redis's deriveAnnouncedPorts): with tls-cluster yes, its TLS
     * port as the client port and the plain one as pport (cluster-announce-tls-port and
     * cluster-announce-port when the former is set), else the plain port; the bus port follows the
     * announced client port's listening port unless cluster-port or cluster-announce-bus-port say.
     */
    private void deriveAnnouncedPorts(int clientPort) {
        boolean tls = config.getBool("tls-cluster");
        int port = tls ? config.getInt("tls-port") : clientPort;
        int pport = tls ? clientPort : 0;
        int cport = config.getInt("cluster-port") != 0 ? config.getInt("cluster-port") : port + PORT_INCR;
        if (tls && config.getInt("cluster-announce-tls-port") != 0) {
            port = config.getInt("cluster-announce-tls-port");
            pport = config.getInt("cluster-announce-port");
        } else if (config.getInt("cluster-announce-port") != 0) {
            port = config.getInt("cluster-announce-port");
        }
        if (config.getInt("cluster-announce-bus-port") != 0) cport = config.getInt("cluster-announce-bus-port");
        myself.port = port;
        myself.cport = cport;
        myself.pport = pport;
    }

    private void updateMyselfFlags() {
        int old = myself.flags;
        myself.flags &= ~ClusterNode.NOFAILOVER;
        if (config.getBool("cluster-replica-no-failover")) myself.flags |= ClusterNode.NOFAILOVER;
        if (myself.flags != old) {
            todoSave = true;
            todoUpdateState = true;
        }
    }

    private void updateMyselfHostname() {
        myself.hostname = config.get("cluster-announce-hostname");
    }

    // ---- nodes.conf ----------------------------------------------------------------------------

    private boolean load() throws IOException {
        List<String> lines = configFile.readLines();
        if (lines == null) return false;
        for (String line : lines) {
            if (line.isEmpty() || line.equals("\r")) continue;
            List<String> argv = splitArgs(line);
            if (argv == null) throw corrupt();
            if (argv.isEmpty()) continue;
            if (argv.get(0).equalsIgnoreCase("vars")) {
                if (argv.size() % 2 == 0) throw corrupt();
                for (int j = 1; j < argv.size(); j += 2) {
                    if (argv.get(j).equalsIgnoreCase("currentEpoch")) currentEpoch = parseEpoch(argv.get(j + 1));
                    else if (argv.get(j).equalsIgnoreCase("lastVoteEpoch")) lastVoteEpoch = parseEpoch(argv.get(j + 1));
                    else log.warning("Skipping unknown cluster config variable '" + argv.get(j) + "'");
                }
                continue;
            }
            if (argv.size() < 8) throw corrupt();
            if (!validName(argv.get(0))) throw corrupt();
            ClusterNode n = lookup(argv.get(0));
            if (n == null) {
                n = new ClusterNode(argv.get(0), 0, now());
                addNode(n);
            }
            String addr = argv.get(1);
            int comma = addr.indexOf(',');
            if (comma >= 0) {
                n.hostname = addr.substring(comma + 1);
                addr = addr.substring(0, comma);
            } else {
                n.hostname = "";
            }
            int colon = addr.lastIndexOf(':');
            if (colon < 0) throw corrupt();
            n.ip = addr.substring(0, colon);
            String ports = addr.substring(colon + 1);
            int at = ports.indexOf('@');
            n.port = atoi(at >= 0 ? ports.substring(0, at) : ports);
            n.cport = at >= 0 ? atoi(ports.substring(at + 1)) : n.port + PORT_INCR;
            for (String f : argv.get(2).split(",")) {
                switch (f.toLowerCase(java.util.Locale.ROOT)) {
                    case "myself" -> {
                        if (myself != null) throw corrupt();
                        myself = n;
                        n.flags |= ClusterNode.MYSELF;
                    }
                    case "master" -> n.flags |= ClusterNode.MASTER;
                    case "slave" -> n.flags |= ClusterNode.REPLICA;
                    case "fail?" -> n.flags |= ClusterNode.PFAIL;
                    case "fail" -> {
                        n.flags |= ClusterNode.FAIL;
                        n.failTime = now();
                    }
                    case "handshake" -> n.flags |= ClusterNode.HANDSHAKE;
                    case "noaddr" -> n.flags |= ClusterNode.NOADDR;
                    case "nofailover" -> n.flags |= ClusterNode.NOFAILOVER;
                    case "noflags" -> { }
                    default -> throw new IOException("Unknown flag in redis cluster config file");
                }
            }
            if (argv.get(3).charAt(0) != '-') {
                if (!validName(argv.get(3))) throw corrupt();
                ClusterNode master = lookup(argv.get(3));
                if (master == null) {
                    master = new ClusterNode(argv.get(3), 0, now());
                    addNode(master);
                }
                n.replicaOf = master;
                master.addReplica(n);
            }
            if (atoi(argv.get(4)) != 0) n.pingSent = now();
            if (atoi(argv.get(5)) != 0) n.pongReceived = now();
            n.configEpoch = n.isReplica() && n.replicaOf != null ? 0 : parseEpoch(argv.get(6));
            for (int j = 8; j < argv.size(); j++) {
                String s = argv.get(j);
                if (s.startsWith("[")) {
                    int dash = s.indexOf('-');
                    if (dash < 0) throw corrupt();
                    char direction = s.charAt(dash + 1);
                    int slot = atoi(s.substring(1, dash));
                    if (slot < 0 || slot >= KeySlot.SLOTS) throw corrupt();
                    int close = s.indexOf(']', dash);
                    if (close < 0 || dash + 3 > close || !validName(s.substring(dash + 3, close))) throw corrupt();
                    String other = s.substring(dash + 3, close);
                    ClusterNode cn = lookup(other);
                    if (cn == null) {
                        cn = new ClusterNode(other, 0, now());
                        addNode(cn);
                    }
                    if (direction == '>') migratingTo[slot] = cn;
                    else importingFrom[slot] = cn;
                    continue;
                }
                int dash = s.indexOf('-');
                int start = atoi(dash >= 0 ? s.substring(0, dash) : s);
                int stop = dash >= 0 ? atoi(s.substring(dash + 1)) : start;
                if (start < 0 || start >= KeySlot.SLOTS || stop < 0 || stop >= KeySlot.SLOTS) throw corrupt();
                while (start <= stop) addSlot(n, start++);
            }
        }
        if (myself == null) throw corrupt();
        log.notice("Node configuration loaded, I'm " + myself.name);
        long max = maxEpoch();
        if (max > currentEpoch) currentEpoch = max;
        return true;
    }

    private static List<String> splitArgs(String line) {
        byte[] b = line.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        io.spinel.core.protocol.Args args = new io.spinel.core.protocol.Args();
        if (!io.spinel.core.protocol.SplitArgs.split(b, 0, b.length, new byte[b.length + 1], args)) return null;
        List<String> out = new ArrayList<>(args.count());
        for (int i = 0; i < args.count(); i++) out.add(args.string(i));
        return out;
    }

    private static IOException corrupt() {
        return new IOException("Unrecoverable error: corrupted cluster config file.");
    }

    /** C's atoi: the leading digits, 0 when none. */
    private static int atoi(String s) {
        int i = 0;
        boolean neg = false;
        if (i < s.length() && (s.charAt(i) == '-' || s.charAt(i) == '+')) neg = s.charAt(i++) == '-';
        long v = 0;
        while (i < s.length() && Character.isDigit(s.charAt(i)) && v < Integer.MAX_VALUE) v = v * 10 + (s.charAt(i++) - '0');
        return (int) (neg ? -v : v);
    }

    /** strtoull: the leading digits. */
    private static long parseEpoch(String s) {
        long v = 0;
        for (int i = 0; i < s.length() && Character.isDigit(s.charAt(i)); i++) v = v * 10 + (s.charAt(i) - '0');
        return v;
    }

    static boolean validName(String s) {
        if (s.length() != ClusterNode.NAME_LENGTH) return false;
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9'))) return false;
        }
        return true;
    }

    /** Writes nodes.conf; false when it cannot be written. */
    boolean save(boolean fsync) {
        todoSave = false;
        if (fsync) todoFsync = false;
        StringBuilder sb = new StringBuilder(describeNodes(ClusterNode.HANDSHAKE, false));
        sb.append("vars currentEpoch ").append(Long.toUnsignedString(currentEpoch))
                .append(" lastVoteEpoch ").append(Long.toUnsignedString(lastVoteEpoch)).append('\n');
        try {
            configFile.write(sb.toString(), fsync);
            return true;
        } catch (IOException e) {
            lastSaveError = e.getMessage();
            return false;
        }
    }

    String lastSaveError = "";

    /** The key positions the routing check collects, reused from one command to the next (engine thread only). */
    final io.spinel.core.command.IntList routingPositions = new io.spinel.core.command.IntList();
    /** What the routing check answers, reused likewise. */
    final ClusterCommands.Route route = new ClusterCommands.Route();

    private void saveOrDie(boolean fsync) {
        if (!save(fsync)) {
            log.warning("Fatal: can't update cluster config file.");
            engine.exitProcess(1);
        }
    }

    // ---- nodes ----------------------------------------------------------------------------------

    ClusterNode lookup(String name) {
        return name == null ? null : nodes.get(name);
    }

    void addNode(ClusterNode n) {
        nodes.put(n.name, n);
    }

    /** Redis's clusterDelNode: forgets the node, its slots (as importing/migrating targets) and its reports. */
    void deleteNode(ClusterNode n) {
        for (int j = 0; j < KeySlot.SLOTS; j++) {
            if (importingFrom[j] == n) importingFrom[j] = null;
            if (migratingTo[j] == n) migratingTo[j] = null;
            if (slots[j] == n) deleteSlot(j);
        }
        for (ClusterNode other : nodes.values()) {
            if (other != n) other.failReports.remove(n);
        }
        nodes.remove(n.name);
        freeNode(n);
    }

    private void freeNode(ClusterNode n) {
        for (ClusterNode r : n.replicas) r.replicaOf = null;
        if (n.isReplica() && n.replicaOf != null) n.replicaOf.removeReplica(n);
        if (n.link != null) freeLink(n.link);
        if (n.inboundLink != null) freeLink(n.inboundLink);
    }

    private void renameNode(ClusterNode n, String newName) {
        log.debug("Renaming node " + n.name + " into " + newName);
        nodes.remove(n.name);
        n.name = newName;
        addNode(n);
    }

    private long maxEpoch() {
        long max = currentEpoch;
        for (ClusterNode n : nodes.values()) if (Long.compareUnsigned(n.configEpoch, max) > 0) max = n.configEpoch;
        return max;
    }

    /** Redis's clusterBumpConfigEpochWithoutConsensus: a new epoch for this node unless it has the greatest. */
    boolean bumpEpochWithoutConsensus() {
        long max = maxEpoch();
        if (myself.configEpoch == 0 || myself.configEpoch != max) {
            currentEpoch++;
            myself.configEpoch = currentEpoch;
            todoSave = true;
            todoFsync = true;
            log.warning("New configEpoch set to " + Long.toUnsignedString(myself.configEpoch));
            return true;
        }
        return false;
    }

    /** Two masters with one configEpoch: the one with the smaller name moves to a new epoch. */
    private void handleEpochCollision(ClusterNode sender) {
        if (sender.configEpoch != myself.configEpoch || !sender.isMaster() || !myself.isMaster()) return;
        if (sender.name.compareTo(myself.name) <= 0) return;
        currentEpoch++;
        myself.configEpoch = currentEpoch;
        saveOrDie(true);
        log.verbose("WARNING: configEpoch collision with node " + sender.name + ". configEpoch set to "
                + Long.toUnsignedString(myself.configEpoch));
    }

    // the blacklist of forgotten nodes

    private void blacklistCleanup() {
        long nowSec = now() / 1000;
        blacklist.values().removeIf(until -> until < nowSec);
    }

    void blacklistAdd(ClusterNode n) {
        blacklistCleanup();
        blacklist.put(n.name, now() / 1000 + BLACKLIST_TTL_SECONDS);
    }

    private boolean blacklisted(String name) {
        blacklistCleanup();
        return blacklist.containsKey(name);
    }

    // failure reports

    private boolean addFailureReport(ClusterNode failing, ClusterNode sender) {
        boolean fresh = !failing.failReports.containsKey(sender);
        failing.failReports.put(sender, now());
        return fresh;
    }

    private void cleanupFailureReports(ClusterNode n) {
        long maxAge = config.getLong("cluster-node-timeout") * FAIL_REPORT_VALIDITY_MULT;
        long t = now();
        n.failReports.values().removeIf(time -> t - time > maxAge);
    }

    private boolean deleteFailureReport(ClusterNode n, ClusterNode sender) {
        boolean had = n.failReports.remove(sender) != null;
        cleanupFailureReports(n);
        return had;
    }

    int failureReports(ClusterNode n) {
        cleanupFailureReports(n);
        return n.failReports.size();
    }

    private void markFailingIfNeeded(ClusterNode n) {
        int quorum = size / 2 + 1;
        if (!n.timedOut() || n.failed()) return;
        int failures = failureReports(n);
        if (myself.isMaster()) failures++;
        if (failures < quorum) return;
        log.notice("Marking node " + n.name + " as failing (quorum reached).");
        n.flags &= ~ClusterNode.PFAIL;
        n.flags |= ClusterNode.FAIL;
        n.failTime = now();
        sendFail(n.name);
        todoUpdateState = true;
        todoSave = true;
    }

    private void clearFailureIfNeeded(ClusterNode n) {
        long t = now();
        if (n.isReplica() || n.numSlots == 0) {
            log.notice("Clear FAIL state for node " + n.name + ": " + (n.isReplica() ? "replica" : "master without slots")
                    + " is reachable again.");
            n.flags &= ~ClusterNode.FAIL;
            todoUpdateState = true;
            todoSave = true;
        }
        if (n.isMaster() && n.numSlots > 0 && t - n.failTime > config.getLong("cluster-node-timeout") * FAIL_UNDO_TIME_MULT) {
            log.notice("Clear FAIL state for node " + n.name
                    + ": is reachable again and nobody is serving its slots after some time.");
            n.flags &= ~ClusterNode.FAIL;
            todoUpdateState = true;
            todoSave = true;
        }
    }

    // ---- handshake ------------------------------------------------------------------------------

    /** CLUSTER MEET: 0 when started, or an errno-like reason. */
    static final int HANDSHAKE_STARTED = 0;
    static final int HANDSHAKE_INVALID = 1;
    static final int HANDSHAKE_IN_PROGRESS = 2;

    int startHandshake(String ip, int port, int cport) {
        String normalized = Ips.normalize(ip);
        if (normalized == null) return HANDSHAKE_INVALID;
        if (port <= 0 || port > 65535 || cport <= 0 || cport > 65535) return HANDSHAKE_INVALID;
        for (ClusterNode n : nodes.values()) {
            if (n.inHandshake() && n.ip.equalsIgnoreCase(normalized) && n.port == port && n.cport == cport) {
                return HANDSHAKE_IN_PROGRESS;
            }
        }
        ClusterNode n = new ClusterNode(randomName(), ClusterNode.HANDSHAKE | ClusterNode.MEET, now());
        n.ip = normalized;
        n.port = port;
        n.cport = cport;
        addNode(n);
        return HANDSHAKE_STARTED;
    }

    // ---- slots ----------------------------------------------------------------------------------

    boolean addSlot(ClusterNode n, int slot) {
        if (slots[slot] != null) return false;
        n.setSlot(slot);
        // a master's first slot makes it a target for replica migration, if any master has replicas
        if (n.numSlots == 1 && mastersHaveReplicas()) n.flags |= ClusterNode.MIGRATE_TO;
        slots[slot] = n;
        return true;
    }

    boolean deleteSlot(int slot) {
        ClusterNode n = slots[slot];
        if (n == null) return false;
        if (n == myself || myself.replicaOf == n) engine.clusterSlotLost(slot);
        n.clearSlot(slot);
        slots[slot] = null;
        return true;
    }

    int deleteNodeSlots(ClusterNode n) {
        int deleted = 0;
        for (int j = 0; j < KeySlot.SLOTS; j++) {
            if (n.ownsSlot(j)) {
                deleteSlot(j);
                deleted++;
            }
        }
        return deleted;
    }

    void closeAllSlots() {
        Arrays.fill(migratingTo, null);
        Arrays.fill(importingFrom, null);
    }

    private boolean mastersHaveReplicas() {
        for (ClusterNode n : nodes.values()) {
            if (n.isReplica()) continue;
            if (!n.replicas.isEmpty()) return true;
        }
        return false;
    }

    private boolean slotUnclaimed(int slot) {
        return slots[slot] == null || ownerNotClaiming.get(slot);
    }

    /** The master serving this node's slots and its replicas (Redis's clusterGetNodesServingMySlots). */
    List<ClusterNode> nodesServingSlotsOf(ClusterNode n) {
        List<ClusterNode> out = new ArrayList<>();
        ClusterNode master = n.isReplica() && n.replicaOf != null ? n.replicaOf : n;
        if (n.isReplica() && n.replicaOf == null) return out;
        out.add(master);
        out.addAll(master.replicas);
        return out;
    }

    /** Keys left in slots this node does not serve: claimed (unassigned) or marked importing. */
    private void verifyConfigWithData() {
        if (myself.isReplica()) return;
        boolean update = false;
        for (int j = 0; j < KeySlot.SLOTS; j++) {
            if (engine.keyspace().db(0).countKeysInSlot(j) == 0) continue;
            if (slots[j] == myself || importingFrom[j] != null) continue;
            update = true;
            if (slots[j] == null) {
                log.warning("I have keys for unassigned slot " + j + ". Taking responsibility for it.");
                addSlot(myself, j);
            } else {
                log.warning("I have keys for slot " + j + ", but the slot is assigned to another node. "
                        + "Setting it to importing state.");
                importingFrom[j] = slots[j];
            }
        }
        if (update) saveOrDie(true);
    }

    // ---- roles ----------------------------------------------------------------------------------

    private void setNodeAsMaster(ClusterNode n) {
        if (n.isMaster()) return;
        if (n.replicaOf != null) {
            n.replicaOf.removeReplica(n);
            if (n != myself) n.flags |= ClusterNode.MIGRATE_TO;
        }
        n.flags &= ~ClusterNode.REPLICA;
        n.flags |= ClusterNode.MASTER;
        n.replicaOf = null;
        todoSave = true;
        todoUpdateState = true;
    }

    /** Redis's clusterSetMaster: this node (a master without slots, or a replica) replicates n. */
    void setMaster(ClusterNode n) {
        if (myself.isMaster()) {
            myself.flags &= ~(ClusterNode.MASTER | ClusterNode.MIGRATE_TO);
            myself.flags |= ClusterNode.REPLICA;
            closeAllSlots();
        } else if (myself.replicaOf != null) {
            myself.replicaOf.removeReplica(myself);
        }
        myself.replicaOf = n;
        n.addReplica(myself);
        engine.clusterReplicate(n.ip, n.port);
        resetManualFailover();
    }

    /**
     * A master's or UPDATE's claim of slots under a configuration epoch (Redis's
     * clusterUpdateSlotsConfigWith): slots claimed under a greater epoch than their owner's move
     * to the claimer; if this node (or its master) lost its last slot that way it follows the
     * claimer; a master that keeps some slots deletes the keys of the slots it lost.
     */
    private void updateSlotsConfigWith(ClusterNode sender, long senderConfigEpoch, byte[] claimed) {
        if (sender == myself) {
            log.warning("Discarding UPDATE message about myself.");
            return;
        }
        ClusterNode curMaster = myself.isMaster() ? myself : myself.replicaOf;
        ClusterNode newMaster = null;
        List<Integer> dirtySlots = new ArrayList<>();
        int senderSlots = 0;
        int migratedOurSlots = 0;
        for (int j = 0; j < KeySlot.SLOTS; j++) {
            if ((claimed[j >> 3] & (1 << (j & 7))) != 0) {
                senderSlots++;
                if (slots[j] == sender) {
                    ownerNotClaiming.clear(j);
                    continue;
                }
                if (importingFrom[j] != null) continue;
                if (slotUnclaimed(j) || Long.compareUnsigned(slots[j].configEpoch, senderConfigEpoch) < 0) {
                    if (slots[j] == myself && engine.keyspace().db(0).countKeysInSlot(j) != 0) dirtySlots.add(j);
                    if (slots[j] == curMaster) {
                        newMaster = sender;
                        migratedOurSlots++;
                    }
                    deleteSlot(j);
                    addSlot(sender, j);
                    ownerNotClaiming.clear(j);
                    todoSave = true;
                    todoUpdateState = true;
                    todoFsync = true;
                }
            } else if (slots[j] == sender) {
                ownerNotClaiming.set(j);
            }
        }
        if (newMaster != null && curMaster != null && curMaster.numSlots == 0
                && (config.getBool("cluster-allow-replica-migration") || senderSlots == migratedOurSlots)) {
            log.warning("Configuration change detected. Reconfiguring myself as a replica of " + sender.name);
            setMaster(sender);
            todoSave = true;
            todoUpdateState = true;
            todoFsync = true;
        } else if (myself.replicaOf != null && myself.replicaOf.replicaOf != null && myself.replicaOf.replicaOf != myself) {
            log.warning("I'm a sub-replica! Reconfiguring myself as a replica of grandmaster " + myself.replicaOf.replicaOf.name);
            setMaster(myself.replicaOf.replicaOf);
            todoSave = true;
            todoUpdateState = true;
            todoFsync = true;
        } else if (!dirtySlots.isEmpty()) {
            for (int slot : dirtySlots) deleteKeysInSlot(slot);
        }
    }

    /** Deletes every key of a slot, as if each was deleted by DEL (propagated). */
    int deleteKeysInSlot(int slot) {
        int n = 0;
        io.spinel.core.keyspace.Db db = engine.keyspace().db(0);
        List<byte[]> keys;
        while (!(keys = db.keysInSlot(slot, 1024)).isEmpty()) {
            int before = db.countKeysInSlot(slot);
            for (byte[] k : keys) {
                engine.clusterDeleteKey(k);
                n++;
            }
            if (db.countKeysInSlot(slot) >= before) break; // (never: every key listed was there to delete)
        }
        return n;
    }

    // ---- the state ------------------------------------------------------------------------------

    /** Redis's clusterUpdateState: ok when every slot is served (if required) and a majority of masters is reachable. */
    void updateState() {
        todoUpdateState = false;
        long t = now();
        if (firstUpdateStateCall == 0) firstUpdateStateCall = t;
        // a master that just started waits a little, to learn the configuration before it accepts writes
        if (myself.isMaster() && state == STATE_FAIL && t - firstUpdateStateCall < WRITABLE_DELAY) return;
        int newState = STATE_OK;
        if (config.getBool("cluster-require-full-coverage")) {
            for (int j = 0; j < KeySlot.SLOTS; j++) {
                if (slots[j] == null || slots[j].failed()) {
                    newState = STATE_FAIL;
                    break;
                }
            }
        }
        int reachable = 0;
        size = 0;
        for (ClusterNode n : nodes.values()) {
            if (n.isMaster() && n.numSlots > 0) {
                size++;
                if ((n.flags & (ClusterNode.FAIL | ClusterNode.PFAIL)) == 0) reachable++;
            }
        }
        if (reachable < size / 2 + 1) {
            newState = STATE_FAIL;
            amongMinorityTime = t;
        }
        if (newState != state) {
            long rejoinDelay = Math.max(MIN_REJOIN_DELAY, Math.min(MAX_REJOIN_DELAY, config.getLong("cluster-node-timeout")));
            if (newState == STATE_OK && myself.isMaster() && t - amongMinorityTime < rejoinDelay) return;
            log.warning("Cluster state changed: " + (newState == STATE_OK ? "ok" : "fail"));
            state = newState;
        }
    }

    /** The work a change left for the end of the turn (Redis's clusterBeforeSleep). */
    public void beforeSleep() {
        boolean manual = todoManualFailover;
        boolean failover = todoHandleFailover;
        todoManualFailover = false;
        todoHandleFailover = false;
        if (manual) {
            if (myself.isReplica()) {
                handleManualFailover();
                handleReplicaFailover();
            }
        } else if (failover) {
            handleReplicaFailover();
        }
        if (todoUpdateState) updateState();
        if (todoSave) saveOrDie(todoFsync);
    }

    // ---- the cron -------------------------------------------------------------------------------

    private void cronSafely() {
        try {
            cron();
            beforeSleep();
        } catch (RuntimeException e) {
            log.warning("Error in cluster cron: " + e);
        }
    }

    /** Redis's clusterCron, every 100 ms: reconnects, pings, failure detection, failover. */
    void cron() {
        iteration++;
        updateMyselfHostname();
        long nodeTimeout = config.getLong("cluster-node-timeout");
        long handshakeTimeout = Math.max(nodeTimeout, 1000);
        boolean updateState = false;
        pfailNodes = 0;
        long t = now();
        long sendbufLimit = config.getLong("cluster-link-sendbuf-limit");
        for (ClusterNode n : new ArrayList<>(nodes.values())) {
            // a peer that stops reading must not make this node hold an ever-growing queue: the
            // link goes (an outbound one is connected again just below)
            if (sendbufLimit != 0) {
                freeLinkOverLimit(n.link, sendbufLimit);
                freeLinkOverLimit(n.inboundLink, sendbufLimit);
            }
            if (n.has(ClusterNode.MYSELF) || n.has(ClusterNode.NOADDR)) continue;
            if (n.timedOut()) pfailNodes++;
            // a handshake that did not complete in time: forget the address
            if (n.inHandshake() && t - n.ctime > handshakeTimeout) {
                deleteNode(n);
                continue;
            }
            if (n.link == null) {
                if (n.ip.isEmpty()) {
                    // nowhere to connect to (as a failed connect in Redis): the node owes an answer
                    if (n.pingSent == 0) n.pingSent = now();
                    continue;
                }
                BusLink link = new BusLink(n, now());
                n.link = link;
                bus.connect(link, n.ip, n.cport);
            }
        }
        // every second, ping one of five random nodes, the one whose PONG is oldest
        if (iteration % 10 == 0) {
            ClusterNode minPongNode = null;
            long minPong = 0;
            List<ClusterNode> all = new ArrayList<>(nodes.values());
            for (int j = 0; j < 5 && !all.isEmpty(); j++) {
                ClusterNode n = all.get(ThreadLocalRandom.current().nextInt(all.size()));
                if (n.link == null || n.pingSent != 0) continue;
                if (n.has(ClusterNode.MYSELF) || n.inHandshake()) continue;
                if (minPongNode == null || minPong > n.pongReceived) {
                    minPongNode = n;
                    minPong = n.pongReceived;
                }
            }
            if (minPongNode != null) sendPing(minPongNode.link, ClusterMessage.PING);
        }
        int orphanedMasters = 0;
        int maxReplicas = 0;
        int thisReplicas = 0;
        for (ClusterNode n : new ArrayList<>(nodes.values())) {
            t = now();
            if ((n.flags & (ClusterNode.MYSELF | ClusterNode.NOADDR | ClusterNode.HANDSHAKE)) != 0) continue;
            if (myself.isReplica() && n.isMaster() && !n.failed()) {
                int ok = n.nonFailingReplicas();
                if (ok == 0 && n.numSlots > 0 && n.has(ClusterNode.MIGRATE_TO)) orphanedMasters++;
                if (ok > maxReplicas) maxReplicas = ok;
                if (myself.replicaOf == n) thisReplicas = ok;
            }
            long pingDelay = t - n.pingSent;
            long dataDelay = t - n.dataReceived;
            // no PONG for half the timeout on a link older than the timeout: reconnect, in case
            // only the connection is the problem
            if (n.link != null && t - n.link.ctime > nodeTimeout && n.pingSent != 0
                    && pingDelay > nodeTimeout / 2 && dataDelay > nodeTimeout / 2) {
                freeLink(n.link);
            }
            if (n.link != null && n.pingSent == 0 && t - n.pongReceived > nodeTimeout / 2) {
                sendPing(n.link, ClusterMessage.PING);
                continue;
            }
            // a master in a manual failover pings the replica that asked for it often
            if (mfEnd != 0 && myself.isMaster() && mfReplica == n && n.link != null) {
                sendPing(n.link, ClusterMessage.PING);
                continue;
            }
            if (n.pingSent == 0) continue;
            long delay = Math.min(pingDelay, dataDelay);
            if (delay > nodeTimeout && (n.flags & (ClusterNode.PFAIL | ClusterNode.FAIL)) == 0) {
                log.debug("*** NODE " + n.name + " possibly failing");
                n.flags |= ClusterNode.PFAIL;
                updateState = true;
            }
        }
        // a replica whose link to its master is gone (a restart, say), or goes to another address
        // (it learned of a new master while it loaded), follows it again
        if (myself.isReplica() && myself.replicaOf != null && myself.replicaOf.hasAddress()
                && !engine.clusterReplicatesFrom(myself.replicaOf.ip, myself.replicaOf.port)) {
            engine.clusterReplicate(myself.replicaOf.ip, myself.replicaOf.port);
        }
        manualFailoverCheckTimeout();
        if (myself.isReplica()) {
            handleManualFailover();
            handleReplicaFailover();
            if (orphanedMasters > 0 && maxReplicas >= 2 && thisReplicas == maxReplicas
                    && config.getBool("cluster-allow-replica-migration")) {
                handleReplicaMigration(maxReplicas);
            }
        }
        if (updateState || state == STATE_FAIL) updateState();
    }

    // ---- links ----------------------------------------------------------------------------------

    /** cluster-link-sendbuf-limit: frees a link whose queue of unsent messages grew past it. */
    private void freeLinkOverLimit(BusLink link, long limit) {
        if (link == null || link.freed) return;
        long queued = link.pendingBytes.get();
        if (queued <= limit) return;
        log.warning("Freeing cluster link(" + (link.inbound ? "from" : "to") + " node "
                + (link.node != null ? link.node.name : "") + ", used memory: " + queued
                + ") due to exceeding send buffer memory limit.");
        freeLink(link);
        linksBufferLimitExceeded++;
    }

    void freeLink(BusLink link) {
        if (link.freed) return;
        link.freed = true;
        if (link.node != null) {
            if (link.node.link == link) link.node.link = null;
            else if (link.node.inboundLink == link) link.node.inboundLink = null;
        }
        if (bus != null) bus.close(link);
    }

    private void setInboundLink(ClusterNode n, BusLink link) {
        if (n.inboundLink != null && n.inboundLink != link) freeLink(n.inboundLink);
        n.inboundLink = link;
        link.node = n;
    }

    @Override
    public void connected(BusLink link) {
        if (link.freed) return;
        ClusterNode n = link.node;
        long oldPingSent = n.pingSent;
        sendPing(link, n.has(ClusterNode.MEET) ? ClusterMessage.MEET : ClusterMessage.PING);
        // a ping sent before the reconnection still counts: the node is not reachable until it answers
        if (oldPingSent != 0) n.pingSent = oldPingSent;
        n.flags &= ~ClusterNode.MEET;
        log.debug("Connecting with Node " + n.name + " at " + n.ip + ":" + n.cport);
        beforeSleep();
    }

    @Override
    public void accepted(BusLink link) {
        // (Redis refuses the bus while a master loads its data; the load runs before the bus opens here)
        log.verbose("Accepting cluster node connection from " + link.peerIp);
    }

    @Override
    public void lost(BusLink link, String why, boolean beforeConnected) {
        if (link.freed) return;
        if (!link.inbound && link.node != null && link.node.pingSent == 0) {
            // a connection that failed: the node owes us an answer from now on
            link.node.pingSent = now();
        }
        // (a failed TLS handshake counts as a failed connection or accept, as in Redis)
        if (beforeConnected && !link.inbound && link.node != null) {
            log.verbose("Connection with Node " + link.node.name + " at " + link.node.ip + ":" + link.node.cport
                    + " failed: " + why);
        } else if (beforeConnected && link.inbound) {
            log.verbose("Error accepting cluster node connection: " + why);
        } else {
            log.debug("I/O error on cluster link: " + why);
        }
        freeLink(link);
    }

    @Override
    public void received(BusLink link, byte[] message) {
        if (link.freed) return;
        try {
            if (!processPacket(link, message)) return;
        } catch (RuntimeException e) {
            log.warning("Error processing a cluster bus message: " + e);
        }
        beforeSleep();
    }

    // ---- messages in ----------------------------------------------------------------------------

    private ClusterNode senderOf(BusLink link, ClusterMessage m) {
        if (link.node != null && !link.node.inHandshake()) return link.node;
        ClusterNode sender = lookup(m.sender);
        if (sender != null && link.inbound && link.node == null) setInboundLink(sender, link);
        return sender;
    }

    /** DEBUG DROP-CLUSTER-PACKET-FILTER: messages of this type are counted and ignored (-1: none). */
    public long dropPacketFilter = -1;

    /** DEBUG CLUSTERLINK KILL to|from|all node-id. */
    public void debugKillLinks(String direction, String nodeName) {
        ClusterNode n = lookup(nodeName);
        if (n == null) throw io.spinel.core.command.CommandError.err("Unknown node " + nodeName);
        boolean to = direction.equalsIgnoreCase("to") || direction.equalsIgnoreCase("all");
        boolean from = direction.equalsIgnoreCase("from") || direction.equalsIgnoreCase("all");
        if (!to && !from) throw io.spinel.core.command.CommandError.err("Unknown direction " + direction);
        if (to && n.link != null) freeLink(n.link);
        if (from && n.inboundLink != null) freeLink(n.inboundLink);
    }

    /** Redis's clusterProcessPacket; false when the link was freed. */
    private boolean processPacket(BusLink link, byte[] raw) {
        int type = raw.length >= 14 ? ((raw[12] & 0xff) << 8) | (raw[13] & 0xff) : -1;
        if (type >= 0 && type < MESSAGE_NAMES.length) messagesReceived[type]++;
        if (type == dropPacketFilter) {
            log.warning("Dropping packet that matches debug drop filter");
            return true;
        }
        ClusterMessage m;
        try {
            m = ClusterMessage.decode(raw, 0, raw.length);
        } catch (IllegalArgumentException e) {
            log.warning("Received invalid " + typeName(type) + " packet: " + e.getMessage());
            return true;
        }
        if (m == null) return true;
        long t = now();
        ClusterNode sender = senderOf(link, m);
        if (sender != null) sender.dataReceived = t;
        long senderConfigEpoch = 0;
        if (sender != null && !sender.inHandshake()) {
            if (Long.compareUnsigned(m.currentEpoch, currentEpoch) > 0) currentEpoch = m.currentEpoch;
            senderConfigEpoch = m.configEpoch;
            if (Long.compareUnsigned(senderConfigEpoch, sender.configEpoch) > 0) {
                sender.configEpoch = senderConfigEpoch;
                todoSave = true;
                todoFsync = true;
            }
            sender.replOffset = m.offset;
            sender.replOffsetTime = t;
            // a replica in a manual failover learns the offset its paused master stopped at
            if (mfEnd != 0 && myself.isReplica() && myself.replicaOf == sender
                    && (m.mflags[0] & ClusterMessage.MFLAG0_PAUSED) != 0 && mfMasterOffset == -1) {
                mfMasterOffset = sender.replOffset;
                todoManualFailover = true;
                log.warning("Received replication offset for paused master manual failover: " + mfMasterOffset);
            }
        }
        int type2 = m.type;
        if (type2 == ClusterMessage.PING || type2 == ClusterMessage.MEET) {
            // a MEET (or any PING while this node has no address yet) tells it its own address
            if ((type2 == ClusterMessage.MEET || myself.ip.isEmpty()) && config.get("cluster-announce-ip").isEmpty()) {
                String ip = link.localIp;
                if (!ip.isEmpty() && !ip.equals(myself.ip)) {
                    myself.ip = ip;
                    log.warning("IP address for this node updated to " + myself.ip);
                    todoSave = true;
                }
            }
            if (sender == null && type2 == ClusterMessage.MEET) {
                ClusterNode n = new ClusterNode(randomName(), ClusterNode.HANDSHAKE, now());
                n.ip = m.ip.isEmpty() ? link.peerIp : m.ip;
                n.port = m.port;
                n.pport = m.pport;
                n.cport = m.cport;
                addNode(n);
                todoSave = true;
                processGossip(m, link);
            }
            sendPing(link, ClusterMessage.PONG);
        }
        if (type2 == ClusterMessage.PING || type2 == ClusterMessage.PONG || type2 == ClusterMessage.MEET) {
            if (!link.inbound) {
                if (link.node.inHandshake()) {
                    if (sender != null) {
                        // already known under its name: maybe at a new address; the handshake node goes
                        log.verbose("Handshake: we already know node " + sender.name + ", updating the address if needed.");
                        if (updateAddressIfNeeded(sender, link, m)) {
                            todoSave = true;
                            todoUpdateState = true;
                        }
                        deleteNode(link.node);
                        return false;
                    }
                    renameNode(link.node, m.sender);
                    log.debug("Handshake with node " + link.node.name + " completed.");
                    link.node.flags &= ~ClusterNode.HANDSHAKE;
                    link.node.flags |= m.flags & (ClusterNode.MASTER | ClusterNode.REPLICA);
                    todoSave = true;
                } else if (!link.node.name.equals(m.sender)) {
                    log.debug("PONG contains mismatching sender ID. About node " + link.node.name + " added "
                            + (t - link.node.ctime) + " ms ago, having flags " + link.node.flags);
                    link.node.flags |= ClusterNode.NOADDR;
                    link.node.ip = "";
                    link.node.port = 0;
                    link.node.pport = 0;
                    link.node.cport = 0;
                    freeLink(link);
                    todoSave = true;
                    return false;
                }
            }
            if (sender != null) {
                sender.flags &= ~ClusterNode.NOFAILOVER;
                sender.flags |= m.flags & ClusterNode.NOFAILOVER;
            }
            if (sender != null && type2 == ClusterMessage.PING && !sender.inHandshake()
                    && updateAddressIfNeeded(sender, link, m)) {
                todoSave = true;
                todoUpdateState = true;
            }
            if (!link.inbound && type2 == ClusterMessage.PONG) {
                link.node.pongReceived = t;
                link.node.pingSent = 0;
                if (link.node.timedOut()) {
                    link.node.flags &= ~ClusterNode.PFAIL;
                    todoSave = true;
                    todoUpdateState = true;
                } else if (link.node.failed()) {
                    clearFailureIfNeeded(link.node);
                }
            }
            if (sender != null) {
                if (m.replicaOf == null) {
                    setNodeAsMaster(sender);
                } else {
                    ClusterNode master = lookup(m.replicaOf);
                    if (sender.isMaster()) {
                        // a master turned replica
                        deleteNodeSlots(sender);
                        sender.flags &= ~(ClusterNode.MASTER | ClusterNode.MIGRATE_TO);
                        sender.flags |= ClusterNode.REPLICA;
                        todoSave = true;
                        todoUpdateState = true;
                    }
                    if (master != null && sender.replicaOf != master) {
                        if (sender.replicaOf != null) sender.replicaOf.removeReplica(sender);
                        master.addReplica(sender);
                        sender.replicaOf = master;
                        todoSave = true;
                    }
                }
            }
            ClusterNode senderMaster = null;
            boolean dirtySlots = false;
            if (sender != null) {
                senderMaster = sender.isMaster() ? sender : sender.replicaOf;
                if (senderMaster != null) dirtySlots = !Arrays.equals(senderMaster.slots, m.slots);
            }
            if (sender != null && sender.isMaster() && dirtySlots) updateSlotsConfigWith(sender, senderConfigEpoch, m.slots);
            // the sender claims slots a node with a greater epoch serves: tell it
            if (sender != null && dirtySlots) {
                for (int j = 0; j < KeySlot.SLOTS; j++) {
                    if ((m.slots[j >> 3] & (1 << (j & 7))) == 0) continue;
                    if (slots[j] == sender || slotUnclaimed(j)) continue;
                    if (Long.compareUnsigned(slots[j].configEpoch, senderConfigEpoch) > 0) {
                        log.verbose("Node " + sender.name + " has old slots configuration, sending an UPDATE message about "
                                + slots[j].name);
                        sendUpdate(sender.link, slots[j]);
                        break;
                    }
                }
            }
            if (sender != null && myself.isMaster() && sender.isMaster() && senderConfigEpoch == myself.configEpoch) {
                handleEpochCollision(sender);
            }
            if (sender != null) {
                processGossip(m, link);
                sender.hostname = m.hostname == null ? "" : m.hostname;
            }
        } else if (type2 == ClusterMessage.FAIL) {
            if (sender != null) {
                ClusterNode failing = lookup(m.failing);
                if (failing != null && (failing.flags & (ClusterNode.FAIL | ClusterNode.MYSELF)) == 0) {
                    log.notice("FAIL message received from " + m.sender + " about " + m.failing);
                    failing.flags |= ClusterNode.FAIL;
                    failing.failTime = t;
                    failing.flags &= ~ClusterNode.PFAIL;
                    todoSave = true;
                    todoUpdateState = true;
                }
            } else {
                log.notice("Ignoring FAIL message from unknown node " + m.sender + " about " + m.failing);
            }
        } else if (type2 == ClusterMessage.PUBLISH || type2 == ClusterMessage.PUBLISHSHARD) {
            if (sender == null) return true;
            engine.clusterDeliver(m.channel, m.message, type2 == ClusterMessage.PUBLISHSHARD);
        } else if (type2 == ClusterMessage.FAILOVER_AUTH_REQUEST) {
            if (sender == null) return true;
            sendFailoverAuthIfNeeded(sender, m);
        } else if (type2 == ClusterMessage.FAILOVER_AUTH_ACK) {
            if (sender == null) return true;
            // a vote counts from a master with slots, for this election or a later one
            if (sender.isMaster() && sender.numSlots > 0 && Long.compareUnsigned(m.currentEpoch, failoverAuthEpoch) >= 0) {
                failoverAuthCount++;
                todoHandleFailover = true;
            }
        } else if (type2 == ClusterMessage.MFSTART) {
            if (sender == null || sender.replicaOf != myself) return true;
            resetManualFailover();
            mfEnd = t + MF_TIMEOUT;
            mfReplica = sender;
            engine.clusterPauseWrites(t + MF_TIMEOUT * MF_PAUSE_MULT);
            log.warning("Manual failover requested by replica " + sender.name + ".");
            sendPing(link, ClusterMessage.PING);
        } else if (type2 == ClusterMessage.UPDATE) {
            if (sender == null) return true;
            ClusterNode n = lookup(m.updateNode);
            if (n == null) return true;
            if (Long.compareUnsigned(n.configEpoch, m.updateConfigEpoch) >= 0) return true;
            if (n.isReplica()) setNodeAsMaster(n);
            n.configEpoch = m.updateConfigEpoch;
            todoSave = true;
            todoFsync = true;
            updateSlotsConfigWith(n, m.updateConfigEpoch, m.updateSlots);
        } else if (type2 == ClusterMessage.MODULE) {
            // no modules here: nothing listens
        } else {
            log.warning("Received unknown packet type: " + type2);
        }
        return true;
    }

    private static String typeName(int type) {
        return type >= 0 && type < MESSAGE_NAMES.length ? MESSAGE_NAMES[type] : "unknown";
    }

    /** A node's address changed (a PING from it on another link says so): reconnect to the new one. */
    private boolean updateAddressIfNeeded(ClusterNode n, BusLink link, ClusterMessage m) {
        if (link == n.link) return false;
        String ip = !m.ip.isEmpty() ? m.ip : link.peerIp;
        if (ip.isEmpty()) return false;
        if (n.port == m.port && n.cport == m.cport && n.pport == m.pport && ip.equals(n.ip)) return false;
        n.ip = ip;
        n.port = m.port;
        n.pport = m.pport;
        n.cport = m.cport;
        if (n.link != null) freeLink(n.link);
        n.flags &= ~ClusterNode.NOADDR;
        log.warning("Address updated for node " + n.name + ", now " + n.ip + ":" + n.port);
        if (myself.isReplica() && myself.replicaOf == n) engine.clusterReplicate(n.ip, n.port);
        return true;
    }

    private void processGossip(ClusterMessage m, BusLink link) {
        ClusterNode sender = link.node != null ? link.node : lookup(m.sender);
        for (ClusterMessage.Gossip g : m.gossip) {
            int flags = g.flags();
            ClusterNode n = lookup(g.name());
            if (n != null) {
                if (sender != null && sender.isMaster() && n != myself) {
                    if ((flags & (ClusterNode.FAIL | ClusterNode.PFAIL)) != 0) {
                        if (addFailureReport(n, sender)) {
                            log.verbose("Node " + sender.name + " reported node " + n.name + " as not reachable.");
                        }
                        markFailingIfNeeded(n);
                    } else if (deleteFailureReport(n, sender)) {
                        log.verbose("Node " + sender.name + " reported node " + n.name + " is back online.");
                    }
                }
                // others heard from it more recently than this node did
                if ((flags & (ClusterNode.FAIL | ClusterNode.PFAIL)) == 0 && n.pingSent == 0 && failureReports(n) == 0) {
                    long pong = g.pongReceivedSeconds() * 1000;
                    if (pong <= now() + 500 && pong > n.pongReceived) n.pongReceived = pong;
                }
                // unreachable here, reachable elsewhere at another address: try that one
                if ((n.flags & (ClusterNode.FAIL | ClusterNode.PFAIL)) != 0 && (flags & ClusterNode.NOADDR) == 0
                        && (flags & (ClusterNode.FAIL | ClusterNode.PFAIL)) == 0
                        && (!n.ip.equalsIgnoreCase(g.ip()) || n.port != g.port() || n.cport != g.cport())) {
                    if (n.link != null) freeLink(n.link);
                    n.ip = g.ip();
                    n.port = g.port();
                    n.pport = g.pport();
                    n.cport = g.cport();
                    n.flags &= ~ClusterNode.NOADDR;
                }
            } else if (sender != null && (flags & ClusterNode.NOADDR) == 0 && !blacklisted(g.name())
                    && validName(g.name())) {
                // a node a known node knows: trusted with its name (a handshake by address could join another cluster)
                ClusterNode added = new ClusterNode(g.name(), flags, now());
                added.ip = g.ip();
                added.port = g.port();
                added.pport = g.pport();
                added.cport = g.cport();
                addNode(added);
            }
        }
    }

    // ---- messages out ---------------------------------------------------------------------------

    private ClusterMessage header(int type) {
        ClusterNode master = myself.isReplica() && myself.replicaOf != null ? myself.replicaOf : myself;
        ClusterMessage m = new ClusterMessage();
        m.type = type;
        m.sender = myself.name;
        m.ip = config.get("cluster-announce-ip");
        m.port = myself.port;
        m.cport = myself.cport;
        m.pport = myself.pport;
        System.arraycopy(master.slots, 0, m.slots, 0, m.slots.length);
        m.replicaOf = myself.replicaOf != null ? myself.replicaOf.name : null;
        m.flags = myself.flags;
        m.state = state;
        m.currentEpoch = currentEpoch;
        m.configEpoch = master.configEpoch;
        m.offset = engine.clusterReplicationOffset();
        if (myself.isMaster() && mfEnd != 0) m.mflags[0] |= ClusterMessage.MFLAG0_PAUSED;
        return m;
    }

    private void send(BusLink link, ClusterMessage m) {
        if (link == null || link.freed || bus == null) return;
        bus.send(link, m.encode());
        if (m.type >= 0 && m.type < MESSAGE_NAMES.length) messagesSent[m.type]++;
    }

    private void broadcast(ClusterMessage m) {
        byte[] bytes = null;
        for (ClusterNode n : nodes.values()) {
            if ((n.flags & (ClusterNode.MYSELF | ClusterNode.HANDSHAKE)) != 0) continue;
            if (n.link == null || n.link.freed) continue;
            if (bytes == null) bytes = m.encode();
            bus.send(n.link, bytes);
            messagesSent[m.type]++;
        }
    }

    /** A PING, PONG or MEET with gossip about a tenth of the known nodes (at least 3) and every PFAIL one. */
    void sendPing(BusLink link, int type) {
        if (link == null || link.freed) return;
        pingsSent++;
        int freshNodes = nodes.size() - 2;
        int wanted = Math.max(3, nodes.size() / 10);
        if (wanted > freshNodes) wanted = freshNodes;
        if (!link.inbound && type == ClusterMessage.PING) link.node.pingSent = now();
        ClusterMessage m = header(type);
        List<ClusterNode> all = new ArrayList<>(nodes.values());
        int maxIterations = wanted * 3;
        while (freshNodes > 0 && m.gossip.size() < wanted && maxIterations-- > 0) {
            ClusterNode n = all.get(ThreadLocalRandom.current().nextInt(all.size()));
            if (n == myself) continue;
            if (n.timedOut()) continue; // PFAIL nodes are all added below
            if ((n.flags & (ClusterNode.HANDSHAKE | ClusterNode.NOADDR)) != 0 || (n.link == null && n.numSlots == 0)) {
                freshNodes--;
                continue;
            }
            if (n.lastInPingGossip == pingsSent) continue;
            m.gossip.add(gossipOf(n));
            n.lastInPingGossip = pingsSent;
            freshNodes--;
        }
        int pfailWanted = pfailNodes;
        for (ClusterNode n : all) {
            if (pfailWanted <= 0) break;
            if (n.inHandshake() || n.has(ClusterNode.NOADDR) || !n.timedOut()) continue;
            m.gossip.add(gossipOf(n));
            pfailWanted--;
        }
        m.hostname = myself.hostname.isEmpty() ? null : myself.hostname;
        send(link, m);
    }

    private static ClusterMessage.Gossip gossipOf(ClusterNode n) {
        return new ClusterMessage.Gossip(n.name, n.pingSent / 1000, n.pongReceived / 1000, n.ip, n.port, n.cport,
                n.flags, n.pport);
    }

    /** A PONG to every node (all, or only this shard's replicas), to spread a configuration change at once. */
    void broadcastPong(boolean localReplicasOnly) {
        for (ClusterNode n : new ArrayList<>(nodes.values())) {
            if (n.link == null || n == myself || n.inHandshake()) continue;
            if (localReplicasOnly) {
                boolean local = n.isReplica() && n.replicaOf != null
                        && (n.replicaOf == myself || n.replicaOf == myself.replicaOf);
                if (!local) continue;
            }
            sendPing(n.link, ClusterMessage.PONG);
        }
    }

    private void sendFail(String name) {
        ClusterMessage m = header(ClusterMessage.FAIL);
        m.failing = name;
        broadcast(m);
    }

    private void sendUpdate(BusLink link, ClusterNode n) {
        if (link == null) return;
        ClusterMessage m = header(ClusterMessage.UPDATE);
        m.updateNode = n.name;
        m.updateConfigEpoch = n.configEpoch;
        m.updateSlots = n.slots.clone();
        for (int j = ownerNotClaiming.nextSetBit(0); j >= 0; j = ownerNotClaiming.nextSetBit(j + 1)) {
            m.updateSlots[j >> 3] &= (byte) ~(1 << (j & 7));
        }
        send(link, m);
    }

    /** PUBLISH goes to every node; SPUBLISH to the other nodes serving this shard. */
    public void propagatePublish(byte[] channel, byte[] message, boolean sharded) {
        ClusterMessage m = header(sharded ? ClusterMessage.PUBLISHSHARD : ClusterMessage.PUBLISH);
        m.channel = channel;
        m.message = message;
        if (!sharded) {
            broadcast(m);
            return;
        }
        byte[] bytes = null;
        for (ClusterNode n : nodesServingSlotsOf(myself)) {
            if ((n.flags & (ClusterNode.MYSELF | ClusterNode.HANDSHAKE)) != 0 || n.link == null) continue;
            if (bytes == null) bytes = m.encode();
            bus.send(n.link, bytes);
            messagesSent[m.type]++;
        }
    }

    // ---- failover -------------------------------------------------------------------------------

    /** A master's vote for a replica that asks to replace its failed master (Redis's clusterSendFailoverAuthIfNeeded). */
    private void sendFailoverAuthIfNeeded(ClusterNode node, ClusterMessage request) {
        ClusterNode master = node.replicaOf;
        boolean forceAck = (request.mflags[0] & ClusterMessage.MFLAG0_FORCEACK) != 0;
        if (myself.isReplica() || myself.numSlots == 0) return;
        if (Long.compareUnsigned(request.currentEpoch, currentEpoch) < 0) {
            log.warning("Failover auth denied to " + node.name + ": reqEpoch (" + Long.toUnsignedString(request.currentEpoch)
                    + ") < curEpoch(" + Long.toUnsignedString(currentEpoch) + ")");
            return;
        }
        if (lastVoteEpoch == currentEpoch) {
            log.warning("Failover auth denied to " + node.name + ": already voted for epoch " + Long.toUnsignedString(currentEpoch));
            return;
        }
        if (node.isMaster() || master == null || (!master.failed() && !forceAck)) {
            if (node.isMaster()) log.warning("Failover auth denied to " + node.name + ": it is a master node");
            else if (master == null) log.warning("Failover auth denied to " + node.name + ": I don't know its master");
            else log.warning("Failover auth denied to " + node.name + ": its master is up");
            return;
        }
        long nodeTimeout = config.getLong("cluster-node-timeout");
        if (now() - master.votedTime < nodeTimeout * 2) {
            log.warning("Failover auth denied to " + node.name + ": can't vote about this master before "
                    + (nodeTimeout * 2 - (now() - master.votedTime)) + " milliseconds");
            return;
        }
        for (int j = 0; j < KeySlot.SLOTS; j++) {
            if ((request.slots[j >> 3] & (1 << (j & 7))) == 0) continue;
            if (slotUnclaimed(j) || Long.compareUnsigned(slots[j].configEpoch, request.configEpoch) <= 0) continue;
            log.warning("Failover auth denied to " + node.name + ": slot " + j + " epoch ("
                    + Long.toUnsignedString(slots[j].configEpoch) + ") > reqEpoch ("
                    + Long.toUnsignedString(request.configEpoch) + ")");
            return;
        }
        lastVoteEpoch = currentEpoch;
        master.votedTime = now();
        todoSave = true;
        todoFsync = true;
        if (node.link != null) send(node.link, header(ClusterMessage.FAILOVER_AUTH_ACK));
        log.warning("Failover auth granted to " + node.name + " for epoch " + Long.toUnsignedString(currentEpoch));
    }

    /** How many replicas of the same master have a larger replication offset (they go first). */
    private int replicaRank() {
        ClusterNode master = myself.replicaOf;
        if (master == null) return 0;
        long myOffset = engine.clusterReplicationOffset();
        int rank = 0;
        for (ClusterNode r : master.replicas) {
            if (r != myself && !r.has(ClusterNode.NOFAILOVER) && r.replOffset > myOffset) rank++;
        }
        return rank;
    }

    private void logCantFailover(int reason) {
        long nowSec = now() / 1000;
        if (reason == cantFailoverReason && nowSec - cantFailoverLoggedAt < CANT_FAILOVER_RELOG_SECONDS) return;
        cantFailoverReason = reason;
        // right after the master failed this is expected: not worth a line
        if (myself.replicaOf != null && myself.replicaOf.failed()
                && now() - myself.replicaOf.failTime < config.getLong("cluster-node-timeout") + 5000) {
            return;
        }
        String msg = switch (reason) {
            case CANT_FAILOVER_DATA_AGE -> "Disconnected from master for longer than allowed. Please check the "
                    + "'cluster-replica-validity-factor' configuration option.";
            case CANT_FAILOVER_WAITING_DELAY -> "Waiting the delay before I can start a new failover.";
            case CANT_FAILOVER_EXPIRED -> "Failover attempt expired.";
            case CANT_FAILOVER_WAITING_VOTES -> "Waiting for votes, but majority still not reached.";
            default -> "Unknown reason code.";
        };
        cantFailoverLoggedAt = nowSec;
        log.warning("Currently unable to failover: " + msg);
    }

    /** This replica takes its master's slots (after an election, or CLUSTER FAILOVER TAKEOVER). */
    void replaceMaster() {
        ClusterNode oldMaster = myself.replicaOf;
        if (myself.isMaster() || oldMaster == null) return;
        setNodeAsMaster(myself);
        engine.clusterStopReplicating();
        for (int j = 0; j < KeySlot.SLOTS; j++) {
            if (oldMaster.ownsSlot(j)) {
                deleteSlot(j);
                addSlot(myself, j);
            }
        }
        updateState();
        saveOrDie(true);
        broadcastPong(false);
        resetManualFailover();
    }

    /** Redis's clusterHandleSlaveFailover: the election, run by a replica whose master failed (or manual). */
    private void handleReplicaFailover() {
        long nodeTimeout = config.getLong("cluster-node-timeout");
        long authAge = now() - failoverAuthTime;
        int quorum = size / 2 + 1;
        boolean manual = mfEnd != 0 && mfCanStart;
        todoHandleFailover = false;
        long authTimeout = Math.max(nodeTimeout * 2, 2000);
        long authRetryTime = authTimeout * 2;
        if (myself.isMaster() || myself.replicaOf == null || (!myself.replicaOf.failed() && !manual)
                || (config.getBool("cluster-replica-no-failover") && !manual) || myself.replicaOf.numSlots == 0) {
            cantFailoverReason = CANT_FAILOVER_NONE;
            return;
        }
        long dataAge = engine.clusterMasterDataAgeMillis();
        if (dataAge > nodeTimeout) dataAge -= nodeTimeout;
        long validity = config.getLong("cluster-replica-validity-factor");
        if (validity != 0 && dataAge > config.getLong("repl-ping-replica-period") * 1000 + nodeTimeout * validity) {
            if (!manual) {
                logCantFailover(CANT_FAILOVER_DATA_AGE);
                return;
            }
        }
        if (authAge > authRetryTime) {
            failoverAuthTime = now() + 500 + ThreadLocalRandom.current().nextInt(500);
            failoverAuthCount = 0;
            failoverAuthSent = false;
            failoverAuthRank = replicaRank();
            failoverAuthTime += failoverAuthRank * 1000L;
            if (mfEnd != 0) {
                failoverAuthTime = now();
                failoverAuthRank = 0;
                todoHandleFailover = true;
            }
            log.warning("Start of election delayed for " + (failoverAuthTime - now()) + " milliseconds (rank #"
                    + failoverAuthRank + ", offset " + engine.clusterReplicationOffset() + ").");
            broadcastPong(true);
            return;
        }
        if (!failoverAuthSent && mfEnd == 0) {
            int newRank = replicaRank();
            if (newRank > failoverAuthRank) {
                long added = (newRank - failoverAuthRank) * 1000L;
                failoverAuthTime += added;
                failoverAuthRank = newRank;
                log.warning("Replica rank updated to #" + newRank + ", added " + added + " milliseconds of delay.");
            }
        }
        if (now() < failoverAuthTime) {
            logCantFailover(CANT_FAILOVER_WAITING_DELAY);
            return;
        }
        if (authAge > authTimeout) {
            logCantFailover(CANT_FAILOVER_EXPIRED);
            return;
        }
        if (!failoverAuthSent) {
            currentEpoch++;
            failoverAuthEpoch = currentEpoch;
            log.warning("Starting a failover election for epoch " + Long.toUnsignedString(currentEpoch) + ".");
            ClusterMessage m = header(ClusterMessage.FAILOVER_AUTH_REQUEST);
            if (mfEnd != 0) m.mflags[0] |= ClusterMessage.MFLAG0_FORCEACK;
            broadcast(m);
            failoverAuthSent = true;
            todoSave = true;
            todoUpdateState = true;
            todoFsync = true;
            return;
        }
        if (failoverAuthCount >= quorum) {
            log.warning("Failover election won: I'm the new master.");
            if (Long.compareUnsigned(myself.configEpoch, failoverAuthEpoch) < 0) {
                myself.configEpoch = failoverAuthEpoch;
                log.warning("configEpoch set to " + Long.toUnsignedString(myself.configEpoch) + " after successful failover");
            }
            replaceMaster();
        } else {
            logCantFailover(CANT_FAILOVER_WAITING_VOTES);
        }
    }

    /** A replica of a master with the most replicas moves to a master left without any (cluster-migration-barrier). */
    private void handleReplicaMigration(int maxReplicas) {
        if (state != STATE_OK) return;
        ClusterNode myMaster = myself.replicaOf;
        if (myMaster == null) return;
        int ok = 0;
        for (ClusterNode r : myMaster.replicas) if (!r.failed() && !r.timedOut()) ok++;
        if (ok <= config.getLong("cluster-migration-barrier")) return;
        ClusterNode candidate = myself;
        ClusterNode target = null;
        for (ClusterNode n : nodes.values()) {
            int okReplicas = 0;
            boolean orphaned = !(n.isReplica() || n.failed()) && n.has(ClusterNode.MIGRATE_TO);
            if (n.isMaster()) okReplicas = n.nonFailingReplicas();
            if (okReplicas > 0) orphaned = false;
            if (orphaned) {
                if (target == null && n.numSlots > 0) target = n;
                if (n.orphanedTime == 0) n.orphanedTime = now();
            } else {
                n.orphanedTime = 0;
            }
            if (okReplicas == maxReplicas) {
                for (ClusterNode r : n.replicas) if (r.name.compareTo(candidate.name) < 0) candidate = r;
            }
        }
        if (target != null && candidate == myself && now() - target.orphanedTime > REPLICA_MIGRATION_DELAY) {
            log.warning("Migrating to orphaned master " + target.name);
            setMaster(target);
        }
    }

    void resetManualFailover() {
        if (mfReplica != null) engine.clusterPauseWrites(0);
        mfEnd = 0;
        mfCanStart = false;
        mfReplica = null;
        mfMasterOffset = -1;
    }

    private void manualFailoverCheckTimeout() {
        if (mfEnd != 0 && mfEnd < now()) {
            log.warning("Manual failover timed out.");
            resetManualFailover();
        }
    }

    private void handleManualFailover() {
        if (mfEnd == 0 || mfCanStart || mfMasterOffset == -1) return;
        if (mfMasterOffset == engine.clusterReplicationOffset()) {
            mfCanStart = true;
            log.warning("All master replication stream processed, manual failover can start.");
            todoHandleFailover = true;
            return;
        }
        todoManualFailover = true;
    }

    /** CLUSTER FAILOVER [FORCE|TAKEOVER], once checked. */
    void startManualFailover(boolean force, boolean takeover) {
        resetManualFailover();
        mfEnd = now() + MF_TIMEOUT;
        if (takeover) {
            log.warning("Taking over the master (user request).");
            bumpEpochWithoutConsensus();
            replaceMaster();
        } else if (force) {
            log.warning("Forced failover user request accepted.");
            mfCanStart = true;
        } else {
            log.warning("Manual failover user request accepted.");
            if (myself.replicaOf.link != null) send(myself.replicaOf.link, header(ClusterMessage.MFSTART));
        }
    }

    /** Redis's clusterReset: forget everything but this node; HARD also takes a new name and epoch 0. */
    void reset(boolean hard) {
        if (myself.isReplica()) {
            setNodeAsMaster(myself);
            engine.clusterStopReplicating();
            engine.clusterEmptyData();
        }
        closeAllSlots();
        resetManualFailover();
        for (int j = 0; j < KeySlot.SLOTS; j++) deleteSlot(j);
        for (ClusterNode n : new ArrayList<>(nodes.values())) {
            if (n != myself) deleteNode(n);
        }
        if (hard) {
            currentEpoch = 0;
            lastVoteEpoch = 0;
            myself.configEpoch = 0;
            log.warning("configEpoch set to 0 via CLUSTER RESET HARD");
            nodes.remove(myself.name);
            myself.name = randomName();
            addNode(myself);
            log.notice("Node hard reset, now I'm " + myself.name);
        }
        todoSave = true;
        todoUpdateState = true;
        todoFsync = true;
    }

    void markTodo(boolean save, boolean updateState, boolean fsync) {
        todoSave |= save;
        todoUpdateState |= updateState;
        todoFsync |= fsync;
    }

    // ---- what other parts of the server ask -------------------------------------------------------

    /** Tells every node this node's state now (a PONG each), as after a change they must learn at once. */
    public void announce() {
        broadcastPong(false);
    }

    /** Whether this node serves writes for its slots (a master; Redis's iAmMaster in cluster mode). */
    public boolean isMaster() {
        return myself.isMaster();
    }

    /** INFO clients' cluster_connections: two links per other node. */
    public long connections() {
        return (nodes.size() - 1) * 2L;
    }

    /** INFO memory's mem_cluster_links: what the links' queues hold. */
    public long linksMemory() {
        long total = 0;
        for (ClusterNode n : nodes.values()) {
            if (n.link != null) total += n.link.pendingBytes.get();
            if (n.inboundLink != null) total += n.inboundLink.pendingBytes.get();
        }
        return total;
    }

    // ---- descriptions ---------------------------------------------------------------------------

    String describeNodes(int filter, boolean usePport) {
        StringBuilder sb = new StringBuilder();
        Map<ClusterNode, io.spinel.core.command.IntList> ranges = slotRanges();
        for (ClusterNode n : nodes.values()) {
            if ((n.flags & filter) != 0) continue;
            describeNode(sb, n, usePport, ranges.get(n));
            sb.append('\n');
        }
        return sb.toString();
    }

    /**
     * Each node's slot ranges as the slots table gives them (start, end pairs), from one pass over
     * the table (Redis's clusterGenNodesSlotsInfo); a node's own bits may still hold slots in flux.
     */
    Map<ClusterNode, io.spinel.core.command.IntList> slotRanges() {
        Map<ClusterNode, io.spinel.core.command.IntList> out = new java.util.HashMap<>();
        int start = 0;
        for (int j = 1; j <= KeySlot.SLOTS; j++) {
            if (j < KeySlot.SLOTS && slots[j] == slots[start]) continue;
            if (slots[start] != null) {
                io.spinel.core.command.IntList pairs = out.computeIfAbsent(slots[start], k -> new io.spinel.core.command.IntList());
                pairs.add(start);
                pairs.add(j - 1);
            }
            start = j;
        }
        return out;
    }

    /** One CLUSTER NODES line (without its newline); ranges from {@link #slotRanges}, null for none. */
    void describeNode(StringBuilder sb, ClusterNode n, boolean usePport, io.spinel.core.command.IntList ranges) {
        int port = usePport && n.pport != 0 ? n.pport : n.port;
        sb.append(n.name).append(' ').append(n.ip).append(':').append(port).append('@').append(n.cport);
        if (!n.hostname.isEmpty()) sb.append(',').append(n.hostname);
        sb.append(' ');
        appendFlags(sb, n.flags);
        sb.append(' ').append(n.replicaOf != null ? n.replicaOf.name : "-");
        long epoch = n.isReplica() && n.replicaOf != null ? n.replicaOf.configEpoch : n.configEpoch;
        sb.append(' ').append(n.pingSent).append(' ').append(n.pongReceived).append(' ')
                .append(Long.toUnsignedString(epoch)).append(' ')
                .append(n.link != null || n.has(ClusterNode.MYSELF) ? "connected" : "disconnected");
        for (int i = 0; ranges != null && i < ranges.size(); i += 2) {
            sb.append(' ').append(ranges.get(i));
            if (ranges.get(i + 1) != ranges.get(i)) sb.append('-').append(ranges.get(i + 1));
        }
        if (n.has(ClusterNode.MYSELF)) {
            for (int j = 0; j < KeySlot.SLOTS; j++) {
                if (migratingTo[j] != null) sb.append(" [").append(j).append("->-").append(migratingTo[j].name).append(']');
                else if (importingFrom[j] != null) sb.append(" [").append(j).append("-<-").append(importingFrom[j].name).append(']');
            }
        }
    }

    static void appendFlags(StringBuilder sb, int flags) {
        int before = sb.length();
        if ((flags & ClusterNode.MYSELF) != 0) sb.append("myself,");
        if ((flags & ClusterNode.MASTER) != 0) sb.append("master,");
        if ((flags & ClusterNode.REPLICA) != 0) sb.append("slave,");
        if ((flags & ClusterNode.PFAIL) != 0) sb.append("fail?,");
        if ((flags & ClusterNode.FAIL) != 0) sb.append("fail,");
        if ((flags & ClusterNode.HANDSHAKE) != 0) sb.append("handshake,");
        if ((flags & ClusterNode.NOADDR) != 0) sb.append("noaddr,");
        if ((flags & ClusterNode.NOFAILOVER) != 0) sb.append("nofailover,");
        if (sb.length() == before) sb.append("noflags,");
        sb.setLength(sb.length() - 1);
    }

    static String messageName(int type) {
        return MESSAGE_NAMES[type];
    }

    static int messageTypes() {
        return MESSAGE_NAMES.length;
    }
}
