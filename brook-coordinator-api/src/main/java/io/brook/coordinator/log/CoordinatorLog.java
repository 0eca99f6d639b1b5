package io.brook.coordinator.log;

import io.brook.storage.record.RecordLimits;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * One partition of a coordinator topic as its shard sees it, while this broker leads it in one
 * leader epoch. Every call fails with NOT_COORDINATOR ({@link
 * org.apache.kafka.common.errors.NotCoordinatorException}) once this broker no longer leads the
 * partition in that epoch, so a shard never writes into a log another leader owns.
 *
 * <p>The broker implements it over its replicas; the coordinators never see the partition's log.
 */
public interface CoordinatorLog {
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
   * Reads whole batches from {@code offset} on, below {@code maxOffset}, up to about {@code
   * maxBytes} (a larger first batch is still read whole), copied to the heap: loading parses them.
   */
  MemoryRecords read(long offset, int maxBytes, long maxOffset);

  /**
   * The sequence the log expects next from {@code producerId} at {@code producerEpoch}: 0 for a
   * producer it does not know at that epoch.
   */
  int nextSequence(long producerId, short producerEpoch);

  /**
   * Appends one batch as leader, at once.
   *
   * @param asCoordinator whether to append with the coordinator's rights (transactional batches and
   *     control batches) rather than as an ordinary acks=all write
   * @throws org.apache.kafka.common.errors.ApiException the Kafka error the log refused it with
   */
  Appended append(MemoryRecords records, boolean asCoordinator);

  /**
   * Completes once the high watermark reaches {@code offset} (acks=all: every in-sync replica has
   * the records below it); fails with NOT_COORDINATOR if leadership is lost first and with a
   * timeout after {@code timeoutMs}.
   */
  CompletableFuture<Void> awaitCommitted(long offset, long timeoutMs);
}
