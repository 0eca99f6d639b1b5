package io.brook.storage.log;

import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * What the idempotence and transaction layers need to know about one stored batch, read from its
 * header after offsets were assigned.
 */
public record AppendedBatch(
    long producerId,
    short producerEpoch,
    int baseSequence,
    int lastSequence,
    long baseOffset,
    long lastOffset,
    boolean transactional,
    boolean control) {

  static AppendedBatch of(RecordBatch batch) {
    return new AppendedBatch(
        batch.producerId(),
        batch.producerEpoch(),
        batch.baseSequence(),
        batch.lastSequence(),
        batch.baseOffset(),
        batch.lastOffset(),
        batch.isTransactional(),
        batch.isControlBatch());
  }

  public boolean hasProducerId() {
    return producerId != RecordBatch.NO_PRODUCER_ID;
  }
}
