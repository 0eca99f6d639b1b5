package io.brook.coordinator.group.lag;

import java.time.Duration;
import java.util.Optional;

/**
 * A group's lag summed up over many partitions, as {@link GroupLag#totalLagRecords} and {@link
 * GroupLag#maxLagTime} give it, without a {@link PartitionLag} kept for each partition: what a page
 * showing a few of a group's partitions, and the totals over all of them, needs.
 *
 * @param partitions the partitions counted
 * @param lagRecords records behind, over the partitions whose ends were read
 * @param maxLagTime the largest lag in time over the partitions measured; empty when none was
 */
public record LagTotals(int partitions, long lagRecords, Optional<Duration> maxLagTime) {}
