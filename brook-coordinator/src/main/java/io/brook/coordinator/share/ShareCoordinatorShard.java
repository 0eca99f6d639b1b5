package io.brook.coordinator.share;

import io.brook.coordinator.runtime.CoordinatorRecord;
import io.brook.coordinator.runtime.CoordinatorShard;
import io.brook.coordinator.runtime.MalformedRecordException;
import io.brook.coordinator.runtime.ShardContext;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The share coordinator's state for one {@code __share_group_state} partition: the durable state of
 * every share-partition whose key hashes to it. Runs on the shard's thread. Each operation checks
 * the caller's epochs, writes a snapshot of the new state and answers once it is committed.
 *
 * <p>Fencing follows Kafka: a write or read from a leader epoch older than the one recorded is
 * FENCED_LEADER_EPOCH (a deposed leader), a write of an older state epoch FENCED_STATE_EPOCH (the
 * state was initialized again since, by an offset reset), and a read from a newer leader epoch
 * records that epoch, so the previous leader's next write is fenced.
 */
public final class ShareCoordinatorShard implements CoordinatorShard {
  private static final Logger log = LoggerFactory.getLogger(ShareCoordinatorShard.class);

  /**
   * The most state batches one write may carry. A leader's window is at most {@code
   * group.share.partition.max.record.locks} records, so a real leader stays far below.
   */
  public static final int MAX_STATE_BATCHES = 100_000;

  /** What an operation found: an error, or NONE with the share-partition's state (if any). */
  public record Outcome(Errors error, String message, ShareState state) {
    static Outcome ok(ShareState state) {
      return new Outcome(Errors.NONE, null, state);
    }

    static Outcome error(Errors error, String message) {
      return new Outcome(error, message, null);
    }
  }

  private final ShardContext context;
  private final Map<ShareStateKey, ShareState> states = new HashMap<>();

  public ShareCoordinatorShard(ShardContext context) {
    this.context = context;
  }

  /** The share-partition's state, if it was initialized or written. */
  public Optional<ShareState> state(ShareStateKey key) {
    return Optional.ofNullable(states.get(key));
  }

  /** Share-partitions kept by this shard. */
  public int size() {
    return states.size();
  }

  /**
   * InitializeShareGroupState: the share-partition starts over at {@code startOffset} with {@code
   * stateEpoch}, nothing in flight.
   */
  public CompletableFuture<Outcome> initialize(
      ShareStateKey key, int stateEpoch, long startOffset) {
    ShareState current = states.get(key);
    if (current != null && stateEpoch < current.stateEpoch()) {
      return done(Outcome.error(Errors.FENCED_STATE_EPOCH, "state epoch is older than stored"));
    }
    long now = context.nowMs();
    ShareState next =
        new ShareState(
            current == null ? 0 : current.snapshotEpoch() + 1,
            stateEpoch,
            current == null ? -1 : current.leaderEpoch(),
            startOffset,
            current == null ? now : current.createTimestamp(),
            now,
            List.of());
    return persist(key, next);
  }

  /**
   * ReadShareGroupState of a leader at {@code leaderEpoch}: the state, recording a newer leader
   * epoch first. An uninitialized share-partition answers start offset -1.
   */
  public CompletableFuture<Outcome> read(ShareStateKey key, int leaderEpoch) {
    ShareState current = states.get(key);
    if (current == null) {
      return done(Outcome.ok(null));
    }
    if (leaderEpoch >= 0 && leaderEpoch < current.leaderEpoch()) {
      return done(Outcome.error(Errors.FENCED_LEADER_EPOCH, "leader epoch is older than stored"));
    }
    if (leaderEpoch > current.leaderEpoch()) {
      return persist(key, current.next(current.stateEpoch(), leaderEpoch, context.nowMs()));
    }
    return done(Outcome.ok(current));
  }

  /** ReadShareGroupStateSummary: the state as stored, nothing written. */
  public Outcome summary(ShareStateKey key) {
    return Outcome.ok(states.get(key));
  }

  /**
   * WriteShareGroupState: a leader's update (start offset, or -1 to keep it, and the batches that
   * changed) merged into the stored state.
   */
  public CompletableFuture<Outcome> write(
      ShareStateKey key,
      int stateEpoch,
      int leaderEpoch,
      long startOffset,
      List<StateBatch> batches) {
    if (batches.size() > MAX_STATE_BATCHES) {
      return done(Outcome.error(Errors.INVALID_REQUEST, "too many state batches"));
    }
    for (StateBatch b : batches) {
      if (b.firstOffset() < 0 || b.lastOffset() < b.firstOffset()) {
        return done(Outcome.error(Errors.INVALID_REQUEST, "a state batch has a bad offset range"));
      }
    }
    ShareState current = states.get(key);
    long now = context.nowMs();
    if (current == null) {
      current = new ShareState(-1, stateEpoch, leaderEpoch, startOffset, now, now, List.of());
    }
    if (leaderEpoch >= 0 && leaderEpoch < current.leaderEpoch()) {
      return done(Outcome.error(Errors.FENCED_LEADER_EPOCH, "leader epoch is older than stored"));
    }
    if (stateEpoch < current.stateEpoch()) {
      return done(Outcome.error(Errors.FENCED_STATE_EPOCH, "state epoch is older than stored"));
    }
    return persist(key, current.merge(leaderEpoch, startOffset, batches, now));
  }

  /** DeleteShareGroupState: the share-partition's records are tombstoned. */
  public CompletableFuture<Outcome> delete(ShareStateKey key) {
    if (!states.containsKey(key)) {
      return done(Outcome.ok(null));
    }
    return context.write(ShareStateRecords.tombstones(key)).thenApply(v -> Outcome.ok(null));
  }

  private CompletableFuture<Outcome> persist(ShareStateKey key, ShareState next) {
    return context
        .write(List.of(ShareStateRecords.snapshot(key, next)))
        .thenApply(v -> Outcome.ok(next));
  }

  private static CompletableFuture<Outcome> done(Outcome outcome) {
    return CompletableFuture.completedFuture(outcome);
  }

  @Override
  public void replay(CoordinatorRecord record, long offset) {
    if (!ShareStateRecords.handles(record.type())) {
      log.debug(
          "Ignoring a record of unknown type partition={} type={} offset={}",
          context.partition(),
          record.type(),
          offset);
      return;
    }
    MalformedRecordException.reading(
        record,
        () -> {
          apply(record);
          return null;
        });
  }

  private void apply(CoordinatorRecord record) {
    ShareStateKey key = ShareStateRecords.key(record);
    if (record.isTombstone()) {
      if (record.type() == ShareStateRecords.SNAPSHOT) {
        states.remove(key);
      }
      return;
    }
    if (record.type() == ShareStateRecords.SNAPSHOT) {
      states.put(key, ShareStateRecords.readSnapshot(record));
      return;
    }
    ShareState current = states.get(key);
    if (current == null) {
      throw new MalformedRecordException("a share update without a snapshot before it");
    }
    states.put(key, ShareStateRecords.applyUpdate(record, current));
  }
}
