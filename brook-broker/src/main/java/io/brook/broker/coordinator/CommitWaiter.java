package io.brook.broker.coordinator;

import io.brook.broker.delayed.DelayedOperation;
import io.brook.broker.replica.Partition;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.errors.NotCoordinatorException;
import org.apache.kafka.common.errors.TimeoutException;

/**
 * Waits until a coordinator write is committed: the partition's high watermark has passed it. With
 * an ISR of one that is immediate; with followers it waits for them.
 */
final class CommitWaiter extends DelayedOperation {
  private final Partition partition;
  private final int leaderEpoch;
  private final long requiredHighWatermark;
  private final CompletableFuture<Void> committed;

  CommitWaiter(
      Partition partition,
      int leaderEpoch,
      long requiredHighWatermark,
      CompletableFuture<Void> committed) {
    super(List.of(partition.topicPartition()));
    this.partition = partition;
    this.leaderEpoch = leaderEpoch;
    this.requiredHighWatermark = requiredHighWatermark;
    this.committed = committed;
  }

  private boolean leadershipLost() {
    return !partition.isLeader() || partition.state().leaderEpoch() != leaderEpoch;
  }

  @Override
  protected boolean isSatisfied() {
    return leadershipLost() || partition.log().highWatermark() >= requiredHighWatermark;
  }

  @Override
  protected void onComplete(boolean timedOut) {
    if (partition.log().highWatermark() >= requiredHighWatermark && !leadershipLost()) {
      committed.complete(null);
    } else if (leadershipLost()) {
      committed.completeExceptionally(
          new NotCoordinatorException(
              "lost leadership of " + partition.topicPartition() + " before the write committed"));
    } else {
      committed.completeExceptionally(
          new TimeoutException(
              "the write to " + partition.topicPartition() + " did not commit in time"));
    }
  }
}
