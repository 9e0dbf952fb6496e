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
        config.listen("hash-max-listpack-entries", o -> hashMaxListpackEntries = Integer.parseInt(o.value()));
        config.listen("hash-max-listpack-value", o -> hashMaxListpackValue = Integer.parseInt(o.value()));
        config.listen("set-max-intset-entries", o -> setMaxIntsetEntries = Integer.parseInt(o.value()));
        config.listen("zset-max-listpack-entries", o -> zsetMaxListpackEntries = Integer.parseInt(o.value()));
        config.listen("zset-max-listpack-value", o -> zsetMaxListpackValue = Integer.parseInt(o.value()));
        config.listen("list-max-listpack-size", o -> listMaxListpackSize = Integer.parseInt(o.value()));
        config.listen("list-compress-depth", o -> listCompressDepth = Integer.parseInt(o.value()));
        config.listen("hll-sparse-max-bytes", o -> hllSparseMaxBytes = Integer.parseInt(o.value()));
        config.listen("stream-node-max-bytes", o -> streamNodeMaxBytes = Integer.parseInt(o.value()));
        config.listen("stream-node-max-entries", o -> streamNodeMaxEntries = Integer.parseInt(o.value()));
        // Redis 7.2's set-max-listpack-* do not exist in 7.0: sets go from intset to hashtable.
        setMaxListpackEntries = 0;
        setMaxListpackValue = 0;
    }
}
