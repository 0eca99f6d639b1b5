package io.brook.broker.replica;

import org.apache.kafka.common.TopicPartition;

/** The follower side of replication: fetching partitions from their leaders. */
public interface Followers {
  /** Fetches {@code partition} from the leader its state names (again, if that changed). */
  void follow(Partition partition);

  /** Stops fetching {@code tp}. */
  void unfollow(TopicPartition tp);

  /**
   * Called once a whole metadata image was applied: what its {@link #follow} calls asked for at
   * once (a leader change cutting short the fetch in flight) may happen now, once per fetcher
   * rather than once per partition.
   */
  default void imageApplied() {}

  /** For a node that never follows (a single broker). */
  Followers NONE =
      new Followers() {
        @Override
        public void follow(Partition partition) {}

        @Override
        public void unfollow(TopicPartition tp) {}
      };
}
