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

  /** Serves one ShareGroupHeartbeat; the response carries any error. */
  public CompletableFuture<org.apache.kafka.common.message.ShareGroupHeartbeatResponseData>
      heartbeat(
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
      group.applyStatePartitions(
          record.isTombstone() ? Map.of() : ShareGroupRecords.readStatePartitions(record));
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
            config.share().sessionTimeoutMs(),
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
    return context
        .write(List.of(ShareGroupRecords.statePartitions(groupId, merged)))
        .thenApply(ok -> adminView(groupId));
  }

  /** After their state was deleted: {@code topicIds} leave the group's state partitions. */
  public CompletableFuture<Void> removeStateTopics(String groupId, Set<Uuid> topicIds) {
    Optional<ShareGroup> group = group(groupId);
    if (group.isEmpty()
        || topicIds.stream().noneMatch(group.get().statePartitions()::containsKey)) {
      return CompletableFuture.completedFuture(null);
    }
    Map<Uuid, ShareGroup.StateTopic> kept = new LinkedHashMap<>(group.get().statePartitions());
    kept.keySet().removeAll(topicIds);
    return context.write(
        List.of(
            kept.isEmpty()
                ? ShareGroupRecords.statePartitionsTombstone(groupId)
                : ShareGroupRecords.statePartitions(groupId, kept)));
  }

  // ---- assignment and describe

  /** The member's partitions: every partition of each existing topic it subscribes to. */
  static List<TopicAssignment> assignment(ShareGroupMember member, MetadataImage image) {
    List<TopicAssignment> out = new ArrayList<>();
    for (String name : new TreeSet<>(member.subscribedTopicNames())) {
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
      for (TopicAssignment t : assignment(member, image)) {
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
