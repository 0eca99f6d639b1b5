package io.brook.coordinator.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.storage.log.LogConfig;
import io.brook.storage.log.LogOpenOptions;
import io.brook.storage.log.PartitionLog;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Loading a shard from a replica's log. */
class ShardLoaderTest {
  @TempDir Path dir;

  private static SimpleRecord record(String key, String value) {
    CoordinatorRecord r =
        new CoordinatorRecord(
            (short) 100,
            ByteBuffer.wrap(key.getBytes(StandardCharsets.UTF_8)),
            ByteBuffer.wrap(value.getBytes(StandardCharsets.UTF_8)));
    ByteBuffer k = r.recordKey();
    byte[] keyBytes = new byte[k.remaining()];
    k.get(keyBytes);
    return new SimpleRecord(keyBytes, value.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void aNewLeaderReplaysItsWholeLogThoughItsHighWatermarkLags() throws Exception {
    // Given a follower's copy: three records fetched, high watermark learned only up to 1
    TopicPartition tp = new TopicPartition("__consumer_offsets", 0);
    try (PartitionLog log =
        PartitionLog.open(
            dir.resolve("p"), LogConfig.defaults(), LogOpenOptions.defaults(tp, Time.SYSTEM))) {
      log.appendAsFollower(
          MemoryRecords.withRecords(0L, Compression.NONE, 0, record("a", "1"), record("b", "1")));
      log.appendAsFollower(MemoryRecords.withRecords(2L, Compression.NONE, 0, record("a", "2")));
      log.updateHighWatermark(1);

      // When it becomes leader and loads its shard
      CoordinatorRuntimeTest.KeyValueShard shard = new CoordinatorRuntimeTest.KeyValueShard(null);
      long replayed = ShardLoader.load(log, shard, 1024);

      // Then every record in its log is replayed, above the high watermark too
      assertThat(replayed).isEqualTo(3);
      assertThat(shard.values).containsEntry("a", "2").containsEntry("b", "1");
    }
  }
}
