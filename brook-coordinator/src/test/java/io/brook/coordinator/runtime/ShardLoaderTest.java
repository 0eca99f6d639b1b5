package io.brook.coordinator.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.coordinator.TxnResult;
import io.brook.coordinator.testing.PartitionLogView;
import io.brook.storage.log.LogConfig;
import io.brook.storage.log.LogOpenOptions;
import io.brook.storage.log.PartitionLog;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

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
      long replayed = ShardLoader.load(new PartitionLogView(log), shard, 1024).replayed();

      // Then every record in its log is replayed, above the high watermark too
      assertThat(replayed).isEqualTo(3);
      assertThat(shard.values).containsEntry("a", "2").containsEntry("b", "1");
    }
  }

  /** Records what loading calls, in order. */
  private static final class RecordingShard implements CoordinatorShard {
    final List<String> calls = new ArrayList<>();

    @Override
    public void replay(CoordinatorRecord record, long offset) {
      calls.add("plain@" + offset);
    }

    @Override
    public void replay(
        CoordinatorRecord record, long offset, long producerId, short producerEpoch) {
      calls.add("txn@" + offset + ":" + producerId + "/" + producerEpoch);
    }

    @Override
    public void replayEndTransactionMarker(long producerId, short producerEpoch, TxnResult result) {
      calls.add(result + ":" + producerId + "/" + producerEpoch);
    }
  }

  @Test
  void transactionalRecordsCarryTheirProducerAndMarkersEndTheirTransactionInLogOrder()
      throws Exception {
    // Given a plain record, a transactional batch of producer 5, its COMMIT, and another plain one
    TopicPartition tp = new TopicPartition("__consumer_offsets", 0);
    try (PartitionLog log =
        PartitionLog.open(
            dir.resolve("t"), LogConfig.defaults(), LogOpenOptions.defaults(tp, Time.SYSTEM))) {
      log.appendAsLeader(MemoryRecords.withRecords(Compression.NONE, record("a", "1")), 0);
      log.appendAsCoordinator(
          MemoryRecords.withTransactionalRecords(
              Compression.NONE, 5L, (short) 2, 0, record("b", "1"), record("c", "1")),
          0);
      log.appendAsCoordinator(
          MemoryRecords.withEndTransactionMarker(
              5L, (short) 2, new EndTransactionMarker(ControlRecordType.COMMIT, 0)),
          0);
      log.appendAsLeader(MemoryRecords.withRecords(Compression.NONE, record("d", "1")), 0);

      // When a shard loads it
      RecordingShard shard = new RecordingShard();
      long replayed = ShardLoader.load(new PartitionLogView(log), shard, 1024).replayed();

      // Then records come with their producer, the marker as the end of its transaction
      assertThat(replayed).isEqualTo(4);
      assertThat(shard.calls)
          .containsExactly("plain@0", "txn@1:5/2", "txn@2:5/2", "COMMIT:5/2", "plain@4");
    }
  }

  /**
   * A compressed batch (a coordinator topic may be written with {@code compression.type} set) is
   * read through the reader's scratch buffer: every record arrives with its own key and value.
   */
  @ParameterizedTest
  @EnumSource(
      value = CompressionType.class,
      names = {"GZIP", "SNAPPY", "LZ4", "ZSTD"})
  void everyRecordOfACompressedBatchIsReplayedWithItsOwnKeyAndValue(CompressionType type)
      throws Exception {
    TopicPartition tp = new TopicPartition("__consumer_offsets", 0);
    try (PartitionLog log =
        PartitionLog.open(
            dir.resolve("c"), LogConfig.defaults(), LogOpenOptions.defaults(tp, Time.SYSTEM))) {
      log.appendAsLeader(
          MemoryRecords.withRecords(
              Compression.of(type).build(),
              record("a", "1"),
              record("b", "22"),
              record("c", "333"),
              record("a", "4444")),
          0);

      CoordinatorRuntimeTest.KeyValueShard shard = new CoordinatorRuntimeTest.KeyValueShard(null);
      ShardLoader.Result result = ShardLoader.load(new PartitionLogView(log), shard, 1024);

      assertThat(result.replayed()).isEqualTo(4);
      assertThat(result.skipped()).isZero();
      assertThat(shard.values)
          .containsExactlyInAnyOrderEntriesOf(Map.of("a", "4444", "b", "22", "c", "333"));
    }
  }
}
