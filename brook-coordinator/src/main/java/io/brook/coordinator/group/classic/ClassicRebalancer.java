package io.brook.coordinator.group.classic;

import io.brook.coordinator.group.GroupConfig;
import io.brook.coordinator.group.Groups;
import io.brook.coordinator.group.classic.ClassicGroupEvent.InitialDelayExtended;
import io.brook.coordinator.group.classic.ClassicGroupEvent.JoinPhaseAnswered;
import io.brook.coordinator.group.classic.ClassicGroupEvent.MemberRemoved;
import io.brook.coordinator.group.classic.ClassicGroupEvent.PendingMemberRemoved;
import io.brook.coordinator.group.classic.ClassicGroupEvent.RebalanceStarted;
import io.brook.coordinator.group.classic.ClassicGroupEvent.RemovalCause;
import io.brook.coordinator.group.classic.ClassicGroupRecords.PersistedGroup;
import io.brook.coordinator.runtime.ShardContext;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rebalance machinery of classic groups: starting a rebalance, the join barrier (all known
 * members rejoined, or the rebalance timeout, or the initial delay of a new group), moving to the
 * next generation, and the timers that remove silent members: session expiry, the sync deadline and
 * Brook's dead-connection grace. Timers run on the shard's thread and look the group up again when
 * they fire, so a timer of a deleted group does nothing.
 */
final class ClassicRebalancer {
  private static final Logger log = LoggerFactory.getLogger(ClassicRebalancer.class);

  /**
   * How long a new member's first JoinGroup may wait before the member is dropped (Kafka's {@code
   * group.classic.new.member.join.timeout.ms}, 5 minutes): a client that gave up on a long
   * rebalance retries with a new request, so a stale first join would otherwise linger.
   */
  static final int NEW_MEMBER_JOIN_TIMEOUT_MS = 300_000;

  private final ShardContext context;
  private final GroupConfig config;
  private final Groups groups;

  ClassicRebalancer(ShardContext context, GroupConfig config, Groups groups) {
    this.context = context;
    this.config = config;
    this.groups = groups;
  }

  ShardContext context() {
    return context;
  }

  GroupConfig config() {
    return config;
  }

  Optional<ClassicGroup> group(String groupId) {
    return groups.get(groupId, ClassicGroup.class);
  }

  // ---- timer keys ----

  static String joinKey(String groupId) {
    return "classic-join/" + groupId;
  }

  static String syncKey(String groupId) {
    return "classic-sync/" + groupId;
  }

  static String sessionKey(String groupId, String memberId) {
    return "classic-session/" + groupId + "/" + memberId;
  }

  static String pendingKey(String groupId, String memberId) {
    return "classic-pending/" + groupId + "/" + memberId;
  }

  static String connectionKey(String groupId, String memberId) {
    return "classic-connection/" + groupId + "/" + memberId;
  }

  // ---- starting a rebalance ----

  /** Starts a rebalance unless one is running, in which case the join may now be complete. */
  void maybePrepareRebalanceOrCompleteJoin(ClassicGroup group, String reason) {
    switch (group.state()) {
      case STABLE, COMPLETING_REBALANCE, EMPTY -> prepareRebalance(group, reason);
      case PREPARING_REBALANCE -> maybeCompleteJoin(group);
      case DEAD -> {}
    }
  }

  void prepareRebalance(ClassicGroup group, String reason) {
    boolean initial =
        group.isInState(ClassicGroupState.EMPTY) && config.groupInitialRebalanceDelayMs() > 0;
    group.apply(new RebalanceStarted(reason, context.nowMs()));
    for (ClassicMember member : group.members()) {
      // Parked SyncGroups of the ending generation learn to rejoin.
      member.completeSync(SyncResult.error(Errors.REBALANCE_IN_PROGRESS));
    }
    context.timer().cancel(syncKey(group.groupId()));
    log.info(
        "Preparing to rebalance groupId={} generation={} members={} reason=\"{}\"",
        group.groupId(),
        group.generationId(),
        group.size(),
        reason);
    if (initial) {
      int delay = config.groupInitialRebalanceDelayMs();
      int remaining = Math.max(group.rebalanceTimeoutMs() - delay, 0);
      scheduleInitialJoin(group, delay, remaining);
    } else if (group.hasAllMembersJoined()) {
      completeJoin(group);
    } else {
      scheduleJoinTimeout(group);
    }
  }

  private void scheduleJoinTimeout(ClassicGroup group) {
    String groupId = group.groupId();
    context
        .timer()
        .schedule(
            joinKey(groupId),
            group.rebalanceTimeoutMs(),
            () -> whenSame(groupId, group, this::completeJoin));
  }

  /**
   * The initial delay of a new group: wait {@code group.initial.rebalance.delay.ms}, and again
   * while new members keep arriving, but never past the rebalance timeout.
   */
  private void scheduleInitialJoin(ClassicGroup group, int delayMs, int remainingMs) {
    String groupId = group.groupId();
    context
        .timer()
        .schedule(
            joinKey(groupId),
            delayMs,
            () ->
                whenSame(
                    groupId,
                    group,
                    g -> {
                      if (g.newMemberAdded() && remainingMs > 0) {
                        g.apply(new InitialDelayExtended());
                        int next = Math.min(config.groupInitialRebalanceDelayMs(), remainingMs);
                        scheduleInitialJoin(g, next, Math.max(remainingMs - next, 0));
                      } else {
                        completeJoin(g);
                      }
                    }));
  }

  /** Completes the join phase if every member has rejoined, unless the initial delay runs. */
  void maybeCompleteJoin(ClassicGroup group) {
    boolean initialDelayRunning =
        group.previousState() == ClassicGroupState.EMPTY
            && config.groupInitialRebalanceDelayMs() > 0;
    if (group.isInState(ClassicGroupState.PREPARING_REBALANCE)
        && group.hasAllMembersJoined()
        && !initialDelayRunning) {
      completeJoin(group);
    }
  }

  // ---- completing the join phase ----

  /**
   * Ends the join phase: members that did not rejoin are removed, then the next generation is
   * written (Empty if nobody is left) and every joined member gets its answer; the leader gets the
   * members' metadata to compute the assignment.
   */
  void completeJoin(ClassicGroup group) {
    context.timer().cancel(joinKey(group.groupId()));
    if (!group.isInState(ClassicGroupState.PREPARING_REBALANCE)) {
      return;
    }
    for (ClassicMember member : List.copyOf(group.members())) {
      if (!member.isAwaitingJoin()) {
        log.info(
            "Removing member that did not rejoin in time groupId={} memberId={} groupInstanceId={}",
            group.groupId(),
            member.memberId(),
            member.groupInstanceId());
        forget(group, member, RemovalCause.JOIN_TIMEOUT);
      }
    }
    int generation = group.generationId() + 1;
    if (group.isEmpty()) {
      PersistedGroup record =
          group.persisted(generation, null, null, List.of(), Map.of(), context.nowMs());
      write(group, record)
          .exceptionally(
              e -> {
                log.warn("Writing the empty generation failed groupId={}", group.groupId(), e);
                return null;
              });
      return;
    }
    String leader =
        group.hasMember(group.leaderId())
            ? group.leaderId()
            : group.members().iterator().next().memberId();
    String protocol = group.selectProtocol();
    Map<String, byte[]> noAssignment = new HashMap<>();
    group.members().forEach(m -> noAssignment.put(m.memberId(), new byte[0]));
    PersistedGroup record =
        group.persisted(
            generation, protocol, leader, group.members(), noAssignment, context.nowMs());
    CompletableFuture<Void> written = write(group, record);
    if (group.generationId() != generation) {
      Errors error = writeFailure(written);
      group.members().forEach(m -> m.completeJoin(JoinResult.error(m.memberId(), error)));
      return;
    }
    sendJoinResults(group);
  }

  private void sendJoinResults(ClassicGroup group) {
    group.apply(new JoinPhaseAnswered());
    List<JoinResult.JoinedMember> all = new ArrayList<>();
    for (ClassicMember m : group.members()) {
      all.add(
          new JoinResult.JoinedMember(
              m.memberId(), m.groupInstanceId(), m.metadata(group.protocolName()).orElseThrow()));
    }
    for (ClassicMember m : group.members()) {
      m.completeJoin(
          new JoinResult(
              Errors.NONE,
              m.memberId(),
              group.generationId(),
              group.protocolType(),
              group.protocolName(),
              group.leaderId(),
              group.isLeader(m.memberId()) ? all : List.of()));
      scheduleSession(group, m);
    }
    scheduleSyncTimeout(group);
    log.info(
        "Group moved to a new generation groupId={} generation={} protocol={} leader={} members={}",
        group.groupId(),
        group.generationId(),
        group.protocolName(),
        group.leaderId(),
        group.size());
  }

  /**
   * Writes a group record. The runtime replays it into the shard before this returns (unless the
   * write is refused), where {@link ClassicGroupManager#replay} applies it to the group as the
   * event it records.
   */
  CompletableFuture<Void> write(ClassicGroup group, PersistedGroup record) {
    return context.write(List.of(ClassicGroupRecords.record(record)));
  }

  /** The error a client gets when a group write failed, as Kafka maps it. */
  static Errors writeFailure(Throwable error) {
    Throwable cause =
        error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    Errors errors = Errors.forException(cause);
    return switch (errors) {
      case NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, COORDINATOR_LOAD_IN_PROGRESS -> errors;
      case UNKNOWN_TOPIC_OR_PARTITION,
          NOT_ENOUGH_REPLICAS,
          NOT_ENOUGH_REPLICAS_AFTER_APPEND,
          REQUEST_TIMED_OUT ->
          Errors.COORDINATOR_NOT_AVAILABLE;
      case NOT_LEADER_OR_FOLLOWER, KAFKA_STORAGE_ERROR -> Errors.NOT_COORDINATOR;
      default -> Errors.UNKNOWN_SERVER_ERROR;
    };
  }

  private static Errors writeFailure(CompletableFuture<Void> written) {
    try {
      written.getNow(null);
      return Errors.COORDINATOR_NOT_AVAILABLE;
    } catch (CompletionException | java.util.concurrent.CancellationException e) {
      return writeFailure(e);
    }
  }

  // ---- sync deadline ----

  private void scheduleSyncTimeout(ClassicGroup group) {
    String groupId = group.groupId();
    int generation = group.generationId();
    context
        .timer()
        .schedule(
            syncKey(groupId),
            group.rebalanceTimeoutMs(),
            () ->
                whenSame(
                    groupId,
                    group,
                    g -> {
                      if (g.generationId() == generation) {
                        expirePendingSync(g);
                      }
                    }));
  }

  /** Members that never sent SyncGroup after the join phase are removed; the group rebalances. */
  private void expirePendingSync(ClassicGroup group) {
    if (group.pendingSyncMembers().isEmpty()
        || !(group.isInState(ClassicGroupState.COMPLETING_REBALANCE)
            || group.isInState(ClassicGroupState.STABLE))) {
      return;
    }
    for (String memberId : List.copyOf(group.pendingSyncMembers())) {
      group.member(memberId).ifPresent(m -> forget(group, m, RemovalCause.SYNC_TIMEOUT));
    }
    prepareRebalance(group, "members did not send SyncGroup in time");
  }

  // ---- member timers ----

  void scheduleSession(ClassicGroup group, ClassicMember member) {
    String groupId = group.groupId();
    String memberId = member.memberId();
    int timeout = member.isNew() ? NEW_MEMBER_JOIN_TIMEOUT_MS : member.sessionTimeoutMs();
    context
        .timer()
        .schedule(
            sessionKey(groupId, memberId),
            timeout,
            () -> whenSame(groupId, group, g -> onSessionExpired(g, memberId)));
  }

  private void onSessionExpired(ClassicGroup group, String memberId) {
    Optional<ClassicMember> member = group.member(memberId);
    if (member.isEmpty()) {
      return;
    }
    ClassicMember m = member.get();
    if (!m.isNew() && (m.isAwaitingJoin() || m.isAwaitingSync())) {
      scheduleSession(group, m); // waiting in a rebalance counts as alive
      return;
    }
    log.info(
        "Member session expired groupId={} memberId={} groupInstanceId={} sessionTimeoutMs={}",
        group.groupId(),
        memberId,
        m.groupInstanceId(),
        m.sessionTimeoutMs());
    removeMember(group, m, RemovalCause.SESSION_EXPIRED, "session timeout of member " + memberId);
  }

  /** A first join got MEMBER_ID_REQUIRED; the id is dropped if it does not come back in time. */
  void schedulePendingMember(ClassicGroup group, String memberId, int sessionTimeoutMs) {
    String groupId = group.groupId();
    context
        .timer()
        .schedule(
            pendingKey(groupId, memberId),
            sessionTimeoutMs,
            () ->
                whenSame(
                    groupId,
                    group,
                    g -> {
                      if (g.isPendingMember(memberId)) {
                        g.apply(new PendingMemberRemoved(memberId));
                        maybeCompleteJoin(g);
                        dropIfUnused(g);
                      }
                    }));
  }

  /** Brook: a dynamic member whose connection closed goes after the grace unless it came back. */
  void scheduleConnectionGrace(ClassicGroup group, ClassicMember member, String connectionId) {
    String groupId = group.groupId();
    String memberId = member.memberId();
    context
        .timer()
        .schedule(
            connectionKey(groupId, memberId),
            config.deadConnectionGraceMs(),
            () ->
                whenSame(
                    groupId,
                    group,
                    g ->
                        g.member(memberId)
                            .filter(m -> connectionId.equals(m.connectionId()))
                            .ifPresent(
                                m -> {
                                  log.info(
                                      "Removing member whose connection closed groupId={}"
                                          + " memberId={} connectionId={} graceMs={}",
                                      groupId,
                                      memberId,
                                      connectionId,
                                      config.deadConnectionGraceMs());
                                  removeMember(
                                      g,
                                      m,
                                      RemovalCause.CONNECTION_CLOSED,
                                      "connection of member " + memberId + " closed");
                                })));
  }

  /**
   * Forgets a group that only ever existed in memory (created by a first JoinGroup that never led
   * to a generation) once nothing refers to it, so random group ids cannot pile up.
   */
  void dropIfUnused(ClassicGroup group) {
    if (group.isInState(ClassicGroupState.EMPTY)
        && group.isEmpty()
        && group.generationId() == 0
        && !group.hasPendingMembers()) {
      groups.remove(group.groupId());
    }
  }

  /** Removes a member and rebalances (or completes the running join phase). */
  void removeMember(ClassicGroup group, ClassicMember member, RemovalCause cause, String reason) {
    forget(group, member, cause);
    switch (group.state()) {
      case STABLE, COMPLETING_REBALANCE -> prepareRebalance(group, reason);
      case PREPARING_REBALANCE -> maybeCompleteJoin(group);
      default -> {}
    }
  }

  /**
   * Drops a member from memory: answers what it waits for with UNKNOWN_MEMBER_ID, cancels its
   * timers.
   */
  void forget(ClassicGroup group, ClassicMember member, RemovalCause cause) {
    group.apply(new MemberRemoved(member.memberId(), cause));
    member.completeJoin(JoinResult.error(member.memberId(), Errors.UNKNOWN_MEMBER_ID));
    member.completeSync(SyncResult.error(Errors.UNKNOWN_MEMBER_ID));
    cancelMemberTimers(group.groupId(), member.memberId());
  }

  void cancelMemberTimers(String groupId, String memberId) {
    context.timer().cancel(sessionKey(groupId, memberId));
    context.timer().cancel(connectionKey(groupId, memberId));
  }

  /** Runs {@code action} if {@code groupId} still names this very group object. */
  private void whenSame(
      String groupId, ClassicGroup group, java.util.function.Consumer<ClassicGroup> action) {
    group(groupId).filter(g -> g == group).ifPresent(action);
  }
}
