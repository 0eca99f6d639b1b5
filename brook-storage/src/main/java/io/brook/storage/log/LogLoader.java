package io.brook.storage.log;

import io.brook.storage.epoch.LeaderEpochCache;
import io.brook.storage.index.CorruptIndexException;
import io.brook.storage.producer.ProducerStateManager;
import io.brook.storage.segment.LogSegment;
import io.brook.storage.segment.PinnedSegment;
import io.brook.storage.segment.SegmentFiles;
import io.brook.storage.txn.CompletedTxn;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.kafka.common.record.internal.FileLogInputStream.FileChannelRecordBatch;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens a partition directory: removes leftovers of interrupted operations, opens every segment,
 * rebuilds missing or corrupt indexes, and after an unclean shutdown re-validates every batch past
 * the recovery point, truncating a torn or corrupt tail. Then restores leader epochs and producer
 * state to match the log end.
 */
final class LogLoader {
  private static final Logger log = LoggerFactory.getLogger(LogLoader.class);

  private final Path dir;
  private final LogConfig config;
  private final LogOpenOptions options;

  LogLoader(Path dir, LogConfig config, LogOpenOptions options) {
    this.dir = dir;
    this.config = config;
    this.options = options;
  }

  PartitionLog load() throws IOException {
    // A directory created just now holds nothing to recover, list or read: creating a topic's
    // logs then costs a directory and three empty segment files each, which matters when a
    // broker creates tens of thousands of them.
    boolean created = createDirectory(dir);
    if (!created) {
      SegmentSwap.recover(dir);
    }
    TreeSet<Long> bases = created ? new TreeSet<>() : cleanDirectoryAndListSegments();
    LeaderEpochCache epochs =
        created ? LeaderEpochCache.forNewLog(dir) : LeaderEpochCache.loadOrRebuild(dir);
    ProducerStateManager producers =
        created
            ? ProducerStateManager.forNewLog(dir, options.time(), options.producerIdExpirationMs())
            : new ProducerStateManager(dir, options.time(), options.producerIdExpirationMs());
    ConcurrentNavigableMap<Long, LogSegment> segments = new ConcurrentSkipListMap<>();
    boolean truncatedByRecovery = false;
    if (bases.isEmpty()) {
      long start = Math.max(0, options.logStartOffset());
      segments.put(start, LogSegment.create(dir, start, config, options.time(), options.files()));
    } else {
      openSegments(bases, segments);
      if (epochs.needsRebuild()) {
        rebuildEpochsBelowRecovery(segments, epochs);
      }
      if (!options.hadCleanShutdown()) {
        truncatedByRecovery = recover(segments, epochs);
      }
    }
    LogSegment active = segments.lastEntry().getValue();
    long logEnd = active.readNextOffset();
    long logStart = Math.max(options.logStartOffset(), segments.firstKey());
    if (logStart > logEnd) {
      log.warn(
          "Log start offset is past the recovered log end; starting empty topicPartition={}"
              + " logStartOffset={} logEndOffset={}",
          options.topicPartition(),
          logStart,
          logEnd);
      for (LogSegment segment : segments.values()) {
        segment.deleteIfExists();
      }
      segments.clear();
      segments.put(
          logStart, LogSegment.create(dir, logStart, config, options.time(), options.files()));
      epochs.clear();
      logEnd = logStart;
    }
    epochs.truncateFromEndOnLoad(logEnd);
    epochs.truncateFromStart(logStart);
    if (epochs.needsRebuild() && !bases.isEmpty()) {
      epochs.persistRebuilt();
    }
    rebuildProducerState(producers, segments, logStart, logEnd);
    long recoveryPoint = logEnd;
    if (truncatedByRecovery) {
      // The cut, and the epochs recovery assigned without fsync, must be on disk before the
      // recovery point passes them. Otherwise the recovery point stays (unclean) or nothing was
      // assigned (clean), and the epoch checkpoint is written with the log's next flush.
      epochs.flush();
      for (LogSegment segment : segmentsFromRecoveryPoint(segments).values()) {
        segment.flush();
      }
    } else if (!options.hadCleanShutdown()) {
      // As Kafka does: the checked tail is not forced to disk here (an fsync per partition would
      // dominate a restart with thousands of partitions); the recovery point stays where it was,
      // so a crash before the next flush re-validates the same bytes again.
      recoveryPoint = Math.max(logStart, Math.min(options.recoveryPoint(), logEnd));
    }
    return new PartitionLog(
        dir, config, options, segments, epochs, producers, logStart, recoveryPoint);
  }

  /** Creates the partition directory (and its parents); true if it did not exist before. */
  private static boolean createDirectory(Path dir) throws IOException {
    try {
      Files.createDirectory(dir);
      return true;
    } catch (FileAlreadyExistsException e) {
      if (!Files.isDirectory(dir)) {
        throw e;
      }
      return false;
    } catch (NoSuchFileException e) {
      Files.createDirectories(dir);
      return true;
    }
  }

  /** Deletes half-done files and orphan indexes; returns the base offsets of the segments. */
  private TreeSet<Long> cleanDirectoryAndListSegments() throws IOException {
    TreeSet<Long> bases = new TreeSet<>();
    List<Path> indexes = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        String name = file.getFileName().toString();
        if (name.endsWith(SegmentFiles.TMP_SUFFIX) || name.endsWith(SegmentFiles.DELETED_SUFFIX)) {
          log.info("Deleting leftover file {}", file);
          Files.deleteIfExists(file);
          continue;
        }
        OptionalLong base = SegmentFiles.baseOffsetOf(file, SegmentFiles.LOG_SUFFIX);
        if (base.isPresent()) {
          bases.add(base.getAsLong());
        } else if (name.endsWith(SegmentFiles.INDEX_SUFFIX)
            || name.endsWith(SegmentFiles.TIME_INDEX_SUFFIX)
            || name.endsWith(SegmentFiles.TXN_INDEX_SUFFIX)) {
          indexes.add(file);
        }
      }
    }
    for (Path index : indexes) {
      String name = index.toString();
      String suffix =
          name.endsWith(SegmentFiles.INDEX_SUFFIX)
              ? SegmentFiles.INDEX_SUFFIX
              : name.endsWith(SegmentFiles.TXN_INDEX_SUFFIX)
                  ? SegmentFiles.TXN_INDEX_SUFFIX
                  : SegmentFiles.TIME_INDEX_SUFFIX;
      OptionalLong base = SegmentFiles.baseOffsetOf(index, suffix);
      if (base.isEmpty() || !bases.contains(base.getAsLong())) {
        log.info("Deleting index without a log file {}", index);
        Files.deleteIfExists(index);
      }
    }
    return bases;
  }

  private void openSegments(TreeSet<Long> bases, Map<Long, LogSegment> segments)
      throws IOException {
    long last = bases.last();
    for (long base : bases) {
      boolean active = base == last;
      boolean indexesPresent =
          Files.exists(SegmentFiles.offsetIndexFile(dir, base))
              && Files.exists(SegmentFiles.timeIndexFile(dir, base));
      LogSegment segment =
          LogSegment.open(
              dir, base, config, options.time(), active || !indexesPresent, options.files());
      if (!indexesPresent) {
        log.warn("Rebuilding missing index segment={} dir={}", base, dir);
        rebuildIndexes(segment, active);
      } else if (willRecover(base, bases)) {
        // Re-validated batch by batch below; checking its index first would be wasted work.
        log.debug("Index of segment {} will be rebuilt by recovery", base);
      } else {
        try {
          segment.sanityCheck();
        } catch (CorruptIndexException e) {
          log.warn(
              "Rebuilding corrupt index segment={} dir={} reason={}", base, dir, e.getMessage());
          rebuildIndexes(segment, active);
        }
      }
      segments.put(base, segment);
    }
  }

  /** Whether recovery after an unclean shutdown will rebuild this segment's indexes anyway. */
  private boolean willRecover(long base, TreeSet<Long> bases) {
    if (options.hadCleanShutdown()) {
      return false;
    }
    Long first = bases.floor(options.recoveryPoint());
    return first == null || base >= first;
  }

  private static void rebuildIndexes(LogSegment segment, boolean active) throws IOException {
    int truncated = segment.recover(batch -> {});
    if (truncated > 0) {
      log.warn(
          "Truncated invalid bytes while rebuilding an index segment={} bytes={}",
          segment.baseOffset(),
          truncated);
    }
    if (!active) {
      segment.onBecomeInactiveSegment();
    }
  }

  /**
   * Re-validates the segments from the one holding the recovery point on; in that one, only from
   * the last indexed batch below the recovery point (see {@link LogSegment#recoverFrom}), so a log
   * with nothing unflushed costs a few reads. At the first invalid batch the segment is truncated
   * and every later segment deleted: nothing after a tear can be trusted to follow it.
   *
   * @return whether anything was truncated
   */
  private boolean recover(
      ConcurrentNavigableMap<Long, LogSegment> segments, LeaderEpochCache epochs)
      throws IOException {
    List<LogSegment> toCheck = new ArrayList<>(segmentsFromRecoveryPoint(segments).values());
    long lastBase = segments.lastKey();
    Consumer<RecordBatch> onBatch =
        batch -> {
          try {
            assignEpoch(epochs, batch);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        };
    // Epochs re-derived from scratch need every batch from the segment's start.
    boolean trustPrefix = !epochs.needsRebuild();
    for (int i = 0; i < toCheck.size(); i++) {
      LogSegment segment = toCheck.get(i);
      int truncated =
          i == 0 && trustPrefix
              ? segment.recoverFrom(options.recoveryPoint(), onBatch)
              : segment.recover(onBatch);
      if (segment.baseOffset() != lastBase) {
        segment.onBecomeInactiveSegment();
      }
      if (truncated > 0) {
        // Aborts whose marker was cut go too; replay re-adds any the log still holds.
        segment.txnIndex().truncateTo(segment.readNextOffset());
        log.warn(
            "Truncated torn or corrupt tail topicPartition={} segment={} bytes={} newEnd={}",
            options.topicPartition(),
            segment.baseOffset(),
            truncated,
            segment.readNextOffset());
        dropSegmentsAfter(segments, toCheck.subList(i + 1, toCheck.size()));
        if (segment.baseOffset() != lastBase) {
          segment.makeActive();
        }
        return true;
      }
    }
    return false;
  }

  /**
   * Re-derives the epochs of the batches that recovery will not visit, for a checkpoint that was
   * missing or unreadable (an unsynced replace can leave it empty after a power loss). Reads only
   * batch headers. After an unclean shutdown, recovery covers the rest from the recovery point.
   */
  private void rebuildEpochsBelowRecovery(
      ConcurrentNavigableMap<Long, LogSegment> segments, LeaderEpochCache epochs)
      throws IOException {
    Map<Long, LogSegment> toScan = segments;
    if (!options.hadCleanShutdown()) {
      Long from = segments.floorKey(options.recoveryPoint());
      toScan = from == null ? Map.of() : segments.headMap(from);
    }
    if (toScan.values().stream().allMatch(segment -> segment.sizeInBytes() == 0)) {
      return;
    }
    log.warn(
        "Rebuilding leader epochs from batch headers topicPartition={} segments={}",
        options.topicPartition(),
        toScan.size());
    for (LogSegment segment : toScan.values()) {
      try (PinnedSegment pinned = segment.pin()) {
        for (FileChannelRecordBatch batch : pinned.records().batches()) {
          assignEpoch(epochs, batch);
        }
      }
    }
  }

  /** The segments that may hold data written after the last flush. */
  private Map<Long, LogSegment> segmentsFromRecoveryPoint(
      ConcurrentNavigableMap<Long, LogSegment> segments) {
    Long from = segments.floorKey(options.recoveryPoint());
    return from == null ? segments : segments.tailMap(from);
  }

  private void dropSegmentsAfter(
      ConcurrentNavigableMap<Long, LogSegment> segments, List<LogSegment> later)
      throws IOException {
    for (LogSegment segment : later) {
      log.warn(
          "Deleting segment after a corrupt one topicPartition={} segment={} bytes={}",
          options.topicPartition(),
          segment.baseOffset(),
          segment.sizeInBytes());
      segments.remove(segment.baseOffset());
      segment.deleteIfExists();
    }
  }

  private static void assignEpoch(LeaderEpochCache epochs, RecordBatch batch) throws IOException {
    int epoch = batch.partitionLeaderEpoch();
    if (epoch >= 0 && epochs.latestEpoch().orElse(-1) < epoch) {
      epochs.assign(epoch, batch.baseOffset());
    }
  }

  /**
   * Loads the newest producer snapshot at or below the log end and replays the batches after it, so
   * that sequence checks continue exactly where the log ends.
   */
  static void rebuildProducerState(
      ProducerStateManager producers,
      ConcurrentNavigableMap<Long, LogSegment> segments,
      long logStartOffset,
      long logEndOffset)
      throws IOException {
    producers.truncateAndReload(logStartOffset, logEndOffset);
    long from = producers.mapEndOffset();
    if (from < logEndOffset) {
      ProducerStateManager.Append replay = producers.beginAppend(false);
      Long firstBase = segments.floorKey(from);
      Map<Long, LogSegment> tail = firstBase == null ? segments : segments.tailMap(firstBase);
      for (LogSegment segment : tail.values()) {
        try (PinnedSegment pinned = segment.pin()) {
          for (FileChannelRecordBatch batch : pinned.records().batches()) {
            if (batch.lastOffset() >= from && batch.hasProducerId()) {
              replay.record(batch);
            }
          }
        }
      }
      replay.commit();
      indexAborts(segments, replay.completedTransactions());
    }
    producers.updateMapEndOffset(logEndOffset);
  }

  /**
   * Records replayed aborts in the transaction index of their marker's segment. Entries already
   * there are skipped by the index, so only those lost with an unflushed tail are written again.
   */
  private static void indexAborts(
      ConcurrentNavigableMap<Long, LogSegment> segments, List<CompletedTxn> completed)
      throws IOException {
    for (CompletedTxn txn : completed) {
      Map.Entry<Long, LogSegment> home = segments.floorEntry(txn.lastOffset());
      if (txn.aborted() && home != null) {
        home.getValue().txnIndex().append(txn.toAbortedTxn());
      }
    }
  }

  static void deleteDirectory(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path path : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(path);
      }
    }
  }
}
