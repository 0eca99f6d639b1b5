package io.brook.server.config;

import io.brook.storage.log.LogConfig;
import io.brook.storage.log.TopicConfigs;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.InvalidConfigurationException;

/**
 * Turns broker settings into the topic-level defaults ({@link LogConfig}), following Kafka's
 * synonym table: for each topic config, the first of its broker synonyms that has a value wins
 * ({@code log.retention.ms} over {@code log.retention.minutes} over {@code log.retention.hours}),
 * and {@code .minutes} / {@code .hours} values are converted to milliseconds.
 */
final class BrokerLogDefaults {

  private static final long MS_PER_MINUTE = 60_000L;
  private static final long MS_PER_HOUR = 60 * MS_PER_MINUTE;

  private BrokerLogDefaults() {}

  /**
   * @param brokerValue the parsed value of a broker config, null if unset.
   * @throws ConfigException naming the broker config whose value is not a valid topic default.
   */
  static LogConfig derive(Function<String, Object> brokerValue) {
    Map<String, String> topicValues = new TreeMap<>();
    Map<String, String> suppliedBy = new TreeMap<>();
    for (String topicName : TopicConfigs.names()) {
      for (String brokerName : TopicConfigs.brokerSynonyms(topicName)) {
        Object value = brokerValue.apply(brokerName);
        if (value == null) {
          continue;
        }
        String topicValue = topicValue(topicName, brokerName, value);
        try {
          TopicConfigs.validate(Map.of(topicName, topicValue));
        } catch (InvalidConfigurationException e) {
          throw new ConfigException(brokerName, value, e.getMessage());
        }
        topicValues.put(topicName, topicValue);
        suppliedBy.put(topicName, brokerName);
        break;
      }
    }
    try {
      return TopicConfigs.fromOverrides(topicValues, LogConfig.defaults());
    } catch (InvalidConfigurationException e) {
      throw new ConfigException(
          "Inconsistent topic defaults from broker configs " + suppliedBy + ": " + e.getMessage());
    }
  }

  private static String topicValue(String topicName, String brokerName, Object value) {
    if (brokerName.endsWith(".hours") || brokerName.endsWith(".minutes")) {
      long unit = brokerName.endsWith(".hours") ? MS_PER_HOUR : MS_PER_MINUTE;
      long ms = ((Number) value).longValue() * unit;
      return Long.toString(retention(topicName, brokerName, value, ms));
    }
    if (topicName.equals(TopicConfig.RETENTION_MS_CONFIG)) {
      return Long.toString(retention(topicName, brokerName, value, (Long) value));
    }
    return ConfigDef.convertToString(value, BrokerConfigDef.type(brokerName));
  }

  /**
   * Kafka treats any negative broker retention as unlimited (-1) and rejects zero, which would
   * delete every closed segment at once.
   */
  private static long retention(String topicName, String brokerName, Object value, long ms) {
    if (!topicName.equals(TopicConfig.RETENTION_MS_CONFIG)) {
      return ms;
    }
    if (ms == 0) {
      throw new ConfigException(
          brokerName, value, "retention must be -1 (unlimited) or at least 1 ms, not 0");
    }
    return ms < 0 ? LogConfig.UNLIMITED : ms;
  }
}
