package io.brook.coordinator.group.share;

import io.brook.coordinator.group.Group;
import io.brook.coordinator.group.consumer.CoordinatorErrors;
import io.brook.coordinator.runtime.CoordinatorRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.FencedMemberEpochException;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.GroupMaxSizeReachedException;
import org.apache.kafka.common.errors.InconsistentGroupProtocolException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.UnknownMemberIdException;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * ShareGroupHeartbeat: join (member epoch 0, with the member id the client chose), heartbeat, and
 * leave (-1). A join, a leave, or a change of subscription or rack writes the member's record and a
 * new group epoch; the answer goes out once they are committed.
 *
 * <p>Epochs: a member is answered with the group epoch and, whenever that is newer than the epoch
 * it sent (or it joined), its whole assignment. An epoch above the member's is fenced
 * (FENCED_MEMBER_EPOCH). An older one is accepted and answered with the current assignment: a share
 * group never revokes (partitions are shared, records are locked one by one at the leaders), so a
 * member that missed an answer only needs the latest assignment, and members loaded after a
 * coordinator move start at the loaded group epoch.
 *
 * <p>A member is assigned only share-partitions whose state is initialized at their share
 * coordinators. A heartbeat that finds partitions of the group's topics without state records them
 * as initializing and returns them ({@link ShareGroupManager.Initialization}); the caller has them
 * initialized and completes it ({@link ShareGroupManager#completeInitialization}), which moves them
 * to initialized with a new group epoch.
 */
final class ShareGroupHeartbeat {
  static final int LEAVE_EPOCH = -1;

  private final ShareGroupManager manager;

  ShareGroupHeartbeat(ShareGroupManager manager) {
    this.manager = manager;
  }

  CompletableFuture<ShareGroupManager.HeartbeatOutcome> handle(
      String clientId, String clientHost, ShareGroupHeartbeatRequestData request) {
    List<CompletableFuture<Void>> writes = new ArrayList<>();
    ShareGroupHeartbeatResponseData response;
    ShareGroupManager.Initialization[] init = new ShareGroupManager.Initialization[1];
    try {
      validate(request);
      response =
          request.memberEpoch() == LEAVE_EPOCH
              ? leave(request, writes)
              : joinOrHeartbeat(clientId, clientHost, request, writes, init);
    } catch (ApiException e) {
      return CompletableFuture.completedFuture(
          new ShareGroupManager.HeartbeatOutcome(
              error(Errors.forException(e), e.getMessage()), null));
    }
    return CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new))
        .handle(
            (ok, failure) ->
                failure == null
                    ? new ShareGroupManager.HeartbeatOutcome(response, init[0])
                    : new ShareGroupManager.HeartbeatOutcome(
                        error(CoordinatorErrors.map(failure), null), null));
  }

  static ShareGroupHeartbeatResponseData error(Errors error, String message) {
    return new ShareGroupHeartbeatResponseData()
        .setErrorCode(error.code())
        .setErrorMessage(message == null ? error.message() : message);
  }

  /** Kafka's checks of the request's fields. */
  private static void validate(ShareGroupHeartbeatRequestData request) {
    if (request.groupId() == null || request.groupId().isEmpty()) {
      throw new InvalidRequestException("GroupId can't be empty.");
    }
    if (request.memberId() == null || request.memberId().isEmpty()) {
      throw new InvalidRequestException("MemberId can't be empty.");
    }
    if (request.rackId() != null && request.rackId().isEmpty()) {
      throw new InvalidRequestException("RackId can't be empty.");
    }
    if (request.memberEpoch() == 0) {
      if (request.subscribedTopicNames() == null || request.subscribedTopicNames().isEmpty()) {
        throw new InvalidRequestException("SubscribedTopicNames must be set in first request.");
      }
    } else if (request.memberEpoch() < LEAVE_EPOCH) {
      throw new InvalidRequestException("MemberEpoch is invalid.");
    }
  }

  private ShareGroupHeartbeatResponseData leave(
      ShareGroupHeartbeatRequestData request, List<CompletableFuture<Void>> writes) {
    ShareGroup group = existing(request.groupId());
    if (group.member(request.memberId()).isPresent()) {
      manager.cancelSessionTimeout(group.groupId(), request.memberId());
      write(manager.removalRecords(group, request.memberId()), writes);
      manager.rememberTopicShape(group);
    }
    return new ShareGroupHeartbeatResponseData()
        .setMemberId(request.memberId())
        .setMemberEpoch(LEAVE_EPOCH);
  }

  private ShareGroupHeartbeatResponseData joinOrHeartbeat(
      String clientId,
      String clientHost,
      ShareGroupHeartbeatRequestData request,
      List<CompletableFuture<Void>> writes,
      ShareGroupManager.Initialization[] init) {
    String groupId = request.groupId();
    String memberId = request.memberId();
    boolean joining = request.memberEpoch() == 0;
    Optional<Group> any = manager.anyGroup(groupId);
    if (any.isPresent() && !(any.get() instanceof ShareGroup)) {
      throw new InconsistentGroupProtocolException(
          "Group " + groupId + " is a " + any.get().type().wireName() + " group.");
    }
    if (any.isEmpty() && !joining) {
      throw new GroupIdNotFoundException("Share group " + groupId + " not found.");
    }
    ShareGroup group = (ShareGroup) any.orElse(null);
    Optional<ShareGroupMember> before = group == null ? Optional.empty() : group.member(memberId);
    if (before.isEmpty()) {
      if (!joining) {
        throw new UnknownMemberIdException(
            "Member " + memberId + " is not a member of share group " + groupId + ".");
      }
      int size = group == null ? 0 : group.size();
      if (size >= manager.config().share().maxSize()) {
        throw new GroupMaxSizeReachedException(
            "The share group has reached its maximum capacity of "
                + manager.config().share().maxSize()
                + " members.");
      }
    } else if (request.memberEpoch() > before.get().memberEpoch()) {
      throw new FencedMemberEpochException(
          "The share group member has a greater member epoch ("
              + request.memberEpoch()
              + ") than the one known by the group coordinator ("
              + before.get().memberEpoch()
              + ").");
    }
    ShareGroupMember updated =
        new ShareGroupMember(
            memberId,
            before.map(ShareGroupMember::memberEpoch).orElse(0),
            request.rackId() != null
                ? request.rackId()
                : before.map(ShareGroupMember::rackId).orElse(null),
            clientId,
            clientHost,
            request.subscribedTopicNames() != null
                ? request.subscribedTopicNames()
                : before.map(ShareGroupMember::subscribedTopicNames).orElse(List.of()));
    if (before.isEmpty() || !before.get().sameMetadata(updated)) {
      int epoch = group == null ? 1 : group.groupEpoch() + 1;
      write(
          List.of(
              ShareGroupRecords.member(groupId, updated),
              ShareGroupRecords.groupEpoch(groupId, epoch)),
          writes);
      group = manager.group(groupId).orElseThrow();
      manager.rememberTopicShape(group);
    }
    int epoch = group.groupEpoch();
    group.setMemberEpoch(memberId, epoch);
    manager.scheduleSessionTimeout(groupId, memberId);
    ShareGroupHeartbeatResponseData response =
        new ShareGroupHeartbeatResponseData()
            .setMemberId(memberId)
            .setMemberEpoch(epoch)
            .setHeartbeatIntervalMs(manager.heartbeatIntervalMs(groupId));
    // Share-partitions of the group's topics without state are initialized first (recorded as
    // initializing now, initialized once their share coordinators answered); members are only
    // given initialized ones.
    ShareGroupManager.Initialization initialization = manager.toInitialize(group, memberId);
    if (initialization != null) {
      write(List.of(manager.initializingRecord(group, initialization)), writes);
      manager.markInitializing(group, initialization);
      init[0] = initialization;
    }
    if (joining || request.memberEpoch() != epoch) {
      response.setAssignment(
          ShareGroupManager.responseAssignment(
              ShareGroupManager.assignment(
                  group.member(memberId).orElseThrow(), manager.context().image(), group)));
    }
    return response;
  }

  private ShareGroup existing(String groupId) {
    Optional<Group> any = manager.anyGroup(groupId);
    if (any.isEmpty()) {
      throw new GroupIdNotFoundException("Share group " + groupId + " not found.");
    }
    if (!(any.get() instanceof ShareGroup group)) {
      throw new InconsistentGroupProtocolException(
          "Group " + groupId + " is a " + any.get().type().wireName() + " group.");
    }
    return group;
  }

  /** Appends and replays {@code records}; a refused append is thrown at once. */
  private void write(List<CoordinatorRecord> records, List<CompletableFuture<Void>> writes) {
    CompletableFuture<Void> future = manager.context().write(records);
    if (future.isCompletedExceptionally()) {
      Throwable error = CoordinatorErrors.unwrap(future.handle((v, e) -> e).getNow(null));
      if (error instanceof ApiException api) {
        throw api;
      }
      throw new org.apache.kafka.common.errors.CoordinatorNotAvailableException(
          "coordinator write failed: " + error);
    }
    writes.add(future);
  }
}
