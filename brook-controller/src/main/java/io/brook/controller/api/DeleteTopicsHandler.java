package io.brook.controller.api;

import io.brook.broker.api.ApiFailure;
import io.brook.broker.api.KafkaApi;
import io.brook.broker.auth.RequestAuthorizer;
import io.brook.broker.quota.ControllerMutationQuotas;
import io.brook.broker.quota.MutationQuota;
import io.brook.metadata.controller.ApiError;
import io.brook.metadata.image.TopicImage;
import io.brook.protocol.RequestContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsResponseData.DeletableTopicResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/**
 * DeleteTopics, by name (all versions) or by topic id (v6+). Each topic needs DELETE
 * (TOPIC_AUTHORIZATION_FAILED otherwise; a topic named by id is then not named back). The deleted
 * partitions are charged to the client's {@code controller_mutation_rate}.
 */
public final class DeleteTopicsHandler extends KafkaApi {
  /** The first version that knows {@code THROTTLING_QUOTA_EXCEEDED} (KIP-599). */
  private static final short STRICT_QUOTA_SINCE = 5;

  private final TopicAdmin admin;
  private final RequestAuthorizer authorizer;
  private final ControllerMutationQuotas mutationQuotas;

  public DeleteTopicsHandler(
      TopicAdmin admin, RequestAuthorizer authorizer, ControllerMutationQuotas mutationQuotas) {
    super(ApiKeys.DELETE_TOPICS);
    this.admin = admin;
    this.authorizer = authorizer;
    this.mutationQuotas = mutationQuotas;
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage message) {
    DeleteTopicsRequestData request = (DeleteTopicsRequestData) message;
    List<DeleteTopicsRequestData.DeleteTopicState> wanted = new ArrayList<>(request.topics());
    for (String name : request.topicNames()) {
      wanted.add(new DeleteTopicsRequestData.DeleteTopicState().setName(name));
    }
    DeleteTopicsResponseData response = new DeleteTopicsResponseData();
    MutationQuota quota =
        mutationQuotas.forRequest(context, context.apiVersion() >= STRICT_QUOTA_SINCE);
    for (DeleteTopicsRequestData.DeleteTopicState topic : wanted) {
      DeletableTopicResult result =
          new DeletableTopicResult().setName(topic.name()).setTopicId(topic.topicId());
      response.responses().add(result);
      try {
        boolean byId = topic.name() == null && !Uuid.ZERO_UUID.equals(topic.topicId());
        Optional<TopicImage> existing =
            byId ? admin.image().topic(topic.topicId()) : admin.image().topic(topic.name());
        String name = existing.map(TopicImage::name).orElse(topic.name());
        if (name != null
            && !authorizer.authorize(context, AclOperation.DELETE, ResourceType.TOPIC, name)) {
          result
              .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())
              .setErrorMessage(Errors.TOPIC_AUTHORIZATION_FAILED.message());
          continue;
        }
        existing.ifPresent(t -> result.setName(t.name()).setTopicId(t.id()));
        ApiError error =
            byId
                ? admin.deleteTopic(topic.topicId(), quota::admit)
                : admin.deleteTopic(topic.name(), quota::admit);
        if (byId && error.error() == Errors.UNKNOWN_TOPIC_OR_PARTITION) {
          error = ApiError.of(Errors.UNKNOWN_TOPIC_ID);
        }
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
