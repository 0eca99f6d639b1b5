package io.brook.controller.state;

import io.brook.metadata.controller.ApiError;
import io.brook.metadata.controller.ControllerResult;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.record.ConfigRecord;
import io.brook.metadata.record.MetadataRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.protocol.Errors;

/** Config overrides of topics, brokers and groups. */
final class ConfigControl {
  private ConfigControl() {}

  static ControllerResult<ApiError> alterConfigs(
      MetadataImage image,
      ConfigResource resource,
      Map<String, Optional<String>> changes,
      boolean validateOnly,
      ConfigValidator validator) {
    switch (resource.type()) {
      case TOPIC:
        if (image.topic(resource.name()).isEmpty()) {
          return ControllerResult.of(
              new ApiError(
                  Errors.UNKNOWN_TOPIC_OR_PARTITION,
                  "The topic '" + resource.name() + "' does not exist."));
        }
        break;
      case BROKER:
        if (!isBrokerResourceName(resource.name())) {
          return ControllerResult.of(
              new ApiError(Errors.INVALID_REQUEST, "Invalid broker id: " + resource.name()));
        }
        break;
      case GROUP:
        // Kafka's group configs: the group need not exist yet (it may be created later).
        if (resource.name().isEmpty()) {
          return ControllerResult.of(
              new ApiError(Errors.INVALID_REQUEST, "A group config resource needs a group id."));
        }
        break;
      default:
        return ControllerResult.of(
            new ApiError(
                Errors.INVALID_REQUEST,
                "Unsupported config resource type " + resource.type() + "."));
    }
    Map<String, String> current = image.configs(resource.type(), resource.name());
    Map<String, String> updated = new TreeMap<>(current);
    List<MetadataRecord> records = new ArrayList<>();
    for (Map.Entry<String, Optional<String>> change : new TreeMap<>(changes).entrySet()) {
      String name = change.getKey();
      String value = change.getValue().orElse(null);
      if (Objects.equals(current.get(name), value)) {
        continue;
      }
      if (value == null) {
        updated.remove(name);
      } else {
        updated.put(name, value);
      }
      records.add(new ConfigRecord(resource.type(), resource.name(), name, value));
    }
    ApiError error = validate(() -> validator.validateChange(current, unmodifiable(updated)));
    if (error.isFailure()) {
      return ControllerResult.of(error);
    }
    return validateOnly
        ? ControllerResult.of(ApiError.NONE)
        : ControllerResult.of(records, ApiError.NONE);
  }

  /** Runs the validator and turns its exception into an error value. */
  static ApiError validate(ConfigValidator validator, Map<String, String> configs) {
    return validate(() -> validator.validate(unmodifiable(configs)));
  }

  private static Map<String, String> unmodifiable(Map<String, String> configs) {
    return java.util.Collections.unmodifiableMap(configs);
  }

  private static ApiError validate(Runnable check) {
    try {
      check.run();
      return ApiError.NONE;
    } catch (ApiException e) {
      Errors error = Errors.forException(e);
      return new ApiError(
          error == Errors.UNKNOWN_SERVER_ERROR ? Errors.INVALID_CONFIG : error, e.getMessage());
    } catch (ConfigException e) {
      return new ApiError(Errors.INVALID_CONFIG, e.getMessage());
    }
  }

  /** {@code ""} (the cluster-wide default) or the decimal id of a broker. */
  static boolean isBrokerResourceName(String name) {
    if (name.isEmpty()) {
      return true;
    }
    try {
      int id = Integer.parseInt(name);
      return id >= 0 && Integer.toString(id).equals(name);
    } catch (NumberFormatException e) {
      return false;
    }
  }
}
