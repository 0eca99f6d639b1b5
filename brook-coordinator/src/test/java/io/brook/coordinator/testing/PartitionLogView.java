package io.brook.coordinator.testing;

import io.brook.broker.coordinator.CoordinatorBatchReader;
import io.brook.coordinator.TxnResult;
import io.brook.coordinator.log.CoordinatorLog;
import io.brook.coordinator.log.CoordinatorLogReader;
import io.brook.storage.log.PartitionLog;
import io.brook.storage.record.RecordLimits;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;

/**
 * The read side of a {@link CoordinatorLog} over a bare {@link PartitionLog}, for loading tests
 * that write the log themselves (records no coordinator would write); writes go through a broker.
 */
public final class PartitionLogView implements CoordinatorLog {
  private final PartitionLog log;

  public PartitionLogView(PartitionLog log) {
    this.log = log;
  }

  @Override
  public TopicPartition topicPartition() {
    return log.topicPartition();
  }

  @Override
  public int leaderEpoch() {
    return 0;
  }

  @Override
  public long logStartOffset() {
    return log.logStartOffset();
  }

  @Override
  public long logEndOffset() {
    return log.logEndOffset();
  }

  @Override
  public long highWatermark() {
    return log.highWatermark();
  }

  @Override
  public RecordLimits recordLimits() {
    return log.config().recordLimits();
  }

  @Override
  public CoordinatorLogReader read(
      long offset, long endOffset, int bufferBytes, RecordLimits limits) {
    return new CoordinatorBatchReader(
        CoordinatorBatchReader.LogRead.copiedFrom(() -> log),
        offset,
        endOffset,
        bufferBytes,
        limits);
  }

  @Override
  public Appended append(List<? extends Entry> records, long timestampMs) {
    throw new UnsupportedOperationException("a read-only view");
  }

  @Override
  public Appended appendTransactional(
      List<? extends Entry> records, long timestampMs, long producerId, short producerEpoch) {
    throw new UnsupportedOperationException("a read-only view");
  }

  @Override
  public Appended appendMarker(
      long timestampMs,
      long producerId,
      short producerEpoch,
      int coordinatorEpoch,
      TxnResult result) {
    throw new UnsupportedOperationException("a read-only view");
  }

  @Override
  public CompletableFuture<Void> awaitCommitted(long offset, long timeoutMs) {
    throw new UnsupportedOperationException("a read-only view");
  }
}
