package io.brook.broker.api;

import io.brook.broker.BrokerIdentity;
import io.brook.broker.admin.TopicAdmin;
import io.brook.broker.auth.RequestAuthorizer;
import io.brook.metadata.controller.ApiError;
import io.brook.protocol.RequestContext;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/** What the config APIs share. */
final class ConfigsAccess {
  private ConfigsAccess() {}

  /** A BROKER resource name this broker answers for: its own id, or "" for the cluster default. */
  static boolean isThisBroker(String resourceName, BrokerIdentity identity) {
    return resourceName == null
        || resourceName.isEmpty()
        || resourceName.equals(Integer.toString(identity.brokerId()));
  }

  /**
   * Why the request may not read or change a resource's configs ({@code DESCRIBE_CONFIGS} or {@code
   * ALTER_CONFIGS}: a topic's on the topic, a broker's on the cluster), or null when it may. Other
   * resource types are left to the handler, which refuses them.
   */
  static ApiFailure refusal(
      RequestAuthorizer authorizer,
      RequestContext context,
      byte resourceType,
      String resourceName,
      AclOperation operation) {
    ConfigResource.Type type = ConfigResource.Type.forId(resourceType);
    if (type == ConfigResource.Type.TOPIC
        && !authorizer.authorize(context, operation, ResourceType.TOPIC, resourceName)) {
      return ApiFailure.of(Errors.TOPIC_AUTHORIZATION_FAILED);
    }
    if ((type == ConfigResource.Type.BROKER || type == ConfigResource.Type.BROKER_LOGGER)
        && !authorizer.authorizeCluster(context, operation)) {
      return ApiFailure.of(Errors.CLUSTER_AUTHORIZATION_FAILED);
    }
    return null;
  }

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
      java.util.function.Function<ConfigResource.Type, Map<String, Optional<String>>> changes,
      boolean validateOnly) {
    ApiFailure refused =
        refusal(authorizer, context, resourceType, resourceName, AclOperation.ALTER_CONFIGS);
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
   * Applies changes to a topic's overrides through the controller. Dynamic broker configs are not
   * applied by Brook yet, so altering them is refused rather than silently ignored.
   */
  static ApiError alter(
      TopicAdmin admin,
      ConfigResource.Type type,
      String name,
      Map<String, Optional<String>> changes,
      boolean validateOnly) {
    if (type == ConfigResource.Type.TOPIC) {
      return admin.alterConfigs(new ConfigResource(type, name), changes, validateOnly);
    }
    if (type == ConfigResource.Type.BROKER) {
      return new ApiError(
          Errors.INVALID_REQUEST,
          "Brook does not support dynamic broker configs yet; set them in the properties file");
    }
    return new ApiError(Errors.INVALID_REQUEST, "Unsupported resource type " + type);
  }
}
