package io.brook.controller.api;

import io.brook.broker.api.ApiFailure;
import io.brook.broker.api.KafkaApi;
import io.brook.broker.auth.RequestAuthorizer;
import io.brook.metadata.image.MetadataImage;
import io.brook.protocol.RequestContext;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * IncrementalAlterConfigs (KIP-339): SET and DELETE single configs, APPEND to and SUBTRACT from
 * list configs such as {@code cleanup.policy}, leaving other overrides as they are.
 */
public final class IncrementalAlterConfigsHandler extends KafkaApi {
  private static final byte SET = 0;
  private static final byte DELETE = 1;
  private static final byte APPEND = 2;
  private static final byte SUBTRACT = 3;

  private final TopicAdmin admin;
  private final TopicConfigView configs;
  private final RequestAuthorizer authorizer;

  public IncrementalAlterConfigsHandler(
      TopicAdmin admin, TopicConfigView configs, RequestAuthorizer authorizer) {
    super(ApiKeys.INCREMENTAL_ALTER_CONFIGS);
    this.admin = admin;
    this.configs = configs;
    this.authorizer = authorizer;
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage message) {
    IncrementalAlterConfigsRequestData request = (IncrementalAlterConfigsRequestData) message;
    IncrementalAlterConfigsResponseData response = new IncrementalAlterConfigsResponseData();
    for (IncrementalAlterConfigsRequestData.AlterConfigsResource resource : request.resources()) {
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
              type -> changes(type, resource),
              request.validateOnly());
      result.setErrorCode(outcome.code()).setErrorMessage(outcome.message());
    }
    return CompletableFuture.completedFuture(response);
  }

  private Map<String, Optional<String>> changes(
      ConfigResource.Type type, IncrementalAlterConfigsRequestData.AlterConfigsResource resource) {
    MetadataImage image = admin.image();
    Map<String, String> current = new LinkedHashMap<>(image.configs(type, resource.resourceName()));
    Map<String, String> effective =
        type == ConfigResource.Type.TOPIC && image.topic(resource.resourceName()).isPresent()
            ? configs.effective(image, resource.resourceName())
            : current;
    Map<String, Optional<String>> changes = new LinkedHashMap<>();
    for (IncrementalAlterConfigsRequestData.AlterableConfig config : resource.configs()) {
      String name = config.name();
      if (changes.containsKey(name)) {
        throw new InvalidRequestException("config " + name + " appears twice in one request");
      }
      switch (config.configOperation()) {
        case SET -> changes.put(name, Optional.ofNullable(config.value()));
        case DELETE -> changes.put(name, Optional.empty());
        case APPEND, SUBTRACT -> {
          List<String> items =
              new ArrayList<>(split(current.getOrDefault(name, effective.get(name))));
          for (String item : split(config.value())) {
            if (config.configOperation() == APPEND && !items.contains(item)) {
              items.add(item);
            } else if (config.configOperation() == SUBTRACT) {
              items.remove(item);
            }
          }
          changes.put(name, Optional.of(String.join(",", items)));
        }
        default ->
            throw new InvalidRequestException(
                "unknown config operation " + config.configOperation() + " for " + name);
      }
    }
    return changes;
  }

  private static List<String> split(String value) {
    if (value == null || value.isBlank()) {
      return List.of();
    }
    return Arrays.stream(value.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
  }
}
