package io.brook.storage.cleaner;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.storage.log.LogConfig;
import io.brook.storage.log.PartitionLog;
import io.brook.storage.segment.LogSegment;
import io.brook.storage.testing.LogFixture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.common.record.internal.CompressionType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The crash points of a segment swap, built deterministically: a copy of the log is cleaned, and
 * its cleaned segment is put back into the uncleaned log under the name a crash would have left.
 */
class SwapRecoveryTest {
  @TempDir Path root;

  private static final LogConfig CONFIG =
      LogConfig.builder().compacted(true).segmentBytes(4_000).fileDeleteDelayMs(0).build();

  /** A closed compacted log of 8 segments holding 30 keys × 8 versions. */
  private LogFixture writeLog(Path at) {
    LogFixture fixture = new LogFixture(at).config(CONFIG);
    PartitionLog log = fixture.open();
    for (int v = 0; v < 8; v++) {
      List<Map.Entry<String, String>> batch = new ArrayList<>();
      for (int k = 0; k < 30; k++) {
        batch.add(new AbstractMap.SimpleEntry<>("k" + k, "v" + v + "-" + k));
      }
      log.appendAsLeader(
          KeyedRecords.batch(batch, fixture.time().milliseconds(), CompressionType.NONE), 0);
      log.roll();
    }
    log.updateHighWatermark(log.logEndOffset());
    closeQuietly(log);
    return fixture;
  }

  @Test
  void aSwapFileFoundAtLoadReplacesExactlyTheSegmentsItCovers() throws Exception {
    // Given: the original log, and a copy whose first group was cleaned into one segment
    LogFixture original = writeLog(root.resolve("a"));
    List<KeyedRecords.Entry> before = readAll(original);
    LogFixture copy = new LogFixture(root.resolve("b")).config(CONFIG);
    copyTree(original.dir(), copy.dir());
    PartitionLog cleanedLog = copy.open(0, 0, 240, true);
    new Cleaner(new OffsetMap(1 << 16, 0.9), 4096, unthrottled(copy), copy.time(), () -> false)
        .clean(cleanedLog, 0);
    LogSegment firstCleaned = cleanedLog.segments().iterator().next();
    long swapEnd = firstCleaned.readNextOffset();
    closeQuietly(cleanedLog);
    assertThat(swapEnd).isGreaterThan(30);

    // When: a crash left that cleaned segment as a .swap file beside the old segments
    Files.copy(
        copy.dir().resolve("00000000000000000000.log"),
        original.dir().resolve("00000000000000000000.log.swap"));
    PartitionLog recovered = original.openAfterCrash(0);
    recovered.updateHighWatermark(recovered.logEndOffset());

    // Then: below the swap's end the cleaned records, above it the old ones, nothing else
    List<KeyedRecords.Entry> actual = KeyedRecords.readAll(recovered);
    List<KeyedRecords.Entry> cleanedPart =
        before.stream()
            .filter(e -> e.offset() >= swapEnd || e.offset() == latestOffsetOf(before, e.key()))
            .toList();
    assertThat(actual).isEqualTo(cleanedPart);
    assertThat(KeyedRecords.latestPerKey(actual)).isEqualTo(KeyedRecords.latestPerKey(before));
    assertThat(recovered.segments().stream().map(LogSegment::baseOffset))
        .allMatch(base -> base == 0 || base >= swapEnd);
    assertThat(names(original.dir())).noneMatch(n -> n.endsWith(".swap"));
    closeQuietly(recovered);
  }

  @Test
  void cleanedFilesFoundAtLoadAreDiscarded() throws Exception {
    // Given: a crash while the cleaner was still writing
    LogFixture original = writeLog(root.resolve("a"));
    List<KeyedRecords.Entry> before = readAll(original);
    Files.write(original.dir().resolve("00000000000000000000.log.cleaned"), new byte[100]);
    Files.write(original.dir().resolve("00000000000000000000.index.cleaned"), new byte[8]);
    Files.write(original.dir().resolve("00000000000000000000.index.swap"), new byte[8]);

    // When
    PartitionLog recovered = original.openAfterCrash(0);
    recovered.updateHighWatermark(recovered.logEndOffset());

    // Then
    assertThat(KeyedRecords.readAll(recovered)).isEqualTo(before);
    assertThat(names(original.dir())).noneMatch(n -> n.endsWith(".cleaned") || n.endsWith(".swap"));
    closeQuietly(recovered);
  }

  private static long latestOffsetOf(List<KeyedRecords.Entry> entries, String key) {
    return KeyedRecords.latestPerKey(entries).get(key).offset();
  }

  private static List<KeyedRecords.Entry> readAll(LogFixture fixture) {
    PartitionLog log = fixture.open(0, 0, Long.MAX_VALUE, true);
    List<KeyedRecords.Entry> out = KeyedRecords.readAll(log);
    closeQuietly(log);
    return out;
  }

  private static Throttler unthrottled(LogFixture fixture) {
    return new Throttler(Double.MAX_VALUE, fixture.time());
  }

  private static List<String> names(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString()).toList();
    }
  }

  private static void copyTree(Path from, Path to) throws IOException {
    Files.createDirectories(to);
    try (Stream<Path> files = Files.list(from)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        Files.copy(file, to.resolve(file.getFileName()));
      }
    }
  }

  private static void closeQuietly(PartitionLog log) {
    try {
      log.close();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
