package io.brook.storage.producer;

import io.brook.storage.StorageError;
import io.brook.storage.StorageException;
import io.brook.storage.txn.CompletedTxn;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The producer state of one partition (KIP-98): per producer id, its epoch, its last {@value
 * #MAX_BATCHES_PER_PRODUCER} batches, its open transaction and the coordinator epoch of its last
 * marker, and the offset up to which that state reflects the log. It owns the producer table and
 * sequences each append's changes to it; the rules live in three parts:
 *
 * <ul>
 *   <li>{@link ProducerSequences}: idempotence, the epoch and sequence checks, duplicates, and each
 *       producer's window of recent batches;
 *   <li>{@link ProducerTransactions}: transactions opened by data batches and completed by markers,
 *       and the unstable offsets that hold the last stable offset back ({@link TransactionRules}
 *       says what a client and a coordinator may write);
 *   <li>{@link ProducerSnapshots}: the {@code .snapshot} files ({@link ProducerSnapshotFile}).
 * </ul>
 *
 * <h2>Appends</h2>
 *
 * Each log append opens an {@link Append} with {@link #beginAppend}: for a client append the log
 * calls {@link Append#checkDuplicateOrValidate} for every batch before assigning offsets, then
 * {@link Append#record} for every batch once offsets are final, then {@link Append#commit}.
 * Replication and recovery replay skip the checks and only record. A marker's completed transaction
 * is reported through {@link Append#completedTransactions}, with the last stable offset right after
 * the marker, for the log's transaction index.
 *
 * <h2>Snapshots</h2>
 *
 * At segment roll the log calls {@link #takeSnapshot}, which writes the state as of {@link
 * #mapEndOffset()}. At load and after truncation, {@link #truncateAndReload} restores the newest
 * usable snapshot and the log replays the batches from {@link #mapEndOffset()} to its end. A
 * corrupt snapshot is deleted and the next older one is used, at the cost of a longer replay.
 *
 * <h2>Transaction verification</h2>
 *
 * Before the first batch of a producer's transaction is appended, the leader takes a {@link
 * VerificationGuard} from {@link #maybeStartVerification}, has the coordinator confirm that the
 * partition is in the transaction and appends with the guard; a client append of a transactional
 * batch that opens a transaction is refused unless it carries the producer's current guard. Every
 * transactional batch or marker recorded for the producer drops its guard.
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
 * multi-producer commit becomes visible producer by producer. Operations that replace the table
 * from or with snapshot files hold {@code reloadLock}, then the {@link ProducerSnapshots} monitor.
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
  private final ProducerTransactions transactions = new ProducerTransactions();

  /** The guards of the producers being verified; see {@link VerificationGuard}. */
  private final ConcurrentHashMap<Long, Verification> verifications = new ConcurrentHashMap<>();

  private final ProducerSnapshots snapshots;

  /** Held while the table is replaced from, or written to, snapshot files. */
  private final Object reloadLock = new Object();

  private volatile long mapEndOffset;

  /**
   * Lists the snapshot files in {@code partitionDir} (and deletes leftover temporary ones) without
   * loading them; call {@link #truncateAndReload} to load.
   */
  public ProducerStateManager(Path partitionDir, Time time, long producerIdExpirationMs)
      throws IOException {
    this(partitionDir, time, producerIdExpirationMs, true);
  }

  /** The state of a log whose directory was just created: it has no snapshot to list. */
  public static ProducerStateManager forNewLog(
      Path partitionDir, Time time, long producerIdExpirationMs) throws IOException {
    return new ProducerStateManager(partitionDir, time, producerIdExpirationMs, false);
  }

  private ProducerStateManager(
      Path partitionDir, Time time, long producerIdExpirationMs, boolean listSnapshots)
      throws IOException {
    if (producerIdExpirationMs < 0) {
      throw new IllegalArgumentException(
          "producerIdExpirationMs must be >= 0, got " + producerIdExpirationMs);
    }
    this.partitionDir = partitionDir;
    this.time = time;
    this.producerIdExpirationMs = producerIdExpirationMs;
    this.snapshots = new ProducerSnapshots(partitionDir, listSnapshots);
  }

  /** Starts one append of the log, without transaction verification; see {@link Append}. */
  public Append beginAppend(boolean fromClient) {
    return beginAppend(fromClient, VerificationGuard.NOT_CHECKED);
  }

  /**
   * Starts one append of the log; a client's transactional batch that opens a transaction must
   * carry the producer's current guard unless {@code guard} is {@link
   * VerificationGuard#NOT_CHECKED}.
   */
  public Append beginAppend(boolean fromClient, VerificationGuard guard) {
    return beginAppend(fromClient, guard, (short) 0);
  }

  /**
   * Starts one append of the log whose markers end transactions of {@code markerTransactionVersion}
   * (a coordinator's WriteTxnMarkers): from version 2 on (KIP-890 transactions V2) a marker must
   * carry an epoch above the producer's, see {@link ProducerSequences#check}.
   */
  public Append beginAppend(
      boolean fromClient, VerificationGuard guard, short markerTransactionVersion) {
    return new Append(fromClient, guard, markerTransactionVersion);
  }

  /**
   * A producer's guard, the epoch it was asked for, the lowest first sequence of the batches
   * waiting for it at that epoch, whether the producer uses transactions V2 (an epoch bump per
   * transaction, so its first batch on a partition starts at sequence 0), and when it was created.
   */
  private record Verification(
      VerificationGuard guard,
      short epoch,
      int lowestSequence,
      boolean supportsEpochBump,
      long createdMs) {}

  /**
   * {@link #maybeStartVerification(long, short, int, boolean)} of a first batch of a V1 producer.
   */
  public VerificationGuard maybeStartVerification(long producerId, short epoch) {
    return maybeStartVerification(producerId, epoch, 0, false);
  }

  /**
   * The guard the producer's next transactional batch, starting at {@code baseSequence}, must
   * carry: {@link VerificationGuard#SENTINEL} when its transaction is already open here in {@code
   * epoch} (nothing to verify), else its pending guard, created if it has none. The pending guard
   * remembers the lowest first sequence asked for at its epoch, so that while the first batch of
   * the transaction waits (or is retried), a later batch of the same producer cannot be appended
   * ahead of it: see {@link Append#checkDuplicateOrValidate}. Any thread.
   *
   * @param supportsEpochBump the request is of transactions V2 (Produce v12 and later)
   */
  public VerificationGuard maybeStartVerification(
      long producerId, short epoch, int baseSequence, boolean supportsEpochBump) {
    ProducerStateEntry entry = producers.get(producerId);
    if (entry != null
        && entry.producerEpoch() == epoch
        && entry.currentTxnFirstOffsetOrNone() != ProducerStateEntry.NO_TXN) {
      return VerificationGuard.SENTINEL;
    }
    long nowMs = time.milliseconds();
    return verifications
        .compute(
            producerId,
            (id, existing) -> {
              if (existing == null) {
                return new Verification(
                    new VerificationGuard(), epoch, baseSequence, supportsEpochBump, nowMs);
              }
              // A retry or a concurrent request of the same transaction shares the guard.
              if (existing.epoch() > epoch) {
                return existing;
              }
              int lowest =
                  existing.epoch() == epoch
                      ? Math.min(existing.lowestSequence(), baseSequence)
                      : baseSequence;
              return new Verification(
                  existing.guard(),
                  epoch,
                  lowest,
                  existing.supportsEpochBump() || supportsEpochBump,
                  existing.createdMs());
            })
        .guard();
  }

  /** Whether the producer has a pending verification guard; for tests and diagnostics. */
  public boolean isVerifying(long producerId) {
    return verifications.containsKey(producerId);
  }

  /**
   * The producer-state changes of one log append, invisible until {@link #commit}. Not thread-safe;
   * used by the appending thread only, and discarded (never committed) if the append fails.
   */
  public final class Append {
    /** No pending guard is kept: see {@link #verified}. */
    private static final int KEEP_NONE = -1;

    private final boolean fromClient;
    private final VerificationGuard guard;
    private final short markerTransactionVersion;

    /**
     * Producers whose guard a recorded transactional batch or marker drops at commit, each with the
     * epoch of a pending guard to keep ({@link #KEEP_NONE}: drop whatever is pending): a
     * transactions V2 marker carries the bumped epoch the producer's next transaction uses, so a
     * guard at that epoch belongs to the next transaction, whose first batch the leader may be
     * verifying while this marker is written, and is kept (as Kafka keeps it). A V1 marker keeps
     * its transaction's epoch, and a data batch has used the guard: both drop it. Decided at
     * commit, against the guard pending then: a guard created while this append was being written
     * is judged by the same rule.
     */
    private Map<Long, Integer> verified;

    /** Entries changed by {@link #record}, to be published by {@link #commit}. */
    private final Map<Long, ProducerStateEntry> updated = new HashMap<>();

    /** Epoch and last sequence after the batches validated so far in this append. */
    private final Map<Long, ProducerSequences.Validated> validated = new HashMap<>();

    /** Transactions closed by markers in this append, in log order. */
    private final List<CompletedTxn> completed = new ArrayList<>();

    private long endOffset = -1;
    private boolean committed;

    /** Whether the log has never held a record: see {@link #toNeverWrittenLog}. */
    private boolean neverWritten;

    private Append(boolean fromClient, VerificationGuard guard, short markerTransactionVersion) {
      this.fromClient = fromClient;
      this.guard = guard;
      this.markerTransactionVersion = markerTransactionVersion;
    }

    /**
     * Marks this append as the first to a log that has never held a record (its end offset is 0): a
     * producer with no state here must then start at sequence 0. Without this rule a producer's two
     * requests in flight to a just-created partition can be taken out of order: the first, sent
     * before this broker led the partition, is refused (NOT_LEADER_OR_FOLLOWER) and retried, the
     * second is appended (no state accepts any first sequence), and every retry of the first is
     * then out of order, until the producer's delivery timeout fails its records. Refused instead,
     * the second is retried after the first. A log that held records once (emptied by DeleteRecords
     * or retention) still accepts any first sequence, as a producer's state may have expired there.
     * The rule Kafka adopted for the same race (KAFKA-15591).
     */
    public Append toNeverWrittenLog() {
      neverWritten = true;
      return this;
    }

    /**
     * For client appends, before offsets are assigned: the cached original batch if {@code batch}
     * is a retry of one of the producer's last {@value #MAX_BATCHES_PER_PRODUCER} batches;
     * otherwise checks it against the producer's state and the batches validated earlier in this
     * append (epoch, sequence, transaction rules: see {@link ProducerSequences#check}) and
     * remembers it for the next one. Batches without producer id are ignored. Returns empty without
     * checking when {@code fromClient} is false.
     */
    public Optional<BatchMetadata> checkDuplicateOrValidate(RecordBatch batch) {
      ensureOpen();
      if (!fromClient || !batch.hasProducerId()) {
        return Optional.empty();
      }
      ProducerStateEntry current = currentEntry(batch.producerId());
      boolean noStateYet = current == null && !validated.containsKey(batch.producerId());
      Optional<BatchMetadata> duplicate =
          ProducerSequences.check(batch, current, validated, markerTransactionVersion);
      if (duplicate.isEmpty()) {
        if (noStateYet) {
          checkFirstSequence(batch);
        }
        checkVerified(batch, current);
      }
      return duplicate;
    }

    /**
     * The first batch of a producer this partition has no state for. With no state the sequence
     * check accepts any first sequence, so a later batch of the producer could be appended while
     * its first batch is still on the way, and the first would then be refused forever as out of
     * order. Two cases are closed: on a partition that has never held a record ({@link
     * #toNeverWrittenLog}) the batch must start at 0; a transactional batch whose transaction is
     * being verified (its first batch may wait for the coordinator, or be retried after
     * CONCURRENT_TRANSACTIONS) must start, as in Kafka, at the lowest sequence asked for at the
     * guard's epoch, and at 0 for a transactions V2 producer. OUT_OF_ORDER_SEQUENCE_NUMBER makes
     * the producer retry it after the batches before.
     */
    private void checkFirstSequence(RecordBatch batch) {
      if (batch.isControlBatch()) {
        return;
      }
      int first = batch.baseSequence();
      String refused = null;
      if (neverWritten && first != 0) {
        refused = "the partition has never held a record, so its first batch must start at 0";
      } else if (guard != VerificationGuard.NOT_CHECKED && batch.isTransactional()) {
        Verification pending = verifications.get(batch.producerId());
        if (pending != null && pending.supportsEpochBump() && first != 0) {
          refused = "a transactions V2 producer's first batch here must start at sequence 0";
        } else if (pending != null
            && pending.epoch() == batch.producerEpoch()
            && first > pending.lowestSequence()) {
          refused =
              "the batch at sequence " + pending.lowestSequence() + " must be appended before it";
        }
      }
      if (refused != null) {
        throw new StorageException(
            StorageError.OUT_OF_ORDER_SEQUENCE_NUMBER,
            "Out of order sequence number: producerId="
                + batch.producerId()
                + " epoch="
                + batch.producerEpoch()
                + " has no state on this partition and "
                + refused
                + ", but the batch starts at "
                + first);
      }
    }

    /**
     * A client's transactional data batch that would open a transaction must carry the guard the
     * producer holds here (KIP-890): otherwise its partition was never confirmed to be part of the
     * transaction, or the transaction ended since.
     */
    private void checkVerified(RecordBatch batch, ProducerStateEntry current) {
      if (guard == VerificationGuard.NOT_CHECKED
          || !batch.isTransactional()
          || batch.isControlBatch()) {
        return;
      }
      boolean open =
          current != null
              && current.producerEpoch() == batch.producerEpoch()
              && current.currentTxnFirstOffsetOrNone() != ProducerStateEntry.NO_TXN;
      Verification pending = verifications.get(batch.producerId());
      if (!open && (pending == null || !pending.guard().admits(guard))) {
        throw new StorageException(
            StorageError.INVALID_TXN_STATE,
            "Record was not part of an ongoing transaction: producerId=" + batch.producerId());
      }
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
      if (batch.isTransactional()) {
        // The transaction is open (data) or over (marker): either way the guard has served.
        int keep =
            batch.isControlBatch() && markerTransactionVersion >= 2
                ? batch.producerEpoch()
                : KEEP_NONE;
        verified = verified == null ? new HashMap<>() : verified;
        verified.merge(producerId, keep, (a, b) -> a.equals(b) ? a : KEEP_NONE);
      }
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
        completed.add(ProducerTransactions.completedBy(batch, marker.get(), txnFirstOffset));
        txnFirstOffset = ProducerStateEntry.NO_TXN;
        coordinatorEpoch = marker.get().coordinatorEpoch();
      } else {
        batches = ProducerSequences.windowWith(batches, batch);
        txnFirstOffset = ProducerTransactions.txnFirstOffsetAfter(batch, txnFirstOffset);
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
      transactions.apply(updated, producers, completed);
      producers.putAll(updated);
      if (verified != null) {
        verified.forEach(
            (producerId, keep) ->
                verifications.computeIfPresent(
                    producerId, (id, pending) -> pending.epoch() == keep ? pending : null));
      }
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

  public Optional<ProducerStateEntry> lastEntry(long producerId) {
    return Optional.ofNullable(producers.get(producerId));
  }

  /**
   * The first offset of the oldest transaction that is open, or completed with its marker not yet
   * below the high watermark; empty when none. The last stable offset is this or the high
   * watermark, whichever is lower.
   */
  public OptionalLong firstUnstableOffset() {
    return transactions.firstUnstableOffset();
  }

  /** The first offset of the oldest open transaction, if any. */
  public OptionalLong firstOngoingTxnOffset() {
    return transactions.firstOngoingOffset();
  }

  /** The log's high watermark moved: completed transactions below it stop holding the LSO. */
  public void onHighWatermarkUpdated(long newHighWatermark) {
    transactions.onHighWatermarkUpdated(newHighWatermark);
  }

  /** A copy of the committed state, by producer id. */
  public Map<Long, ProducerStateEntry> activeProducers() {
    return Map.copyOf(producers);
  }

  /** Whether any producer has state here (committed; expired ones are gone). */
  public boolean hasProducers() {
    return !producers.isEmpty();
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
    synchronized (reloadLock) {
      snapshots.write(mapEndOffset, producers.values());
    }
  }

  public OptionalLong latestSnapshotOffset() {
    return snapshots.latestOffset();
  }

  public OptionalLong oldestSnapshotOffset() {
    return snapshots.oldestOffset();
  }

  /** The offsets of the snapshot files, ascending. */
  public List<Long> snapshotOffsets() {
    return snapshots.offsets();
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
    synchronized (reloadLock) {
      snapshots.deleteOutside(logStartOffset, logEndOffset);
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
    synchronized (reloadLock) {
      producers.clear();
      transactions.clear();
      ProducerSnapshots.Loaded newest = snapshots.loadLatest();
      if (newest == null) {
        return OptionalLong.empty();
      }
      long nowMs = time.milliseconds();
      int expired = 0;
      for (ProducerStateEntry entry : newest.entries()) {
        if (isExpired(entry, nowMs)) {
          expired++;
        } else {
          producers.put(entry.producerId(), entry);
        }
      }
      transactions.rebuild(producers.values());
      mapEndOffset = newest.offset();
      // One line per partition on every start: worth it only when the snapshot held producers.
      if (producers.isEmpty() && expired == 0) {
        log.debug(
            "Loaded empty producer snapshot file={} offset={}", newest.file(), newest.offset());
      } else {
        log.info(
            "Loaded producer snapshot file={} offset={} producers={} expired={}",
            newest.file(),
            newest.offset(),
            producers.size(),
            expired);
      }
      return OptionalLong.of(newest.offset());
    }
  }

  /**
   * Loads the state at {@code offset} from {@code snapshot}, the bytes of a snapshot file written
   * by another replica (a follower starting from remote storage). A corrupt one is deleted and
   * leaves the state empty.
   *
   * @return whether the snapshot was loaded
   */
  public boolean loadSnapshotAt(long offset, byte[] snapshot) throws IOException {
    synchronized (reloadLock) {
      snapshots.adopt(offset, snapshot);
      return loadLatestSnapshot().isPresent();
    }
  }

  /** Forgets all state, deletes every snapshot and restarts the state at {@code offset}. */
  public void truncateFullyAndStartAt(long offset) throws IOException {
    if (offset < 0) {
      throw new IllegalArgumentException("offset must be >= 0, got " + offset);
    }
    synchronized (reloadLock) {
      producers.clear();
      transactions.clear();
      snapshots.deleteAll("full truncation to " + offset);
      mapEndOffset = offset;
    }
  }

  /** Deletes the snapshots with an offset below {@code offset}. */
  public void deleteSnapshotsBefore(long offset) throws IOException {
    snapshots.deleteBefore(offset);
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
    // A guard whose append never came (the coordinator refused, the producer went away).
    verifications.values().removeIf(v -> nowMs - v.createdMs() >= producerIdExpirationMs);
  }

  private boolean isExpired(ProducerStateEntry entry, long nowMs) {
    return entry.currentTxnFirstOffset().isEmpty()
        && nowMs - entry.lastTimestamp() >= producerIdExpirationMs;
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
        + snapshots
        + ")";
  }
}
