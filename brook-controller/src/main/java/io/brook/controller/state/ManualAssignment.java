package io.brook.controller.state;

import io.brook.metadata.controller.ApiError;
import io.brook.metadata.image.BrokerRegistration;
import io.brook.metadata.image.MetadataImage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeSet;
import org.apache.kafka.common.protocol.Errors;

/**
 * Checks one replica list of a manual partition assignment (CreateTopics or CreatePartitions) with
 * Kafka's messages, and derives its ISR.
 */
final class ManualAssignment {
  private ManualAssignment() {}

  /**
   * Why a replica list is not acceptable: empty, naming a broker that is not registered or a broker
   * twice (the smallest offending id is named), or of a different length than the partitions before
   * it.
   */
  static ApiError check(
      List<Integer> replicas, Map<Integer, BrokerRegistration> brokers, OptionalInt expectedRf) {
    if (replicas.isEmpty()) {
      return invalid("The manual partition assignment includes an empty replica list.");
    }
    List<Integer> sorted = new ArrayList<>(replicas);
    sorted.sort(null);
    Integer previous = null;
    for (Integer replica : sorted) {
      if (replica == null || !brokers.containsKey(replica)) {
        return invalid(
            "The manual partition assignment includes broker "
                + replica
                + ", but no such broker is registered.");
      }
      if (replica.equals(previous)) {
        return invalid(
            "The manual partition assignment includes the broker " + replica + " more than once.");
      }
      previous = replica;
    }
    if (expectedRf.isPresent() && expectedRf.getAsInt() != replicas.size()) {
      return invalid(
          "The manual partition assignment includes a partition with "
              + replicas.size()
              + " replica(s), but this is not consistent with previous partitions, which have "
              + expectedRf.getAsInt()
              + " replica(s).");
    }
    return ApiError.NONE;
  }

  /** The unfenced replicas, in replica order: the ISR of a new partition. */
  static List<Integer> isr(List<Integer> replicas, MetadataImage image) {
    List<Integer> isr = new ArrayList<>(replicas.size());
    for (int replica : replicas) {
      BrokerRegistration b = image.brokers().get(replica);
      if (b != null && !b.fenced()) {
        isr.add(replica);
      }
    }
    return isr;
  }

  static ApiError allFenced(int partitionId) {
    return invalid(
        "All brokers specified in the manual partition assignment for partition "
            + partitionId
            + " are fenced or in controlled shutdown.");
  }

  static boolean isZeroBasedSequence(TreeSet<Integer> partitionIds) {
    return partitionIds.isEmpty()
        || (partitionIds.first() == 0 && partitionIds.last() == partitionIds.size() - 1);
  }

  private static ApiError invalid(String message) {
    return new ApiError(Errors.INVALID_REPLICA_ASSIGNMENT, message);
  }
}
