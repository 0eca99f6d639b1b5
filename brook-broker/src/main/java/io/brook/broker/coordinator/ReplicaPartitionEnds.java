package io.brook.broker.coordinator;

import io.brook.broker.replica.Partition;
import io.brook.broker.replica.ReplicaManager;
import io.brook.coordinator.log.PartitionEnds;
import io.brook.storage.log.LogConfig;
import io.brook.storage.log.LogReadResult;
import io.brook.storage.log.ReplicaLog;
import io.brook.storage.segment.FileSlice;
import java.io.IOException;
import java.util.Iterator;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.record.internal.FileLogInputStream.FileChannelRecordBatch;

/** The group lag view's reads of the partitions this broker leads, from its replicas. */
public final class ReplicaPartitionEnds implements PartitionEnds {
  private final ReplicaManager replicaManager;

  public ReplicaPartitionEnds(ReplicaManager replicaManager) {
    this.replicaManager = replicaManager;
  }

  @Override
  public Optional<Ends> leaderEnds(TopicPartition tp) {
    return leaderLog(tp)
        .map(
            log ->
                new Ends(
                    log.logStartOffset(), log.highWatermark(), deleteRetentionMs(log.config())));
  }

  /** {@code retention.ms} when {@code config} deletes by age, -1 otherwise ({@link Ends}). */
  public static long deleteRetentionMs(LogConfig config) {
    boolean deletes =
        config.cleanupPolicy().contains(TopicConfig.CLEANUP_POLICY_DELETE)
            && config.retentionMs() >= 0;
    return deletes ? config.retentionMs() : -1;
  }

  @Override
  public OptionalLong batchTimestamp(TopicPartition tp, long offset, long maxOffset) {
    Optional<ReplicaLog> log = leaderLog(tp);
    if (log.isEmpty()) {
      return OptionalLong.empty();
    }
    try {
      LogReadResult read = log.get().read(offset, 1, maxOffset, true);
      FileSlice slice = read.slice();
      if (slice.sizeInBytes() == 0) {
        return OptionalLong.empty();
      }
      slice.pin();
      try {
        Iterator<FileChannelRecordBatch> batches =
            slice.records().slice(slice.position(), slice.sizeInBytes()).batches().iterator();
        return batches.hasNext()
            ? OptionalLong.of(batches.next().maxTimestamp())
            : OptionalLong.empty();
      } finally {
        slice.unpin();
      }
    } catch (IOException | RuntimeException e) {
      // The segment may have been deleted by retention meanwhile: no figure this time.
      return OptionalLong.empty();
    }
  }

  private Optional<ReplicaLog> leaderLog(TopicPartition tp) {
    return replicaManager.partition(tp).filter(Partition::isLeader).map(Partition::log);
  }
}
