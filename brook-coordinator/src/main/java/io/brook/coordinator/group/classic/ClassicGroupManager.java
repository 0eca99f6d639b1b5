package io.brook.coordinator.group.classic;

import io.brook.coordinator.group.Group;
import io.brook.coordinator.group.GroupConfig;
import io.brook.coordinator.group.GroupTypeManager;
import io.brook.coordinator.group.Groups;
import io.brook.coordinator.group.classic.ClassicGroupEvent.AssignmentInstalled;
import io.brook.coordinator.group.classic.ClassicGroupEvent.GenerationCompleted;
import io.brook.coordinator.group.classic.ClassicGroupEvent.GroupDeleted;
import io.brook.coordinator.group.classic.ClassicGroupEvent.GroupEmptied;
import io.brook.coordinator.group.classic.ClassicGroupEvent.GroupLoaded;
import io.brook.coordinator.group.classic.ClassicGroupEvent.GroupUnloaded;
import io.brook.coordinator.group.classic.ClassicGroupEvent.StaticMemberReplaced;
import io.brook.coordinator.group.classic.ClassicGroupRecords.PersistedGroup;
import io.brook.coordinator.group.classic.ClassicRequests.Heartbeat;
import io.brook.coordinator.group.classic.ClassicRequests.Join;
import io.brook.coordinator.group.classic.ClassicRequests.Leaving;
import io.brook.coordinator.group.classic.ClassicRequests.Sync;
import io.brook.coordinator.group.offsets.OffsetStore;
import io.brook.coordinator.runtime.CoordinatorRecord;
import io.brook.coordinator.runtime.ShardContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The classic group protocol of one shard: JoinGroup, SyncGroup, Heartbeat, LeaveGroup and
 * DescribeGroups, and the replay of classic group records (type 2) as {@link ClassicGroupEvent}s.
 * Runs on the shard's thread, the one thread its groups live on; answers that must wait (the join
 * barrier, followers waiting for the leader's assignment) are futures completed later on that
 * thread.
 */
public final class ClassicGroupManager implements GroupTypeManager {
  private static final Logger log = LoggerFactory.getLogger(ClassicGroupManager.class);

  private final ShardContext context;
  private final Groups groups;
  private final OffsetStore offsets;
  private final ClassicRebalancer rebalancer;
  private final ClassicJoin joins;
  private final ClassicMembership membership;

  /** Whether the shard finished loading: group records replayed before that restore groups. */
  private boolean loaded;

  public ClassicGroupManager(
      ShardContext context, GroupConfig config, Groups groups, OffsetStore offsets) {
    this.context = context;
    this.groups = groups;
    this.offsets = offsets;
    this.rebalancer = new ClassicRebalancer(context, config, groups);
    this.joins = new ClassicJoin(context, config, groups, rebalancer);
    this.membership = new ClassicMembership(context, groups, rebalancer);
  }

  /** The classic group of that id, if there is one. */
  public Optional<ClassicGroup> group(String groupId) {
    return groups.get(groupId, ClassicGroup.class);
  }

  public CompletableFuture<JoinResult> join(Join request) {
    return joins.join(request);
  }

  public CompletableFuture<SyncResult> sync(Sync request) {
    return membership.sync(request);
  }

  public Errors heartbeat(Heartbeat request) {
    return membership.heartbeat(request);
  }

  /**
   * LeaveGroup of one or more members.
   *
   * @return a group-level error (UNKNOWN_MEMBER_ID for an unknown group), else NONE and one error
   *     per member in request order
   */
  public LeaveOutcome leave(String groupId, List<Leaving> members) {
    ClassicMembership.LeaveResult result = membership.leave(groupId, members);
    return new LeaveOutcome(result.error(), result.memberErrors());
  }

  /** What LeaveGroup answers. */
  public record LeaveOutcome(Errors error, List<Errors> memberErrors) {}

  /** One member in a DescribeGroups answer. */
  public record DescribedMember(
      String memberId,
      String groupInstanceId,
      String clientId,
      String clientHost,
      byte[] metadata,
      byte[] assignment) {}

  /**
   * One group in a DescribeGroups answer.
   *
   * @param found false for an unknown id (or a group of another protocol): Kafka answers "Dead"
   */
  public record DescribedGroup(
      String groupId,
      boolean found,
      String state,
      String protocolType,
      String protocolData,
      List<DescribedMember> members) {}

  /**
   * Describes a group as Kafka does: members with metadata and assignment only when Stable; a group
   * that exists only through committed offsets is Empty with protocol type "".
   */
  public DescribedGroup describe(String groupId) {
    Optional<Group> any = groups.get(groupId);
    if (any.isEmpty()) {
      return offsets.hasOffsetsOrPending(groupId)
          ? new DescribedGroup(groupId, true, "Empty", "", "", List.of())
          : new DescribedGroup(groupId, false, "Dead", "", "", List.of());
    }
    if (!(any.get() instanceof ClassicGroup group)) {
      return new DescribedGroup(groupId, false, "Dead", "", "", List.of());
    }
    boolean stable = group.isInState(ClassicGroupState.STABLE);
    List<DescribedMember> members = new ArrayList<>();
    for (ClassicMember m : group.members()) {
      members.add(
          new DescribedMember(
              m.memberId(),
              m.groupInstanceId(),
              m.clientId(),
              m.clientHost(),
              stable ? m.metadata(group.protocolName()).orElse(new byte[0]) : new byte[0],
              stable ? m.assignment() : new byte[0]));
    }
    return new DescribedGroup(
        groupId,
        true,
        group.stateName(),
        group.protocolType(),
        stable ? group.protocolName() : "",
        members);
  }

  // ---- GroupTypeManager ----

  @Override
  public boolean replay(CoordinatorRecord record, long offset) {
    if (!ClassicGroupRecords.handles(record.type())) {
      return false;
    }
    String groupId = ClassicGroupRecords.readGroupId(record);
    Optional<Group> existing = groups.get(groupId);
    if (existing.isPresent() && !(existing.get() instanceof ClassicGroup)) {
      log.warn(
          "Ignoring a classic group record for a group of another type groupId={} offset={}",
          groupId,
          offset);
      return true;
    }
    if (record.isTombstone()) {
      existing.ifPresent(
          g -> {
            ClassicGroup group = (ClassicGroup) g;
            group.apply(new GroupDeleted(context.nowMs()));
            failWaiters(group, Errors.COORDINATOR_NOT_AVAILABLE);
            groups.remove(groupId);
          });
      return true;
    }
    ClassicGroup group =
        existing
            .map(ClassicGroup.class::cast)
            .orElseGet(() -> new ClassicGroup(groupId, context.nowMs()));
    group.apply(recordEvent(group, ClassicGroupRecords.readValue(groupId, record)));
    groups.put(group);
    return true;
  }

  /**
   * Names a group record as the event it records. While the shard loads, every record restores the
   * group as written. Afterwards the only records are the shard's own writes, replayed as they are
   * appended, and what was written follows from the group it was written for: a new generation
   * (with or without members), the leader's assignment of the generation being completed, or a
   * static member's swap in a Stable group.
   */
  private ClassicGroupEvent recordEvent(ClassicGroup group, PersistedGroup value) {
    if (!loaded) {
      return new GroupLoaded(value);
    }
    if (value.generationId() != group.generationId()) {
      return value.members().isEmpty() ? new GroupEmptied(value) : new GenerationCompleted(value);
    }
    return group.isInState(ClassicGroupState.COMPLETING_REBALANCE)
        ? new AssignmentInstalled(value)
        : new StaticMemberReplaced(value);
  }

  @Override
  public void onLoaded() {
    loaded = true;
    for (Group g : List.copyOf(groups.all())) {
      if (g instanceof ClassicGroup group) {
        group.members().forEach(m -> rebalancer.scheduleSession(group, m));
        if (group.isInState(ClassicGroupState.COMPLETING_REBALANCE)) {
          // The leader's assignment never became durable: the members must rejoin.
          rebalancer.prepareRebalance(group, "loaded before the generation's assignment");
        }
      }
    }
  }

  @Override
  public void onUnloaded() {
    loaded = false;
    for (Group g : List.copyOf(groups.all())) {
      if (g instanceof ClassicGroup group) {
        failWaiters(group, Errors.NOT_COORDINATOR);
        for (ClassicMember m : group.members()) {
          rebalancer.cancelMemberTimers(group.groupId(), m.memberId());
        }
        context.timer().cancel(ClassicRebalancer.joinKey(group.groupId()));
        context.timer().cancel(ClassicRebalancer.syncKey(group.groupId()));
        group.apply(new GroupUnloaded(context.nowMs()));
      }
    }
  }

  private static void failWaiters(ClassicGroup group, Errors error) {
    for (ClassicMember m : group.members()) {
      m.completeJoin(JoinResult.error(m.memberId(), error));
      m.completeSync(SyncResult.error(error));
    }
  }

  @Override
  public void onConnectionClosed(String connectionId) {
    membership.onConnectionClosed(connectionId);
  }
}
