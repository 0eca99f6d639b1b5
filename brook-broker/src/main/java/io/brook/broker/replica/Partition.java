package io.brook.broker.replica;

import io.brook.storage.StorageException;
import io.brook.storage.log.LogAppendInfo;
import io.brook.storage.log.PartitionLog;
import java.io.IOException;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.FencedLeaderEpochException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.UnknownLeaderEpochException;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One partition hosted by this broker: its log, its leadership as the metadata last said, and the
 * high watermark it maintains as leader.
 *
 * <p>The high watermark is the smallest log end offset among the in-sync replicas. On a leader with
 * followers it advances as their fetches report progress; with an ISR of one it follows the
 * leader's own appends.
 */
public final class Partition {
  private static final Logger log = LoggerFactory.getLogger(Partition.class);

  private final TopicPartition topicPartition;
  private final Uuid topicId;
  private final int localBrokerId;
  private final PartitionLog partitionLog;
  private final Map<Integer, Long> followerEndOffsets = new ConcurrentHashMap<>();
  private final HighWatermarkListener listener;
  private volatile PartitionState state;

  /** Told when a partition's high watermark or log end moves, to complete waiting operations. */
  public interface HighWatermarkListener {
    void onProgress(TopicPartition topicPartition);
  }

  public Partition(
      TopicPartition topicPartition,
      Uuid topicId,
      int localBrokerId,
      PartitionLog partitionLog,
      PartitionState state,
      HighWatermarkListener listener) {
    this.topicPartition = topicPartition;
    this.topicId = topicId;
    this.localBrokerId = localBrokerId;
    this.partitionLog = partitionLog;
    this.listener = listener;
    this.state = state;
  }

  public TopicPartition topicPartition() {
    return topicPartition;
  }

  public Uuid topicId() {
    return topicId;
  }

  public PartitionLog log() {
    return partitionLog;
  }

  public PartitionState state() {
    return state;
  }

  public boolean isLeader() {
    return state.leader() == localBrokerId;
  }

  /**
   * Applies the partition's latest metadata. Becoming leader in a new epoch records where the epoch
   * starts, so OffsetForLeaderEpoch answers correctly before the first append.
   */
  public void applyState(PartitionState newState) {
    PartitionState old = state;
    state = newState;
    if (newState.leader() == localBrokerId
        && (old.leader() != localBrokerId || old.leaderEpoch() != newState.leaderEpoch())) {
      try {
        if (partitionLog.leaderEpochCache().latestEpoch().orElse(-1) < newState.leaderEpoch()) {
          partitionLog
              .leaderEpochCache()
              .assign(newState.leaderEpoch(), partitionLog.logEndOffset());
        }
      } catch (IOException e) {
        log.error("Recording the leader epoch failed topicPartition={}", topicPartition, e);
      }
      followerEndOffsets.clear();
      log.info(
          "Became leader topicPartition={} leaderEpoch={} isr={}",
          topicPartition,
          newState.leaderEpoch(),
          newState.isr());
      maybeIncrementHighWatermark();
    }
  }

  /**
   * Checks a client's view of the leader epoch (KIP-320): an older epoch is fenced, a newer one
   * means this broker has not caught up with the metadata yet.
   */
  public void checkLeaderEpoch(Optional<Integer> currentLeaderEpoch) {
    if (currentLeaderEpoch.isEmpty() || currentLeaderEpoch.get() < 0) {
      return;
    }
    int epoch = state.leaderEpoch();
    if (currentLeaderEpoch.get() < epoch) {
      throw new FencedLeaderEpochException(
          "leader epoch " + currentLeaderEpoch.get() + " is older than " + epoch);
    }
    if (currentLeaderEpoch.get() > epoch) {
      throw new UnknownLeaderEpochException(
          "leader epoch " + currentLeaderEpoch.get() + " is newer than " + epoch);
    }
  }

  public void ensureLeader() {
    if (!isLeader()) {
      throw new NotLeaderOrFollowerException(
          "broker " + localBrokerId + " is not the leader of " + topicPartition);
    }
  }

  /**
   * Appends a producer's batch as leader. With acks=all the ISR must hold at least {@code
   * min.insync.replicas} replicas, or the write is refused before it touches the log.
   *
   * @throws StorageException for invalid batches or a failed disk
   */
  public LogAppendInfo appendAsLeader(MemoryRecords records, short acks) {
    PartitionState current = state;
    ensureLeader();
    int minIsr = partitionLog.config().minInSyncReplicas();
    if (acks == -1 && current.isr().size() < minIsr) {
      throw new NotEnoughReplicasException(
          "the ISR of "
              + topicPartition
              + " has "
              + current.isr().size()
              + " replicas, fewer than min.insync.replicas="
              + minIsr);
    }
    LogAppendInfo info = partitionLog.appendAsLeader(records, current.leaderEpoch());
    maybeIncrementHighWatermark();
    return info;
  }

  /** A follower's fetch reported its log end offset. */
  public void updateFollowerEndOffset(int replicaId, long logEndOffset) {
    followerEndOffsets.put(replicaId, logEndOffset);
    maybeIncrementHighWatermark();
  }

  /** Moves the high watermark to the smallest log end offset among the in-sync replicas. */
  public void maybeIncrementHighWatermark() {
    PartitionState current = state;
    if (current.leader() != localBrokerId) {
      return;
    }
    long candidate = partitionLog.logEndOffset();
    for (int replica : current.isr()) {
      if (replica != localBrokerId) {
        candidate = Math.min(candidate, followerEndOffsets.getOrDefault(replica, 0L));
      }
    }
    if (candidate > partitionLog.highWatermark()) {
      partitionLog.updateHighWatermark(candidate);
    }
    listener.onProgress(topicPartition);
  }

  @Override
  public String toString() {
    return "Partition(" + topicPartition + ", " + state + ")";
  }
}
