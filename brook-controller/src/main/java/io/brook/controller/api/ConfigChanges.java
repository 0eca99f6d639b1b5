package io.brook.controller.api;

import io.brook.broker.api.ApiFailure;
import io.brook.broker.auth.RequestAuthorizer;
import io.brook.metadata.controller.ApiError;
import io.brook.protocol.RequestContext;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.protocol.Errors;

/** What the two config-altering APIs share on the controller. */
final class ConfigChanges {
  private ConfigChanges() {}

  /**
   * Computes one resource's changes and applies them, turning any failure (including one while
   * computing the changes) into the error to answer with; first, the request must be allowed
   * ALTER_CONFIGS on the resource.
   */
  static ApiFailure alterResource(
      TopicAdmin admin,
      RequestAuthorizer authorizer,
      RequestContext context,
      byte resourceType,
      String resourceName,
      Function<ConfigResource.Type, Map<String, Optional<String>>> changes,
      boolean validateOnly) {
    ApiFailure refused =
        authorizer.configsRefusal(context, resourceType, resourceName, AclOperation.ALTER_CONFIGS);
    if (refused != null) {
      return refused;
    }
    try {
      ConfigResource.Type type = ConfigResource.Type.forId(resourceType);
      ApiError error = alter(admin, type, resourceName, changes.apply(type), validateOnly);
      return new ApiFailure(error.error(), error.message());
    } catch (RuntimeException e) {
      return ApiFailure.of(e);
    }
  }

  /**
   * Applies changes to a topic's overrides, a group's configs, or to the few broker configs Brook
   * changes at runtime ({@link DynamicBrokerConfigs}), through the controller. Other broker configs
   * are refused rather than silently ignored.
   */
  private static ApiError alter(
      TopicAdmin admin,
      ConfigResource.Type type,
      String name,
      Map<String, Optional<String>> changes,
      boolean validateOnly) {
    if (type == ConfigResource.Type.TOPIC || type == ConfigResource.Type.GROUP) {
      return admin.alterConfigs(new ConfigResource(type, name), changes, validateOnly);
    }
    if (type == ConfigResource.Type.BROKER) {
      ApiError refused = DynamicBrokerConfigs.check(name, changes);
      return refused.isFailure()
          ? refused
          : admin.alterConfigs(new ConfigResource(type, name), changes, validateOnly);
    }
    return new ApiError(Errors.INVALID_REQUEST, "Unsupported resource type " + type);
  }
}
