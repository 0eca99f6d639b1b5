package io.brook.broker.replica.fetcher;

import io.brook.storage.log.PartitionLog;
import java.io.IOException;

/**
 * How a follower of a tiered partition starts at the leader's local log start when the leader
 * answers OFFSET_MOVED_TO_TIERED_STORAGE: the broker's remote log manager rebuilds the log's start
 * state (leader epochs, producers) from remote storage. Runs on the fetcher thread.
 */
@FunctionalInterface
public interface TieredFollowerStart {
  /** Without tiered storage on this broker: start empty at the offset, as for any lagging log. */
  TieredFollowerStart EMPTY = PartitionLog::truncateFullyAndStartAt;

  /** Empties {@code log} and starts it at {@code leaderLocalStart}. */
  void startAt(PartitionLog log, long leaderLocalStart) throws IOException;
}
