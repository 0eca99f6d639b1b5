package io.brook.broker.api;

import io.brook.protocol.ApiHandler;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * A handler serving every version of its API that kafka-clients' generated classes know, which is
 * the range Kafka 4.x brokers serve.
 */
public abstract class KafkaApi implements ApiHandler {
  private final ApiKeys apiKey;

  protected KafkaApi(ApiKeys apiKey) {
    this.apiKey = apiKey;
  }

  @Override
  public final ApiKeys apiKey() {
    return apiKey;
  }

  @Override
  public short minVersion() {
    return apiKey.oldestVersion();
  }

  @Override
  public short maxVersion() {
    return apiKey.latestVersion();
  }
}
