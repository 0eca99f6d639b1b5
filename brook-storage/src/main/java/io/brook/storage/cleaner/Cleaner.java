package io.brook.storage.cleaner;

import io.brook.storage.StorageException;
import io.brook.storage.log.LogConfig;
import io.brook.storage.log.PartitionLog;
import io.brook.storage.record.BatchRecordReader;
import io.brook.storage.record.RecordLimits;
import io.brook.storage.segment.LogSegment;
import io.brook.storage.segment.PinnedSegment;
import io.brook.storage.segment.SegmentFiles;
import io.brook.storage.txn.AbortedTxn;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.DefaultRecordBatch;
import org.apache.kafka.common.record.internal.FileLogInputStream.FileChannelRecordBatch;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One cleaning pass over one log: index the dirty section's keys into the {@link OffsetMap}, then
 * rewrite every segment below the indexed end through a {@link CompactionFilter}, in groups of
 * consecutive segments up to {@code segment.bytes}, each group becoming one segment.
 *
 * <p>Offsets and order never change: batches are copied or filtered in place, never reassigned. The
 * active segment, the segment holding the high watermark and segments younger than {@code
 * min.compaction.lag.ms} are never touched ({@link CleanableRange}). Each group is written to
 * {@code *.cleaned} files, fsynced, renamed to {@code *.swap} and swapped in by {@link
 * PartitionLog#replaceSegments}; see {@code SegmentSwap} for what a crash at each step leaves.
 *
 * <p>Not thread-safe: one instance per cleaner thread (it owns the map and the buffers).
 */
public final class Cleaner {
  private static final Logger log = LoggerFactory.getLogger(Cleaner.class);

  /**
   * What kafka-clients' {@code filterTo} holds per kept record besides its bytes: a {@code
   * DefaultRecord}, buffers for its body, key and value, a header array and a list slot, about 200
   * bytes on a 64-bit JVM with compressed pointers.
   */
  static final int RECORD_OBJECT_BYTES = 200;

  private final OffsetMap map;
  private final Throttler throttler;
  private final Time time;
  private final BooleanSupplier aborted;
  private final int initialBufferSize;
  private final BatchRecordReader reader = new BatchRecordReader();
  private ByteBuffer readBuffer;
  private ByteBuffer writeBuffer;

  /**
   * @param ioBufferSize starting size of each of the read and write buffers
   * @param aborted checked between batches; true stops the pass (shutdown)
   */
  public Cleaner(
      OffsetMap map, int ioBufferSize, Throttler throttler, Time time, BooleanSupplier aborted) {
    this.map = map;
    this.throttler = throttler;
    this.time = time;
    this.aborted = aborted;
    this.initialBufferSize = ioBufferSize;
    this.readBuffer = ByteBuffer.allocate(ioBufferSize);
    this.writeBuffer = ByteBuffer.allocate(ioBufferSize);
  }

  /** What a pass did. {@code cleanedUpTo} is the next pass's first dirty offset. */
  public record Result(
      long cleanedUpTo,
      long bytesRead,
      long bytesWritten,
      boolean retainedTombstones,
      boolean swapped,
      int segmentsBefore,
      int segmentsAfter) {}

  /**
   * Cleans {@code partitionLog} from {@code firstDirtyOffset}. Returns null if there is nothing to
   * clean; a result with {@code swapped == false} if the log changed under the pass (it is
   * retried).
   */
  public Result clean(PartitionLog partitionLog, long firstDirtyOffset) throws IOException {
    long now = time.milliseconds();
    LogConfig config = partitionLog.config();
    List<LogSegment> segments = new ArrayList<>(partitionLog.segments());
    CleanableRange range = CleanableRange.of(partitionLog, segments, firstDirtyOffset, now);
    if (range == null) {
      return null;
    }
    map.clear();
    long mapEnd =
        buildOffsetMap(
            segments,
            range,
            new TransactionWalk(
                partitionLog.collectAbortedTransactions(
                    range.firstDirtyOffset(), range.uncleanableOffset())),
            config.recordLimits());
    if (mapEnd < 0) {
      return null;
    }
    Stats stats = new Stats();
    boolean tombstones = false;
    List<List<LogSegment>> groups = CleanableRange.groups(segments, mapEnd, config);
    if (groups.isEmpty()) {
      return new Result(mapEnd, 0, 0, false, true, 0, 0);
    }
    // One walk over every copied batch, across groups, in offset order. The aborts up to the end
    // of the last group, not only up to the map's end: the groups' segments are copied whole, and
    // the walk must know every abort whose marker it meets (its index entry is carried by it).
    // A tiered log's data below its first local segment may still be remote: aborts that began
    // there keep their markers.
    List<LogSegment> lastGroup = groups.get(groups.size() - 1);
    long walkStart = segments.get(0).baseOffset();
    TransactionWalk transactions =
        new TransactionWalk(
            partitionLog.collectAbortedTransactions(
                walkStart, lastGroup.get(lastGroup.size() - 1).readNextOffset()),
            config.remoteStorageEnable() ? walkStart : Long.MIN_VALUE);
    for (List<LogSegment> group : groups) {
      CompactionFilter filter =
          new CompactionFilter(
              map,
              mapEnd,
              now,
              config.deleteRetentionMs(),
              partitionLog.producerState().activeProducers(),
              transactions);
      if (!cleanGroup(partitionLog, group, filter, transactions, config, stats)) {
        return new Result(firstDirtyOffset, stats.read, stats.written, true, false, 0, 0);
      }
      tombstones |= filter.retainedTombstone();
    }
    int before = 0;
    for (List<LogSegment> group : groups) {
      before += group.size();
    }
    log.info(
        "Cleaned log topicPartition={} from={} to={} keys={} probes={} segments={}->{}"
            + " readBytes={} writtenBytes={} durationMs={}",
        partitionLog.topicPartition(),
        range.firstDirtyOffset(),
        mapEnd,
        map.size(),
        String.format("%.2f", map.averageProbes()),
        before,
        groups.size(),
        stats.read,
        stats.written,
        time.milliseconds() - now);
    return new Result(mapEnd, stats.read, stats.written, tombstones, true, before, groups.size());
  }

  private static final class Stats {
    long read;
    long written;
  }

  /**
   * Indexes keys from the first dirty offset until the map is full or the cleanable end is reached;
   * returns the first offset not indexed (-1 if aborted).
   */
  private long buildOffsetMap(
      List<LogSegment> segments,
      CleanableRange range,
      TransactionWalk transactions,
      RecordLimits limits)
      throws IOException {
    for (LogSegment segment : segments) {
      if (segment.baseOffset() >= range.uncleanableOffset()) {
        break;
      }
      try (PinnedSegment pinned = segment.pin()) {
        for (FileChannelRecordBatch batch : pinned.records().batches()) {
          if (batch.lastOffset() < range.firstDirtyOffset()) {
            continue;
          }
          if (batch.baseOffset() >= range.uncleanableOffset() || aborted.getAsBoolean()) {
            return aborted.getAsBoolean() ? -1 : range.uncleanableOffset();
          }
          throttler.maybeThrottle(batch.sizeInBytes());
          if (batch.isControlBatch()) {
            transactions.onMarker(batch);
            continue;
          }
          if (transactions.onDataBatch(batch)) {
            continue;
          }
          long stoppedAt = indexBatch(batch, range.firstDirtyOffset(), limits);
          if (stoppedAt >= 0) {
            return stoppedAt;
          }
        }
      }
    }
    return range.uncleanableOffset();
  }

  private long indexBatch(RecordBatch batch, long firstDirtyOffset, RecordLimits limits) {
    return indexKeys(reader, map, batch, firstDirtyOffset, limits);
  }

  /**
   * Puts the keys of {@code batch}'s records from {@code from} on into {@code map}; returns the
   * first record offset that did not fit, or -1 if all of it fit. A batch whose records cannot be
   * read within the log's limits (see {@link #isFilterable}) is indexed only up to the bad record:
   * it is then copied whole, so whatever of it was indexed survives.
   */
  public static long indexKeys(
      BatchRecordReader reader, OffsetMap map, RecordBatch batch, long from, RecordLimits limits) {
    try {
      reader.open(batch, limits, BatchRecordReader.Capture.KEY);
      while (reader.next()) {
        if (reader.offset() < from || !reader.hasKey()) {
          continue;
        }
        if (map.isFull()) {
          return reader.offset();
        }
        map.put(reader.key(), reader.offset());
      }
    } catch (StorageException e) {
      log.warn(
          "Unreadable batch left as it is baseOffset={} lastOffset={} reason={}",
          batch.baseOffset(),
          batch.lastOffset(),
          e.getMessage());
    } finally {
      reader.close();
    }
    return -1;
  }

  /**
   * Whether kafka-clients' {@code filterTo} may rewrite {@code batch}: it holds every record it
   * keeps as objects (about {@link #RECORD_OBJECT_BYTES} each plus the record's bytes) until the
   * batch is written back, so a batch is handed to it only if its records read within the log's
   * limits and that footprint stays within {@link RecordLimits#maxBatchInflatedBytes()}. Any other
   * batch (a decompression bomb or a corrupt batch that a follower copied) is kept whole.
   */
  private boolean isFilterable(RecordBatch batch, RecordLimits limits) {
    return isFilterable(reader, batch, limits);
  }

  /** {@link #isFilterable(RecordBatch, RecordLimits)} with the caller's reader. */
  public static boolean isFilterable(
      BatchRecordReader reader, RecordBatch batch, RecordLimits limits) {
    try {
      reader.open(batch, limits, BatchRecordReader.Capture.NONE);
      long footprint = 0;
      while (reader.next()) {
        footprint += reader.sizeInBytes() + RECORD_OBJECT_BYTES;
      }
      return footprint <= limits.maxBatchInflatedBytes();
    } catch (StorageException e) {
      log.warn(
          "Unreadable batch kept whole baseOffset={} lastOffset={} reason={}",
          batch.baseOffset(),
          batch.lastOffset(),
          e.getMessage());
      return false;
    } finally {
      reader.close();
    }
  }

  /** Writes one group into a new segment and swaps it in; false if the log changed meanwhile. */
  private boolean cleanGroup(
      PartitionLog partitionLog,
      List<LogSegment> group,
      CompactionFilter filter,
      TransactionWalk transactions,
      LogConfig config,
      Stats stats)
      throws IOException {
    long base = group.get(0).baseOffset();
    LogSegment last = group.get(group.size() - 1);
    long groupEnd = last.readNextOffset();
    LogSegment cleaned =
        LogSegment.create(
            partitionLog.dir(),
            base,
            config,
            time,
            SegmentFiles.CLEANED_SUFFIX,
            partitionLog.files());
    boolean swapped = false;
    try {
      LastBatch lastBatch = null;
      for (LogSegment source : group) {
        LastBatch seen = copyFiltered(source, cleaned, filter, config, stats);
        lastBatch = seen != null ? seen : lastBatch;
      }
      // An abort's index entry lives in the segment of its marker: the markers of this group
      // that still end aborted data keep theirs; a removable marker's entry goes.
      for (AbortedTxn txn : transactions.drainKeptAborts()) {
        cleaned.txnIndex().append(txn);
      }
      if (cleaned.readNextOffset() < groupEnd && lastBatch != null) {
        // Keep the group's end visible so recovery knows which segments a swap file replaced.
        cleaned.append(emptyBatchAt(groupEnd - 1, lastBatch));
      }
      cleaned.onBecomeInactiveSegment();
      cleaned.flush();
      cleaned.changeFileSuffixes(SegmentFiles.CLEANED_SUFFIX, SegmentFiles.SWAP_SUFFIX);
      swapped = partitionLog.replaceSegments(group, cleaned);
      return swapped;
    } finally {
      if (!swapped) {
        cleaned.deleteIfExists();
      }
    }
  }

  /** The header fields of a source's last batch that an empty end-of-group batch copies. */
  private record LastBatch(int leaderEpoch, TimestampType timestampType, long maxTimestamp) {}

  /** Copies {@code source} through the filter; returns its last batch's header (null if empty). */
  private LastBatch copyFiltered(
      LogSegment source, LogSegment dest, CompactionFilter filter, LogConfig config, Stats stats)
      throws IOException {
    int position = 0;
    int size = source.sizeInBytes();
    RecordLimits limits = config.recordLimits();
    LastBatch lastBatch = null;
    while (position < size) {
      if (aborted.getAsBoolean()) {
        throw new IOException("cleaning aborted");
      }
      readBuffer.clear();
      writeBuffer.clear();
      readBuffer.limit(Math.min(readBuffer.capacity(), size - position));
      try (PinnedSegment pinned = source.pin()) {
        pinned.records().readInto(readBuffer, position);
      }
      MemoryRecords chunk = MemoryRecords.readableRecords(readBuffer);
      throttler.maybeThrottle(chunk.sizeInBytes());
      // The leading batches filterTo may rewrite; it stops before the first it may not.
      int filterable = 0;
      RecordBatch unfilterable = null;
      for (RecordBatch batch : chunk.batches()) {
        // Copied out: the batch is a view of readBuffer, which the next chunk overwrites.
        lastBatch =
            new LastBatch(
                batch.partitionLeaderEpoch(), batch.timestampType(), batch.maxTimestamp());
        if (!isFilterable(batch, limits)) {
          unfilterable = batch;
          break;
        }
        filterable += batch.sizeInBytes();
      }
      if (filterable == 0 && unfilterable != null) {
        int batchBytes = unfilterable.sizeInBytes();
        if (!filter.dropsWhole(unfilterable)) {
          ByteBuffer whole = readBuffer.duplicate();
          whole.limit(whole.position() + batchBytes);
          dest.append(MemoryRecords.readableRecords(whole.slice()));
          stats.written += batchBytes;
        }
        position += batchBytes;
        stats.read += batchBytes;
        continue;
      }
      ByteBuffer prefix = readBuffer.duplicate();
      if (unfilterable != null) {
        prefix.limit(prefix.position() + filterable);
      }
      MemoryRecords records = MemoryRecords.readableRecords(prefix.slice());
      MemoryRecords.FilterResult result =
          records.filterTo(
              filter, writeBuffer, BufferSupplier.NO_CACHING, config.maxMessageBytes());
      position += result.bytesRead();
      stats.read += result.bytesRead();
      ByteBuffer output = result.outputBuffer();
      if (output.position() > 0) {
        output.flip();
        MemoryRecords retained = MemoryRecords.readableRecords(output);
        dest.append(retained);
        stats.written += retained.sizeInBytes();
        throttler.maybeThrottle(retained.sizeInBytes());
      }
      if (result.bytesRead() == 0) {
        growBuffers(config.maxMessageBytes(), source, position);
      }
    }
    restoreBuffers();
    return lastBatch;
  }

  /** A batch larger than the buffers: double them, up to the largest batch a topic accepts. */
  private void growBuffers(int maxMessageBytes, LogSegment source, int position)
      throws IOException {
    int max = Math.max(maxMessageBytes, initialBufferSize);
    if (readBuffer.capacity() >= max) {
      throw new IOException(
          "batch at position "
              + position
              + " of "
              + source
              + " is larger than max.message.bytes="
              + maxMessageBytes);
    }
    int next = (int) Math.min(max, 2L * readBuffer.capacity());
    readBuffer = ByteBuffer.allocate(next);
    writeBuffer = ByteBuffer.allocate(next);
  }

  private void restoreBuffers() {
    if (readBuffer.capacity() > initialBufferSize) {
      readBuffer = ByteBuffer.allocate(initialBufferSize);
      writeBuffer = ByteBuffer.allocate(initialBufferSize);
    }
  }

  private static MemoryRecords emptyBatchAt(long offset, LastBatch like) {
    return emptyBatchAt(offset, like.leaderEpoch(), like.timestampType(), like.maxTimestamp());
  }

  /**
   * A batch header without records at {@code offset}: keeps a rewritten segment's end visible when
   * its last records were removed, so readers and recovery see where it ends.
   */
  public static MemoryRecords emptyBatchAt(
      long offset, int leaderEpoch, TimestampType timestampType, long maxTimestamp) {
    ByteBuffer buffer = ByteBuffer.allocate(DefaultRecordBatch.RECORD_BATCH_OVERHEAD);
    DefaultRecordBatch.writeEmptyHeader(
        buffer,
        RecordBatch.MAGIC_VALUE_V2,
        RecordBatch.NO_PRODUCER_ID,
        RecordBatch.NO_PRODUCER_EPOCH,
        RecordBatch.NO_SEQUENCE,
        offset,
        offset,
        leaderEpoch,
        timestampType,
        maxTimestamp,
        false,
        false);
    buffer.flip();
    return MemoryRecords.readableRecords(buffer);
  }
}
