package io.brook.coordinator;

import java.util.Map;
import org.apache.kafka.common.utils.Utils;

/**
 * An internal topic a coordinator lives on, created on first use.
 *
 * @param replicationFactor wanted; capped by the brokers alive when the topic is created
 * @param configs topic configs (cleanup.policy=compact, segment.bytes, min.insync.replicas...)
 */
public record InternalTopic(
    String name, int partitions, short replicationFactor, Map<String, String> configs) {
  public InternalTopic {
    configs = Map.copyOf(configs);
  }

  /** The partition of a coordinator topic that owns {@code key}: abs(hash(key)) % count. */
  public static int partitionFor(String key, int partitionCount) {
    return Utils.abs(key.hashCode()) % partitionCount;
  }
}
