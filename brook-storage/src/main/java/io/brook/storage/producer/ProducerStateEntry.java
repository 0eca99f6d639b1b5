package io.brook.storage.producer;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What a partition remembers about one producer id: its epoch, the sequence ranges and offsets of
 * its last {@link ProducerStateManager#MAX_BATCHES_PER_PRODUCER} batches (to answer retries), its
 * open transaction and the coordinator epoch of its last transaction marker.
 *
 * <p>Immutable: the manager replaces the whole entry on every change, so readers on any thread see
 * a consistent view.
 */
public final class ProducerStateEntry {
  /** {@link #coordinatorEpoch()} before any transaction marker was seen. */
  public static final int NO_COORDINATOR_EPOCH = -1;

  /** {@code currentTxnFirstOffset} stored when no transaction is open. */
  static final long NO_TXN = -1L;

  private final long producerId;
  private final short producerEpoch;
  private final List<BatchMetadata> batches;
  private final long lastTimestamp;
  private final long currentTxnFirstOffset;
  private final int coordinatorEpoch;

  ProducerStateEntry(
      long producerId,
      short producerEpoch,
      List<BatchMetadata> batches,
      long lastTimestamp,
      long currentTxnFirstOffset,
      int coordinatorEpoch) {
    if (batches.size() > ProducerStateManager.MAX_BATCHES_PER_PRODUCER) {
      throw new IllegalArgumentException(
          "at most "
              + ProducerStateManager.MAX_BATCHES_PER_PRODUCER
              + " batches per producer, got "
              + batches.size());
    }
    this.producerId = producerId;
    this.producerEpoch = producerEpoch;
    this.batches = List.copyOf(batches);
    this.lastTimestamp = lastTimestamp;
    this.currentTxnFirstOffset = currentTxnFirstOffset;
    this.coordinatorEpoch = coordinatorEpoch;
  }

  public long producerId() {
    return producerId;
  }

  public short producerEpoch() {
    return producerEpoch;
  }

  /** The last batches of the current epoch, oldest first, at most five. */
  public List<BatchMetadata> batches() {
    return batches;
  }

  /** The last sequence of the newest batch, or -1 if no batch of this epoch is known. */
  public int lastSequence() {
    return batches.isEmpty() ? -1 : batches.get(batches.size() - 1).lastSeq();
  }

  /** The max timestamp of the producer's newest batch or marker; drives expiration. */
  public long lastTimestamp() {
    return lastTimestamp;
  }

  /** The offset of the first batch of the producer's open transaction, if one is open. */
  public OptionalLong currentTxnFirstOffset() {
    return currentTxnFirstOffset == NO_TXN
        ? OptionalLong.empty()
        : OptionalLong.of(currentTxnFirstOffset);
  }

  /** The coordinator epoch of the last transaction marker, or {@value #NO_COORDINATOR_EPOCH}. */
  public int coordinatorEpoch() {
    return coordinatorEpoch;
  }

  /** The cached batch with exactly this sequence range, if {@code epoch} is the current epoch. */
  Optional<BatchMetadata> findDuplicate(short epoch, int firstSeq, int lastSeq) {
    if (epoch != producerEpoch) {
      return Optional.empty();
    }
    for (BatchMetadata batch : batches) {
      if (batch.firstSeq() == firstSeq && batch.lastSeq() == lastSeq) {
        return Optional.of(batch);
      }
    }
    return Optional.empty();
  }

  long currentTxnFirstOffsetOrNone() {
    return currentTxnFirstOffset;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ProducerStateEntry other
        && producerId == other.producerId
        && producerEpoch == other.producerEpoch
        && lastTimestamp == other.lastTimestamp
        && currentTxnFirstOffset == other.currentTxnFirstOffset
        && coordinatorEpoch == other.coordinatorEpoch
        && batches.equals(other.batches);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        producerId, producerEpoch, batches, lastTimestamp, currentTxnFirstOffset, coordinatorEpoch);
  }

  @Override
  public String toString() {
    return "ProducerStateEntry(producerId="
        + producerId
        + ", epoch="
        + producerEpoch
        + ", batches="
        + batches
        + ", lastTimestamp="
        + lastTimestamp
        + ", currentTxnFirstOffset="
        + currentTxnFirstOffset
        + ", coordinatorEpoch="
        + coordinatorEpoch
        + ")";
  }
}
