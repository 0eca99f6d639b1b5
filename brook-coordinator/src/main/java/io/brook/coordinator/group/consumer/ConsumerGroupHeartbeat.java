package io.brook.coordinator.group.consumer;

import io.brook.coordinator.group.Group;
import io.brook.coordinator.group.GroupType;
import io.brook.coordinator.group.assignor.TopicIdPartition;
import io.brook.coordinator.runtime.CoordinatorRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.FencedMemberEpochException;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.GroupMaxSizeReachedException;
import org.apache.kafka.common.errors.UnknownMemberIdException;
import org.apache.kafka.common.errors.UnreleasedInstanceIdException;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ConsumerGroupHeartbeat: join (member epoch 0), heartbeat, leave (-1) and static leave (-2).
 *
 * <p>A heartbeat runs in three steps, each written (and so replayed) before the next reads the
 * state: (1) update the member and the group's subscribed topics, bumping the group epoch when the
 * membership, a subscription or a subscribed topic changed; (2) if the group epoch is past the
 * assignment epoch, compute a new target assignment; (3) reconcile this member toward its target
 * ({@link MemberReconciler}). The response goes out once every write is committed.
 */
final class ConsumerGroupHeartbeat {
  private static final Logger log = LoggerFactory.getLogger(ConsumerGroupHeartbeat.class);

  static final int LEAVE_EPOCH = -1;
  static final int STATIC_LEAVE_EPOCH = -2;

  private final ConsumerGroupManager manager;
  private final HeartbeatValidator validator;

  ConsumerGroupHeartbeat(ConsumerGroupManager manager) {
    this.manager = manager;
    this.validator = new HeartbeatValidator(manager.assignors(), manager.resolver());
  }

  CompletableFuture<ConsumerGroupHeartbeatResponseData> handle(
      HeartbeatClient client, ConsumerGroupHeartbeatRequestData request) {
    PendingWrites writes = new PendingWrites(manager.context());
    ConsumerGroupHeartbeatResponseData response;
    try {
      validator.validate(request, client.apiVersion());
      response =
          request.memberEpoch() < 0
              ? leave(request, writes)
              : joinOrHeartbeat(client, request, writes);
    } catch (ApiException e) {
      return CompletableFuture.completedFuture(error(Errors.forException(e), e.getMessage()));
    }
    return writes
        .allCommitted()
        .handle(
            (ok, failure) ->
                failure == null ? response : error(CoordinatorErrors.map(failure), null));
  }

  static ConsumerGroupHeartbeatResponseData error(Errors error, String message) {
    return new ConsumerGroupHeartbeatResponseData()
        .setErrorCode(error.code())
        .setErrorMessage(message == null ? error.message() : message);
  }

  // ---- join and heartbeat

  private ConsumerGroupHeartbeatResponseData joinOrHeartbeat(
      HeartbeatClient client, ConsumerGroupHeartbeatRequestData request, PendingWrites writes) {
    String groupId = request.groupId();
    boolean joining = request.memberEpoch() == 0;
    ConsumerGroup group = groupFor(groupId, joining, writes);
    String memberId =
        request.memberId().isEmpty() ? Uuid.randomUuid().toString() : request.memberId();
    if (group.size() >= manager.config().consumerMaxSize() && group.member(memberId).isEmpty()) {
      throw new GroupMaxSizeReachedException(
          "group "
              + groupId
              + " has reached its maximum size of "
              + manager.config().consumerMaxSize()
              + " members");
    }
    Set<TopicIdPartition> owned = owned(request);
    ConsumerGroupMember before =
        request.instanceId() == null
            ? dynamicMember(group, memberId, request.memberEpoch(), owned)
            : staticMember(group, memberId, request, owned, writes);
    updateMember(group, before, client, request, writes);
    group = manager.group(groupId).orElseThrow();
    if (group.groupEpoch() > group.assignmentEpoch()) {
      writes.write(TargetAssignments.update(group, manager.assignorOf(group), manager.resolver()));
    }
    ConsumerGroupMember member = group.member(memberId).orElseThrow();
    MemberAssignment next =
        MemberReconciler.reconcile(
            member.assignment(),
            group.assignmentEpoch(),
            group.targetAssignment(memberId),
            owned,
            group::ownerOf,
            memberId);
    if (!next.equals(member.assignment())) {
      writes.write(List.of(ConsumerGroupRecords.currentAssignment(groupId, memberId, next)));
      member = group.member(memberId).orElseThrow();
    }
    updateTimers(groupId, member, client);
    ConsumerGroupHeartbeatResponseData response =
        new ConsumerGroupHeartbeatResponseData()
            .setMemberId(memberId)
            .setMemberEpoch(next.memberEpoch())
            .setHeartbeatIntervalMs(manager.config().consumerHeartbeatIntervalMs());
    if (isFullRequest(request) || !next.assigned().equals(before.assignment().assigned())) {
      response.setAssignment(assignment(next.assigned()));
    }
    return response;
  }

  /** The group to join or heartbeat to; an empty classic group of that id is replaced. */
  private ConsumerGroup groupFor(String groupId, boolean joining, PendingWrites writes) {
    Optional<Group> any = manager.anyGroup(groupId);
    if (any.isPresent() && any.get() instanceof ConsumerGroup group) {
      return group;
    }
    if (!joining) {
      throw new GroupIdNotFoundException("consumer group " + groupId + " does not exist");
    }
    if (any.isPresent()) {
      // A share group keeps its id even when empty (its state lives at the partition leaders).
      if (!any.get().isEmpty() || any.get().type() == GroupType.SHARE) {
        throw new GroupIdNotFoundException("Group " + groupId + " is not a consumer group.");
      }
      log.info("Replacing an empty classic group by a consumer group groupId={}", groupId);
      writes.write(any.get().tombstones());
    }
    // Not registered: the records written for the first member create the group on replay.
    return new ConsumerGroup(groupId, manager.context()::nowMs);
  }

  private static ConsumerGroupMember dynamicMember(
      ConsumerGroup group, String memberId, int epoch, Set<TopicIdPartition> owned) {
    Optional<ConsumerGroupMember> existing = group.member(memberId);
    if (existing.isEmpty()) {
      if (epoch != 0) {
        throw new UnknownMemberIdException(
            "member " + memberId + " is not a member of group " + group.groupId());
      }
      return ConsumerGroupMember.joining(memberId);
    }
    checkEpoch(existing.get(), epoch, owned);
    return existing.get();
  }

  private ConsumerGroupMember staticMember(
      ConsumerGroup group,
      String memberId,
      ConsumerGroupHeartbeatRequestData request,
      Set<TopicIdPartition> owned,
      PendingWrites writes) {
    String instanceId = request.instanceId();
    Optional<ConsumerGroupMember> holder = group.staticMember(instanceId);
    if (request.memberEpoch() != 0) {
      if (holder.isEmpty()) {
        throw new UnknownMemberIdException("instance id " + instanceId + " is unknown");
      }
      if (!holder.get().memberId().equals(memberId)) {
        throw new FencedInstanceIdException(
            "instance id " + instanceId + " belongs to member " + holder.get().memberId());
      }
      checkEpoch(holder.get(), request.memberEpoch(), owned);
      return holder.get();
    }
    if (holder.isEmpty()) {
      return dynamicMember(group, memberId, 0, owned);
    }
    ConsumerGroupMember old = holder.get();
    if (old.memberEpoch() != STATIC_LEAVE_EPOCH) {
      throw new UnreleasedInstanceIdException(
          "instance id " + instanceId + " is still used by member " + old.memberId());
    }
    // The static member is back: the new member id takes over its subscription, its partitions
    // and the epoch it had when it left, so nothing moves if the target did not change meanwhile.
    // It is marked as waiting for partitions so that reconciling it compares it with its target.
    int lastEpoch = old.assignment().previousMemberEpoch();
    ConsumerGroupMember replacement =
        new ConsumerGroupMember(
            memberId,
            old.subscription(),
            new MemberAssignment(
                lastEpoch,
                lastEpoch,
                MemberState.UNRELEASED_PARTITIONS,
                old.assignment().assigned(),
                new TreeSet<>()));
    String groupId = group.groupId();
    manager.cancelTimers(groupId, old.memberId());
    List<CoordinatorRecord> records =
        new ArrayList<>(ConsumerGroupRecords.memberTombstones(groupId, old.memberId()));
    records.add(ConsumerGroupRecords.memberMetadata(groupId, memberId, replacement.subscription()));
    records.add(
        ConsumerGroupRecords.targetAssignment(
            groupId, memberId, group.targetAssignment(old.memberId())));
    records.add(
        ConsumerGroupRecords.currentAssignment(groupId, memberId, replacement.assignment()));
    writes.write(records);
    log.info(
        "Static member rejoined groupId={} instanceId={} oldMemberId={} memberId={}",
        groupId,
        instanceId,
        old.memberId(),
        memberId);
    return replacement;
  }

  /**
   * Kafka's epoch check: an epoch ahead of the coordinator's is fenced; one behind is accepted only
   * if it is the previous epoch and the member owns nothing outside its assignment (the response
   * that bumped it was lost).
   */
  private static void checkEpoch(
      ConsumerGroupMember member, int epoch, Set<TopicIdPartition> owned) {
    MemberAssignment a = member.assignment();
    if (epoch > a.memberEpoch()) {
      throw new FencedMemberEpochException(
          "member epoch " + epoch + " is ahead of the coordinator's " + a.memberEpoch());
    }
    if (epoch < a.memberEpoch()
        && (epoch != a.previousMemberEpoch()
            || owned == null
            || !a.assigned().containsAll(owned))) {
      throw new FencedMemberEpochException(
          "member epoch " + epoch + " is behind the coordinator's " + a.memberEpoch());
    }
  }

  /** Step 1: the member's metadata, the group's subscribed topics, and the group epoch. */
  private void updateMember(
      ConsumerGroup group,
      ConsumerGroupMember member,
      HeartbeatClient client,
      ConsumerGroupHeartbeatRequestData request,
      PendingWrites writes) {
    String groupId = group.groupId();
    MemberSubscription old = member.subscription();
    MemberSubscription updated = updatedSubscription(old, client, request);
    boolean isNew = group.member(member.memberId()).isEmpty();
    List<CoordinatorRecord> records = new ArrayList<>();
    if (isNew || !updated.equals(old)) {
      records.add(ConsumerGroupRecords.memberMetadata(groupId, member.memberId(), updated));
    }
    boolean bump = group.groupEpoch() == 0 || isNew || updated.subscriptionDiffers(old);
    if (bump || manager.imageChangedSinceLastCheck(group)) {
      List<MemberSubscription> all = new ArrayList<>();
      group
          .members()
          .forEach(
              (id, m) -> {
                if (!id.equals(member.memberId())) {
                  all.add(m.subscription());
                }
              });
      all.add(updated);
      SortedMap<String, TopicMetadata> metadata =
          manager.resolver().metadata(all, manager.context().image());
      if (!metadata.equals(group.subscriptionMetadata())) {
        records.add(ConsumerGroupRecords.partitionMetadata(groupId, metadata.values()));
        bump = true;
      }
    }
    if (bump) {
      records.add(ConsumerGroupRecords.groupEpoch(groupId, group.groupEpoch() + 1));
      log.info(
          "Bumping consumer group epoch groupId={} epoch={} memberId={} newMember={}",
          groupId,
          group.groupEpoch() + 1,
          member.memberId(),
          isNew);
    }
    writes.write(records);
    manager.markImageChecked(groupId);
  }

  private static MemberSubscription updatedSubscription(
      MemberSubscription old, HeartbeatClient client, ConsumerGroupHeartbeatRequestData request) {
    List<String> names = old.subscribedTopicNames();
    String regex = old.subscribedTopicRegex();
    if (request.subscribedTopicNames() != null) {
      names = request.subscribedTopicNames();
      if (request.subscribedTopicRegex() == null) {
        regex = null;
      }
    }
    if (request.subscribedTopicRegex() != null) {
      regex = request.subscribedTopicRegex().isEmpty() ? null : request.subscribedTopicRegex();
      if (request.subscribedTopicNames() == null) {
        names = List.of();
      }
    }
    return new MemberSubscription(
        request.instanceId() != null ? request.instanceId() : old.instanceId(),
        request.rackId() != null ? request.rackId() : old.rackId(),
        Objects.requireNonNullElse(client.clientId(), ""),
        Objects.requireNonNullElse(client.clientHost(), ""),
        names,
        regex,
        request.rebalanceTimeoutMs() != -1
            ? request.rebalanceTimeoutMs()
            : old.rebalanceTimeoutMs(),
        request.serverAssignor() != null ? request.serverAssignor() : old.serverAssignor());
  }

  private void updateTimers(String groupId, ConsumerGroupMember member, HeartbeatClient client) {
    manager.scheduleSessionTimeout(
        groupId, member.memberId(), manager.sessionTimeoutMs(), ConsumerGroupManager.SESSION);
    manager.trackConnection(groupId, member.memberId(), client.connectionId());
    if (member.assignment().state() == MemberState.UNREVOKED_PARTITIONS) {
      if (!manager.rebalanceTimeoutScheduled(groupId, member.memberId())) {
        manager.scheduleRebalanceTimeout(groupId, member);
      }
    } else {
      manager.cancelRebalanceTimeout(groupId, member.memberId());
    }
  }

  private static boolean isFullRequest(ConsumerGroupHeartbeatRequestData request) {
    return request.memberEpoch() == 0
        || (request.rebalanceTimeoutMs() != -1
            && (request.subscribedTopicNames() != null || request.subscribedTopicRegex() != null)
            && request.topicPartitions() != null);
  }

  private static Set<TopicIdPartition> owned(ConsumerGroupHeartbeatRequestData request) {
    if (request.topicPartitions() == null) {
      return null;
    }
    Set<TopicIdPartition> owned = new TreeSet<>();
    for (ConsumerGroupHeartbeatRequestData.TopicPartitions tp : request.topicPartitions()) {
      for (int p : tp.partitions()) {
        owned.add(new TopicIdPartition(tp.topicId(), p));
      }
    }
    return owned;
  }

  static ConsumerGroupHeartbeatResponseData.Assignment assignment(
      SortedSet<TopicIdPartition> partitions) {
    ConsumerGroupHeartbeatResponseData.Assignment out =
        new ConsumerGroupHeartbeatResponseData.Assignment();
    ConsumerGroupRecords.byTopic(partitions)
        .forEach(
            (topicId, ids) ->
                out.topicPartitions()
                    .add(
                        new ConsumerGroupHeartbeatResponseData.TopicPartitions()
                            .setTopicId(topicId)
                            .setPartitions(ids)));
    return out;
  }

  // ---- leave

  private ConsumerGroupHeartbeatResponseData leave(
      ConsumerGroupHeartbeatRequestData request, PendingWrites writes) {
    String groupId = request.groupId();
    ConsumerGroup group =
        manager
            .group(groupId)
            .orElseThrow(
                () ->
                    new GroupIdNotFoundException("consumer group " + groupId + " does not exist"));
    String memberId = request.memberId();
    ConsumerGroupMember member;
    if (request.instanceId() == null) {
      member =
          group
              .member(memberId)
              .orElseThrow(
                  () -> new UnknownMemberIdException("member " + memberId + " is unknown"));
    } else {
      member =
          group
              .staticMember(request.instanceId())
              .orElseThrow(
                  () ->
                      new UnknownMemberIdException(
                          "instance id " + request.instanceId() + " is unknown"));
      if (!member.memberId().equals(memberId)) {
        throw new FencedInstanceIdException(
            "instance id " + request.instanceId() + " belongs to member " + member.memberId());
      }
    }
    if (request.memberEpoch() == STATIC_LEAVE_EPOCH) {
      // Keeps its partitions for the session timeout (what it was revoking is released now) and
      // remembers its epoch as the previous one, for the process that takes its place.
      MemberAssignment a = member.assignment();
      MemberAssignment left =
          new MemberAssignment(
              STATIC_LEAVE_EPOCH,
              a.memberEpoch(),
              MemberState.STABLE,
              a.assigned(),
              new TreeSet<>());
      writes.write(List.of(ConsumerGroupRecords.currentAssignment(groupId, memberId, left)));
      manager.cancelRebalanceTimeout(groupId, memberId);
      log.info("Static member left temporarily groupId={} memberId={}", groupId, memberId);
    } else {
      manager.cancelTimers(groupId, memberId);
      writes.write(manager.removalRecords(group, memberId));
      log.info("Member left consumer group groupId={} memberId={}", groupId, memberId);
    }
    return new ConsumerGroupHeartbeatResponseData()
        .setMemberId(memberId)
        .setMemberEpoch(request.memberEpoch());
  }
}
