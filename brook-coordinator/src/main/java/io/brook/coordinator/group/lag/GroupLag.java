package io.brook.coordinator.group.lag;

import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * A group's lag, the health figure operators alert on: per partition, and summed up.
 *
 * @param partitions one entry per partition the group has committed offsets for
 */
public record GroupLag(String groupId, List<PartitionLag> partitions) {
  public GroupLag {
    partitions = List.copyOf(partitions);
  }

  /** Records behind over the partitions measured (one whose leader did not answer has no lag). */
  public long totalLagRecords() {
    return partitions.stream()
        .filter(p -> p.logEndOffset() >= 0)
        .mapToLong(PartitionLag::lagRecords)
        .sum();
  }

  /** The largest lag in time over the partitions measured. */
  public Optional<Duration> maxLagTime() {
    return partitions.stream()
        .map(PartitionLag::lagTime)
        .flatMap(Optional::stream)
        .max(Comparator.naturalOrder());
  }

  /** The soonest any partition loses unread records to retention, if any will. */
  public Optional<Duration> dataLossIn() {
    return partitions.stream()
        .map(PartitionLag::dataLossIn)
        .flatMap(Optional::stream)
        .min(Comparator.naturalOrder());
  }
}
