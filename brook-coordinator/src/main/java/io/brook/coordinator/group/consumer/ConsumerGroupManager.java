package io.brook.coordinator.group.consumer;

import io.brook.coordinator.group.Group;
import io.brook.coordinator.group.GroupConfig;
import io.brook.coordinator.group.GroupTypeManager;
import io.brook.coordinator.group.Groups;
import io.brook.coordinator.group.assignor.Assignors;
import io.brook.coordinator.group.assignor.PartitionAssignor;
import io.brook.coordinator.runtime.CoordinatorRecord;
import io.brook.coordinator.runtime.MalformedRecordException;
import io.brook.coordinator.runtime.ShardContext;
import io.brook.metadata.image.MetadataImage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData.DescribedGroup;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The KIP-848 consumer groups of one shard: replays their records, owns their timers (session and
 * rebalance timeouts) and serves ConsumerGroupHeartbeat and ConsumerGroupDescribe. Runs on the
 * shard's thread.
 *
 * <p>Dead clients: a dynamic member whose last heartbeat came on a connection that closes is
 * removed after one heartbeat interval plus {@code brook.group.dead.connection.grace.ms} instead of
 * the whole session timeout; a live client that merely reconnected heartbeats again within that
 * time and keeps its place. Static members always keep the full session timeout.
 */
public final class ConsumerGroupManager implements GroupTypeManager {
  private static final Logger log = LoggerFactory.getLogger(ConsumerGroupManager.class);

  static final String SESSION = "session timeout expired";
  private static final String CONNECTION_CLOSED = "connection closed and no heartbeat since";

  private final ShardContext context;
  private final GroupConfig config;
  private final Groups groups;
  private final Assignors assignors;
  private final SubscriptionResolver resolver = new SubscriptionResolver();
  private final ConsumerGroupHeartbeat heartbeat;
  private final Map<MemberRef, String> connections = new HashMap<>();

  /** The metadata image offset each group's subscribed topics were last resolved at. */
  private final Map<String, Long> checkedImages = new HashMap<>();

  /** A member of a group, as timers and connections name it. */
  record MemberRef(String groupId, String memberId) {}

  public ConsumerGroupManager(ShardContext context, GroupConfig config, Groups groups) {
    this.context = context;
    this.config = config;
    this.groups = groups;
    this.assignors = new Assignors(config.consumerAssignors());
    this.heartbeat = new ConsumerGroupHeartbeat(this);
  }

  ShardContext context() {
    return context;
  }

  GroupConfig config() {
    return config;
  }

  Assignors assignors() {
    return assignors;
  }

  SubscriptionResolver resolver() {
    return resolver;
  }

  /** The consumer group {@code groupId}, if it exists and is one. */
  public Optional<ConsumerGroup> group(String groupId) {
    return groups.get(groupId, ConsumerGroup.class);
  }

  /** Any group of this id, whatever its protocol. */
  Optional<Group> anyGroup(String groupId) {
    return groups.get(groupId);
  }

  /** Serves one ConsumerGroupHeartbeat; the response carries any error. */
  public CompletableFuture<ConsumerGroupHeartbeatResponseData> heartbeat(
      HeartbeatClient client, ConsumerGroupHeartbeatRequestData request) {
    return heartbeat.handle(client, request);
  }

  /** Describes one group for ConsumerGroupDescribe. */
  public DescribedGroup describe(String groupId) {
    return ConsumerGroupDescriber.describe(this, groupId);
  }

  // ---- replay

  @Override
  public boolean replay(CoordinatorRecord record, long offset) {
    if (!ConsumerGroupRecords.handles(record.type())) {
      return false;
    }
    ConsumerGroupRecords.Key key = ConsumerGroupRecords.readKey(record);
    Optional<ConsumerGroup> existing = group(key.groupId());
    if (existing.isEmpty() && record.isTombstone()) {
      return true;
    }
    ConsumerGroup group = existing.orElseGet(() -> create(key.groupId()));
    switch (record.type()) {
      case ConsumerGroupRecords.GROUP_METADATA -> {
        if (record.isTombstone()) {
          groups.remove(key.groupId());
          checkedImages.remove(key.groupId());
        } else {
          group.applyGroupEpoch(ConsumerGroupRecords.readEpoch(record));
        }
      }
      case ConsumerGroupRecords.PARTITION_METADATA ->
          group.applySubscriptionMetadata(
              record.isTombstone()
                  ? List.of()
                  : ConsumerGroupRecords.readPartitionMetadata(record));
      case ConsumerGroupRecords.MEMBER_METADATA -> {
        if (record.isTombstone()) {
          group.applyMemberRemoved(key.memberId());
        } else {
          group.applyMemberSubscription(
              key.memberId(), ConsumerGroupRecords.readMemberMetadata(record));
        }
      }
      case ConsumerGroupRecords.TARGET_ASSIGNMENT_METADATA ->
          group.applyAssignmentEpoch(
              record.isTombstone() ? 0 : ConsumerGroupRecords.readEpoch(record));
      case ConsumerGroupRecords.TARGET_ASSIGNMENT_MEMBER ->
          group.applyTargetAssignment(
              key.memberId(),
              record.isTombstone() ? null : ConsumerGroupRecords.readTargetAssignment(record));
      case ConsumerGroupRecords.CURRENT_MEMBER_ASSIGNMENT -> {
        if (record.isTombstone()) {
          if (group.member(key.memberId()).isPresent()) {
            group.applyCurrentAssignment(key.memberId(), MemberAssignment.LEFT);
          }
        } else {
          group.applyCurrentAssignment(
              key.memberId(), ConsumerGroupRecords.readCurrentAssignment(record));
        }
      }
      default -> throw new IllegalArgumentException("not a consumer group record " + record.type());
    }
    return true;
  }

  private ConsumerGroup create(String groupId) {
    Optional<Group> other = groups.get(groupId);
    if (other.isPresent()) {
      // Only bad bytes put it there (the coordinator never writes both kinds for one id): the
      // record is refused like any other it cannot apply, and loading skips it.
      throw new MalformedRecordException(
          "consumer group record for " + groupId + ", which is a " + other.get().type() + " group");
    }
    ConsumerGroup group = new ConsumerGroup(groupId, context::nowMs);
    groups.put(group);
    return group;
  }

  // ---- timers

  @Override
  public void onLoaded() {
    for (Group g : List.copyOf(groups.all())) {
      if (g instanceof ConsumerGroup group) {
        for (ConsumerGroupMember member : group.members().values()) {
          scheduleSessionTimeout(group.groupId(), member.memberId(), sessionTimeoutMs(), SESSION);
          if (member.assignment().state() == MemberState.UNREVOKED_PARTITIONS) {
            scheduleRebalanceTimeout(group.groupId(), member);
          }
        }
      }
    }
  }

  /**
   * A subscribed topic was created, deleted or grew partitions: bump the epoch of each group whose
   * subscribed topics changed, so its members' next heartbeats compute a new target assignment.
   */
  @Override
  public void onMetadata(MetadataImage image) {
    for (Group g : List.copyOf(groups.all())) {
      if (!(g instanceof ConsumerGroup group) || group.isEmpty()) {
        continue;
      }
      List<MemberSubscription> subscriptions = new ArrayList<>();
      group.members().values().forEach(m -> subscriptions.add(m.subscription()));
      SortedMap<String, TopicMetadata> metadata = resolver.metadata(subscriptions, image);
      checkedImages.put(group.groupId(), image.offset());
      if (metadata.equals(group.subscriptionMetadata())) {
        continue;
      }
      log.info(
          "Subscribed topics changed groupId={} epoch={}", group.groupId(), group.groupEpoch() + 1);
      CompletableFuture<Void> unused =
          context
              .write(
                  List.of(
                      ConsumerGroupRecords.partitionMetadata(group.groupId(), metadata.values()),
                      ConsumerGroupRecords.groupEpoch(group.groupId(), group.groupEpoch() + 1)))
              .whenComplete((ok, error) -> logWriteFailure(group.groupId(), error));
    }
  }

  private static void logWriteFailure(String groupId, Throwable error) {
    if (error != null) {
      log.warn(
          "Could not persist a consumer group change groupId={} error={}",
          groupId,
          CoordinatorErrors.unwrap(error).toString());
    }
  }

  @Override
  public void onConnectionClosed(String connectionId) {
    long graceMs = (long) config.consumerHeartbeatIntervalMs() + config.deadConnectionGraceMs();
    for (Map.Entry<MemberRef, String> entry : List.copyOf(connections.entrySet())) {
      if (!entry.getValue().equals(connectionId)) {
        continue;
      }
      MemberRef ref = entry.getKey();
      connections.remove(ref);
      Optional<ConsumerGroupMember> member =
          group(ref.groupId()).flatMap(g -> g.member(ref.memberId()));
      if (member.isPresent() && member.get().instanceId() == null) {
        log.info(
            "Connection of consumer group member closed groupId={} memberId={} removeInMs={}",
            ref.groupId(),
            ref.memberId(),
            graceMs);
        scheduleSessionTimeout(ref.groupId(), ref.memberId(), graceMs, CONNECTION_CLOSED);
      }
    }
  }

  void trackConnection(String groupId, String memberId, String connectionId) {
    if (connectionId != null) {
      connections.put(new MemberRef(groupId, memberId), connectionId);
    }
  }

  int sessionTimeoutMs() {
    return config.consumerSessionTimeoutMs();
  }

  void scheduleSessionTimeout(String groupId, String memberId, long delayMs, String reason) {
    context
        .timer()
        .schedule(sessionKey(groupId, memberId), delayMs, () -> fence(groupId, memberId, reason));
  }

  void scheduleRebalanceTimeout(String groupId, ConsumerGroupMember member) {
    int epoch = member.memberEpoch();
    String memberId = member.memberId();
    int timeoutMs = member.subscription().rebalanceTimeoutMs();
    context
        .timer()
        .schedule(
            rebalanceKey(groupId, memberId),
            timeoutMs > 0 ? timeoutMs : sessionTimeoutMs(),
            () -> {
              Optional<ConsumerGroupMember> now = group(groupId).flatMap(g -> g.member(memberId));
              if (now.isPresent()
                  && now.get().memberEpoch() == epoch
                  && now.get().assignment().state() == MemberState.UNREVOKED_PARTITIONS) {
                fence(groupId, memberId, "partitions not revoked within the rebalance timeout");
              }
            });
  }

  boolean rebalanceTimeoutScheduled(String groupId, String memberId) {
    return context.timer().isScheduled(rebalanceKey(groupId, memberId));
  }

  /** Whether the metadata image moved since the group's subscribed topics were last resolved. */
  boolean imageChangedSinceLastCheck(ConsumerGroup group) {
    Long checked = checkedImages.get(group.groupId());
    return checked == null || checked != context.image().offset();
  }

  void markImageChecked(String groupId) {
    checkedImages.put(groupId, context.image().offset());
  }

  void cancelRebalanceTimeout(String groupId, String memberId) {
    context.timer().cancel(rebalanceKey(groupId, memberId));
  }

  void cancelTimers(String groupId, String memberId) {
    context.timer().cancel(sessionKey(groupId, memberId));
    context.timer().cancel(rebalanceKey(groupId, memberId));
    connections.remove(new MemberRef(groupId, memberId));
  }

  private static String sessionKey(String groupId, String memberId) {
    return "consumer-session/" + groupId + "/" + memberId;
  }

  private static String rebalanceKey(String groupId, String memberId) {
    return "consumer-rebalance/" + groupId + "/" + memberId;
  }

  /** Removes a member that stopped heartbeating or revoking; its partitions move on. */
  private void fence(String groupId, String memberId, String reason) {
    Optional<ConsumerGroup> group = group(groupId);
    if (group.isEmpty() || group.get().member(memberId).isEmpty()) {
      return;
    }
    log.info(
        "Fencing consumer group member groupId={} memberId={} reason={}",
        groupId,
        memberId,
        reason);
    cancelTimers(groupId, memberId);
    CompletableFuture<Void> unused =
        context
            .write(removalRecords(group.get(), memberId))
            .whenComplete((ok, error) -> logWriteFailure(groupId, error));
  }

  /** The records that remove a member: its tombstones, new subscription metadata, epoch bump. */
  List<CoordinatorRecord> removalRecords(ConsumerGroup group, String memberId) {
    List<CoordinatorRecord> records =
        new ArrayList<>(ConsumerGroupRecords.memberTombstones(group.groupId(), memberId));
    List<MemberSubscription> remaining = new ArrayList<>();
    group
        .members()
        .forEach(
            (id, m) -> {
              if (!id.equals(memberId)) {
                remaining.add(m.subscription());
              }
            });
    SortedMap<String, TopicMetadata> metadata = resolver.metadata(remaining, context.image());
    if (!metadata.equals(group.subscriptionMetadata())) {
      records.add(ConsumerGroupRecords.partitionMetadata(group.groupId(), metadata.values()));
    }
    records.add(ConsumerGroupRecords.groupEpoch(group.groupId(), group.groupEpoch() + 1));
    return records;
  }

  /** The assignor the group uses: the one most members ask for, else the configured default. */
  PartitionAssignor assignorOf(ConsumerGroup group) {
    Map<String, Integer> votes = new HashMap<>();
    for (ConsumerGroupMember member : group.members().values()) {
      String name = member.subscription().serverAssignor();
      if (name != null && assignors.get(name).isPresent()) {
        votes.merge(name, 1, Integer::sum);
      }
    }
    return votes.entrySet().stream()
        .max(
            Map.Entry.<String, Integer>comparingByValue().thenComparing(Map.Entry.comparingByKey()))
        .flatMap(e -> assignors.get(e.getKey()))
        .orElse(assignors.defaultAssignor());
  }
}
