package io.brook.tests.groups.share;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;

/** The share-group clients and group-config changes the share ITs make alike. */
final class ShareGroupClients {
  private static final Duration CONFIG_TIMEOUT = Duration.ofSeconds(90);

  private ShareGroupClients() {}

  /** A share consumer acknowledging explicitly, at most 100 records a poll. */
  static KafkaShareConsumer<String, String> explicitConsumer(String bootstrap, String group) {
    Properties props = new Properties();
    props.put("bootstrap.servers", bootstrap);
    props.put("group.id", group);
    props.put("share.acknowledgement.mode", "explicit");
    props.put("max.poll.records", "100");
    return new KafkaShareConsumer<>(props, new StringDeserializer(), new StringDeserializer());
  }

  /**
   * Sets group configs and waits until the broker describes them: it applies them with the metadata
   * change, after the answer.
   */
  static void setGroupConfigs(Admin admin, String group, Map<String, String> configs)
      throws Exception {
    List<AlterConfigOp> ops = new ArrayList<>();
    configs.forEach(
        (k, v) -> ops.add(new AlterConfigOp(new ConfigEntry(k, v), AlterConfigOp.OpType.SET)));
    ConfigResource resource = new ConfigResource(ConfigResource.Type.GROUP, group);
    admin.incrementalAlterConfigs(Map.of(resource, ops)).all().get();
    await()
        .atMost(CONFIG_TIMEOUT)
        .until(
            () -> {
              Config now = admin.describeConfigs(List.of(resource)).all().get().get(resource);
              return configs.entrySet().stream()
                  .allMatch(
                      e ->
                          now.get(e.getKey()) != null
                              && e.getValue().equals(now.get(e.getKey()).value()));
            });
  }
}
