package io.brook.broker.replica;

import io.brook.broker.replica.fetcher.TieredFollowerStart;
import io.brook.storage.StorageException;
import io.brook.storage.epoch.EpochEndOffset;
import io.brook.storage.log.LogAppendInfo;
import io.brook.storage.log.LogOffsetMetadata;
import io.brook.storage.log.LogReadResult;
import io.brook.storage.log.PartitionLog;
import io.brook.storage.log.ReplicaLog;
import io.brook.storage.producer.VerificationGuard;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.FencedLeaderEpochException;
import org.apache.kafka.common.errors.IneligibleReplicaException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.InvalidUpdateVersionException;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.errors.NewLeaderElectedException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.OffsetMovedToTieredStorageException;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.kafka.common.errors.OperationNotAttemptedException;
import org.apache.kafka.common.errors.PolicyViolationException;
import org.apache.kafka.common.errors.StaleBrokerEpochException;
import org.apache.kafka.common.errors.UnknownLeaderEpochException;
import org.apache.kafka.common.errors.UnknownTopicIdException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * One partition hosted by this broker: its log, its role (leader or follower) as the metadata last
 * said, and, as leader, its followers' progress, its ISR and its high watermark.
 *
 * <p>The high watermark is the smallest log end offset in the ISR. While an ISR change is waiting
 * for the controller, the <em>maximal</em> ISR (the committed one plus any replica being added)
 * counts, so the high watermark never passes a replica that may already be counted as in sync.
 * Acks=all checks {@code min.insync.replicas} against the committed ISR only.
 *
 * <p>Locking: role and ISR changes are {@code synchronized}; appends take only the log's lock; the
 * high watermark moves under {@link #highWatermarkLock}, so it never goes backwards when a produce
 * and a follower fetch raise it at the same time. Waiting operations are told outside both.
 */
public final class Partition {
  private static final Logger log = LoggerFactory.getLogger(Partition.class);

  /** Pause before an ISR change the controller refused or never answered is proposed again. */
  static final long ISR_CHANGE_RETRY_MS = 500;

  private final TopicPartition topicPartition;
  private final Uuid topicId;
  private final int localBrokerId;
  private final ReplicaLog partitionLog;
  private final HighWatermarkListener listener;
  private final ReplicationContext replication;
  private final Object highWatermarkLock = new Object();
  private final AppendLane offLoopAppends = new AppendLane();
  private volatile PartitionState state;
  private volatile Map<Integer, FollowerState> followers = Map.of();
  private volatile List<Integer> maximalIsr;
  private PendingIsrChange pendingIsrChange;
  private long leaderEpochStartOffset;

  /**
   * Until when (the clock's monotonic ms, as every ISR time here) no ISR change is proposed after
   * one the controller refused.
   */
  private long isrChangeRetryAtMs = Long.MIN_VALUE;

  /**
   * When the pending ISR change, which the controller did not answer, is sent again (the clock's
   * monotonic ms); {@code Long.MAX_VALUE} while none waits for that. Read without the lock on every
   * follower fetch.
   */
  private volatile long isrChangeResendAtMs = Long.MAX_VALUE;

  /**
   * Times the pending ISR change was sent: only the first failure and the first retry are logged at
   * WARN and INFO, so a controller that stays away for minutes does not flood the log with a line
   * per partition every retry.
   */
  private int isrChangeAttempts;

  /** Told when a partition moves, to complete the operations waiting on it. */
  public interface HighWatermarkListener {
    /**
     * The high watermark (and with it the last stable offset), the role, the leader epoch or the
     * log itself (truncation) changed: everything waiting on the partition may be satisfied.
     */
    void onProgress(TopicPartition topicPartition);

    /**
     * Only the log end moved (a leader append the followers have not fetched yet): only waits that
     * read up to the log end (follower fetches) may be satisfied.
     */
    default void onLogEndMoved(TopicPartition topicPartition) {
      onProgress(topicPartition);
    }

    /**
     * Only a follower's log start moved (and with it perhaps the low watermark): only waits on the
     * high watermark side (DeleteRecords) may be satisfied, not follower fetches, which never read
     * another replica's log start. (Every follower's first fetch of a partition moves it, so waking
     * the fetches would re-check every other follower's parked fetch once per partition.)
     */
    default void onLowWatermarkMoved(TopicPartition topicPartition) {
      onProgress(topicPartition);
    }
  }

  /**
   * An ISR change sent to the controller whose outcome this leader does not know yet, with the
   * members as sent, so that it can be sent again unchanged.
   */
  private record PendingIsrChange(
      List<Integer> isr,
      List<IsrChangeSender.Member> members,
      int leaderEpoch,
      int partitionEpoch,
      boolean shrink) {}

  public Partition(
      TopicPartition topicPartition,
      Uuid topicId,
      int localBrokerId,
      ReplicaLog partitionLog,
      PartitionState state,
      HighWatermarkListener listener,
      ReplicationContext replication) {
    this.topicPartition = topicPartition;
    this.topicId = topicId;
    this.localBrokerId = localBrokerId;
    this.partitionLog = partitionLog;
    this.listener = listener;
    this.replication = replication;
    this.state = state;
    this.maximalIsr = state.isr();
  }

  public TopicPartition topicPartition() {
    return topicPartition;
  }

  public Uuid topicId() {
    return topicId;
  }

  public ReplicaLog log() {
    return partitionLog;
  }

  public PartitionState state() {
    return state;
  }

  public boolean isLeader() {
    return state.leader() == localBrokerId;
  }

  /** Whether this broker follows a live leader (and should be fetching from it). */
  public boolean isFollower() {
    int leader = state.leader();
    return leader >= 0 && leader != localBrokerId;
  }

  // ---- Metadata ----

  /**
   * Applies the partition's latest metadata. Becoming leader in a new epoch records where the epoch
   * starts (so OffsetForLeaderEpoch and divergence checks answer correctly before the first append)
   * and starts tracking the followers afresh. A state older than one an ISR change already
   * committed is ignored.
   */
  public void applyState(PartitionState newState) {
    synchronized (this) {
      PartitionState old = state;
      if (newState.leaderEpoch() == old.leaderEpoch()
          && newState.partitionEpoch() < old.partitionEpoch()) {
        return;
      }
      state = newState;
      pendingIsrChange = null;
      isrChangeResendAtMs = Long.MAX_VALUE;
      maximalIsr = newState.isr();
      if (newState.leader() != localBrokerId) {
        followers = Map.of();
      } else if (old.leader() != localBrokerId || old.leaderEpoch() != newState.leaderEpoch()) {
        becomeLeader(newState);
      } else {
        trackNewReplicas(newState);
      }
    }
    if (isLeader()) {
      advanceHighWatermark();
    }
    // Waiting produces and fetches learn at once of a new role or leader epoch.
    listener.onProgress(topicPartition);
  }

  /**
   * The broker no longer hosts this partition (its topic was deleted or it moved away): from now on
   * this broker neither leads nor follows it, so appends through a reference still held fail,
   * follower appends are ignored, and operations waiting on it complete at once, acks=all ones with
   * NOT_LEADER_OR_FOLLOWER.
   */
  public void markRemoved() {
    synchronized (this) {
      PartitionState old = state;
      state =
          new PartitionState(
              -1, old.leaderEpoch(), old.partitionEpoch(), old.replicas(), old.isr());
      pendingIsrChange = null;
      isrChangeResendAtMs = Long.MAX_VALUE;
      followers = Map.of();
    }
    listener.onProgress(topicPartition);
  }

  private void becomeLeader(PartitionState newState) {
    try {
      if (partitionLog.latestEpoch().orElse(-1) < newState.leaderEpoch()) {
        partitionLog.assignEpoch(newState.leaderEpoch(), partitionLog.logEndOffset());
      }
    } catch (IOException e) {
      // Takes the log's directory offline, like any other write of it that fails.
      partitionLog.markOffline("recording leader epoch " + newState.leaderEpoch(), e);
    }
    leaderEpochStartOffset = partitionLog.logEndOffset();
    long now = replication.time().hiResClockMs();
    Map<Integer, FollowerState> fresh = new ConcurrentHashMap<>();
    for (int replica : newState.replicas()) {
      if (replica != localBrokerId) {
        fresh.put(
            replica,
            new FollowerState(newState.isr().contains(replica) ? now : FollowerState.NEVER));
      }
    }
    followers = fresh;
    log.atInfo()
        .setMessage("Became leader")
        .addKeyValue("topicPartition", topicPartition)
        .addKeyValue("leaderEpoch", newState.leaderEpoch())
        .addKeyValue("isr", newState.isr())
        .addKeyValue("logEndOffset", leaderEpochStartOffset)
        .addKeyValue("highWatermark", partitionLog.highWatermark())
        .log();
  }

  /** Replicas added by a reassignment get tracked; removed ones are forgotten. */
  private void trackNewReplicas(PartitionState newState) {
    Map<Integer, FollowerState> current = followers;
    Map<Integer, FollowerState> updated = new ConcurrentHashMap<>();
    for (int replica : newState.replicas()) {
      if (replica != localBrokerId) {
        FollowerState existing = current.get(replica);
        updated.put(replica, existing != null ? existing : new FollowerState(FollowerState.NEVER));
      }
    }
    followers = updated;
  }

  // ---- Leader: appends and client checks ----

  /**
   * Checks a client's view of the leader epoch (KIP-320): an older epoch is fenced, a newer one
   * means this broker has not caught up with the metadata yet.
   */
  public void checkLeaderEpoch(Optional<Integer> currentLeaderEpoch) {
    if (currentLeaderEpoch.isEmpty() || currentLeaderEpoch.get() < 0) {
      return;
    }
    int epoch = state.leaderEpoch();
    if (currentLeaderEpoch.get() < epoch) {
      throw new FencedLeaderEpochException(
          "leader epoch " + currentLeaderEpoch.get() + " is older than " + epoch);
    }
    if (currentLeaderEpoch.get() > epoch) {
      throw new UnknownLeaderEpochException(
          "leader epoch " + currentLeaderEpoch.get() + " is newer than " + epoch);
    }
  }

  /**
   * @throws NotLeaderOrFollowerException if this broker does not lead the partition
   * @throws KafkaStorageException if it does but the log's directory failed (as Kafka answers for
   *     an offline partition, whatever the request)
   */
  public void ensureLeader() {
    if (!isLeader()) {
      throw new NotLeaderOrFollowerException(
          "broker " + localBrokerId + " is not the leader of " + topicPartition);
    }
    if (partitionLog.isOffline()) {
      throw new KafkaStorageException("the log of " + topicPartition + " is offline");
    }
  }

  /**
   * Appends a producer's batch as leader. With acks=all the ISR must hold at least {@code
   * min.insync.replicas} replicas, or the write is refused before it touches the log.
   *
   * @throws StorageException for invalid batches or a failed disk
   */
  public LogAppendInfo appendAsLeader(MemoryRecords records, short acks) {
    return appendAsLeader(records, acks, false);
  }

  /**
   * The guard a producer's next transactional batch to this partition must carry (KIP-890): {@link
   * VerificationGuard#SENTINEL} when its transaction is open here already, else one that the
   * coordinator's confirmation lets the append use. {@code baseSequence} is the batch's first
   * sequence and {@code supportsEpochBump} whether the request is of transactions V2.
   *
   * @throws NotLeaderOrFollowerException if this broker does not lead the partition
   */
  public VerificationGuard maybeStartTransactionVerification(
      long producerId, short epoch, int baseSequence, boolean supportsEpochBump) {
    ensureLeader();
    return partitionLog.maybeStartTransactionVerification(
        producerId, epoch, baseSequence, supportsEpochBump);
  }

  /**
   * Like {@link #appendAsLeader(MemoryRecords, short)} for a coordinator: the batches may be
   * control batches (transaction markers) and are written as acks=all, so the min-ISR check
   * applies.
   */
  public LogAppendInfo appendAsCoordinator(MemoryRecords records) {
    return appendAsCoordinator(records, (short) 0);
  }

  /**
   * {@link #appendAsCoordinator(MemoryRecords)} of transaction markers that end transactions of
   * {@code transactionVersion} (WriteTxnMarkers v2): from 2 on, a marker's epoch must be above the
   * producer's epoch here (storage's {@code ProducerStateManager}).
   */
  public LogAppendInfo appendAsCoordinator(MemoryRecords records, short transactionVersion) {
    return appendAsLeader(
        records, (short) -1, true, true, VerificationGuard.NOT_CHECKED, transactionVersion);
  }

  /**
   * {@link #appendAsLeader(MemoryRecords, short)} from a thread that must not block (a Netty event
   * loop). Inline when the append only writes to the page cache and none of this partition's
   * appends is waiting off the loop; otherwise on {@code disk}, behind those earlier appends, so a
   * connection's appends to one partition keep their order.
   *
   * @throws RuntimeException what an inline append throws; an off-loop one fails the stage instead
   */
  public CompletableFuture<LogAppendInfo> appendAsLeader(
      MemoryRecords records, short acks, DiskWork disk) {
    return appendAsLeader(records, acks, disk, VerificationGuard.NOT_CHECKED);
  }

  /**
   * {@link #appendAsLeader(MemoryRecords, short, DiskWork)} carrying a producer's transaction
   * verification guard ({@link #maybeStartTransactionVerification}).
   */
  public CompletableFuture<LogAppendInfo> appendAsLeader(
      MemoryRecords records, short acks, DiskWork disk, VerificationGuard guard) {
    if (offLoopAppends.idle()) {
      LogAppendInfo info = appendAsLeader(records, acks, false, false, guard, (short) 0);
      if (info != null) {
        return CompletableFuture.completedFuture(info);
      }
    }
    // The request's network buffer is released if its connection closes first: off the loop, the
    // append works on its own copy (one per roll or flush, not per produce).
    MemoryRecords copy = ownCopy(records);
    return offLoopAppends.submit(
        () -> appendAsLeader(copy, acks, false, true, guard, (short) 0), disk);
  }

  /**
   * {@link #appendAsCoordinator(MemoryRecords, short)} from an event loop: always on {@code disk}
   * (a marker may write the aborted-transaction index), in order with this partition's other
   * off-loop appends.
   */
  public CompletableFuture<LogAppendInfo> appendAsCoordinator(
      MemoryRecords records, short transactionVersion, DiskWork disk) {
    return offLoopAppends.submit(() -> appendAsCoordinator(records, transactionVersion), disk);
  }

  /** A heap copy of {@code records}, for work that outlives the request's network buffer. */
  public static MemoryRecords ownCopy(MemoryRecords records) {
    ByteBuffer copy = ByteBuffer.allocate(records.sizeInBytes());
    copy.put(records.buffer().duplicate()).flip();
    return MemoryRecords.readableRecords(copy);
  }

  private LogAppendInfo appendAsLeader(MemoryRecords records, short acks, boolean coordinator) {
    return appendAsLeader(
        records, acks, coordinator, true, VerificationGuard.NOT_CHECKED, (short) 0);
  }

  /** Null when {@code mayBlock} is false and the append would wait for the disk. */
  private LogAppendInfo appendAsLeader(
      MemoryRecords records,
      short acks,
      boolean coordinator,
      boolean mayBlock,
      VerificationGuard guard,
      short markerTransactionVersion) {
    PartitionState current = state;
    ensureLeader();
    int minIsr = partitionLog.config().minInSyncReplicas();
    if (acks == -1 && current.isr().size() < minIsr) {
      throw new NotEnoughReplicasException(
          "the ISR of "
              + topicPartition
              + " has "
              + current.isr().size()
              + " replicas, fewer than min.insync.replicas="
              + minIsr);
    }
    LogAppendInfo info;
    if (coordinator) {
      info =
          partitionLog.appendAsCoordinator(
              records, current.leaderEpoch(), markerTransactionVersion);
    } else if (mayBlock) {
      info = partitionLog.appendAsLeader(records, current.leaderEpoch(), guard);
    } else {
      info = partitionLog.appendAsLeaderWithoutBlocking(records, current.leaderEpoch(), guard);
      if (info == null) {
        return null;
      }
    }
    if (advanceHighWatermark()) {
      listener.onProgress(topicPartition);
    } else {
      listener.onLogEndMoved(topicPartition);
    }
    return info;
  }

  /**
   * Where an acks=all write ending at {@code requiredOffset} stands: empty while the high watermark
   * has not reached it; else NONE, or NOT_ENOUGH_REPLICAS_AFTER_APPEND when the ISR shrank below
   * {@code min.insync.replicas} meanwhile, or NOT_LEADER_OR_FOLLOWER when leadership moved.
   */
  public Optional<Errors> acksAllOutcome(long requiredOffset, int leaderEpochAtAppend) {
    PartitionState current = state;
    if (current.leader() != localBrokerId || current.leaderEpoch() != leaderEpochAtAppend) {
      return Optional.of(Errors.NOT_LEADER_OR_FOLLOWER);
    }
    if (partitionLog.isOffline()) {
      // Its log directory failed: the high watermark will not move here again. Answer now, as
      // Kafka does, so the producer retries at the next leader at once instead of holding its
      // batch in flight here until this broker learns of the new leader.
      return Optional.of(Errors.KAFKA_STORAGE_ERROR);
    }
    if (partitionLog.highWatermark() < requiredOffset) {
      return Optional.empty();
    }
    return Optional.of(
        current.isr().size() < partitionLog.config().minInSyncReplicas()
            ? Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND
            : Errors.NONE);
  }

  // ---- Leader: followers, ISR, high watermark ----

  /**
   * A follower's fetch of this leader's log: checks that the follower's log has not diverged (its
   * last fetched epoch must end at or after its fetch offset here), reads from {@code fetchOffset}
   * up to the log end, and records the follower's progress ({@link #updateFollowerFetchState}),
   * which may move the ISR and the high watermark and wake the operations waiting on them.
   *
   * @param followerBrokerEpoch the broker epoch the follower fetched with, -1 if none (KIP-903)
   * @param lastFetchedEpoch the epoch of the last batch the follower has, -1 if none
   * @param minOneBatch read the first batch whole even past {@code maxBytes} (KIP-74)
   * @throws NotLeaderOrFollowerException if this broker does not lead the partition or {@code
   *     replicaId} is not one of its replicas
   */
  public FollowerRead fetchFromFollower(
      int replicaId,
      long followerBrokerEpoch,
      long fetchOffset,
      long followerLogStartOffset,
      int lastFetchedEpoch,
      int maxBytes,
      boolean minOneBatch) {
    ensureLeader();
    if (lastFetchedEpoch >= 0) {
      EpochEndOffset end = partitionLog.endOffsetForEpoch(lastFetchedEpoch);
      if (end.epoch() != lastFetchedEpoch || end.endOffset() < fetchOffset) {
        return new FollowerRead(
            null,
            end,
            partitionLog.highWatermark(),
            partitionLog.lastStableOffset(),
            partitionLog.logStartOffset());
      }
    }
    if (fetchOffset < partitionLog.logStartOffset()
        && partitionLog.config().remoteStorageEnable()) {
      // KIP-405: a follower never reads remote data through the leader; it starts at this log's
      // start (sent with the error) with the state below it rebuilt from remote storage.
      throw new OffsetMovedToTieredStorageException(
          "offset " + fetchOffset + " of " + topicPartition + " is in remote storage");
    }
    long leaderEnd = partitionLog.logEndOffset();
    LogReadResult result = partitionLog.read(fetchOffset, maxBytes, leaderEnd, minOneBatch);
    if (!updateFollowerFetchState(
        replicaId, fetchOffset, followerLogStartOffset, leaderEnd, followerBrokerEpoch)) {
      throw new NotLeaderOrFollowerException(
          "broker " + replicaId + " is not a replica of " + topicPartition);
    }
    return new FollowerRead(
        result,
        null,
        partitionLog.highWatermark(),
        partitionLog.lastStableOffset(),
        result.logStartOffset());
  }

  /**
   * A follower's fetch of a partition it did not list in its incremental fetch request, so at the
   * offset, leader epoch and log start its session holds: when that offset is this leader's log end
   * (nothing to send), this broker still leads in the follower's leader epoch and the follower is
   * in the ISR, records the fetch as {@link #fetchFromFollower} would (the follower is caught up
   * now) and returns the log end, from which a parked fetch counts new bytes. Nothing else of that
   * read is needed: no records, no divergence check (the epoch is unchanged), no ISR expansion (it
   * is in), and the high watermark cannot move (this follower's log end did not).
   *
   * @param currentLeaderEpoch the leader epoch the follower's session holds, -1 if none
   * @return the log end, or null when the partition must be read in full
   */
  public LogOffsetMetadata fetchFromQuietFollower(
      int replicaId,
      long followerBrokerEpoch,
      long fetchOffset,
      long followerLogStartOffset,
      int currentLeaderEpoch) {
    PartitionState current = state;
    if (current.leader() != localBrokerId
        || (currentLeaderEpoch >= 0 && currentLeaderEpoch != current.leaderEpoch())
        || !current.isr().contains(replicaId)) {
      return null;
    }
    FollowerState follower = followers.get(replicaId);
    LogOffsetMetadata end = partitionLog.logEndOffsetMetadata();
    if (follower == null || end.messageOffset() != fetchOffset) {
      return null;
    }
    long now = replication.time().hiResClockMs();
    if (follower.onFetch(
        fetchOffset, followerLogStartOffset, fetchOffset, now, followerBrokerEpoch)) {
      listener.onLowWatermarkMoved(topicPartition);
    }
    return end;
  }

  /**
   * A follower's fetch from {@code fetchOffset}, which is its log end offset, while this leader's
   * log ended at {@code leaderLogEndOffset}: updates its progress, may propose adding it to the
   * ISR, and may advance the high watermark.
   *
   * @return false if {@code replicaId} is not a replica of this partition (the fetch is refused)
   */
  public boolean updateFollowerFetchState(
      int replicaId,
      long fetchOffset,
      long followerLogStartOffset,
      long leaderLogEndOffset,
      long followerBrokerEpoch) {
    FollowerState follower = followers.get(replicaId);
    if (follower == null) {
      return false;
    }
    long now = replication.time().hiResClockMs();
    boolean startMoved =
        follower.onFetch(
            fetchOffset, followerLogStartOffset, leaderLogEndOffset, now, followerBrokerEpoch);
    if (now >= isrChangeResendAtMs) {
      maybeResendIsrChange(now);
    } else if (!maximalIsr.contains(replicaId)) {
      maybeExpandIsr(replicaId, follower, now);
    }
    maybeIncrementHighWatermark();
    if (startMoved) {
      listener.onLowWatermarkMoved(topicPartition); // the low watermark a DeleteRecords waits for
    }
    return true;
  }

  /**
   * DeleteRecords on the leader: moves the log start offset to {@code offset} (or the high
   * watermark for -1); records below it become unreadable at once, and fetches parked below it are
   * answered (OFFSET_OUT_OF_RANGE). Followers follow on their next fetch ({@link #lowWatermark}).
   *
   * @return the log start offset after the call
   * @throws PolicyViolationException if the topic's {@code cleanup.policy} lacks {@code delete}
   * @throws OffsetOutOfRangeException if {@code offset} is above the high watermark
   */
  public long deleteRecordsBefore(long offset) {
    long start;
    synchronized (this) {
      ensureLeader();
      if (!partitionLog.config().deletes()) {
        throw new PolicyViolationException(
            "records of " + topicPartition + " cannot be deleted: its cleanup.policy is compact");
      }
      long highWatermark = partitionLog.highWatermark();
      long target = offset == -1 ? highWatermark : offset;
      if (target < 0 || target > highWatermark) {
        throw new OffsetOutOfRangeException(
            "cannot delete records of "
                + topicPartition
                + " before "
                + offset
                + ": the high watermark is "
                + highWatermark);
      }
      partitionLog.maybeIncrementLogStartOffset(target);
      start = partitionLog.logStartOffset();
    }
    listener.onProgress(topicPartition);
    return start;
  }

  /**
   * The smallest log start offset over this leader and the followers whose brokers are registered
   * and unfenced (Kafka's low watermark): a DeleteRecords is done once it reaches the new start. A
   * live follower that has not fetched yet counts as -1.
   */
  public long lowWatermark() {
    long low = partitionLog.logStartOffset();
    for (var entry : followers.entrySet()) {
      if (replication.isrEligible().test(entry.getKey())) {
        low = Math.min(low, entry.getValue().logStartOffset());
      }
    }
    return low;
  }

  /**
   * Proposes adding a follower that has caught up: its log reaches the high watermark and the start
   * of this leader's epoch, and the metadata says its broker is unfenced.
   */
  private synchronized void maybeExpandIsr(int replicaId, FollowerState follower, long now) {
    if (!isLeader() || pendingIsrChange != null || now < isrChangeRetryAtMs) {
      return;
    }
    long followerEnd = follower.logEndOffset();
    // A follower without a broker epoch has not registered yet (it restarted and fetches before
    // its registration): what the metadata says about its broker is about its previous life. With
    // an epoch, the controller checks it against the registration (KIP-903).
    if (followerEnd < partitionLog.highWatermark()
        || followerEnd < leaderEpochStartOffset
        || follower.brokerEpoch() < 0
        || !replication.isrEligible().test(replicaId)
        || state.isr().contains(replicaId)) {
      return;
    }
    List<Integer> isr = new ArrayList<>(state.isr());
    isr.add(replicaId);
    proposeIsr(isr, "expand", now);
  }

  /**
   * Proposes removing the followers that have not caught up within {@code replica.lag.time.max.ms}.
   * Called periodically on every leader partition.
   */
  public synchronized void maybeShrinkIsr() {
    long now = replication.time().hiResClockMs();
    if (!isLeader() || pendingIsrChange != null) {
      maybeResendIsrChange(now);
      return;
    }
    if (now < isrChangeRetryAtMs) {
      return;
    }
    PartitionState current = state;
    long leaderEnd = partitionLog.logEndOffset();
    List<Integer> kept = new ArrayList<>(current.isr().size());
    for (int replica : current.isr()) {
      FollowerState follower = followers.get(replica);
      boolean inSync =
          replica == localBrokerId
              || (follower != null
                  && (follower.logEndOffset() >= leaderEnd
                      || follower.caughtUpWithin(now, replication.replicaLagTimeMaxMs())));
      if (inSync) {
        kept.add(replica);
      }
    }
    if (kept.size() < current.isr().size()) {
      proposeIsr(kept, "shrink", now);
    }
  }

  private void proposeIsr(List<Integer> isr, String kind, long now) {
    PartitionState current = state;
    List<IsrChangeSender.Member> members = new ArrayList<>(isr.size());
    for (int replica : isr) {
      FollowerState follower = followers.get(replica);
      members.add(
          new IsrChangeSender.Member(replica, follower == null ? -1 : follower.brokerEpoch()));
    }
    PendingIsrChange pending =
        new PendingIsrChange(
            List.copyOf(isr),
            List.copyOf(members),
            current.leaderEpoch(),
            current.partitionEpoch(),
            isr.size() < current.isr().size());
    pendingIsrChange = pending;
    isrChangeAttempts = 1;
    LinkedHashSet<Integer> maximal = new LinkedHashSet<>(current.isr());
    maximal.addAll(isr);
    maximalIsr = List.copyOf(maximal);
    log.info(
        "Proposing ISR {} topicPartition={} leaderEpoch={} partitionEpoch={} isr={} newIsr={}"
            + " leaderLogEndOffset={} followerLag={}",
        kind,
        topicPartition,
        current.leaderEpoch(),
        current.partitionEpoch(),
        current.isr(),
        isr,
        partitionLog.logEndOffset(),
        followerLag());
    send(pending);
  }

  private void send(PendingIsrChange pending) {
    replication
        .isrChanges()
        .alterIsr(
            topicId,
            topicPartition.partition(),
            pending.leaderEpoch(),
            pending.partitionEpoch(),
            pending.members())
        .whenComplete((committed, failure) -> onIsrChangeResult(pending, committed, failure));
  }

  /**
   * Sends the pending ISR change again, unchanged, once the pause after the controller left it
   * unanswered is over. If the first one was applied, the controller answers the retry with the
   * partition's current state; if not, it decides now.
   */
  private synchronized void maybeResendIsrChange(long now) {
    PendingIsrChange pending = pendingIsrChange;
    if (pending == null || now < isrChangeResendAtMs || !isLeader()) {
      return;
    }
    isrChangeResendAtMs = Long.MAX_VALUE;
    isrChangeAttempts++;
    log.atLevel(isrChangeAttempts == 2 ? Level.INFO : Level.DEBUG)
        .setMessage("Sending an unanswered ISR change again")
        .addKeyValue("topicPartition", topicPartition)
        .addKeyValue("leaderEpoch", pending.leaderEpoch())
        .addKeyValue("partitionEpoch", pending.partitionEpoch())
        .addKeyValue("newIsr", pending.isr())
        .addKeyValue("attempt", isrChangeAttempts)
        .log();
    send(pending);
  }

  /** What a failed ISR change tells this leader about whether the controller applied it. */
  private enum IsrChangeFailure {
    /**
     * The controller checked it at the partition epoch it was sent with and did not apply it (or it
     * was never sent): an earlier attempt cannot have been applied either, or the epoch would have
     * moved.
     */
    NOT_APPLIED,
    /**
     * Answered, but this leader's view is behind (another ISR, leader epoch or registration): an
     * earlier attempt may have been applied, and the metadata on its way says what holds.
     */
    STALE_VIEW,
    /** No answer (a timeout, a lost connection, not the active controller): anything may hold. */
    UNANSWERED;

    static IsrChangeFailure of(Throwable failure) {
      Throwable cause =
          failure instanceof CompletionException && failure.getCause() != null
              ? failure.getCause()
              : failure;
      if (cause instanceof OperationNotAttemptedException
          || cause instanceof IneligibleReplicaException
          || cause instanceof UnsupportedOperationException) {
        return NOT_APPLIED;
      }
      if (cause instanceof InvalidUpdateVersionException
          || cause instanceof FencedLeaderEpochException
          || cause instanceof NewLeaderElectedException
          || cause instanceof StaleBrokerEpochException
          || cause instanceof InvalidRequestException
          || cause instanceof UnknownTopicOrPartitionException
          || cause instanceof UnknownTopicIdException) {
        return STALE_VIEW;
      }
      return UNANSWERED;
    }
  }

  private void onIsrChangeResult(
      PendingIsrChange pending, PartitionState committed, Throwable failure) {
    // Counted by the controller's answer, even when the metadata brought the change first.
    ReplicationMetrics metrics = replication.metrics();
    if (failure != null) {
      metrics.isrUpdateFailed();
    } else if (pending.shrink()) {
      metrics.isrShrunk();
    } else {
      metrics.isrExpanded();
    }
    synchronized (this) {
      if (pendingIsrChange != pending) {
        return; // superseded by newer metadata
      }
      PartitionState current = state;
      if (failure != null) {
        long now = replication.time().hiResClockMs();
        IsrChangeFailure kind = IsrChangeFailure.of(failure);
        if (kind == IsrChangeFailure.NOT_APPLIED) {
          pendingIsrChange = null;
          maximalIsr = current.isr();
          isrChangeRetryAtMs = now + ISR_CHANGE_RETRY_MS;
          log.warn(
              "ISR change refused topicPartition={} newIsr={} error={}",
              topicPartition,
              pending.isr(),
              failure.toString());
          return;
        }
        // The change may have been committed. Falling back to the ISR this leader last knew would
        // let it acknowledge writes that a member it added never got, and the controller may
        // elect that member next. So the change stays pending, the high watermark keeps counting
        // every member of the old ISR and the new one, and no other change is proposed, until
        // the metadata brings the partition's state or a retry is answered.
        if (kind == IsrChangeFailure.UNANSWERED) {
          isrChangeResendAtMs = now + ISR_CHANGE_RETRY_MS;
        }
        log.atLevel(isrChangeAttempts == 1 ? Level.WARN : Level.DEBUG)
            .setMessage(
                "ISR change not confirmed, kept pending until the controller or the metadata"
                    + " answers")
            .addKeyValue("topicPartition", topicPartition)
            .addKeyValue("newIsr", pending.isr())
            .addKeyValue("highWatermarkIsr", maximalIsr)
            .addKeyValue("error", failure.toString())
            .addKeyValue(
                "sentAgainInMs", kind == IsrChangeFailure.UNANSWERED ? ISR_CHANGE_RETRY_MS : -1)
            .log();
        return;
      }
      pendingIsrChange = null;
      if (committed.leaderEpoch() == current.leaderEpoch()
          && committed.partitionEpoch() > current.partitionEpoch()) {
        state =
            new PartitionState(
                current.leader(),
                current.leaderEpoch(),
                committed.partitionEpoch(),
                current.replicas(),
                committed.isr());
        log.atInfo()
            .setMessage("ISR changed")
            .addKeyValue("topicPartition", topicPartition)
            .addKeyValue("isr", committed.isr())
            .addKeyValue("partitionEpoch", committed.partitionEpoch())
            .log();
      }
      maximalIsr = state.isr();
    }
    maybeIncrementHighWatermark();
  }

  /**
   * Moves the high watermark to the smallest log end offset in the (maximal) ISR and, if it moved,
   * tells the waiting operations. A follower's fetch or an ISR change moves nothing else, so when
   * the high watermark stays nobody is told.
   */
  public void maybeIncrementHighWatermark() {
    if (advanceHighWatermark()) {
      listener.onProgress(topicPartition);
    }
  }

  /** The high watermark step alone; true if it moved. The caller tells the listener. */
  private boolean advanceHighWatermark() {
    if (state.leader() != localBrokerId) {
      return false;
    }
    PartitionState now = state;
    // Strict min ISR (KIP-966): nothing commits below min ISR, so every replica that leaves the
    // ISR then holds all committed records and may lead as an eligible leader replica. A min ISR
    // above the replication factor counts as the factor, as in Kafka.
    if (now.isr().size()
        < Math.min(partitionLog.config().minInSyncReplicas(), now.replicas().size())) {
      return false;
    }
    synchronized (highWatermarkLock) {
      long candidate = partitionLog.logEndOffset();
      Map<Integer, FollowerState> current = followers;
      for (int replica : maximalIsr) {
        if (replica != localBrokerId) {
          FollowerState follower = current.get(replica);
          candidate = Math.min(candidate, follower == null ? -1 : follower.logEndOffset());
        }
      }
      if (candidate > partitionLog.highWatermark()) {
        partitionLog.updateHighWatermark(candidate);
        return true;
      }
      return false;
    }
  }

  /** The in-sync replicas counted for the high watermark right now (for tests and metrics). */
  public List<Integer> maximalIsr() {
    return maximalIsr;
  }

  /**
   * Each follower's lag in offsets behind this leader's log end, as of its last fetch (-1 before
   * its first), for the ISR change log lines: {@code {2=0, 3=1500}}.
   */
  private Map<Integer, Long> followerLag() {
    long leaderEnd = partitionLog.logEndOffset();
    Map<Integer, Long> lag = new TreeMap<>();
    followers.forEach(
        (replica, follower) ->
            lag.put(
                replica,
                follower.logEndOffset() < 0
                    ? -1
                    : Math.max(0, leaderEnd - follower.logEndOffset())));
    return lag;
  }

  /** A follower's log end offset as the leader knows it, or -1. */
  public long followerLogEndOffset(int replicaId) {
    FollowerState follower = followers.get(replicaId);
    return follower == null ? -1 : follower.logEndOffset();
  }

  // ---- Follower ----

  /**
   * Appends batches fetched from the leader and takes the leader's high watermark and log start
   * offset, as far as this log reaches. Ignored if this broker became leader meanwhile.
   */
  public void appendAsFollower(
      MemoryRecords records, long leaderHighWatermark, long leaderLogStartOffset) {
    // Under the partition's lock, so becoming leader never interleaves with a follower append.
    synchronized (this) {
      if (!isFollower()) {
        return;
      }
      if (records.sizeInBytes() > 0) {
        partitionLog.appendAsFollower(records);
      }
      long highWatermark = Math.min(leaderHighWatermark, partitionLog.logEndOffset());
      if (highWatermark > partitionLog.highWatermark()) {
        partitionLog.updateHighWatermark(highWatermark);
      }
      long newStart = Math.min(leaderLogStartOffset, partitionLog.highWatermark());
      if (newStart > partitionLog.logStartOffset()) {
        partitionLog.maybeIncrementLogStartOffset(newStart);
      }
    }
    listener.onProgress(topicPartition);
  }

  /**
   * Drops this follower's log from {@code offset} on: the tail the leader does not have (found
   * through leader epochs), which was never committed. An offset at or past the log end still drops
   * the leader epochs recorded at the log end without a record ({@link ReplicaLog#truncateTo}): the
   * epoch of a leadership this broker held without writing in it.
   */
  public void truncateAsFollower(long offset) {
    synchronized (this) {
      if (!isFollower()) {
        return;
      }
      if (offset >= partitionLog.logEndOffset()) {
        partitionLog.truncateTo(offset);
        return;
      }
      log.info(
          "Truncating diverged tail topicPartition={} offset={} logEndOffset={} highWatermark={}",
          topicPartition,
          offset,
          partitionLog.logEndOffset(),
          partitionLog.highWatermark());
      partitionLog.truncateTo(offset);
    }
    // Consumers parked on this follower (KIP-392) re-check their positions against the new log.
    listener.onProgress(topicPartition);
  }

  /** Starts this follower's log afresh at {@code offset}: it is behind the leader's log start. */
  public void restartAsFollowerAt(long offset) {
    synchronized (this) {
      if (!isFollower()) {
        return;
      }
      log.info(
          "Follower behind the leader's log start, starting over topicPartition={} offset={}",
          topicPartition,
          offset);
      partitionLog.truncateFullyAndStartAt(offset);
    }
    listener.onProgress(topicPartition);
  }

  /**
   * Starts this follower's log afresh at the leader's local log start {@code offset}, with the
   * leader epochs and producer state of the records below it rebuilt from remote storage (the
   * leader answered OFFSET_MOVED_TO_TIERED_STORAGE). Blocks on the remote store.
   */
  public void restartAsFollowerFromTier(long offset, TieredFollowerStart start) {
    synchronized (this) {
      if (!isFollower() || offset < 0 || !(partitionLog instanceof PartitionLog local)) {
        return;
      }
      log.info(
          "Follower below the leader's local log start, starting over from remote state"
              + " topicPartition={} offset={}",
          topicPartition,
          offset);
      try {
        start.startAt(local, offset);
      } catch (IOException e) {
        throw new KafkaStorageException(
            "reading remote state of " + topicPartition + " to start at " + offset, e);
      }
    }
    listener.onProgress(topicPartition);
  }

  @Override
  public String toString() {
    return "Partition(" + topicPartition + ", " + state + ")";
  }
}
