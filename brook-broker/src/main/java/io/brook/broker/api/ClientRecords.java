package io.brook.broker.api;

import io.brook.protocol.ZeroCopyRecords;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.DefaultRecord;
import org.apache.kafka.common.record.internal.DefaultRecordBatch;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.Records;

/**
 * Records as a client writes and reads them, for callers that speak to the broker's handlers
 * without the Kafka wire format (the HTTP API): a produce batch built once with kafka-clients'
 * {@link MemoryRecords} builder, and a fetch answer's batches walked record by record as a Kafka
 * consumer walks them.
 */
public final class ClientRecords {
  private ClientRecords() {}

  /** One record to produce; null key or value for none. */
  @SuppressWarnings("ArrayRecordComponent") // built once and never changed
  public record Produced(long timestamp, byte[] key, byte[] value, Header[] headers) {}

  /** Sees each record a fetch answered. */
  public interface Visitor {
    void record(long offset, long timestamp, ByteBuffer key, ByteBuffer value, Header[] headers);
  }

  /**
   * A partition's part of a Produce request: {@code records} as one uncompressed v2 batch with
   * create times, without producer id (not idempotent), in a buffer sized for them.
   */
  public static ProduceRequestData.PartitionProduceData partition(
      int index, List<Produced> records) {
    return partition(
        index,
        records,
        RecordBatch.NO_PRODUCER_ID,
        RecordBatch.NO_PRODUCER_EPOCH,
        RecordBatch.NO_SEQUENCE);
  }

  /**
   * As {@link #partition(int, List)}, for an idempotent producer: the batch carries its producer
   * id, epoch and first sequence, which the partition's leader checks against the producer's state.
   */
  public static ProduceRequestData.PartitionProduceData partition(
      int index, List<Produced> records, long producerId, short producerEpoch, int baseSequence) {
    int size = DefaultRecordBatch.RECORD_BATCH_OVERHEAD;
    for (int i = 0; i < records.size(); i++) {
      Produced r = records.get(i);
      size +=
          DefaultRecord.sizeInBytes(
              i,
              0,
              r.key() == null ? -1 : r.key().length,
              r.value() == null ? -1 : r.value().length,
              r.headers());
    }
    MemoryRecordsBuilder builder =
        MemoryRecords.builder(
            ByteBuffer.allocate(size),
            RecordBatch.CURRENT_MAGIC_VALUE,
            Compression.NONE,
            TimestampType.CREATE_TIME,
            0L,
            RecordBatch.NO_TIMESTAMP,
            producerId,
            producerEpoch,
            baseSequence);
    for (Produced r : records) {
      builder.append(
          r.timestamp(),
          r.key() == null ? null : ByteBuffer.wrap(r.key()),
          r.value() == null ? null : ByteBuffer.wrap(r.value()),
          r.headers());
    }
    return new ProduceRequestData.PartitionProduceData()
        .setIndex(index)
        .setRecords(builder.build());
  }

  /**
   * Hands {@code visitor} the records of a fetched partition at or after {@code fetchOffset}, and
   * returns the offset to fetch next. Control batches are skipped; under read_committed so are the
   * batches of aborted transactions: a producer is aborted from the first offset the answer lists
   * for it until its abort marker, as Kafka's consumer reads them. Batches the handler answered as
   * a file region are read into one pooled off-heap buffer first (the fetch's size bounds it) and
   * given back before returning; so this reads the disk and must not run on an event loop.
   */
  public static long read(
      FetchResponseData.PartitionData data,
      long fetchOffset,
      boolean readCommitted,
      Visitor visitor) {
    BaseRecords base = data.records();
    ByteBuf read = null;
    try {
      Records records;
      if (base instanceof ZeroCopyRecords file) {
        read = readFile(file);
        records = MemoryRecords.readableRecords(read.nioBuffer());
      } else if (base instanceof Records inMemory) {
        records = inMemory;
      } else {
        records = MemoryRecords.EMPTY;
      }
      return visit(records, fetchOffset, readCommitted, data.abortedTransactions(), visitor);
    } finally {
      if (read != null) {
        read.release();
      }
    }
  }

  private static ByteBuf readFile(ZeroCopyRecords file) {
    ByteBuf buffer = ByteBufAllocator.DEFAULT.directBuffer(file.sizeInBytes());
    try {
      FileChannel channel = file.file().pin();
      try {
        ByteBuffer target = buffer.nioBuffer(0, file.sizeInBytes());
        long position = file.position();
        while (target.hasRemaining()) {
          int n = channel.read(target, position);
          if (n < 0) {
            throw new EOFException("segment ended at " + position);
          }
          position += n;
        }
        buffer.writerIndex(file.sizeInBytes());
      } finally {
        file.file().unpin();
      }
      return buffer;
    } catch (IOException e) {
      buffer.release();
      throw new UncheckedIOException(e);
    } catch (RuntimeException e) {
      buffer.release();
      throw e;
    }
  }

  private static long visit(
      Records records,
      long fetchOffset,
      boolean readCommitted,
      List<FetchResponseData.AbortedTransaction> aborted,
      Visitor visitor) {
    ArrayDeque<FetchResponseData.AbortedTransaction> pending = new ArrayDeque<>();
    if (readCommitted && aborted != null) {
      aborted.stream()
          .sorted(Comparator.comparingLong(FetchResponseData.AbortedTransaction::firstOffset))
          .forEach(pending::add);
    }
    Set<Long> abortedProducers = new HashSet<>();
    long next = fetchOffset;
    for (RecordBatch batch : records.batches()) {
      next = Math.max(next, batch.nextOffset());
      while (!pending.isEmpty() && pending.peek().firstOffset() <= batch.lastOffset()) {
        abortedProducers.add(pending.poll().producerId());
      }
      if (batch.isControlBatch()) {
        if (readCommitted && isAbortMarker(batch)) {
          abortedProducers.remove(batch.producerId());
        }
        continue;
      }
      if (readCommitted
          && batch.isTransactional()
          && abortedProducers.contains(batch.producerId())) {
        continue;
      }
      for (Record record : batch) {
        if (record.offset() >= fetchOffset) {
          visitor.record(
              record.offset(), record.timestamp(), record.key(), record.value(), record.headers());
        }
      }
    }
    return next;
  }

  private static boolean isAbortMarker(RecordBatch batch) {
    for (Record record : batch) {
      return ControlRecordType.parse(record.key()) == ControlRecordType.ABORT;
    }
    return false;
  }

  /**
   * The newest timestamp in the header of the first batch a fetch answered for a partition; empty
   * without a whole v2 batch header. Nothing past the header is read.
   */
  public static OptionalLong newestTimestamp(FetchResponseData.PartitionData partition) {
    if (!(partition.records() instanceof MemoryRecords memory)) {
      return OptionalLong.empty();
    }
    ByteBuffer buffer = memory.buffer();
    int start = buffer.position();
    if (buffer.remaining() < DefaultRecordBatch.RECORD_BATCH_OVERHEAD
        || buffer.get(start + MAGIC_OFFSET) < RecordBatch.MAGIC_VALUE_V2) {
      return OptionalLong.empty();
    }
    return OptionalLong.of(buffer.getLong(start + MAX_TIMESTAMP_OFFSET));
  }

  /** Offsets in the v2 batch header (Kafka's record batch format). */
  private static final int MAGIC_OFFSET = 16;

  private static final int MAX_TIMESTAMP_OFFSET = 35;
}
