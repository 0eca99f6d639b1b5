package io.brook.coordinator.group.lag;

import io.brook.broker.replica.Partition;
import io.brook.broker.replica.ReplicaManager;
import io.brook.coordinator.group.offsets.CommittedOffset;
import io.brook.storage.log.LogReadResult;
import io.brook.storage.log.ReplicaLog;
import io.brook.storage.segment.FileSlice;
import java.io.IOException;
import java.time.Duration;
import java.util.Iterator;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.record.internal.FileLogInputStream.FileChannelRecordBatch;

/**
 * Turns a group's committed offsets into lag, reading only batch headers of the partitions this
 * broker leads.
 *
 * <p>Data-loss forecast: records are produced at about {@code lagRecords / lagTime} (the records
 * between the group's position and the end span that much time) and consumed at the rate between
 * the group's last two commits. If consumption is slower, the age of the group's next record grows
 * at {@code 1 - consumed/produced} per unit of time and reaches {@code retention.ms} after {@code
 * (retention - age) / (1 - consumed/produced)}.
 */
public final class LagCalculator {
  private final ReplicaManager replicaManager;

  public LagCalculator(ReplicaManager replicaManager) {
    this.replicaManager = replicaManager;
  }

  /**
   * @param previous the commit before {@code committed}, for the consumption rate
   */
  public PartitionLag lag(
      TopicPartition tp,
      CommittedOffset committed,
      Optional<CommittedOffset> previous,
      long nowMs) {
    Optional<Partition> partition = replicaManager.partition(tp).filter(Partition::isLeader);
    if (partition.isEmpty()) {
      return new PartitionLag(
          tp, committed.offset(), -1, -1, Optional.empty(), 0, Optional.empty());
    }
    ReplicaLog log = partition.get().log();
    long end = log.highWatermark();
    long start = log.logStartOffset();
    long position = Math.max(committed.offset(), start);
    long lost = Math.max(0, start - committed.offset());
    long lagRecords = Math.max(0, end - position);
    if (lagRecords == 0) {
      return new PartitionLag(
          tp, committed.offset(), end, 0, Optional.of(Duration.ZERO), lost, Optional.empty());
    }
    OptionalLong timestamp = timestampAt(log, position, end);
    Optional<Duration> lagTime =
        timestamp.isPresent()
            ? Optional.of(Duration.ofMillis(Math.max(0, nowMs - timestamp.getAsLong())))
            : Optional.empty();
    Optional<Duration> lossIn =
        lagTime.flatMap(age -> dataLossIn(log, age, lagRecords, committed, previous, nowMs));
    return new PartitionLag(tp, committed.offset(), end, lagRecords, lagTime, lost, lossIn);
  }

  /** The newest timestamp in the batch holding {@code offset}, read from its header only. */
  private static OptionalLong timestampAt(ReplicaLog log, long offset, long end) {
    try {
      LogReadResult read = log.read(offset, 1, end, true);
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

  private static Optional<Duration> dataLossIn(
      ReplicaLog log,
      Duration age,
      long lagRecords,
      CommittedOffset committed,
      Optional<CommittedOffset> previous,
      long nowMs) {
    long retentionMs = log.config().retentionMs();
    if (retentionMs < 0
        || !log.config().cleanupPolicy().contains(TopicConfig.CLEANUP_POLICY_DELETE)) {
      return Optional.empty();
    }
    long ageMs = Math.max(1, age.toMillis());
    double produced = (double) lagRecords / ageMs;
    double consumed = 0;
    if (previous.isPresent()) {
      long elapsed = Math.max(1, nowMs - previous.get().commitTimestampMs());
      consumed = Math.max(0, committed.offset() - previous.get().offset()) / (double) elapsed;
    }
    if (consumed >= produced) {
      return Optional.empty();
    }
    double remainingMs = Math.max(0, retentionMs - ageMs) / (1 - consumed / produced);
    return Optional.of(Duration.ofMillis((long) Math.min(remainingMs, Long.MAX_VALUE / 2.0)));
  }
}
