package io.brook.controller.api;

import io.brook.metadata.controller.ApiError;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.protocol.Errors;

/**
 * The broker configs Brook changes at runtime, per broker ({@code --entity-name ID}) or for every
 * broker ({@code --entity-default}), as Kafka's dynamic broker configs: the replication throttle
 * rates (KIP-73) that {@code kafka-reassign-partitions --throttle} sets and {@code --verify}
 * clears. {@code replica.alter.log.dirs.io.max.bytes.per.second} is stored, so the tool's clean-up
 * works, but nothing moves replicas between log directories under it yet. Any other broker config
 * is refused: set it in the properties file.
 */
final class DynamicBrokerConfigs {
  static final Set<String> KEYS =
      Set.of(
          "leader.replication.throttled.rate",
          "follower.replication.throttled.rate",
          "replica.alter.log.dirs.io.max.bytes.per.second");

  private DynamicBrokerConfigs() {}

  /** Why a change of broker {@code broker}'s (or the default's, {@code ""}) configs is refused. */
  static ApiError check(String broker, Map<String, Optional<String>> changes) {
    if (!broker.isEmpty() && !broker.matches("[0-9]{1,9}")) {
      return new ApiError(Errors.INVALID_REQUEST, "Invalid broker id " + broker);
    }
    for (Map.Entry<String, Optional<String>> change : changes.entrySet()) {
      if (!KEYS.contains(change.getKey())) {
        return new ApiError(
            Errors.INVALID_REQUEST,
            "Cannot update broker config "
                + change.getKey()
                + " dynamically; Brook changes only "
                + KEYS
                + " at runtime, set the others in the properties file");
      }
      if (change.getValue().isPresent() && !nonNegativeLong(change.getValue().get())) {
        return new ApiError(
            Errors.INVALID_CONFIG,
            "Invalid value "
                + change.getValue().get()
                + " for configuration "
                + change.getKey()
                + ": must be a non-negative long");
      }
    }
    return ApiError.NONE;
  }

  private static boolean nonNegativeLong(String value) {
    try {
      return Long.parseLong(value.trim()) >= 0;
    } catch (NumberFormatException e) {
      return false;
    }
  }
}
