package io.brook.storage.testing;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;

/** Builds record batches the way a producer would: offsets from 0, magic v2. */
public final class Batches {
  private Batches() {}

  /** {@code count} records "key-i" / "value-i" with the given timestamp, uncompressed. */
  public static MemoryRecords records(int count, long timestamp) {
    return records(count, timestamp, CompressionType.NONE);
  }

  public static MemoryRecords records(int count, long timestamp, CompressionType compression) {
    SimpleRecord[] records = new SimpleRecord[count];
    for (int i = 0; i < count; i++) {
      records[i] =
          new SimpleRecord(
              timestamp,
              ("key-" + i).getBytes(StandardCharsets.UTF_8),
              ("value-" + i).getBytes(StandardCharsets.UTF_8));
    }
    return MemoryRecords.withRecords(compressionOf(compression), records);
  }

  /** One batch of {@code count} records of {@code valueSize} random-ish bytes each. */
  public static MemoryRecords sized(int count, int valueSize, long timestamp, long seed) {
    java.util.Random random = new java.util.Random(seed);
    SimpleRecord[] records = new SimpleRecord[count];
    for (int i = 0; i < count; i++) {
      byte[] value = new byte[valueSize];
      random.nextBytes(value);
      records[i] =
          new SimpleRecord(timestamp + i, ("k" + i).getBytes(StandardCharsets.UTF_8), value);
    }
    return MemoryRecords.withRecords(Compression.NONE, records);
  }

  /** An idempotent producer's batch. */
  public static MemoryRecords idempotent(
      long producerId, short epoch, int baseSequence, int count, long timestamp) {
    SimpleRecord[] records = new SimpleRecord[count];
    for (int i = 0; i < count; i++) {
      records[i] =
          new SimpleRecord(timestamp, ("v" + (baseSequence + i)).getBytes(StandardCharsets.UTF_8));
    }
    return MemoryRecords.withIdempotentRecords(
        Compression.NONE, producerId, epoch, baseSequence, records);
  }

  /** Records with explicit per-record timestamps, one batch. */
  public static MemoryRecords withTimestamps(long... timestamps) {
    ByteBuffer buffer = ByteBuffer.allocate(1024 + timestamps.length * 64);
    MemoryRecordsBuilder builder =
        MemoryRecords.builder(buffer, Compression.NONE, TimestampType.CREATE_TIME, 0L);
    for (int i = 0; i < timestamps.length; i++) {
      builder.append(
          timestamps[i],
          ("k" + i).getBytes(StandardCharsets.UTF_8),
          ("v" + i).getBytes(StandardCharsets.UTF_8));
    }
    return builder.build();
  }

  /** Concatenates batches, as a follower's fetch response would carry them. */
  public static MemoryRecords concat(List<MemoryRecords> parts) {
    int size = parts.stream().mapToInt(MemoryRecords::sizeInBytes).sum();
    ByteBuffer buffer = ByteBuffer.allocate(size);
    for (MemoryRecords part : parts) {
      buffer.put(part.buffer().duplicate());
    }
    buffer.flip();
    return MemoryRecords.readableRecords(buffer);
  }

  /** All records' offsets in {@code records}, in order. */
  public static List<Long> offsets(MemoryRecords records) {
    List<Long> offsets = new ArrayList<>();
    for (RecordBatch batch : records.batches()) {
      for (var record : batch) {
        offsets.add(record.offset());
      }
    }
    return offsets;
  }

  /** A copy of the bytes, so a test can compare what went in with what comes out. */
  public static byte[] bytes(MemoryRecords records) {
    ByteBuffer copy = records.buffer().duplicate();
    byte[] out = new byte[copy.remaining()];
    copy.get(out);
    return out;
  }

  public static Compression compressionOf(CompressionType type) {
    return switch (type) {
      case NONE -> Compression.NONE;
      case GZIP -> Compression.gzip().build();
      case SNAPPY -> Compression.snappy().build();
      case LZ4 -> Compression.lz4().build();
      case ZSTD -> Compression.zstd().build();
    };
  }
}
