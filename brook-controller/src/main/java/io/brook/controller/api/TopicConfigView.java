package io.brook.controller.api;

import io.brook.metadata.image.MetadataImage;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicConfigs;

/**
 * What the controller's admin APIs need to know of topic configs beyond the overrides in the image:
 * their definitions and the node's defaults, which belong to the storage engine and the node's
 * configuration. The node supplies it (brook-server), so the controller does not depend on
 * brook-storage.
 */
public interface TopicConfigView {
  /** Every config of {@code topic} by name, with its effective value: override, else default. */
  Map<String, String> effective(MetadataImage image, String topic);

  /** The configs of a created topic, as CreateTopics answers them. */
  List<CreatableTopicConfigs> describe(MetadataImage image, String topic);
}
