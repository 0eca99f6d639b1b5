package io.brook.broker.share;

import io.brook.broker.replica.Partition;
import io.brook.broker.replica.ReplicaManager;
import io.brook.broker.time.Scheduler;
import io.brook.storage.log.LogReadResult;
import io.brook.storage.log.ReplicaLog;
import java.io.Closeable;
import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.ShareSessionLimitReachedException;
import org.apache.kafka.common.errors.UnknownTopicIdException;
import org.apache.kafka.common.message.ReadShareGroupStateResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The share-partitions this broker leads and the share sessions of the consumers that fetch them.
 *
 * <p>A share-partition is created by the first ShareFetch of its group at this leader. With a
 * {@link ShareStatePersister} its state is durable: it is first read from the share coordinator
 * (the fetch acquires nothing meanwhile and waits, woken when the state is there); a
 * share-partition the coordinator never saw is initialized there at the high watermark ({@code
 * share.auto.offset.reset} latest) or the log start (earliest). Every change of its durable state
 * (acknowledgements, released records, expired locks, a start offset moved by retention) is written
 * back, coalesced per share-partition ({@link ShareEntry}); an acknowledgement is answered once its
 * write is done. A leader of a later epoch reads the state again, so after a restart or a
 * leadership move acknowledged records stay done and everything else is delivered again with its
 * delivery count. Without a persister (tests) the state lives in memory only and starts over with
 * each leader epoch.
 *
 * <p>With a persister, a group's share-partitions leave memory once no member of the group has a
 * session here, and one whose write is refused with FENCED_STATE_EPOCH leaves at once: the group's
 * state may have been reset or deleted by the share-group admin APIs, and the next fetch reads it
 * again.
 *
 * <p>A periodic task on the broker's scheduler (never a network thread) releases expired
 * acquisition locks, drops idle sessions and share-partitions this broker no longer leads, retries
 * failed writes, and wakes the fetches waiting on a partition whose records became available again
 * (a lock expired, a redelivery backoff ended). Loads complete on the scheduler too, not on the
 * network thread that brought the answer.
 *
 * <p><b>Dead letters</b>: a record a share-partition owes its group's dead-letter topic is written
 * there ({@link ShareDeadLetters}) only after a write of the state that says it is owed succeeded,
 * and archived (written again) only after it is in the topic. A failed attempt is retried by the
 * sweep, looking for the record in the topic first. So after any crash the durable state says the
 * record is in flight (it was never written), owed (written or not: checked), or archived (written
 * once).
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

  /** How long after a failed load (the share coordinator could not answer) it is tried again. */
  static final long LOAD_RETRY_MS = 500;

  private final ReplicaManager replicaManager;
  private final ShareLimits limits;
  private final LongSupplier clock;
  private final ShareStatePersister persister;
  private final ShareDeadLetters deadLetters;
  private final ShareSessions sessions;
  private final Map<Key, ShareEntry> partitions = new ConcurrentHashMap<>();

  /**
   * The last writes of share-partitions that left memory, still in flight: reading one again waits
   * for its write, so it reads what was written.
   */
  private final Map<Key, CompletableFuture<Void>> draining = new ConcurrentHashMap<>();

  private final Map<String, ShareGroupStats> stats = new ConcurrentHashMap<>();
  private volatile Scheduler scheduler;
  private volatile Scheduler.Task sweep;

  /** Share-partitions in memory only (they start over with every leader epoch). */
  public SharePartitionManager(
      ReplicaManager replicaManager, ShareLimits limits, LongSupplier clock) {
    this(replicaManager, limits, clock, null, null);
  }

  /**
   * Share-partitions kept durable through the share coordinator.
   *
   * @param clock milliseconds of a monotonic clock ({@code Time.hiResClockMs}): acquisition locks,
   *     session idleness and retries are durations, which a wall clock stepped back would stretch
   *     and one stepped forward would cut short (releasing records a live consumer holds); the
   *     dead-letter records' timestamps are wall clock
   * @param persister reads and writes the share coordinator's state (closed with the manager), or
   *     null to keep share-partitions in memory only
   * @param deadLetters writes to groups' dead-letter topics (closed with the manager), or null to
   *     keep records owed to one until there is
   */
  public SharePartitionManager(
      ReplicaManager replicaManager,
      ShareLimits limits,
      LongSupplier clock,
      ShareStatePersister persister,
      ShareDeadLetters deadLetters) {
    this.replicaManager = replicaManager;
    this.limits = limits;
    this.clock = clock;
    this.persister = persister;
    this.deadLetters = deadLetters;
    this.sessions = new ShareSessions(limits.maxShareSessions());
  }

  /** A group's overrides and what they parsed to, so a fetch does not parse them again. */
  private record ParsedConfig(Map<String, String> overrides, ShareGroupConfig config) {}

  private final Map<String, ParsedConfig> groupConfigs = new ConcurrentHashMap<>();

  /** A group's configs as this broker's metadata has them now. */
  ShareGroupConfig groupConfig(String groupId) {
    Map<String, String> overrides =
        replicaManager.image().configs(ConfigResource.Type.GROUP, groupId);
    ParsedConfig cached = groupConfigs.get(groupId);
    if (cached != null && cached.overrides().equals(overrides)) {
      return cached.config();
    }
    ShareGroupConfig parsed = ShareGroupConfig.of(overrides);
    if (groupConfigs.size() < MAX_SHARE_PARTITIONS) {
      groupConfigs.put(groupId, new ParsedConfig(Map.copyOf(overrides), parsed));
    }
    return parsed;
  }

  /**
   * The group's acquisition lock duration (its {@code share.record.lock.duration.ms}, else the
   * broker's), as ShareFetch and ShareAcknowledge answers tell the consumer.
   */
  public int recordLockDurationMs(String groupId) {
    return groupId == null || groupId.isEmpty()
        ? limits.recordLockDurationMs()
        : groupConfig(groupId).recordLockDurationMs(limits);
  }

  /** The group's counters at this broker. */
  public ShareGroupStats stats(String groupId) {
    return stats.computeIfAbsent(groupId, g -> new ShareGroupStats());
  }

  private SharePartition newState(String groupId, long startOffset) {
    return new SharePartition(
        startOffset, limits, clock, () -> groupConfig(groupId), stats(groupId));
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
    this.scheduler = scheduler;
    long period = Math.max(20, Math.min(1_000, limits.recordLockDurationMs() / 10));
    sweep = scheduler.schedulePeriodic("share-partition-sweep", this::sweep, period, period);
  }

  /**
   * The group's share-partition of a partition this broker leads, created if new (or if it was made
   * under an older leader epoch).
   *
   * @return the state, or null while it is being read from the share coordinator (the load is
   *     started or retried here; the partition's waiting fetches are woken when it completes)
   * @throws ShareSessionLimitReachedException if the broker keeps its maximum of share-partitions
   */
  SharePartition sharePartition(String groupId, Partition partition) {
    int epoch = partition.state().leaderEpoch();
    Key key = new Key(groupId, partition.topicPartition());
    ShareEntry entry = partitions.get(key);
    if (entry == null || entry.leaderEpoch() != epoch) {
      if (entry == null && partitions.size() >= MAX_SHARE_PARTITIONS) {
        throw new ShareSessionLimitReachedException(
            "This broker keeps its maximum of " + MAX_SHARE_PARTITIONS + " share-partitions.");
      }
      entry =
          partitions.compute(
              key,
              (k, existing) ->
                  existing != null && existing.leaderEpoch() == epoch
                      ? existing
                      : newEntry(groupId, partition, epoch));
    }
    SharePartition state = entry.state();
    if (state == null) {
      load(key, entry, partition);
    }
    return state;
  }

  private ShareEntry newEntry(String groupId, Partition partition, int epoch) {
    TopicPartition tp = partition.topicPartition();
    Uuid topicId =
        replicaManager
            .image()
            .topic(tp.topic())
            .map(t -> t.id())
            .orElseThrow(() -> new UnknownTopicIdException("no topic id for " + tp.topic()));
    ShareEntry entry = new ShareEntry(groupId, topicId, tp.partition(), epoch);
    if (persister == null) {
      long start = resetOffset(groupId, partition);
      log.info(
          "Share-partition started groupId={} topicPartition={} startOffset={}",
          groupId,
          tp,
          start);
      entry.loaded(newState(groupId, start), 0);
    }
    return entry;
  }

  /**
   * Where the group starts on a partition it has no state for, per its {@code
   * share.auto.offset.reset} (else the broker's): the high watermark, the log start, or the first
   * record at most the duration old (the high watermark when there is none).
   */
  long resetOffset(String groupId, Partition partition) {
    ReplicaLog replicaLog = partition.log();
    ShareAutoOffsetReset reset = groupConfig(groupId).autoOffsetReset(limits);
    return switch (reset.kind()) {
      case EARLIEST -> replicaLog.logStartOffset();
      case LATEST -> replicaLog.highWatermark();
      case BY_DURATION -> {
        long highWatermark = replicaLog.highWatermark();
        long since = nowMs() - reset.duration().toMillis();
        yield replicaLog
            .offsetForTimestamp(since, highWatermark)
            .map(found -> Math.max(found.offset, replicaLog.logStartOffset()))
            .filter(offset -> offset < highWatermark)
            .orElse(highWatermark);
      }
    };
  }

  /**
   * Reads the share-partition's state from the share coordinator, initializing it there at the
   * reset offset when the coordinator never saw it.
   */
  private void load(Key key, ShareEntry entry, Partition partition) {
    if (persister == null || !entry.startLoad(nowMs())) {
      return;
    }
    TopicPartition tp = key.topicPartition();
    draining
        .getOrDefault(key, CompletableFuture.completedFuture(null))
        .thenCompose(
            drained ->
                persister.read(
                    entry.groupId(), entry.topicId(), tp.partition(), entry.leaderEpoch()))
        .thenCompose(read -> initializeIfNew(entry, partition, read))
        .whenComplete(
            (loaded, failure) ->
                onLoop(
                    () -> {
                      if (failure != null || loaded.error() != Errors.NONE) {
                        Errors error =
                            failure != null ? Errors.forException(failure) : loaded.error();
                        log.warn(
                            "Reading share-partition state failed, retrying groupId={}"
                                + " topicPartition={} error={}",
                            entry.groupId(),
                            tp,
                            error);
                        entry.loadFailed(nowMs() + LOAD_RETRY_MS);
                        return;
                      }
                      entry.loaded(loaded.state(), loaded.stateEpoch());
                      log.info(
                          "Share-partition loaded groupId={} topicPartition={} leaderEpoch={}"
                              + " stateEpoch={} startOffset={}",
                          entry.groupId(),
                          tp,
                          entry.leaderEpoch(),
                          loaded.stateEpoch(),
                          loaded.state().startOffset());
                      replicaManager.delayedOperations().onProgress(tp);
                    }));
  }

  /** A load's outcome: the state and its state epoch, or the error that stopped it. */
  private record Loaded(Errors error, SharePartition state, int stateEpoch) {}

  private CompletableFuture<Loaded> initializeIfNew(
      ShareEntry entry, Partition partition, ReadShareGroupStateResponseData.PartitionResult read) {
    Errors error = Errors.forCode(read.errorCode());
    if (error != Errors.NONE) {
      return CompletableFuture.completedFuture(new Loaded(error, null, 0));
    }
    if (read.startOffset() >= 0) {
      SharePartition state = newState(entry.groupId(), read.startOffset());
      state.restore(read.stateBatches());
      return CompletableFuture.completedFuture(new Loaded(Errors.NONE, state, read.stateEpoch()));
    }
    long start = resetOffset(entry.groupId(), partition);
    // A share-partition the group coordinator initialized without a start offset (-1, as Kafka's
    // does for a topic new to the group) keeps that state epoch; one never seen starts at 0.
    int stateEpoch = Math.max(0, read.stateEpoch());
    return persister
        .initialize(
            entry.groupId(),
            entry.topicId(),
            partition.topicPartition().partition(),
            stateEpoch,
            start)
        .thenApply(
            initialized ->
                initialized != Errors.NONE
                    ? new Loaded(initialized, null, 0)
                    : new Loaded(Errors.NONE, newState(entry.groupId(), start), stateEpoch));
  }

  /** Runs {@code task} on the scheduler (not on the network thread that completed a call). */
  private void onLoop(Runnable task) {
    Scheduler current = scheduler;
    if (current == null) {
      task.run();
      return;
    }
    try {
      current.schedule("share-partition-state", task, 0);
    } catch (RejectedExecutionException e) {
      log.debug("Scheduler stopped; share-partition state update dropped");
    }
  }

  /**
   * Makes the share-partition's current state durable.
   *
   * @return the outcome of the write carrying it (at once NONE without a persister)
   */
  CompletableFuture<Errors> persist(String groupId, TopicPartition tp) {
    ShareEntry entry = partitions.get(new Key(groupId, tp));
    if (entry == null || entry.state() == null) {
      return CompletableFuture.completedFuture(Errors.NONE);
    }
    if (persister == null) {
      // In memory only: what is owed to the dead-letter topic is as durable as it gets.
      SharePartition state = entry.state();
      state.deadLettersDurable(state.snapshot().deadLetters());
      if (state.hasDeadLettersToWrite()) {
        onLoop(() -> writeDeadLetters(entry));
      }
      return CompletableFuture.completedFuture(Errors.NONE);
    }
    return entry.persist(this::write);
  }

  private CompletableFuture<Errors> write(ShareEntry entry) {
    SharePartition state = entry.state();
    SharePartition.Snapshot snapshot = state.snapshot();
    return persister
        .write(
            entry.groupId(),
            entry.topicId(),
            entry.partition(),
            entry.stateEpoch(),
            entry.leaderEpoch(),
            snapshot.startOffset(),
            snapshot.batches())
        .thenApply(
            error -> {
              if (error == Errors.FENCED_STATE_EPOCH) {
                dropFenced(entry);
              }
              if (error == Errors.NONE && !snapshot.deadLetters().isEmpty()) {
                // The records are durably owed: now they may be written to the topic.
                state.deadLettersDurable(snapshot.deadLetters());
                onLoop(() -> writeDeadLetters(entry));
              }
              return error;
            });
  }

  /**
   * The share-partition's state was initialized again since it was read (an offset reset of its
   * group): it leaves memory, and the next fetch reads the new state.
   */
  private void dropFenced(ShareEntry entry) {
    if (partitions.values().remove(entry)) {
      log.info(
          "Share-partition state was reset, reading it again groupId={} topicId={} partition={}",
          entry.groupId(),
          entry.topicId(),
          entry.partition());
    }
  }

  /**
   * Writes the records {@code entry} owes its group's dead-letter topic and whose owing is durable,
   * each then archived and the state written again. Runs on the scheduler (it reads the log).
   */
  private void writeDeadLetters(ShareEntry entry) {
    SharePartition state = entry.state();
    if (deadLetters == null || state == null || nowMs() < entry.deadLetterRetryAtMs()) {
      return;
    }
    Optional<String> topicName = replicaManager.image().topic(entry.topicId()).map(t -> t.name());
    if (topicName.isEmpty()) {
      return; // deleted: the share-partition goes with the next sweep
    }
    TopicPartition tp = new TopicPartition(topicName.get(), entry.partition());
    Optional<Partition> partition = replicaManager.partition(tp);
    boolean leading =
        partition.isPresent()
            && partition.get().isLeader()
            && partition.get().state().leaderEpoch() == entry.leaderEpoch();
    String topic = groupConfig(entry.groupId()).deadLetterTopic();
    for (SharePartition.DeadLetter letter : state.takeDeadLetters()) {
      if (!leading) {
        state.deadLetterFailed(letter.offset()); // the next leader writes it
        continue;
      }
      if (topic == null) {
        // The group's dead-letter topic was unset meanwhile: archived as Kafka archives.
        if (state.deadLettered(letter.offset())) {
          persist(entry.groupId(), tp);
        }
        continue;
      }
      ShareDeadLetters.SourceRecord record;
      try {
        record = sourceRecord(partition.get(), letter.offset());
      } catch (RuntimeException e) {
        log.warn(
            "Reading a dead letter failed groupId={} topicPartition={} offset={}",
            entry.groupId(),
            tp,
            letter.offset(),
            e);
        state.deadLetterFailed(letter.offset());
        entry.deadLetterRetryAfter(nowMs() + LOAD_RETRY_MS);
        continue;
      }
      if (record == null) {
        // No record at that offset any more (compacted away): nothing to write.
        if (state.deadLettered(letter.offset())) {
          persist(entry.groupId(), tp);
        }
        continue;
      }
      deadLetters
          .write(
              topic,
              new ShareDeadLetters.Letter(entry.groupId(), tp, letter, record),
              System.currentTimeMillis())
          .thenAccept(
              error ->
                  onLoop(
                      () -> {
                        if (error == Errors.NONE) {
                          if (state.deadLettered(letter.offset())) {
                            stats(entry.groupId()).deadLettered();
                            persist(entry.groupId(), tp);
                            replicaManager.delayedOperations().onProgress(tp);
                          }
                          return;
                        }
                        log.warn(
                            "Writing a dead letter failed, retrying groupId={} topicPartition={}"
                                + " offset={} topic={} error={}",
                            entry.groupId(),
                            tp,
                            letter.offset(),
                            topic,
                            error);
                        state.deadLetterFailed(letter.offset());
                        entry.deadLetterRetryAfter(nowMs() + LOAD_RETRY_MS);
                      }));
    }
  }

  /** The record at {@code offset} of the partition's log, or null if there is none. */
  private static ShareDeadLetters.SourceRecord sourceRecord(Partition partition, long offset) {
    ReplicaLog log = partition.log();
    LogReadResult read = log.read(offset, 1, log.highWatermark(), true);
    for (RecordBatch batch : read.slice().copyToMemory().batches()) {
      if (batch.isControlBatch()) {
        continue;
      }
      for (Record r : batch) {
        if (r.offset() == offset) {
          return new ShareDeadLetters.SourceRecord(
              r.timestamp(), bytes(r.key()), bytes(r.value()), r.headers());
        }
      }
    }
    return null;
  }

  private static byte[] bytes(ByteBuffer buffer) {
    if (buffer == null) {
      return null;
    }
    byte[] out = new byte[buffer.remaining()];
    buffer.duplicate().get(out);
    return out;
  }

  /** Whether the group's share-partition is being read from the share coordinator. */
  boolean loading(String groupId, TopicPartition tp) {
    ShareEntry entry = partitions.get(new Key(groupId, tp));
    return entry != null && entry.state() == null;
  }

  /** The group's existing share-partition, if this broker keeps one. */
  Optional<SharePartition> existing(String groupId, TopicPartition tp) {
    return Optional.ofNullable(partitions.get(new Key(groupId, tp))).map(ShareEntry::state);
  }

  /**
   * Releases what {@code memberId} holds in {@code topicPartitions} (its session closed) and wakes
   * the fetches waiting on them.
   */
  void release(String groupId, String memberId, Set<TopicPartition> topicPartitions) {
    for (TopicPartition tp : topicPartitions) {
      Optional<SharePartition> state = existing(groupId, tp);
      if (state.isPresent() && state.get().releaseAll(memberId) > 0) {
        persist(groupId, tp);
        replicaManager.delayedOperations().onProgress(tp);
      }
    }
    if (persister != null && !sessions.hasGroup(groupId)) {
      forget(groupId, topicPartitions);
    }
  }

  /**
   * The group has no session here any more: its share-partitions of {@code topicPartitions} leave
   * memory (their last writes carry on), so the next member's first fetch reads them again. An
   * empty group's state may be reset or deleted by the admin APIs meanwhile (a new state epoch, or
   * no state), which the read then finds.
   */
  private void forget(String groupId, Set<TopicPartition> topicPartitions) {
    for (TopicPartition tp : topicPartitions) {
      Key key = new Key(groupId, tp);
      ShareEntry owing = partitions.get(key);
      if (owing != null && owing.state() != null && owing.state().deadLetterCount() > 0) {
        // It still owes its group's dead-letter topic records, which the sweep writes: it stays
        // until a later session of the group ends with nothing owed.
        continue;
      }
      ShareEntry gone = partitions.remove(key);
      if (gone == null) {
        continue;
      }
      log.debug(
          "Share-partition dropped, no session of its group here groupId={} topicPartition={}",
          groupId,
          tp);
      CompletableFuture<Void> idle = gone.idle();
      if (!idle.isDone()) {
        draining.put(key, idle);
        idle.whenComplete((ok, failure) -> draining.remove(key, idle));
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
      for (Map.Entry<Key, ShareEntry> e : partitions.entrySet()) {
        TopicPartition tp = e.getKey().topicPartition();
        Optional<Partition> partition = replicaManager.partition(tp);
        if (partition.isEmpty()
            || !partition.get().isLeader()
            || partition.get().state().leaderEpoch() != e.getValue().leaderEpoch()) {
          partitions.remove(e.getKey(), e.getValue());
          continue;
        }
        SharePartition state = e.getValue().state();
        if (state == null) {
          continue;
        }
        boolean moved = state.moveStartTo(partition.get().log().logStartOffset());
        boolean expired = state.expireLocks() > 0;
        if (moved || expired) {
          persist(e.getKey().groupId(), tp);
        } else if (persister != null) {
          e.getValue().retryIfDirty(this::write);
        }
        if (state.hasDeadLettersToWrite()) {
          writeDeadLetters(e.getValue());
        }
        boolean backoffEnded = state.backoffsEnded();
        if (expired || backoffEnded) {
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

  /** A share group's gauges at this broker, summed over the share-partitions it leads. */
  public record GroupGauges(
      long inFlight, long acquired, long deadLetterPending, long oldestAcquisitionAgeMs) {}

  /** The gauges of every group with a share-partition here (one pass over them). */
  public Map<String, GroupGauges> groupGauges() {
    long now = nowMs();
    Map<String, long[]> sums = new java.util.HashMap<>();
    for (Map.Entry<Key, ShareEntry> e : partitions.entrySet()) {
      SharePartition state = e.getValue().state();
      if (state == null) {
        continue;
      }
      SharePartition.Gauges g = state.gauges();
      long[] sum =
          sums.computeIfAbsent(e.getKey().groupId(), k -> new long[] {0, 0, 0, Long.MAX_VALUE});
      sum[0] += g.inFlight();
      sum[1] += g.acquired();
      sum[2] += state.deadLetterCount();
      sum[3] = Math.min(sum[3], g.oldestAcquiredAtMs());
    }
    Map<String, GroupGauges> out = new java.util.HashMap<>();
    sums.forEach(
        (group, s) ->
            out.put(
                group,
                new GroupGauges(
                    s[0], s[1], s[2], s[3] == Long.MAX_VALUE ? 0 : Math.max(0, now - s[3]))));
    return out;
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
    if (persister != null) {
      persister.close();
    }
    if (deadLetters != null) {
      deadLetters.close();
    }
  }
}
