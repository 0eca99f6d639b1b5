package io.brook.coordinator.group.classic;

import static io.brook.coordinator.group.classic.ClassicGroupState.COMPLETING_REBALANCE;
import static io.brook.coordinator.group.classic.ClassicGroupState.DEAD;
import static io.brook.coordinator.group.classic.ClassicGroupState.EMPTY;
import static io.brook.coordinator.group.classic.ClassicGroupState.PREPARING_REBALANCE;
import static io.brook.coordinator.group.classic.ClassicGroupState.STABLE;

import io.brook.coordinator.group.Group;
import io.brook.coordinator.group.GroupType;
import io.brook.coordinator.group.classic.ClassicGroupEvent.AssignmentInstalled;
import io.brook.coordinator.group.classic.ClassicGroupEvent.AssignmentSubmitted;
import io.brook.coordinator.group.classic.ClassicGroupEvent.AssignmentWriteFinished;
import io.brook.coordinator.group.classic.ClassicGroupEvent.GenerationCompleted;
import io.brook.coordinator.group.classic.ClassicGroupEvent.GroupDeleted;
import io.brook.coordinator.group.classic.ClassicGroupEvent.GroupEmptied;
import io.brook.coordinator.group.classic.ClassicGroupEvent.GroupLoaded;
import io.brook.coordinator.group.classic.ClassicGroupEvent.GroupUnloaded;
import io.brook.coordinator.group.classic.ClassicGroupEvent.InitialDelayExtended;
import io.brook.coordinator.group.classic.ClassicGroupEvent.JoinPhaseAnswered;
import io.brook.coordinator.group.classic.ClassicGroupEvent.MemberHeardFrom;
import io.brook.coordinator.group.classic.ClassicGroupEvent.MemberJoined;
import io.brook.coordinator.group.classic.ClassicGroupEvent.MemberRejoined;
import io.brook.coordinator.group.classic.ClassicGroupEvent.MemberRemoved;
import io.brook.coordinator.group.classic.ClassicGroupEvent.MemberUpdated;
import io.brook.coordinator.group.classic.ClassicGroupEvent.PendingMemberAdded;
import io.brook.coordinator.group.classic.ClassicGroupEvent.PendingMemberRemoved;
import io.brook.coordinator.group.classic.ClassicGroupEvent.RebalanceStarted;
import io.brook.coordinator.group.classic.ClassicGroupEvent.RecordEvent;
import io.brook.coordinator.group.classic.ClassicGroupEvent.StaticMemberRejoined;
import io.brook.coordinator.group.classic.ClassicGroupEvent.StaticMemberReplaced;
import io.brook.coordinator.group.classic.ClassicGroupEvent.SyncReceived;
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
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.apache.kafka.common.errors.IllegalGenerationException;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.UnknownMemberIdException;
import org.apache.kafka.common.message.ConsumerProtocolSubscription;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;

/**
 * A classic (JoinGroup/SyncGroup) group: its state, generation and members.
 *
 * <p><b>One way in.</b> The group changes only through {@link #apply}: the request and timer code
 * decides what happened and hands the group a {@link ClassicGroupEvent}; {@code apply} checks the
 * event against the group's state (the moves of {@link ClassicGroupState}, the states an event may
 * happen in, the members it names) and throws {@link IllegalStateException} for one that does not
 * fit, before changing anything. Everything else here only reads.
 *
 * <p>What survives a restart is the last group record (type 2): generation, protocol, leader and
 * the members with their assignment. A live write is replayed at once as the event that wrote it
 * ({@link ClassicGroupEvent.GenerationCompleted}, {@link ClassicGroupEvent.AssignmentInstalled},
 * ...); loading replays the same records as {@link ClassicGroupEvent.GroupLoaded}, and both apply
 * the record the same way. Between two records a group is in a rebalance: who has rejoined, members
 * added or dropped since the last generation, and the parked JoinGroup/SyncGroup answers are held
 * in memory only, as Kafka holds them; if the coordinator moves mid-rebalance, the new one starts
 * from the last generation and the members rejoin.
 *
 * <p><b>Threading.</b> A group lives on the one coordinator shard thread that owns its {@code
 * __consumer_offsets} partition: requests, timers, write completions and replays all run there, so
 * the group holds no lock and its methods must never be called from another thread.
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

  boolean hasPendingMembers() {
    return !pendingMembers.isEmpty();
  }

  boolean isPendingMember(String memberId) {
    return pendingMembers.contains(memberId);
  }

  /** The members that got their JoinGroup answer of this generation but sent no SyncGroup yet. */
  Set<String> pendingSyncMembers() {
    return Collections.unmodifiableSet(pendingSyncMembers);
  }

  /** Whether a member joined while the initial delay of a new group ran. */
  boolean newMemberAdded() {
    return newMemberAdded;
  }

  /** Whether the leader's assignment is written but not yet committed. */
  boolean assignmentCommitPending() {
    return assignmentCommitPending;
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

  // ---- events: the one way the group's state changes ----

  /**
   * Applies one event. It is checked against the group's state first (a move of state against
   * {@link ClassicGroupState#canMoveTo}, an event that keeps the state against the states it may
   * happen in, the members it names), and nothing changes when the check fails.
   *
   * @throws IllegalStateException if the event cannot happen in the group's current state
   */
  void apply(ClassicGroupEvent event) {
    if (event instanceof MemberJoined e) {
      onMemberJoined(e);
    } else if (event instanceof MemberRejoined e) {
      ClassicMember member = requireMember(e, e.memberId());
      requireState(e, PREPARING_REBALANCE, COMPLETING_REBALANCE, STABLE);
      member.update(e.metadata());
      member.awaitJoin(e.answer(), JoinResult.error(e.memberId(), Errors.REBALANCE_IN_PROGRESS));
    } else if (event instanceof StaticMemberRejoined e) {
      onStaticMemberRejoined(e);
    } else if (event instanceof MemberUpdated e) {
      requireMember(e, e.memberId()).update(e.metadata());
    } else if (event instanceof MemberHeardFrom e) {
      requireMember(e, e.memberId()).setConnectionId(e.connectionId());
    } else if (event instanceof MemberRemoved e) {
      onMemberRemoved(e);
    } else if (event instanceof PendingMemberAdded e) {
      requireNotDead(e);
      pendingMembers.add(e.memberId());
    } else if (event instanceof PendingMemberRemoved e) {
      require(pendingMembers.contains(e.memberId()), e, "no pending member " + e.memberId());
      pendingMembers.remove(e.memberId());
    } else if (event instanceof RebalanceStarted e) {
      onRebalanceStarted(e);
    } else if (event instanceof InitialDelayExtended e) {
      requireState(e, PREPARING_REBALANCE);
      newMemberAdded = false;
    } else if (event instanceof JoinPhaseAnswered e) {
      requireState(e, COMPLETING_REBALANCE);
      members.values().forEach(m -> m.setNew(false));
      pendingSyncMembers.clear();
      pendingSyncMembers.addAll(members.keySet());
    } else if (event instanceof SyncReceived e) {
      ClassicMember member = requireMember(e, e.memberId());
      requireState(e, COMPLETING_REBALANCE, STABLE);
      pendingSyncMembers.remove(e.memberId());
      if (e.answer() != null) {
        member.awaitSync(e.answer(), SyncResult.error(Errors.REBALANCE_IN_PROGRESS));
      }
    } else if (event instanceof AssignmentSubmitted e) {
      requireState(e, COMPLETING_REBALANCE);
      assignmentCommitPending = true;
    } else if (event instanceof AssignmentWriteFinished e) {
      require(assignmentCommitPending, e, "no assignment is being written");
      assignmentCommitPending = false;
    } else if (event instanceof RecordEvent e) {
      onRecord(e);
    } else if (event instanceof GroupDeleted e) {
      moveTo(DEAD, e, e.nowMs());
    } else if (event instanceof GroupUnloaded e) {
      moveTo(DEAD, e, e.nowMs());
    } else {
      throw new IllegalArgumentException("unknown classic group event " + event);
    }
  }

  private void onMemberJoined(MemberJoined e) {
    requireNotDead(e);
    require(!members.containsKey(e.memberId()), e, "member " + e.memberId() + " already joined");
    ClassicMember member = new ClassicMember(e.memberId(), e.groupInstanceId(), e.metadata());
    member.setNew(true);
    member.setConnectionId(e.connectionId());
    member.awaitJoin(e.answer(), null);
    if (members.isEmpty()) {
      protocolType = e.protocolType();
    }
    putMember(member);
    pendingMembers.remove(member.memberId());
    if (leaderId == null) {
      leaderId = member.memberId();
    }
    newMemberAdded = true;
  }

  private void onStaticMemberRejoined(StaticMemberRejoined e) {
    requireNotDead(e);
    ClassicMember old = requireMember(e, e.oldMemberId());
    require(!members.containsKey(e.newMemberId()), e, "member " + e.newMemberId() + " exists");
    members.remove(e.oldMemberId());
    ClassicMember replacement = old.withMemberId(e.newMemberId());
    replacement.update(e.metadata());
    replacement.setConnectionId(e.connectionId());
    replacement.awaitJoin(e.answer(), null);
    putMember(replacement);
    if (pendingSyncMembers.remove(e.oldMemberId())) {
      pendingSyncMembers.add(e.newMemberId());
    }
    if (isLeader(e.oldMemberId())) {
      leaderId = e.newMemberId();
    }
  }

  private void onMemberRemoved(MemberRemoved e) {
    requireNotDead(e);
    ClassicMember removed = requireMember(e, e.memberId());
    members.remove(e.memberId());
    pendingSyncMembers.remove(e.memberId());
    if (removed.isStatic()) {
      staticMembers.remove(removed.groupInstanceId(), e.memberId());
    }
    if (isLeader(e.memberId())) {
      leaderId = members.isEmpty() ? null : members.keySet().iterator().next();
    }
  }

  private void onRebalanceStarted(RebalanceStarted e) {
    boolean completing = state == COMPLETING_REBALANCE;
    moveTo(PREPARING_REBALANCE, e, e.nowMs());
    if (completing) {
      // The generation never became Stable: its assignment was never handed out.
      members.values().forEach(m -> m.setAssignment(new byte[0]));
    }
    pendingSyncMembers.clear();
    assignmentCommitPending = false;
  }

  /**
   * Applies a group record. The members become exactly the record's; members already known keep
   * their full protocol list when the record's metadata agrees with it. A loaded record restores
   * the state it implies (no members: Empty; assignments present, or the assignment of the
   * generation being completed: Stable; a new generation without assignments: CompletingRebalance);
   * a live record is the move its event names.
   */
  private void onRecord(RecordEvent e) {
    PersistedGroup record = e.record();
    require(record.groupId().equals(groupId), e, "the record is of group " + record.groupId());
    boolean sameGeneration = record.generationId() == generationId;
    boolean anyAssignment = record.members().stream().anyMatch(m -> m.assignment().length > 0);
    ClassicGroupState next;
    if (e instanceof GroupLoaded) {
      requireNotDead(e);
      boolean completing = sameGeneration && !members.isEmpty() && state == COMPLETING_REBALANCE;
      if (record.members().isEmpty()) {
        next = EMPTY;
      } else if (anyAssignment || completing) {
        next = STABLE;
      } else if (sameGeneration && !members.isEmpty()) {
        next = state;
      } else {
        next = COMPLETING_REBALANCE;
      }
    } else if (e instanceof GenerationCompleted) {
      require(!sameGeneration && !record.members().isEmpty(), e, "not a new generation");
      next = COMPLETING_REBALANCE;
    } else if (e instanceof GroupEmptied) {
      require(!sameGeneration && record.members().isEmpty(), e, "not a new empty generation");
      next = EMPTY;
    } else if (e instanceof AssignmentInstalled) {
      require(sameGeneration, e, "generation " + record.generationId() + " is not the current");
      next = STABLE;
    } else {
      require(sameGeneration, e, "generation " + record.generationId() + " is not the current");
      requireState(e, STABLE);
      next = STABLE;
    }
    if (!(e instanceof GroupLoaded) && !(e instanceof StaticMemberReplaced)) {
      requireMove(next, e);
    }
    if (next != state) {
      previousState = state;
      state = next;
    }
    replaceMembers(record);
    protocolType = record.protocolType();
    generationId = record.generationId();
    protocolName = record.protocolName();
    leaderId = record.leaderId();
    subscribedTopics = Optional.empty();
    stateTimestampMs = record.stateTimestampMs();
  }

  private void replaceMembers(PersistedGroup record) {
    Map<String, ClassicMember> previous = new LinkedHashMap<>(members);
    members.clear();
    staticMembers.clear();
    for (PersistedMember pm : record.members()) {
      ClassicMember member = merge(previous.get(pm.memberId()), pm, record.protocolName());
      member.setAssignment(pm.assignment());
      putMember(member);
      pendingMembers.remove(member.memberId());
    }
    pendingSyncMembers.retainAll(members.keySet());
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
    ClassicMember.Metadata metadata =
        new ClassicMember.Metadata(
            pm.clientId(),
            pm.clientHost(),
            pm.rebalanceTimeoutMs(),
            pm.sessionTimeoutMs(),
            protocols);
    if (known != null && Objects.equals(known.groupInstanceId(), pm.groupInstanceId())) {
      known.update(metadata);
      return known;
    }
    return new ClassicMember(pm.memberId(), pm.groupInstanceId(), metadata);
  }

  private void putMember(ClassicMember member) {
    members.put(member.memberId(), member);
    if (member.isStatic()) {
      staticMembers.put(member.groupInstanceId(), member.memberId());
    }
  }

  /** The one place a state moves: Kafka's table in {@link ClassicGroupState#canMoveTo}. */
  private void moveTo(ClassicGroupState next, ClassicGroupEvent cause, long nowMs) {
    requireMove(next, cause);
    previousState = state;
    state = next;
    stateTimestampMs = nowMs;
  }

  private void requireMove(ClassicGroupState next, ClassicGroupEvent cause) {
    if (!state.canMoveTo(next)) {
      throw new IllegalStateException(
          "classic group "
              + groupId
              + " cannot move from "
              + state.wireName()
              + " to "
              + next.wireName()
              + " on "
              + eventName(cause));
    }
  }

  private void requireState(ClassicGroupEvent event, ClassicGroupState... allowed) {
    if (!Arrays.asList(allowed).contains(state)) {
      throw new IllegalStateException(
          "classic group "
              + groupId
              + " cannot take "
              + eventName(event)
              + " in state "
              + state.wireName()
              + "; it needs "
              + Arrays.stream(allowed).map(ClassicGroupState::wireName).toList());
    }
  }

  private void requireNotDead(ClassicGroupEvent event) {
    requireState(event, EMPTY, PREPARING_REBALANCE, COMPLETING_REBALANCE, STABLE);
  }

  private ClassicMember requireMember(ClassicGroupEvent event, String memberId) {
    ClassicMember member = memberId == null ? null : members.get(memberId);
    require(member != null, event, "no member " + memberId);
    return member;
  }

  private void require(boolean condition, ClassicGroupEvent event, String why) {
    if (!condition) {
      throw new IllegalStateException(
          "classic group "
              + groupId
              + " in state "
              + state.wireName()
              + " cannot take "
              + eventName(event)
              + ": "
              + why);
    }
  }

  private static String eventName(ClassicGroupEvent event) {
    return event.getClass().getSimpleName();
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
        topics.addAll(subscription(ByteBuffer.wrap(metadata.get())).topics());
      }
    } catch (RuntimeException e) {
      return Optional.empty(); // metadata that does not parse, whatever the parser threw
    }
    return Optional.of(topics);
  }

  /**
   * A consumer's subscription in the consumer protocol's layout: a 2-byte version, then the
   * subscription in that version. A version newer than kafka-clients knows is read as the newest it
   * knows, since versions only add fields at the end, as the consumer's own parser does.
   *
   * @throws RuntimeException if the bytes are not a subscription
   */
  static ConsumerProtocolSubscription subscription(ByteBuffer buffer) {
    short version = buffer.getShort();
    if (version < ConsumerProtocolSubscription.LOWEST_SUPPORTED_VERSION) {
      throw new IllegalArgumentException("unsupported subscription version " + version);
    }
    return new ConsumerProtocolSubscription(
        new ByteBufferAccessor(buffer),
        (short) Math.min(version, ConsumerProtocolSubscription.HIGHEST_SUPPORTED_VERSION));
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
