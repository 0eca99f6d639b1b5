package io.brook.coordinator.group.classic;

import io.brook.coordinator.group.Group;
import io.brook.coordinator.group.GroupType;
import io.brook.coordinator.group.classic.ClassicGroupRecords.PersistedGroup;
import io.brook.coordinator.group.classic.ClassicGroupRecords.PersistedMember;
import io.brook.coordinator.runtime.CoordinatorRecord;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.apache.kafka.common.errors.IllegalGenerationException;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.UnknownMemberIdException;
import org.apache.kafka.common.protocol.types.SchemaException;

/**
 * A classic (JoinGroup/SyncGroup) group: its state, generation and members.
 *
 * <p>What survives a restart is the last group record (type 2): generation, protocol, leader and
 * the members with their assignment, applied by {@link #apply}, on the same path for a live write
 * and for loading. Between two records a group is in a rebalance: who has rejoined, members added
 * or dropped since the last generation, and the parked JoinGroup/SyncGroup answers are held in
 * memory only, as Kafka holds them; if the coordinator moves mid-rebalance, the new one starts from
 * the last generation and the members rejoin.
 *
 * <p>Used on the shard's thread only.
 */
public final class ClassicGroup implements Group {
  /** Kafka's protocol type of Java consumers, whose subscriptions the coordinator can read. */
  static final String CONSUMER_PROTOCOL_TYPE = "consumer";

  private final String groupId;
  private ClassicGroupState state = ClassicGroupState.EMPTY;
  private ClassicGroupState previousState = ClassicGroupState.EMPTY;
  private long stateTimestampMs;
  private String protocolType;
  private int generationId;
  private String protocolName;
  private String leaderId;
  private final Map<String, ClassicMember> members = new LinkedHashMap<>();
  private final Map<String, String> staticMembers = new HashMap<>();
  private final Set<String> pendingMembers = new HashSet<>();
  private final Set<String> pendingSyncMembers = new HashSet<>();
  private boolean newMemberAdded;
  private boolean assignmentCommitPending;
  private Optional<Set<String>> subscribedTopics = Optional.empty();

  ClassicGroup(String groupId, long nowMs) {
    this.groupId = groupId;
    this.stateTimestampMs = nowMs;
  }

  @Override
  public String groupId() {
    return groupId;
  }

  @Override
  public GroupType type() {
    return GroupType.CLASSIC;
  }

  public ClassicGroupState state() {
    return state;
  }

  ClassicGroupState previousState() {
    return previousState;
  }

  boolean isInState(ClassicGroupState s) {
    return state == s;
  }

  @Override
  public String stateName() {
    return state.wireName();
  }

  @Override
  public String protocolType() {
    return protocolType == null ? "" : protocolType;
  }

  @Override
  public boolean isEmpty() {
    return members.isEmpty();
  }

  @Override
  public long stateTimestampMs() {
    return stateTimestampMs;
  }

  public int generationId() {
    return generationId;
  }

  /** The protocol chosen for the current generation, or null. */
  public String protocolName() {
    return protocolName;
  }

  /** The leader's member id, or null. */
  public String leaderId() {
    return leaderId;
  }

  public Collection<ClassicMember> members() {
    return Collections.unmodifiableCollection(members.values());
  }

  public Optional<ClassicMember> member(String memberId) {
    return Optional.ofNullable(members.get(memberId));
  }

  boolean hasMember(String memberId) {
    return memberId != null && members.containsKey(memberId);
  }

  int size() {
    return members.size();
  }

  /** The member id the static member {@code groupInstanceId} currently has, or null. */
  String staticMemberId(String groupInstanceId) {
    return groupInstanceId == null ? null : staticMembers.get(groupInstanceId);
  }

  boolean isLeader(String memberId) {
    return memberId != null && memberId.equals(leaderId);
  }

  void transitionTo(ClassicGroupState next, long nowMs) {
    if (!next.validPrevious().contains(state)) {
      throw new IllegalStateException(
          "group " + groupId + " cannot move from " + state + " to " + next);
    }
    previousState = state;
    state = next;
    stateTimestampMs = nowMs;
  }

  // ---- membership (in memory until the next group record) ----

  void add(ClassicMember member, String memberProtocolType) {
    if (members.isEmpty()) {
      protocolType = memberProtocolType;
    }
    members.put(member.memberId(), member);
    if (member.isStatic()) {
      staticMembers.put(member.groupInstanceId(), member.memberId());
    }
    pendingMembers.remove(member.memberId());
    if (leaderId == null) {
      leaderId = member.memberId();
    }
  }

  /** Removes a member; its parked answers are the caller's to complete first. */
  void remove(String memberId) {
    ClassicMember removed = members.remove(memberId);
    pendingSyncMembers.remove(memberId);
    if (removed != null && removed.isStatic()) {
      staticMembers.remove(removed.groupInstanceId(), memberId);
    }
    if (isLeader(memberId)) {
      leaderId = members.isEmpty() ? null : members.keySet().iterator().next();
    }
  }

  /** Swaps a static member's id during a rebalance; the caller fences the old id's answers. */
  ClassicMember replaceStaticMember(String oldMemberId, String newMemberId) {
    ClassicMember old = members.remove(oldMemberId);
    ClassicMember replacement = old.withMemberId(newMemberId);
    members.put(newMemberId, replacement);
    staticMembers.put(old.groupInstanceId(), newMemberId);
    if (pendingSyncMembers.remove(oldMemberId)) {
      pendingSyncMembers.add(newMemberId);
    }
    if (isLeader(oldMemberId)) {
      leaderId = newMemberId;
    }
    return replacement;
  }

  boolean hasPendingMembers() {
    return !pendingMembers.isEmpty();
  }

  boolean isPendingMember(String memberId) {
    return pendingMembers.contains(memberId);
  }

  void addPendingMember(String memberId) {
    pendingMembers.add(memberId);
  }

  boolean removePendingMember(String memberId) {
    return pendingMembers.remove(memberId);
  }

  Set<String> pendingSyncMembers() {
    return pendingSyncMembers;
  }

  void setPendingSyncMembers(Collection<String> memberIds) {
    pendingSyncMembers.clear();
    pendingSyncMembers.addAll(memberIds);
  }

  boolean newMemberAdded() {
    return newMemberAdded;
  }

  void setNewMemberAdded(boolean value) {
    newMemberAdded = value;
  }

  /** Whether the leader's assignment is written but not yet committed. */
  boolean assignmentCommitPending() {
    return assignmentCommitPending;
  }

  void setAssignmentCommitPending(boolean value) {
    assignmentCommitPending = value;
  }

  int numAwaitingJoin() {
    int n = 0;
    for (ClassicMember m : members.values()) {
      if (m.isAwaitingJoin()) {
        n++;
      }
    }
    return n;
  }

  boolean hasAllMembersJoined() {
    return members.size() == numAwaitingJoin() && pendingMembers.isEmpty();
  }

  /** The longest rebalance timeout of the members: how long a join phase may last. */
  int rebalanceTimeoutMs() {
    int max = 0;
    for (ClassicMember m : members.values()) {
      max = Math.max(max, m.rebalanceTimeoutMs());
    }
    return max;
  }

  /**
   * Whether a member with these protocols may join: any non-empty offer into an empty group, else
   * the same protocol type and at least one protocol every member supports.
   */
  boolean supportsProtocols(String type, List<ClassicMember.Protocol> protocols) {
    if (type == null || type.isEmpty() || protocols.isEmpty()) {
      return false;
    }
    if (members.isEmpty()) {
      return true;
    }
    if (!type.equals(protocolType)) {
      return false;
    }
    Set<String> common = commonProtocols();
    return protocols.stream().anyMatch(p -> common.contains(p.name()));
  }

  /** The protocols every member supports, in the first member's order of preference. */
  private Set<String> commonProtocols() {
    Set<String> common = null;
    for (ClassicMember m : members.values()) {
      Set<String> names = new LinkedHashSet<>();
      m.protocols().forEach(p -> names.add(p.name()));
      if (common == null) {
        common = names;
      } else {
        common.retainAll(names);
      }
    }
    return common == null ? Set.of() : common;
  }

  /**
   * Chooses the protocol for the next generation: each member votes for the first protocol it lists
   * that all members support; most votes wins, ties go to the earlier candidate.
   *
   * @throws IllegalStateException if the members have no protocol in common
   */
  String selectProtocol() {
    Set<String> candidates = commonProtocols();
    if (candidates.isEmpty()) {
      throw new IllegalStateException("no common protocol in group " + groupId);
    }
    Map<String, Integer> votes = new LinkedHashMap<>();
    candidates.forEach(c -> votes.put(c, 0));
    for (ClassicMember m : members.values()) {
      for (ClassicMember.Protocol p : m.protocols()) {
        if (candidates.contains(p.name())) {
          votes.merge(p.name(), 1, Integer::sum);
          break;
        }
      }
    }
    String best = null;
    for (Map.Entry<String, Integer> e : votes.entrySet()) {
      if (best == null || e.getValue() > votes.get(best)) {
        best = e.getKey();
      }
    }
    return best;
  }

  // ---- records ----

  /**
   * The record of a generation with these members, leader and protocol.
   *
   * @param assignments per member id; members without one get their current assignment
   */
  PersistedGroup persisted(
      int generation,
      String protocol,
      String leader,
      Collection<ClassicMember> generationMembers,
      Map<String, byte[]> assignments,
      long nowMs) {
    List<PersistedMember> persistedMembers = new ArrayList<>();
    for (ClassicMember m : generationMembers) {
      persistedMembers.add(
          new PersistedMember(
              m.memberId(),
              m.groupInstanceId(),
              m.clientId(),
              m.clientHost(),
              m.rebalanceTimeoutMs(),
              m.sessionTimeoutMs(),
              protocol == null ? new byte[0] : m.metadata(protocol).orElse(new byte[0]),
              assignments.getOrDefault(m.memberId(), m.assignment())));
    }
    return new PersistedGroup(
        groupId, protocolType(), generation, protocol, leader, nowMs, persistedMembers);
  }

  /**
   * Applies a group record. The members become exactly the record's; members already known keep
   * their full protocol list when the record's metadata agrees with it. The state follows from the
   * record: no members is Empty; assignments present (or the assignment of the generation being
   * completed) is Stable; a new generation without assignments is CompletingRebalance.
   */
  void apply(PersistedGroup record) {
    boolean sameGeneration = record.generationId() == generationId && !members.isEmpty();
    boolean wasCompleting = state == ClassicGroupState.COMPLETING_REBALANCE;
    Map<String, ClassicMember> previous = new LinkedHashMap<>(members);
    members.clear();
    staticMembers.clear();
    boolean anyAssignment = false;
    for (PersistedMember pm : record.members()) {
      ClassicMember member = merge(previous.get(pm.memberId()), pm, record.protocolName());
      member.setAssignment(pm.assignment());
      anyAssignment |= pm.assignment().length > 0;
      members.put(member.memberId(), member);
      if (member.isStatic()) {
        staticMembers.put(member.groupInstanceId(), member.memberId());
      }
      pendingMembers.remove(member.memberId());
    }
    pendingSyncMembers.retainAll(members.keySet());
    protocolType = record.protocolType();
    generationId = record.generationId();
    protocolName = record.protocolName();
    leaderId = record.leaderId();
    subscribedTopics = Optional.empty();
    ClassicGroupState next;
    if (members.isEmpty()) {
      next = ClassicGroupState.EMPTY;
    } else if (anyAssignment || (sameGeneration && wasCompleting)) {
      next = ClassicGroupState.STABLE;
    } else if (sameGeneration) {
      next = state;
    } else {
      next = ClassicGroupState.COMPLETING_REBALANCE;
    }
    if (next != state) {
      previousState = state;
      state = next;
    }
    stateTimestampMs = record.stateTimestampMs();
  }

  private static ClassicMember merge(ClassicMember known, PersistedMember pm, String protocol) {
    List<ClassicMember.Protocol> protocols =
        protocol == null
            ? List.of()
            : List.of(new ClassicMember.Protocol(protocol, pm.subscription()));
    if (known != null
        && protocol != null
        && known.metadata(protocol).map(m -> Arrays.equals(m, pm.subscription())).orElse(false)
        && Objects.equals(known.groupInstanceId(), pm.groupInstanceId())) {
      protocols = known.protocols();
    }
    ClassicMember member =
        known != null && Objects.equals(known.groupInstanceId(), pm.groupInstanceId())
            ? known
            : new ClassicMember(
                pm.memberId(),
                pm.groupInstanceId(),
                pm.clientId(),
                pm.clientHost(),
                pm.rebalanceTimeoutMs(),
                pm.sessionTimeoutMs(),
                protocols);
    member.update(
        pm.clientId(), pm.clientHost(), pm.rebalanceTimeoutMs(), pm.sessionTimeoutMs(), protocols);
    return member;
  }

  /** The group was deleted (tombstone) or its shard unloaded. */
  void markDead(long nowMs) {
    previousState = state;
    state = ClassicGroupState.DEAD;
    stateTimestampMs = nowMs;
  }

  // ---- Group: offsets and deletion ----

  @Override
  public boolean isSubscribedTo(String topic) {
    if (members.isEmpty()) {
      return false;
    }
    if (!CONSUMER_PROTOCOL_TYPE.equals(protocolType) || protocolName == null) {
      return true; // cannot read the subscriptions: keep every offset
    }
    if (subscribedTopics.isEmpty()) {
      subscribedTopics = readSubscriptions();
    }
    return subscribedTopics.map(t -> t.contains(topic)).orElse(true);
  }

  private Optional<Set<String>> readSubscriptions() {
    Set<String> topics = new HashSet<>();
    try {
      for (ClassicMember m : members.values()) {
        Optional<byte[]> metadata = m.metadata(protocolName);
        if (metadata.isEmpty()) {
          return Optional.empty();
        }
        topics.addAll(
            ConsumerProtocol.deserializeSubscription(ByteBuffer.wrap(metadata.get())).topics());
      }
    } catch (SchemaException | IllegalArgumentException e) {
      return Optional.empty();
    }
    return Optional.of(topics);
  }

  @Override
  public void validateOffsetCommit(
      String memberId, String groupInstanceId, int generationId, short apiVersion) {
    String member = memberId == null ? "" : memberId;
    if (state == ClassicGroupState.DEAD) {
      throw new CoordinatorNotAvailableException("group " + groupId + " is being removed");
    }
    if (generationId < 0 && state == ClassicGroupState.EMPTY) {
      return; // a commit from outside group management into an empty group
    }
    if (generationId >= 0 || !member.isEmpty() || groupInstanceId != null) {
      validateMember(member, groupInstanceId);
      if (generationId != this.generationId) {
        throw new IllegalGenerationException(
            "generation " + generationId + " is not the group's " + this.generationId);
      }
    } else if (state != ClassicGroupState.EMPTY) {
      throw new UnknownMemberIdException("group " + groupId + " has members; commit as one");
    }
    if (state == ClassicGroupState.COMPLETING_REBALANCE) {
      throw new RebalanceInProgressException("group " + groupId + " is completing a rebalance");
    }
  }

  /**
   * Like {@link #validateOffsetCommit} but for TxnOffsetCommit: without member fields (versions
   * before 3, or a producer outside the group) any non-dead group accepts the commit, and
   * COMPLETING_REBALANCE does not refuse it, since the transaction may not wait for a rebalance.
   */
  @Override
  public void validateTransactionalOffsetCommit(
      String memberId, String groupInstanceId, int generationId) {
    String member = memberId == null ? "" : memberId;
    if (state == ClassicGroupState.DEAD) {
      throw new CoordinatorNotAvailableException("group " + groupId + " is being removed");
    }
    if (generationId < 0 && state == ClassicGroupState.EMPTY) {
      return;
    }
    if (generationId >= 0 || !member.isEmpty() || groupInstanceId != null) {
      validateMember(member, groupInstanceId);
      if (generationId != this.generationId) {
        throw new IllegalGenerationException(
            "generation " + generationId + " is not the group's " + this.generationId);
      }
    }
  }

  /** Kafka's member check: a static member must use its current member id. */
  void validateMember(String memberId, String groupInstanceId) {
    if (groupInstanceId != null) {
      String current = staticMembers.get(groupInstanceId);
      if (current == null) {
        throw new UnknownMemberIdException("unknown group.instance.id " + groupInstanceId);
      }
      if (!current.equals(memberId)) {
        throw new FencedInstanceIdException(
            "group.instance.id " + groupInstanceId + " now belongs to another member id");
      }
    } else if (!hasMember(memberId)) {
      throw new UnknownMemberIdException("unknown member id " + memberId);
    }
  }

  @Override
  public void validateOffsetFetch(String memberId, int memberEpoch) {
    if (state == ClassicGroupState.DEAD) {
      throw new GroupIdNotFoundException("group " + groupId + " is dead");
    }
  }

  @Override
  public void validateOffsetDelete() {
    switch (state) {
      case DEAD -> throw new GroupIdNotFoundException("group " + groupId + " is dead");
      case STABLE, PREPARING_REBALANCE, COMPLETING_REBALANCE -> {
        if (!CONSUMER_PROTOCOL_TYPE.equals(protocolType)) {
          throw new GroupNotEmptyException("group " + groupId + " has members");
        }
      }
      default -> {}
    }
  }

  @Override
  public void validateDeleteGroup() {
    switch (state) {
      case DEAD -> throw new GroupIdNotFoundException("group " + groupId + " is dead");
      case STABLE, PREPARING_REBALANCE, COMPLETING_REBALANCE ->
          throw new GroupNotEmptyException("group " + groupId + " has members");
      default -> {}
    }
  }

  @Override
  public List<CoordinatorRecord> tombstones() {
    return List.of(ClassicGroupRecords.tombstone(groupId));
  }
}
