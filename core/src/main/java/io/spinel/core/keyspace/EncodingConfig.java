package io.spinel.core.keyspace;

import io.spinel.core.config.Config;

/**
 * The encoding thresholds of the collection types (Redis's *-max-listpack-*, set-max-intset-entries,
 * list-max-listpack-size...), kept current from the config so that command code reads plain fields.
 */
public final class EncodingConfig {
    public volatile int hashMaxListpackEntries;
    public volatile int hashMaxListpackValue;
    public volatile int setMaxIntsetEntries;
    public volatile int setMaxListpackEntries;
    public volatile int setMaxListpackValue;
    public volatile int zsetMaxListpackEntries;
    public volatile int zsetMaxListpackValue;
    /** Positive: entries per quicklist node; negative -1..-5: node size 4, 8, 16, 32, 64 KB. */
    public volatile int listMaxListpackSize;
    public volatile int listCompressDepth;
    public volatile int hllSparseMaxBytes;
    public volatile int streamNodeMaxBytes;
    public volatile int streamNodeMaxEntries;

    public EncodingConfig(Config config) {
        config.listen("hash-max-listpack-entries", o -> hashMaxListpackEntries = intValue(o.value()));
        config.listen("hash-max-listpack-value", o -> hashMaxListpackValue = intValue(o.value()));
        config.listen("set-max-intset-entries", o -> setMaxIntsetEntries = intValue(o.value()));
        config.listen("zset-max-listpack-entries", o -> zsetMaxListpackEntries = intValue(o.value()));
        config.listen("zset-max-listpack-value", o -> zsetMaxListpackValue = intValue(o.value()));
        config.listen("list-max-listpack-size", o -> listMaxListpackSize = intValue(o.value()));
        config.listen("list-compress-depth", o -> listCompressDepth = intValue(o.value()));
        config.listen("hll-sparse-max-bytes", o -> hllSparseMaxBytes = intValue(o.value()));
        config.listen("stream-node-max-bytes", o -> streamNodeMaxBytes = intValue(o.value()));
        config.listen("stream-node-max-entries", o -> streamNodeMaxEntries = intValue(o.value()));
        // Redis 7.2's set-max-listpack-* do not exist in 7.0: sets go from intset to hashtable.
        setMaxListpackEntries = 0;
        setMaxListpackValue = 0;
    }

    /**
     * The option as an int. The size thresholds go up to LONG_MAX in Redis; past the int range
     * they mean "no limit" for collections that Java arrays cap anyway.
     */
    private static int intValue(String v) {
        long n = Long.parseLong(v);
        return (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, n));
    }
}
