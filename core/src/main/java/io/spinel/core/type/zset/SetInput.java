package io.spinel.core.type.zset;

/**
 * What ZUNION, ZINTER, ZDIFF (and their STORE forms, and ZINTERCARD) need from a SET-typed input
 * key: Redis accepts plain sets there, every member counting with score 1. The set type's value
 * class implements this; the sorted set commands need nothing else from it.
 */
public interface SetInput {
    /** Receives members as slices valid only during the call. */
    interface MemberVisitor {
        void member(byte[] buf, int off, int len);
    }

    /** Number of members. */
    long size();

    /** Whether the member is in the set (compared as bytes, like Redis's lookup by string). */
    boolean contains(byte[] buf, int off, int len);

    /** Calls the visitor once per member, in any order; the set must not change meanwhile. */
    void forEachMember(MemberVisitor visitor);
}
