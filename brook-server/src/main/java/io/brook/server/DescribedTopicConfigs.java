package io.brook.server;

import io.brook.broker.admin.ConfigDescriber;
import io.brook.controller.api.TopicConfigView;
import io.brook.metadata.image.MetadataImage;
import io.brook.storage.log.TopicConfigs;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicConfigs;

/**
 * The controller's view of topic configs, from the definitions of the storage engine and this
 * node's defaults: the same answers the broker gives in DescribeConfigs.
 */
final class DescribedTopicConfigs implements TopicConfigView {
  private final ConfigDescriber describer;

  DescribedTopicConfigs(ConfigDescriber describer) {
    this.describer = describer;
  }

  @Override
  public Map<String, String> effective(MetadataImage image, String topic) {
    return TopicConfigs.toStrings(describer.effectiveTopicConfig(image, topic));
  }

  @Override
  public List<CreatableTopicConfigs> describe(MetadataImage image, String topic) {
    return describer.describeTopic(image, topic, null, false, false).stream()
        .map(
            entry ->
                new CreatableTopicConfigs()
                    .setName(entry.name())
                    .setValue(entry.value())
                    .setReadOnly(entry.readOnly())
                    .setConfigSource(entry.configSource())
                    .setIsSensitive(entry.isSensitive()))
        .toList();
  }
}
