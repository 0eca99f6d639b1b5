package io.brook.coordinator.log;

import io.brook.coordinator.TxnResult;
import io.brook.storage.record.RecordLimits;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;

/**
 * One partition of a coordinator topic as its shard sees it, while this broker leads it in one
 * leader epoch. Every call fails with NOT_COORDINATOR ({@link
 * org.apache.kafka.common.errors.NotCoordinatorException}) once this broker no longer leads the
 * partition in that epoch, so a shard never writes into a log another leader owns.
 *
 * <p>The broker implements it over its replicas and builds and reads the record batches; the
 * coordinators hand it keys and values and read keys and values back, and never see the partition's
 * log or its batch format.
 */
public interface CoordinatorLog {
  /** The producer id of records written outside a transaction (Kafka's {@code -1}). */
  long NO_PRODUCER_ID = -1L;

  /** The producer epoch of records written outside a transaction (Kafka's {@code -1}). */
  short NO_PRODUCER_EPOCH = -1;

  /** One record to append, read during the call and not kept. */
  interface Entry {
    /** The Kafka record key. */
    ByteBuffer recordKey();

    /** The Kafka record value, or null for a tombstone. */
    ByteBuffer recordValue();
  }

  /**
   * Where an append landed.
   *
   * @param duplicate the log took the batch for a retry of an earlier one and wrote nothing
   */
  record Appended(long firstOffset, long lastOffset, boolean duplicate) {}

  TopicPartition topicPartition();

  /** The leader epoch this view was opened in. */
  int leaderEpoch();

  long logStartOffset();

  long logEndOffset();

  long highWatermark();

  /** The bounds the partition's appends are validated against, for reading its batches back. */
  RecordLimits recordLimits();

  /**
   * A forward-only reader of the batches from {@code offset} on, below {@code endOffset}: it reads
   * about {@code bufferBytes} of the log at a time (a larger batch is still read whole), and reads
   * records within {@code limits} without trusting their lengths.
   */
  CoordinatorLogReader read(long offset, long endOffset, int bufferBytes, RecordLimits limits);

  /**
   * Appends {@code records} as one batch stamped {@code timestampMs}, as leader, at once, as an
   * ordinary acks=all write.
   *
   * @throws org.apache.kafka.common.errors.ApiException the Kafka error the log refused it with
   */
  Appended append(List<? extends Entry> records, long timestampMs);

  /**
   * Appends {@code records} as one transactional batch of {@code producerId} at {@code
   * producerEpoch}, with the coordinator's rights, continuing the producer's sequence in this
   * partition (the coordinator is the partition's only writer, so nothing interleaves).
   *
   * @throws org.apache.kafka.common.errors.ApiException the Kafka error the log refused it with
   *     (INVALID_PRODUCER_EPOCH for a fenced producer)
   */
  Appended appendTransactional(
      List<? extends Entry> records, long timestampMs, long producerId, short producerEpoch);

  /**
   * Appends the control batch of {@code producerId}'s COMMIT or ABORT marker, with the
   * coordinator's rights.
   *
   * @throws org.apache.kafka.common.errors.ApiException the Kafka error the log refused it with
   */
  Appended appendMarker(
      long timestampMs,
      long producerId,
      short producerEpoch,
      int coordinatorEpoch,
      TxnResult result);

  /**
   * Completes once the high watermark reaches {@code offset} (acks=all: every in-sync replica has
   * the records below it); fails with NOT_COORDINATOR if leadership is lost first and with a
   * timeout after {@code timeoutMs}.
   */
  CompletableFuture<Void> awaitCommitted(long offset, long timeoutMs);
}
