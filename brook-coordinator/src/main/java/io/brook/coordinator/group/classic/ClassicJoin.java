package io.brook.coordinator.group.classic;

import io.brook.coordinator.group.GroupConfig;
import io.brook.coordinator.group.Groups;
import io.brook.coordinator.group.classic.ClassicGroupEvent.MemberJoined;
import io.brook.coordinator.group.classic.ClassicGroupEvent.MemberRejoined;
import io.brook.coordinator.group.classic.ClassicGroupEvent.MemberUpdated;
import io.brook.coordinator.group.classic.ClassicGroupEvent.PendingMemberAdded;
import io.brook.coordinator.group.classic.ClassicGroupEvent.RemovalCause;
import io.brook.coordinator.group.classic.ClassicGroupEvent.StaticMemberRejoined;
import io.brook.coordinator.group.classic.ClassicGroupRecords.PersistedGroup;
import io.brook.coordinator.group.classic.ClassicRequests.Join;
import io.brook.coordinator.runtime.ShardContext;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** JoinGroup: admitting members, static member replacement, and answering from the group. */
final class ClassicJoin {
  private static final Logger log = LoggerFactory.getLogger(ClassicJoin.class);

  /**
   * The most protocol metadata one member may send (all its protocols together): 1 MiB. A member
   * with more gets INVALID_REQUEST. Kafka has no such bound; Brook has one because the metadata of
   * every member is kept in memory, sent to the leader and written into one group record, so the
   * record stays under {@code group.max.size} times this bound.
   */
  static final int MAX_MEMBER_METADATA_BYTES = 1024 * 1024;

  private final ShardContext context;
  private final GroupConfig config;
  private final Groups groups;
  private final ClassicRebalancer rebalancer;

  ClassicJoin(
      ShardContext context, GroupConfig config, Groups groups, ClassicRebalancer rebalancer) {
    this.context = context;
    this.config = config;
    this.groups = groups;
    this.rebalancer = rebalancer;
  }

  CompletableFuture<JoinResult> join(Join request) {
    String memberId = request.memberId() == null ? "" : request.memberId();
    Optional<Errors> invalid = validate(request);
    if (invalid.isPresent()) {
      return done(JoinResult.error(memberId, invalid.get()));
    }
    Optional<ClassicGroup> existing = groups.get(request.groupId(), ClassicGroup.class);
    if (existing.isEmpty() && groups.get(request.groupId()).isPresent()) {
      // A consumer (KIP-848) group of that id: the protocols cannot be mixed.
      return done(JoinResult.error(memberId, Errors.INCONSISTENT_GROUP_PROTOCOL));
    }
    if (existing.isEmpty() && !memberId.isEmpty()) {
      return done(JoinResult.error(memberId, Errors.UNKNOWN_MEMBER_ID));
    }
    ClassicGroup group =
        existing.orElseGet(
            () -> {
              ClassicGroup created = new ClassicGroup(request.groupId(), context.nowMs());
              groups.put(created);
              return created;
            });
    if (group.isInState(ClassicGroupState.DEAD)) {
      return done(JoinResult.error(memberId, Errors.COORDINATOR_NOT_AVAILABLE));
    }
    if (!group.supportsProtocols(request.protocolType(), request.protocols())) {
      rebalancer.dropIfUnused(group);
      return done(JoinResult.error(memberId, Errors.INCONSISTENT_GROUP_PROTOCOL));
    }
    if (!acceptsJoiningMember(group, memberId)) {
      // As in Kafka, a known member that finds the group full is dropped from it.
      group
          .member(memberId)
          .ifPresent(
              m -> rebalancer.removeMember(group, m, RemovalCause.GROUP_FULL, "group is full"));
      return done(JoinResult.error(memberId, Errors.GROUP_MAX_SIZE_REACHED));
    }
    CompletableFuture<JoinResult> result = new CompletableFuture<>();
    if (memberId.isEmpty()) {
      joinUnknownMember(group, request, result);
    } else {
      joinKnownMember(group, request, result);
    }
    return result;
  }

  private Optional<Errors> validate(Join request) {
    if (request.groupId() == null || request.groupId().isEmpty()) {
      return Optional.of(Errors.INVALID_GROUP_ID);
    }
    if (request.sessionTimeoutMs() < config.groupMinSessionTimeoutMs()
        || request.sessionTimeoutMs() > config.groupMaxSessionTimeoutMs()) {
      return Optional.of(Errors.INVALID_SESSION_TIMEOUT);
    }
    long metadataBytes = 0;
    for (ClassicMember.Protocol p : request.protocols()) {
      metadataBytes += p.metadata() == null ? 0 : p.metadata().length;
    }
    if (metadataBytes > MAX_MEMBER_METADATA_BYTES) {
      log.warn(
          "Rejecting JoinGroup with oversized protocol metadata groupId={} memberId={}"
              + " metadataBytes={} maxBytes={}",
          request.groupId(),
          request.memberId(),
          metadataBytes,
          MAX_MEMBER_METADATA_BYTES);
      return Optional.of(Errors.INVALID_REQUEST);
    }
    return Optional.empty();
  }

  /** {@code group.max.size}: known members always, new ones while there is room. */
  private boolean acceptsJoiningMember(ClassicGroup group, String memberId) {
    int max = config.groupMaxSize();
    return switch (group.state()) {
      case EMPTY, DEAD -> true;
      case PREPARING_REBALANCE ->
          group.member(memberId).map(ClassicMember::isAwaitingJoin).orElse(false)
              || group.numAwaitingJoin() < max;
      case COMPLETING_REBALANCE, STABLE -> group.hasMember(memberId) || group.size() < max;
    };
  }

  private void joinUnknownMember(
      ClassicGroup group, Join request, CompletableFuture<JoinResult> result) {
    String prefix =
        request.groupInstanceId() != null ? request.groupInstanceId() : request.clientId();
    String newMemberId = (prefix == null ? "" : prefix) + "-" + UUID.randomUUID();
    if (request.groupInstanceId() != null) {
      String oldMemberId = group.staticMemberId(request.groupInstanceId());
      if (oldMemberId != null) {
        replaceStaticMember(group, request, oldMemberId, newMemberId, result);
      } else {
        addMemberAndRebalance(group, request, newMemberId, result);
      }
    } else if (request.requireKnownMemberId()) {
      // KIP-394: the client must come back with this id, so a lost answer leaves no ghost member.
      group.apply(new PendingMemberAdded(newMemberId));
      rebalancer.schedulePendingMember(group, newMemberId, request.sessionTimeoutMs());
      result.complete(JoinResult.error(newMemberId, Errors.MEMBER_ID_REQUIRED));
    } else {
      addMemberAndRebalance(group, request, newMemberId, result);
    }
  }

  private void joinKnownMember(
      ClassicGroup group, Join request, CompletableFuture<JoinResult> result) {
    String memberId = request.memberId();
    if (group.isPendingMember(memberId)) {
      context.timer().cancel(ClassicRebalancer.pendingKey(group.groupId(), memberId));
      addMemberAndRebalance(group, request, memberId, result);
      return;
    }
    try {
      group.validateMember(memberId, request.groupInstanceId());
    } catch (ApiException e) {
      result.complete(JoinResult.error(memberId, Errors.forException(e)));
      return;
    }
    ClassicMember member = group.member(memberId).orElseThrow();
    ClassicMembership.heardFrom(group, member, request.connectionId());
    switch (group.state()) {
      case PREPARING_REBALANCE -> updateMemberAndRebalance(group, member, request, result);
      case COMPLETING_REBALANCE -> {
        if (member.matches(request.protocols())) {
          result.complete(currentGeneration(group, member, group.isLeader(memberId)));
        } else {
          updateMemberAndRebalance(group, member, request, result);
        }
      }
      case STABLE -> {
        if (group.isLeader(memberId) || !member.matches(request.protocols())) {
          // A leader's JoinGroup forces a rebalance: it is how a leader reacts to metadata
          // changes (new partitions) that do not change its own subscription.
          updateMemberAndRebalance(group, member, request, result);
        } else {
          result.complete(currentGeneration(group, member, false));
        }
      }
      case EMPTY, DEAD -> result.complete(JoinResult.error(memberId, Errors.UNKNOWN_MEMBER_ID));
    }
  }

  private JoinResult currentGeneration(ClassicGroup group, ClassicMember member, boolean asLeader) {
    List<JoinResult.JoinedMember> members =
        asLeader
            ? group.members().stream()
                .map(
                    m ->
                        new JoinResult.JoinedMember(
                            m.memberId(),
                            m.groupInstanceId(),
                            m.metadata(group.protocolName()).orElse(new byte[0])))
                .toList()
            : List.of();
    return new JoinResult(
        Errors.NONE,
        member.memberId(),
        group.generationId(),
        group.protocolType(),
        group.protocolName(),
        group.leaderId(),
        members);
  }

  private void addMemberAndRebalance(
      ClassicGroup group, Join request, String memberId, CompletableFuture<JoinResult> result) {
    group.apply(
        new MemberJoined(
            memberId,
            request.groupInstanceId(),
            request.protocolType(),
            metadataOf(request),
            request.connectionId(),
            result));
    rebalancer.scheduleSession(group, group.member(memberId).orElseThrow());
    rebalancer.maybePrepareRebalanceOrCompleteJoin(
        group, "member " + memberId + " joined" + reasonSuffix(request));
  }

  private void updateMemberAndRebalance(
      ClassicGroup group,
      ClassicMember member,
      Join request,
      CompletableFuture<JoinResult> result) {
    group.apply(new MemberRejoined(member.memberId(), metadataOf(request), result));
    rebalancer.maybePrepareRebalanceOrCompleteJoin(
        group, "member " + member.memberId() + " rejoined" + reasonSuffix(request));
  }

  private static ClassicMember.Metadata metadataOf(Join request) {
    return new ClassicMember.Metadata(
        request.clientId(),
        request.clientHost(),
        request.rebalanceTimeoutMs(),
        request.sessionTimeoutMs(),
        request.protocols());
  }

  private static String reasonSuffix(Join request) {
    return request.reason() == null || request.reason().isEmpty() ? "" : ": " + request.reason();
  }

  /**
   * A known static member rejoined with a new member id (it restarted). The old id is fenced. In a
   * Stable group whose protocol would not change, the member takes over the old id's place and
   * assignment without a rebalance: the swap is written to the group record and the member is
   * answered with the current generation once that is durable.
   */
  private void replaceStaticMember(
      ClassicGroup group,
      Join request,
      String oldMemberId,
      String newMemberId,
      CompletableFuture<JoinResult> result) {
    ClassicMember old = group.member(oldMemberId).orElseThrow();
    String oldLeader = group.leaderId();
    old.completeJoin(JoinResult.error(oldMemberId, Errors.FENCED_INSTANCE_ID));
    old.completeSync(SyncResult.error(Errors.FENCED_INSTANCE_ID));
    rebalancer.cancelMemberTimers(group.groupId(), oldMemberId);
    log.info(
        "Static member rejoined with a new member id groupId={} groupInstanceId={}"
            + " oldMemberId={} newMemberId={} state={}",
        group.groupId(),
        request.groupInstanceId(),
        oldMemberId,
        newMemberId,
        group.stateName());
    if (group.isInState(ClassicGroupState.STABLE)
        && protocolUnchanged(group, old, request.protocols())) {
      replaceInStableGroup(group, request, old, oldLeader, newMemberId, result);
      return;
    }
    group.apply(
        new StaticMemberRejoined(
            oldMemberId, newMemberId, metadataOf(request), request.connectionId(), result));
    rebalancer.scheduleSession(group, group.member(newMemberId).orElseThrow());
    if (group.isInState(ClassicGroupState.PREPARING_REBALANCE)) {
      rebalancer.maybeCompleteJoin(group);
    } else {
      rebalancer.prepareRebalance(
          group, "static member " + request.groupInstanceId() + " rejoined with new metadata");
    }
  }

  private static boolean protocolUnchanged(
      ClassicGroup group, ClassicMember old, List<ClassicMember.Protocol> protocols) {
    String current = group.protocolName();
    return current != null
        && protocols.stream().anyMatch(p -> p.name().equals(current))
        && old.metadata(current).isPresent();
  }

  private void replaceInStableGroup(
      ClassicGroup group,
      Join request,
      ClassicMember old,
      String oldLeader,
      String newMemberId,
      CompletableFuture<JoinResult> result) {
    // The record of the swap, built from a detached copy: the group changes when it is replayed.
    ClassicMember replacement = old.withMemberId(newMemberId);
    replacement.update(metadataOf(request));
    List<ClassicMember> members =
        group.members().stream().map(m -> m == old ? replacement : m).toList();
    String leader = group.isLeader(old.memberId()) ? newMemberId : group.leaderId();
    PersistedGroup record =
        group.persisted(
            group.generationId(), group.protocolName(), leader, members, Map.of(), context.nowMs());
    rebalancer
        .write(group, record)
        .whenCompleteAsync(
            (ok, error) -> {
              if (error != null) {
                result.complete(
                    JoinResult.error(newMemberId, ClassicRebalancer.writeFailure(error)));
                return;
              }
              // The old leader id is returned so the member does not act as a leader and
              // compute an assignment the Stable group would never hand out.
              result.complete(
                  new JoinResult(
                      Errors.NONE,
                      newMemberId,
                      group.generationId(),
                      group.protocolType(),
                      group.protocolName(),
                      oldLeader,
                      List.of()));
            },
            context.executor());
    group
        .member(newMemberId)
        .ifPresent(
            m -> {
              group.apply(new MemberUpdated(newMemberId, metadataOf(request)));
              ClassicMembership.heardFrom(group, m, request.connectionId());
              rebalancer.scheduleSession(group, m);
            });
  }

  private static CompletableFuture<JoinResult> done(JoinResult result) {
    return CompletableFuture.completedFuture(result);
  }
}
