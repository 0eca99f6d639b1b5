package io.brook.storage.remote;

import io.brook.storage.cleaner.Cleaner;
import io.brook.storage.cleaner.CompactionFilter;
import io.brook.storage.cleaner.OffsetMap;
import io.brook.storage.cleaner.TransactionWalk;
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
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.FileLogInputStream.FileChannelRecordBatch;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the remote copy of a tiered compacted topic compacted (a Brook extension: Kafka does not
 * tier compacted topics). One pass over one partition, as the local cleaner's: index the keys of
 * the data newer than the last pass (remote segments, then the local log up to the high watermark
 * and the last stable offset) into an {@link OffsetMap}, then rewrite the remote segments below the
 * indexed end through the local cleaner's {@link CompactionFilter}, in groups up to {@code
 * segment.bytes}, each group one new remote segment with its indexes rebuilt. Offsets never change.
 *
 * <p>Crash safety comes from the manifest: each new segment is listed as COPY_SEGMENT_STARTED
 * before its upload, then one manifest write turns every new segment COPY_SEGMENT_FINISHED and
 * every replaced one DELETE_SEGMENT_STARTED; a crash before that write leaves new entries that the
 * next opening of the tier deletes, a crash after it old entries that are deleted the same way (and
 * normally by the next task, see {@link TieredPartition#deleteReplaced}).
 *
 * <p>One map serves the whole broker ({@code log.cleaner.dedupe.buffer.size} divided by the cleaner
 * threads, the memory of one cleaner thread): a partition whose task finds it in use skips its pass
 * until its next task. New segments are built in a scratch directory of the broker's, one at a
 * time.
 */
final class RemoteCompactor {
  private static final Logger LOG = LoggerFactory.getLogger(RemoteCompactor.class);

  /** Bytes fetched at a time while walking a remote segment. */
  private static final int CHUNK_BYTES = 256 * 1024;

  private final OffsetMap map;
  private final Path scratch;
  private final Time time;
  private final ReentrantLock inUse = new ReentrantLock();
  private final BatchRecordReader reader = new BatchRecordReader();
  private final int ioBufferBytes;
  private ByteBuffer writeBuffer;

  /**
   * @param scratch a directory only this compactor uses; emptied now
   */
  RemoteCompactor(int mapBytes, double loadFactor, int ioBufferBytes, Path scratch, Time time)
      throws IOException {
    this.map = new OffsetMap(mapBytes, loadFactor);
    this.ioBufferBytes = ioBufferBytes;
    this.scratch = scratch;
    this.time = time;
    RemoteIndexCache.emptyDirectory(scratch);
  }

  /** What a pass did: it indexed keys up to {@code indexedEnd}. */
  record Result(
      long indexedEnd,
      boolean retainedTombstones,
      int segmentsBefore,
      int segmentsAfter,
      long bytesBefore,
      long bytesAfter) {}

  /**
   * Compacts {@code tier}'s remote segments against the keys from {@code from} on; empty if another
   * partition's pass holds the map or there is nothing to rewrite.
   */
  Optional<Result> tryCompact(TieredPartition tier, long from) throws IOException {
    if (!inUse.tryLock()) {
      return Optional.empty();
    }
    try {
      return compact(tier, from);
    } finally {
      inUse.unlock();
    }
  }

  private Optional<Result> compact(TieredPartition tier, long from) throws IOException {
    PartitionLog log = tier.log();
    TopicPartition tp = tier.topicPartition();
    LogConfig config = log.config();
    long now = time.milliseconds();
    List<RemoteSegment> remote = tier.manifest().readable();
    if (remote.isEmpty()) {
      return Optional.empty();
    }
    long bound = Math.min(log.highWatermark(), log.lastStableOffset());
    long remoteStart = remote.get(0).baseOffset();
    map.clear();
    long indexedEnd =
        Math.max(from, indexKeys(tier, remote, from, bound, aborts(tier, remote, from, bound)));
    List<List<RemoteSegment>> groups = groups(remote, indexedEnd, config);
    if (groups.isEmpty()) {
      return Optional.empty();
    }
    // One walk over every rewritten batch, across groups, in offset order, knowing every abort
    // whose marker it may meet (an abort's index entry goes with its marker's segment).
    List<RemoteSegment> lastGroup = groups.get(groups.size() - 1);
    long rewrittenEnd = lastGroup.get(lastGroup.size() - 1).nextOffset();
    TransactionWalk transactions =
        new TransactionWalk(aborts(tier, remote, remoteStart, rewrittenEnd));
    List<RemoteSegment> rewritten = new ArrayList<>();
    List<String> replaced = new ArrayList<>();
    boolean tombstones = false;
    long bytesBefore = 0;
    long bytesAfter = 0;
    Walk walk = new Walk();
    try {
      for (List<RemoteSegment> group : groups) {
        CompactionFilter filter =
            new CompactionFilter(
                map,
                indexedEnd,
                now,
                config.deleteRetentionMs(),
                log.producerState().activeProducers(),
                transactions);
        RemoteSegment written = rewrite(tier, group, filter, transactions, walk, config);
        rewritten.add(written);
        tombstones |= filter.retainedTombstone();
        for (RemoteSegment s : group) {
          replaced.add(s.id());
          bytesBefore += s.sizeInBytes();
        }
        bytesAfter += written.sizeInBytes();
      }
    } catch (IOException | RuntimeException e) {
      abandon(tier, e);
      throw e;
    }
    // The next pass indexes from where every remote record below is compacted against all later
    // keys below it: the indexed end, but not past the remote end, since segments copied after this
    // pass were cleaned locally only against the keys the local cleaner had seen then.
    long remoteEnd = remoteStart;
    for (RemoteSegment s : remote) {
      remoteEnd = Math.max(remoteEnd, s.nextOffset());
    }
    long compactedTo = Math.max(from, Math.min(indexedEnd, remoteEnd));
    // One conditional write: a leader that lost the partition meanwhile fails here (and its
    // uploads are left COPY_SEGMENT_STARTED for the new leader to delete).
    tier.publish(m -> m.swap(replaced, rewritten).withCompactedEnd(compactedTo));
    LOG.info(
        "Compacted remote segments topicPartition={} indexedFrom={} indexedTo={} keys={}"
            + " segments={}->{} bytes={}->{} durationMs={}",
        tp,
        from,
        indexedEnd,
        map.size(),
        replaced.size(),
        rewritten.size(),
        bytesBefore,
        bytesAfter,
        time.milliseconds() - now);
    return Optional.of(
        new Result(
            indexedEnd, tombstones, replaced.size(), rewritten.size(), bytesBefore, bytesAfter));
  }

  /**
   * Best effort after a failed pass: deletes what it uploaded (every COPY_SEGMENT_STARTED entry:
   * copies run on the same thread, so no other is under way) and drops the entries. If this fails
   * too, the entries stay and the next opening of the tier deletes them.
   */
  private static void abandon(TieredPartition tier, Exception cause) {
    try {
      for (RemoteSegment s : tier.manifest().segments()) {
        if (s.state() == RemoteSegmentState.COPY_SEGMENT_STARTED) {
          tier.store().deleteSegment(tier.topicIdPartition(), s);
          tier.publish(m -> m.without(s.id()));
        }
      }
    } catch (IOException | RuntimeException e) {
      cause.addSuppressed(e);
    }
  }

  /**
   * The aborted transactions overlapping {@code [from, to)}: from the remote transaction indexes,
   * then the local log's beyond the copied data.
   */
  private static List<AbortedTxn> aborts(
      TieredPartition tier, List<RemoteSegment> remote, long from, long to) throws IOException {
    Set<AbortedTxn> out = new LinkedHashSet<>();
    long remoteEnd = from;
    for (RemoteSegment s : remote) {
      remoteEnd = Math.max(remoteEnd, s.nextOffset());
      if (s.nextOffset() <= from || s.baseOffset() >= to) {
        continue;
      }
      for (AbortedTxn txn : tier.indexes().abortedTxns(tier.store(), tier.topicIdPartition(), s)) {
        if (txn.lastOffset() >= from && txn.firstOffset() < to) {
          out.add(txn);
        }
      }
    }
    PartitionLog log = tier.log();
    if (remoteEnd < to) {
      out.addAll(log.collectAbortedTransactions(Math.max(remoteEnd, log.logStartOffset()), to));
    }
    return new ArrayList<>(out);
  }

  /**
   * Indexes keys from {@code from} up to {@code bound}: remote segments first, then the local log
   * past them. Returns the first offset not indexed (where the map filled, or {@code bound}).
   */
  private long indexKeys(
      TieredPartition tier,
      List<RemoteSegment> remote,
      long from,
      long bound,
      List<AbortedTxn> aborts)
      throws IOException {
    if (from >= bound) {
      return from;
    }
    TransactionWalk transactions = new TransactionWalk(aborts);
    RecordLimits limits = tier.log().config().recordLimits();
    Walk walk = new Walk();
    for (RemoteSegment segment : remote) {
      if (segment.endOffset() < from) {
        walk.next = Math.max(walk.next, segment.nextOffset());
        continue;
      }
      RemoteBatchCursor cursor = cursor(tier, segment, from);
      while (cursor.next()) {
        if (!walk.isNew(cursor.baseOffset(), cursor.lastOffset()) || cursor.lastOffset() < from) {
          continue;
        }
        if (cursor.baseOffset() >= bound) {
          return bound;
        }
        long stoppedAt = index(batchAt(cursor), transactions, from, limits);
        if (stoppedAt >= 0) {
          return stoppedAt;
        }
      }
    }
    for (LogSegment segment : new ArrayList<>(tier.log().segments())) {
      if (segment.baseOffset() >= bound) {
        break;
      }
      try (PinnedSegment pinned = segment.pin()) {
        for (FileChannelRecordBatch batch : pinned.records().batches()) {
          if (!walk.isNew(batch.baseOffset(), batch.lastOffset()) || batch.lastOffset() < from) {
            continue;
          }
          if (batch.baseOffset() >= bound) {
            return bound;
          }
          long stoppedAt = index(batch, transactions, from, limits);
          if (stoppedAt >= 0) {
            return stoppedAt;
          }
        }
      }
    }
    return Math.min(bound, Math.max(from, walk.next));
  }

  private long index(
      RecordBatch batch, TransactionWalk transactions, long from, RecordLimits limits) {
    if (batch.isControlBatch()) {
      transactions.onMarker(batch);
      return -1;
    }
    if (transactions.onDataBatch(batch)) {
      return -1;
    }
    return Cleaner.indexKeys(reader, map, batch, from, limits);
  }

  /**
   * Batches seen so far, in offset order. Remote segments may overlap (a new leader's first copy
   * can start below the copied end, with the same batches), and so may the local log and the remote
   * segments: a batch starting below the end of those already seen is one of them again.
   */
  private static final class Walk {
    long next;

    boolean isNew(long baseOffset, long lastOffset) {
      if (baseOffset < next) {
        return false;
      }
      next = lastOffset + 1;
      return true;
    }
  }

  /**
   * The readable segments starting below {@code indexedEnd}, in groups of consecutive segments that
   * together fit in {@code segment.bytes} and span at most 2^31 offsets (the index's limit).
   */
  private static List<List<RemoteSegment>> groups(
      List<RemoteSegment> remote, long indexedEnd, LogConfig config) {
    List<List<RemoteSegment>> groups = new ArrayList<>();
    List<RemoteSegment> current = new ArrayList<>();
    long bytes = 0;
    for (RemoteSegment s : remote) {
      if (s.baseOffset() >= indexedEnd) {
        break;
      }
      boolean fits =
          !current.isEmpty()
              && bytes + s.sizeInBytes() <= config.segmentBytes()
              && s.endOffset() - current.get(0).baseOffset() <= Integer.MAX_VALUE;
      if (!current.isEmpty() && !fits) {
        groups.add(current);
        current = new ArrayList<>();
        bytes = 0;
      }
      current.add(s);
      bytes += s.sizeInBytes();
    }
    if (!current.isEmpty()) {
      groups.add(current);
    }
    return groups;
  }

  /** Writes one group into a new segment in the scratch directory and uploads it. */
  private RemoteSegment rewrite(
      TieredPartition tier,
      List<RemoteSegment> group,
      CompactionFilter filter,
      TransactionWalk transactions,
      Walk walk,
      LogConfig config)
      throws IOException {
    TopicIdPartition tp = tier.topicIdPartition();
    RemoteSegment last = group.get(group.size() - 1);
    long base = group.get(0).baseOffset();
    LogSegment cleaned = LogSegment.create(scratch, base, config, time);
    String id = UUID.randomUUID().toString();
    Path snapshot = scratch.resolve(id + SegmentFiles.SNAPSHOT_SUFFIX);
    try {
      LastHeader lastHeader = null;
      for (RemoteSegment source : group) {
        LastHeader seen = copyFiltered(tier, source, cleaned, filter, walk, config);
        lastHeader = seen != null ? seen : lastHeader;
      }
      // As the local cleaner: an abort's index entry lives in the segment of its marker, and only
      // the markers of this group that still end aborted data keep theirs.
      for (AbortedTxn txn : transactions.drainKeptAborts()) {
        cleaned.txnIndex().append(txn);
      }
      if (cleaned.readNextOffset() < last.nextOffset() && lastHeader != null) {
        // Keep the segment's end visible: a fetch in it must find a batch to move past.
        cleaned.append(
            Cleaner.emptyBatchAt(
                last.endOffset(),
                lastHeader.leaderEpoch(),
                lastHeader.timestampType(),
                lastHeader.maxTimestamp()));
      }
      cleaned.onBecomeInactiveSegment();
      cleaned.flush();
      Optional<byte[]> producers =
          tier.store().fetchFile(tp, last, RemoteFileType.PRODUCER_SNAPSHOT);
      if (producers.isPresent()) {
        Files.write(snapshot, producers.get());
      }
      byte[] epochs =
          tier.store().fetchFile(tp, last, RemoteFileType.LEADER_EPOCH).orElse(new byte[0]);
      long maxTimestamp = cleaned.maxTimestampSoFar().timestamp();
      RemoteSegment started =
          new RemoteSegment(
              id,
              base,
              last.endOffset(),
              maxTimestamp >= 0 ? maxTimestamp : last.maxTimestamp(),
              cleaned.sizeInBytes(),
              RemoteSegmentState.COPY_SEGMENT_STARTED);
      tier.publish(m -> m.with(started));
      try (PinnedSegment pinned = cleaned.pin()) {
        tier.store()
            .copySegment(
                tp,
                started,
                new LocalSegmentFiles(
                    pinned.file().logPath(),
                    TieredPartition.offsetIndexBytes(pinned.offsetIndex()),
                    TieredPartition.timeIndexBytes(pinned.timeIndex()),
                    Optional.of(SegmentFiles.txnIndexFile(scratch, base)),
                    producers.isPresent() ? Optional.of(snapshot) : Optional.empty(),
                    epochs));
      }
      return started;
    } finally {
      cleaned.deleteIfExists();
      Files.deleteIfExists(snapshot);
    }
  }

  /** The header fields of a source's last batch that an empty end-of-segment batch copies. */
  private record LastHeader(int leaderEpoch, TimestampType timestampType, long maxTimestamp) {}

  /** Copies one remote segment through the filter; returns its last batch's header, if any. */
  private LastHeader copyFiltered(
      TieredPartition tier,
      RemoteSegment source,
      LogSegment dest,
      CompactionFilter filter,
      Walk walk,
      LogConfig config)
      throws IOException {
    RecordLimits limits = config.recordLimits();
    LastHeader lastHeader = null;
    RemoteBatchCursor cursor =
        new RemoteBatchCursor(tier.store(), tier.topicIdPartition(), source, 0, CHUNK_BYTES);
    while (cursor.next()) {
      if (!walk.isNew(cursor.baseOffset(), cursor.lastOffset())) {
        continue;
      }
      MemoryRecords records =
          MemoryRecords.readableRecords(
              cursor.bytes(cursor.position(), cursor.position() + cursor.batchSize()));
      RecordBatch batch = records.batches().iterator().next();
      lastHeader =
          new LastHeader(batch.partitionLeaderEpoch(), batch.timestampType(), batch.maxTimestamp());
      if (!Cleaner.isFilterable(reader, batch, limits)) {
        if (!filter.dropsWhole(batch)) {
          dest.append(records);
        }
        continue;
      }
      if (writeBuffer == null || writeBuffer.capacity() < cursor.batchSize()) {
        writeBuffer = ByteBuffer.allocate(Math.max(ioBufferBytes, cursor.batchSize()));
      }
      writeBuffer.clear();
      MemoryRecords.FilterResult result =
          records.filterTo(
              filter, writeBuffer, BufferSupplier.NO_CACHING, config.maxMessageBytes());
      ByteBuffer output = result.outputBuffer();
      if (output.position() > 0) {
        output.flip();
        dest.append(MemoryRecords.readableRecords(output));
      }
    }
    return lastHeader;
  }

  private static RemoteBatchCursor cursor(TieredPartition tier, RemoteSegment segment, long from)
      throws IOException {
    int position =
        from <= segment.baseOffset()
            ? 0
            : tier.indexes().positionFor(tier.store(), tier.topicIdPartition(), segment, from);
    return new RemoteBatchCursor(
        tier.store(), tier.topicIdPartition(), segment, position, CHUNK_BYTES);
  }

  private static RecordBatch batchAt(RemoteBatchCursor cursor) throws IOException {
    return MemoryRecords.readableRecords(
            cursor.bytes(cursor.position(), cursor.position() + cursor.batchSize()))
        .batches()
        .iterator()
        .next();
  }

  /** For tests: the scratch directory holds nothing between passes. */
  boolean scratchIsEmpty() throws IOException {
    try (Stream<Path> files = Files.list(scratch)) {
      return files.findAny().isEmpty();
    }
  }
}
