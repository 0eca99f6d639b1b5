package io.brook.broker.replica;

import io.brook.broker.delayed.DelayedOperations;
import io.brook.broker.time.Scheduler;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.image.PartitionImage;
import io.brook.metadata.image.TopicImage;
import io.brook.storage.log.LogConfig;
import io.brook.storage.log.PartitionLog;
import io.brook.storage.manager.LogManager;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The partitions this broker hosts, kept in step with the metadata image: a partition whose
 * replicas include this broker gets a log and a leader or follower role; a deleted topic's logs go.
 *
 * <p>A partition whose log directory failed stays hosted but offline, as Kafka's: its log answers
 * every read and write with KAFKA_STORAGE_ERROR, it is not fetched as a follower, and as a leader
 * it proposes no ISR change (its followers fail to fetch from it, which must not shrink the ISR to
 * the broken leader). The controller moves its leadership once told (see {@code
 * BrokerLifecycleManager}).
 */
public final class ReplicaManager {
  private static final Logger log = LoggerFactory.getLogger(ReplicaManager.class);

  private final int brokerId;
  private final LogManager logManager;
  private final DelayedOperations delayedOperations;
  private final BiFunction<MetadataImage, String, LogConfig> topicConfig;
  private final Followers followers;
  private final ReplicationContext replication;
  private final Scheduler scheduler;
  private final HostedPartitions<Partition> partitions = new HostedPartitions<>();

  /** Replicas assigned here whose log could not be created (a log directory is offline). */
  private final ConcurrentHashMap<TopicPartition, Uuid> unhosted = new ConcurrentHashMap<>();

  private volatile MetadataImage image = MetadataImage.EMPTY;

  /** Partitions created while applying the current image, for its summary line; applier only. */
  private int createdInImage;

  /**
   * The image being applied, set before its first partition: ISR eligibility (KIP-841) is judged by
   * it, so that a partition the image already changed does not, while the image's other partitions
   * are applied, propose taking back a broker the same image fenced (the leaderships and ISRs of a
   * broker in controlled shutdown move in the batch that fences it).
   */
  private volatile MetadataImage brokersImage = MetadataImage.EMPTY;

  // Set once this node starts its controlled shutdown; see tellFollowersHighWatermarksAtOnce.
  private volatile boolean highWatermarkToFollowersAtOnce;
  private Scheduler.Task isrShrinkTask;

  /**
   * @param topicConfig the effective log config of a topic in an image (broker defaults plus the
   *     topic's overrides)
   */
  public ReplicaManager(
      int brokerId,
      LogManager logManager,
      DelayedOperations delayedOperations,
      BiFunction<MetadataImage, String, LogConfig> topicConfig) {
    this(
        brokerId,
        logManager,
        delayedOperations,
        topicConfig,
        Followers.NONE,
        IsrChangeSender.NONE,
        ReplicationContext.DEFAULT_LAG_TIME_MAX_MS,
        Time.SYSTEM,
        null);
  }

  /**
   * @param followers fetches the partitions this broker follows
   * @param isrChanges where leaders send ISR changes (the controller)
   * @param replicaLagTimeMaxMs {@code replica.lag.time.max.ms}
   * @param time the clock of follower fetch and caught-up times
   * @param scheduler runs the periodic ISR shrink check ({@link #startIsrShrinkTask}); null for a
   *     node whose ISRs never change
   */
  public ReplicaManager(
      int brokerId,
      LogManager logManager,
      DelayedOperations delayedOperations,
      BiFunction<MetadataImage, String, LogConfig> topicConfig,
      Followers followers,
      IsrChangeSender isrChanges,
      long replicaLagTimeMaxMs,
      Time time,
      Scheduler scheduler) {
    this.brokerId = brokerId;
    this.logManager = logManager;
    this.delayedOperations = delayedOperations;
    this.topicConfig = topicConfig;
    this.followers = followers;
    this.replication =
        new ReplicationContext(
            isrChanges, this::isUnfenced, replicaLagTimeMaxMs, time, new ReplicationMetrics());
    this.scheduler = scheduler;
    logManager.dirFailures().addListener(this::handleLogDirFailure);
  }

  /**
   * On the log-dir failure handler's thread, after the log manager took the directory's logs
   * offline: stops fetching them and wakes the requests waiting on them, which then fail with
   * KAFKA_STORAGE_ERROR.
   */
  private void handleLogDirFailure(Path logDir) {
    int count = 0;
    for (Partition partition : partitions.values()) {
      if (logManager.isLogDirOffline(LogManager.logDirOf(partition.log()))) {
        followers.unfollow(partition.topicPartition());
        delayedOperations.onProgress(partition.topicPartition());
        count++;
      }
    }
    log.error("Partitions offline with their log directory dir={} partitions={}", logDir, count);
  }

  /** The partitions whose log lives in {@code logDir}: indexes by topic id, ascending. */
  public Map<Uuid, List<Integer>> partitionsIn(Path logDir) {
    Path wanted = logDir.toAbsolutePath().normalize();
    Map<Uuid, List<Integer>> hosted = new HashMap<>();
    for (Partition partition : partitions.values()) {
      if (LogManager.logDirOf(partition.log()).toAbsolutePath().normalize().equals(wanted)) {
        hosted
            .computeIfAbsent(partition.topicId(), t -> new ArrayList<>())
            .add(partition.topicPartition().partition());
      }
    }
    hosted.values().forEach(ids -> ids.sort(null));
    return hosted;
  }

  /**
   * The replicas assigned to this broker that cannot serve because log directories are offline:
   * those hosted with an offline log, and those not hosted at all because their log could not be
   * created (after a directory failed at start-up, the ones it may have held). Indexes by topic id,
   * ascending.
   */
  public Map<Uuid, List<Integer>> offlineReplicas() {
    Map<Uuid, List<Integer>> replicas = new HashMap<>();
    unhosted.forEach(
        (tp, topicId) ->
            replicas.computeIfAbsent(topicId, t -> new ArrayList<>()).add(tp.partition()));
    for (Partition partition : partitions.values()) {
      if (partition.log().isOffline()) {
        replicas
            .computeIfAbsent(partition.topicId(), t -> new ArrayList<>())
            .add(partition.topicPartition().partition());
      }
    }
    replicas.values().forEach(ids -> ids.sort(null));
    return replicas;
  }

  /** The partitions whose log is offline (its directory failed). */
  public int offlinePartitionCount() {
    int count = 0;
    for (Partition partition : partitions.values()) {
      if (partition.log().isOffline()) {
        count++;
      }
    }
    return count;
  }

  /** The ISR change meters of this broker's leader partitions. */
  public ReplicationMetrics metrics() {
    return replication.metrics();
  }

  /** The partition gauges, computed now by one pass over the hosted partitions. */
  public ReplicationMetrics.PartitionCounts partitionCounts() {
    return ReplicationMetrics.snapshot(partitions.values());
  }

  private boolean isUnfenced(int id) {
    return brokersImage.broker(id).map(b -> !b.fenced()).orElse(false);
  }

  public int brokerId() {
    return brokerId;
  }

  public MetadataImage image() {
    return image;
  }

  /** The logs of the hosted partitions. */
  public LogManager logManager() {
    return logManager;
  }

  public DelayedOperations delayedOperations() {
    return delayedOperations;
  }

  /**
   * Whether a follower is told a moved high watermark at once rather than with its next records;
   * true from {@link #tellFollowersHighWatermarksAtOnce} on.
   */
  public boolean highWatermarkToFollowersAtOnce() {
    return highWatermarkToFollowersAtOnce;
  }

  /**
   * Before this node hands its leaderships away: answers every parked follower fetch, and from now
   * on answers a follower as soon as the high watermark it knows is behind. A follower otherwise
   * learns the last high watermark only with its next records or when its fetch's wait ends, and if
   * it becomes leader without it, records acknowledged here stay unreadable until the high
   * watermark can move again (with fewer in-sync replicas than {@code min.insync.replicas} it
   * cannot).
   */
  public void tellFollowersHighWatermarksAtOnce() {
    highWatermarkToFollowersAtOnce = true;
    delayedOperations.completeLogEndWaiters();
  }

  public Optional<Partition> partition(TopicPartition tp) {
    return Optional.ofNullable(partitions.get(tp));
  }

  /**
   * The hosted partition, or the exception a client should see: NOT_LEADER_OR_FOLLOWER if the
   * partition exists elsewhere, UNKNOWN_TOPIC_OR_PARTITION if it does not exist at all.
   */
  public Partition partitionOrThrow(TopicPartition tp) {
    Partition partition = partitions.get(tp);
    if (partition != null) {
      return partition;
    }
    boolean exists =
        image.topic(tp.topic()).map(t -> t.partitions().containsKey(tp.partition())).orElse(false);
    if (exists) {
      throw new NotLeaderOrFollowerException("broker " + brokerId + " does not host " + tp);
    }
    throw new UnknownTopicOrPartitionException("unknown partition " + tp);
  }

  public Collection<Partition> partitions() {
    return partitions.values();
  }

  /** The name of the topic with this id in the current image. */
  public Optional<String> topicName(Uuid topicId) {
    return image.topic(topicId).map(TopicImage::name);
  }

  /**
   * Brings hosted partitions in line with {@code newImage}. Serialized: metadata is applied in
   * order, one image at a time.
   *
   * <p>Only topics that changed since the last image are visited: an image shares the {@link
   * TopicImage} of every topic no record touched, so a change of a few partitions costs a pass over
   * the topic list and not over every hosted partition (a broker catching up on thousands of small
   * metadata batches would otherwise do quadratic work). When topic or broker configs changed,
   * every topic is visited, since its effective log config may have moved.
   */
  public synchronized void applyMetadata(MetadataImage newImage) {
    try {
      applyHostedPartitions(newImage);
    } finally {
      followers.imageApplied();
      delayedOperations.onMetadataApplied();
    }
  }

  private void applyHostedPartitions(MetadataImage newImage) {
    MetadataImage old = image;
    long started = System.nanoTime();
    createdInImage = 0;
    brokersImage = newImage;
    boolean configsChanged =
        newImage.configs(ConfigResource.Type.TOPIC) != old.configs(ConfigResource.Type.TOPIC)
            || newImage.configs(ConfigResource.Type.BROKER)
                != old.configs(ConfigResource.Type.BROKER);
    Set<String> retried = new HashSet<>();
    for (TopicPartition tp : unhosted.keySet()) {
      retried.add(tp.topic());
    }
    for (TopicImage topic : old.topics()) {
      if (newImage.topic(topic.id()).orElse(null) != topic) {
        removeUnwanted(topic, newImage);
      }
    }
    for (TopicImage topic : newImage.topics()) {
      if (configsChanged
          || retried.contains(topic.name())
          || old.topic(topic.id()).orElse(null) != topic) {
        applyTopic(newImage, topic);
      }
    }
    image = newImage;
    if (createdInImage > 0) {
      // One line per image, not per log: a topic creation may bring thousands of them at once.
      log.info(
          "Hosting new partitions count={} hosted={} metadataOffset={} durationMs={}",
          createdInImage,
          partitions.values().size(),
          newImage.offset(),
          (System.nanoTime() - started) / 1_000_000);
    }
  }

  /** Removes the hosted partitions of {@code topic} that {@code newImage} no longer places here. */
  private void removeUnwanted(TopicImage topic, MetadataImage newImage) {
    Optional<TopicImage> now = newImage.topic(topic.id());
    for (Map.Entry<Integer, PartitionImage> entry : topic.partitions().entrySet()) {
      TopicPartition tp = new TopicPartition(topic.name(), entry.getKey());
      PartitionImage p = now.map(t -> t.partitions().get(entry.getKey())).orElse(null);
      if (p == null || !p.replicas().contains(brokerId)) {
        Partition hosted = partitions.get(tp);
        if (hosted != null && hosted.topicId().equals(topic.id())) {
          removePartition(tp, now.isEmpty());
        }
        unhosted.remove(tp, topic.id());
      }
    }
  }

  /** Creates, updates or re-configures the partitions of {@code topic} placed on this broker. */
  private void applyTopic(MetadataImage newImage, TopicImage topic) {
    LogConfig config = topicConfig.apply(newImage, topic.name());
    for (Map.Entry<Integer, PartitionImage> entry : topic.partitions().entrySet()) {
      PartitionImage p = entry.getValue();
      if (!p.replicas().contains(brokerId)) {
        continue;
      }
      TopicPartition tp = new TopicPartition(topic.name(), entry.getKey());
      PartitionState state =
          new PartitionState(
              p.leader(), p.leaderEpoch(), p.partitionEpoch(), p.replicas(), p.isr());
      Partition existing = partitions.get(tp);
      if (existing != null && !existing.topicId().equals(topic.id())) {
        // The topic was deleted and created again under the same name.
        removePartition(tp, true);
        existing = null;
      }
      if (existing == null) {
        existing = createPartition(tp, topic.id(), state);
        if (existing == null) {
          unhosted.put(tp, topic.id());
          continue;
        }
        unhosted.remove(tp);
        updateFetching(existing);
      } else if (!existing.state().equals(state)) {
        existing.applyState(state);
        updateFetching(existing);
      }
      if (!existing.log().config().equals(config)) {
        existing.log().updateConfig(config);
      }
    }
  }

  /** A follower fetches from its leader; a leader, or a partition without one, does not. */
  private void updateFetching(Partition partition) {
    if (partition.isFollower() && !partition.log().isOffline()) {
      followers.follow(partition);
    } else {
      followers.unfollow(partition.topicPartition());
    }
  }

  /**
   * Every leader partition drops the followers that have not caught up within {@code
   * replica.lag.time.max.ms} from its ISR. Run periodically.
   */
  public void maybeShrinkIsrs() {
    for (Partition partition : partitions.values()) {
      if (partition.isLeader() && !partition.log().isOffline()) {
        partition.maybeShrinkIsr();
      }
    }
  }

  /**
   * How often leaders look for followers to drop from their ISRs: half of {@code
   * replica.lag.time.max.ms}, as Kafka's {@code isr-expiration} task (at least 100 ms), so a
   * follower that stopped is dropped between one and one and a half lag times after its last
   * caught-up fetch.
   */
  public static long isrShrinkCheckMs(long replicaLagTimeMaxMs) {
    return Math.max(100, replicaLagTimeMaxMs / 2);
  }

  /** Starts the periodic ISR shrink check on the scheduler ({@link #isrShrinkCheckMs}). */
  public synchronized void startIsrShrinkTask() {
    if (scheduler == null) {
      throw new IllegalStateException("this replica manager has no scheduler");
    }
    if (isrShrinkTask == null) {
      long periodMs = isrShrinkCheckMs(replication.replicaLagTimeMaxMs());
      isrShrinkTask =
          scheduler.schedulePeriodic("isr-shrink", this::maybeShrinkIsrs, periodMs, periodMs);
    }
  }

  /** Stops the periodic ISR shrink check, if started. */
  public synchronized void stopIsrShrinkTask() {
    if (isrShrinkTask != null) {
      isrShrinkTask.cancel();
      isrShrinkTask = null;
    }
  }

  /** The new partition, or null if its log cannot be created (a log directory is offline). */
  private Partition createPartition(TopicPartition tp, Uuid topicId, PartitionState state) {
    PartitionLog partitionLog;
    try {
      partitionLog = logManager.getOrCreateLog(tp);
    } catch (IOException e) {
      if (logManager.offlineLogDirectoryCount() == 0) {
        throw new UncheckedIOException("creating the log of " + tp, e);
      }
      // Not hosted: clients get NOT_LEADER_OR_FOLLOWER; it is retried with the next image.
      if (!unhosted.containsKey(tp)) {
        log.warn("Not hosting a partition while log directories are offline topicPartition={}", tp);
      }
      return null;
    }
    Partition partition =
        new Partition(
            tp,
            topicId,
            brokerId,
            partitionLog,
            new PartitionState(-1, -1, -1, state.replicas(), state.isr()),
            delayedOperations,
            replication);
    partitions.put(tp, partition);
    partition.applyState(state);
    createdInImage++;
    return partition;
  }

  /**
   * @param topicDeleted the partition's topic is gone (not just this replica): its remote data goes
   *     too
   */
  private void removePartition(TopicPartition tp, boolean topicDeleted) {
    Partition removed = partitions.remove(tp);
    if (removed == null) {
      return;
    }
    // Waiting produces, fetches and coordinator commits on it are answered now.
    removed.markRemoved();
    followers.unfollow(tp);
    try {
      if (topicDeleted) {
        replication.metrics().topicStats().removeTopic(tp.topic());
        logManager.deleteLogOfDeletedTopic(new TopicIdPartition(removed.topicId(), tp));
      } else {
        logManager.deleteLog(tp);
      }
      log.info("Removed partition topicPartition={}", tp);
    } catch (IOException e) {
      log.error("Deleting the log of a removed partition failed topicPartition={}", tp, e);
    }
  }
}
