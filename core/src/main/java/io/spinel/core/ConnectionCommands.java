package io.spinel.core;

import io.spinel.core.command.CommandError;
import io.spinel.core.command.CommandHandler;
import io.spinel.core.keyspace.KeyCommands;
import io.spinel.core.protocol.Args;
import io.spinel.core.protocol.Reply;
import io.spinel.core.util.Bytes;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Connection commands (Redis's networking.c and acl.c parts): PING, ECHO, SELECT, AUTH, HELLO,
 * QUIT, RESET and CLIENT. Users and their passwords are the ACL's ({@link io.spinel.core.acl.Acl}).
 */
final class ConnectionCommands {
    private ConnectionCommands() {
    }

    private static final byte[] PONG = Bytes.ascii("+PONG\r\n");
    private static final byte[] PONG_BULK = Bytes.ascii("pong");

    /** The handler of each command CommandFamilies registers for this family, made when it first runs. */
    public static CommandHandler handler(String name) {
        return switch (name) {
            case "ping" -> ConnectionCommands::ping;
            case "echo" -> c -> c.reply().bulk(c.args().buf(1), c.args().off(1), c.args().len(1));
            case "select" -> ConnectionCommands::select;
            case "auth" -> ConnectionCommands::auth;
            case "hello" -> ConnectionCommands::hello;
            case "quit" -> c -> {
                c.reply().ok();
                c.closeAfterReply();
            };
            case "reset" -> ConnectionCommands::reset;
            case "client|id" -> c -> c.reply().integer(c.id);
            case "client|getname" -> c -> {
                if (c.name == null) c.reply().nullBulk();
                else c.reply().bulk(c.name.getBytes(StandardCharsets.ISO_8859_1));
            };
            case "client|setname" -> c -> {
                setName(c, c.args().string(2));
                c.reply().ok();
            };
            case "client|setinfo" -> ConnectionCommands::setinfo;
            case "client|info" -> c -> c.reply().verbatim(clientInfo(c) + "\n", "txt");
            case "client|list" -> ConnectionCommands::list;
            case "client|kill" -> ConnectionCommands::kill;
            case "client|reply" -> ConnectionCommands::replyMode;
            case "client|no-evict" -> c -> {
                c.noEvict = onOff(c);
                c.engine.updateClientMemory(c); // moves it in or out of the evictable total
            };
            case "client|no-touch" -> c -> c.noTouch = onOff(c);
            case "client|help" -> ConnectionCommands::help;
            case "client|unblock" -> ConnectionCommands::unblock;
            default -> null;
        };
    }

    static void ping(Client c) {
        Args a = c.args();
        if (a.count() > 2) throw new CommandError("ERR wrong number of arguments for 'ping' command");
        if (c.resp() == 2 && PubSub.isSubscribed(c)) {
            c.reply().arrayHeader(2);
            c.reply().bulk(PONG_BULK);
            if (a.count() == 1) c.reply().bulk(Bytes.EMPTY);
            else c.reply().bulk(a.buf(1), a.off(1), a.len(1));
            return;
        }
        if (a.count() == 1) c.reply().raw(PONG);
        else c.reply().bulk(a.buf(1), a.off(1), a.len(1));
    }

    static void select(Client c) {
        long id = c.argLong(1);
        if (id < Integer.MIN_VALUE || id > Integer.MAX_VALUE) throw CommandError.NOT_INTEGER;
        if (c.engine.cluster() != null && id != 0) throw CommandError.err("SELECT is not allowed in cluster mode");
        if (id < 0 || id >= c.engine.keyspace.count()) throw CommandError.DB_INDEX;
        c.db = c.engine.keyspace.db((int) id);
        c.reply().ok();
    }

    /**
     * Checks a user/password pair (Redis's ACLAuthenticateUser): on success the connection runs
     * as that user; a failure is logged (reason "auth", the command's name as typed).
     */
    private static boolean authenticate(Client c, String user, byte[] password) {
        io.spinel.core.acl.AclUser u = c.engine.acl.authenticate(user, password);
        if (u != null) {
            c.authenticated = true;
            c.user = u;
            return true;
        }
        // (inside EXEC Redis's client is still flagged MULTI)
        String context = c.multi != null || c.inExec ? "multi" : "toplevel";
        c.engine.acl.log(io.spinel.core.acl.Acl.DENIED_AUTH, context, c.args().copy(0), user, clientInfo(c));
        return false;
    }

    static void auth(Client c) {
        Args a = c.args();
        if (a.count() > 3) throw CommandError.SYNTAX;
        String user;
        byte[] pass;
        if (a.count() == 2) {
            if (c.engine.acl.defaultUser().nopass()) {
                throw CommandError.err("AUTH <password> called without any password configured for the default "
                        + "user. Are you sure your configuration is correct?");
            }
            user = "default";
            pass = a.copy(1);
        } else {
            user = a.string(1);
            pass = a.copy(2);
        }
        if (authenticate(c, user, pass)) c.reply().ok();
        else throw new CommandError("WRONGPASS invalid username-password pair or user is disabled.");
    }

    static void hello(Client c) {
        Args a = c.args();
        long ver = 0;
        int next = 1;
        if (a.count() >= 2) {
            ver = c.argLong(1, CommandError.err("Protocol version is not an integer or out of range"));
            next = 2;
            if (ver < 2 || ver > 3) throw new CommandError("NOPROTO unsupported protocol version");
        }
        for (int j = next; j < a.count(); j++) {
            int more = a.count() - 1 - j;
            if (a.is(j, "auth") && more >= 2) {
                if (!authenticate(c, a.string(j + 1), a.copy(j + 2))) {
                    throw new CommandError("WRONGPASS invalid username-password pair or user is disabled.");
                }
                j += 2;
            } else if (a.is(j, "setname") && more >= 1) {
                setName(c, a.string(j + 1));
                j++;
            } else {
                throw CommandError.err("Syntax error in HELLO option '" + a.cString(j) + "'");
            }
        }
        if (!c.authenticated) {
            throw new CommandError("NOAUTH HELLO must be called with the client already authenticated, otherwise the "
                    + "HELLO AUTH <user> <pass> option can be used to authenticate the client and select the RESP "
                    + "protocol version at the same time");
        }
        if (ver != 0) c.reply().setProtocol((int) ver);
        Reply r = c.reply();
        boolean sentinel = c.engine.sentinel() != null;
        r.mapHeader(sentinel ? 6 : 7); // a Sentinel has no replication role
        r.bulk("server");
        r.bulk("redis");
        r.bulk("version");
        r.bulk(Engine.REDIS_VERSION);
        r.bulk("proto");
        r.integer(r.protocol());
        r.bulk("id");
        r.integer(c.id);
        r.bulk("mode");
        r.bulk(sentinel ? "sentinel" : c.engine.cluster() != null ? "cluster" : "standalone");
        if (!sentinel) {
            r.bulk("role");
            r.bulk(c.engine.replication.isReplica() ? "replica" : "master");
        }
        r.bulk("modules");
        r.emptyArray();
    }

    static void reset(Client c) {
        c.db = c.engine.keyspace.db(0);
        c.reply().setProtocol(2);
        c.engine.setDefaultUser(c);
        c.name = null;
        c.replyMode = 0;
        c.skipThisReply = false;
        c.noEvict = false;
        c.noTouch = false;
        c.clusterAsking = false;
        c.clusterReadonly = false;
        c.engine.clientReset(c);
        c.engine.updateClientMemory(c);
        c.reply().status("RESET");
    }

    private static void setName(Client c, String name) {
        for (int i = 0; i < name.length(); i++) {
            char ch = name.charAt(i);
            if (ch < '!' || ch > '~') {
                throw CommandError.err("Client names cannot contain spaces, newlines or special characters.");
            }
        }
        c.name = name.isEmpty() ? null : name;
    }

    static void setinfo(Client c) {
        Args a = c.args();
        String value = a.string(3);
        for (int i = 0; i < value.length(); i++) {
            char ch = value.charAt(i);
            if (ch < '!' || ch > '~') {
                throw CommandError.err(a.string(2).toUpperCase() + " cannot contain spaces, newlines or special "
                        + "characters.");
            }
        }
        if (a.is(2, "lib-name")) {
            c.libName = value.isEmpty() ? null : value;
        } else if (a.is(2, "lib-ver")) {
            c.libVersion = value.isEmpty() ? null : value;
        } else {
            throw CommandError.err("Unrecognized option '" + a.cString(2) + "'");
        }
        c.reply().ok();
    }

    private static boolean onOff(Client c) {
        Args a = c.args();
        boolean on;
        if (a.is(2, "on")) on = true;
        else if (a.is(2, "off")) on = false;
        else throw CommandError.SYNTAX;
        c.reply().ok();
        return on;
    }

    static void replyMode(Client c) {
        Args a = c.args();
        if (a.is(2, "on")) {
            c.replyMode = 0;
            c.reply().stopDiscarding();
            c.reply().ok();
        } else if (a.is(2, "off")) {
            c.replyMode = 1;
        } else if (a.is(2, "skip")) {
            if (c.replyMode != 1) c.skipThisReply = true;
        } else {
            throw CommandError.SYNTAX;
        }
    }

    /** One CLIENT LIST line (without the newline), fields as Redis 7 prints them. */
    static String clientInfo(Client c) {
        long now = System.currentTimeMillis();
        StringBuilder flags = new StringBuilder();
        String extraFlags = c.engine.clientFlags(c);
        flags.append(extraFlags);
        if (c.closeAfterReply) flags.append('c');
        if (c.closeAsap) flags.append('A');
        if (c.connection.isUnixSocket()) flags.append('U');
        if (c.clusterReadonly) flags.append('r');
        if (c.noEvict) flags.append('e');
        if (c.noTouch) flags.append('T');
        if (flags.length() == 0) flags.append('N');
        // Redis trims what it parsed off the query buffer once a read's commands ran: a client seen
        // from outside shows only the bytes not yet parsed (a big argument's received part); the
        // client running the command still holds its command
        int qbuf = c == c.engine.currentClient ? c.reader.pending() : c.reader.unparsed();
        String cmd = c.lastCommand == null ? "NULL" : c.lastCommand.name;
        long obl = c.reply.length();
        long omem = c.connection.pendingBytes();
        // the client running the command also holds its arguments, which Redis counts (argv_len_sum
        // and a pointer each) until the command ends
        long totMem = Engine.clientMemory(c) + (c == c.engine.currentClient ? c.args.totalLength() + 8L * c.args.count() : 0);
        return "id=" + c.id
                + " addr=" + c.connection.remoteAddress()
                + " laddr=" + c.connection.localAddress()
                + " fd=" + c.connection.fd()
                + " name=" + (c.name == null ? "" : c.name)
                + " age=" + (now - c.createdAt) / 1000
                + " idle=" + (now - c.lastInteraction) / 1000
                + " flags=" + flags
                + " db=" + c.db.id()
                + " sub=" + c.engine.subscriptionCount(c, 0)
                + " psub=" + c.engine.subscriptionCount(c, 1)
                + " ssub=" + c.engine.subscriptionCount(c, 2)
                + " multi=" + c.engine.multiCount(c)
                + " qbuf=" + qbuf
                + " qbuf-free=" + (c.reader.capacity() - qbuf)
                + " argv-mem=" + c.args.totalLength()
                + " multi-mem=" + (c.multi == null ? 0 : c.multi.argvBytes)
                + " rbs=" + c.reply.buffer().length
                + " rbp=" + c.reply.peak()
                + " obl=" + obl
                + " oll=" + c.connection.pendingChunks()
                + " omem=" + omem
                + " tot-mem=" + totMem
                + " events=r"
                + " cmd=" + cmd
                + " user=" + (c.engine.replication.isMasterClient(c) ? "(superuser)" : c.user.name)
                + " redir=" + c.engine.trackingRedirect(c)
                + " resp=" + c.resp()
                + " lib-name=" + (c.libName == null ? "" : c.libName)
                + " lib-ver=" + (c.libVersion == null ? "" : c.libVersion);
    }

    private static boolean validType(String type) {
        switch (type.toLowerCase()) {
            case "normal":
            case "master":
            case "replica":
            case "slave":
            case "pubsub":
                return true;
            default:
                return false;
        }
    }

    private static boolean isType(Client c, String type) {
        switch (type.toLowerCase()) {
            case "normal":
                return !c.engine.isPubSubClient(c) && c.replica == null && !c.engine.replication.isMasterClient(c);
            case "pubsub":
                return c.engine.isPubSubClient(c);
            case "replica":
            case "slave":
                return c.replica != null;
            default:
                return c.engine.replication.isMasterClient(c); // "master"
        }
    }

    /**
     * The connected clients, and a replica's master client while its link is up, in the order
     * of their ids (Redis keeps the master's client among its clients).
     */
    private static List<Client> listed(Engine engine) {
        List<Client> all = new ArrayList<>(engine.clients());
        Client master = engine.replication.connectedMasterClient();
        if (master != null) {
            int i = 0;
            while (i < all.size() && all.get(i).id < master.id) i++;
            all.add(i, master);
        }
        return all;
    }

    private static Client byId(Engine engine, long id) {
        Client o = engine.client(id);
        if (o != null) return o;
        Client master = engine.replication.connectedMasterClient();
        return master != null && master.id == id ? master : null;
    }

    static void list(Client c) {
        Args a = c.args();
        StringBuilder sb = new StringBuilder();
        if (a.count() == 4 && a.is(2, "type")) {
            String type = a.string(3);
            if (!validType(type)) throw CommandError.err("Unknown client type '" + type + "'");
            for (Client o : listed(c.engine)) if (isType(o, type)) sb.append(clientInfo(o)).append('\n');
        } else if (a.count() > 3 && a.is(2, "id")) {
            for (int j = 3; j < a.count(); j++) {
                long id = c.argLong(j, CommandError.err("Invalid client ID"));
                Client o = byId(c.engine, id);
                if (o != null) sb.append(clientInfo(o)).append('\n');
            }
        } else if (a.count() != 2) {
            throw CommandError.SYNTAX;
        } else {
            for (Client o : listed(c.engine)) sb.append(clientInfo(o)).append('\n');
        }
        c.reply().verbatim(sb.toString(), "txt");
    }

    static void kill(Client c) {
        Args a = c.args();
        String addr = null, laddr = null, type = null;
        io.spinel.core.acl.AclUser user = null;
        long id = 0;
        boolean skipMe = true;
        if (a.count() == 3) {
            addr = a.string(2);
            skipMe = false;
        } else {
            for (int i = 2; i < a.count(); i += 2) {
                boolean more = a.count() > i + 1;
                if (a.is(i, "id") && more) {
                    id = c.argLong(i + 1, CommandError.err("client-id should be greater than 0"));
                    if (id < 1) throw CommandError.err("client-id should be greater than 0");
                } else if (a.is(i, "type") && more) {
                    type = a.string(i + 1);
                    if (!validType(type)) throw CommandError.err("Unknown client type '" + type + "'");
                } else if (a.is(i, "addr") && more) {
                    addr = a.string(i + 1);
                } else if (a.is(i, "laddr") && more) {
                    laddr = a.string(i + 1);
                } else if (a.is(i, "user") && more) {
                    String name = a.string(i + 1);
                    user = c.engine.acl.user(name);
                    if (user == null) throw CommandError.err("No such user '" + a.cString(i + 1) + "'");
                } else if (a.is(i, "skipme") && more) {
                    if (a.is(i + 1, "yes")) skipMe = true;
                    else if (a.is(i + 1, "no")) skipMe = false;
                    else throw CommandError.SYNTAX;
                } else {
                    throw CommandError.SYNTAX;
                }
            }
        }
        List<Client> victims = new ArrayList<>();
        boolean killSelf = false;
        for (Client o : listed(c.engine)) {
            if (addr != null && !o.connection.remoteAddress().equals(addr)) continue;
            if (laddr != null && !o.connection.localAddress().equals(laddr)) continue;
            if (type != null && !isType(o, type)) continue;
            if (id != 0 && o.id != id) continue;
            // (the master's client has no user in Redis: USER never matches it)
            if (user != null && (o.user != user || c.engine.replication.isMasterClient(o))) continue;
            if (o == c && skipMe) continue;
            if (o == c) killSelf = true;
            else victims.add(o);
        }
        for (Client v : victims) {
            if (c.engine.replication.isMasterClient(v)) c.engine.replication.dropMasterLink();
            else c.engine.closeClient(v);
        }
        int killed = victims.size() + (killSelf ? 1 : 0);
        if (a.count() == 3) {
            if (killed == 0) throw CommandError.err("No such client");
            c.reply().ok();
        } else {
            c.reply().integer(killed);
        }
        if (killSelf) c.closeAfterReply();
    }

    static void unblock(Client c) {
        Args a = c.args();
        // as Redis checks them: the count, then the reason, then the id
        if (a.count() > 4) throw CommandError.subcommandSyntax(a);
        boolean withError = false;
        if (a.count() == 4) {
            if (a.is(3, "timeout")) withError = false;
            else if (a.is(3, "error")) withError = true;
            else throw CommandError.err("CLIENT UNBLOCK reason should be TIMEOUT or ERROR");
        }
        long id = c.argLong(2);
        Client target = c.engine.client(id);
        c.reply().integer(target != null && target != c && c.engine.unblock(target, withError) ? 1 : 0);
    }

    static void help(Client c) {
        KeyCommands.helpReply(c, "CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
                "GETNAME",
                "    The name of the current connection.",
                "ID",
                "    The id of the current connection.",
                "INFO",
                "    Information about the current connection.",
                "KILL <ip:port>",
                "    Kill the connection at <ip:port>.",
                "KILL <option> <value> [<option> <value> [...]]",
                "    Kill connections matching all the filters: ID <client-id>, TYPE (NORMAL|MASTER|REPLICA|PUBSUB),",
                "    USER <username>, ADDR <ip:port>, LADDR <ip:port>, SKIPME (YES|NO).",
                "LIST [TYPE (NORMAL|MASTER|REPLICA|PUBSUB)] [ID <client-id> [<client-id> ...]]",
                "    Information about the connections.",
                "NO-EVICT (ON|OFF)",
                "    Keep this connection out of client eviction.",
                "NO-TOUCH (ON|OFF)",
                "    Do not update the last access time of keys this connection reads.",
                "PAUSE <timeout> [WRITE|ALL]",
                "    Hold the commands of all clients (WRITE: only those that may change data) for <timeout> ms.",
                "REPLY (ON|OFF|SKIP)",
                "    Turn replies on or off, or skip the reply of the next command.",
                "SETINFO (LIB-NAME|LIB-VER) <value>",
                "    Record the client library's name or version.",
                "SETNAME <name>",
                "    Name the current connection.",
                "UNPAUSE",
                "    End a pause started with CLIENT PAUSE: held commands run.");
    }
}
