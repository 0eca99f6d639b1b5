package io.brook.storage.producer;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.record.internal.MutableRecordBatch;

/**
 * Drives a {@link ProducerStateManager} the way the partition log does: an in-memory list of
 * batches standing in for the segments, offsets assigned on append, replay after reload.
 */
final class FakeLog {
  final ProducerStateManager state;
  final List<MutableRecordBatch> batches = new ArrayList<>();
  long logStartOffset;
  long logEndOffset;

  FakeLog(ProducerStateManager state) {
    this.state = state;
  }

  /**
   * A leader append of client batches: validates all of them first; if one is a duplicate, returns
   * it and appends nothing; otherwise assigns offsets, records and commits.
   */
  Optional<BatchMetadata> appendFromClient(MutableRecordBatch... newBatches) {
    return appendFromClient(VerificationGuard.NOT_CHECKED, newBatches);
  }

  /** {@link #appendFromClient(MutableRecordBatch...)} carrying a transaction verification guard. */
  Optional<BatchMetadata> appendFromClient(
      VerificationGuard guard, MutableRecordBatch... newBatches) {
    ProducerStateManager.Append append = state.beginAppend(true, guard);
    for (MutableRecordBatch batch : newBatches) {
      Optional<BatchMetadata> duplicate = append.checkDuplicateOrValidate(batch);
      if (duplicate.isPresent()) {
        return duplicate;
      }
    }
    write(append, newBatches);
    return Optional.empty();
  }

  /** A coordinator's markers (WriteTxnMarkers) ending transactions of {@code txnVersion}. */
  void writeMarkers(short txnVersion, MutableRecordBatch... markers) {
    ProducerStateManager.Append append =
        state.beginAppend(true, VerificationGuard.NOT_CHECKED, txnVersion);
    for (MutableRecordBatch batch : markers) {
      if (append.checkDuplicateOrValidate(batch).isPresent()) {
        throw new AssertionError("a marker is never a duplicate here");
      }
    }
    write(append, markers);
  }

  /** A follower append: no checks, just tracking. */
  void replicate(MutableRecordBatch... newBatches) {
    ProducerStateManager.Append append = state.beginAppend(false);
    for (MutableRecordBatch batch : newBatches) {
      if (append.checkDuplicateOrValidate(batch).isPresent()) {
        throw new AssertionError("replication must not check for duplicates");
      }
    }
    write(append, newBatches);
  }

  private void write(ProducerStateManager.Append append, MutableRecordBatch[] newBatches) {
    for (MutableRecordBatch batch : newBatches) {
      TestBatches.at(batch, logEndOffset);
      logEndOffset = batch.nextOffset();
      batches.add(batch);
      append.record(batch);
    }
    append.commit();
  }

  /** Truncates the log to the start of batch {@code index} and reloads the producer state. */
  void truncateToBatch(int index) throws IOException {
    long newEnd = index < batches.size() ? batches.get(index).baseOffset() : logEndOffset;
    batches.subList(index, batches.size()).clear();
    logEndOffset = newEnd;
    reload();
  }

  /** What the log does at load: reconcile snapshots, then replay the tail. */
  void reload() throws IOException {
    state.truncateAndReload(logStartOffset, logEndOffset);
    ProducerStateManager.Append replay = state.beginAppend(false);
    for (MutableRecordBatch batch : batches) {
      if (batch.baseOffset() >= state.mapEndOffset()) {
        replay.record(batch);
      }
    }
    replay.commit();
    state.updateMapEndOffset(logEndOffset);
  }
}
