package io.brook.coordinator.group.classic;

import static io.brook.coordinator.group.classic.ClassicTestContext.GROUP;
import static io.brook.coordinator.group.classic.ClassicTestContext.REBALANCE_MS;
import static io.brook.coordinator.group.classic.ClassicTestContext.SESSION_MS;
import static io.brook.coordinator.group.classic.ClassicTestContext.assignmentFor;
import static org.assertj.core.api.Assertions.assertThat;

import io.brook.coordinator.group.GroupCoordinatorShard;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class ClassicGroupManagerTest {

  /** Two members through a first generation: join, leader sync, follower sync. */
  private static JoinResult[] stableGroupOfTwo(ClassicTestContext ctx) {
    JoinResult[] joined = secondGenerationJoined(ctx);
    JoinResult leader = joined[0];
    JoinResult follower = joined[1];
    CompletableFuture<SyncResult> followerSync =
        ctx.sync(follower.memberId(), null, follower.generationId(), Map.of());
    assertThat(followerSync).isNotDone();
    assertThat(ctx.leaderSync(leader, null).join().error()).isEqualTo(Errors.NONE);
    assertThat(followerSync.join().assignment()).isEqualTo(assignmentFor(follower.memberId()));
    return new JoinResult[] {leader, follower};
  }

  /** A Stable first generation of one member, then a second one joins: leader, follower. */
  private static JoinResult[] secondGenerationJoined(ClassicTestContext ctx) {
    CompletableFuture<JoinResult> first = ctx.joinNew("c1");
    assertThat(first).isCompleted(); // alone, with no initial delay: generation 1 at once
    JoinResult a1 = first.join();
    ctx.leaderSync(a1, null).join();
    CompletableFuture<JoinResult> second = ctx.joinNew("c2");
    assertThat(second).isNotDone();
    assertThat(ctx.heartbeat(a1.memberId(), null, a1.generationId()))
        .isEqualTo(Errors.REBALANCE_IN_PROGRESS);
    JoinResult a2 = ctx.rejoin(a1).join();
    JoinResult b2 = second.join();
    JoinResult leader = a2.leaderId().equals(a2.memberId()) ? a2 : b2;
    JoinResult follower = leader == a2 ? b2 : a2;
    return new JoinResult[] {leader, follower};
  }

  private static void assertJoinedMembers(JoinResult result, String... memberIds) {
    assertThat(result.members())
        .extracting(JoinResult.JoinedMember::memberId)
        .containsExactly(memberIds);
  }

  @Test
  void firstJoinGetsMemberIdRequiredThenJoinsAsLeader() {
    // Given
    ClassicTestContext ctx = ClassicTestContext.builder().build();
    // When
    JoinResult required = ctx.join(ctx.joinRequest("", null)).join();
    JoinResult joined = ctx.join(ctx.joinRequest(required.memberId(), null)).join();
    // Then
    assertThat(required.error()).isEqualTo(Errors.MEMBER_ID_REQUIRED);
    assertThat(required.memberId()).startsWith("client-");
    assertThat(joined.error()).isEqualTo(Errors.NONE);
    assertThat(joined.generationId()).isEqualTo(1);
    assertThat(joined.leaderId()).isEqualTo(required.memberId());
    assertThat(joined.protocolName()).isEqualTo("range");
    assertThat(joined.members())
        .extracting(JoinResult.JoinedMember::memberId)
        .containsExactly(required.memberId());
    assertThat(ctx.group().state()).isEqualTo(ClassicGroupState.COMPLETING_REBALANCE);
  }

  @Test
  void joinSyncHeartbeatThroughTwoGenerations() {
    // Given
    ClassicTestContext ctx = ClassicTestContext.builder().build();
    // When
    JoinResult[] members = stableGroupOfTwo(ctx);
    // Then
    assertThat(members[0].generationId()).isEqualTo(2);
    assertThat(members[0].members()).hasSize(2);
    assertThat(members[1].members()).isEmpty();
    assertThat(ctx.group().state()).isEqualTo(ClassicGroupState.STABLE);
    assertThat(ctx.heartbeat(members[1].memberId(), null, 2)).isEqualTo(Errors.NONE);
    assertThat(ctx.heartbeat(members[1].memberId(), null, 1)).isEqualTo(Errors.ILLEGAL_GENERATION);
    assertThat(ctx.heartbeat("nobody", null, 2)).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
  }

  @Test
  void followerRejoiningAStableGroupWithSameMetadataGetsTheCurrentGeneration() {
    ClassicTestContext ctx = ClassicTestContext.builder().build();
    JoinResult[] members = stableGroupOfTwo(ctx);
    JoinResult again = ctx.rejoin(members[1]).join();
    assertThat(again.generationId()).isEqualTo(2);
    assertThat(ctx.group().state()).isEqualTo(ClassicGroupState.STABLE);
  }

  @Test
  void withoutInitialDelayANewGroupCompletesOnceEveryPendingMemberJoined() {
    // Given two first joins answered with MEMBER_ID_REQUIRED
    ClassicTestContext ctx = ClassicTestContext.builder().build();
    JoinResult a = ctx.join(ctx.joinRequest("", null)).join();
    JoinResult b = ctx.join(ctx.joinRequest("", null)).join();
    // When both come back with their ids
    CompletableFuture<JoinResult> aJoin = ctx.join(ctx.joinRequest(a.memberId(), null));
    assertThat(aJoin).isNotDone(); // waits for the pending member b
    CompletableFuture<JoinResult> bJoin = ctx.join(ctx.joinRequest(b.memberId(), null));
    // Then the join phase completes at once, without waiting for the rebalance timeout
    assertThat(aJoin.join().generationId()).isEqualTo(1);
    assertThat(bJoin.join().generationId()).isEqualTo(1);
  }

  @Test
  void aPendingMemberThatLeavesNoLongerHoldsUpTheJoinPhase() {
    // Given a joined member waiting for a member id handed out by MEMBER_ID_REQUIRED
    ClassicTestContext ctx = ClassicTestContext.builder().build();
    JoinResult a = ctx.join(ctx.joinRequest("", null)).join();
    JoinResult b = ctx.join(ctx.joinRequest("", null)).join();
    CompletableFuture<JoinResult> aJoin = ctx.join(ctx.joinRequest(a.memberId(), null));
    assertThat(aJoin).isNotDone();
    // When the pending id leaves instead of joining
    ClassicGroupManager.LeaveOutcome outcome =
        ctx.classic().leave(GROUP, List.of(new ClassicRequests.Leaving(b.memberId(), null, null)));
    // Then it is forgotten and the join phase ends with the members that did join
    assertThat(outcome.memberErrors()).containsExactly(Errors.NONE);
    assertThat(ctx.group().isPendingMember(b.memberId())).isFalse();
    JoinResult joined = aJoin.join();
    assertThat(joined.generationId()).isEqualTo(1);
    assertJoinedMembers(joined, a.memberId());
    assertThat(ctx.group().state()).isEqualTo(ClassicGroupState.COMPLETING_REBALANCE);
  }

  @Test
  void membersThatNeverSyncAreRemovedAfterTheRebalanceTimeout() {
    // Given a second generation whose leader synced while the follower never does
    ClassicTestContext ctx = ClassicTestContext.builder().build();
    JoinResult[] joined = secondGenerationJoined(ctx);
    JoinResult leader = joined[0];
    JoinResult follower = joined[1];
    ctx.leaderSync(leader, null).join();
    assertThat(ctx.group().state()).isEqualTo(ClassicGroupState.STABLE);
    // When the rebalance timeout passes, both heartbeating all along
    for (int t = 0; t < REBALANCE_MS; t += 3_000) {
      ctx.context.advance(3_000);
      if (ctx.group().hasMember(follower.memberId())) {
        ctx.heartbeat(follower.memberId(), null, follower.generationId());
      }
      ctx.heartbeat(leader.memberId(), null, leader.generationId());
    }
    // Then the follower is gone and the group rebalances without it
    assertThat(ctx.group().hasMember(follower.memberId())).isFalse();
    assertThat(ctx.heartbeat(follower.memberId(), null, follower.generationId()))
        .isEqualTo(Errors.UNKNOWN_MEMBER_ID);
    assertThat(ctx.group().state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
    JoinResult next = ctx.rejoin(leader).join();
    assertThat(next.generationId()).isEqualTo(leader.generationId() + 1);
  }

  @Test
  void aLeaderThatLeavesHandsLeadershipToTheRemainingMember() {
    // Given
    ClassicTestContext ctx = ClassicTestContext.builder().build();
    JoinResult[] members = stableGroupOfTwo(ctx);
    // When the leader leaves
    ctx.classic()
        .leave(GROUP, List.of(new ClassicRequests.Leaving(members[0].memberId(), null, null)));
    // Then the follower leads the next generation alone
    assertThat(ctx.group().leaderId()).isEqualTo(members[1].memberId());
    JoinResult next = ctx.rejoin(members[1]).join();
    assertThat(next.leaderId()).isEqualTo(members[1].memberId());
    assertThat(next.generationId()).isEqualTo(members[1].generationId() + 1);
    assertJoinedMembers(next, members[1].memberId());
  }

  @Test
  void membersThatDoNotRejoinWithinTheRebalanceTimeoutAreRemoved() {
    // Given
    ClassicTestContext ctx = ClassicTestContext.builder().build();
    JoinResult[] members = stableGroupOfTwo(ctx);
    // When the leader rejoins and the follower stays silent (but keeps its session alive)
    CompletableFuture<JoinResult> leaderJoin = ctx.rejoin(members[0]);
    ctx.context.advance(SESSION_MS - 1);
    ctx.heartbeat(members[1].memberId(), null, 2);
    ctx.context.advance(REBALANCE_MS - SESSION_MS + 1);
    // Then
    JoinResult result = leaderJoin.join();
    assertThat(result.generationId()).isEqualTo(3);
    assertThat(result.members())
        .extracting(JoinResult.JoinedMember::memberId)
        .containsExactly(members[0].memberId());
    assertThat(ctx.group().hasMember(members[1].memberId())).isFalse();
  }

  @Test
  void sessionExpiryRemovesTheMemberAndRebalances() {
    // Given
    ClassicTestContext ctx = ClassicTestContext.builder().build();
    JoinResult[] members = stableGroupOfTwo(ctx);
    // When only the leader heartbeats
    for (int t = 0; t < 4; t++) {
      ctx.context.advance(3_000);
      ctx.heartbeat(members[0].memberId(), null, 2);
    }
    // Then
    assertThat(ctx.group().hasMember(members[1].memberId())).isFalse();
    assertThat(ctx.group().state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
    assertThat(ctx.heartbeat(members[0].memberId(), null, 2))
        .isEqualTo(Errors.REBALANCE_IN_PROGRESS);
    assertThat(ctx.rejoin(members[0]).join().generationId()).isEqualTo(3);
  }

  @Test
  void initialDelayWaitsForMoreMembersUpToTheRebalanceTimeout() {
    // Given a 3 s initial delay
    ClassicTestContext ctx = ClassicTestContext.builder().initialDelayMs(3_000).build();
    // When a member joins, then another one 2 s later
    CompletableFuture<JoinResult> a = ctx.joinNew("c1");
    ctx.context.advance(2_000);
    CompletableFuture<JoinResult> b = ctx.joinNew("c2");
    ctx.context.advance(1_000);
    // Then the delay is extended once more for the newcomer
    assertThat(a).isNotDone();
    ctx.context.advance(3_000);
    assertThat(a.join().generationId()).isEqualTo(1);
    assertThat(b.join().generationId()).isEqualTo(1);
    assertThat(a.join().leaderId()).isEqualTo(b.join().leaderId());
  }

  @Test
  void staticMemberRestartKeepsAssignmentAndGenerationAndFencesTheOldId() {
    // Given two static members in a Stable group
    ClassicTestContext ctx = ClassicTestContext.builder().build();
    JoinResult a = ctx.join(ctx.joinRequest("", "i-a")).join();
    ctx.leaderSync(a, "i-a").join();
    CompletableFuture<JoinResult> bJoin = ctx.join(ctx.joinRequest("", "i-b"));
    JoinResult a2 = ctx.join(ctx.joinRequest(a.memberId(), "i-a")).join();
    JoinResult b2 = bJoin.join();
    ctx.leaderSync(a2, "i-a").join();
    ctx.sync(b2.memberId(), "i-b", b2.generationId(), Map.of()).join();
    int generation = ctx.group().generationId();
    // When b restarts: it rejoins with no member id
    JoinResult b3 = ctx.join(ctx.joinRequest("", "i-b")).join();
    // Then
    assertThat(b3.error()).isEqualTo(Errors.NONE);
    assertThat(b3.memberId()).isNotEqualTo(b2.memberId());
    assertThat(b3.generationId()).isEqualTo(generation);
    assertThat(ctx.group().state()).isEqualTo(ClassicGroupState.STABLE);
    SyncResult sync = ctx.sync(b3.memberId(), "i-b", generation, Map.of()).join();
    assertThat(sync.assignment()).isEqualTo(assignmentFor(b2.memberId()));
    assertThat(ctx.heartbeat(b2.memberId(), "i-b", generation))
        .isEqualTo(Errors.FENCED_INSTANCE_ID);
    assertThat(ctx.heartbeat(b3.memberId(), "i-b", generation)).isEqualTo(Errors.NONE);
    // And the swap is durable
    ClassicGroup loaded = ctx.reloaded().classic().group(GROUP).orElseThrow();
    assertThat(loaded.member(b3.memberId())).isPresent();
    assertThat(loaded.member(b2.memberId())).isEmpty();
  }

  @Test
  void aDuplicateStaticInstanceFencesTheParkedJoinOfTheOldOne() {
    // Given two static members; b rejoins with new metadata and waits for a in the join phase
    ClassicTestContext ctx = ClassicTestContext.builder().build();
    JoinResult a = ctx.join(ctx.joinRequest("", "i-a")).join();
    ctx.leaderSync(a, "i-a").join();
    CompletableFuture<JoinResult> bFirst = ctx.join(ctx.joinRequest("", "i-b"));
    JoinResult a2 = ctx.join(ctx.joinRequest(a.memberId(), "i-a")).join();
    ctx.leaderSync(a2, "i-a").join();
    JoinResult b = bFirst.join();
    ctx.sync(b.memberId(), "i-b", b.generationId(), Map.of()).join();
    ClassicRequests.Join changed =
        copy(
            ctx.joinRequest(b.memberId(), "i-b"),
            GROUP,
            SESSION_MS,
            ClassicTestContext.protocols("range", "new-subscription"));
    CompletableFuture<JoinResult> bParked = ctx.join(changed);
    assertThat(bParked).isNotDone();
    // When a second process with the same group.instance.id joins
    CompletableFuture<JoinResult> duplicate = ctx.join(ctx.joinRequest("", "i-b"));
    // Then the old member id is fenced, and the newcomer takes its place in the next generation
    assertThat(bParked.join().error()).isEqualTo(Errors.FENCED_INSTANCE_ID);
    assertThat(ctx.heartbeat(b.memberId(), "i-b", ctx.group().generationId()))
        .isEqualTo(Errors.FENCED_INSTANCE_ID);
    ctx.join(ctx.joinRequest(a2.memberId(), "i-a"));
    assertThat(duplicate.join().error()).isEqualTo(Errors.NONE);
    assertThat(duplicate.join().generationId()).isEqualTo(b.generationId() + 1);
  }

  @Test
  void aRebalanceAnswersParkedSyncsWithRebalanceInProgress() {
    // Given a follower waiting for the leader's assignment
    ClassicTestContext ctx = ClassicTestContext.builder().build();
    JoinResult a = ctx.joinNew("c1").join();
    ctx.leaderSync(a, null).join();
    CompletableFuture<JoinResult> bJoin = ctx.joinNew("c2");
    JoinResult a2 = ctx.rejoin(a).join();
    JoinResult b2 = bJoin.join();
    JoinResult follower = a2.leaderId().equals(a2.memberId()) ? b2 : a2;
    CompletableFuture<SyncResult> parked =
        ctx.sync(follower.memberId(), null, follower.generationId(), Map.of());
    assertThat(parked).isNotDone();
    // When a third member joins before the leader's SyncGroup
    ctx.joinNew("c3");
    // Then the follower learns to rejoin
    assertThat(parked.join().error()).isEqualTo(Errors.REBALANCE_IN_PROGRESS);
    assertThat(ctx.group().state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
  }

  @Test
  void restartedStaticLeaderIsNotToldItLeads() {
    ClassicTestContext ctx = ClassicTestContext.builder().build();
    JoinResult a = ctx.join(ctx.joinRequest("", "i-a")).join();
    ctx.leaderSync(a, "i-a").join();
    JoinResult a2 = ctx.join(ctx.joinRequest("", "i-a")).join();
    assertThat(a2.leaderId()).isEqualTo(a.memberId());
    assertThat(ctx.group().leaderId()).isEqualTo(a2.memberId());
  }

  @Test
  void leaveGroupInBatchesAnswersPerMember() {
    // Given
    ClassicTestContext ctx = ClassicTestContext.builder().build();
    JoinResult[] members = stableGroupOfTwo(ctx);
    // When
    ClassicGroupManager.LeaveOutcome outcome =
        ctx.classic()
            .leave(
                GROUP,
                List.of(
                    new ClassicRequests.Leaving(members[1].memberId(), null, "bye"),
                    new ClassicRequests.Leaving("ghost", null, null),
                    new ClassicRequests.Leaving("", "no-such-instance", null)));
    // Then
    assertThat(outcome.error()).isEqualTo(Errors.NONE);
    assertThat(outcome.memberErrors())
        .containsExactly(Errors.NONE, Errors.UNKNOWN_MEMBER_ID, Errors.UNKNOWN_MEMBER_ID);
    assertThat(ctx.group().state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
    assertThat(ctx.classic().leave("other", List.of()).error()).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
  }

  @Test
  void lastMemberLeavingEmptiesTheGroupInANewGeneration() {
    ClassicTestContext ctx = ClassicTestContext.builder().build();
    JoinResult a = ctx.joinNew("c1").join();
    ctx.leaderSync(a, null).join();
    ctx.classic().leave(GROUP, List.of(new ClassicRequests.Leaving(a.memberId(), null, null)));
    assertThat(ctx.group().state()).isEqualTo(ClassicGroupState.EMPTY);
    assertThat(ctx.group().generationId()).isEqualTo(2);
    assertThat(ctx.reloaded().classic().group(GROUP).orElseThrow().state())
        .isEqualTo(ClassicGroupState.EMPTY);
  }

  @Test
  void aGroupThatNeverFormedIsForgotten() {
    // Given first joins that never come back, and one with no protocol
    ClassicTestContext ctx = ClassicTestContext.builder().build();
    ctx.join(ctx.joinRequest("", null)).join();
    ClassicRequests.Join noProtocol = ctx.joinRequest("", null);
    ctx.join(copy(noProtocol, "other", 10_000, List.of())).join();
    assertThat(ctx.classic().group("other")).isEmpty();
    assertThat(ctx.classic().group(GROUP)).isPresent();
    // When the member id handed out expires
    ctx.context.advance(SESSION_MS);
    // Then nothing is left in memory
    assertThat(ctx.classic().group(GROUP)).isEmpty();
    assertThat(ctx.shard.groups().size()).isZero();
  }

  @Test
  void invalidRequestsGetKafkaErrorCodes() {
    ClassicTestContext ctx = ClassicTestContext.builder().maxSize(1).build();
    ClassicRequests.Join ok = ctx.joinRequest("", null);
    assertThat(ctx.join(copy(ok, "", 10_000, ok.protocols())).join().error())
        .isEqualTo(Errors.INVALID_GROUP_ID);
    assertThat(ctx.join(copy(ok, GROUP, 10, ok.protocols())).join().error())
        .isEqualTo(Errors.INVALID_SESSION_TIMEOUT);
    byte[] huge = new byte[ClassicJoin.MAX_MEMBER_METADATA_BYTES + 1];
    assertThat(
            ctx.join(copy(ok, GROUP, 10_000, List.of(new ClassicMember.Protocol("range", huge))))
                .join()
                .error())
        .isEqualTo(Errors.INVALID_REQUEST);
    assertThat(ctx.join(ctx.joinRequest("unknown", null)).join().error())
        .isEqualTo(Errors.UNKNOWN_MEMBER_ID);
    JoinResult a = ctx.joinNew("c1").join();
    ctx.leaderSync(a, null).join();
    assertThat(ctx.join(ctx.joinRequest("", "static")).join().error())
        .isEqualTo(Errors.GROUP_MAX_SIZE_REACHED);
    ClassicRequests.Join otherProtocol =
        copy(
            ctx.joinRequest(a.memberId(), null),
            GROUP,
            10_000,
            ClassicTestContext.protocols("x", ""));
    assertThat(ctx.join(otherProtocol).join().error())
        .isEqualTo(Errors.INCONSISTENT_GROUP_PROTOCOL);
    assertThat(ctx.sync(a.memberId(), null, 7, Map.of()).join().error())
        .isEqualTo(Errors.ILLEGAL_GENERATION);
    assertThat(ctx.sync("ghost", null, 1, Map.of()).join().error())
        .isEqualTo(Errors.UNKNOWN_MEMBER_ID);
  }

  private static ClassicRequests.Join copy(
      ClassicRequests.Join r,
      String groupId,
      int sessionMs,
      List<ClassicMember.Protocol> protocols) {
    return new ClassicRequests.Join(
        groupId,
        r.memberId(),
        r.groupInstanceId(),
        r.protocolType(),
        protocols,
        sessionMs,
        r.rebalanceTimeoutMs(),
        r.clientId(),
        r.clientHost(),
        r.requireKnownMemberId(),
        r.connectionId(),
        r.reason());
  }

  @Test
  void loadingRebuildsMembersGenerationAndAssignment() {
    // Given
    ClassicTestContext ctx = ClassicTestContext.builder().build();
    JoinResult[] members = stableGroupOfTwo(ctx);
    ClassicGroup live = ctx.group();
    // When
    GroupCoordinatorShard loaded = ctx.reloaded();
    // Then
    ClassicGroup group = loaded.classic().group(GROUP).orElseThrow();
    assertThat(group.state()).isEqualTo(ClassicGroupState.STABLE);
    assertThat(group.generationId()).isEqualTo(live.generationId());
    assertThat(group.leaderId()).isEqualTo(live.leaderId());
    assertThat(group.protocolName()).isEqualTo("range");
    assertThat(group.protocolType()).isEqualTo("consumer");
    for (JoinResult m : members) {
      ClassicMember member = group.member(m.memberId()).orElseThrow();
      assertThat(member.assignment()).isEqualTo(assignmentFor(m.memberId()));
      assertThat(member.sessionTimeoutMs()).isEqualTo(SESSION_MS);
      assertThat(member.clientHost()).isEqualTo("/127.0.0.1");
    }
  }

  @Test
  void loadedMembersGetSessionTimers() {
    ClassicTestContext ctx = ClassicTestContext.builder().build();
    JoinResult[] members = stableGroupOfTwo(ctx);
    GroupCoordinatorShard loaded = ctx.reloaded();
    assertThat(ctx.context.isScheduled(ClassicRebalancer.sessionKey(GROUP, members[0].memberId())))
        .isTrue();
    assertThat(loaded.classic().group(GROUP).orElseThrow().size()).isEqualTo(2);
  }

  @Test
  void loadingAGenerationWithoutAssignmentMakesMembersRejoin() {
    ClassicTestContext ctx = ClassicTestContext.builder().build();
    ctx.joinNew("c1").join(); // generation 1 written, no SyncGroup yet
    ClassicGroup loaded = ctx.reloaded().classic().group(GROUP).orElseThrow();
    assertThat(loaded.state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
    assertThat(loaded.generationId()).isEqualTo(1);
  }

  @Test
  void syncAnswersWaitUntilTheAssignmentIsDurable() {
    // Given
    ClassicTestContext ctx = ClassicTestContext.builder().build();
    JoinResult a = ctx.joinNew("c1").join();
    // When
    ctx.context.holdCommits(true);
    CompletableFuture<SyncResult> sync = ctx.leaderSync(a, null);
    // Then
    assertThat(sync).isNotDone();
    ctx.context.releaseCommits();
    assertThat(sync.join().assignment()).isEqualTo(assignmentFor(a.memberId()));
  }

  @Test
  void failedAssignmentWriteAnswersTheErrorAndRebalances() {
    ClassicTestContext ctx = ClassicTestContext.builder().build();
    JoinResult a = ctx.joinNew("c1").join();
    ctx.context.failWrites(new org.apache.kafka.common.errors.NotCoordinatorException("moved"));
    SyncResult sync = ctx.leaderSync(a, null).join();
    assertThat(sync.error()).isEqualTo(Errors.NOT_COORDINATOR);
    assertThat(ctx.group().state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
  }

  @Test
  void closedConnectionRemovesADynamicMemberAfterTheGrace() {
    // Given
    ClassicTestContext ctx = ClassicTestContext.builder().build();
    JoinResult[] members = stableGroupOfTwo(ctx);
    String follower = members[1].memberId();
    ctx.heartbeat(follower, null, 2); // its latest connection is "hb-<id>"
    // When
    ctx.shard.onConnectionClosed("hb-" + follower);
    ctx.context.advance(1_999);
    assertThat(ctx.group().hasMember(follower)).isTrue();
    ctx.context.advance(1);
    // Then
    assertThat(ctx.group().hasMember(follower)).isFalse();
    assertThat(ctx.group().state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
  }

  @Test
  void memberBackOnAnotherConnectionIsKept() {
    ClassicTestContext ctx = ClassicTestContext.builder().build();
    JoinResult[] members = stableGroupOfTwo(ctx);
    String follower = members[1].memberId();
    ctx.heartbeat(follower, null, 2);
    ctx.shard.onConnectionClosed("hb-" + follower);
    ctx.classic()
        .heartbeat(new ClassicRequests.Heartbeat(GROUP, follower, null, 2, "new-connection"));
    ctx.context.advance(5_000);
    assertThat(ctx.group().hasMember(follower)).isTrue();
  }

  @Test
  void staticMembersKeepTheirSessionWhenTheConnectionCloses() {
    ClassicTestContext ctx = ClassicTestContext.builder().build();
    JoinResult a = ctx.join(ctx.joinRequest("", "i-a")).join();
    ctx.leaderSync(a, "i-a").join();
    ctx.shard.onConnectionClosed("conn-" + a.memberId());
    ctx.shard.onConnectionClosed("conn-");
    ctx.context.advance(SESSION_MS - 1);
    assertThat(ctx.group().hasMember(a.memberId())).isTrue();
    ctx.context.advance(1);
    assertThat(ctx.group().hasMember(a.memberId())).isFalse();
  }

  @Test
  void unloadAnswersParkedJoinsWithNotCoordinator() {
    ClassicTestContext ctx = ClassicTestContext.builder().initialDelayMs(3_000).build();
    CompletableFuture<JoinResult> parked = ctx.joinNew("c1");
    ctx.shard.onUnloaded();
    assertThat(parked.join().error()).isEqualTo(Errors.NOT_COORDINATOR);
  }

  @Test
  void offsetCommitsFollowKafkasClassicRules() {
    ClassicTestContext ctx = ClassicTestContext.builder().build();
    JoinResult a = ctx.joinNew("c1").join();
    ClassicGroup group = ctx.group();
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> group.validateOffsetCommit(a.memberId(), null, 1, (short) 9))
        .isInstanceOf(org.apache.kafka.common.errors.RebalanceInProgressException.class);
    ctx.leaderSync(a, null).join();
    group.validateOffsetCommit(a.memberId(), null, 1, (short) 9);
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> group.validateOffsetCommit(a.memberId(), null, 0, (short) 9))
        .isInstanceOf(org.apache.kafka.common.errors.IllegalGenerationException.class);
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> group.validateOffsetCommit("", null, -1, (short) 9))
        .isInstanceOf(org.apache.kafka.common.errors.UnknownMemberIdException.class);
    org.assertj.core.api.Assertions.assertThatThrownBy(group::validateDeleteGroup)
        .isInstanceOf(org.apache.kafka.common.errors.GroupNotEmptyException.class);
  }

  @Test
  void describeShowsMembersOfAStableGroupAndDeadForUnknownIds() {
    ClassicTestContext ctx = ClassicTestContext.builder().build();
    JoinResult[] members = stableGroupOfTwo(ctx);
    ClassicGroupManager.DescribedGroup described = ctx.classic().describe(GROUP);
    assertThat(described.state()).isEqualTo("Stable");
    assertThat(described.protocolData()).isEqualTo("range");
    assertThat(described.members()).hasSize(2);
    assertThat(described.members())
        .filteredOn(m -> m.memberId().equals(members[1].memberId()))
        .singleElement()
        .satisfies(m -> assertThat(m.assignment()).isEqualTo(assignmentFor(members[1].memberId())));
    ClassicGroupManager.DescribedGroup unknown = ctx.classic().describe("nope");
    assertThat(unknown.found()).isFalse();
    assertThat(unknown.state()).isEqualTo("Dead");
  }
}
