package io.brook.controller.api;

import io.brook.broker.api.ApiFailure;
import io.brook.broker.api.KafkaApi;
import io.brook.broker.auth.RequestAuthorizer;
import io.brook.protocol.RequestContext;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.message.AlterConfigsResponseData.AlterConfigsResourceResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * AlterConfigs (the legacy, whole-set API): the request's configs replace every override the
 * resource had.
 */
public final class AlterConfigsHandler extends KafkaApi {
  private final TopicAdmin admin;
  private final RequestAuthorizer authorizer;

  public AlterConfigsHandler(TopicAdmin admin, RequestAuthorizer authorizer) {
    super(ApiKeys.ALTER_CONFIGS);
    this.admin = admin;
    this.authorizer = authorizer;
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage message) {
    AlterConfigsRequestData request = (AlterConfigsRequestData) message;
    AlterConfigsResponseData response = new AlterConfigsResponseData();
    for (AlterConfigsRequestData.AlterConfigsResource resource : request.resources()) {
      AlterConfigsResourceResponse result =
          new AlterConfigsResourceResponse()
              .setResourceType(resource.resourceType())
              .setResourceName(resource.resourceName());
      response.responses().add(result);
      ApiFailure outcome =
          ConfigChanges.alterResource(
              admin,
              authorizer,
              context,
              resource.resourceType(),
              resource.resourceName(),
              type -> replacement(type, resource),
              request.validateOnly());
      result.setErrorCode(outcome.code()).setErrorMessage(outcome.message());
    }
    return CompletableFuture.completedFuture(response);
  }

  /** The whole-set semantics: every existing override not named again is removed. */
  private Map<String, Optional<String>> replacement(
      ConfigResource.Type type, AlterConfigsRequestData.AlterConfigsResource resource) {
    Map<String, Optional<String>> changes = new LinkedHashMap<>();
    for (String existing : admin.image().configs(type, resource.resourceName()).keySet()) {
      changes.put(existing, Optional.empty());
    }
    for (AlterConfigsRequestData.AlterableConfig config : resource.configs()) {
      changes.put(config.name(), Optional.ofNullable(config.value()));
    }
    return changes;
  }
}
