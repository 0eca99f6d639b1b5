package io.brook.broker.replica;

import io.brook.metadata.image.BrokerRegistration;
import io.brook.metadata.image.MetadataImage;
import java.util.Optional;

/**
 * Chooses the replica a consumer should read from (KIP-392), as {@code replica.selector.class} does
 * in Kafka. Brook knows two: the leader always (Kafka's default, no selector), and Kafka's {@code
 * RackAwareReplicaSelector}: a replica in the consumer's rack ({@code client.rack} against {@code
 * broker.rack}) that is in sync and holds the fetch offset, the leader if it is one of them.
 */
public interface ReadReplicaSelector {
  /** Kafka's class name for the rack-aware selector; the value users set. */
  String RACK_AWARE = "org.apache.kafka.common.replica.RackAwareReplicaSelector";

  /**
   * @return the broker the consumer should read from, if not the leader
   */
  Optional<Integer> select(
      Partition leader, String clientRack, long fetchOffset, MetadataImage image);

  /** Always the leader. */
  ReadReplicaSelector LEADER = (leader, clientRack, fetchOffset, image) -> Optional.empty();

  /** The rack-aware selector. */
  ReadReplicaSelector RACK_AWARE_SELECTOR =
      (leader, clientRack, fetchOffset, image) -> {
        if (clientRack == null || clientRack.isEmpty()) {
          return Optional.empty();
        }
        int leaderId = leader.state().leader();
        if (clientRack.equals(rackOf(image, leaderId))) {
          return Optional.empty();
        }
        int best = -1;
        long bestEnd = -1;
        for (int replica : leader.state().isr()) {
          long end = leader.followerLogEndOffset(replica);
          if (replica == leaderId
              || end < fetchOffset
              || !clientRack.equals(rackOf(image, replica))) {
            continue;
          }
          if (end > bestEnd) {
            best = replica;
            bestEnd = end;
          }
        }
        return best < 0 ? Optional.empty() : Optional.of(best);
      };

  /** The selector a {@code replica.selector.class} value names; null or blank is the leader. */
  static ReadReplicaSelector forClassName(String className) {
    if (className == null || className.isBlank()) {
      return LEADER;
    }
    if (className.equals(RACK_AWARE)) {
      return RACK_AWARE_SELECTOR;
    }
    throw new IllegalArgumentException(
        "replica.selector.class must be unset or " + RACK_AWARE + ", not " + className);
  }

  private static String rackOf(MetadataImage image, int brokerId) {
    return image.broker(brokerId).flatMap(BrokerRegistration::rack).orElse(null);
  }
}
