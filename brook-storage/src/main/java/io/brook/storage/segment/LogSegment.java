package io.brook.storage.segment;

import io.brook.storage.index.CorruptIndexException;
import io.brook.storage.index.OffsetIndex;
import io.brook.storage.index.OffsetPosition;
import io.brook.storage.index.TimeIndex;
import io.brook.storage.index.TimestampOffset;
import io.brook.storage.log.LogConfig;
import io.brook.storage.record.ControlBatches;
import io.brook.storage.record.RecordLimits;
import io.brook.storage.txn.TransactionIndex;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Consumer;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.record.internal.FileLogInputStream.FileChannelRecordBatch;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.Time;

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
 * <p>Files: all three are reached through a {@link SegmentFile} in the node's {@link
 * FileHandlePool}, which may close them while the segment is idle; every method here pins the file
 * for exactly the time it touches it, and the segment's size and largest timestamp are kept in
 * fields so that size checks and retention never reopen a file.
 *
 * <p>Thread-safety: {@link #append}, {@link #truncateTo}, {@link #recover} and the lifecycle
 * methods are called by one writer at a time (the log's lock). Reads ({@link #read}, {@link
 * #translateOffset}, {@link #findOffsetByTimestamp}) run concurrently with appends: the log file's
 * size is published only after a batch is fully written, and readers are bounded by a position the
 * log published after the write.
 */
public final class LogSegment implements Closeable {
  private final long baseOffset;
  private final int indexIntervalBytes;
  private final int maxIndexSize;
  private final SegmentFile file;
  private final long createdMs;

  /** Bytes of whole batches in the log file; published after they are written. */
  private volatile int size;

  private int bytesSinceLastIndexEntry;
  private volatile TimestampOffset maxTimestampSoFar;

  /** Timestamp of the first batch, for {@code segment.ms}; -1 when empty or unknown. */
  private long firstBatchTimestamp = RecordBatch.NO_TIMESTAMP;

  private LogSegment(long baseOffset, LogConfig config, SegmentFile file, long createdMs) {
    this.baseOffset = baseOffset;
    this.indexIntervalBytes = config.indexIntervalBytes();
    this.maxIndexSize = config.segmentIndexBytes();
    this.file = file;
    this.createdMs = createdMs;
    this.maxTimestampSoFar = new TimestampOffset(RecordBatch.NO_TIMESTAMP, baseOffset);
  }

  /**
   * Creates a new, empty segment whose files stay open until closed; any stale files with the same
   * base offset are replaced. For tools and tests; a broker passes its pool.
   */
  public static LogSegment create(Path dir, long baseOffset, LogConfig config, Time time)
      throws IOException {
    return create(dir, baseOffset, config, time, "", FileHandlePool.unbounded());
  }

  /** Creates a new, empty segment whose files the pool may close while idle. */
  public static LogSegment create(
      Path dir, long baseOffset, LogConfig config, Time time, FileHandlePool pool)
      throws IOException {
    return create(dir, baseOffset, config, time, "", pool);
  }

  /**
   * Creates a new, empty segment whose three file names end in {@code suffix} after the usual ones
   * (for example {@code .log.cleaned}): the log cleaner writes a replacement segment under a name
   * recovery knows to discard, and renames it into place once it is complete.
   */
  public static LogSegment create(
      Path dir, long baseOffset, LogConfig config, Time time, String suffix, FileHandlePool pool)
      throws IOException {
    SegmentFile file =
        SegmentFile.createEmpty(pool, dir, baseOffset, config.segmentIndexBytes(), suffix);
    return new LogSegment(baseOffset, config, file, time.milliseconds());
  }

  /**
   * Opens an existing segment. Its indexes are mapped writable only if {@code active}; an inactive
   * segment's indexes are read-only until {@link #makeActive()}.
   */
  public static LogSegment open(
      Path dir, long baseOffset, LogConfig config, Time time, boolean active) throws IOException {
    return open(dir, baseOffset, config, time, active, FileHandlePool.unbounded());
  }

  /**
   * Opens an existing segment whose files the pool may close while idle. Reads the first batch and
   * the time index's last entry once, then leaves the files to the pool. An empty log file is not
   * even opened (nothing to read, and its indexes map when first used): a broker with tens of
   * thousands of partitions, many never written to, opens each of them at every start.
   */
  public static LogSegment open(
      Path dir, long baseOffset, LogConfig config, Time time, boolean active, FileHandlePool pool)
      throws IOException {
    SegmentFile file =
        SegmentFile.existing(pool, dir, baseOffset, config.segmentIndexBytes(), active);
    LogSegment segment = new LogSegment(baseOffset, config, file, time.milliseconds());
    if (Files.size(file.logPath()) == 0) {
      return segment;
    }
    file.pin();
    try {
      segment.size = file.records().sizeInBytes();
      file.offsetIndex();
      segment.maxTimestampSoFar = file.timeIndex().lastEntry();
      segment.loadFirstBatchTimestamp();
    } finally {
      file.unpin();
    }
    return segment;
  }

  public long baseOffset() {
    return baseOffset;
  }

  public int sizeInBytes() {
    return size;
  }

  /** The aborted transactions whose ABORT marker is in this segment. */
  public TransactionIndex txnIndex() {
    return file.txnIndex();
  }

  /** The segment's files in the pool; pin them before use. */
  public SegmentFile file() {
    return file;
  }

  /**
   * Pins the segment's files until the returned pin is closed, for callers that iterate the raw
   * file (the cleaner, the loader, tests).
   */
  public PinnedSegment pin() throws IOException {
    file.pin();
    return new PinnedSegment(file);
  }

  /** Largest timestamp in the segment and the offset it was seen at; (-1, base) when none. */
  public TimestampOffset maxTimestampSoFar() {
    return maxTimestampSoFar;
  }

  /**
   * Whether an append of {@code messagesSize} bytes ending at {@code maxOffsetInMessages} must go
   * to a new segment: this one would pass {@code segment.bytes}, has lived past {@code segment.ms},
   * has a full index, or cannot express the offset relative to its base. An empty segment never
   * rolls, so a batch larger than {@code segment.bytes} still finds a home. {@code rollMs} is the
   * effective {@code segment.ms} the log computes (LogRetention.effectiveSegmentMs).
   */
  public boolean shouldRoll(
      int messagesSize,
      long maxOffsetInMessages,
      long incomingTimestamp,
      long nowMs,
      LogConfig config,
      long rollMs) {
    int bytes = size;
    if (bytes == 0) {
      return false;
    }
    if (bytes > config.segmentBytes() - messagesSize
        || timeWaitedForRoll(incomingTimestamp, nowMs) > rollMs) {
      return true;
    }
    file.pinUnchecked();
    try {
      OffsetIndex offsets = file.offsetIndexUnchecked();
      return offsets.isFull()
          || file.timeIndexUnchecked().isFull()
          || !offsets.canAppendOffset(maxOffsetInMessages);
    } finally {
      file.unpin();
    }
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
   * never one that points past it. On failure the caller cuts the file back with {@link
   * #cutToSize()}.
   */
  public void append(MemoryRecords records) throws IOException {
    file.pin();
    try {
      int position = size;
      if (position == 0) {
        loadFirstBatchTimestamp(records);
      }
      FileRecords log = file.records();
      log.append(records);
      OffsetIndex offsets = file.offsetIndex();
      TimeIndex times = file.timeIndex();
      for (RecordBatch batch : records.batches()) {
        indexBatch(batch, position, offsets, times);
        position += batch.sizeInBytes();
      }
      size = log.sizeInBytes();
    } finally {
      file.unpin();
    }
  }

  /**
   * Cuts the log file back to the bytes of whole batches the segment published, after an append
   * failed part-way.
   */
  public void cutToSize() throws IOException {
    file.pin();
    try {
      // FileRecords cuts the file whenever it is longer than the target, whatever it counted.
      file.records().truncateTo(size);
    } finally {
      file.unpin();
    }
  }

  private void indexBatch(RecordBatch batch, int position, OffsetIndex offsets, TimeIndex times) {
    if (batch.maxTimestamp() > maxTimestampSoFar.timestamp()) {
      maxTimestampSoFar = new TimestampOffset(batch.maxTimestamp(), batch.lastOffset());
    }
    // One append may add several entries; a full index just stays sparser until the next roll.
    if (bytesSinceLastIndexEntry > indexIntervalBytes) {
      if (!offsets.isFull()) {
        offsets.append(batch.lastOffset(), position);
      }
      TimestampOffset max = maxTimestampSoFar;
      if (!times.isFull()) {
        times.maybeAppend(max.timestamp(), max.offset());
      }
      bytesSinceLastIndexEntry = 0;
    }
    bytesSinceLastIndexEntry += batch.sizeInBytes();
  }

  /**
   * Where the first batch holding an offset at or above {@code offset} starts, searching from the
   * index entries around it ({@link BatchPositions}); null if no such batch is in this segment.
   */
  public FileRecords.LogOffsetPosition translateOffset(long offset, int startingPosition) {
    file.pinUnchecked();
    try {
      return translatePinned(offset, startingPosition);
    } finally {
      file.unpin();
    }
  }

  private FileRecords.LogOffsetPosition translatePinned(long offset, int startingPosition) {
    return BatchPositions.find(
        file.records(), file.offsetIndexUnchecked().neighbours(offset), offset, startingPosition);
  }

  /**
   * Reads from the batch holding {@code startOffset} up to {@code maxSize} bytes, never past file
   * position {@code maxPosition}. With {@code minOneBatch} the first batch is returned whole even
   * if it exceeds {@code maxSize}, so that a consumer is never stuck behind one large batch;
   * without it, a first batch larger than {@code maxSize} gives an empty slice, as in Kafka (a part
   * of a batch is of no use to a reader, which drops it). Later batches may be cut at {@code
   * maxSize}. Returns null if this segment has no batch at or above {@code startOffset}. The slice
   * holds no pin: whoever sends or copies it pins it for that time.
   */
  public FileSlice read(long startOffset, int maxSize, long maxPosition, boolean minOneBatch) {
    FileRecords.LogOffsetPosition start = translateOffset(startOffset, 0);
    if (start == null) {
      return null;
    }
    int limit = minOneBatch ? Math.max(maxSize, start.size) : maxSize;
    long available = maxPosition - start.position;
    if (available <= 0 || limit < start.size) {
      return new FileSlice(file, start.position, 0);
    }
    int bytes = (int) Math.min(available, limit);
    return new FileSlice(file, start.position, bytes);
  }

  /**
   * The first record with a timestamp at or above {@code targetTimestamp} and an offset at or above
   * {@code startingOffset}. The time index narrows the scan to the batches after the last entry
   * that is strictly older than the target; only batches whose max timestamp reaches the target are
   * opened (decompressed) to find the exact record.
   */
  public Optional<FileRecords.TimestampAndOffset> findOffsetByTimestamp(
      long targetTimestamp, long startingOffset, RecordLimits limits) {
    file.pinUnchecked();
    try {
      return TimestampSearch.find(file, targetTimestamp, startingOffset, limits);
    } finally {
      file.unpin();
    }
  }

  /**
   * The record holding this segment's largest timestamp (ListOffsets MAX_TIMESTAMP), found by
   * opening the batch the time bookkeeping points at, read within {@code limits}.
   */
  public Optional<FileRecords.TimestampAndOffset> maxTimestampRecord(RecordLimits limits) {
    TimestampOffset max = maxTimestampSoFar;
    if (max.timestamp() < 0) {
      return Optional.empty();
    }
    return findOffsetByTimestamp(max.timestamp(), baseOffset, limits);
  }

  /**
   * The offset after this segment's last batch (its base offset when empty), read from the batches
   * after the last index entry.
   */
  public long readNextOffset() {
    if (size == 0) {
      return baseOffset;
    }
    file.pinUnchecked();
    try {
      OffsetPosition last = file.offsetIndexUnchecked().lastEntry();
      long next = baseOffset;
      for (FileChannelRecordBatch batch : file.records().batchesFrom(last.position())) {
        next = batch.nextOffset();
      }
      return next;
    } finally {
      file.unpin();
    }
  }

  /**
   * Re-validates every batch (size, magic, CRC, offsets increasing and within the segment, a
   * readable marker in a control batch), rebuilds both indexes, and truncates the file at the first
   * invalid batch. Each valid batch is passed to {@code onBatch} so the log can rebuild producer
   * state and leader epochs.
   *
   * @return the number of bytes truncated (0 if the whole file was valid)
   */
  public int recover(Consumer<RecordBatch> onBatch) throws IOException {
    if (size == 0) {
      // Nothing to validate: the indexes only have to be empty, and need not be mapped for it.
      file.emptyIndexes();
      maxTimestampSoFar = new TimestampOffset(RecordBatch.NO_TIMESTAMP, baseOffset);
      bytesSinceLastIndexEntry = 0;
      firstBatchTimestamp = RecordBatch.NO_TIMESTAMP;
      return 0;
    }
    file.pin();
    try {
      file.recreateIndexes();
      maxTimestampSoFar = new TimestampOffset(RecordBatch.NO_TIMESTAMP, baseOffset);
      bytesSinceLastIndexEntry = 0;
      FileRecords log = file.records();
      return cutAfter(log, validPrefix(log, 0, onBatch));
    } finally {
      file.unpin();
    }
  }

  /**
   * {@link #recover} for the segment holding {@code recoveryPoint}: everything below it was forced
   * to disk (the batches and the index entries naming them), so re-validation starts at the last
   * indexed batch wholly below it instead of at the segment's start, and only the index entries
   * from there on are rebuilt. Falls back to a full {@link #recover} when the index holds no such
   * entry or it does not point at a batch ending at its offset.
   *
   * @return the number of bytes truncated (0 if the tail was valid)
   */
  public int recoverFrom(long recoveryPoint, Consumer<RecordBatch> onBatch) throws IOException {
    if (size == 0) {
      return recover(onBatch);
    }
    file.pin();
    try {
      file.setIndexesWritable(true);
      int from = trustedPrefix(recoveryPoint);
      if (from <= 0) {
        return recover(onBatch);
      }
      FileRecords log = file.records();
      return cutAfter(log, validPrefix(log, from, onBatch));
    } finally {
      file.unpin();
    }
  }

  /**
   * Cuts the indexes back to the last entry naming a batch wholly below {@code recoveryPoint} and
   * returns that batch's position, or 0 if recovery must start at the segment's beginning. Sets the
   * indexing state as it was after that batch.
   */
  private int trustedPrefix(long recoveryPoint) throws IOException {
    if (recoveryPoint <= baseOffset + 1) {
      return 0;
    }
    OffsetIndex offsets = file.offsetIndex();
    TimeIndex times = file.timeIndex();
    offsets.truncateToTrustedPrefix(recoveryPoint - 1);
    OffsetPosition entry = offsets.lastEntry();
    FileRecords log = file.records();
    if (entry.position() <= 0 || entry.position() >= log.sizeInBytes()) {
      return 0;
    }
    if (!isBatchEndingAt(log, entry)) {
      return 0;
    }
    // Both entries of a batch are appended together, so the last time entry kept holds the
    // largest timestamp up to the batch at that position.
    times.truncateToTrustedPrefix(entry.offset());
    maxTimestampSoFar =
        times.entries() > 0
            ? times.lastEntry()
            : new TimestampOffset(RecordBatch.NO_TIMESTAMP, baseOffset);
    bytesSinceLastIndexEntry = 0;
    return entry.position();
  }

  /** Whether a sane batch whose last offset is the entry's starts at the entry's position. */
  private boolean isBatchEndingAt(FileRecords log, OffsetPosition entry) {
    try {
      for (FileChannelRecordBatch batch : log.batchesFrom(entry.position())) {
        return batch.lastOffset() == entry.offset()
            && RecoveryChecksums.hasSaneHeader(batch, baseOffset, baseOffset);
      }
      return false;
    } catch (CorruptRecordException e) {
      return false;
    }
  }

  /** Truncates the file after its first {@code validBytes}; returns the bytes removed. */
  private int cutAfter(FileRecords log, int validBytes) throws IOException {
    int truncated = log.sizeInBytes() - validBytes;
    if (truncated > 0) {
      log.truncateTo(validBytes);
    }
    size = log.sizeInBytes();
    loadFirstBatchTimestamp();
    return truncated;
  }

  /**
   * Indexes and hands on the valid batches from byte {@code from} (a batch boundary); returns the
   * end of the last valid one.
   */
  private int validPrefix(FileRecords log, int from, Consumer<RecordBatch> onBatch)
      throws IOException {
    OffsetIndex offsets = file.offsetIndex();
    TimeIndex times = file.timeIndex();
    int validBytes = from;
    long nextOffset = baseOffset;
    RecoveryChecksums checksums = new RecoveryChecksums();
    try {
      for (FileChannelRecordBatch batch : log.batchesFrom(from)) {
        if (!RecoveryChecksums.hasSaneHeader(batch, nextOffset, baseOffset)
            || !checksums.isValid(log.channel(), batch)
            || !ControlBatches.isReadable(batch)) {
          break;
        }
        indexBatch(batch, validBytes, offsets, times);
        onBatch.accept(batch);
        validBytes += batch.sizeInBytes();
        nextOffset = batch.nextOffset();
      }
    } catch (CorruptRecordException e) {
      // A size field that cannot be right: everything from here on is torn.
    }
    return validBytes;
  }

  /**
   * Removes every batch at or after the one holding {@code offset}, and the index entries that
   * point there. Truncation works in whole batches: the log end lands on a batch boundary.
   *
   * @return the number of bytes removed
   */
  public int truncateTo(long offset) throws IOException {
    file.pin();
    try {
      FileRecords.LogOffsetPosition mapping = translatePinned(offset, 0);
      if (mapping == null) {
        return 0;
      }
      file.setIndexesWritable(true);
      file.offsetIndex().truncateTo(offset);
      file.timeIndex().truncateTo(offset);
      file.txnIndex().truncateTo(offset);
      FileRecords log = file.records();
      int removed = log.truncateTo(mapping.position);
      size = log.sizeInBytes();
      bytesSinceLastIndexEntry = 0;
      recomputeMaxTimestamp();
      if (size == 0) {
        firstBatchTimestamp = RecordBatch.NO_TIMESTAMP;
      }
      return removed;
    } finally {
      file.unpin();
    }
  }

  /** The time index's last entry plus the batches written after it give the exact maximum. */
  private void recomputeMaxTimestamp() throws IOException {
    TimestampOffset max = file.timeIndex().lastEntry();
    int from = file.offsetIndex().lookup(max.offset()).position();
    for (FileChannelRecordBatch batch : file.records().batchesFrom(from)) {
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
    if (size == 0) {
      checkIndexesEmpty();
      return;
    }
    file.pinUnchecked();
    try {
      OffsetIndex offsets = file.offsetIndexUnchecked();
      offsets.sanityCheck();
      file.timeIndexUnchecked().sanityCheck();
      if (offsets.lastEntry().position() > size) {
        throw new CorruptIndexException(
            "index "
                + offsets.file()
                + " points past the end of its log file ("
                + offsets.lastEntry().position()
                + " > "
                + size
                + ")");
      }
    } finally {
      file.unpin();
    }
  }

  /** {@link #sanityCheck} of an empty segment, from the index files' lengths, mapping nothing. */
  private void checkIndexesEmpty() {
    for (Path index : new Path[] {file.offsetIndexPath(), file.timeIndexPath()}) {
      long length;
      try {
        length = Files.size(index);
      } catch (IOException e) {
        throw new CorruptIndexException("cannot read the length of " + index + ": " + e);
      }
      if (length != 0) {
        throw new CorruptIndexException(
            "index " + index + " of a segment with an empty log file holds " + length + " bytes");
      }
    }
  }

  /**
   * The segment stops taking appends: record its final max timestamp in the time index (the slot
   * kept free for it) and trim both indexes to their entries. From now on the indexes map read-only
   * whenever the pool reopens them.
   */
  public void onBecomeInactiveSegment() throws IOException {
    file.pin();
    try {
      TimestampOffset max = maxTimestampSoFar;
      TimeIndex times = file.timeIndex();
      if (max.timestamp() >= 0) {
        times.maybeAppend(max.timestamp(), max.offset(), true);
      }
      file.offsetIndex().trimToValidSize();
      times.trimToValidSize();
      file.setIndexesWritable(false);
    } finally {
      file.unpin();
    }
  }

  /** The segment takes appends again (after a truncation made it the last one). */
  public void makeActive() throws IOException {
    file.pin();
    try {
      file.setIndexesWritable(true);
      file.offsetIndex().resize(maxIndexSize);
      file.timeIndex().resize(maxIndexSize);
    } finally {
      file.unpin();
    }
  }

  /** Under a pin. */
  private void loadFirstBatchTimestamp() {
    firstBatchTimestamp = RecordBatch.NO_TIMESTAMP;
    for (FileChannelRecordBatch batch : file.records().batches()) {
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
    file.pin();
    try {
      file.records().flush();
      file.offsetIndex().flush();
      file.timeIndex().flush();
      file.txnIndex().flush();
    } finally {
      file.unpin();
    }
  }

  /** Time of the newest record for retention, or the file's modification time if none. */
  public long largestTimestamp() throws IOException {
    TimestampOffset max = maxTimestampSoFar;
    if (max.timestamp() >= 0) {
      return max.timestamp();
    }
    return Files.getLastModifiedTime(file.logPath()).toMillis();
  }

  /** Timestamp of the first batch (its max timestamp), or -1 if empty or unknown. */
  public long firstBatchTimestamp() {
    return firstBatchTimestamp;
  }

  /**
   * Renames the three files from names ending in {@code oldSuffix} to names ending in {@code
   * newSuffix} (either may be empty), index files first and the log file last: recovery treats the
   * log file's name as the segment's state, and an index without its log file as a leftover. Open
   * channels and mappings stay valid, and a reopen uses the new names, so readers holding this
   * segment are not disturbed.
   */
  public void changeFileSuffixes(String oldSuffix, String newSuffix) throws IOException {
    file.changeSuffixes(oldSuffix, newSuffix);
  }

  /**
   * Records the final max timestamp if the segment was still active, then closes the files (at
   * once, or when the last reader holding a pin lets go).
   */
  @Override
  public void close() throws IOException {
    TimestampOffset max = maxTimestampSoFar;
    try {
      if (file.indexesWritable() && max.timestamp() >= 0 && !file.isRetired()) {
        // May reopen a file the pool closed; the files are closed below whatever happens here.
        file.pin();
        try {
          file.timeIndex().maybeAppend(max.timestamp(), max.offset(), true);
        } finally {
          file.unpin();
        }
      }
    } finally {
      file.close();
    }
  }

  /**
   * Closes the files without the final time-index entry {@link #close()} writes: for a log whose
   * disk failed, where a write to a mapping can fault ({@link InternalError}) instead of failing.
   */
  public void release() throws IOException {
    file.close();
  }

  /** Closes and removes all three files. */
  public void deleteIfExists() throws IOException {
    file.deleteIfExists();
  }

  @Override
  public String toString() {
    return "LogSegment(baseOffset=" + baseOffset + ", size=" + size + ")";
  }
}
