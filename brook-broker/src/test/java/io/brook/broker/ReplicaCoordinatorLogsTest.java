package io.brook.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.broker.coordinator.ReplicaCoordinatorLogs;
import io.brook.broker.coordinator.ReplicaPartitionEnds;
import io.brook.coordinator.log.CoordinatorLog;
import io.brook.coordinator.log.PartitionEnds;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.NotCoordinatorException;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The coordinators' view of a partition, over a real replica manager and log. */
class ReplicaCoordinatorLogsTest {
  private static final TopicPartition TP = new TopicPartition("coordinated", 0);

  @TempDir Path root;
  BrokerFixture broker;
  ReplicaCoordinatorLogs logs;

  @BeforeEach
  void start() throws Exception {
    broker = new BrokerFixture(root);
    broker.createTopic(TP.topic(), 1);
    logs = new ReplicaCoordinatorLogs(broker.replicaManager);
  }

  @AfterEach
  void stop() throws Exception {
    broker.close();
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static MemoryRecords batch(String... values) {
    SimpleRecord[] records = new SimpleRecord[values.length];
    for (int i = 0; i < values.length; i++) {
      records[i] =
          new SimpleRecord(
              1_000L,
              ("k" + i).getBytes(StandardCharsets.UTF_8),
              values[i].getBytes(StandardCharsets.UTF_8));
    }
    return MemoryRecords.withRecords(Compression.NONE, records);
  }

  @Test
  void appendsCommitAndReadBackAsWholeBatches() throws Exception {
    int epoch = logs.leaderEpoch(TP).orElseThrow();
    CoordinatorLog log = logs.open(TP, epoch);

    CoordinatorLog.Appended first = log.append(batch("a", "b"), false);
    CoordinatorLog.Appended second = log.append(batch("c"), false);
    log.awaitCommitted(second.lastOffset() + 1, 5_000).get(5, TimeUnit.SECONDS);

    assertThat(first.firstOffset()).isZero();
    assertThat(first.lastOffset()).isEqualTo(1);
    assertThat(second.firstOffset()).isEqualTo(2);
    assertThat(first.duplicate()).isFalse();
    assertThat(log.logStartOffset()).isZero();
    assertThat(log.logEndOffset()).isEqualTo(3);
    assertThat(log.highWatermark()).isEqualTo(3);
    // One byte asked for still returns the first batch whole; the bound stops before the second.
    MemoryRecords read = log.read(0, 1, log.logEndOffset());
    assertThat(read.batches()).hasSize(1);
    MutableRecordBatch only = read.batches().iterator().next();
    assertThat(only.baseOffset()).isZero();
    assertThat(only.lastOffset()).isEqualTo(1);
    assertThat(log.read(0, 1 << 20, 2).batches()).hasSize(1);
  }

  @Test
  void aStaleLeaderEpochIsNotTheCoordinator() {
    int epoch = logs.leaderEpoch(TP).orElseThrow();
    CoordinatorLog stale = logs.open(TP, epoch + 1);

    assertThatThrownBy(() -> stale.append(batch("a"), false))
        .isInstanceOf(NotCoordinatorException.class);
    assertThatThrownBy(stale::logEndOffset).isInstanceOf(NotCoordinatorException.class);
    assertThatThrownBy(() -> stale.awaitCommitted(1, 1_000))
        .isInstanceOf(NotCoordinatorException.class);
    assertThat(logs.leaderEpoch(new TopicPartition(TP.topic(), 7))).isEqualTo(OptionalInt.empty());
  }

  @Test
  void nextSequenceFollowsTheProducerAtItsEpoch() {
    CoordinatorLog log = logs.open(TP, logs.leaderEpoch(TP).orElseThrow());
    long producerId = 42;
    assertThat(log.nextSequence(producerId, (short) 0)).isZero();

    log.append(
        MemoryRecords.withTransactionalRecords(
            Compression.NONE,
            producerId,
            (short) 0,
            0,
            new SimpleRecord(1_000L, bytes("k"), bytes("v")),
            new SimpleRecord(1_000L, bytes("k"), bytes("w"))),
        true);

    assertThat(log.nextSequence(producerId, (short) 0)).isEqualTo(2);
    assertThat(log.nextSequence(producerId, (short) 1)).isZero();
  }

  @Test
  void partitionEndsShowOnlyLedPartitions() {
    CoordinatorLog log = logs.open(TP, logs.leaderEpoch(TP).orElseThrow());
    log.append(batch("a", "b"), false);
    PartitionEnds ends = new ReplicaPartitionEnds(broker.replicaManager);

    PartitionEnds.Ends led = ends.leaderEnds(TP).orElseThrow();
    assertThat(led.logStartOffset()).isZero();
    assertThat(led.highWatermark()).isEqualTo(2);
    assertThat(led.deleteRetentionMs()).isEqualTo(7L * 24 * 60 * 60 * 1000);
    assertThat(ends.batchTimestamp(TP, 1, 2)).hasValue(1_000L);
    assertThat(ends.leaderEnds(new TopicPartition("missing", 0))).isEmpty();
    assertThat(ends.batchTimestamp(new TopicPartition("missing", 0), 0, 1)).isEmpty();
  }
}
