package io.brook.server;

import io.brook.broker.cluster.ControllerClient;
import io.brook.coordinator.InternalTopic;
import io.brook.coordinator.InternalTopicCreator;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/** How a node creates the coordinators' internal topics on first use, for each kind of node. */
final class InternalTopicCreators {
  private InternalTopicCreators() {}

  /** In a cluster, internal topics are created by the active controller, reached by forwarding. */
  static InternalTopicCreator viaController(ControllerClient controller) {
    return (InternalTopic topic) -> {
      CreateTopicsRequestData.CreatableTopic creatable =
          new CreateTopicsRequestData.CreatableTopic()
              .setName(topic.name())
              .setNumPartitions(topic.partitions())
              .setReplicationFactor(topic.replicationFactor());
      topic
          .configs()
          .forEach(
              (name, value) ->
                  creatable
                      .configs()
                      .add(
                          new CreateTopicsRequestData.CreatableTopicConfig()
                              .setName(name)
                              .setValue(value)));
      CreateTopicsRequestData request = new CreateTopicsRequestData().setTimeoutMs(30_000);
      request.topics().add(creatable);
      return controller
          .sendAdmin(ApiKeys.CREATE_TOPICS, ApiKeys.CREATE_TOPICS.latestVersion(), request)
          .thenApply(
              response ->
                  Errors.forCode(
                      ((CreateTopicsResponseData) response)
                          .topics()
                          .iterator()
                          .next()
                          .errorCode()));
    };
  }
}
