package io.brook.storage.cleaner;

import io.brook.storage.log.PartitionLog;
import io.brook.storage.testing.Batches;
import io.brook.storage.testing.LogReads;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;

/** Keyed records for compaction tests: building batches and reading a log back as records. */
final class KeyedRecords {
  private KeyedRecords() {}

  /** One stored record: its offset, key and value (null for a tombstone). */
  record Entry(long offset, String key, String value) {}

  /** A batch of {@code key → value} records (a null value is a tombstone), in order. */
  static MemoryRecords batch(
      List<Map.Entry<String, String>> records, long timestamp, CompressionType compression) {
    SimpleRecord[] out = new SimpleRecord[records.size()];
    for (int i = 0; i < out.length; i++) {
      Map.Entry<String, String> r = records.get(i);
      out[i] =
          new SimpleRecord(
              timestamp,
              r.getKey().getBytes(StandardCharsets.UTF_8),
              r.getValue() == null ? null : r.getValue().getBytes(StandardCharsets.UTF_8));
    }
    return MemoryRecords.withRecords(Batches.compressionOf(compression), out);
  }

  /** Every record from the log start to the log end, read through the log like a consumer. */
  static List<Entry> readAll(PartitionLog log) {
    if (log.logEndOffset() == log.logStartOffset()) {
      return List.of();
    }
    MemoryRecords all = MemoryRecords.readableRecords(ByteBuffer.wrap(LogReads.bytes(log)));
    List<Entry> out = new ArrayList<>();
    for (RecordBatch batch : all.batches()) {
      for (var record : batch) {
        out.add(
            new Entry(
                record.offset(),
                record.hasKey() ? StandardCharsets.UTF_8.decode(record.key()).toString() : null,
                record.hasValue()
                    ? StandardCharsets.UTF_8.decode(record.value()).toString()
                    : null));
      }
    }
    return out;
  }

  /** The latest record of each key in {@code entries}, in offset order. */
  static Map<String, Entry> latestPerKey(List<Entry> entries) {
    Map<String, Entry> latest = new LinkedHashMap<>();
    for (Entry e : entries) {
      latest.remove(e.key());
      latest.put(e.key(), e);
    }
    return latest;
  }
}
