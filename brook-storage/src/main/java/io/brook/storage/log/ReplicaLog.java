package io.brook.storage.log;

import io.brook.storage.StorageException;
import io.brook.storage.epoch.EpochEndOffset;
import io.brook.storage.producer.ProducerStateEntry;
import io.brook.storage.producer.VerificationGuard;
import io.brook.storage.txn.AbortedTxn;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * A partition's log as the data plane (the broker's {@code Partition} and the request handlers
 * reaching the log through it) uses it: appends per origin, reads, the offsets that bound them,
 * truncation and leader epochs. {@link PartitionLog} implements it on disk; everything about files
 * (segments, flushing, retention, the cleaner, closing) stays on {@link PartitionLog} and {@code
 * LogManager}, so another implementation (an in-memory log for a deterministic simulation of
 * replication) needs only this.
 *
 * <p>Offsets: {@code logStartOffset <= highWatermark <= logEndOffset}, and the last stable offset
 * lies between the log start and the high watermark. An append is visible to readers only once the
 * log end covers it.
 */
public interface ReplicaLog {
  TopicPartition topicPartition();

  /** The topic settings the log applies. */
  LogConfig config();

  /** New topic settings, used from the next append or roll and the next retention pass. */
  void updateConfig(LogConfig newConfig);

  // ---- Appends ----

  /**
   * A producer's batches on the leader: validated record by record, producer sequences checked,
   * offsets assigned from the log end and {@code leaderEpoch} stamped. May block on the disk.
   */
  default LogAppendInfo appendAsLeader(MemoryRecords records, int leaderEpoch) {
    return appendAsLeader(records, leaderEpoch, VerificationGuard.NOT_CHECKED);
  }

  /**
   * {@link #appendAsLeader(MemoryRecords, int)} for a producer whose transactional batches were
   * verified with their coordinator: a batch that opens a transaction must carry the producer's
   * {@code guard} (see {@link VerificationGuard}); {@link VerificationGuard#NOT_CHECKED} checks
   * nothing.
   */
  LogAppendInfo appendAsLeader(MemoryRecords records, int leaderEpoch, VerificationGuard guard);

  /**
   * {@link #appendAsLeader} for a thread that must not wait for the disk: {@code null}, with
   * nothing changed, if the append would have to (a roll, an fsync, an epoch checkpoint write, or
   * disk work holding the log).
   */
  default LogAppendInfo appendAsLeaderWithoutBlocking(MemoryRecords records, int leaderEpoch) {
    return appendAsLeaderWithoutBlocking(records, leaderEpoch, VerificationGuard.NOT_CHECKED);
  }

  /** {@link #appendAsLeaderWithoutBlocking(MemoryRecords, int)} with a verification guard. */
  LogAppendInfo appendAsLeaderWithoutBlocking(
      MemoryRecords records, int leaderEpoch, VerificationGuard guard);

  /**
   * The guard a producer's next transactional batch must carry (see {@link
   * io.brook.storage.producer.ProducerStateManager#maybeStartVerification}). Any thread.
   */
  VerificationGuard maybeStartTransactionVerification(
      long producerId, short epoch, int baseSequence, boolean supportsEpochBump);

  /**
   * {@link #appendAsLeader} for a coordinator, which may also write control batches; a transaction
   * marker is checked under the legacy protocol's rules (transaction version 0).
   */
  default LogAppendInfo appendAsCoordinator(MemoryRecords records, int leaderEpoch) {
    return appendAsCoordinator(records, leaderEpoch, (short) 0);
  }

  /**
   * {@link #appendAsLeader} for a coordinator, which may also write control batches. {@code
   * transactionVersion} is the version of the transaction a marker ends (WriteTxnMarkers v2): from
   * 2 on (KIP-890 transactions V2) the coordinator bumped the producer epoch when the transaction
   * ended, so the marker must carry an epoch above the transaction's batches.
   */
  LogAppendInfo appendAsCoordinator(
      MemoryRecords records, int leaderEpoch, short transactionVersion);

  /** Batches copied from the leader: framing checked, offsets and leader epochs kept. */
  LogAppendInfo appendAsFollower(MemoryRecords records);

  // ---- Reads ----

  /**
   * From the batch holding {@code startOffset}, at most {@code maxBytes} (the whole first batch
   * when {@code minOneBatch}), never at or past {@code maxOffset}.
   *
   * @throws StorageException OFFSET_OUT_OF_RANGE below the log start or above the log end
   */
  LogReadResult read(long startOffset, int maxBytes, long maxOffset, boolean minOneBatch);

  /** The first record at or after {@code timestamp} below {@code maxOffset}. */
  Optional<FileRecords.TimestampAndOffset> offsetForTimestamp(long timestamp, long maxOffset);

  /** The record with the largest timestamp, the earliest on ties. */
  Optional<FileRecords.TimestampAndOffset> maxTimestampRecord();

  /** The aborted transactions overlapping {@code [startOffset, upperBoundOffset)}. */
  List<AbortedTxn> collectAbortedTransactions(long startOffset, long upperBoundOffset);

  // ---- Offsets ----

  long logStartOffset();

  long logEndOffset();

  LogOffsetMetadata logEndOffsetMetadata();

  long highWatermark();

  LogOffsetMetadata highWatermarkMetadata();

  /** Where read_committed reads stop: the high watermark or the oldest unresolved transaction. */
  long lastStableOffset();

  LogOffsetMetadata lastStableOffsetMetadata();

  /** Sets the high watermark, clamped to {@code [logStartOffset, logEndOffset]}; the value set. */
  long updateHighWatermark(long highWatermark);

  /**
   * Moves the log start offset forward (DeleteRecords).
   *
   * @throws StorageException OFFSET_OUT_OF_RANGE past the high watermark
   */
  void maybeIncrementLogStartOffset(long newLogStartOffset);

  /** Bytes the log holds (DescribeLogDirs). */
  long sizeInBytes();

  // ---- Truncation ----

  /**
   * Removes every batch at or after {@code targetOffset}, with its producer state and epochs. At or
   * past the log end it removes no batch but drops the epochs that start at the log end (a
   * leadership this replica held without writing in it).
   */
  void truncateTo(long targetOffset);

  /** Removes everything and starts empty at {@code newOffset}. */
  void truncateFullyAndStartAt(long newOffset);

  // ---- Leader epochs ----

  /** The newest leader epoch the log knows of. */
  OptionalInt latestEpoch();

  /**
   * Records that {@code epoch} writes from {@code startOffset} on (a new leadership), unless a
   * newer epoch is known.
   */
  void assignEpoch(int epoch, long startOffset) throws IOException;

  /** The leader epoch that wrote {@code offset}, as far as the log knows (ListOffsets). */
  OptionalInt epochForOffset(long offset);

  /** The end offset of {@code leaderEpoch} as this replica knows it (OffsetForLeaderEpoch). */
  EpochEndOffset endOffsetForEpoch(int leaderEpoch);

  // ---- Producers ----

  /** The state of one idempotent or transactional producer, if the log knows it. */
  Optional<ProducerStateEntry> producerEntry(long producerId);

  /** Every producer the log knows, by id (DescribeProducers). */
  Map<Long, ProducerStateEntry> activeProducers();

  // ---- Health ----

  /** The partition's directory; its parent is the log directory it lives in. */
  Path dir();

  /** True once an I/O error took the log offline until the broker restarts. */
  boolean isOffline();

  /**
   * An I/O error on this log's files outside its own operations: takes the log and its directory
   * offline; the error to fail the current operation with.
   */
  StorageException markOffline(String what, IOException cause);
}
