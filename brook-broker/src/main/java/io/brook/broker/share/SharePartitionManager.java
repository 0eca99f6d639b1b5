package io.brook.broker.share;

import io.brook.broker.replica.Partition;
import io.brook.broker.replica.ReplicaManager;
import io.brook.broker.time.Scheduler;
import java.io.Closeable;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ShareSessionLimitReachedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The share-partitions this broker leads and the share sessions of the consumers that fetch them.
 *
 * <p>A share-partition is created by the first ShareFetch of its group at this leader, starting at
 * the high watermark ({@code share.auto.offset.reset} latest) or the log start (earliest). Its
 * state is in memory only: it does not survive a restart or a leadership move (a new leader starts
 * the group over at the reset offset), and it is dropped when this broker stops leading the
 * partition. A periodic task on the broker's scheduler (never a network thread) releases expired
 * acquisition locks, drops idle sessions and stale share-partitions, and wakes the fetches waiting
 * on a partition whose records became available again.
 */
public final class SharePartitionManager implements Closeable {
  private static final Logger log = LoggerFactory.getLogger(SharePartitionManager.class);

  /**
   * The most share-partitions one broker keeps (groups times partitions); beyond, a fetch for a new
   * one is answered SHARE_SESSION_LIMIT_REACHED. Each costs a few hundred bytes plus its window.
   */
  static final int MAX_SHARE_PARTITIONS = 100_000;

  /** A group's share-partition of {@code topicPartition}. */
  record Key(String groupId, TopicPartition topicPartition) {}

  /** The state and the leader epoch it was created in: a later epoch starts over. */
  private record Entry(SharePartition state, int leaderEpoch) {}

  private final ReplicaManager replicaManager;
  private final ShareLimits limits;
  private final LongSupplier clock;
  private final ShareSessions sessions;
  private final Map<Key, Entry> partitions = new ConcurrentHashMap<>();
  private volatile Scheduler.Task sweep;

  public SharePartitionManager(
      ReplicaManager replicaManager, ShareLimits limits, LongSupplier clock) {
    this.replicaManager = replicaManager;
    this.limits = limits;
    this.clock = clock;
    this.sessions = new ShareSessions(limits.maxShareSessions());
  }

  public ShareLimits limits() {
    return limits;
  }

  public ShareSessions sessions() {
    return sessions;
  }

  long nowMs() {
    return clock.getAsLong();
  }

  ReplicaManager replicaManager() {
    return replicaManager;
  }

  /** Starts the periodic sweep: a tenth of the lock duration, between 20 ms and 1 s. */
  public void start(Scheduler scheduler) {
    long period = Math.max(20, Math.min(1_000, limits.recordLockDurationMs() / 10));
    sweep = scheduler.schedulePeriodic("share-partition-sweep", this::sweep, period, period);
  }

  /**
   * The group's share-partition of a partition this broker leads, created at the reset offset if
   * new (or if it was made under an older leader epoch).
   *
   * @throws ShareSessionLimitReachedException if the broker keeps its maximum of share-partitions
   */
  SharePartition sharePartition(String groupId, Partition partition) {
    int epoch = partition.state().leaderEpoch();
    Key key = new Key(groupId, partition.topicPartition());
    Entry entry = partitions.get(key);
    if (entry != null && entry.leaderEpoch() == epoch) {
      return entry.state();
    }
    if (entry == null && partitions.size() >= MAX_SHARE_PARTITIONS) {
      throw new ShareSessionLimitReachedException(
          "This broker keeps its maximum of " + MAX_SHARE_PARTITIONS + " share-partitions.");
    }
    return partitions
        .compute(
            key,
            (k, existing) -> {
              if (existing != null && existing.leaderEpoch() == epoch) {
                return existing;
              }
              long start =
                  limits.earliest()
                      ? partition.log().logStartOffset()
                      : partition.log().highWatermark();
              log.info(
                  "Share-partition started groupId={} topicPartition={} startOffset={}",
                  groupId,
                  k.topicPartition(),
                  start);
              return new Entry(new SharePartition(start, limits, clock), epoch);
            })
        .state();
  }

  /** The group's existing share-partition, if this broker keeps one. */
  Optional<SharePartition> existing(String groupId, TopicPartition tp) {
    return Optional.ofNullable(partitions.get(new Key(groupId, tp))).map(Entry::state);
  }

  /**
   * Releases what {@code memberId} holds in {@code topicPartitions} (its session closed) and wakes
   * the fetches waiting on them.
   */
  void release(String groupId, String memberId, Set<TopicPartition> topicPartitions) {
    for (TopicPartition tp : topicPartitions) {
      Optional<SharePartition> state = existing(groupId, tp);
      if (state.isPresent() && state.get().releaseAll(memberId) > 0) {
        replicaManager.delayedOperations().onProgress(tp);
      }
    }
  }

  /** A client connection closed: its sessions end and their records are released. */
  public void onConnectionClosed(String connectionId) {
    for (ShareSessions.Session session : sessions.removeConnection(connectionId)) {
      releaseSession(session);
    }
  }

  private void releaseSession(ShareSessions.Session session) {
    Set<TopicPartition> tps = new HashSet<>();
    for (ShareSessions.SessionPartition p : ShareSessions.partitionsOf(session)) {
      replicaManager
          .image()
          .topic(p.topicId())
          .ifPresent(t -> tps.add(new TopicPartition(t.name(), p.partition())));
    }
    release(session.key().groupId(), session.key().memberId(), tps);
  }

  /**
   * Releases expired locks, drops idle sessions and share-partitions this broker no longer leads.
   */
  void sweep() {
    try {
      for (ShareSessions.Session session : sessions.removeIdle(nowMs(), limits.sessionIdleMs())) {
        log.info(
            "Share session idle, closing groupId={} memberId={}",
            session.key().groupId(),
            session.key().memberId());
        releaseSession(session);
      }
      for (Map.Entry<Key, Entry> e : partitions.entrySet()) {
        TopicPartition tp = e.getKey().topicPartition();
        Optional<Partition> partition = replicaManager.partition(tp);
        if (partition.isEmpty()
            || !partition.get().isLeader()
            || partition.get().state().leaderEpoch() != e.getValue().leaderEpoch()) {
          partitions.remove(e.getKey(), e.getValue());
          continue;
        }
        SharePartition state = e.getValue().state();
        state.moveStartTo(partition.get().log().logStartOffset());
        if (state.expireLocks() > 0) {
          replicaManager.delayedOperations().onProgress(tp);
        }
      }
    } catch (RuntimeException ex) {
      log.warn("Share-partition sweep failed", ex);
    }
  }

  /** Share-partitions kept, for tests and metrics. */
  public int size() {
    return partitions.size();
  }

  /** Fetch and acknowledge both need these; package-private helpers for the handlers. */
  static Set<TopicPartition> topicPartitions(
      ReplicaManager replicaManager, List<ShareSessions.SessionPartition> partitions) {
    Set<TopicPartition> tps = new HashSet<>();
    for (ShareSessions.SessionPartition p : partitions) {
      replicaManager
          .image()
          .topic(p.topicId())
          .ifPresent(t -> tps.add(new TopicPartition(t.name(), p.partition())));
    }
    return tps;
  }

  @Override
  public void close() {
    Scheduler.Task task = sweep;
    if (task != null) {
      task.cancel();
    }
  }
}
