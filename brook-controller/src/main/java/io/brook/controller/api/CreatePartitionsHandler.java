package io.brook.controller.api;

import io.brook.broker.api.ApiFailure;
import io.brook.broker.api.KafkaApi;
import io.brook.broker.auth.RequestAuthorizer;
import io.brook.broker.quota.ControllerMutationQuotas;
import io.brook.broker.quota.MutationQuota;
import io.brook.metadata.controller.ApiError;
import io.brook.protocol.RequestContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreatePartitionsResponseData.CreatePartitionsTopicResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/**
 * CreatePartitions: grows a topic to a new partition count (never shrinks it). Needs ALTER on the
 * topic. The new partitions are charged to the client's {@code controller_mutation_rate}.
 */
public final class CreatePartitionsHandler extends KafkaApi {
  /** The first version that knows {@code THROTTLING_QUOTA_EXCEEDED} (KIP-599). */
  private static final short STRICT_QUOTA_SINCE = 3;

  private final TopicAdmin admin;
  private final RequestAuthorizer authorizer;
  private final ControllerMutationQuotas mutationQuotas;

  public CreatePartitionsHandler(
      TopicAdmin admin, RequestAuthorizer authorizer, ControllerMutationQuotas mutationQuotas) {
    super(ApiKeys.CREATE_PARTITIONS);
    this.admin = admin;
    this.authorizer = authorizer;
    this.mutationQuotas = mutationQuotas;
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage message) {
    CreatePartitionsRequestData request = (CreatePartitionsRequestData) message;
    CreatePartitionsResponseData response = new CreatePartitionsResponseData();
    MutationQuota quota =
        mutationQuotas.forRequest(context, context.apiVersion() >= STRICT_QUOTA_SINCE);
    for (CreatePartitionsRequestData.CreatePartitionsTopic topic : request.topics()) {
      CreatePartitionsTopicResult result = new CreatePartitionsTopicResult().setName(topic.name());
      response.results().add(result);
      if (!authorizer.authorize(context, AclOperation.ALTER, ResourceType.TOPIC, topic.name())) {
        result
            .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())
            .setErrorMessage(Errors.TOPIC_AUTHORIZATION_FAILED.message());
        continue;
      }
      try {
        Optional<List<List<Integer>>> assignments = Optional.empty();
        if (topic.assignments() != null) {
          List<List<Integer>> replicas = new ArrayList<>();
          for (CreatePartitionsRequestData.CreatePartitionsAssignment a : topic.assignments()) {
            replicas.add(List.copyOf(a.brokerIds()));
          }
          assignments = Optional.of(replicas);
        }
        ApiError error =
            admin.createPartitions(
                topic.name(), topic.count(), assignments, request.validateOnly(), quota::admit);
        result.setErrorCode(error.error().code()).setErrorMessage(error.message());
      } catch (RuntimeException e) {
        ApiFailure failure = ApiFailure.of(e);
        result.setErrorCode(failure.code()).setErrorMessage(failure.message());
      }
    }
    response.setThrottleTimeMs(quota.throttleTimeMs());
    return CompletableFuture.completedFuture(response);
  }
}
