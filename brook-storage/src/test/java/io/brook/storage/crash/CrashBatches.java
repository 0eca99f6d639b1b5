package io.brook.storage.crash;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * The deterministic batches the crash test writes: batch {@code i} is the same bytes in the child
 * that appends it and in the parent that checks it, so the parent can verify every stored byte.
 */
final class CrashBatches {
  static final int RECORDS_PER_BATCH = 5;

  private CrashBatches() {}

  static MemoryRecords batch(long seed, long index) {
    Random random = new Random(seed * 1_000_003L + index);
    SimpleRecord[] records = new SimpleRecord[RECORDS_PER_BATCH];
    for (int j = 0; j < RECORDS_PER_BATCH; j++) {
      byte[] value = new byte[100 + random.nextInt(1_900)];
      random.nextBytes(value);
      records[j] =
          new SimpleRecord(
              1_700_000_000_000L + index,
              ("k" + index + "-" + j).getBytes(StandardCharsets.UTF_8),
              value);
    }
    Compression compression = index % 3 == 0 ? Compression.lz4().build() : Compression.NONE;
    return MemoryRecords.withRecords(compression, records);
  }

  /** The batch as the log stores it: offsets assigned, leader epoch stamped. */
  static MemoryRecords stored(long seed, long index, int leaderEpoch) {
    MemoryRecords records = batch(seed, index);
    for (MutableRecordBatch batch : records.batches()) {
      batch.setLastOffset(index * RECORDS_PER_BATCH + RECORDS_PER_BATCH - 1);
      batch.setPartitionLeaderEpoch(leaderEpoch);
    }
    return records;
  }
}
