package io.brook.broker.replica.fetcher;

import io.brook.broker.replica.Partition;
import io.brook.storage.epoch.EpochEndOffset;
import org.apache.kafka.common.message.FetchResponseData;

/**
 * Where a follower cuts its log when it does not line up with the leader's, by Kafka's rules
 * (KIP-101, KIP-279, KIP-320). Public for the deterministic simulation, whose followers fetch
 * without the fetcher thread.
 */
public final class FollowerTruncation {
  private FollowerTruncation() {}

  /**
   * The leader says the follower's last fetched epoch ends at {@code diverging.endOffset} on the
   * leader (or that the leader's largest epoch at most that one is {@code diverging.epoch}).
   *
   * <ul>
   *   <li>The leader knows no such epoch (end offset -1): keep only what is committed, the high
   *       watermark.
   *   <li>The follower has that same epoch: both logs agree up to the smaller of the two end
   *       offsets of that epoch.
   *   <li>The follower's largest epoch at most the leader's differs: cut to where the follower's
   *       own epoch ends; the next fetch sends that epoch and is checked again.
   * </ul>
   */
  public static void onDivergingEpoch(
      Partition partition, FetchResponseData.EpochEndOffset diverging) {
    long logEnd = partition.log().logEndOffset();
    long target;
    if (diverging.endOffset() < 0 || diverging.epoch() < 0) {
      target = Math.min(partition.log().highWatermark(), logEnd);
    } else {
      EpochEndOffset local = partition.log().endOffsetForEpoch(diverging.epoch());
      if (local.endOffset() < 0) {
        target = Math.min(diverging.endOffset(), logEnd);
      } else if (local.epoch() != diverging.epoch()) {
        target = Math.min(local.endOffset(), logEnd);
      } else {
        target = Math.min(Math.min(diverging.endOffset(), local.endOffset()), logEnd);
      }
    }
    partition.truncateAsFollower(target);
  }

  /**
   * The leader has no data at the fetch offset: the follower is behind the leader's log start (it
   * starts over there) or, after an unclean election, ahead of the leader's log end (it keeps only
   * what the leader has committed).
   */
  public static void onOutOfRange(
      Partition partition, long fetchOffset, long leaderLogStartOffset, long leaderHighWatermark) {
    if (leaderLogStartOffset >= 0 && fetchOffset < leaderLogStartOffset) {
      partition.restartAsFollowerAt(leaderLogStartOffset);
    } else if (leaderHighWatermark >= 0 && fetchOffset > leaderHighWatermark) {
      partition.truncateAsFollower(leaderHighWatermark);
    }
  }
}
