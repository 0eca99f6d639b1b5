package io.brook.controller.state;

import java.util.Map;
import org.apache.kafka.common.errors.ApiException;

/**
 * Checks a resource's complete set of config overrides before they are stored. The broker supplies
 * it (it knows the config definitions); this module only stores names and values.
 *
 * <p>An {@link ApiException} rejects the configs: its Kafka error code and message are returned (a
 * code that maps to {@code UNKNOWN_SERVER_ERROR} becomes {@code INVALID_CONFIG}). A {@link
 * org.apache.kafka.common.config.ConfigException} is also answered with {@code INVALID_CONFIG}.
 */
@FunctionalInterface
public interface ConfigValidator {
  /** Accepts every config. */
  ConfigValidator NONE = configs -> {};

  /**
   * @param topicConfigs the overrides the resource would have after the operation
   * @throws ApiException if they are not acceptable
   */
  void validate(Map<String, String> topicConfigs) throws ApiException;

  /**
   * Checks an alteration: {@code current} are the overrides before it, {@code updated} after. By
   * default only the result is checked; rules about transitions (turning remote storage off) need
   * both.
   *
   * @throws ApiException if the change is not acceptable
   */
  default void validateChange(Map<String, String> current, Map<String, String> updated)
      throws ApiException {
    validate(updated);
  }
}
