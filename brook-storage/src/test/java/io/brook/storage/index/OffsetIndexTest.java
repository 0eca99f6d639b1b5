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

class OffsetIndexTest {
  private static final long BASE = 1000;
  private static final int ENTRY = OffsetIndex.ENTRY_SIZE;

  @TempDir Path dir;

  private Path file() {
    return dir.resolve("00000000000000001000.index");
  }

  /** Index holding (1010, 100), (1020, 200), (1030, 300). */
  private OffsetIndex threeEntries(int maxIndexSize) throws IOException {
    OffsetIndex index = new OffsetIndex(file(), BASE, maxIndexSize);
    index.append(1010, 100);
    index.append(1020, 200);
    index.append(1030, 300);
    return index;
  }

  /** Writes raw (relative offset, position) pairs, then {@code extraBytes} zero bytes. */
  private static void writeRaw(Path file, int extraBytes, int... relativeOffsetsAndPositions)
      throws IOException {
    ByteBuffer buf = ByteBuffer.allocate(relativeOffsetsAndPositions.length * 4 + extraBytes);
    for (int value : relativeOffsetsAndPositions) {
      buf.putInt(value);
    }
    Files.write(file, buf.array());
  }

  // ---------------------------------------------------------------- append and lookup

  @Test
  void lookupReturnsTheGreatestEntryAtOrBelowTheTarget() throws IOException {
    // Given
    try (OffsetIndex index = threeEntries(100 * ENTRY)) {
      // When / Then
      assertThat(index.lookup(1020)).as("exact").isEqualTo(new OffsetPosition(1020, 200));
      assertThat(index.lookup(1025)).as("between").isEqualTo(new OffsetPosition(1020, 200));
      assertThat(index.lookup(1009)).as("below first").isEqualTo(new OffsetPosition(BASE, 0));
      assertThat(index.lookup(BASE)).as("base").isEqualTo(new OffsetPosition(BASE, 0));
      assertThat(index.lookup(0)).as("below base").isEqualTo(new OffsetPosition(BASE, 0));
      assertThat(index.lookup(1010)).as("first").isEqualTo(new OffsetPosition(1010, 100));
      assertThat(index.lookup(1030)).as("last").isEqualTo(new OffsetPosition(1030, 300));
      assertThat(index.lookup(Long.MAX_VALUE))
          .as("above last")
          .isEqualTo(new OffsetPosition(1030, 300));
    }
  }

  @Test
  void emptyIndexAnswersTheSegmentStart() throws IOException {
    // Given
    try (OffsetIndex index = new OffsetIndex(file(), BASE, 100 * ENTRY)) {
      // When / Then
      assertThat(index.entries()).isZero();
      assertThat(index.lookup(1500)).isEqualTo(new OffsetPosition(BASE, 0));
      assertThat(index.lastEntry()).isEqualTo(new OffsetPosition(BASE, 0));
      assertThat(index.sizeInBytes()).isZero();
      assertThatThrownBy(() -> index.entry(0)).isInstanceOf(IndexOutOfBoundsException.class);
    }
  }

  @Test
  void entryAndLastEntryReturnAbsoluteOffsets() throws IOException {
    // Given
    try (OffsetIndex index = threeEntries(100 * ENTRY)) {
      // When / Then
      assertThat(index.entry(0)).isEqualTo(new OffsetPosition(1010, 100));
      assertThat(index.entry(2)).isEqualTo(new OffsetPosition(1030, 300));
      assertThat(index.lastEntry()).isEqualTo(new OffsetPosition(1030, 300));
      assertThat(index.sizeInBytes()).isEqualTo(3L * ENTRY);
      assertThatThrownBy(() -> index.entry(3)).isInstanceOf(IndexOutOfBoundsException.class);
      assertThatThrownBy(() -> index.entry(-1)).isInstanceOf(IndexOutOfBoundsException.class);
    }
  }

  @Test
  void lookupsFindEveryEntryBeyondTheWarmSection() throws IOException {
    // Given: several times more entries than the warm tail holds
    int count = 5 * AbstractIndex.WARM_SECTION_BYTES / ENTRY;
    try (OffsetIndex index = new OffsetIndex(file(), BASE, count * ENTRY)) {
      for (int i = 0; i < count; i++) {
        index.append(BASE + 1 + 2L * i, 10 * i);
      }

      // When / Then
      for (int i = 0; i < count; i++) {
        OffsetPosition expected = new OffsetPosition(BASE + 1 + 2L * i, 10 * i);
        assertThat(index.lookup(BASE + 1 + 2L * i)).as("exact %d", i).isEqualTo(expected);
        assertThat(index.lookup(BASE + 2 + 2L * i)).as("after %d", i).isEqualTo(expected);
      }
      assertThat(index.lookup(BASE)).isEqualTo(new OffsetPosition(BASE, 0));
      assertThat(index.isFull()).isTrue();
    }
  }

  // ---------------------------------------------------------------- files

  @Test
  void newFileIsPreallocatedToMaxIndexSizeRoundedDown() throws IOException {
    // Given / When
    try (OffsetIndex index = new OffsetIndex(file(), BASE, 1003)) {
      // Then
      assertThat(Files.size(file())).isEqualTo(1000);
      assertThat(index.maxEntries()).isEqualTo(125);
      assertThat(index.entries()).isZero();
      assertThat(index.isFull()).isFalse();
      assertThat(index.file()).isEqualTo(file());
      assertThat(index.baseOffset()).isEqualTo(BASE);
      assertThat(index.maxIndexSize()).isEqualTo(1003);
    }
  }

  @Test
  void anEmptyExistingFileIsTreatedAsNew() throws IOException {
    // Given
    Files.createFile(file());

    // When
    try (OffsetIndex index = new OffsetIndex(file(), BASE, 800)) {
      // Then
      assertThat(Files.size(file())).isEqualTo(800);
      assertThat(index.entries()).isZero();
      assertThat(index.maxEntries()).isEqualTo(100);
    }
  }

  @Test
  void closeTrimsTheFileAndTheEntriesReadBack() throws IOException {
    // Given
    threeEntries(100 * ENTRY).close();

    // When
    long trimmedSize = Files.size(file());
    try (OffsetIndex reopened = new OffsetIndex(file(), BASE, 100 * ENTRY, false)) {
      // Then
      assertThat(trimmedSize).isEqualTo(3L * ENTRY);
      assertThat(reopened.entries()).isEqualTo(3);
      assertThat(reopened.maxEntries()).isEqualTo(3);
      assertThat(reopened.lookup(1025)).isEqualTo(new OffsetPosition(1020, 200));
      assertThat(reopened.lastEntry()).isEqualTo(new OffsetPosition(1030, 300));
      reopened.sanityCheck();
    }
    assertThat(Files.size(file())).as("read-only close leaves the file").isEqualTo(3L * ENTRY);
  }

  @Test
  void reopeningWritableRemapsToMaxIndexSizeAndAppendsContinue() throws IOException {
    // Given
    threeEntries(100 * ENTRY).close();

    // When
    try (OffsetIndex reopened = new OffsetIndex(file(), BASE, 50 * ENTRY + 3)) {
      reopened.append(1040, 400);

      // Then
      assertThat(Files.size(file())).isEqualTo(50L * ENTRY);
      assertThat(reopened.maxEntries()).isEqualTo(50);
      assertThat(reopened.entries()).isEqualTo(4);
      assertThat(reopened.lookup(1035)).isEqualTo(new OffsetPosition(1030, 300));
      assertThat(reopened.lookup(1040)).isEqualTo(new OffsetPosition(1040, 400));
    }
    assertThat(Files.size(file())).isEqualTo(4L * ENTRY);
  }

  @Test
  void reopeningWithASmallerMaxIndexSizeKeepsEveryEntry() throws IOException {
    // Given
    threeEntries(100 * ENTRY).close();

    // When
    try (OffsetIndex reopened = new OffsetIndex(file(), BASE, 2 * ENTRY)) {
      // Then
      assertThat(reopened.entries()).isEqualTo(3);
      assertThat(reopened.isFull()).isTrue();
      assertThat(reopened.lastEntry()).isEqualTo(new OffsetPosition(1030, 300));
    }
  }

  @Test
  void readOnlyIndexRejectsWritesAndAbsentFiles() throws IOException {
    // Given
    threeEntries(100 * ENTRY).close();

    try (OffsetIndex index = new OffsetIndex(file(), BASE, 100 * ENTRY, false)) {
      // When / Then
      assertThatThrownBy(() -> index.append(1040, 400)).isInstanceOf(IllegalStateException.class);
      assertThatThrownBy(() -> index.truncateTo(1020)).isInstanceOf(IllegalStateException.class);
      assertThatThrownBy(() -> index.resize(800)).isInstanceOf(IllegalStateException.class);
      index.flush(); // nothing to flush: not an error
    }
    assertThatThrownBy(() -> new OffsetIndex(dir.resolve("absent.index"), BASE, 800, false))
        .isInstanceOf(IOException.class);
    assertThat(dir.resolve("absent.index")).doesNotExist();
  }

  @Test
  void constructorRejectsBadArguments() {
    // Given / When / Then
    assertThatThrownBy(() -> new OffsetIndex(file(), BASE, ENTRY - 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new OffsetIndex(file(), -1, 800))
        .isInstanceOf(IllegalArgumentException.class);
  }

  // ---------------------------------------------------------------- append rules

  @Test
  void fullIndexRejectsAppends() throws IOException {
    // Given
    try (OffsetIndex index = new OffsetIndex(file(), BASE, 4 * ENTRY)) {
      for (int i = 1; i <= 3; i++) {
        index.append(BASE + i, i);
      }
      assertThat(index.isFull()).isFalse();

      // When
      index.append(BASE + 4, 4);

      // Then
      assertThat(index.isFull()).isTrue();
      assertThatThrownBy(() -> index.append(BASE + 5, 5))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("full");
      assertThat(index.entries()).isEqualTo(4);
    }
  }

  @Test
  void outOfOrderAppendsAreRejected() throws IOException {
    // Given
    try (OffsetIndex index = threeEntries(100 * ENTRY)) {
      // When / Then
      assertThatThrownBy(() -> index.append(1030, 400))
          .as("same offset")
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> index.append(1025, 400))
          .as("smaller offset")
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> index.append(1040, 299))
          .as("smaller position")
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> index.append(1040, -1))
          .as("negative position")
          .isInstanceOf(IllegalArgumentException.class);
      assertThat(index.entries()).isEqualTo(3);

      index.append(1040, 300);
      assertThat(index.lastEntry()).as("equal position").isEqualTo(new OffsetPosition(1040, 300));
    }
  }

  @Test
  void offsetsMustFitRelativeToTheBaseOffset() throws IOException {
    // Given
    try (OffsetIndex index = new OffsetIndex(file(), BASE, 100 * ENTRY)) {
      long maxRelative = BASE + Integer.MAX_VALUE;

      // When / Then
      assertThat(index.canAppendOffset(BASE - 1)).isFalse();
      assertThat(index.canAppendOffset(BASE)).isTrue();
      assertThat(index.canAppendOffset(maxRelative)).isTrue();
      assertThat(index.canAppendOffset(maxRelative + 1)).isFalse();
      assertThat(index.canAppendOffset(Long.MIN_VALUE)).isFalse();
      assertThat(index.canAppendOffset(Long.MAX_VALUE)).isFalse();
      assertThatThrownBy(() -> index.append(maxRelative + 1, 0))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> index.append(BASE - 1, 0))
          .isInstanceOf(IllegalArgumentException.class);

      index.append(BASE, 0);
      index.append(maxRelative, 10);
      assertThat(index.lastEntry()).isEqualTo(new OffsetPosition(maxRelative, 10));
      assertThat(index.lookup(maxRelative - 1)).isEqualTo(new OffsetPosition(BASE, 0));
      index.sanityCheck();
    }
  }

  // ---------------------------------------------------------------- truncation

  @ParameterizedTest(name = "truncateTo({0}) keeps {1} entries")
  @CsvSource({
    "1020, 1", // on an entry: removes it
    "1025, 2", // between entries
    "1010, 0", // on the first entry
    "1005, 0", // before the first entry
    "1000, 0", // the base offset
    "0, 0", // below the base offset
    "1031, 3", // after the last entry
    "9223372036854775807, 3"
  })
  void truncateToRemovesEntriesAtOrAboveTheOffset(long offset, int kept) throws IOException {
    // Given
    try (OffsetIndex index = threeEntries(100 * ENTRY)) {
      // When
      index.truncateTo(offset);

      // Then
      assertThat(index.entries()).isEqualTo(kept);
      assertThat(index.sizeInBytes()).isEqualTo((long) kept * ENTRY);
      OffsetPosition last =
          kept == 0
              ? new OffsetPosition(BASE, 0)
              : new OffsetPosition(1000 + 10 * kept, 100 * kept);
      assertThat(index.lastEntry()).isEqualTo(last);
      assertThat(index.lookup(Long.MAX_VALUE)).isEqualTo(last);
    }
  }

  @Test
  void appendsContinueAfterTruncateTo() throws IOException {
    // Given
    try (OffsetIndex index = threeEntries(100 * ENTRY)) {
      index.truncateTo(1020);

      // When
      index.append(1015, 150);

      // Then
      assertThat(index.entries()).isEqualTo(2);
      assertThat(index.lookup(1025)).isEqualTo(new OffsetPosition(1015, 150));
      index.sanityCheck();
    }
    assertThat(Files.size(file())).isEqualTo(2L * ENTRY);
  }

  @Test
  void truncateRemovesEveryEntry() throws IOException {
    // Given
    try (OffsetIndex index = threeEntries(100 * ENTRY)) {
      // When
      index.truncate();

      // Then
      assertThat(index.entries()).isZero();
      assertThat(index.lookup(1030)).isEqualTo(new OffsetPosition(BASE, 0));
      index.append(BASE, 0);
      assertThat(index.lastEntry()).isEqualTo(new OffsetPosition(BASE, 0));
    }
  }

  // ---------------------------------------------------------------- resize and trim

  @Test
  void resizeRemapsAndKeepsTheEntries() throws IOException {
    // Given
    try (OffsetIndex index = threeEntries(4 * ENTRY)) {
      // When
      index.resize(10 * ENTRY + 5);

      // Then
      assertThat(Files.size(file())).isEqualTo(10L * ENTRY);
      assertThat(index.maxEntries()).isEqualTo(10);
      assertThat(index.lookup(1025)).isEqualTo(new OffsetPosition(1020, 200));
      for (int i = 4; i <= 10; i++) {
        index.append(1030 + i, 300 + i);
      }
      assertThat(index.isFull()).isTrue();
      assertThatThrownBy(() -> index.resize(9 * ENTRY))
          .as("below the entries")
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> index.resize(-1)).isInstanceOf(IllegalArgumentException.class);
      assertThat(index.entries()).isEqualTo(10);
    }
  }

  @Test
  void trimToValidSizeShrinksToTheEntriesAndResizeGrowsBack() throws IOException {
    // Given
    try (OffsetIndex index = threeEntries(100 * ENTRY)) {
      // When
      index.trimToValidSize();

      // Then
      assertThat(Files.size(file())).isEqualTo(3L * ENTRY);
      assertThat(index.maxEntries()).isEqualTo(3);
      assertThat(index.isFull()).isTrue();
      assertThat(index.lookup(1030)).isEqualTo(new OffsetPosition(1030, 300));
      index.sanityCheck();

      index.resize(index.maxIndexSize());
      index.append(1040, 400);
      assertThat(Files.size(file())).isEqualTo(100L * ENTRY);
      assertThat(index.lastEntry()).isEqualTo(new OffsetPosition(1040, 400));
    }
  }

  @Test
  void flushKeepsTheEntries() throws IOException {
    // Given
    try (OffsetIndex index = threeEntries(100 * ENTRY)) {
      // When
      index.flush();

      // Then
      ByteBuffer onDisk = ByteBuffer.wrap(Files.readAllBytes(file()));
      assertThat(onDisk.getInt(2 * ENTRY)).isEqualTo(30);
      assertThat(onDisk.getInt(2 * ENTRY + 4)).isEqualTo(300);
    }
  }

  // ---------------------------------------------------------------- sanity check

  @Test
  void sanityCheckAcceptsGoodFiles() throws IOException {
    // Given
    try (OffsetIndex empty = new OffsetIndex(dir.resolve("empty.index"), BASE, 800);
        OffsetIndex three = threeEntries(800)) {
      // When / Then
      empty.sanityCheck();
      three.sanityCheck();
    }
    try (OffsetIndex reopened = new OffsetIndex(file(), BASE, 800)) {
      reopened.sanityCheck();
    }
  }

  @ParameterizedTest(name = "writable={0}")
  @ValueSource(booleans = {true, false})
  void sanityCheckRejectsALengthThatIsNotWholeEntries(boolean writable) throws IOException {
    // Given: three good entries and half of a fourth
    writeRaw(file(), ENTRY / 2, 10, 100, 20, 200, 30, 300);

    // When
    try (OffsetIndex index = new OffsetIndex(file(), BASE, 800, writable)) {
      // Then
      assertThat(index.entries()).isEqualTo(3);
      assertThat(index.isFull()).as("a torn file is not extended").isTrue();
      assertThat(Files.size(file())).isEqualTo(3L * ENTRY + ENTRY / 2);
      assertThatThrownBy(index::sanityCheck)
          .isInstanceOf(CorruptIndexException.class)
          .hasMessageContaining("not a multiple");
    }
  }

  @Test
  void sanityCheckRejectsTheZeroEntriesAnUncleanShutdownLeaves() throws IOException {
    // Given: what the disk holds when the broker dies with three entries in a preallocated file
    Path crashed = dir.resolve("00000000000000001000.crashed.index");
    try (OffsetIndex index = threeEntries(100 * ENTRY)) {
      index.flush();
      Files.copy(file(), crashed);
    }

    // When
    try (OffsetIndex reopened = new OffsetIndex(crashed, BASE, 100 * ENTRY)) {
      // Then
      assertThat(reopened.entries()).as("every slot counts").isEqualTo(100);
      assertThatThrownBy(reopened::sanityCheck)
          .isInstanceOf(CorruptIndexException.class)
          .hasMessageContaining(crashed.toString())
          .hasMessageContaining("entry 3");
    }
  }

  @Test
  void sanityCheckRejectsAPreallocatedFileWithNoEntries() throws IOException {
    // Given
    Files.write(file(), new byte[10 * ENTRY]);

    // When
    try (OffsetIndex reopened = new OffsetIndex(file(), BASE, 10 * ENTRY, false)) {
      // Then
      assertThatThrownBy(reopened::sanityCheck).isInstanceOf(CorruptIndexException.class);
    }
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "equal offsets, 5, 0, 5, 10",
    "decreasing offsets, 5, 0, 3, 10",
    "decreasing positions, 5, 10, 6, 5",
    "offset below the base, -1, 0, 6, 5",
    "negative position, 5, -1, 6, 5"
  })
  void sanityCheckRejectsEntriesOutOfOrder(
      String problem, int relative0, int position0, int relative1, int position1)
      throws IOException {
    // Given
    writeRaw(file(), 0, 1, 0, relative0, position0, relative1, position1);

    // When
    try (OffsetIndex index = new OffsetIndex(file(), BASE, 800, false)) {
      // Then
      assertThat(index.entries()).isEqualTo(3);
      assertThatThrownBy(index::sanityCheck)
          .as(problem)
          .isInstanceOf(CorruptIndexException.class)
          .hasMessageContaining("entry");
    }
  }

  // ---------------------------------------------------------------- delete, rename, close

  @Test
  void deleteIfExistsClosesAndDeletes() throws IOException {
    // Given
    OffsetIndex index = threeEntries(100 * ENTRY);

    // When
    boolean deleted = index.deleteIfExists();

    // Then
    assertThat(deleted).isTrue();
    assertThat(file()).doesNotExist();
    assertThat(index.deleteIfExists()).isFalse();
    assertThatThrownBy(() -> index.append(1040, 400)).isInstanceOf(IllegalStateException.class);
    index.close();
  }

  @Test
  void renamedIndexKeepsWorking() throws IOException {
    // Given
    Path target = dir.resolve("00000000000000001000.index.deleted");
    try (OffsetIndex index = threeEntries(100 * ENTRY)) {
      // When
      index.renameTo(target);

      // Then
      assertThat(index.file()).isEqualTo(target);
      assertThat(file()).doesNotExist();
      assertThat(index.lookup(1025)).isEqualTo(new OffsetPosition(1020, 200));
      index.append(1040, 400);
      index.sanityCheck();
    }
    assertThat(Files.size(target)).isEqualTo(4L * ENTRY);
  }

  @Test
  void closedIndexAnswersTheSegmentStartAndRejectsWrites() throws IOException {
    // Given
    OffsetIndex index = threeEntries(100 * ENTRY);

    // When
    index.close();
    index.close();

    // Then
    assertThat(index.lookup(1030)).isEqualTo(new OffsetPosition(BASE, 0));
    assertThat(index.lastEntry()).isEqualTo(new OffsetPosition(BASE, 0));
    assertThatThrownBy(() -> index.append(1040, 400)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(index::truncate).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(index::trimToValidSize).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(index::flush).isInstanceOf(IllegalStateException.class);
    assertThat(Files.size(file())).isEqualTo(3L * ENTRY);
  }

  // ---------------------------------------------------------------- against a model

  @ParameterizedTest(name = "seed={0}")
  @ValueSource(longs = {1L, 42L, 20261129L, -7L})
  void randomOperationsMatchASortedMapModel(long seed) throws IOException {
    // Given
    Random random = new Random(seed);
    TreeMap<Long, Integer> model = new TreeMap<>();
    int maxIndexSize = 64 * ENTRY;
    OffsetIndex index = new OffsetIndex(file(), BASE, maxIndexSize);
    int op = 0;
    try {
      for (; op < 30_000; op++) {
        String context = "seed=" + seed + " op=" + op;
        long lastOffset = model.isEmpty() ? BASE - 1 : model.lastKey();
        int lastPosition = model.isEmpty() ? 0 : model.lastEntry().getValue();
        int dice = random.nextInt(10_000);

        // When
        if (dice < 5_000) {
          long offset = lastOffset + 1 + random.nextInt(4);
          int position = lastPosition + random.nextInt(3);
          if (index.isFull()) {
            index.resize((index.maxEntries() + 64) * ENTRY);
          }
          index.append(offset, position);
          model.put(offset, position);
        } else if (dice < 5_200) {
          long offset = lastOffset + 1 - random.nextInt(30);
          index.truncateTo(offset);
          model.tailMap(offset, true).clear();
        } else if (dice < 5_202) {
          long offset = BASE - 2 + random.nextInt((int) (lastOffset - BASE + 5));
          index.truncateTo(offset);
          model.tailMap(offset, true).clear();
        } else if (dice < 5_203) {
          index.truncate();
          model.clear();
        } else if (dice < 5_253) {
          index.trimToValidSize();
          assertThat(Files.size(file())).as(context).isEqualTo((long) model.size() * ENTRY);
          index.resize(Math.max(maxIndexSize, (model.size() + 1) * ENTRY));
        } else if (dice < 5_273) {
          index.close();
          assertThat(Files.size(file())).as(context).isEqualTo((long) model.size() * ENTRY);
          index = new OffsetIndex(file(), BASE, Math.max(maxIndexSize, model.size() * ENTRY));
        } else if (dice < 5_293) {
          long rejected = offsetRejected(random, lastOffset);
          OffsetIndex current = index;
          assertThatThrownBy(() -> current.append(rejected, lastPosition + 1))
              .as(context)
              .isInstanceOf(IllegalArgumentException.class);
        }

        // Then
        assertThat(index.entries()).as(context).isEqualTo(model.size());
        Map.Entry<Long, Integer> last = model.lastEntry();
        assertThat(index.lastEntry()).as(context).isEqualTo(toPosition(last));
        for (int i = 0; i < 3; i++) {
          long target = BASE - 3 + random.nextInt((int) (lastOffset - BASE + 10));
          assertThat(index.lookup(target))
              .as("%s lookup(%d)", context, target)
              .isEqualTo(toPosition(model.floorEntry(target)));
        }
        if (op % 1000 == 0) {
          index.sanityCheck();
          int n = 0;
          for (Map.Entry<Long, Integer> entry : model.entrySet()) {
            assertThat(index.entry(n++)).as(context).isEqualTo(toPosition(entry));
          }
        }
      }
    } catch (RuntimeException e) {
      throw new AssertionError("seed=" + seed + " op=" + op + ": " + e, e);
    } finally {
      index.close();
    }
  }

  /** An offset the index must refuse after {@code lastOffset}: a repeat or a step back. */
  private static long offsetRejected(Random random, long lastOffset) {
    return random.nextBoolean() ? lastOffset : lastOffset - 1 - random.nextInt(5);
  }

  private static OffsetPosition toPosition(Map.Entry<Long, Integer> entry) {
    return entry == null
        ? new OffsetPosition(BASE, 0)
        : new OffsetPosition(entry.getKey(), entry.getValue());
  }

  // ---------------------------------------------------------------- concurrency

  @Test
  void lookupsRacingAppendsAndResizesOnlySeePublishedEntries() throws Exception {
    // Given: the entries the writer will append, known to the reader in advance
    int total = 200_000;
    long[] offsets = new long[total];
    int[] positions = new int[total];
    Random generator = new Random(20261129L);
    long offset = BASE;
    int position = 0;
    for (int i = 0; i < total; i++) {
      offset += 1 + generator.nextInt(3);
      position += generator.nextInt(50);
      offsets[i] = offset;
      positions[i] = position;
    }
    OffsetIndex index = new OffsetIndex(file(), BASE, 1024 * ENTRY);
    AtomicBoolean writerDone = new AtomicBoolean();
    AtomicLong lookups = new AtomicLong();
    ExecutorService readerThread = Executors.newSingleThreadExecutor();
    Future<String> reader =
        readerThread.submit(
            () -> {
              Random random = new Random(7);
              int range = (int) (offsets[total - 1] - BASE + 4);
              while (true) {
                boolean finalPass = writerDone.get();
                int before = index.entries();
                long target = BASE - 2 + random.nextInt(range);
                OffsetPosition answer = index.lookup(target);
                OffsetPosition last = index.lastEntry();
                int after = index.entries();
                int atOrBelow = countAtOrBelow(offsets, target);
                String problem =
                    checkSlot(
                        "lookup(" + target + ")",
                        answer,
                        Math.min(before, atOrBelow) - 1,
                        Math.min(after, atOrBelow) - 1,
                        offsets,
                        positions);
                if (problem == null) {
                  problem = checkSlot("lastEntry", last, before - 1, after - 1, offsets, positions);
                }
                if (problem != null) {
                  return problem;
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
        index.append(offsets[i], positions[i]);
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
      assertThat(lookups.get()).isGreaterThanOrEqualTo(total / 1000);
      assertThat(index.entries()).isEqualTo(total);
    } finally {
      readerThread.shutdownNow();
      index.close();
    }
  }

  private static int countAtOrBelow(long[] offsets, long target) {
    int found = Arrays.binarySearch(offsets, target);
    return found >= 0 ? found + 1 : -found - 1;
  }

  /** Null if {@code answer} is entry {@code slot} for some slot in [lo, hi] (-1: none). */
  private static String checkSlot(
      String what, OffsetPosition answer, int lo, int hi, long[] offsets, int[] positions) {
    int slot;
    if (answer.equals(new OffsetPosition(BASE, 0))) {
      slot = -1;
    } else {
      slot = Arrays.binarySearch(offsets, answer.offset());
      if (slot < 0 || positions[slot] != answer.position()) {
        return what + " returned " + answer + ", never appended";
      }
    }
    if (slot < lo || slot > hi) {
      return what + " returned entry " + slot + ", allowed " + lo + ".." + hi;
    }
    return null;
  }
}
