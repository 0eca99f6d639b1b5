package io.brook.storage.record;

import io.brook.storage.StorageError;
import io.brook.storage.StorageException;
import java.util.Optional;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * Reading the COMMIT or ABORT marker out of a control batch, for producer state (appends and
 * replay) and for recovery, which cuts the log at a control batch it cannot read rather than fail
 * to load.
 */
public final class ControlBatches {
  private ControlBatches() {}

  /**
   * The commit or abort marker of a control batch; empty for other control records.
   *
   * @throws StorageException {@link StorageError#CORRUPT_MESSAGE} if the batch has no record or the
   *     marker cannot be parsed
   */
  public static Optional<EndTransactionMarker> marker(RecordBatch batch) {
    // Check the batch within tiny bounds first: kafka-clients' iterator sizes a list from the
    // header's count and decompresses each record into an array of its claimed length, and a
    // follower copies control batches without looking inside them.
    try (BatchRecordReader reader = new BatchRecordReader()) {
      reader.open(batch, RecordLimits.CONTROL_RECORDS, BatchRecordReader.Capture.NONE);
      while (reader.next()) {
        // Reading to the end checks the count and every length.
      }
    } catch (StorageException e) {
      throw unreadable("control batch", batch, e);
    }
    try {
      var records = batch.iterator();
      if (!records.hasNext()) {
        throw new StorageException(
            StorageError.CORRUPT_MESSAGE,
            "Control batch without records: producerId="
                + batch.producerId()
                + " baseOffset="
                + batch.baseOffset());
      }
      var record = records.next();
      ControlRecordType type = ControlRecordType.parse(record.key());
      if (type != ControlRecordType.COMMIT && type != ControlRecordType.ABORT) {
        return Optional.empty();
      }
      return Optional.of(EndTransactionMarker.deserialize(record));
    } catch (StorageException e) {
      throw e;
    } catch (RuntimeException e) {
      throw unreadable("transaction marker", batch, e);
    }
  }

  /** Whether {@link #marker} can read {@code batch} (always true for a data batch). */
  public static boolean isReadable(RecordBatch batch) {
    if (!batch.isControlBatch()) {
      return true;
    }
    try {
      marker(batch);
      return true;
    } catch (StorageException e) {
      return false;
    }
  }

  private static StorageException unreadable(String what, RecordBatch batch, Exception cause) {
    return new StorageException(
        StorageError.CORRUPT_MESSAGE,
        "Unreadable "
            + what
            + ": producerId="
            + batch.producerId()
            + " baseOffset="
            + batch.baseOffset()
            + ": "
            + cause.getMessage(),
        cause);
  }
}
