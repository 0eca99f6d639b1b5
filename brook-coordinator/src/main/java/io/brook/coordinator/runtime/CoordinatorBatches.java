package io.brook.coordinator.runtime;

import java.nio.ByteBuffer;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;

/** Coordinator records to and from Kafka record batches. */
final class CoordinatorBatches {
  private CoordinatorBatches() {}

  /** One uncompressed batch holding {@code records} in order, stamped {@code timestampMs}. */
  static MemoryRecords toBatch(List<CoordinatorRecord> records, long timestampMs) {
    SimpleRecord[] simple = new SimpleRecord[records.size()];
    for (int i = 0; i < simple.length; i++) {
      CoordinatorRecord record = records.get(i);
      ByteBuffer value = record.value() == null ? null : record.value().duplicate();
      simple[i] = new SimpleRecord(timestampMs, record.recordKey(), value);
    }
    return MemoryRecords.withRecords(Compression.NONE, simple);
  }
}
