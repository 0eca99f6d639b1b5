package io.brook.broker.api;

import io.brook.broker.BrokerIdentity;
import io.brook.broker.admin.ConfigDescriber;
import io.brook.broker.auth.RequestAuthorizer;
import io.brook.broker.replica.ReplicaManager;
import io.brook.metadata.image.MetadataImage;
import io.brook.protocol.RequestContext;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * DescribeConfigs for topics (effective values and their sources), for this broker, and for groups
 * (their share-group configs, {@link ConfigDescriber#describeGroup}); needs DESCRIBE_CONFIGS on the
 * topic, on the cluster for a broker, on the group for a group.
 */
public final class DescribeConfigsHandler extends KafkaApi {
  private final BrokerIdentity identity;
  private final ReplicaManager replicaManager;
  private final ConfigDescriber describer;
  private final RequestAuthorizer authorizer;

  public DescribeConfigsHandler(
      BrokerIdentity identity,
      ReplicaManager replicaManager,
      ConfigDescriber describer,
      RequestAuthorizer authorizer) {
    super(ApiKeys.DESCRIBE_CONFIGS);
    this.identity = identity;
    this.replicaManager = replicaManager;
    this.describer = describer;
    this.authorizer = authorizer;
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage message) {
    DescribeConfigsRequestData request = (DescribeConfigsRequestData) message;
    DescribeConfigsResponseData response = new DescribeConfigsResponseData();
    MetadataImage image = replicaManager.image();
    for (DescribeConfigsRequestData.DescribeConfigsResource resource : request.resources()) {
      DescribeConfigsResult result =
          new DescribeConfigsResult()
              .setResourceType(resource.resourceType())
              .setResourceName(resource.resourceName());
      response.results().add(result);
      ConfigResource.Type type = ConfigResource.Type.forId(resource.resourceType());
      ApiFailure refused =
          authorizer.configsRefusal(
              context,
              resource.resourceType(),
              resource.resourceName(),
              AclOperation.DESCRIBE_CONFIGS);
      if (refused != null) {
        result.setErrorCode(refused.code()).setErrorMessage(refused.message());
        continue;
      }
      try {
        if (type == ConfigResource.Type.TOPIC) {
          if (image.topic(resource.resourceName()).isEmpty()) {
            result
                .setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code())
                .setErrorMessage("Topic " + resource.resourceName() + " does not exist");
            continue;
          }
          result.setConfigs(
              describer.describeTopic(
                  image,
                  resource.resourceName(),
                  resource.configurationKeys(),
                  request.includeSynonyms(),
                  request.includeDocumentation()));
        } else if (type == ConfigResource.Type.BROKER) {
          if (!ConfigsAccess.isThisBroker(resource.resourceName(), identity)) {
            result
                .setErrorCode(Errors.INVALID_REQUEST.code())
                .setErrorMessage(
                    "Unexpected broker id, expected "
                        + identity.brokerId()
                        + " or empty string, but received "
                        + resource.resourceName());
            continue;
          }
          result.setConfigs(
              describer.describeBroker(
                  image,
                  identity.brokerId(),
                  resource.configurationKeys(),
                  request.includeSynonyms(),
                  request.includeDocumentation()));
        } else if (type == ConfigResource.Type.GROUP) {
          result.setConfigs(
              describer.describeGroup(
                  image,
                  resource.resourceName(),
                  resource.configurationKeys(),
                  request.includeSynonyms(),
                  request.includeDocumentation()));
        } else {
          result
              .setErrorCode(Errors.INVALID_REQUEST.code())
              .setErrorMessage("Unsupported resource type " + type);
        }
      } catch (RuntimeException e) {
        ApiFailure failure = ApiFailure.of(e);
        result.setErrorCode(failure.code()).setErrorMessage(failure.message());
      }
    }
    return CompletableFuture.completedFuture(response);
  }
}
