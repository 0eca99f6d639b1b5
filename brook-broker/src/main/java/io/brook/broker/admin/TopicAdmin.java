package io.brook.broker.admin;

import io.brook.metadata.controller.ApiError;
import io.brook.metadata.controller.ClusterController;
import io.brook.metadata.controller.ConfigValidator;
import io.brook.metadata.controller.ProducerIdBlock;
import io.brook.metadata.controller.TopicResult;
import io.brook.metadata.quorum.MetadataQuorum;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.protocol.Errors;

/**
 * The broker's door to the controller: topic and config changes and producer-id blocks are decided
 * by the controller logic and made durable through the metadata quorum before they take effect. On
 * a single node the quorum is local and answers at once.
 */
public final class TopicAdmin implements AutoTopicCreator {
  private final MetadataQuorum quorum;
  private final ClusterController controller;
  private final ConfigValidator topicConfigValidator;
  private final boolean autoCreateTopics;

  public TopicAdmin(
      MetadataQuorum quorum,
      ClusterController controller,
      ConfigValidator topicConfigValidator,
      boolean autoCreateTopics) {
    this.quorum = quorum;
    this.controller = controller;
    this.topicConfigValidator = topicConfigValidator;
    this.autoCreateTopics = autoCreateTopics;
  }

  public TopicResult createTopic(
      String name,
      int numPartitions,
      short replicationFactor,
      Map<Integer, List<Integer>> assignment,
      Map<String, String> configs,
      boolean validateOnly) {
    return quorum.submit(
        image ->
            controller.createTopic(
                name,
                numPartitions,
                replicationFactor,
                assignment,
                configs,
                validateOnly,
                topicConfigValidator));
  }

  public ApiError deleteTopic(String name) {
    return quorum.submit(image -> controller.deleteTopic(name));
  }

  public ApiError deleteTopic(org.apache.kafka.common.Uuid topicId) {
    return quorum.submit(image -> controller.deleteTopic(topicId));
  }

  public ApiError createPartitions(
      String topic,
      int newTotalCount,
      Optional<List<List<Integer>>> assignments,
      boolean validateOnly) {
    return quorum.submit(
        image -> controller.createPartitions(topic, newTotalCount, assignments, validateOnly));
  }

  public ApiError alterConfigs(
      ConfigResource resource, Map<String, Optional<String>> changes, boolean validateOnly) {
    ConfigValidator validator =
        resource.type() == ConfigResource.Type.TOPIC ? topicConfigValidator : configs -> {};
    return quorum.submit(
        image -> controller.alterConfigs(resource, changes, validateOnly, validator));
  }

  public ProducerIdBlock allocateProducerIds(int brokerId, long brokerEpoch) {
    return quorum.submit(image -> controller.allocateProducerIds(brokerId, brokerEpoch));
  }

  @Override
  public Errors createIfAllowed(String topic) {
    if (!autoCreateTopics) {
      return Errors.UNKNOWN_TOPIC_OR_PARTITION;
    }
    TopicResult result = createTopic(topic, -1, (short) -1, Map.of(), Map.of(), false);
    Errors error = result.error().error();
    return error == Errors.TOPIC_ALREADY_EXISTS ? Errors.NONE : error;
  }
}
