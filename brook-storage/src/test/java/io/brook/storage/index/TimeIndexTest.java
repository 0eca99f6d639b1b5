package io.brook.storage.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class TimeIndexTest {
  private static final long BASE = 1000;
  private static final int ENTRY = TimeIndex.ENTRY_SIZE;
  private static final TimestampOffset NONE = new TimestampOffset(-1, BASE);

  @TempDir Path dir;

  private Path file() {
    return dir.resolve("00000000000000001000.timeindex");
  }

  /** Index holding (100, 1010), (200, 1020), (300, 1030). */
  private TimeIndex threeEntries(int maxIndexSize) throws IOException {
    TimeIndex index = new TimeIndex(file(), BASE, maxIndexSize);
    index.maybeAppend(100, 1010);
    index.maybeAppend(200, 1020);
    index.maybeAppend(300, 1030);
    return index;
  }

  /** Writes raw entries (timestamps[i], relativeOffsets[i]), then {@code extraBytes} zeros. */
  private static void writeRaw(Path file, int extraBytes, long[] timestamps, int[] relativeOffsets)
      throws IOException {
    ByteBuffer buf = ByteBuffer.allocate(timestamps.length * ENTRY + extraBytes);
    for (int i = 0; i < timestamps.length; i++) {
      buf.putLong(timestamps[i]).putInt(relativeOffsets[i]);
    }
    Files.write(file, buf.array());
  }

  // ---------------------------------------------------------------- append and lookup

  @Test
  void lookupReturnsTheGreatestEntryAtOrBelowTheTarget() throws IOException {
    // Given
    try (TimeIndex index = threeEntries(100 * ENTRY)) {
      // When / Then
      assertThat(index.lookup(200)).as("exact").isEqualTo(new TimestampOffset(200, 1020));
      assertThat(index.lookup(250)).as("between").isEqualTo(new TimestampOffset(200, 1020));
      assertThat(index.lookup(99)).as("below first").isEqualTo(NONE);
      assertThat(index.lookup(-1)).as("no timestamp").isEqualTo(NONE);
      assertThat(index.lookup(100)).as("first").isEqualTo(new TimestampOffset(100, 1010));
      assertThat(index.lookup(300)).as("last").isEqualTo(new TimestampOffset(300, 1030));
      assertThat(index.lookup(Long.MAX_VALUE))
          .as("above last")
          .isEqualTo(new TimestampOffset(300, 1030));
      assertThat(index.entry(1)).isEqualTo(new TimestampOffset(200, 1020));
      assertThat(index.lastEntry()).isEqualTo(new TimestampOffset(300, 1030));
      assertThatThrownBy(() -> index.entry(3)).isInstanceOf(IndexOutOfBoundsException.class);
    }
  }

  @Test
  void emptyIndexAnswersNoTimestampAtTheSegmentStart() throws IOException {
    // Given
    try (TimeIndex index = new TimeIndex(file(), BASE, 100 * ENTRY)) {
      // When / Then
      assertThat(index.entries()).isZero();
      assertThat(index.lookup(Long.MAX_VALUE)).isEqualTo(NONE);
      assertThat(index.lastEntry()).isEqualTo(NONE);
      assertThatThrownBy(() -> index.entry(0)).isInstanceOf(IndexOutOfBoundsException.class);
    }
  }

  @Test
  void maybeAppendAddsAnEntryOnlyWhenTheTimestampGrows() throws IOException {
    // Given
    try (TimeIndex index = threeEntries(100 * ENTRY)) {
      // When
      index.maybeAppend(200, 1040);
      index.maybeAppend(300, 1040);
      index.maybeAppend(301, 1040);
      index.maybeAppend(400, 1040);

      // Then
      assertThat(index.entries()).isEqualTo(5);
      assertThat(index.entry(3)).isEqualTo(new TimestampOffset(301, 1040));
      assertThat(index.lastEntry()).isEqualTo(new TimestampOffset(400, 1040));
      index.sanityCheck();
    }
  }

  @Test
  void firstEntryNeedsARealTimestamp() throws IOException {
    // Given
    try (TimeIndex index = new TimeIndex(file(), BASE, 100 * ENTRY)) {
      // When
      index.maybeAppend(-1, BASE);
      index.maybeAppend(-5, BASE);
      int afterNoTimestamp = index.entries();
      index.maybeAppend(0, BASE);

      // Then
      assertThat(afterNoTimestamp).isZero();
      assertThat(index.lastEntry()).isEqualTo(new TimestampOffset(0, BASE));
    }
  }

  @Test
  void offsetsThatGoBackOrDoNotFitAreRejected() throws IOException {
    // Given
    try (TimeIndex index = threeEntries(100 * ENTRY)) {
      // When / Then
      assertThatThrownBy(() -> index.maybeAppend(400, 1029))
          .as("offset below the last entry's")
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> index.maybeAppend(50, 1029))
          .as("checked even when the timestamp does not grow")
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> index.maybeAppend(400, BASE + Integer.MAX_VALUE + 1L))
          .as("relative offset overflow")
          .isInstanceOf(IllegalArgumentException.class);
      assertThat(index.canAppendOffset(BASE + Integer.MAX_VALUE)).isTrue();
      assertThat(index.canAppendOffset(BASE + Integer.MAX_VALUE + 1L)).isFalse();
      assertThat(index.canAppendOffset(BASE - 1)).isFalse();
      assertThat(index.entries()).isEqualTo(3);

      index.maybeAppend(400, BASE + Integer.MAX_VALUE);
      assertThat(index.lastEntry()).isEqualTo(new TimestampOffset(400, BASE + Integer.MAX_VALUE));
    }
  }

  @Test
  void fullIndexKeepsOneSlotForTheFinalEntryAtRoll() throws IOException {
    // Given: room for four entries, three taken
    try (TimeIndex index = threeEntries(4 * ENTRY)) {
      // When / Then
      assertThat(index.maxEntries()).isEqualTo(4);
      assertThat(index.isFull()).isTrue();
      assertThatThrownBy(() -> index.maybeAppend(400, 1040))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("full");
      index.maybeAppend(300, 1040); // no entry due: no room needed

      index.maybeAppend(400, 1040, true);
      assertThat(index.entries()).isEqualTo(4);
      assertThat(index.lastEntry()).isEqualTo(new TimestampOffset(400, 1040));

      assertThatThrownBy(() -> index.maybeAppend(500, 1050, true))
          .as("skipFullCheck cannot go past the last slot")
          .isInstanceOf(IllegalStateException.class);
      assertThat(index.entries()).isEqualTo(4);
    }
  }

  @Test
  void lookupsFindEveryEntryBeyondTheWarmSection() throws IOException {
    // Given
    int count = 5 * AbstractIndex.WARM_SECTION_BYTES / ENTRY;
    try (TimeIndex index = new TimeIndex(file(), BASE, (count + 1) * ENTRY)) {
      for (int i = 0; i < count; i++) {
        index.maybeAppend(10L * i + 5, BASE + i / 3);
      }

      // When / Then
      for (int i = 0; i < count; i++) {
        TimestampOffset expected = new TimestampOffset(10L * i + 5, BASE + i / 3);
        assertThat(index.lookup(10L * i + 5)).as("exact %d", i).isEqualTo(expected);
        assertThat(index.lookup(10L * i + 14)).as("after %d", i).isEqualTo(expected);
      }
      assertThat(index.lookup(4)).isEqualTo(NONE);
    }
  }

  // ---------------------------------------------------------------- files

  @Test
  void newFileIsPreallocatedToMaxIndexSizeRoundedDown() throws IOException {
    // Given / When
    try (TimeIndex index = new TimeIndex(file(), BASE, 1003)) {
      // Then
      assertThat(Files.size(file())).isEqualTo(996);
      assertThat(index.maxEntries()).isEqualTo(83);
      assertThat(index.entries()).isZero();
      assertThat(index.baseOffset()).isEqualTo(BASE);
    }
  }

  @Test
  void closeTrimsTheFileAndTheEntriesReadBack() throws IOException {
    // Given
    threeEntries(100 * ENTRY).close();

    // When
    long trimmedSize = Files.size(file());
    try (TimeIndex reopened = new TimeIndex(file(), BASE, 100 * ENTRY, false)) {
      // Then
      assertThat(trimmedSize).isEqualTo(3L * ENTRY);
      assertThat(reopened.entries()).isEqualTo(3);
      assertThat(reopened.lookup(250)).isEqualTo(new TimestampOffset(200, 1020));
      assertThatThrownBy(() -> reopened.maybeAppend(400, 1040))
          .isInstanceOf(IllegalStateException.class);
      reopened.sanityCheck();
    }
  }

  @Test
  void reopeningWritableRemapsToMaxIndexSizeAndAppendsContinue() throws IOException {
    // Given
    threeEntries(100 * ENTRY).close();

    // When
    try (TimeIndex reopened = new TimeIndex(file(), BASE, 50 * ENTRY)) {
      reopened.maybeAppend(400, 1040);

      // Then
      assertThat(Files.size(file())).isEqualTo(50L * ENTRY);
      assertThat(reopened.maxEntries()).isEqualTo(50);
      assertThat(reopened.lookup(350)).isEqualTo(new TimestampOffset(300, 1030));
      assertThat(reopened.lastEntry()).isEqualTo(new TimestampOffset(400, 1040));
    }
    assertThat(Files.size(file())).isEqualTo(4L * ENTRY);
  }

  // ---------------------------------------------------------------- truncation

  @ParameterizedTest(name = "truncateTo({0}) keeps {1} entries")
  @CsvSource({
    "1020, 1", // both entries at offset 1020 go
    "1021, 3", "1030, 3", "1031, 4", "1010, 0", "1000, 0", "-5, 0"
  })
  void truncateToRemovesEntriesAtOrAboveTheOffset(long offset, int kept) throws IOException {
    // Given: (100, 1010), (200, 1020), (250, 1020), (300, 1030)
    try (TimeIndex index = new TimeIndex(file(), BASE, 100 * ENTRY)) {
      index.maybeAppend(100, 1010);
      index.maybeAppend(200, 1020);
      index.maybeAppend(250, 1020);
      index.maybeAppend(300, 1030);

      // When
      index.truncateTo(offset);

      // Then
      assertThat(index.entries()).isEqualTo(kept);
      assertThat(index.lookup(Long.MAX_VALUE).offset()).isLessThan(Math.max(offset, BASE + 1));
    }
  }

  @Test
  void truncateRemovesEveryEntryAndLowerTimestampsAreWelcomeAgain() throws IOException {
    // Given
    try (TimeIndex index = threeEntries(100 * ENTRY)) {
      // When
      index.truncate();
      index.maybeAppend(50, 1005);

      // Then
      assertThat(index.entries()).isEqualTo(1);
      assertThat(index.lookup(300)).isEqualTo(new TimestampOffset(50, 1005));
    }
  }

  // ---------------------------------------------------------------- resize and trim

  @Test
  void trimToValidSizeAndResize() throws IOException {
    // Given
    try (TimeIndex index = threeEntries(100 * ENTRY)) {
      // When
      index.trimToValidSize();

      // Then
      assertThat(Files.size(file())).isEqualTo(3L * ENTRY);
      assertThat(index.isFull()).isTrue();
      assertThat(index.lookup(250)).isEqualTo(new TimestampOffset(200, 1020));

      index.resize(10 * ENTRY + 11);
      assertThat(Files.size(file())).isEqualTo(10L * ENTRY);
      assertThat(index.maxEntries()).isEqualTo(10);
      index.maybeAppend(400, 1040);
      assertThat(index.lastEntry()).isEqualTo(new TimestampOffset(400, 1040));
      assertThatThrownBy(() -> index.resize(3 * ENTRY))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  // ---------------------------------------------------------------- sanity check

  @ParameterizedTest(name = "writable={0}")
  @ValueSource(booleans = {true, false})
  void sanityCheckRejectsALengthThatIsNotWholeEntries(boolean writable) throws IOException {
    // Given
    writeRaw(file(), 5, new long[] {100, 200}, new int[] {10, 20});

    // When
    try (TimeIndex index = new TimeIndex(file(), BASE, 100 * ENTRY, writable)) {
      // Then
      assertThat(index.entries()).isEqualTo(2);
      assertThatThrownBy(index::sanityCheck)
          .isInstanceOf(CorruptIndexException.class)
          .hasMessageContaining("not a multiple");
    }
  }

  @Test
  void sanityCheckAcceptsGoodFilesAndRejectsTheZeroEntriesAnUncleanShutdownLeaves()
      throws IOException {
    // Given: what the disk holds when the broker dies with three entries in a preallocated file
    Path crashed = dir.resolve("00000000000000001000.crashed.timeindex");
    try (TimeIndex index = threeEntries(100 * ENTRY)) {
      index.sanityCheck();
      index.flush();
      Files.copy(file(), crashed);
    }

    // When
    try (TimeIndex reopened = new TimeIndex(crashed, BASE, 100 * ENTRY)) {
      // Then
      assertThat(reopened.entries()).isEqualTo(100);
      assertThatThrownBy(reopened::sanityCheck)
          .isInstanceOf(CorruptIndexException.class)
          .hasMessageContaining("entry 3");
    }
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "equal timestamps, 100, 10, 100, 20",
    "decreasing timestamps, 100, 10, 90, 20",
    "decreasing offsets, 100, 10, 200, 5",
    "negative timestamp, -3, 10, 200, 20",
    "offset below the base, 100, -1, 200, 20"
  })
  void sanityCheckRejectsEntriesOutOfOrder(
      String problem, long timestamp0, int relative0, long timestamp1, int relative1)
      throws IOException {
    // Given
    writeRaw(file(), 0, new long[] {timestamp0, timestamp1}, new int[] {relative0, relative1});

    // When
    try (TimeIndex index = new TimeIndex(file(), BASE, 100 * ENTRY, false)) {
      // Then
      assertThatThrownBy(index::sanityCheck)
          .as(problem)
          .isInstanceOf(CorruptIndexException.class)
          .hasMessageContaining("entry");
    }
  }

  // ---------------------------------------------------------------- delete, rename

  @Test
  void deleteIfExistsClosesAndDeletes() throws IOException {
    // Given
    TimeIndex index = threeEntries(100 * ENTRY);

    // When
    boolean deleted = index.deleteIfExists();

    // Then
    assertThat(deleted).isTrue();
    assertThat(file()).doesNotExist();
    assertThat(index.deleteIfExists()).isFalse();
    assertThat(index.lookup(300)).isEqualTo(NONE);
  }

  @Test
  void renamedIndexKeepsWorking() throws IOException {
    // Given
    Path target = dir.resolve("00000000000000001000.timeindex.deleted");
    try (TimeIndex index = threeEntries(100 * ENTRY)) {
      // When
      index.renameTo(target);

      // Then
      assertThat(index.file()).isEqualTo(target);
      assertThat(file()).doesNotExist();
      index.maybeAppend(400, 1040);
      assertThat(index.lookup(450)).isEqualTo(new TimestampOffset(400, 1040));
    }
    assertThat(Files.size(target)).isEqualTo(4L * ENTRY);
  }

  // ---------------------------------------------------------------- against a model

  @ParameterizedTest(name = "seed={0}")
  @ValueSource(longs = {3L, 99L, 20261129L, -11L})
  void randomOperationsMatchASortedMapModel(long seed) throws IOException {
    // Given: the model maps timestamp -> offset
    Random random = new Random(seed);
    TreeMap<Long, Long> model = new TreeMap<>();
    int maxIndexSize = 64 * ENTRY;
    TimeIndex index = new TimeIndex(file(), BASE, maxIndexSize);
    int op = 0;
    try {
      for (; op < 30_000; op++) {
        String context = "seed=" + seed + " op=" + op;
        Map.Entry<Long, Long> lastEntry = model.lastEntry();
        long lastTimestamp = lastEntry == null ? -1 : lastEntry.getKey();
        long lastOffset = lastEntry == null ? BASE : lastEntry.getValue();
        int dice = random.nextInt(10_000);

        // When
        if (dice < 5_000) {
          long timestamp = lastTimestamp + random.nextInt(8) - 2;
          long offset = lastOffset + random.nextInt(3);
          boolean due = timestamp > lastTimestamp;
          boolean skipFullCheck = random.nextInt(4) == 0;
          if (due && index.entries() >= index.maxEntries() - (skipFullCheck ? 0 : 1)) {
            index.resize((index.maxEntries() + 64) * ENTRY);
          }
          index.maybeAppend(timestamp, offset, skipFullCheck);
          if (due) {
            model.put(timestamp, offset);
          }
        } else if (dice < 5_200) {
          long offset = lastOffset + 1 - random.nextInt(10);
          index.truncateTo(offset);
          model.values().removeIf(o -> o >= offset);
        } else if (dice < 5_202) {
          long offset = BASE - 2 + random.nextInt((int) (lastOffset - BASE + 5));
          index.truncateTo(offset);
          model.values().removeIf(o -> o >= offset);
        } else if (dice < 5_203) {
          index.truncate();
          model.clear();
        } else if (dice < 5_253) {
          index.trimToValidSize();
          assertThat(Files.size(file())).as(context).isEqualTo((long) model.size() * ENTRY);
          index.resize(Math.max(maxIndexSize, (model.size() + 2) * ENTRY));
        } else if (dice < 5_273) {
          index.close();
          assertThat(Files.size(file())).as(context).isEqualTo((long) model.size() * ENTRY);
          index = new TimeIndex(file(), BASE, Math.max(maxIndexSize, (model.size() + 2) * ENTRY));
        } else if (dice < 5_293 && lastEntry != null) {
          long rejected = lastOffset - 1 - random.nextInt(5);
          TimeIndex current = index;
          assertThatThrownBy(() -> current.maybeAppend(lastTimestamp + 1, rejected))
              .as(context)
              .isInstanceOf(IllegalArgumentException.class);
        }

        // Then
        assertThat(index.entries()).as(context).isEqualTo(model.size());
        assertThat(index.lastEntry()).as(context).isEqualTo(toTimestampOffset(model.lastEntry()));
        for (int i = 0; i < 3; i++) {
          long target = -3 + random.nextInt((int) Math.max(lastTimestamp, 0) + 10);
          assertThat(index.lookup(target))
              .as("%s lookup(%d)", context, target)
              .isEqualTo(toTimestampOffset(model.floorEntry(target)));
        }
        if (op % 1000 == 0) {
          index.sanityCheck();
          int n = 0;
          for (Map.Entry<Long, Long> entry : model.entrySet()) {
            assertThat(index.entry(n++)).as(context).isEqualTo(toTimestampOffset(entry));
          }
        }
      }
    } catch (RuntimeException e) {
      throw new AssertionError("seed=" + seed + " op=" + op + ": " + e, e);
    } finally {
      index.close();
    }
  }

  private static TimestampOffset toTimestampOffset(Map.Entry<Long, Long> entry) {
    return entry == null ? NONE : new TimestampOffset(entry.getKey(), entry.getValue());
  }

  // ---------------------------------------------------------------- concurrency

  @Test
  void lookupsRacingAppendsAndResizesOnlySeePublishedEntries() throws Exception {
    // Given: the entries the writer will append, known to the reader in advance
    int total = 100_000;
    long[] timestamps = new long[total];
    long[] offsets = new long[total];
    Random generator = new Random(20261129L);
    long timestamp = 1_700_000_000_000L;
    long offset = BASE;
    for (int i = 0; i < total; i++) {
      timestamp += 1 + generator.nextInt(1000);
      offset += generator.nextInt(3);
      timestamps[i] = timestamp;
      offsets[i] = offset;
    }
    TimeIndex index = new TimeIndex(file(), BASE, 1024 * ENTRY);
    AtomicBoolean writerDone = new AtomicBoolean();
    AtomicLong lookups = new AtomicLong();
    ExecutorService readerThread = Executors.newSingleThreadExecutor();
    Future<String> reader =
        readerThread.submit(
            () -> {
              Random random = new Random(7);
              long first = timestamps[0];
              int range = (int) (timestamps[total - 1] - first + 4);
              while (true) {
                boolean finalPass = writerDone.get();
                int before = index.entries();
                long target = first - 2 + random.nextInt(range);
                TimestampOffset answer = index.lookup(target);
                int after = index.entries();
                int found = Arrays.binarySearch(timestamps, target);
                int atOrBelow = found >= 0 ? found + 1 : -found - 1;
                int lo = Math.min(before, atOrBelow) - 1;
                int hi = Math.min(after, atOrBelow) - 1;
                int slot =
                    answer.equals(NONE) ? -1 : Arrays.binarySearch(timestamps, answer.timestamp());
                if (slot < lo || slot > hi || (slot >= 0 && offsets[slot] != answer.offset())) {
                  return "lookup("
                      + target
                      + ") returned "
                      + answer
                      + ", allowed "
                      + lo
                      + ".."
                      + hi;
                }
                lookups.incrementAndGet();
                if (finalPass) {
                  return null;
                }
              }
            });
    await().atMost(Duration.ofSeconds(10)).until(() -> lookups.get() > 0);

    // When
    try {
      for (int i = 0; i < total; i++) {
        if (index.isFull()) {
          index.trimToValidSize();
          index.resize(2 * index.maxEntries() * ENTRY);
        }
        index.maybeAppend(timestamps[i], offsets[i]);
        if (i % 1000 == 999) {
          long seen = lookups.get();
          await()
              .pollDelay(Duration.ZERO)
              .pollInterval(Duration.ofMillis(1))
              .atMost(Duration.ofSeconds(10))
              .until(() -> lookups.get() > seen || reader.isDone());
        }
      }
      writerDone.set(true);

      // Then
      assertThat(reader.get(30, TimeUnit.SECONDS)).isNull();
      assertThat(index.entries()).isEqualTo(total);
    } finally {
      readerThread.shutdownNow();
      index.close();
    }
  }
}
