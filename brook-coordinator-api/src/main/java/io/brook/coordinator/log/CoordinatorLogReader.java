package io.brook.coordinator.log;

import io.brook.coordinator.TxnResult;
import java.nio.ByteBuffer;
import java.util.Optional;

/**
 * A forward-only cursor over a coordinator partition's batches and, within a data batch, its
 * records ({@link CoordinatorLog#read}). It holds at most one read buffer of the log at a time and
 * reads records in place, or through a bounded decompression stream, trusting none of their
 * lengths.
 *
 * <p>Use: {@link #nextBatch()}; for a control batch {@link #marker()}, for a data batch {@link
 * #nextRecord()} until it returns false (or throws, after which the rest of the batch is skipped by
 * the next {@link #nextBatch()}). Not thread-safe.
 */
public interface CoordinatorLogReader extends AutoCloseable {
  /**
   * Moves to the next whole batch below the end, reading more of the log when needed.
   *
   * @return false when no batch is left (or the log returned nothing more)
   */
  boolean nextBatch();

  long baseOffset();

  long lastOffset();

  /** Whether the batch holds control records (transaction markers). */
  boolean isControl();

  /** Whether the batch was written in a transaction. */
  boolean isTransactional();

  /** The batch's producer id, {@link CoordinatorLog#NO_PRODUCER_ID} when it has none. */
  long producerId();

  short producerEpoch();

  /**
   * The transaction marker of a control batch; empty for another control record.
   *
   * @throws io.brook.storage.StorageException if the control batch cannot be read
   */
  Optional<TxnResult> marker();

  /**
   * Moves to the data batch's next record.
   *
   * @return false after the last
   * @throws io.brook.storage.StorageException at a record over the limits or malformed, or a batch
   *     that does not decompress or inflates past the limits: nothing after it can be trusted
   */
  boolean nextRecord();

  /** The current record's offset. */
  long offset();

  /** The current record's key, a view valid until the next call; null if it has none. */
  ByteBuffer key();

  /** The current record's value, a view valid until the next call; null for a tombstone. */
  ByteBuffer value();

  /** The records of the current batch read so far. */
  int recordsRead();

  @Override
  void close();
}
