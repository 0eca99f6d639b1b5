package io.brook.storage.segment;

import io.brook.storage.index.CorruptIndexException;
import io.brook.storage.index.OffsetIndex;
import io.brook.storage.index.OffsetPosition;
import io.brook.storage.index.TimeIndex;
import io.brook.storage.index.TimestampOffset;
import io.brook.storage.log.LogConfig;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Consumer;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.record.internal.DefaultRecordBatch;
import org.apache.kafka.common.record.internal.FileLogInputStream.FileChannelRecordBatch;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.apache.kafka.common.utils.internals.CloseableIterator;

/**
 * One segment of a partition log: the {@code .log} file of record batches plus its sparse {@code
 * .index} (offset → file position) and {@code .timeindex} (timestamp → offset).
 *
 * <p>Batches are stored exactly as they arrived (magic v2, possibly compressed), with offsets and
 * leader epoch already stamped by the log. An offset-index entry is added before a batch once at
 * least {@code index.interval.bytes} have been written since the previous entry; it maps the
 * batch's last offset to the batch's start position, so a lookup lands at or before the batch
 * holding any offset.
 *
 * <p>Thread-safety: {@link #append}, {@link #truncateTo}, {@link #recover} and the lifecycle
 * methods are called by one writer at a time (the log's lock). Reads ({@link #read}, {@link
 * #translateOffset}, {@link #findOffsetByTimestamp}) run concurrently with appends: the log file's
 * size is published only after a batch is fully written, and readers are bounded by a position the
 * log published after the write.
 */
public final class LogSegment implements Closeable {
  /** Batches older than this format cannot be stored; see {@code BatchValidator}. */
  private static final byte REQUIRED_MAGIC = RecordBatch.MAGIC_VALUE_V2;

  private final long baseOffset;
  private final int indexIntervalBytes;
  private final int maxIndexSize;
  private final FileRecords log;
  private final long createdMs;

  private volatile OffsetIndex offsetIndex;
  private volatile TimeIndex timeIndex;
  private boolean indexesWritable;
  private int bytesSinceLastIndexEntry;
  private volatile TimestampOffset maxTimestampSoFar;

  /** Timestamp of the first batch, for {@code segment.ms}; -1 when empty or unknown. */
  private long firstBatchTimestamp = RecordBatch.NO_TIMESTAMP;

  private LogSegment(
      long baseOffset,
      LogConfig config,
      FileRecords log,
      OffsetIndex offsetIndex,
      TimeIndex timeIndex,
      boolean indexesWritable,
      long createdMs) {
    this.baseOffset = baseOffset;
    this.indexIntervalBytes = config.indexIntervalBytes();
    this.maxIndexSize = config.segmentIndexBytes();
    this.log = log;
    this.offsetIndex = offsetIndex;
    this.timeIndex = timeIndex;
    this.indexesWritable = indexesWritable;
    this.createdMs = createdMs;
    this.maxTimestampSoFar = timeIndex.lastEntry();
  }

  /** Creates a new, empty segment; any stale files with the same base offset are replaced. */
  public static LogSegment create(Path dir, long baseOffset, LogConfig config, Time time)
      throws IOException {
    return create(dir, baseOffset, config, time, "");
  }

  /**
   * Creates a new, empty segment whose three file names end in {@code suffix} after the usual ones
   * (for example {@code .log.cleaned}): the log cleaner writes a replacement segment under a name
   * recovery knows to discard, and renames it into place once it is complete.
   */
  public static LogSegment create(
      Path dir, long baseOffset, LogConfig config, Time time, String suffix) throws IOException {
    Path logFile = withSuffix(SegmentFiles.logFile(dir, baseOffset), suffix);
    Path offsetFile = withSuffix(SegmentFiles.offsetIndexFile(dir, baseOffset), suffix);
    Path timeFile = withSuffix(SegmentFiles.timeIndexFile(dir, baseOffset), suffix);
    Files.deleteIfExists(offsetFile);
    Files.deleteIfExists(timeFile);
    Files.deleteIfExists(logFile);
    FileRecords log = FileRecords.open(logFile.toFile(), true, false, 0, false);
    OffsetIndex offsetIndex = new OffsetIndex(offsetFile, baseOffset, config.segmentIndexBytes());
    TimeIndex timeIndex = new TimeIndex(timeFile, baseOffset, config.segmentIndexBytes());
    return new LogSegment(
        baseOffset, config, log, offsetIndex, timeIndex, true, time.milliseconds());
  }

  private static Path withSuffix(Path file, String suffix) {
    return suffix.isEmpty() ? file : file.resolveSibling(file.getFileName() + suffix);
  }

  /**
   * Opens an existing segment. Its indexes are mapped writable only if {@code active}; an inactive
   * segment's indexes are read-only until {@link #makeActive()}.
   */
  public static LogSegment open(
      Path dir, long baseOffset, LogConfig config, Time time, boolean active) throws IOException {
    FileRecords log =
        FileRecords.open(SegmentFiles.logFile(dir, baseOffset).toFile(), true, true, 0, false);
    OffsetIndex offsetIndex =
        new OffsetIndex(
            SegmentFiles.offsetIndexFile(dir, baseOffset),
            baseOffset,
            config.segmentIndexBytes(),
            active);
    TimeIndex timeIndex =
        new TimeIndex(
            SegmentFiles.timeIndexFile(dir, baseOffset),
            baseOffset,
            config.segmentIndexBytes(),
            active);
    LogSegment segment =
        new LogSegment(
            baseOffset, config, log, offsetIndex, timeIndex, active, time.milliseconds());
    segment.loadFirstBatchTimestamp();
    return segment;
  }

  public long baseOffset() {
    return baseOffset;
  }

  public int sizeInBytes() {
    return log.sizeInBytes();
  }

  /** The raw log file, for recovery tooling and tests. */
  public FileRecords records() {
    return log;
  }

  public OffsetIndex offsetIndex() {
    return offsetIndex;
  }

  public TimeIndex timeIndex() {
    return timeIndex;
  }

  /** Largest timestamp in the segment and the offset it was seen at; (-1, base) when none. */
  public TimestampOffset maxTimestampSoFar() {
    return maxTimestampSoFar;
  }

  /**
   * Whether an append of {@code messagesSize} bytes ending at {@code maxOffsetInMessages} must go
   * to a new segment: this one would pass {@code segment.bytes}, has lived past {@code segment.ms},
   * has a full index, or cannot express the offset relative to its base. An empty segment never
   * rolls, so a batch larger than {@code segment.bytes} still finds a home.
   */
  public boolean shouldRoll(
      int messagesSize,
      long maxOffsetInMessages,
      long incomingTimestamp,
      long nowMs,
      LogConfig config) {
    return shouldRoll(
        messagesSize, maxOffsetInMessages, incomingTimestamp, nowMs, config, config.segmentMs());
  }

  /** Like the other overload, with {@code rollMs} standing in for {@code segment.ms}. */
  public boolean shouldRoll(
      int messagesSize,
      long maxOffsetInMessages,
      long incomingTimestamp,
      long nowMs,
      LogConfig config,
      long rollMs) {
    int size = log.sizeInBytes();
    if (size == 0) {
      return false;
    }
    return size > config.segmentBytes() - messagesSize
        || timeWaitedForRoll(incomingTimestamp, nowMs) > rollMs
        || offsetIndex.isFull()
        || timeIndex.isFull()
        || !offsetIndex.canAppendOffset(maxOffsetInMessages);
  }

  /**
   * How long this segment has been open, for {@code segment.ms}: measured in record time from the
   * first batch's timestamp when batches carry timestamps (as Kafka does, so replays of old data
   * roll by their own clock), else in broker time since the segment was created.
   */
  private long timeWaitedForRoll(long incomingTimestamp, long nowMs) {
    if (firstBatchTimestamp >= 0 && incomingTimestamp >= 0) {
      return incomingTimestamp - firstBatchTimestamp;
    }
    return nowMs - createdMs;
  }

  /**
   * Appends batches whose offsets are already assigned. Writes the bytes first and indexes them
   * after, so a crash between the two leaves an index that lags the log (rebuilt by recovery),
   * never one that points past it.
   */
  public void append(MemoryRecords records) throws IOException {
    int position = log.sizeInBytes();
    if (position == 0) {
      loadFirstBatchTimestamp(records);
    }
    log.append(records);
    for (RecordBatch batch : records.batches()) {
      indexBatch(batch, position);
      position += batch.sizeInBytes();
    }
  }

  private void indexBatch(RecordBatch batch, int position) {
    if (batch.maxTimestamp() > maxTimestampSoFar.timestamp()) {
      maxTimestampSoFar = new TimestampOffset(batch.maxTimestamp(), batch.lastOffset());
    }
    // One append may add several entries; a full index just stays sparser until the next roll.
    if (bytesSinceLastIndexEntry > indexIntervalBytes) {
      if (!offsetIndex.isFull()) {
        offsetIndex.append(batch.lastOffset(), position);
      }
      TimestampOffset max = maxTimestampSoFar;
      if (!timeIndex.isFull()) {
        timeIndex.maybeAppend(max.timestamp(), max.offset());
      }
      bytesSinceLastIndexEntry = 0;
    }
    bytesSinceLastIndexEntry += batch.sizeInBytes();
  }

  /**
   * Where the first batch holding an offset at or above {@code offset} starts, searching from the
   * index entry at or below it; null if no such batch is in this segment.
   */
  public FileRecords.LogOffsetPosition translateOffset(long offset, int startingPosition) {
    OffsetPosition mapping = offsetIndex.lookup(offset);
    int from = Math.max(mapping.position(), startingPosition);
    if (from > log.sizeInBytes()) {
      from = startingPosition;
    }
    return log.searchForOffsetFromPosition(offset, from);
  }

  /**
   * Reads from the batch holding {@code startOffset} up to {@code maxSize} bytes, never past file
   * position {@code maxPosition}. With {@code minOneBatch} the first batch is returned whole even
   * if it exceeds {@code maxSize}, so that a consumer is never stuck behind one large batch.
   * Returns null if this segment has no batch at or above {@code startOffset}.
   */
  public FileSlice read(long startOffset, int maxSize, long maxPosition, boolean minOneBatch) {
    FileRecords.LogOffsetPosition start = translateOffset(startOffset, 0);
    if (start == null) {
      return null;
    }
    int limit = minOneBatch ? Math.max(maxSize, start.size) : maxSize;
    long available = maxPosition - start.position;
    if (available <= 0 || limit <= 0) {
      return new FileSlice(log, start.position, 0);
    }
    int size = (int) Math.min(available, limit);
    return new FileSlice(log, start.position, size);
  }

  /**
   * The first record with a timestamp at or above {@code targetTimestamp} and an offset at or above
   * {@code startingOffset}. The time index narrows the scan to the batches after the last entry
   * that is strictly older than the target; only batches whose max timestamp reaches the target are
   * opened (decompressed) to find the exact record.
   */
  public Optional<FileRecords.TimestampAndOffset> findOffsetByTimestamp(
      long targetTimestamp, long startingOffset) {
    TimestampOffset older = timeIndex.lookup(targetTimestamp - 1);
    long scanFrom = Math.max(older.offset(), startingOffset);
    int position = offsetIndex.lookup(scanFrom).position();
    try (BufferSupplier buffers = BufferSupplier.create()) {
      for (FileChannelRecordBatch batch : log.batchesFrom(position)) {
        if (batch.maxTimestamp() < targetTimestamp || batch.lastOffset() < startingOffset) {
          continue;
        }
        try (CloseableIterator<org.apache.kafka.common.record.internal.Record> records =
            batch.streamingIterator(buffers)) {
          while (records.hasNext()) {
            var record = records.next();
            if (record.timestamp() >= targetTimestamp && record.offset() >= startingOffset) {
              return Optional.of(
                  new FileRecords.TimestampAndOffset(
                      record.timestamp(), record.offset(), leaderEpochOf(batch)));
            }
          }
        }
      }
    }
    return Optional.empty();
  }

  /**
   * The record holding this segment's largest timestamp (ListOffsets MAX_TIMESTAMP), found by
   * opening the batch the time bookkeeping points at.
   */
  public Optional<FileRecords.TimestampAndOffset> maxTimestampRecord() {
    TimestampOffset max = maxTimestampSoFar;
    if (max.timestamp() < 0) {
      return Optional.empty();
    }
    return findOffsetByTimestamp(max.timestamp(), baseOffset);
  }

  private static Optional<Integer> leaderEpochOf(RecordBatch batch) {
    int epoch = batch.partitionLeaderEpoch();
    return epoch == RecordBatch.NO_PARTITION_LEADER_EPOCH ? Optional.empty() : Optional.of(epoch);
  }

  /**
   * The offset after this segment's last batch (its base offset when empty), read from the batches
   * after the last index entry.
   */
  public long readNextOffset() {
    OffsetPosition last = offsetIndex.lastEntry();
    long next = baseOffset;
    for (FileChannelRecordBatch batch : log.batchesFrom(last.position())) {
      next = batch.nextOffset();
    }
    return next;
  }

  /**
   * Re-validates every batch (size, magic, CRC, offsets increasing), rebuilds both indexes, and
   * truncates the file at the first invalid batch. Each valid batch is passed to {@code onBatch} so
   * the log can rebuild producer state and leader epochs.
   *
   * @return the number of bytes truncated (0 if the whole file was valid)
   */
  public int recover(Consumer<RecordBatch> onBatch) throws IOException {
    recreateIndexes();
    maxTimestampSoFar = new TimestampOffset(RecordBatch.NO_TIMESTAMP, baseOffset);
    bytesSinceLastIndexEntry = 0;
    int validBytes = 0;
    long nextOffset = baseOffset;
    RecoveryChecksums checksums = new RecoveryChecksums();
    try {
      for (FileChannelRecordBatch batch : log.batches()) {
        if (!hasSaneHeader(batch, nextOffset) || !checksums.isValid(log.channel(), batch)) {
          break;
        }
        indexBatch(batch, validBytes);
        onBatch.accept(batch);
        validBytes += batch.sizeInBytes();
        nextOffset = batch.nextOffset();
      }
    } catch (CorruptRecordException e) {
      // A size field that cannot be right: everything from here on is torn.
    }
    int truncated = log.sizeInBytes() - validBytes;
    if (truncated > 0) {
      log.truncateTo(validBytes);
    }
    loadFirstBatchTimestamp();
    return truncated;
  }

  private static boolean hasSaneHeader(FileChannelRecordBatch batch, long expectedAtLeast) {
    return batch.magic() == REQUIRED_MAGIC
        && batch.sizeInBytes() >= DefaultRecordBatch.RECORD_BATCH_OVERHEAD
        && batch.baseOffset() >= expectedAtLeast
        && batch.lastOffset() >= batch.baseOffset();
  }

  /**
   * Removes every batch at or after the one holding {@code offset}, and the index entries that
   * point there. Truncation works in whole batches: the log end lands on a batch boundary.
   *
   * @return the number of bytes removed
   */
  public int truncateTo(long offset) throws IOException {
    FileRecords.LogOffsetPosition mapping = translateOffset(offset, 0);
    if (mapping == null) {
      return 0;
    }
    makeIndexesWritable();
    offsetIndex.truncateTo(offset);
    timeIndex.truncateTo(offset);
    int removed = log.truncateTo(mapping.position);
    bytesSinceLastIndexEntry = 0;
    recomputeMaxTimestamp();
    if (log.sizeInBytes() == 0) {
      firstBatchTimestamp = RecordBatch.NO_TIMESTAMP;
    }
    return removed;
  }

  /** The time index's last entry plus the batches written after it give the exact maximum. */
  private void recomputeMaxTimestamp() {
    TimestampOffset max = timeIndex.lastEntry();
    int from = offsetIndex.lookup(max.offset()).position();
    for (FileChannelRecordBatch batch : log.batchesFrom(from)) {
      if (batch.maxTimestamp() > max.timestamp()) {
        max = new TimestampOffset(batch.maxTimestamp(), batch.lastOffset());
      }
    }
    maxTimestampSoFar = max;
  }

  /**
   * Checks both indexes. A segment that was not the active one at a clean shutdown has trimmed,
   * consistent indexes; anything else is rebuilt by the caller through {@link #recover}.
   */
  public void sanityCheck() {
    offsetIndex.sanityCheck();
    timeIndex.sanityCheck();
    if (offsetIndex.lastEntry().position() > log.sizeInBytes()) {
      throw new CorruptIndexException(
          "index "
              + offsetIndex.file()
              + " points past the end of its log file ("
              + offsetIndex.lastEntry().position()
              + " > "
              + log.sizeInBytes()
              + ")");
    }
  }

  /**
   * The segment stops taking appends: record its final max timestamp in the time index (the slot
   * kept free for it) and trim both indexes to their entries.
   */
  public void onBecomeInactiveSegment() throws IOException {
    TimestampOffset max = maxTimestampSoFar;
    if (max.timestamp() >= 0) {
      timeIndex.maybeAppend(max.timestamp(), max.offset(), true);
    }
    offsetIndex.trimToValidSize();
    timeIndex.trimToValidSize();
  }

  /** The segment takes appends again (after a truncation made it the last one). */
  public void makeActive() throws IOException {
    makeIndexesWritable();
    offsetIndex.resize(maxIndexSize);
    timeIndex.resize(maxIndexSize);
  }

  /**
   * Replaces both indexes with new, empty, writable files. Used only by recovery, when no reader
   * can hold the old mappings, because an index left by a crash may have any length.
   */
  private void recreateIndexes() throws IOException {
    Path offsetFile = offsetIndex.file();
    Path timeFile = timeIndex.file();
    offsetIndex.deleteIfExists();
    timeIndex.deleteIfExists();
    offsetIndex = new OffsetIndex(offsetFile, baseOffset, maxIndexSize, true);
    timeIndex = new TimeIndex(timeFile, baseOffset, maxIndexSize, true);
    indexesWritable = true;
  }

  private void makeIndexesWritable() throws IOException {
    if (indexesWritable) {
      return;
    }
    OffsetIndex oldOffsets = offsetIndex;
    TimeIndex oldTimes = timeIndex;
    offsetIndex = new OffsetIndex(oldOffsets.file(), baseOffset, maxIndexSize, true);
    timeIndex = new TimeIndex(oldTimes.file(), baseOffset, maxIndexSize, true);
    oldOffsets.close();
    oldTimes.close();
    indexesWritable = true;
  }

  private void loadFirstBatchTimestamp() {
    firstBatchTimestamp = RecordBatch.NO_TIMESTAMP;
    for (FileChannelRecordBatch batch : log.batches()) {
      firstBatchTimestamp = batch.maxTimestamp();
      return;
    }
  }

  private void loadFirstBatchTimestamp(MemoryRecords records) {
    for (RecordBatch batch : records.batches()) {
      firstBatchTimestamp = batch.maxTimestamp();
      return;
    }
  }

  /** Forces the log file and both indexes to disk. */
  public void flush() throws IOException {
    log.flush();
    offsetIndex.flush();
    timeIndex.flush();
  }

  /** Time of the newest record for retention, or the file's modification time if none. */
  public long largestTimestamp() throws IOException {
    TimestampOffset max = maxTimestampSoFar;
    if (max.timestamp() >= 0) {
      return max.timestamp();
    }
    return Files.getLastModifiedTime(log.file().toPath()).toMillis();
  }

  /** Timestamp of the first batch (its max timestamp), or -1 if empty or unknown. */
  public long firstBatchTimestamp() {
    return firstBatchTimestamp;
  }

  /**
   * Renames the three files from names ending in {@code oldSuffix} to names ending in {@code
   * newSuffix} (either may be empty), index files first and the log file last: recovery treats the
   * log file's name as the segment's state, and an index without its log file as a leftover. Open
   * channels and mappings stay valid, so readers holding this segment are not disturbed.
   */
  public void changeFileSuffixes(String oldSuffix, String newSuffix) throws IOException {
    offsetIndex.renameTo(renamed(offsetIndex.file(), oldSuffix, newSuffix));
    timeIndex.renameTo(renamed(timeIndex.file(), oldSuffix, newSuffix));
    log.renameTo(renamed(log.file().toPath(), oldSuffix, newSuffix).toFile());
  }

  private static Path renamed(Path file, String oldSuffix, String newSuffix) {
    String name = file.getFileName().toString();
    if (!name.endsWith(oldSuffix)) {
      throw new IllegalStateException(file + " does not end in '" + oldSuffix + "'");
    }
    return file.resolveSibling(name.substring(0, name.length() - oldSuffix.length()) + newSuffix);
  }

  @Override
  public void close() throws IOException {
    TimestampOffset max = maxTimestampSoFar;
    if (indexesWritable && max.timestamp() >= 0) {
      timeIndex.maybeAppend(max.timestamp(), max.offset(), true);
    }
    offsetIndex.close();
    timeIndex.close();
    log.close();
  }

  /** Closes and removes all three files. */
  public void deleteIfExists() throws IOException {
    offsetIndex.deleteIfExists();
    timeIndex.deleteIfExists();
    log.deleteIfExists();
  }

  @Override
  public String toString() {
    return "LogSegment(baseOffset=" + baseOffset + ", size=" + log.sizeInBytes() + ")";
  }
}
