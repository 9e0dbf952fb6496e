package io.spinel.core;

import io.spinel.core.command.Command;
import io.spinel.core.command.CommandHandler;
import io.spinel.core.keyspace.Db;
import io.spinel.core.keyspace.Keyspace;
import io.spinel.core.protocol.Args;
import io.spinel.core.util.Doubles;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * INFO, with Redis 7.0's sections and field names so that exporters, clients and Redis's own test
 * helpers read it unchanged. redis_version is the Redis release whose behaviour Spinel follows;
 * spinel_version says what is really running.
 */
final class InfoCommand {
    private InfoCommand() {
    }

    private static final String[] DEFAULT = {"server", "clients", "memory", "persistence", "stats", "replication",
            "cpu", "module_list", "errorstats", "cluster", "keyspace"};
    static final String[] ALL = {"server", "clients", "memory", "persistence", "stats", "replication", "cpu",
            "module_list", "commandstats", "errorstats", "latencystats", "cluster", "keyspace"};

    /** The handler of each command CommandFamilies registers for this family, made when it first runs. */
    public static CommandHandler handler(String name) {
        return switch (name) {
            case "info" -> InfoCommand::info;
            default -> null;
        };
    }

    /** Sentinel mode's INFO sections: all it knows, and its default. */
    private static final String[] SENTINEL_SECTIONS = {"server", "clients", "cpu", "stats", "sentinel"};

    static void info(Client c) {
        Args a = c.args();
        Set<String> sections = new LinkedHashSet<>();
        if (c.engine.sentinel() != null) {
            sentinelInfo(c, a);
            return;
        }
        if (a.count() == 1) {
            sections.addAll(List.of(DEFAULT));
        } else {
            for (int j = 1; j < a.count(); j++) {
                String s = a.string(j).toLowerCase(Locale.ROOT);
                switch (s) {
                    case "default": sections.addAll(List.of(DEFAULT)); break;
                    case "all":
                    case "everything": sections.addAll(List.of(ALL)); break;
                    case "modules": sections.add("module_list"); break;
                    default: sections.add(s); break;
                }
            }
        }
        c.reply().verbatim(generate(c.engine, sections), "txt");
    }

    /** INFO of a Sentinel: its few sections, "all" and "everything" meaning those. */
    private static void sentinelInfo(Client c, Args a) {
        Set<String> sections = new LinkedHashSet<>();
        boolean all = a.count() == 1;
        for (int j = 1; j < a.count(); j++) {
            String s = a.string(j).toLowerCase(Locale.ROOT);
            if (s.equals("all") || s.equals("everything") || s.equals("default")) all = true;
            else sections.add(s);
        }
        if (all) sections.addAll(List.of(SENTINEL_SECTIONS));
        sections.retainAll(List.of(SENTINEL_SECTIONS));
        StringBuilder sb = new StringBuilder(generate(c.engine, sections));
        if (sections.contains("sentinel")) {
            if (sb.length() > 0) sb.append("\r\n");
            io.spinel.core.sentinel.SentinelCommands.infoSection(c.engine.sentinel(), sb);
        }
        c.reply().verbatim(sb.toString(), "txt");
    }

    static String generate(Engine e, Set<String> sections) {
        StringBuilder sb = new StringBuilder(4096);
        for (String s : ALL) {
            if (!sections.contains(s)) continue;
            if (sb.length() > 0) sb.append("\r\n");
            switch (s) {
                case "server": server(e, sb); break;
                case "clients": clients(e, sb); break;
                case "memory": memory(e, sb); break;
                case "persistence": persistence(e, sb); break;
                case "stats": stats(e, sb); break;
                case "replication": e.replication.info(sb); break;
                case "cpu": cpu(sb); break;
                case "module_list": sb.append("# Modules\r\n"); break;
                case "commandstats": commandStats(e, sb); break;
                case "errorstats": errorStats(e, sb); break;
                case "latencystats": sb.append("# Latencystats\r\n"); e.latency.info(sb); break;
                case "cluster": sb.append("# Cluster\r\ncluster_enabled:").append(e.cluster() != null ? 1 : 0).append("\r\n"); break;
                case "keyspace": keyspace(e, sb); break;
                default: break;
            }
        }
        return sb.toString();
    }

    static void field(StringBuilder sb, String name, Object value) {
        sb.append(name).append(':').append(value).append("\r\n");
    }

    private static String os() {
        return System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch");
    }

    private static void server(Engine e, StringBuilder sb) {
        long uptime = e.uptimeMillis() / 1000;
        sb.append("# Server\r\n");
        field(sb, "redis_version", Engine.REDIS_VERSION);
        field(sb, "spinel_version", Engine.SPINEL_VERSION);
        field(sb, "redis_git_sha1", "00000000");
        field(sb, "redis_git_dirty", 0);
        field(sb, "redis_build_id", "0");
        field(sb, "redis_mode", e.cluster() != null ? "cluster" : e.sentinel() != null ? "sentinel" : "standalone");
        field(sb, "os", os());
        field(sb, "arch_bits", "64");
        field(sb, "monotonic_clock", "JVM System.nanoTime");
        field(sb, "multiplexing_api", e.transportName());
        field(sb, "atomicvar_api", "java");
        field(sb, "gcc_version", "0.0.0");
        field(sb, "java_version", System.getProperty("java.version"));
        field(sb, "java_vm", System.getProperty("java.vm.name"));
        field(sb, "process_id", ProcessHandle.current().pid());
        field(sb, "process_supervised", "no");
        field(sb, "run_id", e.runId());
        field(sb, "tcp_port", e.port() != 0 ? Integer.toString(e.port()) : e.config.get("tls-port")); // as Redis: the TLS one without a plain one
        field(sb, "server_time_usec", System.currentTimeMillis() * 1000);
        field(sb, "uptime_in_seconds", uptime);
        field(sb, "uptime_in_days", uptime / 86400);
        field(sb, "hz", e.hz);
        field(sb, "configured_hz", e.config.get("hz"));
        field(sb, "lru_clock", e.keyspace.lruClock());
        field(sb, "executable", e.executable());
        field(sb, "config_file", e.configFile());
        field(sb, "io_threads_active", e.ioThreadsActive() ? 1 : 0);
        if (e.shutdownInitiated()) field(sb, "shutdown_in_milliseconds", e.shutdown.remainingMillis());
    }

    private static void clients(Engine e, StringBuilder sb) {
        sb.append("# Clients\r\n");
        // a replica's master client counts, as it is one of Redis's clients
        field(sb, "connected_clients", e.clients.size() - e.replication.replicaCount()
                + (e.replication.connectedMasterClient() != null ? 1 : 0));
        field(sb, "cluster_connections", e.cluster() != null ? e.cluster().connections() : 0);
        field(sb, "maxclients", e.maxClients);
        long maxIn = 0, maxOut = 0;
        for (Client c : e.clients.values()) {
            maxIn = Math.max(maxIn, c.reader.allocated());
            maxOut = Math.max(maxOut, c.reply.buffer().length);
        }
        field(sb, "client_recent_max_input_buffer", maxIn);
        field(sb, "client_recent_max_output_buffer", maxOut);
        field(sb, "blocked_clients", e.blockedClients());
        field(sb, "tracking_clients", e.tracking.trackingClients());
        field(sb, "clients_in_timeout_table", e.blocking.clientsWithTimeout());
    }

    static String human(long bytes) {
        double d = bytes;
        if (d < 1024) return bytes + "B";
        String[] units = {"K", "M", "G", "T", "P"};
        int u = -1;
        do {
            d /= 1024;
            u++;
        } while (d >= 1024 && u < units.length - 1);
        return Doubles.fixed(d, 2) + units[u];
    }

    static long rss() {
        long rss = ProcSelf.rss();
        return rss >= 0 ? rss : Runtime.getRuntime().totalMemory();
    }

    /** The machine's (or container's) memory, read once as Redis does at start: -1 until INFO first asks. */
    private static volatile long totalSystemMemory = -1;

    /**
     * The JVM reads it from the cgroup's files on every call (the larger part of INFO memory's
     * time on the executor, by a profile), and it does not change while the server runs.
     */
    private static long totalSystemMemory() {
        if (totalSystemMemory < 0) {
            java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
            totalSystemMemory = os instanceof com.sun.management.OperatingSystemMXBean
                    ? ((com.sun.management.OperatingSystemMXBean) os).getTotalMemorySize() : 0;
        }
        return totalSystemMemory;
    }

    private static void memory(Engine e, StringBuilder sb) {
        Runtime rt = Runtime.getRuntime();
        long used = e.usedMemory();
        long peak = e.usedMemoryPeak();
        long rss = rss();
        long maxmemory = e.config.getLong("maxmemory");
        long total = totalSystemMemory();
        sb.append("# Memory\r\n");
        field(sb, "used_memory", used);
        field(sb, "used_memory_human", human(used));
        field(sb, "used_memory_rss", rss);
        field(sb, "used_memory_rss_human", human(rss));
        field(sb, "used_memory_peak", peak);
        field(sb, "used_memory_peak_human", human(peak));
        field(sb, "used_memory_peak_perc", Doubles.fixed(peak == 0 ? 0 : used * 100.0 / peak, 2) + "%");
        long startup = e.usedMemoryStartup();
        long dataset = Math.max(0, used - startup - e.clientsMemory() - e.replication.bufferMemory());
        field(sb, "used_memory_overhead", used - dataset);
        field(sb, "used_memory_startup", startup);
        field(sb, "used_memory_dataset", dataset);
        field(sb, "used_memory_dataset_perc", Doubles.fixed(
                used - startup <= 0 ? 0.0 : dataset * 100.0 / (used - startup), 2) + "%");
        field(sb, "allocator_allocated", rt.totalMemory() - rt.freeMemory());
        field(sb, "allocator_active", rt.totalMemory());
        field(sb, "allocator_resident", rss);
        field(sb, "total_system_memory", total);
        field(sb, "total_system_memory_human", human(total));
        long[] st = e.scriptStats();
        field(sb, "used_memory_lua", st[5]);
        field(sb, "used_memory_vm_eval", st[5]);
        field(sb, "used_memory_lua_human", human(st[5]));
        field(sb, "used_memory_scripts_eval", st[3]);
        field(sb, "number_of_cached_scripts", st[0]);
        field(sb, "number_of_functions", st[1]);
        field(sb, "number_of_libraries", st[2]);
        field(sb, "used_memory_vm_functions", st[6]);
        field(sb, "used_memory_vm_total", st[5] + st[6]);
        field(sb, "used_memory_vm_total_human", human(st[5] + st[6]));
        field(sb, "used_memory_functions", st[4]);
        field(sb, "used_memory_scripts", st[3] + st[4]);
        field(sb, "used_memory_scripts_human", human(st[3] + st[4]));
        field(sb, "maxmemory", maxmemory);
        field(sb, "maxmemory_human", human(maxmemory));
        field(sb, "maxmemory_policy", e.config.get("maxmemory-policy"));
        field(sb, "allocator_frag_ratio", "1.00");
        field(sb, "allocator_frag_bytes", 0);
        field(sb, "allocator_rss_ratio", "1.00");
        field(sb, "allocator_rss_bytes", 0);
        field(sb, "rss_overhead_ratio", "1.00");
        field(sb, "rss_overhead_bytes", 0);
        field(sb, "mem_fragmentation_ratio", Doubles.fixed(used == 0 ? 1.0 : (double) rss / used, 2));
        field(sb, "mem_fragmentation_bytes", rss - used);
        field(sb, "mem_not_counted_for_evict", e.memoryNotCountedForEvict());
        long backlog = e.replication.backlogBytes();
        field(sb, "mem_replication_backlog", backlog);
        field(sb, "mem_total_replication_buffers", backlog + e.replication.replicasOutputMemory());
        field(sb, "mem_clients_slaves", e.replication.replicasMemory());
        field(sb, "mem_clients_normal", e.clientsMemory() - e.replication.replicasConnectionMemory());
        field(sb, "mem_cluster_links", e.cluster() != null ? e.cluster().linksMemory() : 0);
        field(sb, "mem_aof_buffer", e.persistence().aofBufferMemory());
        field(sb, "mem_allocator", "jvm-" + e.gcName());
        field(sb, "active_defrag_running", 0);
        field(sb, "lazyfree_pending_objects", 0);
        field(sb, "lazyfreed_objects", e.lazyfreedObjects());
    }

    private static void persistence(Engine e, StringBuilder sb) {
        e.persistence().info(sb);
    }

    private static void stats(Engine e, StringBuilder sb) {
        ServerStats s = e.stats;
        Keyspace ks = e.keyspace;
        sb.append("# Stats\r\n");
        field(sb, "total_connections_received", s.connectionsReceived);
        field(sb, "total_commands_processed", s.commandsProcessed);
        field(sb, "instantaneous_ops_per_sec", s.instantaneousOps());
        field(sb, "total_net_input_bytes", s.netInputBytes);
        field(sb, "total_net_output_bytes", s.netOutputBytes);
        field(sb, "total_net_repl_input_bytes", s.netReplInputBytes.get());
        field(sb, "total_net_repl_output_bytes", s.netReplOutputBytes);
        field(sb, "instantaneous_input_kbps", Doubles.fixed(s.instantaneousInputKbps(), 2));
        field(sb, "instantaneous_output_kbps", Doubles.fixed(s.instantaneousOutputKbps(), 2));
        field(sb, "instantaneous_input_repl_kbps", Doubles.fixed(s.instantaneousReplInputKbps(), 2));
        field(sb, "instantaneous_output_repl_kbps", Doubles.fixed(s.instantaneousReplOutputKbps(), 2));
        field(sb, "rejected_connections", s.rejectedConnections);
        field(sb, "sync_full", e.replication.syncFull);
        field(sb, "sync_partial_ok", e.replication.syncPartialOk);
        field(sb, "sync_partial_err", e.replication.syncPartialErr);
        field(sb, "expired_keys", ks.expiredKeys());
        field(sb, "expired_stale_perc", Doubles.fixed(ks.expiredStalePerc(), 2));
        field(sb, "expired_time_cap_reached_count", ks.expiredTimeCapReached());
        field(sb, "expire_cycle_cpu_milliseconds", e.expireCycleMillis());
        field(sb, "evicted_keys", e.evictedKeys());
        field(sb, "evicted_clients", e.evictedClients);
        field(sb, "total_eviction_exceeded_time", e.evictor.totalExceededMillis());
        field(sb, "current_eviction_exceeded_time", e.evictor.currentExceededMillis());
        field(sb, "keyspace_hits", ks.hits());
        field(sb, "keyspace_misses", ks.misses());
        field(sb, "pubsub_channels", e.pubsubChannelCount());
        field(sb, "pubsub_patterns", e.pubsubPatternCount());
        field(sb, "pubsubshard_channels", e.pubsubShardChannelCount());
        e.persistence().forkStats(sb);
        field(sb, "migrate_cached_sockets", e.persistence().migrateCachedSockets());
        field(sb, "slave_expires_tracked_keys", ks.replicaKeysWithExpire());
        field(sb, "active_defrag_hits", 0);
        field(sb, "active_defrag_misses", 0);
        field(sb, "active_defrag_key_hits", 0);
        field(sb, "active_defrag_key_misses", 0);
        field(sb, "total_active_defrag_time", 0);
        field(sb, "current_active_defrag_time", 0);
        field(sb, "tracking_total_keys", e.tracking.totalKeys());
        field(sb, "tracking_total_items", e.tracking.totalItems());
        field(sb, "tracking_total_prefixes", e.tracking.totalPrefixes());
        field(sb, "unexpected_error_replies", s.unexpectedErrorReplies);
        field(sb, "total_error_replies", s.errorReplies);
        field(sb, "dump_payload_sanitizations", 0);
        field(sb, "total_reads_processed", s.readsProcessed);
        field(sb, "total_writes_processed", s.writesProcessed);
        field(sb, "io_threaded_reads_processed", s.ioThreadedReads);
        field(sb, "io_threaded_writes_processed", s.ioThreadedWrites);
        field(sb, "reply_buffer_shrinks", s.replyBufferShrinks);
        field(sb, "reply_buffer_expands", s.replyBufferExpands);
    }

    private static void cpu(StringBuilder sb) {
        double[] times = ProcSelf.cpuSeconds(); // null where not Linux: zeros rather than fail INFO
        double user = times == null ? 0 : times[0];
        double sys = times == null ? 0 : times[1];
        sb.append("# CPU\r\n");
        field(sb, "used_cpu_sys", Doubles.fixed(sys, 6));
        field(sb, "used_cpu_user", Doubles.fixed(user, 6));
        field(sb, "used_cpu_sys_children", "0.000000");
        field(sb, "used_cpu_user_children", "0.000000");
        // INFO runs on the executor, the thread that plays Redis's main thread (RUSAGE_THREAD there)
        double[] thread = ProcSelf.threadCpuSeconds();
        field(sb, "used_cpu_sys_main_thread", Doubles.fixed(thread == null ? 0 : thread[1], 6));
        field(sb, "used_cpu_user_main_thread", Doubles.fixed(thread == null ? 0 : thread[0], 6));
    }

    private static void commandStats(Engine e, StringBuilder sb) {
        sb.append("# Commandstats\r\n");
        List<Command> all = new ArrayList<>();
        for (Command c : e.commands.commands()) {
            all.add(c);
            all.addAll(c.subcommands());
        }
        for (Command c : all) {
            if (c.calls == 0 && c.failedCalls == 0 && c.rejectedCalls == 0) continue;
            long usec = c.nanos / 1000;
            sb.append("cmdstat_").append(c.name).append(":calls=").append(c.calls)
                    .append(",usec=").append(usec).append(",usec_per_call=");
            appendPerCall(sb, usec, c.calls);
            sb.append(",rejected_calls=").append(c.rejectedCalls)
                    .append(",failed_calls=").append(c.failedCalls).append("\r\n");
        }
    }

    /** usec_per_call as Redis prints it: "%.2f" of the float usec / calls. */
    static void appendPerCall(StringBuilder sb, long usec, long calls) {
        Doubles.appendFixed(sb, calls == 0 ? 0f : (float) usec / calls, 2);
    }

    private static void errorStats(Engine e, StringBuilder sb) {
        sb.append("# Errorstats\r\n");
        for (Map.Entry<String, Long> en : e.errorStats().entrySet()) {
            sb.append("errorstat_").append(en.getKey()).append(":count=").append(en.getValue()).append("\r\n");
        }
    }

    private static void keyspace(Engine e, StringBuilder sb) {
        sb.append("# Keyspace\r\n");
        Keyspace ks = e.keyspace;
        for (int i = 0; i < ks.count(); i++) {
            Db db = ks.db(i);
            if (db.size() == 0) continue;
            sb.append("db").append(i).append(":keys=").append(db.size()).append(",expires=").append(db.volatileCount())
                    .append(",avg_ttl=").append(db.avgTtl()).append("\r\n");
        }
    }
}
