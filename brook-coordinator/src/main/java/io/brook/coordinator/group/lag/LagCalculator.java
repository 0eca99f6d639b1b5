package io.brook.coordinator.group.lag;

import io.brook.coordinator.group.offsets.CommittedOffset;
import io.brook.coordinator.log.PartitionEnds;
import java.time.Duration;
import java.util.Collection;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.kafka.common.TopicPartition;

/**
 * Turns a group's committed offsets into lag, from the partitions' ends and the batch headers its
 * {@link PartitionEnds} reads (this broker's logs, or what other leaders answered).
 *
 * <p>Data-loss forecast: records are produced at about {@code lagRecords / lagTime} (the records
 * between the group's position and the end span that much time) and consumed at the rate between
 * the group's last two commits. If consumption is slower, the age of the group's next record grows
 * at {@code 1 - consumed/produced} per unit of time and reaches {@code retention.ms} after {@code
 * (retention - age) / (1 - consumed/produced)}.
 */
public final class LagCalculator {
  private final PartitionEnds partitions;

  public LagCalculator(PartitionEnds partitions) {
    this.partitions = partitions;
  }

  /**
   * @param previous the commit before {@code committed}, for the consumption rate
   */
  public PartitionLag lag(
      TopicPartition tp,
      CommittedOffset committed,
      Optional<CommittedOffset> previous,
      long nowMs) {
    Optional<PartitionEnds.Ends> ends = partitions.leaderEnds(tp);
    if (ends.isEmpty()) {
      return new PartitionLag(
          tp, committed.offset(), -1, -1, Optional.empty(), 0, Optional.empty());
    }
    long end = ends.get().highWatermark();
    long start = ends.get().logStartOffset();
    long position = Math.max(committed.offset(), start);
    long lost = Math.max(0, start - committed.offset());
    long lagRecords = Math.max(0, end - position);
    if (lagRecords == 0) {
      return new PartitionLag(
          tp, committed.offset(), end, 0, Optional.of(Duration.ZERO), lost, Optional.empty());
    }
    OptionalLong timestamp = partitions.batchTimestamp(tp, position, end);
    Optional<Duration> lagTime =
        timestamp.isPresent()
            ? Optional.of(Duration.ofMillis(Math.max(0, nowMs - timestamp.getAsLong())))
            : Optional.empty();
    long retentionMs = ends.get().deleteRetentionMs();
    Optional<Duration> lossIn =
        lagTime.flatMap(
            age -> dataLossIn(retentionMs, age, lagRecords, committed, previous, nowMs));
    return new PartitionLag(tp, committed.offset(), end, lagRecords, lagTime, lost, lossIn);
  }

  /**
   * The totals of {@link #lag} over {@code positions}, in one pass that keeps no figure per
   * partition: each partition's ends are read, and a batch header only where the group lags (for
   * its lag in time, as {@link #lag} reads it).
   */
  public LagTotals totals(Collection<GroupPositions.Position> positions, long nowMs) {
    long lagRecords = 0;
    long maxLagMs = -1;
    for (GroupPositions.Position p : positions) {
      TopicPartition tp = p.topicPartition();
      Optional<PartitionEnds.Ends> ends = partitions.leaderEnds(tp);
      if (ends.isEmpty()) {
        continue;
      }
      long end = ends.get().highWatermark();
      long position = Math.max(p.committed().offset(), ends.get().logStartOffset());
      long lag = Math.max(0, end - position);
      if (lag == 0) {
        maxLagMs = Math.max(maxLagMs, 0);
        continue;
      }
      lagRecords += lag;
      OptionalLong timestamp = partitions.batchTimestamp(tp, position, end);
      if (timestamp.isPresent()) {
        maxLagMs = Math.max(maxLagMs, Math.max(0, nowMs - timestamp.getAsLong()));
      }
    }
    return new LagTotals(
        positions.size(),
        lagRecords,
        maxLagMs < 0 ? Optional.empty() : Optional.of(Duration.ofMillis(maxLagMs)));
  }

  /**
   * @param retentionMs the partition's retention by age, -1 when it does not delete by age
   */
  private static Optional<Duration> dataLossIn(
      long retentionMs,
      Duration age,
      long lagRecords,
      CommittedOffset committed,
      Optional<CommittedOffset> previous,
      long nowMs) {
    if (retentionMs < 0) {
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
