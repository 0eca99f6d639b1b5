package io.brook.storage.remote;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.storage.log.PartitionLog;
import io.brook.storage.testing.LogReads;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;

/** What a consumer of a tiered partition reads, for tests of keyed (compacted) data. */
final class TieredReads {
  private TieredReads() {}

  /** A record: its offset, key and value (null: a tombstone). */
  record Entry(long offset, String key, String value) {}

  /** Everything a consumer reads from offset 0: remote segments, then the local log. */
  static List<Entry> readAll(TieredPartition tier, PartitionLog log) throws IOException {
    List<Entry> out = new ArrayList<>();
    long next = 0;
    while (tier.holds(next)) {
      MemoryRecords read = tier.read(next, 1 << 20, Long.MAX_VALUE, true);
      long before = next;
      next = collect(read, next, out);
      assertThat(next).as("progress reading remote data").isGreaterThan(before);
    }
    long localFrom = Math.max(next, log.logStartOffset());
    byte[] local = LogReads.bytes(log, localFrom, log.logEndOffset());
    collect(MemoryRecords.readableRecords(ByteBuffer.wrap(local)), localFrom, out);
    return out;
  }

  private static long collect(MemoryRecords records, long from, List<Entry> out) {
    long next = from;
    for (RecordBatch batch : records.batches()) {
      for (var r : batch) {
        if (r.offset() >= from) {
          out.add(
              new Entry(
                  r.offset(),
                  StandardCharsets.UTF_8.decode(r.key()).toString(),
                  r.hasValue() ? StandardCharsets.UTF_8.decode(r.value()).toString() : null));
        }
      }
      next = batch.nextOffset();
    }
    return next;
  }
}
