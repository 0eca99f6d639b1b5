package io.brook.coordinator.group.lag;

import java.time.Duration;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;

/**
 * How far a group is behind in one partition.
 *
 * @param committedOffset the group's committed offset (the next record it will read)
 * @param logEndOffset the partition's high watermark: the end of what consumers may read
 * @param lagRecords records between the two; 0 when caught up
 * @param lagTime age of the oldest record the group has not consumed (the newest timestamp of the
 *     batch holding the committed offset, so up to one batch's linger younger than exact); zero
 *     when caught up; empty when it could not be read (the partition's leader did not answer)
 * @param recordsLost records the group never read because retention already deleted them (its
 *     committed offset is below the log start offset)
 * @param dataLossIn when retention will delete records the group has not read yet, at the current
 *     production and consumption rates; empty when it never will at those rates
 */
public record PartitionLag(
    TopicPartition topicPartition,
    long committedOffset,
    long logEndOffset,
    long lagRecords,
    Optional<Duration> lagTime,
    long recordsLost,
    Optional<Duration> dataLossIn) {}
