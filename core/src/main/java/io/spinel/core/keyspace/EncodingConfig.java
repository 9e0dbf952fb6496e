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
        for (String name : OPTIONS) config.listen(name, this::apply);
        // Redis 7.2's set-max-listpack-* do not exist in 7.0: sets go from intset to hashtable.
        setMaxListpackEntries = 0;
        setMaxListpackValue = 0;
    }

    private static final String[] OPTIONS = {
            "hash-max-listpack-entries", "hash-max-listpack-value", "set-max-intset-entries",
            "zset-max-listpack-entries", "zset-max-listpack-value", "list-max-listpack-size", "list-compress-depth",
            "hll-sparse-max-bytes", "stream-node-max-bytes", "stream-node-max-entries"
    };

    /** One listener for all of them (a lambda each is a class spun at a server's first start). */
    private void apply(Config.Option o) {
        int v = intValue(o.value());
        switch (o.name) {
            case "hash-max-listpack-entries" -> hashMaxListpackEntries = v;
            case "hash-max-listpack-value" -> hashMaxListpackValue = v;
            case "set-max-intset-entries" -> setMaxIntsetEntries = v;
            case "zset-max-listpack-entries" -> zsetMaxListpackEntries = v;
            case "zset-max-listpack-value" -> zsetMaxListpackValue = v;
            case "list-max-listpack-size" -> listMaxListpackSize = v;
            case "list-compress-depth" -> listCompressDepth = v;
            case "hll-sparse-max-bytes" -> hllSparseMaxBytes = v;
            case "stream-node-max-bytes" -> streamNodeMaxBytes = v;
            case "stream-node-max-entries" -> streamNodeMaxEntries = v;
            default -> throw new IllegalArgumentException(o.name);
        }
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
