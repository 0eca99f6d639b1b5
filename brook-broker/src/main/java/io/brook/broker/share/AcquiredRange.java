package io.brook.broker.share;

/** Offsets {@code [firstOffset, lastOffset]} handed to one consumer, each delivered this often. */
public record AcquiredRange(long firstOffset, long lastOffset, short deliveryCount) {}
