package io.brook.controller.state;

import io.brook.metadata.image.MetadataImage;
import org.apache.kafka.common.config.ConfigResource;

/**
 * Whether a topic allows unclean leader election: electing a replica outside the ISR when no ISR
 * member can lead. It trades completeness for availability: the new leader may lack records that
 * were acknowledged, and they are lost when the other replicas truncate to its log.
 *
 * <p>{@code unclean.leader.election.enable} resolves as on Kafka's controller: the topic's
 * override, else the cluster-wide dynamic broker default (the broker resource {@code ""}), else the
 * static default of {@link ControllerConfig#uncleanLeaderElectionEnable()}. A per-broker override
 * is not consulted: the controller decides for the whole cluster, not as one broker.
 */
final class UncleanLeaderElection {
  static final String CONFIG = "unclean.leader.election.enable";

  private UncleanLeaderElection() {}

  static boolean enabled(MetadataImage image, String topic, ControllerConfig config) {
    String value = image.configs(ConfigResource.Type.TOPIC, topic).get(CONFIG);
    if (value == null) {
      value = image.configs(ConfigResource.Type.BROKER, "").get(CONFIG);
    }
    if (value == null) {
      return config.uncleanLeaderElectionEnable();
    }
    return Boolean.parseBoolean(value.trim());
  }
}
