package io.brook.storage.log;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.storage.testing.LogFixture;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Random sequences of append / read / roll / truncate / restart / crash / time lookup / log-start
 * moves, checked after every step against a plain in-memory list of batches. A failing seed is
 * printed in the assertion message; pin it in {@link #seeds()} to replay it.
 */
class PartitionLogModelTest {
  private static final int OPERATIONS_PER_SEED = 400;

  @TempDir Path root;

  static List<Long> seeds() {
    List<Long> seeds = new ArrayList<>();
    for (long seed = 1; seed <= 16; seed++) {
      seeds.add(seed);
    }
    seeds.add(System.nanoTime());
    return seeds;
  }

  /** One batch of the model: its offsets, timestamps and values. */
  private record ModelBatch(long baseOffset, long[] timestamps, String[] values) {
    long lastOffset() {
      return baseOffset + values.length - 1;
    }
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void agreesWithASimpleModel(long seed) throws IOException {
    Random random = new Random(seed);
    String context = "seed " + seed;
    LogConfig config =
        LogConfig.builder()
            .segmentBytes(1_000 + random.nextInt(8_000))
            .segmentIndexBytes(8 * (4 + random.nextInt(60)))
            .indexIntervalBytes(random.nextInt(2_000))
            .build();
    LogFixture fixture = new LogFixture(root.resolve("s" + seed)).config(config);
    PartitionLog log = fixture.open();
    List<ModelBatch> model = new ArrayList<>();
    long logStart = 0;
    long end = 0;
    long nextTimestamp = 1_000_000;
    int epoch = 0;
    StringBuilder trace = new StringBuilder();

    for (int op = 0; op < OPERATIONS_PER_SEED; op++) {
      int choice = random.nextInt(100);
      if (choice < 50) {
        int count = 1 + random.nextInt(8);
        long[] timestamps = new long[count];
        String[] values = new String[count];
        SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
          nextTimestamp += random.nextInt(20);
          timestamps[i] = nextTimestamp - random.nextInt(40);
          values[i] = "v" + op + "-" + i + "-" + "x".repeat(random.nextInt(300));
          records[i] =
              new SimpleRecord(
                  timestamps[i],
                  ("k" + random.nextInt(10)).getBytes(StandardCharsets.UTF_8),
                  values[i].getBytes(StandardCharsets.UTF_8));
        }
        if (random.nextInt(10) == 0) {
          epoch++;
        }
        Compression compression =
            random.nextBoolean() ? Compression.NONE : Compression.lz4().build();
        LogAppendInfo info =
            log.appendAsLeader(MemoryRecords.withRecords(compression, records), epoch);
        trace.append("append ").append(count).append(" @").append(end).append('\n');
        assertThat(info.firstOffset()).as(context).isEqualTo(end);
        model.add(new ModelBatch(end, timestamps, values));
        end += count;
      } else if (choice < 70) {
        if (end > logStart) {
          long from = logStart + (long) (random.nextDouble() * (end - logStart));
          long bound = from + 1 + (long) (random.nextDouble() * (end - from));
          checkRead(log, model, from, bound, context + "\n" + trace);
        }
      } else if (choice < 75) {
        log.roll();
        trace.append("roll\n");
      } else if (choice < 82) {
        if (end > logStart) {
          long target = logStart + (long) (random.nextDouble() * (end - logStart));
          log.truncateTo(target);
          trace.append("truncateTo ").append(target).append('\n');
          // A batch is the unit of truncation: offsets below target in a cut batch go too.
          for (ModelBatch batch : model) {
            if (batch.lastOffset() >= target) {
              end = Math.min(end, batch.baseOffset());
            }
          }
          model.removeIf(b -> b.lastOffset() >= target);
          logStart = Math.min(logStart, end);
        }
      } else if (choice < 86) {
        log.close();
        log = fixture.open(log.recoveryPoint(), log.logStartOffset(), log.highWatermark(), true);
        trace.append("restart\n");
      } else if (choice < 89) {
        long recoveryPoint = log.recoveryPoint();
        long start = log.logStartOffset();
        // Abandon the instance as a crash would; nothing past the recovery point is trusted.
        log = fixture.open(recoveryPoint, start, 0, false);
        trace.append("crash\n");
      } else if (choice < 96) {
        long target = nextTimestamp - random.nextInt(3_000);
        checkTimeLookup(log, model, logStart, target, context + "\n" + trace);
      } else {
        if (end > logStart) {
          long newStart = logStart + (long) (random.nextDouble() * (end - logStart));
          log.updateHighWatermark(end);
          log.maybeIncrementLogStartOffset(newStart);
          logStart = newStart;
          long startCopy = logStart;
          model.removeIf(b -> b.lastOffset() < startCopy);
          trace.append("logStart ").append(newStart).append('\n');
        }
      }
      assertThat(log.logEndOffset()).as(context + "\n" + trace).isEqualTo(end);
      assertThat(log.logStartOffset()).as(context).isEqualTo(logStart);
      assertThat(log.leaderEpochCache().latestEpoch().orElse(-1))
          .as(context)
          .isLessThanOrEqualTo(epoch);
    }
    log.close();
  }

  private static void checkRead(
      PartitionLog log, List<ModelBatch> model, long from, long bound, String context) {
    MemoryRecords read = log.read(from, 1 << 20, bound, false).slice().copyToMemory();
    List<String> expected = new ArrayList<>();
    for (ModelBatch batch : model) {
      if (batch.lastOffset() < from) {
        continue;
      }
      if (batch.lastOffset() >= bound) {
        break;
      }
      for (int i = 0; i < batch.values().length; i++) {
        expected.add((batch.baseOffset() + i) + "=" + batch.values()[i]);
      }
      // Reads return whole batches from one segment; compare only as far as the log returned.
    }
    List<String> actual = new ArrayList<>();
    for (RecordBatch batch : read.batches()) {
      for (var record : batch) {
        assertThat(record.offset()).as(context).isLessThan(bound);
        actual.add(record.offset() + "=" + StandardCharsets.UTF_8.decode(record.value()));
      }
    }
    assertThat(actual.isEmpty())
        .as(context + "read " + from + " bound " + bound)
        .isEqualTo(expected.isEmpty());
    assertThat(expected)
        .as(context + "read " + from + " bound " + bound)
        .startsWith(actual.toArray(new String[0]));
  }

  private static void checkTimeLookup(
      PartitionLog log, List<ModelBatch> model, long logStart, long target, String context) {
    Optional<Long> expected = Optional.empty();
    outer:
    for (ModelBatch batch : model) {
      for (int i = 0; i < batch.timestamps().length; i++) {
        long offset = batch.baseOffset() + i;
        if (offset >= logStart && batch.timestamps()[i] >= target) {
          expected = Optional.of(offset);
          break outer;
        }
      }
    }
    Optional<FileRecords.TimestampAndOffset> found =
        log.offsetForTimestamp(target, log.logEndOffset());
    assertThat(found.map(t -> t.offset)).as(context + "time " + target).isEqualTo(expected);
  }
}
