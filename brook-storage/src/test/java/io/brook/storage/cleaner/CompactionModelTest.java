package io.brook.storage.cleaner;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.storage.log.LogConfig;
import io.brook.storage.log.PartitionLog;
import io.brook.storage.testing.LogFixture;
import java.io.IOException;
import java.nio.file.Path;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.kafka.common.record.internal.CompressionType;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Random sequences of keyed appends (with tombstones and mixed compression), rolls, cleaning passes
 * with key maps of random (often too small) size, clock moves, restarts and crashes, checked
 * against the list of everything appended:
 *
 * <ul>
 *   <li>every record read back was appended, at the same offset, with the same key and value;
 *   <li>offsets strictly increase and the log end never moves;
 *   <li>the latest value of every key whose latest record is not a tombstone reads back exactly; a
 *       key whose latest record is a tombstone reads back as that tombstone or not at all, never as
 *       an older value;
 *   <li>below the offset a pass cleaned up to, every key appears at most once.
 * </ul>
 *
 * A failing seed is printed in the assertion message; pin it in {@link #seeds()} to replay it.
 */
class CompactionModelTest {
  private static final int OPERATIONS_PER_SEED = 150;
  private static final long DELETE_RETENTION_MS = 10_000;

  @TempDir Path root;

  static List<Long> seeds() {
    List<Long> seeds = new ArrayList<>();
    for (long seed = 1; seed <= 8; seed++) {
      seeds.add(seed);
    }
    seeds.add(System.nanoTime());
    return seeds;
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void agreesWithTheLatestValuePerKeyModel(long seed) throws IOException {
    Random random = new Random(seed);
    String context = "seed " + seed;
    LogConfig config =
        LogConfig.builder()
            .compacted(true)
            .segmentBytes(2_000 + random.nextInt(20_000))
            .indexIntervalBytes(random.nextInt(2_000))
            .deleteRetentionMs(DELETE_RETENTION_MS)
            .fileDeleteDelayMs(random.nextBoolean() ? 0 : 1_000)
            .build();
    LogFixture fixture = new LogFixture(root.resolve("s" + seed)).config(config);
    PartitionLog log = fixture.open();
    int keySpace = 3 + random.nextInt(150);
    Map<Long, KeyedRecords.Entry> appended = new HashMap<>();
    List<KeyedRecords.Entry> inOrder = new ArrayList<>();
    long cleanedUpTo = 0;
    StringBuilder trace = new StringBuilder();

    for (int op = 0; op < OPERATIONS_PER_SEED; op++) {
      int choice = random.nextInt(100);
      if (choice < 60) {
        List<Map.Entry<String, String>> batch = new ArrayList<>();
        int count = 1 + random.nextInt(30);
        for (int i = 0; i < count; i++) {
          String key = "k" + random.nextInt(keySpace);
          String value = random.nextInt(10) == 0 ? null : "v" + op + "-" + i;
          batch.add(new AbstractMap.SimpleEntry<>(key, value));
        }
        CompressionType type = CompressionType.values()[random.nextInt(3)];
        long first = log.logEndOffset();
        log.appendAsLeader(KeyedRecords.batch(batch, fixture.time().milliseconds(), type), 0);
        log.updateHighWatermark(log.logEndOffset());
        for (int i = 0; i < batch.size(); i++) {
          var e = new KeyedRecords.Entry(first + i, batch.get(i).getKey(), batch.get(i).getValue());
          appended.put(e.offset(), e);
          inOrder.add(e);
        }
        trace.append("append ").append(count).append(' ').append(type).append('\n');
      } else if (choice < 70) {
        log.roll();
        trace.append("roll\n");
      } else if (choice < 88) {
        int mapBytes = OffsetMap.SLOT_BYTES * (3 + random.nextInt(2 * keySpace));
        Cleaner.Result result = newCleaner(fixture, mapBytes).clean(log, cleanedUpTo);
        trace.append("clean map=").append(mapBytes / OffsetMap.SLOT_BYTES);
        if (result != null && result.swapped()) {
          cleanedUpTo = result.cleanedUpTo();
          trace.append(" upTo=").append(cleanedUpTo);
          assertKeysUniqueBelow(log, cleanedUpTo, context + "\n" + trace);
        }
        trace.append('\n');
      } else if (choice < 94) {
        long ms = random.nextInt((int) DELETE_RETENTION_MS);
        fixture.time().advance(ms);
        log.deletePendingFiles();
        trace.append("advance ").append(ms).append('\n');
      } else if (choice < 97) {
        long end = log.logEndOffset();
        log.close();
        log = fixture.open(log.recoveryPoint(), log.logStartOffset(), end, true);
        trace.append("restart\n");
      } else {
        long end = log.logEndOffset();
        // Abandon the instance as a crash would (everything was flushed at roll or by the cleaner).
        log.flush();
        log = fixture.open(0, log.logStartOffset(), end, false);
        trace.append("crash\n");
      }
      if (choice >= 70) {
        // Appends and rolls cannot change what reads back; checking after them only costs time.
        assertAgrees(log, appended, inOrder, context + "\n" + trace);
      }
    }
    assertAgrees(log, appended, inOrder, context + "\n" + trace);
    log.close();
  }

  private static Cleaner newCleaner(LogFixture fixture, int mapBytes) {
    return new Cleaner(
        new OffsetMap(mapBytes, 0.9),
        512 + new Random(mapBytes).nextInt(4096),
        new Throttler(Double.MAX_VALUE, fixture.time()),
        fixture.time(),
        () -> false);
  }

  private static void assertAgrees(
      PartitionLog log,
      Map<Long, KeyedRecords.Entry> appended,
      List<KeyedRecords.Entry> inOrder,
      String context) {
    long expectedEnd = inOrder.isEmpty() ? 0 : inOrder.get(inOrder.size() - 1).offset() + 1;
    assertThat(log.logEndOffset()).as(context).isEqualTo(expectedEnd);
    List<KeyedRecords.Entry> read = KeyedRecords.readAll(log);
    long previous = -1;
    for (KeyedRecords.Entry e : read) {
      assertThat(e.offset()).as(context).isGreaterThan(previous);
      assertThat(appended.get(e.offset())).as(context).isEqualTo(e);
      previous = e.offset();
    }
    Map<String, KeyedRecords.Entry> expected = KeyedRecords.latestPerKey(inOrder);
    Map<String, KeyedRecords.Entry> actual = KeyedRecords.latestPerKey(read);
    for (KeyedRecords.Entry latest : expected.values()) {
      KeyedRecords.Entry found = actual.get(latest.key());
      if (latest.value() != null) {
        assertThat(found).as(context + "\nkey " + latest.key()).isEqualTo(latest);
      } else if (found != null) {
        assertThat(found).as(context + "\ntombstoned key " + latest.key()).isEqualTo(latest);
      }
    }
  }

  private static void assertKeysUniqueBelow(PartitionLog log, long offset, String context) {
    Set<String> seen = new HashSet<>();
    for (KeyedRecords.Entry e : KeyedRecords.readAll(log)) {
      if (e.offset() < offset) {
        assertThat(seen.add(e.key())).as(context + "\nduplicate " + e).isTrue();
      }
    }
  }
}
