package io.brook.broker.coordinator;

import io.brook.broker.cluster.LeadershipLease;
import io.brook.broker.replica.Partition;
import io.brook.broker.replica.ReplicaManager;
import io.brook.coordinator.TxnResult;
import io.brook.coordinator.log.CoordinatorLog;
import io.brook.coordinator.log.CoordinatorLogReader;
import io.brook.coordinator.log.CoordinatorLogs;
import io.brook.storage.StorageException;
import io.brook.storage.log.LogAppendInfo;
import io.brook.storage.record.RecordLimits;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.NotCoordinatorException;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * The coordinators' logs over this broker's replicas: a coordinator partition's log is its {@link
 * Partition}'s, and a write commits once the partition's high watermark passes it.
 */
public final class ReplicaCoordinatorLogs implements CoordinatorLogs {
  private final ReplicaManager replicaManager;
  private final LeadershipLease lease;

  /** For a broker without a controller (tests): its leaderships are always current. */
  public ReplicaCoordinatorLogs(ReplicaManager replicaManager) {
    this(replicaManager, LeadershipLease.unconditional());
  }

  /**
   * @param lease whether this broker's leaderships are still its own ({@link #leadershipsCurrent})
   */
  public ReplicaCoordinatorLogs(ReplicaManager replicaManager, LeadershipLease lease) {
    this.replicaManager = replicaManager;
    this.lease = lease;
  }

  @Override
  public boolean leadershipsCurrent() {
    return lease.held();
  }

  @Override
  public OptionalInt leaderEpoch(TopicPartition partition) {
    return replicaManager
        .partition(partition)
        .filter(Partition::isLeader)
        .map(p -> OptionalInt.of(p.state().leaderEpoch()))
        .orElse(OptionalInt.empty());
  }

  @Override
  public CoordinatorLog open(TopicPartition partition, int leaderEpoch) {
    return new ReplicaLog(partition, leaderEpoch);
  }

  /** One partition in one leader epoch; every call checks this broker still leads it then. */
  private final class ReplicaLog implements CoordinatorLog {
    private final TopicPartition topicPartition;
    private final int leaderEpoch;

    ReplicaLog(TopicPartition topicPartition, int leaderEpoch) {
      this.topicPartition = topicPartition;
      this.leaderEpoch = leaderEpoch;
    }

    Partition partition() {
      Partition partition =
          replicaManager
              .partition(topicPartition)
              .orElseThrow(
                  () -> new NotCoordinatorException(topicPartition + " is not hosted here"));
      if (!partition.isLeader() || partition.state().leaderEpoch() != leaderEpoch) {
        throw new NotCoordinatorException("this broker no longer leads " + topicPartition);
      }
      return partition;
    }

    @Override
    public TopicPartition topicPartition() {
      return topicPartition;
    }

    @Override
    public int leaderEpoch() {
      return leaderEpoch;
    }

    @Override
    public long logStartOffset() {
      return partition().log().logStartOffset();
    }

    @Override
    public long logEndOffset() {
      return partition().log().logEndOffset();
    }

    @Override
    public long highWatermark() {
      return partition().log().highWatermark();
    }

    @Override
    public RecordLimits recordLimits() {
      // Read afresh each time, so a changed max.message.bytes applies to the next load.
      return partition().log().config().recordLimits();
    }

    @Override
    public CoordinatorLogReader read(
        long offset, long endOffset, int bufferBytes, RecordLimits limits) {
      // Each read checks this broker still leads the partition in the epoch.
      return new CoordinatorBatchReader(
          CoordinatorBatchReader.LogRead.copiedFrom(() -> partition().log()),
          offset,
          endOffset,
          bufferBytes,
          limits);
    }

    @Override
    public Appended append(List<? extends Entry> records, long timestampMs) {
      return append(CoordinatorBatches.toBatch(records, timestampMs), false);
    }

    @Override
    public Appended appendTransactional(
        List<? extends Entry> records, long timestampMs, long producerId, short producerEpoch) {
      // Kafka does not check sequences of coordinator appends; Brook's producer state checks them
      // as for a client (and takes a repeated sequence for a retry), so each transactional write
      // continues the producer's sequence: the shard is the partition's only writer.
      return append(
          CoordinatorBatches.toTransactionalBatch(
              records,
              timestampMs,
              producerId,
              producerEpoch,
              nextSequence(producerId, producerEpoch)),
          true);
    }

    @Override
    public Appended appendMarker(
        long timestampMs,
        long producerId,
        short producerEpoch,
        int coordinatorEpoch,
        TxnResult result) {
      return append(
          CoordinatorBatches.toMarker(
              timestampMs, producerId, producerEpoch, coordinatorEpoch, result),
          true);
    }

    /**
     * The sequence the log expects next from {@code producerId} at {@code producerEpoch}: 0 for a
     * producer it does not know at that epoch.
     */
    int nextSequence(long producerId, short producerEpoch) {
      return partition()
          .log()
          .producerEntry(producerId)
          .filter(entry -> entry.producerEpoch() == producerEpoch)
          .map(entry -> entry.lastSequence() == Integer.MAX_VALUE ? 0 : entry.lastSequence() + 1)
          .orElse(0);
    }

    /**
     * Appends one batch as leader, at once.
     *
     * @param asCoordinator whether to append with the coordinator's rights (transactional batches
     *     and control batches) rather than as an ordinary acks=all write
     */
    private Appended append(MemoryRecords records, boolean asCoordinator) {
      Partition partition = partition();
      LogAppendInfo info;
      try {
        info =
            asCoordinator
                ? partition.appendAsCoordinator(records)
                : partition.appendAsLeader(records, (short) -1);
      } catch (StorageException e) {
        throw e.error().kafkaError().exception(e.getMessage());
      }
      return new Appended(info.firstOffset(), info.lastOffset(), info.duplicate());
    }

    @Override
    public CompletableFuture<Void> awaitCommitted(long offset, long timeoutMs) {
      Partition partition = partition();
      CompletableFuture<Void> committed = new CompletableFuture<>();
      replicaManager
          .delayedOperations()
          .submit(new CommitWaiter(partition, leaderEpoch, offset, committed), timeoutMs);
      return committed;
    }
  }
}
