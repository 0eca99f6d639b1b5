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

  /** The general path for members with different subscriptions. */
  private static final class General {
    private final AssignmentSpec spec;
    private final Map<Uuid, List<String>> subscribers = new TreeMap<>();
    private final Map<String, TreeSet<TopicIdPartition>> kept = new TreeMap<>();
    private final Map<String, TreeSet<TopicIdPartition>> given = new TreeMap<>();

    General(AssignmentSpec spec) {
      this.spec = spec;
      spec.members()
          .forEach(
              (id, member) -> {
                kept.put(id, new TreeSet<>());
                given.put(id, new TreeSet<>());
                for (Uuid topic : member.subscribedTopics()) {
                  if (spec.partitionCount(topic) > 0) {
                    subscribers.computeIfAbsent(topic, t -> new ArrayList<>()).add(id);
                  }
                }
              });
    }

    GroupAssignment run() {
      java.util.Set<TopicIdPartition> owned = keepValid();
      assignUnowned(owned);
      balance();
      TreeMap<String, SortedSet<TopicIdPartition>> result = new TreeMap<>();
      for (String id : spec.members().keySet()) {
        TreeSet<TopicIdPartition> all = new TreeSet<>(kept.get(id));
        all.addAll(given.get(id));
        result.put(id, all);
      }
      return new GroupAssignment(result);
    }

    private int load(String id) {
      return kept.get(id).size() + given.get(id).size();
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
            given.get(leastLoaded(topic, null)).add(tp);
          }
        }
      }
    }

    private String leastLoaded(Uuid topic, String except) {
      String best = null;
      for (String id : subscribers.get(topic)) {
        if (!id.equals(except) && (best == null || load(id) < load(best))) {
          best = id;
        }
      }
      return best;
    }

    private void balance() {
      while (moveOne()) {
        // Each move lowers the sum of squared loads, so the loop ends.
      }
    }

    private boolean moveOne() {
      List<String> byLoad = new ArrayList<>(spec.members().keySet());
      byLoad.sort(
          Comparator.comparingInt((String id) -> -load(id))
              .thenComparing(Comparator.naturalOrder()));
      for (String from : byLoad) {
        for (TreeSet<TopicIdPartition> source : List.of(given.get(from), kept.get(from))) {
          for (TopicIdPartition tp : source) {
            String to = leastLoaded(tp.topicId(), from);
            if (to != null && load(from) - load(to) >= 2) {
              source.remove(tp);
              given.get(to).add(tp);
              return true;
            }
          }
        }
      }
      return false;
    }
  }
}
