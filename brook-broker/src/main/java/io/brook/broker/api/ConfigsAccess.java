package io.brook.broker.api;

import io.brook.broker.BrokerIdentity;
import io.brook.broker.admin.TopicAdmin;
import io.brook.metadata.controller.ApiError;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.protocol.Errors;

/** What the two config-altering APIs share. */
final class ConfigsAccess {
  private ConfigsAccess() {}

  /** A BROKER resource name this broker answers for: its own id, or "" for the cluster default. */
  static boolean isThisBroker(String resourceName, BrokerIdentity identity) {
    return resourceName == null
        || resourceName.isEmpty()
        || resourceName.equals(Integer.toString(identity.brokerId()));
  }

  /**
   * Computes one resource's changes and applies them, turning any failure (including one while
   * computing the changes) into the error to answer with.
   */
  static ApiFailure alterResource(
      TopicAdmin admin,
      byte resourceType,
      String resourceName,
      java.util.function.Function<ConfigResource.Type, Map<String, Optional<String>>> changes,
      boolean validateOnly) {
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
