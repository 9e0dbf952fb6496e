package io.spinel.core;

import io.spinel.core.command.Command;
import io.spinel.core.command.CommandHandler;
import io.spinel.core.command.CommandTable;
import io.spinel.core.keyspace.StringEntry;
import io.spinel.core.protocol.RespReader;

/**
 * Every command family and the commands it implements, registered into the table (Redis's
 * command table, with the family files as its t_*.c). Add a family here when you add its file:
 * an id, its names in {@link #registerAll}, and a case in {@link FamilyHandlers}.
 *
 * <p>Only this registry is loaded when a server starts: a family's own class (its handlers, tens
 * of kilobytes of bytecode that the JVM verifies when it links the class) is loaded when one of
 * its commands first runs, through {@link FamilyHandlers}. Registering from each family's class
 * loaded and verified all of them at every first start, ~450 KB, whichever commands ran.
 */
public final class CommandFamilies {
    private CommandFamilies() {
    }

    // the families, by id (FamilyHandlers switches on it)
    private static final int CONNECTION_COMMANDS = 0;
    private static final int SERVER_COMMANDS = 1;
    private static final int SLOW_LOG = 2;
    private static final int LATENCY_MONITOR = 3;
    private static final int MONITORS = 4;
    private static final int CLIENT_PAUSE = 5;
    private static final int INFO_COMMAND = 6;
    private static final int TRANSACTIONS = 7;
    private static final int PUB_SUB = 8;
    private static final int TRACKING = 9;
    private static final int MEMORY_COMMAND = 10;
    private static final int KEY_COMMANDS = 11;
    private static final int SORT_COMMAND = 12;
    private static final int STRING_COMMANDS = 13;
    private static final int LIST_COMMANDS = 14;
    private static final int BLOCKING_LIST_COMMANDS = 15;
    private static final int HLL_COMMANDS = 16;
    private static final int BITMAP_COMMANDS = 17;
    private static final int ZSET_COMMANDS = 18;
    private static final int BLOCKING_ZSET_COMMANDS = 19;
    private static final int HASH_COMMANDS = 20;
    private static final int SET_COMMANDS = 21;
    private static final int GEO_COMMANDS = 22;
    private static final int STREAM_COMMANDS = 23;
    private static final int PERSIST_COMMANDS = 24;
    private static final int EVAL_SCRIPTS = 25;
    private static final int FUNCTIONS = 26;
    private static final int LOLWUT = 27;
    private static final int ACL_COMMANDS = 28;
    private static final int REPLICATION = 29;
    private static final int SENTINEL = 30;

    /**
     * Which big arguments the query buffer reads with room for a command to keep them: SET key
     * value with a big value is read with room in front for the entry's header and key, so the
     * string family's store keeps the array as the entry instead of copying 32 KB or more (Redis
     * keeps such an argument's buffer as the value). Five arguments are most often SET key value
     * EX|PX|EXAT|PXAT n, so they get room for an expire; other forms (NX, GET, KEEPTTL) fall back
     * to a copy. Where native memory is available, the value of every form of SET, SETNX, SETEX
     * and PSETEX, and each value of MSET and MSETNX, is received there instead and kept as it is
     * (StringEntry.BIG), room or not.
     * (Here, not in StringCommands: every client's reader needs it from the start.)
     */
    static final RespReader.BigArgLayout BIG_ARG_LAYOUT = new SetValueLayout();

    private static final class SetValueLayout implements RespReader.BigArgLayout {
        @Override
        public int headroom(io.spinel.core.protocol.Args parsed, int argc, int length) {
            return parsed.count() == 2 && (argc == 3 || argc == 5) && parsed.is(0, "set")
                    ? StringEntry.rawValueOffset(parsed.len(1), argc == 5) : 0;
        }

        @Override
        public boolean keepsAsValue(io.spinel.core.protocol.Args parsed, int argc) {
            // the value arguments of the string family's store: SET key value [options], SETNX key
            // value, SETEX/PSETEX key seconds value, MSET/MSETNX key value [key value ...]
            int i = parsed.count();
            // the command's name itself may be the big argument: nothing parsed yet to look at
            if (i == 0) return false;
            if (i == 2 && (parsed.is(0, "set") || (argc == 3 && parsed.is(0, "setnx")))) return true;
            if (i == 3 && argc == 4 && (parsed.is(0, "setex") || parsed.is(0, "psetex"))) return true;
            return i % 2 == 0 && argc % 2 == 1 && (parsed.is(0, "mset") || parsed.is(0, "msetnx"));
        }
    }

    static void registerAll(CommandTable t) {
        t.registerLazily(new FamilyHandlers(CONNECTION_COMMANDS),
                "ping", "echo", "select", "auth", "hello", "quit", "reset", "client|id", "client|getname",
                "client|setname", "client|setinfo", "client|info", "client|list", "client|kill", "client|reply",
                "client|no-evict", "client|no-touch", "client|help", "client|unblock");
        t.registerLazily(new FamilyHandlers(SERVER_COMMANDS),
                "time", "lastsave", "command", "command|count", "command|list", "command|info", "command|docs",
                "command|getkeys", "command|getkeysandflags", "command|help", "config|get", "config|set",
                "config|resetstat", "config|rewrite", "config|help", "debug", "shutdown", "module|list",
                "module|load", "module|loadex", "module|unload", "module|help", "role", "wait",
                "readonly", "readwrite", "asking", "cluster|addslots", "cluster|addslotsrange",
                "cluster|bumpepoch", "cluster|count-failure-reports", "cluster|countkeysinslot",
                "cluster|delslots", "cluster|delslotsrange", "cluster|failover", "cluster|flushslots",
                "cluster|forget", "cluster|getkeysinslot", "cluster|help", "cluster|info", "cluster|keyslot",
                "cluster|links", "cluster|meet", "cluster|myid", "cluster|nodes", "cluster|replicas",
                "cluster|replicate", "cluster|reset", "cluster|saveconfig", "cluster|set-config-epoch",
                "cluster|setslot", "cluster|shards", "cluster|slaves", "cluster|slots");
        t.registerLazily(new FamilyHandlers(SLOW_LOG),
                "slowlog|get", "slowlog|len", "slowlog|reset", "slowlog|help");
        t.registerLazily(new FamilyHandlers(LATENCY_MONITOR),
                "latency|latest", "latency|history", "latency|reset", "latency|graph", "latency|doctor",
                "latency|histogram", "latency|help");
        t.registerLazily(new FamilyHandlers(MONITORS),
                "monitor");
        t.registerLazily(new FamilyHandlers(CLIENT_PAUSE),
                "client|pause", "client|unpause");
        t.registerLazily(new FamilyHandlers(INFO_COMMAND),
                "info");
        t.registerLazily(new FamilyHandlers(TRANSACTIONS),
                "multi", "exec", "discard", "watch", "unwatch");
        t.registerLazily(new FamilyHandlers(PUB_SUB),
                "subscribe", "psubscribe", "ssubscribe", "unsubscribe", "punsubscribe", "sunsubscribe", "publish",
                "spublish", "pubsub|channels", "pubsub|shardchannels", "pubsub|numsub", "pubsub|shardnumsub",
                "pubsub|numpat", "pubsub|help");
        t.registerLazily(new FamilyHandlers(TRACKING),
                "client|tracking", "client|caching", "client|getredir", "client|trackinginfo");
        t.registerLazily(new FamilyHandlers(MEMORY_COMMAND),
                "memory|stats", "memory|doctor", "memory|malloc-stats", "memory|purge", "memory|help");
        t.registerLazily(new FamilyHandlers(KEY_COMMANDS),
                "del", "unlink", "exists", "touch", "type", "rename", "renamenx", "move", "copy", "keys", "scan",
                "randomkey", "dbsize", "flushdb", "flushall", "swapdb", "expire", "pexpire", "expireat",
                "pexpireat", "ttl", "pttl", "expiretime", "pexpiretime", "persist", "object|encoding",
                "object|refcount", "object|idletime", "object|freq", "object|help", "memory|usage");
        t.registerLazily(new FamilyHandlers(SORT_COMMAND),
                "sort", "sort_ro");
        t.registerLazily(new FamilyHandlers(STRING_COMMANDS),
                "get", "set", "setnx", "setex", "psetex", "getset", "getdel", "getex", "mget", "mset", "msetnx",
                "strlen", "append", "incr", "decr", "incrby", "decrby", "incrbyfloat", "getrange", "substr",
                "setrange", "lcs");
        t.registerLazily(new FamilyHandlers(LIST_COMMANDS),
                "lpush", "rpush", "lpushx", "rpushx", "linsert", "llen", "lindex", "lset", "lpop", "rpop", "lmpop",
                "lrange", "ltrim", "lpos", "lrem", "lmove", "rpoplpush");
        t.registerLazily(new FamilyHandlers(BLOCKING_LIST_COMMANDS),
                "blpop", "brpop", "blmpop", "blmove", "brpoplpush");
        t.registerLazily(new FamilyHandlers(HLL_COMMANDS),
                "pfadd", "pfcount", "pfmerge", "pfdebug", "pfselftest");
        t.registerLazily(new FamilyHandlers(BITMAP_COMMANDS),
                "setbit", "getbit", "bitcount", "bitpos", "bitop", "bitfield", "bitfield_ro");
        t.registerLazily(new FamilyHandlers(ZSET_COMMANDS),
                "zadd", "zincrby", "zcard", "zscore", "zmscore", "zrank", "zrevrank", "zrem", "zremrangebyrank",
                "zremrangebyscore", "zremrangebylex", "zcount", "zlexcount", "zrange", "zrangestore", "zrevrange",
                "zrangebyscore", "zrevrangebyscore", "zrangebylex", "zrevrangebylex", "zunionstore", "zinterstore",
                "zdiffstore", "zunion", "zinter", "zdiff", "zintercard", "zpopmin", "zpopmax", "zmpop",
                "zrandmember", "zscan");
        t.registerLazily(new FamilyHandlers(BLOCKING_ZSET_COMMANDS),
                "bzpopmin", "bzpopmax", "bzmpop");
        t.registerLazily(new FamilyHandlers(HASH_COMMANDS),
                "hset", "hmset", "hsetnx", "hget", "hmget", "hdel", "hlen", "hstrlen", "hexists", "hkeys", "hvals",
                "hgetall", "hincrby", "hincrbyfloat", "hrandfield", "hscan");
        t.registerLazily(new FamilyHandlers(SET_COMMANDS),
                "sadd", "srem", "smove", "sismember", "smismember", "scard", "spop", "srandmember", "smembers",
                "sinter", "sinterstore", "sintercard", "sunion", "sunionstore", "sdiff", "sdiffstore", "sscan");
        t.registerLazily(new FamilyHandlers(GEO_COMMANDS),
                "geoadd", "geodist", "geohash", "geopos", "georadius", "georadiusbymember", "georadius_ro",
                "georadiusbymember_ro", "geosearch", "geosearchstore");
        t.registerLazily(new FamilyHandlers(STREAM_COMMANDS),
                "xadd", "xlen", "xrange", "xrevrange", "xdel", "xtrim", "xsetid", "xread", "xreadgroup", "xack",
                "xpending", "xclaim", "xautoclaim", "xgroup|create", "xgroup|setid", "xgroup|destroy",
                "xgroup|createconsumer", "xgroup|delconsumer", "xgroup|help", "xinfo|stream", "xinfo|groups",
                "xinfo|consumers", "xinfo|help");
        t.registerLazily(new FamilyHandlers(PERSIST_COMMANDS),
                "save", "bgsave", "bgrewriteaof", "dump", "restore", "restore-asking", "migrate");
        t.registerLazily(new FamilyHandlers(EVAL_SCRIPTS),
                "eval", "evalsha", "eval_ro", "evalsha_ro", "script|load", "script|exists", "script|flush",
                "script|kill", "script|debug", "script|help");
        t.registerLazily(new FamilyHandlers(FUNCTIONS),
                "fcall", "fcall_ro", "function|load", "function|delete", "function|list", "function|flush",
                "function|dump", "function|restore", "function|stats", "function|kill", "function|help");
        t.registerLazily(new FamilyHandlers(LOLWUT), "lolwut");
        t.registerLazily(new FamilyHandlers(ACL_COMMANDS),
                "acl|setuser", "acl|deluser", "acl|getuser", "acl|list", "acl|users", "acl|whoami", "acl|load",
                "acl|save", "acl|cat", "acl|genpass", "acl|log", "acl|dryrun", "acl|help");
        t.registerLazily(new FamilyHandlers(REPLICATION), "sync", "psync", "replconf", "replicaof", "slaveof", "failover");
    }

    /** What Sentinel mode serves (Redis 7.0's commands flagged "sentinel"), by full name. */
    static final java.util.Set<String> SENTINEL_COMMANDS = java.util.Set.of(
            "acl", "acl|cat", "acl|deluser", "acl|dryrun", "acl|genpass", "acl|getuser", "acl|help", "acl|list",
            "acl|load", "acl|log", "acl|save", "acl|setuser", "acl|users", "acl|whoami", "auth", "client",
            "client|caching", "client|getname", "client|getredir", "client|help", "client|id", "client|info",
            "client|kill", "client|list", "client|no-evict", "client|pause", "client|reply", "client|setname",
            "client|tracking", "client|trackinginfo", "client|unblock", "client|unpause", "command", "command|count",
            "command|docs", "command|getkeys", "command|getkeysandflags", "command|help", "command|info",
            "command|list", "hello", "info", "ping", "psubscribe", "publish", "punsubscribe", "role", "shutdown",
            "subscribe", "unsubscribe");

    /** Sentinel mode's own commands, and its versions of PUBLISH and ROLE. */
    static void registerSentinel(CommandTable t) {
        t.registerLazily(new FamilyHandlers(SENTINEL), "sentinel|ckquorum", "sentinel|config", "sentinel|debug",
                "sentinel|failover", "sentinel|flushconfig", "sentinel|get-master-addr-by-name", "sentinel|help",
                "sentinel|info-cache", "sentinel|is-master-down-by-addr", "sentinel|master", "sentinel|masters",
                "sentinel|monitor", "sentinel|myid", "sentinel|pending-scripts", "sentinel|remove", "sentinel|replicas",
                "sentinel|reset", "sentinel|sentinels", "sentinel|set", "sentinel|simulate-failure", "sentinel|slaves");
        t.register("publish", io.spinel.core.sentinel.SentinelCommands::publish);
        t.register("role", io.spinel.core.sentinel.SentinelCommands::role);
    }

    /**
     * A family's handlers for {@link CommandTable#registerLazily}, from the family's static
     * {@code handler(String)} (and its key finders and flags where it has some). One class
     * serves every family: a method reference each ({@code StringCommands::handler}) was a
     * class the JVM spins at a server's first start in a fresh JVM, ~0.3 ms apiece here, and it
     * would load the family's class too.
     */
    private static final class FamilyHandlers implements CommandTable.HandlerSource {
        private final int family;

        FamilyHandlers(int family) {
            this.family = family;
        }

        @Override
        public CommandHandler handler(String name) {
            switch (family) {
                case CONNECTION_COMMANDS: return ConnectionCommands.handler(name);
                case SERVER_COMMANDS: return ServerCommands.handler(name);
                case SLOW_LOG: return SlowLog.handler(name);
                case LATENCY_MONITOR: return LatencyMonitor.handler(name);
                case MONITORS: return Monitors.handler(name);
                case CLIENT_PAUSE: return ClientPause.handler(name);
                case INFO_COMMAND: return InfoCommand.handler(name);
                case TRANSACTIONS: return Transactions.handler(name);
                case PUB_SUB: return PubSub.handler(name);
                case TRACKING: return Tracking.handler(name);
                case MEMORY_COMMAND: return MemoryCommand.handler(name);
                case KEY_COMMANDS: return io.spinel.core.keyspace.KeyCommands.handler(name);
                case SORT_COMMAND: return io.spinel.core.keyspace.SortCommand.handler(name);
                case STRING_COMMANDS: return io.spinel.core.type.string.StringCommands.handler(name);
                case LIST_COMMANDS: return io.spinel.core.type.list.ListCommands.handler(name);
                case BLOCKING_LIST_COMMANDS: return io.spinel.core.type.list.BlockingListCommands.handler(name);
                case HLL_COMMANDS: return io.spinel.core.type.hll.HllCommands.handler(name);
                case BITMAP_COMMANDS: return io.spinel.core.type.bitmap.BitmapCommands.handler(name);
                case ZSET_COMMANDS: return io.spinel.core.type.zset.ZSetCommands.handler(name);
                case BLOCKING_ZSET_COMMANDS: return io.spinel.core.type.zset.BlockingZSetCommands.handler(name);
                case HASH_COMMANDS: return io.spinel.core.type.hash.HashCommands.handler(name);
                case SET_COMMANDS: return io.spinel.core.type.set.SetCommands.handler(name);
                case GEO_COMMANDS: return io.spinel.core.type.geo.GeoCommands.handler(name);
                case STREAM_COMMANDS: return io.spinel.core.type.stream.StreamCommands.handler(name);
                case PERSIST_COMMANDS: return io.spinel.core.persist.PersistCommands.handler(name);
                case EVAL_SCRIPTS: return io.spinel.core.script.EvalScripts.handler(name);
                case FUNCTIONS: return io.spinel.core.script.Functions.handler(name);
                case LOLWUT: return Lolwut.handler(name);
                case ACL_COMMANDS: return AclCommands.handler(name);
                case REPLICATION: return Replication.handler(name);
                case SENTINEL: return io.spinel.core.sentinel.SentinelCommands.handler(name);
                default: throw new IllegalStateException("no command family " + family);
            }
        }

        @Override
        public Command.KeysFinder keysFinder(String name) {
            switch (family) {
                case SORT_COMMAND: return io.spinel.core.keyspace.SortCommand.keysFinder(name);
                case PERSIST_COMMANDS: return io.spinel.core.persist.PersistCommands.keysFinder(name);
                default: return null;
            }
        }

        @Override
        public Command.KeyFlags keyFlags(String name) {
            switch (family) {
                case SORT_COMMAND: return io.spinel.core.keyspace.SortCommand.keyFlags(name);
                case PERSIST_COMMANDS: return io.spinel.core.persist.PersistCommands.keyFlags(name);
                case STRING_COMMANDS: return io.spinel.core.type.string.StringCommands.keyFlags(name);
                case BITMAP_COMMANDS: return io.spinel.core.type.bitmap.BitmapCommands.keyFlags(name);
                default: return null;
            }
        }

        @Override
        public Command.DynamicFlags dynamicFlags(String name) {
            switch (family) {
                case EVAL_SCRIPTS: return io.spinel.core.script.EvalScripts.dynamicFlags(name);
                case FUNCTIONS: return io.spinel.core.script.Functions.dynamicFlags(name);
                default: return null;
            }
        }
    }
}
