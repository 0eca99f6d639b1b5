package io.brook.storage.log;

import io.brook.storage.StorageError;
import io.brook.storage.StorageException;
import io.brook.storage.epoch.EpochEndOffset;
import io.brook.storage.epoch.EpochEntry;
import io.brook.storage.epoch.LeaderEpochCache;
import io.brook.storage.producer.BatchMetadata;
import io.brook.storage.producer.ProducerStateEntry;
import io.brook.storage.producer.ProducerStateManager;
import io.brook.storage.producer.VerificationGuard;
import io.brook.storage.segment.FileHandlePool;
import io.brook.storage.segment.LogSegment;
import io.brook.storage.txn.AbortedTxn;
import io.brook.storage.txn.AbortedTxnSearch;
import io.brook.storage.txn.CompletedTxn;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentNavigableMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One partition's log: an ordered map of segments, the last of which takes appends.
 *
 * <p>Offsets: {@code logStartOffset <= highWatermark <= logEndOffset}. Records below the high
 * watermark are committed; the caller (the replica manager) moves it. Readers pass their own upper
 * bound (the high watermark, later the last stable offset) and never see bytes beyond it.
 *
 * <p>Appends: whatever their origin, they take one path ({@code appendLocked}); what differs by
 * origin (validation, offsets, epochs, timestamps, producer checks) is decided before the lock in a
 * {@link PreparedAppend}.
 *
 * <p>Concurrency: appends, rolls, truncations and log-start moves are serialized by one lock
 * ({@link LogLock}). Reads take no lock: they see the segment map (a concurrent skip list) and the
 * volatile log end, which is published only after a batch is fully written and indexed and its
 * producer state and leader epoch are recorded, so no reader ever sees a half-written batch.
 * Flushes run under a separate lock so an fsync does not stall appends.
 */
public final class PartitionLog implements ReplicaLog, Closeable {
  private static final Logger log = LoggerFactory.getLogger(PartitionLog.class);

  private final Path dir;
  private final TopicPartition topicPartition;
  private final Time time;
  private final LogOpenOptions options;
  private final ConcurrentNavigableMap<Long, LogSegment> segments;
  private final LeaderEpochCache epochCache;
  private final ProducerStateManager producerState;
  private final LogLock lock = new LogLock();
  private final LogFlusher flusher;
  private final SegmentDeleter deleter;
  private final LastStableOffset lastStable;

  private volatile LogConfig config;
  private volatile LogOffsetMetadata logEndOffsetMetadata;
  private volatile LogOffsetMetadata highWatermarkMetadata;
  private volatile long logStartOffset;
  private final LogHealth health;

  /**
   * With tiered storage: the offset below which this log's data is committed to remote storage (set
   * by the remote log manager), -1 until known. A tiered log deletes no local segment above it.
   */
  private volatile long remoteCopiedEnd = -1L;

  PartitionLog(
      Path dir,
      LogConfig config,
      LogOpenOptions options,
      ConcurrentNavigableMap<Long, LogSegment> segments,
      LeaderEpochCache epochCache,
      ProducerStateManager producerState,
      long logStartOffset,
      long recoveryPoint) {
    this.dir = dir;
    this.config = config;
    this.options = options;
    this.topicPartition = options.topicPartition();
    this.time = options.time();
    this.segments = segments;
    this.epochCache = epochCache;
    this.producerState = producerState;
    this.logStartOffset = logStartOffset;
    LogSegment active = segments.lastEntry().getValue();
    this.logEndOffsetMetadata =
        new LogOffsetMetadata(active.readNextOffset(), active.baseOffset(), active.sizeInBytes());
    this.flusher =
        new LogFlusher(
            segments,
            epochCache,
            recoveryPoint,
            logEndOffsetMetadata.messageOffset(),
            time,
            options.flushStats());
    this.deleter = new SegmentDeleter(topicPartition, time);
    this.health = new LogHealth(topicPartition, dir, options.dirFailures());
    this.lastStable = new LastStableOffset(producerState);
    long hw =
        Math.min(
            Math.max(options.highWatermark(), logStartOffset),
            logEndOffsetMetadata.messageOffset());
    this.highWatermarkMetadata = resolve(hw);
    producerState.onHighWatermarkUpdated(hw);
  }

  /**
   * Opens the log in {@code dir}, creating it if absent and recovering it if it was not closed
   * cleanly.
   */
  public static PartitionLog open(Path dir, LogConfig config, LogOpenOptions options)
      throws IOException {
    return new LogLoader(dir, config, options).load();
  }

  // ---- Appends ----

  /**
   * Appends a producer's batches: validates them, assigns offsets, stamps {@code leaderEpoch}. May
   * block on disk (a roll, a {@code flush.messages} fsync): never call it on an event loop.
   */
  @Override
  public LogAppendInfo appendAsLeader(
      MemoryRecords records, int leaderEpoch, VerificationGuard guard) {
    return appendLocked(prepareLeader(records, AppendOrigin.CLIENT, leaderEpoch, guard), true);
  }

  /**
   * {@link #appendAsLeader} for a thread that must not wait for the disk (a Netty event loop): if
   * the append would roll a segment, fsync for {@code flush.messages} or write the leader-epoch
   * checkpoint, nothing is appended and the answer is {@code null}; the caller then appends with
   * {@link #appendAsLeader} on a thread that may block. The same when the log's lock is held by
   * disk work (a roll, retention): waiting for it would be waiting for the disk. Decided under the
   * log's lock, so no other append can slip in between the check and the write.
   */
  @Override
  public LogAppendInfo appendAsLeaderWithoutBlocking(
      MemoryRecords records, int leaderEpoch, VerificationGuard guard) {
    return appendLocked(prepareLeader(records, AppendOrigin.CLIENT, leaderEpoch, guard), false);
  }

  @Override
  public VerificationGuard maybeStartTransactionVerification(
      long producerId, short epoch, int baseSequence, boolean supportsEpochBump) {
    return producerState.maybeStartVerification(producerId, epoch, baseSequence, supportsEpochBump);
  }

  /** Like {@link #appendAsLeader}, for a coordinator that may also write control batches. */
  @Override
  public LogAppendInfo appendAsCoordinator(
      MemoryRecords records, int leaderEpoch, short transactionVersion) {
    return appendLocked(
        PreparedAppend.leader(
            records,
            config,
            AppendOrigin.COORDINATOR,
            leaderEpoch,
            time.milliseconds(),
            VerificationGuard.NOT_CHECKED,
            transactionVersion),
        true);
  }

  /** Appends batches copied from the leader, keeping their offsets and leader epochs. */
  @Override
  public LogAppendInfo appendAsFollower(MemoryRecords records) {
    return appendLocked(PreparedAppend.follower(records, config, time.milliseconds()), true);
  }

  private PreparedAppend prepareLeader(
      MemoryRecords records, AppendOrigin origin, int epoch, VerificationGuard guard) {
    return PreparedAppend.leader(
        records, config, origin, epoch, time.milliseconds(), guard, (short) 0);
  }

  /**
   * The one write path, for every origin. Under the log's lock, in this order: check the producers
   * (or find the original of a retry), place the batches at the log end, roll if they do not fit,
   * write them (the segment indexes them as it writes), record them in producer state, the leader
   * epoch cache and the transaction index, and only then publish the new log end, which is what
   * makes them visible to readers. Everything the origin decides was decided in {@code prepared}.
   *
   * @param mayBlock false for a caller that must not wait for the disk: then, before anything
   *     changes, an append that would roll, fsync or write the epoch checkpoint (or wait behind
   *     disk work holding the lock) answers {@code null}
   */
  private LogAppendInfo appendLocked(PreparedAppend prepared, boolean mayBlock) {
    if (!lock.lockUnlessDiskWork(mayBlock)) {
      return null;
    }
    try {
      health.ensureWritable();
      long logEnd = logEndOffsetMetadata.messageOffset();
      if (!mayBlock && wouldBlock(prepared, logEnd)) {
        return null;
      }
      ProducerStateManager.Append producers = prepared.beginProducers(producerState, logEnd);
      Optional<BatchMetadata> duplicate = prepared.findDuplicate(producers);
      if (duplicate.isPresent()) {
        return LogAppendInfo.duplicateOf(duplicate.get(), logStartOffset);
      }
      long firstOffset = prepared.firstOffset(logEnd);
      long lastOffset = prepared.place(firstOffset);
      BatchValidator.Summary summary = prepared.summary();
      // A non-blocking append got here only because it needs no roll: skip asking again.
      LogSegment segment =
          mayBlock
              ? maybeRoll(
                  summary.sizeInBytes(),
                  lastOffset,
                  summary.firstBatchTimestamp(),
                  prepared.nowMs(),
                  prepared.config())
              : segments.lastEntry().getValue();
      write(segment, prepared.records());
      List<AppendedBatch> appended =
          recordAppended(segment, prepared.records(), producers, summary.batchCount());
      logEndOffsetMetadata =
          new LogOffsetMetadata(lastOffset + 1, segment.baseOffset(), segment.sizeInBytes());
      if (flusher.recordAppended(firstOffset, lastOffset + 1, prepared.config())) {
        DiskStallHook.before(topicPartition, DiskStallHook.Step.FLUSH_MESSAGES);
        flushUpTo(lastOffset + 1);
      }
      return prepared.appended(firstOffset, lastOffset, logStartOffset, appended);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Whether an append would do more than write to the page cache: start an epoch (a checkpoint file
   * write), fsync for {@code flush.messages}, or roll. Under the lock; changes nothing.
   */
  private boolean wouldBlock(PreparedAppend prepared, long logEnd) {
    if (prepared.startsEpoch(epochCache)) {
      return true;
    }
    long lastOffset = prepared.lastOffsetIfPlaced(logEnd);
    BatchValidator.Summary summary = prepared.summary();
    return flusher.wouldFlush(lastOffset + 1, prepared.config())
        || mustRoll(
            summary.sizeInBytes(),
            lastOffset,
            summary.firstBatchTimestamp(),
            prepared.nowMs(),
            prepared.config());
  }

  /**
   * Writes placed batches to the active segment, which indexes them; on any failure cuts what
   * reached the file and takes the partition offline.
   */
  private void write(LogSegment segment, MemoryRecords records) {
    try {
      segment.append(records);
    } catch (IOException | RuntimeException | InternalError e) {
      // InternalError is how the JVM reports a fault writing an index mapping on a full disk.
      // Cut whatever part of the batch reached the file, so not even a later recovery sees it.
      try {
        segment.cutToSize();
      } catch (IOException | RuntimeException ignored) {
        // The disk is failing; recovery at the next start truncates the torn tail.
      }
      throw health.markOffline("appending to " + segment, e);
    }
  }

  /**
   * After the write: the producers' new state (committed), the epochs the batches start (a leader's
   * batches all carry its epoch, a follower's the ones its leader stamped), and the transactions
   * their ABORT markers aborted, in {@code segment}'s transaction index.
   */
  private List<AppendedBatch> recordAppended(
      LogSegment segment,
      MemoryRecords records,
      ProducerStateManager.Append producers,
      int batchCount) {
    AppendedBatch[] appended = new AppendedBatch[batchCount];
    int count = 0;
    int lastEpoch = RecordBatch.NO_PARTITION_LEADER_EPOCH;
    long next = 0;
    for (MutableRecordBatch batch : records.batches()) {
      int epoch = batch.partitionLeaderEpoch();
      if (epoch != lastEpoch) {
        maybeAssignEpoch(epoch, batch.baseOffset());
        lastEpoch = epoch;
      }
      producers.record(batch);
      appended[count++] = AppendedBatch.of(batch);
      next = batch.nextOffset();
    }
    producers.commit();
    producerState.updateMapEndOffset(next);
    for (CompletedTxn txn : producers.completedTransactions()) {
      if (txn.aborted()) {
        indexAbort(segment, txn);
      }
    }
    return List.of(appended);
  }

  private void indexAbort(LogSegment segment, CompletedTxn txn) {
    try {
      segment.txnIndex().append(txn.toAbortedTxn());
    } catch (IOException e) {
      throw health.markOffline("writing the transaction index of " + segment, e);
    }
  }

  private void maybeAssignEpoch(int epoch, long startOffset) {
    if (epoch < 0 || epochCache.latestEpoch().orElse(-1) >= epoch) {
      return;
    }
    try {
      epochCache.assign(epoch, startOffset);
    } catch (IOException e) {
      throw health.markOffline("writing the leader-epoch checkpoint", e);
    }
  }

  // ---- Rolling and flushing ----

  private boolean mustRoll(
      int messagesSize, long maxOffset, long incomingTimestamp, long now, LogConfig cfg) {
    LogSegment active = segments.lastEntry().getValue();
    long rollMs = LogRetention.effectiveSegmentMs(cfg, options.retentionCheckIntervalMs());
    return active.shouldRoll(messagesSize, maxOffset, incomingTimestamp, now, cfg, rollMs);
  }

  private LogSegment maybeRoll(
      int messagesSize, long maxOffset, long incomingTimestamp, long now, LogConfig cfg) {
    if (!mustRoll(messagesSize, maxOffset, incomingTimestamp, now, cfg)) {
      return segments.lastEntry().getValue();
    }
    return rollLocked();
  }

  /** Starts a new segment at the log end offset, even if the active one is not full. */
  public void roll() {
    lock.lock();
    try {
      health.ensureWritable();
      rollLocked();
    } finally {
      lock.unlock();
    }
  }

  private LogSegment rollLocked() {
    LogSegment active = segments.lastEntry().getValue();
    long newBase = logEndOffsetMetadata.messageOffset();
    if (active.sizeInBytes() == 0) {
      return active;
    }
    try {
      LogSegment created = lock.diskWork(() -> startSegment(active, newBase));
      segments.put(newBase, created);
      logEndOffsetMetadata = new LogOffsetMetadata(newBase, newBase, 0);
      flusher.rolled();
      log.debug("Rolled new segment topicPartition={} baseOffset={}", topicPartition, newBase);
      options.background().execute(() -> flushQuietly(newBase));
      return created;
    } catch (IOException | InternalError e) {
      // InternalError: a fault writing an index mapping on a full disk (the roll trims the active
      // segment's indexes and writes its last time-index entry), reported like any I/O error so
      // the producer or the fetcher hears KAFKA_STORAGE_ERROR, not an unknown error or a crash.
      throw health.markOffline("rolling a new segment at " + newBase, e);
    }
  }

  /** Closes the active segment for appends and creates the next one: file work, under the lock. */
  private LogSegment startSegment(LogSegment active, long newBase) throws IOException {
    DiskStallHook.before(topicPartition, DiskStallHook.Step.ROLL);
    active.onBecomeInactiveSegment();
    producerState.updateMapEndOffset(newBase);
    producerState.takeSnapshot();
    return LogSegment.create(dir, newBase, config, time, options.files());
  }

  private void flushQuietly(long upTo) {
    try {
      flushUpTo(upTo);
    } catch (StorageException e) {
      log.error("Flush after roll failed topicPartition={} upTo={}", topicPartition, upTo, e);
    }
  }

  /** Forces everything appended so far to disk and moves the recovery point to the log end. */
  public void flush() {
    flushUpTo(logEndOffsetMetadata.messageOffset());
  }

  /** Flushes if some data has waited {@code flush.ms} unflushed; for the periodic flusher. */
  public void flushIfDue() {
    if (flusher.isDue(config)) {
      flush();
    }
  }

  private void flushUpTo(long offset) {
    try {
      flusher.flushUpTo(offset);
    } catch (IOException e) {
      throw health.markOffline("flushing up to offset " + offset, e);
    }
  }

  // ---- Reads ----

  /**
   * Reads from the batch holding {@code startOffset}, at most {@code maxBytes} (the whole first
   * batch when {@code minOneBatch}), and never past {@code maxOffset} (exclusive): pass the high
   * watermark for consumers and the log end for followers.
   *
   * @throws StorageException OFFSET_OUT_OF_RANGE below the log start or above the log end
   */
  @Override
  public LogReadResult read(long startOffset, int maxBytes, long maxOffset, boolean minOneBatch) {
    health.ensureReadable();
    return LogReads.read(
        segments,
        topicPartition,
        new LogReads.Bounds(logStartOffset, highWatermarkMetadata, logEndOffsetMetadata),
        new LogReads.Request(startOffset, maxBytes, maxOffset, minOneBatch));
  }

  private LogOffsetMetadata resolve(long offset) {
    return LogPositions.resolve(segments, logEndOffsetMetadata, offset);
  }

  /**
   * The first record at or after {@code timestamp} below {@code maxOffset} (ListOffsets by time).
   */
  @Override
  public Optional<FileRecords.TimestampAndOffset> offsetForTimestamp(
      long timestamp, long maxOffset) {
    health.ensureReadable();
    return TimestampLookups.offsetForTimestamp(
        segments.values(), logStartOffset, timestamp, maxOffset, config.recordLimits());
  }

  /** The record with the largest timestamp (ListOffsets MAX_TIMESTAMP), the earliest on ties. */
  @Override
  public Optional<FileRecords.TimestampAndOffset> maxTimestampRecord() {
    health.ensureReadable();
    return TimestampLookups.maxTimestampRecord(segments.values(), config.recordLimits());
  }

  // ---- Offsets ----

  @Override
  public long logStartOffset() {
    return logStartOffset;
  }

  @Override
  public long logEndOffset() {
    return logEndOffsetMetadata.messageOffset();
  }

  @Override
  public LogOffsetMetadata logEndOffsetMetadata() {
    return logEndOffsetMetadata;
  }

  @Override
  public long highWatermark() {
    return highWatermarkMetadata.messageOffset();
  }

  @Override
  public LogOffsetMetadata highWatermarkMetadata() {
    return highWatermarkMetadata;
  }

  /**
   * The last stable offset (KIP-98; see {@link LastStableOffset}): read_committed reads stop here.
   */
  @Override
  public long lastStableOffset() {
    return lastStable.value(highWatermark(), logStartOffset);
  }

  /** {@link #lastStableOffset()} with its position on disk, for waiting read_committed fetches. */
  @Override
  public LogOffsetMetadata lastStableOffsetMetadata() {
    return lastStable.metadata(highWatermarkMetadata, logStartOffset, this::resolve);
  }

  /**
   * The aborts overlapping {@code [startOffset, upperBoundOffset)}: see {@link AbortedTxnSearch}.
   */
  @Override
  public List<AbortedTxn> collectAbortedTransactions(long startOffset, long upperBoundOffset) {
    health.ensureReadable();
    return AbortedTxnSearch.collect(segments, startOffset, upperBoundOffset);
  }

  public long recoveryPoint() {
    return flusher.recoveryPoint();
  }

  /** Offsets appended but not yet flushed: what {@code flush.messages} counts. */
  public long unflushedMessages() {
    return flusher.unflushedMessages();
  }

  /**
   * Sets the high watermark, clamped to {@code [logStartOffset, logEndOffset]}.
   *
   * @return the value set
   */
  @Override
  public long updateHighWatermark(long highWatermark) {
    lock.lock();
    try {
      long clamped = Math.min(Math.max(highWatermark, logStartOffset), logEndOffset());
      highWatermarkMetadata = resolve(clamped);
      producerState.onHighWatermarkUpdated(clamped);
      return clamped;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Moves the log start offset forward (DeleteRecords): offsets below it become unreadable.
   *
   * @throws StorageException OFFSET_OUT_OF_RANGE past the high watermark
   */
  @Override
  public void maybeIncrementLogStartOffset(long newLogStartOffset) {
    lock.lock();
    try {
      health.ensureWritable();
      if (newLogStartOffset > highWatermark()) {
        throw new StorageException(
            StorageError.OFFSET_OUT_OF_RANGE,
            "cannot move the log start offset of "
                + topicPartition
                + " to "
                + newLogStartOffset
                + ", past the high watermark "
                + highWatermark());
      }
      if (newLogStartOffset <= logStartOffset) {
        return;
      }
      logStartOffset = newLogStartOffset;
      epochCache.truncateFromStart(newLogStartOffset);
      lock.diskWork(() -> deleteOldSegmentsLocked(true));
    } catch (IOException e) {
      throw health.markOffline("moving the log start offset", e);
    } finally {
      lock.unlock();
    }
  }

  // ---- Retention ----

  /**
   * Deletes the whole segments that retention no longer keeps (see {@link LogRetention}) and moves
   * the log start offset to the first segment left. Their files go only after {@code
   * file.delete.delay.ms}, so a reader that already holds one finishes its read.
   *
   * @return the number of segments deleted
   */
  public int deleteOldSegments() {
    lock.lock();
    try {
      if (health.isClosed() || health.isOffline()) {
        return 0;
      }
      return lock.diskWork(() -> deleteOldSegmentsLocked(false));
    } catch (IOException e) {
      throw health.markOffline("deleting segments past retention", e);
    } finally {
      lock.unlock();
    }
  }

  private int deleteOldSegmentsLocked(boolean startOnly) throws IOException {
    List<LogSegment> doomed =
        LogRetention.deletable(
            segments,
            config,
            new LogRetention.State(
                logStartOffset,
                highWatermark(),
                logEndOffset(),
                time.milliseconds(),
                remoteCopiedEnd),
            startOnly);
    if (doomed.isEmpty()) {
      return 0;
    }
    if (doomed.size() == segments.size()) {
      rollLocked();
    }
    long firstLeft = LogRetention.remove(segments, doomed, deleter, config, topicPartition);
    if (firstLeft > logStartOffset) {
      logStartOffset = firstLeft;
      epochCache.truncateFromStart(firstLeft);
      producerState.deleteSnapshotsBefore(firstLeft);
    }
    return doomed.size();
  }

  /**
   * Records that every offset below {@code endOffset} is committed to remote storage, so local
   * retention may delete the segments below it (never moves backwards).
   */
  public void remoteCopiedUpTo(long endOffset) {
    lock.lock();
    try {
      remoteCopiedEnd = Math.max(remoteCopiedEnd, endOffset);
    } finally {
      lock.unlock();
    }
  }

  /** The offset below which this log is committed to remote storage; -1 if unknown. */
  public long remoteCopiedEnd() {
    return remoteCopiedEnd;
  }

  /** Removes the files of deleted segments whose {@code file.delete.delay.ms} has passed. */
  public int deletePendingFiles() {
    return deleter.deleteDue();
  }

  /**
   * For the log cleaner: puts {@code cleaned} (complete, its files named {@code *.swap}) in place
   * of {@code replaced}, unless the log changed under the cleaner (a truncation, retention, or any
   * other replacement took one of them out), in which case nothing changes and the caller discards
   * its work. See {@link SegmentSwap} for the crash-safe order of renames.
   *
   * @return whether the swap happened
   */
  public boolean replaceSegments(List<LogSegment> replaced, LogSegment cleaned) {
    lock.lock();
    try {
      health.ensureWritable();
      return lock.diskWork(
          () -> SegmentSwap.swap(segments, replaced, cleaned, deleter, config.fileDeleteDelayMs()));
    } catch (IOException e) {
      throw health.markOffline("swapping in a cleaned segment at " + cleaned.baseOffset(), e);
    } finally {
      lock.unlock();
    }
  }

  /** The end offset of {@code leaderEpoch} as this replica knows it (OffsetForLeaderEpoch). */
  @Override
  public EpochEndOffset endOffsetForEpoch(int leaderEpoch) {
    return epochCache.endOffsetFor(leaderEpoch, logEndOffset());
  }

  public LeaderEpochCache leaderEpochCache() {
    return epochCache;
  }

  @Override
  public OptionalInt latestEpoch() {
    return epochCache.latestEpoch();
  }

  @Override
  public OptionalInt epochForOffset(long offset) {
    return epochCache.epochForOffset(offset);
  }

  @Override
  public void assignEpoch(int epoch, long startOffset) throws IOException {
    epochCache.assign(epoch, startOffset);
  }

  @Override
  public Optional<ProducerStateEntry> producerEntry(long producerId) {
    return producerState.lastEntry(producerId);
  }

  @Override
  public Map<Long, ProducerStateEntry> activeProducers() {
    return producerState.activeProducers();
  }

  public ProducerStateManager producerState() {
    return producerState;
  }

  /** Forgets producers idle for longer than {@code producer.id.expiration.ms}. */
  public void removeExpiredProducers() {
    lock.lock();
    try {
      producerState.removeExpiredProducers(time.milliseconds());
    } finally {
      lock.unlock();
    }
  }

  // ---- Truncation ----

  /**
   * Removes every batch at or after {@code targetOffset} (a follower dropping a divergent tail).
   * Producer state and leader epochs are rolled back with it.
   *
   * <p>A target at or past the log end removes no batch but still drops the leader epochs that
   * start at the log end: a broker that became leader (recording its epoch at the log end) and lost
   * the leadership before writing in that epoch holds an epoch no record carries and the new leader
   * never had. Kept, it would be this follower's last fetched epoch in every fetch, each answered
   * with the same divergence, and the follower would never fetch a record again.
   */
  @Override
  public void truncateTo(long targetOffset) {
    lock.lock();
    try {
      health.ensureWritable();
      if (targetOffset >= logEndOffset()) {
        epochCache.truncateFromEnd(logEndOffset());
        return;
      }
      if (targetOffset < logStartOffset) {
        truncateFullyAndStartAtLocked(targetOffset);
        return;
      }
      deleter.scheduleDelete(
          LogTruncation.truncateTo(segments, targetOffset), config.fileDeleteDelayMs());
      LogSegment active = segments.lastEntry().getValue();
      long newEnd = active.readNextOffset();
      logEndOffsetMetadata =
          new LogOffsetMetadata(newEnd, active.baseOffset(), active.sizeInBytes());
      // Truncation works in whole batches, so it can cut below a log start inside a batch.
      logStartOffset = Math.min(logStartOffset, newEnd);
      epochCache.truncateFromEnd(newEnd);
      lastStable.invalidate();
      LogLoader.rebuildProducerState(producerState, segments, logStartOffset, newEnd);
      flusher.truncatedTo(newEnd);
      if (highWatermark() > newEnd) {
        highWatermarkMetadata = logEndOffsetMetadata;
      }
      producerState.onHighWatermarkUpdated(highWatermark());
      log.info(
          "Truncated log topicPartition={} targetOffset={} logEndOffset={}",
          topicPartition,
          targetOffset,
          newEnd);
    } catch (IOException e) {
      throw health.markOffline("truncating to " + targetOffset, e);
    } finally {
      lock.unlock();
    }
  }

  /** Deletes every segment and starts empty at {@code newOffset} (a replica too far behind). */
  @Override
  public void truncateFullyAndStartAt(long newOffset) {
    lock.lock();
    try {
      health.ensureWritable();
      truncateFullyAndStartAtLocked(newOffset);
    } catch (IOException e) {
      throw health.markOffline("truncating fully to " + newOffset, e);
    } finally {
      lock.unlock();
    }
  }

  /**
   * A follower starting at the leader's local log start with the state of the records below it,
   * which stay in remote storage (KIP-405's follower path): the log is emptied and starts at {@code
   * newOffset}, with {@code epochs} (the leader epochs up to it) and, if given, the producer
   * snapshot taken at {@code newOffset}. Everything below {@code newOffset} counts as copied.
   */
  public void restartFromRemote(
      long newOffset, List<EpochEntry> epochs, Optional<byte[]> producerSnapshot) {
    lock.lock();
    try {
      health.ensureWritable();
      truncateFullyAndStartAtLocked(newOffset);
      for (EpochEntry e : epochs) {
        epochCache.assign(e.epoch(), e.startOffset());
      }
      epochCache.truncateFromStart(newOffset);
      epochCache.flush();
      if (producerSnapshot.isPresent()
          && !producerState.loadSnapshotAt(newOffset, producerSnapshot.get())) {
        log.warn(
            "The remote producer snapshot is unusable, starting without producer state"
                + " topicPartition={} offset={}",
            topicPartition,
            newOffset);
      }
      remoteCopiedEnd = Math.max(remoteCopiedEnd, newOffset);
    } catch (IOException e) {
      throw health.markOffline("restarting at " + newOffset + " from remote state", e);
    } finally {
      lock.unlock();
    }
  }

  private void truncateFullyAndStartAtLocked(long newOffset) throws IOException {
    deleter.scheduleDelete(List.copyOf(segments.values()), config.fileDeleteDelayMs());
    segments.clear();
    LogSegment fresh = LogSegment.create(dir, newOffset, config, time, options.files());
    segments.put(newOffset, fresh);
    epochCache.clear();
    lastStable.invalidate();
    producerState.truncateFullyAndStartAt(newOffset);
    logStartOffset = newOffset;
    logEndOffsetMetadata = new LogOffsetMetadata(newOffset, newOffset, 0);
    highWatermarkMetadata = logEndOffsetMetadata;
    producerState.onHighWatermarkUpdated(newOffset);
    flusher.resetTo(newOffset);
    log.info("Truncated log fully topicPartition={} newOffset={}", topicPartition, newOffset);
  }

  // ---- Lifecycle ----

  @Override
  public TopicPartition topicPartition() {
    return topicPartition;
  }

  /** The node's pool of open segment files, which this log's segments use. */
  public FileHandlePool files() {
    return options.files();
  }

  @Override
  public Path dir() {
    return dir;
  }

  @Override
  public LogConfig config() {
    return config;
  }

  /** New topic settings, used from the next append or roll and the next retention pass. */
  @Override
  public void updateConfig(LogConfig newConfig) {
    config = newConfig;
  }

  @Override
  public long sizeInBytes() {
    long size = 0;
    for (LogSegment segment : segments.values()) {
      size += segment.sizeInBytes();
    }
    return size;
  }

  /** The segments, oldest first (a view; for retention, tools and tests). */
  public Collection<LogSegment> segments() {
    return segments.values();
  }

  /** True once an I/O error took this partition offline until the broker restarts. */
  @Override
  public boolean isOffline() {
    return health.isOffline();
  }

  /**
   * An I/O error on this log's files outside its own operations (the replica manager recording a
   * leader epoch): takes the log and its directory offline, as its own failures do.
   *
   * @return the error to fail the current operation with
   */
  @Override
  public StorageException markOffline(String what, IOException cause) {
    return health.markOffline(what, cause);
  }

  /**
   * Its log directory failed: from now on every read and write fails with KAFKA_STORAGE_ERROR, and
   * its files are closed without a flush (the disk is not trusted); recovery at the next start
   * re-validates whatever reached it.
   */
  public void markDirOffline() {
    health.markDirOffline();
    lock.lock();
    try {
      releaseSegments();
    } finally {
      lock.unlock();
    }
  }

  private void releaseSegments() {
    for (LogSegment segment : segments.values()) {
      try {
        segment.release();
      } catch (IOException | RuntimeException e) {
        log.debug(
            "Closing a segment of an offline log failed topicPartition={}", topicPartition, e);
      }
    }
  }

  /** Flushes, snapshots producers and closes; an offline log leaves its tail to recovery. */
  @Override
  public void close() throws IOException {
    lock.lock();
    try {
      if (health.isClosed()) {
        return;
      }
      health.markClosed();
      if (health.isOffline()) {
        // Nothing more is written to a failed disk; recovery at the next start cleans up.
        releaseSegments();
        return;
      }
      flusher.flushUpTo(logEndOffset());
      producerState.updateMapEndOffset(logEndOffset());
      // An empty log without producer state leaves the next load nothing to replay, so a snapshot
      // would save nothing (Kafka writes none either); it would cost every empty partition a file
      // and an fsync at every shutdown, 24,000 of them on a broker of empty RF 3 partitions.
      if (logEndOffset() > logStartOffset() || producerState.hasProducers()) {
        producerState.takeSnapshot();
      }
      for (LogSegment segment : segments.values()) {
        segment.close();
      }
      deleter.deleteAll();
    } finally {
      lock.unlock();
    }
  }

  /** Closes the log and deletes its directory. */
  public void delete() throws IOException {
    lock.lock();
    try {
      health.markClosed();
      deleter.deleteAll();
      for (LogSegment segment : segments.values()) {
        segment.deleteIfExists();
      }
      segments.clear();
      LogLoader.deleteDirectory(dir);
    } finally {
      lock.unlock();
    }
  }

  @Override
  public String toString() {
    return String.format(
        "PartitionLog(%s, logStart=%d, logEnd=%d, hw=%d)",
        topicPartition, logStartOffset, logEndOffset(), highWatermark());
  }
}
