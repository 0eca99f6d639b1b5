package io.brook.broker.replica;

import io.brook.storage.epoch.EpochEndOffset;
import io.brook.storage.log.LogReadResult;

/**
 * What a leader answers a follower's fetch of one partition: the records from the fetch offset up
 * to the log end, or, when the follower's log diverged, the epoch and end offset it must truncate
 * to. The offsets are read after the fetch was recorded, so the follower learns the high watermark
 * its own fetch may just have moved.
 *
 * @param read the records, null when diverged
 * @param divergingEpoch where the follower's last fetched epoch ends on this leader, null unless
 *     the follower must truncate first (KIP-320)
 */
public record FollowerRead(
    LogReadResult read,
    EpochEndOffset divergingEpoch,
    long highWatermark,
    long lastStableOffset,
    long logStartOffset) {
  public boolean diverged() {
    return divergingEpoch != null;
  }
}
