package io.brook.storage.producer;

import io.brook.storage.StorageError;
import io.brook.storage.StorageException;
import io.brook.storage.checkpoint.AtomicFiles;
import io.brook.storage.checkpoint.CorruptCheckpointException;
import io.brook.storage.txn.CompletedTxn;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Idempotent-producer state of one partition (KIP-98): per producer id, its epoch and the sequence
 * ranges of its last {@value #MAX_BATCHES_PER_PRODUCER} batches, so that the leader acknowledges a
 * retried batch with its original offsets instead of appending it again, rejects a sequence gap
 * ({@link StorageError#OUT_OF_ORDER_SEQUENCE_NUMBER}) and fences an older epoch ({@link
 * StorageError#INVALID_PRODUCER_EPOCH}).
 *
 * <h2>Appends</h2>
 *
 * Each log append opens an {@link Append} with {@link #beginAppend}: for a client append the log
 * calls {@link Append#checkDuplicateOrValidate} for every batch before assigning offsets, then
 * {@link Append#record} for every batch once offsets are final, then {@link Append#commit}.
 * Replication and recovery replay skip the checks and only record.
 *
 * <h2>Transactions</h2>
 *
 * A transactional batch opens its producer's transaction at its base offset; a COMMIT or ABORT
 * marker closes it (a marker from an older coordinator epoch is refused with {@link
 * StorageError#TRANSACTION_COORDINATOR_FENCED}) and the append reports it through {@link
 * Append#completedTransactions}, with the last stable offset right after the marker, for the log's
 * transaction index. {@link #firstUnstableOffset()} is the start of the oldest transaction that is
 * open or whose marker is not yet below the high watermark ({@link UnstableOffsets}, rebuilt from
 * the entries whenever they are reloaded).
 *
 * <h2>Snapshots</h2>
 *
 * At segment roll the log calls {@link #takeSnapshot}, which writes the state as of {@link
 * #mapEndOffset()} to {@code <20-digit offset>.snapshot} in the partition directory (layout in
 * {@link ProducerSnapshotFile}: versioned, CRC32C-checked, written atomically). At load and after
 * truncation, {@link #truncateAndReload} restores the newest usable snapshot and the log replays
 * the batches from {@link #mapEndOffset()} to its end. A corrupt snapshot is deleted and the next
 * older one is used, at the cost of a longer replay.
 *
 * <h2>Expiration</h2>
 *
 * A producer whose last batch is at least {@code producerIdExpirationMs} old ({@code
 * transactional.id.expiration.ms} / {@code producer.id.expiration.ms}) and has no open transaction
 * is forgotten by {@link #removeExpiredProducers} and when a snapshot is loaded. Its next batch is
 * then accepted with any sequence.
 *
 * <h2>Thread-safety</h2>
 *
 * The log serializes appends and the other mutators (one {@link Append} open at a time). Entries
 * are immutable and held in a concurrent map that a commit updates, so {@link #lastEntry}, {@link
 * #activeProducers}, {@link #mapEndOffset} and the snapshot queries are safe from any thread. A
 * multi-producer commit becomes visible producer by producer. Snapshot-file operations are also
 * serialized internally.
 */
public final class ProducerStateManager {
  /**
   * Batches remembered per producer: an idempotent producer has at most 5 requests in flight per
   * connection ({@code max.in.flight.requests.per.connection <= 5}), so any batch it can still
   * retry is among its last 5.
   */
  public static final int MAX_BATCHES_PER_PRODUCER = 5;

  private static final Logger log = LoggerFactory.getLogger(ProducerStateManager.class);

  private final Path partitionDir;
  private final Time time;
  private final long producerIdExpirationMs;
  private final ConcurrentHashMap<Long, ProducerStateEntry> producers = new ConcurrentHashMap<>();
  private final ConcurrentSkipListMap<Long, Path> snapshots = new ConcurrentSkipListMap<>();
  private final Object snapshotLock = new Object();
  private final UnstableOffsets unstable = new UnstableOffsets();
  private volatile long mapEndOffset;
  private volatile long highWatermark;

  /**
   * Lists the snapshot files in {@code partitionDir} (and deletes leftover temporary ones) without
   * loading them; call {@link #truncateAndReload} to load.
   */
  public ProducerStateManager(Path partitionDir, Time time, long producerIdExpirationMs)
      throws IOException {
    if (producerIdExpirationMs < 0) {
      throw new IllegalArgumentException(
          "producerIdExpirationMs must be >= 0, got " + producerIdExpirationMs);
    }
    this.partitionDir = partitionDir;
    this.time = time;
    this.producerIdExpirationMs = producerIdExpirationMs;
    try (DirectoryStream<Path> files = Files.newDirectoryStream(partitionDir)) {
      for (Path file : files) {
        String name = file.getFileName().toString();
        if (name.endsWith(AtomicFiles.TMP_SUFFIX)) {
          String target = name.substring(0, name.length() - AtomicFiles.TMP_SUFFIX.length());
          if (ProducerSnapshotFile.offsetOf(target).isPresent()) {
            log.info("Deleting unfinished producer snapshot file={}", file);
            Files.deleteIfExists(file);
          }
          continue;
        }
        OptionalLong offset = ProducerSnapshotFile.offsetOf(name);
        if (offset.isPresent()) {
          snapshots.put(offset.getAsLong(), file);
        }
      }
    }
  }

  /** Starts one append of the log; see {@link Append}. */
  public Append beginAppend(boolean fromClient) {
    return new Append(fromClient);
  }

  /**
   * The producer-state changes of one log append, invisible until {@link #commit}. Not thread-safe;
   * used by the appending thread only, and discarded (never committed) if the append fails.
   */
  public final class Append {
    private final boolean fromClient;

    /** Entries changed by {@link #record}, to be published by {@link #commit}. */
    private final Map<Long, ProducerStateEntry> updated = new HashMap<>();

    /** Epoch and last sequence after the batches validated so far in this append. */
    private final Map<Long, Validated> validated = new HashMap<>();

    /** Transactions closed by markers in this append, in log order. */
    private final List<CompletedTxn> completed = new ArrayList<>();

    private long endOffset = -1;
    private boolean committed;

    private Append(boolean fromClient) {
      this.fromClient = fromClient;
    }

    /**
     * For client appends, before offsets are assigned: returns the cached original batch if {@code
     * batch} (same producer id, epoch, first and last sequence) is a retry of one of the producer's
     * last {@value #MAX_BATCHES_PER_PRODUCER} batches; otherwise validates it against the
     * producer's state including the batches validated earlier in this append, and remembers it for
     * the next one.
     *
     * <ul>
     *   <li>an epoch older than the known one: {@link StorageError#INVALID_PRODUCER_EPOCH};
     *   <li>same epoch and a first sequence that does not follow the last one ({@code
     *       Integer.MAX_VALUE} is followed by 0; no batch known in this epoch is followed by 0), or
     *       a newer epoch whose first sequence is not 0: {@link
     *       StorageError#OUT_OF_ORDER_SEQUENCE_NUMBER};
     *   <li>a producer with no known state (never seen, or expired) accepts any sequence.
     * </ul>
     *
     * <p>Batches without producer id are ignored. A control batch (transaction marker) is only
     * checked for a fenced epoch. Returns empty without checking when {@code fromClient} is false.
     */
    public Optional<BatchMetadata> checkDuplicateOrValidate(RecordBatch batch) {
      ensureOpen();
      if (!fromClient || !batch.hasProducerId()) {
        return Optional.empty();
      }
      long producerId = batch.producerId();
      short epoch = batch.producerEpoch();
      ProducerStateEntry current = currentEntry(producerId);
      Validated known = validated.get(producerId);
      if (known == null && current != null) {
        known = new Validated(current.producerEpoch(), current.lastSequence());
      }
      if (known != null && epoch < known.epoch()) {
        throw new StorageException(
            StorageError.INVALID_PRODUCER_EPOCH,
            "Producer epoch is older than the current one: producerId="
                + producerId
                + " epoch="
                + epoch
                + " currentEpoch="
                + known.epoch());
      }
      if (batch.isControlBatch()) {
        Optional<EndTransactionMarker> marker = TransactionRules.of(batch);
        if (marker.isPresent()) {
          TransactionRules.checkCoordinatorEpoch(marker.get(), current, producerId);
        }
        if (known == null || epoch > known.epoch()) {
          validated.put(producerId, new Validated(epoch, -1));
        }
        return Optional.empty();
      }
      TransactionRules.checkDataBatch(batch, current);
      int firstSeq = batch.baseSequence();
      int lastSeq = batch.lastSequence();
      if (firstSeq < 0) {
        throw outOfOrder(producerId, epoch, "a batch with a producer id has no sequence");
      }
      if (known != null) {
        if (epoch > known.epoch()) {
          if (firstSeq != 0) {
            throw outOfOrder(
                producerId,
                epoch,
                "a new epoch must start at sequence 0 but the batch starts at " + firstSeq);
          }
        } else {
          if (current != null) {
            Optional<BatchMetadata> duplicate = current.findDuplicate(epoch, firstSeq, lastSeq);
            if (duplicate.isPresent()) {
              return duplicate;
            }
          }
          if (!followsInSequence(known.lastSeq(), firstSeq)) {
            throw outOfOrder(
                producerId,
                epoch,
                "expected sequence "
                    + nextSequence(known.lastSeq())
                    + " but the batch starts at "
                    + firstSeq);
          }
        }
      }
      validated.put(producerId, new Validated(epoch, lastSeq));
      return Optional.empty();
    }

    /**
     * Once offsets are final ({@code batch.baseOffset()}/{@code lastOffset()}): updates the
     * producer's epoch (a different epoch replaces the cached batches), remembers the batch's
     * sequence range and offsets (keeping the last {@value #MAX_BATCHES_PER_PRODUCER}) and takes
     * its max timestamp as the producer's last timestamp. A transactional data batch opens a
     * transaction at its base offset if none is open; a commit or abort marker closes it, records
     * the marker's coordinator epoch and no sequence range. Batches without producer id only
     * advance the end offset this append reports to {@link #commit}.
     *
     * @throws StorageException {@link StorageError#CORRUPT_MESSAGE} if a control batch's marker
     *     cannot be parsed
     */
    public void record(RecordBatch batch) {
      ensureOpen();
      endOffset = Math.max(endOffset, batch.nextOffset());
      if (!batch.hasProducerId()) {
        return;
      }
      long producerId = batch.producerId();
      short epoch = batch.producerEpoch();
      ProducerStateEntry current = currentEntry(producerId);
      List<BatchMetadata> batches = List.of();
      long txnFirstOffset = ProducerStateEntry.NO_TXN;
      int coordinatorEpoch = ProducerStateEntry.NO_COORDINATOR_EPOCH;
      if (current != null) {
        if (current.producerEpoch() == epoch) {
          batches = current.batches();
        }
        txnFirstOffset = current.currentTxnFirstOffsetOrNone();
        coordinatorEpoch = current.coordinatorEpoch();
      }
      if (batch.isControlBatch()) {
        Optional<EndTransactionMarker> marker = TransactionRules.of(batch);
        if (marker.isEmpty()) {
          return;
        }
        // As Kafka: a marker without an open transaction still completes one, at its own offset.
        long firstOffset =
            txnFirstOffset == ProducerStateEntry.NO_TXN ? batch.baseOffset() : txnFirstOffset;
        boolean aborted = marker.get().controlType() == ControlRecordType.ABORT;
        completed.add(new CompletedTxn(producerId, firstOffset, batch.lastOffset(), aborted, -1));
        txnFirstOffset = ProducerStateEntry.NO_TXN;
        coordinatorEpoch = marker.get().coordinatorEpoch();
      } else {
        List<BatchMetadata> kept = new ArrayList<>(MAX_BATCHES_PER_PRODUCER);
        kept.addAll(batches);
        if (kept.size() == MAX_BATCHES_PER_PRODUCER) {
          kept.remove(0);
        }
        kept.add(
            new BatchMetadata(
                batch.baseSequence(),
                batch.lastSequence(),
                batch.baseOffset(),
                batch.lastOffset(),
                batch.maxTimestamp()));
        batches = kept;
        if (batch.isTransactional() && txnFirstOffset == ProducerStateEntry.NO_TXN) {
          txnFirstOffset = batch.baseOffset();
        }
      }
      updated.put(
          producerId,
          new ProducerStateEntry(
              producerId, epoch, batches, batch.maxTimestamp(), txnFirstOffset, coordinatorEpoch));
    }

    /**
     * Publishes this append's changes and advances {@link #mapEndOffset()} past the last recorded
     * batch (never backwards). The append cannot be used afterwards.
     */
    public void commit() {
      ensureOpen();
      committed = true;
      unstable.apply(updated, producers, completed, highWatermark);
      producers.putAll(updated);
      if (endOffset > mapEndOffset) {
        mapEndOffset = endOffset;
      }
    }

    /**
     * The transactions the markers of this append completed, in log order, with their last stable
     * offsets; only after {@link #commit}.
     */
    public List<CompletedTxn> completedTransactions() {
      if (!committed) {
        throw new IllegalStateException("completed transactions are known after commit");
      }
      return completed.isEmpty() ? List.of() : List.copyOf(completed);
    }

    private ProducerStateEntry currentEntry(long producerId) {
      ProducerStateEntry entry = updated.get(producerId);
      return entry != null ? entry : producers.get(producerId);
    }

    private void ensureOpen() {
      if (committed) {
        throw new IllegalStateException("this append was already committed");
      }
    }
  }

  /** What the next batch of a producer is checked against within one append. */
  private record Validated(short epoch, int lastSeq) {}

  private static boolean followsInSequence(int lastSeq, int firstSeq) {
    return firstSeq == nextSequence(lastSeq);
  }

  /** The sequence after {@code lastSeq}; sequences wrap from {@code Integer.MAX_VALUE} to 0. */
  private static int nextSequence(int lastSeq) {
    return lastSeq == Integer.MAX_VALUE ? 0 : lastSeq + 1;
  }

  private static StorageException outOfOrder(long producerId, short epoch, String detail) {
    return new StorageException(
        StorageError.OUT_OF_ORDER_SEQUENCE_NUMBER,
        "Out of order sequence number: producerId="
            + producerId
            + " epoch="
            + epoch
            + " "
            + detail);
  }

  public Optional<ProducerStateEntry> lastEntry(long producerId) {
    return Optional.ofNullable(producers.get(producerId));
  }

  /**
   * The first offset of the oldest transaction that is open, or completed with its marker not yet
   * below the high watermark; empty when none. The last stable offset is this or the high
   * watermark, whichever is lower.
   */
  public OptionalLong firstUnstableOffset() {
    return unstable.firstUnstableOffset();
  }

  /** The first offset of the oldest open transaction, if any. */
  public OptionalLong firstOngoingTxnOffset() {
    return unstable.firstOngoingOffset();
  }

  /** The log's high watermark moved: completed transactions below it stop holding the LSO. */
  public void onHighWatermarkUpdated(long newHighWatermark) {
    highWatermark = newHighWatermark;
    unstable.onHighWatermarkUpdated(newHighWatermark);
  }

  /** A copy of the committed state, by producer id. */
  public Map<Long, ProducerStateEntry> activeProducers() {
    return Map.copyOf(producers);
  }

  /** The offset up to which the state reflects the log (exclusive). */
  public long mapEndOffset() {
    return mapEndOffset;
  }

  /** Declares that the state reflects the log up to {@code offset} (exclusive). */
  public void updateMapEndOffset(long offset) {
    if (offset < 0) {
      throw new IllegalArgumentException("offset must be >= 0, got " + offset);
    }
    mapEndOffset = offset;
  }

  /**
   * Writes the state as of {@link #mapEndOffset()} to {@code <mapEndOffset>.snapshot}, atomically;
   * a no-op if that file exists already.
   */
  public void takeSnapshot() throws IOException {
    synchronized (snapshotLock) {
      long offset = mapEndOffset;
      Path file = ProducerSnapshotFile.pathFor(partitionDir, offset);
      if (Files.exists(file)) {
        snapshots.putIfAbsent(offset, file);
        return;
      }
      List<ProducerStateEntry> entries = new ArrayList<>(producers.values());
      entries.sort(Comparator.comparingLong(ProducerStateEntry::producerId));
      ProducerSnapshotFile.write(file, entries);
      snapshots.put(offset, file);
      log.debug(
          "Wrote producer snapshot file={} offset={} producers={}", file, offset, entries.size());
    }
  }

  public OptionalLong latestSnapshotOffset() {
    Map.Entry<Long, Path> entry = snapshots.lastEntry();
    return entry == null ? OptionalLong.empty() : OptionalLong.of(entry.getKey());
  }

  public OptionalLong oldestSnapshotOffset() {
    Map.Entry<Long, Path> entry = snapshots.firstEntry();
    return entry == null ? OptionalLong.empty() : OptionalLong.of(entry.getKey());
  }

  /** The offsets of the snapshot files, ascending. */
  public List<Long> snapshotOffsets() {
    return List.copyOf(snapshots.keySet());
  }

  /**
   * Reconciles the state with a log spanning {@code [logStartOffset, logEndOffset)}, at load and
   * after truncation: deletes snapshots above {@code logEndOffset} or below {@code logStartOffset},
   * clears the in-memory state and loads the newest remaining usable snapshot (see {@link
   * #loadLatestSnapshot}); without one, {@link #mapEndOffset()} becomes {@code logStartOffset}. The
   * log then replays its batches from {@link #mapEndOffset()} to {@code logEndOffset} with {@code
   * beginAppend(false)} and calls {@link #updateMapEndOffset}.
   */
  public void truncateAndReload(long logStartOffset, long logEndOffset) throws IOException {
    if (logStartOffset < 0 || logEndOffset < logStartOffset) {
      throw new IllegalArgumentException(
          "need 0 <= logStartOffset <= logEndOffset, got "
              + logStartOffset
              + " and "
              + logEndOffset);
    }
    synchronized (snapshotLock) {
      List<Long> outOfRange = new ArrayList<>(snapshots.headMap(logStartOffset, false).keySet());
      outOfRange.addAll(snapshots.tailMap(logEndOffset, false).keySet());
      deleteSnapshots(outOfRange, "outside the log [" + logStartOffset + ", " + logEndOffset + "]");
      OptionalLong loaded = loadLatestSnapshot();
      if (loaded.isEmpty()) {
        mapEndOffset = logStartOffset;
      }
    }
  }

  /**
   * Clears the in-memory state and loads the newest snapshot that reads cleanly, dropping expired
   * producers and setting {@link #mapEndOffset()} to its offset. Corrupt snapshots met on the way
   * are logged at WARN and deleted. Without a usable snapshot the state stays empty and {@link
   * #mapEndOffset()} is unchanged.
   *
   * @return the offset of the loaded snapshot, or empty if none was usable
   */
  public OptionalLong loadLatestSnapshot() throws IOException {
    synchronized (snapshotLock) {
      producers.clear();
      unstable.clear();
      while (true) {
        Map.Entry<Long, Path> newest = snapshots.lastEntry();
        if (newest == null) {
          return OptionalLong.empty();
        }
        List<ProducerStateEntry> entries;
        try {
          entries = ProducerSnapshotFile.read(newest.getValue());
        } catch (CorruptCheckpointException e) {
          log.warn(
              "Deleting corrupt producer snapshot file={} reason={}",
              newest.getValue(),
              e.getMessage());
          Files.deleteIfExists(newest.getValue());
          snapshots.remove(newest.getKey());
          continue;
        } catch (NoSuchFileException e) {
          log.warn("Producer snapshot disappeared file={}", newest.getValue());
          snapshots.remove(newest.getKey());
          continue;
        }
        long nowMs = time.milliseconds();
        int expired = 0;
        for (ProducerStateEntry entry : entries) {
          if (isExpired(entry, nowMs)) {
            expired++;
          } else {
            producers.put(entry.producerId(), entry);
          }
        }
        unstable.rebuild(producers.values());
        mapEndOffset = newest.getKey();
        log.info(
            "Loaded producer snapshot file={} offset={} producers={} expired={}",
            newest.getValue(),
            newest.getKey(),
            producers.size(),
            expired);
        return OptionalLong.of(newest.getKey());
      }
    }
  }

  /** Forgets all state, deletes every snapshot and restarts the state at {@code offset}. */
  public void truncateFullyAndStartAt(long offset) throws IOException {
    if (offset < 0) {
      throw new IllegalArgumentException("offset must be >= 0, got " + offset);
    }
    synchronized (snapshotLock) {
      producers.clear();
      unstable.clear();
      deleteSnapshots(List.copyOf(snapshots.keySet()), "full truncation to " + offset);
      mapEndOffset = offset;
    }
  }

  /** Deletes the snapshots with an offset below {@code offset}. */
  public void deleteSnapshotsBefore(long offset) throws IOException {
    synchronized (snapshotLock) {
      deleteSnapshots(List.copyOf(snapshots.headMap(offset, false).keySet()), "below " + offset);
    }
  }

  /**
   * Forgets producers whose last timestamp is at least {@code producerIdExpirationMs} before {@code
   * nowMs} and that have no open transaction.
   */
  public void removeExpiredProducers(long nowMs) {
    for (ProducerStateEntry entry : producers.values()) {
      if (isExpired(entry, nowMs) && producers.remove(entry.producerId(), entry)) {
        log.debug(
            "Expired producer producerId={} lastTimestamp={} nowMs={}",
            entry.producerId(),
            entry.lastTimestamp(),
            nowMs);
      }
    }
  }

  private boolean isExpired(ProducerStateEntry entry, long nowMs) {
    return entry.currentTxnFirstOffset().isEmpty()
        && nowMs - entry.lastTimestamp() >= producerIdExpirationMs;
  }

  private void deleteSnapshots(List<Long> offsets, String reason) throws IOException {
    if (offsets.isEmpty()) {
      return;
    }
    for (long offset : offsets) {
      Path file = snapshots.get(offset);
      if (file != null) {
        Files.deleteIfExists(file);
        snapshots.remove(offset);
      }
    }
    AtomicFiles.fsyncDirectory(partitionDir);
    log.info(
        "Deleted producer snapshots dir={} offsets={} reason={}", partitionDir, offsets, reason);
  }

  @Override
  public String toString() {
    return "ProducerStateManager("
        + partitionDir
        + ", producers="
        + producers.size()
        + ", mapEndOffset="
        + mapEndOffset
        + ", snapshots="
        + snapshots.keySet()
        + ")";
  }
}
