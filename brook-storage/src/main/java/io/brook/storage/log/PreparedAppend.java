package io.brook.storage.log;

import io.brook.storage.epoch.LeaderEpochCache;
import io.brook.storage.producer.BatchMetadata;
import io.brook.storage.producer.ProducerStateManager;
import io.brook.storage.producer.VerificationGuard;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * One append with every decision its origin makes already taken, before the log's lock: the batches
 * are validated as the origin requires ({@link BatchValidator}), and {@link Placement} says how
 * they enter the log. The log's one write path ({@code PartitionLog.appendLocked}) runs the same
 * steps for every origin and asks this object only where the batches go and what the producers must
 * be checked for.
 *
 * <ul>
 *   <li>{@link Placement#LEADER} (a producer or a coordinator through the partition leader):
 *       producer sequences and duplicates are checked; the batches get offsets from the log end,
 *       the leader's epoch and, under LogAppendTime, the broker's clock.
 *   <li>{@link Placement#FOLLOWER} (replication): only the framing was checked; offsets and epochs
 *       are the leader's and kept, and the batches must start at or after the log end.
 * </ul>
 *
 * <p>One object per append, not per batch; not thread-safe (used by the appending thread only).
 */
final class PreparedAppend {
  /** How the batches of an append are placed at the log end. */
  enum Placement {
    LEADER(true) {
      @Override
      long firstOffset(PreparedAppend append, long logEndOffset) {
        return logEndOffset;
      }

      @Override
      long place(PreparedAppend append, long firstOffset) {
        return assignOffsets(
            append.records, firstOffset, append.leaderEpoch, append.logAppendTimeMs);
      }

      @Override
      long lastOffsetIfPlaced(PreparedAppend append, long logEndOffset) {
        long next = logEndOffset;
        for (MutableRecordBatch batch : append.records.batches()) {
          next += batch.lastOffset() - batch.baseOffset() + 1;
        }
        return next - 1;
      }

      @Override
      boolean startsEpoch(PreparedAppend append, int latestEpoch) {
        return append.leaderEpoch >= 0 && latestEpoch < append.leaderEpoch;
      }
    },
    FOLLOWER(false) {
      @Override
      long firstOffset(PreparedAppend append, long logEndOffset) {
        return BatchValidator.checkReplicatedStart(append.summary, logEndOffset);
      }

      @Override
      long place(PreparedAppend append, long firstOffset) {
        return append.summary.lastOffset();
      }

      @Override
      long lastOffsetIfPlaced(PreparedAppend append, long logEndOffset) {
        return append.summary.lastOffset();
      }

      @Override
      boolean startsEpoch(PreparedAppend append, int latestEpoch) {
        for (MutableRecordBatch batch : append.records.batches()) {
          if (batch.partitionLeaderEpoch() > latestEpoch) {
            return true;
          }
        }
        return false;
      }
    };

    /**
     * Whether the producers of the batches are checked (sequences, duplicates, epochs, transaction
     * rules): the leader decides what enters the log, a follower copies what its leader accepted.
     */
    private final boolean checksProducers;

    Placement(boolean checksProducers) {
      this.checksProducers = checksProducers;
    }

    /** The offset of the first record, given the log end; may refuse the append. */
    abstract long firstOffset(PreparedAppend append, long logEndOffset);

    /** Places the batches from {@code firstOffset} on; returns the last offset. */
    abstract long place(PreparedAppend append, long firstOffset);

    /** The last offset {@link #place} would give, without changing anything. */
    abstract long lastOffsetIfPlaced(PreparedAppend append, long logEndOffset);

    /** Whether writing the batches would start a leader epoch (a checkpoint file write). */
    abstract boolean startsEpoch(PreparedAppend append, int latestEpoch);
  }

  private final MemoryRecords records;
  private final BatchValidator.Summary summary;
  private final Placement placement;
  private final LogConfig config;
  private final long nowMs;
  private final int leaderEpoch;

  /** The broker time stamped on the batches under LogAppendTime, or -1. */
  private final long logAppendTimeMs;

  /** What a client's transactional batch must carry to open a transaction. */
  private final VerificationGuard guard;

  /** The transaction version of the transactions a coordinator's markers end; 0 otherwise. */
  private final short markerTransactionVersion;

  private PreparedAppend(
      MemoryRecords records,
      BatchValidator.Summary summary,
      Placement placement,
      LogConfig config,
      long nowMs,
      int leaderEpoch,
      long logAppendTimeMs,
      VerificationGuard guard,
      short markerTransactionVersion) {
    this.records = records;
    this.summary = summary;
    this.placement = placement;
    this.config = config;
    this.nowMs = nowMs;
    this.leaderEpoch = leaderEpoch;
    this.logAppendTimeMs = logAppendTimeMs;
    this.guard = guard;
    this.markerTransactionVersion = markerTransactionVersion;
  }

  /**
   * A producer's ({@link AppendOrigin#CLIENT}) or a coordinator's ({@link
   * AppendOrigin#COORDINATOR}) append through the leader of {@code leaderEpoch}: validated record
   * by record here. {@code guard} and {@code markerTransactionVersion}: see {@link
   * ProducerStateManager#beginAppend(boolean, VerificationGuard, short)}.
   */
  static PreparedAppend leader(
      MemoryRecords records,
      LogConfig config,
      AppendOrigin origin,
      int leaderEpoch,
      long nowMs,
      VerificationGuard guard,
      short markerTransactionVersion) {
    if (origin == AppendOrigin.REPLICATION) {
      throw new IllegalArgumentException("a leader append cannot come from replication");
    }
    BatchValidator.Summary summary = BatchValidator.validate(records, config, origin, nowMs);
    long appendTime = config.timestampType() == TimestampType.LOG_APPEND_TIME ? nowMs : -1;
    return new PreparedAppend(
        records,
        summary,
        Placement.LEADER,
        config,
        nowMs,
        leaderEpoch,
        appendTime,
        guard,
        markerTransactionVersion);
  }

  /** Batches copied from the leader: framing checked here, offsets and epochs kept. */
  static PreparedAppend follower(MemoryRecords records, LogConfig config, long nowMs) {
    BatchValidator.Summary summary =
        BatchValidator.validate(records, config, AppendOrigin.REPLICATION, nowMs);
    return new PreparedAppend(
        records,
        summary,
        Placement.FOLLOWER,
        config,
        nowMs,
        RecordBatch.NO_PARTITION_LEADER_EPOCH,
        -1,
        VerificationGuard.NOT_CHECKED,
        (short) 0);
  }

  MemoryRecords records() {
    return records;
  }

  BatchValidator.Summary summary() {
    return summary;
  }

  /** The topic settings the batches were validated against; the roll decision uses them too. */
  LogConfig config() {
    return config;
  }

  /** The broker's clock when the append was prepared. */
  long nowMs() {
    return nowMs;
  }

  /**
   * Opens the producer-state changes of this append at {@code logEnd}: a leader's checks sequences
   * and duplicates (on a log that has never held a record, a new producer's first batch must start
   * at sequence 0: {@link ProducerStateManager.Append#toNeverWrittenLog}), a follower's only
   * records what the leader accepted.
   */
  ProducerStateManager.Append beginProducers(ProducerStateManager producerState, long logEnd) {
    ProducerStateManager.Append append =
        producerState.beginAppend(placement.checksProducers, guard, markerTransactionVersion);
    return logEnd == 0 ? append.toNeverWrittenLog() : append;
  }

  /**
   * Checks every batch against its producer's state (see {@link
   * ProducerStateManager.Append#checkDuplicateOrValidate}); the original of a retried batch, if
   * this append is one. A follower's producers are not checked.
   */
  Optional<BatchMetadata> findDuplicate(ProducerStateManager.Append producers) {
    if (!placement.checksProducers) {
      return Optional.empty();
    }
    for (MutableRecordBatch batch : records.batches()) {
      Optional<BatchMetadata> duplicate = producers.checkDuplicateOrValidate(batch);
      if (duplicate.isPresent()) {
        return duplicate;
      }
    }
    return Optional.empty();
  }

  long firstOffset(long logEndOffset) {
    return placement.firstOffset(this, logEndOffset);
  }

  /** Places the batches from {@code firstOffset} on (see {@link Placement}); the last offset. */
  long place(long firstOffset) {
    return placement.place(this, firstOffset);
  }

  long lastOffsetIfPlaced(long logEndOffset) {
    return placement.lastOffsetIfPlaced(this, logEndOffset);
  }

  /** Whether the write would start a leader epoch, which writes the epoch checkpoint. */
  boolean startsEpoch(LeaderEpochCache epochs) {
    return placement.startsEpoch(this, epochs.latestEpoch().orElse(-1));
  }

  /** The outcome of this append, written at {@code [firstOffset, lastOffset]}. */
  LogAppendInfo appended(
      long firstOffset, long lastOffset, long logStartOffset, List<AppendedBatch> batches) {
    boolean appendTime = logAppendTimeMs >= 0;
    return new LogAppendInfo(
        firstOffset,
        lastOffset,
        appendTime ? logAppendTimeMs : summary.maxTimestamp(),
        appendTime ? logAppendTimeMs : RecordBatch.NO_TIMESTAMP,
        logStartOffset,
        summary.recordCount(),
        summary.sizeInBytes(),
        false,
        batches);
  }

  /**
   * Rewrites each batch's base offset (outside the CRC) and leader epoch in place, and under
   * LogAppendTime its max timestamp (which recomputes the CRC over the header, not the records).
   */
  private static long assignOffsets(
      MemoryRecords records, long nextOffset, int leaderEpoch, long logAppendTimeMs) {
    long next = nextOffset;
    for (MutableRecordBatch batch : records.batches()) {
      long delta = batch.lastOffset() - batch.baseOffset();
      batch.setLastOffset(next + delta);
      batch.setPartitionLeaderEpoch(leaderEpoch);
      if (logAppendTimeMs >= 0) {
        batch.setMaxTimestamp(TimestampType.LOG_APPEND_TIME, logAppendTimeMs);
      }
      next += delta + 1;
    }
    return next - 1;
  }
}
