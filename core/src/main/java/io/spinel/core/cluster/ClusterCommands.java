package io.spinel.core.cluster;

import io.spinel.core.Client;
import io.spinel.core.command.Command;
import io.spinel.core.command.CommandError;
import io.spinel.core.command.CommandFlags;
import io.spinel.core.command.CommandHandler;
import io.spinel.core.command.IntList;
import io.spinel.core.keyspace.Db;
import io.spinel.core.keyspace.KeyCommands;
import io.spinel.core.protocol.Args;
import io.spinel.core.protocol.Reply;

import java.util.ArrayList;
import java.util.List;

/**
 * CLUSTER and its subcommands, ASKING, READONLY and READWRITE (Redis's clusterCommand and
 * friends), and the routing check every keyed command passes in cluster mode (Redis's
 * getNodeByQuery): served here, or redirected with MOVED/ASK, or refused with CROSSSLOT,
 * TRYAGAIN or CLUSTERDOWN.
 */
public final class ClusterCommands {
    private ClusterCommands() {
    }

    private static final CommandError DISABLED = CommandError.err("This instance has cluster support disabled");

    public static CommandHandler handler(String name) {
        CommandHandler h = switch (name) {
            case "cluster|help" -> ClusterCommands::help;
            case "cluster|meet" -> ClusterCommands::meet;
            case "cluster|nodes" -> c -> c.reply().verbatim(cluster(c).describeNodes(0, givenPlainPorts(c)), "txt");
            case "cluster|myid" -> c -> c.reply().bulk(cluster(c).myself.name);
            case "cluster|slots" -> ClusterCommands::slots;
            case "cluster|shards" -> ClusterCommands::shards;
            case "cluster|flushslots" -> ClusterCommands::flushSlots;
            case "cluster|addslots" -> c -> changeSlots(c, false, false);
            case "cluster|delslots" -> c -> changeSlots(c, true, false);
            case "cluster|addslotsrange" -> c -> changeSlots(c, false, true);
            case "cluster|delslotsrange" -> c -> changeSlots(c, true, true);
            case "cluster|setslot" -> ClusterCommands::setSlot;
            case "cluster|bumpepoch" -> ClusterCommands::bumpEpoch;
            case "cluster|info" -> ClusterCommands::info;
            case "cluster|saveconfig" -> ClusterCommands::saveConfig;
            case "cluster|keyslot" -> c -> {
                cluster(c);
                Args a = c.args();
                c.reply().integer(KeySlot.slot(a.buf(2), a.off(2), a.len(2)));
            };
            case "cluster|countkeysinslot" -> ClusterCommands::countKeysInSlot;
            case "cluster|getkeysinslot" -> ClusterCommands::getKeysInSlot;
            case "cluster|forget" -> ClusterCommands::forget;
            case "cluster|replicate" -> ClusterCommands::replicate;
            case "cluster|slaves", "cluster|replicas" -> ClusterCommands::replicas;
            case "cluster|count-failure-reports" -> c -> c.reply().integer(cluster(c).failureReports(node(c, 2)));
            case "cluster|failover" -> ClusterCommands::failover;
            case "cluster|set-config-epoch" -> ClusterCommands::setConfigEpoch;
            case "cluster|reset" -> ClusterCommands::reset;
            case "cluster|links" -> ClusterCommands::links;
            case "asking" -> c -> {
                cluster(c);
                c.clusterAsking = true;
                c.reply().ok();
            };
            case "readonly" -> c -> {
                cluster(c);
                c.clusterReadonly = true;
                c.reply().ok();
            };
            case "readwrite" -> c -> {
                cluster(c);
                c.clusterReadonly = false;
                c.reply().ok();
            };
            default -> null;
        };
        return h;
    }

    private static Cluster cluster(Client c) {
        Cluster cl = c.engine().cluster();
        if (cl == null) throw DISABLED;
        return cl;
    }

    /** Redis's addReplySubcommandSyntaxError, for a subcommand whose argument count it checks itself. */
    private static CommandError syntax(Client c) {
        return CommandError.err("unknown subcommand or wrong number of arguments for '" + truncate(c.args().cString(1))
                + "'. Try CLUSTER HELP.");
    }

    private static String truncate(String s) {
        return s.length() > 128 ? s.substring(0, 128) : s;
    }

    private static ClusterNode node(Client c, int i) {
        Cluster cl = cluster(c);
        String name = c.args().string(i);
        ClusterNode n = cl.lookup(name);
        if (n == null) throw CommandError.err("Unknown node " + name);
        return n;
    }

    private static int slotArg(Client c, int i) {
        long slot = c.argLong(i, INVALID_SLOT);
        if (slot < 0 || slot >= KeySlot.SLOTS) throw INVALID_SLOT;
        return (int) slot;
    }

    private static final CommandError INVALID_SLOT = CommandError.err("Invalid or out of range slot");

    private static void help(Client c) {
        cluster(c);
        KeyCommands.helpReply(c, new String[] {
            "ADDSLOTS <slot> [<slot> ...]",
            "    Serve these hash slots from this node.",
            "ADDSLOTSRANGE <start slot> <end slot> [<start slot> <end slot> ...]",
            "    Serve each range of hash slots from this node.",
            "BUMPEPOCH",
            "    Give this node a configuration epoch of its own, greater than any other.",
            "COUNT-FAILURE-REPORTS <node-id>",
            "    How many masters report the node as failing.",
            "COUNTKEYSINSLOT <slot>",
            "    How many keys this node holds in the slot.",
            "DELSLOTS <slot> [<slot> ...]",
            "    Unassign these hash slots.",
            "DELSLOTSRANGE <start slot> <end slot> [<start slot> <end slot> ...]",
            "    Unassign each range of hash slots.",
            "FAILOVER [FORCE|TAKEOVER]",
            "    Have this replica replace its master.",
            "FORGET <node-id>",
            "    Remove the node from this node's view of the cluster.",
            "GETKEYSINSLOT <slot> <count>",
            "    Up to count keys this node holds in the slot.",
            "FLUSHSLOTS",
            "    Unassign every slot this node serves.",
            "INFO",
            "    The cluster's state and statistics.",
            "KEYSLOT <key>",
            "    The hash slot of the key.",
            "MEET <ip> <port> [<bus-port>]",
            "    Join the node at this address to the cluster.",
            "MYID",
            "    This node's ID.",
            "NODES",
            "    The cluster as this node sees it, one node per line:",
            "    <id> <ip:port@bus-port> <flags> <master> <ping-sent> <pong-recv> <config-epoch> <link-state> <slot> ...",
            "REPLICATE <node-id>",
            "    Make this node a replica of the master with that ID.",
            "RESET [HARD|SOFT]",
            "    Forget the cluster (default: SOFT; HARD also takes a new ID).",
            "SET-CONFIG-EPOCH <epoch>",
            "    Set this node's configuration epoch, in a new cluster only.",
            "SETSLOT <slot> (IMPORTING <node-id>|MIGRATING <node-id>|STABLE|NODE <node-id>)",
            "    Change the state of a slot while it moves between nodes.",
            "REPLICAS <node-id>",
            "    The replicas of the master, as NODES lines.",
            "SAVECONFIG",
            "    Write the cluster configuration file now.",
            "SLOTS",
            "    Each range of slots with its master and replicas (address, port, ID).",
            "SHARDS",
            "    Each shard: its slot ranges and its nodes.",
            "LINKS",
            "    The bus connections between this node and the others, with their buffers.",
        });
    }

    private static void meet(Client c) {
        Cluster cl = cluster(c);
        Args a = c.args();
        if (a.count() != 4 && a.count() != 5) throw syntax(c);
        long port = c.argLong(3, CommandError.err("Invalid TCP base port specified: " + a.string(3)));
        long cport = a.count() == 5
                ? c.argLong(4, CommandError.err("Invalid TCP bus port specified: " + a.string(4)))
                : port + Cluster.PORT_INCR;
        int r = port < Integer.MIN_VALUE || port > Integer.MAX_VALUE || cport < Integer.MIN_VALUE || cport > Integer.MAX_VALUE
                ? Cluster.HANDSHAKE_INVALID : cl.startHandshake(a.string(2), (int) port, (int) cport);
        if (r == Cluster.HANDSHAKE_INVALID) {
            throw CommandError.err("Invalid node address specified: " + a.string(2) + ":" + a.string(3));
        }
        c.reply().ok();
    }

    private static void flushSlots(Client c) {
        Cluster cl = cluster(c);
        if (c.engine().keyspace().db(0).size() != 0) throw CommandError.err("DB must be empty to perform CLUSTER FLUSHSLOTS.");
        cl.deleteNodeSlots(cl.myself);
        cl.markTodo(true, true, false);
        c.reply().ok();
    }

    private static void changeSlots(Client c, boolean del, boolean ranges) {
        Cluster cl = cluster(c);
        Args a = c.args();
        byte[] wanted = new byte[KeySlot.SLOTS];
        if (ranges) {
            if (a.count() % 2 == 1) {
                throw CommandError.err("wrong number of arguments for 'cluster|"
                        + a.string(1).toLowerCase(java.util.Locale.ROOT) + "' command");
            }
            for (int j = 2; j < a.count(); j += 2) {
                int start = slotArg(c, j);
                int end = slotArg(c, j + 1);
                if (start > end) {
                    throw CommandError.err("start slot number " + start + " is greater than end slot number " + end);
                }
                checkAssignments(cl, wanted, del, start, end);
            }
        } else {
            for (int j = 2; j < a.count(); j++) slotArg(c, j); // all valid before any is checked
            for (int j = 2; j < a.count(); j++) {
                int slot = slotArg(c, j);
                checkAssignments(cl, wanted, del, slot, slot);
            }
        }
        for (int j = 0; j < KeySlot.SLOTS; j++) {
            if (wanted[j] == 0) continue;
            cl.importingFrom[j] = null;
            if (del) cl.deleteSlot(j);
            else cl.addSlot(cl.myself, j);
        }
        cl.markTodo(true, true, false);
        c.reply().ok();
    }

    private static void checkAssignments(Cluster cl, byte[] wanted, boolean del, int start, int end) {
        for (int slot = start; slot <= end; slot++) {
            if (del && cl.slots[slot] == null) throw CommandError.err("Slot " + slot + " is already unassigned");
            if (!del && cl.slots[slot] != null) throw CommandError.err("Slot " + slot + " is already busy");
            if (wanted[slot]++ == 1) throw CommandError.err("Slot " + slot + " specified multiple times");
        }
    }

    private static void setSlot(Client c) {
        Cluster cl = cluster(c);
        Args a = c.args();
        if (cl.myself.isReplica()) throw CommandError.err("Please use SETSLOT only with masters.");
        int slot = slotArg(c, 2);
        if (a.is(3, "migrating") && a.count() == 5) {
            if (cl.slots[slot] != cl.myself) throw CommandError.err("I'm not the owner of hash slot " + slot);
            ClusterNode n = cl.lookup(a.string(4));
            if (n == null) throw CommandError.err("I don't know about node " + a.string(4));
            if (n.isReplica()) throw CommandError.err("Target node is not a master");
            cl.migratingTo[slot] = n;
        } else if (a.is(3, "importing") && a.count() == 5) {
            if (cl.slots[slot] == cl.myself) throw CommandError.err("I'm already the owner of hash slot " + slot);
            ClusterNode n = cl.lookup(a.string(4));
            if (n == null) throw CommandError.err("I don't know about node " + a.string(4));
            if (n.isReplica()) throw CommandError.err("Target node is not a master");
            cl.importingFrom[slot] = n;
        } else if (a.is(3, "stable") && a.count() == 4) {
            cl.importingFrom[slot] = null;
            cl.migratingTo[slot] = null;
        } else if (a.is(3, "node") && a.count() == 5) {
            ClusterNode n = cl.lookup(a.string(4));
            if (n == null) throw CommandError.err("Unknown node " + a.string(4));
            if (n.isReplica()) throw CommandError.err("Target node is not a master");
            int keys = c.engine().keyspace().db(0).countKeysInSlot(slot);
            if (cl.slots[slot] == cl.myself && n != cl.myself && keys != 0) {
                throw CommandError.err("Can't assign hashslot " + slot + " to a different node while I still hold keys "
                        + "for this hash slot.");
            }
            // the last key migrated: the slot is no longer migrating
            if (keys == 0 && cl.migratingTo[slot] != null) cl.migratingTo[slot] = null;
            boolean wasMine = cl.slots[slot] == cl.myself;
            cl.deleteSlot(slot);
            cl.addSlot(n, slot);
            if (wasMine && n != cl.myself && cl.myself.numSlots == 0
                    && c.engine().config().getBool("cluster-allow-replica-migration")) {
                c.engine().log().warning("Configuration change detected. Reconfiguring myself as a replica of " + n.name);
                cl.setMaster(n);
                cl.markTodo(true, true, true);
            }
            // the importing side takes a new epoch at once, so that its claim wins everywhere
            if (n == cl.myself && cl.importingFrom[slot] != null) {
                if (cl.bumpEpochWithoutConsensus()) {
                    c.engine().log().warning("configEpoch updated after importing slot " + slot);
                }
                cl.importingFrom[slot] = null;
                cl.broadcastPong(false);
            }
        } else {
            throw CommandError.err("Invalid CLUSTER SETSLOT action or number of arguments. Try CLUSTER HELP");
        }
        cl.markTodo(true, true, false);
        c.reply().ok();
    }

    private static void bumpEpoch(Client c) {
        Cluster cl = cluster(c);
        boolean bumped = cl.bumpEpochWithoutConsensus();
        c.reply().status((bumped ? "BUMPED " : "STILL ") + Long.toUnsignedString(cl.myself.configEpoch));
    }

    private static void info(Client c) {
        Cluster cl = cluster(c);
        int assigned = 0;
        int ok = 0;
        int pfail = 0;
        int fail = 0;
        for (ClusterNode n : cl.slots) {
            if (n == null) continue;
            assigned++;
            if (n.failed()) fail++;
            else if (n.timedOut()) pfail++;
            else ok++;
        }
        long myEpoch = cl.myself.isReplica() && cl.myself.replicaOf != null ? cl.myself.replicaOf.configEpoch
                : cl.myself.configEpoch;
        StringBuilder sb = new StringBuilder();
        sb.append("cluster_state:").append(cl.state == Cluster.STATE_OK ? "ok" : "fail").append("\r\n");
        sb.append("cluster_slots_assigned:").append(assigned).append("\r\n");
        sb.append("cluster_slots_ok:").append(ok).append("\r\n");
        sb.append("cluster_slots_pfail:").append(pfail).append("\r\n");
        sb.append("cluster_slots_fail:").append(fail).append("\r\n");
        sb.append("cluster_known_nodes:").append(cl.nodes.size()).append("\r\n");
        sb.append("cluster_size:").append(cl.size).append("\r\n");
        sb.append("cluster_current_epoch:").append(Long.toUnsignedString(cl.currentEpoch)).append("\r\n");
        sb.append("cluster_my_epoch:").append(Long.toUnsignedString(myEpoch)).append("\r\n");
        long sent = 0;
        for (int i = 0; i < Cluster.messageTypes(); i++) {
            if (cl.messagesSent[i] == 0) continue;
            sent += cl.messagesSent[i];
            sb.append("cluster_stats_messages_").append(Cluster.messageName(i)).append("_sent:")
                    .append(cl.messagesSent[i]).append("\r\n");
        }
        sb.append("cluster_stats_messages_sent:").append(sent).append("\r\n");
        long received = 0;
        for (int i = 0; i < Cluster.messageTypes(); i++) {
            if (cl.messagesReceived[i] == 0) continue;
            received += cl.messagesReceived[i];
            sb.append("cluster_stats_messages_").append(Cluster.messageName(i)).append("_received:")
                    .append(cl.messagesReceived[i]).append("\r\n");
        }
        sb.append("cluster_stats_messages_received:").append(received).append("\r\n");
        sb.append("total_cluster_links_buffer_limit_exceeded:").append(cl.linksBufferLimitExceeded).append("\r\n");
        c.reply().verbatim(sb.toString(), "txt");
    }

    private static void saveConfig(Client c) {
        Cluster cl = cluster(c);
        if (!cl.save(true)) throw CommandError.err("error saving the cluster node config: " + cl.lastSaveError);
        c.reply().ok();
    }

    private static final CommandError NOT_AN_INTEGER = CommandError.err("value is not an integer or out of range");

    private static void countKeysInSlot(Client c) {
        cluster(c);
        long slot = c.argLong(2, NOT_AN_INTEGER);
        if (slot < 0 || slot >= KeySlot.SLOTS) throw CommandError.err("Invalid slot");
        c.reply().integer(c.engine().keyspace().db(0).countKeysInSlot((int) slot));
    }

    private static void getKeysInSlot(Client c) {
        cluster(c);
        long slot = c.argLong(2, NOT_AN_INTEGER);
        long max = c.argLong(3, NOT_AN_INTEGER);
        if (slot < 0 || slot >= KeySlot.SLOTS || max < 0) throw CommandError.err("Invalid slot or number of keys");
        Db db = c.engine().keyspace().db(0);
        List<byte[]> keys = db.keysInSlot((int) slot, (int) Math.min(max, Integer.MAX_VALUE));
        Reply r = c.reply();
        r.arrayHeader(keys.size());
        for (byte[] k : keys) r.bulk(k);
    }

    private static void forget(Client c) {
        Cluster cl = cluster(c);
        ClusterNode n = node(c, 2);
        if (n == cl.myself) throw CommandError.err("I tried hard but I can't forget myself...");
        if (cl.myself.isReplica() && cl.myself.replicaOf == n) throw CommandError.err("Can't forget my master!");
        cl.blacklistAdd(n);
        cl.deleteNode(n);
        cl.markTodo(true, true, false);
        c.reply().ok();
    }

    private static void replicate(Client c) {
        Cluster cl = cluster(c);
        ClusterNode n = node(c, 2);
        if (n == cl.myself) throw CommandError.err("Can't replicate myself");
        if (n.isReplica()) throw CommandError.err("I can only replicate a master, not a replica.");
        if (cl.myself.isMaster() && (cl.myself.numSlots != 0 || c.engine().keyspace().db(0).size() != 0)) {
            throw CommandError.err("To set a master the node must be empty and without assigned slots.");
        }
        cl.setMaster(n);
        cl.markTodo(true, true, false);
        c.reply().ok();
    }

    private static void replicas(Client c) {
        Cluster cl = cluster(c);
        ClusterNode n = node(c, 2);
        if (n.isReplica()) throw CommandError.err("The specified node is not a master");
        Reply r = c.reply();
        r.arrayHeader(n.replicas.size());
        for (ClusterNode replica : n.replicas) {
            StringBuilder sb = new StringBuilder();
            cl.describeNode(sb, replica, givenPlainPorts(c), null); // (a replica serves no slots itself)
            r.bulk(sb.toString());
        }
    }

    private static void failover(Client c) {
        Cluster cl = cluster(c);
        Args a = c.args();
        if (a.count() > 3) throw syntax(c);
        boolean force = false;
        boolean takeover = false;
        if (a.count() == 3) {
            if (a.is(2, "force")) {
                force = true;
            } else if (a.is(2, "takeover")) {
                takeover = true;
                force = true;
            } else {
                throw CommandError.SYNTAX;
            }
        }
        if (cl.myself.isMaster()) throw CommandError.err("You should send CLUSTER FAILOVER to a replica");
        if (cl.myself.replicaOf == null) throw CommandError.err("I'm a replica but my master is unknown to me");
        if (!force && (cl.myself.replicaOf.failed() || cl.myself.replicaOf.link == null)) {
            throw CommandError.err("Master is down or failed, please use CLUSTER FAILOVER FORCE");
        }
        cl.startManualFailover(force, takeover);
        c.reply().ok();
    }

    private static void setConfigEpoch(Client c) {
        Cluster cl = cluster(c);
        long epoch = c.argLong(2, NOT_AN_INTEGER);
        if (epoch < 0) throw CommandError.err("Invalid config epoch specified: " + epoch);
        if (cl.nodes.size() > 1) {
            throw CommandError.err("The user can assign a config epoch only when the node does not know any other node.");
        }
        if (cl.myself.configEpoch != 0) throw CommandError.err("Node config epoch is already non-zero");
        cl.myself.configEpoch = epoch;
        c.engine().log().warning("configEpoch set to " + epoch + " via CLUSTER SET-CONFIG-EPOCH");
        if (Long.compareUnsigned(cl.currentEpoch, epoch) < 0) cl.currentEpoch = epoch;
        cl.markTodo(true, true, false);
        c.reply().ok();
    }

    private static void reset(Client c) {
        Cluster cl = cluster(c);
        Args a = c.args();
        if (a.count() > 3) throw syntax(c);
        boolean hard = false;
        if (a.count() == 3) {
            if (a.is(2, "hard")) hard = true;
            else if (!a.is(2, "soft")) throw CommandError.SYNTAX;
        }
        if (cl.myself.isMaster() && c.db().size() != 0) {
            throw CommandError.err("CLUSTER RESET can't be called with master nodes containing keys");
        }
        cl.reset(hard);
        c.reply().ok();
    }

    private static void links(Client c) {
        Cluster cl = cluster(c);
        List<BusLink> all = new ArrayList<>();
        for (ClusterNode n : cl.nodes.values()) {
            if (n.link != null) all.add(n.link);
            if (n.inboundLink != null) all.add(n.inboundLink);
        }
        Reply r = c.reply();
        r.arrayHeader(all.size());
        for (BusLink l : all) {
            r.mapHeader(6);
            r.bulk("direction");
            r.bulk(l.inbound ? "from" : "to");
            r.bulk("node");
            r.bulk(l.node.name);
            r.bulk("create-time");
            r.integer(l.ctime);
            r.bulk("events");
            // a link always reads; it writes while something waits to be sent
            r.bulk(l.connected ? (l.pendingBytes.get() > 0 ? "rw" : "r") : "");
            long used = l.pendingBytes.get();
            r.bulk("send-buffer-allocated");
            r.integer(used);
            r.bulk("send-buffer-used");
            r.integer(used);
        }
    }

    // ---- SLOTS and SHARDS -----------------------------------------------------------------------

    private static void slots(Client c) {
        Cluster cl = cluster(c);
        Reply r = c.reply();
        List<int[]> ranges = new ArrayList<>();
        List<ClusterNode> owners = new ArrayList<>();
        ClusterNode n = null;
        int start = -1;
        for (int i = 0; i <= KeySlot.SLOTS; i++) {
            ClusterNode here = i < KeySlot.SLOTS ? cl.slots[i] : null;
            if (n != null && here != n) {
                ranges.add(new int[] {start, i - 1});
                owners.add(n);
            }
            if (here != n) {
                n = here;
                start = i;
            }
        }
        r.arrayHeader(ranges.size());
        for (int k = 0; k < ranges.size(); k++) {
            ClusterNode owner = owners.get(k);
            List<ClusterNode> replicas = new ArrayList<>();
            for (ClusterNode replica : owner.replicas) if (replicaAvailable(c, replica)) replicas.add(replica);
            r.arrayHeader(3 + replicas.size());
            r.integer(ranges.get(k)[0]);
            r.integer(ranges.get(k)[1]);
            nodeReply(c, owner);
            for (ClusterNode replica : replicas) nodeReply(c, replica);
        }
    }

    /** A replica CLUSTER SLOTS lists: not failed, and it has received data from its master. */
    private static boolean replicaAvailable(Client c, ClusterNode n) {
        if (n.failed()) return false;
        long offset = n.has(ClusterNode.MYSELF) ? c.engine().clusterReplicationOffset() : n.replOffset;
        return offset != 0;
    }

    private static void nodeReply(Client c, ClusterNode n) {
        Reply r = c.reply();
        String endpointType = c.engine().config().get("cluster-preferred-endpoint-type");
        r.arrayHeader(4);
        if (endpointType.equals("unknown-endpoint")) r.nullBulk();
        else r.bulk(endpoint(c, n));
        r.integer(clientPort(c, n));
        r.bulk(n.name);
        int length = 0;
        if (!endpointType.equals("ip")) length++;
        if (!endpointType.equals("hostname") && !n.hostname.isEmpty()) length++;
        r.mapHeader(length);
        if (!endpointType.equals("ip")) {
            r.bulk("ip");
            r.bulk(n.ip);
        }
        if (!endpointType.equals("hostname") && !n.hostname.isEmpty()) {
            r.bulk("hostname");
            r.bulk(n.hostname);
        }
    }

    private static void shards(Client c) {
        Cluster cl = cluster(c);
        Reply r = c.reply();
        List<ClusterNode> masters = new ArrayList<>();
        for (ClusterNode n : cl.nodes.values()) if (n.isMaster()) masters.add(n);
        r.arrayHeader(masters.size());
        java.util.Map<ClusterNode, IntList> ranges = cl.slotRanges();
        for (ClusterNode m : masters) {
            r.mapHeader(2);
            r.bulk("slots");
            IntList pairs = ranges.getOrDefault(m, new IntList());
            r.arrayHeader(pairs.size());
            for (int i = 0; i < pairs.size(); i++) r.integer(pairs.get(i));
            r.bulk("nodes");
            List<ClusterNode> shard = cl.nodesServingSlotsOf(m);
            r.arrayHeader(shard.size());
            for (ClusterNode n : shard) shardNode(c, cl, n);
        }
    }

    private static void shardNode(Client c, Cluster cl, ClusterNode n) {
        Reply r = c.reply();
        // in a TLS cluster a node's announced port is its TLS one, and pport the plain one
        int plainPort = cl.tlsCluster ? n.pport : n.port;
        int tlsPort = cl.tlsCluster ? n.port : 0;
        int fields = 6 + (plainPort != 0 ? 1 : 0) + (tlsPort != 0 ? 1 : 0) + (n.hostname.isEmpty() ? 0 : 1);
        r.mapHeader(fields);
        r.bulk("id");
        r.bulk(n.name);
        if (plainPort != 0) {
            r.bulk("port");
            r.integer(plainPort);
        }
        if (tlsPort != 0) {
            r.bulk("tls-port");
            r.integer(tlsPort);
        }
        r.bulk("ip");
        r.bulk(n.ip);
        r.bulk("endpoint");
        r.bulk(endpoint(c, n));
        if (!n.hostname.isEmpty()) {
            r.bulk("hostname");
            r.bulk(n.hostname);
        }
        long offset = n.has(ClusterNode.MYSELF) ? c.engine().clusterReplicationOffset() : n.replOffset;
        r.bulk("role");
        r.bulk(n.isReplica() ? "replica" : "master");
        r.bulk("replication-offset");
        r.integer(offset);
        r.bulk("health");
        r.bulk(n.failed() ? "fail" : n.isReplica() && offset == 0 ? "loading" : "online");
    }

    // ---- routing ----------------------------------------------------------------------------------

    /** Why a command goes elsewhere (Redis's CLUSTER_REDIR_*). */
    static final int REDIR_NONE = 0;
    static final int REDIR_CROSS_SLOT = 1;
    static final int REDIR_UNSTABLE = 2;
    static final int REDIR_ASK = 3;
    static final int REDIR_MOVED = 4;
    static final int REDIR_DOWN_STATE = 5;
    static final int REDIR_DOWN_UNBOUND = 6;
    static final int REDIR_DOWN_RO_STATE = 7;

    /** What a routing check found: where the command goes, why, and its slot (-1 without keys). */
    public static final class Route {
        /** Where a MOVED or ASK sends the client, and the address it gives. */
        ClusterNode node;
        String endpoint;
        int port;
        int error;
        public int slot = -1;

        /** Ready for the next check (the cluster keeps one, reused: routing allocates nothing). */
        Route reset() {
            node = null;
            endpoint = null;
            port = 0;
            error = REDIR_NONE;
            slot = -1;
            return this;
        }

        /** The error reply for a command that is not served here, or null when it is. */
        public String errorReply() {
            return switch (error) {
                case REDIR_NONE -> null;
                case REDIR_CROSS_SLOT -> "CROSSSLOT Keys in request don't hash to the same slot";
                case REDIR_UNSTABLE -> "TRYAGAIN Multiple keys request during rehashing of slot";
                case REDIR_DOWN_STATE -> "CLUSTERDOWN The cluster is down";
                case REDIR_DOWN_RO_STATE -> "CLUSTERDOWN The cluster is down and only accepts read commands";
                case REDIR_DOWN_UNBOUND -> "CLUSTERDOWN Hash slot not served";
                default -> (error == REDIR_ASK ? "ASK " : "MOVED ") + slot + " " + endpoint + ":" + port;
            };
        }

        /** Whether the command runs here. */
        public boolean local() {
            return error == REDIR_NONE;
        }

        /** The cluster is down (and allows no command of this kind). */
        public boolean down() {
            return error == REDIR_DOWN_STATE;
        }

        /** The cluster is down and takes reads only. */
        public boolean downReadOnly() {
            return error == REDIR_DOWN_RO_STATE;
        }
    }

    /**
     * Redis's getNodeByQuery over one command, or over an EXEC's queued commands: every key must
     * hash to one slot; that slot must be served here, or be migrating away with the key still
     * here (else ASK the target), or be importing here for a client that sent ASKING (a command
     * flagged asking, like RESTORE-ASKING, counts as asked); a READONLY client (and SSUBSCRIBE
     * and friends) may read from a replica of the slot's master. The cluster must be up, or allow
     * reads while down. The answer is the cluster's one Route, valid until the next check.
     */
    public static Route route(Client c, Cluster cl, Command cmd, Args args, List<Command> queued, List<byte[][]> queuedArgs,
                              int execFlags) {
        Route route = cl.route.reset();
        ClusterNode n = null;
        byte[] firstKey = null;
        int firstOff = 0;
        int firstLen = 0;
        boolean multipleKeys = false;
        boolean migratingSlot = false;
        boolean importingSlot = false;
        int missingKeys = 0;
        int existingKeys = 0;
        int slot = 0;
        boolean pubsubShard = cmd.name.equals("ssubscribe") || cmd.name.equals("sunsubscribe") || cmd.name.equals("spublish");
        int count = queued != null ? queued.size() : 1;
        IntList positions = cl.routingPositions;
        Db db0 = c.engine().keyspace().db(0);
        for (int i = 0; i < count; i++) {
            Command mcmd = queued != null ? queued.get(i) : cmd;
            Args margs = queued != null ? argsOf(queuedArgs.get(i)) : args;
            routingKeys(mcmd, margs, positions);
            for (int j = 0; j < positions.size(); j++) {
                int p = positions.get(j);
                byte[] kb = margs.buf(p);
                int ko = margs.off(p);
                int kl = margs.len(p);
                int thisSlot = KeySlot.slot(kb, ko, kl);
                if (firstKey == null) {
                    firstKey = kb;
                    firstOff = ko;
                    firstLen = kl;
                    slot = thisSlot;
                    n = cl.slots[slot];
                    if (n == null) {
                        route.error = REDIR_DOWN_UNBOUND;
                        return route;
                    }
                    if (n == cl.myself && cl.migratingTo[slot] != null) migratingSlot = true;
                    else if (cl.importingFrom[slot] != null) importingSlot = true;
                } else if (!java.util.Arrays.equals(firstKey, firstOff, firstOff + firstLen, kb, ko, ko + kl)) {
                    if (slot != thisSlot) {
                        route.error = REDIR_CROSS_SLOT;
                        return route;
                    }
                    multipleKeys = true;
                }
                if ((migratingSlot || importingSlot) && !pubsubShard) {
                    Object e = db0.find(kb, ko, kl);
                    if (e == null || db0.isExpired(e)) missingKeys++;
                    else existingKeys++;
                }
            }
        }
        if (n == null) return route; // no keys: served here
        int flags = cmd.flags(c) | execFlags;
        if (cl.state != Cluster.STATE_OK) {
            if (pubsubShard) {
                if (!c.engine().config().getBool("cluster-allow-pubsubshard-when-down")) {
                    route.error = REDIR_DOWN_STATE;
                    return route;
                }
            } else if (!c.engine().config().getBool("cluster-allow-reads-when-down")) {
                route.error = REDIR_DOWN_STATE;
                return route;
            } else if ((flags & CommandFlags.WRITE) != 0) {
                route.error = REDIR_DOWN_RO_STATE;
                return route;
            }
        }
        route.slot = slot;
        if ((migratingSlot || importingSlot) && cmd.name.equals("migrate")) return route;
        if (migratingSlot && missingKeys > 0) {
            if (existingKeys > 0) {
                route.error = REDIR_UNSTABLE;
            } else {
                route.error = REDIR_ASK;
                redirectTo(c, route, cl.migratingTo[slot]);
            }
            return route;
        }
        if (importingSlot && (c.clusterAsking || (cmd.flags(c) & CommandFlags.ASKING) != 0)) {
            if (multipleKeys && missingKeys > 0) route.error = REDIR_UNSTABLE;
            return route;
        }
        boolean write = (flags & CommandFlags.WRITE) != 0;
        if ((c.clusterReadonly || pubsubShard) && !write && cl.myself.isReplica() && cl.myself.replicaOf == n) {
            return route;
        }
        if (n != cl.myself) {
            route.error = REDIR_MOVED;
            redirectTo(c, route, n);
        }
        return route;
    }

    /**
     * The arguments routing looks at (Redis's getKeysFromCommand): a command with movable keys
     * finds them as COMMAND GETKEYS does; the others take their first-key/last-key/step range,
     * which also covers what is not a key but is routed like one (SSUBSCRIBE's and SPUBLISH's
     * shard channels).
     */
    static void routingKeys(Command cmd, Args args, IntList out) {
        out.clear();
        if (cmd.has(CommandFlags.MOVABLEKEYS)) {
            if (!cmd.keys(args, out)) out.clear();
            return;
        }
        if (cmd.firstKey <= 0) return;
        int argc = args.count();
        int last = cmd.lastKey >= 0 ? cmd.lastKey : argc + cmd.lastKey;
        for (int j = cmd.firstKey; j <= last; j += Math.max(1, cmd.keyStep)) {
            if (j >= argc) { // too few arguments: no keys, the command reports it
                out.clear();
                return;
            }
            out.add(j);
        }
    }

    private static void redirectTo(Client c, Route route, ClusterNode n) {
        route.node = n;
        route.endpoint = endpoint(c, n);
        route.port = clientPort(c, n);
    }

    /**
     * Whether the client is told the nodes' plain ports (Redis's use_pport): in a TLS cluster, a
     * client on a plain socket; TLS clients and the server's own (scripts) get the TLS ports.
     */
    private static boolean givenPlainPorts(Client c) {
        return cluster(c).tlsCluster && c.onPlainSocket();
    }

    /** The port a client is given for a node: see {@link #givenPlainPorts}, where the node announced a plain one. */
    private static int clientPort(Client c, ClusterNode n) {
        return n.pport != 0 && givenPlainPorts(c) ? n.pport : n.port;
    }

    /** How clients are told to reach a node (cluster-preferred-endpoint-type; Redis's getPreferredEndpoint). */
    private static String endpoint(Client c, ClusterNode n) {
        return switch (c.engine().config().get("cluster-preferred-endpoint-type")) {
            case "hostname" -> n.hostname.isEmpty() ? "?" : n.hostname;
            case "unknown-endpoint" -> "";
            default -> n.ip;
        };
    }

    private static Args argsOf(byte[][] argv) {
        Args a = new Args();
        for (byte[] b : argv) a.add(b, 0, b.length);
        return a;
    }

    /**
     * A client blocked on keys whose slot moved away (or the cluster went down) gets the
     * redirection instead of waiting (Redis's clusterRedirectBlockedClientIfNeeded); returns the
     * error reply, or null to keep waiting.
     */
    public static String redirectBlocked(Client c, Cluster cl, byte[] key, boolean write) {
        if (cl.state == Cluster.STATE_FAIL) return "CLUSTERDOWN The cluster is down";
        int slot = KeySlot.slot(key, 0, key.length);
        ClusterNode n = cl.slots[slot];
        if (c.clusterReadonly && !write && cl.myself.isReplica() && cl.myself.replicaOf == n) n = cl.myself;
        if (n != cl.myself && cl.importingFrom[slot] == null) {
            if (n == null) return "CLUSTERDOWN Hash slot not served";
            Route r = new Route();
            r.error = REDIR_MOVED;
            r.slot = slot;
            redirectTo(c, r, n);
            return r.errorReply();
        }
        return null;
    }
}
