package io.brook.coordinator.group.offsets;

/**
 * A committed position of a group in one partition.
 *
 * @param offset the next offset the group will read
 * @param leaderEpoch the leader epoch of the last consumed record, or -1
 * @param metadata free text the client attached, at most {@code offset.metadata.max.bytes}
 * @param commitTimestampMs when the coordinator accepted the commit
 */
public record CommittedOffset(
    long offset, int leaderEpoch, String metadata, long commitTimestampMs) {}
