package io.brook.controller.state;

import io.brook.metadata.image.BrokerRegistration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * Places the replicas of new partitions on brokers, spreading leaders and followers evenly and
 * replicas of one partition over distinct racks where possible.
 *
 * <p>The brokers are ordered so that racks alternate: one broker of each rack in turn (racks by
 * name, brokers of a rack by id; a broker without a rack counts as a rack of its own). Partition
 * {@code p}'s leader is the broker at position {@code (start + p) mod n} of that order, so leaders
 * go round-robin from a random start. Its followers are taken from the other brokers, in order from
 * the leader on, skipping a number of places that changes every {@code n} partitions (so the same
 * pairs of brokers do not always share partitions); among those, each next follower is the first
 * one whose rack holds the fewest replicas of this partition so far. With as many racks as
 * replicas, every replica of a partition is on its own rack.
 */
final class ReplicaPlacer {
  private ReplicaPlacer() {}

  /** The replication factor cannot be reached with the usable brokers. */
  static final class PlacementException extends Exception {
    private static final long serialVersionUID = 1L;

    PlacementException(String message) {
      super(message);
    }
  }

  /**
   * @param brokers the brokers replicas may go to (the unfenced ones)
   * @param numPartitions how many partitions to place
   * @param replicationFactor replicas per partition
   * @param random the source of the start positions
   * @return the replica list of each partition, leader first
   */
  static List<List<Integer>> place(
      List<BrokerRegistration> brokers, int numPartitions, int replicationFactor, Random random)
      throws PlacementException {
    if (brokers.size() < replicationFactor) {
      throw new PlacementException(
          "The target replication factor of "
              + replicationFactor
              + " cannot be reached because only "
              + brokers.size()
              + " broker(s) are registered.");
    }
    List<BrokerRegistration> order = rackAlternating(brokers);
    int n = order.size();
    Map<Integer, String> rackOf = new HashMap<>();
    for (BrokerRegistration b : order) {
      rackOf.put(b.id(), b.rack().orElse("\u0000broker-" + b.id()));
    }
    int start = random.nextInt(n);
    int shiftBase = random.nextInt(n);
    List<List<Integer>> placement = new ArrayList<>(numPartitions);
    for (int p = 0; p < numPartitions; p++) {
      int leaderIndex = (start + p) % n;
      int shift = n > 1 ? (shiftBase + p / n) % (n - 1) : 0;
      List<Integer> candidates = new ArrayList<>(n - 1);
      for (int k = 0; k < n - 1; k++) {
        candidates.add(order.get((leaderIndex + 1 + (shift + k) % (n - 1)) % n).id());
      }
      List<Integer> replicas = new ArrayList<>(replicationFactor);
      Map<String, Integer> replicasPerRack = new HashMap<>();
      int leader = order.get(leaderIndex).id();
      replicas.add(leader);
      replicasPerRack.merge(rackOf.get(leader), 1, Integer::sum);
      while (replicas.size() < replicationFactor) {
        Integer best = null;
        int bestCount = Integer.MAX_VALUE;
        for (Integer candidate : candidates) {
          if (replicas.contains(candidate)) {
            continue;
          }
          int count = replicasPerRack.getOrDefault(rackOf.get(candidate), 0);
          if (count < bestCount) {
            best = candidate;
            bestCount = count;
          }
        }
        replicas.add(best);
        replicasPerRack.merge(rackOf.get(best), 1, Integer::sum);
      }
      placement.add(List.copyOf(replicas));
    }
    return placement;
  }

  /** Brokers with one of each rack in turn; by id when no broker has a rack. */
  static List<BrokerRegistration> rackAlternating(List<BrokerRegistration> brokers) {
    List<BrokerRegistration> byId = new ArrayList<>(brokers);
    byId.sort(Comparator.comparingInt(BrokerRegistration::id));
    if (byId.stream().allMatch(b -> b.rack().isEmpty())) {
      return byId;
    }
    TreeMap<String, List<BrokerRegistration>> racks = new TreeMap<>();
    List<List<BrokerRegistration>> groups = new ArrayList<>();
    for (BrokerRegistration b : byId) {
      if (b.rack().isPresent()) {
        racks.computeIfAbsent(b.rack().get(), r -> new ArrayList<>()).add(b);
      }
    }
    groups.addAll(racks.values());
    for (BrokerRegistration b : byId) {
      if (b.rack().isEmpty()) {
        groups.add(List.of(b));
      }
    }
    List<BrokerRegistration> order = new ArrayList<>(byId.size());
    for (int round = 0; order.size() < byId.size(); round++) {
      for (List<BrokerRegistration> group : groups) {
        if (round < group.size()) {
          order.add(group.get(round));
        }
      }
    }
    return order;
  }
}
