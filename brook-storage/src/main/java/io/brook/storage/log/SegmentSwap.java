package io.brook.storage.log;

import io.brook.storage.checkpoint.AtomicFiles;
import io.brook.storage.segment.LogSegment;
import io.brook.storage.segment.SegmentFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.kafka.common.record.internal.FileLogInputStream.FileChannelRecordBatch;
import org.apache.kafka.common.record.internal.FileRecords;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Replacing a group of segments by one cleaned segment, so that a crash at any point leaves either
 * the old segments or the new one, never a mix that loses or duplicates a record.
 *
 * <p>The cleaner writes {@code <base>.log.cleaned} (plus its indexes), fsyncs it, and renames it to
 * {@code <base>.log.swap} (indexes first, log last). From that rename on, the cleaned segment is
 * the truth: {@link #swap} then renames the old segments to {@code *.deleted} and the swap files to
 * their final names, fsyncing the directory after each step. The cleaned segment always ends at the
 * same offset as the group it replaces (the cleaner keeps an empty batch header at the group's last
 * offset if needed), so recovery can tell exactly which old segments a swap file replaces: those
 * with a base offset in {@code [swap base, swap next offset)}.
 *
 * <p>{@link #recover} runs at load before segments are opened: {@code *.cleaned} files are
 * discarded (the swap had not begun), and every {@code *.log.swap} finishes its swap.
 */
public final class SegmentSwap {
  private static final Logger log = LoggerFactory.getLogger(SegmentSwap.class);

  private SegmentSwap() {}

  /** Called with the log's lock held; see {@link PartitionLog#replaceSegments}. */
  static boolean swap(
      NavigableMap<Long, LogSegment> segments,
      List<LogSegment> replaced,
      LogSegment cleaned,
      SegmentDeleter deleter,
      long fileDeleteDelayMs)
      throws IOException {
    for (LogSegment old : replaced) {
      if (segments.get(old.baseOffset()) != old) {
        return false;
      }
    }
    if (segments.lastEntry().getValue() == replaced.get(replaced.size() - 1)) {
      throw new IllegalStateException("the active segment is never cleaned");
    }
    Path dir = cleaned.file().logPath().getParent();
    for (LogSegment old : replaced) {
      segments.remove(old.baseOffset());
    }
    deleter.scheduleDelete(replaced, fileDeleteDelayMs);
    AtomicFiles.fsyncDirectory(dir);
    cleaned.changeFileSuffixes(SegmentFiles.SWAP_SUFFIX, "");
    AtomicFiles.fsyncDirectory(dir);
    segments.put(cleaned.baseOffset(), cleaned);
    return true;
  }

  /**
   * Discards half-written cleaned segments and finishes interrupted swaps in {@code dir}; runs at
   * load, before any segment is opened.
   */
  static void recover(Path dir) throws IOException {
    TreeMap<Long, Path> swaps = new TreeMap<>();
    TreeMap<Long, Path> logs = new TreeMap<>();
    List<Path> leftovers = new ArrayList<>();
    List<Path> txnSwaps = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        String name = file.getFileName().toString();
        OptionalLong swapBase =
            SegmentFiles.baseOffsetOf(file, SegmentFiles.LOG_SUFFIX + SegmentFiles.SWAP_SUFFIX);
        OptionalLong logBase = SegmentFiles.baseOffsetOf(file, SegmentFiles.LOG_SUFFIX);
        if (swapBase.isPresent()) {
          swaps.put(swapBase.getAsLong(), file);
        } else if (logBase.isPresent()) {
          logs.put(logBase.getAsLong(), file);
        } else if (SegmentFiles.baseOffsetOf(
                file, SegmentFiles.TXN_INDEX_SUFFIX + SegmentFiles.SWAP_SUFFIX)
            .isPresent()) {
          // Kept for its swap: unlike the other indexes it cannot be rebuilt from its log file.
          txnSwaps.add(file);
        } else if (name.endsWith(SegmentFiles.CLEANED_SUFFIX)
            || name.endsWith(SegmentFiles.SWAP_SUFFIX)) {
          // An index still named .swap is rebuilt from its log file at load.
          leftovers.add(file);
        }
      }
    }
    for (Path file : leftovers) {
      log.info("Deleting leftover of an interrupted cleaning file={}", file);
      Files.deleteIfExists(file);
    }
    for (var swap : swaps.entrySet()) {
      finishSwap(dir, swap.getKey(), swap.getValue(), logs);
    }
    for (Path file : txnSwaps) {
      // Still there: its log file never reached .swap, so the cleaning is discarded.
      Files.deleteIfExists(file);
    }
    if (!swaps.isEmpty() || !leftovers.isEmpty()) {
      AtomicFiles.fsyncDirectory(dir);
    }
  }

  private static void finishSwap(Path dir, long base, Path swapFile, NavigableMap<Long, Path> logs)
      throws IOException {
    long end = nextOffset(swapFile, base);
    for (var old : new ArrayList<>(logs.subMap(base, true, end, false).entrySet())) {
      long oldBase = old.getKey();
      Files.deleteIfExists(SegmentFiles.offsetIndexFile(dir, oldBase));
      Files.deleteIfExists(SegmentFiles.timeIndexFile(dir, oldBase));
      if (oldBase != base) {
        Files.deleteIfExists(SegmentFiles.txnIndexFile(dir, oldBase));
      }
      Files.deleteIfExists(old.getValue());
      logs.remove(oldBase);
    }
    // Its indexes are rebuilt from the log file by the loader, which finds them missing.
    Files.deleteIfExists(SegmentFiles.offsetIndexFile(dir, base));
    Files.deleteIfExists(SegmentFiles.timeIndexFile(dir, base));
    // Renamed before the log file: if its .swap is gone, the final name already holds the new one.
    Path txnSwap = SegmentFiles.txnIndexFileFor(swapFile);
    if (Files.exists(txnSwap)) {
      Files.move(
          txnSwap, SegmentFiles.txnIndexFile(dir, base), StandardCopyOption.REPLACE_EXISTING);
    }
    Files.move(swapFile, SegmentFiles.logFile(dir, base), StandardCopyOption.REPLACE_EXISTING);
    logs.put(base, SegmentFiles.logFile(dir, base));
    log.info(
        "Finished an interrupted segment swap dir={} baseOffset={} endOffset={}", dir, base, end);
  }

  /** The offset after the last batch of a complete (fsynced before its rename) swap file. */
  private static long nextOffset(Path swapFile, long base) throws IOException {
    long next = base;
    try (FileRecords records = FileRecords.open(swapFile.toFile(), false)) {
      for (FileChannelRecordBatch batch : records.batches()) {
        next = batch.nextOffset();
      }
    }
    return next;
  }
}
