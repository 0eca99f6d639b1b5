package io.brook.coordinator.runtime;

import java.util.function.Consumer;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.apache.kafka.common.utils.internals.CloseableIterator;

/**
 * Reads the records of one batch of a coordinator partition without trusting it: records are
 * streamed ({@link RecordBatch#streamingIterator(BufferSupplier, int)}), never materialized, so a
 * compressed batch costs at most one record at a time; a record whose length prefix exceeds {@code
 * maxRecordBytes} is refused before anything is allocated for it, and reading stops once the
 * records read add up to {@code maxBatchBytes}, however far the batch would inflate.
 *
 * <p>Kept small and self-contained for the coordinators' loading; the log's own validation reads
 * batches with its own bounds.
 */
final class BoundedBatchReader implements AutoCloseable {
  /**
   * The largest record loading accepts. Coordinators write uncompressed batches no larger than the
   * topic's {@code max.message.bytes} (1 MiB by default), so this leaves room for a raised limit.
   */
  static final int DEFAULT_MAX_RECORD_BYTES = 16 * 1024 * 1024;

  /** The most a single batch may inflate to while loading. */
  static final long DEFAULT_MAX_BATCH_BYTES = 64L * 1024 * 1024;

  /** Why a batch was not read to its end; null if it was. */
  enum Cut {
    /** The batch's bytes (compression, record framing or its count) do not parse. */
    UNREADABLE,
    /** Its records add up to more than {@code maxBatchBytes}. */
    TOO_LARGE
  }

  /**
   * What reading a batch did.
   *
   * @param delivered records handed to the consumer
   * @param oversized records skipped for being larger than {@code maxRecordBytes}
   * @param cut why the rest of the batch was skipped, or null
   * @param failure what stopped an UNREADABLE batch, or null
   */
  record Outcome(long delivered, long oversized, Cut cut, RuntimeException failure) {}

  private final int maxRecordBytes;
  private final long maxBatchBytes;
  private final BufferSupplier buffers = BufferSupplier.create();

  BoundedBatchReader(int maxRecordBytes, long maxBatchBytes) {
    this.maxRecordBytes = maxRecordBytes;
    this.maxBatchBytes = maxBatchBytes;
  }

  /** Hands each readable record of {@code batch} to {@code consumer}, in order. */
  Outcome read(RecordBatch batch, Consumer<Record> consumer) {
    long delivered = 0;
    long oversized = 0;
    long inflated = 0;
    try (CloseableIterator<Record> records = batch.streamingIterator(buffers, maxRecordBytes)) {
      while (records.hasNext()) {
        Record record = records.next();
        inflated += record.sizeInBytes();
        if (inflated > maxBatchBytes) {
          return new Outcome(delivered, oversized, Cut.TOO_LARGE, null);
        }
        // A compressed record over the cap never gets here (the iterator refuses its length); an
        // uncompressed one is a view of the batch, skipped without being read.
        if (record.sizeInBytes() > maxRecordBytes) {
          oversized++;
          continue;
        }
        consumer.accept(record);
        delivered++;
      }
    } catch (RuntimeException e) {
      // Corrupt compression, record framing or count (InvalidRecordException, KafkaException,
      // IllegalArgumentException from a negative count...): nothing after it can be trusted.
      return new Outcome(delivered, oversized, Cut.UNREADABLE, e);
    }
    return new Outcome(delivered, oversized, null, null);
  }

  @Override
  public void close() {
    buffers.close();
  }
}
