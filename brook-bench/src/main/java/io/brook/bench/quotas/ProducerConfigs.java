package io.brook.bench.quotas;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** The producers of the quota benchmarks: acks=1, byte arrays. */
final class ProducerConfigs {
  private ProducerConfigs() {}

  static Map<String, Object> of(String bootstrap, String clientId, int lingerMs) {
    Map<String, Object> config = new HashMap<>();
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    config.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
    config.put(ProducerConfig.ACKS_CONFIG, "1");
    config.put(ProducerConfig.LINGER_MS_CONFIG, lingerMs);
    config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    return config;
  }
}
