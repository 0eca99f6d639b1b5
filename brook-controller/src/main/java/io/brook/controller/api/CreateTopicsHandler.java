package io.brook.controller.api;

import io.brook.broker.api.ApiFailure;
import io.brook.broker.api.KafkaApi;
import io.brook.broker.auth.RequestAuthorizer;
import io.brook.broker.quota.ControllerMutationQuotas;
import io.brook.broker.quota.MutationQuota;
import io.brook.controller.state.NewTopic;
import io.brook.controller.state.TopicResult;
import io.brook.protocol.RequestContext;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/**
 * CreateTopics: validated and placed by the controller, durable in the metadata log before the
 * answer. A topic named twice in one request is refused, as in Kafka. Needs CREATE on the cluster,
 * or on each topic (TOPIC_AUTHORIZATION_FAILED for the others). New partitions are charged to the
 * client's {@code controller_mutation_rate}.
 */
public final class CreateTopicsHandler extends KafkaApi {
  /** The first version that knows {@code THROTTLING_QUOTA_EXCEEDED} (KIP-599). */
  private static final short STRICT_QUOTA_SINCE = 6;

  private final TopicAdmin admin;
  private final TopicConfigView configs;
  private final RequestAuthorizer authorizer;
  private final ControllerMutationQuotas mutationQuotas;

  public CreateTopicsHandler(
      TopicAdmin admin,
      TopicConfigView configs,
      RequestAuthorizer authorizer,
      ControllerMutationQuotas mutationQuotas) {
    super(ApiKeys.CREATE_TOPICS);
    this.admin = admin;
    this.configs = configs;
    this.authorizer = authorizer;
    this.mutationQuotas = mutationQuotas;
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage message) {
    CreateTopicsRequestData request = (CreateTopicsRequestData) message;
    CreateTopicsResponseData response = new CreateTopicsResponseData();
    Map<String, Integer> seen = new HashMap<>();
    for (CreatableTopic topic : request.topics()) {
      seen.merge(topic.name(), 1, Integer::sum);
    }
    List<NewTopic> accepted = new ArrayList<>();
    List<CreatableTopicResult> acceptedResults = new ArrayList<>();
    boolean clusterCreate = authorizer.authorizeClusterQuietly(context, AclOperation.CREATE);
    for (CreatableTopic topic : request.topics()) {
      CreatableTopicResult result =
          new CreatableTopicResult()
              .setName(topic.name())
              .setNumPartitions(-1)
              .setReplicationFactor((short) -1);
      response.topics().add(result);
      if (seen.get(topic.name()) > 1) {
        result
            .setErrorCode(Errors.INVALID_REQUEST.code())
            .setErrorMessage("Create topics request from client contains a duplicate topic name");
        continue;
      }
      if (!clusterCreate
          && !authorizer.authorize(
              context, AclOperation.CREATE, ResourceType.TOPIC, topic.name())) {
        result
            .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())
            .setErrorMessage(Errors.TOPIC_AUTHORIZATION_FAILED.message());
        continue;
      }
      accepted.add(toNewTopic(topic));
      acceptedResults.add(result);
    }
    // All topics in as few controller operations as possible: one Raft entry in a cluster.
    MutationQuota quota =
        mutationQuotas.forRequest(context, context.apiVersion() >= STRICT_QUOTA_SINCE);
    try {
      List<TopicResult> created =
          admin.createTopics(accepted, request.validateOnly(), quota::admit);
      for (int i = 0; i < created.size(); i++) {
        fill(created.get(i), request.validateOnly(), acceptedResults.get(i));
      }
    } catch (RuntimeException e) {
      ApiFailure failure = ApiFailure.of(e);
      for (CreatableTopicResult result : acceptedResults) {
        result.setErrorCode(failure.code()).setErrorMessage(failure.message());
      }
    }
    response.setThrottleTimeMs(quota.throttleTimeMs());
    return CompletableFuture.completedFuture(response);
  }

  private static NewTopic toNewTopic(CreatableTopic topic) {
    Map<Integer, List<Integer>> assignment = new LinkedHashMap<>();
    for (CreateTopicsRequestData.CreatableReplicaAssignment a : topic.assignments()) {
      assignment.put(a.partitionIndex(), List.copyOf(a.brokerIds()));
    }
    Map<String, String> topicConfigs = new LinkedHashMap<>();
    for (CreateTopicsRequestData.CreatableTopicConfig c : topic.configs()) {
      topicConfigs.put(c.name(), c.value());
    }
    return new NewTopic(
        topic.name(), topic.numPartitions(), topic.replicationFactor(), assignment, topicConfigs);
  }

  private void fill(TopicResult result, boolean validateOnly, CreatableTopicResult out) {
    if (result.error().isFailure()) {
      out.setErrorCode(result.error().error().code())
          .setErrorMessage(result.error().messageOrDefault());
      return;
    }
    out.setTopicId(result.topicId())
        .setNumPartitions(result.numPartitions())
        .setReplicationFactor(result.replicationFactor());
    if (!validateOnly) {
      out.configs().addAll(configs.describe(admin.image(), result.name()));
    }
  }
}
