package io.brook.simulation;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.time.ManualScheduler;
import io.brook.broker.time.MockTime;
import io.brook.storage.cleaner.CleanerConfig;
import io.brook.storage.log.LogConfig;
import io.brook.storage.log.PartitionLog;
import io.brook.storage.manager.LogManager;
import io.brook.storage.manager.LogManagerConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The simulation's model of a machine crash on real files: the log's next life, recovered by the
 * real storage code, holds exactly what was fsynced (below the recovery point), whatever the index
 * files and the leader epoch checkpoint say beyond it.
 */
class PageCacheLossTest {
  static final TopicPartition TP = new TopicPartition("t", 0);

  @TempDir Path dir;

  @Test
  void theNextLifeRecoversExactlyTheFlushedRecords() throws Exception {
    for (boolean keepLatestEpochCheckpoint : new boolean[] {true, false}) {
      Path logs = Files.createTempDirectory(dir, "logs");
      long recoveryPoint;
      Path partitionDir;
      {
        // Given a log fsynced every 3 records, with 7 appended over two leader epochs
        LogManager first = start(logs);
        PartitionLog log = first.getOrCreateLog(TP);
        log.assignEpoch(0, 0);
        for (int i = 0; i < 7; i++) {
          if (i == 4) {
            log.assignEpoch(1, 4);
          }
          log.appendAsLeader(record("v" + i), i < 4 ? 0 : 1);
        }
        recoveryPoint = log.recoveryPoint();
        partitionDir = log.dir();
        assertThat(recoveryPoint).isEqualTo(6);
        // When the machine dies: no close, the page cache is lost
        assertThat(PageCacheLoss.apply(partitionDir, recoveryPoint, keepLatestEpochCheckpoint))
            .isPositive();
        Files.delete(logs.resolve(".lock"));
      }
      // Then the next life recovers the flushed records and nothing else
      LogManager second = start(logs);
      PartitionLog log = second.getOrCreateLog(TP);
      assertThat(log.logEndOffset()).isEqualTo(recoveryPoint);
      assertThat(values(log)).containsExactly("v0", "v1", "v2", "v3", "v4", "v5");
      assertThat(log.latestEpoch()).hasValue(1);
      assertThat(log.endOffsetForEpoch(1).endOffset()).isEqualTo(6);
      second.close();
    }
  }

  private static LogManager start(Path logs) throws Exception {
    LogConfig config = LogConfig.builder().flushMessages(3).build();
    MockTime time = new MockTime();
    return LogManager.start(
        LogManagerConfig.defaults(List.of(logs)).withCleaner(CleanerConfig.DEFAULTS.withThreads(0)),
        topic -> config,
        time,
        new SimulatedExecutor(new ManualScheduler(time)));
  }

  private static MemoryRecords record(String value) {
    return MemoryRecords.withRecords(
        Compression.NONE, new SimpleRecord(0L, value.getBytes(StandardCharsets.UTF_8)));
  }

  private static List<String> values(PartitionLog log) {
    List<String> values = new ArrayList<>();
    MemoryRecords records = log.read(0, 1 << 20, log.logEndOffset(), true).slice().copyToMemory();
    for (RecordBatch batch : records.batches()) {
      for (Record r : batch) {
        values.add(Workload.value(r.value()));
      }
    }
    return values;
  }
}
