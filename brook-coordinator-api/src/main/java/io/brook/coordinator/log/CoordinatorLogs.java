package io.brook.coordinator.log;

import java.util.OptionalInt;
import org.apache.kafka.common.TopicPartition;

/** The partitions of coordinator topics this broker leads: what a coordinator runtime follows. */
public interface CoordinatorLogs {
  /** The leader epoch of {@code partition} if this broker leads it now. */
  OptionalInt leaderEpoch(TopicPartition partition);

  /**
   * The log of {@code partition} for as long as this broker leads it in {@code leaderEpoch}; its
   * calls fail with NOT_COORDINATOR when it does not (or no longer) lead it in that epoch.
   */
  CoordinatorLog open(TopicPartition partition, int leaderEpoch);

  /**
   * Whether this broker may still act on the leaderships its metadata shows. False while it cannot
   * rule out that the controller fenced it and moved them elsewhere without its knowing (its
   * heartbeats went unanswered for a session timeout, as after a long pause): a coordinator then
   * answers NOT_COORDINATOR rather than from state another broker may have moved past.
   */
  default boolean leadershipsCurrent() {
    return true;
  }
}
