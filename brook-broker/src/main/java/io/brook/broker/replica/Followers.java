package io.brook.broker.replica;

import org.apache.kafka.common.TopicPartition;

/** The follower side of replication: fetching partitions from their leaders. */
public interface Followers {
  /** Fetches {@code partition} from the leader its state names (again, if that changed). */
  void follow(Partition partition);

  /** Stops fetching {@code tp}. */
  void unfollow(TopicPartition tp);

  /** For a node that never follows (a single broker). */
  Followers NONE =
      new Followers() {
        @Override
        public void follow(Partition partition) {}

        @Override
        public void unfollow(TopicPartition tp) {}
      };
}
