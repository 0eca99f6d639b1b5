package io.brook.coordinator.group.lag;

import io.brook.coordinator.group.offsets.CommittedOffset;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;

/**
 * A copy of a group's committed positions, taken on its shard's thread so that its lag can be
 * computed on another (reading the partitions' batch headers stays off the coordinator threads).
 *
 * @param positions one per partition the group has committed an offset for
 */
public record GroupPositions(String groupId, List<Position> positions) {
  public GroupPositions {
    positions = List.copyOf(positions);
  }

  /**
   * @param previous the commit before {@code committed}, for the consumption rate
   */
  public record Position(
      TopicPartition topicPartition,
      CommittedOffset committed,
      Optional<CommittedOffset> previous) {}
}
