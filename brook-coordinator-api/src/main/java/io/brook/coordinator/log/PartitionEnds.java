package io.brook.coordinator.log;

import java.util.Optional;
import java.util.OptionalLong;
import org.apache.kafka.common.TopicPartition;

/**
 * What the group lag view reads of a data partition: its offsets, the age of a batch and its
 * retention. Nothing else of the log.
 */
public interface PartitionEnds {
  /**
   * A partition's ends and retention.
   *
   * @param deleteRetentionMs {@code retention.ms} when the partition deletes by age, -1 when it
   *     keeps records forever or only compacts
   */
  record Ends(long logStartOffset, long highWatermark, long deleteRetentionMs) {}

  /** The ends of {@code partition} if this broker leads it. */
  Optional<Ends> leaderEnds(TopicPartition partition);

  /**
   * The newest timestamp of the batch holding {@code offset}, below {@code maxOffset}, read from
   * its header only; empty when there is none (retention may have deleted it meanwhile).
   */
  OptionalLong batchTimestamp(TopicPartition partition, long offset, long maxOffset);

  /**
   * This view for the partitions it knows ({@link #leaderEnds} present), {@code others} for the
   * rest: the broker's own partitions read locally, those led elsewhere as their leaders answered.
   */
  default PartitionEnds orElse(PartitionEnds others) {
    PartitionEnds first = this;
    return new PartitionEnds() {
      @Override
      public Optional<Ends> leaderEnds(TopicPartition partition) {
        return first.leaderEnds(partition).or(() -> others.leaderEnds(partition));
      }

      @Override
      public OptionalLong batchTimestamp(TopicPartition partition, long offset, long maxOffset) {
        return first.leaderEnds(partition).isPresent()
            ? first.batchTimestamp(partition, offset, maxOffset)
            : others.batchTimestamp(partition, offset, maxOffset);
      }
    };
  }
}
