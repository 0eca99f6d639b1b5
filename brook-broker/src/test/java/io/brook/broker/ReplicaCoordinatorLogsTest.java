package io.brook.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.broker.coordinator.ReplicaCoordinatorLogs;
import io.brook.broker.coordinator.ReplicaPartitionEnds;
import io.brook.coordinator.TxnResult;
import io.brook.coordinator.log.CoordinatorLog;
import io.brook.coordinator.log.CoordinatorLogReader;
import io.brook.coordinator.log.PartitionEnds;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.NotCoordinatorException;
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

  private record Entry(ByteBuffer recordKey, ByteBuffer recordValue)
      implements CoordinatorLog.Entry {}

  private static ByteBuffer bytes(String s) {
    return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
  }

  private static List<Entry> batch(String... values) {
    List<Entry> records = new ArrayList<>();
    for (int i = 0; i < values.length; i++) {
      records.add(new Entry(bytes("k" + i), bytes(values[i])));
    }
    return records;
  }

  private static String string(ByteBuffer buffer) {
    return StandardCharsets.UTF_8.decode(buffer.duplicate()).toString();
  }

  /**
   * Every record below {@code end} as "offset:key=value", batches read {@code bufferBytes} apart.
   */
  private static List<String> readAll(CoordinatorLog log, long end, int bufferBytes) {
    List<String> read = new ArrayList<>();
    try (CoordinatorLogReader reader =
        log.read(log.logStartOffset(), end, bufferBytes, log.recordLimits())) {
      while (reader.nextBatch()) {
        if (reader.isControl()) {
          read.add(reader.baseOffset() + ":" + reader.marker().orElseThrow());
          continue;
        }
        while (reader.nextRecord()) {
          read.add(reader.offset() + ":" + string(reader.key()) + "=" + string(reader.value()));
        }
      }
    }
    return read;
  }

  @Test
  void appendsCommitAndReadBackAsWholeBatches() throws Exception {
    int epoch = logs.leaderEpoch(TP).orElseThrow();
    CoordinatorLog log = logs.open(TP, epoch);

    CoordinatorLog.Appended first = log.append(batch("a", "b"), 1_000L);
    CoordinatorLog.Appended second = log.append(batch("c"), 1_000L);
    log.awaitCommitted(second.lastOffset() + 1, 5_000).get(5, TimeUnit.SECONDS);

    assertThat(first.firstOffset()).isZero();
    assertThat(first.lastOffset()).isEqualTo(1);
    assertThat(second.firstOffset()).isEqualTo(2);
    assertThat(first.duplicate()).isFalse();
    assertThat(log.logStartOffset()).isZero();
    assertThat(log.logEndOffset()).isEqualTo(3);
    assertThat(log.highWatermark()).isEqualTo(3);
    // One byte at a time still reads each batch whole; the bound stops before the second.
    assertThat(readAll(log, log.logEndOffset(), 1)).containsExactly("0:k0=a", "1:k1=b", "2:k0=c");
    assertThat(readAll(log, 2, 1 << 20)).containsExactly("0:k0=a", "1:k1=b");
  }

  @Test
  void aStaleLeaderEpochIsNotTheCoordinator() {
    int epoch = logs.leaderEpoch(TP).orElseThrow();
    CoordinatorLog stale = logs.open(TP, epoch + 1);

    assertThatThrownBy(() -> stale.append(batch("a"), 1_000L))
        .isInstanceOf(NotCoordinatorException.class);
    assertThatThrownBy(stale::logEndOffset).isInstanceOf(NotCoordinatorException.class);
    assertThatThrownBy(() -> stale.awaitCommitted(1, 1_000))
        .isInstanceOf(NotCoordinatorException.class);
    assertThat(logs.leaderEpoch(new TopicPartition(TP.topic(), 7))).isEqualTo(OptionalInt.empty());
  }

  @Test
  void transactionalWritesContinueTheProducersSequenceAtItsEpoch() {
    CoordinatorLog log = logs.open(TP, logs.leaderEpoch(TP).orElseThrow());
    long producerId = 42;

    CoordinatorLog.Appended first =
        log.appendTransactional(batch("a", "b"), 1_000L, producerId, (short) 0);
    // Sequence 2 follows: the log would take a repeated 0 for a retry and write nothing.
    CoordinatorLog.Appended second =
        log.appendTransactional(batch("c"), 1_000L, producerId, (short) 0);
    log.appendMarker(1_000L, producerId, (short) 0, 5, TxnResult.COMMIT);
    // A bumped epoch starts again at 0.
    CoordinatorLog.Appended bumped =
        log.appendTransactional(batch("d"), 1_000L, producerId, (short) 1);
    log.appendMarker(1_000L, producerId, (short) 1, 5, TxnResult.ABORT);

    assertThat(List.of(first, second, bumped)).noneMatch(CoordinatorLog.Appended::duplicate);
    assertThat(second.firstOffset()).isEqualTo(2);
    assertThat(readAll(log, log.logEndOffset(), 1 << 20))
        .containsExactly("0:k0=a", "1:k1=b", "2:k0=c", "3:COMMIT", "4:k0=d", "5:ABORT");
  }

  @Test
  void partitionEndsShowOnlyLedPartitions() {
    CoordinatorLog log = logs.open(TP, logs.leaderEpoch(TP).orElseThrow());
    log.append(batch("a", "b"), 1_000L);
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
