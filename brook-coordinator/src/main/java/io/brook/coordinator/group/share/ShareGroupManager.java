package io.brook.coordinator.group.share;

import io.brook.coordinator.group.Group;
import io.brook.coordinator.group.GroupConfig;
import io.brook.coordinator.group.GroupTypeManager;
import io.brook.coordinator.group.Groups;
import io.brook.coordinator.group.consumer.CoordinatorErrors;
import io.brook.coordinator.runtime.CoordinatorRecord;
import io.brook.coordinator.runtime.MalformedRecordException;
import io.brook.coordinator.runtime.ShardContext;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.image.TopicImage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.message.ShareGroupDescribeResponseData;
import org.apache.kafka.common.message.ShareGroupDescribeResponseData.DescribedGroup;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The share groups (KIP-932) of one shard: replays their records, owns their members' session
 * timers and serves ShareGroupHeartbeat ({@link ShareGroupHeartbeat}) and ShareGroupDescribe. Runs
 * on the shard's thread.
 *
 * <p>Assignment: every member is assigned every partition of the topics it subscribes to (share
 * groups let several members consume one partition; the partition leaders hand each record to one
 * of them). The assignment is computed from the metadata image, so the group epoch moves when the
 * membership, a subscription or a subscribed topic's partitions change, and a member whose epoch is
 * behind gets the new assignment on its next heartbeat.
 */
public final class ShareGroupManager implements GroupTypeManager {
  private static final Logger log = LoggerFactory.getLogger(ShareGroupManager.class);

  /** The assignor name ShareGroupDescribe reports, Kafka's default share assignor. */
  static final String ASSIGNOR = "simple";

  private final ShardContext context;
  private final GroupConfig config;
  private final Groups groups;
  private final ShareGroupHeartbeat heartbeat;

  /** Each group's subscribed topics and partition counts when last looked at, by group id. */
  private final Map<String, Map<Uuid, Integer>> topicShapes = new HashMap<>();

  public ShareGroupManager(ShardContext context, GroupConfig config, Groups groups) {
    this.context = context;
    this.config = config;
    this.groups = groups;
    this.heartbeat = new ShareGroupHeartbeat(this);
  }

  ShardContext context() {
    return context;
  }

  GroupConfig config() {
    return config;
  }

  /** Kafka's group configs that the coordinator applies per share group. */
  static final String SESSION_TIMEOUT_MS = "share.session.timeout.ms";

  static final String HEARTBEAT_INTERVAL_MS = "share.heartbeat.interval.ms";

  /** The group's session timeout: its {@code share.session.timeout.ms}, else the broker's. */
  int sessionTimeoutMs(String groupId) {
    return groupInt(groupId, SESSION_TIMEOUT_MS, config.share().sessionTimeoutMs());
  }

  /** The group's heartbeat interval: its {@code share.heartbeat.interval.ms}, else the broker's. */
  int heartbeatIntervalMs(String groupId) {
    return groupInt(groupId, HEARTBEAT_INTERVAL_MS, config.share().heartbeatIntervalMs());
  }

  /** A group config from the metadata (checked by the controller when set), else the default. */
  private int groupInt(String groupId, String name, int defaultValue) {
    String value = context.image().configs(ConfigResource.Type.GROUP, groupId).get(name);
    if (value == null) {
      return defaultValue;
    }
    try {
      return Integer.parseInt(value.trim());
    } catch (NumberFormatException e) {
      return defaultValue;
    }
  }

  public Optional<ShareGroup> group(String groupId) {
    return groups.get(groupId, ShareGroup.class);
  }

  Optional<Group> anyGroup(String groupId) {
    return groups.get(groupId);
  }

  ShareGroup create(String groupId) {
    Optional<Group> other = groups.get(groupId);
    if (other.isPresent()) {
      throw new MalformedRecordException(
          "share group record for " + groupId + ", which is a " + other.get().type() + " group");
    }
    ShareGroup group = new ShareGroup(groupId, context::nowMs);
    groups.put(group);
    return group;
  }

  /**
   * Serves one ShareGroupHeartbeat; the response carries any error. Share-partitions the heartbeat
   * starts initializing are not in it (see {@link #heartbeatAndInitialize}).
   */
  public CompletableFuture<org.apache.kafka.common.message.ShareGroupHeartbeatResponseData>
      heartbeat(
          String clientId,
          String clientHost,
          org.apache.kafka.common.message.ShareGroupHeartbeatRequestData request) {
    return heartbeat.handle(clientId, clientHost, request).thenApply(HeartbeatOutcome::response);
  }

  /**
   * Serves one ShareGroupHeartbeat and says which share-partitions it started initializing: the
   * caller asks their share coordinators, then calls {@link #completeInitialization}.
   */
  public CompletableFuture<HeartbeatOutcome> heartbeatAndInitialize(
      String clientId,
      String clientHost,
      org.apache.kafka.common.message.ShareGroupHeartbeatRequestData request) {
    return heartbeat.handle(clientId, clientHost, request);
  }

  // ---- replay

  @Override
  public boolean replay(CoordinatorRecord record, long offset) {
    if (!ShareGroupRecords.handles(record.type())) {
      return false;
    }
    ShareGroupRecords.Key key = ShareGroupRecords.readKey(record);
    Optional<ShareGroup> existing = group(key.groupId());
    if (existing.isEmpty() && record.isTombstone()) {
      return true;
    }
    ShareGroup group = existing.orElseGet(() -> create(key.groupId()));
    if (record.type() == ShareGroupRecords.STATE_PARTITIONS) {
      if (record.isTombstone()) {
        group.applyStatePartitions(Map.of(), Map.of());
      } else {
        ShareGroupRecords.StatePartitions read = ShareGroupRecords.readStatePartitions(record);
        group.applyStatePartitions(read.initialized(), read.initializing());
      }
    } else if (record.type() == ShareGroupRecords.GROUP_METADATA) {
      if (record.isTombstone()) {
        groups.remove(key.groupId());
        topicShapes.remove(key.groupId());
      } else {
        group.applyGroupEpoch(ShareGroupRecords.readEpoch(record));
      }
    } else if (record.isTombstone()) {
      group.applyMemberRemoved(key.memberId());
    } else {
      group.applyMember(ShareGroupRecords.readMember(key.memberId(), record));
    }
    return true;
  }

  // ---- timers

  @Override
  public void onLoaded() {
    for (Group g : List.copyOf(groups.all())) {
      if (g instanceof ShareGroup group) {
        for (ShareGroupMember member : group.members().values()) {
          group.setMemberEpoch(member.memberId(), group.groupEpoch());
          scheduleSessionTimeout(group.groupId(), member.memberId());
        }
      }
    }
  }

  /** A subscribed topic appeared, went or grew: bump the epoch so members learn it. */
  @Override
  public void onMetadata(MetadataImage image) {
    for (Group g : List.copyOf(groups.all())) {
      if (!(g instanceof ShareGroup group) || group.isEmpty()) {
        continue;
      }
      Map<Uuid, Integer> shape = topicShape(group, image);
      Map<Uuid, Integer> before = topicShapes.put(group.groupId(), shape);
      if (before == null || before.equals(shape)) {
        continue;
      }
      log.info(
          "Subscribed topics changed groupId={} epoch={}", group.groupId(), group.groupEpoch() + 1);
      CompletableFuture<Void> unused =
          context
              .write(List.of(ShareGroupRecords.groupEpoch(group.groupId(), group.groupEpoch() + 1)))
              .whenComplete((ok, error) -> logWriteFailure(group.groupId(), error));
    }
  }

  void rememberTopicShape(ShareGroup group) {
    topicShapes.put(group.groupId(), topicShape(group, context.image()));
  }

  private static Map<Uuid, Integer> topicShape(ShareGroup group, MetadataImage image) {
    Map<Uuid, Integer> shape = new HashMap<>();
    for (ShareGroupMember member : group.members().values()) {
      for (String name : member.subscribedTopicNames()) {
        image.topic(name).ifPresent(t -> shape.put(t.id(), t.numPartitions()));
      }
    }
    return shape;
  }

  static void logWriteFailure(String groupId, Throwable error) {
    if (error != null) {
      log.warn(
          "Could not persist a share group change groupId={} error={}",
          groupId,
          CoordinatorErrors.unwrap(error).toString());
    }
  }

  void scheduleSessionTimeout(String groupId, String memberId) {
    context
        .timer()
        .schedule(
            sessionKey(groupId, memberId),
            sessionTimeoutMs(groupId),
            () -> fence(groupId, memberId));
  }

  void cancelSessionTimeout(String groupId, String memberId) {
    context.timer().cancel(sessionKey(groupId, memberId));
  }

  private static String sessionKey(String groupId, String memberId) {
    return "share-session/" + groupId + "/" + memberId;
  }

  /** Removes a member that stopped heartbeating. */
  private void fence(String groupId, String memberId) {
    Optional<ShareGroup> group = group(groupId);
    if (group.isEmpty() || group.get().member(memberId).isEmpty()) {
      return;
    }
    log.info(
        "Removing share group member groupId={} memberId={} reason=session timeout expired",
        groupId,
        memberId);
    CompletableFuture<Void> unused =
        context
            .write(removalRecords(group.get(), memberId))
            .whenComplete((ok, error) -> logWriteFailure(groupId, error));
  }

  List<CoordinatorRecord> removalRecords(ShareGroup group, String memberId) {
    return List.of(
        ShareGroupRecords.memberTombstone(group.groupId(), memberId),
        ShareGroupRecords.groupEpoch(group.groupId(), group.groupEpoch() + 1));
  }

  // ---- initializing share-partitions at their share coordinators (as Kafka 4.1+)

  /**
   * A share-partition to initialize and its start offset: -1 for a topic new to the group (its
   * leader resolves the group's {@code share.auto.offset.reset} on its first fetch), 0 for a new
   * partition of a topic the group already has state on (so nothing written to it is skipped).
   */
  public record InitPartition(Uuid topicId, int partition, long startOffset) {}

  /** What a heartbeat started: the share-partitions it asked to initialize, at a state epoch. */
  public record Initialization(
      String groupId, String memberId, int stateEpoch, List<InitPartition> partitions) {}

  /** A heartbeat's answer, and the initialization it started (null when none). */
  public record HeartbeatOutcome(
      org.apache.kafka.common.message.ShareGroupHeartbeatResponseData response,
      Initialization initialization) {}

  /**
   * The share-partitions of the group's subscribed topics that are neither initialized nor being
   * initialized (or whose initialization began more than {@code
   * group.share.initialize.retry.interval.ms} ago, or before this coordinator loaded the group), or
   * null when there are none.
   */
  Initialization toInitialize(ShareGroup group, String memberId) {
    MetadataImage image = context.image();
    long now = context.nowMs();
    long retryMs = config.share().initializeRetryIntervalMs();
    Set<String> names = new TreeSet<>();
    group.members().values().forEach(m -> names.addAll(m.subscribedTopicNames()));
    List<InitPartition> partitions = new ArrayList<>();
    for (TopicAssignment t : subscribed(names, image)) {
      boolean known =
          group.initialized().containsKey(t.topicId())
              || group.initializing().containsKey(t.topicId());
      for (int p : t.partitions()) {
        ShareGroup.PartitionId id = new ShareGroup.PartitionId(t.topicId(), p);
        long since = group.initializingSinceMs(id);
        if (group.isInitialized(id)
            || (group.isInitializing(id) && since != Long.MIN_VALUE && now - since < retryMs)) {
          continue;
        }
        // Tried again: the start offset it was first given (the topic is known by now).
        long start = group.initializingStartOffset(id).orElse(known ? 0L : -1L);
        partitions.add(new InitPartition(t.topicId(), p, start));
      }
    }
    return partitions.isEmpty()
        ? null
        : new Initialization(group.groupId(), memberId, group.groupEpoch(), partitions);
  }

  /** The type 15 record with {@code init}'s partitions added to the initializing ones. */
  CoordinatorRecord initializingRecord(ShareGroup group, Initialization init) {
    MetadataImage image = context.image();
    Map<Uuid, ShareGroup.StateTopic> added = new LinkedHashMap<>();
    for (InitPartition p : init.partitions()) {
      String name = image.topic(p.topicId()).map(TopicImage::name).orElse("");
      ShareGroup.StateTopic before = added.get(p.topicId());
      Set<Integer> partitions = new TreeSet<>();
      if (before != null) {
        partitions.addAll(before.partitions());
      }
      partitions.add(p.partition());
      added.put(p.topicId(), new ShareGroup.StateTopic(name, partitions));
    }
    return ShareGroupRecords.statePartitions(
        group.groupId(), group.initialized(), ShareGroup.merge(group.initializing(), added));
  }

  /** Notes when {@code init}'s partitions began initializing (once their record is written). */
  void markInitializing(ShareGroup group, Initialization init) {
    Map<ShareGroup.PartitionId, Long> starts = new LinkedHashMap<>();
    init.partitions()
        .forEach(
            p ->
                starts.put(
                    new ShareGroup.PartitionId(p.topicId(), p.partition()), p.startOffset()));
    group.markInitializing(starts, context.nowMs());
  }

  /**
   * After the share coordinators answered {@code init}: the share-partitions in {@code done} are
   * initialized (written with a new group epoch, so every member gets them), and the member whose
   * heartbeat started it is answered with that epoch and its assignment; those in {@code failed}
   * stay initializing and are tried again by the next heartbeat (the others not answered, after the
   * retry interval).
   *
   * @return {@code response}, updated, once the change is written
   */
  public CompletableFuture<org.apache.kafka.common.message.ShareGroupHeartbeatResponseData>
      completeInitialization(
          Initialization init,
          Set<ShareGroup.PartitionId> done,
          Set<ShareGroup.PartitionId> failed,
          org.apache.kafka.common.message.ShareGroupHeartbeatResponseData response) {
    Optional<ShareGroup> found = group(init.groupId());
    if (found.isEmpty()) {
      return CompletableFuture.completedFuture(response);
    }
    ShareGroup group = found.get();
    group.retryInitializing(failed);
    Map<Uuid, ShareGroup.StateTopic> moved = new LinkedHashMap<>();
    for (ShareGroup.PartitionId id : done) {
      if (!group.isInitializing(id)) {
        continue;
      }
      ShareGroup.StateTopic topic = group.initializing().get(id.topicId());
      Set<Integer> partitions = new TreeSet<>();
      if (moved.containsKey(id.topicId())) {
        partitions.addAll(moved.get(id.topicId()).partitions());
      }
      partitions.add(id.partition());
      moved.put(id.topicId(), new ShareGroup.StateTopic(topic.name(), partitions));
    }
    if (moved.isEmpty()) {
      return CompletableFuture.completedFuture(response);
    }
    int epoch = group.groupEpoch() + 1;
    log.info(
        "Share-partitions initialized groupId={} topics={} epoch={}",
        init.groupId(),
        moved.keySet(),
        epoch);
    CompletableFuture<Void> written =
        context.write(
            List.of(
                ShareGroupRecords.statePartitions(
                    group.groupId(),
                    ShareGroup.merge(group.initialized(), moved),
                    ShareGroup.minus(group.initializing(), moved)),
                ShareGroupRecords.groupEpoch(group.groupId(), epoch)));
    Optional<ShareGroupMember> member = group.member(init.memberId());
    if (member.isPresent() && response.errorCode() == Errors.NONE.code()) {
      group.setMemberEpoch(init.memberId(), epoch);
      response
          .setMemberEpoch(epoch)
          .setAssignment(responseAssignment(assignment(member.get(), context.image(), group)));
    }
    return written.handle(
        (ok, error) -> {
          logWriteFailure(init.groupId(), error);
          return response;
        });
  }

  /** A heartbeat answer's assignment. */
  static org.apache.kafka.common.message.ShareGroupHeartbeatResponseData.Assignment
      responseAssignment(List<TopicAssignment> assigned) {
    org.apache.kafka.common.message.ShareGroupHeartbeatResponseData.Assignment assignment =
        new org.apache.kafka.common.message.ShareGroupHeartbeatResponseData.Assignment();
    for (TopicAssignment t : assigned) {
      assignment
          .topicPartitions()
          .add(
              new org.apache.kafka.common.message.ShareGroupHeartbeatResponseData.TopicPartitions()
                  .setTopicId(t.topicId())
                  .setPartitions(t.partitions()));
    }
    return assignment;
  }

  // ---- the share-group admin APIs

  /**
   * What the share-group admin APIs see of a group: an error (GROUP_ID_NOT_FOUND when it does not
   * exist or is not a share group), or whether it is empty and its state partitions.
   */
  public record AdminView(
      Errors error,
      String message,
      boolean empty,
      Map<Uuid, ShareGroup.StateTopic> statePartitions) {
    public static AdminView failed(Errors error, String message) {
      return new AdminView(error, message, false, Map.of());
    }
  }

  /** The group as the share-group admin APIs see it. */
  public AdminView adminView(String groupId) {
    Optional<Group> any = groups.get(groupId);
    if (any.isEmpty()) {
      return AdminView.failed(Errors.GROUP_ID_NOT_FOUND, "Group " + groupId + " not found.");
    }
    if (!(any.get() instanceof ShareGroup group)) {
      return AdminView.failed(
          Errors.GROUP_ID_NOT_FOUND, "Group " + groupId + " is not a share group.");
    }
    return new AdminView(Errors.NONE, null, group.isEmpty(), group.statePartitions());
  }

  /**
   * Before an offset reset: the group must be an empty share group (it is created when it does not
   * exist, as a reset of a consumer group's offsets creates it); the partitions reset are added to
   * its state partitions.
   *
   * @return the view after the change, or the error (NON_EMPTY_GROUP, GROUP_ID_NOT_FOUND)
   */
  public CompletableFuture<AdminView> prepareReset(
      String groupId, Map<Uuid, ShareGroup.StateTopic> partitions) {
    Optional<Group> any = groups.get(groupId);
    if (any.isPresent() && !(any.get() instanceof ShareGroup)) {
      return CompletableFuture.completedFuture(
          AdminView.failed(
              Errors.GROUP_ID_NOT_FOUND, "Group " + groupId + " is not a share group."));
    }
    ShareGroup group = (ShareGroup) any.orElse(null);
    if (group != null && !group.isEmpty()) {
      return CompletableFuture.completedFuture(
          AdminView.failed(
              Errors.NON_EMPTY_GROUP,
              "The group has active members; its share offsets can only be reset when it is"
                  + " empty."));
    }
    Map<Uuid, ShareGroup.StateTopic> merged =
        group == null ? partitions : group.withStatePartitions(partitions);
    if (merged == null || merged.isEmpty()) {
      return CompletableFuture.completedFuture(adminView(groupId));
    }
    // A reset initializes them: they are initialized, no longer initializing.
    Map<Uuid, ShareGroup.StateTopic> initializing =
        group == null ? Map.of() : ShareGroup.minus(group.initializing(), partitions);
    return context
        .write(List.of(ShareGroupRecords.statePartitions(groupId, merged, initializing)))
        .thenApply(ok -> adminView(groupId));
  }

  /** After their state was deleted: {@code topicIds} leave the group's state partitions. */
  public CompletableFuture<Void> removeStateTopics(String groupId, Set<Uuid> topicIds) {
    Optional<ShareGroup> group = group(groupId);
    if (group.isEmpty()
        || topicIds.stream().noneMatch(group.get().statePartitions()::containsKey)) {
      return CompletableFuture.completedFuture(null);
    }
    Map<Uuid, ShareGroup.StateTopic> kept = new LinkedHashMap<>(group.get().initialized());
    kept.keySet().removeAll(topicIds);
    Map<Uuid, ShareGroup.StateTopic> initializing = new LinkedHashMap<>(group.get().initializing());
    initializing.keySet().removeAll(topicIds);
    return context.write(
        List.of(
            kept.isEmpty() && initializing.isEmpty()
                ? ShareGroupRecords.statePartitionsTombstone(groupId)
                : ShareGroupRecords.statePartitions(groupId, kept, initializing)));
  }

  // ---- assignment and describe

  /**
   * The member's partitions: every partition of each existing topic it subscribes to whose share
   * state is initialized (a share-partition must be initialized at its share coordinator before a
   * member is given it, as in Kafka).
   */
  static List<TopicAssignment> assignment(
      ShareGroupMember member, MetadataImage image, ShareGroup group) {
    List<TopicAssignment> out = new ArrayList<>();
    for (TopicAssignment t : subscribed(member, image)) {
      List<Integer> partitions = new ArrayList<>();
      for (int p : t.partitions()) {
        if (group.isInitialized(new ShareGroup.PartitionId(t.topicId(), p))) {
          partitions.add(p);
        }
      }
      if (!partitions.isEmpty()) {
        out.add(new TopicAssignment(t.topicId(), t.topicName(), partitions));
      }
    }
    return out;
  }

  /** Every partition of each existing (not internal) topic the member subscribes to. */
  static List<TopicAssignment> subscribed(ShareGroupMember member, MetadataImage image) {
    return subscribed(new TreeSet<>(member.subscribedTopicNames()), image);
  }

  /** Every partition of each existing (not internal) topic of {@code names}, in their order. */
  static List<TopicAssignment> subscribed(Set<String> names, MetadataImage image) {
    List<TopicAssignment> out = new ArrayList<>();
    for (String name : names) {
      if (Topic.isInternal(name)) {
        continue;
      }
      Optional<TopicImage> topic = image.topic(name);
      if (topic.isEmpty()) {
        continue;
      }
      List<Integer> partitions = new ArrayList<>(topic.get().partitions().keySet());
      partitions.sort(null);
      out.add(new TopicAssignment(topic.get().id(), name, partitions));
    }
    return out;
  }

  /** One topic of a member's assignment. */
  record TopicAssignment(Uuid topicId, String topicName, List<Integer> partitions) {}

  /** Describes one group for ShareGroupDescribe. */
  public DescribedGroup describe(String groupId) {
    DescribedGroup described = new DescribedGroup().setGroupId(groupId);
    Optional<Group> any = groups.get(groupId);
    if (any.isEmpty() || !(any.get() instanceof ShareGroup group)) {
      return described
          .setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
          .setErrorMessage(
              any.isEmpty()
                  ? "Group " + groupId + " not found."
                  : "Group " + groupId + " is not a share group.");
    }
    MetadataImage image = context.image();
    described
        .setGroupState(group.stateName())
        .setGroupEpoch(group.groupEpoch())
        .setAssignmentEpoch(group.groupEpoch())
        .setAssignorName(ASSIGNOR);
    for (ShareGroupMember member : group.members().values()) {
      ShareGroupDescribeResponseData.Assignment assignment =
          new ShareGroupDescribeResponseData.Assignment();
      for (TopicAssignment t : assignment(member, image, group)) {
        assignment
            .topicPartitions()
            .add(
                new ShareGroupDescribeResponseData.TopicPartitions()
                    .setTopicId(t.topicId())
                    .setTopicName(t.topicName())
                    .setPartitions(t.partitions()));
      }
      described
          .members()
          .add(
              new ShareGroupDescribeResponseData.Member()
                  .setMemberId(member.memberId())
                  .setRackId(member.rackId())
                  .setMemberEpoch(member.memberEpoch())
                  .setClientId(member.clientId())
                  .setClientHost(member.clientHost())
                  .setSubscribedTopicNames(List.copyOf(member.subscribedTopicNames()))
                  .setAssignment(assignment));
    }
    return described;
  }
}
