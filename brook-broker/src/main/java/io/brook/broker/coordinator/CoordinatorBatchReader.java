package io.brook.broker.coordinator;

import io.brook.coordinator.TxnResult;
import io.brook.coordinator.log.CoordinatorLogReader;
import io.brook.storage.log.ReplicaLog;
import io.brook.storage.record.BatchRecordReader;
import io.brook.storage.record.ControlBatches;
import io.brook.storage.record.RecordLimits;
import java.nio.ByteBuffer;
import java.util.Iterator;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;

/**
 * A {@link CoordinatorLogReader} over the batches a log read returns: one read buffer at a time
 * ({@code bufferBytes} of the log, a larger batch still whole), records read in place by storage's
 * {@link BatchRecordReader} within the partition's limits.
 */
public final class CoordinatorBatchReader implements CoordinatorLogReader {
  /** Reads whole batches from an offset, below a bound, up to about a size, on the heap. */
  @FunctionalInterface
  public interface LogRead {
    MemoryRecords read(long offset, int maxBytes, long maxOffset);

    /**
     * Reads of the log {@code log} returns at each call, copied to the heap: the reader parses them
     * while the log may roll or clean underneath.
     */
    static LogRead copiedFrom(Supplier<? extends ReplicaLog> log) {
      return (offset, maxBytes, maxOffset) ->
          log.get().read(offset, maxBytes, maxOffset, true).slice().copyToMemory();
    }
  }

  private final LogRead log;
  private final long endOffset;
  private final int bufferBytes;
  private final RecordLimits limits;
  private final BatchRecordReader records = new BatchRecordReader();

  private long nextOffset;
  private ByteBuffer buffer;
  private Iterator<MutableRecordBatch> batches;
  private boolean progressed;
  private int nextPosition;
  private MutableRecordBatch batch;
  private int position;
  private boolean recordsOpen;
  private boolean done;

  public CoordinatorBatchReader(
      LogRead log, long offset, long endOffset, int bufferBytes, RecordLimits limits) {
    this.log = log;
    this.nextOffset = offset;
    this.endOffset = endOffset;
    this.bufferBytes = bufferBytes;
    this.limits = limits;
  }

  @Override
  public boolean nextBatch() {
    endRecords();
    batch = null;
    while (!done) {
      if (batches != null && batches.hasNext()) {
        MutableRecordBatch next = batches.next();
        if (next.lastOffset() >= endOffset) {
          done = true;
          break;
        }
        batch = next;
        // Batches lie back to back in the buffer: records are read in place, with no copy.
        position = nextPosition;
        nextPosition += next.sizeInBytes();
        nextOffset = next.nextOffset();
        progressed = true;
        return true;
      }
      if ((batches != null && !progressed) || nextOffset >= endOffset) {
        done = true; // the log returned nothing more below the end
        break;
      }
      MemoryRecords read = log.read(nextOffset, bufferBytes, endOffset);
      buffer = read.buffer();
      nextPosition = buffer.position();
      batches = read.batches().iterator();
      progressed = false;
    }
    return false;
  }

  @Override
  public long baseOffset() {
    return batch.baseOffset();
  }

  @Override
  public long lastOffset() {
    return batch.lastOffset();
  }

  @Override
  public boolean isControl() {
    return batch.isControlBatch();
  }

  @Override
  public boolean isTransactional() {
    return batch.isTransactional();
  }

  @Override
  public long producerId() {
    return batch.producerId(); // NO_PRODUCER_ID, -1, in a batch without one
  }

  @Override
  public short producerEpoch() {
    return batch.producerEpoch();
  }

  @Override
  public Optional<TxnResult> marker() {
    return ControlBatches.marker(batch)
        .map(m -> m.controlType() == ControlRecordType.COMMIT ? TxnResult.COMMIT : TxnResult.ABORT);
  }

  @Override
  public boolean nextRecord() {
    if (!recordsOpen) {
      recordsOpen = true;
      records.open(buffer, position, limits, BatchRecordReader.Capture.KEY_AND_VALUE);
    }
    return records.next();
  }

  @Override
  public long offset() {
    return records.offset();
  }

  @Override
  public ByteBuffer key() {
    return records.key();
  }

  @Override
  public ByteBuffer value() {
    return records.value();
  }

  @Override
  public int recordsRead() {
    return records.recordsRead();
  }

  private void endRecords() {
    if (recordsOpen) {
      recordsOpen = false;
      records.endBatch();
    }
  }

  @Override
  public void close() {
    endRecords();
    records.close();
  }
}
