package io.spinel.core;

import io.spinel.core.command.CommandHandler;
import io.spinel.core.keyspace.Db;
import io.spinel.core.keyspace.KeyCommands;
import io.spinel.core.keyspace.Keyspace;
import io.spinel.core.protocol.Reply;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.util.Locale;

/**
 * MEMORY STATS, DOCTOR, MALLOC-STATS, PURGE and HELP (USAGE lives with the key commands). Figures
 * come from Spinel's own accounting (see Engine.usedMemory); the allocator fields describe the
 * JVM heap, which is what Spinel's "allocator" is.
 */
final class MemoryCommand {
    private MemoryCommand() {
    }

    /** The handler of each command CommandFamilies registers for this family, made when it first runs. */
    public static CommandHandler handler(String name) {
        return switch (name) {
            case "memory|stats" -> MemoryCommand::stats;
            case "memory|doctor" -> MemoryCommand::doctor;
            case "memory|malloc-stats" -> MemoryCommand::mallocStats;
            case "memory|purge" -> c -> {
                c.engine.purgeHeap();
                c.reply().ok();
            };
            case "memory|help" -> c -> KeyCommands.helpReply(c,
                    "MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
                    "DOCTOR",
                    "    A report on memory problems, if any.",
                    "MALLOC-STATS",
                    "    The state of the JVM heap pools.",
                    "PURGE",
                    "    Collect the heap and return its free memory to the OS (standalone server only).",
                    "STATS",
                    "    Memory usage details.",
                    "USAGE <key> [SAMPLES <count>]",
                    "    The estimated memory used by a key and its value.");
            default -> null;
        };
    }

    static void stats(Client c) {
        Engine e = c.engine;
        Keyspace ks = e.keyspace;
        long used = e.usedMemory();
        long peak = e.usedMemoryPeak();
        long startup = e.usedMemoryStartup();
        long clients = e.clientsMemory();
        long[] scripts = e.scriptStats();
        long dataset = Math.max(0, used - startup - clients - e.replication.bufferMemory());
        long keys = ks.totalKeys();
        Runtime rt = Runtime.getRuntime();
        long heapUsed = rt.totalMemory() - rt.freeMemory();
        long rss = InfoCommand.rss();
        int dbsWithKeys = 0;
        for (int i = 0; i < ks.count(); i++) if (ks.db(i).size() > 0) dbsWithKeys++;
        Reply r = c.reply();
        r.mapHeader(27 + dbsWithKeys);
        r.bulk("peak.allocated");
        r.integer(peak);
        r.bulk("total.allocated");
        r.integer(used);
        r.bulk("startup.allocated");
        r.integer(startup);
        r.bulk("replication.backlog");
        r.integer(e.replication.backlogBytes());
        r.bulk("clients.slaves");
        r.integer(e.replication.replicasMemory());
        r.bulk("clients.normal");
        r.integer(clients - e.replication.replicasConnectionMemory());
        r.bulk("cluster.links");
        r.integer(0);
        r.bulk("aof.buffer");
        r.integer(e.persistence().aofBufferMemory());
        r.bulk("lua.caches");
        r.integer(scripts[3]);
        r.bulk("functions.caches");
        r.integer(scripts[4]);
        for (int i = 0; i < ks.count(); i++) {
            Db db = ks.db(i);
            if (db.size() == 0) continue;
            r.bulk("db." + i);
            r.mapHeader(2);
            r.bulk("overhead.hashtable.main");
            r.integer(db.tableCapacity() * 5L);
            r.bulk("overhead.hashtable.expires");
            r.integer(db.volatileCount() * 9L);
        }
        r.bulk("overhead.total");
        r.integer(used - dataset);
        r.bulk("keys.count");
        r.integer(keys);
        r.bulk("keys.bytes-per-key");
        r.integer(keys == 0 ? 0 : (used - startup) / keys);
        r.bulk("dataset.bytes");
        r.integer(dataset);
        r.bulk("dataset.percentage");
        r.dbl(used - startup <= 0 ? 0 : dataset * 100.0 / (used - startup));
        r.bulk("peak.percentage");
        r.dbl(peak == 0 ? 0 : used * 100.0 / peak);
        r.bulk("allocator.allocated");
        r.integer(heapUsed);
        r.bulk("allocator.active");
        r.integer(rt.totalMemory());
        r.bulk("allocator.resident");
        r.integer(rss);
        r.bulk("allocator-fragmentation.ratio");
        r.dbl(heapUsed == 0 ? 1 : (double) rt.totalMemory() / heapUsed);
        r.bulk("allocator-fragmentation.bytes");
        r.integer(rt.totalMemory() - heapUsed);
        r.bulk("allocator.rss-ratio");
        r.dbl(rt.totalMemory() == 0 ? 1 : (double) rss / rt.totalMemory());
        r.bulk("allocator.rss-bytes");
        r.integer(rss - rt.totalMemory());
        r.bulk("rss-overhead.ratio");
        r.dbl(1);
        r.bulk("rss-overhead.bytes");
        r.integer(0);
        r.bulk("fragmentation");
        r.dbl(used == 0 ? 1 : (double) rss / used);
        r.bulk("fragmentation.bytes");
        r.integer(rss - used);
    }

    static void doctor(Client c) {
        Engine e = c.engine;
        long used = e.usedMemory();
        long rss = InfoCommand.rss();
        long max = Runtime.getRuntime().maxMemory();
        StringBuilder sb = new StringBuilder();
        if (used < 5 * 1024 * 1024) {
            sb.append("Spinel holds less than 5 MB of data: nothing worth reporting yet.");
        } else {
            if (e.maxmemory > max) {
                sb.append("maxmemory (").append(InfoCommand.human(e.maxmemory)).append(") is above the JVM's maximum heap (")
                        .append(InfoCommand.human(max)).append("): raise -Xmx or lower maxmemory, or the heap runs out first.\n");
            }
            if (rss > 2 * used && rss - used > 100L * 1024 * 1024) {
                sb.append(String.format(Locale.ROOT, "The process is resident with %s for %s of data: the JVM keeps "
                        + "heap it has grown into; lower -Xmx or use a collector that uncommits (G1/ZGC).\n",
                        InfoCommand.human(rss), InfoCommand.human(used)));
            }
            if (sb.length() == 0) sb.append("No memory problems found.");
        }
        c.reply().verbatim(sb.toString().trim(), "txt");
    }

    static void mallocStats(Client c) {
        StringBuilder sb = new StringBuilder("JVM memory pools (used / committed / max bytes):\n");
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
            sb.append(p.getName()).append(": ").append(p.getUsage().getUsed()).append(" / ")
                    .append(p.getUsage().getCommitted()).append(" / ").append(p.getUsage().getMax()).append('\n');
        }
        c.reply().verbatim(sb.toString(), "txt");
    }
}
