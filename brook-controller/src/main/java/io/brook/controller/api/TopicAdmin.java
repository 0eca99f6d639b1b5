package io.brook.controller.api;

import io.brook.controller.state.ClusterController;
import io.brook.controller.state.ConfigValidator;
import io.brook.controller.state.NewTopic;
import io.brook.controller.state.PartitionReassignment;
import io.brook.controller.state.TopicResult;
import io.brook.metadata.controller.ApiError;
import io.brook.metadata.controller.ProducerIdBlock;
import io.brook.metadata.image.PartitionImage;
import io.brook.metadata.quorum.MetadataQuorum;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.IntPredicate;
import org.apache.kafka.common.config.ConfigResource;

/**
 * The active controller's admin operations, for its API handlers: topic and config changes and
 * producer-id blocks are decided by the controller's state machine and made durable through the
 * metadata quorum before they take effect. On a single node the quorum is local and answers at
 * once.
 */
public final class TopicAdmin {
  private final MetadataQuorum quorum;
  private final ClusterController controller;
  private final ConfigValidator topicConfigValidator;
  private final ConfigValidator groupConfigValidator;

  /** Group configs are not checked. */
  public TopicAdmin(
      MetadataQuorum quorum, ClusterController controller, ConfigValidator topicConfigValidator) {
    this(quorum, controller, topicConfigValidator, ConfigValidator.NONE);
  }

  /**
   * @param topicConfigValidator checks a topic's overrides
   * @param groupConfigValidator checks a group's configs (the GROUP config resource)
   */
  public TopicAdmin(
      MetadataQuorum quorum,
      ClusterController controller,
      ConfigValidator topicConfigValidator,
      ConfigValidator groupConfigValidator) {
    this.quorum = quorum;
    this.controller = controller;
    this.topicConfigValidator = topicConfigValidator;
    this.groupConfigValidator = groupConfigValidator;
  }

  /**
   * The quorum's image: it holds a change as soon as {@link #createTopic} and the others return,
   * while the replica manager may receive it a moment later.
   */
  public io.brook.metadata.image.MetadataImage image() {
    return quorum.image();
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

  /**
   * Creates topics in as few operations as the per-operation record limit allows (one Raft entry
   * each in a cluster, instead of one per topic).
   *
   * @return one result per topic, in order
   */
  public List<TopicResult> createTopics(List<NewTopic> topics, boolean validateOnly) {
    return createTopics(topics, validateOnly, ClusterController.UNLIMITED);
  }

  /**
   * As {@link #createTopics(List, boolean)}, charging each new topic's partitions to {@code
   * mutations}, the client's {@code controller_mutation_rate}.
   */
  public List<TopicResult> createTopics(
      List<NewTopic> topics, boolean validateOnly, IntPredicate mutations) {
    List<TopicResult> results = new ArrayList<>();
    while (results.size() < topics.size()) {
      List<NewTopic> rest = topics.subList(results.size(), topics.size());
      results.addAll(
          quorum.submit(
              image ->
                  controller.createTopics(rest, validateOnly, topicConfigValidator, mutations)));
    }
    return results;
  }

  public ApiError deleteTopic(String name) {
    return deleteTopic(name, ClusterController.UNLIMITED);
  }

  /** Deletes a topic, charging its partitions to {@code mutations}. */
  public ApiError deleteTopic(String name, IntPredicate mutations) {
    return quorum.submit(image -> controller.deleteTopic(name, mutations));
  }

  public ApiError deleteTopic(org.apache.kafka.common.Uuid topicId) {
    return deleteTopic(topicId, ClusterController.UNLIMITED);
  }

  /** Deletes a topic by id, charging its partitions to {@code mutations}. */
  public ApiError deleteTopic(org.apache.kafka.common.Uuid topicId, IntPredicate mutations) {
    return quorum.submit(image -> controller.deleteTopic(topicId, mutations));
  }

  public ApiError createPartitions(
      String topic,
      int newTotalCount,
      Optional<List<List<Integer>>> assignments,
      boolean validateOnly) {
    return createPartitions(
        topic, newTotalCount, assignments, validateOnly, ClusterController.UNLIMITED);
  }

  /** Adds partitions to a topic, charging them to {@code mutations}. */
  public ApiError createPartitions(
      String topic,
      int newTotalCount,
      Optional<List<List<Integer>>> assignments,
      boolean validateOnly,
      IntPredicate mutations) {
    return quorum.submit(
        image ->
            controller.createPartitions(
                topic, newTotalCount, assignments, validateOnly, mutations));
  }

  public ApiError alterConfigs(
      ConfigResource resource, Map<String, Optional<String>> changes, boolean validateOnly) {
    ConfigValidator validator =
        switch (resource.type()) {
          case TOPIC -> topicConfigValidator;
          case GROUP -> groupConfigValidator;
          default -> ConfigValidator.NONE;
        };
    return quorum.submit(
        image -> controller.alterConfigs(resource, changes, validateOnly, validator));
  }

  /**
   * Starts or cancels partition reassignments, in as few operations as the per-operation record
   * limit allows.
   *
   * @return one result per request, in order
   */
  public List<ApiError> alterPartitionReassignments(
      List<PartitionReassignment> requests, boolean allowReplicationFactorChange) {
    List<ApiError> results = new ArrayList<>();
    while (results.size() < requests.size()) {
      List<PartitionReassignment> rest = requests.subList(results.size(), requests.size());
      results.addAll(
          quorum.submit(
              image -> controller.alterPartitionReassignments(rest, allowReplicationFactorChange)));
    }
    return results;
  }

  /** The partitions being reassigned, from the quorum's image (the controller's, on a cluster). */
  public Map<String, Map<Integer, PartitionImage>> listPartitionReassignments(
      Optional<Map<String, List<Integer>>> partitions) {
    return controller.listPartitionReassignments(partitions);
  }

  /** Creates ACLs; one result per binding, in order. */
  public List<ApiError> createAcls(List<org.apache.kafka.common.acl.AclBinding> bindings) {
    return quorum.submit(image -> controller.createAcls(bindings));
  }

  /** Deletes the ACLs each filter matches; one result per filter, in order. */
  public List<io.brook.controller.state.AclControl.FilterResult> deleteAcls(
      List<org.apache.kafka.common.acl.AclBindingFilter> filters) {
    return quorum.submit(image -> controller.deleteAcls(filters));
  }

  public ProducerIdBlock allocateProducerIds(int brokerId, long brokerEpoch) {
    return quorum.submit(image -> controller.allocateProducerIds(brokerId, brokerEpoch));
  }
}
