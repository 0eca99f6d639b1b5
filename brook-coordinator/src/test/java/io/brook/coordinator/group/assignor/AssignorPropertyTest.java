package io.brook.coordinator.group.assignor;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

/**
 * Invariants of both assignors over random groups: every subscribed partition is assigned exactly
 * once and only to a subscriber; homogeneous groups are balanced within one (uniform over all
 * partitions, range per topic); uniform is sticky. Each run prints its seed; a failing seed can be
 * pinned by replacing {@code seed()}.
 */
class AssignorPropertyTest {
  private static final int RUNS = 300;

  private static long seed() {
    long seed = System.nanoTime();
    System.out.println("AssignorPropertyTest seed=" + seed);
    return seed;
  }

  private record Scenario(AssignmentSpec spec, boolean homogeneous) {}

  private static Scenario randomScenario(Random random, boolean homogeneous) {
    int topicCount = 1 + random.nextInt(4);
    List<Uuid> topics = new ArrayList<>();
    Map<Uuid, Integer> counts = new TreeMap<>();
    for (int t = 0; t < topicCount; t++) {
      Uuid id = new Uuid(random.nextLong(), random.nextLong());
      topics.add(id);
      counts.put(id, random.nextInt(13));
    }
    int memberCount = 1 + random.nextInt(8);
    Map<String, MemberSpec> members = new TreeMap<>();
    for (int m = 0; m < memberCount; m++) {
      Set<Uuid> subscribed = new HashSet<>();
      for (Uuid topic : topics) {
        if (homogeneous || random.nextBoolean()) {
          subscribed.add(topic);
        }
      }
      SortedSet<TopicIdPartition> current = new TreeSet<>();
      for (Uuid topic : topics) {
        for (int p = 0; p < counts.get(topic) + 2; p++) {
          if (random.nextInt(memberCount + 1) == 0) {
            current.add(new TopicIdPartition(topic, p)); // may be stale or claimed twice
          }
        }
      }
      String instance = random.nextInt(3) == 0 ? "instance-" + m : null;
      members.put(
          "member-" + random.nextInt(1000) + "-" + m,
          new MemberSpec(instance, null, subscribed, current));
    }
    return new Scenario(AssignmentSpec.of(members, counts), homogeneous);
  }

  private static void assertValid(AssignmentSpec spec, GroupAssignment result) {
    assertThat(result.members().keySet()).isEqualTo(spec.members().keySet());
    Map<TopicIdPartition, String> owner = new HashMap<>();
    result
        .members()
        .forEach(
            (id, partitions) -> {
              for (TopicIdPartition tp : partitions) {
                assertThat(owner.put(tp, id)).as("%s assigned twice", tp).isNull();
                assertThat(spec.members().get(id).subscribedTopics())
                    .as("%s given %s without subscribing", id, tp)
                    .contains(tp.topicId());
                assertThat(tp.partition()).isBetween(0, spec.partitionCount(tp.topicId()) - 1);
              }
            });
    Set<Uuid> subscribed = new HashSet<>();
    spec.members().values().forEach(m -> subscribed.addAll(m.subscribedTopics()));
    for (Uuid topic : subscribed) {
      for (int p = 0; p < spec.partitionCount(topic); p++) {
        assertThat(owner)
            .as("partition %s-%d unassigned", topic, p)
            .containsKey(new TopicIdPartition(topic, p));
      }
    }
  }

  @Test
  void uniformAssignsEverySubscribedPartitionOnceBalancedAndSticky() {
    long seed = seed();
    Random random = new Random(seed);
    UniformAssignor assignor = new UniformAssignor();
    for (int run = 0; run < RUNS; run++) {
      Scenario scenario = randomScenario(random, random.nextBoolean());
      AssignmentSpec spec = scenario.spec();
      GroupAssignment result = assignor.assign(spec);
      assertValid(spec, result);
      if (scenario.homogeneous()) {
        int total = result.members().values().stream().mapToInt(Set::size).sum();
        int min = result.members().values().stream().mapToInt(Set::size).min().orElse(0);
        int max = result.members().values().stream().mapToInt(Set::size).max().orElse(0);
        assertThat(max - min).as("seed %d run %d balance", seed, run).isLessThanOrEqualTo(1);
        int fairShare = total / spec.members().size();
        assertSticky(spec, result, fairShare, seed, run);
      }
    }
  }

  /** A member keeps at least min(what it validly had, its fair share) of its old partitions. */
  private static void assertSticky(
      AssignmentSpec spec, GroupAssignment result, int fairShare, long seed, int run) {
    Set<TopicIdPartition> claimed = new HashSet<>();
    spec.members()
        .forEach(
            (id, member) -> {
              Set<TopicIdPartition> valid = new TreeSet<>();
              for (TopicIdPartition tp : member.currentAssignment()) {
                if (member.subscribedTopics().contains(tp.topicId())
                    && tp.partition() < spec.partitionCount(tp.topicId())
                    && claimed.add(tp)) {
                  valid.add(tp);
                }
              }
              Set<TopicIdPartition> kept = new HashSet<>(valid);
              kept.retainAll(result.of(id));
              assertThat(kept.size())
                  .as("seed %d run %d: %s kept %s of %s", seed, run, id, kept, valid)
                  .isGreaterThanOrEqualTo(Math.min(valid.size(), fairShare));
            });
  }

  @Test
  void uniformMovesOnlyWhatItMustWhenAMemberJoins() {
    long seed = seed();
    Random random = new Random(seed);
    UniformAssignor assignor = new UniformAssignor();
    for (int run = 0; run < RUNS; run++) {
      Scenario scenario = randomScenario(random, true);
      GroupAssignment first = assignor.assign(scenario.spec());
      Map<String, MemberSpec> members = new TreeMap<>();
      scenario
          .spec()
          .members()
          .forEach(
              (id, m) ->
                  members.put(
                      id,
                      new MemberSpec(m.instanceId(), null, m.subscribedTopics(), first.of(id))));
      MemberSpec any = members.values().iterator().next();
      members.put("zz-new", new MemberSpec(null, null, any.subscribedTopics(), new TreeSet<>()));
      GroupAssignment second =
          assignor.assign(AssignmentSpec.of(members, scenario.spec().partitionCounts()));
      assertValid(AssignmentSpec.of(members, scenario.spec().partitionCounts()), second);
      int total = first.members().values().stream().mapToInt(Set::size).sum();
      int moved = 0;
      for (String id : first.members().keySet()) {
        Set<TopicIdPartition> lost = new HashSet<>(first.of(id));
        lost.removeAll(second.of(id));
        moved += lost.size();
      }
      assertThat(moved)
          .as("seed %d run %d", seed, run)
          .isLessThanOrEqualTo(total / members.size() + 1);
    }
  }

  @Test
  void rangeAssignsEverySubscribedPartitionOnceBalancedPerTopicAndCoPartitioned() {
    long seed = seed();
    Random random = new Random(seed);
    RangeAssignor assignor = new RangeAssignor();
    for (int run = 0; run < RUNS; run++) {
      Scenario scenario = randomScenario(random, random.nextBoolean());
      AssignmentSpec spec = scenario.spec();
      GroupAssignment result = assignor.assign(spec);
      assertValid(spec, result);
      if (!scenario.homogeneous()) {
        continue;
      }
      for (Uuid topic : spec.partitionCounts().keySet()) {
        List<Integer> perMember = new ArrayList<>();
        result
            .members()
            .values()
            .forEach(
                ps ->
                    perMember.add(
                        (int) ps.stream().filter(tp -> tp.topicId().equals(topic)).count()));
        assertThat(
                perMember.stream().mapToInt(i -> i).max().orElse(0)
                    - perMember.stream().mapToInt(i -> i).min().orElse(0))
            .as("seed %d run %d topic balance", seed, run)
            .isLessThanOrEqualTo(1);
      }
      // Co-partitioning: topics of equal size put partition i on the same member.
      for (Uuid a : spec.partitionCounts().keySet()) {
        for (Uuid b : spec.partitionCounts().keySet()) {
          if (spec.partitionCount(a) != spec.partitionCount(b)) {
            continue;
          }
          for (int p = 0; p < spec.partitionCount(a); p++) {
            assertThat(ownerOf(result, new TopicIdPartition(a, p)))
                .isEqualTo(ownerOf(result, new TopicIdPartition(b, p)));
          }
        }
      }
    }
  }

  private static String ownerOf(GroupAssignment result, TopicIdPartition tp) {
    return result.members().entrySet().stream()
        .filter(e -> e.getValue().contains(tp))
        .map(Map.Entry::getKey)
        .findFirst()
        .orElse(null);
  }

  @Test
  void noMembersNoAssignment() {
    AssignmentSpec empty = AssignmentSpec.of(Map.of(), Map.of(Uuid.randomUuid(), 3));
    assertThat(new UniformAssignor().assign(empty).members()).isEmpty();
    assertThat(new RangeAssignor().assign(empty).members()).isEmpty();
  }
}
