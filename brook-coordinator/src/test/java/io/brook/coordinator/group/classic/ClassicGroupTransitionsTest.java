package io.brook.coordinator.group.classic;

import static io.brook.coordinator.group.classic.ClassicGroupState.COMPLETING_REBALANCE;
import static io.brook.coordinator.group.classic.ClassicGroupState.DEAD;
import static io.brook.coordinator.group.classic.ClassicGroupState.EMPTY;
import static io.brook.coordinator.group.classic.ClassicGroupState.PREPARING_REBALANCE;
import static io.brook.coordinator.group.classic.ClassicGroupState.STABLE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import io.brook.coordinator.group.classic.ClassicGroupEvent.PendingMemberRemoved;
import io.brook.coordinator.group.classic.ClassicGroupEvent.RebalanceStarted;
import io.brook.coordinator.group.classic.ClassicGroupEvent.RemovalCause;
import io.brook.coordinator.group.classic.ClassicGroupEvent.StaticMemberReplaced;
import io.brook.coordinator.group.classic.ClassicGroupEvent.SyncReceived;
import io.brook.coordinator.group.classic.ClassicGroupRecords.PersistedGroup;
import io.brook.coordinator.group.classic.ClassicGroupRecords.PersistedMember;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The transition table of classic groups, driven through {@link ClassicGroup#apply} alone: every
 * move Kafka allows works through the event that makes it, every other move throws an {@link
 * IllegalStateException} naming the group, both states and the event, and a refused event changes
 * nothing.
 */
class ClassicGroupTransitionsTest {
  private static final String GROUP = "g";
  private static final String MEMBER = "m1";
  private static final ClassicMember.Metadata METADATA =
      new ClassicMember.Metadata("client", "/127.0.0.1", 30_000, 10_000, ClassicTestContext.RANGE);

  /** Kafka's table: the states a live classic group may move to from each state. */
  private static final Map<ClassicGroupState, Set<ClassicGroupState>> LEGAL =
      Map.of(
          EMPTY, EnumSet.of(PREPARING_REBALANCE, DEAD),
          PREPARING_REBALANCE, EnumSet.of(COMPLETING_REBALANCE, EMPTY, DEAD),
          COMPLETING_REBALANCE, EnumSet.of(STABLE, PREPARING_REBALANCE, DEAD),
          STABLE, EnumSet.of(PREPARING_REBALANCE, DEAD),
          DEAD, EnumSet.of(DEAD));

  // ---- building a group in each state with events only ----

  private static ClassicGroup groupIn(ClassicGroupState state) {
    ClassicGroup group = new ClassicGroup(GROUP, 0);
    if (state == EMPTY) {
      return group;
    }
    if (state == DEAD) {
      group.apply(new GroupDeleted(1));
      return group;
    }
    group.apply(
        new MemberJoined(MEMBER, null, "consumer", METADATA, "conn-1", new CompletableFuture<>()));
    group.apply(new RebalanceStarted("test", 1));
    if (state == PREPARING_REBALANCE) {
      return group;
    }
    group.apply(new GenerationCompleted(record(1, false, MEMBER)));
    if (state == COMPLETING_REBALANCE) {
      return group;
    }
    group.apply(new AssignmentInstalled(record(1, true, MEMBER)));
    return group;
  }

  private static PersistedGroup record(int generation, boolean assigned, String... memberIds) {
    List<PersistedMember> members = new ArrayList<>();
    for (String id : memberIds) {
      members.add(
          new PersistedMember(
              id,
              null,
              "client",
              "/127.0.0.1",
              30_000,
              10_000,
              "sub".getBytes(StandardCharsets.UTF_8),
              assigned ? ("a:" + id).getBytes(StandardCharsets.UTF_8) : new byte[0]));
    }
    return new PersistedGroup(
        GROUP,
        "consumer",
        generation,
        memberIds.length == 0 ? null : "range",
        memberIds.length == 0 ? null : memberIds[0],
        2,
        members);
  }

  /**
   * The event that moves a group from its current state to {@code target}, as the code emits it.
   */
  private static ClassicGroupEvent moveTo(ClassicGroup group, ClassicGroupState target) {
    int generation = group.generationId();
    return switch (target) {
      case PREPARING_REBALANCE -> new RebalanceStarted("test", 5);
      case COMPLETING_REBALANCE -> new GenerationCompleted(record(generation + 1, false, MEMBER));
      case STABLE -> new AssignmentInstalled(record(generation, true, MEMBER));
      case EMPTY -> new GroupEmptied(record(generation + 1, false));
      case DEAD -> new GroupDeleted(5);
    };
  }

  // ---- the table ----

  @ParameterizedTest
  @EnumSource(ClassicGroupState.class)
  void everyLegalMoveWorksThroughItsEvent(ClassicGroupState from) {
    for (ClassicGroupState to : LEGAL.get(from)) {
      ClassicGroup group = groupIn(from);
      assertThat(group.state()).isEqualTo(from);
      group.apply(moveTo(group, to));
      assertThat(group.state()).as("%s -> %s", from, to).isEqualTo(to);
      assertThat(group.previousState()).isEqualTo(from);
    }
  }

  @ParameterizedTest
  @EnumSource(ClassicGroupState.class)
  void everyIllegalMoveThrowsAndChangesNothing(ClassicGroupState from) {
    for (ClassicGroupState to : EnumSet.complementOf(EnumSet.copyOf(LEGAL.get(from)))) {
      ClassicGroup group = groupIn(from);
      int generation = group.generationId();
      List<String> members = group.members().stream().map(ClassicMember::memberId).toList();
      ClassicGroupEvent event = moveTo(group, to);
      assertThatThrownBy(() -> group.apply(event))
          .as("%s -> %s", from, to)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("classic group " + GROUP)
          .hasMessageContaining(from.wireName())
          .hasMessageContaining(event.getClass().getSimpleName());
      assertThat(group.state()).isEqualTo(from);
      assertThat(group.generationId()).isEqualTo(generation);
      assertThat(group.members().stream().map(ClassicMember::memberId).toList()).isEqualTo(members);
    }
  }

  @Test
  void theTableIsKafkas() {
    for (ClassicGroupState from : ClassicGroupState.values()) {
      for (ClassicGroupState to : ClassicGroupState.values()) {
        assertThat(from.canMoveTo(to))
            .as("%s -> %s", from, to)
            .isEqualTo(LEGAL.get(from).contains(to));
      }
    }
  }

  @Test
  void anIllegalMoveNamesBothStatesAndTheEvent() {
    ClassicGroup group = groupIn(STABLE);
    assertThatThrownBy(() -> group.apply(new GenerationCompleted(record(2, false, MEMBER))))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "classic group g cannot move from Stable to CompletingRebalance on"
                + " GenerationCompleted");
  }

  @ParameterizedTest
  @EnumSource(ClassicGroupState.class)
  void unloadingKillsTheGroupFromEveryState(ClassicGroupState from) {
    ClassicGroup group = groupIn(from);
    group.apply(new GroupUnloaded(9));
    assertThat(group.state()).isEqualTo(DEAD);
    assertThat(group.stateTimestampMs()).isEqualTo(9);
  }

  // ---- loading restores what was written ----

  @Test
  void loadingRestoresTheStateARecordWasWrittenIn() {
    Map<ClassicGroupState, Function<Integer, PersistedGroup>> written =
        Map.of(
            EMPTY, g -> record(g, false),
            COMPLETING_REBALANCE, g -> record(g, false, MEMBER),
            STABLE, g -> record(g, true, MEMBER));
    for (Map.Entry<ClassicGroupState, Function<Integer, PersistedGroup>> e : written.entrySet()) {
      ClassicGroup group = new ClassicGroup(GROUP, 0);
      group.apply(new GroupLoaded(e.getValue().apply(4)));
      assertThat(group.state()).as("%s", e.getKey()).isEqualTo(e.getKey());
      assertThat(group.generationId()).isEqualTo(4);
    }
    // The assignment of the generation being completed makes it Stable, even an empty one.
    ClassicGroup group = new ClassicGroup(GROUP, 0);
    group.apply(new GroupLoaded(record(4, false, MEMBER)));
    group.apply(new GroupLoaded(record(4, false, MEMBER)));
    assertThat(group.state()).isEqualTo(STABLE);
  }

  @Test
  void aDeadGroupLoadsNothing() {
    ClassicGroup group = groupIn(DEAD);
    assertThatThrownBy(() -> group.apply(new GroupLoaded(record(1, true, MEMBER))))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("GroupLoaded");
    assertThat(group.members()).isEmpty();
  }

  // ---- events that keep the state check the states they may happen in ----

  @Test
  void eventsOutOfTheirStatesThrow() {
    assertRefused(groupIn(STABLE), new JoinPhaseAnswered(), "CompletingRebalance");
    assertRefused(groupIn(PREPARING_REBALANCE), new SyncReceived(MEMBER, null), "Stable");
    assertRefused(groupIn(STABLE), new InitialDelayExtended(), "PreparingRebalance");
    assertRefused(groupIn(STABLE), new AssignmentSubmitted(), "CompletingRebalance");
    assertRefused(groupIn(STABLE), new AssignmentWriteFinished(), "no assignment");
    assertRefused(
        groupIn(COMPLETING_REBALANCE), new StaticMemberReplaced(record(1, true, MEMBER)), "Stable");
    assertRefused(
        groupIn(DEAD),
        new MemberJoined("m2", null, "consumer", METADATA, null, new CompletableFuture<>()),
        "Dead");
    assertRefused(
        groupIn(EMPTY), new MemberRejoined(MEMBER, METADATA, new CompletableFuture<>()), MEMBER);
  }

  @Test
  void eventsNamingUnknownMembersThrow() {
    ClassicGroup group = groupIn(STABLE);
    assertRefused(group, new MemberRemoved("nobody", RemovalCause.LEFT), "no member nobody");
    assertRefused(group, new MemberHeardFrom("nobody", "c"), "no member nobody");
    assertRefused(group, new PendingMemberRemoved("nobody"), "no pending member nobody");
    assertRefused(
        group,
        new MemberJoined(MEMBER, null, "consumer", METADATA, null, new CompletableFuture<>()),
        "already joined");
  }

  @Test
  void aRebalanceFromCompletingForgetsTheAssignmentButNotFromStable() {
    ClassicGroup stable = groupIn(STABLE);
    stable.apply(new RebalanceStarted("test", 3));
    assertThat(stable.member(MEMBER).orElseThrow().assignment()).isNotEmpty();

    ClassicGroup completing = groupIn(COMPLETING_REBALANCE);
    completing.apply(new AssignmentSubmitted());
    completing.apply(new RebalanceStarted("test", 3));
    assertThat(completing.assignmentCommitPending()).isFalse();
    assertThat(completing.pendingSyncMembers()).isEmpty();
  }

  @Test
  void aLeaderThatLeavesHandsLeadershipToTheNextMember() {
    ClassicGroup group = groupIn(EMPTY);
    group.apply(new MemberJoined("a", null, "consumer", METADATA, null, new CompletableFuture<>()));
    group.apply(new MemberJoined("b", null, "consumer", METADATA, null, new CompletableFuture<>()));
    assertThat(group.leaderId()).isEqualTo("a");
    group.apply(new MemberRemoved("a", RemovalCause.SESSION_EXPIRED));
    assertThat(group.leaderId()).isEqualTo("b");
    group.apply(new MemberRemoved("b", RemovalCause.LEFT));
    assertThat(group.leaderId()).isNull();
  }

  private static void assertRefused(ClassicGroup group, ClassicGroupEvent event, String why) {
    ClassicGroupState before = group.state();
    assertThatThrownBy(() -> group.apply(event))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(event.getClass().getSimpleName())
        .hasMessageContaining(why);
    assertThat(group.state()).isEqualTo(before);
  }
}
