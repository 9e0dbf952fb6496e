package io.spinel.core.embedded;

/** A sorted-set member with its score, as ZRANGE ... WITHSCORES returns them. */
public record ScoredMember(String member, double score) {
}
