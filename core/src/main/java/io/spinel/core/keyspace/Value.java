package io.spinel.core.keyspace;

/**
 * A value of a non-string type (list, hash, set, sorted set, ...). Strings never take this form:
 * they live packed with their key in a {@link StringEntry}. The keyspace's values extend
 * {@link DbObject}, which carries the entry fields.
 */
public interface Value {
    /** One of {@link ValueType}'s constants. */
    int type();

    /** The encoding name OBJECT ENCODING reports (listpack, quicklist, hashtable, intset, skiplist). */
    String encoding();

    /** A deep copy (COPY, and snapshots that must not see later changes). */
    Value copy();

    /** Estimated heap bytes, for MEMORY USAGE and maxmemory accounting. */
    long memoryUsage();

    /** Number of elements, for the "empty collections are deleted" rule and lazy-free sizing. */
    long size();
}
