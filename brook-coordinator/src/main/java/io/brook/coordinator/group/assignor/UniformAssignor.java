package io.brook.coordinator.group.assignor;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.Uuid;

/**
 * The {@code uniform} assignor: spreads the partitions of all subscribed topics evenly over the
 * members and is sticky, so a member keeps what it has as long as that keeps the group balanced.
 *
 * <p>Homogeneous subscriptions (every member subscribes to the same topics) take an exact path:
 * with P partitions and M members every member gets {@code P / M} partitions and {@code P % M} of
 * them one more; the extra slots go to members that already hold more, and each member keeps up to
 * its quota of what it had, so no member ends up with fewer of its old partitions than {@code
 * min(had, P / M)}.
 *
 * <p>Heterogeneous subscriptions take a general path: keep every still-valid partition, give each
 * unowned partition (topics with the fewest subscribers first) to its least loaded subscriber, then
 * move partitions from a member to a subscriber holding at least two fewer until no such move
 * exists. Each move lowers the sum of squared loads, so this ends; newly given partitions move
 * before kept ones.
 */
public final class UniformAssignor implements PartitionAssignor {
  public static final String NAME = "uniform";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public GroupAssignment assign(AssignmentSpec spec) {
    if (spec.members().isEmpty()) {
      return GroupAssignment.of(Map.of());
    }
    return spec.isHomogeneous() ? assignHomogeneous(spec) : new General(spec).run();
  }

  private static GroupAssignment assignHomogeneous(AssignmentSpec spec) {
    List<TopicIdPartition> all = new ArrayList<>();
    for (Uuid topic : spec.members().values().iterator().next().subscribedTopics()) {
      for (int p = 0; p < spec.partitionCount(topic); p++) {
        all.add(new TopicIdPartition(topic, p));
      }
    }
    int memberCount = spec.members().size();
    int base = all.size() / memberCount;
    int extra = all.size() % memberCount;
    Map<String, List<TopicIdPartition>> valid = new HashMap<>();
    java.util.Set<TopicIdPartition> claimed = new java.util.HashSet<>();
    spec.members()
        .forEach(
            (id, member) -> {
              List<TopicIdPartition> kept = new ArrayList<>();
              for (TopicIdPartition tp : member.currentAssignment()) {
                if (member.subscribedTopics().contains(tp.topicId())
                    && tp.partition() < spec.partitionCount(tp.topicId())
                    && claimed.add(tp)) {
                  kept.add(tp);
                }
              }
              valid.put(id, kept);
            });
    // The members holding the most get the extra slots, so fewer partitions move.
    List<String> order = new ArrayList<>(spec.members().keySet());
    order.sort(
        Comparator.comparingInt((String id) -> -valid.get(id).size())
            .thenComparing(Comparator.naturalOrder()));
    Map<String, Integer> quota = new HashMap<>();
    for (int i = 0; i < order.size(); i++) {
      quota.put(order.get(i), base + (i < extra ? 1 : 0));
    }
    TreeMap<String, SortedSet<TopicIdPartition>> result = new TreeMap<>();
    java.util.Set<TopicIdPartition> owned = new java.util.HashSet<>();
    for (String id : spec.members().keySet()) {
      SortedSet<TopicIdPartition> mine = new TreeSet<>();
      for (TopicIdPartition tp : valid.get(id)) {
        if (mine.size() == quota.get(id)) {
          break;
        }
        mine.add(tp);
        owned.add(tp);
      }
      result.put(id, mine);
    }
    java.util.Iterator<TopicIdPartition> free =
        all.stream().filter(tp -> !owned.contains(tp)).iterator();
    for (String id : spec.members().keySet()) {
      SortedSet<TopicIdPartition> mine = result.get(id);
      while (mine.size() < quota.get(id) && free.hasNext()) {
        mine.add(free.next());
      }
    }
    return new GroupAssignment(result);
  }

  /**
   * The general path for members with different subscriptions. Each topic keeps its subscribers
   * ordered by load, so finding the least loaded subscriber is a lookup; balancing makes passes
   * over the heaviest members first until a pass moves nothing.
   */
  private static final class General {
    private final AssignmentSpec spec;
    private final Map<String, Integer> load = new HashMap<>();
    private final Comparator<String> byLoad =
        Comparator.comparingInt((String id) -> load.get(id))
            .thenComparing(Comparator.naturalOrder());
    private final Map<Uuid, TreeSet<String>> subscribers = new TreeMap<>();
    private final Map<String, List<Uuid>> topicsOf = new HashMap<>();
    private final Map<String, TreeSet<TopicIdPartition>> kept = new TreeMap<>();
    private final Map<String, TreeSet<TopicIdPartition>> given = new TreeMap<>();

    General(AssignmentSpec spec) {
      this.spec = spec;
      spec.members()
          .forEach(
              (id, member) -> {
                load.put(id, 0);
                kept.put(id, new TreeSet<>());
                given.put(id, new TreeSet<>());
                List<Uuid> topics = new ArrayList<>();
                for (Uuid topic : member.subscribedTopics()) {
                  if (spec.partitionCount(topic) > 0) {
                    topics.add(topic);
                  }
                }
                topicsOf.put(id, topics);
              });
      topicsOf.forEach(
          (id, topics) -> {
            for (Uuid topic : topics) {
              subscribers.computeIfAbsent(topic, t -> new TreeSet<>(byLoad)).add(id);
            }
          });
    }

    GroupAssignment run() {
      java.util.Set<TopicIdPartition> owned = keepValid();
      assignUnowned(owned);
      while (balancePass()) {
        // Each move lowers the sum of squared loads, so the passes end.
      }
      TreeMap<String, SortedSet<TopicIdPartition>> result = new TreeMap<>();
      for (String id : spec.members().keySet()) {
        TreeSet<TopicIdPartition> all = new TreeSet<>(kept.get(id));
        all.addAll(given.get(id));
        result.put(id, all);
      }
      return new GroupAssignment(result);
    }

    /** Changes a member's load, keeping every topic's subscriber order right. */
    private void addLoad(String id, int delta) {
      List<Uuid> topics = topicsOf.get(id);
      topics.forEach(t -> subscribers.get(t).remove(id));
      load.merge(id, delta, Integer::sum);
      topics.forEach(t -> subscribers.get(t).add(id));
    }

    private java.util.Set<TopicIdPartition> keepValid() {
      java.util.Set<TopicIdPartition> owned = new java.util.HashSet<>();
      spec.members()
          .forEach(
              (id, member) -> {
                for (TopicIdPartition tp : member.currentAssignment()) {
                  if (member.subscribedTopics().contains(tp.topicId())
                      && tp.partition() < spec.partitionCount(tp.topicId())
                      && owned.add(tp)) {
                    kept.get(id).add(tp);
                  }
                }
                addLoad(id, kept.get(id).size());
              });
      return owned;
    }

    private void assignUnowned(java.util.Set<TopicIdPartition> owned) {
      List<Uuid> topics = new ArrayList<>(subscribers.keySet());
      topics.sort(
          Comparator.comparingInt((Uuid t) -> subscribers.get(t).size())
              .thenComparing(Comparator.naturalOrder()));
      for (Uuid topic : topics) {
        for (int p = 0; p < spec.partitionCount(topic); p++) {
          TopicIdPartition tp = new TopicIdPartition(topic, p);
          if (!owned.contains(tp)) {
            String to = subscribers.get(topic).first();
            given.get(to).add(tp);
            addLoad(to, 1);
          }
        }
      }
    }

    /** Moves partitions from heavier to lighter subscribers; false if nothing could move. */
    private boolean balancePass() {
      boolean moved = false;
      List<String> heaviestFirst = new ArrayList<>(load.keySet());
      heaviestFirst.sort(byLoad.reversed());
      for (String from : heaviestFirst) {
        for (TreeSet<TopicIdPartition> source : List.of(given.get(from), kept.get(from))) {
          for (TopicIdPartition tp : List.copyOf(source)) {
            TreeSet<String> candidates = subscribers.get(tp.topicId());
            String to = candidates.first();
            if (to.equals(from)) {
              continue; // the lightest subscriber is this member: nothing to gain
            }
            if (load.get(from) - load.get(to) >= 2) {
              source.remove(tp);
              given.get(to).add(tp);
              addLoad(from, -1);
              addLoad(to, 1);
              moved = true;
            }
          }
        }
      }
      return moved;
    }
  }
}
