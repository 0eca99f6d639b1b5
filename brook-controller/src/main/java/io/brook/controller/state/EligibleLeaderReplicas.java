package io.brook.controller.state;

import io.brook.metadata.image.MetadataImage;
import java.util.OptionalInt;
import org.apache.kafka.common.config.ConfigResource;

/**
 * Whether the controller tracks eligible leader replicas (ELR, KIP-966) for a topic, and the min
 * ISR that decides who joins them.
 *
 * <p>With a strict min ISR (an acks=all write needs {@code min.insync.replicas} in-sync replicas,
 * and the high watermark does not advance past what that many hold), a replica that leaves the ISR
 * while the ISR is below min ISR holds every committed record: nothing was committed after it left.
 * Such replicas are the ELR; one of them may lead without data loss when the ISR is empty. Once the
 * ISR is back at min ISR the ELR is cleared: records may be committed without them from then on.
 *
 * <p>{@code min.insync.replicas} resolves as {@link UncleanLeaderElection} resolves its config: the
 * topic's override, else the cluster-wide dynamic broker default, else the static default.
 */
final class EligibleLeaderReplicas {
  static final String MIN_ISR_CONFIG = "min.insync.replicas";

  private EligibleLeaderReplicas() {}

  /** The topic's min ISR when the ELR is tracked, else empty. */
  static OptionalInt minIsr(MetadataImage image, String topic, ControllerConfig config) {
    if (!config.eligibleLeaderReplicasEnable()) {
      return OptionalInt.empty();
    }
    String value = image.configs(ConfigResource.Type.TOPIC, topic).get(MIN_ISR_CONFIG);
    if (value == null) {
      value = image.configs(ConfigResource.Type.BROKER, "").get(MIN_ISR_CONFIG);
    }
    if (value == null) {
      return OptionalInt.of(config.minInsyncReplicas());
    }
    try {
      return OptionalInt.of(Math.max(1, Integer.parseInt(value.trim())));
    } catch (NumberFormatException e) {
      // Configs are validated when set; a value that slipped through acts as the default.
      return OptionalInt.of(config.minInsyncReplicas());
    }
  }
}
