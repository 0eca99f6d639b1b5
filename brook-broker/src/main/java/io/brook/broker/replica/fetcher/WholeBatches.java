package io.brook.broker.replica.fetcher;

import java.nio.ByteBuffer;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Records;

/**
 * The whole record batches of what a follower fetched. A leader cuts its read at the partition's
 * fetch size ({@code replica.fetch.max.bytes}) wherever that falls, so the last batch of a full
 * answer is often partial; like Kafka's follower, this one appends the whole batches and fetches
 * the rest next time. A length that is negative is left for the log's validation to refuse.
 */
final class WholeBatches {
  private WholeBatches() {}

  static MemoryRecords of(MemoryRecords records) {
    ByteBuffer buffer = records.buffer();
    int start = buffer.position();
    int end = buffer.limit();
    int at = start;
    while (at < end) {
      if (end - at < Records.LOG_OVERHEAD) {
        break; // a partial header
      }
      int length = buffer.getInt(at + Records.SIZE_OFFSET);
      if (length < 0) {
        return records; // corrupt, not cut: refused when appended
      }
      if (length > end - at - Records.LOG_OVERHEAD) {
        break; // the batch the leader's read cut
      }
      at += Records.LOG_OVERHEAD + length;
    }
    if (at == end) {
      return records;
    }
    ByteBuffer whole = buffer.duplicate();
    whole.position(start).limit(at);
    return MemoryRecords.readableRecords(whole.slice());
  }
}
