package io.spinel.core.keyspace;

import io.spinel.core.type.hash.HashValue;
import io.spinel.core.type.list.ListValue;
import io.spinel.core.type.set.SetValue;
import io.spinel.core.type.stream.StreamValue;
import io.spinel.core.type.zset.ZSet;

/**
 * Redis's lazy-free accounting. Redis hands a deleted value to a background thread when freeing it
 * would take many allocations (UNLINK, FLUSHALL ASYNC, the lazyfree-lazy-* options) and counts it
 * in INFO's {@code lazyfreed_objects}. Here the garbage collector frees everything in the
 * background, so nothing is ever pending; the count follows Redis's rule so that monitoring that
 * reads it sees what it would see with Redis.
 */
public final class LazyFree {
    private LazyFree() {
    }

    /** Redis frees values of at most this effort at once, even when asked to free lazily. */
    public static final long THRESHOLD = 64;

    /**
     * Redis's lazyfreeGetFreeEffort: the allocations freeing this entry's value takes. Quicklist
     * nodes for a list, elements for a set, hash or sorted set in their big encodings, radix-tree
     * nodes plus consumer groups times their pending entries for a stream (the first group's
     * count standing for all, as Redis estimates), 1 for everything else.
     */
    public static long freeEffort(Object entry) {
        Object v = entry; // a packed string is none of these
        if (v instanceof ListValue) return ((ListValue) v).nodeCount();
        if (v instanceof SetValue && ((SetValue) v).encoding().equals("hashtable")) return ((SetValue) v).size();
        if (v instanceof ZSet && ((ZSet) v).encoding().equals("skiplist")) return ((ZSet) v).size();
        if (v instanceof HashValue && ((HashValue) v).encoding().equals("hashtable")) return ((HashValue) v).size();
        if (v instanceof StreamValue) {
            StreamValue s = (StreamValue) v;
            long effort = s.raxNodes();
            if (s.groupCount() > 0) {
                StreamValue.Group first = s.groups().values().iterator().next();
                effort += (long) s.groupCount() * (1 + first.pel.size());
            }
            return effort;
        }
        return 1;
    }

    /** Whether Redis would free this entry on its background thread when deleting it lazily. */
    public static boolean freedInBackground(Object entry) {
        return freeEffort(entry) > THRESHOLD;
    }
}
