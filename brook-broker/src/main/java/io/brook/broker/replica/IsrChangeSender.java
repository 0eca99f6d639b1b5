package io.brook.broker.replica;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;

/**
 * Where a leader sends the ISR changes it wants (Kafka's AlterPartition): to the active controller,
 * which checks them against the partition epoch and commits them to the metadata log.
 */
public interface IsrChangeSender {
  /** A member of a proposed ISR, with the broker epoch it fetched with (-1 when unknown). */
  record Member(int brokerId, long brokerEpoch) {}

  /**
   * Proposes {@code newIsr} for a partition whose state the leader knows at {@code leaderEpoch} and
   * {@code partitionEpoch}.
   *
   * @return the partition's state once committed; fails with the controller's error (a Kafka {@link
   *     org.apache.kafka.common.errors.ApiException}) when refused
   */
  CompletableFuture<PartitionState> alterIsr(
      Uuid topicId, int partition, int leaderEpoch, int partitionEpoch, List<Member> newIsr);

  /** For a node that never has followers (a single broker): every change is refused. */
  IsrChangeSender NONE =
      (topicId, partition, leaderEpoch, partitionEpoch, newIsr) ->
          CompletableFuture.failedFuture(
              new UnsupportedOperationException("this node has no controller to send ISR changes"));
}
