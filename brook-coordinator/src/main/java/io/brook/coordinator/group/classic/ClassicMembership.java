package io.brook.coordinator.group.classic;

import io.brook.coordinator.group.Group;
import io.brook.coordinator.group.Groups;
import io.brook.coordinator.group.classic.ClassicGroupEvent.AssignmentSubmitted;
import io.brook.coordinator.group.classic.ClassicGroupEvent.AssignmentWriteFinished;
import io.brook.coordinator.group.classic.ClassicGroupEvent.MemberHeardFrom;
import io.brook.coordinator.group.classic.ClassicGroupEvent.PendingMemberRemoved;
import io.brook.coordinator.group.classic.ClassicGroupEvent.RemovalCause;
import io.brook.coordinator.group.classic.ClassicGroupEvent.SyncReceived;
import io.brook.coordinator.group.classic.ClassicGroupRecords.PersistedGroup;
import io.brook.coordinator.group.classic.ClassicRequests.Heartbeat;
import io.brook.coordinator.group.classic.ClassicRequests.Leaving;
import io.brook.coordinator.group.classic.ClassicRequests.Sync;
import io.brook.coordinator.runtime.ShardContext;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** SyncGroup, Heartbeat, LeaveGroup and closed connections of classic group members. */
final class ClassicMembership {
  private static final Logger log = LoggerFactory.getLogger(ClassicMembership.class);

  /** The largest assignment the leader may hand one member: 1 MiB, like the metadata bound. */
  static final int MAX_MEMBER_ASSIGNMENT_BYTES = ClassicJoin.MAX_MEMBER_METADATA_BYTES;

  private final ShardContext context;
  private final Groups groups;
  private final ClassicRebalancer rebalancer;

  ClassicMembership(ShardContext context, Groups groups, ClassicRebalancer rebalancer) {
    this.context = context;
    this.groups = groups;
    this.rebalancer = rebalancer;
  }

  // ---- SyncGroup ----

  CompletableFuture<SyncResult> sync(Sync request) {
    Optional<ClassicGroup> found = groups.get(request.groupId(), ClassicGroup.class);
    if (found.isEmpty()) {
      return done(SyncResult.error(Errors.UNKNOWN_MEMBER_ID));
    }
    ClassicGroup group = found.get();
    Optional<Errors> invalid = validateSync(group, request);
    if (invalid.isPresent()) {
      return done(SyncResult.error(invalid.get()));
    }
    ClassicMember member = group.member(request.memberId()).orElseThrow();
    heardFrom(group, member, request.connectionId());
    return switch (group.state()) {
      case EMPTY, DEAD -> done(SyncResult.error(Errors.UNKNOWN_MEMBER_ID));
      case PREPARING_REBALANCE -> done(SyncResult.error(Errors.REBALANCE_IN_PROGRESS));
      case COMPLETING_REBALANCE -> syncInCompletingRebalance(group, member, request);
      case STABLE -> {
        if (group.assignmentCommitPending()) {
          CompletableFuture<SyncResult> parked = new CompletableFuture<>();
          group.apply(new SyncReceived(member.memberId(), parked));
          yield parked;
        }
        group.apply(new SyncReceived(member.memberId(), null));
        yield done(assignmentOf(group, member));
      }
    };
  }

  private static Optional<Errors> validateSync(ClassicGroup group, Sync request) {
    if (group.isInState(ClassicGroupState.DEAD)) {
      return Optional.of(Errors.COORDINATOR_NOT_AVAILABLE);
    }
    try {
      group.validateMember(request.memberId(), request.groupInstanceId());
    } catch (ApiException e) {
      return Optional.of(Errors.forException(e));
    }
    if (request.generationId() != group.generationId()) {
      return Optional.of(Errors.ILLEGAL_GENERATION);
    }
    if ((request.protocolType() != null && !request.protocolType().equals(group.protocolType()))
        || (request.protocolName() != null
            && !request.protocolName().equals(group.protocolName()))) {
      return Optional.of(Errors.INCONSISTENT_GROUP_PROTOCOL);
    }
    return Optional.empty();
  }

  private CompletableFuture<SyncResult> syncInCompletingRebalance(
      ClassicGroup group, ClassicMember member, Sync request) {
    CompletableFuture<SyncResult> result = new CompletableFuture<>();
    group.apply(new SyncReceived(member.memberId(), result));
    if (!group.isLeader(member.memberId())) {
      return result; // a follower waits for the leader's assignment
    }
    Map<String, byte[]> assignments = new HashMap<>();
    for (ClassicMember m : group.members()) {
      byte[] assignment = request.assignments().get(m.memberId());
      if (assignment != null && assignment.length > MAX_MEMBER_ASSIGNMENT_BYTES) {
        log.warn(
            "Rejecting an oversized assignment groupId={} memberId={} bytes={} maxBytes={}",
            group.groupId(),
            m.memberId(),
            assignment.length,
            MAX_MEMBER_ASSIGNMENT_BYTES);
        member.completeSync(SyncResult.error(Errors.INVALID_REQUEST));
        return result;
      }
      assignments.put(m.memberId(), assignment == null ? new byte[0] : assignment);
    }
    int generation = group.generationId();
    PersistedGroup record =
        group.persisted(
            generation,
            group.protocolName(),
            group.leaderId(),
            group.members(),
            assignments,
            context.nowMs());
    group.apply(new AssignmentSubmitted());
    CompletableFuture<Void> written = rebalancer.write(group, record);
    written.whenCompleteAsync(
        (ok, error) -> onAssignmentWritten(group, generation, error), context.executor());
    return result;
  }

  /** The leader's assignment is durable (or failed): answer every parked SyncGroup. */
  private void onAssignmentWritten(ClassicGroup group, int generation, Throwable error) {
    if (group.generationId() != generation || !group.assignmentCommitPending()) {
      return; // a rebalance started meanwhile and answered the waiters
    }
    group.apply(new AssignmentWriteFinished());
    if (error != null) {
      Errors failure = ClassicRebalancer.writeFailure(error);
      log.warn(
          "Writing the assignment failed groupId={} generation={} error={}",
          group.groupId(),
          generation,
          failure);
      for (ClassicMember m : group.members()) {
        m.completeSync(SyncResult.error(failure));
      }
      if (group.isInState(ClassicGroupState.STABLE)
          || group.isInState(ClassicGroupState.COMPLETING_REBALANCE)) {
        rebalancer.prepareRebalance(group, "writing the assignment failed");
      }
      return;
    }
    for (ClassicMember m : group.members()) {
      m.completeSync(assignmentOf(group, m));
    }
  }

  private static SyncResult assignmentOf(ClassicGroup group, ClassicMember member) {
    return new SyncResult(
        Errors.NONE, group.protocolType(), group.protocolName(), member.assignment());
  }

  // ---- Heartbeat ----

  Errors heartbeat(Heartbeat request) {
    Optional<ClassicGroup> found = groups.get(request.groupId(), ClassicGroup.class);
    if (found.isEmpty()) {
      return Errors.UNKNOWN_MEMBER_ID;
    }
    ClassicGroup group = found.get();
    if (group.isInState(ClassicGroupState.DEAD)) {
      return Errors.COORDINATOR_NOT_AVAILABLE;
    }
    try {
      group.validateMember(request.memberId(), request.groupInstanceId());
    } catch (ApiException e) {
      return Errors.forException(e);
    }
    if (request.generationId() != group.generationId()) {
      return Errors.ILLEGAL_GENERATION;
    }
    ClassicMember member = group.member(request.memberId()).orElseThrow();
    heardFrom(group, member, request.connectionId());
    return switch (group.state()) {
      case EMPTY, DEAD -> Errors.UNKNOWN_MEMBER_ID;
      case PREPARING_REBALANCE -> {
        rebalancer.scheduleSession(group, member);
        yield Errors.REBALANCE_IN_PROGRESS;
      }
      case COMPLETING_REBALANCE, STABLE -> {
        rebalancer.scheduleSession(group, member);
        yield Errors.NONE;
      }
    };
  }

  // ---- LeaveGroup ----

  /** The outcome of a LeaveGroup: a group-level error, else one error per member. */
  record LeaveResult(Errors error, List<Errors> memberErrors) {}

  LeaveResult leave(String groupId, List<Leaving> leaving) {
    Optional<ClassicGroup> found = groups.get(groupId, ClassicGroup.class);
    if (found.isEmpty()) {
      return new LeaveResult(Errors.UNKNOWN_MEMBER_ID, List.of());
    }
    ClassicGroup group = found.get();
    if (group.isInState(ClassicGroupState.DEAD)) {
      return new LeaveResult(Errors.COORDINATOR_NOT_AVAILABLE, List.of());
    }
    List<Errors> errors = new ArrayList<>();
    List<ClassicMember> removed = new ArrayList<>();
    boolean pendingRemoved = false;
    for (Leaving l : leaving) {
      String memberId = l.memberId() == null ? "" : l.memberId();
      if (l.groupInstanceId() == null && group.isPendingMember(memberId)) {
        group.apply(new PendingMemberRemoved(memberId));
        context.timer().cancel(ClassicRebalancer.pendingKey(groupId, memberId));
        pendingRemoved = true;
        errors.add(Errors.NONE);
        continue;
      }
      Errors error = validateLeaving(group, memberId, l.groupInstanceId());
      errors.add(error);
      if (error == Errors.NONE) {
        String id =
            l.groupInstanceId() == null ? memberId : group.staticMemberId(l.groupInstanceId());
        group.member(id).filter(m -> !removed.contains(m)).ifPresent(removed::add);
      }
    }
    for (ClassicMember m : removed) {
      log.info(
          "Member left groupId={} memberId={} groupInstanceId={}",
          groupId,
          m.memberId(),
          m.groupInstanceId());
      rebalancer.forget(group, m, RemovalCause.LEFT);
    }
    if (!removed.isEmpty() || pendingRemoved) {
      switch (group.state()) {
        case STABLE, COMPLETING_REBALANCE ->
            rebalancer.prepareRebalance(group, removed.size() + " member(s) left the group");
        case PREPARING_REBALANCE -> rebalancer.maybeCompleteJoin(group);
        default -> {}
      }
    }
    return new LeaveResult(Errors.NONE, errors);
  }

  private static Errors validateLeaving(
      ClassicGroup group, String memberId, String groupInstanceId) {
    if (groupInstanceId == null) {
      return group.hasMember(memberId) ? Errors.NONE : Errors.UNKNOWN_MEMBER_ID;
    }
    String current = group.staticMemberId(groupInstanceId);
    if (current == null) {
      return Errors.UNKNOWN_MEMBER_ID;
    }
    if (!memberId.isEmpty() && !Objects.equals(current, memberId)) {
      return Errors.FENCED_INSTANCE_ID;
    }
    return Errors.NONE;
  }

  // ---- closed connections ----

  /**
   * Brook's fast failure detection: a dynamic member whose latest coordinator connection closed is
   * removed after {@code deadConnectionGraceMs} unless a request on another connection shows it is
   * alive. Static members keep their session timeout.
   */
  void onConnectionClosed(String connectionId) {
    for (Group g : List.copyOf(groups.all())) {
      if (g instanceof ClassicGroup group) {
        for (ClassicMember m : group.members()) {
          if (!m.isStatic() && connectionId.equals(m.connectionId())) {
            rebalancer.scheduleConnectionGrace(group, m, connectionId);
          }
        }
      }
    }
  }

  /** The member's latest request came on this connection (null: the caller does not know). */
  static void heardFrom(ClassicGroup group, ClassicMember member, String connectionId) {
    if (connectionId != null) {
      group.apply(new MemberHeardFrom(member.memberId(), connectionId));
    }
  }

  private static <T> CompletableFuture<T> done(T value) {
    return CompletableFuture.completedFuture(value);
  }
}
